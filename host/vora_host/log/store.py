"""The game log: every game the host mirrors or plays, move by move, in one SQLite file
or a PostgreSQL database.

    log = GameLog(default_db_path())
    gid = log.start_game(game="vora", players=2, seed=7, source="board /dev/ttyACM0",
                         board_game_id=123)
    log.add_move(gid, 1, "push crow Sc", "0a1b2c3d4e5f6071")   # True: logged
    log.add_move(gid, 1, "push crow Sc", "0a1b2c3d4e5f6071")   # False: a repeat, nothing done
    log.take_back(gid, 1)                                     # the takeback is logged too
    log.end_game(gid, "over", records.result_of(state))
    log.verify(gid)                                           # replays and checks every digest

Any game of `shared_rules.games` is logged the same way: the store knows a game only by
its registry name, its options (spelled out by `state.options()`) and its moves. The
record formats (JSON and text) are in `vora_host.log.formats`.

Durability. The file is in WAL mode with `synchronous=FULL`, and every write is its own
transaction. In WAL mode a commit is one append to the -wal file; FULL makes SQLite fsync
that file at every commit, so a move `add_move()` has returned for survives a power cut
too, not only a crash of this program. The price is one fsync per move, nothing at the
pace of a board game. WAL also lets readers (`vora games list` in another terminal) read
while the logger writes. SQLite's journal makes every transaction all or nothing.

When writing fails (a full disk, a read-only file, an I/O error, a lock held too long),
nothing is lost and play goes on: the change is kept in memory, in order, and every later
write first writes what waits, so the file receives everything exactly once and in order
as soon as writing works again. `start_game` then returns a provisional (negative) id
that keeps working for this GameLog, and `end_game` returns normally; `add_move` and
`take_back` raise `NotWritten` after keeping the change, so that the caller can tell the
players that logging is failing. `flush()` retries at any time; `trouble` says what is
wrong, `pending` how many changes wait, `real_id(gid)` the id in the file once written.
Reads (`game`, `record`, `verify`, `find_game`) include what waits in memory.

PostgreSQL. `GameLog("postgresql://user:password@host/dbname")` keeps the log in
PostgreSQL (vora_host.log.postgres: the same SQL, schema and migrations; many hosts at
once). Each change is one transaction committed with synchronous_commit on, so the
promise above holds: a move add_move() has returned for is on the server's disk. A
server that cannot be reached is one more reason writing fails ("the database server
cannot be reached"): the change is kept as above, and a change kept when even reading
fails is checked when it is written. `path` is then the URL without its password, `url`
the URL itself, `backend` "postgresql" (else "sqlite").

Repeats and holes. The board numbers its moves 1..n. After a reconnect it may send a
move again: the same number, move and digest is a no-op (`add_move` returns False). The
same number with another move or digest is a `MoveConflict` naming both; a number past
the next one is a `MoveGap` (`.expected` is the number the log needs next), so that the
caller fetches the missing moves first. Live move numbers are therefore always 1..n.

Takebacks. `take_back(gid, n)` records that the last live move, n, was taken back (all
humans agreed to undo it). The move stays in the game's history, marked taken back; the
live moves (record(), verify(), replay, the export's moves) leave it out, and the next
move is numbered n again. History is never rewritten.

One writer per game. A game being played has exactly one writer: the GameLog that
started it, resumed it (`hold(gid)`, which `vora play --resume` calls before the game is
shown) or first wrote to it. Another GameLog's write, or hold, is refused with GameHeld
(who holds it, since when, what to do) unless the holder is gone (its process, on this
machine, ended; or its lease ran out unrenewed: a crashed computer) or `hold(gid,
take_over=True)` takes it over; a holder taken over gets LeaseLost at its next write, which
is refused by the fencing number checked in the same transaction. The lease is renewed by
a thread while the GameLog is open and released by close(). vora_host.log.leases has the
details.

Stale games. A program killed mid-game leaves its game "playing"; `close_stale()`, which a
session calls when it opens the log, marks such games (their writer is gone, as above)
"interrupted", and the games it is told to abandon (a board's saved game thrown away by
--fresh) "abandoned". A game logged before leases existed is left as it is.

Result. `end_game()` takes None or the dict `vora_host.log.records.result_of()` makes:
{"over", "end", "turns_completed", "scores", "winner"}, all five keys, so that both export
formats carry it exactly.
"""

import json
import os
import re
import sqlite3
import sys
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from shared_rules import games, prng
from shared_rules.errors import BadPosition, IllegalMove

from vora_host import private_files
from vora_host.log.errors import (BadImport, CannotWrite, DatabaseError, DatabaseLocked,
                                  GameClosed, GameHeld, GameLogError, LeaseLost, MoveConflict,
                                  MoveGap, NoLog, NoSuchGame, NotLastMove, NotWritten,
                                  _NotWrittenLocked)

from vora_host.log import leases, postgres
from vora_host.log.postgres import display_url, is_db_url

__all__ = [
    "SCHEMA_VERSION", "APPLICATION_ID", "DB_NAME", "DB_ENV", "STATUSES", "END_STATUSES",
    "GameLogError", "DatabaseError", "NoLog", "DatabaseLocked", "CannotWrite", "NotWritten",
    "NoSuchGame", "MoveConflict", "MoveGap", "GameClosed", "NotLastMove", "BadImport",
    "Step", "VerifyReport", "default_db_path", "resolve_db_path", "GameLog", "replay_steps",
    "check_replay", "check_history", "history_events", "result_difference",
    "normalize_options", "player_label", "MOVE_RE", "DIGEST_RE", "is_db_url", "db_label",
]

SCHEMA_VERSION = 5
# PRAGMA application_id: "Vora" in ASCII, so that `file` and this module can tell a game
# log from any other SQLite database.
APPLICATION_ID = 0x566F7261
DB_NAME = "games.sqlite3"
DB_ENV = "VORA_DB"
SQLITE_MAGIC = b"SQLite format 3\x00"

STATUSES = ("playing", "over", "abandoned", "interrupted")
END_STATUSES = ("over", "abandoned", "interrupted")
RESULT_KEYS = ("over", "end", "turns_completed", "scores", "winner")

# A move as the board reports it: printable ASCII, no ';' (the text format's comment
# mark), no leading or trailing space. A digest: 16 lowercase hex digits (state.digest()).
MOVE_RE = re.compile(r"[!-:<-~](?:[ -:<-~]{0,118}[!-:<-~])?")
DIGEST_RE = re.compile(r"[0-9a-f]{16}")
U32_MAX = 0xFFFFFFFF
# Changes kept in memory while the file refuses them: a few hundred per game, so this is
# days of mirroring; past it, memory is not let grow and the change is refused, saying so.
MAX_PENDING = 100000
# Ids are 64-bit signed integers in both databases.
_ID_LIMIT = 1 << 63


# ---------------------------------------------------------------- where the file is

def default_db_path(env=None) -> Path:
    """games.sqlite3 in the user's data folder: platformdirs.user_data_dir("vora")
    ($XDG_DATA_HOME/vora or ~/.local/share/vora on Linux), or that XDG rule itself
    when platformdirs is not installed."""
    env = os.environ if env is None else env
    try:
        import platformdirs
    except ImportError:
        base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                        "share")
        folder = os.path.join(base, "vora")
    else:
        folder = platformdirs.user_data_dir("vora", appauthor=False)
    return Path(folder) / DB_NAME


def resolve_db_path(option=None, env=None):
    """The database to use: `--db` if given, else $VORA_DB if set, else the default. A
    path is a Path; a postgresql:// (or postgres://) URL stays the text it is."""
    env = os.environ if env is None else env
    chosen = option or env.get(DB_ENV)
    if not chosen:
        return default_db_path(env)
    if is_db_url(chosen):
        return chosen
    return Path(chosen).expanduser()


def db_label(target):
    """How messages name a database: its path, or its URL without the password."""
    return display_url(target) if is_db_url(target) else str(target)


# ---------------------------------------------------------------- schema and migrations

_GAMES_1 = """CREATE TABLE games (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        board_game_id INTEGER CHECK (board_game_id BETWEEN 0 AND 4294967295),
        game          TEXT    NOT NULL,
        players       INTEGER NOT NULL CHECK (players >= 1),
        seed          INTEGER NOT NULL CHECK (seed >= 0),
        options       TEXT    NOT NULL,
        source        TEXT    NOT NULL,
        started_at    TEXT    NOT NULL,
        ended_at      TEXT,
        result        TEXT,
        status        TEXT    NOT NULL DEFAULT 'playing'
                      CHECK (status IN ('playing', 'over', 'abandoned', 'interrupted')),
        imported_at   TEXT
    )"""

_SCHEMA_1 = (
    _GAMES_1,
    "CREATE INDEX games_by_board_game ON games (board_game_id, seed)",
    "CREATE INDEX games_by_status ON games (status, id)",
    """CREATE TABLE moves (
        id        INTEGER PRIMARY KEY,
        game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number    INTEGER NOT NULL CHECK (number >= 1),
        move      TEXT    NOT NULL,
        digest    TEXT    NOT NULL,
        logged_at TEXT    NOT NULL,
        UNIQUE (game_id, number)
    )""",
)

