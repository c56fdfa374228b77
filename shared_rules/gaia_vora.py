"""Gaia-Vora: the complete rules, pure and small enough for the board.

The rulebook is ../shared/rulebooks/gaia-vora.md (with its section of FACTS.md); every
choice it leaves open is listed in docs/rules-decisions.md and lives in these files as a
named option or constant. Moves, the JSON state and the view are documented in
docs/gaia-vora-notation.md.

Geometry (data, from FACTS.md; the tables in `gaia_vora_options` are the whole of it):
- The Planet Carousel has 8 positions round its edge, named a..h clockwise on the
  carousel itself (the names turn with it). A position covered by Land Tiles is a
  location of its own (a stack); the uncovered centre and every uncovered position are
  one location, the Water (index 8, name "water"), which touches everything.
- The Sky Board does not turn. Its 8 slots round the carousel are named like compass
  points, clockwise from the top: n ne e se s sw w nw. The Moon's flap sits at the top
  (n); the four corners hold, clockwise from the top-left, the Sun (nw), the Meteor
  (ne), the Rainbow (se) and the Storm (sw). Nothing hangs over e, s and w.
- `rot` counts the clockwise steps the carousel has turned (mod 8): position p lies under
  slot (p + rot) % 8. At the start position a lies under the Moon.
- "Touching" (the later rules update in FACTS.md): the tile under a Sky Object touches
  the positions next to it clockwise and counter-clockwise, and the Water; a position
  that is uncovered is the Water. The Water touches every location.

A turn is a small state machine, so that every choice is a move:
  ROTATE -> "rotate 1|2|3" (1 and 3 spend a Star); the Moon eats after every step
  SKY    -> the first step of one Sky Object: "sun ...", "rainbow ...", "storm ...",
            "meteor ..."; a Sky Object that could change nothing offers no move
  SUN / RAINBOW / STORM -> the next Life-Form placed or moved, until as many as possible
            have been (the rulebook's "take as many steps as you can")
then the Moon eats at the end of the turn and play passes clockwise. There is no chance
element at all: no dice, no shuffled cards, nothing hidden.

The rules are in several files, each importing only those below it (none imports this one):
- `gaia_vora` (this one): the game's interface: new_game(), GaiaVoraState with the methods
  every game has, its geometry, the renderers' accessors, legal moves and play(), the
  rotation and the end of a turn, determinize(), from_json();
- `gaia_vora_sky`: GaiaVoraState's mixin: what each Sky Object does (the Moon, the Sun,
  the Rainbow, the Storm, the Meteor) and how many steps the Sun, the Rainbow and the
  Storm can still take;
- `gaia_vora_check`: every field of a state read from outside, checked;
- `gaia_vora_options`, the lowest: the components and the geometry as data, the options,
  the phases, and the helpers all share.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove
from shared_rules.gaia_vora_check import read_fields
# The components, the geometry, the options and the phases: part of this module's
# interface too.
from shared_rules.gaia_vora_options import (  # noqa: F401
    CARNIVORE, COLOURS, DEFAULT_MAX_TURNS, DEFAULT_MOON_EATS, DEFAULT_OWN_KILLS,
    DEFAULT_STARS, END_REASONS, FIGURES, GRASS, HERBIVORE, LOCATIONS, METEOR_SLOT,
    MOON_EATS_CHOICES, MOON_SLOT, NEIGHBOURS, N_COLOURS, N_POSITIONS, OPTIONS,
    OWN_KILLS_CHOICES, PHASE_NAMES, PHASE_OVER, PHASE_RAINBOW, PHASE_ROTATE, PHASE_SKY,
    PHASE_STORM, PHASE_SUN, PLANT, PLAYER_COUNTS, POSITIONS, RAINBOW_SLOT, SAND,
    SETUP_TILES, SKY_OBJECTS, SLOTS, SNOW, SPECIES, STAR_COST, STONE, STORM_SLOT,
    SUN_LIFEFORMS, SUN_SLOT, TILES, TILE_COUNTS, WATER, _LOCATION_INDEX, _check_options)
from shared_rules.gaia_vora_sky import SkyObjects, _hall

NAME = "gaia-vora"
TITLE = "Gaia-Vora"
HIDDEN_INFORMATION = False  # everything is on the table, and nothing is left to chance
FORMAT_VERSION = const(1)

_PHASE_HINT = (
    "rotate the planet: 'rotate 1', 'rotate 2' or 'rotate 3'",
    "activate a Sky Object: 'sun ...', 'rainbow ...', 'storm ...' or 'meteor ...'",
    "place the Sun's next Life-Form: 'sun <species> <location>'",
    "place the Rainbow's next Life-Form: 'rainbow <colour> <species> <location>'",
    "move the next Life-Form out of the Storm: 'storm <species> <location>'",
    "stop: the game is over",
)


# ---------------------------------------------------------------- the state

class GaiaVoraState(SkyObjects):
    """One game of Gaia-Vora. Build it with new_game() or from_json(). What each Sky
    Object does is in its mixin, SkyObjects (`shared_rules.gaia_vora_sky`)."""

    # The PRNG state, where every game keeps it: Gaia-Vora draws nothing at random.
    rng = None

    def __init__(self):
        self.players = 2
        self.stars_dealt = DEFAULT_STARS
        self.max_turns = DEFAULT_MAX_TURNS
        self.moon_eats = DEFAULT_MOON_EATS
        self.own_kills = DEFAULT_OWN_KILLS
        self.rot = 0
        self.stacks = [[t] for t in SETUP_TILES]  # tiles of each position, bottom first
        self.home = 0xFF  # bit p: position p's bottom tile is the one set up there
        self.supply = [0, 0, TILE_COUNTS[GRASS], TILE_COUNTS[SNOW]]  # tiles off the planet
        self.life = [-1] * 27  # life[loc * 3 + species]: the colour standing there, or -1
        self.pools = []  # pools[colour * 3 + species]: figures in the Reincarnation Pool
        self.fossils = [0] * 48  # fossils[owner * 12 + colour * 3 + species]
        self.stars = []  # per player
        self.active = 0
        self.phase = PHASE_ROTATE
        self.used = 0  # Sun, Rainbow: locations that got a Life-Form this turn
        self.colours_used = 0  # Rainbow: colours placed this turn
        self.turn = 0  # turns completed
        self.end = ""

    # ---- the interface shared by every game

    def to_act(self):
        """The player (0-based) who chooses the next move, or None when the game is over."""
        return None if self.phase == PHASE_OVER else self.active

    def is_over(self):
        return self.phase == PHASE_OVER

    def colour_score(self, colour):
        """The score of a colour, a Bot's included: its fossils, and for each of its
        Life-Forms on the planet one point per Tile under it, the carousel included."""
        score = 0
        base = colour * 12
        for k in range(12):
            score += self.fossils[base + k]
        life = self.life
        for loc in range(9):
            alt = 1 if loc == WATER else len(self.stacks[loc]) + 1
            for s in range(3):
                if life[loc * 3 + s] == colour:
                    score += alt
        return score

    def on_planet(self, colour):
        """How many Life-Forms of a colour stand on the planet (the tie-break)."""
        return self.life.count(colour)

    def scores(self):
        """Each player's score (final once the game is over); Bots are not players."""
        return [self.colour_score(p) for p in range(self.players)]

    def ranking_key(self, player):
        """(score, Life-Forms on the planet): higher wins, in the rulebook's tie order."""
        return (self.colour_score(player), self.on_planet(player))

    def winner(self):
        """The winning player, or None while the game goes on or when it is a draw."""
        if self.phase != PHASE_OVER:
            return None
        keys = [self.ranking_key(p) for p in range(self.players)]
        best = max(keys)
        return keys.index(best) if keys.count(best) == 1 else None

    def options(self):
        """Every option spelled out, house defaults included."""
        return {"stars": self.stars_dealt, "max_turns": self.max_turns,
                "moon_eats": self.moon_eats, "own_kills": self.own_kills}

    def turn_count(self):
        """Turns completed, the last one included once the game is over."""
        return self.turn

    def end_reason(self):
        """"tiles" (the last Snow or Grass Tile is on the planet: the rulebook's end),
        "turns" (the house safeguard), or "" while the game goes on."""
        return self.end

    def view(self, player=None):
        """What `player` (None: a spectator) may know: everything. The game hides
        nothing and has no chance element, so the view is the whole state as a
        JSON-ready dict (the same for every viewer) and determinize() rebuilds it."""
        if player is not None and (not isinstance(player, int) or isinstance(player, bool)
                                   or not 0 <= player < self.players):
            raise BadPosition("a viewer is None or a player from 0 to %d, not %r"
                              % (self.players - 1, player))
        import json
        return json.loads(self.to_json())

    def legal_moves(self):
        """Every move the player to act may play now, as sorted notation strings."""
        phase = self.phase
        if phase == PHASE_ROTATE:
            if self.stars[self.active]:
                return ["rotate 1", "rotate 2", "rotate 3"]
            return ["rotate 2"]
        out = []
        if phase == PHASE_SKY:
            self._sun_moves(out)
            self._rainbow_moves(out)
            self._storm_moves(out)
            self._meteor_moves(out)
        elif phase == PHASE_SUN:
            self._sun_moves(out)
        elif phase == PHASE_RAINBOW:
            self._rainbow_moves(out)
        elif phase == PHASE_STORM:
            self._storm_moves(out)
        out.sort()
        return out

    def play(self, move):
        """Apply one move in notation; raise IllegalMove (state unchanged) if it cannot be played."""
        if self.phase == PHASE_OVER:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, str):
            raise IllegalMove(move, "a move is a notation string such as 'rotate 2'")
        words = move.split(" ")
        handler = _HANDLERS.get(words[0])
        if handler is None:
            raise IllegalMove(move, "unknown move word %r; moves start with one of: %s"
                              % (words[0], ", ".join(sorted(_HANDLERS))))
        phases, arities, method = handler
        if self.phase not in phases:
            raise IllegalMove(move, "now is the time to %s" % _PHASE_HINT[self.phase])
        if len(words) - 1 not in arities:
            raise IllegalMove(move, "%r takes %s argument%s separated by single spaces"
                              % (words[0], " or ".join(str(a) for a in arities),
                                 "" if arities == (1,) else "s"))
        # Each handler checks everything before it changes anything, so a refusal leaves
        # the state exactly as it was.
        method(self, move, words[1:])

    def clone(self):
        s = GaiaVoraState()
        s.players = self.players
        s.stars_dealt = self.stars_dealt
        s.max_turns = self.max_turns
        s.moon_eats = self.moon_eats
        s.own_kills = self.own_kills
        s.rot = self.rot
        s.stacks = [st[:] for st in self.stacks]
        s.home = self.home
        s.supply = self.supply[:]
        s.life = self.life[:]
        s.pools = self.pools[:]
        s.fossils = self.fossils[:]
        s.stars = self.stars[:]
        s.active = self.active
        s.phase = self.phase
        s.used = self.used
        s.colours_used = self.colours_used
        s.turn = self.turn
        s.end = self.end
        return s

    def to_json(self):
        """The whole state as canonical JSON text (fixed key order, no spaces), written
        by hand in one list of pieces: on the board it runs after every move."""
        p = ['{"game":"', NAME, '","format":', _num(FORMAT_VERSION), ',"players":',
             _num(self.players), ',"stars_dealt":', _num(self.stars_dealt),
             ',"max_turns":', _num(self.max_turns), ',"moon_eats":"', self.moon_eats,
             '","own_kills":"', self.own_kills, '","rot":', _num(self.rot), ',"stacks":[']
        for i, st in enumerate(self.stacks):
            if i:
                p.append(",")
            _ints(p, st)
        p += ['],"home":', _num(self.home), ',"supply":']
        _ints(p, self.supply)
        p.append(',"life":')
        _ints(p, self.life)
        p.append(',"pools":')
        _ints(p, self.pools)
        p.append(',"fossils":')
        _ints(p, self.fossils)
        p.append(',"stars":')
        _ints(p, self.stars)
        p += [',"active":', _num(self.active), ',"phase":', _num(self.phase), ',"used":',
              _num(self.used), ',"colours_used":', _num(self.colours_used), ',"turn":',
              _num(self.turn), ',"end":"', self.end, '"}']
        return "".join(p)

    def digest(self):
        """16 hex digits of SHA-256 over to_json(): equal on CPython and MicroPython."""
        import hashlib
        import binascii
        h = hashlib.sha256(self.to_json().encode()).digest()
        return binascii.hexlify(h[:8]).decode()

    def __eq__(self, other):
        return isinstance(other, GaiaVoraState) and self.to_json() == other.to_json()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.to_json())

    def __repr__(self):
        return "gaia_vora.from_json(%r)" % self.to_json()

    # ---- geometry

    def position_under(self, slot):
        """The carousel position (0..7) under a Sky Board slot (index 0..7 or name)."""
        if isinstance(slot, str):
            slot = SLOTS.index(slot)
        return (slot - self.rot) % N_POSITIONS

    def slot_of(self, position):
        """The Sky Board slot (0..7, see SLOTS) a carousel position lies under."""
        return (position + self.rot) % N_POSITIONS

    def sky_over(self, position):
        """The Sky Object over a position now ("moon", "sun", ... or "" for none)."""
        return SKY_OBJECTS[self.slot_of(position)]

    def location_of(self, position):
        """The location (0..8) of a position: itself when covered, else the Water (8)."""
        return position if self.stacks[position] else WATER

    def _moon_loc(self):
        return self.location_of((MOON_SLOT - self.rot) % N_POSITIONS)

    def _covered(self):
        # Mask of the locations on the planet: the Water and every covered position.
        m = 1 << WATER
        for p in range(N_POSITIONS):
            if self.stacks[p]:
                m |= 1 << p
        return m

    def touching(self, position):
        """Mask of the locations a Sun or Rainbow over `position` places on: the tile
        there, the positions next to it (the Water where uncovered) and the Water; over
        the Water, every location on the planet."""
        if not self.stacks[position]:
            return self._covered()
        a, b = NEIGHBOURS[position]
        return (1 << position) | (1 << self.location_of(a)) | (1 << self.location_of(b)) \
            | (1 << WATER)

    def storm_destinations(self, position):
        """Mask of the locations next to the tile at `position`, where a Storm over it
        moves Life-Forms: the positions beside it and the Water; out of the Water, every
        Land stack."""
        if not self.stacks[position]:
            return self._covered() & ~(1 << WATER)
        a, b = NEIGHBOURS[position]
        return ((1 << self.location_of(a)) | (1 << self.location_of(b)) | (1 << WATER)) \
            & ~(1 << position)

    def _frees(self):
        # Per location, the mask of species nobody stands as there.
        life = self.life
        out = []
        for loc in range(9):
            b = loc * 3
            out.append((life[b] < 0) | (life[b + 1] < 0) << 1 | (life[b + 2] < 0) << 2)
        return out

    # ---- accessors for renderers (terminal, the 7x7 board)

    def stack(self, position):
        """The Land Tiles at a position, bottom first, as names ([] when uncovered)."""
        return [TILES[t] for t in self.stacks[position]]

    def lifeforms(self, location):
        """{species: colour name} of the Life-Forms at a location (0..8 or its name)."""
        if isinstance(location, str):
            location = _LOCATION_INDEX[location]
        b = location * 3
        return {SPECIES[s]: COLOURS[self.life[b + s]] for s in range(3) if self.life[b + s] >= 0}

    def pool(self, colour):
        """{species: count} of a colour's Reincarnation Pool (colour 0..3)."""
        return {SPECIES[s]: self.pools[colour * 3 + s] for s in range(3)}

    def fossil_card(self, colour):
        """{eaten colour name: {species: count}} on a colour's Fossil Card, empty ones left out."""
        out = {}
        for c in range(N_COLOURS):
            row = {}
            for s in range(3):
                n = self.fossils[colour * 12 + c * 3 + s]
                if n:
                    row[SPECIES[s]] = n
            if row:
                out[COLOURS[c]] = row
        return out

    def board(self):
        """Everything a renderer draws, as a JSON-ready dict (see the notation page)."""
        slots = []
        for slot in range(N_POSITIONS):
            p = self.position_under(slot)
            loc = self.location_of(p)
            slots.append({"slot": SLOTS[slot], "sky": SKY_OBJECTS[slot],
                          "position": POSITIONS[p], "location": LOCATIONS[loc],
                          "stack": self.stack(p), "altitude": len(self.stacks[p]) + 1,
                          "life": self.lifeforms(loc) if loc != WATER else {}})
        return {
            "phase": PHASE_NAMES[self.phase], "to_act": self.to_act(), "turn": self.turn,
            "rotation": self.rot, "slots": slots, "water": self.lifeforms(WATER),
            "colours": [COLOURS[c] for c in range(self.players)],
            "bots": [COLOURS[c] for c in range(self.players, N_COLOURS)],
            "pools": {COLOURS[c]: self.pool(c) for c in range(N_COLOURS)},
            "fossils": {COLOURS[c]: self.fossil_card(c) for c in range(N_COLOURS)},
            "stars": self.stars[:],
            "supply": {"grass": self.supply[GRASS], "snow": self.supply[SNOW]},
            "placed_on": [LOCATIONS[i] for i in range(9) if self.used >> i & 1],
            "colours_placed": [COLOURS[c] for c in range(N_COLOURS) if self.colours_used >> c & 1],
            "scores": {COLOURS[c]: self.colour_score(c) for c in range(N_COLOURS)},
            "end": self.end,
        }

    # ---- rotating, ending the turn

    def _do_rotate(self, move, args):
        word = args[0]
        n = int(word) if word in ("1", "2", "3") else 0
        if not n:
            raise IllegalMove(move, "the planet turns 1, 2 or 3 steps, not %r" % word)
        cost = STAR_COST[n]
        if cost and not self.stars[self.active]:
            raise IllegalMove(move, "you have no Star left: stopping at 1 step or going 3 "
                              "costs a Star; 'rotate 2' is free")
        self.stars[self.active] -= cost
        for _ in range(n):
            self.rot = (self.rot + 1) % N_POSITIONS
            self._moon()  # the Moon eats after every step
        self.phase = PHASE_SKY
        if not self._any_sky():
            self._finish()  # house rule: no Sky Object can change anything; the turn ends

    def _any_sky(self):
        out = []
        self._meteor_moves(out)
        if not out:
            self._storm_moves(out)
        if not out:
            # The Sun and the Rainbow: with two steps or more they change the planet;
            # with one, it may be a placement eaten back at once (see _idle in gaia_vora_sky).
            lmask, cmask, frees, reach = self._rainbow_state()
            best = _hall(reach, cmask, lmask)
            if best > 1:
                return True
            if best:
                self._rainbow_moves(out)
                if out:
                    return True
            lmask, pool, budget = self._sun_state()
            best = self._sun_max(lmask, pool, budget, frees)
            if best > 1:
                return True
            if best:
                self._sun_moves(out)
            return len(out) > 0
        return True

    def _finish(self):
        # The end of a turn: the Moon eats, play passes clockwise, the game may end.
        self._moon()
        self.used = 0
        self.colours_used = 0
        self.turn += 1
        if not self.supply[GRASS] and not self.supply[SNOW]:
            self.phase = PHASE_OVER
            self.end = "tiles"
        elif self.turn >= self.max_turns:
            self.phase = PHASE_OVER
            self.end = "turns"
        else:
            self.active = (self.active + 1) % self.players
            self.phase = PHASE_ROTATE


