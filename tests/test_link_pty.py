"""The host against the virtual board over a real pseudo-terminal, in separate processes:
`vora play` with no board (the virtual board and the mirror in one program) plays a whole
game by key presses and logs it; `vora mirror` killed in the middle of a game and started
again catches up without losing or repeating a move."""

import os
import queue
import subprocess
import sys
import threading
import time

from shared_rules import games
from vora_fw import layout
from vora_fw.vora_ui import VoraUI
from vora_host.log.store import GameLog

from board_player import move_keys
from test_conformance import collecting_move
from test_sim import ROOT, TIMEOUT, SimProcess

SEED = 21


class PlayProcess(SimProcess):
    """`python -m vora_host play ...` without a terminal: the virtual board's commands on
    stdin, its answers and the mirror's event lines ("mirror ...") on stdout."""

    def __init__(self, *args):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "play", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1, cwd=str(ROOT), env=env)
        self.lines = queue.Queue()
        self.mirror = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._split, daemon=True).start()
        threading.Thread(target=self._collect, daemon=True).start()
        self.path = self.line()

    def _split(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            (self.mirror if line.startswith("mirror ") else self.lines).put(line)
        self.lines.put(None)

    def mirror_until(self, prefix, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        seen = []
        while time.monotonic() < end:
            try:
                line = self.mirror.get(timeout=0.1)
            except queue.Empty:
                continue
            seen.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError("no mirror line %r; saw %r; stderr %s"
                             % (prefix, seen[-5:], "".join(self.stderr)))


class MirrorProcess:
    def __init__(self, path, db):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "mirror", "--port", path, "--db", str(db),
             "--plain"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=str(ROOT), env=env)

    def stop(self):
        self.proc.kill()
        self.proc.wait(timeout=TIMEOUT)
        self.proc.stdout.close()
        self.proc.stderr.close()


class Player:
    """Presses keys on the board process and on a local copy of the firmware's UI (the
    same code, the same seed: it shows what the board shows), to find the next key."""

    def __init__(self, board):
        self.board = board
        self.ui = VoraUI(seed_fn=lambda: SEED)
        self.now = 0

    def press(self, name):
        self.board.cmd("press %s 40" % name)
        k = layout.key_index(name)
        self.now += 100
        self.ui.key(k, True, self.now)
        self.now += 100
        self.ui.key(k, False, self.now)

    def play(self, move):
        for name in move_keys(self.ui, move):
            self.press(name)


def test_vora_play_mirrors_and_logs_a_whole_game_of_the_virtual_board(tmp_path):
    import random
    db = tmp_path / "games.sqlite3"
    board = PlayProcess("--db", str(db), "--save-dir", str(tmp_path / "save"), "--fresh",
                        "--seed", str(SEED))
    try:
        assert board.path.startswith("/dev/")
        board.mirror_until("mirror link: connected")
        player = Player(board)
        player.press("c3")
        board.mirror_until("mirror game")
        rnd = random.Random(SEED)
        played = []
        while not player.ui.state.is_over():
            move = collecting_move(player.ui.state, rnd)
            player.play(move)
            played.append(move)
        board.mirror_until("mirror over")
        assert board.cmd("state") == [player.ui.state.position()] or player.ui.state.is_over()
        board.proc.stdin.write("quit\n")
        board.proc.stdin.flush()
        assert board.proc.wait(timeout=TIMEOUT) == 0
    finally:
        board.kill()
    with GameLog(db) as log:
        (game,) = log.games()
        assert game["status"] == "over" and game["source"] == "virtual board"
        assert [m["move"] for m in log.game(game["id"])["moves"]] == played
        record, digests = log.record(game["id"])
        assert games.replay(record, digests) == player.ui.state  # every digest checked
        assert log.verify(game["id"]).ok


def test_a_mirror_killed_mid_game_catches_up_without_losing_or_repeating_a_move(tmp_path):
    import random
    db = tmp_path / "games.sqlite3"
    board = SimProcess("--fresh", "--save-dir", str(tmp_path / "save"), "--seed", str(SEED))
    mirror = MirrorProcess(board.path, db)
    try:
        player = Player(board)
        player.press("c3")
        rnd = random.Random(SEED + 1)
        played = []

        def play(n):
            for _ in range(n):
                move = collecting_move(player.ui.state, rnd)
                player.play(move)
                played.append(move)

        def logged():
            with GameLog(db) as log:
                found = log.games()
                return [] if not found else [m["move"] for m in log.game(found[0]["id"])["moves"]]

        def wait_logged(n):
            end = time.monotonic() + TIMEOUT
            while time.monotonic() < end:
                if len(logged()) >= n:
                    return
                time.sleep(0.1)
            raise AssertionError("the log holds %d moves, not %d" % (len(logged()), n))

        play(8)
        wait_logged(8)
        mirror.stop()  # the PC program dies in the middle of the game
        play(8)  # the board plays on alone
        mirror = MirrorProcess(board.path, db)
        wait_logged(16)
        play(4)
        wait_logged(20)
        assert logged() == played  # each move once, in order
    finally:
        mirror.stop()
        board.kill()
    with GameLog(db) as log:
        (game,) = log.games()
        assert log.verify(game["id"]).ok
