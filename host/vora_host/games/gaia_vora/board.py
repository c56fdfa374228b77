"""Gaia-Vora on the board's 7x7 keys (docs/gaia-vora-notation.md, "On the board").

    y=6   cW   .    Sun  Moon  Meteor  .   cN        top edge: the Sky Objects as printed
    y=5   yel  .    .    .     .       .   stone     left column: colours yellow green
    y=4   grn  .   [nw]  [n]  [ne]     .   sand      white orange (the Rainbow's choice);
    y=3   wht  .   [w]  water [e]      .   grass     right column: Land Tiles (the Meteor)
    y=2   org  .   [sw]  [s]  [se]     .   snow
    y=1   carn herb plant  .   .       .   .         bottom-left: the species
    y=0   cS   r1   r2   r3   Storm Rainbow cE       bottom edge: rotate 1, 2, 3; Storm, Rainbow

The inner 3x3 is the Sky Board's eight slots round the Water: each key shows the top tile
of the location under it (Water blue, Stone grey, Sand amber, Grass green, Snow white),
brighter the higher it stands, and every second it steps through the colours of the
Life-Forms standing there (carnivore, herbivore, plant), while the species key being shown
lights with it. Moves are entered in their notation's order: `sun plant water` is Sun,
plant, the centre key; `rainbow white herbivore d` is Rainbow, white, herbivore, the slot
over position d; `meteor sand h` is Meteor, sand, the slot over h; `rotate 2` is r2.
"""

from vora_host.games.base import BoardMapping, key_of
from vora_host.words import plural

__all__ = ["GaiaBoard", "SLOT_KEYS"]

# The eight slots, n first clockwise, on the inner 3x3, and the Water in its centre.
SLOT_KEYS = (key_of(3, 4), key_of(4, 4), key_of(4, 3), key_of(4, 2), key_of(3, 2),
             key_of(2, 2), key_of(2, 3), key_of(2, 4))
WATER_KEY = key_of(3, 3)
SKY_KEYS = {"sun": key_of(2, 6), "moon": key_of(3, 6), "meteor": key_of(4, 6),
            "storm": key_of(4, 0), "rainbow": key_of(5, 0)}
ROTATE_KEYS = {1: key_of(1, 0), 2: key_of(2, 0), 3: key_of(3, 0)}
SPECIES_KEYS = {"carnivore": key_of(0, 1), "herbivore": key_of(1, 1), "plant": key_of(2, 1)}
COLOUR_KEYS = {"yellow": key_of(0, 5), "green": key_of(0, 4), "white": key_of(0, 3),
               "orange": key_of(0, 2)}
TILE_KEYS = {"stone": key_of(6, 5), "sand": key_of(6, 4), "grass": key_of(6, 3),
             "snow": key_of(6, 2)}

TILE_RGB = {"water": (0, 60, 255), "stone": (110, 110, 120), "sand": (230, 150, 20),
            "grass": (0, 180, 40), "snow": (230, 230, 230)}
COLOUR_RGB = {"yellow": (255, 210, 0), "green": (60, 255, 60), "white": (255, 255, 255),
              "orange": (255, 90, 0)}
SKY_RGB = {"sun": (255, 200, 0), "moon": (60, 60, 80), "meteor": (255, 40, 0),
           "storm": (0, 200, 200), "rainbow": (200, 0, 255)}
DIM = 40
SHORT = {"rainbow": "rainbw", "carnivore": "carniv", "herbivore": "herbiv", "meteor": "meteor"}


def _scale(rgb, level):
    return tuple(c * level // 256 for c in rgb)


class GaiaBoard(BoardMapping):

    def word_text(self, state, before, word):
        """A choice in words for the PC screen: a rotation says its steps ('rotate  #1 2
        steps', the 2 a count of steps, not a move's number)."""
        if before == ["rotate"] and word.isdigit():
            return plural(int(word), "step")
        return word

    def _location_key(self, state, location):
        if location == "water":
            return WATER_KEY
        return SLOT_KEYS[state.slot_of(self.rules.POSITIONS.index(location))]

    def key_path(self, state, move):
        w = move.split(" ")
        if w[0] == "rotate":
            return (ROTATE_KEYS[int(w[1])],)
        if w[0] in ("sun", "storm"):
            return (SKY_KEYS[w[0]], SPECIES_KEYS[w[1]], self._location_key(state, w[2]))
        if w[0] == "rainbow":
            return (SKY_KEYS["rainbow"], COLOUR_KEYS[w[1]], SPECIES_KEYS[w[2]],
                    self._location_key(state, w[3]))
        if w[0] == "meteor":
            path = (SKY_KEYS["meteor"], TILE_KEYS[w[1]])
            return path + (self._location_key(state, w[2]),) if len(w) > 2 else path
        raise ValueError("no keys for %r" % move)

    def legend(self, state):
        return [(rgb, name) for name, rgb in TILE_RGB.items()] + [
            (rgb, name) for name, rgb in SKY_RGB.items()] + [
            (rgb, name) for name, rgb in COLOUR_RGB.items()]

    def key_marks(self, state, viewer, pressed=()):
        marks = {WATER_KEY: "water"}
        for name, k in SKY_KEYS.items():
            marks[k] = SHORT.get(name, name)
        for n, k in ROTATE_KEYS.items():
            marks[k] = "rot %d" % n
        for table in (SPECIES_KEYS, COLOUR_KEYS, TILE_KEYS):
            for name, k in table.items():
                marks[k] = SHORT.get(name, name)
        seen = self.rules.from_json(state.view(viewer))
        for i, slot in enumerate(seen.board()["slots"]):
            marks[SLOT_KEYS[i]] = "%s %s" % (slot["position"], slot["location"] == "water"
                                             and "~" or len(slot["stack"]))
        return marks

    def frame(self, state, viewer, now):
        seen = self.rules.from_json(state.view(viewer))  # nothing is hidden
        b = seen.board()
        out = [(0, 0, 0)] * 49
        phase = (now // 1000) % 4  # 0: the tile; 1..3: carnivore, herbivore, plant
        species = (None, "carnivore", "herbivore", "plant")[phase]
        places = [(SLOT_KEYS[i], s["stack"], s["life"], s["location"] == "water")
                  for i, s in enumerate(b["slots"])]
        places.append((WATER_KEY, [], b["water"], True))
        for k, stack, life, water in places:
            if water and k != WATER_KEY:
                # An uncovered position is the Water: it shows the Water's colour, dimly.
                out[k] = _scale(TILE_RGB["water"], 90)
                continue
            top = "water" if water or not stack else stack[-1]
            colour = life.get(species) if species else None
            if colour:
                out[k] = COLOUR_RGB[colour]
            else:
                out[k] = _scale(TILE_RGB[top], 100 + 39 * len(stack))
        if species:
            out[SPECIES_KEYS[species]] = (120, 120, 120)
        moves = seen.legal_moves()
        kinds = set(m.split(" ")[0] for m in moves)
        for sky, k in SKY_KEYS.items():
            out[k] = SKY_RGB[sky] if sky in kinds or sky == "moon" else _scale(SKY_RGB[sky], DIM)
        for n, k in ROTATE_KEYS.items():
            if "rotate %d" % n in moves:
                out[k] = (0, 120, 255) if n == 2 else (255, 255, 0)  # a Star for 1 and 3
        for colour, k in COLOUR_KEYS.items():
            out[k] = _scale(COLOUR_RGB[colour], 60)
        for tile, k in TILE_KEYS.items():
            if tile in ("grass", "snow") and not b["supply"][tile]:
                continue
            out[k] = _scale(TILE_RGB[tile], 60)
        return out
