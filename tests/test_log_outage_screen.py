"""What the mirror and the board screen say while the game log is down (issue 38, bug 13).

During a PostgreSQL outage the mirror showed "mismatch: the log refused move 13 ... it is
writ": a problem of the game (it is not: the board and the PC agree), the words of the
log cut at twice the column's width, and kept on screen after the moves were written.
Now: the log is unreachable, the moves are kept, said whole (wrapped to the column) and
gone once everything is written.
"""

import re
from types import SimpleNamespace

from shared_rules import games
from vora_host.link.mirror import ansi_lines, mirror_renderable
from vora_host.log.live import LiveLog
from vora_host.log.store import GameLog
from vora_host.play.board import BoardGame
from vora_host.play.board_session import BoardGameCompanion
from vora_host.play.terminal import Human

from link_harness import Rig, random_moves
from pgserver import pg_server  # noqa: F401 (fixture)
from test_board_games import FakeClient

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def screen(client, width, compact):
    follower = SimpleNamespace(client=client, path="/dev/ttyACM0", status="open")
    lines = [ANSI.sub("", line) for line in ansi_lines(
        mirror_renderable(follower, width, meadow=False, compact=compact), width)]
    assert all(len(line) <= width for line in lines), lines
    return lines


def test_the_mirror_says_the_log_is_unreachable_whole_and_clears_it_once_written(pg_server):
    url = pg_server.new_database()
    log = GameLog(url, timeout=1)
    rig = Rig(log=log, game_seed=3)
    rig.run(300)
    rig.deal()
    rig.run(100)
    choose = random_moves(3)
    ui = rig.app.ui
    stopped = False
    try:
        for _ in range(3):
            rig.play(choose(ui.state))
            rig.run(20)
        assert rig.client.log_note() is None
        pg_server.stop()
        stopped = True
        for _ in range(2):
            rig.play(choose(ui.state))
            rig.run(20)
        c = rig.client
        assert c.moves == ui.moves and len(c.moves) == 5
        note = c.log_note()
        assert note == ("the game log is unreachable (the database server cannot be "
                        "reached): moves 4 to 5 are kept here and written to it as soon as it "
                        "works again"), note
        assert not c.problems  # not a problem of the game
        for width, compact in ((36, True), (80, False)):
            lines = screen(c, width, compact)
            text = " ".join(" ".join(lines).split())
            assert note in text, (width, lines)  # whole, wrapped
            assert "mismatch" not in text and "refused" not in text, lines
        pg_server.restart()
        stopped = False
        rig.play(choose(ui.state))
        rig.run(50)
        assert c.log_note() is None and log.pending == 0
        for width, compact in ((36, True), (80, False)):
            text = " ".join(screen(c, width, compact))
            assert "unreachable" not in text and "kept here" not in text, text
    finally:
        if stopped:
            pg_server.restart()
    full = log.game(rig.client.log_id)
    assert [m["move"] for m in full["moves"]] == ui.moves
    log.close()


def test_the_board_screen_drops_the_logs_trouble_once_everything_is_written(pg_server):
    url = pg_server.new_database()
    state = games.load("vorcept").new_game(2, seed=1)
    companion = BoardGameCompanion("vorcept", state, [Human(), Human()])
    companion.game = BoardGame("vorcept", state, [Human(), Human()], FakeClient(),
                               bot_delay_ms=0, on_event=companion._event)
    companion.log = live = LiveLog(url, "vorcept", 2, 1, state.options(),
                                   say=companion.log_said, timeout=1)
    stopped = False

    def shown():
        return " ".join(" ".join(ANSI.sub("", line) for line in companion.side_lines(60))
                        .split())

    try:
        play = state.clone()
        moves = []
        for n in (1, 2):
            move = play.legal_moves()[0]
            play.play(move)
            moves.append(move)
            live.moved(n, move, play.digest())
        pg_server.stop()
        stopped = True
        move = play.legal_moves()[0]
        play.play(move)
        moves.append(move)
        live.moved(3, move, play.digest())
        assert companion.log_in_trouble()
        assert "cannot write the game log" in shown()
        pg_server.restart()
        stopped = False
        move = play.legal_moves()[0]
        play.play(move)
        moves.append(move)
        live.moved(4, move, play.digest())
        assert not companion.log_in_trouble()
        assert "cannot write the game log" not in shown() and "game log:" not in shown()
    finally:
        if stopped:
            pg_server.restart()
    with GameLog(url, create=False) as fresh:
        (info,) = fresh.games()
        assert [m["move"] for m in fresh.game(info["id"])["moves"]] == moves
    live.log.close()
