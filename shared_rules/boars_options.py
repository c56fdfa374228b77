"""Boars on the Run!: the options, and the numbers and helpers every part of its rules shares.

The lowest of the game's files (the model is in `shared_rules.boars`, the game's module):
the cube colours and their letters, the rulebook's numbers, the tickets, the house
defaults and the options, the phases of a turn, the kinds of spaces and cards with the
fields a card file gives each kind, and small helpers on cube counts written as letters.
It imports none of the game's other files, which all take their shared names from here.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

TITLE = "Boars on the Run!"
PLAYER_COUNTS = (2, 3, 4)

# Cube colours in the rulebook's order; one lower-case letter each in moves.
COLOURS = ("red", "blue", "yellow", "green", "black")
LETTERS = "rbygk"
RED = const(0)
BLUE = const(1)
YELLOW = const(2)
GREEN = const(3)
BLACK = const(4)
N_FOOD = const(4)  # the food colours are 0..3; black is spoiled food

# Rulebook numbers.
TRACK_SPACES = const(96)  # "There are 96 spaces on the board": Start is 0, Finish is 95
START = const(0)
FINISH = const(95)
PER_COLOUR_IN_BAG = const(5)  # "25 food cubes (5 of each color ...)"
SICK_AT = const(3)  # "3 or more black cubes": sick
HAND_LIMIT = const(5)  # "up to five cards in total, including your Boar card"
BUMP = const(2)  # "move your opponent's boar two spaces back"
DISPLAY_SLOTS = const(4)
PREDATOR_ANY = const(3)  # "Discard 3 cubes of any colors (not black)"
FOOD_SAME = const(3)  # "Take 3 cubes of that corresponding color"
# (name in moves, cube colour, exact number drawn, the rulebook's name)
TICKETS = (
    ("cab", RED, 3, "Prickly Cab"),
    ("ferry", YELLOW, 4, "Beaver Ferry"),
    ("metro", BLUE, 5, "Metro Mole"),
    ("squirrel", GREEN, 6, "Air Squirrel"),
)

# House defaults (docs/rules-decisions.md, "Boars on the Run!").
DEFAULT_TRACK = "house-1"
DEFAULT_CARDS = "house-1"
DEFAULT_CUBES = const(30)  # food cubes of each colour in the game, bags included
DEFAULT_MAX_TURNS = const(300)  # safeguard: the game ends after this many turns
# "draw any number of cubes": 0 included. 1 is the old house reading (drawing nothing
# refused, so that Non-diets and Midnight Feasts are never free), kept as an option.
DEFAULT_MIN_DRAW = const(0)
MAX_TEXT = const(65536)  # a user's data file longer than this is refused
MAX_CUBES = const(999)

OPTIONS = (
    ("track", DEFAULT_TRACK, "str",
     "the track: a built-in data set's name (house-1) or the full text of a track file"),
    ("cards", DEFAULT_CARDS, "str",
     "the cards: a built-in data set's name (house-1) or the full text of a card file"),
    ("cubes", DEFAULT_CUBES, "int",
     "food cubes of each colour in the game, the 5 per bag included (the limited supply)"),
    ("max_turns", DEFAULT_MAX_TURNS, "int",
     "a safeguard: the game ends after this many turns (end reason 'turns')"),
    ("min_draw", DEFAULT_MIN_DRAW, "int",
     "the fewest cubes a player may draw: 0 (the rulebook's 'any number') or 1 (drawing "
     "nothing refused)"),
)

# Phases (the kind of decision the player to act makes).
PH_DRAW = const(0)
PH_VENDETTA = const(1)
PH_MENU = const(2)
PH_ACT = const(3)
PH_DISCARD = const(4)
PH_SPACE = const(5)
PH_OVER = const(6)
PHASES = ("draw", "vendetta", "menu", "act", "discard", "space", "over")
END_REASONS = ("", "finish", "turns")

# Space kinds of the track file.
SPACE_KINDS = ("start", "food", "predator", "station", "finish")
K_START = const(0)
K_FOOD = const(1)
K_PREDATOR = const(2)
K_STATION = const(3)
K_FINISH = const(4)

# Card kinds of the card file: the kind's required fields (key=value after the cost).
DIET_KINDS = ("boar", "mono", "combo", "non", "feast", "portion", "gatherer",
              "knowledge", "cold", "careless")
VENDETTA_KINDS = ("overtake", "pullback", "switcheroo", "finders", "sorry")
CARD_FIELDS = {
    "boar": ("pay", "move", "pay2", "move2"),
    "mono": ("pay", "move"),
    "combo": ("pay", "move"),
    "non": ("colour", "move"),
    "feast": ("colour", "gain"),
    "portion": ("drawn", "move"),
    "gatherer": ("colour", "extra"),
    "knowledge": ("move",),
    "cold": ("move",),
    "careless": ("move",),
    "overtake": ("black", "colour"),
    "pullback": ("black", "spaces"),
    "switcheroo": ("black",),
    "finders": ("black",),
    "sorry": ("black",),
}
TRACK_HEADER = "kind,colour"
CARDS_HEADER = "id,kind,cost,fields"
RESERVED_IDS = ("top", "bottom", "new", "keep")


# ---------------------------------------------------------------- cubes as text

def cubes_text(counts):
    """Cube counts (4 or 5 numbers, colour order) as letters in colour order: "rrbg";
    "-" for none."""
    s = "".join(LETTERS[c] * counts[c] for c in range(len(counts)))
    return s or "-"


# Picks already listed: the searches ask for the same few (a display card's cost from the
# same few cubes in front) hundreds of thousands of times a game, and each listing took a
# dozen recursive calls. A pure function's memo, so results never depend on it; bounded.
_PICKS = {}
_PICKS_MAX = const(2048)


def _multisets(counts, n):
    """Every way to pick n non-black cubes from `counts`, as letter strings in colour order
    (a tuple: callers only read it)."""
    key = (tuple(counts[:N_FOOD]), n)
    picks = _PICKS.get(key)
    if picks is None:
        if len(_PICKS) >= _PICKS_MAX:
            _PICKS.clear()
        picks = _PICKS[key] = tuple(_list_picks(list(key[0]), n, 0))
    return picks


def _list_picks(counts, n, first):
    if n == 0:
        return [""]
    out = []
    for c in range(first, N_FOOD):
        if counts[c]:
            counts[c] -= 1
            for rest in _list_picks(counts, n - 1, c):
                out.append(LETTERS[c] + rest)
            counts[c] += 1
    return out


def _letters_counts(text):
    # "rrb" -> [2, 1, 0, 0, 0]; None if a character is not a cube letter.
    counts = [0] * 5
    if text == "-":
        return counts
    for ch in text:
        c = LETTERS.find(ch)
        if c < 0:
            return None
        counts[c] += 1
    return counts


def _has(counts, need):
    # True when `counts` holds at least `need` of every food colour (black is not paid).
    for c in range(N_FOOD):
        if counts[c] < need[c]:
            return False
    return True
