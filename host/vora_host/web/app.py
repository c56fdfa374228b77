"""The web mirror's Starlette application (docs/web.md).

    app = create_app(path)          # the game log at `path` (vora_host.log.database)

Pages: / (the boards and games, live first), /game/{id} (a game: the board, the
terminal's drawing, the scores; live, or stepped through move by move). JSON:
/api/games, /api/games/{id}, /api/games/{id}/position/{n|latest}[?viewer=P],
/api/games/{id}/review (a finished game's review, once `vora games review` made it). Live
updates: /api/events[?game=ID], server-sent events, one "changed" event whenever the log
changes (a move, a takeback, a game started, ended, imported or deleted), naming the
games that changed, so a page fetches what it shows again; a stream that follows one
game also gets that game's newest position as a spectator sees it (the very data of
/api/games/{id}/position/latest), so that a page following the game draws it at once.

The log is read only through its public API (GameLog.games, game, id_range), so the
server follows every board and every `vora play` that logs to the same log, whatever the
log's backend. One watcher thread polls the log every POLL_SECONDS for the games being
played (their move counts and statuses) and every FULL_POLL_SECONDS for the whole list
(less often for a log so large that listing it takes more than a twentieth of that), and
tells every open event stream; while no page is open it does not poll at all. On a
PostgreSQL log it also LISTENs: every commit that changes the log, by any host (another
`vora serve` process, a board's PC elsewhere), NOTIFYs it (vora_host.log.postgres), so it
looks at once then and on its own clock only every LISTENING_POLL_SECONDS: the live events
between server processes go through PostgreSQL. The watcher
keeps one connection to the log while streams are open; every request opens its own
(vora_host.log.database keeps the two from costing each other their file locks, issue 43).

Bounds: each stream has a queue of at most STREAM_QUEUE events; when it is full (a page
that reads slowly, or a server behind) what waits is merged into one change (every id it
names, the newest version, position and trouble), so a slow page gets fewer events and
loses nothing. A page that reads nothing (one write waits WRITE_STALL_SECONDS) is dropped:
its connection is closed, and its EventSource, once it reads again, connects again and
reads the log afresh on hello. At most `max_streams` streams are open at once (vora serve
--max-streams): past that a stream is refused with a 503 that says why, which the pages
show. Every event is serialised once, whatever the number of streams.

Only requests naming the server by an address or one of its names are answered
(vora_host.web.hosts: DNS rebinding). Whole numbers past JavaScript's 2**53 (the 64-bit
seeds of Boars and Tossing Tiger) are sent as strings: a browser would round them.

Bad input never reaches the log: ids and move numbers are checked first, and every
problem is a JSON {"error": "..."} (or a small HTML page) with its HTTP status; an
unexpected failure is a 500 that names it, and the server goes on.
"""

import asyncio
import json
import logging
import threading
import time
from contextlib import asynccontextmanager
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from vora_host.log import postgres
from vora_host.log.database import db_label
from vora_host.log.errors import (CannotWrite, DatabaseError, DatabaseLocked, GameLogError, NoLog,
                                  NoSuchGame)
from vora_host.log.store import GameLog
from vora_host.web import game_data
from vora_host.web.game_data import BadRequest, Forbidden, NotFound
from vora_host.web.hosts import HostCheck, served_names

__all__ = ["create_app", "LogWatcher", "POLL_SECONDS", "FULL_POLL_SECONDS", "STREAM_QUEUE",
           "WRITE_STALL_SECONDS", "MAX_STREAMS", "json_safe", "CUT_MESSAGE"]

