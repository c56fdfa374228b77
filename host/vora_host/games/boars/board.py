"""Boars on the Run! on the board's 7x7 keys (docs/boars-notation.md, "On the board").

Keys are named like chess cells over the whole 7x7: a1 the south-west (bottom-left)
corner, g7 the north-east one.

Moves are chosen word by word (vora_host.games.base.WordKeys): the kinds on the top and
bottom edges (b7..f7, then b1..f1: draw, buy, ticket, diet, end, ...), lit when they can be
played; then each following word on the choice keys, first the inner 5x5 in reading order
(b6..f6, b5..f5, down to b2..f2), the choices in natural order (numbers by value): `draw
7` is draw, then the 7th inner key (c5). Their meaning is on the PC screen beside the
board. The player's corner plays the preview.

What the keys show while nothing is selected:
- the inner 5x5: the next 25 spaces of the track from the boar of the player to act, in
  the same reading order as the choices (T1, its own space, on b6; T25 on f2): food in
  its colour, predators in theirs blinking, stations white, the Finish bright white;
- a space with a boar: that player's seat colour, the colour their corner pulses in
  (vora_host.games.base.seat_rgb: with 2 players S cyan and N amber); boars sharing a
  space take turns, BOAR_MS each, the lowest-numbered player first;
- on the virtual board's screen (`key_marks`) the same keys are named: food by its colour
  ("red"), a predator in capitals ("RED"), "statn", "Finish", the boars there ("P0 P1"),
  the cubes drawn and in front by count ("2 red");
- the west edge (a2 up to a6): the cubes drawn this turn, red, blue, yellow, green,
  black, brighter for more; the east edge (g2 up to g6): the cubes in front of the player.
Only the viewer's own view is drawn: another player's bag never shows.
"""

from functools import lru_cache

from vora_host.games.base import INNER_KEYS, KIND_KEYS, WordKeys, key_of, seat_rgb

__all__ = ["BoarsBoard", "TRACK_KEYS", "BOAR_MS"]

CUBE_RGB = ((255, 40, 0), (0, 80, 255), (255, 200, 0), (0, 190, 40), (60, 0, 90))
COLOUR_INDEX = {"red": 0, "blue": 1, "yellow": 2, "green": 3}
# T1..T25 in reading order: the same keys, in the same order, as the choices of a word.
TRACK_KEYS = INNER_KEYS
DRAWN_KEYS = tuple(key_of(0, y) for y in range(1, 6))
FRONT_KEYS = tuple(key_of(6, y) for y in range(1, 6))
BOAR_MS = 600  # boars sharing a space show in turn, this long each


@lru_cache(maxsize=8)
def _spaces(text):
    from shared_rules import boars
    return tuple((s["kind"], s["colour"]) for s in boars.track_spaces(text))


