"""One writer per game, as a GameLog does it: the fencing checked inside each write
(`_fenced`), the leases a GameLog holds (hold, release, holds; renewed by a thread of
its own while it is open), who else plays a game now (played_elsewhere), and the games
whose writer is gone, which a new session marks interrupted (close_stale).

The lease rows and their rules are vora_host.log.leases; this is the GameLog's use of
them, apart from the store (vora_host.log.store) so that everything about who may write a
game reads in one place. `Holding` is a part of GameLog.
"""

import threading
from typing import Any, Dict, List, Optional, Tuple

from vora_host.log import leases
from vora_host.log.checks import _is_int, _now
from vora_host.log.database import _Transaction
from vora_host.log.errors import DatabaseError
from vora_host.log.schema import _ID_LIMIT

__all__ = ["Holding"]


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


class Holding:
    """The part of vora_host.log.store.GameLog that holds its games' leases. GameLog's
    __init__ sets what it uses: lease_seconds, clock, _me, _fences, _taken, _keeper."""

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
