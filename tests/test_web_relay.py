"""Tables over several server processes on one PostgreSQL log (issue 39: vora serve
--tables --workers N, or several servers behind a proxy): a seat's request reaching a
server that does not play its table is relayed through PostgreSQL to the one that does
(vora_host.web.relay), and answered as that one answers it."""

import json
import queue
import signal
import subprocess
import sys
import threading
import time

import httpx2
import pytest

from vora_host.log.store import GameLog
from vora_host.web import serve
from vora_host.web.relay import Relay
from vora_host.web.seats import SeatRegistry
from vora_host.web.tables import TableHost

from pgserver import pg_server, pg_url  # noqa: F401 (fixtures)

HEADERS = {"X-Vora-Seat": "1"}
DEADLINE = 60.0


class Server:
    """One `vora serve --tables` process's worth, in this process: its tables, its seats
    with their relay, its web server on a port of its own."""

    def __init__(self, url):
        registry = SeatRegistry()
        registry.attach(Relay(url).start())
        self.tables = TableHost(url, registry, pause=0.0)
        self.sock = serve.bind("127.0.0.1", 0)
        self.server = serve.start_in_thread(self.sock, url, tables=self.tables)
        self.base = serve.address_of(self.sock)
        self.http = httpx2.Client(base_url=self.base, timeout=DEADLINE)

    def stop(self):
        self.http.close()
        self.server.should_exit = True
        self.server.thread.join(DEADLINE)


class Stream:
    """A seat's event stream, read in a thread: its events in a queue."""

    def __init__(self, base, token):
        self.events = queue.Queue()
        self.client = None
        ready = threading.Event()

        def read():
            with httpx2.Client(base_url=base, timeout=None) as c, \
                    c.stream("GET", "/api/seat/%s/events" % token) as response:
                if response.status_code != 200:
                    self.events.put(("error", response.status_code))
                    ready.set()
                    return
                kind = None
                for line in response.iter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        data = json.loads(line[6:])
                        if kind == "hello":
                            self.client = data["client"]
                            ready.set()
                        self.events.put((kind, data))
                        if kind == "replaced":
                            return
            self.events.put(("end", None))  # the server ended the stream
        threading.Thread(target=read, daemon=True).start()
        assert ready.wait(DEADLINE), "the stream did not open"

    def until(self, check, what):
        end = time.monotonic() + DEADLINE
        while True:
            try:
                kind, data = self.events.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError("the stream never brought %s" % what)
            if check(kind, data):
                return data


def _token(link):
    return link.rsplit("/", 1)[1]


@pytest.fixture
def two_servers(pg_url):
    GameLog(pg_url).close()  # the log's schema, before the servers look
    servers = [Server(pg_url), Server(pg_url)]
    yield servers
    for s in servers:
        s.tables.registry.close()
    for s in servers:
        s.stop()


