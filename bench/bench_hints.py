"""How long a hint takes (issue 41: within 2 s of CPU in every game): the CPU time of
`vora_host.bots.hints.compute_hint` (the hard level's move from the player's view, and
its reason) at positions of games between search:20 bots, for each game at two players
and at its most players.

    .venv/bin/python bench/bench_hints.py [--positions N] [--game NAME]

Positions: N per game and player count (default 8), taken every 7 moves of games seeded
0, 1, ... (reproducible). Times are the process's CPU time (time.process_time), so that
other work on the machine does not count; a loaded machine still slows caches a little.
Prints, per game and player count: the mean, the median and the slowest hint, how many
took more than 2 s, and how many were cut (the hard level's search stopped at
vora_host.bots.hints.CPU_LIMIT_S of CPU before its iterations were done).
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

from shared_rules import games  # noqa: E402
from vora_host.bots import make_bot  # noqa: E402
from vora_host.bots.hints import compute_hint, hint_kind  # noqa: E402

LIMIT_S = 2.0
GAMES = ("vora", "vorcept", "gaia-vora", "tossing-tiger", "boars")


def positions(name, players, count):
    """(state, moves played) at `count` positions with a choice, from games between
    search:20 bots (positions like those people meet, not only random ones)."""
    module = games.load(name)
    out = []
    g = 0
    while len(out) < count:
        state = module.new_game(players, g)
        agents = [make_bot("search:20", g * 10 + p, name) for p in range(players)]
        k = 0
        while not state.is_over() and len(out) < count:
            if k % 7 == 3 and len(state.legal_moves()) > 1:
                out.append((state.clone(), k))
            state.play(agents[state.to_act()].choose(state))
            k += 1
        g += 1
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--game", choices=GAMES, action="append")
    args = parser.parse_args(argv)
    print("hint CPU seconds per position (time.process_time), %d positions a row"
          % args.positions)
    print("%-14s %7s %-26s %6s %6s %6s %5s %4s" % ("game", "players", "kind", "mean",
                                                   "median", "max", ">2s", "cut"))
    worst = 0.0
    for name in args.game or GAMES:
        counts = games.load(name).PLAYER_COUNTS
        for players in sorted({2 if 2 in counts else counts[0], counts[-1]}):
            times = []
            cut = 0
            for state, number in positions(name, players, args.positions):
                started = time.process_time()
                hint = compute_hint(name, state, number)
                times.append(time.process_time() - started)
                cut += hint.cut
                assert hint.move in state.legal_moves()
            worst = max(worst, max(times))
            print("%-14s %7d %-26s %6.2f %6.2f %6.2f %5d %4d" % (
                name, players, hint_kind(name), statistics.mean(times),
                statistics.median(times), max(times), sum(t > LIMIT_S for t in times),
                cut), flush=True)
    print("slowest hint: %.2f s of CPU (the limit: %.0f s)" % (worst, LIMIT_S))
    return 0 if worst <= LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
