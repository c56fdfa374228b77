"""The virtual board's flash: a folder of the PC standing for the board's filesystem.

It holds what a real board's flash holds (firmware/vora_fw/boot.py lists it): /main.py,
/vora_boot.mpy, /pinmap.json, the boot record, the version slots /fw/a and /fw/b, and the
saved game in /save. `vora flash` and `vora update` write it through the virtual board (its
REPL and its link), and its boot path reads it at every reset, as on a board.

A board's filesystem is small (a Raspberry Pi Pico's littlefs: 212 blocks of 4 KB), so the
folder has a capacity: statvfs() reports it, and a write that does not fit fails with
ENOSPC, here (SimFs, for the firmware's code running on the PC) and in the REPL's
MicroPython (tools/mpy_repl_prelude.py) alike. Every file costs whole 4 KB blocks.

A board may also have a ROMFS partition (`vora sim --romfs-size KB`): a file beside the
folder, <folder>.romfs, of that size, erased (0xFF) at first. The REPL's MicroPython
answers vfs.rom_ioctl over it as a board does (mpremote romfs query and deploy write it;
tools/mpy_repl_prelude.py), and at boot a slot without a package of its own finds that
package in the ROMFS image, as /rom comes after the slot on a board's sys.path.
"""

import errno
import hashlib
import json
import os
from pathlib import Path

BLOCK = 4096
PICO_BLOCKS = 212  # MicroPython's filesystem on a Raspberry Pi Pico (2 MB flash)
DEFAULT_CAPACITY = PICO_BLOCKS * BLOCK

# What the virtual board says it is: a Raspberry Pi Pico (its MicroPython version is the
# real one of the WebAssembly port that runs its REPL: vora_host.virtual.repl).
PLATFORM = "rp2"
ARCH = "armv6m"
ARCH_CODE = 4  # sys.implementation._mpy >> 10 for armv6m
MPY = 6
MPY_SUB = 3
MACHINE = "Raspberry Pi Pico with RP2040 (Vora virtual board)"


def identity(micropython):
    """The emulated MicroPython, as vora_fw.boot.identity() reports it on a board, plus
    what the REPL's sys.implementation needs."""
    return {"micropython": micropython, "mpy": MPY, "mpy_sub": MPY_SUB, "arch": ARCH,
            "platform": PLATFORM, "machine": MACHINE,
            "mpy_word": MPY | MPY_SUB << 8 | ARCH_CODE << 10}


def _blocks(n):
    return (n + BLOCK - 1) // BLOCK


