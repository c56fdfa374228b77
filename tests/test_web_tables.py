"""Tables the server plays itself (vora serve --tables, vora_host.web.tables): set up
through the API, played by browser seats and the server's bots, logged, and taken up again
from the log when the server starts again (issue 39)."""

import hashlib
import json
import threading
import time

import pytest
from starlette.testclient import TestClient

from vora_host.log.store import GameLog
from vora_host.play import saved
from vora_host.web.app import create_app
from vora_host.web.seats import SeatRegistry
from vora_host.web.tables import TableHost

HEADERS = {"X-Vora-Seat": "1"}
DEADLINE = 60.0


def _host(path, **kw):
    kw.setdefault("pause", 0.0)
    return TableHost(path, SeatRegistry(), **kw)


def _client(host, path):
    return TestClient(create_app(path, watch=False, tables=host), base_url="http://127.0.0.1")


def _token(link):
    return link.rsplit("/", 1)[1]


def _wait_turn(client, token, deadline=DEADLINE):
    """The seat's view once it is its turn or the game is over (the bot plays meanwhile)."""
    end = time.monotonic() + deadline
    while True:
        view = client.get("/api/seat/%s" % token).json()
        if view["your_turn"] or view["over"]:
            return view
        assert time.monotonic() < end, "the server's bot did not play within %s s" % deadline
        time.sleep(0.02)


def _create(client, body):
    answer = client.post("/api/tables", json=body, headers=HEADERS)
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_a_table_set_up_through_the_api_is_played_against_the_server_s_bot_and_logged(
        tmp_path):
    path = tmp_path / "games.db"
    host = _host(path)
    with _client(host, path) as client:
        made = _create(client, {"game": "vorcept", "seats": ["browser", "easy"], "seed": 7})
        assert made["game"] == "vorcept" and made["api"] == 1
        you, bot = made["seats"]
        assert you["kind"] == "browser" and you["link"].startswith("http://127.0.0.1/seat/")
        assert you["qr"].startswith("data:image/svg+xml")
        assert bot["kind"] == "easy" and "link" not in bot and "token" not in bot
        token = _token(you["link"])
        assert len(token) >= 32
        # Anyone may list the tables; nobody reads a token there.
        listed = client.get("/api/tables").json()
        assert [t["table"] for t in listed["tables"]] == [made["table"]]
        assert token not in str(listed)
        assert any(g["game"] == "gaia-vora" for g in listed["games"])
        played = 0
        while True:
            view = _wait_turn(client, token)
            if view["over"]:
                break
            answer = client.post("/api/seat/%s/move" % token, headers=HEADERS,
                                 json={"move": view["moves"][0]["move"],
                                       "number": view["number"]})
            assert answer.status_code == 200, answer.text
            played += 1
        assert played > 3
        # Over and logged: the table takes nothing more (a takeback would reopen a game
        # whose log is closed), and lets go of the positions it kept for takebacks.
        answer = client.post("/api/seat/%s/takeback" % token, headers=HEADERS, json={})
        assert answer.status_code == 422 and answer.json()["error"] == "the game is over"
        (hosted,) = host._tables
        assert hosted.done.wait(DEADLINE) and hosted.table.before == []
    glog = GameLog(path)
    try:
        info = glog.game(made["table"])
        assert info["source"] == saved.TABLE_SOURCE and info["status"] == "over"
        assert glog.verify(made["table"]).ok
        seats = [e["data"]["seats"] for e in glog.events(made["table"]) if e["kind"] == "table"]
        # The log keeps the token's SHA-256 only: a copy of the log gives nobody the seat.
        assert seats[0][0] == {"player": 0, "kind": "browser",
                               "token": hashlib.sha256(token.encode()).hexdigest()}
        assert token not in str(glog.events(made["table"]))
        assert seats[0][1]["player"] == 1 and seats[0][1]["kind"].startswith("search")
    finally:
        glog.close()


