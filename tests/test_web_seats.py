"""Browser seats (vora_host.web.seats): a player plays from a browser through the table,
with a token that reads only that seat's view (issue 39)."""

import copy
import json
import random
from importlib import resources

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.testclient import TestClient

from shared_rules import games as rules_games
from vora_host.log.live import LiveLog
from vora_host.log.store import GameLog
from vora_host.table import Table
from vora_host.web import seats as web_seats
from vora_host.web.seats import BrowserSeat, SeatRegistry, seat_view

HEADERS = {"X-Vora-Seat": "1"}


def _page(name):
    return (resources.files("vora_host.web") / "static" / name).read_text(encoding="utf-8")


def _app(registry):
    static = StaticFiles(directory=str(resources.files("vora_host.web") / "static"))
    return Starlette(routes=web_seats.routes(registry, _page) + [Mount("/static", static)])


def _table(game, players=2, seed=5, log=None):
    state = rules_games.load(game).new_game(players, seed)
    return Table(game, state, [BrowserSeat() for _ in range(players)], log=log)


@pytest.fixture
def two_seats():
    registry = SeatRegistry()
    table = _table("vorcept")
    tokens = registry.open(table, [0, 1])
    with TestClient(_app(registry)) as client:
        yield client, table, tokens


def test_a_token_reads_its_own_seat_and_nothing_else(two_seats):
    client, table, tokens = two_seats
    assert len(tokens[0]) >= 32 and tokens[0] != tokens[1]  # 192 bits each
    view = client.get("/api/seat/%s" % tokens[0]).json()
    assert view["you"] == 0 and view["your_turn"] and view["moves"]
    assert view["api"] == web_seats.API_VERSION
    other = client.get("/api/seat/%s" % tokens[1]).json()
    assert other["you"] == 1 and not other["your_turn"] and other["moves"] == []
    for wrong in ("nope", tokens[0][:-1], tokens[0] + "x", "x" * 500):
        answer = client.get("/api/seat/%s" % wrong)
        assert answer.status_code == 404 and "no such seat" in answer.json()["error"]
    page = client.get("/seat/%s" % tokens[0])
    assert page.status_code == 200 and "seat.js" in page.text
    assert page.headers["referrer-policy"] == "no-referrer"
    assert client.get("/seat/nope").status_code == 404


def test_a_move_is_refused_with_the_reason_the_terminal_gives(two_seats):
    client, table, tokens = two_seats
    seat0 = "/api/seat/%s" % tokens[0]
    seat1 = "/api/seat/%s" % tokens[1]
    move = table.state.legal_moves()[0]
    # Not from the seat's page: no header, or not JSON.
    answer = client.post(seat0 + "/move", json={"move": move, "number": 0})
    assert answer.status_code == 422 and "X-Vora-Seat" in answer.json()["error"]
    answer = client.post(seat0 + "/move", content="move=%s" % move, headers=dict(
        HEADERS, **{"Content-Type": "application/x-www-form-urlencoded"}))
    assert answer.status_code == 422 and "JSON" in answer.json()["error"]
    answer = client.post(seat0 + "/move", content=b"{" * 5000, headers=dict(
        HEADERS, **{"Content-Type": "application/json"}))
    assert answer.status_code == 422 and "longer than" in answer.json()["error"]
    # Out of turn, stale, illegal, malformed: each with its reason, nothing changed.
    answer = client.post(seat1 + "/move", json={"move": move, "number": 0}, headers=HEADERS)
    assert answer.status_code == 422 and answer.json()["error"] == "it is P0's turn, not P1's"
    answer = client.post(seat0 + "/move", json={"move": move, "number": 4}, headers=HEADERS)
    assert answer.status_code == 422 and "moved on" in answer.json()["error"]
    answer = client.post(seat0 + "/move", json={"move": "fly away", "number": 0},
                         headers=HEADERS)
    assert answer.status_code == 422 and answer.json()["error"].startswith("illegal move")
    answer = client.post(seat0 + "/move", json={"move": move, "number": "0"}, headers=HEADERS)
    assert answer.status_code == 422 and "number" in answer.json()["error"]
    assert table.number == 0
    answer = client.post(seat0 + "/move", json={"move": move, "number": 0}, headers=HEADERS)
    assert answer.status_code == 200 and answer.json()["number"] == 1
    assert table.moves == [move]


def test_a_takeback_asked_in_one_browser_is_answered_in_the_other(two_seats):
    client, table, tokens = two_seats
    seat0 = "/api/seat/%s" % tokens[0]
    seat1 = "/api/seat/%s" % tokens[1]
    client.post(seat0 + "/move", json={"move": table.state.legal_moves()[0], "number": 0},
                headers=HEADERS)
    answer = client.post(seat0 + "/takeback", json={}, headers=HEADERS)
    assert answer.status_code == 200 and answer.json()["takeback"]["waiting"] == [1]
    assert client.get(seat1).json()["takeback"]["asked_you"]
    answer = client.post(seat0 + "/answer", json={"yes": True}, headers=HEADERS)
    assert answer.status_code == 422  # P0 asked: P1 answers
    answer = client.post(seat1 + "/answer", json={"yes": True}, headers=HEADERS)
    assert answer.status_code == 200 and answer.json()["number"] == 0
    assert table.number == 0 and table.takeback is None


