"""CPython speed of the Vora rules: full random games per second, moves per second.

A "move" here is one legal_moves() call plus one play(): what a bot or the host does per
step. Random games are the long ones; the figure for games between players who always
collect is given too. The target (issue 12): at least 50,000 random moves per second on
one core.

Figures are per second of this process's CPU time (one core's worth of work, whatever
else the machine runs) and per second of wall time (the same on an idle machine).

    .venv/bin/python bench/bench_rules_cpython.py [SECONDS]
"""

import platform
import random
import sys
import time

from shared_rules import vora


TARGET = 50000  # random moves per second on one core


def random_games(seconds, collecting):
    games = moves = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    seed = 0
    while time.process_time() - c0 < seconds:
        rnd = random.Random(seed)
        s = vora.new_game(2 + seed % 3, seed=seed)
        while not s.is_over():
            legal = s.legal_moves()
            if collecting and s.phase != vora.PHASE_ACTION:
                move = ([m for m in legal if m != "pass"] or legal)[0]
            else:
                move = rnd.choice(legal)
            s.play(move)
            moves += 1
        games += 1
        seed += 1
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    return games / cpu, moves / cpu, moves / games, moves / wall


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print("Vora rules on %s %s (%s)" % (platform.python_implementation(),
                                        platform.python_version(), platform.machine()))
    gps, mps, per, wall = random_games(seconds, collecting=False)
    print("random play:          %7.1f games/s  %8.0f moves/s  (%.0f moves per game; "
          "wall clock %.0f moves/s)" % (gps, mps, per, wall))
    print("  target: %d random moves/s on one core: %s"
          % (TARGET, "met" if mps >= TARGET else "NOT MET"))
    gps, mps, per, wall = random_games(seconds, collecting=True)
    print("random, always take:  %7.1f games/s  %8.0f moves/s  (%.0f moves per game; "
          "wall clock %.0f moves/s)" % (gps, mps, per, wall))


if __name__ == "__main__":
    main()
