"""A board in another home plays a seat (issue 39, "Remote play"): `vora play --join LINK
--port sim` copies the table there (vora_host.remote.remote_table) and its board plays at
the copy; the table there is the referee, and both logs hold the same game."""

import json
import re
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from shared_rules import games as rules_games
from shared_rules import vora
from vora_host.log.records import result_of
from vora_host.log.store import GameLog
from vora_host.remote.remote_table import CannotCopy, RemoteTable
from vora_host.remote.seat_client import Refused as TableRefused
from vora_host.table import Human, Refused, Table
from vora_host.web.seats import seat_view

from pty_screen import PtyScreen
from test_play_web_seats import DEADLINE, Typed
from test_remote_join import LINK, host_table

VORA = str(Path(sys.executable).with_name("vora"))


def _view(api):
    with urllib.request.urlopen(api, timeout=DEADLINE) as answer:
        return json.load(answer)


def _until(what, check, screen):
    """check()'s answer once it has one, the board's screen read meanwhile (a program
    whose terminal is not read stops when its output fills the pty)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "%s; the board's screen:\n%s" % (what, screen.text())
        screen.read_some(0.05)


def _logged(db):
    """How many live moves the guest's log holds (0 before its first)."""
    if not db.exists():
        return 0
    with GameLog(db) as log:
        games = log.games()
        return games[0]["move_count"] if games else 0


def _live(db):
    with GameLog(db) as log:
        info = log.games()[0]
        return info, [(m["number"], m["move"], m["digest"]) for m in log.game(info["id"])["moves"]]


def _board_move(board, api, guest_db):
    """The seat's move as the table offers it, made on the board (typed as a whole move on
    the virtual board's line: its keys pressed in turn), once it is the seat's turn and
    the board's copy has the table's moves (it follows the table's stream and logs each
    move as it takes it in: a move typed before would be for an older position, and
    refused); returns when the table has taken it."""
    view = _until("the seat's turn", lambda: (lambda v: v if v["your_turn"] else None)(
        _view(api)), board)
    _until("the board's copy caught up", lambda: _logged(guest_db) == view["number"], board)
    board.send(view["moves"][0]["move"] + "\r", 0)
    _until("the table took the board's move", lambda: _view(api)["number"] > view["number"],
           board)


def test_a_virtual_board_plays_a_seat_of_a_table_on_another_computer(tmp_path):
    host_db, guest_db = tmp_path / "host.sqlite3", tmp_path / "guest.sqlite3"
    host = host_table(host_db)
    try:
        link = host.wait_for(LINK).group(1)
        api = link.replace("/seat/", "/api/seat/")
        with PtyScreen([VORA, "play", "--join", link, "--port", "sim", "--db", str(guest_db),
                        "--save-dir", str(tmp_path / "save")], cols=100, rows=40,
                       env={"VORA_SIM_DEVICE": str(tmp_path / "tty")}) as board:
            board.wait_for("terminal mode", DEADLINE)  # the PC drives the board: moves go
            # (Said before the board's screen took the terminal over.)
            assert b"at 127.0.0.1" in board.raw and b"on this board: you play P1 Red" in \
                bytes(board.raw).replace(b"\r\n", b" ").replace(b"\n", b" ")
            for _ in range(6):
                _board_move(board, api, guest_db)
            # The host's bot's moves reach the board (shown there as they are made).
            view = _until("the seat's turn", lambda: (lambda v: v if v["your_turn"]
                                                      else None)(_view(api)), board)
            board.wait_for("to act", DEADLINE)
            # A takeback asked at the board goes to the table, and comes back.
            board.send("undo\r", 0)
            _until("taken back at the table", lambda: _view(api)["number"] < view["number"],
                   board)
            board.wait_for("taken back", DEADLINE)
            host.wait_for(r"taken back: P1 Red's turn")
            board.send("q", 0)
            board.wait_for("You left the table", DEADLINE)
            assert board.wait_exit(DEADLINE) == 0
        host.wait_for(r"P1 Red has left \(reconnecting\)")
        # Joined again on the board: its copy goes on in the same game of this log.
        with PtyScreen([VORA, "play", "--join", link, "--port", "sim", "--db", str(guest_db),
                        "--save-dir", str(tmp_path / "save")], cols=100, rows=40,
                       env={"VORA_SIM_DEVICE": str(tmp_path / "tty")}) as board:
            board.wait_for("terminal mode", DEADLINE)
            _board_move(board, api, guest_db)
            board.send("q", 0)
            assert board.wait_exit(DEADLINE) == 0
    finally:
        host.kill()
    guest_info, guest_moves = _live(guest_db)
    host_info, host_moves = _live(host_db)
    assert guest_info["source"].startswith("remote 127.0.0.1:")
    assert guest_info["status"] == "interrupted" and guest_info["taken_back"] >= 1
    with GameLog(guest_db) as log:
        assert len(log.games()) == 1  # joined twice: one copy
    # One game here, as the table's (the moves the copy had taken in when it left last).
    assert guest_moves == host_moves[:len(guest_moves)] and len(guest_moves) >= 11
    with GameLog(guest_db) as log:
        assert log.verify(guest_info["id"]).ok


