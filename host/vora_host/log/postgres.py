"""The game log in PostgreSQL: what differs from SQLite, behind one small connection.

`GameLog("postgresql://user:secret@host/db")` keeps the log in a PostgreSQL database
through psycopg 3 (the `postgres` extra: pip install 'vora-board[postgres]'). The store
(vora_host.log.store) writes its SQL once, in SQLite's spelling; `PgConnection` speaks it
to PostgreSQL:

- placeholders: `?` becomes `%s` (and a literal `%` is doubled);
- the schema: the same statements and the same migrations (vora_host.log.schema), with
  `INTEGER PRIMARY KEY [AUTOINCREMENT]` as a BIGINT identity column and every INTEGER a
  BIGINT (a seed's low 63 bits, a board's u32 game id);
- the schema version: the table `vora_schema` (application id and version, one row)
  where SQLite has PRAGMA application_id and user_version; `leases` is made with the
  schema (SQLite makes it at the first write that needs it);
- concurrency: SQLite's BEGIN IMMEDIATE lets one writer in at a time. Here many hosts
  write at once: a migration runs under a transaction-level advisory lock, so that only
  one host upgrades the schema; a change to a game locks the game's row first (SELECT ...
  FOR UPDATE), so that two writers of one game take turns and move numbers stay 1..n;
  new games take their ids from the identity sequence, never twice the same.
- durability: every change is one transaction with synchronous_commit on: COMMIT
  returns once the server has flushed its WAL, so a move the host acknowledged is on
  the server's disk.
- a server that goes away: any error of the connection is a CannotWrite ("the database
  server cannot be reached"), so the store keeps the change in memory like on a full
  disk; the next use reconnects, and what waits is written in order.

Messages name the database by its URL without the password (`display_url`).
"""

import re
import sys
from urllib.parse import urlsplit

__all__ = ["is_db_url", "display_url", "PgConnection", "PgListener", "NOTIFY_CHANNEL",
           "SCHEMA_TABLE", "UNREACHABLE"]

URL_SCHEMES = ("postgresql://", "postgres://")
SCHEMA_TABLE = "vora_schema"
UNREACHABLE = "the database server cannot be reached"
# One advisory lock key for the log's schema: "Vora" in ASCII, like SQLite's application id.
_MIGRATION_LOCK = 0x566F7261


def is_db_url(target):
    """Whether `target` names a PostgreSQL database (a postgresql:// or postgres:// URL)."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def display_url(url):
    """The URL with its password (in the user part or a password= parameter) hidden, for
    messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "a postgresql:// URL that cannot be read"
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = user + "@" + host
    query = re.sub(r"(?i)(^|&)(password)=[^&]*", r"\1\2=***", parts.query)
    # Not urlunsplit: it drops the empty host of postgresql:///db?host=/socket/folder.
    return "%s://%s%s%s%s" % (parts.scheme, netloc, parts.path, "?" + query if query else "",
                              "#" + parts.fragment if parts.fragment else "")


def hide_passwords(text):
    """`text` (a driver's message may quote the URL it could not read) with every
    password of a URL or of a password= parameter replaced by ***."""
    text = re.sub(r"(://[^:/@\s\[\]]*):[^@\s]*@", r"\1:***@", text)
    return re.sub(r"(?i)(password\s*=\s*)('[^']*'|[^\s&]+)", r"\1***", text)


def _psycopg():
    try:
        import psycopg
    except ImportError:
        return None
    return psycopg


def error_types():
    """The exception classes of the driver: () until psycopg has been imported (by a
    connection to a PostgreSQL log), since none of its errors can exist before. Importing
    it costs some 0.1 s at every start of the program (the psycopg_binary library), which a
    SQLite log never needs."""
    psycopg = sys.modules.get("psycopg")
    return (psycopg.Error,) if psycopg is not None else ()


def translate(exc, where, errors):
    """The log's own error for a psycopg error (`errors`: the module
    vora_host.log.errors, for its classes), naming the database `where` and the cause."""
    psycopg = _psycopg()
    state = getattr(exc, "sqlstate", None) or ""
    text = hide_passwords(" ".join(str(exc).split()))[:300]
    if state in ("55P03", "40001", "40P01"):  # lock not available, serialization, deadlock
        return errors.DatabaseLocked("%s is locked by another program (%s); try again when it "
                                     "has finished" % (where, text))
    reason = None
    if state == "53100":
        reason = "the server's disk is full"
    elif state == "25006":
        reason = "the database is read-only"
    elif state == "42501":
        reason = "this user may not write it"
    elif state.startswith(("08", "57P", "53")) or isinstance(exc, psycopg.OperationalError) \
            and not state.startswith(("22", "23", "42")):
        reason = UNREACHABLE
    if reason == UNREACHABLE:
        return errors.CannotWrite("the game log %s cannot be used now: %s (%s)"
                                  % (where, reason, text), reason)
    if reason is not None:
        return errors.CannotWrite("cannot write the game log %s: %s (%s)" % (where, reason, text),
                                  reason)
    if isinstance(exc, psycopg.IntegrityError):
        return errors.DatabaseError("%s refused a change: %s" % (where, text))
    return errors.DatabaseError("%s cannot be used as a game log: %s" % (where, text))


