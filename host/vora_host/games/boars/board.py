"""Boars on the Run! on the board's 7x7 keys (docs/boars-notation.md, "On the board").

Moves are chosen word by word (vora_host.games.base.WordKeys): the kinds on the top and
bottom edges (draw, buy, ticket, diet, end, ...), lit when they can be played; then each
following word on the inner keys (`draw 7`: draw, then the 7th inner key), their meaning
on the PC screen beside the board. The player's corner plays the preview.

What the keys show while nothing is selected:
- the inner 5x5: the next 25 spaces of the track from the boar of the player to act,
  bottom-left first, row by row: food in its colour, predators in theirs blinking,
  stations white, the Finish bright white; a boar on a space in its player's seat colour;
- the west edge (bottom up): the cubes drawn this turn, red, blue, yellow, green, black,
  brighter for more; the east edge: the cubes in front of the player.
Only the viewer's own view is drawn: another player's bag never shows.
"""

from functools import lru_cache

from vora_host.games.base import KIND_KEYS, WordKeys, key_of

__all__ = ["BoarsBoard"]

CUBE_RGB = ((255, 40, 0), (0, 80, 255), (255, 200, 0), (0, 190, 40), (60, 0, 90))
COLOUR_INDEX = {"red": 0, "blue": 1, "yellow": 2, "green": 3}
SEAT_RGB = ((0, 200, 255), (255, 0, 200), (255, 140, 0), (140, 255, 0))
TRACK_KEYS = tuple(key_of(x, y) for y in range(1, 6) for x in range(1, 6))
DRAWN_KEYS = tuple(key_of(0, y) for y in range(1, 6))
FRONT_KEYS = tuple(key_of(6, y) for y in range(1, 6))


@lru_cache(maxsize=8)
def _spaces(text):
    from shared_rules import boars
    return tuple((s["kind"], s["colour"]) for s in boars.track_spaces(text))


def _scale(rgb, level):
    return tuple(c * level // 256 for c in rgb)


class BoarsBoard(WordKeys):

    def frame(self, state, viewer, now):
        v = state.view(viewer)
        out = [(0, 0, 0)] * 49
        spaces = _spaces(v["track"])
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
            for p, pos in enumerate(v["positions"]):
                if pos == n:
                    rgb = SEAT_RGB[p % 4]
            out[k] = rgb
        for c, k in enumerate(DRAWN_KEYS):
            if v["drawn"][c]:
                out[k] = _scale(CUBE_RGB[c], min(256, 60 + 40 * v["drawn"][c]))
        for c, k in enumerate(FRONT_KEYS):
            if v["front"][c]:
                out[k] = _scale(CUBE_RGB[c], min(256, 60 + 40 * v["front"][c]))
        kinds = set(m.split(" ")[0] for m in state.legal_moves()) if viewer == v["to_act"] \
            else set()
        for k, word in zip(KIND_KEYS, sorted(kinds)):
            out[k] = (90, 90, 90)
        return out