class FakeClient:
    """A seat client whose table is a Table in this process (the server's part)."""

    def __init__(self, table, player):
        self.table, self.player = table, player
        self.host = "table.example"

    def view(self):
        return json.loads(json.dumps(seat_view(self.table, self.player)))

    def post(self, action, body=None):
        body = body or {}
        try:
            if action == "move":
                self.table.play(body["move"], player=self.player, number=body["number"])
            elif action == "takeback":
                self.table.request_takeback(self.player)
            elif action == "resign":
                self.table.resign(self.player)
        except Refused as exc:
            raise TableRefused(exc.reason, 422)
        return self.view()


def _tables():
    state = rules_games.load("vorcept").new_game(2, 4)
    there = Table("vorcept", state, [Human(), Human()], seed=4)
    client = FakeClient(there, 1)
    return there, client, RemoteTable(client, client.view())


def test_the_copy_plays_only_what_the_table_accepts_and_follows_its_moves_and_takebacks():
    there, client, here = _tables()
    assert here.you == 1 and here.humans == [0, 1]
    first = there.state.legal_moves()[0]
    with pytest.raises(Refused) as refused:  # out of turn: refused here, nothing sent
        here.play(first, player=1, number=0)
    assert refused.value.reason == "it is P0's turn, not P1's" and there.number == 0
    there.play(first, player=0, number=0)  # the other seat plays there
    here.sync(client.view())
    assert here.moves == [first] and here.digests == there.digests
    mine = here.state.legal_moves()[0]
    here.play(mine, player=1, number=1)
    assert there.moves == [first, mine] and here.moves == there.moves
    here.request_takeback(1)  # sent there: it waits for P0's answer, there and here
    assert there.takeback["waiting"] == [0] and here.takeback["waiting"] == [0]
    with pytest.raises(Refused):
        here.play(here.state.legal_moves()[0], player=1, number=2)
    there.answer_takeback(0, True)
    here.sync(client.view())
    assert there.moves == [first] and here.moves == [first] and here.takeback is None
    assert here.events_since(0)[0][-1][2].startswith("taken back")
    there.resign(0)
    here.sync(client.view())
    assert here.is_over() and here.stopped == "P0 resigned"


def test_the_board_says_the_other_seat_plays_at_another_computer():
    # The board at a copy of a table elsewhere: its keys are refused while the other seat
    # plays, in words that say where that seat is (not "in a browser": it may be the
    # table's own keyboard or board), and so is the hint key.
    from test_board_games import FakeClient as BoardClient
    from vora_host.play.board import BoardGame
    there, client, here = _tables()
    events = []
    board = BoardGame("vorcept", here.state, here.agents, BoardClient(), bot_delay_ms=0,
                      table=here, on_event=lambda what, text: events.append((what, text)))
    board.tick(0)
    k = board.mapping.key_path(here.state, here.state.legal_moves()[0])[0]
    board.key(k, True, 100)
    assert events[-1] == ("refused", "wait: P0 plays at another computer")
    assert board.request_hint(200) == "P0 plays at another computer: they ask for hints there"


def test_a_copy_that_disagrees_with_the_table_stops_and_says_after_which_move():
    there, client, here = _tables()
    for _ in range(3):
        there.play(there.state.legal_moves()[0])
    view = client.view()
    view["record"]["digests"][1] = "f" * 16
    here.sync(view)
    assert here.parted == ("after move 2 the table's digest is ffffffffffffffff, this "
                           "computer's %s" % there.digests[1])
    assert here.is_over() and here.moves == there.moves[:2]
    with pytest.raises(Refused):
        here.play(here.state.legal_moves()[0])