# Version 2: takebacks. A move taken back keeps its row (taken_back_at set), and a later
# move may take its number, so (game_id, number) is unique among live moves only. The
# history of a game is its rows in id order. SQLite cannot drop a table constraint: the
# table is rebuilt and its rows copied, ids kept.
_SCHEMA_2 = (
    """CREATE TABLE moves_2 (
        id            INTEGER PRIMARY KEY,
        game_id       INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number        INTEGER NOT NULL CHECK (number >= 1),
        move          TEXT    NOT NULL,
        digest        TEXT    NOT NULL,
        logged_at     TEXT    NOT NULL,
        taken_back_at TEXT
    )""",
    "INSERT INTO moves_2 (id, game_id, number, move, digest, logged_at) "
    "SELECT id, game_id, number, move, digest, logged_at FROM moves",
    "DROP TABLE moves",
    "ALTER TABLE moves_2 RENAME TO moves",
    "CREATE UNIQUE INDEX moves_live ON moves (game_id, number) WHERE taken_back_at IS NULL",
    "CREATE INDEX moves_by_game ON moves (game_id, id)",
    "CREATE INDEX games_by_seed ON games (game, seed)",
)


# Version 3: a game may need attention (`attention`: notes, one a line, None when all is
# well): the board and the host disagreed about it (a digest that differs, a move the
# rules refused) and the host followed the board's own state from then on, so the game
# does not replay cleanly from its seed. Nothing is taken out of the log for it.
_SCHEMA_3 = (
    "ALTER TABLE games ADD COLUMN attention TEXT",
)


def _migrate_to_1(conn):
    for statement in _SCHEMA_1:
        conn.execute(statement)


def _migrate_to_2(conn):
    for statement in _SCHEMA_2:
        conn.execute(statement)


# The migration hook: MIGRATIONS[v](conn) brings a database at user_version v - 1 to
# version v, with conn.execute() only (executescript would commit). A later schema adds
# its function here and raises SCHEMA_VERSION; opening an older file runs the missing
# steps in one transaction, all or nothing, and sets user_version in it.
def _migrate_to_3(conn):
    for statement in _SCHEMA_3:
        conn.execute(statement)


# Version 4: 64-bit seeds. The seeds of the hidden-information games take 64 bits of the
# OS's randomness (shared_rules.secret_prng), one more than SQLite's signed INTEGER holds,
# and `seed` keeps its CHECK (seed >= 0) (SQLite cannot drop it without rebuilding the
# table that moves and leases refer to). So a seed is kept in two columns: its low 63
# bits in `seed`, its top bit in `seed_high` (0 for every seed below 2**63, so every
# older row reads as it did). _seed_columns() splits, _seed_of() joins.
_SCHEMA_4 = (
    "ALTER TABLE games ADD COLUMN seed_high INTEGER NOT NULL DEFAULT 0 "
    "CHECK (seed_high IN (0, 1))",
)


def _migrate_to_4(conn):
    for statement in _SCHEMA_4:
        conn.execute(statement)


_SEED_LOW_BITS = 63
_SEED_LOW = (1 << _SEED_LOW_BITS) - 1


def _seed_columns(seed):
    """(seed, seed_high): a seed of up to 64 bits as the games table keeps it."""
    return seed & _SEED_LOW, seed >> _SEED_LOW_BITS


def _seed_of(low, high):
    """The seed kept as (seed, seed_high) in the games table."""
    return low | (high << _SEED_LOW_BITS)


# Version 5: one writer per game. The leases get their fencing number, the holder's token
# and an end (vora_host.log.leases); older vora, which would write without them, refuse a
# log of this version. And `events`: what happened to a game beside its moves, in order
# (`number`: its live moves then; `kind`; `data`, JSON): a digest the board reported wrong
# and corrected ("correction"), the board's own state taken after a mismatch ("resync").
_SCHEMA_5 = (
    """CREATE TABLE events (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number    INTEGER NOT NULL CHECK (number >= 0),
        kind      TEXT    NOT NULL,
        data      TEXT    NOT NULL,
        at        TEXT    NOT NULL
    )""",
    "CREATE INDEX events_by_game ON events (game_id, id)",
)


def _migrate_to_5(conn):
    leases.migrate_leases(conn)
    for statement in _SCHEMA_5:
        conn.execute(statement)


MIGRATIONS = {1: _migrate_to_1, 2: _migrate_to_2, 3: _migrate_to_3, 4: _migrate_to_4,
              5: _migrate_to_5}
# The most notes an attention mark keeps on one game (a board that goes wrong at every
# move must not grow the log without end); the last note says how many more there were.
ATTENTION_NOTES = 20


def _add_note(notes, note):
    """The attention notes with one more (ATTENTION_NOTES at most: then a count)."""
    lines = notes.split("\n") if notes else []
    more = 0
    if len(lines) > ATTENTION_NOTES:
        more = int(lines.pop().split()[0])  # "N more notes"
    if len(lines) < ATTENTION_NOTES:
        lines.append(note)
    else:
        lines.append("%d more notes" % (more + 1))
    return "\n".join(lines)


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _short(value, limit=60):
    """repr() of a value cut to `limit` characters, for messages about untrusted input."""
    text = repr(value) if not isinstance(value, str) else repr(value[:limit + 1])
    return text if len(text) <= limit + 2 else text[:limit] + "...'"


def _check_timestamp(value, what):
    if not isinstance(value, str) or not value or len(value) > 64:
        raise ValueError("%s must be an ISO 8601 date and time, not %s" % (what, _short(value)))
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("%s must be an ISO 8601 date and time, not %s" % (what, _short(value)))
    return value


def _check_source(source):
    ok = isinstance(source, str) and len(source) <= 200 and (
        source in ("virtual board", "terminal")
        or (source.startswith("board ") and source[6:].strip() != ""))
    if not ok or any(ord(c) < 32 or ord(c) == 127 for c in source):
        raise ValueError("source must be 'board <port or identity>', 'virtual board' or "
                         "'terminal' (one line, up to 200 characters), not %s" % _short(source))
    return source


def _check_result(result, status):
    if result is None:
        if status == "over":
            raise ValueError("a game that is over needs its result")
        return None
    if not isinstance(result, dict) or set(result) != set(RESULT_KEYS):
        raise ValueError("the result must be None or a dict with exactly the keys %s "
                         "(vora_host.log.records.result_of), not %s"
                         % (", ".join(RESULT_KEYS), _short(result)))
    over, end, turns, scores, winner = (result[k] for k in RESULT_KEYS)
    if not isinstance(over, bool):
        raise ValueError("result 'over' must be true or false, not %s" % _short(over))
    if not isinstance(end, str) or not end or any(ord(c) < 32 or c == '"' for c in end) \
            or len(end) > 64:
        raise ValueError("result 'end' must be a short word, not %s" % _short(end))
    if not _is_int(turns) or not 0 <= turns <= 10 ** 9:
        raise ValueError("result 'turns_completed' must be a whole number, not %s"
                         % _short(turns))
    if not isinstance(scores, list) or not 1 <= len(scores) <= 64 \
            or not all(_is_int(s) and abs(s) < 10 ** 9 for s in scores):
        raise ValueError("result 'scores' must be a list of whole numbers, not %s"
                         % _short(scores))
    if winner is not None and (not _is_int(winner) or not 0 <= winner < len(scores)):
        raise ValueError("result 'winner' must be a player or None, not %s" % _short(winner))
    if winner is not None and not over:
        raise ValueError("result names a winner of a game that is not over")
    if status is not None and over != (status == "over"):
        raise ValueError("status %r does not agree with a result where 'over' is %s"
                         % (status, over))
    return dict((k, result[k]) for k in RESULT_KEYS)


def _check_move_args(number, move, digest):
    if not _is_int(number) or number < 1:
        raise ValueError("a move number is a whole number from 1, not %s" % _short(number))
    if not isinstance(move, str) or not MOVE_RE.fullmatch(move):
        raise ValueError("a move is printable ASCII text without ';' (up to 120 "
                         "characters), not %s" % _short(move))
    if not isinstance(digest, str) or not DIGEST_RE.fullmatch(digest):
        raise ValueError("a digest is 16 lowercase hex digits, not %s" % _short(digest))


def _no_bool_for_int(given, spelled, where):
    """ValueError where an option's value has true or false and the game took it for a
    whole number (Python's True == 1: a rules module may not tell them apart)."""
    if isinstance(given, bool) and _is_int(spelled):
        raise ValueError("option %s: %s is not a whole number" % (where, _short(given)))
    if isinstance(given, dict) and isinstance(spelled, dict):
        for key, value in given.items():
            _no_bool_for_int(value, spelled.get(key), "%s.%s" % (where, key))
    elif isinstance(given, list) and isinstance(spelled, list):
        for k, (value, other) in enumerate(zip(given, spelled)):
            _no_bool_for_int(value, other, "%s[%d]" % (where, k))


def normalize_options(game, players, seed, options):
    """Check that the game can be set up and return its options with every default
    spelled out (the state's options()), so the log replays the same game even if a
    default changes later. ValueError when the game cannot be set up."""
    if not isinstance(game, str):
        raise ValueError("the game name must be a text, not %s" % _short(game))
    if not _is_int(players):
        raise ValueError("players must be a whole number, not %s" % _short(players))
    try:
        games.check_seed(game, seed)  # each game's own range of seeds
    except BadPosition:  # a game this program does not know: said below
        prng.check_seed(seed)
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise ValueError("options must be a dict, not %s" % _short(options))
    try:
        module = games.load(game)
        for key, value in options.items():
            spec = games.option_spec(module, key)
            if isinstance(value, bool) and spec[2] != "bool":
                raise ValueError("option %r: %s is not a valid value" % (key, _short(value)))
        state = games.start({"game": game, "players": players, "seed": seed,
                             "options": options})
        spelled = state.options()
        for key, value in options.items():
            _no_bool_for_int(value, spelled.get(key), key)
    except BadPosition as exc:
        raise ValueError("the game cannot be set up: %s" % exc)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError,
            RecursionError) as exc:
        # A game should say BadPosition; options from a file are untrusted whatever it says.
        raise ValueError("the game cannot be set up with these options: %s"
                         % _short(str(exc), 120))
    return spelled


