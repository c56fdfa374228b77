"""Boars on the Run!: the complete rules, pure (no I/O, no clock, no global randomness).

The rulebook is ../shared/rulebooks/boars-on-the-run.md. The track and the card list are
data (house data sets in shared_rules/boars_data.py, or a user's own files passed as text),
read by parse_track() and parse_cards(). Every choice the rulebook leaves open is listed in
docs/rules-decisions.md ("Boars on the Run!") and lives here as a named option, constant or
data; the notation is docs/boars-notation.md.

The turn is a small state machine, so that every decision is one move:
  draw      -> "draw <n>": n cubes from your bag, the PRNG picks which
  vendetta  -> "vendetta <card> <target...>": a triggered vendetta, mandatory
  menu      -> "menu new" / "menu keep" after drawing all 5 black cubes
  act       -> "buy", "ticket", "diet", and "end" to finish moving
  discard   -> "discard <card>" when a sixth card came in
  space     -> "take <cubes>" / "lose <cubes>" when the space offers a choice
Then the unspent cubes go back to the bag and the next player draws.

Information. Each bag's content is private to its owner (the view of another player or a
spectator gives its size only); the order of the unseen part of the deck is known to
nobody; everything else (boards, cards in front of players, the display, the cubes in
front of the active player, the reserve) is public. The PRNG never appears in a view.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import boars_data, secret_prng
from shared_rules.errors import BadPosition, IllegalMove

NAME = "boars"
TITLE = "Boars on the Run!"
PLAYER_COUNTS = (2, 3, 4)
HIDDEN_INFORMATION = True  # bags are private, the deck is shuffled
# Seeds from 0 to SEED_MAX; every draw comes from shared_rules.secret_prng, whose draws
# do not give the seed away (docs/secrets.md).
SEED_MAX = secret_prng.SEED_MAX
FORMAT_VERSION = const(1)

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


def _multisets(counts, n, first=0):
    # Every way to pick n non-black cubes from `counts`, as letter strings in colour order.
    if n == 0:
        return [""]
    out = []
    for c in range(first, N_FOOD):
        if counts[c]:
            counts[c] -= 1
            for rest in _multisets(counts, n - 1, c):
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


# ---------------------------------------------------------------- data files

class Track:
    """A parsed track: kinds[i] and colours[i] (-1: none) of each space 0..95, and for each
    ticket colour the next station of that colour after each space (-1: none)."""

    def __init__(self, kinds, colours):
        self.kinds = kinds
        self.colours = colours
        nxt = []
        for c in range(N_FOOD):
            row = [-1] * TRACK_SPACES
            after = -1
            for i in range(TRACK_SPACES - 1, -1, -1):
                row[i] = after
                if kinds[i] == K_STATION and colours[i] == c:
                    after = i
            nxt.append(tuple(row))
        self.next_station = tuple(nxt)

    def space(self, i):
        """Space i as a dict {"kind": ..., "colour": ... or None} (JSON-ready)."""
        c = self.colours[i]
        return {"kind": SPACE_KINDS[self.kinds[i]], "colour": COLOURS[c] if c >= 0 else None}


class Cards:
    """A parsed card list: `cards` (dicts, file order), `index` (id -> number), `boars`
    (numbers of the Boar cards) and `others` (numbers of the Diet and Vendetta cards)."""

    def __init__(self, cards):
        self.cards = cards
        self.index = {}
        boars, others = [], []
        for i, card in enumerate(cards):
            self.index[card["id"]] = i
            (boars if card["kind"] == "boar" else others).append(i)
        self.boars = tuple(boars)
        self.others = tuple(others)


def _data_lines(text, what, header):
    # (line number, stripped text) of every line that is not blank or a comment, after
    # checking the header. Only printable ASCII and tabs: files are shown in terminals.
    if not isinstance(text, str):
        raise BadPosition("a %s file is a text, not %r" % (what, type(text).__name__))
    if len(text) > MAX_TEXT:
        raise BadPosition("the %s file is %d characters long; at most %d are read"
                          % (what, len(text), MAX_TEXT))
    out = []
    seen_header = False
    for n, line in enumerate(text.split("\n")):
        if line.endswith("\r"):
            line = line[:-1]
        for ch in line:
            o = ord(ch)
            if o > 126 or (o < 32 and o != 9):
                raise BadPosition("%s line %d: character %r is not printable ASCII"
                                  % (what, n + 1, ch))
        s = line.strip()
        if not s or s[0] == "#":
            continue
        if not seen_header:
            if s.replace(" ", "") != header:
                raise BadPosition("%s line %d: the first line that is not a comment must be "
                                  "the header %r, not %r" % (what, n + 1, header, s))
            seen_header = True
            continue
        out.append((n + 1, s))
    if not seen_header:
        raise BadPosition("the %s file has no header line %r" % (what, header))
    return out


def _colour_field(value, where, field):
    for c in range(N_FOOD):
        if value == COLOURS[c]:
            return c
    raise BadPosition("%s, field %r: %r is not a colour (red, blue, yellow, green)"
                      % (where, field, value))


def parse_track(text):
    """Read a track file (see docs/boars-notation.md): a header "kind,colour", then one line
    per space from Start to Finish, 96 in all. Returns a Track; a bad file raises
    BadPosition naming the line and the field."""
    lines = _data_lines(text, "track", TRACK_HEADER)
    kinds, colours = [], []
    finish_at = ""  # where the line before this one was read: the finish, once it is
    for n, s in lines:
        space = len(kinds)
        where = "track line %d (space %d)" % (n, space)
        if kinds and kinds[-1] == K_FINISH:
            raise BadPosition("%s, field 'kind': only the last space (space %d) is the "
                              "finish, and more spaces follow it" % (finish_at, FINISH))
        fields = [f.strip() for f in s.split(",")]
        kind = fields[0]
        if kind not in SPACE_KINDS:
            raise BadPosition("%s, field 'kind': %r is not a kind of space (%s)"
                              % (where, kind, ", ".join(SPACE_KINDS)))
        k = SPACE_KINDS.index(kind)
        if len(fields) > 2:
            raise BadPosition("%s: a space has 2 fields (kind,colour), this line has %d"
                              % (where, len(fields)))
        colour = fields[1] if len(fields) == 2 else ""
        if k in (K_START, K_FINISH):
            if colour:
                raise BadPosition("%s, field 'colour': %s has no colour, not %r"
                                  % (where, kind, colour))
            c = -1
        else:
            if not colour:
                raise BadPosition("%s, field 'colour': a %s space needs a colour" % (where, kind))
            c = _colour_field(colour, where, "colour")
        if k == K_START and space != START:
            raise BadPosition("%s, field 'kind': only the first space is the start" % where)
        if space == START and k != K_START:
            raise BadPosition("%s, field 'kind': the first space must be the start, not %s"
                              % (where, kind))
        if space == FINISH and k != K_FINISH:
            raise BadPosition("%s, field 'kind': the last space must be the finish, not %s"
                              % (where, kind))
        kinds.append(k)
        colours.append(c)
        finish_at = where
    if len(kinds) != TRACK_SPACES:
        raise BadPosition("the track file has %d spaces; a track has %d (start and finish "
                          "included)%s" % (len(kinds), TRACK_SPACES,
                                          "" if kinds else ": no space line found"))
    return Track(tuple(kinds), tuple(colours))


def _int_field(value, lo, hi, where, field):
    if not value.isdigit() or not lo <= int(value) <= hi:
        raise BadPosition("%s, field %r: %r is not a whole number from %d to %d"
                          % (where, field, value, lo, hi))
    return int(value)


def _cubes_field(value, where, field):
    counts = _letters_counts(value) if value and value != "-" else None
    if counts is None or counts[BLACK] or not 1 <= sum(counts) <= 9:
        raise BadPosition("%s, field %r: %r is not 1 to 9 cube letters among r, b, y, g "
                          "(red, blue, yellow, green)" % (where, field, value))
    return tuple(counts)


def _card_id(value, where):
    ok = 0 < len(value) <= 20 and "a" <= value[0] <= "z"
    for ch in value:
        if not ("a" <= ch <= "z" or "0" <= ch <= "9" or ch == "-"):
            ok = False
    if not ok or value in RESERVED_IDS:
        raise BadPosition("%s, field 'id': %r is not a card id (1 to 20 characters a-z, 0-9 "
                          "and -, starting with a letter; not %s)"
                          % (where, value, ", ".join(RESERVED_IDS)))
    return value


def parse_cards(text):
    """Read a card file (see docs/boars-notation.md): a header "id,kind,cost,fields", then
    one line per card: its id, its kind, its cost ("-" for a Boar card) and its kind's
    fields as key=value. Returns a Cards; a bad file raises BadPosition naming the line
    and the field."""
    lines = _data_lines(text, "cards", CARDS_HEADER)
    cards = []
    ids = {}
    for n, s in lines:
        where = "cards line %d" % n
        fields = [f.strip() for f in s.split(",")]
        if len(fields) < 3:
            raise BadPosition("%s: a card needs at least id,kind,cost" % where)
        cid = _card_id(fields[0], where)
        where = "cards line %d (card %s)" % (n, cid)
        if cid in ids:
            raise BadPosition("%s, field 'id': %r is already the id of line %d"
                              % (where, cid, ids[cid]))
        ids[cid] = n
        kind = fields[1]
        if kind not in CARD_FIELDS:
            raise BadPosition("%s, field 'kind': %r is not a kind of card (%s)"
                              % (where, kind, ", ".join(DIET_KINDS + VENDETTA_KINDS)))
        card = {"id": cid, "kind": kind, "cost": 0, "pay": None, "move": 0, "pay2": None,
                "move2": 0, "colour": -1, "gain": None, "extra": 0, "drawn": 0,
                "black": -1, "spaces": 0}
        if kind == "boar":
            if fields[2] != "-":
                raise BadPosition("%s, field 'cost': a Boar card is not bought; write -, not %r"
                                  % (where, fields[2]))
        else:
            card["cost"] = _int_field(fields[2], 0, 9, where, "cost")
        need = CARD_FIELDS[kind]
        got = []
        for f in fields[3:]:
            kv = f.split("=")
            if len(kv) != 2 or not kv[0].strip():
                raise BadPosition("%s: %r is not a field written key=value" % (where, f))
            key, value = kv[0].strip(), kv[1].strip()
            if key not in need:
                raise BadPosition("%s, field %r: a %s card has no such field (its fields: %s)"
                                  % (where, key, kind, ", ".join(need)))
            if key in got:
                raise BadPosition("%s, field %r: given twice" % (where, key))
            got.append(key)
            if key in ("pay", "pay2", "gain"):
                card[key] = _cubes_field(value, where, key)
            elif key == "colour":
                card[key] = _colour_field(value, where, key)
            elif key in ("move", "move2", "spaces"):
                card[key] = _int_field(value, 1, 30, where, key)
            elif key == "drawn":
                card[key] = _int_field(value, 1, 99, where, key)
            elif key == "extra":
                card[key] = _int_field(value, 1, 5, where, key)
            else:  # black
                card[key] = _int_field(value, 0, 5, where, key)
        for key in need:
            if key not in got:
                raise BadPosition("%s, field %r: missing (a %s card needs %s)"
                                  % (where, key, kind, ", ".join(need)))
        if kind in ("mono", "combo"):
            colours = sum(1 for c in range(N_FOOD) if card["pay"][c])
            if kind == "mono" and colours != 1:
                raise BadPosition("%s, field 'pay': a mono diet pays cubes of one colour"
                                  % where)
            if kind == "combo" and colours < 2:
                raise BadPosition("%s, field 'pay': a combo diet pays cubes of 2 or more "
                                  "colours" % where)
        cards.append(card)
    result = Cards(tuple(cards))
    if len(result.boars) < PLAYER_COUNTS[-1]:
        raise BadPosition("the card file has %d Boar cards; %d players need %d"
                          % (len(result.boars), PLAYER_COUNTS[-1], PLAYER_COUNTS[-1]))
    if len(result.others) < DISPLAY_SLOTS:
        raise BadPosition("the card file has %d Diet and Vendetta cards; the display needs "
                          "at least %d" % (len(result.others), DISPLAY_SLOTS))
    return result


_PARSED = {}  # (what, text) -> parsed data: a cache, so from_json does not parse again


def _resolve(what, option):
    # A data option: a built-in set's name, or the full text of a file.
    table = boars_data.TRACKS if what == "track" else boars_data.CARDS
    if not isinstance(option, str):
        raise BadPosition("option %r must be a built-in name (%s) or a file's text, not %r"
                          % (what, ", ".join(sorted(table)), option))
    if option in table:
        text = table[option]
    elif "\n" in option:
        text = option
    else:
        raise BadPosition("option %r: %r is not a built-in %s (%s); a file of your own is "
                          "given as its full text" % (what, option, what,
                                                      ", ".join(sorted(table))))
    key = (what, text)
    got = _PARSED.get(key)
    if got is None:
        got = parse_track(text) if what == "track" else parse_cards(text)
        if len(_PARSED) >= 16:
            _PARSED.clear()
        _PARSED[key] = got
    return got


def track_spaces(track=DEFAULT_TRACK):
    """The spaces of a track option (name or text): a list of {"kind", "colour"} dicts."""
    t = _resolve("track", track)
    return [t.space(i) for i in range(TRACK_SPACES)]


def card_info(card):
    """A parsed card as a JSON-ready dict in words: id, kind, cost, type (boar, diet or
    vendetta), the kind's fields, and "text", a short description."""
    kind = card["kind"]
    d = {"id": card["id"], "kind": kind,
         "type": "boar" if kind == "boar" else "diet" if kind in DIET_KINDS else "vendetta",
         "cost": None if kind == "boar" else card["cost"]}
    for key in CARD_FIELDS[kind]:
        v = card[key]
        if key in ("pay", "pay2", "gain"):
            v = cubes_text(v)
        elif key == "colour":
            v = COLOURS[v]
        d[key] = v
    d["text"] = _card_text(card)
    return d


