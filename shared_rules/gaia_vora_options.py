"""Gaia-Vora: the components, the options, and what every part of its rules shares.

The lowest of the game's files (the model is in `shared_rules.gaia_vora`, the game's
module, which makes these names part of its interface too): the box's components and the
geometry of the carousel and the Sky Board as data, the options with their house
defaults and the check of their values, the phases of a turn, and small helpers on the
9-bit masks of locations and on the Moon's eating. It imports none of the game's other
files, which all take their shared names from here.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules.errors import BadPosition

PLAYER_COUNTS = (2, 3, 4)

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

# The phases of a turn (the state machine in `shared_rules.gaia_vora`).
PHASE_ROTATE = const(0)
PHASE_SKY = const(1)
PHASE_SUN = const(2)
PHASE_RAINBOW = const(3)
PHASE_STORM = const(4)
PHASE_OVER = const(5)
PHASE_NAMES = ("rotate", "sky", "sun", "rainbow", "storm", "over")
END_REASONS = ("tiles", "turns")


# ---------------------------------------------------------------- helpers every part shares

def _popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


# Set bits of every 9-bit mask (the locations), looked up rather than counted.
_POP = bytes(_popcount(i) for i in range(512))


def _eaten(slots):
    """The three species slots (colours, -1 empty) of a location after the Moon's eating."""
    c, h, p = slots
    if h >= 0 and p >= 0:
        p = -1
    if c >= 0 and h >= 0:
        h = -1
    return [c, h, p]


def _check_options(players, stars, max_turns, moon_eats, own_kills):
    # The options of a new game and of a state read from outside (new_game, from_json).
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
