"""The board's own bot at each level, for CPython and MicroPython alike: for each seed,
the bot plays every seat of a 2-player game at one level (levels in turn, game by game),
driven as vora_ui's _bot_tick drives it, for MAX_MOVES moves. Prints "LEVEL SEED n move
digest" for each move and "steps LEVEL most" (the most steps a decision took), so the two
runtimes can be compared move by move.
Usage: board_bot_levels.py FIRST_SEED SEEDS MAX_MOVES
"""

import sys

from shared_rules import vora
from vora_fw.bot import LEVEL_NAMES, BoardBot


def main(first, seeds, max_moves):
    bot = BoardBot()
    for level in LEVEL_NAMES:
        most = 0
        for seed in range(first, first + seeds):
            state = vora.new_game(2, seed)
            game_id = (seed * 2654435761 + 0x5EED) & 0xFFFFFFFF
            n = 0
            while not state.is_over() and n < max_moves:
                bot.start(state, state.legal_codes(), seed ^ game_id, n, game_id, level)
                steps = 1
                while not bot.step():
                    steps += 1
                most = max(most, steps)
                state.play(bot.best)
                n += 1
                print(level, seed, n, bot.best, state.digest())
        print("steps", level, most)


main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
