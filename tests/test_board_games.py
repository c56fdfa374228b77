"""Games the host runs on the board (terminal mode): the generic key pad reaches every
legal move of every such game by keys, refuses keys that name nothing with a reason,
shows its marks in the frame, and the board game loop plays, logs and replays games."""

import random
import time

import pytest

from shared_rules import games, vorcept, wire, wire_host
from vora_host import games as host_games
from vora_host.bots import RandomBot
from vora_host.games.base import cell_key
from vora_host.log.store import GameLog
from vora_host.play.board import BoardGame
from vora_host.play.board_keys import HOLD_MS, KeyPad, compose_frame
from vora_host.play.terminal import Human

BOARD_GAMES = [n for n in games.names() if hasattr(host_games.host_game(n), "BOARD")]


def enter(pad, state, move, now=0):
    """Press the keys of `move` and play it as a player would: its keys, then the corner
    (or the last key again, held). Returns what the pad finally played."""
    path = pad.mapping.key_path(state, move)
    for k in path:
        pad.press(state, k, now)
        pad.release(state, k, now + 50)
    # Cycle to the move if other moves share its keys.
    for _ in range(10):
        if pad.preview == move:
            break
        pad.press(state, path[-1], now)
        pad.release(state, path[-1], now + 50)
    assert pad.preview == move, "the keys of %r preview %r" % (move, pad.preview)
    confirm = pad.confirm_keys(state)
    if confirm:
        what, played = pad.press(state, confirm[0], now + 100)
    else:
        pad.press(state, path[-1], now + 100)
        what, played = pad.release(state, path[-1], now + 100 + HOLD_MS)
    assert what == "play"
    return played


def test_vorcept_and_others_have_a_board_mapping():
    assert "vorcept" in BOARD_GAMES


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_every_legal_move_can_be_entered_by_keys(name):
    module = games.load(name)
    board = host_games.host_game(name).BOARD
    rnd = random.Random(3)
    for seed in range(4):
        state = module.new_game(module.PLAYER_COUNTS[0], seed=seed)
        steps = 0
        while not state.is_over() and steps < 120:
            moves = state.legal_moves()
            sample = moves if len(moves) <= 25 else rnd.sample(moves, 25)
            for move in sample:
                pad = KeyPad(board)
                assert enter(pad, state, move) == move
            state.play(rnd.choice(moves))
            steps += 1


class _Counted:
    """A state whose legal_moves() calls are counted."""

    def __init__(self, state):
        self.state, self.calls = state, 0

    def legal_moves(self):
        self.calls += 1
        return self.state.legal_moves()

    def __getattr__(self, name):
        return getattr(self.state, name)


def test_a_word_mapping_lists_the_legal_moves_once_a_position():
    # Boars' board: every key path and label read the legal moves again for each word of
    # each move (hundreds of buys: O(moves squared) for a screen's labels). Once now.
    board = host_games.host_game("boars").BOARD
    state = games.load("boars").new_game(3, seed=4)
    rnd = random.Random(4)
    while len(state.legal_moves()) < 30:
        state.play(rnd.choice(state.legal_moves()))
    counted = _Counted(state)
    paths = [board.key_path(counted, m) for m in state.legal_moves()]
    labels = board.key_labels(counted, ())
    assert len(set(paths)) == len(paths) and labels
    assert counted.calls <= len(paths) + 2, counted.calls  # at most one a key path asked


def test_a_key_that_names_nothing_is_refused_with_a_reason():
    state = vorcept.new_game(2, seed=0)
    state.play("pylon d4")
    pad = KeyPad(host_games.host_game("vorcept").BOARD)
    what, _ = pad.press(state, cell_key("d5"), 1000)  # beside the Pylon: no lava there
    assert what == "refused" and pad.refused_key == cell_key("d5")
    assert "names no move" in pad.message
    frame = compose_frame(pad.mapping, state, None, pad, 1100)
    k = cell_key("d5")
    assert frame[3 * k:3 * k + 3] == bytes((255, 0, 0))  # the refused key is red
    later = compose_frame(pad.mapping, state, None, pad, 5000)
    assert later[3 * k:3 * k + 3] != bytes((255, 0, 0))


def test_a_short_second_press_does_not_play_a_long_one_does():
    state = vorcept.new_game(2, seed=0)
    pad = KeyPad(host_games.host_game("vorcept").BOARD)
    k = cell_key("c3")
    assert pad.press(state, k, 0) == ("preview", "pylon c3")
    pad.release(state, k, 80)
    pad.press(state, k, 500)
    assert pad.release(state, k, 600) == ("preview", "pylon c3")  # a tap: nothing played
    pad.press(state, k, 1000)
    assert pad.release(state, k, 1000 + HOLD_MS) == ("play", "pylon c3")
    frame = compose_frame(pad.mapping, state, None, pad, 0)
    assert len(frame) == wire.PIXELS_SIZE


