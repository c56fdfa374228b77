"""One program at a time on a board's serial port (issue 43, "the same for the board link").

Two real processes on the virtual board's pty: the first holds the port, the second is
refused at once, saying which program holds it (its command, process id and since when)
and what to do, and advising no reflash. Before, `vora doctor` beside `vora play`, `vora
update` and `vora flash` beside `vora mirror` all opened the port, took part of the
other's bytes and ended with "A board with stock MicroPython: vora flash installs the
firmware".
"""

import json
import os
import queue
import subprocess
import sys
import threading
import time

import pytest
import serial

from test_sim import ROOT, SimProcess
from vora_host.link import portlock

TIMEOUT = 60


class Background:
    """A vora command running beside the test, its output read line by line."""

    def __init__(self, *args, env):
        self.proc = subprocess.Popen([sys.executable, "-m", "vora_host", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1,
                                     cwd=str(ROOT), env=env)
        self.lines = queue.Queue()
        self.said = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, words, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            self.said.append(line)
            if words in line:
                return line
        raise AssertionError("no %r from %s; it said: %s" % (words, self.proc.args,
                                                            "\n".join(self.said)))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=TIMEOUT)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass


@pytest.fixture
def env(tmp_path):
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    return dict(os.environ, PYTHONUNBUFFERED="1", XDG_RUNTIME_DIR=str(runtime),
                VORA_SIM_DEVICE=str(tmp_path / "dev" / "ttyVORA"), COLUMNS="200")


def vora(*args, env, timeout=TIMEOUT):
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "vora_host", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=str(ROOT), env=env,
                          stdin=subprocess.DEVNULL)
    return done, time.monotonic() - t0


def refused(done, holder_pid, holder_words):
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1, said
    assert "is in use by" in said and holder_words in said, said
    assert "process %d" % holder_pid in said and "since " in said, said
    assert "kill %d" % holder_pid in said, said  # what to do
    advice = said.split(": ", 1)[1].replace(holder_words, "")  # past "vora flash: "
    assert "flash" not in advice and "install" not in advice, said  # no reflash advised
    return said


def test_doctor_beside_vora_play_on_the_virtual_board_is_refused_naming_play(tmp_path, env):
    play = Background("play", "--save-dir", str(tmp_path / "save"), "--db",
                      str(tmp_path / "log.sqlite3"), env=env)
    try:
        path = play.wait_for("/")  # its first line: the virtual board's device
        play.wait_for("mirror link: connected")  # its mirror holds the port now
        done, took = vora("doctor", "--port", env["VORA_SIM_DEVICE"], "--info", env=env)
        refused(done, play.proc.pid, "vora play")
        done, _ = vora("doctor", "--port", path, "--info", env=env)  # the pty itself
        refused(done, play.proc.pid, "vora play")
        assert play.proc.poll() is None  # the game goes on
    finally:
        play.stop()


@pytest.mark.parametrize("command", [("update",), ("flash", "--no-progress"),
                                     ("doctor", "--info"), ("repl",), ("mirror", "--plain")])
def test_a_second_program_beside_the_mirror_is_refused_naming_it(tmp_path, env, command):
    sim = SimProcess("--save-dir", str(tmp_path / "save"), env=env)
    mirror = Background("mirror", "--port", sim.path, "--plain", "--db",
                        str(tmp_path / "log.sqlite3"), env=env)
    try:
        mirror.wait_for("mirror link: connected")
        done, took = vora(command[0], "--port", sim.path, *command[1:], env=env)
        said = refused(done, mirror.proc.pid, "vora mirror --port %s" % sim.path)
        assert "mpremote" not in said or command[0] == "mirror"
        assert mirror.proc.poll() is None
        # The mirror still has the board whole: a move made now reaches it.
        sim.cmd("press c3")
        mirror.wait_for("mirror game:")
    finally:
        mirror.stop()
        sim.kill()
    # The port is free again once its holder is gone (the kernel dropped its locks).
    sim = SimProcess("--save-dir", str(tmp_path / "save"), env=env)
    try:
        done, _ = vora("doctor", "--port", sim.path, "--info", env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        sim.kill()


def test_a_port_held_by_a_program_without_a_note_is_named_from_the_system(tmp_path, env):
    """mpremote (or a serial terminal) writes no holder note: the process that has the
    device open is named."""
    sim = SimProcess("--save-dir", str(tmp_path / "save"), env=env)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import serial, sys, time\n"
         "s = serial.Serial(sys.argv[1], exclusive=True)\nprint('held', flush=True)\n"
         "time.sleep(120)", sim.path], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout.readline().strip() == "held"
        done, _ = vora("doctor", "--port", sim.path, "--info", env=env)
        said = refused(done, holder.pid, "serial.Serial")
        assert "python" in said
        mirror = Background("mirror", "--port", sim.path, "--plain", "--db",
                            str(tmp_path / "log.sqlite3"), env=env)
        try:  # refused too, and ends: it does not wait for ever
            assert mirror.proc.wait(timeout=TIMEOUT) == 1
            said = " ".join(" ".join(mirror.said + list(iter(mirror.lines.get, None))).split())
            assert "in use by" in said and "process %d" % holder.pid in said, said
        finally:
            mirror.stop()
    finally:
        holder.kill()
        holder.wait(timeout=TIMEOUT)
        holder.stdout.close()
        sim.kill()