def test_a_seat_is_played_through_a_server_that_does_not_play_its_table(two_servers, pg_url):
    home, other = two_servers
    made = home.http.post("/api/tables", headers=HEADERS, json={
        "game": "vorcept", "seats": ["browser", "browser"], "seed": 5})
    assert made.status_code == 201, made.text
    first, second = (_token(s["link"]) for s in made.json()["seats"])
    # The seat's page and view answer at the other server, as at its home.
    assert other.http.get("/seat/%s" % first).status_code == 200
    there, here = (_timeless(s.http.get("/api/seat/%s" % first).json())
                   for s in (home, other))
    assert here == there and here["your_turn"] and here["you"] == 0
    # Each seat's stream open at the other server; a move posted there is played at home.
    streams = [Stream(other.base, first), Stream(other.base, second)]
    for stream in streams:
        stream.until(lambda k, d: k == "seat", "the seat's first view")
    move = here["moves"][0]["move"]
    answer = other.http.post("/api/seat/%s/move" % first, headers=HEADERS,
                             json={"move": move, "number": 0, "client": streams[0].client})
    assert answer.status_code == 200 and answer.json()["number"] == 1, answer.text
    assert home.tables.tables()[0]["number"] == 1
    seen = streams[1].until(lambda k, d: k == "seat" and d["number"] == 1,
                            "the other seat's view after the move")
    assert seen["your_turn"] and seen["record"]["moves"] == [move]
    # The same refusals, said by the home: a stale move, a move out of turn.
    stale = other.http.post("/api/seat/%s/move" % second, headers=HEADERS,
                            json={"move": seen["moves"][0]["move"], "number": 0,
                                  "client": streams[1].client})
    assert stale.status_code == 422 and "move" in stale.json()["error"]
    wrong = other.http.post("/api/seat/%s/move" % first, headers=HEADERS,
                            json={"move": move, "number": 1, "client": streams[0].client})
    assert wrong.status_code == 422
    # The seat opened again at its home: the newest browser wins, the older one is told,
    # and its client's moves are refused.
    newer = Stream(home.base, first)
    streams[0].until(lambda k, d: k == "replaced", "the older browser told it was replaced")
    old = other.http.post("/api/seat/%s/takeback" % first, headers=HEADERS,
                          json={"client": streams[0].client})
    assert old.status_code == 409
    # A move at home reaches the stream open elsewhere.
    reply = seen["moves"][0]["move"]
    answer = home.http.post("/api/seat/%s/move" % second, headers=HEADERS,
                            json={"move": reply, "number": 1, "client": streams[1].client})
    assert answer.status_code == 200, answer.text
    streams[1].until(lambda k, d: k == "seat" and d["number"] == 2, "the seat's own move")
    newer.until(lambda k, d: k == "seat" and d["number"] == 2, "the move at the home")
    # Each server's list of tables holds the other's too.
    for s in (home, other):
        listed = s.http.get("/api/tables").json()["tables"]
        assert [t["table"] for t in listed] == [made.json()["table"]]
        assert listed[0]["number"] == 2 and [x["kind"] for x in listed[0]["seats"]] == \
            ["browser", "browser"]
    # The database away: said as such, never as a seat that is not there.
    import psycopg

    def away(digest):
        raise psycopg.OperationalError("the server closed the connection")
    relay = other.tables.registry.relay
    real, relay.home_of = relay.home_of, away
    try:
        for answer in (other.http.get("/api/seat/%s" % first),
                       other.http.post("/api/seat/%s/move" % first, headers=HEADERS,
                                       json={"move": move, "number": 2})):
            assert answer.status_code == 503 and "cannot be reached" in answer.json()["error"]
    finally:
        relay.home_of = real
    # What no server plays is no seat anywhere.
    assert other.http.get("/api/seat/%s" % ("x" * 32)).status_code == 404
    assert other.http.post("/api/seat/%s/move" % ("x" * 32), headers=HEADERS,
                           json={"move": move, "number": 0}).status_code == 404


def test_a_relayed_view_with_line_breaks_is_still_one_event(two_servers, monkeypatch):
    # The other server sends the view's text as the home wrote it in the database; a row
    # not as the home writes it (JSON over several lines) must not end the event early
    # and start another: it is written anew, on one line.
    from types import SimpleNamespace

    from vora_host.web import relay as web_relay
    monkeypatch.setattr(web_relay, "json", SimpleNamespace(
        dumps=lambda value, **kw: json.dumps(value, indent=1), loads=json.loads))
    home, other = two_servers
    made = home.http.post("/api/tables", headers=HEADERS, json={
        "game": "vorcept", "seats": ["browser", "browser"], "seed": 6})
    assert made.status_code == 201, made.text
    first, second = (_token(seat["link"]) for seat in made.json()["seats"])
    far = Stream(other.base, second)  # its views come from the home's rows
    far.until(lambda k, d: k == "seat", "the second seat's first view")
    near = Stream(home.base, first)
    view = near.until(lambda k, d: k == "seat", "the first seat's view")
    answer = home.http.post("/api/seat/%s/move" % first, headers=HEADERS, json={
        "move": view["moves"][0]["move"], "number": 0, "client": near.client})
    assert answer.status_code == 200, answer.text
    after = far.until(lambda k, d: k == "seat" and d["number"] == 1, "the move's view")
    assert after["moves"] and after["seats"]


