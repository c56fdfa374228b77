"""The web mirror's Starlette application (docs/web.md).

    app = create_app(path)          # the game log at `path` (as vora_host.log.store resolves it)

Pages: / (the boards and games, live first), /game/{id} (a game: the board, the
terminal's drawing, the scores; live, or stepped through move by move). JSON:
/api/games, /api/games/{id}, /api/games/{id}/position/{n|latest}[?viewer=P]. Live
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
tells every open event stream; while no page is open it does not poll at all.

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
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from vora_host.log.store import GameLog, GameLogError, NoLog, NoSuchGame, db_label
from vora_host.web import game_data
from vora_host.web.game_data import BadRequest, Forbidden, NotFound

__all__ = ["create_app", "LogWatcher", "POLL_SECONDS", "FULL_POLL_SECONDS"]

POLL_SECONDS = 0.02  # how often the games being played are looked at
FULL_POLL_SECONDS = 1.0  # how often the whole list is (deletions, imports of old games)
KEEPALIVE_SECONDS = 15.0  # a comment line on a quiet event stream, so proxies keep it
STOP_CHECK_SECONDS = 0.25  # how often a quiet event stream looks whether the server stops
LOCK_TIMEOUT = 2.0

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

    def no_game(self, gid, glog):
        if glog is None:
            return "no game %d: there is no game log at %s yet" % (gid, self.label)
        span = glog.id_range()
        where = "the log is empty" if span is None else "the log has games %d to %d" % span
        return "no game %d in %s (%s)" % (gid, self.label, where)


# ---------------------------------------------------------------- watching the log

class LogWatcher:
    """A thread that polls the log and tells the subscribed event streams what changed."""

    def __init__(self, path, interval=POLL_SECONDS, full_interval=FULL_POLL_SECONDS,
                 latest=None):
        self.path = path
        # latest(log, game id): the newest position of a game as a spectator sees it,
        # sent with the change to the streams that follow that game, so that a page
        # draws a new move without asking for it.
        self.latest = latest
        self.interval = interval
        self.full_interval = full_interval
        self.version = 0
        self.trouble = None  # why the log cannot be read now, or None
        self._subscribers = {}  # queue -> (its event loop, the game it follows or None)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()  # set when a stream subscribes
        self.polls = 0  # how many times the log was looked at
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
            subscribers = list(self._subscribers.items())
        for queue, (loop, _) in subscribers:
            self._post(loop, queue, None)

    def subscribe(self, game=None):
        queue = asyncio.Queue()
        with self._lock:
            self._subscribers[queue] = (asyncio.get_running_loop(), game)
        self._wake.set()
        return queue

    async def looked_since(self, polls, timeout=2.0):
        """Wait (up to `timeout` seconds) until the log has been looked at after `polls`."""
        end = time.monotonic() + timeout
        while self.polls <= polls and time.monotonic() < end:
            await asyncio.sleep(self.interval / 2)

    def unsubscribe(self, queue):
        with self._lock:
            self._subscribers.pop(queue, None)

    @staticmethod
    def _post(loop, queue, message):
        try:
            loop.call_soon_threadsafe(queue.put_nowait, message)
        except RuntimeError:
            pass  # that stream's loop is closed: it has gone

    def _tell(self, message, glog=None):
        with self._lock:
            subscribers = list(self._subscribers.items())
        latest = {}
        for queue, (loop, game) in subscribers:
            if game is not None and game in message["ids"] and glog is not None \
                    and self.latest is not None:
                if game not in latest:
                    try:
                        latest[game] = self.latest(glog, game)
                    except (GameLogError, LookupError, ValueError, PermissionError):
                        latest[game] = None  # the page asks, and is told what is wrong
                if latest[game] is not None:
                    self._post(loop, queue, dict(message, position=latest[game]))
                    continue
            self._post(loop, queue, message)

    @staticmethod
    def _state(rows):
        return dict((g["id"], (g["move_count"], g["taken_back"], g["status"])) for g in rows)

    def _run(self):
        glog = None
        playing, everything = {}, {}
        last_full = 0.0
        full_interval = self.full_interval
        silent = True
        while not self._stop.is_set():
            with self._lock:
                idle = not self._subscribers
            if idle:
                # Nobody watches: the log is left alone until a page opens a stream. What
                # changed meanwhile is no news to that page (it reads the log after its
                # stream says hello, which waits for this first look): nothing is told.
                self._wake.wait()
                self._wake.clear()
                silent = True
                continue
            try:
                if glog is None:
                    glog = _Log(self.path).open()
                if glog is not None:
                    now = time.monotonic()
                    changed = set()
                    new_playing = self._state(glog.games(status="playing"))
                    for gid in set(new_playing) | set(playing):
                        if new_playing.get(gid) != playing.get(gid):
                            changed.add(gid)
                    playing = new_playing
                    if silent or now - last_full >= full_interval:
                        new_all = self._state(glog.games())
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
                if self.trouble is not None:
                    self.trouble = None
                    self._tell({"version": self.version, "ids": [], "trouble": None})
            except (GameLogError, ValueError) as exc:
                if str(exc) != self.trouble:
                    self.trouble = str(exc)
                    log.warning("cannot read the game log: %s", exc)
                    self._tell({"version": self.version, "ids": [], "trouble": self.trouble})
                if glog is not None:
                    glog.close()
                    glog = None
            except Exception:  # noqa: BLE001 - a bug must not end live updates for good
                log.exception("the log's watcher failed; it goes on")
                self._tell({"version": self.version, "ids": [],
                            "trouble": "the web mirror's watcher failed (see its output)"})
                if glog is not None:
                    glog.close()
                    glog = None
                self._stop.wait(1.0)
            self.polls += 1
            self._stop.wait(self.interval)
        if glog is not None:
            glog.close()


# ---------------------------------------------------------------- the application

def create_app(path, watch=True):
    """The web mirror of the game log at `path`. `watch`: run the watcher thread (the
    event stream needs it; tests of the JSON routes may leave it off)."""
    source = _Log(path)
    cache = game_data.ReplayCache()

    def latest(glog, gid):
        return cache.position(glog.game(gid), None, None)

    watcher = LogWatcher(path, latest=latest)

    def error(status, message):
        return JSONResponse({"error": message, "status": status}, status_code=status)

    def _with_game(gid, fn, replay=True):
        glog = source.open()
        if glog is None:
            raise NotFound(source.no_game(gid, None))
        try:
            try:
                info = glog.game(gid)
            except NoSuchGame:
                raise NotFound(source.no_game(gid, glog))
            return fn(info, cache.get(info)) if replay else fn(info)
        finally:
            glog.close()

    async def api(fn, *args):
        try:
            return JSONResponse(await run_in_threadpool(fn, *args))
        except BadRequest as exc:
            return error(400, str(exc))
        except Forbidden as exc:
            return error(403, str(exc))
        except NotFound as exc:
            return error(404, str(exc))
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
        except GameLogError as exc:
            return _html_page("The game log cannot be read", str(exc), 503)
        return HTMLResponse(_static("game.html"))

    # ---- JSON

    def _games(limit_text):
        limit = game_data.parse_limit(limit_text)
        glog = source.open()
        if glog is None:
            return {"log": source.label, "games": [], "complete": True,
                    "note": "there is no game log at %s yet" % source.label}
        try:
            rows, complete = game_data.summaries(glog, limit)
            return {"log": source.label, "games": rows, "complete": complete}
        finally:
            glog.close()

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

    async def api_events(request):
        text = request.query_params.get("game")
        try:
            game = None if text is None else game_data.parse_game_id(text)
        except BadRequest as exc:
            return error(400, str(exc))
        if not watch:
            return error(503, "this server does not watch the log (live updates are off)")
        polls = watcher.polls
        queue = watcher.subscribe(game)

        async def stream():
            try:
                yield "retry: 1000\n\n"
                # Hello once the watcher has looked at the log since this stream began: a
                # page reads the log on hello, and every change after that is told.
                await watcher.looked_since(polls)
                yield _event("hello", {"version": watcher.version, "trouble": watcher.trouble})
                quiet_since = time.monotonic()
                while True:
                    try:
                        message = await asyncio.wait_for(queue.get(), STOP_CHECK_SECONDS)
                    except asyncio.TimeoutError:
                        if request.app.state.closing():
                            return  # the server stops: end the stream so it stops cleanly
                        if time.monotonic() - quiet_since >= KEEPALIVE_SECONDS:
                            quiet_since = time.monotonic()
                            yield ": still here\n\n"
                        continue
                    if message is None:
                        return  # the watcher stopped
                    if game is None or game in message["ids"] or "trouble" in message:
                        yield _event("changed", message)
            finally:
                watcher.unsubscribe(queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache",
                                          "X-Accel-Buffering": "no"})

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
            if watch:
                await run_in_threadpool(watcher.stop)

    routes = [
        Route("/", index),
        Route("/game/{gid}", game_page),
        Route("/api/games", api_games),
        Route("/api/games/{gid}", api_game),
        Route("/api/games/{gid}/position/{n}", api_position),
        Route("/api/events", api_events),
        Mount("/static", StaticFiles(packages=[("vora_host.web", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={HTTPException: http_error, Exception: server_error})
    app.state.watcher = watcher
    # Whether the server is stopping (serve.py sets it from uvicorn's should_exit): open
    # event streams end then, so that Ctrl-C stops the server at once and cleanly.
    app.state.closing = lambda: False
    app.state.log_path = path
    return app


def _event(kind, data):
    return "event: %s\ndata: %s\n\n" % (kind, json.dumps(data, separators=(",", ":")))