def player_label(player):
    """'P0' for player 0; 'P-' for nobody (a move logged after the game was over);
    'P?' when not known (a move after one that does not replay)."""
    if player == "?":
        return "P?"
    return "P-" if player is None else "P%d" % player


# ---------------------------------------------------------------- errors of SQLite, in words

def _write_reason(exc):
    """Why a write failed, in words, when the cause is the disk, the file or a lock
    rather than the log's content; None otherwise."""
    name = getattr(exc, "sqlite_errorname", "") or ""  # Python 3.11+
    text = str(exc).lower()
    if name.startswith("SQLITE_FULL") or "disk is full" in text:
        return "the disk is full"
    if name.startswith("SQLITE_READONLY") or "readonly" in text or "read-only" in text:
        return "the file or its folder is read-only"
    if name.startswith("SQLITE_IOERR") or "disk i/o error" in text:
        return "the disk reports an input/output error"
    if name.startswith("SQLITE_CANTOPEN") or "unable to open" in text:
        return "the file cannot be opened for writing"
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text or "busy" in text:
        return "another program holds it locked"
    if name.startswith("SQLITE_PERM") or "permission" in text:
        return "this user may not write it"
    return None


_DB_ERRORS = (sqlite3.Error,) + postgres.error_types()


class _SqliteErrors:
    """Turns sqlite3 (and psycopg) errors into the log's own, naming the database and the
    cause."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or not isinstance(exc, _DB_ERRORS):
            return False
        raise _translate(exc, self.path) from exc


def _translate(exc, path):
    if not isinstance(exc, sqlite3.Error):
        return postgres.translate(exc, path, sys.modules[__name__])
    text = str(exc)
    reason = _write_reason(exc)
    if reason == "another program holds it locked":
        return DatabaseLocked("%s is locked by another program (%s); try again when it has "
                              "finished" % (path, text))
    if reason is not None:
        return CannotWrite("cannot write the game log %s: %s (%s)" % (path, reason, text),
                           reason)
    if isinstance(exc, sqlite3.IntegrityError):
        return DatabaseError("%s refused a change: %s" % (path, text))
    return DatabaseError("%s cannot be used as a game log: %s (a corrupt or damaged file?)"
                         % (path, text))


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception; sqlite3 errors translated."""

    def __init__(self, conn, path):
        self.conn, self.errors = conn, _SqliteErrors(path)

    def __enter__(self):
        with self.errors:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind, exc, tb):
        if exc is None:
            try:
                self.conn.execute("COMMIT")
                return False
            except _DB_ERRORS as error:
                exc = error
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        except _DB_ERRORS:
            pass  # the first error is the one to report
        if isinstance(exc, _DB_ERRORS):
            self.errors.__exit__(type(exc), exc, None)  # raises the translated error
        return False


# Closing any descriptor of a file drops every POSIX lock this process holds on it, its
# SQLite connections' included (https://www.sqlite.org/howtocorrupt.html, 2.2). A
# connection that lost its shared lock lets another program's last connection checkpoint
# and delete the -wal under it: it then reads a stale log, then "database disk image is
# malformed" of a sound file (issue 43: `vora serve`'s watcher while its requests opened
# the log; `vora play --serve` alike). So the log's file is opened outside SQLite (the
# header check, a new file's creation) only under _FILES_LOCK and only while no
# connection of this process has that file open; _LIVE counts them by (device, inode).
_FILES_LOCK = threading.Lock()
_LIVE = {}  # type: Dict[Tuple[int, int], int]


def _file_key(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _read_header(path):
    """The log file's first bytes; None when a connection of this process has the file
    open (the header was checked when it opened, and reading it again could cost that
    connection its locks)."""
    with _FILES_LOCK:
        if _LIVE.get(_file_key(path)):
            return None
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC))


def _count_open(key, step):
    with _FILES_LOCK:
        if key is not None:
            _LIVE[key] = _LIVE.get(key, 0) + step
            if _LIVE[key] <= 0:
                del _LIVE[key]


def _uri_path(path):
    from urllib.parse import quote
    return quote(str(Path(path).absolute()))


# ---------------------------------------------------------------- one game, as the checks see it

class _GameView:
    """What the write checks need of one game: its status and result, the live moves
    ({number: (move, digest)}, possibly only the one asked about) and the last number."""

    def __init__(self, status, result, last, live):
        self.status, self.result, self.last, self.live = status, result, last, live


def _check_move(gid, view, number, move, digest):
    """True when the move is new and may be logged, False for an exact repeat; raises
    MoveConflict, MoveGap or GameClosed."""
    row = view.live.get(number)
    if row is not None:
        if row == (move, digest):
            return False
        raise MoveConflict(gid, number, row[0], row[1], move, digest)
    if number > view.last + 1:
        raise MoveGap(gid, number, view.last + 1)
    if view.status in ("over", "abandoned"):
        raise GameClosed(gid, view.status)
    return True


def _check_take_back(gid, view, number):
    if view.status == "abandoned":
        raise GameClosed(gid, view.status, "its moves can no longer be taken back")
    if not _is_int(number) or number != view.last or view.last == 0:
        raise NotLastMove(gid, number, view.last)


def _apply(view, op):
    """Apply a pending change to a _GameView (in memory)."""
    kind = op["kind"]
    if kind == "move":
        view.live[op["number"]] = (op["move"], op["digest"])
        view.last = op["number"]
        if view.status == "interrupted":
            view.status, view.result = "playing", None
    elif kind == "takeback":
        view.live.pop(op["number"], None)
        view.last -= 1
        if view.status == "over":
            view.status, view.result = "playing", None
    elif kind == "end":
        view.status, view.result = op["status"], op["result"]
    # "attention" changes nothing the write checks look at


# ---------------------------------------------------------------- the log

class _LeaseKeeper(threading.Thread):
    """Renews the leases of a GameLog every quarter of their length, on a connection of its
    own, until stopped. A renewal that fails (a lock, a server away) is tried again at the
    next tick; one that finds the game taken over changes nothing (the next write says it)."""

    def __init__(self, log):
        super().__init__(name="vora-lease-keeper", daemon=True)
        self.log = log
        self.interval = max(0.05, log.lease_seconds / 4.0)
        self._stop_event = threading.Event()

    def stop(self):
        self._stop_event.set()
        if self is not threading.current_thread():
            self.join(timeout=10)

    def run(self):
        conn = None
        while not self._stop_event.wait(self.interval):
            try:
                if conn is None:
                    conn = self.log._connect_again()
                self.log._renew_leases(conn)
            except Exception:  # the next tick tries again on a new connection
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:
                        pass
                conn = None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass


class GameLog:
    """The game log in the SQLite file `path` (created, with its folder, when missing and
    `create` is true). `timeout`: seconds to wait for a lock held by another program.
    Use as a context manager or call close(). Any thread may use it, one at a time (the
    caller serialises: a table's lock)."""

    def __init__(self, path, create=True, timeout=5.0, lease_seconds=leases.LEASE_SECONDS):
        # A postgresql:// URL puts the log in PostgreSQL (vora_host.log.postgres); `path`
        # is then the URL without its password, for messages, and `url` the URL itself.
        self.url = path if is_db_url(path) else None
        self.path = display_url(path) if self.url else Path(path)
        self._conn = None
        self._version = SCHEMA_VERSION
        self._pending = []  # changes not yet in the file, in order (see the module doc)
        self._ids = {}  # provisional id -> id in the file, once written
        self._next_provisional = -1
        self.trouble = None  # why writing fails now, in words, or None
        self.on_trouble = None  # called with a message when writing fails or works again
        self.dropped = []  # (change, error): changes another program made impossible
        self.touched = []  # ids of the games this GameLog started or added moves to
        # One writer per game (vora_host.log.leases): who this GameLog is, the fencing
        # number of each game it writes, the leases a write in progress took (kept once it
        # commits), and the thread that renews them.
        self.lease_seconds = lease_seconds
        self.clock = None  # for tests: a function giving the time, else the database's
        self._me = leases.Holder()
        self._fences = {}
        self._taken = []
        self._keeper = None
        self._timeout = timeout
        self._open(create, timeout)

    # ---- opening

    @property
    def backend(self):
        """"postgresql" or "sqlite": where this log is kept."""
        return "postgresql" if self.url else "sqlite"

    def _open_postgres(self, create, timeout):
        try:
            conn = postgres.PgConnection(self.url, timeout=timeout)
        except ImportError:
            raise DatabaseError("%s is a PostgreSQL database, and this needs psycopg 3, which "
                                "is not installed: pip install 'psycopg[binary]'" % self.path)
        except _DB_ERRORS as exc:
            raise _translate(exc, self.path)
        self._conn = conn
        try:
            with self._errors():
                conn.prepare(create, MIGRATIONS, SCHEMA_VERSION, APPLICATION_ID, self.path,
                             sys.modules[__name__], leases.LEASES_SQL)
        except BaseException:
            conn.close()
            self._conn = None
            raise

    def _open(self, create, timeout):
        if self.url:
            return self._open_postgres(create, timeout)
        path = self.path
        if path.is_dir():
            raise DatabaseError("%s is a folder, not a game log" % path)
        exists = path.exists()
        if exists:
            # Check the header ourselves before SQLite touches the file: a file that is not
            # an SQLite database is refused untouched (no journal, no -wal, no rewrite).
            try:
                head = _read_header(path)
            except OSError as exc:
                raise DatabaseError("cannot read %s: %s" % (path, exc.strerror or exc))
            if head and head != SQLITE_MAGIC:
                raise DatabaseError("%s is not a Vora game log: it is not an SQLite database "
                                    "(corrupt, or another kind of file); it was left as it is"
                                    % path)
        elif not create:
            raise NoLog("there is no game log at %s yet" % path)
        # The log holds live games' seeds: 0600 in a 0700 folder (vora_host.private_files).
        own = path.parent.absolute() == default_db_path().parent.absolute()
        try:
            private_files.make_folder(path.parent, own=own)
        except OSError as exc:
            raise CannotWrite("cannot create the folder %s: %s"
                              % (path.parent, exc.strerror or exc), exc.strerror)
        try:
            with _FILES_LOCK:  # it may create the file, and close it (see _FILES_LOCK)
                private_files.private_database(path, create_missing=create)
        except OSError as exc:
            raise CannotWrite("cannot create %s: %s" % (path, exc.strerror or exc), exc.strerror)
        uri = "file:%s?mode=%s" % (_uri_path(path), "rwc" if create else "rw")
        try:
            # One thread at a time, but not always the same one: a table's log is written
            # from the thread of the web request that brought a browser's move, under the
            # table's lock (vora_host.table).
            conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            raise _translate(exc, path)
        self._conn = conn
        self._file_key = _file_key(path)  # counted before the connection reads (locks)
        _count_open(self._file_key, 1)
        try:
            with self._errors():
                self._prepare()
        except BaseException:
            conn.close()
            self._conn = None
            _count_open(self._file_key, -1)
            raise

    def _prepare(self):
        conn = self._conn
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        if app_id not in (0, APPLICATION_ID) or (version == 0 and tables):
            raise DatabaseError("%s is an SQLite database but not a Vora game log; it was left "
                                "as it is" % self.path)
        if version > SCHEMA_VERSION:
            raise DatabaseError("%s was written by a newer vora (game log schema %d; this one "
                                "reads up to %d)" % (self.path, version, SCHEMA_VERSION))
        conn.execute("PRAGMA foreign_keys = ON")
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        self._version = version
        if version < SCHEMA_VERSION:
            try:
                self._migrate()
            except sqlite3.Error as exc:
                if version not in (1, 2, 3, 4) or _write_reason(exc) is None:
                    raise
                # A log of an older schema that cannot be written (read-only, a full disk)
                # is still read: its tables seen through views with the new columns, until
                # a write succeeds and upgrades the file.
                if version == 1:
                    conn.execute("CREATE TEMP VIEW moves AS SELECT id, game_id, number, move, "
                                 "digest, logged_at, NULL AS taken_back_at FROM main.moves")
                if version < 4:
                    conn.execute("CREATE TEMP VIEW games AS SELECT *, %s0 AS seed_high "
                                 "FROM main.games" % ("NULL AS attention, " if version < 3
                                                      else ""))
                conn.execute("CREATE TEMP VIEW events AS SELECT 0 AS id, 0 AS game_id, "
                             "0 AS number, '' AS kind, '' AS data, '' AS at WHERE 0")
                if self._has_leases(conn):  # schema 4's, without fences: none binds now
                    conn.execute("CREATE TEMP VIEW leases AS SELECT game_id, host, pid, since, "
                                 "0 AS fence, NULL AS holder, NULL AS expires_at "
                                 "FROM main.leases")

    def _migrate(self):
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # under the lock now
            while version < SCHEMA_VERSION:
                version += 1
                MIGRATIONS[version](conn)
                conn.execute("PRAGMA user_version = %d" % version)
            conn.execute("PRAGMA application_id = %d" % APPLICATION_ID)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._version = SCHEMA_VERSION

    def _ensure_schema(self):
        # A file left at an older schema because it could not be written when opened.
        if self._version < SCHEMA_VERSION and not self.url:
            with self._errors():
                self._conn.execute("DROP VIEW IF EXISTS temp.moves")
                self._conn.execute("DROP VIEW IF EXISTS temp.games")
                self._conn.execute("DROP VIEW IF EXISTS temp.events")
                self._conn.execute("DROP VIEW IF EXISTS temp.leases")
                self._migrate()

    def _errors(self):
        return _SqliteErrors(self.path)

    def close(self):
        """Close the file, after one last try to write what waits (see flush(); what
        still cannot be written stays in `unwritten()` for the caller to rescue)."""
        if self._conn is not None:
            if self._pending:
                try:
                    self.flush()
                except GameLogError:
                    pass
            self._stop_keeper()
            for gid in list(self._fences):
                try:
                    self.release(gid)
                except GameLogError:
                    pass  # it runs out by itself (leases.LEASE_SECONDS)
            self._conn.close()
            self._conn = None
            _count_open(getattr(self, "_file_key", None), -1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _transaction(self):
        if self._conn is None:
            raise DatabaseError("the game log %s is closed" % self.path)
        self._ensure_schema()
        return _Transaction(self._conn, self.path)

    @property
    def schema_version(self):
        with self._errors():
            if self.url:
                return self._conn.schema_version()
            return self._conn.execute("PRAGMA user_version").fetchone()[0]

    def _has_leases(self, conn):
        if self.url:
            return True  # made with the schema
        return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                            "name = 'leases'").fetchone() is not None

    # ---- one writer per game (vora_host.log.leases)

    def _lease_now(self, conn):
        return self.clock() if self.clock is not None else leases.db_now(conn)

    def _fenced(self, conn, gid):
        """Inside a write: this GameLog is game `gid`'s writer (taking the game when it
        does not hold it yet: GameHeld when another does), or LeaseLost."""
        now = self._lease_now(conn)
        fence = self._fences.get(gid)
        if fence is None:
            fence, _ = leases.acquire(conn, gid, self._me, now, self.lease_seconds)
            self._taken.append((gid, fence))
        else:
            leases.check(conn, gid, self._me, fence, now, self.lease_seconds)

    def _keep_leases(self, taken):
        for gid, fence in taken:
            self._fences[gid] = fence
        if self._fences and self._keeper is None:
            self._keeper = _LeaseKeeper(self)
            self._keeper.start()

    def _stop_keeper(self):
        if self._keeper is not None:
            self._keeper.stop()
            self._keeper = None

    def hold(self, game_id, take_over=False):
        """Become game `game_id`'s one writer before playing it (a resume): GameHeld when
        another program holds it and `take_over` is false. Returns the former holder (a
        dict, see leases.current) when a live one was taken over, else None. The lease is
        renewed while this GameLog is open and released when it closes."""
        if self._conn is None:
            raise DatabaseError("the game log %s is closed" % self.path)
        gid = self._canon(game_id)
        if not _is_int(gid) or gid < 0:
            return None  # a game whose start still waits in memory: this GameLog's own
        with self._transaction() as conn:
            self._status(conn, gid)  # the game's row locked (PostgreSQL) before its lease
            fence, former = leases.acquire(conn, gid, self._me, self._lease_now(conn),
                                           self.lease_seconds, take_over)
        self._keep_leases([(gid, fence)])
        return former

    def release(self, game_id):
        """Stop being game `game_id`'s writer (close() releases every game it holds)."""
        gid = self._canon(game_id)
        fence = self._fences.pop(gid, None)
        if fence is None or self._conn is None:
            return
        with self._transaction() as conn:
            leases.release(conn, gid, self._me, fence, self._lease_now(conn))

    def holds(self, game_id):
        """Whether this GameLog is game `game_id`'s writer (as far as it knows: a take-over
        elsewhere is found at its next write)."""
        return self._canon(game_id) in self._fences

    def _renew_leases(self, conn):
        """The keeper thread's work, on its own connection: renew every lease held."""
        for gid, fence in list(self._fences.items()):
            with _Transaction(conn, self.path) as c:
                leases.renew(c, gid, self._me, fence, self._lease_now(c), self.lease_seconds)

    def _connect_again(self):
        """Another connection to the same database (for the keeper thread)."""
        if self.url:
            return postgres.PgConnection(self.url, timeout=self._timeout)
        return sqlite3.connect("file:%s?mode=rw" % _uri_path(self.path), uri=True,
                               timeout=self._timeout, isolation_level=None)

    # ---- writing, with changes kept in memory while the file refuses them

    @property
    def pending(self):
        """How many changes wait in memory for the file."""
        return len(self._pending)

    def real_id(self, game_id):
        """The id of a game in the file: itself for a written game, the id a provisional
        id became once written, or None while its start is still waiting."""
        if _is_int(game_id) and game_id < 0:
            return self._ids.get(game_id)
        return game_id

    def _canon(self, game_id):
        if _is_int(game_id) and game_id < 0 and game_id in self._ids:
            return self._ids[game_id]
        if _is_int(game_id) and not -_ID_LIMIT <= game_id < _ID_LIMIT:
            # Past what an id column holds: no such game (SQLite's driver would raise
            # OverflowError on it).
            raise NoSuchGame(game_id, self.path)
        return game_id

    def _is_waiting(self, game_id):
        """Whether `game_id` is a provisional id whose start is not written yet."""
        return _is_int(game_id) and game_id < 0 and game_id not in self._ids \
            and any(op["kind"] == "start" and op["gid"] == game_id for op in self._pending)

    def flush(self):
        """Write every change waiting in memory, in order. Returns how many were written;
        raises NotWritten (nothing lost) when the file still refuses them."""
        if self._conn is None:
            raise DatabaseError("the game log %s is closed" % self.path)
        written = 0
        while self._pending:
            op = self._pending[0]
            try:
                result = self._write(op)
            except (CannotWrite, DatabaseLocked) as exc:
                self._set_trouble(exc)
                many = len(self._pending) > 1
                raise self._not_written(exc, "%d change%s" % (len(self._pending),
                                                               "s" if many else ""), many)
            except GameLogError as exc:
                # Checked when it was kept, refused now: another program changed the game
                # meanwhile. Said, kept aside, and the rest goes on.
                self._pending.pop(0)
                self.dropped.append((op, exc))
                self._tell("the game log could not take a change kept in memory: %s" % exc)
                continue
            self._pending.pop(0)
            if op["kind"] == "start":
                self._ids[op["gid"]] = result  # committed: the provisional id is mapped
            written += 1
        if self.trouble is not None:
            self.trouble = None
            self._tell("the game log %s is written again: %d change%s kept in memory are "
                       "now in it" % (self.path, written, "" if written == 1 else "s"))
        return written

    def unwritten(self):
        """The changes still waiting in memory (dicts with "kind": start, move, takeback or
        end), for a caller that must rescue them before quitting."""
        return [dict(op) for op in self._pending]

    def _tell(self, message):
        if self.on_trouble is not None:
            self.on_trouble(message)

    def _set_trouble(self, exc):
        reason = getattr(exc, "reason", None) or "another program holds it locked"
        changed = reason != self.trouble
        self.trouble = reason
        if changed:
            self._tell("cannot write the game log %s: %s; every change is kept in memory and "
                       "written as soon as it works again" % (self.path, reason))

    def _not_written(self, exc, what, many=False):
        reason = getattr(exc, "reason", None) or "another program holds it locked"
        message = ("%s kept in memory, not yet in the game log %s: %s; %s written in order "
                   "as soon as writing works again (%d change%s waiting)"
                   % (what, self.path, reason, "they are" if many else "it is",
                      len(self._pending), "" if len(self._pending) == 1 else "s"))
        cls = _NotWrittenLocked if isinstance(exc, DatabaseLocked) else NotWritten
        return cls(message, reason, len(self._pending))

    def _write(self, op):
        """One change in its own transaction; the leases it took are this GameLog's once it
        has committed."""
        self._taken = []
        with self._transaction() as conn:
            result = self._run(conn, op)
        self._keep_leases(self._taken)
        return result

    def _submit(self, op):
        """Write one change, after whatever waits; or keep it (see the module doc).
        Returns what _run returns."""
        try:
            if self._pending:
                self.flush()
            result = self._write(op)
        except (CannotWrite, DatabaseLocked) as exc:
            return self._keep(op, exc)
        if self.trouble is not None:  # written directly after an earlier failure
            self.trouble = None
            self._tell("the game log %s is written again" % self.path)
        return result

    def _keep(self, op, exc):
        """Check a change against the file and what waits, then keep it in memory."""
        kind = op["kind"]
        if len(self._pending) >= MAX_PENDING:
            raise CannotWrite("cannot write the game log %s (%s) and %d changes already wait "
                              "in memory: this one is not kept" % (self.path, getattr(
                                  exc, "reason", None) or exc, MAX_PENDING),
                              getattr(exc, "reason", None))
        op["kept"] = True
        if kind in ("start", "takeback"):
            try:
                with self._errors():
                    done, result = self._written_already(self._conn, op)
            except (CannotWrite, DatabaseLocked):
                done = False  # cannot even read: kept, and looked for again when written
            if done:
                return result
        if kind == "start":
            op["gid"] = self._next_provisional
            self._next_provisional -= 1
        else:
            try:
                view = self._memory_view(op["gid"])
            except (CannotWrite, DatabaseLocked):
                # Not even readable (a database server that went away): kept unchecked;
                # the write checks it (a repeat is then nothing, a conflict goes to
                # `dropped`, said through on_trouble).
                view = None
            if view is None:
                pass
            elif kind == "move":
                if not _check_move(op["gid"], view, op["number"], op["move"], op["digest"]):
                    return False
            elif kind == "takeback":
                _check_take_back(op["gid"], view, op["number"])
            elif kind == "end":
                if view.status == op["status"] and view.result == op["result"]:
                    return False
        self._pending.append(op)
        self._set_trouble(exc)
        if kind == "start":
            return op["gid"]
        if kind in ("end", "attention"):
            return True  # the mirror ends games without expecting a failure: it is kept
        what = "move %d of game %s" % (op["number"], op["gid"]) if kind == "move" else \
            "the takeback of move %d of game %s" % (op["number"], op["gid"])
        raise self._not_written(exc, what)

    def _memory_view(self, gid):
        """The game as the file plus the waiting changes make it (for checks)."""
        if self._is_waiting(gid):
            view = _GameView("playing", None, 0, {})
        else:
            gid = self._canon(gid)
            with self._errors():
                row = self._conn.execute("SELECT status, result FROM games WHERE id = ?",
                                         (gid,)).fetchone() if _is_int(gid) else None
                if row is None:
                    raise NoSuchGame(gid, self.path)
                live = dict((n, (m, d)) for n, m, d in self._conn.execute(
                    "SELECT number, move, digest FROM moves WHERE game_id = ? AND "
                    "taken_back_at IS NULL", (gid,)))
            view = _GameView(row[0], row[1], max(live, default=0), live)
        for op in self._pending:
            if op["kind"] != "start" and self._canon(op["gid"]) == self._canon(gid):
                _apply(view, op)
        return view

    def _written_already(self, conn, op):
        """(True, result) when a start or a takeback whose write failed is in the database
        all the same: its commit went through and only the answer was lost (a connection
        that dropped at COMMIT). Written again it would make a second game, or be refused
        as a takeback of a move that is no longer live. (False, None) otherwise."""
        if op["kind"] == "start":
            # The same start time (to the millisecond), game, seed, source and board id,
            # never imported, no move yet, leased by this GameLog, and not a game this
            # GameLog knows it made: this very start.
            if not self._has_leases(conn):
                return False, None
            rows = conn.execute(
                "SELECT g.id FROM games g JOIN leases l ON l.game_id = g.id "
                "WHERE g.started_at = ? AND g.game = ? AND g.seed = ? AND g.seed_high = ? "
                "AND g.source = ? AND coalesce(g.board_game_id, -1) = ? "
                "AND g.imported_at IS NULL AND l.holder = ? "
                "AND NOT EXISTS (SELECT 1 FROM moves m WHERE m.game_id = g.id) ORDER BY g.id",
                (op["at"], op["game"]) + _seed_columns(op["seed"])
                + (op["source"], -1 if op["board_game_id"] is None else op["board_game_id"])
                + (self._me.token,)).fetchall()
            known = set(self.touched) | set(self._ids.values())
            for (gid,) in rows:
                if gid not in known:
                    return True, gid
            return False, None
        if op["kind"] == "takeback":
            # The move's latest row is marked taken back at this takeback's very time.
            gid = self._canon(op["gid"])
            if not _is_int(gid) or gid < 0:
                return False, None
            row = conn.execute("SELECT taken_back_at FROM moves WHERE game_id = ? AND "
                               "number = ? ORDER BY id DESC LIMIT 1",
                               (gid, op["number"])).fetchone()
            return (row is not None and row[0] == op["at"]), None
        return False, None

    def _run(self, conn, op):
        """Apply one change inside a transaction, with every check against the file."""
        kind = op["kind"]
        if kind == "start":
            if op.get("kept"):
                done, gid = self._written_already(conn, op)
                if done:
                    self._fenced(conn, gid)
                    return gid
            cur = conn.execute(
                "INSERT INTO games (board_game_id, game, players, seed, seed_high, options, "
                "source, started_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing')",
                (op["board_game_id"], op["game"], op["players"]) + _seed_columns(op["seed"])
                + (op["options"], op["source"], op["at"]))
            self._fenced(conn, cur.lastrowid)
            return cur.lastrowid
        gid = self._canon(op["gid"])
        status, result = self._status(conn, gid)
        self._fenced(conn, gid)  # this GameLog is the game's writer, or nothing is written
        if kind == "move":
            number = op["number"]
            row = conn.execute("SELECT move, digest FROM moves WHERE game_id = ? AND number = ? "
                               "AND taken_back_at IS NULL", (gid, number)).fetchone()
            last = conn.execute("SELECT coalesce(max(number), 0) FROM moves WHERE game_id = ? "
                                "AND taken_back_at IS NULL", (gid,)).fetchone()[0]
            view = _GameView(status, result, last, {number: tuple(row)} if row else {})
            if not _check_move(gid, view, number, op["move"], op["digest"]):
                return False
            if status == "interrupted":  # the board came back: the game goes on
                conn.execute("UPDATE games SET status = 'playing', ended_at = NULL, "
                             "result = NULL WHERE id = ?", (gid,))
            conn.execute("INSERT INTO moves (game_id, number, move, digest, logged_at) "
                         "VALUES (?, ?, ?, ?, ?)",
                         (gid, number, op["move"], op["digest"], op["at"]))
            return True
        if kind == "takeback":
            if op.get("kept"):
                done, _ = self._written_already(conn, op)
                if done:
                    return None
            last = conn.execute("SELECT coalesce(max(number), 0) FROM moves WHERE game_id = ? "
                                "AND taken_back_at IS NULL", (gid,)).fetchone()[0]
            _check_take_back(gid, _GameView(status, result, last, {}), op["number"])
            conn.execute("UPDATE moves SET taken_back_at = ? WHERE game_id = ? AND number = ? "
                         "AND taken_back_at IS NULL", (op["at"], gid, op["number"]))
            if status == "over":  # the move that ended it is undone: the game goes on
                conn.execute("UPDATE games SET status = 'playing', ended_at = NULL, "
                             "result = NULL WHERE id = ?", (gid,))
            return None
        if kind == "end":
            if status == op["status"] and result == op["result"]:
                return False
            conn.execute("UPDATE games SET status = ?, result = ?, ended_at = ? WHERE id = ?",
                         (op["status"], op["result"], op["at"], gid))
            return True
        if kind == "attention":
            notes = conn.execute("SELECT attention FROM games WHERE id = ?",
                                 (gid,)).fetchone()[0]
            conn.execute("UPDATE games SET attention = ? WHERE id = ?",
                         (_add_note(notes, op["note"]), gid))
            return True
        raise AssertionError(kind)

    def _status(self, conn, game_id):
        if not _is_int(game_id):
            raise NoSuchGame(game_id, self.path)
        # In PostgreSQL the game's row is locked until the change commits: two hosts
        # writing one game take turns (SQLite's BEGIN IMMEDIATE already lets one in).
        row = conn.execute("SELECT status, result FROM games WHERE id = ?"
                           + (" FOR UPDATE" if self.url else ""), (game_id,)).fetchone()
        if row is None:
            raise NoSuchGame(game_id, self.path)
        return row[0], row[1]

    def _touch(self, gid):
        if gid not in self.touched:
            self.touched.append(gid)

    def start_game(self, *, players, seed, source, options=None, game="vora",
                   board_game_id=None, started_at=None) -> int:
        """Log a new game of `game` (a name of shared_rules.games) and return its id.
        `source`: 'board <port or identity>', 'virtual board' or 'terminal';
        `board_game_id`: the board's u32 id of the game (None for games played on the
        PC). The options are checked by setting the game up and stored with every
        default filled in. While the file cannot be written, the id is provisional
        (negative) and the start is kept in memory (see the module doc)."""
        options = normalize_options(game, players, seed, options)
        _check_source(source)
        if board_game_id is not None and (not _is_int(board_game_id)
                                          or not 0 <= board_game_id <= U32_MAX):
            raise ValueError("the board's game id is a u32 (0 to %d) or None, not %s"
                             % (U32_MAX, _short(board_game_id)))
        started_at = _now() if started_at is None else _check_timestamp(started_at, "started_at")
        op = {"kind": "start", "gid": None, "game": game, "players": players, "seed": seed,
              "options": json.dumps(options), "source": source,
              "board_game_id": board_game_id, "at": started_at}
        gid = self._submit(op)
        self._touch(gid)
        return gid

    def add_move(self, game_id, number, move, digest) -> bool:
        """Log move `number` (1-based, among the live moves) of a game with the digest
        after it, in its own committed transaction. Returns True when logged, False when
        the log already holds exactly this move (a repeat after a reconnect). Raises
        MoveConflict (another move or digest under that number), MoveGap (moves missing
        before it), GameClosed (the game is over or abandoned), NoSuchGame, and
        NotWritten when the file cannot take it now (the move is kept, see the module
        doc)."""
        _check_move_args(number, move, digest)
        self._touch(game_id)
        return self._submit({"kind": "move", "gid": game_id, "number": number, "move": move,
                             "digest": digest, "at": _now()})

    def take_back(self, game_id, number) -> None:
        """Record that move `number`, the game's last live move, was taken back: it stays
        in the history, marked, and leaves the live moves; the next move is numbered
        `number` again. A game that was over is playing again. Raises NotLastMove when
        `number` is not the last live move, GameClosed for an abandoned game,
        NoSuchGame, and NotWritten when the file cannot take it now (kept, see the
        module doc)."""
        self._submit({"kind": "takeback", "gid": game_id, "number": number, "at": _now()})

    def end_game(self, game_id, status, result=None, ended_at=None) -> bool:
        """Mark a game over, abandoned or interrupted, with its result (None, or the dict
        of vora_host.log.records.result_of). An interrupted game takes moves again (its
        status goes back to playing). Returns False when nothing changed (the same end
        repeated). While the file cannot be written the end is kept in memory."""
        if status not in END_STATUSES:
            raise ValueError("a game ends as %s, not %s" % (", ".join(END_STATUSES),
                                                             _short(status)))
        result = _check_result(result, status)
        ended_at = _now() if ended_at is None else _check_timestamp(ended_at, "ended_at")
        text = None if result is None else json.dumps(result)
        return self._submit({"kind": "end", "gid": game_id, "status": status, "result": text,
                             "at": ended_at})

    def mark_attention(self, game_id, note) -> bool:
        """Mark a game as needing attention, with a note saying why (text of one line,
        at most 300 characters): the board and the host disagreed about it (docs/host.md,
        "When the board and the host disagree"). Notes add up, the first ATTENTION_NOTES
        kept. Shown by `vora games list` and `show`; moves are never removed for it.
        While the file cannot be written the mark is kept in memory like any change."""
        if not isinstance(note, str) or not note.strip():
            raise ValueError("a note on a game needing attention is text, not %s"
                             % _short(note))
        note = " ".join(note.split())[:300]
        return self._submit({"kind": "attention", "gid": game_id, "note": note, "at": _now()})

    def correct_move(self, game_id, number, move, digest, reason) -> bool:
        """Replace live move `number` (its text and digest) by what the board really
        played, after a mismatch showed that what it reported was wrong (a wrong digest,
        docs/host.md "When the board and the host disagree"). The false move is kept as an
        event of kind "correction" ({number, move, digest, reason}: the move and digest as
        first logged), so history keeps what was reported. Returns False when the log holds
        exactly this move already. Raises NoSuchGame, ValueError for a number with no live
        move, GameHeld or LeaseLost; not kept in memory when the file cannot be written
        (CannotWrite, DatabaseLocked: the caller says so)."""
        _check_move_args(number, move, digest)
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError("a correction says why, in words")
        if self._pending:
            try:
                self.flush()
            except NotWritten as exc:
                raise CannotWrite(str(exc), exc.reason)
        gid = self._canon(game_id)
        self._taken = []
        with self._transaction() as conn:
            self._status(conn, gid)
            self._fenced(conn, gid)
            row = conn.execute("SELECT move, digest FROM moves WHERE game_id = ? AND number = ? "
                               "AND taken_back_at IS NULL", (gid, number)).fetchone()
            if row is None:
                raise ValueError("game %d has no live move %d to correct" % (gid, number))
            if tuple(row) == (move, digest):
                changed = False
            else:
                at = _now()
                conn.execute("UPDATE moves SET move = ?, digest = ? WHERE game_id = ? AND "
                             "number = ? AND taken_back_at IS NULL", (move, digest, gid, number))
                conn.execute("INSERT INTO events (game_id, number, kind, data, at) VALUES "
                             "(?, ?, 'correction', ?, ?)",
                             (gid, number, json.dumps({"number": number, "move": row[0],
                                                       "digest": row[1],
                                                       "reason": " ".join(reason.split())[:300]}),
                              at))
                changed = True
        self._keep_leases(self._taken)
        return changed

    EVENT_KINDS = ("hint",)

    def add_event(self, game_id, kind, data) -> None:
        """Record that something happened to a game beside its moves: kind is one of
        EVENT_KINDS ("hint": a player asked for a hint, data says which seat, at which
        move, and the move shown), data a dict of at most 2,000 characters as JSON. The
        event carries the game's live move count then. Fenced like a move: raises
        NoSuchGame, GameHeld or LeaseLost, and CannotWrite or DatabaseLocked when the file
        cannot be written (an event is not kept in memory: it is never worth a game)."""
        if kind not in self.EVENT_KINDS:
            raise ValueError("an event's kind is one of %s, not %s"
                             % (", ".join(self.EVENT_KINDS), _short(kind)))
        if not isinstance(data, dict):
            raise ValueError("an event's data is a dict, not %s" % _short(data))
        text = json.dumps(data, sort_keys=True)
        if len(text) > 2000:
            raise ValueError("an event's data is at most 2,000 characters as JSON, not %d"
                             % len(text))
        if self._pending:
            try:
                self.flush()
            except NotWritten as exc:
                raise CannotWrite(str(exc), exc.reason)
        gid = self._canon(game_id)
        self._taken = []
        with self._transaction() as conn:
            self._status(conn, gid)
            self._fenced(conn, gid)
            live = conn.execute("SELECT COUNT(*) FROM moves WHERE game_id = ? AND "
                                "taken_back_at IS NULL", (gid,)).fetchone()[0]
            conn.execute("INSERT INTO events (game_id, number, kind, data, at) VALUES "
                         "(?, ?, ?, ?, ?)", (gid, live, kind, text, _now()))
        self._keep_leases(self._taken)

    def events(self, game_id) -> List[Dict[str, Any]]:
        """What happened to a game beside its moves, in order: dicts with number (its live
        moves then), kind ("correction": see correct_move; "hint": see add_event), data (a
        dict) and at."""
        gid = self._canon(game_id)
        if not _is_int(gid) or gid < 0:
            return []
        with self._errors():
            rows = self._conn.execute("SELECT number, kind, data, at FROM events WHERE "
                                      "game_id = ? ORDER BY id", (gid,)).fetchall()
        out = []
        for number, kind, data, at in rows:
            try:
                data = json.loads(data)
            except ValueError:
                data = {"text": data}
            out.append({"number": number, "kind": kind, "data": data, "at": at})
        return out

    def delete_game(self, game_id) -> None:
        """Remove a game and its moves from the log for good (`vora games delete`)."""
        if self._pending:
            self.flush()
        gid = self._canon(game_id)
        with self._transaction() as conn:
            self._status(conn, gid)
            conn.execute("DELETE FROM moves WHERE game_id = ?", (gid,))
            conn.execute("DELETE FROM events WHERE game_id = ?", (gid,))
            conn.execute("DELETE FROM leases WHERE game_id = ?", (gid,))
            conn.execute("DELETE FROM games WHERE id = ?", (gid,))

    def close_stale(self, abandon=()) -> List[Tuple[int, str]]:
        """A new session's tidying, in one transaction: every game still "playing" whose
        writer is gone becomes "interrupted", which a later session may resume: its
        process, on this machine, is gone (killed: it could not say so), or its lease ran
        out unrenewed (another computer that crashed, vora_host.log.leases); the games
        `abandon` names (ids: the board's saved game thrown away by --fresh) become
        "abandoned" unless they are over. Returns [(id, new status)]. What waits in memory
        is written first; when the file cannot be written now, nothing changes
        (CannotWrite, DatabaseLocked)."""
        if self._pending:
            self.flush()
        changed = []
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT g.id, l.host, l.pid, l.since, l.fence, l.holder, l.expires_at "
                "FROM games g JOIN leases l ON l.game_id = g.id WHERE g.status = 'playing'"
            ).fetchall() if self._has_leases(conn) else []
            at = _now()
            now = self._lease_now(conn)
            for row in rows:
                holder = dict(zip(("host", "pid", "since", "fence", "token", "expires_at"),
                                  row[1:]), this_host=row[1] == self._me.host)
                if holder["this_host"] and holder["pid"] == self._me.pid:
                    continue  # this very program's
                gone = holder["this_host"] and leases.is_gone(holder["pid"])
                ran_out = holder["token"] is not None and not leases.is_live(holder, now)
                if gone or ran_out:
                    conn.execute("UPDATE games SET status = 'interrupted', ended_at = ? "
                                 "WHERE id = ?", (at, row[0]))
                    changed.append((row[0], "interrupted"))
            for gid in abandon:
                gid = self._canon(gid)
                status, _ = self._status(conn, gid)
                if status in ("playing", "interrupted"):
                    conn.execute("UPDATE games SET status = 'abandoned', ended_at = ? "
                                 "WHERE id = ?", (at, gid))
                    changed = [c for c in changed if c[0] != gid] + [(gid, "abandoned")]
        return changed

    # ---- reading

    def played_elsewhere(self, gid) -> Optional[Dict[str, Any]]:
        """Who else writes game `gid` now: its lease's holder (a dict: host, pid, since,
        expires_at, this_host...; see vora_host.log.leases) when another program holds it
        and the lease binds (not run out, and on this machine its process alive), or None:
        nobody else plays it."""
        if _is_int(gid) and not -_ID_LIMIT <= gid < _ID_LIMIT:
            return None
        gid = self._canon(gid)
        if not _is_int(gid) or gid < 0:
            return None
        with self._errors():
            if not self._has_leases(self._conn):
                return None
            holder = leases.current(self._conn, gid, self._me)
            if holder is None or holder["token"] == self._me.token:
                return None
            return holder if leases.is_live(holder, self._lease_now(self._conn)) else None

    _SUMMARY = ("SELECT g.id, g.board_game_id, g.game, g.players, g.seed, g.options, g.source, "
                "g.started_at, g.ended_at, g.result, g.status, g.imported_at, g.attention, "
                "g.seed_high, "
                "(SELECT count(*) FROM moves m WHERE m.game_id = g.id "
                "AND m.taken_back_at IS NULL), "
                "(SELECT count(*) FROM moves m WHERE m.game_id = g.id "
                "AND m.taken_back_at IS NOT NULL) FROM games g ")
    _KEYS = ("id", "board_game_id", "game", "players", "seed", "options", "source",
             "started_at", "ended_at", "result", "status", "imported_at", "attention",
             "seed_high", "move_count", "taken_back")

    def _summary(self, row):
        info = dict(zip(self._KEYS, row))
        info["seed"] = _seed_of(info["seed"], info.pop("seed_high"))
        try:
            info["options"] = json.loads(info["options"])
            info["result"] = None if info["result"] is None else json.loads(info["result"])
        except ValueError as exc:
            raise DatabaseError("%s: game %d has unreadable JSON: %s"
                                % (self.path, info["id"], exc))
        return info

    def games(self, limit=None, status=None) -> List[Dict[str, Any]]:
        """Summaries of the games in the file, newest first: dicts with id,
        board_game_id, game, players, seed, options, source, started_at, ended_at,
        result, status, imported_at (None unless the game came in by import_game),
        attention (None, or why the game needs attention: notes, one a line, see
        mark_attention), move_count (live moves) and taken_back (moves taken back)."""
        if status is not None and status not in STATUSES:
            raise ValueError("status must be one of %s, not %s" % (", ".join(STATUSES),
                                                                  _short(status)))
        if limit is not None and (not _is_int(limit) or limit < 1):
            raise ValueError("limit must be a whole number from 1, not %s" % _short(limit))
        sql = self._SUMMARY
        args = []  # type: List[Any]
        if status is not None:
            sql += "WHERE g.status = ? "
            args.append(status)
        sql += "ORDER BY g.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        with self._errors():
            return [self._summary(r) for r in self._conn.execute(sql, args)]

    def find_game(self, board_game_id, seed) -> Optional[Dict[str, Any]]:
        """The latest game the board logged under this game id and seed (a summary as in
        games(); move_count tells which move to ask the board for next), or None. Imported
        copies are not candidates: a reconnect continues the game that was logged live.
        A game whose start still waits in memory is a candidate too (the newest)."""
        for op in reversed(self._pending):
            if op["kind"] == "start" and op["board_game_id"] == board_game_id \
                    and op["seed"] == seed and self._is_waiting(op["gid"]):
                info = self.game(op["gid"])
                info.pop("moves")
                info.pop("history")
                return info
        if not _is_int(seed) or not 0 <= seed < 1 << (_SEED_LOW_BITS + 1):
            return None  # no game of the log has such a seed
        with self._errors():
            row = self._conn.execute(self._SUMMARY + "WHERE g.board_game_id = ? AND g.seed = ? "
                                     "AND g.seed_high = ? AND g.imported_at IS NULL "
                                     "ORDER BY g.id DESC LIMIT 1",
                                     (board_game_id,) + _seed_columns(seed)).fetchone()
        if row is None:
            return None
        info = self._summary(row)
        if self._pending:
            full = self.game(info["id"])
            full.pop("moves")
            full.pop("history")
            return full
        return info

    def game(self, game_id) -> Dict[str, Any]:
        """A game's summary plus "moves", its live moves in order ([{number, move, digest,
        logged_at}]), and "history", every move in the order played, each with
        taken_back_at (None for a live move). Changes waiting in memory are included."""
        if self._is_waiting(game_id):
            op = next(o for o in self._pending if o["kind"] == "start" and o["gid"] == game_id)
            info = dict(zip(self._KEYS, (game_id, op["board_game_id"], op["game"],
                                         op["players"], op["seed"], json.loads(op["options"]),
                                         op["source"], op["at"], None, None, "playing", None,
                                         None, 0, 0)))
            history = []
        else:
            gid = self._canon(game_id)
            with self._errors():
                row = self._conn.execute(self._SUMMARY + "WHERE g.id = ?",
                                         (gid,)).fetchone() if _is_int(gid) else None
                if row is None:
                    raise NoSuchGame(game_id, self.path)
                info = self._summary(row)
                history = [
                    {"number": n, "move": m, "digest": d, "logged_at": t, "taken_back_at": b}
                    for n, m, d, t, b in self._conn.execute(
                        "SELECT number, move, digest, logged_at, taken_back_at FROM moves "
                        "WHERE game_id = ? ORDER BY id", (gid,))]
        for op in self._pending:
            if op["kind"] == "start" or self._canon(op["gid"]) != self._canon(game_id):
                continue
            if op["kind"] == "move":
                if info["status"] == "interrupted":
                    info["status"], info["result"], info["ended_at"] = "playing", None, None
                history.append({"number": op["number"], "move": op["move"],
                                "digest": op["digest"], "logged_at": op["at"],
                                "taken_back_at": None})
            elif op["kind"] == "takeback":
                for entry in reversed(history):
                    if entry["number"] == op["number"] and entry["taken_back_at"] is None:
                        entry["taken_back_at"] = op["at"]
                        break
                if info["status"] == "over":
                    info["status"], info["result"], info["ended_at"] = "playing", None, None
            elif op["kind"] == "end":
                info["status"], info["ended_at"] = op["status"], op["at"]
                info["result"] = None if op["result"] is None else json.loads(op["result"])
            elif op["kind"] == "attention":
                info["attention"] = _add_note(info["attention"], op["note"])
        info["history"] = history
        info["moves"] = [dict((k, v) for k, v in e.items() if k != "taken_back_at")
                         for e in history if e["taken_back_at"] is None]
        info["move_count"] = len(info["moves"])
        info["taken_back"] = len(history) - len(info["moves"])
        return info

    def id_range(self):
        """(smallest, largest) game id in the log, or None when it is empty."""
        with self._errors():
            row = self._conn.execute("SELECT min(id), max(id) FROM games").fetchone()
        return None if row[0] is None else (row[0], row[1])

    def same_games(self, record, started_at=None) -> List[int]:
        """Ids of the games of the log that hold this very game: the same game, players,
        seed, options and live moves (and start time, when `started_at` is given)."""
        options = json.dumps(record.get("options"))
        seed = record.get("seed")
        if not _is_int(seed) or not 0 <= seed < 1 << (_SEED_LOW_BITS + 1):
            return []  # no game of the log has such a seed
        with self._errors():
            rows = self._conn.execute(
                "SELECT id, options, started_at FROM games WHERE game = ? AND seed = ? "
                "AND seed_high = ? AND players = ? ORDER BY id",
                (record.get("game"),) + _seed_columns(record.get("seed"))
                + (record.get("players"),)).fetchall()
            out = []
            for gid, opts, start in rows:
                if opts != options or (started_at is not None and start != started_at):
                    continue
                moves = [r[0] for r in self._conn.execute(
                    "SELECT move FROM moves WHERE game_id = ? AND taken_back_at IS NULL "
                    "ORDER BY number", (gid,))]
                if moves == list(record.get("moves", [])):
                    out.append(gid)
        return out

    def record(self, game_id) -> Tuple[Dict[str, Any], List[str]]:
        """(record, digests): the game record (game, format, options, seed, players,
        moves, digests, result) of the live moves and the digest after each, so that
        `shared_rules.games.replay(record, digests)` replays it and checks every digest.
        The record is also what `vora play --record` writes and `vora replay` reads."""
        return record_of(self.game(game_id))

    def verify(self, game_id) -> "VerifyReport":
        """Replay a logged game's live moves with shared_rules.games and compare the
        digest after every move with the logged one. The report says ok, or gives the
        first problem (nothing after it is replayed)."""
        record, digests = record_of(self.game(game_id))
        report = check_replay(record, digests)
        report.game_id = game_id
        return report

    # ---- import

    def import_game(self, record, digests, meta, history=None, force=False):
        """Add a whole game as a new one, in one transaction, marked with imported_at:
        `record` checked as vora_host.log.formats leaves it (live moves), `digests` one
        per live move or None to take the replay's, `meta` the log fields (source, status,
        result, times...), `history` every row in order when moves were taken back (see
        check_history). The record is replayed first; a game that does not replay cleanly
        is refused with BadImport unless `force`. Returns (new id, VerifyReport). Not kept
        in memory when the file cannot be written: CannotWrite says so."""
        report = check_replay(record, digests)
        if not report.ok and not force:
            raise BadImport("the game does not replay: %s" % report.message, report=report)
        moves = record["moves"]
        if digests is None:
            if len(report.replayed) != len(moves):
                raise BadImport("the game does not replay (%s) and the file gives no digests "
                                "to log for the moves after that" % report.message,
                                report=report)
            digests = report.replayed
        now = _now()
        if history is None:
            logged_at = meta.get("logged_at") or [None] * len(moves)
            history = [{"number": k, "move": m, "digest": d, "logged_at": t or now,
                        "taken_back_at": None}
                       for k, (m, d, t) in enumerate(zip(moves, digests, logged_at), 1)]
        else:
            live = [h for h in history if h["taken_back_at"] is None]
            for h, d in zip(live, digests):
                h["digest"] = h["digest"] or d
            for h in history:
                h["logged_at"] = h["logged_at"] or now
        if self._pending:
            try:
                self.flush()
            except NotWritten as exc:
                raise CannotWrite(str(exc), exc.reason)
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO games (board_game_id, game, players, seed, seed_high, options, "
                "source, started_at, ended_at, result, status, imported_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (meta.get("board_game_id"), record["game"], record["players"])
                + _seed_columns(record["seed"]) + (json.dumps(record["options"]), meta["source"], meta.get("started_at") or now,
                 meta.get("ended_at"),
                 None if meta.get("result") is None else json.dumps(meta["result"]),
                 meta["status"], now))
            gid = cur.lastrowid
            conn.executemany(
                "INSERT INTO moves (game_id, number, move, digest, logged_at, taken_back_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(gid, h["number"], h["move"], h["digest"], h["logged_at"], h["taken_back_at"])
                 for h in history])
        report.game_id = gid
        return gid, report