def usage(folder):
    """Bytes the files under `folder` take, in whole blocks (links are not followed)."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for f in filenames:
            try:
                st = os.lstat(os.path.join(dirpath, f))
            except OSError:
                continue
            total += _blocks(st.st_size) * BLOCK
    return total


class _File:
    """A file open for writing on the simulated flash: refuses to grow past the capacity."""

    def __init__(self, fs, f, size):
        self._fs = fs
        self._f = f
        self.size = size

    def write(self, data):
        pos = self._f.tell()
        end = max(self.size, pos + len(data))
        grow = _blocks(end) - _blocks(self.size)
        if grow > 0 and usage(self._fs.root) + grow * BLOCK > self._fs.capacity:
            raise OSError(errno.ENOSPC, "ENOSPC")
        n = self._f.write(data)
        self.size = end
        return n

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


class SimFs:
    """The filesystem functions vora_fw.boot and vora_fw.update use, on the folder, with
    its capacity. Paths are absolute paths of the PC under `root`."""

    def __init__(self, root, capacity=DEFAULT_CAPACITY):
        self.root = str(root)
        self.capacity = capacity
        self.rename = os.replace
        self.remove = os.remove
        self.stat = os.stat
        self.listdir = os.listdir
        self.mkdir = os.mkdir
        self.rmdir = os.rmdir

    def open(self, path, mode="r"):
        if "w" in mode or "a" in mode or "+" in mode:
            size = 0 if "w" in mode else (os.stat(path).st_size if os.path.exists(path) else 0)
            return _File(self, open(path, mode), size)
        return open(path, mode)

    def fsync(self, f):
        f.flush()
        os.fsync(f.fileno())

    def statvfs(self, path=None):
        total = self.capacity // BLOCK
        free = max(0, total - usage(self.root) // BLOCK)
        return (BLOCK, BLOCK, total, free, free, 0, 0, 0, 0, 255)


class SimFlash:
    """The flash folder and its capacity."""

    def __init__(self, folder, capacity=DEFAULT_CAPACITY, romfs_size=0):
        self.folder = Path(folder)
        self.capacity = capacity
        self.folder.mkdir(parents=True, exist_ok=True)
        self.romfs_size = romfs_size
        self.romfs_path = None
        if romfs_size:
            here = self.folder.resolve()  # "flash/" or "." have a name once resolved
            self.romfs_path = here.with_name(here.name + ".romfs")
            if not self.romfs_path.is_file() or self.romfs_path.stat().st_size != romfs_size:
                self.romfs_path.write_bytes(b"\xff" * romfs_size)  # an erased partition
        used = usage(self.folder)
        if used > capacity:
            # Not a board's flash (a home folder given by mistake?): the REPL would copy it all.
            raise ValueError("the folder %s holds %d KB, more than the flash's %d KB: give an "
                             "empty folder (or --flash-size)" % (folder, used // 1024,
                                                                 capacity // 1024))
        self.fs = SimFs(self.root, capacity)

    @property
    def root(self):
        return str(self.folder.resolve())

    @property
    def save_dir(self):
        return self.folder / "save"

    def installed(self):
        """A main.py on the flash: MicroPython runs it at power-up."""
        return (self.folder / "main.py").is_file()

    def free(self):
        st = self.fs.statvfs()
        return st[0] * st[4]


def slot_problem(folder, slot, romfs_path=None):
    """None when every file of the slot's manifest is there and whole (what importing it on
    a board needs), else what is wrong. folder: the flash folder. A package the slot has no
    folder for is looked for where a board's import finds it next: in the ROMFS image at
    romfs_path (/rom), when there is one."""
    where = Path(folder) / "fw" / slot
    rom = None
    try:
        manifest = json.loads((where / "manifest.json").read_bytes())
        for name, size, sha in manifest["files"]:
            package = name.split("/")[0]
            if (where / package).is_dir() or romfs_path is None:
                data = (where / name).read_bytes()
            else:
                if rom is None:
                    rom = romfs_files(Path(romfs_path).read_bytes())
                if name not in rom:
                    return "%s is neither in the slot nor in /rom" % name
                data = rom[name]
            if len(data) != size or hashlib.sha256(data).hexdigest() != sha:
                return "%s does not match its manifest" % name
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return "%s: %s" % (type(exc).__name__, exc)
    return None


ROMFS_HEADER = b"\xd2\xcd\x31"
_ROM_PADDING, _ROM_VERBATIM, _ROM_DIRECTORY, _ROM_FILE = 1, 2, 4, 5


def romfs_files(partition):
    """{"dir/name": bytes} of the ROMFS image at the start of `partition` (MicroPython's
    format: records of kind, length, payload, each number 7 bits a byte, high bit for
    more); {} when the partition holds no image. ValueError when it is not a whole one."""
    if not partition.startswith(ROMFS_HEADER):
        return {}
    size, at = _rom_uint(partition, len(ROMFS_HEADER))
    if at + size > len(partition):
        raise ValueError("the ROMFS image is cut short")
    out = {}
    _rom_dir(partition, at, at + size, "", out)
    return out


def _rom_uint(data, at):
    value = 0
    while True:
        if at >= len(data):
            raise ValueError("a ROMFS number runs past the end")
        b = data[at]
        at += 1
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            return value, at


def _rom_dir(data, at, end, prefix, out):
    while at < end:
        kind, at = _rom_uint(data, at)
        length, at = _rom_uint(data, at)
        body_end = at + length
        if body_end > end:
            raise ValueError("a ROMFS record runs past its folder")
        if kind in (_ROM_DIRECTORY, _ROM_FILE):
            n, p = _rom_uint(data, at)
            name = data[p:p + n].decode("ascii")
            p += n
            if kind == _ROM_DIRECTORY:
                _rom_dir(data, p, body_end, prefix + name + "/", out)
            else:
                sub, p = _rom_uint(data, p)
                sub_len, p = _rom_uint(data, p)
                if sub != _ROM_VERBATIM or p + sub_len > body_end:
                    raise ValueError("a ROMFS file whose data this reader does not know")
                out[prefix + name] = bytes(data[p:p + sub_len])
        elif kind != _ROM_PADDING:
            raise ValueError("a ROMFS record of unknown kind %d" % kind)
        at = body_end