def test_moves_from_browsers_are_logged_before_they_are_acknowledged(tmp_path):
    db = tmp_path / "games.sqlite3"
    state = rules_games.load("boars").new_game(2, 3)
    live = LiveLog(db, "boars", 2, 3, state.options())
    table = Table("boars", state, [BrowserSeat(), BrowserSeat()], log=live)
    registry = SeatRegistry()
    tokens = registry.open(table, [0, 1])
    with TestClient(_app(registry)) as client:
        for n in range(12):
            player = table.state.to_act()
            move = random.Random(n).choice(table.state.legal_moves())
            answer = client.post("/api/seat/%s/move" % tokens[player],
                                 json={"move": move, "number": n}, headers=HEADERS)
            assert answer.status_code == 200
            with GameLog(db) as log:
                assert log.game(live.gid)["move_count"] == n + 1
    live.finish()
    with GameLog(db) as log:
        assert log.verify(live.gid).ok


def test_the_newest_browser_on_a_seat_wins_and_the_older_is_told(two_seats):
    client, table, tokens = two_seats
    registry_seat = None
    seat0 = "/api/seat/%s" % tokens[0]
    with client.stream("GET", seat0 + "/events") as first:
        lines = first.iter_lines()
        hello = _event(lines)
        assert hello[0] == "hello"
        older = hello[1]["client"]
        assert _event(lines)[0] == "seat"
        with client.stream("GET", seat0 + "/events") as second:
            newer = _event(second.iter_lines())[1]["client"]
            assert newer != older
            answer = client.post(seat0 + "/move", json={
                "move": table.state.legal_moves()[0], "number": 0, "client": older},
                headers=HEADERS)
            assert answer.status_code == 409 and "another browser" in answer.json()["error"]
            kind, data = _event(lines)
            while kind == "seat":  # the others' "is here" events come first
                kind, data = _event(lines)
            assert kind == "replaced" and "another browser" in data["error"]
    assert registry_seat is None


def _event(lines):
    """(event name, data) of the next server-sent event of a stream's lines."""
    name, data = None, None
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and name is not None:
            return name, data
    raise AssertionError("the stream ended")


@pytest.mark.parametrize("game", ["boars", "tossing-tiger"])
def test_a_seat_sees_nothing_of_the_others_secrets(game):
    # Re-deal every secret the seat's player cannot know and compare every byte the seat
    # receives (the view its page and its stream get): they must be the same.
    module = rules_games.load(game)
    rnd = random.Random(game)
    compared = redealt = 0
    for seed in range(3):
        players = 3
        table = _table(game, players, seed)
        for k in range(60):
            if table.state.is_over():
                break
            if k % 4 == 0:
                for p in range(players):
                    other = copy.copy(table)
                    other.state = module.determinize(table.state.view(p), rnd.randrange(1 << 32))
                    other.drawn_for_seats = {}  # (drawn afresh, not the table's drawings)
                    compared += 1
                    redealt += other.state.to_json() != table.state.to_json()
                    mine = json.dumps(seat_view(table, p))
                    theirs = json.dumps(seat_view(other, p))
                    assert mine == theirs, "seat %d of %s seed %d at move %d" % (p, game, seed, k)
            table.play(rnd.choice(table.state.legal_moves()))
    assert compared >= 30 and redealt >= compared // 2


def test_a_board_human_and_a_browser_play_one_game_at_the_board_s_table(tmp_path):
    # The LED board is a client of the same table: its human plays by keys, the browser
    # seat through the table (as its page does); the board says the browser's move and
    # refuses keys while the browser plays.
    from test_board_games import FakeClient
    from test_board_takeback import play_keys
    from vora_host.play.board import BoardGame
    from vora_host.table import Human
    db = tmp_path / "games.sqlite3"
    state = rules_games.load("vorcept").new_game(2, 8)
    live = LiveLog(db, "vorcept", 2, 8, state.options(), source="virtual board")
    events = []
    game = BoardGame("vorcept", state, [Human(), BrowserSeat()], FakeClient(), log=live,
                     bot_delay_ms=0, on_event=lambda what, text: events.append((what, text)))
    registry = SeatRegistry()
    tokens = registry.open(game.table, [1])
    with TestClient(_app(registry)) as client:
        game.tick(0)
        play_keys(game, game.state.legal_moves()[0], 100)
        assert game.table.number == 1
        view = client.get("/api/seat/%s" % tokens[1]).json()
        assert view["your_turn"] and view["number"] == 1
        k = game.mapping.key_path(game.state, game.state.legal_moves()[0])[0]
        game.key(k, True, 1000)
        assert events[-1] == ("refused", "wait: P1 plays in a browser")
        move = view["moves"][0]["move"]
        answer = client.post("/api/seat/%s/move" % tokens[1],
                             json={"move": move, "number": 1}, headers=HEADERS)
        assert answer.status_code == 200
        game.tick(1200)
        assert ("move", "P1 %s" % move) in events and game.state.to_act() == 0
    live.finish()
    with GameLog(db) as log:
        info = log.games()[0]
        assert info["move_count"] == 2 and log.verify(info["id"]).ok


