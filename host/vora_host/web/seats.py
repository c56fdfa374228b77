"""Browser seats: a player of a table (vora_host.table) plays from a browser, a phone at
the table or a computer elsewhere (docs/web.md, "Playing from a browser").

    seats = SeatRegistry()
    links = seats.open(table, players=[1, 2])    # {player: token}
    app = create_app(path, seats=seats)         # the routes below join the mirror's

A seat is reached only with its token (192 bits from `secrets`, in the link
/seat/TOKEN): the token reads that seat's view, and nothing else. API, version 1 (JSON;
every problem is {"error": "..."} with its HTTP status):

    GET  /api/seat/TOKEN                 the seat's view (seat_view below)
    GET  /api/seat/TOKEN/events          server-sent events: "seat" with the seat's view
                                         at every change of the table; "replaced" when the
                                         seat was opened in another browser
    POST /api/seat/TOKEN/move            {"move": "...", "number": N}: N the number of
                                         moves the browser saw (a stale move is refused)
    POST /api/seat/TOKEN/takeback        ask to take back the last human turn
    POST /api/seat/TOKEN/answer          {"yes": true|false}: answer a takeback
    POST /api/seat/TOKEN/resign          give the game up
    POST /api/seat/TOKEN/claim           {"what": "win" | "abort"}: end the game when
                                         another seat has been gone claim_after seconds
                                         (the win: in a game of two players)
    POST /api/seat/TOKEN/hint            {"number": N}: the hard level's move for this
                                         seat's player, from their view alone (up to
                                         about 2 s); the answer is the seat's view,
                                         whose "hint" holds it

A POST must send JSON with the header X-Vora-Seat: 1 (a form or a page of another site
cannot: a browser sends such a header across sites only after asking, and this server
never agrees), and carries the `client` id its stream's hello gave: the newest browser
on a seat wins, an older one is told (409) and its stream ends.

Secrets: a seat's view is drawn for its player only (the rules' `view(player)` through
the game's terminal view and board mapping), the events as that player may read them;
tests/test_web_seats.py deals every other player's secrets again and compares every
byte a seat receives.
"""

import asyncio
import hashlib
import json
import secrets
import threading

from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, JSONResponse, StreamingResponse
from starlette.routing import Route

from vora_host import games as host_games
from vora_host.table import Human, Refused

__all__ = ["API_VERSION", "BrowserSeat", "SeatRegistry", "seat_view", "routes",
           "TOKEN_BYTES", "token_hash"]

API_VERSION = 1
TOKEN_BYTES = 24  # 192 bits
MAX_BODY = 4096  # bytes of a POST's body at most
EVENTS_SHOWN = 8
KEEPALIVE_SECONDS = 15.0
WAIT_SECONDS = 1.0  # how often a quiet stream looks whether the server stops
PANEL_WIDTH = 72


class BrowserSeat(Human):
    """A human who plays from a browser: the terminal and the board wait for the table."""

    kind = "human"
    browser = True

    def __repr__(self):
        return "BrowserSeat()"


