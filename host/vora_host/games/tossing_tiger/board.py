"""Tossing Tiger, Rolling Dragon on the board's 7x7 keys (docs/tossing-tiger-notation.md,
"On the board").

Keys are named like chess cells over the whole 7x7: files a..g west to east, ranks 1..7
south to north, a1 the south-west (bottom-left) corner key.

Moves are chosen word by word (vora_host.games.base.WordKeys): the kinds on the top and
bottom edges (b7..f7, then b1..f1: fight, add, next, claim, keep...), then each following
word on the choice keys (the inner 5x5 in reading order first: b6..f6, b5..f5, down to
b2..f2; numbers by value), their meaning on the PC screen beside the board; the player's
corner plays the preview.

While nothing is selected, ranks 2 to 6 show the viewer's hand and the war, all 7 keys of
each rank (edges included):
- ranks 6 and 5: the viewer's hand, one key per card in the order of the names (numbers
  by value): cards 1-7 on a6..g6, 8-14 on a5..g5, in their animal's colour. More than 14
  cards: pages of 14 shown in turn, PAGE_MS each. While the viewer makes dice (their whole
  hand goes into them), these keys show the cards still to place instead.
  On the virtual board's screen (`key_marks`) these keys are named by animal.
- ranks 4, 3, 2: one column per battle, battles 1-7 on files a..g: the attacker's die on
  rank 4 (a4..g4), the winner on rank 3 (a3..g3), the defender's die on rank 2 (a2..g2).
  More than 7 battles: pages of 7 shown in turn, PAGE_MS each.
- a die: its revealed card in its animal's colour, steady; a die the viewer knows but
  not rolled yet (their own, or one a Monkey looked at): its cards in turn, CARD_MS each
  with a short dark gap; a die the viewer does not know: faint white (30, 30, 30); no die,
  or nothing left of it: dark. The die the viewer is making: its cards so far in turn
  with a short white gap; still empty, steady white (80, 80, 80).
- the winner: green (0, 200, 0) the attacker, red (200, 0, 0) the defender, grey
  (120, 120, 120) both; dark for nobody or not fought yet.
Everything is drawn from `state.view(viewer)` only: another player's hand, cards still
to place and unknown dice never show.
"""

from vora_host.games.base import WordKeys, key_of, word_order

__all__ = ["TigerBoard", "HAND_KEYS", "ATTACKER_KEYS", "WINNER_KEYS", "DEFENDER_KEYS",
           "PAGE_MS", "CARD_MS"]

# One hue per animal type; face-down cards dim white.
ANIMAL_RGB = {
    "tiger": (255, 120, 0), "dragon": (255, 0, 0), "mantis": (0, 255, 0),
    "crane": (200, 200, 255), "monkey": (150, 80, 0), "panda": (255, 255, 255),
    "turtle": (0, 120, 60), "leopard": (255, 220, 0), "snake": (120, 255, 0),
    "peacock": (0, 80, 255), "bull": (120, 0, 0), "redpanda": (255, 60, 60),
    "chameleon": (0, 255, 180), "horse": (160, 110, 60), "unicorn": (255, 0, 255),
    "frog": (60, 200, 0), "bird": (0, 200, 255), "rooster": (255, 180, 120),
}
FACE_DOWN = (30, 30, 30)
MAKING = (80, 80, 80)  # the die being made: empty, or between its cards
OFF = (0, 0, 0)
RESULT_RGB = {"a": (0, 200, 0), "d": (200, 0, 0), "both": (120, 120, 120)}

HAND_KEYS = tuple(key_of(x, 5) for x in range(7)) + tuple(key_of(x, 4) for x in range(7))
ATTACKER_KEYS = tuple(key_of(x, 3) for x in range(7))
WINNER_KEYS = tuple(key_of(x, 2) for x in range(7))
DEFENDER_KEYS = tuple(key_of(x, 1) for x in range(7))
PAGE_MS = 2500  # more cards or battles than keys: each page this long, in turn
CARD_MS = 700  # a known die shows its cards in turn, this long each
GAP_MS = 150  # the last part of each card's time: the gap between cards