def test_a_view_relayed_to_the_other_server_reaches_its_stream_in_the_home_s_very_bytes(
        two_servers):
    # Issue 39: the home writes a seat's view as its own streams' events carry it
    # (json.dumps), and a stream open at the other server sends that text as it is,
    # neither decoded nor encoded again there: the event's data is json.dumps of the view
    # the home drew, the same bytes a stream at the home would send.
    from vora_host.web.seats import _seat_event, token_hash
    home, other = two_servers
    made = home.http.post("/api/tables", headers=HEADERS, json={
        "game": "vorcept", "seats": ["browser", "browser"], "seed": 6})
    assert made.status_code == 201, made.text
    first, second = (_token(s["link"]) for s in made.json()["seats"])
    lines = queue.Queue()
    opened = threading.Event()

    def read():
        with httpx2.Client(base_url=other.base, timeout=None) as c, \
                c.stream("GET", "/api/seat/%s/events" % second) as response:
            event = []
            for line in response.iter_lines():
                opened.set()
                if line:
                    event.append(line)
                    continue
                lines.put(event)
                event = []
    threading.Thread(target=read, daemon=True).start()
    assert opened.wait(DEADLINE)
    near = Stream(home.base, first)
    view = near.until(lambda k, d: k == "seat", "the first seat's view")
    answer = home.http.post("/api/seat/%s/move" % first, headers=HEADERS, json={
        "move": view["moves"][0]["move"], "number": 0, "client": near.client})
    assert answer.status_code == 200, answer.text
    end = time.monotonic() + DEADLINE
    while True:
        event = lines.get(timeout=max(0.0, end - time.monotonic()))
        if len(event) == 3 and event[1] == "event: seat" \
                and json.loads(event[2][6:])["number"] == 1:
            break
    relay = other.tables.registry.relay
    while True:  # the event of the view the home published last (none came since: wait)
        published = relay.view_text(token_hash(second))
        if published is not None and published[0] == int(event[0][4:]):
            break
        newer = lines.get(timeout=max(0.0, end - time.monotonic()))
        if len(newer) == 3 and newer[1] == "event: seat":
            event = newer
    seq = int(event[0][4:])
    data = event[2][6:]
    assert published[0] == seq and published[2] == data
    drawn = json.loads(data)
    assert drawn["number"] == 1 and drawn["your_turn"] and drawn["you"] == 1
    assert "\n".join(event) + "\n\n" == _seat_event(seq, drawn)  # json.dumps's bytes
    assert data == json.dumps(drawn) and ", " in data


def _timeless(view):
    """A seat's view less how long each seat has been gone (read at two times)."""
    for gone in view["gone"]:
        gone.pop("seconds"), gone.pop("claim_in")
    return view


@pytest.mark.parametrize("game", ["boars", "tossing-tiger"])
def test_a_hidden_games_seat_through_the_other_server_is_that_seats_view_alone(
        two_servers, game):
    # The relay carries the view the home draws for the seat's player (which the re-deal
    # test of tests/test_web_seats.py holds to nothing of the others' secrets): byte for
    # byte the home's own answer, and each seat its own.
    home, other = two_servers
    made = home.http.post("/api/tables", headers=HEADERS, json={
        "game": game, "seats": ["browser"] * 3, "seed": 8})
    assert made.status_code == 201, made.text
    tokens = [_token(s["link"]) for s in made.json()["seats"]]
    far = [_timeless(other.http.get("/api/seat/%s" % t).json()) for t in tokens]
    near = [_timeless(home.http.get("/api/seat/%s" % t).json()) for t in tokens]
    assert far == near
    assert len(set(json.dumps(v["panel_text"]) for v in far)) == 3


def test_a_seat_opened_again_through_the_other_server_is_not_told_it_was_replaced(
        two_servers, monkeypatch):
    # The seat's page followed through the other server, then opened again there (a
    # reload): the new page may read the view the home published for the old one before
    # the home publishes its own; that old view must not tell it a newer browser came.
    from hashlib import sha256
    home, other = two_servers
    made = home.http.post("/api/tables", headers=HEADERS, json={
        "game": "vorcept", "seats": ["browser", "browser"], "seed": 5}).json()
    token = _token(made["seats"][0]["link"])
    digest = sha256(token.encode()).hexdigest()
    relay = home.tables.registry.relay
    older = Stream(other.base, token)
    end = time.monotonic() + DEADLINE
    while (relay.view(digest) or (0, 0))[1] != older.client:  # its view published
        assert time.monotonic() < end, "the home never published the seat's view"
        time.sleep(0.05)
    real = relay._write_view  # the home slow to publish the newer page's
    monkeypatch.setattr(relay, "_write_view", lambda d: (time.sleep(1.0), real(d)))
    newer = Stream(other.base, token)
    older.until(lambda k, d: k == "replaced", "the older page told a newer one came")
    view = newer.until(lambda k, d: k == "seat", "the newer page's first view")
    answer = other.http.post("/api/seat/%s/move" % token, headers=HEADERS, json={
        "move": view["moves"][0]["move"], "number": 0, "client": newer.client})
    assert answer.status_code == 200, answer.text
    kind = newer.until(lambda k, d: k == "replaced" or (k == "seat" and d["number"] == 1),
                       "the move's view")
    assert kind.get("number") == 1, "the newer page was told it was replaced"


