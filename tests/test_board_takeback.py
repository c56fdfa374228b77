"""Takebacks and resumes of the games the PC runs on the board (issue #22): `undo` typed
at the PC takes back the last human turn of the PC's game (never the board's hidden Vora
game), the other humans agree (their corner on the board, or y on the PC), the log
records it; `vora play GAME` resumes the game from the log."""

import os
import subprocess
import sys
import time

from shared_rules import gaia_vora, vorcept
from vora_host.bots import RandomBot
from vora_host.games.base import CORNERS
from vora_host.log.live import LiveLog
from vora_host.log.store import GameLog
from vora_host.play.board import TAKEBACK_HOLD_MS, BoardGame
from vora_host.play.board_session import BoardGameCompanion
from vora_host.play.terminal import Human

from play_session import PlaySession
from test_board_games import FakeClient, enter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def board_game(tmp_path, name, module, agents, seed=5):
    state = module.new_game(2, seed)
    live = LiveLog(tmp_path / "games.sqlite3", name, 2, seed, state.options(),
                   source="virtual board")
    events = []
    game = BoardGame(name, state, agents, FakeClient(), log=live, bot_delay_ms=0, seed=seed,
                     on_event=lambda what, text: events.append((what, text)))
    return game, live, events


def play_keys(game, move, now):
    """Enter `move` with the board's keys, as enter() does on the pad, through key()."""
    state = game.state
    path = game.mapping.key_path(state, move)
    for k in path:
        game.key(k, True, now)
        game.key(k, False, now + 30)
    for _ in range(10):
        if game.pad.preview == move:
            break
        game.key(path[-1], True, now)
        game.key(path[-1], False, now + 30)
    confirm = game.pad.confirm_keys(state)
    if confirm:
        game.key(confirm[0], True, now + 100)
        game.key(confirm[0], False, now + 150)
    else:
        game.key(path[-1], True, now + 100)
        game.key(path[-1], False, now + 100 + 800)


def test_undo_from_the_pc_with_one_human_takes_back_their_turn_and_the_bots(tmp_path):
    game, live, events = board_game(tmp_path, "vorcept", vorcept, [Human(), RandomBot(3)])
    start = game.state.clone()
    game.tick(0)
    play_keys(game, game.state.legal_moves()[0], 100)
    game.tick(5000)  # the bot answers
    assert len(game.moves) >= 2
    played = len(game.moves)
    assert game.request_takeback(None, 6000)
    assert game.state == start and game.moves == [] and game.history == []
    assert events[-1][0] == "takeback" and "taken back: P0's turn 1" in events[-1][1]
    live.finish()
    with GameLog(tmp_path / "games.sqlite3") as log:
        info = log.game(1)
    assert info["move_count"] == 0 and info["taken_back"] == played


def test_nothing_to_take_back_before_a_human_moved(tmp_path):
    game, live, events = board_game(tmp_path, "vorcept", vorcept, [Human(), RandomBot(3)])
    assert not game.request_takeback(None, 0)
    assert events[-1] == ("refused", "nothing to take back: no human has moved yet")


def test_a_corner_held_asks_and_the_others_corner_agrees_any_other_key_refuses(tmp_path):
    game, live, events = board_game(tmp_path, "gaia-vora", gaia_vora, [Human(), Human()])
    start = game.state.clone()
    game.tick(0)
    p0 = game.state.to_act()
    while game.state.to_act() == p0:
        play_keys(game, game.state.legal_moves()[0], 100)
    asker = game.state.to_act()
    other = 1 - asker
    seat = {0: CORNERS["S"], 1: CORNERS["N"]}
    # The asker's corner held 2 s: asked; the other's answer waits.
    game.key(seat[asker], True, 1000)
    game.key(seat[asker], False, 1000 + TAKEBACK_HOLD_MS)
    assert game.takeback is not None and game.takeback["waiting"] == [other]
    assert "P%d agrees (their corner on the board, or y on the PC)" % other in events[-1][1]
    # Another key: not agreed.
    game.key(24, True, 4000)
    assert game.takeback is None and "nothing is taken back" in events[-1][1]
    assert game.moves  # still there
    # Asked again, and the other's corner agrees.
    game.key(seat[asker], True, 5000)
    game.key(seat[asker], False, 5000 + TAKEBACK_HOLD_MS)
    game.key(seat[other], True, 8000)
    assert game.takeback is None and game.state == start and game.moves == []
    assert "taken back" in events[-1][1]
    live.finish()
    with GameLog(tmp_path / "games.sqlite3") as log:
        assert log.game(1)["move_count"] == 0 and log.game(1)["taken_back"] >= 1


def test_bots_wait_while_a_takeback_waits(tmp_path):
    game, live, events = board_game(tmp_path, "vorcept", vorcept, [Human(), Human()])
    game.tick(0)
    play_keys(game, game.state.legal_moves()[0], 100)
    assert game.request_takeback(None, 200)  # from the PC: both humans are asked
    assert game.takeback["waiting"] == [0, 1]
    # The seat to move becomes a bot's: it does not move while the takeback waits.
    nxt = game.state.to_act()
    game.agents[nxt] = RandomBot(1)
    game.humans = [p for p in game.humans if p != nxt]
    before = len(game.moves)
    game.tick(10 ** 6)
    assert len(game.moves) == before


