"""The game log: every game the host mirrors, move by move, in one SQLite file.

    log = GameLog(default_db_path())
    gid = log.start_game(players=2, seed=7, source="board /dev/ttyACM0", board_game_id=123)
    log.add_move(gid, 1, "push crow Sc", "0a1b2c3d4e5f6071")   # True: logged
    log.add_move(gid, 1, "push crow Sc", "0a1b2c3d4e5f6071")   # False: a repeat, nothing done
    log.end_game(gid, "over", record.result_of(state))
    log.verify(gid)                                           # replays and checks every digest

Durability. The file is in WAL mode with `synchronous=FULL`, and every `add_move()` is
its own transaction. In WAL mode a commit is one append to the -wal file; FULL makes SQLite
fsync that file at every commit, so a move `add_move()` has returned for survives a power
cut too, not only a crash of this program (NORMAL, the usual WAL setting, keeps the file
consistent but may lose the last commits on a power cut). The price is one fsync per move,
nothing at the pace of a board game. WAL also lets readers (`vora games list` in another
terminal) read while the logger writes, without blocking either. SQLite's journal makes
every transaction all or nothing, so a crash at any instant leaves each move either whole
or absent, never half written.

Repeats and holes. The board numbers its moves 1..n. After a reconnect it may send a
move again: the same number, move and digest is a no-op (`add_move` returns False). The
same number with another move or digest is a `MoveConflict` naming both; a number past
the next one is a `MoveGap` (`.expected` is the number the log needs next), so that the
caller fetches the missing moves first. Numbers in the log are therefore always 1..n.

Text export format (`export_text`, read back by `parse_text`): tag pairs as in PGN, then
one move per line with its number, the player who played it (the player to act before
the move; P- when nobody was: the game was already over) and the digest after it:

    [Game "vora"]
    [Seed "7"]
    [Players "2"]
    [Seats "SN"]
    [Result "P1 wins"]        "P<n> wins", "draw", or "*" for a game not over
    ...
    1. P0 push crow Sc ; 0a1b2c3d4e5f6071

Lines starting with '#' are comments. Reading never evaluates anything: tags and moves
are parsed and checked field by field, and the moves are replayed.

Result. `end_game()` takes None or the dict `vora_host.log.records.result_of()` makes:
{"over", "end", "turns_completed", "scores", "winner"}, all five keys, so that both export
formats carry it exactly.
"""

import json
import os
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from shared_rules import games, prng, vora
from shared_rules.errors import BadPosition, IllegalMove

__all__ = [
    "SCHEMA_VERSION", "APPLICATION_ID", "DB_NAME", "DB_ENV", "STATUSES", "END_STATUSES",
    "GameLogError", "DatabaseError", "DatabaseLocked", "NoSuchGame", "MoveConflict",
    "MoveGap", "GameClosed", "BadImport", "Step", "VerifyReport",
    "default_db_path", "resolve_db_path", "GameLog", "replay_steps", "check_replay",
    "export_json", "export_text", "parse_json", "parse_text", "import_text", "import_json",
    "result_difference", "normalize_options", "box_text", "player_label",
]

SCHEMA_VERSION = 1
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
I64_MAX = (1 << 63) - 1


# ---------------------------------------------------------------- errors

class GameLogError(Exception):
    """Base class of the game log's errors; the message is meant for people."""


class DatabaseError(GameLogError):
    """The file cannot be used as a game log: unreadable, corrupt, not SQLite, not ours,
    or written by a newer version. The file is left untouched."""


class DatabaseLocked(DatabaseError):
    """Another program holds the database locked for longer than the timeout."""


class NoSuchGame(GameLogError):
    def __init__(self, game_id, path=None):
        self.game_id = game_id
        super().__init__("no game %s in the log%s" % (game_id, " %s" % path if path else ""))


class MoveConflict(GameLogError):
    """The log already has another move, or another digest, under this number."""

    def __init__(self, game_id, number, logged_move, logged_digest, move, digest):
        self.game_id, self.number = game_id, number
        self.logged_move, self.logged_digest = logged_move, logged_digest
        self.move, self.digest = move, digest
        super().__init__(
            "game %d, move %d: the log has %r (digest %s), now reported as %r (digest %s)"
            % (game_id, number, logged_move, logged_digest, move, digest))


class MoveGap(GameLogError):
    """A move number past the next one: moves `expected` .. `number - 1` are missing."""

    def __init__(self, game_id, number, expected):
        self.game_id, self.number, self.expected = game_id, number, expected
        super().__init__("game %d: move %d reported but the log needs move %d next "
                         "(moves %d to %d are missing)"
                         % (game_id, number, expected, expected, number - 1))


class GameClosed(GameLogError):
    """A new move for a game that is over or abandoned."""

    def __init__(self, game_id, status):
        self.game_id, self.status = game_id, status
        super().__init__("game %d is %s: it takes no more moves" % (game_id, status))


class BadImport(GameLogError):
    """A file that cannot be imported. `line` is the 1-based line of a text file where
    the problem is (None when not tied to a line); `report` the failed replay, if any."""

    def __init__(self, message, line=None, report=None):
        self.line, self.report = line, report
        super().__init__(("line %d: %s" % (line, message)) if line else message)


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


def resolve_db_path(option=None, env=None) -> Path:
    """The database to use: `--db` if given, else $VORA_DB if set, else the default."""
    env = os.environ if env is None else env
    if option:
        return Path(option).expanduser()
    if env.get(DB_ENV):
        return Path(env[DB_ENV]).expanduser()
    return default_db_path(env)


