"""High card: a tiny hidden-information game with chance, for the generic tests.

Each of 2 players is dealt a secret card 1..9 from the PRNG. In turn, each says `keep`
or `swap` (swap: a new secret card from the PRNG). Then the higher card wins (equal: a
draw). A player sees their own card and what the others did, never their cards.
"""

import json

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove

NAME = "high-card"
TITLE = "High card"
PLAYER_COUNTS = (2,)
OPTIONS = (("top", 9, "int", "the highest card"),)
HIDDEN_INFORMATION = True


class HighCard:
    def __init__(self):
        self.top = 9
        self.cards = [0, 0]
        self.said = []
        self.rng = 1

    def options(self):
        return {"top": self.top}

    def to_act(self):
        return None if self.is_over() else len(self.said)

    def is_over(self):
        return len(self.said) == 2

    def legal_moves(self):
        return [] if self.is_over() else ["keep", "swap"]

    def play(self, move):
        if self.is_over():
            raise IllegalMove(move, "the game is over")
        if move not in ("keep", "swap"):
            raise IllegalMove(move, "say keep or swap")
        if move == "swap":
            self.cards[len(self.said)], self.rng = self._card()
        self.said.append(move)

    def _card(self):
        v, rng = prng.below(self.rng, self.top)
        return v + 1, rng

    def scores(self):
        if not self.is_over():
            return [0, 0]
        a, b = self.cards
        return [int(a > b), int(b > a)]

    def winner(self):
        if not self.is_over() or self.cards[0] == self.cards[1]:
            return None
        return 0 if self.cards[0] > self.cards[1] else 1

    def turn_count(self):
        return len(self.said)

    def end_reason(self):
        return "shown" if self.is_over() else ""

    def clone(self):
        return from_json(self.to_json())

    def to_json(self):
        return json.dumps({"game": NAME, "top": self.top, "cards": self.cards,
                           "said": self.said, "rng": self.rng}, separators=(",", ":"))

    def digest(self):
        import hashlib
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def __eq__(self, other):
        return isinstance(other, HighCard) and other.to_json() == self.to_json()

    def view(self, player=None):
        over = self.is_over()
        return {"game": NAME, "top": self.top, "said": list(self.said), "viewer": player,
                "cards": [c if over or p == player else None for p, c in enumerate(self.cards)]}


def new_game(players=2, seed=0, top=9):
    if players != 2:
        raise BadPosition("high card is for 2 players")
    s = HighCard()
    s.top = top
    s.rng = prng.seed_state(seed)
    for p in range(2):
        s.cards[p], s.rng = s._card()
    return s


def from_json(text):
    try:
        d = json.loads(text) if isinstance(text, str) else text
        s = HighCard()
        s.top, s.cards, s.said, s.rng = d["top"], list(d["cards"]), list(d["said"]), d["rng"]
    except (ValueError, KeyError, TypeError) as exc:
        raise BadPosition("not a high card state: %s" % exc)
    return s


def determinize(view, seed):
    s = HighCard()
    s.top, s.said = view["top"], list(view["said"])
    s.rng = prng.seed_state(seed)
    for p, c in enumerate(view["cards"]):
        if c is None:
            c, s.rng = s._card()
        s.cards[p] = c
    return s


def public_move(state, move, viewer):
    return move  # keeping or swapping is said aloud; only the cards are secret


def register(monkeypatch):
    """Make `high-card` a game of the registry, with a host package, for one test."""
    import sys
    import types

    from rich.text import Text

    from shared_rules import games
    from vora_host import games as host_games
    from vora_host.games.base import TerminalView

    module = sys.modules[__name__]

    class View(TerminalView):
        def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
            seen = self.seen(state, viewer)
            return Text("cards: %s" % " ".join("?" if c is None else "card-%d" % c
                                                for c in seen["cards"]))

    host = types.SimpleNamespace(RULES=module, BOTS={}, VIEW=View(module),
                                 RULEBOOK="none.md", NOTATION="none.md")
    real_load, real_host = games.load, host_games.host_game
    monkeypatch.setitem(games.GAME_MODULES, NAME, "high_card")
    monkeypatch.setattr(games, "load", lambda name: module if name == NAME else real_load(name))
    monkeypatch.setattr(host_games, "host_game",
                        lambda name: host if name == NAME else real_host(name))
    return module, host