def test_the_companion_takes_undo_y_and_n_and_leaves_other_lines_to_the_board(tmp_path):
    state = vorcept.new_game(2, 5)
    companion = BoardGameCompanion("vorcept", state, [Human(), Human()])
    assert companion.command("undo") is None  # no game yet: the board's own
    companion.game = BoardGame("vorcept", state, [Human(), Human()], FakeClient(),
                               on_event=companion._event)
    companion.game.tick(0)
    assert companion.command("c3") is None and companion.command("press d4") is None
    assert companion.command("undo") == ["error nothing to take back: no human has moved yet"]
    play_keys(companion.game, companion.game.state.legal_moves()[0], 100)
    answer = companion.command("undo")
    assert answer and "the PC asks to take back P0's turn 1" in answer[0]
    assert companion.command("n") == ["P0 does not agree: nothing is taken back"]
    companion.command("undo")
    companion.command("y")
    assert companion.command("y")[0].startswith("taken back: P0's turn 1")
    assert companion.state == vorcept.new_game(2, 5) and companion.game.moves == []


def board_play(tmp_path, db, *options):
    return PlaySession(
        ["play", "vorcept", "--port", "sim", "--db", str(db), "--save-dir", str(tmp_path / "save"),
         "--human", "0", "--bot", "1=search:20", "--delay", "0"] + list(options))  # a quick bot: the takeback is the point


def test_vorcept_on_the_virtual_board_resumes_and_undo_reaches_the_pcs_game(tmp_path):
    db = tmp_path / "games.sqlite3"
    with board_play(tmp_path, db, "--seed", "4") as play:
        play.until_the_pcs_game("Vorcept")
        play.command("press d4")
        play.expect("board preview: pylon d4")
        play.command("hold d4 900")  # held, as the board asks, to play it
        play.expect("board move: P0 pylon d4")
        play.expect("board move: P1 ")  # the bot's answer, logged before the quit
        out = play.quit()
    assert "Saved: 'vora play vorcept' resumes it" in out
    with GameLog(db) as log:
        moves = log.game(1)["move_count"]
        assert log.game(1)["status"] == "interrupted" and moves >= 2
    with board_play(tmp_path, db) as play:
        play.expect("Resumed your game of Vorcept from ")
        play.until_the_pcs_game("Vorcept")
        play.command("undo")
        play.expect("board takeback: taken back: P0's turn 1 (pylon d4)")
        out = play.quit()
    assert "(%d moves; game 1 in the log)" % moves in out
    assert "Resumed the saved game" not in out and "seed" not in out
    with GameLog(db) as log:
        assert [g["id"] for g in log.games()] == [1]
        info = log.game(1)
        assert info["move_count"] == 0 and info["taken_back"] == moves


def test_lines_typed_beside_a_usb_board_reach_the_game():
    import asyncio
    from vora_host.play.board_session import _read_typed_lines
    state = vorcept.new_game(2, 5)
    companion = BoardGameCompanion("vorcept", state, [Human(), Human()])
    companion.game = BoardGame("vorcept", state, [Human(), Human()], FakeClient(),
                               on_event=companion._event)
    companion.game.tick(0)
    play_keys(companion.game, companion.game.state.legal_moves()[0], 100)
    read, write = os.pipe()

    class Stdin:
        def fileno(self):
            return read

    def said_hello():  # the last line typed: answered once all before it were
        return any("typed here: undo" in line
                   for line in companion.game.event_lines(None, count=24))

    async def typing():
        stop = _read_typed_lines(companion, Stdin())
        os.write(write, b"undo\ny\ny\nhello\n")  # both humans agree
        end = time.monotonic() + 60
        while not said_hello() and time.monotonic() < end:
            await asyncio.sleep(0.02)
        stop()

    asyncio.run(typing())
    os.close(read)
    os.close(write)
    assert companion.game.moves == []
    lines = companion.game.event_lines(None, count=24)
    assert any("taken back: P0's turn 1" in line for line in lines)
    assert "typed here: undo" in lines[-1]


def test_the_virtual_boards_screen_names_the_pcs_resumed_game_not_its_vora_save(tmp_path,
                                                                               monkeypatch):
    from pathlib import Path

    from pty_screen import PtyScreen
    vora_cmd = str(Path(sys.executable).with_name("vora"))
    save, db = str(tmp_path / "save"), str(tmp_path / "games.sqlite3")
    # The board has a Vora game of its own saved...
    with PtyScreen([vora_cmd, "play", "--port", "sim", "--save-dir", save, "--db", db,
                    "--seed", "3", "--fresh"], cols=120, rows=40, cwd=ROOT) as term:
        term.wait_for("Vora mirror")
        term.send("c3\r", 1.0)
        term.wait_for("South to act")
        term.send("q", 0.5)
        term.wait_exit()
    # ... and the PC an unfinished game of Vorcept in the log, logged by a program that
    # has been killed since (a process that is gone holds its lease).
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    state = vorcept.new_game(2, 6)
    with GameLog(db) as log:
        log._me.pid = gone.pid  # the writer's process (vora_host.log.leases.Holder)
        gid = log.start_game(game="vorcept", players=2, seed=6, source="virtual board")
        for n in (1, 2):
            move = state.legal_moves()[0]
            state.play(move)
            log.add_move(gid, n, move, state.digest())
        log._fences.clear()  # killed: it never released its lease
    with PtyScreen([vora_cmd, "play", "vorcept", "--port", "sim", "--save-dir", save,
                    "--db", db, "--human", "0"], cols=120, rows=40, cwd=ROOT) as term:
        term.wait_for("Resumed your game of Vorcept")
        text = " ".join(term.text().split())
        assert "(2 moves; game %d in the log)" % gid in text
        assert "Resumed the saved game" not in text
        term.send("q", 0.5)