def test_a_page_followed_through_the_other_server_is_let_go_when_the_home_stops(
        two_servers, monkeypatch):
    # The home stops (its tables wait in the log for the next server): a seat's stream
    # open at the other server ends, so that the page, connecting again, finds the table
    # where it is played next. At once: the home's stop tells it (the stream's own look
    # unasked, every FAR_LOOK_SECONDS, is for a home that died; an hour here).
    from vora_host.web import seats as web_seats
    monkeypatch.setattr(web_seats, "FAR_LOOK_SECONDS", 3600.0)
    home, other = two_servers
    made = home.http.post("/api/tables", headers=HEADERS, json={
        "game": "vorcept", "seats": ["browser", "browser"], "seed": 5}).json()
    token = _token(made["seats"][0]["link"])
    stream = Stream(other.base, token)
    stream.until(lambda k, d: k == "seat", "the seat's first view")
    home.tables.registry.close()
    home.stop()
    stream.until(lambda k, d: k == "end", "the stream's end")
    assert other.http.get("/api/seat/%s" % token).status_code == 404


def test_the_streams_a_process_gone_held_open_are_closed_at_the_home(two_servers,
                                                                    monkeypatch):
    # A seat's page followed through the other server, whose process then dies (its
    # connections to the database gone): the home no longer counts that page as the
    # seat's browser, and the others are told the player left, as when a page closes.
    from vora_host.web import relay as web_relay
    monkeypatch.setattr(web_relay, "SWEEP_SECONDS", 0.5)  # its sweep, 10 times as often
    home, other = two_servers
    made = home.http.post("/api/tables", headers=HEADERS, json={
        "game": "vorcept", "seats": ["browser", "browser"], "seed": 5}).json()
    token = _token(made["seats"][0]["link"])
    Stream(other.base, token).until(lambda k, d: k == "seat", "the seat's first view")
    view = home.http.get("/api/seat/%s" % token).json()
    assert view["seats"][0]["connected"] and not [g for g in view["gone"]
                                                  if g["player"] == 0]
    relay = other.tables.registry.relay
    relay._stop.set()  # the process dies: its listener's connection goes with it
    relay._listener.close()
    end = time.monotonic() + DEADLINE
    while True:
        view = home.http.get("/api/seat/%s" % token).json()
        if not view["seats"][0]["connected"]:
            break
        assert time.monotonic() < end, "the home still counts the gone process's page"
        time.sleep(0.2)
    assert [g["why"] for g in view["gone"] if g["player"] == 0] == ["left"]
    assert any("P0 Blue has left" in text for _, _, text in view["events"])


def test_a_relay_that_stops_ends_its_listener_at_once_not_at_its_next_look(pg_url,
                                                                          monkeypatch):
    # The listener waits for notifications LISTEN_POLL seconds at a time and looked at the
    # stop only between two waits: each server's stop (Ctrl-C, a worker ending) waited up
    # to a second for it. With the waits made an hour long here, the stop must wake it.
    from vora_host.web import relay as web_relay
    monkeypatch.setattr(web_relay, "LISTEN_POLL", 3600.0)
    GameLog(pg_url).close()
    relay = Relay(pg_url).start()
    stopper = threading.Thread(target=relay.stop, daemon=True)
    stopper.start()
    stopper.join(DEADLINE)
    assert not stopper.is_alive(), "the relay's stop waited for its listener's next look"
    assert not [t.name for t in relay._threads if t.is_alive()]


def test_a_home_that_does_not_answer_is_said_and_nothing_is_played(pg_url, monkeypatch):
    from vora_host.web import relay as web_relay
    monkeypatch.setattr(web_relay, "ASK_SECONDS", 1.0)
    GameLog(pg_url).close()
    home, other = Server(pg_url), Server(pg_url)
    try:
        made = home.http.post("/api/tables", headers=HEADERS, json={
            "game": "vorcept", "seats": ["browser", "browser"], "seed": 5}).json()
        token = _token(made["seats"][0]["link"])
        view = other.http.get("/api/seat/%s" % token).json()
        # The home's listener stops (as a process that hangs): its seats stay in the
        # database, and a request relayed to it gets no answer in time.
        relay = home.tables.registry.relay
        relay._stop.set()
        relay._threads[0].join(DEADLINE)  # the listener, once its wait runs out
        assert not relay._threads[0].is_alive()
        answer = other.http.post("/api/seat/%s/move" % token, headers=HEADERS, json={
            "move": view["moves"][0]["move"], "number": 0})
        assert answer.status_code == 503 and "does not answer" in answer.json()["error"]
        assert home.tables.tables()[0]["number"] == 0
    finally:
        for s in (home, other):
            s.tables.registry.close()
            s.stop()


