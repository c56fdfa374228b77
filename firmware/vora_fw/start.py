"""Start the firmware version the boot path chose (vora_fw.boot.main imports this from the
slot it boots): hardware, serial link, application, makers' service, and for a version on
trial the confirmation once it has run CONFIRM_MS without failing."""

import sys

from vora_fw import VERSION


def make_hardware(pinmap):
    if sys.implementation.name == "circuitpython":
        from vora_fw import hal_circuitpython as hal
    else:
        from vora_fw import hal_rp2 as hal  # type: ignore[no-redef]
    return hal.Hardware(pinmap)


def run(pinmap, boot, save_dir="/save"):
    """Run the game until the PC asks for the REPL; returns "repl"."""
    import asyncio
    import os
    from vora_fw.app import App
    from vora_fw.link import BoardLink, StdioPort
    from vora_fw.store import Store

    hw = make_hardware(pinmap)
    port = StdioPort()  # the keyboard interrupt is off while the link runs
    link = BoardLink(port.write, port.read, board=pinmap.get("board", ""))
    app = App(hw, pinmap, Store(save_dir), link, id_fn=_random_id)
    attach(app, link, pinmap, boot, boot.identity, VERSION, _reset,
           getattr(os, "statvfs", None))
    try:
        asyncio.run(run_app(app, boot))
    finally:
        port.close()  # Ctrl-C works again
    print("Vora Board %s: stopped for the REPL (the PC asked); reset to play again." % VERSION)
    return "repl"


def attach(app, link, pinmap, boot, identity, version, reset, statvfs=None):
    """Give the link its makers' service (update and doctor messages)."""
    from vora_fw.maker import MakerService
    link.maker = MakerService(link, app, pinmap, boot, identity, version, reset, statvfs)
    return link.maker


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