POLL_SECONDS = 0.02  # how often the games being played are looked at
FULL_POLL_SECONDS = 1.0  # how often the whole list is (deletions, imports of old games)
KEEPALIVE_SECONDS = 15.0  # a comment line on a quiet event stream, so proxies keep it
STOP_CHECK_SECONDS = 0.25  # how often a quiet event stream looks whether the server stops
# On PostgreSQL the watcher is told of every commit (LISTEN/NOTIFY) and looks then; on its
# own clock only this often (a writer that does not notify, a notification missed).
LISTENING_POLL_SECONDS = 1.0
LOCK_TIMEOUT = 2.0
STREAM_QUEUE = 64  # events waiting for one stream at most: past that they are merged
WRITE_STALL_SECONDS = 10.0  # a page whose connection takes no byte this long is dropped
MAX_STREAMS = 500  # event streams open at once at most (vora serve --max-streams)
DROP_GRACE_SECONDS = 2.0  # how long a stream dropped from outside may take to end
MAX_SAFE_INTEGER = 2 ** 53 - 1  # JavaScript's: larger whole numbers are sent as strings
# What uvicorn logs when a response ends unfinished: said of the streams cut on purpose
# (vora_host.web.serve leaves those out of its output).
CUT_MESSAGE = "ASGI callable returned without completing response."

log = logging.getLogger("vora.web")


def _static(name):
    return resources.files(__package__).joinpath("static").joinpath(name).read_text("utf-8")


def _html_page(title, message, status):
    from html import escape
    body = ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>%s</title>"
            "<link rel='stylesheet' href='/static/app.css'></head><body><main>"
            "<h1>%s</h1><p class='problem'>%s</p><p><a href='/'>All games</a></p>"
            "</main></body></html>" % (escape(title), escape(title), escape(message)))
    return HTMLResponse(body, status_code=status)


def json_safe(value):
    """`value` with every whole number past 2**53 (in magnitude) as a string of digits."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return str(value) if abs(value) > MAX_SAFE_INTEGER else value
    if isinstance(value, dict):
        return dict((k, json_safe(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


class _JSON(JSONResponse):
    def render(self, content):
        return super().render(json_safe(content))


class _Log:
    """Opens the game log for one request (SQLite connections stay in their thread)."""

    def __init__(self, path):
        self.path = path
        self.label = db_label(path)  # a PostgreSQL URL without its password

    def open(self):
        try:
            return GameLog(self.path, create=False, timeout=LOCK_TIMEOUT)
        except NoLog:
            return None

    def read(self, fn):
        """fn(the log, or None when there is none yet) on a connection of its own. A read
        that fails for any reason but a lock (waited for already) is tried once more on
        a new connection before the failure is said: a log is never called damaged on
        one failed read."""
        for attempt in (1, 2):
            glog = None
            try:
                glog = self.open()
                return fn(glog)
            except (DatabaseLocked, CannotWrite):
                raise
            except DatabaseError as exc:
                if attempt == 2:
                    raise
                log.info("reading the game log failed once, trying again: %s", exc)
            finally:
                if glog is not None:
                    glog.close()

    def no_game(self, gid, glog):
        if glog is None:
            return "no game %d: there is no game log at %s yet" % (gid, self.label)
        span = glog.id_range()
        where = "the log is empty" if span is None else "the log has games %d to %d" % span
        return "no game %d in %s (%s)" % (gid, self.label, where)


# ---------------------------------------------------------------- watching the log

class _Stalled(Exception):
    """A stream's page took nothing for WRITE_STALL_SECONDS: it is dropped."""


class _Stream:
    """One open event stream: its queue of events ((message, its bytes), at most
    STREAM_QUEUE), the game it follows (None: every change) and, once it must end, why
    ("dropped": its page read nothing; "stopped": the watcher stopped)."""

    def __init__(self, loop, game):
        self.loop = loop
        self.game = game
        self.queue = asyncio.Queue(STREAM_QUEUE)
        self.ended = asyncio.Event()
        self.why = None

    def end(self, why):
        if self.why is None:
            self.why = why
            self.ended.set()


