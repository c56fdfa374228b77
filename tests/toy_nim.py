"""A toy game with no secrets, for the bot tests: Nim for 2 to 4 players.

Players take turns taking 1 to `max_take` stones from one pile; whoever takes the last
stone wins. It follows docs/adding-a-game.md (the conformance playout checks it in
tests/test_bots.py), so a bot that plays it plays by the common interface alone. Its
scores say nothing until the end (the winner 1, the others 0): a search has to reach
the end of the game to learn anything.
"""

import json

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove

NAME = "toy-nim"
TITLE = "Toy Nim"
PLAYER_COUNTS = (2, 3, 4)
OPTIONS = (
    ("stones", 15, "int", "stones in the pile at the start"),
    ("max_take", 3, "int", "most stones one move may take"),
)
HIDDEN_INFORMATION = False


class NimState:
    def __init__(self, players, stones, max_take, rng):
        self.players = players
        self.start = stones
        self.pile = stones
        self.max_take = max_take
        self.active = 0
        self.turn = 0
        self.taker = -1  # who took the last stone
        self.rng = rng  # unused by the rules: determinize() reseeds it as the contract says

    def legal_moves(self):
        if self.is_over():
            return []
        return sorted("take %d" % k for k in range(1, min(self.max_take, self.pile) + 1))

    def play(self, move):
        if move not in self.legal_moves():
            raise IllegalMove(move, "take 1 to %d stones" % min(self.max_take, self.pile))
        self.pile -= int(move.split()[1])
        self.taker = self.active
        self.turn += 1
        self.active = (self.active + 1) % self.players

    def to_act(self):
        return None if self.is_over() else self.active

    def is_over(self):
        return self.pile == 0

    def scores(self):
        return [1 if p == self.taker and self.pile == 0 else 0 for p in range(self.players)]

    def winner(self):
        return self.taker if self.is_over() else None

    def turn_count(self):
        return self.turn

    def end_reason(self):
        return "last" if self.is_over() else ""

    def options(self):
        return {"stones": self.start, "max_take": self.max_take}

    def clone(self):
        return from_json(self.to_json())

    def _dict(self):
        return {"game": NAME, "players": self.players, "start": self.start, "pile": self.pile,
                "max_take": self.max_take, "active": self.active, "turn": self.turn,
                "taker": self.taker, "rng": self.rng}

    def to_json(self):
        return json.dumps(self._dict(), separators=(",", ":"))

    def digest(self):
        import hashlib
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def view(self, player=None):
        d = self._dict()
        d["rng"] = None
        return d

    def __eq__(self, other):
        return isinstance(other, NimState) and self.to_json() == other.to_json()

    def __repr__(self):
        return "toy_nim.from_json(%r)" % self.to_json()


def new_game(players=2, seed=0, stones=15, max_take=3):
    if players not in PLAYER_COUNTS:
        raise BadPosition("toy nim is played by 2 to 4 players, not %r" % (players,))
    if not isinstance(stones, int) or stones < 1 or not isinstance(max_take, int) or max_take < 1:
        raise BadPosition("stones and max_take must be whole numbers from 1")
    return NimState(players, stones, max_take, prng.seed_state(seed))


def from_json(text):
    try:
        d = text if isinstance(text, dict) else json.loads(text)
        if not isinstance(d, dict) or d.get("game") != NAME:
            raise BadPosition("not a toy nim state")
        s = NimState(d["players"], d["start"], d["max_take"], d["rng"])
        s.pile, s.active, s.turn, s.taker = d["pile"], d["active"], d["turn"], d["taker"]
    except (KeyError, TypeError, ValueError) as exc:
        raise BadPosition("not a toy nim state: %s" % (exc,))
    if not all(isinstance(v, int) for v in (s.players, s.pile, s.active, s.turn, s.taker,
                                            s.rng)) or s.players not in PLAYER_COUNTS:
        raise BadPosition("not a toy nim state: bad field")
    return s


def determinize(view, seed):
    d = dict(view)
    d["rng"] = prng.seed_state(seed)
    return from_json(d)
