"""One writer per game: the lease a program holds on a game while it plays it, and the
fencing number that refuses a former holder's writes.

A game being played has exactly one writer. The table `leases` (one row a game, schema 5)
says who it is: the host name, the process id, the holder's token (one per GameLog, from
`secrets`; NULL once released), since when, until when (`expires_at`), and the fencing
number `fence`, which grows by one each time another GameLog takes the game:

- a GameLog takes a game (`acquire`) when it starts it, when it resumes it (`vora play
  --resume`: GameLog.hold, before the game is shown) and at its first write to a game it
  does not hold yet. The game is free when nobody holds it, when its lease expired (the
  holder stopped renewing it: a crashed computer), or when its holder ran on this computer
  and its process is gone. Otherwise it is refused (GameHeld: who, since when, and what to
  do), unless the taker says `take_over` (`--take-over`: the holder hangs, or its computer
  is gone for good).
- every later write checks, in the same transaction as the write, that the lease still
  carries this GameLog's token and fencing number (`check`); a holder that was taken over
  meanwhile gets LeaseLost and writes nothing. In SQLite a write transaction is BEGIN
  IMMEDIATE (one writer at a time); in PostgreSQL the store locks the game's row (SELECT
  ... FOR UPDATE) before the lease is read, so a take-over and a write take turns.
- the holder renews the lease (`renew`, from a thread of its GameLog, every quarter of the
  lease's length) while it plays, and releases it when it closes (`release`); the number is
  kept, so that it only ever grows.

Times are the database's: the server's clock in PostgreSQL (one clock for every host),
this computer's in SQLite (one computer).
"""

import os
import secrets
import socket
from datetime import datetime, timedelta, timezone

from vora_host.log.errors import GameHeld, LeaseLost

__all__ = ["LEASE_SECONDS", "LEASES_SQL", "Holder", "acquire", "check", "renew", "release",
           "current", "is_live", "is_gone", "db_now", "describe", "held_message",
           "migrate_leases"]

# How long a lease lasts without renewal. A crashed computer's game can be taken without
# --take-over this long after its last renewal; the holder renews every quarter of it.
LEASE_SECONDS = 60.0

LEASES_SQL = ("CREATE TABLE IF NOT EXISTS leases (game_id INTEGER PRIMARY KEY "
              "REFERENCES games (id) ON DELETE CASCADE, host TEXT NOT NULL, "
              "pid INTEGER NOT NULL, since TEXT NOT NULL, fence INTEGER NOT NULL DEFAULT 0, "
              "holder TEXT, expires_at TEXT)")

# The columns schema 5 adds to a leases table of schema 4 (which had the first four).
_NEW_COLUMNS = (("fence", "INTEGER NOT NULL DEFAULT 0"), ("holder", "TEXT"),
                ("expires_at", "TEXT"))


class Holder:
    """Who writes: this computer's name, this process, and a token of its own (one per
    GameLog, so that two logs in one process are two writers too)."""

    def __init__(self):
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.token = secrets.token_hex(16)


def _columns(conn, table):
    if getattr(conn, "dialect", "sqlite") == "postgresql":
        return set(r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
            "AND table_schema = current_schema()", (table,)))
    return set(r[1] for r in conn.execute("PRAGMA table_info(%s)" % table))


def migrate_leases(conn):
    """Schema 5's leases: the table with every column, whether schema 4 made it (with its
    first four columns) or not (SQLite made it at the first write that needed it)."""
    conn.execute(LEASES_SQL)
    have = _columns(conn, "leases")
    for name, spec in _NEW_COLUMNS:
        if name not in have:
            conn.execute("ALTER TABLE leases ADD COLUMN %s %s" % (name, spec))


def db_now(conn):
    """The database's time, in UTC: the server's in PostgreSQL, this computer's in SQLite."""
    if getattr(conn, "dialect", "sqlite") == "postgresql":
        now = conn.execute("SELECT now()").fetchone()[0]
        return now.astimezone(timezone.utc)
    return datetime.now(timezone.utc)


def _stamp(moment):
    return moment.isoformat(timespec="milliseconds")