def _serve_workers(pg_url, port=0):
    """`vora serve --tables --workers 2` on the log: (its process, its address) once a
    worker answers."""
    proc = subprocess.Popen([sys.executable, "-m", "vora_host", "serve", "--tables",
                             "--workers", "2", "--db", pg_url, "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    assert "with 2 server processes" in line, line + proc.stdout.read()
    base = line.split(" at ")[1].split()[0]
    end = time.monotonic() + DEADLINE
    while True:  # the workers start after the address is said
        try:
            httpx2.get(base + "api/tables", timeout=DEADLINE)
            return proc, base
        except httpx2.TransportError:
            assert time.monotonic() < end, "no worker answered"
            time.sleep(0.1)


def _stop(proc):
    """Ctrl-C, as a user stops it: the workers stop and leave their tables in the log."""
    proc.send_signal(signal.SIGINT)
    out = proc.communicate(timeout=DEADLINE)[0]
    assert proc.returncode == 0 and "Traceback" not in out, out


def test_vora_serve_with_two_workers_plays_every_seat_whichever_worker_answers(pg_url):
    # `vora serve --tables --workers 2`: requests on the one port reach either process;
    # a game of two browser seats is played through it, every request answered, the
    # server stopped and started again, and the same links play on; the log holds the
    # game, verified.
    GameLog(pg_url).close()
    proc, base = _serve_workers(pg_url)
    # A connection a request (as many browsers): each may reach either worker.
    options = dict(base_url=base, timeout=DEADLINE, headers={"Connection": "close"},
                   limits=httpx2.Limits(max_keepalive_connections=0))
    played, relayed, answers = 0, 0, 0
    try:
        with httpx2.Client(**options) as http:
            made = http.post("/api/tables", headers=HEADERS, json={
                "game": "vorcept", "seats": ["browser", "browser"], "seed": 3})
            assert made.status_code == 201, made.text
            gid = made.json()["table"]
            tokens = [_token(s["link"]) for s in made.json()["seats"]]
            for stop_at in (30, 60):
                while played < stop_at:
                    got = [http.get("/api/seat/%s" % t) for t in tokens]
                    relayed += sum(a.headers.get("X-Vora-Relayed") == "1" for a in got)
                    answers += len(got)
                    views = [a.json() for a in got]
                    assert all(v["number"] == played for v in views), views
                    assert not views[0]["over"]
                    p = views[0]["to_act"]
                    answer = http.post("/api/seat/%s/move" % tokens[p], headers=HEADERS,
                                       json={"move": views[p]["moves"][0]["move"],
                                             "number": played})
                    assert answer.status_code == 200, answer.text
                    relayed += answer.headers.get("X-Vora-Relayed") == "1"
                    answers += 1
                    played += 1
                if stop_at == 30:  # stopped and started again: one worker takes it up
                    _stop(proc)
                    with GameLog(pg_url) as log:
                        assert log.game(gid)["status"] == "interrupted"
                    proc, _ = _serve_workers(pg_url, int(base.rstrip("/").rsplit(":", 1)[1]))
        # Both workers answered: those of the other relayed to the table's own.
        assert 0 < relayed < answers, (relayed, answers)
    finally:
        if proc.poll() is None:
            _stop(proc)
    with GameLog(pg_url) as log:
        assert log.game(gid)["move_count"] == played
        assert log.verify(gid).ok


def test_tables_over_several_workers_on_an_sqlite_log_are_refused_saying_why(tmp_path):
    done = subprocess.run([sys.executable, "-m", "vora_host", "serve", "--tables",
                           "--workers", "2", "--db", str(tmp_path / "games.sqlite3"),
                           "--port", "0"], capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 2 and "needs a PostgreSQL log" in done.stderr, done.stderr
    assert not (tmp_path / "games.sqlite3").exists()  # nothing made
    done = subprocess.run([sys.executable, "-m", "vora_host", "serve", "--workers", "17"],
                          capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 2 and "1 to 16" in done.stderr