class LogWatcher:
    """A thread that polls the log and tells the subscribed event streams what changed."""

    def __init__(self, path, interval=POLL_SECONDS, full_interval=FULL_POLL_SECONDS,
                 latest=None, max_streams=MAX_STREAMS):
        self.path = path
        # latest(log, game id): the newest position of a game as a spectator sees it,
        # sent with the change to the streams that follow that game, so that a page
        # draws a new move without asking for it.
        self.latest = latest
        self.interval = interval
        self.full_interval = full_interval
        self.max_streams = max_streams
        self.version = 0
        self.trouble = None  # why the log cannot be read now, or None
        self._streams = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()  # set when a stream subscribes
        self.polls = 0  # how many times the log was looked at
        self.dropped = 0  # streams dropped because their page did not read
        self.merged = 0  # times a full queue was merged into one change
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._run, name="vora-web-watcher",
                                        daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
        with self._lock:
            streams = list(self._streams)
        self._post_all([(stream, None) for stream in streams])

    @property
    def streams(self):
        """How many event streams are open."""
        with self._lock:
            return len(self._streams)

    def subscribe(self, game=None):
        """A new stream (in the running event loop), or None when max_streams are open."""
        stream = _Stream(asyncio.get_running_loop(), game)
        with self._lock:
            if len(self._streams) >= self.max_streams:
                return None
            self._streams.add(stream)
        self._wake.set()
        return stream

    async def looked_since(self, polls, timeout=2.0):
        """Wait (up to `timeout` seconds) until the log has been looked at after `polls`."""
        end = time.monotonic() + timeout
        while self.polls <= polls and time.monotonic() < end:
            await asyncio.sleep(self.interval / 2)

    def unsubscribe(self, stream):
        with self._lock:
            self._streams.discard(stream)

    def _post_all(self, posts):
        """Hand each (stream, item) its item: one call into each event loop for all of
        its streams, not one a stream (each call wakes the loop through a socket)."""
        by_loop = {}
        for stream, item in posts:
            by_loop.setdefault(stream.loop, []).append((stream, item))
        for loop, pairs in by_loop.items():
            try:
                loop.call_soon_threadsafe(self._offer_all, pairs)
            except RuntimeError:
                pass  # that loop is closed: its streams have gone

    def _offer_all(self, pairs):
        for stream, item in pairs:
            self._offer(stream, item)

    def _offer(self, stream, item):
        # In the stream's event loop; item: (message, its event as bytes), or None.
        if stream.why is not None:
            return
        if item is None:
            stream.end("stopped")
            return
        try:
            stream.queue.put_nowait(item)
        except asyncio.QueueFull:
            self._merge(stream, item)

    def _merge(self, stream, item):
        """A full queue becomes one change: every game id its changes named, the newest
        version and trouble, and the newest position if the newest change brought one
        (only the newest may be called the newest position). Pages read everything
        again on any change; an API client learns every id."""
        messages = []
        while not stream.queue.empty():
            messages.append(stream.queue.get_nowait()[0])
        messages.append(item[0])
        merged = {"version": messages[-1]["version"],
                  "ids": sorted(set(i for m in messages for i in m["ids"]))}
        troubles = [m["trouble"] for m in messages if "trouble" in m]
        if troubles:
            merged["trouble"] = troubles[-1]
        if "position" in messages[-1]:
            merged["position"] = messages[-1]["position"]
        stream.queue.put_nowait((merged, _event("changed", merged)))
        self.merged += 1

    def drop(self, stream):
        """End a stream whose page reads nothing (in the stream's event loop)."""
        self.unsubscribe(stream)
        self.dropped += 1
        stream.end("dropped")
        log.warning("dropped a live event stream: its page took nothing for %g s (it reads "
                    "the log afresh when it connects again)", WRITE_STALL_SECONDS)

    def _tell(self, message, glog=None):
        with self._lock:
            streams = list(self._streams)
        plain = None
        followed = {}  # game id -> the event with its newest position (or the plain one)
        posts = []
        for stream in streams:
            game = stream.game
            if game is not None and game not in message["ids"] and "trouble" not in message:
                continue  # a page that follows another game
            if game is not None and game in message["ids"] and glog is not None \
                    and self.latest is not None:
                if game not in followed:
                    try:
                        position = self.latest(glog, game)
                    except (GameLogError, LookupError, ValueError, PermissionError):
                        position = None  # the page asks, and is told what is wrong
                    if position is None:
                        followed[game] = None
                    else:
                        told = dict(message, position=position)
                        followed[game] = (told, _event("changed", told))
                if followed[game] is not None:
                    posts.append((stream, followed[game]))
                    continue
            if plain is None:
                plain = (message, _event("changed", message))  # serialised once for all
            posts.append((stream, plain))
        self._post_all(posts)

    def _listen(self, listener):
        """On a PostgreSQL log, the connection that hears its changes (PgListener), made
        when missing; None on SQLite, or when it cannot be made now (said by the looks)."""
        if listener is not None or not postgres.is_db_url(str(self.path)):
            return listener
        try:
            return postgres.PgListener(str(self.path))
        except Exception:  # noqa: BLE001 - the looks go on on their own clock
            return None

    def _pause(self, listener):
        """Wait for the next look: the poll interval; on PostgreSQL, until a commit of any
        host changes the log (NOTIFY), LISTENING_POLL_SECONDS at most. Returns the
        listener, None once it failed."""
        if listener is None:
            self._stop.wait(self.interval)
            return None
        end = time.monotonic() + max(self.interval, LISTENING_POLL_SECONDS)
        try:
            while not self._stop.is_set():
                left = end - time.monotonic()
                if left <= 0 or listener.wait(min(left, STOP_CHECK_SECONDS)):
                    break
            return listener
        except Exception:  # noqa: BLE001 - the server went: look on the clock, listen again
            try:
                listener.close()
            except Exception:  # noqa: BLE001
                pass
            self._stop.wait(self.interval)
            return None

    def _run(self):
        glog = None
        listener = None
        playing, everything = {}, {}
        mark = None  # the log's commit mark at the last look (SQLite), None: unknown
        last_full = 0.0
        full_interval = self.full_interval
        silent = True
        failures = 0  # looks at the log that failed in a row
        while not self._stop.is_set():
            with self._lock:
                idle = not self._streams
            if idle:
                # Nobody watches: the log is left alone until a page opens a stream. What
                # changed meanwhile is no news to that page (it reads the log after its
                # stream says hello, which waits for this first look): nothing is told.
                if glog is not None:
                    glog.close()  # not kept open (and holding the file) for nobody
                    glog = None
                if listener is not None:
                    listener.close()
                    listener = None
                self._wake.wait()
                self._wake.clear()
                silent = True
                continue
            try:
                if glog is None:
                    glog = _Log(self.path).open()
                    mark = None
                if glog is not None:
                    now = time.monotonic()
                    # Nothing committed since the last look (SQLite says so cheaply):
                    # nothing to read (deletions and imports are commits too), but for
                    # the whole list's look, which also finds a log gone bad meanwhile.
                    new_mark = glog.commit_mark()
                    if new_mark is not None and new_mark == mark and not silent \
                            and now - last_full < full_interval:
                        self.polls += 1
                        listener = self._pause(self._listen(listener))
                        continue
                    mark = new_mark
                    changed = set()
                    new_playing = glog.change_marks(status="playing")
                    for gid in set(new_playing) | set(playing):
                        if new_playing.get(gid) != playing.get(gid):
                            changed.add(gid)
                    playing = new_playing
                    if silent or now - last_full >= full_interval:
                        new_all = glog.change_marks()
                        for gid in set(new_all) | set(everything):
                            if new_all.get(gid) != everything.get(gid):
                                changed.add(gid)
                        everything = new_all
                        last_full = time.monotonic()
                        # A large log: the whole list at most 5% of the time.
                        full_interval = max(self.full_interval, 20 * (last_full - now))
                    if silent:
                        silent = False
                    elif changed:
                        self.version += 1
                        self._tell({"version": self.version, "ids": sorted(changed)}, glog)
                else:
                    playing, everything, silent = {}, {}, False  # no log yet: no games
                failures = 0
                if self.trouble is not None:
                    self.trouble = None
                    self._tell({"version": self.version, "ids": [], "trouble": None})
            except (GameLogError, ValueError) as exc:
                if glog is not None:
                    glog.close()
                    glog = None
                failures += 1
                # Said once it fails again on a new connection: one failed read is not
                # news of a damaged log.
                if failures >= 2 and str(exc) != self.trouble:
                    self.trouble = str(exc)
                    log.warning("cannot read the game log: %s", exc)
                    self._tell({"version": self.version, "ids": [], "trouble": self.trouble})
                if failures == 1:
                    continue  # again at once
            except Exception:  # noqa: BLE001 - a bug must not end live updates for good
                log.exception("the log's watcher failed; it goes on")
                self._tell({"version": self.version, "ids": [],
                            "trouble": "the web mirror's watcher failed (see its output)"})
                if glog is not None:
                    glog.close()
                    glog = None
                self._stop.wait(1.0)
            self.polls += 1
            listener = self._pause(self._listen(listener))
        if glog is not None:
            glog.close()
        if listener is not None:
            listener.close()


