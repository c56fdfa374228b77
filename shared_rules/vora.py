"""Vora: the complete rules, pure and small enough for the board.

The rulebook is ../shared/rulebooks/vora.md; every choice it leaves open is listed in
docs/rules-decisions.md and lives here as a named option or constant. The notation for
moves and positions is documented in docs/vora-notation.md.

Board geometry. The meadow's 25 cells are numbered 0..24 = rank * 5 + file, where file
a..e is 0..4 from west to east and rank 1..5 is 0..4 from south to north (cell names as
in chess: a1 is the south-west corner as seen by the player seated South). Players sit
at the sides S, W, N, E. Grid values are cube type codes 0..8, or EMPTY for a gap.

The turn is a small state machine so that every choice is a move:
  ACTION  -> push / ability
  COLLECT -> "take <cell>" a line group the player made, or "pass" to leave the rest
  BONUS   -> after a line of 4 or 5+: "extra <cell>", "steal <player> <type>" or "pass"
then gaps fall towards the active player; lines that a fall makes (the chain) are collected
at once (a bonus is still the player's choice), and the meadow is refilled from the box
when nothing more can be collected.

The rules are in files by concern (issue 42), each a part the board loads or leaves:
- vora.py, this file: the options, scoring, VoraState (its fields and the interface every
  game shares: JSON, digest, views), move codes as text, and building states (new_game,
  from_position, from_json); every public name of the game is read here;
- vora_meadow.py: the cube types, the meadow's geometry, runs and water groups, and
  MeadowMoves, VoraState's mixin: the legal moves, play() and the move handlers, the flow
  of a turn. Its public names are given out again here (vora.CELL_NAMES, vora.PIG, ...);
- vora_position.py: positions as text (docs/vora-notation.md) and from_json()'s checks of
  every field, loaded when first needed (on the board: let go after each use);
- vora_tables.py: the PC's tables of move strings, never on the board.
"""

try:
    from micropython import const
    # On the board, memory is scarce: move strings are built as they are needed.
    _STRING_TABLES = False
except ImportError:  # CPython
    def const(x):
        return x
    # On the PC, speed matters (the lab plays millions of games): every move string is
    # made once, in tables, and legal_moves() copies them (the same lists, faster). They
    # live in shared_rules/vora_tables.py, which never goes on the board.
    _STRING_TABLES = True

from shared_rules import prng
from shared_rules.checks import utf8
from shared_rules.errors import BadPosition
# The meadow and its moves. Most of these names are not used here: they are the game's
# public names (vora.PIG, vora.CELL_NAMES, ...), which everyone reads through this module.
from shared_rules.vora_meadow import (  # noqa: F401
    AROUND, CELL_NAMES, CROW, DUCK, EDGE_CELLS, EDGE_EXIT, EDGE_NAMES, EMPTY, FILES, GRASS,
    LADYBUG, LETTERS, LINES, MOLE, MOVE_CROW, MOVE_DUCK, MOVE_EXTRA, MOVE_LADYBUG,
    MOVE_MOLE, MOVE_PASS, MOVE_PIG, MOVE_PUSH, MOVE_STEAL, MOVE_TAKE, MOVE_VERBS, MOVE_WATER,
    MOVE_WOLF, N_TYPES, ORTHOGONAL, PHASE_ACTION, PHASE_BONUS, PHASE_COLLECT, PHASE_OVER, PIG,
    SHEEP, SIDES, TYPES, VIEW, WATER, WOLF, MeadowMoves, _cells_of, _index,
    cell_index, first_cell, is_animal, runs, water_groups)

NAME = "vora"
TITLE = "Vora"
PLAYER_COUNTS = (2, 3, 4)
HIDDEN_INFORMATION = False  # farms are open on the table; only the box's draws are chance
FORMAT_VERSION = const(2)