def token_hash(token):
    """What the server keeps of a seat's token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class _Seat:
    def __init__(self, table, player, digest):
        self.table = table
        self.player = player
        self.digest = digest  # the token's SHA-256
        self.client = 0  # the newest browser's id on this seat (0: none yet)
        self.streams = 0  # its open event streams
        self.sent = 0  # the table's newest event its newest stream has sent


class SeatRegistry:
    """The tables' browser seats this server answers for, by their tokens' SHA-256 (so
    that what the server keeps, and the log of a table of vora serve keeps, gives nobody a
    seat: vora_host.web.tables)."""

    def __init__(self):
        self._seats = {}
        self._lock = threading.Lock()
        self._clients = 0
        self.closing = threading.Event()
        self._pokes = set()  # the open streams' wake-ups (close() wakes them all)
        self.relay = None  # the tables' relay between server processes (attach())

    def attach(self, relay):
        """Seats of tables played by other server processes on the same PostgreSQL log
        are answered through `relay` (vora_host.web.relay.Relay), and this registry's
        own are played for them."""
        self.relay = relay
        relay.handle = lambda digest, action, body: self._relayed(digest, action, body)
        relay.view_of = self._far_view
        relay.released = self._released

    def _released(self, digest, n):
        with self._lock:
            seat = self._seats.get(digest)
        if seat is not None:
            self.closed_streams(seat, n)

    def opened_stream(self, seat):
        """A stream of the seat opened (here, or at another server process): its player
        is here."""
        with self._lock:
            seat.streams += 1
            first = seat.streams == 1
        if first:
            seat.table.back(seat.player, "browser")

    def closed_streams(self, seat, n=1):
        """`n` streams of the seat closed (here, or at another server process, or gone
        with it): with none left, its player has left (as when a page closes)."""
        with self._lock:
            seat.streams = max(0, seat.streams - n)
            last = seat.streams == 0
        if last and not self.closing.is_set():
            seat.table.left(seat.player)

    def _relayed(self, digest, action, body):
        with self._lock:
            seat = self._seats.get(digest)
        return None if seat is None else act(self, seat, action, body)

    def _far_view(self, digest):
        with self._lock:
            seat = self._seats.get(digest)
        if seat is None:
            return None
        with seat.table.lock:
            return seat.table.seq, seat.client, seat_view(seat.table, seat.player, self)

    def watch(self, poke):
        """`poke()` is called when the server stops (close()): an open stream's wake-up."""
        with self._lock:
            self._pokes.add(poke)

    def unwatch(self, poke):
        with self._lock:
            self._pokes.discard(poke)

    def close(self):
        """The server stops: every open stream ends now."""
        self.closing.set()
        with self._lock:
            pokes = list(self._pokes)
        for poke in pokes:
            poke()

    def open(self, table, players):
        """Give each of `players` of `table` a token: {player: token}."""
        tokens = dict((p, secrets.token_urlsafe(TOKEN_BYTES)) for p in players)
        self.open_hashed(table, dict((p, token_hash(t)) for p, t in tokens.items()))
        return tokens

    def open_hashed(self, table, hashes):
        """The seats of `table` whose tokens were given before, by their SHA-256
        ({player: hex}): a table taken up again after a restart."""
        with self._lock:
            for p, digest in hashes.items():
                self._seats[digest] = _Seat(table, p, digest)
        for p in hashes:
            table.away(p)  # not here until its link is opened
        if self.relay is not None:
            self.relay.home(table, hashes, getattr(table.log, "gid", None) or 0)

    def close_table(self, table):
        """Forget the seats of `table` (a table finished long ago): their links answer
        "no such seat" from now on."""
        with self._lock:
            for digest in [d for d, s in self._seats.items() if s.table is table]:
                del self._seats[digest]
        if self.relay is not None:
            self.relay.forget(table)

    def get(self, token):
        if not isinstance(token, str) or len(token) > 64:
            return None
        with self._lock:
            # Looked up by the token's SHA-256: how long the lookup takes tells nothing of
            # the token's characters.
            return self._seats.get(token_hash(token))

    def new_client(self, seat):
        """A browser opened the seat's stream: it is the seat's browser now."""
        with self._lock:
            self._clients += 1
            seat.client = self._clients
        if self.relay is not None:  # a stream open elsewhere on the seat is told
            self.relay.changed([seat.digest])
        return seat.client

    def settle(self, table, timeout):
        """Wait (at most `timeout` seconds) until every seat of `table` with a browser
        open has been sent the table's latest: the game's end reaches the phones before
        the server stops. True when they all have."""
        import time
        deadline = time.monotonic() + timeout
        while True:
            behind = [s for s in self.seats_of(table) if s.streams and s.sent < table.seq]
            if not behind:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)

    def seats_of(self, table):
        with self._lock:
            return sorted((s for s in self._seats.values() if s.table is table),
                          key=lambda s: s.player)


def _who(table):
    from vora_host.bots import level_of, short_kind
    out = {}
    for p, agent in enumerate(table.agents):
        if isinstance(agent, Human):
            out[p] = "browser" if getattr(agent, "browser", False) else "human"
        else:
            out[p] = level_of(table.game, agent.kind) or short_kind(table.game, agent.kind)
    return out


