"""Tables the server plays itself: `vora serve --tables` (docs/web.md, "Tables on the
server").

    host = TableHost(log_path, registry)        # registry: web.seats.SeatRegistry
    host.resume()                               # the unfinished tables of the log, again
    made = host.create({"game": "vorcept", "seats": ["browser", "hard"]})
    made["seats"][0]["token"]                   # the seat's link is /seat/TOKEN
    host.stop()                                 # the server stops: the tables wait in the log

A table here is a vora_host.table.Table whose seats are browsers (a phone at a table, a
computer elsewhere, `vora play --join`) and the server's bots, logged in the server's
own game log as it is played (source "web table"). A thread per table plays its bots'
moves; everything else comes through the seats' API (vora_host.web.seats). API, version
1, beside the seats' (JSON; every problem is {"error": "..."} with its HTTP status):

    GET  /api/tables      the games that can be set up, and the tables being played
                          ({"tables": [...]}: public, no token)
    POST /api/tables      {"game": "vorcept", "seats": ["browser", "hard"], "seed": N,
                          "options": {"name": value}}: a new table; its answer (201)
                          holds each browser seat's link, once: hand each to its player

A seat is "browser" or a bot's level (easy, normal, hard); a table has at least one
browser seat, and as many seats as the game takes players. The server plays at most
`max_tables` tables at once (vora serve --max-tables): past that a new one is refused
with a 503 that says why. A POST needs the header X-Vora-Seat: 1, as the seats' do, so a
page of another site cannot create tables.

Nothing is lost when the server stops or is killed: every move is in the log before the
seat's request is answered (the LiveLog), and the table's seats are in the log too, as
an event "table" with each browser seat's token as its SHA-256 (a copy of the log gives
nobody a seat). When the server starts again, resume() sets up every unfinished table
from the log, the same links play the same seats, and the bots go on. A table whose game
another process holds (another server on the same log) is left to it.
"""

import logging
import threading
import time

from shared_rules import games as rules_games

from vora_host import bots
from vora_host import games as host_games
from vora_host.argtypes import option_value
from vora_host.log.errors import GameHeld, GameLogError
from vora_host.log.records import result_of
from vora_host.play import saved
from vora_host.table import Human, Refused, Table
from vora_host.table.deal import bot_seeds, new_seed
from vora_host.web import MAX_TABLES
from vora_host.web.seats import BrowserSeat, token_hash

__all__ = ["TableHost", "TooMany", "NotLogged", "MAX_TABLES", "BOT_PAUSE",
           "parse_table_request", "routes"]

BOT_PAUSE = 0.6  # seconds between a bot's moves, so that the players follow them
FINISHED_KEPT = 100  # finished tables whose seats still answer (their end), newest kept
STOP_WAIT = 5.0  # seconds the server waits for the tables' bots when it stops
LOOK_SECONDS = 1.0  # a table waiting for its human seats looks again this often (stop()
#                     wakes it at once)
SEAT_KINDS = ("browser",) + bots.LEVEL_NAMES
_GAMES = []  # _games(), once made

log = logging.getLogger("vora.web")


def _games():
    """The games a table can be set up for, as the page offers them (made once)."""
    if _GAMES:
        return _GAMES
    out = []
    for name in rules_games.names():
        module = rules_games.load(name)
        out.append({"game": name, "title": module.TITLE,
                    "players": list(module.PLAYER_COUNTS),
                    "hidden": bool(module.HIDDEN_INFORMATION),
                    "options": [spec[0] for spec in module.OPTIONS]})
    _GAMES.extend(out)
    return _GAMES


def parse_table_request(body):
    """(module, game, seats, seed or None, options) from a POST's JSON object; Refused
    naming what is wrong."""
    if not isinstance(body, dict):
        raise Refused("a table is asked for with a JSON object")
    unknown = sorted(set(body) - {"game", "seats", "seed", "options", "client"})
    if unknown:
        raise Refused("a table takes game, seats, seed and options, not %s"
                      % ", ".join(repr(k)[:40] for k in unknown[:3]))
    game = body.get("game")
    names = rules_games.names()
    if not isinstance(game, str) or game not in names:
        raise Refused("game: one of %s" % ", ".join(names))
    module = rules_games.load(game)
    seats = body.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise Refused("seats: a list with a seat for each player, each %s"
                      % " or ".join(SEAT_KINDS))
    seats = [s.strip().lower() for s in seats]
    if len(seats) not in module.PLAYER_COUNTS:
        raise Refused("seats: %s is played by %s players, not %d" % (
            module.TITLE, ", ".join(str(n) for n in module.PLAYER_COUNTS), len(seats)))
    for s in seats:
        if s not in SEAT_KINDS:
            raise Refused("seats: %r is not a seat (each is %s)"
                          % (s[:40], " or ".join(SEAT_KINDS)))
    if "browser" not in seats:
        raise Refused("seats: a table here has at least one browser seat (a game of bots "
                      "alone is 'vora play --bots-only')")
    seed = body.get("seed")
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise Refused("seed: a whole number")
        try:
            rules_games.check_seed(module, seed)
        except ValueError as exc:
            raise Refused("seed: %s" % exc)
    given = body.get("options") or {}
    if not isinstance(given, dict) or len(given) > 20:
        raise Refused("options: an object of option names and values")
    options = {}
    for name, value in given.items():
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise Refused("options: %r's value is text or a whole number" % name[:40])
        try:
            options[name] = option_value(module, name, str(value))
        except ValueError as exc:
            raise Refused("options: %s" % exc)
    return module, game, seats, seed, options


