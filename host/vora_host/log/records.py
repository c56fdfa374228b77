"""Game records: what `vora play --record` writes and `vora replay` reads.

A record is one JSON object:

    {"game": "vora", "format": 1, "options": {...}, "seed": N, "players": P,
     "agents": [...], "moves": [...], "digests": [...], "result": {...}}

`options` holds every option passed to `vora.new_game` explicitly (box, seats,
pushed_out, max_turns), house defaults included, so a record still replays the same
game if a default changes later. `digests[k]` is `state.digest()` after `moves[k]`.
`agents` (who played each seat) and `result` are informative; replay checks `result`
against the replayed game when it is present.

The starting state comes from `shared_rules.games.start`, the one definition of what a
record means that the board's firmware shares. Loading parses JSON only: nothing in a
file is ever evaluated.
"""

import json
import os

from shared_rules import games, vora
from shared_rules.errors import BadPosition, IllegalMove

__all__ = [
    "RECORD_FORMAT", "RecordError", "game_options", "new_record", "result_of",
    "write_record", "dumps_record", "load_record", "check_record", "replay",
]

RECORD_FORMAT = 1
# The options vora.new_game accepts, and the JSON type each must have in a record.
OPTION_TYPES = {"box": dict, "seats": str, "pushed_out": str, "max_turns": int,
                "chain_lines": str, "position": (str, type(None))}


class RecordError(Exception):
    """A record that cannot be read or does not replay. `step` is the 1-based move
    number where replay failed, or None when the problem is the file itself."""

    def __init__(self, message, step=None):
        super().__init__(message)
        self.step = step


def game_options(players, box=None, seats=None, pushed_out=vora.DEFAULT_PUSHED_OUT,
                 max_turns=vora.DEFAULT_MAX_TURNS):
    """All new_game options spelled out, defaults filled in (see the module docstring)."""
    if box is None:
        box = dict(zip(vora.TYPES, vora.DEFAULT_BOX))
    if seats is None:
        seats = vora.DEFAULT_SEATS.get(players)
    return {"box": dict(box), "seats": seats, "pushed_out": pushed_out, "max_turns": max_turns}


def new_record(players, seed, options, agents=(), game=vora.NAME):
    """An empty record for a game about to start."""
    return {
        "game": game,
        "format": RECORD_FORMAT,
        "options": dict(options),
        "seed": seed,
        "players": players,
        "agents": list(agents),
        "moves": [],
        "digests": [],
        "result": {},
    }


def result_of(state, stopped=None):
    """The `result` part of a record. `stopped` says why an unfinished game stopped
    ('quit', 'interrupted', 'end of input')."""
    over = state.is_over()
    return {
        "over": over,
        "end": state.end_reason() if over else (stopped or "unfinished"),
        "turns_completed": state.turn_count(),
        "scores": state.scores(),
        "winner": state.winner(),
    }


def write_record(path, record):
    """Write a record as JSON, atomically: a crash mid-write never leaves half a file."""
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dumps_record(record))
    os.replace(tmp, path)


def dumps_record(record):
    """Record JSON laid out for people: one line per field, and one line per move and
    per digest, so two records of the same game diff line by line."""
    lines = []
    for key, value in record.items():
        if key in ("moves", "digests") and isinstance(value, list) and value:
            body = "[\n  " + ",\n  ".join(json.dumps(v) for v in value) + "\n ]"
        else:
            body = json.dumps(value)
        lines.append(" %s: %s" % (json.dumps(key), body))
    return "{\n" + ",\n".join(lines) + "\n}\n"


def load_record(path):
    """Read and check a record file; RecordError with a clear message otherwise."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise RecordError("no such file: %s" % path)
    except IsADirectoryError:
        raise RecordError("%s is a directory, not a game record" % path)
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError("cannot read %s: %s" % (path, exc))
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise RecordError("%s is not JSON (%s)" % (path, exc))
    check_record(record)
    return record


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_record(record):
    """Check a record's shape before replaying it; raises RecordError."""
    if not isinstance(record, dict):
        raise RecordError("a game record is a JSON object, not %s" % type(record).__name__)
    if record.get("game") != vora.NAME:
        raise RecordError("this is a record of game %r, not %r" % (record.get("game"), vora.NAME))
    fmt = record.get("format", RECORD_FORMAT)
    if fmt != RECORD_FORMAT:
        raise RecordError("record format %r is not one this program reads (%d)"
                          % (fmt, RECORD_FORMAT))
    players = record.get("players")
    if not _is_int(players) or players not in vora.DEFAULT_SEATS:
        raise RecordError("'players' must be 2, 3 or 4, not %r" % (players,))
    seed = record.get("seed")
    if not _is_int(seed) or seed < 0:
        raise RecordError("'seed' must be a non-negative integer, not %r" % (seed,))
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise RecordError("'options' must be an object, not %r" % (options,))
    for key, value in options.items():
        kind = OPTION_TYPES.get(key)
        if kind is None:
            raise RecordError("unknown option %r (known: %s)" % (key, ", ".join(OPTION_TYPES)))
        if not isinstance(value, kind) or isinstance(value, bool):
            raise RecordError("option %r has the wrong type: %r" % (key, value))
    moves = record.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RecordError("'moves' must be a list of move texts")
    digests = record.get("digests")
    if digests is not None:
        if not isinstance(digests, list) or not all(isinstance(d, str) for d in digests):
            raise RecordError("'digests' must be a list of texts")
        if len(digests) != len(moves):
            raise RecordError("%d digests for %d moves: there must be one per move"
                              % (len(digests), len(moves)))


def start_state(record):
    """The state before the first move; RecordError if the options are refused."""
    try:
        return games.start(record)
    except BadPosition as exc:
        raise RecordError("the record's game cannot be set up: %s" % exc)


def replay(record, on_step=None):
    """Replay a checked record and return the final state.

    `on_step(k, player, move, state)` is called after each move k (1-based) with the
    player who played it. Raises RecordError naming the step of the first illegal move
    or digest mismatch, or None as the step when the recorded result disagrees.
    """
    state = start_state(record)
    digests = record.get("digests")
    for k, move in enumerate(record["moves"], 1):
        player = state.to_act()
        try:
            state.play(move)
        except IllegalMove as exc:
            raise RecordError("step %d: illegal move %r: %s" % (k, move, exc.reason), step=k)
        if digests is not None and state.digest() != digests[k - 1]:
            raise RecordError("step %d (%s): digest mismatch: the record has %s, the replay "
                              "gives %s" % (k, move, digests[k - 1], state.digest()), step=k)
        if on_step is not None:
            on_step(k, player, move, state)
    _check_result(record.get("result"), state)
    return state


def _check_result(result, state):
    # Only the fields present are compared: a hand-written record may leave them out.
    if not isinstance(result, dict):
        return
    if "over" in result and bool(result["over"]) != state.is_over():
        raise RecordError("the record says the game is %s, the replay says it is %s"
                          % ("over" if result["over"] else "unfinished",
                             "over" if state.is_over() else "unfinished"))
    if "scores" in result and result["scores"] != state.scores():
        raise RecordError("the record's final scores %s differ from the replay's %s"
                          % (result["scores"], state.scores()))
    if "winner" in result and state.is_over() and result["winner"] != state.winner():
        raise RecordError("the record names winner %r, the replay %r"
                          % (result["winner"], state.winner()))
