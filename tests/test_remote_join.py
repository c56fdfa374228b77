"""`vora play --join LINK` (issue 39, "Remote play"): this terminal plays a seat of a table
on another computer's `vora play --web` through the seat API; that table is the referee,
and both logs hold the same game with the same digests."""

import json
import random
import re
import subprocess
import sys

import pytest

from shared_rules import games as rules_games
from vora_host.log.store import GameLog
from vora_host.remote import seat_client
from vora_host.remote.join import RemoteLog, safe_text
from vora_host.remote.seat_client import RemoteError, check_view, parse_seat_url
from vora_host.table import Human, Table
from vora_host.web.seats import seat_view

from test_play_web_seats import DEADLINE, Typed

LINK = r"P1 Red plays in a browser: (http://127\.0\.0\.1:\d+/seat/\S+)"


def host_table(db):
    """The host's table the tests join: Vorcept, seed 6, P0 its random bot, P1 a seat
    for another computer (its link printed: LINK), logged in `db`."""
    return Typed("vorcept", "--seed", "6", "--bot", "0=random", "--web", "1", "--serve", "0",
                 "--db", str(db))


def _games(db):
    with GameLog(db) as log:
        return [(info, log.game(info["id"])) for info in log.games()]


def _moves_and_digests(db, gid):
    with GameLog(db) as log:
        return [(m["number"], m["move"], m["digest"]) for m in log.game(gid)["moves"]]


def test_a_whole_game_joined_from_another_terminal_is_the_same_in_both_logs(tmp_path):
    host_db, guest_db = tmp_path / "host.sqlite3", tmp_path / "guest.sqlite3"
    host = host_table(host_db)
    guest = None
    try:
        link = host.wait_for(LINK).group(1)
        guest = Typed("--join", link, "--db", str(guest_db))
        guest.wait_for(r"Vorcept at 127\.0\.0\.1:\d+: you play P1 Red\.")
        rnd = random.Random(6)
        typed = 0
        while True:
            # Each prompt of this seat's turn gets a move by its number in the list (the
            # first few: every position has at least one move).
            text = guest.text()
            if "The game is over" in text or "The game stopped" in text:
                break
            if text.count("P1> ") > typed:
                typed += 1
                guest.type("#%d" % rnd.randint(1, 2) if typed % 7 else "moves")
                continue
            guest.wait_for(r"P1> |The game is over|The game stopped", len(text))
        assert guest.finish() == 0
        assert host.finish() == 0
    finally:
        host.kill()
        if guest is not None:
            guest.kill()
    (host_info, _), = _games(host_db)
    (guest_info, _), = _games(guest_db)
    assert host_info["status"] == guest_info["status"] == "over"
    assert guest_info["source"].startswith("remote 127.0.0.1:")
    assert _moves_and_digests(host_db, host_info["id"]) == \
        _moves_and_digests(guest_db, guest_info["id"])
    with GameLog(guest_db) as log:
        assert log.verify(guest_info["id"]).ok
        assert log.game(guest_info["id"])["result"] == \
            GameLog(host_db).game(host_info["id"])["result"]


def test_a_joined_terminal_takes_back_asks_hints_and_leaves_and_its_copy_is_never_resumed(
        tmp_path):
    host_db, guest_db = tmp_path / "host.sqlite3", tmp_path / "guest.sqlite3"
    host = host_table(host_db)
    try:
        link = host.wait_for(LINK).group(1)
        guest = Typed("--join", link, "--db", str(guest_db))
        guest.wait_for(r"P1> ")
        guest.type("lava fly")  # not a move: the table's reason, nothing sent
        guest.wait_for(r"no move starts with|illegal move")
        guest.type("#1")
        guest.wait_for(r"P1> [\s\S]*P1> ")
        guest.type("hint")
        guest.wait_for(r"Hint: \S")
        guest.type("undo")
        guest.wait_for(r"taken back: P1 Red's turn")
        guest.type("q")
        guest.wait_for(r"You left the table; it goes on at 127\.0\.0\.1:\d+\. The same "
                       r"command joins again\.")
        assert guest.finish() == 0
        host.wait_for(r"P1 Red has left \(reconnecting\)")
        (info, _), = _games(guest_db)
        assert info["status"] == "interrupted"
        before = info["move_count"]
        # Joined again: the same copy goes on in this computer's log (not a second one).
        again = Typed("--join", link, "--db", str(guest_db))
        again.wait_for(r"P1> ")
        again.type("#1")
        again.wait_for(r"P1> [\s\S]*P1> ")
        again.type("q")
        assert again.finish() == 0
    finally:
        host.kill()
    (info, record), = _games(guest_db)
    assert info["status"] == "interrupted" and info["taken_back"] >= 1
    assert info["move_count"] >= before + 2  # its move and the bot's after it
    host_info, = (i for i, _ in _games(host_db))
    assert _moves_and_digests(guest_db, info["id"]) == \
        _moves_and_digests(host_db, host_info["id"])[:info["move_count"]]
    with GameLog(guest_db) as log:
        assert log.verify(info["id"]).ok
    # Never resumed here as this PC's game: the table elsewhere is its referee.
    from vora_host.play import saved
    with GameLog(guest_db) as log:
        assert saved.saved_game(log, "vorcept") is None
        with pytest.raises(saved.ResumeError) as refused:
            saved.resumable(log, info["id"])
    assert "another computer" in str(refused.value) and "--join" in str(refused.value)


