"""A terminal that closes (SIGHUP) stops `vora play` as Ctrl-C does (issue 38.3): the game
is saved as interrupted, a demo (--bots-only) abandoned, typed and on the board; a demo is
never resumed as the player's game, even when its process was killed outright.

The kernel tells a program its terminal closed in two ways in no fixed order: SIGHUP, and
reads that fail or end. Under load the failed read often comes first (issue 43: the typed
game ended as "end of input", exit 1), so each case is also run with SIGHUP blocked: the
program must stop the same way from the read alone."""

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from vora_host.log.store import GameLog
from vora_host.play import saved

from pty_screen import PtyScreen
from test_port_quit import sim_port  # noqa: F401 (a fixture: the virtual board on a port)

ROOT = Path(__file__).resolve().parents[1]
VORA = str(Path(sys.executable).with_name("vora"))
DEADLINE = 60


# How the terminal's closing reaches the program: both signs, or the failed read alone.
SIGNS = {"sighup": (), "read-first": (signal.SIGHUP,)}


@pytest.fixture(params=sorted(SIGNS))
def sign(request):
    return SIGNS[request.param]


def _screen(tmp_path, *args, blocked=()):
    return PtyScreen([VORA, "play", *args], cols=80, rows=24, cwd=str(ROOT),
                     env={"VORA_SIM_DEVICE": str(tmp_path / "tty")}, blocked=blocked)


def _hang_up(term):
    """Close the terminal (the kernel hangs its session up) and wait for the program to
    end: its exit status."""
    os.close(term.fd)
    term.fd = os.open(os.devnull, os.O_RDONLY)  # for close(): nothing of ours to close
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        done, status = os.waitpid(term.pid, os.WNOHANG)
        if done:
            term.pid = 0
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    raise AssertionError("the program went on after its terminal closed")


def _status(db, gid=1):
    with GameLog(db) as log:
        return log.game(gid)["status"]


def _demo(tmp_path, db, blocked=()):
    # A demo slow enough to be caught in the middle: a few moves made.
    term = _screen(tmp_path, "boars", "--bots-only", "--db", str(db), "--delay", "0.3",
                   blocked=blocked)
    term.wait_until(lambda: term.text().count("P1 ") >= 2, "the bots moved", DEADLINE)
    return term


def _next_play_resumes(tmp_path, db):
    """Whether `vora play boars --typed` resumes a game (it says so), then quits it."""
    with _screen(tmp_path, "boars", "--typed", "--db", str(db)) as term:
        text = term.wait_for("P0>", DEADLINE)
        term.send("q\r", 0)
        term.wait_for("Quit this game?", DEADLINE)
        term.send("y\r", 0)
        term.wait_exit(DEADLINE)
    return "Resumed your game" in text


def test_a_demo_whose_terminal_closes_is_abandoned_and_never_resumed(tmp_path, sign):
    db = tmp_path / "games.sqlite3"
    with _demo(tmp_path, db, sign) as term:
        assert _hang_up(term) == 130
    assert _status(db) == "abandoned"
    assert not _next_play_resumes(tmp_path, db)


def test_a_demo_killed_outright_is_never_resumed(tmp_path):
    db = tmp_path / "games.sqlite3"
    with _demo(tmp_path, db):
        pass  # killed (SIGKILL): nothing runs to end its game
    assert _status(db) == "playing"
    with GameLog(db) as log:
        assert saved.saved_game(log, "boars") is None
    assert not _next_play_resumes(tmp_path, db)
    with GameLog(db) as log:  # nor by its id
        try:
            saved.resumable(log, 1)
        except saved.ResumeError as exc:
            assert "demo" in str(exc)
        else:
            raise AssertionError("the demo could be resumed")


def test_a_typed_game_whose_terminal_closes_is_saved_and_resumed(tmp_path, sign):
    db = tmp_path / "games.sqlite3"
    with _screen(tmp_path, "boars", "--typed", "--db", str(db), blocked=sign) as term:
        term.wait_for("P0>", DEADLINE)
        assert _hang_up(term) == 130
    assert _status(db) == "interrupted"
    assert _next_play_resumes(tmp_path, db)


def test_a_game_on_the_virtual_board_whose_terminal_closes_is_saved(tmp_path, sign):
    db = tmp_path / "games.sqlite3"
    with _screen(tmp_path, "vorcept", "--port", "sim", "--save-dir", str(tmp_path / "save"),
                 "--db", str(db), "--human", "0", "--bot", "1=random", blocked=sign) as term:
        term.wait_for("(you) to", DEADLINE)
        assert _hang_up(term) == 130
    assert _status(db) == "interrupted"


def test_a_game_on_a_port_whose_terminal_closes_is_saved(tmp_path, sim_port, sign):  # noqa: F811
    db = tmp_path / "games.sqlite3"
    with _screen(tmp_path, "vorcept", "--port", sim_port, "--db", str(db), "--human", "0",
                 "--bot", "1=random", blocked=sign) as term:
        term.wait_for("(you) to", DEADLINE)
        assert _hang_up(term) == 130
    assert _status(db) == "interrupted"


def test_an_end_of_input_is_the_terminal_closing_only_when_it_hung_up(monkeypatch):
    # Issue 43, under load: the kernel marks a terminal's other end closed and wakes its
    # readers before it hangs the terminal up, so a reader saw the end of input while
    # isatty still passed, and the game ended as "end of input" (exit 1) or went on. The
    # window is made to last here: isatty passes all along, as it did then.
    import pty

    from vora_host import hang_up
    master, slave = pty.openpty()
    monkeypatch.setattr(hang_up, "_terminals", {slave})
    monkeypatch.setattr(hang_up, "_is_terminal", lambda fd: True)
    try:
        # Ctrl-D typed at a terminal that is still open: the end of input, no closing.
        os.write(master, b"\x04")
        assert os.read(slave, 16) == b""
        assert not hang_up.terminal_closed(slave)
        os.close(master)
        master = None
        assert hang_up.terminal_closed(slave)
    finally:
        if master is not None:
            os.close(master)
        os.close(slave)
