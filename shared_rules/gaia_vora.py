"""Gaia-Vora: the complete rules, pure and small enough for the board.

The rulebook is ../shared/rulebooks/gaia-vora.md (with its section of FACTS.md); every
choice it leaves open is listed in docs/rules-decisions.md and lives here as a named
option or constant. Moves, the JSON state and the view are documented in
docs/gaia-vora-notation.md.

Geometry (data, from FACTS.md; the tables below are the whole of it):
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
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import prng
from shared_rules.errors import BadPosition, IllegalMove

NAME = "gaia-vora"
TITLE = "Gaia-Vora"
PLAYER_COUNTS = (2, 3, 4)
HIDDEN_INFORMATION = False  # everything is on the table, and nothing is left to chance
FORMAT_VERSION = const(1)

# ---------------------------------------------------------------- components (data)

# The four colours of the box (the fossil cards' art): player i plays COLOURS[i]; the
# colours nobody plays are the Bots.
COLOURS = ("yellow", "green", "white", "orange")
N_COLOURS = const(4)
SPECIES = ("carnivore", "herbivore", "plant")
CARNIVORE = const(0)
HERBIVORE = const(1)
PLANT = const(2)
FIGURES = (3, 4, 5)  # figures of each species per colour
SUN_LIFEFORMS = const(4)  # the Sun and the Rainbow add up to four Life-Forms

TILES = ("stone", "sand", "grass", "snow")
STONE = const(0)
SAND = const(1)
GRASS = const(2)
SNOW = const(3)
TILE_COUNTS = (4, 4, 4, 3)
# Setup: Stone and Sand alternate round the carousel, Stone on position a (house default:
# the rulebook only says "alternating"). Snow and Grass start off the planet.
SETUP_TILES = (STONE, SAND, STONE, SAND, STONE, SAND, STONE, SAND)

POSITIONS = "abcdefgh"  # clockwise on the carousel
N_POSITIONS = const(8)
WATER = const(8)
LOCATIONS = ("a", "b", "c", "d", "e", "f", "g", "h", "water")
_LOCATION_INDEX = {name: i for i, name in enumerate(LOCATIONS)}

# The Sky Board: its slots clockwise from the top, and what hangs over each.
SLOTS = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
SKY_OBJECTS = ("moon", "meteor", "", "rainbow", "", "storm", "", "sun")
MOON_SLOT = const(0)
METEOR_SLOT = const(1)
RAINBOW_SLOT = const(3)
STORM_SLOT = const(5)
SUN_SLOT = const(7)
# The positions next to each position on the carousel: (counter-clockwise, clockwise).
NEIGHBOURS = ((7, 1), (0, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7), (6, 0))

# Rotation: steps allowed and the Stars they cost ("You must spend a Star to stop at one
# step, or to rotate the Planet three steps").
STAR_COST = {1: 1, 2: 0, 3: 1}

# ---------------------------------------------------------------- options (house defaults)

# Stars per player, whatever the player count (FACTS.md: a 2-player game gives each
# player 4 in total, the Bots' Stars stay in the box: Bots never rotate).
DEFAULT_STARS = const(4)
# House safeguard: the game also ends after this many turns (nothing forces anybody to
# drop the last Snow or Grass Tile).
DEFAULT_MAX_TURNS = const(200)
# When the Moon eats the Life-Forms a Sky Object brings under it: "end" once the Sky
# Object is resolved (they arrive together, as in the rulebook's Storm example), "each"
# after every single Life-Form placed or moved.
MOON_EATS_CHOICES = ("end", "each")
DEFAULT_MOON_EATS = "end"
# Where your own Life-Forms killed by your own Meteor go: back to your pool ("a Fossil area
# is only for keeping one's opponents' Life-Forms") or onto your Fossil Card (the Meteor
# paragraph read literally).
OWN_KILLS_CHOICES = ("pool", "fossil")
DEFAULT_OWN_KILLS = "pool"

OPTIONS = (
    ("stars", DEFAULT_STARS, "int", "Stars each player starts with (Bots get none)"),
    ("max_turns", DEFAULT_MAX_TURNS, "int",
     "a safeguard: the game ends after this many turns (end reason 'turns')"),
    ("moon_eats", DEFAULT_MOON_EATS, MOON_EATS_CHOICES,
     "when the Moon eats what a Sky Object brings under it: at the end of the Sky "
     "Object, or after each Life-Form"),
    ("own_kills", DEFAULT_OWN_KILLS, OWN_KILLS_CHOICES,
     "where your own Life-Forms killed by your Meteor go: your pool or your Fossil Card"),
)

PHASE_ROTATE = const(0)
PHASE_SKY = const(1)
PHASE_SUN = const(2)
PHASE_RAINBOW = const(3)
PHASE_STORM = const(4)
PHASE_OVER = const(5)
PHASE_NAMES = ("rotate", "sky", "sun", "rainbow", "storm", "over")
END_REASONS = ("tiles", "turns")

_PHASE_HINT = (
    "rotate the planet: 'rotate 1', 'rotate 2' or 'rotate 3'",
    "activate a Sky Object: 'sun ...', 'rainbow ...', 'storm ...' or 'meteor ...'",
    "place the Sun's next Life-Form: 'sun <species> <location>'",
    "place the Rainbow's next Life-Form: 'rainbow <colour> <species> <location>'",
    "move the next Life-Form out of the Storm: 'storm <species> <location>'",
    "stop: the game is over",
)


def _popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


# Set bits of every 9-bit mask (the locations), looked up rather than counted.
_POP = bytes(_popcount(i) for i in range(512))


def _names(mask):
    return ", ".join(LOCATIONS[i] for i in range(9) if mask >> i & 1)


def _eaten(slots):
    """The three species slots (colours, -1 empty) of a location after the Moon's eating."""
    c, h, p = slots
    if h >= 0 and p >= 0:
        p = -1
    if c >= 0 and h >= 0:
        h = -1
    return [c, h, p]


