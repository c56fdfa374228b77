"""Seeded random games of any registered game, the same on CPython and MicroPython.

Moves are chosen with the rules' own PRNG (shared_rules.prng), so both runtimes pick the
same moves; every move prints "<seed> <players> <number> <digest> <move>".
Usage: random_games.py GAME FIRST_SEED COUNT [MAX_MOVES [OPTIONS_JSON]]
Player counts cycle through the game's PLAYER_COUNTS, seed by seed; OPTIONS_JSON (a JSON
object) gives new_game() options.
"""

import sys

from shared_rules import games, prng


def main(name, first, count, max_moves, options):
    module = games.load(name)
    counts = module.PLAYER_COUNTS
    for seed in range(first, first + count):
        players = counts[seed % len(counts)]
        state = module.new_game(players, seed, **options)
        print("%d %d 0 %s start" % (seed, players, state.digest()))
        chooser = prng.seed_state(seed + 7919)
        k = 0
        while not state.is_over() and k < max_moves:
            moves = state.legal_moves()
            i, chooser = prng.below(chooser, len(moves))
            state.play(moves[i])
            k += 1
            print("%d %d %d %s %s" % (seed, players, k, state.digest(), moves[i]))


args = sys.argv[1:]
if len(args) > 4:
    import json
    opts = json.loads(args[4])
else:
    opts = {}
main(args[0], int(args[1]), int(args[2]), int(args[3]) if len(args) > 3 else 100000, opts)
