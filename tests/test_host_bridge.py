"""The host's side around the link: finding boards, the mirror's display, reconnecting to a
board that went away and came back, and sending the board to its REPL."""

import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from rich.console import Console

from shared_rules import vora
from vora_host.link import ports
from vora_host.cli import main
from vora_host.log.store import GameLog
from vora_host.link.mirror import Follower, mirror_renderable

from test_link_pty import MirrorProcess, Player
from test_sim import ROOT, TIMEOUT, SimProcess


def port(device, vid=None, pid=None):
    return SimpleNamespace(device=device, vid=vid, pid=pid)


def test_boards_are_found_by_usb_identity():
    seen = [port("/dev/ttyS0"), port("/dev/ttyACM0", 0x2E8A, 0x0005),
            port("/dev/ttyUSB0", 0x0403, 0x6001)]
    assert ports.find_boards(seen) == [("/dev/ttyACM0",
                                        "MicroPython on a Raspberry Pi Pico (RP2040)")]
    assert ports.choose_port(None, seen) == "/dev/ttyACM0"
    assert ports.choose_port("/dev/ttyUSB0", seen) == "/dev/ttyUSB0"  # named: taken as is
    assert ports.identify(port("x", 0x303A, 0x1001)) == "an Espressif ESP32-S3 board"


def test_no_board_and_several_boards_say_what_to_do(monkeypatch):
    monkeypatch.setenv("VORA_SIM_DEVICE", "/somewhere/ttyVORA")
    with pytest.raises(ports.NoBoard, match=r"no Vora Board found on USB \(serial devices "
                                            r"seen: /dev/ttyS0\).*--port sim.*vora sim.*"
                                            r"/somewhere/ttyVORA"):
        ports.choose_port(None, [port("/dev/ttyS0")])
    two = [port("/dev/ttyACM0", 0x2E8A, 0x0005), port("/dev/ttyACM1", 0x2E8A, 0x0005)]
    with pytest.raises(ports.NoBoard, match="several boards.*--port"):
        ports.choose_port(None, two)