def _card_text(card):
    kind = card["kind"]
    if kind == "boar":
        return "pay %s: move %d; pay %s: move %d" % (cubes_text(card["pay"]), card["move"],
                                                     cubes_text(card["pay2"]), card["move2"])
    if kind in ("mono", "combo"):
        return "pay %s: move %d" % (cubes_text(card["pay"]), card["move"])
    if kind == "non":
        return "drew no %s: move %d" % (COLOURS[card["colour"]], card["move"])
    if kind == "feast":
        return "drew no %s: gain %s" % (COLOURS[card["colour"]], cubes_text(card["gain"]))
    if kind == "portion":
        return "drew exactly %d cubes: move %d" % (card["drawn"], card["move"])
    if kind == "gatherer":
        return "gaining %s from a space: %d more" % (COLOURS[card["colour"]], card["extra"])
    if kind == "knowledge":
        return "bought a diet this turn: move %d" % card["move"]
    if kind == "cold":
        return "bought a vendetta this turn: move %d" % card["move"]
    if kind == "careless":
        return "discard another card: move %d" % card["move"]
    head = "%d black: " % card["black"]
    if kind == "overtake":
        return head + "to one space past a boar on %s" % COLOURS[card["colour"]]
    if kind == "pullback":
        return head + "a boar goes back %d" % card["spaces"]
    if kind == "switcheroo":
        return head + "switch two cards of two players"
    if kind == "finders":
        return head + "take a card from an opponent"
    return head + "one player discards all their cards"