def test_a_hidden_game_is_logged_here_once_it_is_over_with_the_table_s_digests(tmp_path):
    # The joined seat's view carries the game's record only when nothing is hidden any
    # more: during a Boars game none; at its end the whole record, logged here then.
    db = tmp_path / "guest.sqlite3"
    state = rules_games.load("boars").new_game(2, 11)
    table = Table("boars", state, [Human(), Human()], seed=11)
    log = RemoteLog(db, "table.example:8049", lambda text: pytest.fail(text))
    rnd = random.Random(11)
    while not table.is_over():
        view = json.loads(json.dumps(seat_view(table, 1)))
        assert check_view(view)["record"] is None
        log.follow(view["record"])
        table.play(rnd.choice(table.state.legal_moves()))
    view = check_view(json.loads(json.dumps(seat_view(table, 1))))
    log.follow(view["record"])
    assert log.end(None).startswith("Logged as game 1")
    with GameLog(db) as glog:
        info = glog.game(1)
        assert info["status"] == "over" and glog.verify(1).ok
        assert [m["digest"] for m in glog.game(1)["moves"]] == table.digests


def test_when_the_table_and_this_computer_disagree_the_log_stops_following_and_says_so(
        tmp_path):
    said = []
    state = rules_games.load("vorcept").new_game(2, 3)
    table = Table("vorcept", state, [Human(), Human()], seed=3)
    for _ in range(4):
        table.play(table.state.legal_moves()[0])
    record = table.public_record()
    record["digests"][2] = "0" * 16  # the table's third position is not this computer's
    log = RemoteLog(tmp_path / "guest.sqlite3", "table.example", said.append)
    log.follow(record)
    assert said == ["the game log here stops following the table: after move 3 the "
                    "table's digest is 0000000000000000, this computer's %s"
                    % table.digests[2]]
    assert log.moves == table.moves[:2]
    log.follow(table.public_record())  # nothing more once parted
    assert log.moves == table.moves[:2]


def test_a_seat_link_is_checked_and_the_table_s_answers_are_checked_field_by_field():
    base, token = parse_seat_url("http://192.168.1.20:8049/seat/%s" % ("A" * 32))
    assert base == "http://192.168.1.20:8049" and token == "A" * 32
    for bad in ("192.168.1.20:8049/seat/x", "http://host/seat/short", "ftp://h/seat/%s" % (
            "A" * 32), "http://host/api/seat/%s" % ("A" * 32), "http://host/seat/%s?x=1"
            % ("A" * 32), "", "http://ho st/seat/%s" % ("A" * 32)):
        with pytest.raises(ValueError) as refused:
            parse_seat_url(bad)
        assert "is not a seat's link" in str(refused.value)
    state = rules_games.load("vorcept").new_game(2, 3)
    table = Table("vorcept", state, [Human(), Human()], seed=3)
    good = json.loads(json.dumps(seat_view(table, 0)))
    assert check_view(good) is good
    for change, words in (({"api": 2}, "version 2"), ({"game": "chess"}, "does not know"),
                          ({"number": -1}, "number is negative"),
                          ({"your_turn": "yes"}, "your_turn is str"),
                          ({"moves": [{"move": 5}]}, "moves[0].move is int"),
                          ({"panel_text": "x" * 300_000}, "longer than"),
                          ({"events": [[1, "move"]]}, "events[0] is not"),
                          ({"claims": ["everything"]}, "claims[0]"),
                          ({"record": dict(table.public_record(), seed="six")},
                           "record.seed is not a whole number"),
                          ({"record": dict(table.public_record(), moves=["x"])},
                           "do not pair up")):
        with pytest.raises(RemoteError) as refused:
            check_view(dict(good, **change))
        assert words in str(refused.value), (change, str(refused.value))
    with pytest.raises(RemoteError):
        check_view([good])