def record_of(info):
    """(record, digests) of a game() dict: its live moves."""
    moves = [m["move"] for m in info["moves"]]
    digests = [m["digest"] for m in info["moves"]]
    record = {
        "game": info["game"],
        "format": 1,
        "options": info["options"],
        "seed": info["seed"],
        "players": info["players"],
        "moves": moves,
        "digests": list(digests),
        "result": info["result"] if info["result"] is not None else {},
    }
    return record, digests


# ---------------------------------------------------------------- history

def check_history(rows):
    """Check that `rows` (dicts with number and taken_back_at, in the order played) is a
    history live play can make: each move numbered one past the live moves before it,
    and a move replaced by a later one only after it was taken back. Returns the live
    rows in order; ValueError naming the first row that breaks the rule."""
    stack = []
    for k, row in enumerate(rows, 1):
        n = row["number"]
        while stack and stack[-1]["number"] >= n:
            top = stack.pop()
            if top["taken_back_at"] is None:
                raise ValueError("history entry %d: move %d is played again but the move %d "
                                 "before it was not taken back" % (k, n, top["number"]))
        if n != len(stack) + 1:
            raise ValueError("history entry %d: move %d follows %d live moves; moves are "
                             "numbered one after the other" % (k, n, len(stack)))
        stack.append(row)
    while stack and stack[-1]["taken_back_at"] is not None:
        stack.pop()
    for row in stack:
        if row["taken_back_at"] is not None:
            raise ValueError("move %d is marked taken back, but live moves follow it"
                             % row["number"])
    return stack


