"""`vora release`: this vora's firmware, built once for a release, in the two forms a
maker installs it from:

    OUT/vora-firmware-0.1.0-rp2.vbundle      vora update --from FILE (boards that run Vora)
    OUT/vora-firmware-0.1.0-rp2/board/       the files vora flash puts on a board with
                                             stock MicroPython, for mpremote alone
    OUT/vora-firmware-0.1.0-rp2/romfs/       for a board with a ROMFS partition: the
                                             image (firmware.romfs) and board/, the same
                                             files without the slot's modules
    OUT/vora-firmware-0.1.0-rp2/INSTALL.txt  the mpremote commands, and what they need

The folder holds exactly what a first `vora flash` writes: the version in slot a, the boot
record that tries it at the next start (the firmware confirms itself once it runs), the
boot path, the pin map and /main.py. The mpremote command copies main.py last, so a copy
cut short leaves a board that still starts stock MicroPython's REPL.
"""

import json
import shutil
from pathlib import Path

from vora_fw import boot as fw_boot
from vora_host import resources
from vora_host.maker import bundle as bundles
from vora_host.maker import romfs

__all__ = ["PINMAPS", "ARCHS", "board_files", "write_release", "install_text"]

PINMAPS = {"rp2": "pinmap-rp2-pico.json", "esp32": "pinmap-esp32-s3.json"}
ARCHS = {"rp2": "armv6m", "esp32": "xtensawin"}
FIRST_SLOT = "a"
ROMFS_IMAGE = "firmware.romfs"  # mpremote romfs deploy takes a file ending in .romfs


def board_files(bundle, roots, romfs=False):
    """[(path on the board, bytes)] of a first install in slot a, in the order they are
    copied: the slot, the boot path and pin map, the boot record, /main.py last. With
    romfs the slot holds only its manifest (the modules are in the ROMFS image)."""
    slot = "%s/%s" % (fw_boot.FW_DIR, FIRST_SLOT)
    files = [] if romfs else [("%s/%s" % (slot, name), data) for name, data in bundle.files]
    files.append(("%s/%s" % (slot, fw_boot.MANIFEST), bundle.manifest_bytes))
    root = dict(roots)
    files += [(name, data) for name, data in roots if name != "main.py"]
    record = dict(fw_boot.empty_record(), trial=FIRST_SLOT)
    files.append((fw_boot.RECORD, fw_boot.encode_record(record)))
    files.append(("main.py", root["main.py"]))
    return files


def install_text(name, bundle):
    m = bundle.manifest
    return """Vora Board firmware {version} for {board} boards (.mpy v{mpy0}.{mpy1}, {arch})

A board with stock MicroPython {minimum} or later (micropython.org), first install,
with mpremote alone (pip install mpremote, or pipx install mpremote):

    cd {name}/board
    mpremote connect PORT cp -r fw : + cp vora_boot.mpy pinmap.json boot.json : + cp main.py : + reset

PORT is the board's serial device (/dev/ttyACM0, COM3, ...; "mpremote connect list").
After the reset the board starts the firmware, which confirms itself after {confirm} s.
main.py is copied last: a copy cut short leaves the board on its REPL; run it again.
A board that runs Vora firmware already: hold a corner key while plugging it in (safe
mode: the REPL is free), then the same command; its saved game (/save) is kept.

A board whose MicroPython has a ROMFS partition (1.25 or later, built with ROMFS:
"mpremote connect PORT romfs query" tells), the code run in place from flash:

    cd {name}/romfs/board
    mpremote connect PORT romfs deploy ../firmware.romfs + cp -r fw : + cp vora_boot.mpy pinmap.json boot.json : + cp main.py : + reset

Only on a board without Vora firmware as files: modules left in /fw would come before
/rom. vora flash --romfs checks all of that, and falls back to files without ROMFS.

With vora installed (pipx install vora-board), the same in one step:
    vora flash --port PORT{pinmap}
        (first install, on stock MicroPython; --romfs: in its ROMFS partition)
    vora update --port PORT --from {name}.vbundle{unsigned}
        (a board that runs Vora firmware)
""".format(pinmap="" if bundle.board == "rp2" else " --pinmap " + PINMAPS[bundle.board][len("pinmap-"):-len(".json")],
           unsigned="" if bundle.signer is not None else " --allow-unsigned",
           version=m["firmware"], board=m["board"], mpy0=m["mpy"][0], mpy1=m["mpy"][1],
           arch=m.get("arch") or "no native code", name=name,
           minimum=".".join(str(x) for x in bundles.MIN_MICROPYTHON),
           confirm=fw_boot.CONFIRM_MS // 1000)


def write_release(out, board="rp2", sign=None, version=None):
    """Build the firmware for `board` boards and write the bundle file and the board
    folder into `out`; returns (bundle, bundle file, folder). BundleError when it cannot
    (nothing is left half written)."""
    if board not in PINMAPS:
        raise bundles.BundleError("unknown board kind %r (known: %s)"
                                  % (board, ", ".join(sorted(PINMAPS))))
    out = Path(out)
    try:
        pinmap = json.loads(resources.read_bytes(PINMAPS[board]))
    except (resources.MissingResource, ValueError) as exc:
        raise bundles.BundleError("cannot read the %s pin map: %s" % (board, exc))
    if romfs.mpremote_lacks():
        raise bundles.BundleError("the release's ROMFS image: %s" % romfs.mpremote_lacks())
    b = bundles.build(board=board, arch=ARCHS[board], version=version)
    if sign is not None:
        bundles.sign_bundle(b, sign)
    roots = bundles.root_files(pinmap, ARCHS[board])
    name = "vora-firmware-%s-%s" % (b.version, board)
    bundle_file = out / (name + ".vbundle")
    folder = out / name
    for taken in (bundle_file, folder):
        if taken.exists():
            raise bundles.BundleError("%s exists already: remove it, or write elsewhere "
                                      "with --out DIR" % taken)
    staging = out / (".%s.tmp" % name)
    try:
        out.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(staging, ignore_errors=True)
        for where, in_romfs in (("board", False), ("romfs/board", True)):
            for path, data in board_files(b, roots, romfs=in_romfs):
                target = staging / where / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        (staging / "romfs" / ROMFS_IMAGE).write_bytes(romfs.build_image(b))
        (staging / "INSTALL.txt").write_text(install_text(name, b), encoding="utf-8")
        bundles.write_bundle(b, bundle_file)
        staging.rename(folder)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if bundle_file.exists() and not folder.exists():
            bundle_file.unlink()
        raise bundles.BundleError("cannot write the release into %s: %s"
                                  % (out, exc.strerror or exc))
    return b, bundle_file, folder
