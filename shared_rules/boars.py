"""Boars on the Run!: the complete rules, pure (no I/O, no clock, no global randomness).

The rulebook is ../shared/rulebooks/boars-on-the-run.md. The track and the card list are
data (house data sets in shared_rules/boars_data.py, or a user's own files passed as text),
read by parse_track() and parse_cards(). Every choice the rulebook leaves open is listed in
docs/rules-decisions.md ("Boars on the Run!") and lives in the files below as a named
option, constant or data; the notation is docs/boars-notation.md.

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

The rules are in several files, each importing only those below it (none imports this one):
- `boars` (this one): the game's interface: new_game(), BoarsState with its fields, its
  shared methods, legal_moves() and play(), copies, JSON and views; from_json(),
  determinize(), public_move();
- `boars_legal`, `boars_turn`: BoarsState's mixins: what may be played now and why a move
  is refused; what each move does, from the draw to the end of the turn;
- `boars_check`: the options of a new game and every field of a state read from outside,
  checked;
- `boars_files`: the track and card files read and checked, options naming them resolved,
  cards described in words;
- `boars_options`, the lowest: the options, the rulebook's numbers and the constants and
  cube helpers all share;
- `boars_data`: the house track and cards, as text.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

import json

from shared_rules import secret_prng
from shared_rules.boars_check import _check_options, _field, _ints, fill_checked
# The data files' readers, part of this module's interface too.
from shared_rules.boars_files import (  # noqa: F401
    Cards, Track, _resolve, card_info, cards_list, parse_cards, parse_track, track_spaces)
from shared_rules.boars_legal import LegalMoves
# The options and shared constants, part of this module's interface too.
from shared_rules.boars_options import (  # noqa: F401
    BLACK, BLUE, BUMP, CARD_FIELDS, CARDS_HEADER, COLOURS, DEFAULT_CARDS, DEFAULT_CUBES,
    DEFAULT_MAX_TURNS, DEFAULT_MIN_DRAW, DEFAULT_TRACK, DIET_KINDS, DISPLAY_SLOTS,
    END_REASONS, FINISH, FOOD_SAME, GREEN, HAND_LIMIT, K_FINISH, K_FOOD, K_PREDATOR, K_START,
    K_STATION, LETTERS, MAX_CUBES, MAX_TEXT, N_FOOD, OPTIONS, PER_COLOUR_IN_BAG, PH_ACT,
    PH_DISCARD, PH_DRAW, PH_MENU, PH_OVER, PH_SPACE, PH_VENDETTA, PHASES, PLAYER_COUNTS,
    PREDATOR_ANY, RED, RESERVED_IDS, SICK_AT, SPACE_KINDS, START, TICKETS, TITLE,
    TRACK_HEADER, TRACK_SPACES, VENDETTA_KINDS, YELLOW, cubes_text)
from shared_rules.boars_turn import TurnSteps
from shared_rules.errors import BadPosition, IllegalMove

NAME = "boars"
HIDDEN_INFORMATION = True  # bags are private, the deck is shuffled
# Seeds from 0 to SEED_MAX; every draw comes from shared_rules.secret_prng, whose draws
# do not give the seed away (docs/secrets.md).
SEED_MAX = secret_prng.SEED_MAX
FORMAT_VERSION = const(1)


# ---------------------------------------------------------------- JSON writing
# The state's fields are ints (the generator's big one too), None, ids and words already
# checked to be printable ASCII, and lists and tuples of those: no dict, whose key order
# MicroPython's json would not keep. So each field is written by the runtime's own json
# (C on both), with no spaces; the text is the one a hand-written encoder gave before
# (the logs' digests depend on it), and several times faster (the conformance test and
# the bots compare states by it). CPython keeps a dict's order and its json has an encoder
# made once (json.dumps with separators makes one at each call): the whole state in one
# call there; MicroPython's json has neither, so field by field.
_SEPARATORS = (",", ":")
try:
    _encode_ordered = json.JSONEncoder(separators=_SEPARATORS).encode
except AttributeError:  # MicroPython
    _encode_ordered = None


# ---------------------------------------------------------------- the state

class BoarsState(LegalMoves, TurnSteps):
    """One game of Boars on the Run!. Build it with new_game() or from_json().

    The fields are set here; what may be played comes from LegalMoves (boars_legal), what
    a move does from TurnSteps (boars_turn)."""

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
        if _encode_ordered is not None:
            return _encode_ordered(dict(pairs))
        dumps = json.dumps
        return "{" + ",".join('"' + k + '":' + dumps(v, separators=_SEPARATORS)
                              for k, v in pairs) + "}"

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
    return fill_checked(BoarsState(), d, _field(d, "rng", int), _field(d, "bags", list),
                        _field(d, "deck", list), _field(d, "deck_hidden", int))


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
    return fill_checked(BoarsState(), view, x, bags, deck, hidden)
