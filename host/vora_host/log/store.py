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

Where the code is. GameLog is put together here from parts, each a module of this package
with its own concern: the database it opens (`database`: where it is, SQLite or PostgreSQL,
transactions, errors in words), its schema and migrations (`schema`), one writer per game
(`holding`, on `leases`), each change written or kept in memory (`writes`), reading
(`queries`), the checks of what comes in (`checks`), replaying and verifying a game
(`verify`), and the reviews kept beside the games (`reviews`). This module keeps the GameLog class itself: the public writes (start_game,
add_move, take_back, end_game, mark_attention, correct_move, add_event, delete_game),
import_game and closing. Its names stay importable from here.
"""

import contextlib
import json
from pathlib import Path

from vora_host.log import leases, schema
from vora_host.log.checks import (ATTENTION_NOTES, DIGEST_RE, END_STATUSES, MOVE_RE, STATUSES,
                                  U32_MAX, _check_move_args, _check_result, _check_source,
                                  _check_timestamp, _is_int, _now, _short, normalize_options)
from vora_host.log.database import (DB_ENV, DB_NAME, Database, _count_open, db_label,
                                    default_db_path, resolve_db_path)
from vora_host.log.errors import (BadImport, CannotWrite, DatabaseError, DatabaseLocked,
                                  GameClosed, GameHeld, GameLogError, LeaseLost, MoveConflict,
                                  MoveGap, NoLog, NoSuchGame, NotLastMove, NotWritten)
from vora_host.log.holding import Holding
from vora_host.log.postgres import display_url, is_db_url
from vora_host.log.queries import Queries
from vora_host.log.reviews import Reviews
from vora_host.log.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, _seed_columns
from vora_host.log.verify import (Step, VerifyReport, check_history, check_replay,
                                  history_events, player_label, record_of, replay_steps,
                                  result_difference)
from vora_host.log.writes import Writes

# GameLog and, for the code that has always imported them from here, the names of its
# parts (their homes are the modules above).
__all__ = [
    "SCHEMA_VERSION", "APPLICATION_ID", "DB_NAME", "DB_ENV", "STATUSES", "END_STATUSES",
    "GameLogError", "DatabaseError", "NoLog", "DatabaseLocked", "CannotWrite", "NotWritten",
    "NoSuchGame", "MoveConflict", "MoveGap", "GameClosed", "NotLastMove", "BadImport",
    "GameHeld", "LeaseLost",
    "Step", "VerifyReport", "default_db_path", "resolve_db_path", "GameLog", "replay_steps",
    "check_replay", "check_history", "history_events", "result_difference",
    "normalize_options", "player_label", "MOVE_RE", "DIGEST_RE", "is_db_url", "db_label",
    "record_of", "U32_MAX", "MIGRATIONS", "ATTENTION_NOTES",
]


class GameLog(Database, Holding, Writes, Queries, Reviews):
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
        self._version = schema.SCHEMA_VERSION
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

    # ---- writing: each change checked, then written or kept (vora_host.log.writes)

    def start_game(self, *, players, seed, source, options=None, game="vora",
                   board_game_id=None, started_at=None) -> int:
        """Log a new game of `game` (a name of shared_rules.games) and return its id.
        `source`: 'board <port or identity>', 'virtual board', 'terminal' or 'remote
        <host>' (a seat of a table on another computer, vora play --join);
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

    @contextlib.contextmanager
    def _fenced_now(self, gid):
        """One transaction on game `gid` that this GameLog is the writer of, written at
        once (what waits in memory first): CannotWrite, DatabaseLocked, NoSuchGame,
        GameHeld or LeaseLost when it cannot be."""
        if self._pending:
            try:
                self.flush()
            except NotWritten as exc:
                raise CannotWrite(str(exc), exc.reason)
        self._taken = []
        with self._transaction() as conn:
            self._status(conn, gid)
            self._fenced(conn, gid)
            yield conn
        self._keep_leases(self._taken)

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
        gid = self._canon(game_id)
        with self._fenced_now(gid) as conn:
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
        return changed

    EVENT_KINDS = ("hint", "table", "parted", "resync")

    def add_event(self, game_id, kind, data) -> None:
        """Record that something happened to a game beside its moves: kind is one of
        EVENT_KINDS ("hint": a player asked for a hint, data says which seat, at which
        move, and the move shown; "table": who sits where at a table of vora serve, each
        browser seat's token as its SHA-256 only, see vora_host.web.tables; "parted": a
        copy of a table on another computer stopped following it, data says why;
        "resync": a board playing at such a table was set back in step with it, data
        says why, vora_host.remote.remote_vora), data a dict of at most 2,000 characters
        as JSON. The
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
        gid = self._canon(game_id)
        with self._fenced_now(gid) as conn:
            live = conn.execute("SELECT COUNT(*) FROM moves WHERE game_id = ? AND "
                                "taken_back_at IS NULL", (gid,)).fetchone()[0]
            conn.execute("INSERT INTO events (game_id, number, kind, data, at) VALUES "
                         "(?, ?, ?, ?, ?)", (gid, live, kind, text, _now()))

    def delete_game(self, game_id) -> None:
        """Remove a game and its moves from the log for good (`vora games delete`)."""
        if self._pending:
            self.flush()
        gid = self._canon(game_id)
        with self._transaction() as conn:
            self._status(conn, gid)
            conn.execute("DELETE FROM moves WHERE game_id = ?", (gid,))
            conn.execute("DELETE FROM events WHERE game_id = ?", (gid,))
            conn.execute("DELETE FROM reviews WHERE game_id = ?", (gid,))
            conn.execute("DELETE FROM leases WHERE game_id = ?", (gid,))
            conn.execute("DELETE FROM games WHERE id = ?", (gid,))

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
