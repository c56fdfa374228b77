"""How often the two readings of "won the majority of battles" name different war winners.

Plays GAMES games between uniformly random movers under war_winner=more (more battles
than the opponent) and counts, over every war fought, the wars with a winner by that
reading and those of them where the winner did not win more than half of the battles
fought (the rulebook's reading, war_winner=majority, gives them no winner).

    python bench/tiger_war_majority.py [GAMES] [PLAYERS ...]
"""

import random
import sys

from shared_rules import tossing_tiger as tt


def survey(games, players):
    wars = plural = minority = 0
    for seed in range(games):
        pick = random.Random(seed)
        s = tt.new_game(players, seed=seed, war_winner="more")
        while not s.is_over():
            before = s.turn_count()
            s.play(pick.choice(s.legal_moves()))
            w = s.last_war()
            if s.turn_count() != before and w is not None:
                wars += 1
                fought = [bt for bt in w["b"] if not bt["gone"] and bt["done"] == 2]
                if w["winners"] in (1, 2):
                    plural += 1
                    wins = len([bt for bt in fought if bt["res"] & w["winners"]])
                    minority += 2 * wins <= len(fought)
    return wars, plural, minority


def main(argv):
    games = int(argv[0]) if argv else 300
    for players in [int(p) for p in argv[1:]] or [2, 3, 4, 5, 6]:
        wars, plural, minority = survey(games, players)
        print("%d players, %d games: %d wars, %d with a war winner by 'more', %d of them "
              "(%.1f%% of all wars) without a majority of the battles" % (
                  players, games, wars, plural, minority, 100.0 * minority / max(wars, 1)))


if __name__ == "__main__":
    main(sys.argv[1:])