_INTEGER_KEY = re.compile(r"\bINTEGER PRIMARY KEY( AUTOINCREMENT)?\b")
_INTEGER = re.compile(r"\bINTEGER\b")


def _ddl(statement):
    """A CREATE or ALTER statement of the store's schema, in PostgreSQL's spelling."""
    statement = _INTEGER_KEY.sub("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
                                 statement)
    return _INTEGER.sub("BIGINT", statement)


def _sql(statement):
    """A statement of the store (SQLite's `?` placeholders) for psycopg (`%s`)."""
    head = statement.lstrip()[:12].upper()
    if head.startswith(("CREATE", "ALTER")):
        statement = _ddl(statement)
    return statement.replace("%", "%%").replace("?", "%s")


class _Rows:
    """What the store uses of an sqlite3 cursor: fetchone, fetchall, iteration, lastrowid."""

    def __init__(self, rows, lastrowid=None):
        self._rows = rows
        self._at = 0
        self.lastrowid = lastrowid

    def fetchone(self):
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self):
        rows = self._rows[self._at:]
        self._at = len(self._rows)
        return rows

    def __iter__(self):
        return iter(self.fetchall())


NOTIFY_CHANNEL = "vora_log"  # every commit that changes the log notifies it


class PgListener:
    """A connection of its own that LISTENs to the log's changes: wait(timeout) returns
    True at the first commit of any process that changed the log (the notifications
    waiting then are taken with it), False when `timeout` seconds pass without one. The
    web mirror's watcher waits so between its looks at a PostgreSQL log (vora_host.web.app):
    what any host writes reaches every server's pages at once. OperationalError when the
    server goes (the watcher then looks on its own clock, and listens again)."""

    def __init__(self, url, timeout=5.0):
        psycopg = _psycopg()
        if psycopg is None:
            raise ImportError("psycopg")
        params = psycopg.conninfo.conninfo_to_dict(url)
        extra = {} if "connect_timeout" in params else {
            "connect_timeout": max(1, int(round(timeout)))}
        self._conn = psycopg.connect(url, autocommit=True, **extra)
        self._conn.execute("LISTEN %s" % NOTIFY_CHANNEL)

    def wait(self, timeout):
        told = False
        for _ in self._conn.notifies(timeout=timeout, stop_after=1):
            told = True
        if told:  # the others that came with it: one look sees them all
            for _ in self._conn.notifies(timeout=0.0):
                pass
        return told

    def close(self):
        self._conn.close()


