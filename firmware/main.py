"""Vora Board firmware entry point (copied to the board as /main.py).

Reads the pin map (/pinmap.json, a copy of one of hardware/pinmap-*.json), starts the
hardware layer, and runs the Vora application. Holding any corner key at power-up starts
safe mode: the application does not run and the REPL stays free for mpremote.
"""

import json
import sys

from vora_fw import VERSION
from vora_fw.layout import CORNER_OF_SEAT

PINMAP_FILE = "/pinmap.json"
SAVE_DIR = "/save"


def load_pinmap(path=PINMAP_FILE):
    with open(path) as f:
        return json.load(f)


def make_hardware(pinmap):
    if sys.implementation.name == "circuitpython":
        from vora_fw import hal_circuitpython as hal
    else:
        from vora_fw import hal_rp2 as hal
    return hal.Hardware(pinmap)


def safe_mode_requested(hw):
    for k in CORNER_OF_SEAT.values():
        if hw.held_at_boot(k):
            return True
    return False


def main(pinmap_file=PINMAP_FILE, save_dir=SAVE_DIR):
    """Start the board; returns "safe" in safe mode (the REPL stays free) and "repl" when the
    PC asked for the REPL; runs forever otherwise."""
    pinmap = load_pinmap(pinmap_file)
    hw = make_hardware(pinmap)
    if safe_mode_requested(hw):
        print("Vora Board %s: safe mode (a corner key was held); the game does not start." % VERSION)
        return "safe"
    import asyncio
    from vora_fw.app import App
    from vora_fw.link import BoardLink, StdioPort
    from vora_fw.store import Store

    port = StdioPort()  # the keyboard interrupt is off while the link runs
    link = BoardLink(port.write, port.read, board=pinmap.get("board", ""))
    app = App(hw, pinmap, Store(save_dir), link, id_fn=_random_id)
    try:
        asyncio.run(app.run())
    finally:
        port.close()  # Ctrl-C works again
    print("Vora Board %s: stopped for the REPL (the PC asked); reset to play again." % VERSION)
    return "repl"


def _random_id():
    # Names a dealt game for the PC; not part of the rules, so real randomness is fine here.
    import os
    b = os.urandom(4)
    return b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]


if __name__ == "__main__":  # MicroPython runs /main.py as __main__ at boot
    main()
