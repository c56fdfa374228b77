"""Vora's states from text and positions as text, loaded only when one is read or written:
- the notation of positions (docs/vora-notation.md, "Positions"): written by
  VoraState.position(), read by vora.from_position() and new_game(position=...);
- a state's JSON (VoraState.to_json()) read back by vora.from_json(), every field checked.

Apart from shared_rules/vora.py, which loads it inside those functions: on the board a game
dealt from the box and played never needs it, and its code (some 5 KB of the board's heap)
is in RAM only while the board resumes its save, sets up a position or takes the PC's game
(vora_fw.vora_ui lets it go after each).
"""

from shared_rules import prng
from shared_rules.errors import BadPosition
from shared_rules.vora import (CELL_NAMES, DEFAULT_CHAIN_LINES, DEFAULT_MAX_TURNS,
                               DEFAULT_PUSHED_OUT, EMPTY, FORMAT_VERSION, LETTERS, N_TYPES, NAME,
                               PHASE_ACTION, PHASE_BONUS, PHASE_COLLECT, PHASE_OVER, TYPES,
                               VoraState, _box_counts, _check_options)


def position(state):
    """The position of `state` as text (VoraState.position())."""
    ranks = []
    for r in range(4, -1, -1):
        ranks.append("".join("." if t == EMPTY else LETTERS[t]
                             for t in state.grid[r * 5:r * 5 + 5]))
    return " ".join((
        "/".join(ranks), state.seats, str(state.active),
        "/".join(_counts_letters(f) for f in state.farms),
        _counts_numbers(state.box), _counts_numbers(state.eaten),
        str(state.turn), str(state.rng),
    ))


def _counts_letters(counts):
    s = "".join(LETTERS[t] * counts[t] for t in range(N_TYPES))
    return s or "-"


def _counts_numbers(counts):
    s = "".join(LETTERS[t] + str(counts[t]) for t in range(N_TYPES) if counts[t])
    return s or "-"


def _parse_letters(text, what):
    counts = [0] * N_TYPES
    if text == "-":
        return counts
    for ch in text:
        t = LETTERS.find(ch)
        if t < 0:
            raise BadPosition("%s: %r is not a cube letter (%s)" % (what, ch, LETTERS))
        counts[t] += 1
    return counts


def _parse_numbers(text, what):
    counts = [0] * N_TYPES
    if text == "-":
        return counts
    k = 0
    while k < len(text):
        t = LETTERS.find(text[k])
        if t < 0:
            raise BadPosition("%s: %r is not a cube letter (%s)" % (what, text[k], LETTERS))
        j = k + 1
        while j < len(text) and text[j].isdigit():
            j += 1
        if j == k + 1:
            raise BadPosition("%s: the letter %s needs a count after it" % (what, text[k]))
        counts[t] += int(text[k + 1:j])
        k = j
    return counts


def from_start(players, seed, box, seats, pushed_out, max_turns, chain_lines, position):
    # A game set up from a position (teaching, puzzles). Without its PRNG field the seed
    # decides the refills. The position is kept in full (all 8 fields) as the option, so
    # options() deals the same game again; box and seats, when given, must agree with it.
    s = from_position(position, pushed_out, max_turns, chain_lines)
    if len(position.split()) < 8:
        s.rng = prng.seed_state(seed)
    else:
        prng.check_seed(seed)
    if players != s.players:
        raise BadPosition("the position seats %d players (%s), not %r" % (
            s.players, s.seats, players))
    if seats is not None and seats != s.seats:
        raise BadPosition("the position seats %s, not %s" % (s.seats, seats))
    s.start = s.position()
    if box is not None and _box_counts(box) != [s.options()["box"][n] for n in TYPES]:
        raise BadPosition("the position holds its own cubes: box %r does not agree" % (box,))
    return s


