"""The board's boot path: which firmware version starts, test then confirm, fall back.

On the board this module is /vora_boot.mpy, beside /main.py, outside the two version
slots; `vora flash` installs both and `vora update` never replaces them, so a bad update
cannot break the code that chooses what to boot (docs/makers.md).

The board's flash:

    /main.py          `import vora_boot; vora_boot.main()`
    /vora_boot.mpy    this module
    /pinmap.json      the board's pin map
    /boot.json        the boot record (below)
    /fw/a/ /fw/b/     two version slots: manifest.json, vora_fw/*.mpy, shared_rules/*.mpy
    /save/            the saved game (vora_fw.store): never touched here

The boot record says which slot holds the confirmed version (`slot`), which slot holds a
new version to try at the next boot (`trial`) and how often that was tried (`tries`). It is
one line, "VBOOT1 <crc32 as 8 hex> <json>\\n", replaced only by writing /boot.new whole and
renaming it over /boot.json (atomic on littlefs and POSIX), so a power cut leaves the old
record or the new one. The steps, as MCUboot's "test" swap with revert:

- an update stages the new version in the slot that is neither `slot` nor `trial`, checks
  every hash, then writes `trial` = that slot, `tries` = 0 (switch());
- the next boot sees `trial` with tries 0: it writes tries = 1 FIRST, then boots the trial
  slot; the firmware, once it has run CONFIRM_MS without failing, calls confirm(), which
  makes the trial slot the confirmed one (and the old one `prev`);
- a boot that sees `trial` with tries 1 knows the trial boot never confirmed (a crash, a
  hang ended by unplugging, a power cut): it clears `trial`, records it in `reverted`, and
  boots the confirmed slot again.

No record at all means no Vora firmware was installed: main() says so and leaves the REPL
free. Holding any corner key at power-up starts safe mode (corner_held() reads the four
corner switches with machine.Pin directly, so it works whatever is in the slots): nothing
but this module runs and the REPL stays free for `vora flash` and mpremote.

Every file access goes through an `fs` object (Fs below, or the virtual board's simulated
flash) and every path is under `root` ("" on the board), so the virtual board and the tests
run this very code against a folder of the PC and cut the power between any two steps.
"""

import json
import os
import sys

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

RECORD = "boot.json"
RECORD_NEW = "boot.new"
FW_DIR = "fw"
SLOTS = ("a", "b")
MANIFEST = "manifest.json"
PINMAP = "pinmap.json"
CONFIRM_MS = const(3000)  # a trial version confirms itself after running this long
_MAGIC = "VBOOT1"
_RECORD_MAX = const(512)  # a record is about 100 bytes; anything longer is not one
ENOSPC = const(28)

MODE_CONFIRMED = "confirmed"  # the confirmed slot runs
MODE_TRIAL = "trial"  # a new version runs for the first time; it confirms itself or is reverted
MODE_REVERTED = "reverted"  # the trial never confirmed: the confirmed slot runs again
MODE_NONE = "none"  # no firmware installed


class Fs:
    """The real filesystem, as the boot path, the update and the tests see it."""

    def __init__(self):
        self.open = open
        self.rename = os.rename
        self.remove = os.remove
        self.stat = os.stat
        self.listdir = os.listdir
        self.mkdir = os.mkdir
        self.rmdir = os.rmdir
        self.statvfs = getattr(os, "statvfs", None)

    def sync(self):
        # os.sync() flushes every mounted filesystem on MicroPython; CPython's would flush
        # the whole machine, so there it is left to the files' own fsync.
        if sys.implementation.name == "micropython" and hasattr(os, "sync"):
            os.sync()  # type: ignore[attr-defined]


def path(root, *parts):
    """root + "/" + parts: "/fw/a" on the board (root ""), "<folder>/fw/a" on the PC."""
    out = root
    for p in parts:
        out = out + "/" + p
    return out


def slot_dir(root, slot):
    return path(root, FW_DIR, slot)


def exists(fs, p):
    try:
        fs.stat(p)
        return True
    except OSError:
        return False


def crc32(data):
    import binascii
    return binascii.crc32(data) & 0xFFFFFFFF


# ---------------------------------------------------------------- the boot record

def empty_record():
    return {"slot": None, "trial": None, "tries": 0, "prev": None, "reverted": None}


def _slot_or_none(v):
    if v is None or v in SLOTS:
        return v
    raise ValueError("not a slot: %r" % (v,))


def check_record(d):
    """A record dict with every field valid (ValueError otherwise); unknown fields dropped."""
    if not isinstance(d, dict):
        raise ValueError("not an object")
    rec = empty_record()
    for k in ("slot", "trial", "prev", "reverted"):
        rec[k] = _slot_or_none(d.get(k))
    tries = d.get("tries", 0)
    if not isinstance(tries, int) or isinstance(tries, bool) or not 0 <= tries <= 9:
        raise ValueError("tries %r" % (tries,))
    rec["tries"] = tries
    if rec["trial"] is not None and rec["trial"] == rec["slot"]:
        raise ValueError("the trial slot is the confirmed slot")
    return rec


