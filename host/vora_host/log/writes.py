"""How the game log writes a change: each one checked against the database and applied in
its own transaction (`_run`), or, while the database refuses it (a full disk, a read-only
file, a lock held too long, a server away), checked against the database and what waits,
and kept in memory in order, to be written exactly once as soon as writing works again
(flush). The module doc of vora_host.log.store says what a caller sees of it.

Apart from the store because the changes waiting in memory are a machine of their own
(provisional ids, a start or a takeback whose commit went through unanswered). `Writes`
is a part of GameLog; GameLog's public methods (start_game, add_move, take_back,
end_game, mark_attention) build the changes it writes.
"""

from vora_host.log.checks import (_GameView, _add_note, _apply, _check_move, _check_take_back,
                                  _is_int)
from vora_host.log.errors import (CannotWrite, DatabaseError, DatabaseLocked, GameLogError,
                                  NoSuchGame, NotWritten, _NotWrittenLocked)
from vora_host.log.schema import _ID_LIMIT, _seed_columns

__all__ = ["Writes", "MAX_PENDING"]

# Changes kept in memory while the file refuses them: a few hundred per game, so this is
# days of mirroring; past it, memory is not let grow and the change is refused, saying so.
MAX_PENDING = 100000


class Writes:
    """The part of vora_host.log.store.GameLog that writes changes and keeps them while the
    database refuses them. GameLog's __init__ sets what it uses: _pending, _ids,
    _next_provisional, trouble, on_trouble, dropped, touched."""

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
