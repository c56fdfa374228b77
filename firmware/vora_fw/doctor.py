"""What the board tells `vora doctor` about itself (DIAG, docs/protocol.md "The doctor").

The guided test itself runs on the PC (host/vora_host/maker/doctor.py): it shows colours
with the terminal mode's PIXELS and listens to KEY events. The board adds what only it
knows: its MicroPython, memory and flash, the keys its matrix reads closed right now (a key
down before anyone touches the board is stuck), how many ghost patterns the scanner ignored,
and the pixel output's caps and the current it estimates for the frame it shows.
"""

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass


def diag(app, pinmap, identity, boot=None, flash_root="/", statvfs=None):
    import gc
    out = app.output
    mask = app.hw.read_keys()
    down = [k for k in range(49) if mask >> k & 1]
    d = {
        "micropython": identity.get("micropython"), "platform": identity.get("platform"),
        "mpy": "%d.%d" % (identity.get("mpy", 0), identity.get("mpy_sub", 0)),
        "arch": identity.get("arch"),
        "board": pinmap.get("board", ""), "port": pinmap.get("port", ""),
        "pixels": out.pixel_count, "brightness_cap": out.brightness_cap,
        "brightness": out.brightness, "max_channel_sum": out.max_channel_sum,
        "ma_per_channel_full": out.ma_per_channel_full,
        "current_budget_ma": pinmap.get("current_budget_ma"),
        "supply_ma": pinmap.get("supply_ma"),
        "frame_ma": int(out.estimate_ma() + 0.5), "frame_sum": out.last_sum,
        "current_scale": out.scale, "frames_limited": out.frames_limited,
        "keys_down": down, "ghosts_ignored": app.scanner.ghosts_ignored,
    }  # type: dict
    mem_free = getattr(gc, "mem_free", None)
    mem_alloc = getattr(gc, "mem_alloc", None)
    d["mem_free"] = mem_free() if mem_free is not None else None
    d["mem_alloc"] = mem_alloc() if mem_alloc is not None else None
    if statvfs is not None:
        try:
            st = statvfs(flash_root)
            d["flash_total"] = st[0] * st[2]
            d["flash_free"] = st[0] * st[4]
        except OSError:
            pass
    if boot is not None:
        d["boot"] = boot.info()
    return d
