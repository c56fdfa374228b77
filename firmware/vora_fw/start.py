"""Start the firmware version the boot path chose (vora_fw.boot.main imports this from the
slot it boots): hardware, application, the USB serial port (the link and the makers'
service on it are made at the PC's first byte), and for a version on trial the
confirmation once it has run CONFIRM_MS without failing."""

import sys

from vora_fw import VERSION, intern_names  # noqa: F401  (intern_names: the soak's too)


def make_hardware(pinmap):
    if sys.implementation.name == "circuitpython":
        from vora_fw import hal_circuitpython as hal
    else:
        from vora_fw import hal_rp2 as hal  # type: ignore[no-redef]
    return hal.Hardware(pinmap)


MAKER_REQUEST = "maker.req"  # at the flash's root: the next start is the maker mode
# The game's modules loaded at their first use: their names at the start (shared_rules.
# vora_position: a state or a position read, vora.from_json and new_game(position=...),
# and saved_game, a save read, both by vora_ui_restore, which lets them go after).
ON_DEMAND = ("bot", "vora_ui_restore", "saved_game", "shared_rules.vora_position")
# While the firmware loads, the collector runs after every this many bytes allocated.
LOAD_COLLECT_BYTES = 1024


def collect_often(on=True):
    """Loading a module from a .mpy file leaves garbage beside each function it keeps; left
    for one late collection, that garbage lies between the code for good, and the heap
    starts in pieces (32-bit, 200 KiB, with a PC: 56 KB free but no block over 3.3 KB). Run
    often while loading, the collector gives it back while it is still at the end of what
    is in use: the same start left a free block of 54 KB (docs/benchmarks.md,
    "Fragmentation at start"). Off again for play (on=False), whose time it would cost."""
    import gc
    threshold = getattr(gc, "threshold", None)
    if threshold is not None:
        threshold(LOAD_COLLECT_BYTES if on else -1)


def take_maker_request(boot):
    """True when the game asked, before its reset, for this start to be the maker mode
    (vora_fw.maker: an update). The request is removed first, so the maker mode runs once:
    a power cut or a crash in it starts the game again. A version on trial never starts
    in it (it must run the game to confirm itself)."""
    if boot is None:
        return False
    p = boot.root + "/" + MAKER_REQUEST
    try:
        boot.fs.stat(p)
    except OSError:
        return False
    try:
        boot.fs.remove(p)
    except OSError:
        return False  # a request that cannot be removed could start the maker mode for ever
    sync = getattr(boot.fs, "sync", None)
    if sync is not None:
        sync()
    return boot.mode != "trial"


def run(pinmap, boot, save_dir="/save"):
    """Run the game until the PC asks for the REPL; returns "repl"."""
    collect_often()
    import asyncio
    port = StdioPort()  # the keyboard interrupt is off while the application runs
    try:
        if take_maker_request(boot):
            from vora_fw.maker_mode import run_maker_mode  # returns for the REPL only
            run_maker_mode(make_hardware(pinmap), pinmap, boot, port, _reset, collect_often)
        else:
            app = make_app(make_hardware(pinmap), pinmap, boot, save_dir, port)
            collect_often(False)
            asyncio.run(run_app(app, boot))
    finally:
        port.close()  # Ctrl-C works again
    print("Vora Board %s: stopped for the REPL (the PC asked); reset to play again." % VERSION)
    return "repl"


def make_app(hw, pinmap, boot, save_dir, port):
    """The application on hw with its saves in save_dir, and the link to the PC on port
    (read(), write()) made only when the PC first sends a byte: a board that plays alone
    never loads the link, the wire format, the session or the makers' service."""
    import os
    from vora_fw.app import App
    from vora_fw.store import Store
    app = App(hw, pinmap, Store(save_dir), id_fn=_random_id)
    intern_names(ON_DEMAND)

    def make_link():
        collect_often()
        try:
            from vora_fw.link import BoardLink
            link = BoardLink(port.write, port.read, board=pinmap.get("board", ""))
            attach(app, link, pinmap, boot, boot.identity, VERSION, _reset,
                   getattr(os, "statvfs", None), maker_mode=MAKER_REQUEST)
        finally:
            collect_often(False)
        return link

    app.link_on_demand(port.read, make_link)
    return app


def attach(app, link, pinmap, boot, identity, version, reset, statvfs=None,
           maker_mode=False):
    """Give the link its makers' service (update and doctor messages). maker_mode: the
    file that asks the next start for the maker mode (MAKER_REQUEST, read here): an update
    offered while the game runs leaves it and restarts the board, and is taken there
    (vora_fw.maker); without it, it is taken beside the game (the virtual board, whose
    heap has no hard limit)."""
    link.maker = MakerOnDemand(link, (app, pinmap, boot, identity, version, reset, statvfs,
                                      maker_mode))
    return link.maker


class MakerOnDemand:
    """`link.maker` while the game runs, until the PC's first makers' message (0x40..0x5F):
    HELLO_OK's facts about the board without vora_fw.maker, whose code play never needs
    (5.7 KB of a 32-bit heap: issue 40, a 192 KiB heap with a PC). The first message
    loads the service, hands it over and is handled there. `args`: MakerService's after
    the link (app, pinmap, boot, identity, version, reset, statvfs, maker_mode)."""

    def __init__(self, link, args):
        self.link = link
        self.args = args

    def caps(self):
        from vora_fw.link import maker_caps  # loaded: the link asks
        return maker_caps(self.args[2])

    def hello_info(self):
        from vora_fw.link import board_info
        app, pinmap, boot, identity, version = self.args[:5]
        return board_info(version, pinmap, identity, boot)

    def handle(self, type, payload):
        from vora_fw.maker import MakerService
        service = MakerService(self.link, *self.args)
        self.link.maker = service
        service.handle(type, payload)


async def run_app(app, boot, confirm_ms=None):
    """app.run(), and for a trial version boot.confirm() once it has run confirm_ms."""
    import asyncio
    task = asyncio.create_task(app.run())
    if boot is not None and boot.mode == "trial":
        await _sleep_ms(boot.confirm_ms if confirm_ms is None else confirm_ms)
        if not task.done():
            boot.confirm()
    await task


def _sleep_ms(ms):
    import asyncio
    sleep_ms = getattr(asyncio, "sleep_ms", None)
    if sleep_ms is not None:
        return sleep_ms(ms)
    return asyncio.sleep(ms / 1000)


def _reset():
    import machine
    import time
    time.sleep_ms(50)  # type: ignore[attr-defined]  # the acknowledgement leaves the USB first
    machine.reset()


def _random_id():
    # Names a dealt game for the PC; not part of the rules, so real randomness is fine here.
    import os
    b = os.urandom(4)
    return b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]


class StdioPort:
    """The board's USB serial port: MicroPython's stdin/stdout, read without blocking.

    Opened at the start, before any link exists: its read() is what notices the PC
    (App.link_on_demand). While it is open the keyboard interrupt is off
    (micropython.kbd_intr(-1)): a 0x03 byte inside a frame is data, not Ctrl-C. close()
    gives Ctrl-C back for the REPL.
    """

    def __init__(self):
        import micropython
        import select
        import sys
        self._micropython = micropython
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._buf = bytearray(256)
        micropython.kbd_intr(-1)

    def read(self):
        n = 0
        buf = self._buf
        while n < len(buf) and self._poll.poll(0):
            b = self._in.read(1)
            if not b:
                break
            buf[n] = b[0]
            n += 1
        return bytes(buf[:n]) if n else b""

    def write(self, data):
        self._out.write(data)

    def close(self):
        self._micropython.kbd_intr(3)
