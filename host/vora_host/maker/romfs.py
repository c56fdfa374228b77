"""`vora flash --romfs`: the firmware's code in a ROMFS partition, run in place from flash.

MicroPython 1.25 and later, on boards built with ROMFS (MICROPY_VFS_ROM), mount a read-only
partition at /rom and append /rom and /rom/lib to sys.path (after "" and ".frozen": a
frozen vora_fw comes first, so flash.py refuses ROMFS over another frozen version). A .mpy
imported from there runs where it lies: its bytecode and its constant strings and bytes
are not copied into RAM, as with frozen modules, but without building a firmware.

The image holds what a version slot holds (vora_host.maker.bundle): manifest.json,
vora_fw/*.mpy, shared_rules/*.mpy. The slot on the board's filesystem then holds only
manifest.json (the version, for the boot path): vora_fw.boot puts the slot first on
sys.path, the slot has no vora_fw folder, so `import vora_fw` finds /rom/vora_fw. A later
`vora update` writes a whole slot of files, which comes first on sys.path; /rom is only
used again by a slot that has no modules of its own.

mpremote does the work, as a library: its VfsRomWriter builds the image (from the bytes
vora compiled for the board, -march included) and its `romfs deploy` writes it; the query
asks what `mpremote romfs query` asks. Then the image is read back on the board and
its SHA-256 compared, in chunks (a Pico has no room to copy the 90 KB image into its RAM).

A board without ROMFS (most stock builds, the virtual board) is not an error: unusable()
says why, and `vora flash` installs the files as usual.
"""

import contextlib
import hashlib
import io
import os
import tempfile
from types import SimpleNamespace

PARTITION = 0  # mpremote romfs deploy's default: the first ROMFS partition
HEADER = b"\xd2\xcd\x31"  # how a ROMFS image starts (mpremote.romfs.VfsRomWriter)
MANIFEST = "manifest.json"


class RomfsFailed(Exception):
    """Writing the image failed; the message says what happened."""


def build_image(bundle):
    """The ROMFS image (bytes) of a bundle: its manifest and its modules, one folder per
    package, sorted by name (building twice gives the same bytes)."""
    from mpremote.romfs import VfsRomWriter
    writer = VfsRomWriter()
    writer.mkfile(MANIFEST, bundle.manifest_bytes)
    by_package = {}
    for name, data in bundle.files:
        package, _, leaf = name.partition("/")
        by_package.setdefault(package, []).append((leaf, data))
    for package in sorted(by_package):
        writer.opendir(package)
        for leaf, data in sorted(by_package[package]):
            writer.mkfile(leaf, data)
        writer.closedir()
    return writer.finalise()


def mpremote_lacks():
    """None when the installed mpremote can build and deploy ROMFS images (1.25 and later),
    else why not."""
    try:
        from mpremote.commands import _do_romfs_deploy  # noqa: F401
        from mpremote.romfs import VfsRomWriter  # noqa: F401
    except ImportError:
        try:
            from importlib.metadata import version
            have = version("mpremote")
        except Exception:  # noqa: BLE001  (any reason: only the message changes)
            have = "?"
        return "this vora's mpremote %s cannot write ROMFS (1.25 or later can: pipx " \
               "reinstall vora-board)" % have
    return None


def query(t, partition=PARTITION):
    """What the board has: {"size": bytes, "block": bytes, "image": bytes of the image now
    there (0: none)}, or a string that says why it has no usable ROMFS. The questions
    `mpremote romfs query` asks (vfs.rom_ioctl 1, 2 and 6; a partition that is an object
    answers its own ioctl 4 and 5)."""
    from mpremote.transport import TransportError
    try:
        t.exec("import vfs")
    except TransportError:
        return "its MicroPython has no vfs module (MicroPython before 1.23: no ROMFS)"
    try:
        if not t.eval("hasattr(vfs,'rom_ioctl')"):
            return "its MicroPython is built without ROMFS (mpremote romfs query: " \
                   "\"ROMFS is not enabled on this device\")"
        count = t.eval("vfs.rom_ioctl(1)")
        if not isinstance(count, int) or count <= partition:
            return "its MicroPython has ROMFS but no ROMFS partition"
        t.exec("dev=vfs.rom_ioctl(2,%d)" % partition)
        if t.eval("isinstance(dev,int) and dev<0"):
            return "its ROMFS partition %d cannot be opened" % partition
        if t.eval("hasattr(dev,'ioctl')"):
            block = t.eval("dev.ioctl(5,0)")
            size = t.eval("dev.ioctl(4,0)") * block
            head = b""
        else:
            size = t.eval("len(dev)")
            block = t.eval("vfs.rom_ioctl(6,%d)" % partition)
            head = t.eval("bytes(memoryview(dev)[:8])")
    except TransportError as exc:
        return "asking it about ROMFS failed (%s)" % _last_line(exc)
    if not isinstance(block, int) or block <= 0:
        block = size  # a MicroPython before 1.29 does not say: one erase for the whole
    return {"size": size, "block": block, "image": image_size(head)}


