"""The board's own bot timed under MicroPython (run by bench/bench_board_bot_time.py): the
bot plays both seats of 2-player games at LEVEL, driven as vora_ui's _bot_tick drives it
(start, then one step() per scan until it says it is done), and every step() (one
candidate move on a copy) is timed with ticks_us; the 95th percentiles are to a bin. Prints one line per measure:
"steps MEAN P95 MOST", "step_us MEAN P95 MOST", "decision_us MEAN P95 MOST".
Usage: mp_board_bot_time.py LEVEL GAMES  (LEVEL "-": start() without a level)
"""

import array
import sys
import time

from shared_rules import vora
from vora_fw.bot import BoardBot


class Hist:
    """Mean, 95th percentile (to a bin's width) and most, in a few hundred counters: a
    list of every value would not fit the heap."""

    def __init__(self, width, bins=400):
        self.width = width
        self.counts = array.array("I", bytes(4 * bins))
        self.total = self.n = self.most = 0

    def append(self, v):
        self.total += v
        self.n += 1
        if v > self.most:
            self.most = v
        self.counts[min(v // self.width, len(self.counts) - 1)] += 1

    def __str__(self):
        seen = 0
        for i in range(len(self.counts)):
            seen += self.counts[i]
            if seen * 100 >= self.n * 95:
                break
        return "%d %d %d" % (self.total // self.n, min((i + 1) * self.width, self.most),
                             self.most)


def main(level, games):
    bot = BoardBot()
    steps_of = Hist(1)
    step_us = Hist(10)
    decision_us = Hist(250)
    for g in range(games):
        state = vora.new_game(2, g)
        game_id = (g * 2654435761 + 0x5EED) & 0xFFFFFFFF
        n = 0
        while not state.is_over():
            legal = state.legal_codes()
            t0 = time.ticks_us()
            if level == "-":
                bot.start(state, legal, g ^ game_id, n, game_id)
            else:
                bot.start(state, legal, g ^ game_id, n, game_id, level)
            total = time.ticks_diff(time.ticks_us(), t0)
            steps = 0
            while True:
                s0 = time.ticks_us()
                done = bot.step()
                us = time.ticks_diff(time.ticks_us(), s0)
                steps += 1
                total += us
                step_us.append(us)
                if done:
                    break
            steps_of.append(steps)
            decision_us.append(total)
            state.play(bot.best)
            n += 1
    print("steps", steps_of)
    print("step_us", step_us)
    print("decision_us", decision_us)


main(sys.argv[1], int(sys.argv[2]))
