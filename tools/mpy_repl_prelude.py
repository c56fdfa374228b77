# Run by tools/mpy_repl.mjs inside the sandboxed MicroPython before its REPL starts (this is
# MicroPython code; the host never runs it). It makes the WebAssembly MicroPython look like
# the board the virtual board stands for (host/vora_host/virtual/repl.py):
# - sys.platform and sys.implementation (_machine, _mpy with the native architecture) of
#   the emulated port, e.g. a Raspberry Pi Pico: rp2, armv6m;
# - a `machine` module whose reset() restarts the virtual board;
# - the simulated flash as "/": a VFS over the folder the host sent, with the capacity of
#   the board's filesystem (statvfs, and OSError ENOSPC when a write does not fit);
# - on a board with a ROMFS partition (`vora sim --romfs-size`), vfs.rom_ioctl as a
#   memory-mapped port answers it (MicroPython's vfs_rom_ioctl.c: 1 how many partitions,
#   2 the partition as a memoryview, 3 erase, 4 write, 5 done, 6 the erase block), over the
#   partition the host sent; each change goes back to the host. A write only clears bits,
#   as on flash. This port has no VfsRom, so nothing is mounted at /rom here.


def _vora_setup(config_json):
    import json
    import os
    import sys

    cfg = json.loads(config_json)
    real = sys
    block = cfg["block"]
    capacity = cfg["capacity"]

    class Implementation:
        pass

    impl = Implementation()
    impl.name = "micropython"
    impl.version = tuple(real.implementation.version)
    impl._machine = cfg["machine"]
    impl._mpy = cfg["mpy"]
    impl._build = cfg["build"]

    class Sys:
        def __getattr__(self, name):
            return getattr(real, name)

    shim = Sys()
    shim.implementation = impl
    shim.platform = cfg["platform"]
    real.modules["sys"] = shim

    class Machine:
        def reset(self):
            import _vora_board
            _vora_board.reset("hard")

        def soft_reset(self):
            import _vora_board
            _vora_board.reset("soft")

        def freq(self, *args):
            return 125000000

        def unique_id(self):
            return b"VORA-SIM"

        def idle(self):
            pass

    real.modules["machine"] = Machine()

    # This port's VfsPosix raises the WebAssembly (WASI) errno numbers; a board raises
    # MicroPython's own (Linux's), which mpremote reads in the traceback text.
    wasi = {44: 2, 20: 17, 54: 20, 31: 21, 55: 39, 2: 13, 28: 22, 51: 28, 8: 9, 63: 1,
            29: 5, 37: 36}

    def call(fn, *args):
        try:
            return fn(*args)
        except OSError as exc:
            code = exc.args[0] if exc.args else None
            if isinstance(code, int) and code in wasi:
                raise OSError(wasi[code])
            raise

    def blocks(n):
        return (n + block - 1) // block

    class Flash:
        def __init__(self):
            self.v = os.VfsPosix("/flash")

        def used(self, p=""):
            n = 0
            for entry in call(self.v.ilistdir, p or "/"):
                name, kind = entry[0], entry[1]
                q = (p or "") + "/" + name
                if kind == 0x4000:
                    n += self.used(q)
                else:
                    n += blocks(self.v.stat(q)[6]) * block
            return n

        def mount(self, readonly, mkfs):
            pass

        def umount(self):
            pass

        def ilistdir(self, p):
            # (name, type, inode, size), as littlefs gives: VfsPosix leaves out the size
            base = p.rstrip("/")
            for entry in call(self.v.ilistdir, p):
                size = 0
                if entry[1] != 0x4000:
                    size = call(self.v.stat, base + "/" + entry[0])[6]
                yield (entry[0], entry[1], 0, size)

        def chdir(self, p):
            return call(self.v.chdir, p)

        def getcwd(self):
            return self.v.getcwd()

        def mkdir(self, p):
            return call(self.v.mkdir, p)

        def remove(self, p):
            return call(self.v.remove, p)

        def rename(self, a, b):
            return call(self.v.rename, a, b)

        def rmdir(self, p):
            return call(self.v.rmdir, p)

        def stat(self, p):
            return call(self.v.stat, p)

        def statvfs(self, p):
            total = capacity // block
            free = max(0, total - self.used() // block)
            return (block, block, total, free, free, 0, 0, 0, 0, 255)

        def open(self, p, mode):
            f = call(self.v.open, p, mode)
            if "w" in mode or "a" in mode or "+" in mode:
                return File(self, f, mode)
            return f

    class File:
        def __init__(self, fs, f, mode):
            self.fs = fs
            self.f = f
            self.size = 0 if "w" in mode else f.seek(0, 2)
            if "+" in mode and "a" not in mode:
                f.seek(0)

        def write(self, b):
            pos = self.f.tell()
            end = max(self.size, pos + len(b))
            grow = blocks(end) - blocks(self.size)
            if grow > 0 and self.fs.used() + grow * block > capacity:
                raise OSError(28)
            n = self.f.write(b)
            self.size = end
            return n

        def read(self, *a):
            return self.f.read(*a)

        def readinto(self, *a):
            return self.f.readinto(*a)

        def readline(self, *a):
            return self.f.readline(*a)

        def seek(self, *a):
            return self.f.seek(*a)

        def tell(self):
            return self.f.tell()

        def flush(self):
            return self.f.flush()

        def close(self):
            return self.f.close()

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

    if cfg.get("romfs"):
        _romfs(real, block)

    os.umount("/")
    os.mount(Flash(), "/")
    os.chdir("/")


def _romfs(real, erase):
    import binascii
    import vfs as real_vfs
    import _vora_board

    with open("/romfs.bin", "rb") as f:
        rom = bytearray(f.read())

    def report(start, end):
        _vora_board.rom_write(start, binascii.hexlify(rom[start:end]).decode())

    def rom_ioctl(op, *args):
        if op == 1:
            return 1
        if not args or args[0] != 0:
            return -19  # ENODEV
        if op == 2:
            return memoryview(rom)
        if op == 3:  # erase: (id, length) or (id, offset, length)
            offset, length = (0, args[1]) if len(args) == 2 else (args[1], args[2])
            start = offset // erase * erase
            end = min(len(rom), (offset + length + erase - 1) // erase * erase)
            if start < 0 or start >= end:
                return -22
            for i in range(start, end):
                rom[i] = 0xFF
            report(start, end)
            return 4  # the smallest write
        if op == 4:
            offset, buf = args[1], args[2]
            if offset < 0 or offset + len(buf) > len(rom):
                return -22
            for i in range(len(buf)):
                rom[offset + i] &= buf[i]
            report(offset, offset + len(buf))
            return 0
        if op == 5:
            return 0
        if op == 6:
            return erase
        return -22

    class Vfs:
        def __getattr__(self, name):
            return getattr(real_vfs, name)

    shim = Vfs()
    shim.rom_ioctl = rom_ioctl
    real.modules["vfs"] = shim
