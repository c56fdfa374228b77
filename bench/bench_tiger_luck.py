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

    .venv/bin/python bench/bench_tiger_luck.py [GAMES]    (default 4000 and 200)

Two players, seeds 0 to N-1; the clairvoyant bot takes seat 0 and 1 in turn.
"""

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host")]

from shared_rules import games  # noqa: E402
from vora_host.bots import RandomBot, SearchBot  # noqa: E402

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


def clairvoyant_wins(rules, count, iterations):
    wins = 0
    for seed in range(count):
        seat = seed % 2
        state = rules.new_game(2, seed)
        agents = [RandomBot(seed * 10 + p) for p in range(2)]
        agents[seat] = Clairvoyant(seed, iterations=iterations, game=GAME)
        while not state.is_over():
            state.play(agents[state.to_act()].choose(state))
        wins += state.winner() == seat
    return wins


def main():
    playouts = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    matches = max(2, playouts // 20)
    rules = games.load(GAME)
    started = time.perf_counter()
    share, lost = one_pile_wars(rules, playouts)
    print("random first player: one-pile first war in %.1f%% of %d games; its defender "
          "loses %.1f%% of them" % (100 * share, playouts, 100 * lost))
    print("  so against random players, seated first in half the games, a player who "
          "won every other game wins at most %.1f%%" % (100 * (1 - share * lost / 2)))
    wins = clairvoyant_wins(rules, matches, 200)
    print("clairvoyant search:200 (the true state, future shuffles included) against "
          "random: %d wins of %d (%.1f%%)  [%.0f s]"
          % (wins, matches, 100.0 * wins / matches, time.perf_counter() - started))


if __name__ == "__main__":
    main()