def seat_view(table, player, registry=None):
    """What the seat of `player` shows: everything drawn for that player's eyes only."""
    from vora_host.play.terminal import in_shown_order
    from vora_host.web.game_data import _palette, board_of, render_html_and_text
    with table.lock:
        state = table.state
        view = table.view
        who = _who(table)
        shown = dict(who)
        shown[player] = "you"  # the panel names the seat's own player "you"
        to_act = table.to_act()
        mine = to_act == player and table.takeback is None
        host = host_games.host_game(table.game)
        mapping = getattr(host, "BOARD", None)
        moves = []
        if mine:
            for move in in_shown_order(state.legal_moves()):
                keys = list(mapping.key_path(state, move)) if mapping is not None else []
                moves.append({"move": move, "keys": keys})
        # The board and the panel, the costly part of a view, are drawn once a position
        # and seat: a move's POST answer and the mover's stream show the same (issue 39,
        # bench/bench_tables_load.py).
        key = (table.changes, len(table.history), table.stopped, player)
        drawn = table.drawn_for_seats
        if key not in drawn:
            if drawn and next(iter(drawn))[:3] != key[:3]:
                drawn = {}  # another position: the old drawings let go
            rows, legend = board_of(table.game, state, player)
            drawn[key] = (rows, legend) + render_html_and_text(
                view.render(state, player, shown, table.history, width=PANEL_WIDTH,
                            palette=_palette(view)), PANEL_WIDTH)
            table.drawn_for_seats = drawn
        rows, legend, panel_html, panel_text = drawn[key]
        events, _ = table.events_since(max(0, table.seq - 40), viewer=player)
        hint = table.current_hint(player)
        if hint is not None:
            keys = list(mapping.key_path(state, hint.move)) \
                if mapping is not None and mine else []
            hint = {"move": hint.move, "reason": hint.reason, "number": hint.number,
                    "keys": keys}
        takeback = None
        if table.takeback is not None:
            tb = table.takeback
            takeback = {"what": tb["what"], "waiting": list(tb["waiting"]),
                        "asked_you": player in tb["waiting"]}
        connected = {}
        if registry is not None:
            connected = dict((s.player, s.streams > 0) for s in registry.seats_of(table))
        over = table.is_over()
        claims, against = table.claims(player)
        gone = []
        for p in sorted(table.gone):
            seconds = table.gone_for(p)
            gone.append({"player": p, "label": view.seat_label(state, p, who[p]),
                         "why": table.gone[p][1], "seconds": round(seconds, 1),
                         "claim_in": round(max(0.0, table.claim_after - seconds), 1)})
        return {
            "api": API_VERSION,
            "game": table.game, "title": view.rules.TITLE,
            "you": player,
            "you_label": view.seat_label(state, player, "you"),
            "seats": [{"player": p, "label": view.seat_label(state, p, who[p]),
                       "kind": who[p], "connected": connected.get(p)}
                      for p in range(len(table.agents))],
            "number": table.number, "seq": table.seq,
            "to_act": to_act, "your_turn": mine,
            "prompt": view.prompt(state) if mine else None,
            "moves": moves,
            "hint": hint, "can_hint": mine and not over,
            "board": {"rows": rows, "legend": legend},
            "panel": panel_html, "panel_text": panel_text,
            "record": table.public_record(),
            "events": [[n, what, text] for n, what, text in events[-EVENTS_SHOWN:]],
            "takeback": takeback,
            "can_take_back": table.takeback is None and not over and table.closed is None
            and any(
                p in table.humans for p, _ in table.history),
            "gone": [] if over else gone, "claims": claims,
            "claim_against": against, "claim_after": table.claim_after,
            "over": over, "stopped": table.stopped,
            "result": list(view.result_lines(state)) if state.is_over() else [],
        }


def _closing(request):
    # The server stops (vora_host.web.serve sets app.state.closing): streams end at once.
    closing = getattr(request.app.state, "closing", None)
    return bool(closing()) if callable(closing) else False


def _error(status, message):
    return JSONResponse({"error": message}, status_code=status,
                        headers={"Cache-Control": "no-store"})


def _private(response):
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