# House default: the box holds 12 of each type (108 cubes). The rulebook gives no count.
DEFAULT_BOX = (12, 12, 12, 12, 12, 12, 12, 12, 12)
# House safeguard: a game ends after this many turns even if the box never runs dry
# (the rulebook has no limit; pushes alone never empty the box).
DEFAULT_MAX_TURNS = const(400)
# Where a cube goes when it is pushed out on a side where nobody sits.
PUSHED_OUT_CHOICES = ("box", "pusher")
DEFAULT_PUSHED_OUT = "pusher"
# Lines a fall makes: "collected" at once (the rulebook), or "offered" like the push's own.
CHAIN_LINES_CHOICES = ("collected", "offered")
DEFAULT_CHAIN_LINES = "collected"

# Seats (their order and the sides are in vora_meadow.SIDES): the default ones and facing sides.
DEFAULT_SEATS = {2: "SN", 3: "SWN", 4: "SWNE"}
OPPOSITE = {"S": "N", "N": "S", "W": "E", "E": "W"}

# The options of new_game(): (name, house default, kind, what it decides). The kind is
# "int", "str", "dict" or a tuple of the allowed values (docs/adding-a-game.md).
OPTIONS = (
    ("box", None, "dict", "cubes in the box, {type: count} (default 12 of each type)"),
    ("seats", None, "str", "the sides the players sit at, player 0 first (default SN, SWN, SWNE)"),
    ("pushed_out", DEFAULT_PUSHED_OUT, PUSHED_OUT_CHOICES,
     "where a cube pushed out on a side where nobody sits goes"),
    ("max_turns", DEFAULT_MAX_TURNS, "int", "a safeguard: the game ends after this many turns"),
    ("chain_lines", DEFAULT_CHAIN_LINES, CHAIN_LINES_CHOICES,
     "lines made by a fall: collected at once, or offered like the push's own lines"),
    ("position", None, "str",
     "start from this position instead of a deal: teaching, puzzles"),
)

# The first words of a push, one string per cube type (move_text()).
_PUSH_PREFIX = tuple("push " + name + " " for name in TYPES)


# ---------------------------------------------------------------- scoring