def test_port_sim_is_the_virtual_boards_stable_device(monkeypatch, tmp_path):
    # The Vora issue: `vora mirror` with no board suggested --port sim, which then waited
    # forever on a port named "sim".
    monkeypatch.delenv("VORA_SIM_DEVICE", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert ports.choose_port("sim") == str(tmp_path / "vora" / "ttyVORA")
    assert ports.choose_port("virtual") == ports.virtual_device_path()
    monkeypatch.setenv("XDG_RUNTIME_DIR", "relative/not/used")
    assert ports.virtual_device_path().endswith("/vora-%d/ttyVORA" % os.getuid())
    monkeypatch.setenv("VORA_SIM_DEVICE", str(tmp_path / "mine"))
    assert ports.choose_port("sim") == str(tmp_path / "mine")


def test_a_mirror_follows_a_restarted_virtual_board_by_its_stable_name(tmp_path, monkeypatch):
    # Finding 4: a virtual board restarted gets a new pseudo-terminal, and a mirror waited
    # forever on the old one. The board keeps a stable name (a symbolic link) up to date,
    # and `--port sim` is that name: the mirror may even start first.
    device = tmp_path / "dev" / "ttyVORA"
    monkeypatch.setenv("VORA_SIM_DEVICE", str(device))
    db = tmp_path / "games.sqlite3"
    save = tmp_path / "save"
    mirror = MirrorProcess("sim", db)
    board = SimProcess("--fresh", "--save-dir", str(save), "--seed", "21")
    try:
        assert os.readlink(device) == board.path
        player = Player(board)
        player.press("c3")
        for _ in range(3):
            player.play([m for m in player.ui.legal if m.startswith("push")][0]
                        if player.ui.state.phase == vora.PHASE_ACTION else player.ui.legal[0])

        def logged():
            with GameLog(db) as log:
                found = log.games()
                return [] if not found else [m["move"] for m in log.game(found[0]["id"])["moves"]]

        def wait(n):
            end = time.monotonic() + TIMEOUT
            while time.monotonic() < end and len(logged()) < n:
                time.sleep(0.1)
            return logged()

        assert len(wait(player.ui.moves_played)) == player.ui.moves_played
        board.crash()  # the virtual board stops (killed: its name is left dangling)
        board = SimProcess("--save-dir", str(save), "--seed", "21")  # and starts again
        assert os.readlink(device) == board.path  # (a new pseudo-terminal, or a reused one)
        player.board = board
        player.play([m for m in player.ui.legal if m.startswith("push")][0]
                    if player.ui.state.phase == vora.PHASE_ACTION else player.ui.legal[0])
        assert wait(player.ui.moves_played) == player.ui.moves
        board.proc.terminate()  # a board that ends normally takes its name away
        board.proc.wait(timeout=TIMEOUT)
        assert not os.path.lexists(device)
    finally:
        mirror.stop()
        board.kill()


def test_vora_mirror_without_a_board_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(ports.list_ports, "comports", lambda: [port("/dev/ttyS0")])
    assert main(["mirror", "--db", str(tmp_path / "g.sqlite3")]) == 1
    assert "no Vora Board found on USB" in capsys.readouterr().out


def test_the_mirror_shows_the_meadow_turn_farms_scores_and_last_moves():
    follower = Follower("/dev/null")
    c = follower.client
    c.connected = True
    c.board = {"board": "test board", "fw": "0.1.0"}
    c.game_id, c.seed = 7, 3
    c.state = vora.from_position("PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 CP/D G30")
    c.history.append((0, "push crow Sc"))
    c._problem("mismatch", "move 2: the board's digest 00, replayed here 11")
    console = Console(width=110, record=True, color_system=None)
    console.print(mirror_renderable(follower, 110))
    text = console.export_text()
    for want in ("Vora mirror", "test board", "game 7, seed 3", "Turn 1", "South",
                 "North", "score", "push crow Sc", "mismatch: move 2"):
        assert want in text, want
    assert "P" in text and "W" in text  # the meadow's letters


def test_the_mirror_reopens_a_board_that_went_away(tmp_path):
    # A USB board keeps its device name across an unplug; here a link stands for it,
    # pointed at a new virtual board (same save: the game resumes) after the first dies.
    db = tmp_path / "games.sqlite3"
    device = tmp_path / "ttyBOARD"
    save = tmp_path / "save"
    board = SimProcess("--fresh", "--save-dir", str(save), "--seed", "21")
    os.symlink(board.path, device)
    mirror = MirrorProcess(str(device), db)
    try:
        player = Player(board)
        player.press("c3")
        for _ in range(3):
            player.play([m for m in player.ui.legal if m.startswith("push")][0]
                        if player.ui.state.phase == vora.PHASE_ACTION else player.ui.legal[0])

        def logged():
            with GameLog(db) as log:
                found = log.games()
                return [] if not found else [m["move"] for m in log.game(found[0]["id"])["moves"]]

        def wait(n):
            end = time.monotonic() + TIMEOUT
            while time.monotonic() < end and len(logged()) < n:
                time.sleep(0.1)
            return logged()

        assert len(wait(player.ui.moves_played)) == player.ui.moves_played
        # Unplugged: the device's name goes first, as a USB board's does. (Left pointing
        # at the dead pseudo-terminal, the mirror once opened the next program's that was
        # given its number: another test's virtual board, in a whole run.)
        os.unlink(device)
        board.kill()
        board = SimProcess("--save-dir", str(save), "--seed", "21")  # plugged back in
        os.symlink(board.path, device)
        player.board = board
        player.play([m for m in player.ui.legal if m.startswith("push")][0]
                    if player.ui.state.phase == vora.PHASE_ACTION else player.ui.legal[0])
        assert wait(player.ui.moves_played) == player.ui.moves
    finally:
        mirror.stop()
        board.kill()


def test_vora_repl_stops_the_board_application(tmp_path):
    board = SimProcess("--fresh", "--save-dir", str(tmp_path / "save"))
    try:
        done = subprocess.run([sys.executable, "-m", "vora_host", "repl", "--port", board.path],
                              capture_output=True, text=True, cwd=str(ROOT), timeout=TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "left its application" in done.stdout and "mpremote connect" in done.stdout
    finally:
        board.kill()


def test_vora_repl_with_nothing_behind_the_port_says_how_else(tmp_path):
    r, w = os.openpty()  # a serial device with no board behind it
    try:
        done = subprocess.run([sys.executable, "-m", "vora_host", "repl", "--port",
                               os.ttyname(w)], capture_output=True, text=True, cwd=str(ROOT),
                              timeout=TIMEOUT)
    finally:
        os.close(r)
        os.close(w)
    assert done.returncode == 1 and "safe mode" in done.stdout