def cards_list(cards=DEFAULT_CARDS):
    """Every card of a cards option (name or text) as card_info() dicts, in file order."""
    return [card_info(c) for c in _resolve("cards", cards).cards]


# ---------------------------------------------------------------- JSON writing

def _jstr(s):
    # Strings here are ids, words and data texts already checked to be printable ASCII.
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace(
        "\r", "\\r").replace("\t", "\\t") + '"'


def _enc(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return _jstr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_enc(x) for x in v) + "]"
    if isinstance(v, dict):  # only small dicts of views, keys in insertion order
        return "{" + ",".join(_jstr(k) + ":" + _enc(v[k]) for k in v) + "}"
    raise TypeError("cannot encode %r" % (v,))


# ---------------------------------------------------------------- the state

class BoarsState:
    """One game of Boars on the Run!. Build it with new_game() or from_json()."""

    def __init__(self):
        self.players = 2
        self.track_option = DEFAULT_TRACK
        self.cards_option = DEFAULT_CARDS
        self.cubes = DEFAULT_CUBES
        self.max_turns = DEFAULT_MAX_TURNS
        self.min_draw = DEFAULT_MIN_DRAW
        self.track = None  # Track
        self.deck_data = None  # Cards
        self.rng = 1
        self.turn = 0  # turns completed
        self.active = 0
        self.phase = PH_DRAW
        self.pos = []  # space of each boar
        self.boar = []  # Boar card number of each player
        self.hands = []  # Diet and Vendetta card numbers of each player, in order gained
        self.bags = []  # 5 counts per player (colour order, black last)
        self.supply = [0] * N_FOOD  # the common reserve of food cubes
        self.display = [-1] * DISPLAY_SLOTS  # card numbers, -1: empty
        self.deck = []  # card numbers, top first
        self.deck_hidden = 0  # the first deck_hidden cards are in an order nobody knows
        self.drawn = [0] * 5  # what the active player drew this turn
        self.front = [0] * 5  # the cubes in front of the active player, unspent
        self.used = []  # diets used this turn: "top", "bottom" or card ids
        self.bought = -1  # the card bought this turn
        self.keep = -1  # in the discard phase: the card that may not be discarded
        self.then = -1  # in the discard phase: the vendetta to discard afterwards
        self.end = ""

    # ---- the interface shared by every game

    def to_act(self):
        return None if self.phase == PH_OVER else self.active

    def is_over(self):
        return self.phase == PH_OVER

    def scores(self):
        """Each boar's space on the track (0 = Start, 95 = Finish)."""
        return self.pos[:]

    def winner(self):
        """The boar that reached the Finish; at the turn limit, the boar furthest along
        (None if several share the lead); None while the game goes on."""
        if self.phase != PH_OVER:
            return None
        best = max(self.pos)
        return self.pos.index(best) if self.pos.count(best) == 1 else None

    def turn_count(self):
        return self.turn

    def end_reason(self):
        """"finish" (a boar reached the Finish: the rulebook's end), "turns" (the house
        turn limit), "" while the game goes on."""
        return self.end

    def options(self):
        return {"track": self.track_option, "cards": self.cards_option, "cubes": self.cubes,
                "max_turns": self.max_turns, "min_draw": self.min_draw}

    def card(self, i):
        """Card number i of this game's card list, as card_info() gives it."""
        return card_info(self.deck_data.cards[i])

    def card_id(self, i):
        return self.deck_data.cards[i]["id"]

    def space(self, i):
        """Track space i as {"kind", "colour"}."""
        return self.track.space(i)

    # ---- moves

    def legal_moves(self):
        """Every move the player to act may play now, as sorted notation strings."""
        ph = self.phase
        if ph == PH_DRAW:
            moves = ["draw %d" % n for n in range(self.min_draw, sum(self.bags[self.active]) + 1)]
        elif ph == PH_VENDETTA:
            moves = []
            for ci in self._triggered():
                cid = self.card_id(ci)
                for target in self._targets(ci):
                    moves.append("vendetta %s %s" % (cid, target))
        elif ph == PH_MENU:
            moves = ["menu keep", "menu new"]
        elif ph == PH_ACT:
            moves = self._act_moves()
        elif ph == PH_DISCARD:
            moves = ["discard " + self.card_id(ci) for ci in self.hands[self.active]
                     if ci != self.keep]
        elif ph == PH_SPACE:
            verb = "lose " if self.track.kinds[self.pos[self.active]] == K_PREDATOR else "take "
            moves = [verb + o for o in self._space_options()]
        else:
            return []
        moves = list(set(moves))
        moves.sort()
        return moves

    def play(self, move):
        """Apply one move in notation; raise IllegalMove (state unchanged) if it cannot be
        played now."""
        if self.phase == PH_OVER:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, str):
            raise IllegalMove(move, "a move is a notation string such as 'draw 6'")
        if move not in self.legal_moves():
            raise IllegalMove(move, self._why_not(move))
        w = move.split(" ")
        verb = w[0]
        if verb == "draw":
            self._draw(int(w[1]))
        elif verb == "vendetta":
            self._vendetta(self.deck_data.index[w[1]], w[2:])
        elif verb == "menu":
            if w[1] == "new":
                self._change_menu()
            self.phase = PH_ACT
        elif verb == "buy":
            self._buy(self.deck_data.index[w[1]], w[2])
        elif verb == "ticket":
            self._ticket(w[1])
        elif verb == "diet":
            self._diet(w[1], w[2] if len(w) > 2 else None)
        elif verb == "end":
            self._end_moving()
        elif verb == "discard":
            self._discard_limit(self.deck_data.index[w[1]])
        else:  # take / lose
            self._resolve_space(w[1])

    # ---- what is legal

    def _triggered(self):
        # Vendettas in hand whose black count was drawn and that have a legal target.
        k = self.drawn[BLACK]
        out = []
        for ci in self.hands[self.active]:
            card = self.deck_data.cards[ci]
            if card["black"] == k and card["kind"] in VENDETTA_KINDS and self._targets(ci):
                out.append(ci)
        return out

    def _targets(self, ci):
        # The target words of a vendetta: players, a card id, or two card ids.
        card = self.deck_data.cards[ci]
        kind = card["kind"]
        a = self.active
        n = self.players
        if kind == "overtake":
            return [str(p) for p in range(n)
                    if self.track.colours[self.pos[p]] == card["colour"]]
        if kind == "pullback":
            them = [str(p) for p in range(n) if p != a and self.pos[p] > START]
            if not them and self.pos[a] > START:
                them = [str(a)]
            return them
        if kind == "finders":
            return [self.card_id(x) for p in range(n) if p != a for x in self.hands[p]]
        if kind == "sorry":
            them = [str(p) for p in range(n) if p != a and self.hands[p]]
            if not them and len(self.hands[a]) > 1:
                them = [str(a)]
            return them
        # switcheroo: two cards of two different players, the card itself excluded
        held = []
        for p in range(n):
            for x in self.hands[p]:
                if x != ci:
                    held.append((self.card_id(x), p))
        out = []
        for i in range(len(held)):
            for j in range(len(held)):
                if held[i][1] != held[j][1] and held[i][0] < held[j][0]:
                    out.append(held[i][0] + " " + held[j][0])
        return out

    def _act_moves(self):
        a = self.active
        front = self.front
        moves = ["end"]
        # "If your boar did not get sick, you can now use your cubes ...: Buy a card":
        # a sick boar buys nothing, not even a card that costs no cube.
        if self.bought < 0 and self.drawn[BLACK] < SICK_AT:
            for ci in self.display:
                if ci >= 0:
                    cid = self.card_id(ci)
                    for pay in _multisets(front, self.deck_data.cards[ci]["cost"]):
                        moves.append("buy %s %s" % (cid, pay or "-"))
        here = self.pos[a]
        for name, colour, count, _ in TICKETS:
            if self.drawn[colour] == count and front[colour] == count \
                    and self.track.next_station[colour][here] >= 0:
                moves.append("ticket " + name)
        boar = self.deck_data.cards[self.boar[a]]
        if "top" not in self.used and _has(front, boar["pay"]):
            moves.append("diet top")
        if "bottom" not in self.used and _has(front, boar["pay2"]):
            moves.append("diet bottom")
        hand = self.hands[a]
        for ci in hand:
            card = self.deck_data.cards[ci]
            cid = card["id"]
            if cid in self.used or card["kind"] in VENDETTA_KINDS:
                continue
            kind = card["kind"]
            if kind == "careless":
                for other in hand:
                    if other != ci:
                        moves.append("diet %s %s" % (cid, self.card_id(other)))
            elif self._diet_ready(card):
                moves.append("diet " + cid)
        return moves

    def _diet_ready(self, card):
        kind = card["kind"]
        if kind in ("mono", "combo"):
            return _has(self.front, card["pay"])
        if kind in ("non", "feast"):
            return self.drawn[card["colour"]] == 0
        if kind == "portion":
            return sum(self.drawn) == card["drawn"]
        if kind == "knowledge":
            return self.bought >= 0 and self.deck_data.cards[self.bought]["kind"] in DIET_KINDS
        if kind == "cold":
            return self.bought >= 0 and \
                self.deck_data.cards[self.bought]["kind"] in VENDETTA_KINDS
        return False  # gatherer: it acts by itself on the space

    def _space_options(self):
        # The distinct outcomes of activating the boar's space, as cube letters.
        here = self.pos[self.active]
        kind = self.track.kinds[here]
        c = self.track.colours[here]
        sup = self.supply
        out = []
        if kind == K_FOOD:
            k = min(FOOD_SAME, sup[c])
            if k:
                out.append(LETTERS[c] * k)
            for x in range(N_FOOD):
                if sup[x] and LETTERS[x] not in out:
                    out.append(LETTERS[x])
        elif kind == K_STATION:
            for x in range(N_FOOD):
                got = [0] * N_FOOD
                if sup[c]:
                    got[c] = 1
                if sup[x] > got[x]:
                    got[x] += 1
                t = cubes_text(got)
                if t != "-" and t not in out:
                    out.append(t)
        elif kind == K_PREDATOR:
            if self.front[c]:
                out.append(LETTERS[c])
            for t in _multisets(self.front, PREDATOR_ANY):
                if t not in out:
                    out.append(t)
        return out

    def _why_not(self, move):
        # A specific reason for a refused move (the move is known not to be legal).
        w = move.split(" ")
        verb = w[0]
        phase_verbs = {PH_DRAW: ("draw",), PH_VENDETTA: ("vendetta",), PH_MENU: ("menu",),
                       PH_ACT: ("buy", "ticket", "diet", "end"), PH_DISCARD: ("discard",),
                       PH_SPACE: ("take", "lose")}
        hints = {PH_DRAW: "draw cubes: 'draw <n>'",
                 PH_VENDETTA: "resolve a triggered vendetta: 'vendetta <card> <target>'",
                 PH_MENU: "choose 'menu new' or 'menu keep'",
                 PH_ACT: "use cubes: 'buy', 'ticket', 'diet' or 'end'",
                 PH_DISCARD: "discard a card: 'discard <card>'",
                 PH_SPACE: "activate the space: 'take <cubes>' or 'lose <cubes>'"}
        all_verbs = ("buy", "diet", "discard", "draw", "end", "lose", "menu", "take",
                     "ticket", "vendetta")
        if verb not in all_verbs:
            return "unknown move word %r; moves start with one of: %s" % (
                verb, ", ".join(all_verbs))
        if verb not in phase_verbs[self.phase]:
            return "now is the time to %s" % hints[self.phase]
        if "" in w:
            return "words are separated by single spaces"
        data = self.deck_data
        a = self.active
        if verb == "draw":
            size = sum(self.bags[a])
            if len(w) != 2 or not w[1].isdigit():
                return "'draw' takes one number: how many cubes"
            return "you draw %d to %d cubes (the cubes in your bag)" % (self.min_draw, size)
        if verb == "menu":
            return "'menu new' changes the 4 cards on display, 'menu keep' keeps them"
        if verb == "end":
            return "'end' takes no argument"
        if verb in ("vendetta", "buy", "discard") and (len(w) < 2 or w[1] not in data.index):
            return "%r is not a card of this game" % (w[1] if len(w) > 1 else "")
        if verb == "vendetta":
            ci = data.index[w[1]]
            card = data.cards[ci]
            if ci not in self.hands[a] or card["kind"] not in VENDETTA_KINDS:
                return "%s is not a vendetta in your hand" % w[1]
            if card["black"] != self.drawn[BLACK]:
                return "%s triggers on exactly %d black cubes; you drew %d" % (
                    w[1], card["black"], self.drawn[BLACK])
            return "not a legal target of %s; its targets: %s" % (
                w[1], ", ".join(self._targets(ci)) or "none")
        if verb == "buy":
            ci = data.index[w[1]]
            if self.bought >= 0:
                return "you already bought a card this turn"
            if self.drawn[BLACK] >= SICK_AT:
                return "your boar is sick: only a boar that did not get sick buys a card"
            if ci not in self.display:
                return "%s is not on display" % w[1]
            cost = data.cards[ci]["cost"]
            if len(w) != 3:
                return "'buy' takes the card and the cubes paid ('-' for none)"
            return "%s costs %d non-black cubes from the ones in front of you (%s), written " \
                   "in colour order r b y g" % (w[1], cost, cubes_text(self.front))
        if verb == "discard":
            return "discard one of your Diet or Vendetta cards except %s" % (
                self.card_id(self.keep) if self.keep >= 0 else "the new one")
        if verb == "ticket":
            for name, colour, count, title in TICKETS:
                if len(w) == 2 and w[1] == name:
                    if self.drawn[colour] != count:
                        return "the %s needs exactly %d %s cubes drawn; you drew %d" % (
                            title, count, COLOURS[colour], self.drawn[colour])
                    if self.front[colour] != count:
                        return "you already spent some of the %s cubes" % COLOURS[colour]
                    return "there is no %s station ahead" % title
            return "tickets: %s" % ", ".join(t[0] for t in TICKETS)
        if verb == "diet":
            if len(w) < 2:
                return "'diet' takes top, bottom or a card"
            name = w[1]
            if name in self.used:
                return "each diet is used once per turn; %s was used" % name
            if name not in ("top", "bottom"):
                ci = data.index.get(name, -1)
                if ci not in self.hands[a]:
                    return "%s is not a card in your hand" % name
                kind = data.cards[ci]["kind"]
                if kind in VENDETTA_KINDS:
                    return "%s is a vendetta: it triggers on black cubes drawn" % name
                if kind == "gatherer":
                    return "%s acts by itself when you gain its colour from a space" % name
                if kind == "careless":
                    return "%s needs another card of yours to discard: 'diet %s <card>'" % (
                        name, name)
            return "the diet's condition is not met (cubes in front: %s, drawn: %s)" % (
                cubes_text(self.front), cubes_text(self.drawn))
        options = self._space_options()
        return "the space offers: %s" % ", ".join(options)

    # ---- applying moves (each is legal when called)

    def _draw(self, n):
        a = self.active
        bag = self.bags[a]
        got = [0] * 5
        for _ in range(n):
            k, self.rng = secret_prng.below(self.rng, sum(bag))
            for c in range(5):
                k -= bag[c]
                if k < 0:
                    bag[c] -= 1
                    got[c] += 1
                    break
        self.drawn = got
        if got[BLACK] >= SICK_AT:
            # Sick: none of the cubes drawn may be used; they go back into the bag.
            for c in range(5):
                bag[c] += got[c]
            self.front = [0] * 5
        else:
            self.front = got[:]
        self._after_vendettas()

    def _after_vendettas(self):
        if self._triggered():
            self.phase = PH_VENDETTA
        elif self.drawn[BLACK] == PER_COLOUR_IN_BAG:
            self.phase = PH_MENU
        else:
            self.phase = PH_ACT

    def _vendetta(self, ci, args):
        card = self.deck_data.cards[ci]
        kind = card["kind"]
        a = self.active
        data = self.deck_data
        if kind == "overtake":
            self._set_pos(a, self.pos[int(args[0])] + 1)
        elif kind == "pullback":
            p = int(args[0])
            self.pos[p] = max(START, self.pos[p] - card["spaces"])
        elif kind == "switcheroo":
            x, y = data.index[args[0]], data.index[args[1]]
            px, py = self._holder(x), self._holder(y)
            hx, hy = self.hands[px], self.hands[py]
            hx[hx.index(x)] = y
            hy[hy.index(y)] = x
        elif kind == "finders":
            x = data.index[args[0]]
            self.hands[self._holder(x)].remove(x)
            self.hands[a].append(x)
            if 1 + len(self.hands[a]) > HAND_LIMIT:
                # The vendetta is still in hand while it resolves: a sixth card means a
                # discard first, then the vendetta goes (rules decisions).
                self.phase = PH_DISCARD
                self.keep = ci
                self.then = ci
                return
        else:  # sorry
            p = int(args[0])
            for x in self.hands[p][:]:
                if x != ci:
                    self.hands[p].remove(x)
                    self.deck.append(x)
        self._to_bottom(a, ci)
        if self.phase != PH_OVER:
            self._after_vendettas()

    def _holder(self, ci):
        for p in range(self.players):
            if ci in self.hands[p]:
                return p
        return -1

    def _to_bottom(self, p, ci):
        self.hands[p].remove(ci)
        self.deck.append(ci)

    def _refill(self, slot):
        if self.deck:
            self.display[slot] = self.deck.pop(0)
            if self.deck_hidden:
                self.deck_hidden -= 1
        else:
            self.display[slot] = -1

    def _change_menu(self):
        for slot in range(DISPLAY_SLOTS):
            if self.display[slot] >= 0:
                self.deck.append(self.display[slot])
                self.display[slot] = -1
        for slot in range(DISPLAY_SLOTS):
            self._refill(slot)

    def _pay(self, counts):
        for c in range(N_FOOD):
            self.front[c] -= counts[c]
            self.supply[c] += counts[c]

    def _gain(self, p, c, n):
        # Cubes from the reserve into a bag: as many as there are. Returns how many.
        n = min(n, self.supply[c])
        self.supply[c] -= n
        self.bags[p][c] += n
        return n

    def _set_pos(self, p, space):
        self.pos[p] = min(FINISH, space)
        if self.pos[p] == FINISH:
            self.phase = PH_OVER
            self.end = "finish"

    def _buy(self, ci, pay):
        a = self.active
        self._pay(_letters_counts(pay))
        slot = self.display.index(ci)
        self._refill(slot)
        self.hands[a].append(ci)
        self.bought = ci
        if 1 + len(self.hands[a]) > HAND_LIMIT:
            self.phase = PH_DISCARD
            self.keep = ci
            self.then = -1

    def _discard_limit(self, ci):
        a = self.active
        self._to_bottom(a, ci)
        then = self.then
        self.keep = self.then = -1
        if then >= 0:  # the Finders Keepers that brought the sixth card
            self._to_bottom(a, then)
            self._after_vendettas()
        else:
            self.phase = PH_ACT

    def _ticket(self, name):
        for tname, colour, count, _ in TICKETS:
            if tname == name:
                self.front[colour] -= count
                self.supply[colour] += count
                a = self.active
                self._set_pos(a, self.track.next_station[colour][self.pos[a]])

    def _diet(self, name, other):
        a = self.active
        self.used.append(name)
        if name in ("top", "bottom"):
            boar = self.deck_data.cards[self.boar[a]]
            key = "" if name == "top" else "2"
            self._pay(boar["pay" + key])
            self._set_pos(a, self.pos[a] + boar["move" + key])
            return
        card = self.deck_data.cards[self.deck_data.index[name]]
        kind = card["kind"]
        if kind in ("mono", "combo"):
            self._pay(card["pay"])
        elif kind == "feast":
            for c in range(N_FOOD):
                self._gain(a, c, card["gain"][c])
            return
        elif kind == "careless":
            self._to_bottom(a, self.deck_data.index[other])
        self._set_pos(a, self.pos[a] + card["move"])

    def _end_moving(self):
        # "After all your movement is complete": bump, then activate the space.
        self._bump()
        options = self._space_options()
        if len(options) > 1:
            self.phase = PH_SPACE
            return
        if options:
            self._resolve_space(options[0])
            return
        a = self.active
        if self.track.kinds[self.pos[a]] == K_PREDATOR:
            self.pos[a] = max(START, self.pos[a] - 1)
        self._end_turn()

    def _bump(self):
        a = self.active
        space = self.pos[a]
        movers = [p for p in range(self.players) if p != a and self.pos[p] == space]
        while movers and space != START:
            space = max(START, space - BUMP)
            nxt = []
            if space != START:
                nxt = [p for p in range(self.players)
                       if p != a and p not in movers and self.pos[p] == space]
            for p in movers:
                self.pos[p] = space
            movers = nxt

    def _resolve_space(self, cubes):
        a = self.active
        here = self.pos[a]
        counts = _letters_counts(cubes)
        if self.track.kinds[here] == K_PREDATOR:
            for c in range(N_FOOD):
                self.front[c] -= counts[c]
                self.supply[c] += counts[c]
        else:
            gained = [self._gain(a, c, counts[c]) for c in range(N_FOOD)]
            for ci in self.hands[a]:
                card = self.deck_data.cards[ci]
                if card["kind"] == "gatherer" and gained[card["colour"]]:
                    self._gain(a, card["colour"], card["extra"])
        self._end_turn()

    def _end_turn(self):
        a = self.active
        for c in range(5):
            self.bags[a][c] += self.front[c]
        self.front = [0] * 5
        self.drawn = [0] * 5
        self.used = []
        self.bought = -1
        self.turn += 1
        self.active = (a + 1) % self.players
        self.phase = PH_DRAW
        if self.turn >= self.max_turns:
            self.phase = PH_OVER
            self.end = "turns"

    # ---- copies, JSON, views

    def clone(self):
        s = BoarsState()
        s.players = self.players
        s.track_option = self.track_option
        s.cards_option = self.cards_option
        s.cubes = self.cubes
        s.max_turns = self.max_turns
        s.min_draw = self.min_draw
        s.track = self.track
        s.deck_data = self.deck_data
        s.rng = self.rng
        s.turn = self.turn
        s.active = self.active
        s.phase = self.phase
        s.pos = self.pos[:]
        s.boar = self.boar[:]
        s.hands = [h[:] for h in self.hands]
        s.bags = [b[:] for b in self.bags]
        s.supply = self.supply[:]
        s.display = self.display[:]
        s.deck = self.deck[:]
        s.deck_hidden = self.deck_hidden
        s.drawn = self.drawn[:]
        s.front = self.front[:]
        s.used = self.used[:]
        s.bought = self.bought
        s.keep = self.keep
        s.then = self.then
        s.end = self.end
        return s

    def _ids(self, numbers):
        return [self.card_id(i) for i in numbers]

    def _id_or_none(self, i):
        return self.card_id(i) if i >= 0 else None

    def _public(self):
        # The fields every view shares, in the order of to_json().
        return [
            ("game", NAME), ("format", FORMAT_VERSION), ("players", self.players),
            ("track", self.track_option), ("cards", self.cards_option),
            ("cubes", self.cubes), ("max_turns", self.max_turns),
        ] + ([] if self.min_draw == DEFAULT_MIN_DRAW else [("min_draw", self.min_draw)])
        # min_draw at its default is left out: a game logged before the option existed
        # never drew 0 (it was refused then), so its moves replay to the digests it logged.

    def _turn_fields(self):
        return [
            ("turn", self.turn), ("active", self.active), ("phase", PHASES[self.phase]),
            ("positions", self.pos), ("boars", self._ids(self.boar)),
            ("hands", [self._ids(h) for h in self.hands]),
        ]

    def _tail_fields(self):
        return [
            ("supply", self.supply),
            ("display", [self._id_or_none(i) for i in self.display]),
        ]

    def _step_fields(self):
        return [
            ("drawn", self.drawn), ("front", self.front), ("used", self.used),
            ("bought", self._id_or_none(self.bought)), ("keep", self._id_or_none(self.keep)),
            ("then", self._id_or_none(self.then)), ("end", self.end),
        ]

    def to_json(self):
        """The whole state as canonical JSON text (fixed key order, no spaces)."""
        pairs = self._public() + [("rng", self.rng)] + self._turn_fields() + [
            ("bags", self.bags)] + self._tail_fields() + [
            ("deck", self._ids(self.deck)), ("deck_hidden", self.deck_hidden)] + \
            self._step_fields()
        return "{" + ",".join(_jstr(k) + ":" + _enc(v) for k, v in pairs) + "}"

    def digest(self):
        """16 hex digits of SHA-256 over to_json()."""
        import hashlib
        import binascii
        h = hashlib.sha256(self.to_json().encode()).digest()
        return binascii.hexlify(h[:8]).decode()

    def __eq__(self, other):
        return isinstance(other, BoarsState) and self.to_json() == other.to_json()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.to_json())

    def __repr__(self):
        return "boars.from_json(%r)" % self.to_json()

    def tickets(self):
        """The tickets the active player may buy now (names, TICKETS order)."""
        if self.phase != PH_ACT:
            return []
        here = self.pos[self.active]
        return [name for name, colour, count, _ in TICKETS
                if self.drawn[colour] == count and self.front[colour] == count
                and self.track.next_station[colour][here] >= 0]

    def view(self, player=None):
        """What `player` (None: a spectator) may know, as a JSON-ready dict.

        Public: the options, positions, every player's cards, the display, the reserve,
        the cubes drawn and in front of the active player, the bottom of the deck (cards
        that went there face up) and how many cards of unknown order lie above them, each
        bag's size. Private: the content of each bag (its owner's view gives it) and the
        order of the unseen deck. The PRNG is in no view."""
        if player is not None and (not isinstance(player, int) or isinstance(player, bool)
                                   or not 0 <= player < self.players):
            raise BadPosition("a view is for a player 0 to %d or None (a spectator), not %r"
                              % (self.players - 1, player))
        d = {}
        for k, v in self._public() + self._turn_fields():
            d[k] = v[:] if isinstance(v, list) else v
        d["hands"] = [h[:] for h in d["hands"]]
        d["bag_sizes"] = [sum(b) for b in self.bags]
        d["bag"] = self.bags[player][:] if player is not None else None
        for k, v in self._tail_fields():
            d[k] = v[:]
        d["deck_size"] = len(self.deck)
        d["deck_hidden"] = self.deck_hidden
        d["deck_known"] = self._ids(self.deck[self.deck_hidden:])
        for k, v in self._step_fields():
            d[k] = v[:] if isinstance(v, list) else v
        # Derived, for renderers: who decides what, and what the active player may use.
        d["viewer"] = player
        d["to_act"] = self.to_act()
        d["decision"] = PHASES[self.phase]
        d["sick"] = self.drawn[BLACK] >= SICK_AT
        d["tickets"] = self.tickets()
        d["winner"] = self.winner()
        return d