def test_a_hidden_game_is_not_copied_to_a_board():
    state = rules_games.load("boars").new_game(2, 4)
    there = Table("boars", state, [Human(), Human()], seed=4)
    client = FakeClient(there, 1)
    with pytest.raises(CannotCopy) as refused:
        RemoteTable(client, client.view())
    assert "hides each player's secrets" in str(refused.value)
    assert "vora play --join LINK" in str(refused.value)


def test_vora_on_a_virtual_board_plays_a_seat_of_a_table_on_another_computer(tmp_path):
    # The board keeps its own Vora (its keys, its previews) and the table there decides:
    # the other seat's moves come to the board as the PC's, the board's go to the table.
    host_db, guest_db = tmp_path / "host.sqlite3", tmp_path / "guest.sqlite3"
    host = Typed("vora", "--seed", "6", "--bot", "0=random", "--web", "1", "--serve", "0",
                 "--db", str(host_db))
    try:
        link = host.wait_for(r"P1[^\n]* plays in a browser: (http://127\.0\.0\.1:\d+/seat/\S+)"
                             ).group(1)
        api = link.replace("/seat/", "/api/seat/")
        with PtyScreen([VORA, "play", "--join", link, "--port", "sim", "--db", str(guest_db),
                        "--save-dir", str(tmp_path / "save")], cols=100, rows=40,
                       env={"VORA_SIM_DEVICE": str(tmp_path / "tty")}) as board:
            board.wait_for("the board is set to the table's game", DEADLINE)
            # (Said as the board takes the game: its screen shows it once drawn again.)
            board.wait_for("P0 South (plays at another computer)", DEADLINE)
            board.wait_for("S far", DEADLINE)  # its corner: the seat is played elsewhere
            for _ in range(4):
                _vora_board_move(board, api)
            board.send("q", 0)
            board.wait_for("You left the table", DEADLINE)
            assert board.wait_exit(DEADLINE) == 0
    finally:
        host.kill()
    guest_info, guest_moves = _live(guest_db)
    host_info, host_moves = _live(host_db)
    assert guest_info["source"].startswith("remote 127.0.0.1:")
    assert guest_moves == host_moves[:len(guest_moves)] and len(guest_moves) >= 4


def _last_moves(lines):
    """The moves under the mirror's "Last moves" (oldest first), without their player."""
    for row, line in enumerate(lines):
        col = line.find("Last moves")
        if col >= 0:
            break
    else:
        return []
    shown = []
    for line in lines[row + 1:]:  # each indented under the title (what follows is not)
        entry = re.match(r"  P\d (.+)", line[col:])
        if entry is None:
            break
        shown.append(entry.group(1).strip())
    return shown


def _vora_board_move(board, api, side="North", others=(), theirs=False):
    """The seat's move made on the virtual board (typed on its line: its keys pressed),
    once the board shows the table's game at the seat's turn (the seat sits at `side`;
    the screens of `others` are read meanwhile). `api`: the board's seat's, or with
    `theirs` another seat's, the board's move then the first the rules list."""
    def turn():
        for other in others:
            other.pump(0)
        view = _view(api)
        return view if view["your_turn"] != theirs else None
    view = _until("the seat's turn", turn, board)
    if theirs:
        move = sorted(rules_games.replay(dict(view["record"], seed=int(
            view["record"]["seed"]))).legal_moves())[0]
    else:
        move = view["moves"][0]["move"]
    # The board has the table's moves once its line says whose turn, which turn and which
    # part of it the table's moves lead to, and its mirror's last moves are the table's
    # last (a screen drawn before the board's own move came in may say the same turn).
    table = view["record"]["moves"]
    state = rules_games.replay(dict(view["record"], seed=int(view["record"]["seed"])))
    phase = {vora.PHASE_ACTION: "act", vora.PHASE_COLLECT: "collect",
             vora.PHASE_BONUS: "take a bonus"}[state.phase]
    expected = "%s to %s (turn %d)" % (side, phase, state.turn + 1)

    def caught_up():
        shown = _last_moves(board.lines())
        return expected in board.text() and shown == table[len(table) - len(shown):]
    _until("the board at the seat's turn with the table's moves", caught_up, board)
    board.send(move + "\r", 0)
    _until("the table took the board's move", lambda: _view(api)["number"] > view["number"],
           board)


