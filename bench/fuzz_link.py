"""A million fuzzed inputs through the link's decoders, the host's and the board's message
handlers and the board's save loader (tests/link_fuzz.py makes them: valid frames, messages
and saves, mutated field-wise and byte-wise, re-framed with a valid CRC).

    .venv/bin/python bench/fuzz_link.py [INPUTS] [--targets decoders,host,board,save]
                                        [--jobs N] [--seed S]

INPUTS (default 1,000,000) are shared evenly between the targets. A message handler keeps
its state from one input to the next (a client that follows a game, then gets a bad GAME,
then a MOVE...), as a real session would. Prints the inputs per second of each target and
every exception that escaped where only the documented ones may, with the seed that
reproduces it; exits 1 if there was any.
"""

import argparse
import multiprocessing
import os
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import link_fuzz  # noqa: E402

STATEFUL = {"host": link_fuzz.HostTarget, "board": link_fuzz.BoardTarget}


def _work(args):
    name, first, count = args
    fuzz = link_fuzz.TARGETS[name]
    make = STATEFUL.get(name)
    target = make() if make else None
    escaped = {}
    t0 = time.perf_counter()
    for seed in range(first, first + count):
        rng = random.Random(seed)
        try:
            if target is not None:
                fuzz(rng, target, count=1)
            else:
                fuzz(rng)
        except Exception as exc:  # noqa: BLE001  (what escaped is what we are looking for)
            where = traceback.extract_tb(exc.__traceback__)[-1]
            key = "%s at %s:%d" % (type(exc).__name__, Path(where.filename).name, where.lineno)
            if key not in escaped:
                escaped[key] = (seed, str(exc)[:200])
            if make:
                target = make()
    return name, count, time.perf_counter() - t0, escaped


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="?", type=int, default=1000000)
    parser.add_argument("--targets", default=",".join(link_fuzz.TARGETS))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    names = args.targets.split(",")
    per = args.inputs // len(names)
    chunk = 5000
    work = [(name, args.seed + s, min(chunk, per - s)) for name in names for s in range(0, per, chunk)]
    totals = {name: [0, 0.0] for name in names}
    escaped = {}
    t0 = time.time()
    with multiprocessing.Pool(args.jobs) as pool:
        for k, (name, count, seconds, found) in enumerate(pool.imap_unordered(_work, work), 1):
            totals[name][0] += count
            totals[name][1] += seconds
            for key, (seed, text) in found.items():
                escaped.setdefault((name, key), (seed, text))
            if k % 20 == 0:
                sys.stderr.write("  %d/%d inputs\n" % (sum(t[0] for t in totals.values()),
                                                        per * len(names)))
    print("Link fuzzing: %d inputs in %.0f s (%d jobs)" % (
        sum(t[0] for t in totals.values()), time.time() - t0, args.jobs))
    for name in names:
        n, seconds = totals[name]
        print("  %-9s %8d inputs, %6.0f inputs/s per job" % (name, n, n / seconds if seconds else 0))
    if not escaped:
        print("  nothing escaped but the documented errors")
        return 0
    for (name, key), (seed, text) in sorted(escaped.items()):
        print("  ESCAPED %s: %s (seed %d): %s" % (name, key, seed, text))
    return 1


if __name__ == "__main__":
    sys.exit(main())
