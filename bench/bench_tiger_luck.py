"""How much of Tossing Tiger, Rolling Dragon is luck: the best win rate any player could
reach against random players, measured two ways.

1. The one-pile war. The rulebook lets an attacker "say a number" of piles, one
   included; with one pile each, the whole hands meet in a single battle whose top cards
   are shuffled up: the war's winner takes the loser's pile, and the game ends. A random
   player who moves first picks one pile in about a third of the games, and then the
   other player's skill does not matter. Measured here with random players only:
   how often the first war has one pile, and how often its defender then loses.
   Against random players who sit first in half the games, a player who won every other
   game would still lose half of those coin flips: that bounds every fair player.
2. A clairvoyant search bot: the generic search bot given the true state instead of
   samples of its view, so it knows the other hand, the draw pile and every future
   shuffle. No fair player can do better; it is the ceiling measured, not argued.
3. With `--sees hands`: the same search seeing every hand (so also what the draw pile
   holds) but not the future: each of its samples is the true position with the PRNG
   reseeded, so every shuffle and draw to come is one of its possibilities, as for a fair
   player. It knows more than any fair player and nothing a fair player could not
   learn by luck: what it cannot reach, knowledge of the present cannot buy.
4. With `--sees nothing`: the fair search bot itself (samples of its own view), on the
   same seeds and seats: what the two ceilings are compared with.

    .venv/bin/python bench/bench_tiger_luck.py [GAMES] [--players N ...] [--sees hands|nothing]

GAMES (default 4000) random games for the one-pile count, a twentieth of them (200) for
the clairvoyant bot at each seat count (default 2; --players 2 3 4 5 6 for all). Seeds 0
to N-1; the clairvoyant bot takes each seat in turn. At three players or more a game
ends as soon as anyone drops below two cards, often in a war between two others: the
clairvoyant's result there is the ceiling, measured.
"""

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

from shared_rules import games, secret_prng  # noqa: E402
from vora_host.bots import RandomBot, SearchBot  # noqa: E402
from vora_host.lab.stats import wilson  # noqa: E402

GAME = "tossing-tiger"


class Clairvoyant(SearchBot):
    """The search bot searching the true state: it sees every secret and the future."""

    def choose(self, state):
        truth = state

        class Module:
            @staticmethod
            def determinize(view, seed):
                return truth.clone()

        return self.choose_from_view(state.view(state.to_act()), Module)


class HandSeer(SearchBot):
    """The search bot seeing every hand but not the future: each sample is the true
    position with its PRNG reseeded (Tossing Tiger keeps no hidden order: every shuffle and
    draw is a draw of the PRNG when it happens)."""

    def choose(self, state):
        truth = state

        class Module:
            @staticmethod
            def determinize(view, seed):
                sample = truth.clone()
                sample.rng = secret_prng.seed_state(seed)
                return sample

        return self.choose_from_view(state.view(state.to_act()), Module)


def one_pile_wars(rules, count):
    """(share of games whose first war has one pile, share of those the defender loses)."""
    one = lost = 0
    for seed in range(count):
        state = rules.new_game(2, seed)
        rnd = random.Random(seed)
        move = rnd.choice(state.legal_moves())
        state.play(move)
        if move.split()[-1] != "1":
            continue
        while not state.is_over():
            state.play(rnd.choice(state.legal_moves()))
        one += 1
        lost += state.winner() != 1
    return one / count, lost / max(1, one)


def clairvoyant_wins(rules, count, iterations, players=2, bot=None):
    bot = Clairvoyant if bot is None else bot
    wins = 0
    for seed in range(count):
        seat = seed % players
        state = rules.new_game(players, seed)
        agents = [RandomBot(seed * 10 + p) for p in range(players)]
        agents[seat] = bot(seed, iterations=iterations, game=GAME)
        while not state.is_over():
            state.play(agents[state.to_act()].choose(state))
        wins += state.winner() == seat
    return wins


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=4000,
                        help="random games for the one-pile count (default 4000); the "
                        "clairvoyant plays a twentieth of them at each seat count")
    parser.add_argument("--players", type=int, nargs="+", default=[2],
                        choices=range(2, 7), metavar="N", help="seat counts (2 to 6)")
    parser.add_argument("--sees", choices=("everything", "hands", "nothing"),
                        default="everything",
                        help="what the search bot sees: everything (the true state, future "
                        "shuffles included: the default), hands (every hand, not the "
                        "future) or nothing (its own view: the fair bot)")
    parser.add_argument("--skip-random", action="store_true",
                        help="leave out the one-pile count of random games")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("games must be at least 1")
    playouts = args.games
    matches = max(2, playouts // 20)
    rules = games.load(GAME)
    started = time.perf_counter()
    if not args.skip_random:
        share, lost = one_pile_wars(rules, playouts)
        print("random first player: one-pile first war in %.1f%% of %d games; its defender "
              "loses %.1f%% of them" % (100 * share, playouts, 100 * lost))
        print("  so against random players, seated first in half the games, a player who "
              "won every other game wins at most %.1f%%" % (100 * (1 - share * lost / 2)))
    name, bot, sees = {
        "everything": ("clairvoyant", Clairvoyant, "the true state, future shuffles included"),
        "hands": ("hand-seeing", HandSeer, "every hand, not the future"),
        "nothing": ("fair", SearchBot, "its own view")}[args.sees]
    for players in args.players:
        wins = clairvoyant_wins(rules, matches, 200, players, bot)
        low, high = wilson(wins, matches)
        print("%s search:200 (%s) against %d random player%s: %d wins of %d (%.1f%%, "
              "95%% %.1f to %.1f%%)  [%.0f s]"
              % (name, sees, players - 1,
                 "s" if players > 2 else "", wins, matches, 100.0 * wins / matches,
                 100 * low, 100 * high, time.perf_counter() - started), flush=True)



if __name__ == "__main__":
    main()