def test_two_virtual_boards_at_two_homes_play_vora_through_one_server(tmp_path):
    # A table of `vora serve --tables` with two browser seats, each joined by a board:
    # every move is made by keys on one board and shown on the other; the three logs
    # hold the same game with the same digests.
    from test_web_tables_browser import _serve, _stop
    host_db = tmp_path / "host.sqlite3"
    proc, base, _ = _serve(host_db)
    try:
        request = urllib.request.Request(
            base + "api/tables", method="POST", headers={
                "X-Vora-Seat": "1", "Content-Type": "application/json"},
            data=json.dumps({"game": "vora", "seats": ["browser", "browser"],
                             "seed": 6}).encode())
        with urllib.request.urlopen(request, timeout=DEADLINE) as answer:
            links = [seat["link"] for seat in json.load(answer)["seats"]]
        boards = []
        for k, link in enumerate(links):
            boards.append(PtyScreen(
                [VORA, "play", "--join", link, "--port", "sim", "--db",
                 str(tmp_path / ("home%d.sqlite3" % k)), "--save-dir",
                 str(tmp_path / ("save%d" % k))], cols=100, rows=40,
                env={"VORA_SIM_DEVICE": str(tmp_path / ("tty%d" % k))}))
        south, north = (board.__enter__() for board in boards)
        try:
            # Each board set to the table's game: the other seat's corner marked "far"
            # (what the board said of it may be gone from the screen: the table's words
            # that the seats are here come after it).
            south.wait_for("N far", DEADLINE)
            north.wait_for("S far", DEADLINE)
            apis = [link.replace("/seat/", "/api/seat/") for link in links]
            while _view(apis[0])["number"] < 8:
                player = _view(apis[0])["to_act"]
                board, other = (south, north) if player == 0 else (north, south)
                _vora_board_move(board, apis[player], ("South", "North")[player], [other])
            # Each home has logged the table's last move before its player leaves (a board
            # quit at once may not have taken in the move the other had just made).
            made = _view(apis[0])["number"]
            for k, board in enumerate((south, north)):
                _until("home %d logged the table's %d moves" % (k, made), lambda: len(
                    _live(tmp_path / ("home%d.sqlite3" % k))[1]) >= made, board)
            for board in (south, north):
                board.send("q", 0)
                board.wait_for("You left the table", DEADLINE)
                assert board.wait_exit(DEADLINE) == 0
        finally:
            for board in boards:
                board.__exit__(None, None, None)
    finally:
        _stop(proc)
    host_info, host_moves = _live(host_db)
    for k in range(2):
        info, moves = _live(tmp_path / ("home%d.sqlite3" % k))
        assert info["source"].startswith("remote 127.0.0.1:")
        assert moves == host_moves[:len(moves)] and len(moves) >= 8


def test_a_copy_that_parts_from_the_table_logs_why(tmp_path):
    # The `parted` event once failed as an event kind the log did not know (a ValueError
    # out of the stream's thread): the copy must log it and stop as it says.
    from vora_host.remote.join import open_copy
    state = rules_games.load("vorcept").new_game(2, 4)
    there = Table("vorcept", state, [Human(), Human()], seed=4)
    client = FakeClient(there, 1)
    view = client.view()
    said = []
    live, _ = open_copy(tmp_path / "guest.sqlite3", "remote test", view["record"],
                        view["record"]["options"], said.append)
    here = RemoteTable(client, view, log=live)
    for _ in range(2):
        there.play(there.state.legal_moves()[0])
    view = client.view()
    view["record"]["digests"][1] = "f" * 16
    here.sync(view)
    assert here.parted is not None
    live.finish()
    with GameLog(tmp_path / "guest.sqlite3") as log:
        gid = log.games()[0]["id"]
        events = log.events(gid)
        assert [e["kind"] for e in events] == ["parted"]
        assert "after move 2" in events[0]["data"]["why"]
        assert log.games()[0]["status"] == "interrupted"