class _Hosted:
    """One table the server plays: its Table, its log and the thread of its bots."""

    def __init__(self, table, live, tokens, stop, pause):
        self.table = table
        self.live = live
        self.tokens = tokens  # {player: token} of a table made here (not of a resumed one)
        self.stop = stop
        self.pause = pause
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name="vora-table-%s" % live.gid)

    @property
    def gid(self):
        return self.live.gid

    def _run(self):
        table = self.table
        try:
            while not self.stop.is_set() and not table.is_over():
                with table.lock:
                    seq = table.seq
                    player = table.to_act()
                    agent = table.agents[player] if player is not None else None
                    if table.takeback is not None or isinstance(agent, Human) \
                            or agent is None:
                        state = None
                    else:
                        state, number = table.state.clone(), table.number
                if state is None:
                    table.wait(seq, LOOK_SECONDS, self.stop)
                    continue
                if self.pause and self.stop.wait(self.pause):
                    break
                move = agent.choose(state)
                try:
                    table.play(move, player, number)
                except Refused:
                    pass  # the table changed meanwhile (a takeback, a resignation)
        except Exception:  # a bot's failure must not take the server with it
            log.exception("table %s: its bot failed; the table stops", self.gid)
            with table.lock:
                if not table.is_over():
                    table.stopped = "the server's bot failed"
                    self.live.ended("interrupted", result_of(table.state, table.stopped))
                    table.close("the game has stopped (the server's bot failed)")
                    table.say("resign", "the server's bot failed: the game stops here")
        finally:
            self._finish()

    def _finish(self):
        table = self.table
        with table.lock:
            if not table.is_over():
                # The server stops: the table waits in the log for its next start.
                table.close("the server stops: the game goes on when it starts again")
                self.live.ended("interrupted", result_of(table.state, "the server stopped"))
        message, logged = self.live.finish()
        if not logged:
            log.warning("table %s: %s", self.gid, message)
        self.done.set()


