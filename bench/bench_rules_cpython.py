"""CPython speed of the Vora rules: full random games per second, moves per second.

A "move" here is one legal_moves() call plus one play(): what a bot or the host does per
step. Random games mostly run to the max_turns safeguard (400 turns), so they are the long
games; the figure for games between collecting players is given too.

    ./dev vora  # not needed; run:  .venv/bin/python bench/bench_rules_cpython.py
"""

import platform
import random
import sys
import time

from shared_rules import vora


def random_games(seconds, collecting):
    games = moves = 0
    t0 = time.perf_counter()
    seed = 0
    while time.perf_counter() - t0 < seconds:
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
    dt = time.perf_counter() - t0
    return games / dt, moves / dt, moves / games


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print("Vora rules on %s %s (%s)" % (platform.python_implementation(),
                                        platform.python_version(), platform.machine()))
    gps, mps, per = random_games(seconds, collecting=False)
    print("random play:          %7.1f games/s  %8.0f moves/s  (%.0f moves per game)"
          % (gps, mps, per))
    gps, mps, per = random_games(seconds, collecting=True)
    print("random, always take:  %7.1f games/s  %8.0f moves/s  (%.0f moves per game)"
          % (gps, mps, per))


if __name__ == "__main__":
    main()