def _has(counts, need):
    for c in range(N_FOOD):
        if counts[c] < need[c]:
            return False
    return True


# ---------------------------------------------------------------- building states

def _check_options(players, track, cards, cubes, max_turns, min_draw=DEFAULT_MIN_DRAW):
    if isinstance(players, bool) or players not in PLAYER_COUNTS:
        raise BadPosition("Boars on the Run! is played by 2, 3 or 4 players, not %r"
                          % (players,))
    t = _resolve("track", track)
    c = _resolve("cards", cards)
    if not isinstance(cubes, int) or isinstance(cubes, bool) \
            or not PER_COLOUR_IN_BAG * players <= cubes <= MAX_CUBES:
        raise BadPosition("cubes (food cubes of each colour) must be an integer from %d "
                          "(5 per bag) to %d, not %r"
                          % (PER_COLOUR_IN_BAG * players, MAX_CUBES, cubes))
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise BadPosition("max_turns must be a positive integer, not %r" % (max_turns,))
    if isinstance(min_draw, bool) or min_draw not in (0, 1):
        raise BadPosition("min_draw must be 0 or 1, not %r" % (min_draw,))
    return t, c


def _shuffle(items, x):
    # Fisher-Yates with the game's PRNG; returns the new PRNG state.
    for i in range(len(items) - 1, 0, -1):
        j, x = secret_prng.below(x, i + 1)
        items[i], items[j] = items[j], items[i]
    return x