def history_events(rows):
    """The history as events in order: ("move", row) and ("takeback", number); a takeback
    appears just before the move that follows it (or at the end)."""
    stack, events = [], []
    for row in rows:
        while stack and stack[-1]["number"] >= row["number"]:
            events.append(("takeback", stack.pop()["number"]))
        stack.append(row)
        events.append(("move", row))
    while stack and stack[-1]["taken_back_at"] is not None:
        events.append(("takeback", stack.pop()["number"]))
    return events


# ---------------------------------------------------------------- replay and verify

@dataclass
class Step:
    """One move replayed: `player` was to act before it (None once the game is over),
    `state` is the state after it (unchanged when the move is illegal, `illegal` then
    giving the reason)."""
    number: int
    player: Optional[int]
    move: str
    logged_digest: Optional[str]
    replayed_digest: str
    state: Any
    illegal: Optional[str] = None

    @property
    def ok(self):
        return self.illegal is None and (self.logged_digest is None
                                         or self.logged_digest == self.replayed_digest)


def replay_steps(record, digests=None) -> Iterator[Step]:
    """Replay a record move by move with shared_rules.games, yielding a Step per move up
    to the first illegal move (nothing after it is played: the state would be
    meaningless). BadPosition before the first step when the game cannot be set up. The
    state is the same object throughout: clone it to keep one."""
    state = games.start(record)
    for k, move in enumerate(record.get("moves", []), 1):
        player = state.to_act()
        logged = digests[k - 1] if digests is not None and k <= len(digests) else None
        try:
            state.play(move)
        except IllegalMove as exc:
            yield Step(k, player, move, logged, state.digest(), state, exc.reason)
            return
        yield Step(k, player, move, logged, state.digest(), state)


