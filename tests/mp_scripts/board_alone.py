"""The board as vora_fw.start makes it (start.make_app, start.run_app: the asyncio tasks, in
real time), its serial link on this process's stdin and stdout (start.StdioPort, as on the
board's USB), for the Unix port of MicroPython; driven by tests/test_board_alone.py.

1. A game of two people is dealt and MOVES_ALONE moves are played by keys on the
   simulated hardware while no PC says anything. Then it prints, as plain text (the board
   speaks on the link only after a HELLO), "alone <moves> <digest> <modules>": the moves
   and the state's digest so far, and which of the link's modules are loaded ("-": none).
2. It waits for the PC (the link made at its first byte, then connected by its HELLO), and
   plays MOVES_WITH_PC more moves by keys, which the link reports to the PC.
3. When the PC asks for the REPL the application stops; it prints "done <moves> <digest>".

With STALL_EVERY, the process stands still for 150 ms after every STALL_EVERY-th key press
(as a loaded machine can make it).

Usage (module on the path): board_alone SEED MOVES_ALONE MOVES_WITH_PC [STALL_EVERY]
"""

import asyncio
import os
import sys
import time

from shared_rules import prng
from vora_fw import VERSION, boot, layout, start
from vora_fw.hal_sim import SimHardware, default_pinmap
import board_player

SEED = int(sys.argv[1])
MOVES_ALONE = int(sys.argv[2])
MOVES_WITH_PC = int(sys.argv[3])
STALL_EVERY = int(sys.argv[4]) if len(sys.argv) > 4 else 0  # stall after every Nth press
# Modules a board playing alone never loads: its link, and the notation of positions (a
# game dealt from the box has no start position to read or write).
LINK_MODULES = ("vora_fw.link", "shared_rules.wire", "shared_rules.session", "vora_fw.maker",
                "shared_rules.vora_position")
HOLD_MS = 80  # a key held (and then released) at least this long: four times the debounce
FLASH = "flash"
IDENTITY = {"micropython": "1.27.0", "mpy": 6, "mpy_sub": 3, "arch": "armv6m",
            "platform": "rp2"}


class Run:
    pass


R = Run()
R.chooser = prng.seed_state(SEED + 99)
R.presses = 0


async def stall():
    # The process not run for 150 ms just after a key went down, as on a loaded machine:
    # the whole loop stands still (a blocking sleep), and then the scan's period and the
    # key's hold are both over at once.
    time.sleep_ms(150)


async def press(name):
    # Down until the board has seen the key down, then up until it has seen it up: a key
    # held a fixed time was lost when the scan loop ran once in that time (a stall).
    k = layout.key_index(name)
    R.hw.press(k)
    R.presses += 1
    if STALL_EVERY and R.presses % STALL_EVERY == 0:
        asyncio.create_task(stall())
    await seen(k, True)
    R.hw.release(k)
    await seen(k, False)


async def seen(k, down):
    # At least HOLD_MS, and until the board's debounced state says so (10 s at most), or
    # the application stops (the PC asked for the REPL once it had every move).
    await asyncio.sleep_ms(HOLD_MS)
    scanner = R.app.scanner
    for _ in range(1000):
        if scanner.is_pressed(k) == down or R.app.stopping():
            return
        await asyncio.sleep_ms(10)
    raise AssertionError("the board did not see key %d %s in 10 s" % (k, "down" if down else "up"))


async def play(moves):
    ui = R.app.ui
    for _ in range(moves):
        legal = ui.legal
        i, R.chooser = prng.below(R.chooser, len(legal))
        played = len(ui.moves)
        for name in board_player.move_keys(ui, legal[i]):
            await press(name)
        assert len(ui.moves) == played + 1, "the keys did not play %s" % legal[i]


async def person():
    ui = R.app.ui
    await press("c3")  # deal: South and North sit at power-up
    await play(MOVES_ALONE)
    loaded = [m for m in LINK_MODULES if m in sys.modules]
    print("alone", len(ui.moves), ui.state.digest(), ",".join(loaded) or "-")
    for _ in range(3000):  # the PC says HELLO (30 s at most)
        if R.app.link is not None and R.app.link.connected:
            break
        await asyncio.sleep_ms(10)
    await play(MOVES_WITH_PC)


async def main():
    try:
        os.mkdir(FLASH)
    except OSError:
        pass
    rec = boot.empty_record()
    rec["slot"] = "a"
    boot.write_record(boot.Fs(), FLASH, rec)
    slot, mode, rec = boot.decide(boot.Fs(), FLASH)
    b = boot.Boot(boot.Fs(), FLASH, slot, mode, rec, VERSION)
    b.identity = IDENTITY
    R.hw = SimHardware()
    port = start.StdioPort()
    try:
        R.app = start.make_app(R.hw, default_pinmap(), b, "save", port)
        app_task = asyncio.create_task(start.run_app(R.app, b))
        await person()
        await app_task  # until the PC asks for the REPL
    finally:
        port.close()
    print("done", len(R.app.ui.moves), R.app.ui.state.digest())


asyncio.run(main())