def _type_score(n):
    # Sets count 3 cubes as 1 unit: a unit scores 1, two units (a set of 6) 3, three units
    # (a set of 9) 9. Sets of 9 are worth most per cube, so the best split of any count
    # takes as many 9s as fit, then one 6 or 3; n % 3 cubes stay loose at -1 each.
    # (// and -, not divmod: on the board a divmod is a tuple on the heap, and the bots
    # and the end of a game score every farm.)
    units = n // 3
    return 9 * (units // 3) + (0, 1, 3)[units % 3] - (n - 3 * units)


def _farm_summary(counts):
    # (score, kinds of cube with a set, loose cubes) for a farm given as 9 counts.
    score = kinds = loose = 0
    for n in counts:
        score += _type_score(n)
        if n >= 3:
            kinds += 1
        loose += n % 3
    return score, kinds, loose


def score_farm(counts):
    """Score one farm given as a dict {cube type name: count}.

    >>> score_farm({"crow": 8, "sheep": 5})
    0
    """
    total = 0
    for name in counts:
        if name not in TYPES:
            raise ValueError("unknown cube type %r (expected one of %s)" % (name, ", ".join(TYPES)))
        n = counts[name]
        if not isinstance(n, int) or n < 0:
            raise ValueError("count of %s must be a non-negative integer, not %r" % (name, n))
        total += _type_score(n)
    return total


# ---------------------------------------------------------------- the state

class VoraState(MeadowMoves):
    """One game of Vora. Build it with new_game(), from_position() or from_json().

    The fields are set here; what may be played and what a move does come from
    MeadowMoves (vora_meadow)."""

    def __init__(self):
        self.players = 2
        self.seats = "SN"
        self.pushed_out = DEFAULT_PUSHED_OUT
        self.max_turns = DEFAULT_MAX_TURNS
        self.chain_lines = DEFAULT_CHAIN_LINES
        self.grid = [EMPTY] * 25
        self.farms = []
        self.box = [0] * N_TYPES
        self.eaten = [0] * N_TYPES  # animals eaten by wolves: out of the game
        self.rng = 1
        self.turn = 0  # turns completed
        self.active = 0
        self.phase = PHASE_ACTION
        # The current step's reference: the meadow before the step began, and the cells a
        # cube moved into during it. A line is the active player's when it holds a touched
        # cell or differs from every line of `before`; lines left from a refill are nobody's.
        self.before = []
        self.touched = 0
        self.bonus = 0  # 1: extra cube; 2: extra cube or steal
        # A cell that falls leave in place this turn: the wolf that has eaten, or the pig's
        # entry gap (made by a push, so nothing falls into it; the refill fills it).
        self.pinned = -1
        self.chain = 0  # 1 while the step is a fall's (a chain): its lines are collected
        self.end = ""  # why the game ended: "box" or "turns"
        # The position the game was set up from (option `position`), None for a deal. Not
        # part of to_json(): the digests of dealt games stay as they were; a record keeps it.
        self.start = None

    # ---- the interface shared by every game

    def to_act(self):
        """The player (0-based) who chooses the next move, or None when the game is over."""
        return None if self.phase == PHASE_OVER else self.active

    def is_over(self):
        return self.phase == PHASE_OVER

    def scores(self):
        """Each player's current farm score (final once the game is over)."""
        return [_farm_summary(f)[0] for f in self.farms]

    def ranking_key(self, player):
        """(score, -kinds of sets, -loose cubes): higher wins, in the rulebook's tie order."""
        s, k, l = _farm_summary(self.farms[player])
        return (s, -k, -l)

    def winner(self):
        """The winning player, or None while the game goes on or when it is a draw."""
        if self.phase != PHASE_OVER:
            return None
        keys = [self.ranking_key(p) for p in range(self.players)]
        best = max(keys)
        return keys.index(best) if keys.count(best) == 1 else None

    def options(self):
        """Every option of this game spelled out, house defaults included: new_game()
        with them deals the same game, whatever the defaults become later."""
        # Cubes are never created or lost, so the box as dealt is every cube of each type
        # wherever it is now: the box, the meadow, the farms, the wolves' bellies.
        total = self.box[:]
        for t in self.grid:
            if t != EMPTY:
                total[t] += 1
        for t in range(N_TYPES):
            total[t] += self.eaten[t]
            for farm in self.farms:
                total[t] += farm[t]
        return {"box": {TYPES[t]: total[t] for t in range(N_TYPES)},
                "seats": self.seats, "pushed_out": self.pushed_out,
                "max_turns": self.max_turns, "chain_lines": self.chain_lines,
                "position": self.start}

    def turn_count(self):
        """Turns completed, the last one included once the game is over."""
        return self.turn

    def end_reason(self):
        """Why the game ended: "box" (it could not refill the meadow: the rulebook's end)
        or "turns" (the house safeguard); "" while it goes on."""
        return self.end

    def view(self, player=None):
        """What `player` (None: a spectator) may know, as a JSON-ready dict: everything
        but the PRNG state, which would tell the cubes the box will give next (no view of
        any game holds an "rng" key)."""
        import json
        d = json.loads(self.to_json())
        del d["rng"]
        return d

    def legal_moves(self):
        """Every move the player to act may play now, as sorted notation strings."""
        if _STRING_TABLES and self.phase == PHASE_ACTION:
            return _tables.action_moves(self)
        return [move_text(c) for c in self.legal_codes()]

    def clone(self):
        s = VoraState()
        s.players = self.players
        s.seats = self.seats
        s.pushed_out = self.pushed_out
        s.max_turns = self.max_turns
        s.chain_lines = self.chain_lines
        s.grid = self.grid[:]
        s.farms = [f[:] for f in self.farms]
        s.box = self.box[:]
        s.eaten = self.eaten[:]
        s.rng = self.rng
        s.turn = self.turn
        s.active = self.active
        s.phase = self.phase
        s.before = self.before[:]
        s.touched = self.touched
        s.bonus = self.bonus
        s.pinned = self.pinned
        s.chain = self.chain
        s.end = self.end
        s.start = self.start
        return s

    def to_json(self):
        """The whole state as canonical JSON text (fixed key order, no spaces).

        Written by hand, in three pieces formatted whole (json_pieces) and joined: on the
        board this runs after every move (the save and the digest, from the same pieces),
        and a generic encoder allocated 7 KB for these 460 bytes."""
        p = []
        self.json_pieces(p)
        return "".join(p)

    def json_pieces(self, p):
        """Appends to the list `p` the pieces (str) whose concatenation is to_json(): the
        board writes them to its save and hashes them for the PC's digest without joining
        them, once a move (vora_fw.vora_ui). Three pieces formatted whole: each piece is a
        CRC and a write of the save, and on a 32-bit board a CRC is a new integer."""
        p.append(_JSON_HEAD % (NAME, FORMAT_VERSION, self.players, self.seats, self.pushed_out,
                               self.max_turns, self.chain_lines, _ints(self.grid)))
        p.append(_JSON_SUPPLY % (",".join([_ints(farm) for farm in self.farms]),
                                 _ints(self.box), _ints(self.eaten)))
        p.append(_JSON_TAIL % (self.rng, self.turn, self.active, self.phase,
                               _ints(self.before), self.touched, self.bonus, self.pinned,
                               self.chain, self.end))

    def digest(self):
        """16 hex digits of SHA-256 over to_json(): equal on CPython and MicroPython."""
        return digest_pieces((self.to_json(),), 0, 1)

    def __eq__(self, other):
        return isinstance(other, VoraState) and self.to_json() == other.to_json()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.to_json())

    def __repr__(self):
        if self.phase == PHASE_ACTION:
            # The position with the options that differ from the house defaults.
            opts = ""
            if self.pushed_out != DEFAULT_PUSHED_OUT:
                opts += ", pushed_out=%r" % self.pushed_out
            if self.max_turns != DEFAULT_MAX_TURNS:
                opts += ", max_turns=%r" % self.max_turns
            if self.chain_lines != DEFAULT_CHAIN_LINES:
                opts += ", chain_lines=%r" % self.chain_lines
            return "vora.from_position(%r%s)" % (self.position(), opts)
        return "vora.from_json(%r)" % self.to_json()

    # ---- notation of positions

    def position(self):
        """The position as text: meadow ranks 5..1, seats, player to act, farms, box,
        eaten cubes, turns completed, PRNG state. See docs/vora-notation.md."""
        from shared_rules import vora_position
        return vora_position.position(self)

    def farm(self, player):
        """A player's farm as a dict {type name: count} (types they have none of left out)."""
        f = self.farms[player]
        return {TYPES[t]: f[t] for t in range(N_TYPES) if f[t]}

    def meadow(self):
        """The meadow as 5 strings of letters, rank 5 (north) first; '.' is a gap."""
        return self.position().split(" ")[0].split("/")

    def group_masks(self):
        """In the COLLECT phase, the groups on offer as 25-bit cell masks (else [])."""
        return self._groups() if self.phase == PHASE_COLLECT else []

    def collectable_groups(self):
        """In the COLLECT phase, {first cell name: [cell names]} of the groups on offer."""
        if self.phase != PHASE_COLLECT:
            return {}
        out = {}
        for m in self._groups():
            out[CELL_NAMES[first_cell(m)]] = [CELL_NAMES[i] for i in _cells_of(m)]
        return out


