"""Build the files that go on the board, as `vora flash` installs them, into build/board/.

    .venv/bin/python tools/build_board.py [--pinmap hardware/pinmap-rp2-pico.json] [--arch armv6m]

`vora flash` (docs/makers.md) is the one command that does it all on a board: it asks the
board for its MicroPython first, and checks every file's hash after copying. This script
is for looking at the tree, or for copying it by hand with mpremote where vora cannot run:

    build/board/main.py         MicroPython runs it at power-up: it calls vora_boot
    build/board/vora_boot.mpy   the boot path (firmware/vora_fw/boot.py)
    build/board/pinmap.json     the board's pin map
    build/board/boot.json       the boot record: slot a, on trial (it confirms itself)
    build/board/fw/a/           the firmware: manifest.json, vora_fw/*.mpy, shared_rules/*.mpy

    mpremote cp -r build/board/. :  &&  mpremote reset

`vora release` (docs/makers.md, "A release") writes the same tree with the bundle file and
INSTALL.txt, from an installed vora too.

The modules are compiled by mpy-cross (89 KB of heap to import instead of 110 KB from
sources, docs/benchmarks.md); main.py stays source, as MicroPython runs /main.py at boot.
"""

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "firmware"), str(ROOT / "host")]

from vora_host.maker import bundle as bundles  # noqa: E402
from vora_host.maker import release  # noqa: E402

ARCH_OF_PORT = {"rp2": "armv6m", "esp32": "xtensawin"}


def build(out, pinmap, arch=None):
    """Write the board's tree into `out` (replaced); returns out."""
    pinmap_data = json.loads(Path(pinmap).read_text(encoding="utf-8"))
    port = pinmap_data.get("port", "rp2")
    arch = ARCH_OF_PORT.get(port, "") if arch is None else arch
    b = bundles.make_bundle(bundles.compile_tree(arch), port, bundles.mpy_cross_version(), arch)
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    for name, data in release.board_files(b, bundles.root_files(Path(pinmap), arch)):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pinmap", type=Path, default=ROOT / "hardware" / "pinmap-rp2-pico.json",
                        help="the board's pin map (default: the Raspberry Pi Pico's)")
    parser.add_argument("--arch", default=None,
                        help="mpy-cross -march (default: from the pin map's port)")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "board")
    args = parser.parse_args(argv)
    if not args.pinmap.is_file():
        parser.error("no pin map at %s" % args.pinmap)
    try:
        out = build(args.out, args.pinmap, args.arch)
    except bundles.BundleError as exc:
        parser.exit(1, "build_board: %s\n" % exc)
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    total = sum((out / f).stat().st_size for f in files)
    print("%d files, %d bytes in %s" % (len(files), total, out))
    print("install with:  vora flash   (or by hand: mpremote cp -r %s/. :  &&  mpremote reset)"
          % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