def from_position(text, pushed_out=DEFAULT_PUSHED_OUT, max_turns=DEFAULT_MAX_TURNS,
                  chain_lines=DEFAULT_CHAIN_LINES):
    """Set up any position at the start of a turn (see docs/vora-notation.md).

    The last three fields (eaten cubes, turns completed, PRNG state) may be left out.
    """
    if not isinstance(text, str):
        raise BadPosition("a position is a text, not %r" % (text,))
    fields = text.split()
    if not 5 <= len(fields) <= 8:
        raise BadPosition("a position has 5 to 8 fields separated by spaces "
                          "(meadow seats to-act farms box [eaten turn rng]), got %d" % len(fields))
    fields += ["-", "0", str(prng.seed_state(0))][len(fields) - 5:]
    meadow, seats, active, farms, box, eaten, turn, rng = fields
    ranks = meadow.split("/")
    if len(ranks) != 5 or any(len(r) != 5 for r in ranks):
        raise BadPosition("the meadow is 5 ranks of 5 letters separated by '/', rank 5 first")
    s = VoraState()
    s.seats = _check_options(len(seats), seats, pushed_out, max_turns, chain_lines)
    s.players = len(seats)
    s.pushed_out = pushed_out
    s.max_turns = max_turns
    s.chain_lines = chain_lines
    for k in range(5):
        for f in range(5):
            ch = ranks[k][f]
            t = LETTERS.find(ch)
            if t < 0:
                raise BadPosition("meadow %s: %r is not a cube letter (%s); a position at the "
                                  "start of a turn has no gaps" % (CELL_NAMES[(4 - k) * 5 + f],
                                                                   ch, LETTERS))
            s.grid[(4 - k) * 5 + f] = t
    if not active.isdigit() or int(active) >= s.players:
        raise BadPosition("player to act must be 0 to %d, not %r" % (s.players - 1, active))
    s.active = int(active)
    farm_texts = farms.split("/")
    if len(farm_texts) != s.players:
        raise BadPosition("%d farms given for %d players" % (len(farm_texts), s.players))
    s.farms = [_parse_letters(f, "farm of player %d" % p) for p, f in enumerate(farm_texts)]
    for p in range(s.players):
        if not sum(s.farms[p]):
            raise BadPosition("farm of player %d is empty; no player may ever have zero cubes" % p)
    s.box = _parse_numbers(box, "box")
    s.eaten = _parse_numbers(eaten, "eaten")
    if not turn.isdigit():
        raise BadPosition("turns completed must be a number, not %r" % turn)
    s.turn = int(turn)
    if not rng.isdigit() or not 0 < int(rng) <= 0xFFFFFFFF:
        raise BadPosition("the PRNG state must be a number from 1 to 4294967295, not %r" % rng)
    s.rng = int(rng)
    return s


def from_json(text):
    """Rebuild a state from to_json() text (or that text already parsed into a dict),
    checking every field."""
    if isinstance(text, dict):
        d = text
    else:
        import json
        try:
            d = json.loads(text)
        except (ValueError, TypeError) as exc:
            raise BadPosition("not JSON text: %s" % (exc,))
    if not isinstance(d, dict):
        raise BadPosition("a Vora state is a JSON object")
    if d.get("game") != NAME or d.get("format") != FORMAT_VERSION:
        raise BadPosition("not a Vora state of format %d (game=%r, format=%r)"
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
        if not isinstance(v, list) or len(v) != n or any(not isinstance(x, int) or not lo <= x <= hi for x in v):
            raise BadPosition("field %r must be %d integers from %d to %d" % (key, n, lo, hi))
        return v[:]  # the state's own list: playing on it must not change the caller's dict

    s = VoraState()
    s.players = field("players", int)
    s.seats = _check_options(s.players, field("seats", str), field("pushed_out", str),
                             field("max_turns", int), field("chain_lines", str))
    s.pushed_out = d["pushed_out"]
    s.max_turns = d["max_turns"]
    s.chain_lines = d["chain_lines"]
    s.grid = ints("grid", 25, EMPTY, N_TYPES - 1)
    farms = field("farms", list)
    if len(farms) != s.players:
        raise BadPosition("field 'farms' must hold %d farms" % s.players)
    for p in range(s.players):
        s.farms.append(ints("farms[%d]" % p, N_TYPES, 0, 9999, farms[p]))
    s.box = ints("box", N_TYPES, 0, 9999)
    s.eaten = ints("eaten", N_TYPES, 0, 9999)
    s.rng = field("rng", int)
    if not 0 < s.rng <= 0xFFFFFFFF:
        raise BadPosition("field 'rng' must be from 1 to 4294967295")
    s.turn = field("turn", int)
    s.active = field("active", int)
    if not 0 <= s.active < s.players:
        raise BadPosition("field 'active' must be a player from 0 to %d" % (s.players - 1))
    s.phase = field("phase", int)
    if not PHASE_ACTION <= s.phase <= PHASE_OVER:
        raise BadPosition("field 'phase' must be 0 to 3")
    before = field("before", list)
    s.before = ints("before", 25, EMPTY, N_TYPES - 1) if before else []
    s.touched = field("touched", int)
    s.bonus = field("bonus", int)
    s.pinned = field("pinned", int)
    s.chain = field("chain", int)
    s.end = field("end", str)
    if not 0 <= s.touched < 1 << 25 or not 0 <= s.bonus <= 2 or not -1 <= s.pinned < 25 \
            or s.chain not in (0, 1) or s.end not in ("", "box", "turns"):
        raise BadPosition("fields 'touched', 'bonus', 'pinned', 'chain' or 'end' are out of range")
    if (s.phase in (PHASE_COLLECT, PHASE_BONUS)) != bool(s.before):
        raise BadPosition("field 'before' must be given exactly while lines are being collected")
    return s
