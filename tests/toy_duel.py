"""A toy game with secrets and chance, for the bot tests: a two-player trick duel.

Cards 1 to `cards` are shuffled (the game's PRNG); each player gets `hand` cards, the
rest is the draw pile, face down. The leader plays a card face up, the other player
answers with one; the higher card wins the trick (a point). Then the winner and the
loser each draw a card while the pile lasts, and the winner leads the next trick. The
game ends when the hands are empty; the most tricks wins.

Secrets: the other player's hand and the order of the pile. `view(p)` shows p's hand,
the other hand's size, the pile's size and every card played; `determinize(view, seed)`
deals the unseen cards at random. It follows docs/adding-a-game.md (the conformance
playout checks it in tests/test_bots.py).
"""

import json

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove

NAME = "toy-duel"
TITLE = "Toy Duel"
PLAYER_COUNTS = (2,)
OPTIONS = (
    ("cards", 10, "int", "cards in the deck, numbered from 1"),
    ("hand", 3, "int", "cards dealt to each player"),
)
HIDDEN_INFORMATION = True


class DuelState:
    def __init__(self):
        self.cards = 10
        self.hand = 3
        self.hands = [[], []]
        self.pile = []  # the next card drawn is pile[-1]
        self.played = []  # every card played, in order (the one on the table last)
        self.table = 0  # the card led in the current trick, 0 when none
        self.leader = 0
        self.active = 0
        self.points = [0, 0]
        self.turn = 0  # tricks completed
        self.rng = 1

    def legal_moves(self):
        if self.is_over():
            return []
        return sorted("play %d" % c for c in self.hands[self.active])

    def play(self, move):
        if move not in self.legal_moves():
            raise IllegalMove(move, "play a card of your hand: %s"
                              % ", ".join(self.legal_moves()))
        card = int(move.split()[1])
        me = self.active
        self.hands[me].remove(card)
        self.played.append(card)
        if not self.table:
            self.table = card
            self.active = 1 - me
            return
        won = me if card > self.table else self.leader
        self.points[won] += 1
        self.table = 0
        self.turn += 1
        for p in (won, 1 - won):
            if self.pile:
                self.hands[p].append(self.pile.pop())
                self.hands[p].sort()
        self.leader = self.active = won

    def to_act(self):
        return None if self.is_over() else self.active

    def is_over(self):
        return not self.hands[0] and not self.hands[1]

    def scores(self):
        return self.points[:]

    def winner(self):
        if not self.is_over() or self.points[0] == self.points[1]:
            return None
        return 0 if self.points[0] > self.points[1] else 1

    def turn_count(self):
        return self.turn

    def end_reason(self):
        return "cards" if self.is_over() else ""

    def options(self):
        return {"cards": self.cards, "hand": self.hand}

    def clone(self):
        return from_json(self.to_json())

    def _dict(self):
        return {"game": NAME, "cards": self.cards, "hand": self.hand,
                "hands": [h[:] for h in self.hands], "pile": self.pile[:],
                "played": self.played[:], "table": self.table, "leader": self.leader,
                "active": self.active, "points": self.points[:], "turn": self.turn,
                "rng": self.rng}

    def to_json(self):
        return json.dumps(self._dict(), separators=(",", ":"))

    def digest(self):
        import hashlib
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def view(self, player=None):
        d = self._dict()
        d["hands"] = [h if p == player else len(h) for p, h in enumerate(d["hands"])]
        d["pile"] = len(d["pile"])
        d["rng"] = None
        return d

    def __eq__(self, other):
        return isinstance(other, DuelState) and self.to_json() == other.to_json()

    def __repr__(self):
        return "toy_duel.from_json(%r)" % self.to_json()


def _shuffle(cards, x):
    cards = list(cards)
    for i in range(len(cards) - 1, 0, -1):
        j, x = prng.below(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards, x


def new_game(players=2, seed=0, cards=10, hand=3):
    if players != 2:
        raise BadPosition("the toy duel is played by 2 players, not %r" % (players,))
    if not isinstance(cards, int) or not isinstance(hand, int) or hand < 1 or cards < 2 * hand:
        raise BadPosition("the deck must hold at least two hands")
    s = DuelState()
    s.cards, s.hand = cards, hand
    deck, s.rng = _shuffle(range(1, cards + 1), prng.seed_state(seed))
    s.hands = [sorted(deck[:hand]), sorted(deck[hand:2 * hand])]
    s.pile = deck[2 * hand:]
    return s


def from_json(text):
    try:
        d = text if isinstance(text, dict) else json.loads(text)
        if not isinstance(d, dict) or d.get("game") != NAME:
            raise BadPosition("not a toy duel state")
        s = DuelState()
        s.cards, s.hand = d["cards"], d["hand"]
        s.hands = [list(h) for h in d["hands"]]
        s.pile, s.played = list(d["pile"]), list(d["played"])
        s.table, s.leader, s.active = d["table"], d["leader"], d["active"]
        s.points, s.turn, s.rng = list(d["points"]), d["turn"], d["rng"]
    except (KeyError, TypeError, ValueError) as exc:
        raise BadPosition("not a toy duel state: %s" % (exc,))
    every = sorted(s.hands[0] + s.hands[1] + s.pile + s.played)
    if len(s.hands) != 2 or every != list(range(1, s.cards + 1)) or s.active not in (0, 1):
        raise BadPosition("not a toy duel state: the cards do not add up")
    return s


def determinize(view, seed):
    """Deal the cards the viewer has not seen into the hidden hands and the pile."""
    d = dict(view)
    seen = set(d["played"])
    for h in d["hands"]:
        if isinstance(h, list):
            seen.update(h)
    unseen = [c for c in range(1, d["cards"] + 1) if c not in seen]
    unseen, x = _shuffle(unseen, prng.seed_state(seed))
    hands = []
    for h in d["hands"]:
        if isinstance(h, list):
            hands.append(list(h))
        else:
            hands.append(sorted(unseen[:h]))
            unseen = unseen[h:]
    d["hands"] = hands
    d["pile"] = unseen
    d["rng"] = x
    return from_json(d)