# The words of a move after its verb, as numbers (move_text(), move_code()); the kinds,
# MOVE_CROW and the rest, are in vora_meadow with MOVE_VERBS.
# c: a cell, e: an edge, t: a cube type, p: a player
_MOVE_WORDS = ("c", "cc", "c", "c", "cc", "", "e", "te", "pt", "c", "c", "e")
_PLAYER_WORDS = ("0", "1", "2", "3")
_WORD_NAMES = {"c": CELL_NAMES, "e": EDGE_NAMES, "t": TYPES, "p": _PLAYER_WORDS}


def move_text(code):
    """The notation of move code `code` (legal_codes()); ValueError if it is none."""
    kind = code >> 10
    if 0 <= kind < len(MOVE_VERBS) and not code & ~0x3FFF:
        words = _MOVE_WORDS[kind]
        a = code >> 5 & 31
        b = code & 31
        if not words:
            if not a and not b:
                return MOVE_VERBS[kind]
        elif kind == MOVE_PUSH:
            if a < N_TYPES and b < 20:
                return _PUSH_PREFIX[a] + EDGE_NAMES[b]  # the most common move: one string
        else:
            names = _WORD_NAMES[words[0]]
            if a < len(names):
                if len(words) == 1:
                    if not b:
                        return MOVE_VERBS[kind] + " " + names[a]
                elif b < len(_WORD_NAMES[words[1]]):
                    return "%s %s %s" % (MOVE_VERBS[kind], names[a], _WORD_NAMES[words[1]][b])
    raise ValueError("no Vora move has code %r" % (code,))


