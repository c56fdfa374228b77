"""Vora's lookahead bot: the greedy collector's choice, checked against the replies.

The greedy collector (bots.py) judges an action by the margin it leaves at the end of
its own turn. What it does not see is what the turn hands to the next player: a line
left one push from complete, a group the refill is likely to finish. This bot keeps the
greedy collector's judgement as a move ordering and looks one round further:

1. every legal move (not a sample of them, and `pass` included) is played on a copy and
   the rest of the turn finished greedily; the moves are ranked by the margin they
   leave (then cubes gained), as greedy does;
2. the best `width` of them are played again on `samples` copies whose box draws are
   sampled afresh (the copy's PRNG is reseeded from the bot's own generator: the bot
   never knows the true next cubes), the turn finished greedily, and then each other
   player's turn played by a greedy collector (`turns` turns, a round by default);
3. the move with the best mean margin after that wins (ties: the rank of step 1).

The margin is the bot's worth minus the best other player's, so it values hurting the
leader as well as helping itself. The worth is blended (`shape`, a percentage) between
the rules' score and a smoothed one: the rules count a loose cube -1 until its type
completes a set of 3, so 8 pigs score 1 and 9 score 9, and a score alone cannot tell a
farm one cube from a set of 9 from one far away. The smoothed worth grows in a straight
line between the set sizes (0, 3, 6, 9 and 12 cubes worth 0, 1, 3, 9 and 10). A
finished game is judged by the rules' scores alone.

Measured against the greedy collector (docs/bots.md, docs/benchmarks.md): at two
players the look-ahead with the smoothed worth wins most games; at three and four
players neither the look-ahead nor the smoothing helped (the other players' turns in
between make the round's outcome mostly the refills'), so there the defaults are one
ply, every move, the rules' score (`width=1`, `shape=0`). A kind that spells a setting
uses it at every player count.
"""

import time

from shared_rules import prng, vora

from vora_host.games.bot import Bot
from vora_host.games.vora.bots import GreedyBot, relative_score

__all__ = ["LookaheadBot"]

_SEEDS = prng.SEED_MAX + 1

# Settings by player count where the kind does not spell them: {name: (two, more)}.
_BY_PLAYERS = {"width": (8, 1), "shape": (100, 0)}