def new_game(players=2, seed=0, track=DEFAULT_TRACK, cards=DEFAULT_CARDS,
             cubes=DEFAULT_CUBES, max_turns=DEFAULT_MAX_TURNS, min_draw=DEFAULT_MIN_DRAW):
    """A new game: the deck shuffled and 4 cards revealed, a random Boar card for each
    player, bags of 5 cubes of each colour, every boar on the Start; player 0 begins.

    Options: track and cards (a built-in data set's name, or the full text of a file),
    cubes (food cubes of each colour in the game), max_turns (the safeguard), min_draw
    (0: any number of cubes may be drawn, none included; 1: at least one)."""
    t, c = _check_options(players, track, cards, cubes, max_turns, min_draw)
    s = BoarsState()
    s.players = players
    s.track_option = track
    s.cards_option = cards
    s.cubes = cubes
    s.max_turns = max_turns
    s.min_draw = min_draw
    s.track = t
    s.deck_data = c
    x = secret_prng.seed_state(seed)
    deck = list(c.others)
    x = _shuffle(deck, x)
    boars = list(c.boars)
    x = _shuffle(boars, x)
    s.rng = x
    s.deck = deck
    s.deck_hidden = len(deck)
    for slot in range(DISPLAY_SLOTS):
        s._refill(slot)
    s.boar = boars[:players]
    s.pos = [START] * players
    s.hands = [[] for _ in range(players)]
    s.bags = [[PER_COLOUR_IN_BAG] * 5 for _ in range(players)]
    s.supply = [cubes - PER_COLOUR_IN_BAG * players] * N_FOOD
    return s


