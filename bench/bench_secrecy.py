"""The differential secrecy check over many positions (docs/benchmarks.md, "Secrets").

For every game with hidden information: random games, a position every few moves, each
viewer (every player and a spectator): the secrets the viewer cannot know are dealt again,
and everything the host shows that viewer is compared (tests/secrecy.py lists it). Prints
the comparisons, how many were of states that really differ, and the leaks (0 expected).

    .venv/bin/python bench/bench_secrecy.py [--positions 4000] [--seed 0]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import secrecy  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=4000,
                        help="positions x viewers compared per game (default 4000)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    args = parser.parse_args(argv)
    leaks = 0
    for name in secrecy.hidden_games():
        start = time.perf_counter()
        result = secrecy.differential(name, args.positions, seed=args.seed)
        took = time.perf_counter() - start
        leaks += len(result["leaks"])
        print("%-14s %6d compared, %6d of states that differ, %d leaks (%.0f s)"
              % (name, result["compared"], result["redealt"], len(result["leaks"]), took),
              flush=True)
        for leak in result["leaks"][:10]:
            print("   leak: game seed %d, move %d, viewer %s: %s" % leak)
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