async def _body(request):
    if request.headers.get("x-vora-seat") != "1":
        raise Refused("a seat's requests come from its page (the X-Vora-Seat header is "
                      "missing)")
    if "application/json" not in request.headers.get("content-type", ""):
        raise Refused("a seat's requests are JSON (Content-Type: application/json)")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise Refused("the request is longer than %d bytes" % MAX_BODY)
    try:
        body = json.loads(raw.decode("utf-8") or "{}")
    except (UnicodeDecodeError, ValueError):
        raise Refused("the request's body is not JSON")
    if not isinstance(body, dict):
        raise Refused("the request's body is a JSON object")
    return body


NO_SEAT = "no such seat: the game may have ended, or the link is wrong"
REPLACED = ("this seat was opened in another browser since: reload this page to take it "
            "back")


def act(registry, seat, action, body):
    """A seat's request, played here: a POST of this server's, or one another server
    process relays (vora_host.web.relay). (HTTP status, JSON data): the seat's view, or
    {"error": why}. `action`: a POST's (move, takeback, answer, resign, claim, hint), or
    the relay's view, open and close (a stream opened and closed elsewhere)."""
    table, player = seat.table, seat.player
    if action == "view":
        return 200, seat_view(table, player, registry)
    if action == "open":
        if registry.relay is not None:
            registry.relay.opened(seat.digest, body.get("process"), 1)
        client = registry.new_client(seat)
        registry.opened_stream(seat)
        with table.lock:
            return 200, {"client": client, "seq": table.seq,
                         "view": seat_view(table, player, registry)}
    if action == "close":
        if registry.relay is not None:
            registry.relay.opened(seat.digest, body.get("process"), -1)
        registry.closed_streams(seat, 1)
        return 200, {}
    do = ACTIONS.get(action)
    if do is None:
        return 404, {"error": "a seat's requests are %s" % ", ".join(sorted(ACTIONS))}
    client = body.get("client")
    if seat.client and client != seat.client:
        return 409, {"error": REPLACED}
    try:
        do(seat, body)
    except Refused as exc:
        return 422, {"error": exc.reason}
    return 200, seat_view(table, player, registry)


def _move(seat, body):
    number = body.get("number")
    text = body.get("move")
    if not isinstance(text, str) or len(text) > 200:
        raise Refused("a move is text in the game's notation")
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        raise Refused("a move carries the number of moves its page saw (\"number\")")
    seat.table.play(text, player=seat.player, number=number)


def _takeback(seat, body):
    seat.table.request_takeback(seat.player)


def _answer(seat, body):
    yes = body.get("yes")
    if not isinstance(yes, bool):
        raise Refused("an answer is {\"yes\": true} or {\"yes\": false}")
    seat.table.answer_takeback(seat.player, yes)


def _resign(seat, body):
    seat.table.resign(seat.player)


def _claim(seat, body):
    what = body.get("what")
    if what not in ("win", "abort"):
        raise Refused("a claim is {\"what\": \"win\"} or {\"what\": \"abort\"}")
    seat.table.claim(seat.player, what)


def _hint(seat, body):
    number = body.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        raise Refused("a hint carries the number of moves its page saw (\"number\")")
    seat.table.hint(seat.player, number)


ACTIONS = {"move": _move, "takeback": _takeback, "answer": _answer, "resign": _resign,
           "claim": _claim, "hint": _hint}


class _FarSeat:
    """A seat of a table another server process plays (its home), reached through the
    registry's relay."""

    def __init__(self, digest, home):
        self.digest = digest
        self.home = home