class FakeClient:
    connected = True

    def __init__(self):
        self.mode = None
        self.frames = []

    def set_mode(self, mode):
        self.mode = mode
        return True

    def show(self, frame):
        wire.check_pixels(frame)
        self.frames.append(bytes(frame))
        return True

    def show_changes(self, changes):
        wire_host.pack_pixels_diff(changes)  # checks them
        frame = bytearray(self.frames[-1])
        for k, r, g, b in changes:
            frame[3 * k:3 * k + 3] = bytes((r, g, b))
        self.frames.append(bytes(frame))
        return True


def test_a_human_and_a_bot_play_vorcept_on_the_board_and_the_log_replays(tmp_path):
    state = vorcept.new_game(2, seed=5)
    client = FakeClient()
    from vora_host.log.live import LiveLog
    live = LiveLog(tmp_path / "games.sqlite3", "vorcept", 2, 5, state.options(),
                   source="virtual board")
    events = []
    game = BoardGame("vorcept", state, [Human(), RandomBot(2)], client, log=live,
                     bot_delay_ms=0, seed=5,
                     on_event=lambda what, text: events.append((what, text)))
    rnd = random.Random(9)
    now = 0
    while not state.is_over() and now < 10 ** 7:
        game.tick(now)
        if state.to_act() == 0 and not state.is_over():
            move = rnd.choice(state.legal_moves())
            for k in game.mapping.key_path(state, move):
                game.key(k, True, now)
                game.key(k, False, now + 30)
            # cycle to the wanted move, then hold its last key
            last = game.mapping.key_path(state, move)[-1]
            for _ in range(6):
                if game.pad.preview == move:
                    break
                game.key(last, True, now)
                game.key(last, False, now + 30)
            game.key(last, True, now + 100)
            game.key(last, False, now + 100 + HOLD_MS)
        now += 1000
    assert client.mode == wire.MODE_TERMINAL and client.frames
    # What the board shows at the end is exactly the frame of the final position.
    last = compose_frame(game.mapping, state, game.viewer(), game.pad, now - 1000)
    assert client.frames[-1] == last
    assert state.is_over() and ("over", events[-1][1]) == events[-1]
    message, logged = live.finish()
    assert logged and "Logged as game 1" in message
    log = GameLog(tmp_path / "games.sqlite3")
    record, digests = log.record(1)
    assert record["game"] == "vorcept" and record["moves"] == game.moves
    assert games.replay(record, digests) == state
    assert log.game(1)["status"] == "over"


def test_keys_while_the_bot_thinks_are_refused_politely():
    state = vorcept.new_game(2, seed=0)
    client = FakeClient()
    events = []
    game = BoardGame("vorcept", state, [RandomBot(1), Human()], client, bot_delay_ms=10 ** 6,
                     on_event=lambda what, text: events.append((what, text)))
    game.tick(0)
    game.key(cell_key("a1"), True, 10)
    assert events and events[-1][0] == "refused" and "thinking" in events[-1][1]


def test_delay_sets_the_pause_before_a_bots_move_on_a_board():
    # `vora play --delay` paused the terminal's bots only: on a board, USB or virtual,
    # a bot waited its 0.7 s whatever was asked.
    from vora_host.cli import build_parser
    from vora_host.cli.play import _board_delay_ms
    from vora_host.play.board import BOT_DELAY_MS
    delay = {argv: _board_delay_ms(build_parser().parse_args(["play", "vorcept", *argv]))
             for argv in ((), ("--delay", "0"), ("--delay", "1.5"))}
    assert delay == {(): BOT_DELAY_MS, ("--delay", "0"): 0, ("--delay", "1.5"): 1500}
    for pause in (0, 1500):
        state = vorcept.new_game(2, seed=3)
        game = BoardGame("vorcept", state, [RandomBot(1), Human()], FakeClient(),
                         bot_delay_ms=pause)
        game.tick(1000)  # the bot's turn starts
        if pause:
            game.tick(1000 + pause - 1)
            assert game.moves == [], "the bot moved before its pause was over"
            game.tick(1000 + pause)
        deadline = time.monotonic() + 60
        while not game.moves:  # it thinks in a thread: its move lands at a tick
            assert time.monotonic() < deadline, "the bot never moved"
            game.tick(1000 + pause)
        assert len(game.moves) == 1


