"""A quick match between two Vora bot kinds, with the time each decision takes.

    .venv/bin/python bench/bench_vora_bot.py KIND OTHER [--games N] [--players P]
                                             [--first-seed S]

Game g (seeds S to S+N-1) is dealt with seed g; KIND sits at seat g % P and OTHER at
the others; the bot at seat p gets seed 10 g + p, so a run replays exactly. Prints
KIND's wins with a 95% Wilson interval, its mean margin (its score minus the best other)
and the CPU time of its decisions (`time.process_time`: one core, hardly touched by
other work on the machine): mean, 95th percentile and maximum. This is how the lookahead
bot's settings were tried (docs/bots.md); the lab (`vora lab vora --bots ...`) gives the
figures of record.
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

from shared_rules import vora  # noqa: E402
from vora_host.bots import make_bot  # noqa: E402
from vora_host.lab.stats import wilson  # noqa: E402


def match(kind, other, games, players, first):
    wins = draws = 0
    margin = 0
    times = []
    for g in range(first, first + games):
        state = vora.new_game(players, g)
        seat = g % players
        bots = [make_bot(kind if p == seat else other, g * 10 + p, "vora")
                for p in range(players)]
        while not state.is_over():
            p = state.to_act()
            started = time.process_time()
            move = bots[p].choose(state)
            if p == seat:
                times.append(time.process_time() - started)
            state.play(move)
        winner = state.winner()
        wins += winner == seat
        draws += winner is None
        scores = state.scores()
        margin += scores[seat] - max(s for q, s in enumerate(scores) if q != seat)
    times.sort()
    return wins, draws, margin / games, times


def match_arguments(description):
    """The command line of a match of two Vora bot kinds (this script's, and
    bench_board_bot_strength.py's)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("kind")
    parser.add_argument("other")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--players", type=int, default=2, choices=vora.PLAYER_COUNTS)
    parser.add_argument("--first-seed", type=int, default=0)
    return parser


def print_match(args, wins, draws, margin):
    """The match's line: wins with their 95% Wilson interval, draws, mean margin."""
    low, high = wilson(wins, args.games)
    print("%s against %s, %d players, seeds %d to %d: %d wins of %d (%.1f%%, 95%% %.1f to "
          "%.1f%%; fair share %.1f%%), %d draws, mean margin %+.1f"
          % (args.kind, args.other, args.players, args.first_seed,
             args.first_seed + args.games - 1, wins, args.games, 100.0 * wins / args.games,
             100 * low, 100 * high, 100.0 / args.players, draws, margin))


def main():
    args = match_arguments(__doc__.split("\n\n")[0]).parse_args()
    wins, draws, margin, times = match(args.kind, args.other, args.games, args.players,
                                       args.first_seed)
    print_match(args, wins, draws, margin)
    print("a decision (CPU): mean %.4f s, 95th percentile %.4f s, max %.4f s, over %d"
          % (sum(times) / len(times), times[int(0.95 * len(times))], times[-1], len(times)))


if __name__ == "__main__":
    main()