def routes(registry, page):
    """The browser seats' routes; `page(name)` reads a static file of the web package."""

    def _seat_of(token):
        seat = registry.get(token)
        if seat is not None or registry.relay is None:
            return seat
        if not isinstance(token, str) or len(token) > 64:
            return None
        digest = token_hash(token)
        home = registry.relay.home_of(digest)
        return None if home is None else _FarSeat(digest, home)

    async def seat_of(request):
        if registry.relay is None:
            return registry.get(request.path_params["token"])
        try:
            return await asyncio.to_thread(_seat_of, request.path_params["token"])
        except Exception as exc:  # the database away: not "no such seat"
            raise HTTPException(503, "the tables' database cannot be reached now (%s): "
                                     "try again soon" % type(exc).__name__)

    async def answer(seat, action, body):
        """(status, data) of `action` played where the seat's table is."""
        if isinstance(seat, _FarSeat):
            from vora_host.web.relay import RelayError
            try:
                return await asyncio.to_thread(registry.relay.ask, seat.digest, action,
                                               body, seat.home)
            except RelayError as exc:
                return 503, {"error": str(exc)}
            except Exception as exc:  # the database away
                return 503, {"error": "the table cannot be reached now (%s): try again "
                                      "soon" % type(exc).__name__}
        return await asyncio.to_thread(act, registry, seat, action, body)

    def reply(status, data, seat=None):
        response = _error(status, data.get("error", "refused")) if status != 200 else \
            _private(JSONResponse(data))
        if isinstance(seat, _FarSeat):  # said, as a proxy says itself (docs/web.md)
            response.headers[RELAYED_HEADER] = "1"
        return response

    async def seat_page(request):
        if await seat_of(request) is None:
            return _private(HTMLResponse(
                "<!doctype html><title>No such seat</title><p>This link names no seat of a "
                "game being played here: the game may have ended, or the link is wrong. Ask "
                "for a new link.</p>", status_code=404))
        return _private(HTMLResponse(page("seat.html")))

    async def api_seat(request):
        seat = await seat_of(request)
        if seat is None:
            return _error(404, NO_SEAT)
        return reply(*await answer(seat, "view", {}), seat=seat)

    def poster(action):
        async def post(request):
            seat = await seat_of(request)
            if seat is None:
                return _error(404, NO_SEAT)
            try:
                body = await _body(request)
            except Refused as exc:
                return _error(422, exc.reason)
            return reply(*await answer(seat, action, body), seat=seat)
        return post

    async def events(request):
        seat = await seat_of(request)
        if seat is None:
            return _error(404, NO_SEAT)
        if isinstance(seat, _FarSeat):
            return await _far_events(request, seat)
        client = registry.new_client(seat)
        table = seat.table
        registry.opened_stream(seat)

        async def stream():
            seen = -1
            quiet = 0.0
            # The stream waits for the table on this event loop, not in a thread: a
            # thread each would take the pool every request of every seat needs (issue
            # 39: bench/bench_tables_load.py, tests/test_web_tables.py).
            changed, poke = _waker()
            table.listen(poke)
            registry.watch(poke)
            try:
                yield _hello(client)
                while not registry.closing.is_set() and not _closing(request):
                    if seat.client != client:
                        yield _replaced()
                        return
                    changed.clear()
                    if table.seq != seen:
                        seen = table.seq
                        quiet = 0.0
                        data = await asyncio.to_thread(seat_view, table, seat.player, registry)
                        yield _seat_event(seen, data)
                        if seat.client == client:
                            seat.sent = seen
                        continue
                    try:
                        await asyncio.wait_for(changed.wait(), WAIT_SECONDS)
                    except asyncio.TimeoutError:
                        # A page that has gone is found by the next write (a keepalive at
                        # the latest): Starlette's own disconnect listener reads the
                        # request's messages, so the stream does not (a second reader
                        # can wait forever, and the stream with it).
                        quiet += WAIT_SECONDS
                        if quiet >= KEEPALIVE_SECONDS:  # so that proxies keep the stream
                            quiet = 0.0
                            yield ": keepalive\n\n"
            finally:
                table.unlisten(poke)
                registry.unwatch(poke)
                registry.closed_streams(seat)

        return _private(StreamingResponse(stream(), media_type="text/event-stream"))

    async def _far_events(request, seat):
        # The seat's table is played by another server process: the stream is opened
        # there (counted as the seat's browser, the newest one winning) and fed the views
        # it publishes for this seat (vora_host.web.relay).
        relay = registry.relay
        status, opened = await answer(seat, "open", {"process": relay.worker})
        if status != 200:
            return _error(status, opened.get("error", "refused"))
        client = opened["client"]

        async def stream():
            changed, poke = _waker()
            relay.watch(seat.digest, poke)
            registry.watch(poke)
            seen, quiet, since_look = opened["seq"], 0.0, 0.0
            try:
                yield _hello(client)
                yield _seat_event(seen, opened["view"])
                changed.set()  # (a view published before the watch began)
                while not registry.closing.is_set() and not _closing(request):
                    looking = changed.is_set() or since_look >= FAR_LOOK_SECONDS
                    if looking:
                        changed.clear()
                        try:
                            row = await asyncio.to_thread(relay.view_text, seat.digest)
                            if row is not None and ("\n" in row[2] or "\r" in row[2]):
                                # Not as the home writes it (json.dumps writes no line
                                # break): written anew, so it cannot end the event early
                                # and start another; not JSON: the stream ends.
                                row = (row[0], row[1], json.dumps(json.loads(row[2])))
                            # Nothing new (the home stopping says so), or quiet a while:
                            # is the seat still played at its home?
                            new = row is not None and row[1] >= client and row[0] != seen
                            if (not new or since_look >= FAR_LOOK_SECONDS) and \
                                    await asyncio.to_thread(relay.home_of,
                                                            seat.digest) != seat.home:
                                # The home stopped (its table taken up elsewhere, or
                                # waiting in the log): the stream ends, and the page,
                                # connecting again, finds the table where it is played.
                                return
                        except Exception:  # the database away: the page connects again
                            return
                        since_look = 0.0
                        # (The home numbers its browsers in order: a row of an older one
                        # is from before this stream, a newer one has replaced it.)
                        if row is not None and row[1] > client:
                            yield _replaced()
                            return
                        if row is not None and row[1] == client and row[0] != seen:
                            seen, quiet = row[0], 0.0
                            # (The view as the home encoded it: the event's very bytes.)
                            yield _seat_event_text(seen, row[2])
                            continue
                    try:
                        await asyncio.wait_for(changed.wait(), WAIT_SECONDS)
                    except asyncio.TimeoutError:
                        quiet += WAIT_SECONDS
                        since_look += WAIT_SECONDS
                        if quiet >= KEEPALIVE_SECONDS:
                            quiet = 0.0
                            yield ": keepalive\n\n"
            finally:
                relay.unwatch(seat.digest, poke)
                registry.unwatch(poke)
                # Told to the home on a thread of its own: a stream ending waits for
                # nothing (the server may be stopping).
                threading.Thread(target=_close_far, args=(relay, seat, client),
                                 daemon=True).start()

        return _private(StreamingResponse(stream(), media_type="text/event-stream"))

    return [
        Route("/seat/{token}", seat_page),
        Route("/api/seat/{token}", api_seat),
        Route("/api/seat/{token}/events", events),
    ] + [Route("/api/seat/{token}/%s" % name, poster(name), methods=["POST"])
         for name in ACTIONS]