class LookaheadBot(Bot):
    """Greedy ordering, then a sampled round of greedy replies for the best `width`.

    width:   how many of the ranked moves are looked at further (None: by player count)
    samples: how many draws of the box each of them is played against
    reply:   the greedy collector's action budget for the simulated players (its own
             default is 120; 40 is quicker)
    turns:   the other players' turns simulated after the bot's own (0: one round)
    shape:   0 to 100, how much of the worth is the smoothed one (None: by player count)
    moves:   rank only this many moves, drawn at random (0: every move): a weaker bot,
             for the `easy` level
    """

    kind = "lookahead"

    # (name, default, lowest allowed)
    _PARAMS = (("width", None, 1), ("samples", 2, 1), ("reply", 40, 1), ("turns", 0, 0),
               ("shape", None, 0), ("moves", 0, 0))

    def __init__(self, seed=0, width=None, samples=2, reply=40, turns=0, shape=None,
                 moves=0):
        super().__init__(seed)
        given = {"width": width, "samples": samples, "reply": reply, "turns": turns,
                 "shape": shape, "moves": moves}
        for name, default, lowest in self._PARAMS:
            value = given[name]
            if value is None and default is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < lowest:
                raise ValueError("%s must be a whole number of at least %d, not %r"
                                 % (name, lowest, value))
        if shape is not None and shape > 100:
            raise ValueError("shape is a percentage from 0 to 100, not %r" % (shape,))
        self.width = width
        self.samples = samples
        self.reply = reply
        self.turns = turns
        self.shape = shape
        self.moves = moves
        # The policy that finishes turns and plays the other seats inside the look-ahead.
        self._greedy = GreedyBot(self.rng.randrange(_SEEDS), budget=reply)
        # What the last decision did: seconds, moves ranked, moves looked at further.
        self.last = {}
        self.kind = self.spec()

    def spec(self):
        """The kind string that makes this bot again (settings that differ spelled)."""
        parts = [self.__class__.kind]
        for name, default, _ in self._PARAMS:
            value = getattr(self, name)
            if value != default:
                parts.append("%s=%d" % (name, value))
        return ":".join(parts)

    @classmethod
    def from_spec(cls, seed, game, arg):
        """`lookahead`, `lookahead:width=12:samples=3` (settings: width, samples, reply,
        turns, shape, moves; whole numbers)."""
        kwargs = {}
        known = [name for name, _, _ in cls._PARAMS]
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

    def _setting(self, name, players):
        value = getattr(self, name)
        if value is None:
            value = _BY_PLAYERS[name][0 if players == 2 else 1]
        return value

    def choose(self, state):
        started = time.perf_counter()
        moves = state.legal_moves()
        if len(moves) == 1:
            self.last = {"seconds": 0.0, "ranked": 1, "looked": 0}
            return moves[0]
        me = state.to_act()
        players = state.players
        width = self._setting("width", players)
        weight = self._setting("shape", players) / 100.0
        if self.moves and len(moves) > self.moves:
            moves = self.rng.sample(moves, self.moves)
        greedy = self._greedy
        ranked = []
        before = sum(state.farms[me])
        for m in moves:
            t = state.clone()
            t.rng = 1  # the true draws are not the bot's to know (none happen here)
            t.play(m)
            greedy._finish_turn(t, me, state.turn)
            ranked.append(((_margin(t, me, weight), sum(t.farms[me]) - before,
                            self.rng.random()), m))
        ranked.sort(reverse=True)
        if width == 1:
            self.last = {"seconds": time.perf_counter() - started, "ranked": len(ranked),
                         "looked": 0}
            return ranked[0][1]
        best, best_key = None, None
        for first_key, m in ranked[:width]:
            total = 0.0
            for _ in range(self.samples):
                total += self._after_round(state, m, me, weight)
            key = (total / self.samples, first_key)
            if best_key is None or key > best_key:
                best, best_key = m, key
        self.last = {"seconds": time.perf_counter() - started, "ranked": len(ranked),
                     "looked": min(width, len(ranked))}
        return best

    def _after_round(self, state, move, me, weight):
        # The margin after `move`, the turn finished greedily, a sampled refill and the
        # other players' greedy turns (a round, or `turns`), or the end of the game.
        t = state.clone()
        t.rng = prng.seed_state(self.rng.randrange(_SEEDS))
        t.play(move)
        greedy = self._greedy
        greedy._finish_turn(t, me, state.turn)
        stop = state.turn + 1 + (self.turns or t.players - 1)
        while not t.is_over() and t.turn < stop:
            t.play(greedy.choose(t))
        return _margin(t, me, weight)


# (cubes, worth) where a type's sets complete; the smoothed worth is straight between.
_SET_POINTS = ((0, 0), (3, 1), (6, 3), (9, 9), (12, 10))


def smoothed_worth(n):
    """A type's worth with `n` cubes, loose cubes counted as progress to the next set."""
    for (n0, v0), (n1, v1) in zip(_SET_POINTS, _SET_POINTS[1:]):
        if n <= n1:
            return v0 + (v1 - v0) * (n - n0) / float(n1 - n0)
    return 10 + (n - 12) / 3.0


def _worth(farm, weight):
    total = 0.0
    for n in farm:
        total += (1 - weight) * vora._type_score(n) + weight * smoothed_worth(n)
    return total


def _margin(state, me, weight):
    # The bot's worth minus the best other player's; a finished game, or no smoothing,
    # by the rules' scores.
    if weight == 0 or state.is_over():
        return relative_score(state, me)
    mine = _worth(state.farms[me], weight)
    others = [_worth(f, weight) for p, f in enumerate(state.farms) if p != me]
    return mine - max(others)