def test_a_view_the_stream_brings_as_the_seat_leaves_does_not_reopen_the_log(tmp_path):
    # CI: the table's next move came in on the stream's thread just as the board's seat
    # left; played into the copy after the log's last word, it reopened the game, which
    # the log then kept as "playing" (no process writing it) instead of "interrupted".
    from vora_host.remote.join import open_copy
    state = rules_games.load("vorcept").new_game(2, 4)
    there = Table("vorcept", state, [Human(), Human()], seed=4)
    client = FakeClient(there, 1)
    view = client.view()
    live, _ = open_copy(tmp_path / "guest.sqlite3", "remote test", view["record"],
                        view["record"]["options"], lambda text: None)
    here = RemoteTable(client, view, log=live)
    there.play(there.state.legal_moves()[0])
    here.sync(client.view())
    here.leave()  # the seat leaves, and then the copy's log ends (cmd_join_vora_board)
    live.ended("interrupted", result_of(here.state, "left the remote table"))
    there.play(there.state.legal_moves()[0])
    assert not here.sync(client.view())  # the stream's late view: not taken
    assert len(here.moves) == 1
    live.finish()
    with GameLog(tmp_path / "guest.sqlite3") as log:
        game = log.games()[0]
        assert game["status"] == "interrupted" and game["move_count"] == 1
        assert log.verify(game["id"]).ok


def test_an_answer_older_than_the_stream_does_not_bring_back_a_move_taken_back(monkeypatch):
    # The move's answer (a POST's view) came after the stream's newer view, a takeback
    # of that very move: taken as it came, it put the move back in the copy (a stress run).
    there, client, here = _tables()
    there.play(there.state.legal_moves()[0], player=0, number=0)
    here.sync(client.view())
    real_post = client.post

    def post(action, body=None):
        answer = real_post(action, body)  # the move is played there
        there.request_takeback(0)  # and taken back there before the answer arrives here
        there.answer_takeback(1, True)
        here.sync(client.view())  # the stream's newer view comes first
        return answer
    monkeypatch.setattr(client, "post", post)
    with pytest.raises(Refused) as refused:
        here.play(here.state.legal_moves()[0], player=1, number=1)
    assert "took it back" in refused.value.reason
    assert here.moves == there.moves and here.digests == there.digests


def test_vora_on_the_board_with_a_browser_seat_at_this_pcs_table(tmp_path):
    # `vora play vora --port sim --web 1`: the board plays South with its own Vora, North
    # plays in a browser; a table on this PC referees and logs the game, and the board
    # joins it through the table's own server. Moves by keys on the board and posted by the
    # browser alternate; the log holds the game, which verifies.
    db = tmp_path / "g.sqlite3"
    with PtyScreen([VORA, "play", "vora", "--port", "sim", "--web", "1", "--seed", "6",
                    "--db", str(db), "--save-dir", str(tmp_path / "save")], cols=100,
                   rows=40, env={"VORA_SIM_DEVICE": str(tmp_path / "tty")}) as board:
        said = rb"P1 North\S* plays in a browser: (http://127\.0\.0\.1:\d+/seat/\S+)"
        board.wait_until(lambda: re.search(said, bytes(board.raw)), "the browser seat's link",
                         DEADLINE)
        link = re.search(said, bytes(board.raw)).group(1).decode()
        api = link.replace("/seat/", "/api/seat/")
        board.wait_for("P1 North (plays in a browser)", DEADLINE)
        board.wait_for("N far", DEADLINE)  # the browser's corner on the board
        for turn in range(6):
            view = _view(api)
            if view["your_turn"]:  # the browser's move, posted as its page does
                before = view["number"]
                request = urllib.request.Request(
                    api + "/move", method="POST", data=json.dumps(
                        {"move": view["moves"][0]["move"], "number": before}).encode(),
                    headers={"X-Vora-Seat": "1", "Content-Type": "application/json"})
                urllib.request.urlopen(request, timeout=DEADLINE).close()
                _until("the table took the browser's move",
                       lambda: _view(api)["number"] > before, board)
            else:
                _vora_board_move(board, api, side="South", theirs=True)
        board.send("q", 0)
        assert board.wait_exit(DEADLINE) == 0
    with GameLog(db) as log:
        games = log.games()
        assert len(games) == 1 and games[0]["move_count"] >= 6
        assert games[0]["status"] == "interrupted"
        assert log.verify(games[0]["id"]).ok


def test_vora_on_the_board_with_browser_seats_plays_one_seat_at_the_board(tmp_path):
    # Every seat a browser's or a bot's: the board plays one seat at a table, said.
    import subprocess
    done = subprocess.run([VORA, "play", "vora", "--port", "sim", "--web", "1", "--bot",
                           "0=random", "--db", str(tmp_path / "g.sqlite3")],
                          capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 2
    assert "the board plays one seat, the one no browser (--web) and no bot" in done.stderr
    assert "here every seat is a browser's or a bot's" in done.stderr
    assert not (tmp_path / "g.sqlite3").exists()  # nothing logged, no server started