@pytest.mark.parametrize("body, words", [
    ({"game": "chess", "seats": ["browser", "easy"]}, "game: one of"),
    ({"game": "vorcept", "seats": ["browser"]}, "is played by"),
    ({"game": "vorcept", "seats": ["easy", "hard"]}, "at least one browser seat"),
    ({"game": "vorcept", "seats": ["browser", "search:99999"]}, "is not a seat"),
    ({"game": "vorcept", "seats": "browser,easy"}, "seats: a list"),
    ({"game": "vorcept", "seats": ["browser", "easy"], "seed": "7"}, "seed: a whole number"),
    ({"game": "vorcept", "seats": ["browser", "easy"], "seed": -1}, "seed:"),
    ({"game": "vorcept", "seats": ["browser", "easy"], "options": {"nope": 1}}, "options:"),
    ({"game": "vorcept", "seats": ["browser", "easy"], "token": "x"}, "not 'token'"),
])
def test_a_wrong_table_is_refused_with_what_is_wrong_and_nothing_is_logged(tmp_path, body,
                                                                          words):
    path = tmp_path / "games.db"
    with _client(_host(path), path) as client:
        answer = client.post("/api/tables", json=body, headers=HEADERS)
        assert answer.status_code == 422 and words in answer.json()["error"], answer.text
        assert client.get("/api/tables").json()["tables"] == []
    assert not path.exists() or GameLog(path).games() == []


def test_a_table_is_not_set_up_from_another_site_s_page_or_past_the_most(tmp_path):
    path = tmp_path / "games.db"
    host = _host(path, max_tables=1)
    with _client(host, path) as client:
        body = {"game": "vorcept", "seats": ["browser", "browser"]}
        # A form of another site cannot send the header; a page of this server does.
        answer = client.post("/api/tables", json=body)
        assert answer.status_code == 422 and "X-Vora-Seat" in answer.json()["error"]
        _create(client, body)
        answer = client.post("/api/tables", json=body, headers=HEADERS)
        assert answer.status_code == 503 and "--max-tables 1" in answer.json()["error"]
        assert answer.headers["retry-after"] == "60"
        assert len(client.get("/api/tables").json()["tables"]) == 1


def test_a_server_started_again_takes_its_tables_up_with_the_same_links(tmp_path):
    path = tmp_path / "games.db"
    host = _host(path)
    with _client(host, path) as client:
        made = _create(client, {"game": "gaia-vora", "seats": ["browser", "browser"],
                                "seed": 3})
        tokens = [_token(s["link"]) for s in made["seats"]]
        for k in range(4):
            player = client.get("/api/seat/%s" % tokens[0]).json()["to_act"]
            view = client.get("/api/seat/%s" % tokens[player]).json()
            assert view["your_turn"] and view["number"] == k
            answer = client.post("/api/seat/%s/move" % tokens[player], headers=HEADERS,
                                 json={"move": view["moves"][0]["move"], "number": k})
            assert answer.status_code == 200, answer.text
        before = client.get("/api/seat/%s" % tokens[0]).json()
    # The server stopped: the table waits in the log, interrupted.
    assert GameLog(path).game(made["table"])["status"] == "interrupted"
    again = _host(path)
    assert again.resume() == [(made["table"], "taken up again after 4 moves")]
    with _client(again, path) as client:
        view = client.get("/api/seat/%s" % tokens[0]).json()
        assert view["number"] == 4 and view["panel_text"] == before["panel_text"]
        assert client.get("/api/seat/%s" % ("x" * 32)).status_code == 404
        player = view["to_act"]
        view = client.get("/api/seat/%s" % tokens[player]).json()
        answer = client.post("/api/seat/%s/move" % tokens[player], headers=HEADERS,
                             json={"move": view["moves"][0]["move"], "number": 4})
        assert answer.status_code == 200, answer.text
    glog = GameLog(path)
    assert glog.game(made["table"])["move_count"] == 5 and glog.verify(made["table"]).ok
    # vora play never resumes it: the table is the server's.
    assert saved.saved_game(glog, "gaia-vora") is None
    with pytest.raises(saved.ResumeError, match="vora serve --tables"):
        saved.resumable(glog, made["table"])