def _sun_match(frees, lmask, pool, budget):
    # The most Life-Forms of one colour (pool: counts per species) that can go one per
    # location of `lmask`, each on a location free of its species: a b-matching, whose
    # size is the smallest cut min over species sets A of (figures of species outside A
    # + locations that can take a species of A) (Konig), and at most `budget`.
    best = budget
    for a in range(8):
        cut = 0
        for s in range(3):
            if not a >> s & 1:
                cut += pool[s]
        if cut >= best:
            continue
        for loc in range(9):
            if lmask >> loc & 1 and frees[loc] & a:
                cut += 1
        if cut < best:
            best = cut
    return best


def _reaches(nb):
    # For every set T of colours (a 4-bit mask), the locations some colour of T can reach.
    reach = [0] * 16
    for t in range(1, 16):
        low = t & -t
        reach[t] = reach[t ^ low] | nb[_POP[low - 1]]
    return reach


def _hall(reach, cmask, lmask):
    # The most colours of `cmask` that can go to distinct locations of `lmask`, each
    # colour c only to the locations it reaches (reach[1 << c]): a bipartite matching,
    # whose size is the smallest |cmask| - |T| + |N(T)| over the subsets T of cmask
    # (Konig).
    pop = _POP
    n = pop[cmask]
    best = n
    t = cmask
    while t:
        v = n - pop[t] + pop[reach[t] & lmask]
        if v < best:
            best = v
        t = (t - 1) & cmask
    return best


def _storm_best(pieces, mslots, nonm):
    # The most moves left to a Storm whose remaining Life-Forms are `pieces` (colour per
    # species, -1 none), when the Moon eats after each move: a piece moves to a location
    # that is not the Moon's (bit s of `nonm`: one is free of its species; those never
    # change, they only take other species) or to the Moon's location (mslots, None when
    # it is not a destination), where the Moon eats at once.
    best = 0
    for s in range(3):
        col = pieces[s]
        if col < 0:
            continue
        rest = pieces[:]
        rest[s] = -1
        if nonm >> s & 1:
            v = 1 + _storm_best(rest, mslots, nonm)
            if v > best:
                best = v
        if mslots is not None and mslots[s] < 0:
            m2 = mslots[:]
            m2[s] = col
            v = 1 + _storm_best(rest, _eaten(m2), nonm)
            if v > best:
                best = v
    return best