_SKY = (PHASE_SKY,)
# move word -> (phases it is played in, numbers of arguments, handler); every handler
# but the rotation's is the mixin's (gaia_vora_sky)
_HANDLERS = {
    "rotate": ((PHASE_ROTATE,), (1,), GaiaVoraState._do_rotate),
    "sun": ((PHASE_SKY, PHASE_SUN), (2,), GaiaVoraState._do_sun),
    "rainbow": ((PHASE_SKY, PHASE_RAINBOW), (3,), GaiaVoraState._do_rainbow),
    "storm": ((PHASE_SKY, PHASE_STORM), (2,), GaiaVoraState._do_storm),
    "meteor": (_SKY, (1, 2), GaiaVoraState._do_meteor),
}


# ---------------------------------------------------------------- building states

_NUMBERS = tuple(str(i) for i in range(-1, 32))  # the common small numbers as text, once


def _num(n):
    return _NUMBERS[n + 1] if -1 <= n <= 30 else str(n)


def _ints(parts, values):
    # A list of ints as JSON, appended to `parts` piece by piece (no string per list).
    parts.append("[")
    for i, n in enumerate(values):
        if i:
            parts.append(",")
        parts.append(_num(n))
    parts.append("]")


def new_game(players=2, seed=0, stars=DEFAULT_STARS, max_turns=DEFAULT_MAX_TURNS,
             moon_eats=DEFAULT_MOON_EATS, own_kills=DEFAULT_OWN_KILLS):
    """A new game: Stone and Sand round the planet, every figure in its pool, player 0
    (yellow) to rotate first. Nothing is random: the seed is checked and changes nothing."""
    try:
        prng.check_seed(seed)
    except ValueError as exc:
        raise BadPosition(str(exc))
    _check_options(players, stars, max_turns, moon_eats, own_kills)
    s = GaiaVoraState()
    s.players = players
    s.stars_dealt = stars
    s.max_turns = max_turns
    s.moon_eats = moon_eats
    s.own_kills = own_kills
    s.pools = list(FIGURES) * N_COLOURS
    s.stars = [stars] * players
    return s


def determinize(view, seed):
    """The state `view` shows. Gaia-Vora hides nothing and draws nothing at random, so
    the seed (checked) changes nothing: this is from_json(view)."""
    try:
        prng.check_seed(seed)
    except ValueError as exc:
        raise BadPosition(str(exc))
    return from_json(view)


def from_json(text):
    """Rebuild a state from to_json() text (or that text already parsed into a dict),
    checking every field and that no figure or tile is created or lost."""
    if isinstance(text, dict):
        d = text
    else:
        import json
        try:
            d = json.loads(text)
        except (ValueError, TypeError) as exc:
            raise BadPosition("not JSON text: %s" % (exc,))
    if not isinstance(d, dict):
        raise BadPosition("a Gaia-Vora state is a JSON object")
    if d.get("game") != NAME or d.get("format") != FORMAT_VERSION:
        raise BadPosition("not a Gaia-Vora state of format %d (game=%r, format=%r)"
                          % (FORMAT_VERSION, d.get("game"), d.get("format")))
    s = GaiaVoraState()
    read_fields(s, d)  # every other field, checked (gaia_vora_check)
    return s