def test_a_table_another_server_plays_is_left_to_it(tmp_path):
    path = tmp_path / "games.db"
    first = _host(path)
    with _client(first, path) as client:
        made = _create(client, {"game": "vorcept", "seats": ["browser", "browser"]})
        second = _host(path)
        # The first server still plays it: the second leaves it alone, and says so.
        done = second.resume()
        assert len(done) == 1 and done[0][0] == made["table"]
        assert "played by another program" in done[0][1]
        assert second.tables() == []


def test_the_bots_of_many_tables_play_at_once_and_each_game_verifies(tmp_path):
    path = tmp_path / "games.db"
    host = _host(path)
    with _client(host, path) as client:
        made = [_create(client, {"game": "vorcept", "seats": ["browser", "easy"], "seed": s})
                for s in range(3)]
        tokens = [_token(m["seats"][0]["link"]) for m in made]
        errors = []

        def play(token):
            try:
                while True:
                    view = _wait_turn(client, token)
                    if view["over"]:
                        return
                    answer = client.post("/api/seat/%s/move" % token, headers=HEADERS,
                                         json={"move": view["moves"][-1]["move"],
                                               "number": view["number"]})
                    assert answer.status_code == 200, answer.text
            except Exception as exc:  # named below, not lost in a thread
                errors.append(exc)
        threads = [threading.Thread(target=play, args=(t,)) for t in tokens]
        for t in threads:
            t.start()
        for t in threads:
            t.join(DEADLINE)
        assert not errors, errors
        assert not any(t.is_alive() for t in threads)
    glog = GameLog(path)
    for m in made:
        assert glog.game(m["table"])["status"] == "over" and glog.verify(m["table"]).ok


def test_seats_waiting_on_their_streams_hold_no_thread_of_the_server(tmp_path, monkeypatch):
    # Found by bench/bench_tables_load.py: each open seat stream waited for the table in a
    # thread of asyncio's default pool (a handful of threads: cores + 4), so with more
    # pages open than that, every request of every seat waited for a stream's wait to run
    # out (p95 1 s with 3 tables). With the waits made endless here, a request would never
    # be answered.
    import httpx2
    from vora_host.web import seats as web_seats
    from vora_host.web import serve
    monkeypatch.setattr(web_seats, "WAIT_SECONDS", 3600.0)
    path = tmp_path / "games.db"
    host = _host(path, max_tables=25)
    tokens = []
    for k in range(20):
        made = host.create({"game": "vorcept", "seats": ["browser", "browser"], "seed": k})
        tokens += [s["token"] for s in made["seats"]]
    sock = serve.bind("127.0.0.1", 0)
    server = serve.start_in_thread(sock, path, tables=host)
    base = serve.address_of(sock)
    opened, clients = [], {}

    def follow(token, ready):
        with httpx2.Client(base_url=base, timeout=None) as c, \
                c.stream("GET", "/api/seat/%s/events" % token) as response:
            for line in response.iter_lines():
                if line.startswith("data: ") and "client" in line and token not in clients:
                    clients[token] = json.loads(line[6:])["client"]
                if line.startswith("event: seat"):
                    ready.set()
    try:
        for token in tokens:  # 40 pages open, more than the pool's threads on any machine
            ready = threading.Event()
            threading.Thread(target=follow, args=(token, ready), daemon=True).start()
            opened.append(ready)
        assert all(r.wait(DEADLINE) for r in opened)
        with httpx2.Client(base_url=base, timeout=DEADLINE) as c:
            view = c.get("/api/seat/%s" % tokens[0]).json()
            answer = c.post("/api/seat/%s/move" % tokens[0], headers=HEADERS,
                            json={"move": view["moves"][0]["move"], "number": 0,
                                  "client": clients[tokens[0]]})
            assert answer.status_code == 200 and answer.json()["number"] == 1
    finally:
        host.registry.close()  # every stream ends at once, whatever its wait
        server.should_exit = True
        server.thread.join(DEADLINE)


