"""Game records: what `vora play --record` writes and `vora replay` reads, for any game.

A record is one JSON object:

    {"game": "vora", "format": 1, "options": {...}, "seed": N, "players": P,
     "agents": [...], "moves": [...], "digests": [...], "result": {...}}

`game` is a name of `shared_rules.games`; `options` holds every option of the game
spelled out (`state.options()`), house defaults included, so a record still replays the
same game if a default changes later. `digests[k]` is `state.digest()` after `moves[k]`.
`agents` (who played each seat) and `result` are informative; replay checks `result`
against the replayed game when it is present.

`vora replay` reads the game log's exports too (JSON, or the text format of
`vora games export --format text`): the checks are those of `vora_host.log.readers`,
the one reader of game files. The starting state comes from `shared_rules.games.start`,
the definition of what a record means that the board's firmware shares. Nothing in a
file is ever evaluated; replay stops at the first move that does not replay.
"""

from shared_rules import games
from shared_rules.errors import BadPosition, IllegalMove

from vora_host import private_files
from vora_host.log import formats, readers
from vora_host.log.checks import END_MAX
from vora_host.log.errors import BadImport

__all__ = [
    "RECORD_FORMAT", "RecordError", "new_record", "result_of", "write_record",
    "dumps_record", "load_record", "read_record", "check_record", "replay",
]

RECORD_FORMAT = formats.RECORD_FORMAT


class RecordError(Exception):
    """A record that cannot be read or does not replay. `step` is the 1-based move
    number where replay failed, or None when the problem is the file itself."""

    def __init__(self, message, step=None):
        super().__init__(message)
        self.step = step


def game_title(name):
    """A game's title for people ("Boars on the Run!"), or its registry name when this
    vora does not know the game (a log written by another version)."""
    try:
        return games.load(name).TITLE
    except BadPosition:
        return name


def new_record(players, seed, options, agents=(), game="vora"):
    """An empty record of `game` (a name of shared_rules.games) about to start."""
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
    """The `result` part of a record, for any game. `stopped` says why an unfinished
    game stopped ('quit', 'interrupted', 'end of input', or a table's own words, which
    are cut to END_MAX characters, their quotes and control characters made safe)."""
    over = state.is_over()
    return {
        "over": over,
        "end": state.end_reason() if over else _end_words(stopped or "unfinished"),
        "turns_completed": state.turn_count(),
        "scores": state.scores(),
        "winner": state.winner(),
    }


def _end_words(text):
    text = "".join("'" if c == '"' else c for c in str(text) if ord(c) >= 32) or "unfinished"
    return text if len(text) <= END_MAX else text[:END_MAX - 3] + "..."


def write_record(path, record):
    """Write a record as JSON, atomically: a crash or a full disk mid-write never leaves
    half a file (the old file, if any, stays as it was). The file is 0600: a record holds
    the seed, and a hidden game's seed is every player's secrets (vora_host.private_files)."""
    private_files.write_atomically(path, dumps_record(record))


def dumps_record(record):
    """Record JSON laid out for people: one line per field, and one line per move and
    per digest, so two records of the same game diff line by line."""
    return formats.dumps_json(record)


def read_record(text):
    """A record from the text of a file: JSON (a record or an export) or the text format.
    RecordError with a clear message otherwise."""
    try:
        parsed = readers.parse(text)
    except BadImport as exc:
        raise RecordError(str(exc))
    return _as_record(parsed)


def _as_record(parsed):
    record = dict(parsed.record)
    record["agents"] = parsed.agents
    if parsed.digests is None:
        record.pop("digests", None)
    return record


def load_record(path):
    """Read and check a record file (JSON or the text format); RecordError with a clear
    message otherwise. The size is checked before the file is read."""
    try:
        with open(path, "rb") as f:
            data = f.read(readers.MAX_RECORD_CHARS + 1)
    except FileNotFoundError:
        raise RecordError("no such file: %s" % path)
    except IsADirectoryError:
        raise RecordError("%s is a directory, not a game record" % path)
    except OSError as exc:
        raise RecordError("cannot read %s: %s" % (path, exc.strerror or exc))
    if len(data) > readers.MAX_RECORD_CHARS:
        raise RecordError("%s is larger than %d MB: not a game record"
                          % (path, readers.MAX_RECORD_CHARS // (1024 * 1024)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise RecordError("%s line %d: not UTF-8 text" % (path, line))
    try:
        parsed = readers.parse(text)
    except BadImport as exc:
        if readers.looks_like_json(text) and exc.bare.startswith("not JSON"):
            raise RecordError("%s is not JSON (%s)" % (path, exc))
        raise RecordError("%s: %s" % (path, exc))
    return _as_record(parsed)


def check_record(record):
    """Check a record dict's shape; raises RecordError."""
    try:
        readers.record_from_dict(record)
    except BadImport as exc:
        raise RecordError(str(exc))


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
    or digest mismatch (nothing after it is replayed), or None as the step when the
    recorded result disagrees.
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
