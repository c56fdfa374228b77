"""How long the board's own bot thinks, under MicroPython's Unix port, and what that
means on a Pico.

    .venv/bin/python bench/bench_board_bot_time.py [--levels easy normal hard] [--games 6]
                                                   [--repeat 3]

Each level plays both seats of GAMES 2-player games (seeds 0 to GAMES-1) from .mpy files
as `vora flash` installs them (so mpy-cross must accept the bot), in a hard heap of 192
KiB (bench/mp_board_bot_time.py). A decision is start() and then one step() per scan
until the bot says it is done; each step tries one candidate move on a copy of the state.

The Pico figure is an estimate, not a measurement: the Unix port's times multiplied by
how much slower an RP2040 at 125 MHz runs C code than one core of this machine, from
CoreMark (the interpreter is C): 228 iterations a second on a Pico (arduino-pico, GCC -Os,
github.com/PaulStoffregen/CoreMark pull request 15) against COREMARK_HERE on this
machine (eembc/coremark, `make PORT_DIR=linux XCFLAGS=-O2`, one core, 2000 iterations),
so PICO_FACTOR about 86. On the board a step also waits for its scan (5 ms period), so a
decision takes at least 5 ms a step: the estimate is the larger of the two.

The machine is shared: other work slows every timing (CoreMark itself ran at half speed
under a load of 4), so each level is run REPEAT times and the run with the fastest mean
step is kept, as the CoreMark figure is this machine's unloaded one.
"""

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from mpy import firmware_tree, run_unix_micropython  # noqa: E402

COREMARK_PICO = 228.0
COREMARK_HERE = 19629.0  # measured on the development machine (docs/benchmarks.md)
PICO_FACTOR = COREMARK_HERE / COREMARK_PICO
SCAN_MS = 5.0
DRIVER = ROOT / "bench" / "mp_board_bot_time.py"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", nargs="+", default=["easy", "normal", "hard"])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("Unix port, .mpy, 192 KiB heap, %d two-player games a level, the fastest of %d "
          "runs; Pico estimate: x%.0f (CoreMark), at least %g ms a step"
          % (args.games, args.repeat, PICO_FACTOR, SCAN_MS))
    with tempfile.TemporaryDirectory() as tmp:
        tree = firmware_tree(tmp, [DRIVER])
        for level in args.levels:
            m = None
            for _ in range(args.repeat):
                done = run_unix_micropython(DRIVER.stem, tree, [level, args.games],
                                            timeout=600, check=True)
                run = {}
                for line in done.stdout.splitlines():
                    name, *values = line.split()
                    run[name] = [int(v) for v in values]
                if m is None or run["step_us"][0] < m["step_us"][0]:
                    m = run
            steps, step_us, decision_us = m["steps"], m["step_us"], m["decision_us"]
            print("%-6s steps a decision: mean %d, 95th percentile %d, most %d" % (
                level, steps[0], steps[1], steps[2]))
            print("       a step here: mean %d us, 95th percentile %d us, slowest %d us "
                  "(a collection of the heap included)" % tuple(step_us))
            print("       a decision here: mean %.1f ms, 95th percentile %.1f ms, slowest "
                  "%.1f ms" % tuple(u / 1000.0 for u in decision_us))
            mean, p95 = (max(u * PICO_FACTOR / 1e6, s * SCAN_MS / 1e3)
                         for u, s in zip(decision_us[:2], steps[:2]))
            print("       on a Pico (estimate): a step %.1f ms mean; a decision %.2f s mean, "
                  "%.2f s at the 95th percentile" % (step_us[0] * PICO_FACTOR / 1000.0,
                                                     mean, p95))


if __name__ == "__main__":
    main()
