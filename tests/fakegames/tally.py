"""Tally: a tiny open game with an option of every kind, for the game log's generic tests.

Players in turn add 1, 2 or 3 to a shared tally (or `pass`); a player's turn is one move,
or two when they add 3 (then `bonus` or `pass` follows). The player who brings the tally to
`goal` or past it wins; `mode` "max" ends at the first 3 added instead. It has no host
package on purpose: the log, the formats and replay must take a game from its rules alone.
"""

import hashlib
import json

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove

NAME = "tally"
TITLE = "Tally"
PLAYER_COUNTS = (2, 3)
OPTIONS = (
    ("goal", 10, "int", "the tally that ends the game"),
    ("fast", False, "bool", "a bonus adds 2 instead of 1"),
    ("label", "tally", "str", "a name shown nowhere"),
    ("weights", None, "dict", "per-player handicaps {\"0\": n}"),
    ("mode", "sum", ("sum", "max"), "how the game ends"),
    ("end", "bell", "str", "an option whose tag collides with [End]"),
)
HIDDEN_INFORMATION = False


class Tally:
    def __init__(self, players, goal, fast, label, weights, mode, end):
        self.players, self.goal, self.fast, self.label = players, goal, fast, label
        self.weights, self.mode, self.end_word = dict(weights), mode, end
        self.total, self.player, self.bonus, self.turns, self.done = 0, 0, False, 0, ""
        self.rng = 1

    def options(self):
        return {"goal": self.goal, "fast": self.fast, "label": self.label,
                "weights": dict(self.weights), "mode": self.mode, "end": self.end_word}

    def to_act(self):
        return None if self.done else self.player

    def is_over(self):
        return bool(self.done)

    def legal_moves(self):
        if self.done:
            return []
        return ["bonus", "pass"] if self.bonus else ["add 1", "add 2", "add 3", "pass"]

    def play(self, move):
        if move not in self.legal_moves():
            raise IllegalMove(move, "not a move now (%s)" % ", ".join(self.legal_moves()))
        if move == "bonus":
            self.total += 2 if self.fast else 1
        elif move.startswith("add"):
            self.total += int(move[4:]) + self.weights.get(str(self.player), 0)
        if move == "add 3" and not self.bonus:
            self.bonus = True
            if self.mode == "max":
                self.done = "max"
            return
        self.bonus = False
        if self.total >= self.goal:
            self.done = self.end_word
            return
        self.turns += 1
        self.player = (self.player + 1) % self.players

    def scores(self):
        return [int(self.done != "" and p == self.player) for p in range(self.players)]

    def winner(self):
        return self.player if self.done else None

    def turn_count(self):
        return self.turns + (1 if self.done else 0)

    def end_reason(self):
        return self.done

    def to_json(self):
        return json.dumps({"game": NAME, "players": self.players, "options": self.options(),
                           "total": self.total, "player": self.player, "bonus": self.bonus,
                           "turns": self.turns, "done": self.done, "rng": self.rng},
                          separators=(",", ":"), sort_keys=True)

    def digest(self):
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def clone(self):
        return from_json(self.to_json())

    def __eq__(self, other):
        return isinstance(other, Tally) and other.to_json() == self.to_json()

    def view(self, player=None):
        return json.loads(self.to_json())


def new_game(players=2, seed=0, goal=10, fast=False, label="tally", weights=None,
             mode="sum", end="bell"):
    if players not in PLAYER_COUNTS:
        raise BadPosition("tally is for 2 or 3 players, not %r" % (players,))
    if not isinstance(goal, int) or isinstance(goal, bool) or not 1 <= goal <= 1000:
        raise BadPosition("goal must be 1 to 1000, not %r" % (goal,))
    if mode not in ("sum", "max"):
        raise BadPosition("mode is sum or max, not %r" % (mode,))
    weights = {} if weights is None else weights
    if not isinstance(weights, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 3
            for v in weights.values()):
        raise BadPosition("weights are {player: 0..3}, not %r" % (weights,))
    if not isinstance(end, str) or not end or len(end) > 20:
        raise BadPosition("end is a short word, not %r" % (end,))
    s = Tally(players, goal, bool(fast), str(label), weights, mode, end)
    s.rng = prng.seed_state(seed)
    return s


def from_json(text):
    try:
        d = json.loads(text) if isinstance(text, str) else text
        s = new_game(d["players"], 0, **d["options"])
        s.total, s.player, s.bonus = d["total"], d["player"], d["bonus"]
        s.turns, s.done, s.rng = d["turns"], d["done"], d["rng"]
    except (ValueError, KeyError, TypeError) as exc:
        raise BadPosition("not a tally state: %s" % exc)
    return s


def determinize(view, seed):
    return from_json(view)


def register(monkeypatch):
    """Make `tally` a game of the registry, without a host package, for one test."""
    import sys

    from shared_rules import games

    module = sys.modules[__name__]
    real_load = games.load
    monkeypatch.setitem(games.GAME_MODULES, NAME, "tally")
    monkeypatch.setattr(games, "load", lambda name: module if name == NAME else real_load(name))
    return module