def image_size(head):
    """Bytes of the ROMFS image that starts with `head`, 0 when it is not one."""
    if not head.startswith(HEADER):
        return 0
    size = 0
    for i, value in enumerate(head[3:]):
        size = (size << 7) | (value & 0x7F)
        if not value & 0x80:
            return 3 + i + 1 + size
    return 0


def unusable(info, image):
    """None when `image` fits the board's partition (query()'s answer), else why not."""
    if isinstance(info, str):
        return info
    if len(image) > info["size"]:
        return "its ROMFS partition holds %d KB, the firmware's image needs %d KB" % (
            info["size"] // 1024, (len(image) + 1023) // 1024)
    return None


def deploy(t, image, partition=PARTITION):
    """Write the image with mpremote's `romfs deploy` (it erases, then writes in chunks,
    compressed when the board can inflate), then read it back and compare its SHA-256.
    RomfsFailed if anything goes wrong."""
    from mpremote.transport import TransportError
    try:
        from mpremote.commands import CommandError, _do_romfs_deploy
    except ImportError:
        raise RomfsFailed(mpremote_lacks() or "mpremote cannot write ROMFS")
    state = SimpleNamespace(transport=t, ensure_raw_repl=lambda: None, did_action=lambda: None)
    fd, name = tempfile.mkstemp(prefix="vora-", suffix=".romfs")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(image)
        with contextlib.redirect_stdout(io.StringIO()) as said:
            _do_romfs_deploy(state, SimpleNamespace(path=name, partition=partition, mpy=False))
    except SystemExit:  # mpremote's own refusal (an invalid or too big image): it printed why
        raise RomfsFailed("mpremote refused the image: %s" % _last_line(said.getvalue()))
    except (CommandError, TransportError) as exc:
        raise RomfsFailed("writing the ROMFS partition failed (%s)" % _last_line(exc))
    finally:
        os.unlink(name)
    got = board_sha256(t, len(image), partition)
    if got != hashlib.sha256(image).digest():
        raise RomfsFailed("the ROMFS partition differs from the image after writing (its "
                          "flash or the cable?)")


def board_sha256(t, length, partition=PARTITION):
    """SHA-256 of the first `length` bytes of the ROMFS partition, read on the board in 1 KB
    pieces (through the memory map, or the partition object's readblocks)."""
    from mpremote.transport import TransportError
    try:
        t.exec("import vfs, hashlib\n"
               "_d = vfs.rom_ioctl(2, %d)\n"
               "_h = hashlib.sha256()\n"
               "if hasattr(_d, 'ioctl'):\n"
               " _bs = _d.ioctl(5, 0)\n"
               " _b = bytearray(_bs)\n"
               " for _i in range((%d + _bs - 1) // _bs):\n"
               "  _d.readblocks(_i, _b)\n"
               "  _h.update(_b[:min(_bs, %d - _i * _bs)])\n"
               "else:\n"
               " _m = memoryview(_d)\n"
               " for _o in range(0, %d, 1024):\n"
               "  _h.update(_m[_o:min(_o + 1024, %d)])\n"
               % (partition, length, length, length, length))
        return bytes(t.eval("_h.digest()"))
    except TransportError as exc:
        raise RomfsFailed("reading the ROMFS partition back failed (%s)" % _last_line(exc))


def _last_line(exc):
    text = str(getattr(exc, "error_output", "") or exc).strip()
    return text.splitlines()[-1] if text else type(exc).__name__



def probe_code(package="vora_fw"):
    """MicroPython code that sets _fz to where `import <package>` leads on the board, in the
    raw REPL (before anything is written): ("frozen", version) when it is in the MicroPython
    firmware (no file behind its __file__: ".frozen/..." or "asyncio/__init__.py"), ("rom",
    version) from a ROMFS image at /rom, ("files", version), or None. The modules are
    forgotten again, so that nothing runs from a partition about to be rewritten."""
    return ("import sys, os\n"
            "_fz = None\n"
            "try:\n"
            " _v = __import__(%r)\n"
            " _p = getattr(_v, '__file__', '') or ''\n"
            " try:\n"
            "  os.stat(_p)\n"
            "  _k = 'rom' if _p.startswith('/rom/') else 'files'\n"
            " except OSError:\n"
            "  _k = 'frozen'\n"
            " _fz = (_k, str(getattr(_v, 'VERSION', '')))\n"
            "except Exception:\n"
            " pass\n"
            "_v = None\n"
            "for _m in [m for m in sys.modules if m == %r or m.startswith(%r)]:\n"
            " del sys.modules[_m]\n" % (package, package, package + "."))


def firmware_in_micropython(t):
    """(kind, version) of the Vora firmware the board's MicroPython finds without a slot
    ("frozen", "rom" or "files": probe_code()), or None."""
    from mpremote.transport import TransportError
    try:
        t.exec(probe_code())
        found = t.eval("_fz")
    except TransportError:
        return None
    if isinstance(found, tuple) and len(found) == 2 and found[0] in ("frozen", "rom", "files"):
        return found
    return None