def test_a_note_left_by_a_dead_program_does_not_hold_the_port(tmp_path, env, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    sim = SimProcess("--save-dir", str(tmp_path / "save"), env=env)
    try:
        note = portlock.note_path(sim.path)
        os.makedirs(os.path.dirname(note), mode=0o700, exist_ok=True)
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout.strip()
        with open(note, "w") as f:  # unlocked, its writer gone: stale
            json.dump({"pid": int(dead), "command": "vora mirror", "since": time.time()}, f)
        assert portlock.who_holds(sim.path) is None
        done, _ = vora("doctor", "--port", sim.path, "--info", env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert not os.path.exists(note)  # taken over, then removed when let go
    finally:
        sim.kill()


def test_holds_nest_in_one_process_and_the_device_is_opened_exclusively(tmp_path, env,
                                                                         monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    sim = SimProcess("--save-dir", str(tmp_path / "save"), env=env)
    try:
        with portlock.hold(sim.path):
            ser, path = portlock.open_serial(sim.path, timeout=0)  # nested: same process
            try:
                with pytest.raises(serial.SerialException):  # pyserial's flock refuses
                    serial.Serial(sim.path, exclusive=True)
            finally:
                portlock.close_serial(ser, path)
            assert os.path.exists(portlock.note_path(sim.path))  # still held by the block
        assert not os.path.exists(portlock.note_path(sim.path))
    finally:
        sim.kill()


def test_the_message_escapes_a_hostile_command_line():
    said = portlock.busy_message("/dev/ttyACM0", {"pid": 7, "command": "x\x1b[2Jy\nz",
                                                  "since": None})
    assert "\x1b" not in said and "\n" not in said and "\\x1b" in said


def _other_process_takes(device, env):
    """Whether another process's vora can take the port `device` now: 'ok', or 'busy'
    and what it is told."""
    code = ("import sys\nfrom vora_host.link import portlock\n"
            "try:\n    portlock.release(portlock.acquire(sys.argv[1]))\n"
            "except portlock.PortBusy as exc:\n    print('busy', exc)\nelse:\n    print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code, device], capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=str(ROOT), env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_mirror_waiting_by_a_name_holds_the_device_it_names_only_while_open(
        tmp_path, env, monkeypatch):
    """CI, 2026-11-29: `vora repl --port /dev/pts/0` on a new virtual board was refused as
    "in use by vora mirror --port .../ttyBOARD", a mirror whose own board had gone: its
    hold was kept for the device its name had pointed at when it started, which the
    system had since given to another board. A program holds the name it was given for
    as long as it runs, and the device behind it only while it has that device open."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    sim = SimProcess("--save-dir", str(tmp_path / "save"), env=env)
    name = tmp_path / "ttyBOARD"
    os.symlink(sim.path, name)
    try:
        held = portlock.acquire(str(name))  # as vora mirror --port ttyBOARD holds it
        try:
            assert _other_process_takes(str(name), env).startswith("busy")
            assert _other_process_takes(sim.path, env) == "ok"  # not opened: not held
            ser, hold = portlock.open_serial(str(name), timeout=0)
            try:  # opened through the name: the device itself is held too
                said = " ".join(_other_process_takes(sim.path, env).split())
                assert said.startswith("busy") and "process %d" % os.getpid() in said, said
            finally:
                portlock.close_serial(ser, hold)
            assert _other_process_takes(sim.path, env) == "ok"  # closed: free again
            assert _other_process_takes(str(name), env).startswith("busy")
        finally:
            portlock.release(held)
        assert _other_process_takes(str(name), env) == "ok"
    finally:
        sim.kill()