def move_code(move):
    """The code of a move in notation (move_text() turned round), or -1 when `move` is not
    written as a Vora move. Whether it is legal now is the state's to say: legal_codes()."""
    if not isinstance(move, str):
        return -1
    words = move.split(" ")
    kind = 0
    while kind < len(MOVE_VERBS) and MOVE_VERBS[kind] != words[0]:
        kind += 1
    if kind == len(MOVE_VERBS):
        return -1
    shape = _MOVE_WORDS[kind]
    if len(words) != len(shape) + 1:
        return -1
    code = kind << 10
    shift = 5
    for k in range(len(shape)):
        v = _index(_WORD_NAMES[shape[k]], words[k + 1])
        if v < 0:
            return -1
        code |= v << shift
        shift = 0
    return code


# ---------------------------------------------------------------- building states

_JSON_HEAD = ('{"game":"%s","format":%d,"players":%d,"seats":"%s","pushed_out":"%s",'
              '"max_turns":%d,"chain_lines":"%s","grid":%s')
_JSON_SUPPLY = ',"farms":[%s],"box":%s,"eaten":%s'
_JSON_TAIL = (',"rng":%d,"turn":%d,"active":%d,"phase":%d,"before":%s,"touched":%d,'
              '"bonus":%d,"pinned":%d,"chain":%d,"end":"%s"}')
# The lists of a state are of the types (9) or the meadow (25) or empty: one format each,
# so a list becomes its text in one allocation (not a text per number joined).
_INTS_9 = "[" + ",".join(("%d",) * N_TYPES) + "]"
_INTS_25 = "[" + ",".join(("%d",) * 25) + "]"


def _ints(values):
    # A list of ints as JSON text.
    n = len(values)
    if n == 25:
        return _INTS_25 % tuple(values)
    if n == N_TYPES:
        return _INTS_9 % tuple(values)
    return "[%s]" % ",".join([str(v) for v in values])


def digest_pieces(pieces, start, end):
    """VoraState.digest() of the state whose to_json() is pieces[start:end] joined (pieces
    from json_pieces()), hashed piece by piece: the board hashes its save's pieces."""
    import hashlib
    import binascii
    h = hashlib.sha256()
    for i in range(start, end):
        h.update(utf8(pieces[i]))
    return binascii.hexlify(h.digest()[:8]).decode()


def _check_options(players, seats, pushed_out, max_turns, chain_lines=DEFAULT_CHAIN_LINES):
    if players not in DEFAULT_SEATS:
        raise BadPosition("Vora is played by 2, 3 or 4 players, not %r" % (players,))
    if seats is None:
        seats = DEFAULT_SEATS[players]
    if not isinstance(seats, str) or len(seats) != players:
        raise BadPosition("seats must name one side per player (e.g. %r), not %r"
                          % (DEFAULT_SEATS[players], seats))
    for s in seats:
        if s not in SIDES or seats.count(s) > 1:
            raise BadPosition("seats %r: each player sits at a different side among S, W, N, E"
                              % seats)
    if pushed_out not in PUSHED_OUT_CHOICES:
        raise BadPosition("pushed_out must be one of %s, not %r"
                          % (", ".join(PUSHED_OUT_CHOICES), pushed_out))
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or not 1 <= max_turns <= 99999:
        raise BadPosition("max_turns must be a whole number from 1 to 99999, not %r" % (max_turns,))
    if chain_lines not in CHAIN_LINES_CHOICES:
        raise BadPosition("chain_lines must be one of %s, not %r"
                          % (", ".join(CHAIN_LINES_CHOICES), chain_lines))
    return seats


