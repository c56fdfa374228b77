"""The board's own bot: a seat the board plays itself, so one person can play alone.

Small on purpose (the board's heap budget is 64 KB per key event): it tries moves one at a
time on a copy of the state, each call to step() trying one, so the key scan goes on
between them and at most one trial state lives at a time. A trial plays the move and then
finishes the turn's collecting the cheap way (the first line offered, no bonus); in the
collect phase it always takes a line when one is offered (as the PC's greedy bot). In the
action phase every move but the pushes is tried, and some of the pushes (there are up to
180), drawn with the bot's own PRNG so that the choice is the same on every runtime and
the game's PRNG is never touched.

Its level (LEVELS, chosen on the board in setup: vora_ui) sets how many pushes it tries
and how it judges a trial; each was measured against the others (docs/benchmarks.md,
"The board's own bot"):

- easy: about 4 pushes tried, a trial judged by the bot's score minus the best other
  score, then by its cubes (the board's bot before the levels, with fewer pushes);
- normal: about 16 pushes, judged by three times that margin plus the bot's cubes;
- hard: about 40 pushes; at two players judged by the cubes in the bot's farm alone
  (cubes are what sets are made of, and hoarding them beat the score's judgement in 9
  games of 10), at three and four as normal (there the cubes alone did no better than
  normal, while normal's judgement with more pushes won more than its share).
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
DEFAULT_LEVEL = "normal"  # a save from before the levels, and a seat just made a bot
JUDGE_SCORE = const(0)  # a trial's worth: its score minus the best other, then its cubes
JUDGE_CUBES = const(1)  # a trial's worth: the cubes in the bot's farm
JUDGE_BOTH = const(2)  # three times the margin of JUDGE_SCORE plus the cubes
# level: (pushes tried per decision, about; how a trial is judged at two players; at three
# and four)
LEVELS = {"easy": (4, JUDGE_SCORE, JUDGE_SCORE), "normal": (16, JUDGE_BOTH, JUDGE_BOTH),
          "hard": (40, JUDGE_CUBES, JUDGE_BOTH)}


class BoardBot:
    def __init__(self):
        self.n = -1  # the move number the decision is for
        self.game = -1
        self.state = None  # type: Any
        self.moves = ()  # type: Any  # the legal moves' codes (vora.legal_codes())
        self.i = 0
        self.rng = 1
        self.me = 0
        self.level = DEFAULT_LEVEL
        self.sample = 16
        self.judge = JUDGE_SCORE
        self.sampling = False
        self.best = None  # type: Any  # the move chosen, as text, once decided
        self.best_code = -1
        self.best_value = None  # type: Any
        self.tried = 0

    def start(self, state, legal, seed, n, game, level=DEFAULT_LEVEL):
        """Begin a decision for `state`, whose legal moves' codes (state.legal_codes())
        are `legal`, at `level`."""
        self.level = level
        setting = LEVELS[level]
        self.sample = setting[0]
        self.judge = setting[1 if state.players == 2 else 2]
        self.n = n
        self.game = game
        self.state = state
        self.moves = legal
        self.i = 0
        self.me = state.active
        self.rng = prng.seed_state((seed + n * 7919) & 0xFFFFFFFF)
        self.sampling = state.phase == vora.PHASE_ACTION and len(legal) > 2 * self.sample
        self.best = None
        self.best_code = legal[0]
        self.best_value = None
        self.tried = 0
        if state.phase == vora.PHASE_COLLECT and len(legal) > 1:
            # Lines are what scores in the end: take one (as the PC's greedy bot does),
            # the best of them; "pass" sorts first and is left out.
            self.i = 1
            self.best_code = legal[1]

    def step(self):
        """Try the next candidate; True once the decision is made (then see `best`)."""
        moves = self.moves
        count = len(moves)
        while self.i < count:
            m = moves[self.i]
            self.i += 1
            if self.sampling and m >> 10 == vora.MOVE_PUSH:
                r, self.rng = prng.below(self.rng, count)
                if r >= self.sample:
                    continue
            v = self._value(m)
            self.tried += 1
            if self.best_value is None or v > self.best_value:
                self.best_code = m
                self.best_value = v
            if self.i < count:
                return False
            break
        # Decided: let go of the position and its list of moves (up to about 11 KB), so
        # the move played next can free them before it builds the next list.
        self.state = None
        self.moves = ()
        self.best = vora.move_text(self.best_code)
        return True

    def _value(self, code):
        t = self.state.clone()
        t.play(vora.move_text(code))
        me = self.me
        k = 0
        while t.active == me and k < FINISH_STEPS and (
                t.phase == vora.PHASE_COLLECT or t.phase == vora.PHASE_BONUS):
            if t.phase == vora.PHASE_COLLECT:
                ms = t.legal_moves()  # "pass" and a "take" per line: a short list
                t.play(ms[1] if len(ms) > 1 else "pass")
            else:
                t.play("pass")
            k += 1
        if self.judge == JUDGE_CUBES:
            return sum(t.farms[me])
        scores = t.scores()
        other = -1000
        for p in range(len(scores)):
            if p != me and scores[p] > other:
                other = scores[p]
        if self.judge == JUDGE_BOTH:
            return (scores[me] - other) * 3 + sum(t.farms[me])
        return (scores[me] - other) * 1000 + sum(t.farms[me])
