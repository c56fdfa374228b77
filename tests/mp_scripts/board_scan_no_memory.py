"""A key settling while the heap has no byte to give (micropython.heap_lock: every
allocation raises MemoryError, as a heap full to its last block does; for
tests/test_micropython_unix.py). The scan that would report the key must not raise out
of App.step (on a board that would end the scan loop: the keys dead until a reset), and
the key must not be lost: once the heap gives again, the next scans deliver it. Prints
what it saw, one fact a line.

Usage (module on the path): board_scan_no_memory
"""

import micropython

from vora_fw import layout
from vora_fw.app import App
from vora_fw.hal_sim import SimHardware
from vora_fw.hal_sim import default_pinmap
from vora_fw.store import Store


def main():
    try:
        import os
        os.mkdir("save")
    except OSError:
        pass
    hw = SimHardware()
    app = App(hw, default_pinmap(), Store("save"), seed_fn=lambda: 7)
    now = 0
    for _ in range(20):  # the board settles after power-up
        now += 5
        app.step(now)
    key = layout.key_index("c3")
    hw.press(key)
    now += 5
    app.step(now)  # the press is seen, its debounce starts
    now += 100  # ... and is over: the next scan reports the press
    raised = None
    micropython.heap_lock()
    try:
        app.step(now)
    except MemoryError as exc:
        raised = exc
    finally:
        micropython.heap_unlock()
    print("raised", raised is not None)
    print("game_before", app.ui.state is not None)
    for _ in range(20):
        now += 5
        app.step(now)
    hw.release(key)
    for _ in range(20):
        now += 5
        app.step(now)
    print("game_after", app.ui.state is not None and len(app.ui.legal) > 0)

main()