@dataclass
class VerifyReport:
    """What a replay against the log found. problem: None (ok), "setup" (the game cannot
    be set up), "illegal" (move `number` is illegal), "mismatch" (the digest after move
    `number` differs), "result" (the logged result differs from the replay's). Replay
    stops at the first problem: `players` and `replayed` cover the moves up to it."""
    game_id: Optional[int]
    moves: int
    problem: Optional[str] = None
    number: Optional[int] = None
    move: Optional[str] = None
    player: Optional[int] = None
    logged_digest: Optional[str] = None
    replayed_digest: Optional[str] = None
    reason: Optional[str] = None
    state: Any = None  # the replay's final state (at the problem when there is one)
    players: List[Optional[int]] = field(default_factory=list, repr=False)
    replayed: List[str] = field(default_factory=list, repr=False)

    @property
    def ok(self):
        return self.problem is None

    @property
    def message(self):
        if self.problem is None:
            return "%s replay and every digest matches" % (
                "the one move" if self.moves == 1 else "all %d moves" % self.moves)
        if self.problem == "setup":
            return "the game cannot be set up: %s" % self.reason
        if self.problem == "illegal":
            return "move %d (%s): the logged move %r is illegal: %s" % (
                self.number, player_label(self.player), self.move, self.reason)
        if self.problem == "mismatch":
            return ("move %d (%s %s): digest mismatch: the log has %s, the replay gives %s"
                    % (self.number, player_label(self.player), self.move, self.logged_digest,
                       self.replayed_digest))
        return "the logged result differs from the replay: %s" % self.reason

    def __str__(self):
        return self.message


