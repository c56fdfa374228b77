"""A virtual board's stable name left by a board that was killed is not followed: the
pseudo-terminal it points at goes to the next program that asks for one (another virtual
board, a terminal), and a mirror that kept opening the name once took another test's
board in a whole run (issue 43). vora_host.link.ports.name_gone tells it."""

import asyncio
import os
import subprocess
import sys

from vora_host.link import mirror, ports
from vora_host.virtual.port import StableName


def _dead_pid():
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def _pty():
    master, slave = os.openpty()
    return master, slave, os.ttyname(slave)


def test_a_name_whose_board_runs_is_followed_and_one_left_by_a_killed_board_is_not(tmp_path):
    master, slave, path = _pty()
    try:
        name = StableName(tmp_path / "ttyVORA", path)  # held by this process: running
        assert os.readlink(name.link) == path and not ports.name_gone(name.link)
        name._release()  # the board killed: its lock goes, its link stays
        with open(name.link + ".lock", "w") as f:
            f.write("%d\n" % _dead_pid())
        assert ports.name_gone(name.link)
        # Any other path is left to the port: a plain link (a USB board's udev name), a
        # device, a name whose lock says nothing.
        os.symlink(path, tmp_path / "ttyUSB")
        assert not ports.name_gone(tmp_path / "ttyUSB") and not ports.name_gone(path)
        with open(name.link + ".lock", "w") as f:
            f.write("")
        assert not ports.name_gone(name.link)
    finally:
        os.close(master)
        os.close(slave)


def test_the_mirror_waits_at_a_name_left_by_a_killed_board(tmp_path, monkeypatch):
    master, slave, path = _pty()
    link = tmp_path / "ttyVORA"
    os.symlink(path, link)
    with open(str(link) + ".lock", "w") as f:
        f.write("%d\n" % _dead_pid())
    opened = []
    monkeypatch.setattr(mirror, "SerialPort", lambda p: opened.append(p))
    follower = mirror.Follower(str(link))

    async def run():
        task = asyncio.create_task(follower.run())
        for _ in range(2000):  # until it said why it waits (a deadline, not a pace)
            if follower.status.startswith("waiting"):
                break
            await asyncio.sleep(0.005)
        task.cancel()
    try:
        asyncio.run(run())
    finally:
        os.close(master)
        os.close(slave)
    assert follower.status.startswith("waiting") and opened == []
