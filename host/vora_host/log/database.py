"""The database under the game log: where it is (the default file, --db, $VORA_DB), opening
it (an SQLite file, its header checked before SQLite touches it, or PostgreSQL through
vora_host.log.postgres), its schema brought up to date (vora_host.log.schema), one
transaction per change, and the database's errors said in words (a full disk, a read-only
file, a lock held by another program).

Apart from the store (vora_host.log.store) because this is the part that knows SQLite and
the file system; the other parts of the log speak SQL through the connection it opens.
`Database` is the part of GameLog that holds that connection.
"""

import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Dict, Tuple

from vora_host import private_files
from vora_host.log import errors, leases, postgres, schema
from vora_host.log.errors import CannotWrite, DatabaseError, DatabaseLocked, NoLog
from vora_host.log.postgres import display_url, is_db_url

__all__ = ["DB_NAME", "DB_ENV", "SQLITE_MAGIC", "Database", "default_db_path",
           "resolve_db_path", "db_label"]

DB_NAME = "games.sqlite3"
DB_ENV = "VORA_DB"
SQLITE_MAGIC = b"SQLite format 3\x00"


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


def _db_errors():
    """The errors of the databases: SQLite's, and psycopg's once it is loaded (looked up
    when an error is caught, so that a SQLite log never imports psycopg)."""
    return (sqlite3.Error,) + postgres.error_types()


class _SqliteErrors:
    """Turns sqlite3 (and psycopg) errors into the log's own, naming the database and the
    cause."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or not isinstance(exc, _db_errors()):
            return False
        raise _translate(exc, self.path) from exc


def _use_wal(conn, timeout):
    """Switch the file to WAL, once. The switch takes a lock that SQLite does not wait for
    (its busy handler is not called): two programs, or two tables of a server, opening a
    new log at once, one was told the log "is locked by another program". It is tried
    again until the connection's own timeout, and is done when another did it."""
    deadline = time.monotonic() + timeout
    while conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return  # (a file that cannot be WAL answers its mode, as before)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)


def _translate(exc, path):
    if not isinstance(exc, sqlite3.Error):
        return postgres.translate(exc, path, errors)
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
            except _db_errors() as error:
                exc = error
        try:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
        except _db_errors():
            pass  # the first error is the one to report
        if isinstance(exc, _db_errors()):
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


# ---------------------------------------------------------------- the connection

class Database:
    """The part of vora_host.log.store.GameLog that opens the database and holds its
    connection (`_conn`), for the other parts' SQL: `_transaction()` for a write,
    `_errors()` around a read. GameLog.__init__ sets the attributes it uses (url, path,
    _version, _timeout)."""

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
        except _db_errors() as exc:
            raise _translate(exc, self.path)
        self._conn = conn
        try:
            with self._errors():
                conn.prepare(create, schema.MIGRATIONS, schema.SCHEMA_VERSION,
                             schema.APPLICATION_ID, self.path, errors, leases.LEASES_SQL)
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
        # Read together (one snapshot): another program making the new log's tables
        # meanwhile showed tables and no schema version, "not a Vora game log".
        conn.execute("BEGIN")
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                "'sqlite_%'")]
        finally:
            conn.execute("COMMIT")
        if app_id not in (0, schema.APPLICATION_ID) or (version == 0 and tables):
            raise DatabaseError("%s is an SQLite database but not a Vora game log; it was left "
                                "as it is" % self.path)
        if version > schema.SCHEMA_VERSION:
            raise DatabaseError("%s was written by a newer vora (game log schema %d; this one "
                                "reads up to %d)" % (self.path, version, schema.SCHEMA_VERSION))
        conn.execute("PRAGMA foreign_keys = ON")
        _use_wal(conn, self._timeout)
        conn.execute("PRAGMA synchronous = FULL")
        self._version = version
        if version < schema.SCHEMA_VERSION:
            try:
                self._migrate()
            except sqlite3.Error as exc:
                if version not in (1, 2, 3, 4, 5) or _write_reason(exc) is None:
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
                if version < 5:
                    conn.execute("CREATE TEMP VIEW events AS SELECT 0 AS id, 0 AS game_id, "
                                 "0 AS number, '' AS kind, '' AS data, '' AS at WHERE 0")
                conn.execute("CREATE TEMP VIEW reviews AS SELECT 0 AS game_id, 0 AS budget, "
                             "0 AS complete, 0 AS knows_secrets, '' AS moves, "
                             "'' AS updated_at WHERE 0")
                if self._has_leases(conn):  # schema 4's, without fences: none binds now
                    conn.execute("CREATE TEMP VIEW leases AS SELECT game_id, host, pid, since, "
                                 "0 AS fence, NULL AS holder, NULL AS expires_at "
                                 "FROM main.leases")

    def _migrate(self):
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # under the lock now
            while version < schema.SCHEMA_VERSION:
                version += 1
                schema.MIGRATIONS[version](conn)
                conn.execute("PRAGMA user_version = %d" % version)
            conn.execute("PRAGMA application_id = %d" % schema.APPLICATION_ID)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._version = schema.SCHEMA_VERSION

    def _ensure_schema(self):
        # A file left at an older schema because it could not be written when opened.
        if self._version < schema.SCHEMA_VERSION and not self.url:
            with self._errors():
                self._conn.execute("DROP VIEW IF EXISTS temp.moves")
                self._conn.execute("DROP VIEW IF EXISTS temp.games")
                self._conn.execute("DROP VIEW IF EXISTS temp.events")
                self._conn.execute("DROP VIEW IF EXISTS temp.leases")
                self._conn.execute("DROP VIEW IF EXISTS temp.reviews")
                self._migrate()

    def _errors(self):
        return _SqliteErrors(self.path)

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

    def _connect_again(self):
        """Another connection to the same database (for the keeper thread)."""
        if self.url:
            return postgres.PgConnection(self.url, timeout=self._timeout)
        return sqlite3.connect("file:%s?mode=rw" % _uri_path(self.path), uri=True,
                               timeout=self._timeout, isolation_level=None)