def _parse(stamp):
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def is_gone(pid):
    """True when no process `pid` runs on this computer (one of another user's is not
    gone: signalling it is only refused)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError, OverflowError):
        return False
    return False


_ROW = "SELECT host, pid, since, fence, holder, expires_at FROM leases WHERE game_id = ?"


def _holder_of(row, me):
    host, pid, since, fence, holder, expires = row
    return {"host": host, "pid": pid, "since": since, "fence": fence, "token": holder,
            "expires_at": expires, "this_host": host == me.host}


def current(conn, gid, me):
    """The lease of game `gid` as a dict (host, pid, since, fence, token, expires_at,
    this_host), or None when the game never had one."""
    row = conn.execute(_ROW, (gid,)).fetchone()
    return None if row is None else _holder_of(row, me)


def is_live(holder, now):
    """Whether the lease `holder` (current()'s dict) binds others now: held, not expired,
    and, on this computer, its process still running."""
    if holder is None or holder["token"] is None:
        return False
    expires = _parse(holder["expires_at"])
    if expires is not None and expires <= now:
        return False
    if holder["this_host"] and is_gone(holder["pid"]):
        return False
    return True


def _when(stamp):
    moment = _parse(stamp)
    if moment is None:
        return str(stamp)
    return moment.astimezone().strftime("%a %d %b %H:%M:%S")


def describe(holder):
    """'process 4242 on this computer, since Thu 26 Nov 10:57:03': who holds a game."""
    where = "this computer (%s)" % holder["host"] if holder["this_host"] else holder["host"]
    return "process %s on %s, since %s" % (holder["pid"], where, _when(holder["since"]))


def held_message(gid, holder, take_over="--take-over"):
    """What a program that wants game `gid` is told when `holder` has it (`take_over`: the
    command or option that takes it over)."""
    return ("game %d is being played by another vora (%s): a game has one writer at a "
            "time. Quit it there and try again%s; if that program hangs, or its computer is "
            "gone, %s takes the game over (that program can then no longer write it)"
            % (gid, describe(holder), "" if holder["this_host"] else
               " (or wait: its lease runs out at %s if that computer has stopped)"
               % _when(holder["expires_at"]), take_over))


def acquire(conn, gid, me, now, seconds, take_over=False):
    """Make `me` the writer of game `gid` (inside the caller's write transaction, the
    game's row locked): returns (fence, the former holder's dict when a live holder was
    taken over, else None). Raises GameHeld when another live holder has it and
    `take_over` is false."""
    expires = _stamp(now + timedelta(seconds=seconds))
    row = conn.execute(_ROW, (gid,)).fetchone()
    if row is None:
        conn.execute("INSERT INTO leases (game_id, host, pid, since, fence, holder, expires_at) "
                     "VALUES (?, ?, ?, ?, 1, ?, ?)",
                     (gid, me.host, me.pid, _stamp(now), me.token, expires))
        return 1, None
    holder = _holder_of(row, me)
    if holder["token"] == me.token:
        conn.execute("UPDATE leases SET expires_at = ? WHERE game_id = ?", (expires, gid))
        return holder["fence"], None
    live = is_live(holder, now)
    if live and not take_over:
        raise GameHeld(gid, holder, held_message(gid, holder))
    fence = holder["fence"] + 1
    conn.execute("UPDATE leases SET host = ?, pid = ?, since = ?, fence = ?, holder = ?, "
                 "expires_at = ? WHERE game_id = ?",
                 (me.host, me.pid, _stamp(now), fence, me.token, expires, gid))
    return fence, holder if live else None


def check(conn, gid, me, fence, now, seconds):
    """Inside a write transaction: raise LeaseLost unless `me` still holds game `gid` with
    fencing number `fence`; renew the lease when it does."""
    row = conn.execute(_ROW, (gid,)).fetchone()
    holder = None if row is None else _holder_of(row, me)
    if holder is None or holder["fence"] != fence or holder["token"] != me.token:
        taker = ("taken over by another vora (%s)" % describe(holder)
                 if holder is not None and holder["token"] is not None else "released")
        raise LeaseLost(gid, holder, "game %d was %s: this program no longer writes it, and "
                        "its change was not logged" % (gid, taker))
    conn.execute("UPDATE leases SET expires_at = ? WHERE game_id = ?",
                 (_stamp(now + timedelta(seconds=seconds)), gid))


def renew(conn, gid, me, fence, now, seconds):
    """Push the lease's end on while `me` holds it with `fence`: True, or False when the
    game was taken over (nothing changed then)."""
    row = conn.execute("SELECT fence, holder FROM leases WHERE game_id = ?", (gid,)).fetchone()
    if row is None or row[0] != fence or row[1] != me.token:
        return False
    conn.execute("UPDATE leases SET expires_at = ? WHERE game_id = ? AND fence = ? AND "
                 "holder = ?", (_stamp(now + timedelta(seconds=seconds)), gid, fence, me.token))
    return True


def release(conn, gid, me, fence, now):
    """Let go of the game (the fencing number stays: the next holder's is one more)."""
    conn.execute("UPDATE leases SET holder = NULL, expires_at = ? WHERE game_id = ? AND "
                 "fence = ? AND holder = ?", (_stamp(now), gid, fence, me.token))