def test_a_bot_that_fails_stops_its_table_and_nothing_else(tmp_path, monkeypatch):
    path = tmp_path / "games.db"
    host = _host(path)
    with _client(host, path) as client:
        made = _create(client, {"game": "vorcept", "seats": ["browser", "easy"], "seed": 2})
        token = _token(made["seats"][0]["link"])
        (hosted,) = host._tables
        bot = hosted.table.agents[1]

        def broken(state):
            raise RuntimeError("planted")
        monkeypatch.setattr(bot, "choose", broken)
        view = client.get("/api/seat/%s" % token).json()
        client.post("/api/seat/%s/move" % token, headers=HEADERS,
                    json={"move": view["moves"][0]["move"], "number": 0})
        assert hosted.done.wait(DEADLINE)
        view = client.get("/api/seat/%s" % token).json()
        assert view["stopped"] == "the server's bot failed" and view["over"]
        answer = client.post("/api/seat/%s/resign" % token, headers=HEADERS, json={})
        assert answer.status_code == 422 and "bot failed" in answer.json()["error"]
        # The server goes on: another table is set up and played.
        other = _create(client, {"game": "vorcept", "seats": ["browser", "browser"]})
        assert other["table"] != made["table"]
    glog = GameLog(path)
    assert glog.game(made["table"])["status"] == "interrupted"


def test_a_server_that_stops_ends_its_tables_at_once_not_at_their_next_look(tmp_path,
                                                                          monkeypatch):
    # A table's thread waits for its human seats LOOK_SECONDS at a time and looked at the
    # stop only between two waits: each server's stop waited up to a second for it. With
    # the waits made an hour long here, the stop must wake them, and each table is left in
    # the log as interrupted, for the next start.
    from vora_host.web import tables as web_tables
    monkeypatch.setattr(web_tables, "LOOK_SECONDS", 3600.0)
    path = tmp_path / "games.db"
    host = _host(path)
    made = [host.create({"game": "vorcept", "seats": ["browser", "browser"], "seed": k})
            for k in range(2)]
    stopper = threading.Thread(target=host.stop, daemon=True)
    stopper.start()
    stopper.join(DEADLINE)
    assert not stopper.is_alive()
    assert not [h.gid for h in host._tables if not h.done.is_set()], \
        "the server's stop waited for its tables' next look"
    glog = GameLog(path)
    assert [glog.game(m["table"])["status"] for m in made] == ["interrupted"] * 2


def test_tables_set_up_at_once_never_pass_the_most(tmp_path, monkeypatch):
    # Six requests at once for a server of two tables: the most was checked, then the
    # table made, so all six could pass the check before any was counted. Each request
    # here waits, once past the check, until every other has passed it or been refused.
    from vora_host.web import tables as web_tables
    host = _host(tmp_path / "games.db", max_tables=2)
    asked = threading.Condition()
    counts = {"in": 0, "refused": 0}
    real = host._live_log

    def held(*args, **kwargs):
        with asked:
            counts["in"] += 1
            asked.notify_all()
            assert asked.wait_for(lambda: counts["in"] + counts["refused"] == 6, DEADLINE)
        return real(*args, **kwargs)
    monkeypatch.setattr(host, "_live_log", held)
    made = []

    def create():
        try:
            made.append(host.create({"game": "vorcept", "seats": ["browser", "browser"]}))
        except web_tables.TooMany:
            with asked:
                counts["refused"] += 1
                asked.notify_all()
    threads = [threading.Thread(target=create) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLINE)
    host.stop()
    assert len(made) == 2 and counts["refused"] == 4