class TableHost:
    """The tables this server plays (see the module doc)."""

    def __init__(self, path, registry, max_tables=MAX_TABLES, pause=BOT_PAUSE, say=None):
        self.path = path
        self.registry = registry
        self.max_tables = max_tables
        self.pause = pause
        self.say = say or (lambda text: log.warning("%s", text))
        self._tables = []  # [_Hosted], oldest first
        self._making = 0  # tables being set up (create() under way), not listed yet
        self._lock = threading.Lock()
        self._stop = threading.Event()
        if registry.relay is not None:  # the other server processes list these too
            registry.relay.tables = self.tables

    # ---- reading

    def live_count(self):
        with self._lock:
            return self._count_live()

    def _count_live(self):
        return sum(1 for h in self._tables if not h.table.is_over())

    def tables(self):
        """The tables being played and the last ones finished, as anyone may see them."""
        from vora_host.bots import level_of, short_kind
        with self._lock:
            hosted = list(self._tables)
        out = []
        for h in reversed(hosted):
            t = h.table
            with t.lock:
                seats = []
                for p, agent in enumerate(t.agents):
                    kind = "browser" if isinstance(agent, Human) else (
                        level_of(t.game, agent.kind) or short_kind(t.game, agent.kind))
                    seats.append({"player": p, "label": t.view.seat_label(t.state, p, kind),
                                  "kind": kind, "here": p not in t.gone})
                out.append({"table": h.gid, "game": t.game, "title": t.view.rules.TITLE,
                            "seats": seats, "number": t.number, "over": t.is_over(),
                            "to_act": t.to_act()})
        return out

    def all_tables(self):
        """tables() with those the other server processes on the same PostgreSQL log
        play (vora_host.web.relay), newest first."""
        relay = self.registry.relay
        here = self.tables()
        if relay is None:
            return here
        return sorted(here + relay.tables_elsewhere(), key=lambda t: -t["table"])

    def games(self):
        return _games()

    # ---- making and taking up tables

    def create(self, body):
        """A new table from a request's JSON object: {"table": id, "game", "title",
        "seats": [{"player", "label", "kind", "token" (browser seats only)}]}. Refused
        when the request is wrong; TooMany past max_tables; NotLogged when the log
        cannot take the game (a table the log does not hold would not survive a restart)."""
        module, game, kinds, seed, options = parse_table_request(body)
        if self._stop.is_set():
            raise Refused("the server is stopping")
        # A place is taken under the lock before the table is made, so that requests at
        # once never pass the most together (a table counts as being made until create()
        # returns, listed or not: for that moment twice, so never over the most).
        with self._lock:
            if self._count_live() + self._making >= self.max_tables:
                raise TooMany("this server already plays %d tables, its most (vora serve "
                              "--max-tables %d): try again when one has ended"
                              % (self.max_tables, self.max_tables))
            self._making += 1
        try:
            return self._create(module, game, kinds, seed, options)
        finally:
            with self._lock:
                self._making -= 1

    def _create(self, module, game, kinds, seed, options):
        chosen = seed is not None
        if seed is None:
            seed = new_seed(module)
        try:
            state = module.new_game(len(kinds), seed, **options)
        except (TypeError, ValueError) as exc:
            raise Refused("the game cannot be set up so: %s" % exc)
        seeds = bot_seeds(module, len(kinds), seed, chosen)
        agents = [BrowserSeat() if k == "browser" else bots.make_bot(k, seeds[p], game)
                  for p, k in enumerate(kinds)]
        live = self._live_log(game, len(kinds), seed, state.options())
        tokens = {}
        hosted = self._open(game, state, agents, seed, live, tokens)
        players = [p for p, k in enumerate(kinds) if k == "browser"]
        tokens.update(self.registry.open(hosted.table, players))
        live.event("table", {"seats": [
            {"player": p, "kind": "browser", "token": token_hash(tokens[p])}
            if p in tokens else {"player": p, "kind": agents[p].kind}
            for p in range(len(agents))]})
        hosted.thread.start()
        return self._made(hosted)

    def _live_log(self, game, players, seed, options, gid=None, earlier=()):
        from vora_host.log.live import LiveLog
        live = LiveLog(self.path, game, players, seed, options, source=saved.TABLE_SOURCE,
                       say=self.say, game_id=gid, earlier=earlier)
        if live.log is None or live.gid is None or live.gid < 0:
            why = live.failing or live.broken or "it cannot be written now"
            live.finish()
            raise NotLogged("the game log cannot take a new table (%s): try again later"
                            % why)
        return live

    def _open(self, game, state, agents, seed, live, tokens):
        view = host_games.host_game(game).VIEW
        table = Table(game, state, agents, log=live, seed=seed, final=True,
                      label=lambda p: view.seat_label(table.state, p))
        hosted = _Hosted(table, live, tokens, self._stop, self.pause)
        with self._lock:
            self._tables.append(hosted)
            finished = [h for h in self._tables if h.done.is_set()]
            for h in finished[:max(0, len(finished) - FINISHED_KEPT)]:
                self._tables.remove(h)
                self.registry.close_table(h.table)
        return hosted

    def _made(self, hosted):
        t = hosted.table
        seats = []
        for p, agent in enumerate(t.agents):
            kind = "browser" if isinstance(agent, Human) else bots.level_of(t.game, agent.kind)
            seat = {"player": p, "label": t.view.seat_label(t.state, p, kind), "kind": kind}
            if p in hosted.tokens:
                seat["token"] = hosted.tokens[p]
            seats.append(seat)
        return {"table": hosted.gid, "game": t.game, "title": t.view.rules.TITLE,
                "seats": seats}

    def resume(self):
        """Set up again every unfinished table of the log (a restart): [(id, what was
        done)], each said too."""
        from vora_host.log.store import GameLog
        done = []
        try:
            glog = GameLog(self.path)
        except GameLogError as exc:
            self.say("the tables of the log cannot be taken up: %s" % exc)
            return done
        try:
            found = [g for status in saved.UNFINISHED for g in glog.games(status=status)
                     if g.get("source") == saved.TABLE_SOURCE]
            wanted = []
            for info in sorted(found, key=lambda g: g["id"]):
                elsewhere = glog.played_elsewhere(info["id"])
                if elsewhere is not None:
                    done.append((info["id"], "played by another program (%s, process %s)"
                                 % (elsewhere.get("host"), elsewhere.get("pid"))))
                    continue
                seats = [e["data"].get("seats") for e in glog.events(info["id"])
                         if e["kind"] == "table"]
                wanted.append((glog.game(info["id"]), seats[-1] if seats else None))
        except GameLogError as exc:
            self.say("the tables of the log cannot be taken up: %s" % exc)
            return done
        finally:
            glog.close()
        for info, seats in wanted:
            try:
                done.append((info["id"], self._resume_one(info, seats)))
            except GameHeld as exc:  # taken up meanwhile (another worker starting too)
                holder = exc.holder or {}
                done.append((info["id"], "played by another program (%s, process %s)"
                             % (holder.get("host"), holder.get("pid"))))
            except (saved.ResumeError, NotLogged, ValueError) as exc:
                done.append((info["id"], "left as it is: %s" % exc))
        relay = self.registry.relay
        elsewhere = [gid for gid, what in done if what.startswith("played by another")]
        if relay is not None and elsewhere:
            # Played by a process starting beside this one (--workers): served once it
            # has them, so that their seats are never "no such seat" here meanwhile.
            late = set(relay.wait_for_homes(elsewhere))
            done = [(gid, what + (" (which has not taken it up yet)" if gid in late
                                  else "")) for gid, what in done]
        for gid, what in done:
            self.say("table %d: %s" % (gid, what))
        return done

    def _resume_one(self, info, seats):
        gid = info["id"]
        if not isinstance(seats, list) or len(seats) != info["players"]:
            raise ValueError("the log does not say who sits where")
        module = rules_games.load(info["game"])
        _, moves = saved.replay(info)
        seed = int(info["seed"])
        fresh = rules_games.start({"game": info["game"], "players": info["players"],
                                   "seed": seed, "options": info["options"], "moves": []})
        seeds = bot_seeds(module, info["players"], seed, chosen=False)
        agents, hashes = [], {}
        for p, seat in enumerate(seats):
            if not isinstance(seat, dict) or seat.get("player") != p:
                raise ValueError("the log's seats are not in order")
            if seat.get("kind") == "browser":
                if not isinstance(seat.get("token"), str):
                    raise ValueError("seat %d has no token in the log" % p)
                agents.append(BrowserSeat())
                hashes[p] = seat["token"]
            else:
                agents.append(bots.make_bot(seat.get("kind"), seeds[p], info["game"]))
        live = self._live_log(info["game"], info["players"], seed, fresh.options(), gid=gid,
                              earlier=info["moves"])
        hosted = self._open(info["game"], fresh, agents, seed, live, {})
        hosted.table.replay_moves(moves)
        self.registry.open_hashed(hosted.table, hashes)
        hosted.thread.start()
        return "taken up again after %d moves" % len(moves)

    # ---- stopping

    def stop(self):
        """The server stops: the tables' bots end (STOP_WAIT seconds at most for them all:
        a bot in the middle of its search is left to the process's end), and each
        unfinished table is left in the log as interrupted, for the next start."""
        self._stop.set()
        with self._lock:
            hosted = list(self._tables)
        for h in hosted:
            h.table.wake()  # a table waiting for its human seats ends now
        deadline = time.monotonic() + STOP_WAIT
        for h in hosted:
            h.thread.join(max(0.0, deadline - time.monotonic()))


