"""bench/pool_scores.py: the runs of bench_vs_openspiel.py pooled into one score."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("open_spiel", reason="the pooling script reads the bench's interval "
                    "from bench_vs_openspiel.py, which needs the openspiel extra")

POOL = Path(__file__).resolve().parent.parent / "bench" / "pool_scores.py"


def pool(*args):
    return subprocess.run([sys.executable, str(POOL), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_runs_are_pooled_counting_a_seed_and_seat_once(tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("calibrated: whatever\n"
                   "game seed 10 seat 0 score 1.0\n"
                   "game seed 11 seat 1 score 0.5\n"
                   "vora: a summary line\n")
    # An overlapping run: seed 11 at seat 1 again is the same game; seed 10 at the
    # other seat is another game; and a run cut short mid-line.
    two = tmp_path / "two.txt"
    two.write_text("game seed 11 seat 1 score 0.5\n"
                   "game seed 10 seat 1 score 0.0\n"
                   "game seed 12 seat 0 score 1.0\n"
                   "game seed 13 se")
    done = pool(one, two)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("4 games (seeds 10..12): score 0.625 [95% ")
    assert done.stdout.rstrip().endswith("(won 2, drew 1, lost 1)")


def test_a_missing_run_or_one_without_games_is_named(tmp_path):
    done = pool(tmp_path / "nowhere.txt")
    assert done.returncode == 2 and "cannot read" in done.stderr \
        and "nowhere.txt" in done.stderr and "Traceback" not in done.stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("no games here\n")
    done = pool(empty)
    assert done.returncode == 0 and "empty.txt: no game lines" in done.stderr
    assert done.stdout.startswith("0 games (seeds -)")
    helped = pool("--help")
    assert helped.returncode == 0
    assert "--help" not in helped.stderr and "RUN" in helped.stdout