FAR_LOOK_SECONDS = 5.0  # a stream on a seat played elsewhere looks this often unasked (a
#                         home that stops tells it at once; one that dies does not)
RELAYED_HEADER = "X-Vora-Relayed"  # on an answer that another server process gave


def _close_far(relay, seat, client):
    try:
        relay.ask(seat.digest, "close", {"client": client, "process": relay.worker},
                  seat.home)
    except Exception:  # the home gone: it counts the seat's streams no more anyway
        pass


def _waker():
    """(an asyncio.Event, a poke() that sets it from any thread)."""
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()

    def poke():
        try:
            loop.call_soon_threadsafe(changed.set)
        except RuntimeError:
            pass  # the loop has closed: the server stopped
    return changed, poke


def _hello(client):
    return "event: hello\ndata: %s\n\n" % json.dumps({"client": client, "api": API_VERSION})


def _replaced():
    return "event: replaced\ndata: %s\n\n" % json.dumps({
        "error": "this seat was opened in another browser: reload this page to take it back"})


def _seat_event(seq, data):
    return _seat_event_text(seq, json.dumps(data))


def _seat_event_text(seq, text):
    # `text`: a view as json.dumps(view) gives it (a stream on a seat played elsewhere
    # sends it as the home wrote it, vora_host.web.relay.Relay.view_text).
    return "id: %d\nevent: seat\ndata: %s\n\n" % (seq, text)