def _scale(rgb, level):
    return tuple(c * level // 256 for c in rgb)


_COLOUR_LETTER = {"red": "R", "blue": "B", "yellow": "Y", "green": "G"}
_SHORT = {"careless": "carels", "discard": "discrd", "finders": "finder",
          "knowledge": "knowl.", "squirrel": "squirl", "switcheroo": "switch",
          "vendetta": "vendet", "ticket": "ticket"}


def short_card(word):
    """A card or word of Boars in at most 6 characters: feast-blue 'feastB', combo-rbg
    'co rbg', mono-rr 'mo rr', portion-5 'port 5'."""
    if word in _SHORT:
        return _SHORT[word]
    head, _, tail = word.partition("-")
    if tail in _COLOUR_LETTER:
        return head[:5] + _COLOUR_LETTER[tail]
    if tail:
        return (head[:2] + " " + tail) if not tail.isdigit() else (head[:4] + " " + tail)
    return word


class BoarsBoard(WordKeys):

    def short_label(self, word):
        word = short_card(word)
        return word if len(word) <= 6 else word[:5] + "."

    def word_text(self, state, before, word):
        kind = before[0] if before else None
        if kind == "draw":
            return "%s cube%s" % (word, "" if word == "1" else "s")
        if kind == "vendetta" and len(before) == 2:
            return "on P%s" % word
        if kind in ("buy", "diet") and len(before) == 2:
            return "pay " + word
        if kind == "diet" and len(before) == 1:
            # What the diet costs and how far it goes, where the diet is chosen.
            from vora_host.games.boars.ui import diet_text
            said = diet_text(state.view(None), state.to_act(), word)  # cards are public
            return "%s (%s)" % (word, said) if said else word
        return word

    def key_marks(self, state, viewer, pressed=()):
        # The track by its spaces (boars by player), the cubes drawn and in front by
        # count, then the choices of the move under way over them.
        v = state.view(viewer)
        marks = {}
        if not pressed:
            spaces = _spaces(v["track"])
            who = v["to_act"] if v["to_act"] is not None else 0
            start = v["positions"][who]
            for i, k in enumerate(TRACK_KEYS):
                n = start + i
                if n >= len(spaces):
                    break
                kind, colour = spaces[n]
                here = [p for p, pos in enumerate(v["positions"]) if pos == n]
                if here:
                    marks[k] = " ".join("P%d" % p for p in here)[:6]
                elif kind == "food":
                    marks[k] = colour
                elif kind == "predator":
                    marks[k] = colour.upper()  # capitals: a predator (it blinks)
                else:
                    marks[k] = {"station": "statn", "finish": "Finish",
                                "start": "start"}.get(kind, kind[:6])
            names = ("red", "blue", "yellow", "green", "black")
            for c, k in enumerate(DRAWN_KEYS):
                if v["drawn"][c]:
                    marks[k] = "%d %s" % (v["drawn"][c], names[c][:3])
            for c, k in enumerate(FRONT_KEYS):
                if v["front"][c]:
                    marks[k] = "%d %s" % (v["front"][c], names[c][:3])
        marks.update(WordKeys.key_marks(self, state, viewer, pressed))
        return marks

    def legend(self, state):
        names = ("red", "blue", "yellow", "green", "black")
        return [(rgb, name) for rgb, name in zip(CUBE_RGB, names)] + [
            ((70, 70, 70), "station"), ((255, 255, 255), "Finish"),
            (CUBE_RGB[0], "blinks, in capitals: predator")] + [
            (seat_rgb(len(state.scores()), p), "P%d's boar" % p)
            for p in range(len(state.scores()))]

    def frame(self, state, viewer, now):
        v = state.view(viewer)
        out = [(0, 0, 0)] * 49
        spaces = _spaces(v["track"])
        players = len(v["positions"])
        who = v["to_act"] if v["to_act"] is not None else 0
        start = v["positions"][who]
        blink = now % 800 < 500
        for i, k in enumerate(TRACK_KEYS):
            n = start + i
            if n >= len(spaces):
                break
            kind, colour = spaces[n]
            rgb = (0, 0, 0)
            if kind == "food" and colour in COLOUR_INDEX:
                rgb = _scale(CUBE_RGB[COLOUR_INDEX[colour]], 70)
            elif kind == "predator" and colour in COLOUR_INDEX:
                rgb = CUBE_RGB[COLOUR_INDEX[colour]] if blink else (0, 0, 0)
            elif kind == "station":
                rgb = (70, 70, 70)
            elif kind == "finish":
                rgb = (255, 255, 255)
            here = [p for p, pos in enumerate(v["positions"]) if pos == n]
            if here:
                rgb = seat_rgb(players, here[(now // BOAR_MS) % len(here)])
            out[k] = rgb
        for c, k in enumerate(DRAWN_KEYS):
            if v["drawn"][c]:
                out[k] = _scale(CUBE_RGB[c], min(256, 60 + 40 * v["drawn"][c]))
        for c, k in enumerate(FRONT_KEYS):
            if v["front"][c]:
                out[k] = _scale(CUBE_RGB[c], min(256, 60 + 40 * v["front"][c]))
        if viewer is not None and viewer == v["to_act"]:
            for k, _word in zip(KIND_KEYS, self.kinds(state)):
                out[k] = (90, 90, 90)
        return out
