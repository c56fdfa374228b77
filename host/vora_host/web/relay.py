"""Tables spread over several `vora serve` processes on one PostgreSQL log (issue 39:
`vora serve --tables --workers N`, or several servers behind one proxy): a seat's
request may reach any of them, and is played by the one that plays its table.

A table is played by one process, its home: the one that set it up or took it up from
the log (the game's lease in the log makes it the game's only writer). The others know
its seats by their tokens' SHA-256 from the database and relay through PostgreSQL
itself, its tables and LISTEN/NOTIFY (nothing home-made on the wire):

    vora_relay_seats      digest -> (game id, home)      written by the home
    vora_relay_requests   a seat's request, its answer   written by the asker, the home
    vora_relay_views      digest -> (seq, client, view)  the home's latest view of a seat
                                                         whose stream is open elsewhere
    NOTIFY vora_relay_<home>, 'request id'    a request for the home
    NOTIFY vora_relay_done, 'request id'      its answer is written
    NOTIFY vora_relay_view, 'digest'          a seat's view is written

So a POST reaching another process is checked and played by the home exactly as its own
(the same code: vora_host.web.seats.act), and a seat's event stream opened elsewhere is
counted by the home as the seat's browser (the newest browser wins across processes) and
fed the views the home draws for that seat's eyes only. A home that does not answer in
ASK_SECONDS (its process gone: the next server to start takes its tables up from the log)
is said in the answer (503), and nothing is played.

The relay's three tables hold no secret the log does not: a view is what the seat's
player may see, and the log holds the game's seed anyway (docs/secrets.md).
"""

import json
import logging
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor

__all__ = ["Relay", "RelayError", "ASK_SECONDS"]

ASK_SECONDS = 10.0  # a relayed request's answer is waited for this long at most
LISTEN_POLL = 1.0  # seconds between the listener's looks whether the relay stops (stop()
#                    wakes it at once, with a notification)
KEPT_REQUESTS = 300.0  # seconds a request's row is kept (a crashed asker's are cleared)
HANDLERS = 8  # threads of a home answering relayed requests at once
SWEEP_SECONDS = 5.0  # how often old requests and the streams of processes gone are cleared
HOMES_SECONDS = 15.0  # how long a starting process waits for its siblings' tables
LIST_SECONDS = 2.0  # how long the tables' list waits for another process's tables

log = logging.getLogger("vora.web")

SCHEMA = (
    "CREATE UNLOGGED TABLE IF NOT EXISTS vora_relay_seats (digest TEXT PRIMARY KEY, game_id BIGINT "
    "NOT NULL, home TEXT NOT NULL, since DOUBLE PRECISION NOT NULL)",
    "CREATE UNLOGGED TABLE IF NOT EXISTS vora_relay_requests (id BIGSERIAL PRIMARY KEY, home TEXT "
    "NOT NULL, digest TEXT NOT NULL, action TEXT NOT NULL, body TEXT NOT NULL, status "
    "INTEGER, answer TEXT, made DOUBLE PRECISION NOT NULL)",
    "CREATE UNLOGGED TABLE IF NOT EXISTS vora_relay_views (digest TEXT PRIMARY KEY, seq BIGINT NOT "
    "NULL, client BIGINT NOT NULL, view TEXT NOT NULL)",
)
SCHEMA_LOCK = 0x766f7261  # the advisory lock the relay's tables are made under ("vora")
DONE_CHANNEL = "vora_relay_done"
VIEW_CHANNEL = "vora_relay_view"


class RelayError(Exception):
    """A relayed request got no answer (the home is gone, the database is away)."""


def _connect(url, name=None):
    # The relay's rows are messages in passing, not the log: its tables are UNLOGGED and
    # its commits do not wait for the disk (what is lost in a crash was in flight anyway:
    # the asker is told the home does not answer, and the log holds every move).
    import psycopg
    params = psycopg.conninfo.conninfo_to_dict(url)
    options = ((params.get("options") or "") + " -c synchronous_commit=off").strip()
    extra = {"application_name": name} if name else {}
    return psycopg.connect(url, autocommit=True, connect_timeout=5, options=options, **extra)