def from_json(text):
    """Rebuild a state from to_json() text (or that text already parsed), checking every
    field: BadPosition names the first one that is wrong."""
    if isinstance(text, dict):
        d = text
    else:
        import json
        try:
            d = json.loads(text)
        except (ValueError, TypeError) as exc:
            raise BadPosition("not JSON text: %s" % (exc,))
    if not isinstance(d, dict):
        raise BadPosition("a Boars on the Run! state is a JSON object")
    if d.get("game") != NAME or d.get("format") != FORMAT_VERSION:
        raise BadPosition("not a Boars on the Run! state of format %d (game=%r, format=%r)"
                          % (FORMAT_VERSION, d.get("game"), d.get("format")))
    return _build(d, _field(d, "rng", int), _field(d, "bags", list),
                  _field(d, "deck", list), _field(d, "deck_hidden", int))


def _field(d, key, kind):
    if key not in d:
        raise BadPosition("field %r is missing" % key)
    v = d[key]
    if not isinstance(v, kind) or (isinstance(v, bool) and kind is not bool):
        raise BadPosition("field %r has the wrong type: %r" % (key, v))
    return v


def _ints(v, key, n, lo, hi):
    if not isinstance(v, list) or len(v) != n or any(
            not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi for x in v):
        raise BadPosition("field %r must be %d integers from %d to %d" % (key, n, lo, hi))
    return v[:]


