"""How strong the board's own bot is: the firmware's BoardBot (vora_fw.bot) under CPython,
driven as the board drives it, against the PC's bots or against itself at another level.

    .venv/bin/python bench/bench_board_bot_strength.py KIND OTHER [--games N]
                     [--players P] [--first-seed S]

KIND and OTHER are `board` (the board's bot at its default level), `board:easy`,
`board:normal`, `board:hard`, a trial setting `board:PUSHES,JUDGE[,JUDGE3]` (as vora_fw.bot's
LEVELS hold them: JUDGE 0 the score's margin, 1 the cubes, 2 both; JUDGE3 at three and
four players, JUDGE's by default), or a PC bot kind (`random`, `greedy`, `lookahead`...).
Game g (seeds S to S+N-1) is dealt with seed g; KIND sits at seat g % P (so the seats
alternate) and OTHER at the others; a PC bot at seat p gets seed 10 g + p. The board's
bot is driven exactly as vora_ui's _bot_tick drives it: start(state, legal, game seed ^
game id, moves played, game id) on one tick, then one step() per tick until it says it is
done, then its `best`; the game id is made from g as the board's would be from its clock.
Prints KIND's wins with a 95% Wilson interval, draws, the mean margin (its score minus the
best other), and for a board bot the steps (scans) a decision took: mean, 95th percentile,
most, and the CPU time of one step (each step is one candidate move tried on a copy).
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "host"), str(ROOT / "firmware")]

from shared_rules import vora  # noqa: E402
from vora_fw import bot as board_bot  # noqa: E402
from vora_fw.bot import BoardBot  # noqa: E402
from vora_host.bots import make_bot  # noqa: E402
from bench_vora_bot import match_arguments, print_match  # noqa: E402  (bench/, this folder)


class BoardSeat:
    """The board's bot at one seat, with the counts of what its decisions cost."""

    def __init__(self, level):
        self.level = level
        self.bot = BoardBot()
        self.steps = []
        self.step_seconds = 0.0

    def choose(self, state, seed, game_id, n):
        bot = self.bot
        legal = state.legal_codes()
        if self.level is None:
            bot.start(state, legal, seed ^ game_id, n, game_id)
        else:
            bot.start(state, legal, seed ^ game_id, n, game_id, self.level)
        steps = 0
        started = time.process_time()
        while True:
            steps += 1
            if bot.step():
                break
        self.step_seconds += time.process_time() - started
        self.steps.append(steps)
        return bot.best


def make_player(kind, seed):
    if kind == "board" or kind.startswith("board:"):
        level = kind.partition(":")[2] or None
        if level and "," in level:  # a trial setting: pushes,judge[,judge at 3 and 4]
            setting = [int(x) for x in level.split(",")]
            board_bot.LEVELS[level] = tuple(setting + setting[1:])[:3]
        return BoardSeat(level)
    return make_bot(kind, seed, "vora")


def game_id_of(g):
    # A board's game id is a number from its clock: any 32-bit value, here one per game.
    return (g * 2654435761 + 0x5EED) & 0xFFFFFFFF


def match(kind, other, games, players, first):
    wins = draws = 0
    margin = 0
    board_seats = []
    for g in range(first, first + games):
        state = vora.new_game(players, g)
        seat = g % players
        bots = [make_player(kind if p == seat else other, g * 10 + p)
                for p in range(players)]
        board_seats += [b for b in bots if isinstance(b, BoardSeat)]
        game_id = game_id_of(g)
        n = 0
        while not state.is_over():
            bot = bots[state.to_act()]
            if isinstance(bot, BoardSeat):
                move = bot.choose(state, g, game_id, n)
            else:
                move = bot.choose(state)
            state.play(move)
            n += 1
        winner = state.winner()
        wins += winner == seat
        draws += winner is None
        scores = state.scores()
        margin += scores[seat] - max(s for q, s in enumerate(scores) if q != seat)
    return wins, draws, margin / games, board_seats


def main():
    args = match_arguments(__doc__.split("\n\n")[0]).parse_args()
    started = time.time()
    wins, draws, margin, seats = match(args.kind, args.other, args.games, args.players,
                                       args.first_seed)
    print_match(args, wins, draws, margin)
    for label in sorted({s.level or "default" for s in seats}):
        mine = [s for s in seats if (s.level or "default") == label]
        steps = sorted(x for s in mine for x in s.steps)
        total = sum(steps)
        if not steps:
            continue
        print("board bot (%s): steps a decision, mean %.1f, 95th percentile %d, most %d, "
              "over %d decisions; CPU a step %.2f ms"
              % (label, total / float(len(steps)), steps[int(0.95 * len(steps))],
                 steps[-1], len(steps), 1000.0 * sum(s.step_seconds for s in mine) / total))
    print("(%.0f s)" % (time.time() - started))


if __name__ == "__main__":
    main()
