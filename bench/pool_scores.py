"""Pool the per-game lines of several runs of bench_vs_openspiel.py (or of runs cut
short) into one score with a Wilson 95% interval:

    .venv/bin/python bench/pool_scores.py run1.txt run2.txt ...

Counts every "game seed S seat P score X" line once per seed and seat: the same seed
and seat in two runs is the same game (the bots' seeds come from the game's seed), while
a seed played at the other seat by an overlapping run is another game."""

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vs_openspiel import wilson  # noqa: E402

LINE = re.compile(r"^game seed (\d+) seat (\d) score ([01](?:\.\d)?)$")


def main(argv=None):
    summary = __doc__.split("\n\n")[0].replace("\n", " ").rstrip(":") + "."
    parser = argparse.ArgumentParser(description=summary)
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="a run's output, as bench_vs_openspiel.py printed it")
    args = parser.parse_args(argv)
    scores = {}
    for path in args.runs:
        try:
            text = Path(path).read_text(errors="replace")
        except OSError as exc:
            parser.error("cannot read %s: %s" % (path, exc.strerror or exc))
        found = 0
        for line in text.splitlines():
            m = LINE.match(line.strip())
            if m:
                scores[int(m.group(1)), int(m.group(2))] = float(m.group(3))
                found += 1
        if not found:
            print("%s: no game lines (\"game seed S seat P score X\")" % path, file=sys.stderr)
    n = len(scores)
    total = sum(scores.values())
    lo, hi = wilson(total, n)
    seeds = sorted(seed for seed, _ in scores)
    print("%d games (seeds %s): score %.3f [95%% %.3f, %.3f] (won %d, drew %d, lost %d)"
          % (n, "%d..%d" % (seeds[0], seeds[-1]) if seeds else "-", total / max(1, n), lo,
             hi, sum(v == 1 for v in scores.values()), sum(v == 0.5 for v in scores.values()),
             sum(v == 0 for v in scores.values())))


if __name__ == "__main__":
    main()
