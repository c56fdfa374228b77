"""One virtual board per save folder (the Vora issue): two `vora play` (or `vora sim`) on
one folder resumed the same game and fought over the log, and a --fresh in one wiped the
other's game. The second is now refused with a message saying which process holds the
folder; the lock goes with its process, even one killed outright."""

import fcntl
import os
import signal
import subprocess
import sys

from vora_host.virtual.savelock import LOCK_NAME, SaveFolderBusy, SaveLock

from test_sim import ROOT, SimProcess


def second_sim(folder, *extra):
    return subprocess.run(
        [sys.executable, "-m", "vora_host", "sim", "--headless", "--save-dir", str(folder),
         *extra], input="quit\n", capture_output=True, text=True, timeout=60, cwd=str(ROOT))


def test_a_second_board_on_the_same_folder_is_refused_and_wipes_nothing(tmp_path):
    folder = tmp_path / "save"
    first = SimProcess("--save-dir", str(folder), "--fresh", "--seed", "3")
    try:
        first.cmd("press c3")  # deal: the board saves its game
        saved = sorted(p.name for p in folder.iterdir())
        assert "game.json" in saved
        before = (folder / "game.json").read_bytes()
        for extra in ((), ("--fresh",)):
            done = second_sim(folder, *extra)
            assert done.returncode == 1
            assert "in use by another virtual board (process %d)" % first.proc.pid in done.stderr
            assert "--save-dir" in done.stderr and "Traceback" not in done.stderr
        assert (folder / "game.json").read_bytes() == before  # --fresh wiped nothing
        # `vora play` on the virtual board is refused the same way.
        done = subprocess.run(
            [sys.executable, "-m", "vora_host", "play", "--port", "sim", "--no-log",
             "--save-dir", str(folder)], input="quit\n", capture_output=True, text=True,
            timeout=60, cwd=str(ROOT))
        assert done.returncode == 1 and "in use by another virtual board" in done.stderr
    finally:
        first.proc.send_signal(signal.SIGKILL)  # the lock goes with the process
        first.kill()
    done = second_sim(folder)
    assert done.returncode == 0, done.stderr


def test_the_lock_is_taken_and_given_back(tmp_path):
    one, two = SaveLock(), SaveLock()
    one.acquire(tmp_path)
    try:
        two.acquire(tmp_path)
    except SaveFolderBusy as exc:
        assert "process %d" % os.getpid() in str(exc)
    else:
        raise AssertionError("two locks on one folder")
    assert (tmp_path / LOCK_NAME).read_text() == "%d\n" % os.getpid()
    one.release()
    assert not (tmp_path / LOCK_NAME).exists()  # the folder holds only the board's save
    two.acquire(tmp_path)
    two.release()


def test_a_newcomer_that_locked_a_removed_file_takes_a_fresh_one(tmp_path, monkeypatch):
    # The race of removing a lock file: the newcomer opened the old file, its holder
    # removed it and let go, the newcomer locked it. It must not count as the lock.
    one = SaveLock()
    one.acquire(tmp_path)
    real_flock = fcntl.flock
    calls = []

    def flock(fd, op):
        if not calls and op & fcntl.LOCK_EX:
            calls.append(fd)
            one.release()  # the holder quits between the newcomer's open and its flock
        return real_flock(fd, op)
    monkeypatch.setattr(fcntl, "flock", flock)
    two = SaveLock()
    two.acquire(tmp_path)
    assert os.path.samestat(os.fstat(two.fd), os.stat(tmp_path / LOCK_NAME))
    monkeypatch.undo()
    three = SaveLock()
    try:
        three.acquire(tmp_path)
    except SaveFolderBusy:
        pass
    else:
        raise AssertionError("the fresh lock file is not held")
    two.release()