def _card_ref(data, v, key, allow_none=False):
    if v is None and allow_none:
        return -1
    if not isinstance(v, str) or v not in data.index:
        raise BadPosition("field %r: %r is not a card of this game" % (key, v))
    return data.index[v]


def _build(d, rng, bags, deck, deck_hidden):
    s = BoarsState()
    players = _field(d, "players", int)
    s.track, s.deck_data = _check_options(players, _field(d, "track", str),
                                          _field(d, "cards", str), _field(d, "cubes", int),
                                          _field(d, "max_turns", int),
                                          d.get("min_draw", DEFAULT_MIN_DRAW))
    data = s.deck_data
    s.players = n = players
    s.track_option = d["track"]
    s.cards_option = d["cards"]
    s.cubes = d["cubes"]
    s.max_turns = d["max_turns"]
    s.min_draw = d.get("min_draw", DEFAULT_MIN_DRAW)  # states saved before it existed
    if not secret_prng.check_state(rng):
        raise BadPosition("field 'rng' must be a state of shared_rules.secret_prng")
    s.rng = rng
    s.turn = _field(d, "turn", int)
    if not 0 <= s.turn <= s.max_turns:
        raise BadPosition("field 'turn' must be from 0 to max_turns")
    s.active = _field(d, "active", int)
    if not 0 <= s.active < n:
        raise BadPosition("field 'active' must be a player from 0 to %d" % (n - 1))
    phase = _field(d, "phase", str)
    if phase not in PHASES:
        raise BadPosition("field 'phase' must be one of %s" % ", ".join(PHASES))
    s.phase = PHASES.index(phase)
    s.pos = _ints(_field(d, "positions", list), "positions", n, START, FINISH)
    boars = _field(d, "boars", list)
    if len(boars) != n:
        raise BadPosition("field 'boars' must name %d Boar cards" % n)
    s.boar = [_card_ref(data, b, "boars") for b in boars]
    hands = _field(d, "hands", list)
    if len(hands) != n:
        raise BadPosition("field 'hands' must hold %d lists of cards" % n)
    for p in range(n):
        if not isinstance(hands[p], list) or len(hands[p]) > HAND_LIMIT:
            raise BadPosition("field 'hands': hand %d must be a list of at most %d cards"
                              % (p, HAND_LIMIT))
        s.hands.append([_card_ref(data, x, "hands") for x in hands[p]])
    if len(bags) != n:
        raise BadPosition("field 'bags' must hold %d bags" % n)
    s.bags = [_ints(b, "bags", 5, 0, MAX_CUBES) for b in bags]
    s.supply = _ints(_field(d, "supply", list), "supply", N_FOOD, 0, MAX_CUBES)
    display = _field(d, "display", list)
    if len(display) != DISPLAY_SLOTS:
        raise BadPosition("field 'display' must hold %d slots" % DISPLAY_SLOTS)
    s.display = [_card_ref(data, x, "display", True) for x in display]
    s.deck = [_card_ref(data, x, "deck") for x in deck]
    if not 0 <= deck_hidden <= len(s.deck):
        raise BadPosition("field 'deck_hidden' must be from 0 to the deck's size")
    s.deck_hidden = deck_hidden
    s.drawn = _ints(_field(d, "drawn", list), "drawn", 5, 0, MAX_CUBES)
    s.front = _ints(_field(d, "front", list), "front", 5, 0, MAX_CUBES)
    used = _field(d, "used", list)
    for u in used:
        if not isinstance(u, str) or (u not in ("top", "bottom") and u not in data.index) \
                or used.count(u) > 1:
            raise BadPosition("field 'used': %r is not a diet used once this turn" % (u,))
    s.used = used[:]
    s.bought = _card_ref(data, d.get("bought"), "bought", True)
    s.keep = _card_ref(data, d.get("keep"), "keep", True)
    s.then = _card_ref(data, d.get("then"), "then", True)
    for key in ("bought", "keep", "then"):
        _field(d, key, (str, type(None)))
    s.end = _field(d, "end", str)
    if s.end not in END_REASONS or (s.end == "") != (s.phase != PH_OVER):
        raise BadPosition("field 'end' must be 'finish' or 'turns' exactly when the game "
                          "is over")
    _check_consistency(s)
    return s