class _EventStream(Response):
    """The answer of /api/events: server-sent events from a _Stream until the page goes,
    the server stops, or the stream is dropped (see the module doc)."""

    media_type = "text/event-stream"

    def __init__(self, watcher, stream, polls, closing, on_cut):
        # As StreamingResponse does: no body, so no Content-Length.
        self.status_code = 200
        self.background = None
        self.init_headers({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self.watcher, self.stream, self.polls = watcher, stream, polls
        self.closing, self.on_cut = closing, on_cut

    async def __call__(self, scope, receive, send):
        pump = asyncio.ensure_future(self._pump(send))
        ended = asyncio.ensure_future(self.stream.ended.wait())
        gone = asyncio.ensure_future(self._gone(receive))
        tasks = (pump, ended, gone)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            if not pump.done() and not gone.done():
                # Ended from outside (dropped, or the server stops): the pump ends the
                # stream as soon as its page takes what waits; else it is cut.
                await asyncio.wait((pump, gone), timeout=DROP_GRACE_SECONDS,
                                   return_when=asyncio.FIRST_COMPLETED)
            stalled = pump.done() and not pump.cancelled() \
                and isinstance(pump.exception(), _Stalled)
            if not gone.done() and (stalled or not pump.done()):
                self.on_cut()  # the response ends unfinished: uvicorn closes the connection
        finally:
            self.watcher.unsubscribe(self.stream)
            for task in tasks:
                task.cancel()
            results = await asyncio.gather(*tasks, return_exceptions=True)
            if isinstance(results[0], Exception) \
                    and not isinstance(results[0], (OSError, _Stalled)):
                # (OSError: its page has gone.)
                log.error("an event stream failed", exc_info=results[0])

    @staticmethod
    async def _gone(receive):
        while (await receive())["type"] != "http.disconnect":
            pass

    async def _pump(self, send):
        stream, watcher = self.stream, self.watcher

        async def write(data, more=True):
            # A page whose connection takes nothing (its buffers full) for
            # WRITE_STALL_SECONDS reads nothing: dropped, not waited for (and not for
            # more than a second while the server stops).
            stall = min(WRITE_STALL_SECONDS, DROP_GRACE_SECONDS) if self.closing() \
                else WRITE_STALL_SECONDS
            try:
                await asyncio.wait_for(send({"type": "http.response.body", "body": data,
                                             "more_body": more}), stall)
            except asyncio.TimeoutError:
                watcher.drop(stream)
                raise _Stalled()

        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})
        await write(b"retry: 1000\n\n")
        # Hello once the watcher has looked at the log since this stream began: a page
        # reads the log on hello, and every change after that is told.
        await watcher.looked_since(self.polls)
        await write(_event("hello", {"version": watcher.version, "trouble": watcher.trouble}))
        quiet_since = time.monotonic()
        while stream.why is None:
            try:
                _, data = await asyncio.wait_for(stream.queue.get(), STOP_CHECK_SECONDS)
            except asyncio.TimeoutError:
                if self.closing():
                    break  # the server stops: end the stream so it stops cleanly
                if time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
                    quiet_since = time.monotonic()
                    await write(b": still here\n\n")
                continue
            await write(data)
        if stream.why == "dropped":
            await write(_event("dropped", {
                "reason": "this page took no live update for a while; it reads the log "
                          "again when it connects again"}))
        await write(b"", more=False)


