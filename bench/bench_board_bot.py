"""The board's own bot under MicroPython (the WebAssembly port, run by Node): one person
by key presses against the bot at North, with a takeback by keys, 60 moves
(tests/mp_scripts/board_bot.py). The heap is measured per step: a key event, or one scan
of 5 ms while the bot thinks (it tries one candidate move per scan).

    .venv/bin/python bench/bench_board_bot.py [SEED] [LEVEL]    (LEVEL: easy, normal, hard)

Times are WebAssembly on this PC, not an RP2040.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    seed = sys.argv[1] if len(sys.argv) > 1 else "1"
    level = sys.argv[2] if len(sys.argv) > 2 else "normal"
    done = subprocess.run(["node", str(ROOT / "tools" / "mpy_run.mjs"), "--mount",
                           "%s:/app" % ROOT, "--path", "/app", "--path", "/app/firmware",
                           "--steps", "step", "tests/mp_scripts/board_bot.py", seed, "60",
                           level],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit("MicroPython run failed:\n" + done.stdout[-2000:] + done.stderr)
    lines = done.stdout.splitlines()
    m = {k: int(v) for k, v in (l.split() for l in lines
                                if not l.startswith(("move", "start", "takeback")))}
    moves = sum(l.startswith("move") for l in lines)
    print("The board's bot (%s) under MicroPython: %d moves, seed %s" % (level, moves, seed))
    print("  peak heap of any step (key event or bot scan), code aside: %6d bytes "
          "(target < 65536)" % m["peak_bytes"])
    print("  peak heap of a scan while the bot thinks:                  %6d bytes"
          % m["bot_peak_bytes"])
    print("  heap kept between steps:                                   %6d bytes"
          % m["live_bytes"])
    print("  slowest scan while the bot thinks (one candidate):         %6.1f ms"
          % (m["think_us"] / 1000))


if __name__ == "__main__":
    main()
