"""The virtual board, `vora sim`: the unchanged firmware behind a real serial device (a pty).

The program runs as a subprocess, as a person or a host program would start it: commands
go in on stdin, answers come back on stdout, and the game events come out of the serial
device named on its first line, read with pyserial like a USB board. A whole turn is
entered with the board's keys (docs/firmware.md, "Playing on the board") and checked
against the rules core digest by digest; quitting and starting again resumes the game.
"""

import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import serial

from shared_rules import vora
from vora_fw import layout, vora_ui
from vora_fw.vora_ui import VoraUI
from vora_host.link import client as bridge
from vora_host.virtual import board as sim
from vora_host.virtual import screen
from vora_host.virtual.commands import refusal
from vora_host.virtual.port import PtyPort
from vora_host.link.client import BoardClient

ROOT = Path(__file__).resolve().parents[1]
SEED = 3
TIMEOUT = 60  # seconds for anything the board should do at once: generous, under load


class SimProcess:
    """`python -m vora_host sim --headless ...` with line-wise stdin and stdout."""

    def __init__(self, *args, env=None):
        env = dict(env or os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vora_host", "sim", "--headless", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1, cwd=str(ROOT), env=env)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines),
                         daemon=True).start()
        threading.Thread(target=self._collect, daemon=True).start()
        self.path = self.line()

    @staticmethod
    def _pump(stream, q):
        for line in stream:
            q.put(line.rstrip("\n"))
        q.put(None)

    def _collect(self):
        for line in self.proc.stderr:
            self.stderr.append(line)

    def line(self, timeout=TIMEOUT):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("vora sim said nothing for %ss (stderr: %s)"
                                 % (timeout, "".join(self.stderr)))
        if line is None:
            self.proc.wait(timeout=TIMEOUT)
            raise AssertionError("vora sim ended (status %s): %s"
                                 % (self.proc.returncode, "".join(self.stderr)))
        return line

    def cmd(self, command, timeout=TIMEOUT):
        """Send one command; its output lines before the final `ok` (an error fails)."""
        return self.cmds(command, timeout=timeout)

    def cmds(self, *commands, timeout=TIMEOUT):
        """Send commands in one write: the board runs them one after the other with nothing
        in between (three keys down in the same instant); the lines before the last `ok`."""
        self.proc.stdin.write("".join(c + "\n" for c in commands))
        self.proc.stdin.flush()
        out = []
        for command in commands:
            while True:
                line = self.line(timeout)
                if line == "ok":
                    break
                assert not line.startswith("error"), "%s -> %s" % (command, line)
                out.append(line)
        return out

    def crash(self):
        """Killed (SIGKILL): it cannot clean up after itself, as after a power cut."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)

    def kill(self):
        # Stopped as a user stops it (SIGTERM), so that it cleans up after itself (the
        # flash folder it made for the REPL); killed only if it does not go.
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=TIMEOUT)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except (OSError, ValueError):
                pass


class Host:
    """The PC's end of the link (vora_host.link.client.BoardClient) on a serial device."""

    def __init__(self, path):
        self.port = serial.Serial(path, timeout=0)
        self.client = BoardClient(self.port.write)

    def until(self, check, what, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            data = self.port.read(4096)
            now = bridge.ticks_ms()
            if data:
                self.client.feed(data, now)
            self.client.poll(now)
            if check(self.client):
                return self.client
            time.sleep(0.005)
        raise AssertionError("the host did not see %s (%s; problems %r)" % (
            what, self.client.status_line(), self.client.problems))

    def connected(self):
        return self.until(lambda c: c.connected, "a HELLO_OK")

    def game(self, moves=0):
        return self.until(lambda c: c.state is not None and len(c.moves) == moves,
                          "the game with %d moves" % moves)

    def close(self):
        self.port.close()


def farm_key(state, player, type_name):
    """The meadow key that shows a cube of `type_name` while the player's own farm is on
    view: the firmware's farm layout (VoraUI.farm_cells) on this position."""
    ui = VoraUI()
    ui.state = state
    ui.view_for = "pick"
    cells = ui.farm_cells(player)
    return vora.CELL_NAMES[cells.index(vora.TYPES.index(type_name))]


def choose_push(state):
    """A push from the farm that ends the turn (no line to collect): the simplest turn."""
    pushes = [m for m in state.legal_moves() if m.startswith("push ")]
    assert pushes, "no push in %s" % state.position()
    for move in pushes:
        after = state.clone()
        after.play(move)
        if after.phase == vora.PHASE_ACTION and after.active != state.active:
            return move
    return pushes[0]


def frame_of(line):
    triples = line.split(" ")
    assert len(triples) == 49 and all(re.fullmatch("[0-9a-f]{6}", t) for t in triples), line
    return [bytes.fromhex(t) for t in triples]


@pytest.fixture
def save_dir(tmp_path):
    return tmp_path / "save"


def test_a_turn_through_the_keys_reaches_the_serial_port_and_resumes(save_dir):
    start = vora.new_game(2, seed=SEED)
    board = SimProcess("--fresh", "--save-dir", str(save_dir), "--seed", str(SEED))
    port = None
    try:
        # The first line: a serial device that exists and is a terminal.
        path = board.path
        assert path.startswith("/dev/"), path
        assert os.path.exists(path)
        host = Host(path)
        port = host.port
        assert os.isatty(port.fileno())
        info = host.connected().board
        assert info["game"] is None and info["board"].startswith("virtual board")
        assert board.cmd("state") == ["none"]

        # Setup: South and North are chosen; the centre key deals.
        board.cmd("press c3")
        c = host.game(0)
        assert (c.state.seats, c.state.digest()) == ("SN", start.digest())
        position = board.cmd("state")[0]
        assert position == start.position()

        # South's turn: corner (farm on the meadow), a cube, an edge, corner to confirm.
        state = vora.from_position(position)
        move = choose_push(state)
        _, type_name, edge = move.split(" ")
        cube = farm_key(state, state.active, type_name)
        corner = "c" + state.seats[state.active]
        board.cmd("press " + corner)
        frame = frame_of(board.cmd("frame")[0])
        assert any(frame[layout.key_index(cube)]), "the farm cube %s is not lit" % cube
        board.cmd("press " + cube)
        board.cmd("press " + edge)
        board.cmd("press " + corner)
        expected = start.clone()
        expected.play(move)
        c = host.game(1)
        assert c.moves == [move] and c.state.digest() == expected.digest()
        assert c.problems == []
        before_quit = board.cmd("state")[0]
        assert before_quit == expected.position()

        # A host may send bytes: the board takes them without a fuss.
        port.write(b"VORA ping\n")  # not a frame: counted as noise and dropped
        port.flush()
        assert board.cmd("state") == [before_quit]

        # Quit: exit status 0, the serial device hangs up, one clean save is left.
        board.proc.stdin.write("quit\n")
        board.proc.stdin.flush()
        assert board.line() == "ok"
        assert board.proc.wait(timeout=TIMEOUT) == 0
        with pytest.raises(serial.SerialException):
            for _ in range(20):  # a hung-up tty reads as "ready, but no data"
                port.read(1)
        port.close()
        port = None
        assert sorted(p.name for p in save_dir.iterdir()) == ["game.json"]
    finally:
        if port is not None:
            port.close()
        board.kill()

    # Power up again on the same save folder: the game resumes where it was.
    again = SimProcess("--save-dir", str(save_dir), "--seed", str(SEED))
    try:
        host = Host(again.path)
        try:
            # The board says which game it resumed, and how many moves it had seen.
            info = host.connected().board
            assert (info["seats"], info["moves"], info["digest"]) == (
                "SN", 1, expected.digest())
            assert host.game(1).moves == [move]
        finally:
            host.close()
        assert again.cmd("state") == [before_quit]
        again.proc.stdin.write("quit\n")
        again.proc.stdin.flush()
        assert again.line() == "ok"
        assert again.proc.wait(timeout=TIMEOUT) == 0
    finally:
        again.kill()


def test_the_serial_port_survives_a_host_closing_and_reopening(save_dir):
    board = SimProcess("--fresh", "--save-dir", str(save_dir), "--seed", "5")
    try:
        host = Host(board.path)
        host.connected()
        host.close()
        # Nobody has the device open now; the board goes on alone.
        board.cmd("wait 500")  # several retries of the closed side
        board.cmd("press c3")
        host = Host(board.path)
        try:
            c = host.connected()
            c = host.game(0)
            assert c.state.digest() == vora.new_game(2, seed=5).digest()
            host.port.write(b"\x03\x01hello\r\n")  # what a REPL tool would send first
        finally:
            host.close()
        board.cmd("wait 300")
        assert board.cmd("state") == [vora.new_game(2, seed=5).position()]
    finally:
        board.kill()


def test_hold_opens_the_menu_and_the_red_key_ends_the_game(save_dir):
    board = SimProcess("--fresh", "--save-dir", str(save_dir), "--seed", "7")
    try:
        board.cmd("press c3")
        assert board.cmd("state") != ["none"]
        board.cmd("hold cS")  # South's corner, 2.5 s: the menu
        frame = frame_of(board.cmd("frame")[0])
        assert frame[layout.key_index("c2")][1] > 0  # green: back to the game
        board.cmd("press c4")  # red: end it
        assert board.cmd("state") == ["none"]
        assert not (save_dir / "game.json").exists()
    finally:
        board.kill()


def test_a_script_runs_first_and_answers_each_command(save_dir, tmp_path):
    script = tmp_path / "turn.txt"
    script.write_text("# deal a game\npress c3\n\nstate\nbogus\nquit\n")
    proc = subprocess.run(
        [sys.executable, "-m", "vora_host", "sim", "--fresh", "--save-dir", str(save_dir),
         "--seed", "3", "--script", str(script)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("/dev/")
    assert lines[1:] == ["ok", vora.new_game(2, seed=3).position(), "ok",
                         "error 'bogus' is neither a command, a move nor a key (help lists "
                         "them)",
                         "ok"]


def test_a_missing_pin_map_is_a_clear_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "vora_host", "sim", "--headless", "--save-dir",
         str(tmp_path), "--pinmap", str(tmp_path / "nowhere.json")],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, cwd=str(ROOT))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "nowhere.json does not exist" in proc.stderr


def test_the_default_pin_map_sits_in_the_hardware_folder():
    assert sim.default_pinmap_path() == ROOT / "hardware" / "pinmap-rp2-pico.json"
    assert sim.load_pinmap()["pixel_count"] == 49


def test_the_default_save_folder_follows_xdg(tmp_path):
    assert sim.default_save_dir({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "vora" / "sim-save"
    assert sim.default_save_dir({}) == Path.home() / ".local" / "share" / "vora" / "sim-save"
    assert sim.default_save_dir({"XDG_DATA_HOME": "relative"}) == \
        Path.home() / ".local" / "share" / "vora" / "sim-save"


@pytest.mark.parametrize("name,key", [("c3", 24), ("Sc", 3), ("sc", 3), ("cS", 0), ("cs", 0),
                                      ("cN", 48), ("e1", 12), ("E1", 13), ("W5", 35),
                                      ("Na", 43)])
def test_key_names(name, key):
    assert sim.parse_key(name) == key
    assert layout.KEY_NAMES[key].lower() == name.lower()


def test_unknown_key_names_are_refused():
    for name in ("f1", "a6", "S", "cX", ""):
        with pytest.raises(KeyError):
            sim.parse_key(name)


def test_the_terminal_board_takes_typed_keys_arrows_and_clicks_and_restores_the_terminal(
        save_dir):
    """`vora sim` at a (pseudo) terminal of 120x40: a whole turn entered with a mouse
    click, a typed key name, the arrows and Space; q restores the terminal."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of 120 columns and 40 lines
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            os.chdir(str(ROOT))
            os.execv(sys.executable, [sys.executable, "-m", "vora_host", "sim", "--fresh",
                                      "--save-dir", str(save_dir), "--seed", str(SEED)])
        finally:
            os._exit(127)
    out = bytearray()

    def read_until(marker, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        while marker not in out:
            left = end - time.monotonic()
            assert left > 0, "no %r on the screen; got %r" % (marker, bytes(out[-300:]))
            r, _, _ = select.select([fd], [], [], min(left, 0.2))
            if r:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: the program has gone
                    data = b""
                if not data:
                    assert marker in out, "the program ended without %r" % marker
                out.extend(data)

    def drain(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    out.extend(os.read(fd, 65536))
                except OSError:
                    return

    def click(name):
        # the board's geometry at 40 lines: keys 6 wide plus 1, 3 lines high, from (3, 3)
        k = layout.key_index(name)
        col = screen.LEFT + (k % 7) * (screen.CELL_W + 1) + 2
        row = screen.TOP + (6 - k // 7) * 3 + 1
        os.write(fd, b"\x1b[<0;%d;%dM" % (col, row))
        time.sleep(0.02)
        os.write(fd, b"\x1b[<0;%d;%dm" % (col, row))
        drain(0.4)

    port = None
    try:
        read_until(b"\n")
        path = bytes(out).split(b"\r\n")[0].split(b"\n")[0].decode()
        assert path.startswith("/dev/"), path
        read_until(b"\x1b[?1000h\x1b[?1006h")  # mouse reporting on
        host = Host(path)
        port = host.port
        host.connected()

        os.write(fd, b"c3\r")  # a key name and Enter
        start = vora.new_game(2, seed=SEED)
        assert host.game(0).state.digest() == start.digest()
        drain(0.3)

        move = choose_push(start)
        _, type_name, edge = move.split(" ")
        cube = farm_key(start, start.active, type_name)
        click("cS")  # South's farm on the meadow
        os.write(fd, cube.encode() + b"\r")  # the cube, typed: the cursor goes there
        drain(0.4)
        k, e = layout.key_index(cube), layout.key_index(edge)
        dx, dy = e % 7 - k % 7, e // 7 - k // 7
        arrows = (b"\x1b[C" if dx > 0 else b"\x1b[D") * abs(dx) + \
            (b"\x1b[A" if dy > 0 else b"\x1b[B") * abs(dy)
        os.write(fd, arrows + b" ")  # the cursor to the edge, Space presses it
        drain(0.4)
        click("cS")  # confirm
        expected = start.clone()
        expected.play(move)
        c = host.game(1)
        assert c.moves == [move] and c.state.digest() == expected.digest()

        os.write(fd, b"q")
        read_until(b"\x1b[?1049l")  # back from the alternate screen
        _, status = os.waitpid(pid, 0)
        pid = 0
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        tail = bytes(out).rsplit(b"\x1b[?1049h", 1)[-1]
        assert b"\x1b[?1006l\x1b[?1000l" in tail and b"\x1b[?25h" in tail
        lflag = termios.tcgetattr(fd)[3]
        assert lflag & termios.ECHO and lflag & termios.ICANON  # cooked mode again
    finally:
        if port is not None:
            port.close()
        if pid:
            try:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            except OSError:
                pass
        os.close(fd)


def test_a_damaged_save_is_named_when_the_board_starts(save_dir, tmp_path):
    """Issue 22: a cut-short save file was dropped without a word; the board now says it
    started afresh and why, on its screen (resumed_note) and, without one, on stderr."""
    save_dir.mkdir(parents=True)
    cut_short = b"VSAVE1 900 0badc0de\n{\"game_id\": 1"
    (save_dir / "game.json").write_bytes(cut_short)
    named = "game.json is not a whole save"
    sim_proc = SimProcess("--save-dir", str(save_dir))
    try:
        assert sim_proc.cmd("state") == ["none"]
        end = time.monotonic() + TIMEOUT
        while "not resumed" not in "".join(sim_proc.stderr) and time.monotonic() < end:
            time.sleep(0.05)
        said = "".join(sim_proc.stderr)
        assert "The saved game was not resumed" in said and named in said
    finally:
        sim_proc.kill()
    board = sim.VirtualBoard(save_dir, sim.load_pinmap(), PtyPort())
    try:
        assert named in board.resumed_note()
    finally:
        board.port.close()


def test_a_second_virtual_board_takes_a_name_of_its_own_and_says_which(tmp_path):
    """Issue 22: two virtual boards shared the stable device name without a word (the
    second silently took it over). The second now keeps its own name and says so; the
    name of a board that was killed is free again."""
    name = tmp_path / "run" / "ttyVORA"
    env = dict(os.environ, VORA_SIM_DEVICE=str(name))
    first = SimProcess("--save-dir", str(tmp_path / "one"), env=env)
    second = third = None
    try:
        assert os.readlink(name) == first.path
        second = SimProcess("--save-dir", str(tmp_path / "two"), env=env)
        second.cmd("state")
        own = str(name) + "2"
        assert os.readlink(name) == first.path and os.readlink(own) == second.path
        end = time.monotonic() + TIMEOUT
        while own not in "".join(second.stderr) and time.monotonic() < end:
            time.sleep(0.05)
        said = "".join(second.stderr)
        assert "another virtual board runs as %s" % name in said
        assert "this one is %s" % own in said
        assert "another virtual board" not in "".join(first.stderr)
        from pty_screen import PtyScreen
        with PtyScreen([sys.executable, "-m", "vora_host", "sim", "--save-dir",
                        str(tmp_path / "four")], cols=120, rows=40, cwd=str(ROOT),
                       env={"VORA_SIM_DEVICE": str(name)}) as term:  # and on its screen
            term.wait_for("Another virtual board runs as")
            assert str(name) + "3" in " ".join(term.text().split())
        first.crash()  # killed: its name is free for the next board
        third = SimProcess("--save-dir", str(tmp_path / "three"), env=env)
        third.cmd("state")
        assert os.readlink(name) == third.path and "another" not in "".join(third.stderr)
    finally:
        for board in (first, second, third):
            if board is not None:
                board.kill()


def test_a_position_refused_for_the_saved_game_names_fresh(save_dir):
    """Issue 22: --position over the virtual board's saved game said only that a game is
    in progress; the board's own screen now names --fresh as well."""
    board = sim.VirtualBoard(save_dir, sim.load_pinmap(), PtyPort())
    try:
        board.ui.new_game("SN", SEED)
        position = "PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 CP/D G30"
        assert board.ui.set_position(position, 9, 0) != 0
        said = refusal(board)
        assert "a game is in progress" in said and "--fresh" in said
    finally:
        board.port.close()


def test_the_virtual_boards_lines_name_each_board_bots_level(save_dir):
    """The board's own bot has levels, chosen by holding its corner again in setup: the
    virtual board's status and help say which, so its player need not count flashes."""
    board = sim.VirtualBoard(save_dir, sim.load_pinmap(), PtyPort())
    try:
        ui = board.ui
        assert "held again: hard, easy, a person" in board.help_line()
        ui._set_bot("N", vora_ui.BOT_HARD)  # as two holds of cN make it
        assert "North (board bot, hard)" in board.status()
        ui.new_game("SN", SEED)
        assert board.seat_role("N") == "the board's bot, hard"
    finally:
        board.port.close()


def test_each_redraw_of_the_screen_is_one_synchronized_update(save_dir):
    """A terminal that knows synchronized updates (private mode 2026) shows each redraw
    whole, never a footer half drawn; one that does not ignores the marks."""
    import io

    board = sim.VirtualBoard(save_dir, sim.load_pinmap(), PtyPort())
    try:
        out = io.StringIO()
        shown = screen.Screen(board, out)
        for change in (None, lambda: setattr(shown, "cursor", layout.key_index("d4")),
                       lambda: setattr(shown, "entry", "c3")):
            if change:
                change()
            out.seek(0)
            out.truncate()
            shown.draw()
            drawn = out.getvalue()
            assert drawn.startswith(screen.BEGIN_UPDATE) and drawn.endswith(
                screen.END_UPDATE) and drawn.count(screen.BEGIN_UPDATE) == 1, repr(drawn[:80])
        out.seek(0)
        out.truncate()
        shown.draw()  # nothing changed: nothing written, not an empty update
        assert out.getvalue() == ""
    finally:
        board.port.close()


def test_a_click_is_held_until_the_board_has_seen_it(save_dir):
    """A click whose press and release come in one read while the board's scan has not run
    (a busy PC: `vora sim` lost a click so once, in the suite): the switch stays closed
    past its 80 ms until the firmware has debounced it down, then opens."""
    import asyncio
    import io

    board = sim.VirtualBoard(save_dir, sim.load_pinmap(), PtyPort())
    try:
        shown = screen.Screen(board, io.StringIO())
        keys = screen.KeyboardInput(shown, board, submit=lambda line: None,
                                    quit=lambda status: None)
        k = layout.key_index("cS")
        shown.key_at = lambda col, row: k  # where the click lands is not this test's
        app = board.app

        async def click_while_the_scan_sleeps():
            loop = asyncio.get_running_loop()
            keys.feed("\x1b[<0;10;10M\x1b[<0;10;10m")  # press and release, one read
            assert board.hw.closed >> k & 1
            # The release was due PRESS_MS after the press: wait past it, scanning nothing.
            await asyncio.sleep(sim.PRESS_MS / 1000 + 0.05)
            assert board.hw.closed >> k & 1, "released before the firmware ever saw it"
            now, end = 0, loop.time() + TIMEOUT
            while not app.scanner.is_pressed(k):
                assert loop.time() < end, "the scanner never saw the key down"
                now += 5
                app.scan_once(now)
                await asyncio.sleep(0)
            while board.hw.closed >> k & 1:
                assert loop.time() < end, "the key was never released"
                await asyncio.sleep(0.005)

        asyncio.run(click_while_the_scan_sleeps())
    finally:
        board.port.close()