def test_a_seat_whose_browser_went_lets_the_other_claim_from_its_page(tmp_path):
    # Issue 39: P1's page is gone; P0's page is told, and after claim_after may claim the
    # win (POST /claim), which the log keeps as abandoned with who claimed. (A page's stream
    # ending is the table's left(): tests/test_web_seats_browser.py closes a real page.)
    from test_table import Clock
    db = tmp_path / "games.sqlite3"
    state = rules_games.load("vorcept").new_game(2, 5)
    live = LiveLog(db, "vorcept", 2, 5, state.options())
    clock = Clock()
    table = Table("vorcept", state, [BrowserSeat(), BrowserSeat()], log=live, clock=clock)
    registry = SeatRegistry()
    tokens = registry.open(table, [0, 1])
    seat0, seat1 = ("/api/seat/%s" % tokens[p] for p in (0, 1))
    with TestClient(_app(registry)) as client:
        view = client.get(seat0).json()
        assert [(g["player"], g["why"], g["claim_in"]) for g in view["gone"]] == [
            (0, "not here yet", 120), (1, "not here yet", 120)]
        with client.stream("GET", seat0 + "/events") as mine:
            lines = mine.iter_lines()  # kept: a dropped line iterator closes the stream
            hello = _event(lines)[1]
            assert _event(lines)[0] == "seat"
            table.back(1, "browser")
            table.left(1)
            clock.now += 30
            view = client.get(seat0).json()
            assert [(g["player"], g["why"], g["claim_in"]) for g in view["gone"]] == [
                (1, "left", 90)]
            assert view["claims"] == [] and view["claim_after"] == 120
            assert any("P1 has left (reconnecting)" in e[2] for e in view["events"])
            body = {"what": "win", "client": hello["client"]}
            answer = client.post(seat0 + "/claim", json=body, headers=HEADERS)
            assert answer.status_code == 422 and answer.json()["error"] == (
                "P1 has been gone 30 s: the game may be claimed after 2 min")
            answer = client.post(seat0 + "/claim", json={"what": "everything",
                                                         "client": hello["client"]},
                                 headers=HEADERS)
            assert answer.status_code == 422 and "win" in answer.json()["error"]
            clock.now += 90
            view = client.get(seat0).json()
            assert view["claims"] == ["win", "abort"] and view["claim_against"] == 1
            answer = client.post(seat1 + "/claim", json={"what": "win"}, headers=HEADERS)
            assert answer.status_code == 422 and answer.json()["error"] == "P1 is not here"
            answer = client.post(seat0 + "/claim", json=body, headers=HEADERS)
            assert answer.status_code == 200
            view = answer.json()
            assert view["over"] and view["stopped"] == (
                "P1 left and did not come back: P0 claims the win")
            assert view["gone"] == [] and view["claims"] == []
            registry.closing.set()  # the server stops: its streams end
    live.finish()
    with GameLog(db) as log:
        info = log.game(live.gid)
        assert info["status"] == "abandoned" and info["result"]["end"] == view["stopped"]


@pytest.mark.parametrize("game", ["vorcept", "boars"])
def test_a_seats_board_and_panel_drawn_once_a_position_are_always_the_positions(game):
    # seat_view draws the board and panel once a position and seat (the POST's answer
    # and the mover's stream share it): after each move, a takeback and a resignation,
    # every seat's view is what a view drawn afresh shows.
    table = _table(game, players=3 if game == "boars" else 2, seed=9)
    rng = random.Random(3)

    def check():
        for p in range(len(table.agents)):
            cached = seat_view(table, p)
            table.drawn_for_seats = {}
            fresh = seat_view(table, p)
            assert (cached["panel"], cached["panel_text"], cached["board"]) == \
                (fresh["panel"], fresh["panel_text"], fresh["board"])
    check()
    for _ in range(6):
        p = table.to_act()
        table.play(rng.choice(table.state.legal_moves()), player=p, number=table.number)
        check()
    table.request_takeback(table.history[-1][0])
    for p in list(table.takeback["waiting"]) if table.takeback else []:
        table.answer_takeback(p, True)
        check()
    table.resign(table.to_act())
    check()