# ---------------------------------------------------------------- schema and migrations

_SCHEMA_1 = (
    """CREATE TABLE games (
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
    )""",
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


def _migrate_to_1(conn):
    for statement in _SCHEMA_1:
        conn.execute(statement)


# The migration hook: MIGRATIONS[v](conn) brings a database at user_version v - 1 to
# version v, with conn.execute() only (executescript would commit). A later schema adds
# its function here and raises SCHEMA_VERSION; opening an older file runs the missing
# steps in one transaction, all or nothing, and sets user_version in it.
MIGRATIONS = {1: _migrate_to_1}


def _now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _check_timestamp(value, what):
    if not isinstance(value, str) or not value or len(value) > 64:
        raise ValueError("%s must be an ISO 8601 date and time, not %r" % (what, value))
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("%s must be an ISO 8601 date and time, not %r" % (what, value))
    return value


def _check_source(source):
    ok = isinstance(source, str) and (
        source in ("virtual board", "terminal")
        or (source.startswith("board ") and source[6:].strip() != ""))
    if not ok or len(source) > 200 or any(ord(c) < 32 or ord(c) == 127 for c in source):
        raise ValueError("source must be 'board <port or identity>', 'virtual board' or "
                         "'terminal' (one line), not %r" % (source,))
    return source


def _check_result(result, status):
    if result is None:
        if status == "over":
            raise ValueError("a game that is over needs its result")
        return None
    if not isinstance(result, dict) or set(result) != set(RESULT_KEYS):
        raise ValueError("the result must be None or a dict with exactly the keys %s "
                         "(vora_host.log.records.result_of), not %r" % (", ".join(RESULT_KEYS), result))
    over, end, turns, scores, winner = (result[k] for k in RESULT_KEYS)
    if not isinstance(over, bool):
        raise ValueError("result 'over' must be true or false, not %r" % (over,))
    if not isinstance(end, str) or not end or any(ord(c) < 32 or c == '"' for c in end) \
            or len(end) > 64:
        raise ValueError("result 'end' must be a short word, not %r" % (end,))
    if not _is_int(turns) or turns < 0:
        raise ValueError("result 'turns_completed' must be a whole number, not %r" % (turns,))
    if not isinstance(scores, list) or not scores or not all(_is_int(s) for s in scores):
        raise ValueError("result 'scores' must be a list of whole numbers, not %r" % (scores,))
    if winner is not None and (not _is_int(winner) or not 0 <= winner < len(scores)):
        raise ValueError("result 'winner' must be a player or None, not %r" % (winner,))
    if winner is not None and not over:
        raise ValueError("result names a winner of a game that is not over")
    if status is not None and over != (status == "over"):
        raise ValueError("status %r does not agree with a result where 'over' is %s"
                         % (status, over))
    return dict((k, result[k]) for k in RESULT_KEYS)


def normalize_options(game, players, seed, options):
    """Check that the game can be set up and return its options with every default
    spelled out (the state's options()), so the log replays the same game even if a
    default changes later. ValueError when the game cannot be set up."""
    if not isinstance(game, str):
        raise ValueError("the game name must be a text, not %r" % (game,))
    if not _is_int(players):
        raise ValueError("players must be a whole number, not %r" % (players,))
    prng.check_seed(seed)
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise ValueError("options must be a dict, not %r" % (options,))
    try:
        module = games.load(game)
        for key, value in options.items():
            games.option_spec(module, key)
            if isinstance(value, bool) and games.option_spec(module, key)[2] != "bool":
                raise ValueError("option %r: %r is not a valid value" % (key, value))
        state = games.start({"game": game, "players": players, "seed": seed,
                             "options": options})
    except BadPosition as exc:
        raise ValueError("the game cannot be set up: %s" % exc)
    return state.options()


# ---------------------------------------------------------------- the log

class GameLog:
    """The game log in the SQLite file `path` (created, with its folder, when missing and
    `create` is true). `timeout`: seconds to wait for a lock held by another program
    before DatabaseLocked. Use as a context manager or call close()."""

    def __init__(self, path, create=True, timeout=5.0):
        self.path = Path(path)
        self._conn = None
        self._open(create, timeout)

    # ---- opening

    def _open(self, create, timeout):
        path = self.path
        if path.is_dir():
            raise DatabaseError("%s is a folder, not a game log" % path)
        exists = path.exists()
        if exists:
            # Check the header ourselves before SQLite touches the file: a file that is not
            # an SQLite database is refused untouched (no journal, no -wal, no rewrite).
            try:
                with open(path, "rb") as f:
                    head = f.read(len(SQLITE_MAGIC))
            except OSError as exc:
                raise DatabaseError("cannot read %s: %s" % (path, exc.strerror or exc))
            if head and head != SQLITE_MAGIC:
                raise DatabaseError("%s is not a Vora game log: it is not an SQLite database "
                                    "(corrupt, or another kind of file); it was left as it is"
                                    % path)
        elif not create:
            raise DatabaseError("there is no game log at %s yet" % path)
        else:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise DatabaseError("cannot create the folder %s: %s"
                                    % (path.parent, exc.strerror or exc))
        uri = "file:%s?mode=%s" % (_uri_path(path), "rwc" if create else "rw")
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise DatabaseError("cannot open %s: %s" % (path, exc))
        self._conn = conn
        try:
            with self._errors():
                self._prepare()
        except BaseException:
            conn.close()
            self._conn = None
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
        if version < SCHEMA_VERSION:
            self._migrate()

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
            conn.execute("ROLLBACK")
            raise

    def _errors(self):
        return _SqliteErrors(self.path)

    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _transaction(self):
        return _Transaction(self._conn, self.path)

    @property
    def schema_version(self):
        with self._errors():
            return self._conn.execute("PRAGMA user_version").fetchone()[0]

    # ---- writing

    def start_game(self, *, players, seed, source, options=None, game=vora.NAME,
                   board_game_id=None, started_at=None) -> int:
        """Log a new game and return its id. `source`: 'board <port or identity>',
        'virtual board' or 'terminal'; `board_game_id`: the board's u32 id of the game
        (None for games played on the PC). The options are checked by setting the game up
        and stored with every default filled in."""
        options = normalize_options(game, players, seed, options)
        _check_source(source)
        if board_game_id is not None and (not _is_int(board_game_id)
                                          or not 0 <= board_game_id <= U32_MAX):
            raise ValueError("the board's game id is a u32 (0 to %d) or None, not %r"
                             % (U32_MAX, board_game_id))
        started_at = _now() if started_at is None else _check_timestamp(started_at, "started_at")
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO games (board_game_id, game, players, seed, options, source, "
                "started_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, 'playing')",
                (board_game_id, game, players, seed, json.dumps(options), source, started_at))
            return cur.lastrowid

    def add_move(self, game_id, number, move, digest) -> bool:
        """Log move `number` (1-based) of a game with the digest the board reported after
        it, in its own committed transaction. Returns True when logged, False when the log
        already holds exactly this move (a repeat after a reconnect). Raises MoveConflict
        (another move or digest under that number), MoveGap (moves missing before it),
        GameClosed (the game is over or abandoned), NoSuchGame."""
        if not _is_int(number) or number < 1:
            raise ValueError("a move number is a whole number from 1, not %r" % (number,))
        if not isinstance(move, str) or not MOVE_RE.fullmatch(move):
            raise ValueError("a move is printable ASCII text without ';' (up to 120 "
                             "characters), not %r" % (move,))
        if not isinstance(digest, str) or not DIGEST_RE.fullmatch(digest):
            raise ValueError("a digest is 16 lowercase hex digits, not %r" % (digest,))
        # BEGIN IMMEDIATE: the checks and the insert happen under one write lock, so two
        # loggers of the same game cannot both pass the checks.
        with self._transaction() as conn:
            status = self._status(conn, game_id)
            row = conn.execute("SELECT move, digest FROM moves WHERE game_id = ? AND number = ?",
                               (game_id, number)).fetchone()
            if row is not None:
                if row[0] == move and row[1] == digest:
                    return False
                raise MoveConflict(game_id, number, row[0], row[1], move, digest)
            last = conn.execute("SELECT coalesce(max(number), 0) FROM moves WHERE game_id = ?",
                                (game_id,)).fetchone()[0]
            if number > last + 1:
                raise MoveGap(game_id, number, last + 1)
            if status in ("over", "abandoned"):
                raise GameClosed(game_id, status)
            if status == "interrupted":  # the board came back: the game goes on
                conn.execute("UPDATE games SET status = 'playing', ended_at = NULL, "
                             "result = NULL WHERE id = ?", (game_id,))
            conn.execute("INSERT INTO moves (game_id, number, move, digest, logged_at) "
                         "VALUES (?, ?, ?, ?, ?)", (game_id, number, move, digest, _now()))
            return True

    def end_game(self, game_id, status, result=None, ended_at=None) -> bool:
        """Mark a game over, abandoned or interrupted, with its result (None, or the dict
        of vora_host.log.records.result_of). An interrupted game takes moves again (its status
        goes back to playing). Returns False when nothing changed (the same end repeated)."""
        if status not in END_STATUSES:
            raise ValueError("a game ends as %s, not %r" % (", ".join(END_STATUSES), status))
        result = _check_result(result, status)
        ended_at = _now() if ended_at is None else _check_timestamp(ended_at, "ended_at")
        text = None if result is None else json.dumps(result)
        with self._transaction() as conn:
            self._status(conn, game_id)
            row = conn.execute("SELECT status, result FROM games WHERE id = ?",
                               (game_id,)).fetchone()
            if row[0] == status and row[1] == text:
                return False
            conn.execute("UPDATE games SET status = ?, result = ?, ended_at = ? WHERE id = ?",
                         (status, text, ended_at, game_id))
            return True

    def _status(self, conn, game_id):
        if not _is_int(game_id):
            raise NoSuchGame(game_id, self.path)
        row = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NoSuchGame(game_id, self.path)
        return row[0]

    # ---- reading

    _SUMMARY = ("SELECT g.id, g.board_game_id, g.game, g.players, g.seed, g.options, g.source, "
                "g.started_at, g.ended_at, g.result, g.status, g.imported_at, "
                "(SELECT count(*) FROM moves m WHERE m.game_id = g.id) FROM games g ")

    def _summary(self, row):
        keys = ("id", "board_game_id", "game", "players", "seed", "options", "source",
                "started_at", "ended_at", "result", "status", "imported_at", "move_count")
        info = dict(zip(keys, row))
        try:
            info["options"] = json.loads(info["options"])
            info["result"] = None if info["result"] is None else json.loads(info["result"])
        except ValueError as exc:
            raise DatabaseError("%s: game %d has unreadable JSON: %s"
                                % (self.path, info["id"], exc))
        return info

    def games(self, limit=None, status=None) -> List[Dict[str, Any]]:
        """Summaries of the games, newest first: dicts with id, board_game_id, game,
        players, seed, options, source, started_at, ended_at, result, status, imported_at
        (None unless the game came in by import_game) and move_count."""
        if status is not None and status not in STATUSES:
            raise ValueError("status must be one of %s, not %r" % (", ".join(STATUSES), status))
        if limit is not None and (not _is_int(limit) or limit < 1):
            raise ValueError("limit must be a whole number from 1, not %r" % (limit,))
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
        copies are not candidates: a reconnect continues the game that was logged live."""
        with self._errors():
            row = self._conn.execute(self._SUMMARY + "WHERE g.board_game_id = ? AND g.seed = ? "
                                     "AND g.imported_at IS NULL ORDER BY g.id DESC LIMIT 1",
                                     (board_game_id, seed)).fetchone()
        return None if row is None else self._summary(row)

    def game(self, game_id) -> Dict[str, Any]:
        """A game's summary plus "moves": [{number, move, digest, logged_at}] in order."""
        with self._errors():
            row = self._conn.execute(self._SUMMARY + "WHERE g.id = ?", (game_id,)).fetchone()
            if row is None:
                raise NoSuchGame(game_id, self.path)
            info = self._summary(row)
            info["moves"] = [
                {"number": n, "move": m, "digest": d, "logged_at": t}
                for n, m, d, t in self._conn.execute(
                    "SELECT number, move, digest, logged_at FROM moves WHERE game_id = ? "
                    "ORDER BY number", (game_id,))]
        return info

    def id_range(self):
        """(smallest, largest) game id in the log, or None when it is empty."""
        with self._errors():
            row = self._conn.execute("SELECT min(id), max(id) FROM games").fetchone()
        return None if row[0] is None else (row[0], row[1])

    def record(self, game_id) -> Tuple[Dict[str, Any], List[str]]:
        """(record, digests): the game record (game, format, options, seed, players,
        moves, digests, result) and the digest after each move, so that
        `shared_rules.games.replay(record, digests)` replays it and checks every digest.
        The record is also what `vora play --record` writes and `vora replay` reads."""
        return _record_of(self.game(game_id))

    def verify(self, game_id) -> "VerifyReport":
        """Replay a logged game with shared_rules.games and compare the digest after every
        move with the logged one. The report says ok, or gives the first problem."""
        info = self.game(game_id)
        record, digests = _record_of(info)
        report = check_replay(record, digests)
        report.game_id = game_id
        return report

    # ---- import

    def import_game(self, record, digests=None, meta=None, force=False):
        """Add a whole game (a record as `record()` returns, the digests or None to take
        the replay's, and the `log` metadata of export_json or None) as a new game, in one
        transaction, marked with imported_at. The record is replayed first; a game that
        does not replay cleanly is refused with BadImport unless `force`.
        Returns (new id, VerifyReport)."""
        record, digests, meta = _checked_import(record, digests, meta)
        report = check_replay(record, digests)
        if not report.ok and not force:
            raise BadImport("the game does not replay: %s" % report.message, report=report)
        if digests is None:
            digests = report.replayed
        moves = record["moves"]
        logged_at = meta.get("logged_at") or [None] * len(moves)
        now = _now()
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO games (board_game_id, game, players, seed, options, source, "
                "started_at, ended_at, result, status, imported_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (meta.get("board_game_id"), record["game"], record["players"], record["seed"],
                 json.dumps(record["options"]), meta["source"], meta.get("started_at") or now,
                 meta.get("ended_at"),
                 None if meta["result"] is None else json.dumps(meta["result"]),
                 meta["status"], now))
            gid = cur.lastrowid
            conn.executemany(
                "INSERT INTO moves (game_id, number, move, digest, logged_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [(gid, k, m, d, t or now)
                 for k, (m, d, t) in enumerate(zip(moves, digests, logged_at), 1)])
        report.game_id = gid
        return gid, report