class PgConnection:
    """A psycopg connection that takes the store's SQLite-spelled statements and keeps the
    sqlite3 connection's interface (execute, executemany, in_transaction, close). In
    autocommit mode: BEGIN and COMMIT are the store's. A connection lost between
    transactions is opened again at the next statement; lost inside one, the error goes
    up (the store keeps the change) and the transaction is gone with it."""

    dialect = "postgresql"

    def __init__(self, url, timeout=5.0):
        psycopg = _psycopg()
        if psycopg is None:
            raise ImportError("psycopg")
        self.url = url
        self.timeout = timeout
        self._psycopg = psycopg
        self._conn = None
        self._in_transaction = False
        self._wrote = False  # the transaction under way changed something (NOTIFY at COMMIT)
        self._connect()

    def _connect(self):
        # connect_timeout: a server that does not answer is said within seconds; lock_timeout
        # is the store's `timeout` for a lock another host holds; synchronous_commit on makes
        # COMMIT wait for the server's WAL flush (the per-move promise), whatever the
        # server's default.
        seconds = max(1, int(round(self.timeout)))
        # The URL's own options (a search_path...) are kept, ours added.
        params = self._psycopg.conninfo.conninfo_to_dict(self.url)
        ours = "-c lock_timeout=%d -c synchronous_commit=on" % (seconds * 1000)
        extra = {"options": ((params.get("options") or "") + " " + ours).strip()}
        # A server that vanishes from the network without closing the connection (a cable,
        # a crashed machine) would hold a statement for the kernel's retransmission time,
        # a quarter of an hour, and the board's game with it: TCP keepalives and a send
        # timeout say it within seconds. The URL's own settings win.
        for key, value in (("connect_timeout", seconds), ("keepalives", 1),
                           ("keepalives_idle", 5), ("keepalives_interval", 2),
                           ("keepalives_count", 3), ("tcp_user_timeout", 10000)):
            if key not in params:
                extra[key] = value
        self._conn = self._psycopg.connect(self.url, autocommit=True, **extra)

    def _usable(self):
        if self._conn is None or self._conn.closed or self._conn.broken:
            if self._in_transaction:
                self._in_transaction = False
                raise self._psycopg.OperationalError("the connection to the server was lost")
            self._connect()
        return self._conn

    @property
    def in_transaction(self):
        return self._in_transaction

    def execute(self, statement, params=()):
        word = statement.strip().upper()
        if word in ("BEGIN", "BEGIN IMMEDIATE"):
            self._outside_transaction(lambda conn: conn.execute("BEGIN"))
            self._in_transaction = True
            self._wrote = False
            return _Rows([])
        if word in ("COMMIT", "ROLLBACK"):
            self._in_transaction = False
            conn = self._conn
            if conn is None or conn.closed or conn.broken:
                if word == "ROLLBACK":
                    return _Rows([])  # the server rolled it back when the connection went
                raise self._psycopg.OperationalError("the connection to the server was lost "
                                                     "before the commit")
            if word == "COMMIT" and self._wrote:
                # Every server watching the log (vora serve, on any machine) is told at
                # the commit, by the server itself: LISTEN/NOTIFY (PgListener).
                conn.execute("NOTIFY %s" % NOTIFY_CHANNEL)
            conn.execute(word)
            return _Rows([])
        if self._in_transaction and word.startswith(("INSERT", "UPDATE", "DELETE")):
            self._wrote = True
        sql = _sql(statement)
        returning = word.startswith("INSERT INTO GAMES (")  # the store's, for lastrowid
        if returning:
            sql += " RETURNING id"

        def run(conn):
            cur = conn.execute(sql, tuple(params))
            return cur.fetchall() if cur.description is not None else []

        rows = run(self._usable()) if self._in_transaction else self._outside_transaction(run)
        return _Rows(rows, rows[0][0] if returning and rows else None)

    def _outside_transaction(self, run):
        """run(connection) between transactions (a read, or BEGIN). A connection the
        server dropped (a restart) is only found broken when used: then one new
        connection, and the error stands if that fails too. Only reads and BEGIN come
        here, so running again repeats nothing."""
        try:
            return run(self._usable())
        except self._psycopg.OperationalError:
            self.close()
            return run(self._usable())

    def executemany(self, statement, seq):
        if self._in_transaction:
            self._wrote = True
        with self._usable().cursor() as cur:
            cur.executemany(_sql(statement), [tuple(p) for p in seq])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    # ---- what the store asks of a dialect

    def has_table(self, name):
        return self.execute("SELECT to_regclass(?) IS NOT NULL", (name,)).fetchone()[0]

    def schema_version(self):
        if not self.has_table(SCHEMA_TABLE):
            return 0
        row = self.execute("SELECT version FROM %s" % SCHEMA_TABLE).fetchone()
        return 0 if row is None else row[0]

    def prepare(self, create, migrations, schema_version, application_id, where, errors,
                leases_sql):
        """Check that the database holds a game log (or nothing yet), and bring its schema
        to `schema_version`, in one transaction under the migration lock: of many hosts
        starting at once, one migrates and the others find it done."""
        self.execute("BEGIN")
        try:
            self.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))
            ours = self.has_table(SCHEMA_TABLE)
            if ours:
                row = self.execute("SELECT application_id, version FROM %s"
                                   % SCHEMA_TABLE).fetchone()
                if row is None or row[0] != application_id:
                    raise errors.DatabaseError("%s holds a table %s that is not a Vora game "
                                               "log's; it was left as it is"
                                               % (where, SCHEMA_TABLE))
                version = row[1]
            else:
                if self.has_table("games") or self.has_table("moves"):
                    raise errors.DatabaseError("%s has tables games or moves that are not a "
                                               "Vora game log's; it was left as it is" % where)
                if not create:
                    raise errors.NoLog("there is no game log in %s yet" % where)
                version = 0
            if version > schema_version:
                raise errors.DatabaseError("%s was written by a newer vora (game log schema "
                                           "%d; this one reads up to %d)"
                                           % (where, version, schema_version))
            if version < schema_version:
                if not ours:
                    self.execute("CREATE TABLE %s (application_id BIGINT NOT NULL, "
                                 "version INTEGER NOT NULL)" % SCHEMA_TABLE)
                    self.execute("INSERT INTO %s VALUES (?, 0)" % SCHEMA_TABLE,
                                 (application_id,))
                while version < schema_version:
                    version += 1
                    migrations[version](self)
                self.execute(leases_sql)
                # A migration that rebuilds a table copies its ids: the identity sequences
                # go on after the largest.
                for table in ("games", "moves"):
                    self.execute("SELECT setval(pg_get_serial_sequence(?, 'id'), "
                                 "coalesce((SELECT max(id) FROM %s), 0) + 1, false)" % table,
                                 (table,))
                self.execute("UPDATE %s SET version = ?" % SCHEMA_TABLE, (version,))
            self.execute("COMMIT")
        except BaseException:
            if self.in_transaction:
                try:
                    self.execute("ROLLBACK")
                except Exception:
                    pass
            raise
