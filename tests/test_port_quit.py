"""`q` quits `vora play --port PORT` (issue 38.10): a board on a port, here the virtual
board's pseudo-terminal from `vora sim`. At a terminal `q` alone quits (the keys are read
one at a time and the line being typed is drawn), and `q` then Enter where lines are
read; Ctrl-C was the only way out before."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vora_host.log.store import GameLog

from pty_screen import PtyScreen

ROOT = Path(__file__).resolve().parents[1]
VORA = str(Path(sys.executable).with_name("vora"))
DEADLINE = 60


@pytest.fixture
def sim_port(tmp_path):
    """A virtual board on a port of its own: its pseudo-terminal's path."""
    env = dict(os.environ, VORA_SIM_DEVICE=str(tmp_path / "tty"))
    proc = subprocess.Popen([VORA, "sim", "--headless", "--save-dir", str(tmp_path / "save")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        path = proc.stdout.readline().strip()  # its first line: the device
        assert path.startswith("/dev/"), path
        yield path
    finally:
        try:
            proc.stdin.write("quit\n")
            proc.stdin.close()
            proc.wait(timeout=DEADLINE)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()


def test_q_quits_a_game_the_pc_runs_on_a_port_and_it_is_saved(tmp_path, sim_port):
    db = tmp_path / "games.sqlite3"
    with PtyScreen([VORA, "play", "vorcept", "--port", sim_port, "--db", str(db),
                    "--seed", "3", "--human", "0", "--bot", "1=random"],
                   cols=80, rows=24, cwd=str(ROOT)) as term:
        term.wait_for("(you) to", DEADLINE)
        term.wait_for("q quits", DEADLINE)
        term.send("und", 0)  # a line being typed is shown, and a q there is a letter
        term.wait_for("> und", DEADLINE)
        term.send("\x15q", 0)  # Ctrl-U empties it: q quits
        assert term.wait_exit(DEADLINE) == 0
        assert "resumes it" in term.text()
    with GameLog(db) as log:
        assert log.game(1)["status"] == "interrupted"


def test_q_quits_voras_mirror_on_a_port(tmp_path, sim_port):
    with PtyScreen([VORA, "play", "--port", sim_port, "--no-log"], cols=80, rows=24,
                   cwd=str(ROOT)) as term:
        term.wait_for("q quits", DEADLINE)
        term.send("q", 0)
        assert term.wait_exit(DEADLINE) == 0


@pytest.mark.parametrize("args, sign", [
    (["vorcept", "--human", "1", "--bot", "0=random"], "board move: P0 "),
    ([], "mirror link: connected")])
def test_q_and_enter_quit_where_lines_are_read(tmp_path, sim_port, args, sign):
    import queue
    import threading
    proc = subprocess.Popen([VORA, "play", *args, "--port", sim_port, "--no-log",
                             "--seed", "3"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=str(ROOT))
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout],
                     daemon=True).start()
    try:
        # Once it plays (the bot's move) or follows the board, q and Enter.
        seen = []
        while not any(sign in line for line in seen):
            seen.append(lines.get(timeout=DEADLINE))
        proc.stdin.write("q\n")
        proc.stdin.flush()
        assert proc.wait(timeout=DEADLINE) == 0, "".join(seen)
    finally:
        proc.kill()
        proc.wait()
