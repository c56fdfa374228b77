"""Pool the per-game lines of several runs of bench_vs_openspiel.py (or of runs cut
short) into one score with a Wilson 95% interval:

    .venv/bin/python bench/pool_scores.py run1.txt run2.txt ...

Counts every "game seed S seat P score X" line once per seed and seat: the same seed
and seat in two runs is the same game (the bots' seeds come from the game's seed), while
a seed played at the other seat by an overlapping run is another game."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_vs_openspiel import wilson  # noqa: E402

LINE = re.compile(r"^game seed (\d+) seat (\d) score ([01](?:\.\d)?)$")


def main():
    scores = {}
    for path in sys.argv[1:]:
        for line in Path(path).read_text().splitlines():
            m = LINE.match(line.strip())
            if m:
                scores[int(m.group(1)), int(m.group(2))] = float(m.group(3))
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