# ---------------------------------------------------------------- the application

def create_app(path, watch=True, names=None, max_streams=MAX_STREAMS, seats=None,
               tables=None):
    """The web mirror of the game log at `path`. `watch`: run the watcher thread (the
    event stream needs it; tests of the JSON routes may leave it off). `names`: the host
    names it answers to besides IP addresses (hosts.served_names(); default localhost).
    `max_streams`: event streams open at once at most. `seats`: the browser seats of the
    tables played beside it (vora_host.web.seats.SeatRegistry), or None. `tables`: the
    tables the server plays itself (vora_host.web.tables.TableHost, vora serve --tables;
    its seats are its registry's), or None; they stop with the server."""
    if tables is not None:
        seats = tables.registry
    source = _Log(path)
    cache = game_data.ReplayCache()

    def latest(glog, gid):
        return cache.position(glog.game(gid), None, None)

    watcher = LogWatcher(path, latest=latest, max_streams=max_streams)

    def error(status, message, headers=None):
        return _JSON({"error": message, "status": status}, status_code=status,
                     headers=headers)

    def _with_game(gid, fn, replay=True):
        def read(glog):
            if glog is None:
                raise NotFound(source.no_game(gid, None))
            try:
                info = glog.game(gid)
            except NoSuchGame:
                raise NotFound(source.no_game(gid, glog))
            return fn(info, cache.get(info)) if replay else fn(info)
        return source.read(read)

    async def api(fn, *args):
        try:
            return _JSON(await run_in_threadpool(fn, *args))
        except BadRequest as exc:
            return error(400, str(exc))
        except Forbidden as exc:
            return error(403, str(exc))
        except NotFound as exc:
            return error(404, str(exc))
        except DatabaseLocked as exc:
            return error(503, "the game log is busy: %s" % exc)
        except GameLogError as exc:
            return error(503, "the game log cannot be read: %s" % exc)

    # ---- pages

    async def index(request):
        return HTMLResponse(_static("index.html"))

    async def game_page(request):
        try:
            gid = game_data.parse_game_id(request.path_params["gid"])
            await run_in_threadpool(_with_game, gid, lambda info: None, False)
        except BadRequest as exc:
            return _html_page("Not a game", str(exc), 400)
        except NotFound as exc:
            return _html_page("No such game", str(exc), 404)
        except DatabaseLocked as exc:
            return _html_page("The game log is busy", str(exc), 503)
        except GameLogError as exc:
            return _html_page("The game log cannot be read", str(exc), 503)
        return HTMLResponse(_static("game.html"))

    # ---- JSON

    def _games(limit_text):
        limit = game_data.parse_limit(limit_text)

        def read(glog):
            if glog is None:
                return {"log": source.label, "games": [], "complete": True,
                        "note": "there is no game log at %s yet" % source.label}
            rows, complete = game_data.summaries(glog, limit)
            return {"log": source.label, "games": rows, "complete": complete}
        return source.read(read)

    async def api_games(request):
        return await api(_games, request.query_params.get("limit"))

    async def api_game(request):
        def run():
            gid = game_data.parse_game_id(request.path_params["gid"])
            return _with_game(gid, game_data.game_page_data)
        return await api(run)

    async def api_position(request):
        def run():
            gid = game_data.parse_game_id(request.path_params["gid"])
            n = game_data.parse_move_number(request.path_params["n"])
            viewer_text = request.query_params.get("viewer")

            def draw(info):
                viewer = game_data.parse_viewer(viewer_text, info["players"])
                return cache.position(info, n, viewer)
            return _with_game(gid, draw, replay=False)
        return await api(run)

    async def api_review(request):
        # A finished game's review (vora games review): refused while the game may go on
        # (a hidden game's review knows every hand), said how to make when there is none.
        def run():
            gid = game_data.parse_game_id(request.path_params["gid"])

            def read(glog):
                if glog is None:
                    raise NotFound(source.no_game(gid, None))
                try:
                    info = glog.game(gid)
                except NoSuchGame:
                    raise NotFound(source.no_game(gid, glog))
                refusal = game_data.review_refusal(info)
                if refusal is not None:
                    raise Forbidden(refusal)
                review = glog.review(gid)
                if review is None:
                    raise NotFound("no review of game %d yet: 'vora games review %d' "
                                   "computes it" % (gid, gid))
                return game_data.review_data(info, review)
            return source.read(read)
        return await api(run)

    def cut():
        # A dropped stream whose page still read nothing: uvicorn closes its connection
        # and says CUT_MESSAGE, which serve.py leaves out for this many streams.
        app.state.cut_streams += 1

    async def api_events(request):
        text = request.query_params.get("game")
        try:
            game = None if text is None else game_data.parse_game_id(text)
        except BadRequest as exc:
            return error(400, str(exc))
        if not watch:
            return error(503, "this server does not watch the log (live updates are off)")
        polls = watcher.polls
        stream = watcher.subscribe(game)
        if stream is None:
            return error(503, "the web mirror already sends live updates to %d page%s, its "
                              "most (vora serve --max-streams %d): close one of them, or "
                              "start it with a higher --max-streams; a page without them "
                              "still shows the log as it was when read"
                         % (max_streams, "" if max_streams == 1 else "s", max_streams),
                         headers={"Retry-After": "5"})
        return _EventStream(watcher, stream, polls, request.app.state.closing, cut)

    # ---- errors

    async def http_error(request, exc):
        if request.url.path.startswith("/api/"):
            return error(exc.status_code, exc.detail if exc.status_code != 404
                         else "no such address: %s (see /api/games)" % request.url.path[:80])
        if exc.status_code == 404:
            return _html_page("Not found", "there is no page %s here" % request.url.path[:80],
                              404)
        return Response(str(exc.detail), status_code=exc.status_code,
                        media_type="text/plain")

    async def server_error(request, exc):
        log.exception("internal error on %s", request.url.path)
        return error(500, "internal error (%s): the server goes on; see its output"
                     % type(exc).__name__)

    @asynccontextmanager
    async def lifespan(app):
        if watch:
            watcher.start()
        try:
            yield
        finally:
            if tables is not None:
                tables.registry.close()
                await run_in_threadpool(tables.stop)
            if seats is not None and seats.relay is not None:
                await run_in_threadpool(seats.relay.stop)
            if watch:
                await run_in_threadpool(watcher.stop)

    routes = [
        Route("/", index),
        Route("/game/{gid}", game_page),
        Route("/api/games", api_games),
        Route("/api/games/{gid}", api_game),
        Route("/api/games/{gid}/position/{n}", api_position),
        Route("/api/games/{gid}/review", api_review),
        Route("/api/events", api_events),
        Mount("/static", StaticFiles(packages=[("vora_host.web", "static")]), name="static"),
    ]
    if seats is not None:
        from vora_host.web import seats as web_seats
        routes[:0] = web_seats.routes(seats, _static)
    if tables is not None:
        from vora_host.web import tables as web_tables
        routes[:0] = web_tables.routes(tables, _static)
    names = served_names() if names is None else list(names)
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(HostCheck, names=names)],
                    exception_handlers={HTTPException: http_error, Exception: server_error})
    app.state.watcher = watcher
    app.state.names = names
    app.state.cut_streams = 0  # streams cut whose CUT_MESSAGE serve.py has not yet left out
    # Whether the server is stopping (serve.py sets it from uvicorn's should_exit): open
    # event streams end then, so that Ctrl-C stops the server at once and cleanly.
    app.state.closing = lambda: False
    app.state.log_path = path
    return app


def _event(kind, data):
    """A server-sent event, as bytes."""
    text = json.dumps(json_safe(data), separators=(",", ":"))
    return ("event: %s\ndata: %s\n\n" % (kind, text)).encode("utf-8")