# ---------------------------------------------------------------- the state

class GaiaVoraState:
    """One game of Gaia-Vora. Build it with new_game() or from_json()."""

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

    # ---- the Moon, the Meteor's victims

    def _award(self, colour, species, to):
        # An eaten Life-Form goes to the Fossil Card of the colour that ate it, or back to
        # its own pool when its own colour ate it.
        if colour == to:
            self.pools[colour * 3 + species] += 1
        else:
            self.fossils[to * 12 + colour * 3 + species] += 1

    def _eat(self, loc):
        # "The player who owns the HerbiVore (if any) awards its player with ownership of
        # the Plant (if any). Then the player who owns the CarniVore (if any) awards its
        # player with ownership of the HerbiVore (if any)."
        life = self.life
        b = loc * 3
        h = life[b + 1]
        if h >= 0 and life[b + 2] >= 0:
            self._award(life[b + 2], PLANT, h)
            life[b + 2] = -1
        c = life[b]
        h = life[b + 1]
        if c >= 0 and h >= 0:
            self._award(h, HERBIVORE, c)
            life[b + 1] = -1

    def _moon(self):
        self._eat(self._moon_loc())

    def _kill(self, colour, species):
        a = self.active
        if colour == a and self.own_kills == "pool":
            self.pools[a * 3 + species] += 1
        else:
            self.fossils[a * 12 + colour * 3 + species] += 1

    # ---- the Sun

    def _sun_max(self, lmask, pool, budget, frees):
        # The most Life-Forms the Sun can still place. When the Moon eats after each one,
        # a Life-Form placed under the Moon first may send your own figures back to your
        # pool; placing it first is never worse, so that is the order counted here.
        if budget <= 0:
            return 0
        m = self._moon_loc()
        if self.moon_eats != "each" or not lmask >> m & 1:
            return _sun_match(frees, lmask, pool, budget)
        rest = lmask & ~(1 << m)
        best = _sun_match(frees, rest, pool, budget)
        for s in range(3):
            if frees[m] >> s & 1 and pool[s]:
                v = 1 + _sun_match(frees, rest, self._pool_after(m, s, pool), budget - 1)
                if v > best:
                    best = v
        return best

    def _pool_after(self, loc, s, pool):
        # The active player's pool after placing species s at loc, the Moon eating there
        # at once when loc is under it (moon_eats "each").
        me = self.active
        out = pool[:]
        out[s] -= 1
        if self.moon_eats == "each" and loc == self._moon_loc():
            b = loc * 3
            c, h, p = self.life[b], self.life[b + 1], self.life[b + 2]
            if s == CARNIVORE:
                c = me
            elif s == HERBIVORE:
                h = me
            else:
                p = me
            if h >= 0 and p >= 0:
                if h == p == me:
                    out[PLANT] += 1
                p = -1
            if c >= 0 and h >= 0 and c == h == me:
                out[HERBIVORE] += 1
        return out

    def _sun_state(self):
        me = self.active
        lmask = self.touching(self.position_under(SUN_SLOT)) & ~self.used
        return lmask, self.pools[me * 3:me * 3 + 3], SUN_LIFEFORMS - _POP[self.used]

    def _sun_moves(self, out):
        lmask, pool, budget = self._sun_state()
        if not (pool[0] or pool[1] or pool[2]):
            return
        frees = self._frees()
        best = self._sun_max(lmask, pool, budget, frees)
        if not best:
            return
        me = self.active
        for loc in range(9):
            if lmask >> loc & 1:
                for s in range(3):
                    if frees[loc] >> s & 1 and pool[s] and self._sun_max(
                            lmask & ~(1 << loc), self._pool_after(loc, s, pool),
                            budget - 1, frees) == best - 1 \
                            and not (best == 1 and self._idle(loc, s, me)):
                        out.append("sun %s %s" % (SPECIES[s], LOCATIONS[loc]))

    def _do_sun(self, move, args):
        s = _arg_species(move, args[0])
        loc = self._arg_location(move, args[1])
        lmask, pool, budget = self._sun_state()
        frees = self._frees()
        self._check_place(move, "Sun", loc, s, lmask, frees)
        if not pool[s]:
            raise IllegalMove(move, "your Reincarnation Pool has no %s" % SPECIES[s])
        best = self._sun_max(lmask, pool, budget, frees)
        after = self._sun_max(lmask & ~(1 << loc), self._pool_after(loc, s, pool),
                              budget - 1, frees)
        if after != best - 1:
            raise IllegalMove(move, _MOST % (best, "placed", best - 1 - after))
        me = self.active
        if best == 1 and self._idle(loc, s, me):
            raise IllegalMove(move, _IDLE % ("Sun", LOCATIONS[loc]))
        self.pools[me * 3 + s] -= 1
        self._arrive(loc, s, me)
        self.used |= 1 << loc
        self.phase = PHASE_SUN
        lmask, pool, budget = self._sun_state()
        if not self._sun_max(lmask, pool, budget, self._frees()):
            self._finish()

    def _check_place(self, move, what, loc, s, lmask, frees):
        if not lmask >> loc & 1:
            if self.used >> loc & 1:
                raise IllegalMove(move, "the %s has already placed a Life-Form on %s"
                                  % (what, LOCATIONS[loc]))
            raise IllegalMove(move, "%s does not touch the tile under the %s (it places on %s)"
                              % (LOCATIONS[loc], what, _names(lmask)))
        if not frees[loc] >> s & 1:
            raise IllegalMove(move, "%s already has a %s: each tile may only have one of "
                              "each species" % (LOCATIONS[loc], SPECIES[s]))

    def _idle(self, loc, s, colour):
        # "You are not allowed to select a Sky Object whose activation would cause nothing
        # to change." Only a Sun or a Rainbow whose whole activation is this one
        # placement can: a Life-Form placed under the Moon and eaten back into its own
        # pool there, leaving the planet, the pools and the Fossil Cards as they were
        # (every other placement stays on the planet until the turn ends). The caller
        # checks that this is the activation's only step.
        if self.phase != PHASE_SKY or loc != self._moon_loc():
            return False
        t = self.clone()
        t.pools[colour * 3 + s] -= 1
        t.life[loc * 3 + s] = colour
        t._eat(loc)
        return t.life == self.life and t.pools == self.pools and t.fossils == self.fossils

    def _arrive(self, loc, s, colour):
        # A Life-Form placed or moved onto a location; the Moon eats at once there when
        # it eats after each Life-Form.
        self.life[loc * 3 + s] = colour
        if self.moon_eats == "each" and loc == self._moon_loc():
            self._eat(loc)

    # ---- the Rainbow

    def _rainbow_state(self):
        lmask = self.touching(self.position_under(RAINBOW_SLOT)) & ~self.used
        cmask = (1 << N_COLOURS) - 1 & ~self.colours_used
        frees = self._frees()
        nb = [0] * N_COLOURS
        for c in range(N_COLOURS):
            if cmask >> c & 1:
                b = c * 3
                has = (self.pools[b] > 0) | (self.pools[b + 1] > 0) << 1 \
                    | (self.pools[b + 2] > 0) << 2
                m = 0
                for loc in range(9):
                    if lmask >> loc & 1 and frees[loc] & has:
                        m |= 1 << loc
                nb[c] = m
        return lmask, cmask, frees, _reaches(nb)

    def _rainbow_moves(self, out):
        # Each colour goes to one location and each location gets one colour, so the
        # species never bind two placements together: what matters is which colour goes
        # where. The Moon's eating only ever sends figures back to the colour just
        # placed, which the Rainbow cannot use again: the order never matters.
        lmask, cmask, frees, reach = self._rainbow_state()
        best = _hall(reach, cmask, lmask)
        if not best:
            return
        for c in range(N_COLOURS):
            rest = cmask & ~(1 << c)
            for loc in range(9):
                if reach[1 << c] >> loc & 1 and _hall(reach, rest,
                                                      lmask & ~(1 << loc)) == best - 1:
                    for s in range(3):
                        if frees[loc] >> s & 1 and self.pools[c * 3 + s] \
                                and not (best == 1 and self._idle(loc, s, c)):
                            out.append("rainbow %s %s %s" % (COLOURS[c], SPECIES[s],
                                                             LOCATIONS[loc]))

    def _do_rainbow(self, move, args):
        c = _arg_colour(move, args[0])
        s = _arg_species(move, args[1])
        loc = self._arg_location(move, args[2])
        lmask, cmask, frees, reach = self._rainbow_state()
        self._check_place(move, "Rainbow", loc, s, lmask, frees)
        if not cmask >> c & 1:
            raise IllegalMove(move, "the Rainbow has already placed a %s Life-Form: its "
                              "Life-Forms must all be in different colours" % COLOURS[c])
        if not self.pools[c * 3 + s]:
            raise IllegalMove(move, "the %s Reincarnation Pool has no %s"
                              % (COLOURS[c], SPECIES[s]))
        best = _hall(reach, cmask, lmask)
        after = _hall(reach, cmask & ~(1 << c), lmask & ~(1 << loc))
        if after != best - 1:
            raise IllegalMove(move, _MOST % (best, "placed", best - 1 - after))
        if best == 1 and self._idle(loc, s, c):
            raise IllegalMove(move, _IDLE % ("Rainbow", LOCATIONS[loc]))
        self.pools[c * 3 + s] -= 1
        self._arrive(loc, s, c)
        self.used |= 1 << loc
        self.colours_used |= 1 << c
        self.phase = PHASE_RAINBOW
        lmask, cmask, frees, reach = self._rainbow_state()
        if not _hall(reach, cmask, lmask):
            self._finish()

    # ---- the Storm

    def _storm_state(self):
        p = self.position_under(STORM_SLOT)
        return self.location_of(p), self.storm_destinations(p), self._frees()

    def _storm_max(self, src, dests, frees):
        # The most Life-Forms the Storm can still move out of `src`.
        b = src * 3
        pieces = self.life[b:b + 3]
        nonm = 0
        m = self._moon_loc()
        each = self.moon_eats == "each" and dests >> m & 1
        for s in range(3):
            for loc in range(9):
                if dests >> loc & 1 and frees[loc] >> s & 1 and not (each and loc == m):
                    nonm |= 1 << s
        if not each:
            # Nothing eats before the Storm is over: every piece that has a free location
            # moves, whatever the others do (they are other species).
            n = 0
            for s in range(3):
                if pieces[s] >= 0 and (nonm >> s & 1):
                    n += 1
            return n
        return _storm_best(pieces, self.life[m * 3:m * 3 + 3], nonm)

    def _storm_after(self, src, dests, frees, s, loc):
        # The most moves left after moving species s out of src onto loc.
        t = self.clone()
        t.life[src * 3 + s] = -1
        t._arrive(loc, s, self.life[src * 3 + s])
        return t._storm_max(src, dests, t._frees())

    def _storm_moves(self, out):
        src, dests, frees = self._storm_state()
        b = src * 3
        pieces = self.life[b:b + 3]
        if pieces[0] < 0 and pieces[1] < 0 and pieces[2] < 0:
            return
        check = self.moon_eats == "each" and dests >> self._moon_loc() & 1
        best = self._storm_max(src, dests, frees) if check else 0
        for s in range(3):
            if pieces[s] >= 0:
                for loc in range(9):
                    if dests >> loc & 1 and frees[loc] >> s & 1 and (
                            not check or self._storm_after(src, dests, frees, s, loc) == best - 1):
                        out.append("storm %s %s" % (SPECIES[s], LOCATIONS[loc]))

    def _do_storm(self, move, args):
        s = _arg_species(move, args[0])
        loc = self._arg_location(move, args[1])
        src, dests, frees = self._storm_state()
        colour = self.life[src * 3 + s]
        if colour < 0:
            raise IllegalMove(move, "no %s stands on %s, the tile under the Storm"
                              % (SPECIES[s], LOCATIONS[src]))
        if not dests >> loc & 1:
            raise IllegalMove(move, "%s is not next to %s, the tile under the Storm (next to "
                              "it: %s)" % (LOCATIONS[loc], LOCATIONS[src], _names(dests)))
        if not frees[loc] >> s & 1:
            raise IllegalMove(move, "%s already has a %s: a Life-Form may not move onto a "
                              "tile which already has its species" % (LOCATIONS[loc], SPECIES[s]))
        best = self._storm_max(src, dests, frees)
        after = self._storm_after(src, dests, frees, s, loc)
        if after != best - 1:
            raise IllegalMove(move, _MOST % (best, "moved", best - 1 - after))
        self.life[src * 3 + s] = -1
        self._arrive(loc, s, colour)
        self.phase = PHASE_STORM
        if not self._storm_max(src, dests, self._frees()):
            self._finish()

    # ---- the Meteor

    def _meteor_moves(self, out):
        q = self.position_under(METEOR_SLOT)
        target = self.stacks[q]
        for t in (GRASS, SNOW):
            if self.supply[t] and t not in target:
                out.append("meteor " + TILES[t])
        for k in range(N_POSITIONS):
            st = self.stacks[k]
            if k != q and self.home >> k & 1 and len(st) == 1 and st[0] not in target:
                out.append("meteor %s %s" % (TILES[st[0]], POSITIONS[k]))

    def _do_meteor(self, move, args):
        word = args[0]
        if word not in TILES:
            raise IllegalMove(move, "%r is not a Land Tile (%s)" % (word, ", ".join(TILES)))
        t = TILES.index(word)
        q = self.position_under(METEOR_SLOT)
        target = self.stacks[q]
        k = -1
        if t in (GRASS, SNOW):
            if len(args) != 1:
                raise IllegalMove(move, "a %s Tile comes from off the board: 'meteor %s'"
                                  % (word, word))
            if not self.supply[t]:
                raise IllegalMove(move, "every %s Tile is already on the planet" % word)
        else:
            if len(args) != 2:
                raise IllegalMove(move, "name the position the %s Tile comes from: "
                                  "'meteor %s <position>'" % (word, word))
            k = POSITIONS.find(args[1]) if len(args[1]) == 1 else -1
            if k < 0:
                raise IllegalMove(move, "%r is not a position (a to h)" % args[1])
            st = self.stacks[k]
            if k == q:
                raise IllegalMove(move, "position %s is under the Meteor itself" % args[1])
            if not (self.home >> k & 1) or len(st) != 1:
                raise IllegalMove(move, "the Meteor only moves a single Sand or Stone Tile "
                                  "from its starting location, and position %s holds %s"
                                  % (args[1], "+".join(TILES[x] for x in st) or "no tile"))
            if st[0] != t:
                raise IllegalMove(move, "the tile at position %s is %s, not %s"
                                  % (args[1], TILES[st[0]], word))
        if t in target:
            raise IllegalMove(move, "the stack under the Meteor (%s) already has a %s Tile: "
                              "no stack may hold two alike" % (POSITIONS[q], word))
        self._drop(t, k)
        self._finish()

    def _drop(self, t, k):
        # The tile lands on the location under the Meteor: the Life-Forms on a stack there
        # are killed; those in the Water swim to the centre and live. A tile moved from
        # position k carries its riders; position k becomes Water.
        q = self.position_under(METEOR_SLOT)
        life = self.life
        b = q * 3
        if self.stacks[q]:
            for s in range(3):
                if life[b + s] >= 0:
                    self._kill(life[b + s], s)
                    life[b + s] = -1
        self.stacks[q].append(t)
        if k < 0:
            self.supply[t] -= 1
        else:
            self.stacks[k] = []
            self.home &= ~(1 << k)
            for s in range(3):
                life[b + s] = life[k * 3 + s]
                life[k * 3 + s] = -1

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
            # with one, it may be a placement eaten back at once (see _idle).
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

    def _arg_location(self, move, word):
        loc = _LOCATION_INDEX.get(word, -1)
        if loc < 0:
            raise IllegalMove(move, "%r is not a location (a position a to h, or water)" % word)
        if loc != WATER and not self.stacks[loc]:
            raise IllegalMove(move, "position %s is uncovered: it is part of the Water "
                              "('water')" % word)
        return loc


