"""The board's own bot: a seat the board plays itself, so one person can play alone.

Small on purpose (the board's heap budget is 64 KB per key event): it tries moves one at a
time on a copy of the state, each call to step() trying one, so the key scan goes on
between them and at most one trial state lives at a time. A trial plays the move and then
finishes the turn's collecting, and the move is judged by the bot's worth minus the best
other worth, then by its cubes; in the collect phase it always takes a line when one is
offered (as the PC's greedy bot), the best of them. In the action phase every move but
the pushes is tried, and some of the pushes (there are up to 180), drawn with the bot's
own PRNG so that the choice is the same on every runtime and the game's PRNG is never
touched. Integer arithmetic only, for the same reason.

Three levels (LEVELS), chosen on the board in setup (vora_ui) and measured against each
other (docs/benchmarks.md, "The board's own bot"):

- easy: about 4 pushes tried, the rules' score;
- normal: about 16 pushes, the rules' score;
- hard: about 40 pushes, and a smoothed worth that counts loose cubes as progress
  towards the next set (the PC's lookahead bot's idea, in integers); the turn a trial
  finishes takes the line that gains most, and a bonus cube when one is offered.
"""

try:
    from micropython import const
except ImportError:
    def const(x):  # type: ignore[misc]
        return x

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

from shared_rules import prng, vora

FINISH_STEPS = const(4)  # collect steps simulated after a trial move, at most

LEVEL_NAMES = ("easy", "normal", "hard")
DEFAULT_LEVEL = "normal"
# level: (pushes tried per decision, about; smoothed worth; finish a trial's turn with the
# line that gains most, and a bonus cube, instead of the first line and no bonus)
LEVELS = {"easy": (4, 0, 0), "normal": (16, 0, 0), "hard": (40, 1, 1)}


class BoardBot:
    def __init__(self):
        self.n = -1  # the move number the decision is for
        self.game = -1
        self.level = DEFAULT_LEVEL
        self.state = None  # type: Any
        self.moves = []  # type: Any
        self.i = 0
        self.rng = 1
        self.me = 0
        self.sample = 16
        self.smooth = 0
        self.finish_best = 0
        self.sampling = False
        self.best = None  # type: Any
        self.best_value = None  # type: Any
        self.tried = 0

    def start(self, state, legal, seed, n, game, level=DEFAULT_LEVEL):
        """Begin a decision for `state` (whose legal moves are `legal`) at `level`."""
        self.n = n
        self.game = game
        self.level = level
        self.sample, self.smooth, self.finish_best = LEVELS[level]
        self.state = state
        self.moves = legal
        self.i = 0
        self.me = state.active
        self.rng = prng.seed_state((seed + n * 7919) & 0xFFFFFFFF)
        self.sampling = state.phase == vora.PHASE_ACTION and len(legal) > 2 * self.sample
        self.best = legal[0]
        self.best_value = None
        self.tried = 0
        if state.phase == vora.PHASE_COLLECT and len(legal) > 1:
            # Lines are what scores in the end: take one (as the PC's greedy bot does),
            # the best of them; "pass" sorts first and is left out.
            self.i = 1
            self.best = legal[1]

    def step(self):
        """Try the next candidate; True once the decision is made (then see `best`)."""
        moves = self.moves
        count = len(moves)
        while self.i < count:
            m = moves[self.i]
            self.i += 1
            if self.sampling and m.startswith("push "):
                r, self.rng = prng.below(self.rng, count)
                if r >= self.sample:
                    continue
            v = self._value(m)
            self.tried += 1
            if self.best_value is None or v > self.best_value:
                self.best = m
                self.best_value = v
            return self.i >= count
        return True

    def _value(self, move):
        t = self.state.clone()
        t.play(move)
        me = self.me
        k = 0
        while t.active == me and k < FINISH_STEPS and (
                t.phase == vora.PHASE_COLLECT or t.phase == vora.PHASE_BONUS):
            if self.finish_best:
                t.play(_best_gain(t, me))
            elif t.phase == vora.PHASE_COLLECT:
                ms = t.legal_moves()  # "pass" and a "take" per line: a short list
                t.play(ms[1] if len(ms) > 1 else "pass")
            else:
                t.play("pass")
            k += 1
        if self.smooth and not t.is_over():
            mine = _worth3(t.farms[me])
            other = -100000
            for p in range(t.players):
                if p != me:
                    w = _worth3(t.farms[p])
                    if w > other:
                        other = w
            return (mine - other) * 1000 + sum(t.farms[me])
        scores = t.scores()
        other = -1000
        for p in range(len(scores)):
            if p != me and scores[p] > other:
                other = scores[p]
        return (scores[me] - other) * 1000 + sum(t.farms[me])


def _best_gain(t, me):
    # The collect or bonus move that adds most to the bot's own score, without trying it
    # on another copy: a line's type and size come from its cell mask (a sheep line's
    # grass aside), a bonus cube from its cell. Ties: the first in legal order.
    farm = t.farms[me]
    grid = t.grid
    best = "pass"
    best_gain = 0
    if t.phase == vora.PHASE_COLLECT:
        best_gain = -1000  # a line is always taken, as the bot's own collect choice does
        for m in t.group_masks():
            cell = vora.first_cell(m)
            kind = grid[cell]
            size = 0
            while m:
                m &= m - 1
                size += 1
            gain = vora._type_score(farm[kind] + size) - vora._type_score(farm[kind])
            if gain > best_gain:
                best = "take " + vora.CELL_NAMES[cell]
                best_gain = gain
        return best
    for cell in range(25):
        kind = grid[cell]
        if kind != vora.EMPTY:
            gain = vora._type_score(farm[kind] + 1) - vora._type_score(farm[kind])
            if gain > best_gain:
                best = "extra " + vora.CELL_NAMES[cell]
                best_gain = gain
    return best


def _worth3(farm):
    # Three times a farm's smoothed worth: each type's worth runs straight between the
    # set sizes (0, 3, 6, 9 and 12 cubes worth 0, 1, 3, 9 and 10), so a loose cube counts
    # as progress towards the next set where the rules count it -1.
    total = 0
    for n in farm:
        if n <= 3:
            total += n
        elif n <= 6:
            total += 3 + 2 * (n - 3)
        elif n <= 9:
            total += 9 + 6 * (n - 6)
        else:
            total += 27 + (n - 9)
    return total
