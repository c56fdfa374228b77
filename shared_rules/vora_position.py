"""Vora's positions as text (docs/vora-notation.md, "Positions"): the notation written
by VoraState.position() and read by vora.from_position() and new_game(position=...).

Apart from shared_rules/vora.py, which loads it when a position is first written or read:
on the board a game dealt from the box never needs it, and its code (some 3 KB of the
board's heap) stays out of RAM unless a PC sets up a position.
"""

from shared_rules import prng
from shared_rules.errors import BadPosition
from shared_rules.vora import (CELL_NAMES, DEFAULT_CHAIN_LINES, DEFAULT_MAX_TURNS,
                               DEFAULT_PUSHED_OUT, EMPTY, LETTERS, N_TYPES, TYPES, VoraState,
                               _box_counts, _check_options)


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