def encode_record(rec):
    # Fixed key order (MicroPython's json.dumps writes dicts in hash order), ASCII only.
    body = "{" + ",".join("%s:%s" % (json.dumps(k), json.dumps(rec[k])) for k in
                          ("slot", "trial", "tries", "prev", "reverted")) + "}"
    data = body.encode()
    return ("%s %08x " % (_MAGIC, crc32(data))).encode() + data + b"\n"


def decode_record(data):
    """The record in `data` (bytes of a record file), or None when it is not a whole one."""
    try:
        if len(data) > _RECORD_MAX or not data.endswith(b"\n"):
            return None
        magic, crc, body = data[:-1].split(b" ", 2)
        if magic != _MAGIC.encode() or len(crc) != 8 or int(crc, 16) != crc32(body):
            return None
        return check_record(json.loads(body))
    except (ValueError, TypeError, UnicodeError):
        return None


def _read_file(fs, p, limit):
    try:
        size = fs.stat(p)[6]
        if size > limit:
            return None
        f = fs.open(p, "rb")
    except OSError:
        return None
    try:
        # size + 1, not limit + 1: MicroPython allocates read(n)'s buffer whole first.
        return f.read(size + 1)
    except OSError:
        return None
    finally:
        f.close()


def read_record(fs, root):
    """The boot record: /boot.json, else a whole /boot.new (a first record cut before its
    rename), else None: no firmware was ever installed."""
    for name in (RECORD, RECORD_NEW):
        data = _read_file(fs, path(root, name), _RECORD_MAX)
        if data is not None:
            rec = decode_record(data)
            if rec is not None:
                return rec
    return None


def write_record(fs, root, rec):
    """Replace the record: write boot.new whole, then rename it over boot.json."""
    data = encode_record(check_record(rec))
    new = path(root, RECORD_NEW)
    f = fs.open(new, "wb")
    try:
        if f.write(data) != len(data):
            raise OSError(ENOSPC)
        f.flush()
        fsync = getattr(fs, "fsync", None)
        if fsync is not None:
            fsync(f)
    finally:
        f.close()
    _sync(fs)
    target = path(root, RECORD)
    try:
        fs.rename(new, target)
    except OSError:
        # A filesystem whose rename does not replace (FAT): remove, then rename. A cut in
        # between leaves only boot.new, which read_record() takes.
        if not exists(fs, target):
            raise
        fs.remove(target)
        fs.rename(new, target)
    _sync(fs)


def _sync(fs):
    sync = getattr(fs, "sync", None)
    if sync is not None:
        sync()


def other_slot(slot):
    return SLOTS[1] if slot == SLOTS[0] else SLOTS[0]


def staging_slot(rec):
    """The slot an update may overwrite: neither the confirmed one nor a pending trial;
    None while a trial is pending (it must boot and confirm, or be reverted, first)."""
    if rec is None:
        return SLOTS[0]
    if rec["trial"] is not None:
        return None
    if rec["slot"] is None:
        return SLOTS[0]
    return other_slot(rec["slot"])


def decide(fs, root):
    """Choose the slot to boot and do the record's bookkeeping for it.

    Returns (slot or None, mode, record). Writes the record first when a trial starts
    (tries = 1) or is abandoned (reverted), so that a power cut after this point is
    counted."""
    rec = read_record(fs, root)
    if rec is None:
        return None, MODE_NONE, None
    trial = rec["trial"]
    if trial is not None:
        if rec["tries"] == 0:
            rec["tries"] = 1
            write_record(fs, root, rec)
            return trial, MODE_TRIAL, rec
        rec["reverted"] = trial
        rec["trial"] = None
        rec["tries"] = 0
        write_record(fs, root, rec)
        if rec["slot"] is None:
            return None, MODE_REVERTED, rec
        return rec["slot"], MODE_REVERTED, rec
    if rec["slot"] is None:
        return None, MODE_NONE, rec
    return rec["slot"], MODE_CONFIRMED, rec


def switch(fs, root, slot):
    """After an update staged and verified `slot`: boot it on trial at the next start."""
    rec = read_record(fs, root) or empty_record()
    if slot not in SLOTS or slot == rec["slot"]:
        raise ValueError("cannot switch to slot %r" % (slot,))
    rec["trial"] = slot
    rec["tries"] = 0
    rec["reverted"] = None
    write_record(fs, root, rec)
    return rec


def confirm(fs, root, slot):
    """The trial version in `slot` runs well: make it the confirmed one. True if it was the
    trial (False when there was nothing to confirm, e.g. it had already been reverted)."""
    rec = read_record(fs, root)
    if rec is None or rec["trial"] != slot or rec["tries"] < 1:
        return False
    write_record(fs, root, {"slot": slot, "trial": None, "tries": 0, "prev": rec["slot"],
                            "reverted": None})
    return True