def _uri_path(path):
    from urllib.parse import quote
    return quote(str(Path(path).absolute()))


class _SqliteErrors:
    """Turns sqlite3 errors into the log's own, naming the file."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or not isinstance(exc, sqlite3.Error):
            return False
        text = str(exc)
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
            raise DatabaseLocked("%s is locked by another program (%s); try again when it "
                                 "has finished" % (self.path, text)) from exc
        if isinstance(exc, sqlite3.IntegrityError):
            raise DatabaseError("%s refused a change: %s" % (self.path, text)) from exc
        raise DatabaseError("%s cannot be used as a game log: %s (a corrupt or unreadable "
                            "file?)" % (self.path, text)) from exc


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
            except sqlite3.Error as error:
                exc = error
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the first error is the one to report
        if isinstance(exc, sqlite3.Error):
            self.errors.__exit__(type(exc), exc, None)  # raises the translated error
        return False


def _record_of(info):
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
    """Replay a record move by move with shared_rules.games, yielding a Step per move
    (all of them: a consumer stops at the first step that is not ok if it wants to).
    BadPosition before the first step when the game cannot be set up. The state is the
    same object throughout: clone it to keep one."""
    state = games.start(record)
    for k, move in enumerate(record.get("moves", []), 1):
        player = state.to_act()
        logged = digests[k - 1] if digests is not None and k <= len(digests) else None
        try:
            state.play(move)
        except IllegalMove as exc:
            yield Step(k, player, move, logged, state.digest(), state, exc.reason)
            continue
        yield Step(k, player, move, logged, state.digest(), state)


@dataclass
class VerifyReport:
    """What a replay against the log found. problem: None (ok), "setup" (the game cannot
    be set up), "illegal" (move `number` is illegal), "mismatch" (the digest after move
    `number` differs), "result" (the logged result differs from the replay's)."""
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
            return "all %d moves replay and every digest matches" % self.moves
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


def player_label(player):
    """'P0' for player 0; 'P-' for nobody (a move logged after the game was over)."""
    return "P-" if player is None else "P%d" % player


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
        return "the log has scores %s, the replay %s" % (result.get("scores"), state.scores())
    if state.is_over() and result.get("winner") != state.winner():
        return "the log names winner %s, the replay %s" % (result.get("winner"), state.winner())
    if state.is_over() and result.get("end") != state.end:
        return "the log says the game ended by %r, the replay by %r" % (result.get("end"),
                                                                     state.end)
    if result.get("turns_completed") != state.turn:
        return "the log has %s turns completed, the replay %d" % (
            result.get("turns_completed"), state.turn)
    return None


def check_replay(record, digests=None) -> VerifyReport:
    """Replay every move; the report keeps the first problem, the player to act before
    every move and the replayed digests (for an import without digests)."""
    report = VerifyReport(None, len(record.get("moves", [])))
    try:
        steps = replay_steps(record, digests)
        for step in steps:
            report.players.append(step.player)
            report.replayed.append(step.replayed_digest)
            if report.problem is None:
                report.state = step.state
                if step.illegal is not None:
                    _fill(report, "illegal", step, step.illegal)
                    report.state = step.state.clone()
                elif not step.ok:
                    _fill(report, "mismatch", step, None)
                    report.state = step.state.clone()
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


# ---------------------------------------------------------------- export

def _meta_of(info):
    return {
        "id": info["id"],
        "board_game_id": info["board_game_id"],
        "source": info["source"],
        "status": info["status"],
        "started_at": info["started_at"],
        "ended_at": info["ended_at"],
        "logged_at": [m["logged_at"] for m in info["moves"]],
    }


def export_json(log, game_id) -> str:
    """The game as JSON: the record (readable by `vora replay` too) with its digests and a
    "log" object (id, board_game_id, source, status, started_at, ended_at, logged_at)."""
    info = log.game(game_id)
    record, _ = _record_of(info)
    record["log"] = _meta_of(info)
    return _dumps_export(record)


def _json_list(values, indent):
    if not values:
        return "[]"
    pad = "\n" + " " * indent
    return "[" + pad + ("," + pad).join(json.dumps(v) for v in values) + "\n" + \
        " " * (indent - 1) + "]"


def _dumps_export(record):
    # Laid out like vora_host.log.records.dumps_record: one line per field, per move, per digest
    # and per time, so that two exports of the same game diff line by line.
    lines = []
    for key, value in record.items():
        if key in ("moves", "digests"):
            body = _json_list(value, 2)
        elif key == "log":
            inner = ["  %s: %s" % (json.dumps(k), _json_list(v, 3) if k == "logged_at"
                                   else json.dumps(v)) for k, v in value.items()]
            body = "{\n" + ",\n".join(inner) + "\n }"
        else:
            body = json.dumps(value)
        lines.append(" %s: %s" % (json.dumps(key), body))
    return "{\n" + ",\n".join(lines) + "\n}\n"


TAG_ORDER = ("Game", "Format", "Seed", "Players", "Seats", "Box", "PushedOut", "MaxTurns", "ChainLines",
             "Result", "Scores", "End", "Turns", "Status", "Source", "BoardGameId", "Started",
             "Ended")


def _quote(value):
    return '"%s"' % str(value).replace("\\", "\\\\").replace('"', '\\"')


def box_text(box):
    """A box of cubes {type: count} in the position notation: P12C12... ("-" if empty)."""
    text = "".join("%s%d" % (vora.LETTERS[t], box[name])
                   for t, name in enumerate(vora.TYPES) if box.get(name))
    return text or "-"


def _result_tags(result):
    if result is None:
        return [("Result", "*")]
    if not result["over"]:
        head = "*"
    elif result["winner"] is None:
        head = "draw"
    else:
        head = "P%d wins" % result["winner"]
    return [("Result", head), ("Scores", " ".join("%+d" % s for s in result["scores"])),
            ("End", result["end"]), ("Turns", result["turns_completed"])]


def export_text(log, game_id) -> str:
    """The game in the readable text notation (see the module docstring)."""
    info = log.game(game_id)
    record, digests = _record_of(info)
    if info["game"] != vora.NAME:
        raise GameLogError("the text format is for Vora games; export game %d as JSON"
                           % game_id)
    report = check_replay(record, digests)
    opts = info["options"]
    tags = [("Game", info["game"]), ("Format", 1), ("Seed", info["seed"]),
            ("Players", info["players"]), ("Seats", opts["seats"]),
            ("Box", box_text(opts["box"])), ("PushedOut", opts["pushed_out"]),
            ("MaxTurns", opts["max_turns"]), ("ChainLines", opts["chain_lines"])]
    if opts.get("position"):  # set up from a position, as PGN's FEN tag
        tags.append(("Position", opts["position"]))
    tags += _result_tags(info["result"])
    tags += [("Status", info["status"]), ("Source", info["source"])]
    if info["board_game_id"] is not None:
        tags.append(("BoardGameId", info["board_game_id"]))
    tags.append(("Started", info["started_at"]))
    if info["ended_at"] is not None:
        tags.append(("Ended", info["ended_at"]))
    lines = ["# Vora game %d from the vora game log; read back with 'vora games import'."
             % game_id]
    if not report.ok:
        lines.append("# WARNING: this game does not replay cleanly: %s" % report.message)
    lines += ["[%s %s]" % (name, _quote(value)) for name, value in tags]
    lines.append("")
    players = report.players if report.problem != "setup" else [None] * len(digests)
    for k, (move, digest) in enumerate(zip(record["moves"], digests), 1):
        lines.append("%d. %s %s ; %s" % (k, player_label(players[k - 1]), move, digest))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- import

def _checked_import(record, digests, meta):
    """Check an import field by field; returns (record, digests, meta) normalized."""
    from vora_host.log.records import RecordError, check_record
    try:
        check_record(record)
    except RecordError as exc:
        raise BadImport(str(exc))
    try:
        options = normalize_options(record["game"], record["players"], record["seed"],
                                    record.get("options"))
    except ValueError as exc:
        raise BadImport(str(exc))
    moves = list(record["moves"])
    for k, move in enumerate(moves, 1):
        if not MOVE_RE.fullmatch(move):
            raise BadImport("move %d: %r is not a move text (printable ASCII, no ';')"
                            % (k, move))
    if digests is None:
        digests = record.get("digests")
    if digests is not None:
        if not isinstance(digests, list) or len(digests) != len(moves):
            raise BadImport("there must be one digest per move")
        for k, d in enumerate(digests, 1):
            if not isinstance(d, str) or not DIGEST_RE.fullmatch(d):
                raise BadImport("move %d: the digest %r is not 16 lowercase hex digits" % (k, d))
        digests = list(digests)
    meta = dict(meta or {})
    unknown = set(meta) - {"id", "board_game_id", "source", "status", "started_at",
                           "ended_at", "logged_at"}
    if unknown:
        raise BadImport("unknown log field(s): %s" % ", ".join(sorted(unknown)))
    result = record.get("result")
    result = None if result in (None, {}) else result
    try:
        if "status" not in meta:
            # A record without log metadata (e.g. from `vora play --record`): its status
            # follows from its result.
            if isinstance(result, dict) and result.get("over") is True:
                meta["status"] = "over"
            elif isinstance(result, dict) and result.get("end") == "interrupted":
                meta["status"] = "interrupted"
            else:
                meta["status"] = "abandoned"
        status = meta["status"]
        if status not in STATUSES:
            raise ValueError("status must be one of %s, not %r" % (", ".join(STATUSES), status))
        meta["result"] = _check_result(result, status)
        meta["source"] = _check_source(meta.get("source", "terminal"))
        bgid = meta.get("board_game_id")
        if bgid is not None and (not _is_int(bgid) or not 0 <= bgid <= U32_MAX):
            raise ValueError("board_game_id must be a u32 or null, not %r" % (bgid,))
        for key in ("started_at", "ended_at"):
            if meta.get(key) is not None:
                _check_timestamp(meta[key], key)
        logged_at = meta.get("logged_at")
        if logged_at is not None:
            if not isinstance(logged_at, list) or len(logged_at) != len(moves):
                raise ValueError("logged_at must list one time per move")
            for k, t in enumerate(logged_at, 1):
                _check_timestamp(t, "logged_at of move %d" % k)
        if meta.get("id") is not None and not _is_int(meta["id"]):
            raise ValueError("id must be a whole number, not %r" % (meta["id"],))
    except ValueError as exc:
        raise BadImport(str(exc))
    clean = {"game": record["game"], "format": 1, "options": options, "seed": record["seed"],
             "players": record["players"], "moves": moves,
             "result": meta["result"] if meta["result"] is not None else {}}
    if digests is not None:
        clean["digests"] = digests
    return clean, digests, meta


def _no_constants(name):
    raise ValueError("%s is not allowed in a game record" % name)


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError("the key %r appears twice" % key)
        out[key] = value
    return out


RECORD_KEYS = ("game", "format", "options", "seed", "players", "agents", "moves", "digests",
               "result", "log")


def parse_json(text):
    """Read an export_json (or `vora play --record`) text: (record, digests, meta).
    Only JSON is parsed; BadImport for anything that is not a well-formed record."""
    try:
        data = json.loads(text, parse_constant=_no_constants, object_pairs_hook=_no_duplicates)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise BadImport("not a JSON game record: %s" % getattr(exc, "msg", exc), line=line)
    if not isinstance(data, dict):
        raise BadImport("a game record is a JSON object, not %s" % type(data).__name__)
    unknown = set(data) - set(RECORD_KEYS)
    if unknown:
        raise BadImport("unknown field(s) in the record: %s" % ", ".join(sorted(unknown)))
    meta = data.get("log") or {}
    if not isinstance(meta, dict):
        raise BadImport("'log' must be an object")
    record = dict((k, v) for k, v in data.items() if k not in ("log", "agents"))
    return record, record.get("digests"), meta


_TAG_RE = re.compile(r'\[([A-Za-z]+) "((?:[^"\\]|\\["\\])*)"\]')
_MOVE_LINE_RE = re.compile(r"(\d+)\.\s+P(\d|-)\s+(.+?)(?:\s*;\s*(\S+))?")
_RESULT_RE = re.compile(r"P(\d) wins|draw|\*")


def _tag_int(value, name, line, low=0, high=I64_MAX):
    if not re.fullmatch(r"\d{1,19}", value) or not low <= int(value) <= high:
        raise BadImport("[%s] must be a whole number from %d to %d, not %r"
                        % (name, low, high, value), line)
    return int(value)


def _parse_box(value, line):
    if value == "-":
        return dict((t, 0) for t in vora.TYPES)
    if not re.fullmatch(r"(?:[%s]\d{1,3})+" % vora.LETTERS, value):
        raise BadImport("[Box] is a letter and a count per cube type, in the order %s, "
                        "e.g. P12C12W12M12D12L12S12A12G12; not %r" % (vora.LETTERS, value), line)
    box = dict((t, 0) for t in vora.TYPES)
    seen = []
    for letter, count in re.findall(r"([A-Z])(\d+)", value):
        name = vora.TYPES[vora.LETTERS.index(letter)]
        if letter in seen:
            raise BadImport("[Box] names %s twice" % letter, line)
        seen.append(letter)
        box[name] = int(count)
    return box


class ParsedText:
    """A text record parsed: record, digests (None if the file gives none), meta, and the
    lines where each tag and each move were found (for error messages)."""

    def __init__(self):
        self.tags = {}  # name -> (value, line)
        self.moves = []
        self.digests = []
        self.markers = []  # the player each move line names (None for P-)
        self.move_lines = []
        self.record = None
        self.meta = None

    def line_of(self, *names):
        for name in names:
            if name in self.tags:
                return self.tags[name][1]
        return None


def parse_text(text) -> ParsedText:
    """Parse the text notation (see the module docstring). BadImport names the line of
    any problem; nothing is evaluated."""
    parsed = ParsedText()
    in_moves = False
    # Lines end at \n (and \r\n) only: str.splitlines() would also cut at \x85 or
    # \u2028 inside a quoted tag value, and the value written would not read back.
    for n, raw in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if any(ord(c) < 32 and c != "\t" for c in line) or "\x7f" in line:
            raise BadImport("control characters are not allowed", n)
        if line.startswith("["):
            if in_moves:
                raise BadImport("a tag after the moves: tags come first", n)
            m = _TAG_RE.fullmatch(line)
            if not m:
                raise BadImport('a tag is written [Name "value"], not %r' % line, n)
            name, value = m.group(1), re.sub(r'\\(["\\])', r"\1", m.group(2))
            if name not in TAG_ORDER:
                raise BadImport("unknown tag [%s] (known: %s)" % (name, ", ".join(TAG_ORDER)), n)
            if name in parsed.tags:
                raise BadImport("[%s] is given twice (first on line %d)"
                                % (name, parsed.tags[name][1]), n)
            parsed.tags[name] = (value, n)
            continue
        in_moves = True
        m = _MOVE_LINE_RE.fullmatch(line)
        if not m:
            raise BadImport("a move line is '<number>. P<player> <move> ; <digest>', "
                            "not %r" % line, n)
        number, who, move, digest = m.groups()
        if int(number) != len(parsed.moves) + 1:
            raise BadImport("move %s where move %d was expected (moves are numbered 1, 2, 3 "
                            "... without gaps)" % (number, len(parsed.moves) + 1), n)
        if not MOVE_RE.fullmatch(move):
            raise BadImport("%r is not a move text" % move, n)
        if digest is not None and not DIGEST_RE.fullmatch(digest):
            raise BadImport("the digest %r is not 16 lowercase hex digits" % digest, n)
        if parsed.moves and (digest is None) != (parsed.digests[-1] is None):
            raise BadImport("give a digest on every move line or on none", n)
        parsed.moves.append(move)
        parsed.digests.append(digest)
        parsed.markers.append(None if who == "-" else int(who))
        parsed.move_lines.append(n)
    _build_from_tags(parsed)
    return parsed


def _build_from_tags(parsed):
    tags = parsed.tags

    def tag(name, required=False):
        if name not in tags:
            if required:
                raise BadImport("the tag [%s] is missing" % name, None)
            return None, None
        return tags[name]

    value, line = tag("Game", True)
    if value != vora.NAME:
        raise BadImport("[Game] must be %r, not %r" % (vora.NAME, value), line)
    value, line = tag("Format")
    if value is not None and value != "1":
        raise BadImport("[Format] %r is not one this program reads (1)" % value, line)
    value, line = tag("Seed", True)
    seed = _tag_int(value, "Seed", line)
    value, line = tag("Players", True)
    players = _tag_int(value, "Players", line, 2, 4)
    options = {}
    value, line = tag("Seats")
    if value is not None:
        if len(value) != players or any(s not in vora.SIDES or value.count(s) > 1
                                        for s in value):
            raise BadImport("[Seats] gives one different side among S, W, N, E per player "
                            "(%d players), not %r" % (players, value), line)
        options["seats"] = value
    value, line = tag("Box")
    if value is not None:
        options["box"] = _parse_box(value, line)
    value, line = tag("PushedOut")
    if value is not None:
        if value not in vora.PUSHED_OUT_CHOICES:
            raise BadImport("[PushedOut] must be one of %s, not %r"
                            % (", ".join(vora.PUSHED_OUT_CHOICES), value), line)
        options["pushed_out"] = value
    value, line = tag("MaxTurns")
    if value is not None:
        options["max_turns"] = _tag_int(value, "MaxTurns", line, 1)
    value, line = tag("ChainLines")
    if value is not None:
        if value not in vora.CHAIN_LINES_CHOICES:
            raise BadImport("[ChainLines] must be one of %s, not %r"
                            % (", ".join(vora.CHAIN_LINES_CHOICES), value), line)
        options["chain_lines"] = value
    value, line = tag("Position")
    if value is not None:
        options["position"] = value
    try:
        options = normalize_options(vora.NAME, players, seed, options)
    except ValueError as exc:
        raise BadImport(str(exc), parsed.line_of("Position", "Box", "Seats", "Players"))
    result = _result_from_tags(parsed, players)
    meta = {}
    value, line = tag("Status")
    if value is not None:
        if value not in STATUSES:
            raise BadImport("[Status] must be one of %s, not %r" % (", ".join(STATUSES), value),
                            line)
        meta["status"] = value
    value, line = tag("Source")
    if value is not None:
        try:
            meta["source"] = _check_source(value)
        except ValueError as exc:
            raise BadImport(str(exc), line)
    value, line = tag("BoardGameId")
    if value is not None:
        meta["board_game_id"] = _tag_int(value, "BoardGameId", line, 0, U32_MAX)
    for name, key in (("Started", "started_at"), ("Ended", "ended_at")):
        value, line = tag(name)
        if value is not None:
            try:
                meta[key] = _check_timestamp(value, "[%s]" % name)
            except ValueError as exc:
                raise BadImport(str(exc), line)
    parsed.record = {"game": vora.NAME, "format": 1, "options": options, "seed": seed,
                     "players": players, "moves": list(parsed.moves),
                     "result": result if result is not None else {}}
    if parsed.moves and parsed.digests[0] is not None:
        parsed.record["digests"] = list(parsed.digests)
    parsed.meta = meta


def _result_from_tags(parsed, players):
    value, line = parsed.tags.get("Result", (None, None))
    others = [name for name in ("Scores", "End", "Turns") if name in parsed.tags]
    if value is None and not others:
        return None
    if value is None:
        raise BadImport("[%s] without [Result]" % others[0], parsed.line_of(*others))
    m = _RESULT_RE.fullmatch(value)
    if not m:
        raise BadImport('[Result] is "P<n> wins", "draw" or "*", not %r' % value, line)
    if value == "*" and not others:
        return None
    missing = [name for name in ("Scores", "End", "Turns") if name not in parsed.tags]
    if missing:
        raise BadImport("[Result] needs [%s] too" % "], [".join(missing), line)
    scores_text, scores_line = parsed.tags["Scores"]
    if not re.fullmatch(r"[+-]?\d{1,6}(?: [+-]?\d{1,6})*", scores_text) \
            or len(scores_text.split()) != players:
        raise BadImport("[Scores] is one score per player separated by spaces (%d players), "
                        "not %r" % (players, scores_text), scores_line)
    end, end_line = parsed.tags["End"]
    turns_text, turns_line = parsed.tags["Turns"]
    winner = int(m.group(1)) if m.group(1) is not None else None
    if winner is not None and winner >= players:
        raise BadImport("[Result] names P%d but there are %d players" % (winner, players), line)
    result = {"over": value != "*", "end": end, "turns_completed":
              _tag_int(turns_text, "Turns", turns_line),
              "scores": [int(s) for s in scores_text.split()], "winner": winner}
    try:
        return _check_result(result, None)
    except ValueError as exc:
        raise BadImport(str(exc), end_line)


def import_text(log, text, force=False):
    """Import the text notation as a new game: (id, VerifyReport). BadImport names the
    line of the first problem: syntax, a tag, a move marked with the wrong player, an
    illegal move, a digest that differs from the replay, a result the replay disagrees
    with (the last three are accepted with `force`, and then reported)."""
    parsed = parse_text(text)
    report = check_replay(parsed.record, parsed.record.get("digests"))
    if report.problem == "setup":
        raise BadImport(report.message, parsed.line_of("Box", "Seats", "Players"))
    if not force:
        last_good = report.number - 1 if report.number else len(parsed.moves)
        for k in range(last_good):
            marked, actual = parsed.markers[k], report.players[k]
            if marked != actual:
                raise BadImport("move %d is marked %s but %s was to act"
                                % (k + 1, player_label(marked), player_label(actual)),
                                parsed.move_lines[k])
        if report.problem in ("illegal", "mismatch"):
            raise BadImport(report.message + " (import it anyway with --force)",
                            parsed.move_lines[report.number - 1], report)
        if report.problem == "result":
            raise BadImport(report.message + " (import it anyway with --force)",
                            parsed.line_of("Result", "Scores", "End", "Turns"), report)
    return log.import_game(parsed.record, parsed.record.get("digests"), parsed.meta,
                           force=force)


def import_json(log, text, force=False):
    """Import export_json text (or a `vora play --record` file) as a new game:
    (id, VerifyReport). BadImport when the file is not a valid record or, unless
    `force`, when the game does not replay cleanly."""
    record, digests, meta = parse_json(text)
    try:
        return log.import_game(record, digests, meta, force=force)
    except BadImport as exc:
        if exc.report is not None:
            raise BadImport(str(exc) + " (import it anyway with --force)", report=exc.report)
        raise