class TooMany(Refused):
    """The server plays as many tables as it may."""


class NotLogged(Refused):
    """The log cannot take a new table now."""


# ---------------------------------------------------------------- the routes

def _qr_svg(url):
    """The QR code of a seat's link as an SVG data: URI (an image: nothing in it runs), or
    None (segno missing)."""
    try:
        import segno
    except ImportError:
        return None
    return segno.make(url, error="m").svg_data_uri(scale=4, border=2)


def routes(host, page):
    """The tables' routes; `page(name)` reads a static file of the web package."""
    import asyncio

    from starlette.responses import HTMLResponse, JSONResponse
    from starlette.routing import Route

    from vora_host.web.seats import API_VERSION, _body, _error, _private

    async def tables_page(request):
        return _private(HTMLResponse(page("tables.html")))

    async def api_tables(request):
        if request.method == "POST":
            return await create(request)
        tables = await asyncio.to_thread(host.all_tables)
        return JSONResponse({"api": API_VERSION, "games": host.games(), "tables": tables,
                             "max_tables": host.max_tables, "seat_kinds": list(SEAT_KINDS)},
                            headers={"Cache-Control": "no-store"})

    async def create(request):
        try:
            body = await _body(request)
            made = await asyncio.to_thread(host.create, body)
        except TooMany as exc:
            response = _error(503, exc.reason)
            response.headers["Retry-After"] = "60"
            return response
        except NotLogged as exc:
            return _error(503, exc.reason)
        except Refused as exc:
            return _error(422, exc.reason)
        base = str(request.base_url)
        for seat in made["seats"]:
            token = seat.pop("token", None)
            if token is not None:
                seat["link"] = "%sseat/%s" % (base, token)
                seat["qr"] = _qr_svg(seat["link"])
        made["api"] = API_VERSION
        made["watch"] = "%sgame/%s" % (base, made["table"])
        return _private(JSONResponse(made, status_code=201))

    return [
        Route("/tables", tables_page),
        Route("/api/tables", api_tables, methods=["GET", "POST"]),
    ]
