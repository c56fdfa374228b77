"""What a save holds, checked: vora_fw.store says a file is whole (its checksum), not that
it is a game. parse_game() checks what a save holds, as the link checks what a host sends
(sizes and nesting before parsing, then every field), replays its moves from the seed and
compares the result with the saved state, and raises BadSave for anything else.

Its own module, loaded only when a save is read (a resume at power-up, a RESYNC from the
PC: vora_fw.vora_ui_restore) and let go after: the store, which every move uses, does not
keep it on the heap (issue 40).
"""

import json

from shared_rules.checks import json_too_deep
from vora_fw.store import MAX_FILE

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x


MAX_SAVED_MOVES = const(0xFFFF)  # move numbers are u16 on the link
MAX_MOVE_TEXT = const(64)
_MAX_DEPTH = const(8)  # a save nests 3 levels deep (the state's farms); deeper is not a save


class BadSave(ValueError):
    """A save whose checksum holds but whose contents are not a game this firmware wrote."""


def _whole(d, key, lo, hi):
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise BadSave("%s must be a whole number from %d to %d, not %r" % (key, lo, hi, v))
    return v


MAX_START_TEXT = const(200)  # a position text: 25 letters and a few short fields


def parse_game(text):
    # str -> dict {"game_id", "seed", "moves", "state"} with every field checked (the state
    # still a dict), its moves replayed from the seed to the saved state (check_replay), or
    # BadSave naming what is wrong.
    if not isinstance(text, str) or len(text) > MAX_FILE:
        raise BadSave("not a save of at most %d bytes" % MAX_FILE)
    if json_too_deep(text.encode("utf-8"), _MAX_DEPTH):
        # Before json.loads: CPython's parser recurses, and a deep enough text raises
        # RecursionError instead of a clear error.
        raise BadSave("nested deeper than %d levels" % _MAX_DEPTH)
    try:
        d = json.loads(text)
    except ValueError:
        raise BadSave("not JSON")
    if not isinstance(d, dict):
        raise BadSave("not a JSON object")
    _whole(d, "game_id", 0, 0xFFFFFFFF)
    _whole(d, "seed", 0, 0xFFFFFFFF)  # shared_rules.prng.SEED_MAX
    moves = d.get("moves")
    if not isinstance(moves, list) or len(moves) > MAX_SAVED_MOVES:
        raise BadSave("moves must be a list of at most %d moves" % MAX_SAVED_MOVES)
    for m in moves:
        if not isinstance(m, str) or not 0 < len(m) <= MAX_MOVE_TEXT:
            raise BadSave("a move is text of 1 to %d characters, not %r" % (MAX_MOVE_TEXT, m))
        for c in m.encode("utf-8"):
            if c < 0x20 or c > 0x7E:
                raise BadSave("a move is printable ASCII, not %r" % m)
    if not isinstance(d.get("state"), dict):
        raise BadSave("state must be a JSON object")
    start = d.get("start")  # the position the game started from, or None for a deal
    if start is not None and (not isinstance(start, str) or len(start) > MAX_START_TEXT):
        raise BadSave("start must be a position text of at most %d characters" % MAX_START_TEXT)
    bots = d.get("bots", "")  # the seats the board's own bot plays
    if not isinstance(bots, str) or len(bots) > 4 or any(b not in "SWNE" for b in bots):
        raise BadSave("bots must be seat letters (S, W, N, E), not %r" % (bots,))
    check_replay(d)
    return d


def check_replay(d):
    # A save's parts must agree: its moves, played from the game's start (the seed, or the
    # position it started from), lead to exactly its state. A save whose move list says
    # one game and whose state another (a fault under a valid checksum, a bug) is not
    # resumed: the board would play on from a state the record (what the host replays and
    # logs) does not give. BadSave says where they part.
    from shared_rules import vora
    from shared_rules.errors import RulesError
    try:
        saved = vora.from_json(d["state"])
    except RulesError as exc:
        raise BadSave("its state is not a Vora state: %s" % exc)
    try:
        if d.get("start") is not None:
            state = vora.new_game(saved.players, d["seed"], seats=saved.seats,
                                  pushed_out=saved.pushed_out, max_turns=saved.max_turns,
                                  chain_lines=saved.chain_lines, position=d["start"])
        else:
            state = vora.new_game(saved.players, d["seed"], seats=saved.seats,
                                  pushed_out=saved.pushed_out, max_turns=saved.max_turns,
                                  chain_lines=saved.chain_lines)
    except RulesError as exc:
        raise BadSave("its game cannot be set up again: %s" % exc)
    n = 0
    for move in d["moves"]:
        n += 1
        try:
            state.play(move)
        except RulesError as exc:
            raise BadSave("its move %d %r does not replay: %s" % (n, move, exc))
    if state.to_json() != saved.to_json():
        raise BadSave("its %d moves lead to another state than the one saved (digest %s, "
                      "saved %s)" % (n, state.digest(), saved.digest()))