def test_vora_play_vorcept_runs_on_the_virtual_board_and_logs_the_game(tmp_path):
    # The whole path a user takes: `vora play vorcept` with no board on USB starts the
    # virtual board, drives it in terminal mode, plays the bot, logs every move.
    import os

    from play_session import PlaySession
    db = tmp_path / "games.sqlite3"
    play = PlaySession(
        ["play", "vorcept", "--port", "sim", "--db", str(db),
         "--save-dir", str(tmp_path / "save"), "--fresh", "--human", "0", "--seed", "4",
         "--bot", "1=search:20"],  # a quick bot: this is about the path, not its strength
        env=dict(os.environ, COLUMNS="120", NO_COLOR="1"))
    try:
        # In terminal mode the virtual board names its keys as the game does (a1..g7).
        play.until_the_pcs_game("Vorcept")
        play.command("press d4")
        play.command("hold d4 900")  # held, as the board asks, to play it
        play.expect("board move: P0 pylon d4")
        play.expect("board move: P1 lava")  # the bot's answer, logged before the quit
        out = play.quit()
    finally:
        play.kill()
    assert play.proc.returncode == 0, out
    assert "Logged as game 1" in out
    log = GameLog(db)
    record, _ = log.record(1)
    assert record["game"] == "vorcept" and record["moves"][0] == "pylon d4"
    assert log.game(1)["status"] == "interrupted"


def test_the_virtual_board_names_its_keys_as_the_game_does(tmp_path):
    # At a terminal, `vora play gaia-vora` draws the virtual board with the game's key
    # names (a1..g7) and what each key is (rot 2, sun, plant...), the game beside it; a
    # key name typed there presses that key of the game.
    import sys
    from pathlib import Path

    from pty_screen import PtyScreen
    from vora_host.virtual import screen as sim

    vora = str(Path(sys.executable).with_name("vora"))
    args = [vora, "play", "gaia-vora", "--port", "sim", "--save-dir", str(tmp_path / "save"),
            "--db", str(tmp_path / "games.sqlite3"), "--seed", "2", "--fresh", "--human", "0"]
    with PtyScreen(args, cols=150, rows=42, cwd=str(Path(__file__).resolve().parents[1])) as term:
        term.wait_for("to rotate the planet")

        def key(x, y, line):
            row = sim.TOP - 1 + (6 - y) * 3 + line
            col = sim.LEFT - 1 + x * (sim.CELL_W + 1)
            return term.screen.display[row][col:col + sim.CELL_W].strip()

        # A key drawn before the PC took over is drawn again: wait for the last of them.
        term.wait_until(lambda: all(key(x, y, 0).strip("[]") == "abcdefg"[x] + str(y + 1)
                                    for x in range(7) for y in range(7)),
                        "every key named as the game names it")
        assert key(2, 0, 0) == "c1" and key(2, 0, 1) == "rot 2"
        # Every key carries the game's name, none Vora's (a key drawn before the PC took
        # over is drawn again).
        for x in range(7):
            for y in range(7):
                assert key(x, y, 0).strip("[]") == "abcdefg"[x] + str(y + 1)
        assert key(2, 6, 1) == "sun" and key(3, 3, 1) == "water"
        assert "WATER" in term.text() and "P0 yellow" in term.text()
        assert "P0 yellow (you) to rotate the planet" in term.text()  # the turn, below the board
        # The game is drawn from the moment the PC attaches it; the link's line says so
        # once the PC's MODE frame has crossed (tests/test_board_help_keys.py).
        term.wait_for("the PC drives the pixels")
        assert "Setup:" not in term.text()
        term.send("c1\r", 1.0)  # rotate 2: previewed, then the corner plays it
        term.wait_for("rotate 2 (press your corner")
        term.send("a1\r", 1.5)
        term.wait_for("P0 rotate 2")
        assert all(len(line) <= 150 for line in term.lines())
        term.send("q", 0.5)
        assert term.wait_exit() == 0


def test_a_game_on_the_virtual_board_with_no_terminal_ends_when_it_is_over(tmp_path):
    # `vora play GAME --port sim` in a script (no terminal: plain lines, input at its end)
    # played the game to its end, logged it, and then ran for ever: nobody could type
    # `quit` any more. With plain output it ends with the game, as beside a USB board
    # (a terminal's screen stays on the final position until q).
    import os

    from play_session import PlaySession
    db = tmp_path / "games.sqlite3"
    play = PlaySession(
        ["play", "tossing-tiger", "--port", "sim", "--db", str(db), "--save-dir",
         str(tmp_path / "save"), "--fresh", "--human", "none", "--bot", "random",
         "-o", "max_turns=1", "--delay", "0"],
        env=dict(os.environ, COLUMNS="120", NO_COLOR="1"))
    try:
        play.proc.stdin.close()  # input ends at once: only the game can end it
        out = play.wait()
    finally:
        play.kill()
    assert play.proc.returncode == 0, out
    assert "board over: " in out and "Logged as game 1" in out, out
    assert GameLog(db).game(1)["status"] == "over"