def _box_counts(box):
    if box is None:
        return list(DEFAULT_BOX)
    if not isinstance(box, dict):
        raise BadPosition("box must be a dict {cube type: count}, not %r" % (box,))
    counts = [0] * N_TYPES
    for name in box:
        if name not in TYPES:
            raise BadPosition("box: unknown cube type %r (expected one of %s)"
                              % (name, ", ".join(TYPES)))
        n = box[name]
        if not isinstance(n, int) or not 0 <= n <= 999:
            raise BadPosition("box: the count of %s must be an integer from 0 to 999, not %r"
                              % (name, n))
        counts[TYPES.index(name)] = n
    return counts


def new_game(players=2, seed=0, box=None, seats=None, pushed_out=DEFAULT_PUSHED_OUT,
             max_turns=DEFAULT_MAX_TURNS, chain_lines=DEFAULT_CHAIN_LINES, position=None):
    """A new game: the meadow dealt from the box, 2 cubes to player 0, 1 to the others.

    Options: box ({type: count}, default 12 of each), seats (e.g. "SE"; default opposite
    for 2, "SWN" for 3, "SWNE" for 4), pushed_out ("box" or "pusher": where a cube goes
    when pushed out on an empty side), max_turns (safeguard against endless games),
    chain_lines ("collected" or "offered": lines made by a fall), position (a position
    text to start from instead of a deal; see vora_position.from_start).
    """
    if position is not None:
        from shared_rules import vora_position
        return vora_position.from_start(players, seed, box, seats, pushed_out, max_turns,
                                        chain_lines, position)
    s = VoraState()
    s.seats = _check_options(players, seats, pushed_out, max_turns, chain_lines)
    s.players = players
    s.pushed_out = pushed_out
    s.max_turns = max_turns
    s.chain_lines = chain_lines
    s.box = _box_counts(box)
    need = 25 + players + 1
    if sum(s.box) < need:
        raise BadPosition("the box holds %d cube%s; %d players need at least %d"
                          % (sum(s.box), "" if sum(s.box) == 1 else "s", players, need))
    s.rng = prng.seed_state(seed)
    for i in VIEW[s.seats[0]]:
        s.grid[i] = s._draw()
    s.farms = [[0] * N_TYPES for _ in range(players)]
    for p in range(players):
        for _ in range(2 if p == 0 else 1):
            s.farms[p][s._draw()] += 1
    return s


def from_position(text, pushed_out=DEFAULT_PUSHED_OUT, max_turns=DEFAULT_MAX_TURNS,
                  chain_lines=DEFAULT_CHAIN_LINES):
    """Set up any position at the start of a turn (see docs/vora-notation.md).

    The last three fields (eaten cubes, turns completed, PRNG state) may be left out.
    """
    from shared_rules import vora_position
    return vora_position.from_position(text, pushed_out, max_turns, chain_lines)


def determinize(view, seed):
    """A state that `view` (from state.view()) allows, its PRNG drawn from `seed`: what a
    bot searches, so that it never knows which cubes the box will give next."""
    d = dict(view)
    d["rng"] = prng.seed_state(seed)
    return from_json(d)


def from_json(text):
    """Rebuild a state from to_json() text (or that text already parsed into a dict),
    checking every field."""
    # In vora_position with the positions: the board reads a state only to resume its save
    # or to take the PC's game, and play never holds the code of the checks.
    from shared_rules import vora_position
    return vora_position.from_json(text)


if _STRING_TABLES:
    from shared_rules import vora_tables as _tables