def test_text_from_the_table_reaches_the_terminal_without_its_control_characters():
    hostile = "P1\x1b]0;owned\x07 Red\x1b[2J\r\nmoves\x9b31m\x00 done\n"
    assert safe_text(hostile) == "P1]0;owned Red[2J\nmoves31m done\n"


def test_a_wrong_link_an_unreachable_table_and_options_of_a_local_game_are_refused(tmp_path):
    vora = [sys.executable, "-m", "vora_host", "play"]

    def run(*args):
        done = subprocess.run(vora + list(args), capture_output=True, text=True,
                              timeout=DEADLINE, stdin=subprocess.DEVNULL)
        return done.returncode, re.sub(r"\s+", " ", done.stdout + done.stderr)

    status, text = run("--join", "nonsense", "--db", str(tmp_path / "g.sqlite3"))
    assert status == 2 and "'nonsense' is not a seat's link" in text
    status, text = run("--join", "http://127.0.0.1:9/seat/%s" % ("A" * 32), "--db",
                       str(tmp_path / "g.sqlite3"))
    assert status == 1 and "the table at 127.0.0.1:9 cannot be reached" in text
    status, text = run("--join", "http://127.0.0.1:9/seat/%s" % ("A" * 32), "--seed", "3",
                       "--players", "3")
    assert status == 2 and "leave out --seed, --players" in text
    assert not (tmp_path / "g.sqlite3").exists()  # nothing logged of a game never joined
    assert seat_client.API_VERSION == 1


def test_a_joined_terminal_is_offered_the_claim_when_the_other_seat_never_comes(tmp_path):
    # P0's link is never opened; P1 joins from a terminal. Once P0 has been away for
    # --claim-after (10 s), the terminal asks by itself (the table says nothing then: it
    # reads the view again when the time runs out), and a claim ends the game there.
    host_db, guest_db = tmp_path / "host.sqlite3", tmp_path / "guest.sqlite3"
    host = Typed("vorcept", "--seed", "6", "--web", "all", "--serve", "0", "--db",
                 str(host_db), "--claim-after", "10")
    try:
        link = host.wait_for(LINK).group(1)
        guest = Typed("--join", link, "--db", str(guest_db))
        guest.wait_for(r"Waiting for P0 Blue")
        asked = guest.wait_for(r"P0 Blue \(browser\) has not come back: type claim to claim "
                               r"the win, abort to stop the game, or Enter to wait on\.")
        guest.type("claim")
        guest.wait_for(r"The game stopped: P0 Blue left and did not come back: P1 Red claims "
                       r"the win", asked.end())
        assert guest.finish() == 0
        assert host.finish() == 0
    finally:
        host.kill()
    (info, _), = _games(host_db)
    assert info["status"] == "abandoned"
    assert info["result"]["end"] == "P0 Blue left and did not come back: P1 Red claims the win"


def test_a_joined_terminal_that_closes_leaves_the_table_and_keeps_its_copy(tmp_path):
    # The terminal closing (issue 43's hang-up) at a joined seat: as Ctrl-C, status 130,
    # the copy kept as interrupted, the table told the seat has left.
    import os
    from pathlib import Path
    from pty_screen import PtyScreen
    from test_hang_up import _hang_up
    host_db, guest_db = tmp_path / "host.sqlite3", tmp_path / "guest.sqlite3"
    host = host_table(host_db)
    try:
        link = host.wait_for(LINK).group(1)
        vora = str(Path(sys.executable).with_name("vora"))
        with PtyScreen([vora, "play", "--join", link, "--db", str(guest_db)], cols=80,
                       rows=24, cwd=os.getcwd()) as term:
            term.wait_for("P1>", DEADLINE)
            assert _hang_up(term) == 130
        host.wait_for(r"P1 Red has left \(reconnecting\)")
    finally:
        host.kill()
    (info, _), = _games(guest_db)
    assert info["status"] == "interrupted" and info["move_count"] >= 1
