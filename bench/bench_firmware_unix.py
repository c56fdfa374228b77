"""The whole firmware under MicroPython's Unix port with a HARD heap (-X heapsize), as on a
Pico: tests/mp_scripts/board_soak.py (a 4-player game by keys, an update staged and
confirmed, the doctor, a game with two seats of the board's bot, a takeback, a power cut
and resume, then more games without a reset), loaded from .mpy files as `vora flash`
installs them, or with --romfs from a ROMFS image mounted at /rom (as `vora flash --romfs`
installs them: tests/mp_scripts/board_romfs.py). Reports the free heap and the largest
free block after each game (micropython.mem_info()), the slowest key event to frame, and
with --find-min the smallest heap (in KiB) under which the whole run still passes.

    .venv/bin/python bench/bench_firmware_unix.py [--games 200] [--heap 256] [--find-min]
                                                  [--romfs] [--alone] [--small-bundle]
                                                  [--seed 1] [--hold-ms 60]
                                                  [--part all|keys|bot|update]

The update is the whole firmware (as `vora update` sends it); --small-bundle sends the five
modules the tests' updates carry (the figures before 2026-11-26 22:00 UTC). With --alone
no PC is at the USB port: the same games (and power cut) without the update
and the doctor, and the link is never made (as vora_fw.start makes it at the PC's first byte).

The Unix port is a 64-bit build (8-byte words where the RP2040 has 4), so its figures are
higher than the board's: docs/benchmarks.md compares them. VORA_MICROPYTHON_UNIX=PATH runs
another build of the Unix port (a 32-bit one: docs/micropython-testing.md). With --romfs
the image's copy lies in the heap (this port has no flash to run code from) and the heap
is made larger by exactly what it takes (tests/mpy.py romfs_heapsize): --heap is what the
firmware gets.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from maker_support import full_bundle, small_bundle  # noqa: E402
from mpy import (firmware_tree, parse_mem_info, romfs_heapsize, romfs_tree,  # noqa: E402
                 run_unix_micropython, unix_gc_block, unix_micropython)

DRIVERS = [ROOT / "tests" / "board_player.py", ROOT / "tests" / "mp_scripts" / "board_soak.py",
           ROOT / "shared_rules" / "wire_host.py"]  # the soak's PC packs with the host's half


def write_bundle(out, full=False):
    b = (full_bundle if full else small_bundle)("0.2.0")
    for name, data in b.files:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    (out / "manifest.json").write_bytes(b.manifest_bytes)
    return out


def per_game(stdout, block_bytes):
    """[(label, free, max_free)] from the "mem <label>" lines and mem_info after each."""
    out = []
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("mem "):
            info = parse_mem_info("\n".join(lines[i + 1:i + 5]), block_bytes)
            out.append((line.split()[1], info["free"], info["max_free"], info["total"]))
    return out


def run(tree, bundle, games, heap_kib, seed, hold_ms, image=None, part="all"):
    t0 = time.time()
    args, heap = [seed, games, bundle or "-", hold_ms, part], heap_kib * 1024
    if image is not None:  # the code in ROMFS: the image's copy on top of the firmware's heap
        args, heap = [image, "board_soak"] + args, romfs_heapsize(heap, tree, image)
    # A game takes 3 to 10 s on a busy machine: the 200-game soak needs more than 15 min.
    done = run_unix_micropython("board_romfs" if image else "board_soak", tree, args,
                                heap=heap, timeout=max(900, 15 * games))
    return done, time.time() - t0


def update_went_through(stdout):
    """True when the soak's update line says the board switched to the new version: a
    refused update ("refused UPD_DATA: memory allocation failed ...") leaves the game
    playing and the run ending well, so the exit code alone does not tell."""
    for line in stdout.splitlines():
        words = line.split()
        if words[:1] == ["update"] and len(words) > 2:
            return words[2] == "switched"
    return False


def passes(done, alone=False, update=True):
    # The board survives a MemoryError (vora_fw.app): a pass is a run where none happened;
    # with a PC, the update must have gone through too (issue 40: a refused update passed).
    return done.returncode == 0 and "MemoryError" not in done.stderr and \
        "memory_errors 0" in done.stdout.splitlines() and \
        (alone or not update or update_went_through(done.stdout))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--heap", type=int, default=None, help="KiB (default: 192)")
    parser.add_argument("--find-min", action="store_true",
                        help="search the smallest passing heap, in 4 KiB steps")
    parser.add_argument("--romfs", action="store_true",
                        help="the firmware's modules from a ROMFS image at /rom")
    parser.add_argument("--driver-in-rom", action="store_true",
                        help="with --romfs: the test's driver (board_soak, board_player) in "
                             "the image too, so only the firmware's code is off the heap "
                             "and none of the driver's is on it")
    parser.add_argument("--alone", action="store_true",
                        help="no PC: no update, no doctor, the link never made")
    parser.add_argument("--small-bundle", action="store_true",
                        help="update with a bundle of the few modules the tests' updates "
                             "carry, not the whole firmware (the figures before 2026-11-26 22:00 UTC)")
    parser.add_argument("--part", choices=("all", "keys", "bot", "update"), default="all",
                        help="one part of the run alone: keys (a 4-player game by keys), bot "
                             "(the board's bot, a takeback, a power cut and resume), update "
                             "(a 2-player game, the doctor and the update in its middle)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hold-ms", type=int, default=60)
    a = parser.parse_args()
    if a.alone and a.part == "update":
        parser.error("--part update needs a PC (not --alone): the update comes over the link")
    if a.driver_in_rom and not a.romfs:
        parser.error("--driver-in-rom needs --romfs (the driver goes into the ROMFS image)")
    with tempfile.TemporaryDirectory() as tmp:
        if a.romfs:
            tree, image = romfs_tree(Path(tmp), DRIVERS, drivers_in_image=a.driver_in_rom)
        else:
            tree, image = firmware_tree(Path(tmp) / "tree", DRIVERS), None
        where = "from ROMFS" if a.romfs else "from .mpy files"
        if a.romfs and a.driver_in_rom:
            where += " (the driver's too)"
        bundle = None if a.alone else write_bundle(Path(tmp) / "bundle", not a.small_bundle)
        if a.alone:
            where += ", no PC"
        if a.part != "all":
            where += ", part %s only" % a.part
        if a.find_min:
            lo, hi = 64, 512 if a.romfs else 768  # lo fails, hi passes (checked below)
            done, _ = run(tree, bundle, a.games, hi, a.seed, a.hold_ms, image, a.part)
            if not passes(done, a.alone, a.part in ("all", "update")):
                raise SystemExit("fails even at %d KiB:\n%s" % (hi, done.stderr[-2000:]))
            while hi - lo > 4:
                mid = (lo + hi) // 8 * 4
                done, secs = run(tree, bundle, a.games, mid, a.seed, a.hold_ms, image, a.part)
                ok = passes(done, a.alone, a.part in ("all", "update"))
                print("  %3d KiB: %s (%.0f s)" % (mid, "passes" if ok else "fails", secs))
                if ok:
                    hi = mid
                else:
                    lo = mid
            print("smallest passing heap, code %s: %d KiB (%d KiB fails), %d games, seed %d"
                  % (where, hi, lo, a.games, a.seed))
            return
        heap = a.heap or 192
        done, secs = run(tree, bundle, a.games, heap, a.seed, a.hold_ms, image, a.part)
        if not passes(done, a.alone, a.part in ("all", "update")):
            print(done.stdout[-3000:])
            raise SystemExit("FAILED at %d KiB:\n%s" % (heap, done.stderr[-3000:]))
        block = unix_gc_block()
        games = per_game(done.stdout, block)
        print("Firmware under the Unix port (%s, %d-bit), code %s, heap capped at %d KiB: "
              "%d games (seed %d), %.0f s" % (unix_micropython(), block * 8 // 4, where, heap,
                                             a.games, a.seed, secs))
        print("  %-8s %10s %14s" % ("after", "free B", "largest free B"))
        for label, free, max_free, total in games:
            if not label.isdigit() or label in ("1", "2", "3") or label == str(a.games) or \
                    int(label) % 25 == 0:
                print("  %-8s %10d %14d" % (label, free, max_free))
        played = [g for g in games if g[0].isdigit()]
        # Of the collector's pool, the image's copy (--romfs) is not the firmware's.
        image_heap = sum(int(line.split()[1]) for line in done.stdout.splitlines()
                         if line.startswith("romfs_image_heap"))
        print("  lowest free after a game: %d B; smallest largest-free-block: %d B (of %d)"
              % (min(g[1] for g in played), min(g[2] for g in played),
                 played[0][3] - image_heap))
        for line in done.stdout.splitlines():
            if line.startswith("link_modules"):
                print("  the link's modules loaded at the end: %s" % line.split()[1])
            if line.startswith("key_to_frame_us"):
                print("  key event to frame, slowest: %.2f ms" % (int(line.split()[1]) / 1000))
            if line.startswith("key_to_frame_median_us"):
                w = line.split()
                print("  key event to frame, median: %.1f ms, 99th percentile: %.1f ms"
                      % (int(w[1]) / 1000, int(w[3]) / 1000))


if __name__ == "__main__":
    main()