class Boot:
    """What the boot path decided, handed to the firmware (vora_fw.start) and to the update."""

    def __init__(self, fs, root, slot, mode, record, version=""):
        self.fs = fs
        self.root = root
        self.slot = slot
        self.mode = mode
        self.record = record
        self.version = version  # of the version running, from its slot's manifest
        self.identity = {}  # type: dict  # the MicroPython running it (identity())
        self.confirm_ms = CONFIRM_MS

    def confirm(self):
        """Called by the firmware once it runs well (only a trial needs it)."""
        if self.mode == MODE_TRIAL and confirm(self.fs, self.root, self.slot):
            self.mode = MODE_CONFIRMED
            self.record = read_record(self.fs, self.root)
            return True
        return False

    def staging_slot(self):
        return staging_slot(read_record(self.fs, self.root))

    def slot_dir(self, slot):
        return slot_dir(self.root, slot)

    def switch(self, slot):
        self.record = switch(self.fs, self.root, slot)

    def pending(self):
        """The slot a switch made the next boot's trial, or None."""
        rec = read_record(self.fs, self.root)
        return rec["trial"] if rec is not None and rec["tries"] == 0 else None

    def info(self):
        rec = self.record or empty_record()
        return {"slot": self.slot, "state": self.mode, "prev": rec.get("prev"),
                "reverted": rec.get("reverted")}


def manifest_version(fs, root, slot):
    """The firmware version in a slot's manifest, or "" when it cannot be read."""
    data = _read_file(fs, path(slot_dir(root, slot), MANIFEST), 16384)
    if data is None:
        return ""
    try:
        v = json.loads(data).get("firmware")
    except (ValueError, AttributeError):
        return ""
    return v if isinstance(v, str) and len(v) <= 32 else ""


# ---------------------------------------------------------------- the board itself

def identity():
    """The MicroPython running this: version, .mpy version and sub-version, native
    architecture, port. The virtual board reports an emulated one (docs/makers.md)."""
    impl = sys.implementation
    mpy = getattr(impl, "_mpy", 0)
    arch = (mpy >> 10) & 0x0F
    v = impl.version
    return {"micropython": "%d.%d.%d" % (v[0], v[1], v[2]), "mpy": mpy & 0xFF,
            "mpy_sub": (mpy >> 8) & 3, "arch": ARCHS[arch] if arch < len(ARCHS) else "",
            "platform": sys.platform}


# sys.implementation._mpy >> 10: the native architecture, in MicroPython's own order
ARCHS = ("", "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
         "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")


def corner_held(pinmap, samples=3, interval_ms=10):
    """True when a corner key reads closed in `samples` scans: safe mode. Reads only the
    four corner switches (the ends of the first and last row and column wire, whatever the
    rotation), with machine.Pin, so it needs nothing from the firmware's slots."""
    import machine
    import time
    rows = pinmap["row_pins"]
    cols = pinmap["col_pins"]
    if pinmap.get("diode_direction", "col2row") == "row2col":
        rows, cols = cols, rows
    Pin = machine.Pin
    sense = [Pin(cols[0], Pin.IN, Pin.PULL_UP), Pin(cols[-1], Pin.IN, Pin.PULL_UP)]
    drive = [Pin(rows[0], Pin.OPEN_DRAIN, value=1), Pin(rows[-1], Pin.OPEN_DRAIN, value=1)]
    for n in range(samples):
        if n:
            time.sleep_ms(interval_ms)  # type: ignore[attr-defined]
        closed = False
        for line in drive:
            line.value(0)
            time.sleep_us(5)  # type: ignore[attr-defined]
            for s in sense:
                if not s.value():
                    closed = True
            line.value(1)
        if not closed:
            return False
    return True


def main(root="", pinmap_file="/pinmap.json", save_dir="/save"):
    """The board's start (called by /main.py). Returns "safe", "none" or "repl"; a trial
    version that fails restarts the board (the next boot goes back to the confirmed one)."""
    with open(pinmap_file) as f:
        pinmap = json.load(f)
    if corner_held(pinmap):
        print("Vora Board: safe mode (a corner key was held); the game does not start. "
              "The REPL is free: vora flash reinstalls the firmware.")
        return "safe"
    fs = Fs()
    slot, mode, rec = decide(fs, root)
    if slot is None:
        print("Vora Board: no firmware version to start%s; the REPL is free (vora flash)."
              % (" (the new version did not confirm itself)" if mode == MODE_REVERTED else ""))
        return "none"
    boot = Boot(fs, root, slot, mode, rec, manifest_version(fs, root, slot))
    boot.identity = identity()
    sys.path.insert(0, slot_dir(root, slot))
    try:
        from vora_fw import start
        return start.run(pinmap, boot, save_dir)
    except BaseException as exc:  # noqa: BLE001  (whatever stops a trial reverts it)
        if boot.mode != MODE_TRIAL:
            raise
        print("Vora Board: version %s failed on trial (%r); restarting into the previous one."
              % (boot.version, exc))
        import machine
        machine.reset()
        raise