def result_difference(result, state):
    """Why a logged result disagrees with a replayed state, or None when it agrees (or
    there is no result)."""
    if not result:
        return None
    if result.get("over") != state.is_over():
        return "the log says the game is %s, the replay says it is %s" % (
            "over" if result.get("over") else "not over",
            "over" if state.is_over() else "not over")
    if result.get("scores") != state.scores():
        return "the log has scores %s, the replay %s" % (_short(result.get("scores")),
                                                         state.scores())
    if state.is_over() and result.get("winner") != state.winner():
        return "the log names winner %s, the replay %s" % (_short(result.get("winner")),
                                                           state.winner())
    if state.is_over() and result.get("end") != state.end_reason():
        return "the log says the game ended by %s, the replay by %r" % (
            _short(result.get("end")), state.end_reason())
    if result.get("turns_completed") != state.turn_count():
        return "the log has %s turns completed, the replay %d" % (
            _short(result.get("turns_completed")), state.turn_count())
    return None


def check_replay(record, digests=None) -> VerifyReport:
    """Replay the moves up to the first problem; the report keeps it, the player to act
    before every move replayed and the replayed digests (for an import without
    digests)."""
    report = VerifyReport(None, len(record.get("moves", [])))
    try:
        for step in replay_steps(record, digests):
            report.players.append(step.player)
            report.replayed.append(step.replayed_digest)
            report.state = step.state
            if step.illegal is not None:
                _fill(report, "illegal", step, step.illegal)
                report.replayed.pop()  # an illegal move has no digest of its own
                break
            if not step.ok:
                _fill(report, "mismatch", step, None)
                break
    except BadPosition as exc:
        report.problem, report.reason = "setup", str(exc)
        return report
    if report.problem is None:
        if report.state is None:
            report.state = games.start(record)
        diff = result_difference(record.get("result"), report.state)
        if diff:
            report.problem, report.reason = "result", diff
    return report


def _fill(report, problem, step, reason):
    report.problem, report.number, report.move = problem, step.number, step.move
    report.player, report.reason = step.player, reason
    report.logged_digest, report.replayed_digest = step.logged_digest, step.replayed_digest
