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

from starlette.requests import Request
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

    def close_table(self, table):
        """Forget the seats of `table` (a table finished long ago): their links answer
        "no such seat" from now on."""
        with self._lock:
            for digest in [d for d, s in self._seats.items() if s.table is table]:
                del self._seats[digest]

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
        rows, legend = board_of(table.game, state, player)
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
        panel_html, panel_text = render_html_and_text(
            view.render(state, player, shown, table.history, width=PANEL_WIDTH,
                        palette=_palette(view)), PANEL_WIDTH)
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


def routes(registry, page):
    """The browser seats' routes; `page(name)` reads a static file of the web package."""

    def seat_of(request):
        return registry.get(request.path_params["token"])

    async def seat_page(request):
        if seat_of(request) is None:
            return _private(HTMLResponse(
                "<!doctype html><title>No such seat</title><p>This link names no seat of a "
                "game being played here: the game may have ended, or the link is wrong. Ask "
                "for a new link.</p>", status_code=404))
        return _private(HTMLResponse(page("seat.html")))

    async def api_seat(request):
        seat = seat_of(request)
        if seat is None:
            return _error(404, "no such seat: the game may have ended, or the link is wrong")
        data = await asyncio.to_thread(seat_view, seat.table, seat.player, registry)
        return _private(JSONResponse(data))

    def poster(action):
        async def post(request):
            seat = seat_of(request)
            if seat is None:
                return _error(404, "no such seat: the game may have ended, or the link is "
                                   "wrong")
            try:
                body = await _body(request)
                client = body.get("client")
                if seat.client and client != seat.client:
                    return _error(409, "this seat was opened in another browser since: "
                                       "reload this page to take it back")
                await asyncio.to_thread(action, seat, body)
            except Refused as exc:
                return _error(422, exc.reason)
            data = await asyncio.to_thread(seat_view, seat.table, seat.player, registry)
            return _private(JSONResponse(data))
        return post

    def move(seat, body):
        number = body.get("number")
        text = body.get("move")
        if not isinstance(text, str) or len(text) > 200:
            raise Refused("a move is text in the game's notation")
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise Refused("a move carries the number of moves its page saw (\"number\")")
        seat.table.play(text, player=seat.player, number=number)

    def takeback(seat, body):
        seat.table.request_takeback(seat.player)

    def answer(seat, body):
        yes = body.get("yes")
        if not isinstance(yes, bool):
            raise Refused("an answer is {\"yes\": true} or {\"yes\": false}")
        seat.table.answer_takeback(seat.player, yes)

    def resign(seat, body):
        seat.table.resign(seat.player)

    def claim(seat, body):
        what = body.get("what")
        if what not in ("win", "abort"):
            raise Refused("a claim is {\"what\": \"win\"} or {\"what\": \"abort\"}")
        seat.table.claim(seat.player, what)

    def hint(seat, body):
        number = body.get("number")
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise Refused("a hint carries the number of moves its page saw (\"number\")")
        seat.table.hint(seat.player, number)

    async def events(request):
        seat = seat_of(request)
        if seat is None:
            return _error(404, "no such seat: the game may have ended, or the link is wrong")
        client = registry.new_client(seat)
        table = seat.table
        seat.streams += 1
        if seat.streams == 1:
            table.back(seat.player, "browser")

        async def stream():
            seen = -1
            quiet = 0.0
            # The stream waits for the table on this event loop, not in a thread: a
            # thread each would take the pool every request of every seat needs (issue
            # 39: bench/bench_tables_load.py, tests/test_web_tables.py).
            loop = asyncio.get_running_loop()
            changed = asyncio.Event()

            def poke():
                try:
                    loop.call_soon_threadsafe(changed.set)
                except RuntimeError:
                    pass  # the loop has closed: the server stopped
            table.listen(poke)
            registry.watch(poke)
            try:
                yield "event: hello\ndata: %s\n\n" % json.dumps({"client": client,
                                                                  "api": API_VERSION})
                while not registry.closing.is_set() and not _closing(request):
                    if seat.client != client:
                        yield "event: replaced\ndata: %s\n\n" % json.dumps({
                            "error": "this seat was opened in another browser: reload this "
                                     "page to take it back"})
                        return
                    changed.clear()
                    if table.seq != seen:
                        seen = table.seq
                        quiet = 0.0
                        data = await asyncio.to_thread(seat_view, table, seat.player, registry)
                        yield "id: %d\nevent: seat\ndata: %s\n\n" % (seen, json.dumps(data))
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
                seat.streams -= 1
                if seat.streams == 0 and not registry.closing.is_set():
                    table.left(seat.player)

        return _private(StreamingResponse(stream(), media_type="text/event-stream"))

    return [
        Route("/seat/{token}", seat_page),
        Route("/api/seat/{token}", api_seat),
        Route("/api/seat/{token}/events", events),
        Route("/api/seat/{token}/move", poster(move), methods=["POST"]),
        Route("/api/seat/{token}/takeback", poster(takeback), methods=["POST"]),
        Route("/api/seat/{token}/answer", poster(answer), methods=["POST"]),
        Route("/api/seat/{token}/resign", poster(resign), methods=["POST"]),
        Route("/api/seat/{token}/claim", poster(claim), methods=["POST"]),
        Route("/api/seat/{token}/hint", poster(hint), methods=["POST"]),
    ]