_IDLE = ("the %s would change nothing: its one Life-Form on %s, under the Moon, is eaten "
         "back into its own pool, and a Sky Object whose activation would cause nothing to "
         "change may not be selected")
_MOST = ("you must take as many steps as you can (%d Life-Forms %s in all); "
         "this move would leave %d of them undone")


def _arg_species(move, word):
    if word not in SPECIES:
        raise IllegalMove(move, "%r is not a species (%s)" % (word, ", ".join(SPECIES)))
    return SPECIES.index(word)


def _arg_colour(move, word):
    if word not in COLOURS:
        raise IllegalMove(move, "%r is not a colour (%s)" % (word, ", ".join(COLOURS)))
    return COLOURS.index(word)


_SKY = (PHASE_SKY,)
# move word -> (phases it is played in, numbers of arguments, handler)
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


def _check_options(players, stars, max_turns, moon_eats, own_kills):
    if isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise BadPosition("Gaia-Vora is played by 2, 3 or 4 players, not %r" % (players,))
    if not isinstance(stars, int) or isinstance(stars, bool) or not 0 <= stars <= 16:
        raise BadPosition("stars must be a whole number from 0 to 16, not %r" % (stars,))
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) \
            or not 1 <= max_turns <= 100000:
        raise BadPosition("max_turns must be a whole number from 1 to 100000, not %r"
                          % (max_turns,))
    if moon_eats not in MOON_EATS_CHOICES:
        raise BadPosition("moon_eats must be one of %s, not %r"
                          % (", ".join(MOON_EATS_CHOICES), moon_eats))
    if own_kills not in OWN_KILLS_CHOICES:
        raise BadPosition("own_kills must be one of %s, not %r"
                          % (", ".join(OWN_KILLS_CHOICES), own_kills))


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

    def field(key, kind):
        if key not in d:
            raise BadPosition("field %r is missing" % key)
        v = d[key]
        if not isinstance(v, kind) or isinstance(v, bool):
            raise BadPosition("field %r has the wrong type: %r" % (key, v))
        return v

    def ints(key, n, lo, hi, v=None):
        if v is None:
            v = field(key, list)
        if not isinstance(v, list) or len(v) != n or any(
                not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi for x in v):
            raise BadPosition("field %r must be %d integers from %d to %d" % (key, n, lo, hi))
        return v[:]  # a copy: the state must not share lists with the dict it came from

    s = GaiaVoraState()
    s.players = field("players", int)
    s.stars_dealt = field("stars_dealt", int)
    s.max_turns = field("max_turns", int)
    s.moon_eats = field("moon_eats", str)
    s.own_kills = field("own_kills", str)
    _check_options(s.players, s.stars_dealt, s.max_turns, s.moon_eats, s.own_kills)
    s.rot = field("rot", int)
    if not 0 <= s.rot < N_POSITIONS:
        raise BadPosition("field 'rot' must be 0 to 7")
    stacks = field("stacks", list)
    if len(stacks) != N_POSITIONS:
        raise BadPosition("field 'stacks' must hold 8 stacks, positions a to h")
    tiles = [0] * 4
    s.stacks = []
    for p in range(N_POSITIONS):
        st = stacks[p]
        if not isinstance(st, list) or len(st) > 4:
            raise BadPosition("stack %s must be a list of at most 4 tiles" % POSITIONS[p])
        ints("stacks[%d]" % p, len(st), 0, 3, st)
        for t in st:
            if st.count(t) > 1:
                raise BadPosition("stack %s holds two %s Tiles" % (POSITIONS[p], TILES[t]))
            tiles[t] += 1
        s.stacks.append(st[:])
    s.home = field("home", int)
    if not 0 <= s.home <= 0xFF:
        raise BadPosition("field 'home' must be an 8-bit mask")
    for p in range(N_POSITIONS):
        if s.home >> p & 1 and (not s.stacks[p] or s.stacks[p][0] != SETUP_TILES[p]):
            raise BadPosition("field 'home' says position %s still has its %s Tile at the "
                              "bottom, and it has not" % (POSITIONS[p], TILES[SETUP_TILES[p]]))
    s.supply = ints("supply", 4, 0, 4)
    for t in range(4):
        if tiles[t] + s.supply[t] != TILE_COUNTS[t] or (t < GRASS and s.supply[t]):
            raise BadPosition("the %s Tiles do not add up: %d on the planet, %d off it, "
                              "the box has %d" % (TILES[t], tiles[t], s.supply[t], TILE_COUNTS[t]))
    s.life = ints("life", 27, -1, N_COLOURS - 1)
    for p in range(N_POSITIONS):
        if not s.stacks[p] and max(s.life[p * 3:p * 3 + 3]) >= 0:
            raise BadPosition("position %s is uncovered (Water) but holds Life-Forms"
                              % POSITIONS[p])
    s.pools = ints("pools", 12, 0, 5)
    s.fossils = ints("fossils", 48, 0, 5)
    for c in range(N_COLOURS):
        for sp in range(3):
            n = s.pools[c * 3 + sp]
            for loc in range(9):
                if s.life[loc * 3 + sp] == c:
                    n += 1
            for owner in range(N_COLOURS):
                n += s.fossils[owner * 12 + c * 3 + sp]
            if n != FIGURES[sp]:
                raise BadPosition("%s %ss do not add up: %d in all, the box has %d"
                                  % (COLOURS[c], SPECIES[sp], n, FIGURES[sp]))
        if s.own_kills == "pool" and max(s.fossils[c * 12 + c * 3:c * 12 + c * 3 + 3]):
            raise BadPosition("the %s Fossil Card holds %s Life-Forms: with own_kills 'pool' "
                              "a Fossil Card only keeps opponents'" % (COLOURS[c], COLOURS[c]))
    s.stars = ints("stars", s.players, 0, s.stars_dealt)
    s.active = field("active", int)
    if not 0 <= s.active < s.players:
        raise BadPosition("field 'active' must be a player from 0 to %d" % (s.players - 1))
    s.phase = field("phase", int)
    if not PHASE_ROTATE <= s.phase <= PHASE_OVER:
        raise BadPosition("field 'phase' must be 0 to 5")
    s.used = field("used", int)
    s.colours_used = field("colours_used", int)
    s.turn = field("turn", int)
    s.end = field("end", str)
    if not 0 <= s.used < 1 << 9 or not 0 <= s.colours_used < 1 << N_COLOURS \
            or not 0 <= s.turn <= s.max_turns or s.end not in ("",) + END_REASONS:
        raise BadPosition("fields 'used', 'colours_used', 'turn' or 'end' are out of range")
    if (s.phase == PHASE_OVER) != (s.end != ""):
        raise BadPosition("field 'end' must name why the game ended exactly when it is over")
    used = _POP[s.used]
    if s.phase == PHASE_SUN:
        ok = 0 < used < SUN_LIFEFORMS and not s.colours_used
    elif s.phase == PHASE_RAINBOW:
        ok = 0 < used < N_COLOURS and _POP[s.colours_used] == used
    else:
        ok = not s.used and not s.colours_used
    if not ok:
        raise BadPosition("fields 'used' and 'colours_used' do not fit phase %s"
                          % PHASE_NAMES[s.phase])
    if s.phase != PHASE_OVER:
        if s.turn >= s.max_turns or not (s.supply[GRASS] or s.supply[SNOW]):
            raise BadPosition("this game should be over (turn %d, %d Snow and Grass Tiles "
                              "off the planet)" % (s.turn, s.supply[GRASS] + s.supply[SNOW]))
        if s.phase in (PHASE_ROTATE, PHASE_SKY):
            m = s._moon_loc()
            if _eaten(s.life[m * 3:m * 3 + 3]) != s.life[m * 3:m * 3 + 3]:
                raise BadPosition("the Life-Forms under the Moon (%s) have not eaten"
                                  % LOCATIONS[m])
        if s.phase != PHASE_ROTATE and not s.legal_moves():
            raise BadPosition("phase %s with no move to make" % PHASE_NAMES[s.phase])
    return s
