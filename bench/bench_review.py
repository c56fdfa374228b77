"""How long a review takes (issue 41: a 300-move Vora game under a minute on two cores):
`vora games review`'s computation (vora_host.review.run.review_game) of a logged Vora game
of at least 300 moves, at each budget given, with one and with two worker processes.

    .venv/bin/python bench/bench_review.py [--budgets 300,600] [--workers 1,2] [--moves 300]

The game: the first seed from 0 whose game between random players lasts at least
--moves moves (reproducible), logged in a temporary SQLite file; each run reviews it
afresh (--again). Prints, per budget and worker count, the wall-clock seconds (what a
person waits: the workers' start included), the milliseconds per position, and the CPU
seconds of this process and its workers together (what the review costs, whatever else
runs on the machine); and checks that every worker count gave the same review.
"""

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

from shared_rules import games  # noqa: E402
from vora_host.log.records import result_of  # noqa: E402
from vora_host.log.store import GameLog  # noqa: E402
from vora_host.review import run as review_run  # noqa: E402


def long_game(log, at_least):
    """(game id, moves) of the first random Vora game of at least `at_least` moves."""
    module = games.load("vora")
    for seed in range(1000):
        state = module.new_game(2, seed)
        rng = random.Random(seed)
        moves = []
        while not state.is_over():
            move = rng.choice(state.legal_moves())
            state.play(move)
            moves.append((move, state.digest()))
        if len(moves) >= at_least:
            gid = log.start_game(game="vora", players=2, seed=seed, source="terminal")
            for k, (move, digest) in enumerate(moves, 1):
                log.add_move(gid, k, move, digest)
            log.end_game(gid, "over", result_of(state))
            return gid, seed, len(moves)
    raise SystemExit("no game of %d moves in seeds 0 to 999" % at_least)


def _cpu():
    # This process's CPU seconds and its workers' (counted once they have ended).
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", default=str(review_run.DEFAULT_BUDGET),
                    help="iterations per position, comma-separated (default: the default)")
    ap.add_argument("--workers", default="1,2", help="worker processes, comma-separated")
    ap.add_argument("--moves", type=int, default=300, help="the game's least length")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    workers = [int(w) for w in args.workers.split(",")]
    with tempfile.TemporaryDirectory() as folder, \
            GameLog(Path(folder) / "games.sqlite3") as log:
        gid, seed, n = long_game(log, args.moves)
        print("Vora, seed %d: %d moves (%d positions searched)" % (seed, n, n))
        print("%8s %8s %10s %14s %12s" % ("budget", "workers", "seconds", "ms/position",
                                          "CPU seconds"))
        for budget in budgets:
            seen = []
            for w in workers:
                started = time.perf_counter()
                cpu = _cpu()
                review = review_run.review_game(log, gid, budget=budget, again=True,
                                                workers=w)
                took = time.perf_counter() - started
                cpu = _cpu() - cpu
                seen.append(review["moves"])
                print("%8d %8d %10.1f %14.1f %12.1f" % (budget, w, took, 1000 * took / n, cpu),
                      flush=True)
            assert all(s == seen[0] for s in seen), "the worker counts disagree"
    return 0


if __name__ == "__main__":
    sys.exit(main())
