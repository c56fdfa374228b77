"""Vora's lookahead bot: the greedy collector's choice, checked against the replies.

The greedy collector (bots.py) judges an action by the margin it leaves at the end of
its own turn. What it does not see is what the turn hands to the next player: a line
left one push from complete, a group the refill is likely to finish. This bot keeps the
greedy collector's judgement as a move ordering and looks one round further:

1. every legal move is played on a copy and the rest of the turn finished greedily;
   the moves are ranked by the margin they leave (then cubes gained), as greedy does;
2. the best `width` of them are played again on `samples` copies whose box draws are
   sampled afresh (the copy's PRNG is reseeded from the bot's own generator: the bot
   never knows the true next cubes), the turn finished greedily, and then each other
   player's turn played by a greedy collector, until the bot is to act again;
3. the move with the best mean margin after that round wins (ties: the greedy rank).

The margin is `relative_score`: the bot's score minus the best other score, so it
values hurting the leader as well as helping itself.
"""

import time

from shared_rules import prng, vora

from vora_host.bots.base import Bot
from vora_host.games.vora.bots import GreedyBot, relative_score

__all__ = ["LookaheadBot"]

_SEEDS = prng.SEED_MAX + 1
import os
MEAN = os.environ.get("MEAN") == "1"


class LookaheadBot(Bot):
    """Greedy ordering, then a sampled round of greedy replies for the best `width`.

    width:   how many of the greedy-ranked moves are looked at one round further
    samples: how many draws of the box each of them is played against
    reply:   the greedy collector's action budget for the simulated players (its own
             default is 120; fewer is quicker and plays nearly as well)
    """

    kind = "lookahead"

    _PARAMS = (("width", 8), ("samples", 2), ("reply", 40), ("turns", 0), ("shape", 100))

    def __init__(self, seed=0, width=8, samples=2, reply=40, turns=0, shape=100):
        super().__init__(seed)
        for name, value in (("width", width), ("samples", samples), ("reply", reply),
                            ("turns", turns + 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError("%s must be a whole number of at least 1, not %r"
                                 % (name, value))
        self.width = width
        self.samples = samples
        self.reply = reply
        self.turns = turns
        if not 0 <= shape <= 100:
            raise ValueError("shape is a percentage from 0 to 100, not %r" % (shape,))
        self.shape = shape
        # The policy that finishes turns and plays the other seats inside the look-ahead.
        self._greedy = GreedyBot(self.rng.randrange(_SEEDS), budget=reply)
        self.last = {}
        self.kind = self.spec()

    def spec(self):
        parts = [self.__class__.kind]
        for name, default in self._PARAMS:
            if getattr(self, name) != default:
                parts.append("%s=%d" % (name, getattr(self, name)))
        return ":".join(parts)

    @classmethod
    def from_spec(cls, seed, game, arg):
        """`lookahead`, `lookahead:width=12:samples=3:reply=60` (any of them)."""
        kwargs = {}
        known = dict(cls._PARAMS)
        for part in arg.split(":") if arg else ():
            name, _, value = part.strip().lower().partition("=")
            if name not in known or not value:
                raise ValueError("%s bot: cannot read %r; write e.g. %s:width=12:samples=3 "
                                 "(settings: %s)" % (cls.kind, part, cls.kind,
                                                     ", ".join(known)))
            try:
                kwargs[name] = int(value)
            except ValueError:
                raise ValueError("%s bot: %s takes a whole number, not %r"
                                 % (cls.kind, name, value))
        return cls(seed, **kwargs)

    def choose(self, state):
        started = time.perf_counter()
        moves = state.legal_moves()
        if len(moves) == 1:
            self.last = {"seconds": 0.0, "looked": 0}
            return moves[0]
        me = state.to_act()
        greedy = self._greedy
        ranked = []
        before = sum(state.farms[me])
        for m in moves:
            t = state.clone()
            t.rng = 1  # the true draws are not the bot's to know; none happen here
            t.play(m)
            greedy._finish_turn(t, me, state.turn)
            ranked.append(((self._margin(t, me), sum(t.farms[me]) - before,
                            self.rng.random()), m))
        ranked.sort(reverse=True)
        best, best_key = None, None
        for first_key, m in ranked[:self.width]:
            total = 0.0
            for _ in range(self.samples):
                total += self._after_round(state, m, me)
            key = (total / self.samples, first_key)
            if best_key is None or key > best_key:
                best, best_key = m, key
        self.last = {"seconds": time.perf_counter() - started,
                     "looked": min(self.width, len(ranked))}
        return best

    def _after_round(self, state, move, me):
        # The margin after `move`, the turn finished greedily, a sampled refill and the
        # other players' greedy turns, up to the bot's next turn or the end.
        t = state.clone()
        t.rng = prng.seed_state(self.rng.randrange(_SEEDS))
        t.play(move)
        greedy = self._greedy
        greedy._finish_turn(t, me, state.turn)
        turns = self.turns or t.players - 1
        stop = state.turn + 1 + turns
        while not t.is_over() and t.turn < stop:
            t.play(greedy.choose(t))
        return self._margin(t, me)

    def _margin(self, t, me):
        if self.shape:
            return _shaped_margin(t, me, self.shape / 100.0)
        return relative_score(t, me)


# A type's worth once its loose cubes are counted as progress towards the next set:
# 0, 3, 6, 9 and 12 cubes score 0, 1, 3, 9 and 10; between them the worth grows in a
# straight line, instead of the rules' -1 for each loose cube.
_SET_POINTS = ((0, 0), (3, 1), (6, 3), (9, 9), (12, 10))


def _smooth(n):
    for (n0, v0), (n1, v1) in zip(_SET_POINTS, _SET_POINTS[1:]):
        if n <= n1:
            return v0 + (v1 - v0) * (n - n0) / (n1 - n0)
    return 10 + (n - 12) / 3.0


def _shaped_score(farm, weight):
    total = 0.0
    for n in farm:
        total += (1 - weight) * vora._type_score(n) + weight * _smooth(n)
    return total


def _shaped_margin(state, me, weight):
    # While the game goes on the shaped worth, blended by weight with the true score;
    # a finished game is judged by its scores alone.
    if state.is_over():
        return relative_score(state, me)
    mine = _shaped_score(state.farms[me], weight)
    others = [_shaped_score(f, weight) for p, f in enumerate(state.farms) if p != me]
    if MEAN:
        return mine - sum(others) / len(others)
    return mine - (max(others) if others else 0)