def _check_consistency(s):
    data = s.deck_data
    n = s.players
    # Every card is in exactly one place; the Boar cards are the players' own.
    for b in s.boar:
        if data.cards[b]["kind"] != "boar" or s.boar.count(b) > 1:
            raise BadPosition("field 'boars': each player has a different Boar card")
    places = s.deck + [x for x in s.display if x >= 0]
    for h in s.hands:
        places += h
    if sorted(places) != sorted(data.others):
        raise BadPosition("the Diet and Vendetta cards must each be in exactly one place "
                          "(hands, display, deck)")
    # Every cube is somewhere: black cubes stay with their bag's owner.
    for c in range(5):
        total = sum(b[c] for b in s.bags) + s.front[c] + (s.supply[c] if c < N_FOOD else 0)
        want = s.cubes if c < N_FOOD else PER_COLOUR_IN_BAG * n
        if total != want:
            raise BadPosition("there must be %d %s cubes in bags, reserve and in front of "
                              "the active player; there are %d" % (want, COLOURS[c], total))
    for p in range(n):
        black = PER_COLOUR_IN_BAG - (s.front[BLACK] if p == s.active else 0)
        if s.bags[p][BLACK] != black:
            raise BadPosition("field 'bags': bag %d must hold %d black cubes" % (p, black))
    ph = s.phase
    if ph == PH_DRAW and (any(s.drawn) or any(s.front) or s.used or s.bought >= 0):
        raise BadPosition("before drawing, nothing is drawn, in front, used or bought")
    for c in range(5):
        if s.front[c] > s.drawn[c]:
            raise BadPosition("field 'front': more %s cubes in front than drawn" % COLOURS[c])
    if s.drawn[BLACK] >= SICK_AT and any(s.front):
        raise BadPosition("a sick boar has no cubes in front")
    if ph != PH_DRAW and ph != PH_OVER and not any(s.drawn) and s.min_draw:
        raise BadPosition("after drawing, at least %d cube is drawn (min_draw)" % s.min_draw)
    if s.bought >= 0 and s.bought not in s.hands[s.active] + s.deck:
        raise BadPosition("field 'bought': the card bought is the active player's or "
                          "was discarded")
    if ph == PH_DISCARD:
        if s.keep not in s.hands[s.active] or 1 + len(s.hands[s.active]) != HAND_LIMIT + 1:
            raise BadPosition("the discard phase needs six cards and the card kept")
        if s.then >= 0 and s.then != s.keep:
            raise BadPosition("field 'then' is the vendetta kept during the discard")
    else:
        if s.keep >= 0 or s.then >= 0:
            raise BadPosition("fields 'keep' and 'then' are set only in the discard phase")
        for h in s.hands:
            if 1 + len(h) > HAND_LIMIT:
                raise BadPosition("field 'hands': at most %d cards with the Boar card"
                                  % HAND_LIMIT)
    if ph == PH_OVER and s.end == "finish" and FINISH not in s.pos:
        raise BadPosition("a game ended at the finish has a boar on the Finish")
    if ph != PH_OVER and FINISH in s.pos:
        raise BadPosition("a boar on the Finish ends the game")
    if ph == PH_VENDETTA and not s._triggered():
        raise BadPosition("the vendetta phase needs a triggered vendetta")
    if ph == PH_MENU and s.drawn[BLACK] != PER_COLOUR_IN_BAG:
        raise BadPosition("the menu is changed only after drawing all 5 black cubes")
    if ph == PH_SPACE and len(s._space_options()) < 2:
        raise BadPosition("the space phase needs a choice to make")


def public_move(state, move, viewer):
    """What `viewer` learns of another player's move: all of it. Every move of the game
    is made in the open (draws, payments, tickets, cards); only the bags stay private,
    and a move never names their contents."""
    return move


def determinize(view, seed):
    """A full state that `view` (from state.view(p)) allows: the bags the viewer cannot
    see dealt at random from the cubes they cannot account for, the unseen part of the
    deck shuffled, and the PRNG drawn from `seed`."""
    if not isinstance(view, dict) or view.get("game") != NAME:
        raise BadPosition("not a Boars on the Run! view")
    x = secret_prng.seed_state(seed)
    n = _field(view, "players", int)
    if n not in PLAYER_COUNTS:
        raise BadPosition("field 'players' must be 2, 3 or 4")
    viewer = view.get("viewer")
    if viewer is not None and (not isinstance(viewer, int) or not 0 <= viewer < n):
        raise BadPosition("field 'viewer' must be a player or None")
    sizes = _ints(_field(view, "bag_sizes", list), "bag_sizes", n, 0, 5 * MAX_CUBES)
    front = _ints(_field(view, "front", list), "front", 5, 0, MAX_CUBES)
    supply = _ints(_field(view, "supply", list), "supply", N_FOOD, 0, MAX_CUBES)
    active = _field(view, "active", int)
    cubes = _field(view, "cubes", int)
    own = None
    if viewer is not None:
        own = _ints(_field(view, "bag", list), "bag", 5, 0, MAX_CUBES)
    pool = []
    for c in range(N_FOOD):
        k = cubes - supply[c] - front[c] - (own[c] if own else 0)
        if k < 0:
            raise BadPosition("the view accounts for more %s cubes than the game has"
                              % COLOURS[c])
        pool += [c] * k
    x = _shuffle(pool, x)
    bags = []
    for p in range(n):
        if p == viewer:
            bags.append(own[:])
            continue
        black = PER_COLOUR_IN_BAG - (front[BLACK] if p == active else 0)
        food = sizes[p] - black
        if food < 0 or food > len(pool):
            raise BadPosition("bag %d's size does not fit the cubes left to deal" % p)
        bag = [0] * 5
        for c in pool[:food]:
            bag[c] += 1
        pool = pool[food:]
        bag[BLACK] = black
        bags.append(bag)
    if pool:
        raise BadPosition("the bag sizes do not account for every cube")
    data = _resolve("cards", _field(view, "cards", str))
    known = _field(view, "deck_known", list)
    hidden = _field(view, "deck_hidden", int)
    seen = set()
    for group in [known, _field(view, "display", list)] + list(_field(view, "hands", list)):
        if not isinstance(group, list):
            raise BadPosition("a view's card lists are lists")
        for cid in group:
            if cid is not None:
                seen.add(cid)
    unseen = [i for i in data.others if data.cards[i]["id"] not in seen]
    if len(unseen) != hidden:
        raise BadPosition("field 'deck_hidden' must count the cards nobody has seen (%d)"
                          % len(unseen))
    x = _shuffle(unseen, x)
    deck = [data.cards[i]["id"] for i in unseen] + known
    return _build(view, x, bags, deck, hidden)
