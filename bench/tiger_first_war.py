"""What search bots announce in a Tossing Tiger game's first war, and how the games that
end after that single war ended (who won them).

    python bench/tiger_first_war.py PLAYERS GAMES [KIND] [MIN_DICE]

KIND is a bot kind (default search:100), the same for every seat; game g is dealt from seed
g and seat p's bot is seeded 10 g + p. MIN_DICE (default 1: the rulebook's any number) is
the house option min_dice: a war has at least that many dice, or as many as the two hands
can follow.
"""

import collections
import sys

from shared_rules import tossing_tiger as tt
from vora_host.bots import make_bot


def main(argv):
    players, games = int(argv[0]), int(argv[1])
    kind = argv[2] if len(argv) > 2 else "search:100"
    min_dice = int(argv[3]) if len(argv) > 3 else 1
    turns = []
    first = collections.Counter()
    one_war = collections.Counter()
    won_by = collections.Counter()
    for seed in range(games):
        s = tt.new_game(players, seed=seed, min_dice=min_dice)
        bots = [make_bot(kind, seed=seed * 10 + p, game="tossing-tiger") for p in range(players)]
        fight = None
        while not s.is_over():
            move = bots[s.to_act()].choose(s)
            if fight is None and move.startswith("fight"):
                fight = move.split()
            s.play(move)
        first[fight[-1]] += 1
        turns.append(s.turn_count())
        if s.turn_count() == 1:
            one_war[fight[-1]] += 1
            w = s.winner()
            won_by["attacker" if w == 0 else "defender" if w == int(fight[1]) else "other"] += 1
    turns.sort()
    print("%d players, %d games, %s, at least %d dice: first war's dice %s; games over after "
          "it, by dice %s; their winner %s; wars per game: median %g, max %d" % (
              players, games, kind, min_dice, dict(sorted(first.items())),
              dict(sorted(one_war.items())), dict(sorted(won_by.items())),
              turns[len(turns) // 2], turns[-1]))


if __name__ == "__main__":
    main(sys.argv[1:])
