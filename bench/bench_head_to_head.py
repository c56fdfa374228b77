"""Two bot kinds against each other on one game, two players, seats alternating:

    .venv/bin/python bench/bench_head_to_head.py GAME KIND_A KIND_B [GAMES] [--max-seconds S]

Game k is new_game(2, seed=k), KIND_A takes seat k % 2 (bot seeds 2k and 2k+1), so a
run replays exactly. Prints KIND_A's score (a draw counts 1/2) with a Wilson 95%
interval, over the games played before --max-seconds (default 230) ran out.
"""

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

from shared_rules import games  # noqa: E402
from vora_host.bots import make_bot  # noqa: E402


def wilson(score, n, z=1.96):
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", choices=games.names())
    ap.add_argument("kind_a")
    ap.add_argument("kind_b")
    ap.add_argument("games", nargs="?", type=int, default=200)
    ap.add_argument("--max-seconds", type=float, default=230.0)
    args = ap.parse_args()
    module = games.load(args.game)
    started = time.time()
    score = 0.0
    played = 0
    for k in range(args.games):
        if time.time() - started > args.max_seconds:
            break
        state = module.new_game(2, k)
        seat = k % 2
        bots = {seat: make_bot(args.kind_a, 2 * k, args.game),
                1 - seat: make_bot(args.kind_b, 2 * k + 1, args.game)}
        while not state.is_over():
            state.play(bots[state.to_act()].choose(state))
        winner = state.winner()
        score += 0.5 if winner is None else float(winner == seat)
        played += 1
    lo, hi = wilson(score, played)
    print("%s: %s against %s: %d games (seats alternating, seeds 0..%d): score %.3f "
          "[95%% %.3f, %.3f]; %.0f s" % (args.game, bots[seat].kind, bots[1 - seat].kind,
                                         played, played - 1, score / played, lo, hi,
                                         time.time() - started))


if __name__ == "__main__":
    main()
