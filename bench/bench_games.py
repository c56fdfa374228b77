"""Random playouts of every registered game on one CPython core: games per second, moves
per second, moves per game, and how the games ended.

A move is one legal_moves() call plus one play(). Moves are picked with random.Random, so
runs repeat exactly. Rates are per second of this process's CPU time (time.process_time),
so that other work on a shared machine hardly changes them.

    .venv/bin/python bench/bench_games.py [SECONDS_PER_CASE]      (default 3)
"""

import collections
import platform
import random
import sys
import time

from shared_rules import games


def playouts(module, players, seconds):
    count = moves = 0
    ends = collections.Counter()
    t0 = time.process_time()
    seed = 0
    while time.process_time() - t0 < seconds or count < 3:
        rnd = random.Random(seed)
        state = module.new_game(players, seed=seed)
        while not state.is_over():
            state.play(rnd.choice(state.legal_moves()))
            moves += 1
        ends[state.end_reason()] += 1
        count += 1
        seed += 1
    dt = time.process_time() - t0
    return count / dt, moves / dt, moves / count, ends, count


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    print("Random playouts on %s %s (%s), one core, %.0f CPU seconds per case"
          % (platform.python_implementation(), platform.python_version(), platform.machine(),
             seconds))
    print("%-14s %7s %9s %10s %9s  %s" % ("game", "players", "games/s", "moves/s",
                                          "moves/game", "ends (games)"))
    for name in games.names():
        module = games.load(name)
        for players in module.PLAYER_COUNTS:
            gps, mps, per, ends, n = playouts(module, players, seconds)
            print("%-14s %7d %9.1f %10.0f %9.0f  %s" % (
                name, players, gps, mps, per,
                ", ".join("%s %d%%" % (e, 100 * c // n) for e, c in ends.most_common())))


if __name__ == "__main__":
    main()