def _page(items, size, now):
    # (first index, the items on the page shown at `now`)
    pages = max(1, (len(items) + size - 1) // size)
    first = (now // PAGE_MS) % pages * size
    return first, items[first:first + size]


class TigerBoard(WordKeys):

    SHORT_WORDS = {"discard": "discrd", "leopard": "leoprd", "chameleon": "chamel",
                   "redpanda": "rpanda", "peacock": "peacck", "rooster": "roostr",
                   "unicorn": "unicrn"}

    def word_text(self, state, before, word):
        kind = before[0] if before else None
        if kind == "fight":
            together = state.options().get("fight_together")
            if len(before) == 1 and not together:
                return "vs P%s" % word
            return "1 die" if word == "1" else "%s dice" % word
        if kind in ("claim", "reroll", "look", "swap") and word.isdigit():
            return "battle %s" % word
        if kind == "keep" and len(before) == 2:
            return "for P%s" % word
        return word

    def legend(self, state):
        return [(RESULT_RGB["a"], "attacker won"), (RESULT_RGB["d"], "defender"),
                (RESULT_RGB["both"], "both"), (FACE_DOWN, "unknown"),
                (MAKING, "making")] + [
            (ANIMAL_RGB[a], a) for a in ("tiger", "dragon", "mantis", "crane", "monkey",
                                         "panda", "turtle", "leopard")]

    def _rgb(self, card):
        return ANIMAL_RGB.get(self.rules.card_type(card), FACE_DOWN)

    def _cycle(self, cards, now, gap):
        # A die's cards in turn, CARD_MS each, its last GAP_MS the gap colour.
        if now % CARD_MS >= CARD_MS - GAP_MS:
            return gap
        return self._rgb(cards[(now // CARD_MS) % len(cards)])

    def _die(self, side, now):
        if side["face"]:
            return self._rgb(side["face"])
        pile = side["pile"]
        if isinstance(pile, list):  # the viewer knows this die
            return self._cycle(sorted(pile, key=word_order), now, OFF) if pile else OFF
        return FACE_DOWN if pile else OFF

    def frame(self, state, viewer, now):
        v = state.view(viewer)
        info = v["info"]
        war = v["war"]
        out = [OFF] * 49
        build = war["build"] if war is not None else None
        # The viewer's own build: the cards still to place, the die in progress.
        mine = build is not None and viewer is not None and build["p"] == viewer \
            and isinstance(build["pool"], list) and isinstance(build["cur"], list)
        making = None  # (battle index, side index) of the die the viewer is making
        if mine:
            sd = build["s"]
            free = [j for j in range(len(war["b"])) if not war["b"][j]["s"][sd]["set"]]
            slot = build["slots"][0] if build["slots"] else (free[0] if free else None)
            if slot is not None:
                making = (slot, sd)
        if war is not None:
            first, page = _page(war["b"], len(ATTACKER_KEYS), now)
            for i, bt in enumerate(page):
                j = first + i
                for sd, keys in ((0, ATTACKER_KEYS), (1, DEFENDER_KEYS)):
                    if making == (j, sd):
                        cur = sorted(build["cur"], key=word_order)
                        out[keys[i]] = self._cycle(cur, now, MAKING) if cur else MAKING
                    else:
                        out[keys[i]] = self._die(bt["s"][sd], now)
                winner = info["battles"][j]["winner"]
                if winner in RESULT_RGB:
                    out[WINNER_KEYS[i]] = RESULT_RGB[winner]
        if viewer is not None:
            _first, page = _page(self._hand_cards(v, viewer), len(HAND_KEYS), now)
            for k, card in zip(HAND_KEYS, page):
                out[k] = self._rgb(card)
        return out

    def _hand_cards(self, v, viewer):
        # The cards ranks 6 and 5 show: the viewer's hand, or while they make dice the
        # cards still to place; in the order of the names.
        war = v["war"]
        build = war["build"] if war is not None else None
        if build is not None and build["p"] == viewer and isinstance(build["pool"], list) \
                and isinstance(build["cur"], list):
            cards = list(build["pool"])
        else:
            cards = []
            for card, count in v["info"]["hand"].items():
                cards += [card] * count
        return sorted(cards, key=word_order)

    def key_marks(self, state, viewer, pressed=()):
        # The viewer's cards by name on their keys (the first page), then the choices of
        # the move under way over them.
        marks = {}
        if viewer is not None and not pressed:
            cards = self._hand_cards(state.view(viewer), viewer)
            for k, card in zip(HAND_KEYS, cards):
                marks[k] = self.short_label(self.rules.card_type(card))
        marks.update(WordKeys.key_marks(self, state, viewer, pressed))
        return marks