class Relay:
    """One server process's part (see the module doc). `handle(digest, action, body)` ->
    (HTTP status, JSON data) plays a request for a seat of this process's tables (None
    when no such seat is here); `view_of(digest)` -> (seq, client, view) or None draws a
    seat's view for a stream open elsewhere."""

    def __init__(self, url, handle=None, view_of=None, tables=None):
        self.url = url
        self.handle = handle
        self.view_of = view_of
        self.tables = tables  # () -> the tables played here, as GET /api/tables lists them
        self.worker = "vora_relay_w%s" % secrets.token_hex(6)  # also its channel's name
        self._local = threading.local()  # a connection each thread (psycopg's are not shared)
        self._lock = threading.Lock()
        self._answers = {}  # {request id: Event} of the requests this process waits for
        self._watchers = {}  # {digest: set(poke)} of the streams open here on seats elsewhere
        self._homed = {}  # {digest: (table, player)} of the seats whose home is here
        self._tables = {}  # {id(table): (table, poke)} listened to for publishing
        self._dirty = set()  # digests whose view is to be published
        self._publish = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._threads = []
        self._pool = ThreadPoolExecutor(HANDLERS, thread_name_prefix="vora-relay")
        # The asks of the tables' list wait for other processes' handlers: a pool of
        # their own, so that they never hold the handlers the others' asks wait for.
        self._asks = ThreadPoolExecutor(4, thread_name_prefix="vora-relay-list")
        self.remote = {}  # {digest: {process: its streams open}} of seats homed here
        self.released = None  # (digest, n): n streams of the seat gone with their process

    # ---- running

    def start(self):
        with _connect(self.url) as conn:
            # Several processes start at once (--workers): one makes the tables, under a
            # lock of the database's own, and the others find them made.
            conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
            try:
                for statement in SCHEMA:
                    conn.execute(statement)
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))
        self._listener = _connect(self.url, self.worker)
        for channel in (self.worker, DONE_CHANNEL, VIEW_CHANNEL):
            self._listener.execute("LISTEN %s" % channel)
        for target, name in ((self._listen, "listen"), (self._publisher, "publish")):
            thread = threading.Thread(target=target, daemon=True,
                                      name="vora-relay-%s" % name)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self):
        """This process stops: its seats are no longer said to be here."""
        self._stop.set()
        with self._publish:
            self._publish.notify_all()
        try:  # the listener, waiting for notifications, is woken by one
            self._execute("SELECT pg_notify(%s, %s)", (self.worker, "stop"))
        except Exception:  # the database away: the listener sees the stop at its next look
            pass
        for thread in self._threads:
            thread.join(LISTEN_POLL + 2.0)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._asks.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            followed = [d for d in self._homed if any(self.remote.get(d, {}).values())]
        try:
            self._execute("DELETE FROM vora_relay_seats WHERE home = %s", (self.worker,))
            # The streams open elsewhere on its seats look where they are played now (and
            # end): nothing new in the view, and the seat no longer here.
            if followed:
                self._execute("SELECT pg_notify(%s, d) FROM unnest(%s::text[]) AS d",
                              (VIEW_CHANNEL, followed))
        except Exception as exc:  # the database away: the rows name a process gone
            log.warning("relay: %s", exc)
        try:
            self._listener.close()
        except Exception:
            pass

    def _conn(self):
        conn = getattr(self._local, "conn", None)
        if conn is None or conn.closed or conn.broken:
            conn = self._local.conn = _connect(self.url)
        return conn

    def _execute(self, sql, params=()):
        cur = self._conn().execute(sql, params)
        return cur.fetchall() if cur.description is not None else []

    # ---- the home's side

    def home(self, table, hashes, game_id):
        """The seats of `table` ({player: digest}) are played here from now on."""
        now = time.time()
        digests = tuple(hashes.values())

        def poke():
            self.changed(digests)
        with self._lock:
            for p, digest in hashes.items():
                self._homed[digest] = (table, p)
            new = id(table) not in self._tables
            if new:
                self._tables[id(table)] = (table, poke)
        if new:
            # (Outside the relay's lock: a table calls poke() under its own lock, and
            # poke() takes the relay's.)
            table.listen(poke)
        for digest in hashes.values():
            self._execute(
                "INSERT INTO vora_relay_seats (digest, game_id, home, since) VALUES "
                "(%s, %s, %s, %s) ON CONFLICT (digest) DO UPDATE SET game_id = "
                "EXCLUDED.game_id, home = EXCLUDED.home, since = EXCLUDED.since",
                (digest, int(game_id), self.worker, now))

    def forget(self, table):
        """`table` is played here no more (finished long ago): its seats are let go."""
        with self._lock:
            held = self._tables.pop(id(table), None)
            digests = [d for d, (t, _) in self._homed.items() if t is table]
            for d in digests:
                del self._homed[d]
        if held is not None:
            table.unlisten(held[1])
        for d in digests:
            self._execute("DELETE FROM vora_relay_seats WHERE digest = %s AND home = %s",
                          (d, self.worker))
            self._execute("DELETE FROM vora_relay_views WHERE digest = %s", (d,))

    def changed(self, digests):
        """The views of these seats changed (the table, or the seat's browser): those with
        a stream open elsewhere are published. Called under the table's lock: only
        noted here, the publisher draws and writes."""
        with self._publish:
            for d in digests:
                if any(self.remote.get(d, {}).values()):
                    self._dirty.add(d)
            if self._dirty:
                self._publish.notify()

    def opened(self, digest, process, step):
        """A stream on a home's seat opened (step 1) or closed (-1) at `process`."""
        with self._lock:
            held = self.remote.setdefault(digest, {})
            held[process] = max(0, held.get(process, 0) + step)
            if not held[process]:
                del held[process]
            if not held:
                del self.remote[digest]

    def _release_the_gone(self):
        """The streams that processes no longer connected to the database held open on
        this home's seats (a process killed) are closed: their seats' players are told
        they left, as when a page closes. A relay's listener connection carries its name
        (application_name), so PostgreSQL itself says which processes are there."""
        with self._lock:
            held = dict((d, dict(by)) for d, by in self.remote.items())
        if not held:
            return
        alive = set(h for (h,) in self._execute(
            "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE "
            "'vora_relay_w%%'"))
        for digest, by in held.items():
            for process, n in by.items():
                if process not in alive and process != self.worker:
                    with self._lock:
                        self.remote.get(digest, {}).pop(process, None)
                        if not self.remote.get(digest, True):
                            del self.remote[digest]
                    if self.released is not None:
                        self.released(digest, n)

    def _publisher(self):
        while not self._stop.is_set():
            with self._publish:
                self._publish.wait_for(lambda: self._dirty or self._stop.is_set(),
                                       LISTEN_POLL)
                digests, self._dirty = self._dirty, set()
            for digest in digests:
                try:
                    self._write_view(digest)
                except Exception as exc:
                    log.warning("relay: the view of a seat was not published: %s", exc)

    def _write_view(self, digest):
        drawn = self.view_of(digest) if self.view_of is not None else None
        if drawn is None:
            return
        seq, client, view = drawn
        conn = self._conn()
        with conn.transaction():
            # Encoded as a seat's event carries it (vora_host.web.seats._seat_event): the
            # stream on the other process sends this text as it is (view_text), neither
            # decoded nor encoded again there.
            conn.execute(
                "INSERT INTO vora_relay_views (digest, seq, client, view) VALUES (%s, %s, "
                "%s, %s) ON CONFLICT (digest) DO UPDATE SET seq = EXCLUDED.seq, client = "
                "EXCLUDED.client, view = EXCLUDED.view",
                (digest, int(seq), int(client), json.dumps(view)))
            conn.execute("SELECT pg_notify(%s, %s)", (VIEW_CHANNEL, digest))

    def _answer(self, rid):
        rows = self._execute("SELECT digest, action, body FROM vora_relay_requests WHERE "
                             "id = %s AND home = %s AND status IS NULL", (rid, self.worker))
        if not rows:
            return
        digest, action, body = rows[0]
        try:
            if action == "tables":  # (no seat's: the list of another process's page)
                result = 200, {"tables": self.tables() if self.tables else []}
            else:
                result = self.handle(digest, action, json.loads(body)) if self.handle \
                    else None
            status, data = result if result is not None else (
                404, {"error": "no such seat: the game may have ended, or the link is wrong"})
        except Exception as exc:  # a failure here must not leave the asker waiting
            log.exception("relay: a request for a seat failed")
            status, data = 500, {"error": "internal error (%s): the server goes on"
                                          % type(exc).__name__}
        conn = self._conn()
        with conn.transaction():
            conn.execute("UPDATE vora_relay_requests SET status = %s, answer = %s WHERE "
                         "id = %s", (int(status), json.dumps(data, separators=(",", ":")),
                                     rid))
            conn.execute("SELECT pg_notify(%s, %s)", (DONE_CHANNEL, str(rid)))

    # ---- the other processes' side

    def wait_for_homes(self, game_ids, timeout=HOMES_SECONDS):
        """Wait until each of the log's unfinished tables `game_ids` is played somewhere
        (another process starting beside this one is taking it up), at most `timeout`
        seconds: a process starting serves no sooner, so that none of those tables' seats
        is answered "no such seat" meanwhile. Returns the ids still without a home (a
        process elsewhere that holds them and has gone: taken up when its lease runs out)."""
        wanted = set(int(g) for g in game_ids)
        deadline = time.monotonic() + timeout
        while wanted:
            # (A home counts while its relay is connected: the rows of a process that
            # was killed stay until its tables are taken up again.)
            found = self._execute(
                "SELECT DISTINCT s.game_id FROM vora_relay_seats s JOIN pg_stat_activity a "
                "ON a.application_name = s.home WHERE s.game_id = ANY(%s)", (sorted(wanted),))
            wanted -= set(g for (g,) in found)
            if not wanted or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        return sorted(wanted)

    def home_of(self, digest):
        """The process that plays the seat (its worker name), or None: no such seat."""
        rows = self._execute("SELECT home FROM vora_relay_seats WHERE digest = %s",
                             (digest,))
        return rows[0][0] if rows else None

    def ask(self, digest, action, body=None, home=None, timeout=None):
        """The seat's home plays `action` with `body`: (HTTP status, JSON data) as it
        answers. RelayError when it does not answer in `timeout` seconds (ASK_SECONDS as
        the module has it when asked: a default bound at definition time would not follow
        a change of it, and a test that set it to 1 s waited the 10)."""
        if timeout is None:
            timeout = ASK_SECONDS
        home = home or self.home_of(digest)
        if home is None:
            return 404, {"error": "no such seat: the game may have ended, or the link is "
                                  "wrong"}
        now = time.time()
        conn = self._conn()
        with conn.transaction():
            rid = conn.execute(
                "INSERT INTO vora_relay_requests (home, digest, action, body, made) VALUES "
                "(%s, %s, %s, %s, %s) RETURNING id",
                (home, digest, action, json.dumps(body or {}), now)).fetchone()[0]
            conn.execute("SELECT pg_notify(%s, %s)", (home, str(rid)))
        done = threading.Event()
        with self._lock:
            self._answers[rid] = done
        try:
            deadline = time.monotonic() + timeout
            while True:
                rows = self._execute("SELECT status, answer FROM vora_relay_requests WHERE "
                                     "id = %s", (rid,))
                if rows and rows[0][0] is not None:
                    self._execute("DELETE FROM vora_relay_requests WHERE id = %s", (rid,))
                    return rows[0][0], json.loads(rows[0][1])
                left = deadline - time.monotonic()
                if left <= 0:
                    self._execute("DELETE FROM vora_relay_requests WHERE id = %s", (rid,))
                    raise RelayError("the server process that plays this table does not "
                                     "answer (it may have stopped: the next server to start "
                                     "takes its tables up from the log); try again soon")
                done.wait(min(left, LISTEN_POLL))  # (a notification missed: looked again)
                done.clear()
        finally:
            with self._lock:
                self._answers.pop(rid, None)

    def tables_elsewhere(self, timeout=LIST_SECONDS):
        """The tables the other server processes play, as each lists its own; a process
        that does not answer within `timeout` seconds (gone, its rows not yet taken
        over) is left out."""
        homes = [h for (h,) in self._execute("SELECT DISTINCT home FROM vora_relay_seats")
                 if h != self.worker]
        if not homes:
            return []
        futures = [self._asks.submit(self.ask, "", "tables", {}, h, timeout) for h in homes]
        out = []
        for future in futures:
            try:
                status, data = future.result(timeout + 1.0)
            except Exception:  # (RelayError, the database away: that one is left out)
                continue
            if status == 200:
                out.extend(data.get("tables") or [])
        return out

    def watch(self, digest, poke):
        """`poke()` at every view of the seat its home publishes (a stream open here)."""
        with self._lock:
            self._watchers.setdefault(digest, set()).add(poke)

    def unwatch(self, digest, poke):
        with self._lock:
            pokes = self._watchers.get(digest)
            if pokes is not None:
                pokes.discard(poke)
                if not pokes:
                    del self._watchers[digest]

    def view(self, digest):
        """(seq, client, view) the home last published for the seat, or None."""
        row = self.view_text(digest)
        return (row[0], row[1], json.loads(row[2])) if row is not None else None

    def view_text(self, digest):
        """view(), the view as the JSON text the home wrote (json.dumps, as a seat's
        event carries it), or None."""
        rows = self._execute("SELECT seq, client, view FROM vora_relay_views WHERE "
                             "digest = %s", (digest,))
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    # ---- the listener: requests for this home, answers and views for the others

    def _listen(self):
        last_sweep = 0.0
        while not self._stop.is_set():
            try:
                for note in self._listener.notifies(timeout=LISTEN_POLL):
                    if self._stop.is_set():
                        return
                    self._dispatch(note.channel, note.payload)
            except Exception as exc:  # the server restarted: listen again
                if self._stop.is_set():
                    return
                log.warning("relay: the listener lost the database (%s); again", exc)
                self._relisten()
            if time.monotonic() - last_sweep > SWEEP_SECONDS:
                last_sweep = time.monotonic()
                self._sweep()

    def _relisten(self):
        try:
            self._listener.close()
        except Exception:
            pass
        while not self._stop.wait(1.0):
            try:
                self._listener = _connect(self.url, self.worker)
                for channel in (self.worker, DONE_CHANNEL, VIEW_CHANNEL):
                    self._listener.execute("LISTEN %s" % channel)
            except Exception:
                continue
            # What came meanwhile: waiting askers look again, open requests are answered.
            with self._lock:
                for done in self._answers.values():
                    done.set()
                watchers = [p for pokes in self._watchers.values() for p in pokes]
            for poke in watchers:
                poke()
            for (rid,) in self._execute("SELECT id FROM vora_relay_requests WHERE home = "
                                        "%s AND status IS NULL", (self.worker,)):
                self._pool.submit(self._answer, rid)
            return

    def _dispatch(self, channel, payload):
        if channel == self.worker:
            try:
                self._pool.submit(self._answer, int(payload))
            except (ValueError, RuntimeError):
                pass  # not a request's id; or the relay stops
        elif channel == DONE_CHANNEL:
            with self._lock:
                done = self._answers.get(int(payload)) if payload.isdigit() else None
            if done is not None:
                done.set()
        elif channel == VIEW_CHANNEL:
            with self._lock:
                pokes = list(self._watchers.get(payload, ()))
            for poke in pokes:
                poke()

    def _sweep(self):
        try:
            self._execute("DELETE FROM vora_relay_requests WHERE made < %s",
                          (time.time() - KEPT_REQUESTS,))
            self._release_the_gone()
        except Exception as exc:  # the database away: the next sweep
            log.warning("relay: %s", exc)


