"""What a virtual board and a game's screen cost while they wait for a key (issue 42).

The suite keeps many `vora sim` and `vora play --port sim` processes alive for tens of
seconds while it looks at them; each burned 4-11% of a core doing nothing. These tests hold
what took that down, without changing what anyone sees or how fast a key is answered:

- the firmware's loop on the virtual board (vora_host.virtual.pace): quiet, one round a
  frame; lively (a key, the link, the board's bot), the App's own periods, a key pressed
  seen no later than App.run sees it.

The firmware's pace is checked on a clock of the test's own (Pacer.step), the rest by
counting, so that none of it depends on how busy the machine is (what runs in real time
waits for what it counts, with a deadline).
"""

import asyncio

import pytest

from shared_rules import wire
from vora_fw import layout
from vora_fw.app import App, FRAME_MS
from vora_fw.clock import ticks_add, ticks_diff, ticks_ms
from vora_host.virtual import board as sim
from vora_host.virtual.pace import LIVELY_MS, Pacer
from vora_host.virtual.port import PtyPort

TIMEOUT = 60  # seconds for what should come at once: generous, under load


@pytest.fixture
def board(tmp_path):
    b = sim.VirtualBoard(tmp_path / "save", sim.load_pinmap(), PtyPort())
    yield b
    b.port.close()


def _run(pacer, start, ms, until=None):
    """Pacer.step on the test's clock from `start` for `ms` ms (or until `until()`), each
    round when the last one asked; the time it stopped."""
    now = start
    while ticks_diff(now, start) < ms and not (until is not None and until()):
        now = ticks_add(now, max(1, pacer.step(now)))
    return now


# ---------------------------------------------------------------- the firmware's pace

def test_a_quiet_virtual_board_runs_its_firmware_once_a_frame(board):
    """Nothing pressed, no link, a person to play: a second of the board is 30 rounds,
    each a scan, a look at the link and a frame (App.run: 200 scans and 200 looks)."""
    start = ticks_ms()
    pacer = Pacer(board.app, board.hw, now=start)
    assert not pacer.lively(start)
    scans, frames = board.hw.scans, board.hw.pixels.frames_written
    _run(pacer, start, 1000)
    scanned = board.hw.scans - scans
    drawn = board.hw.pixels.frames_written - frames
    assert 1000 // FRAME_MS - 1 <= drawn <= 1000 // FRAME_MS + 1, drawn
    assert scanned <= drawn + 1, (scanned, drawn)


def test_a_key_pressed_on_a_quiet_board_is_seen_as_soon_as_app_run_sees_it(board):
    """The PC closes a switch (and nudges the loop, as VirtualBoard.key_down does): the
    firmware scans at once and every scan period, and the press is reported, its frame
    drawn, once the debounce time has passed; App.run's first scan could come a scan
    period later."""
    app = board.app
    start = ticks_ms()
    pacer = Pacer(app, board.hw, now=start)
    now = _run(pacer, start, 200)  # quiet for a while
    k = layout.key_index("c3")
    board.hw.press(k)
    pacer.nudge(now)
    pressed_at = now
    frames = board.hw.pixels.frames_written
    now = _run(pacer, now, 1000, until=lambda: app.scanner.is_pressed(k))
    assert app.scanner.is_pressed(k)
    assert ticks_diff(now, pressed_at) <= app.scanner.debounce_ms + app.scan_ms, \
        ticks_diff(now, pressed_at)
    assert board.hw.pixels.frames_written > frames  # the key's frame, at once


def test_the_board_lively_runs_its_firmware_at_the_apps_own_periods(board):
    """A switch closed, the link owing the PC an answer, the board's own bot to play (it
    thinks one candidate move a tick): every scan period a scan, as App.run does."""
    app = board.app
    start = ticks_ms()

    def scans_in_a_second():
        pacer = Pacer(app, board.hw, now=start)
        scans = board.hw.scans
        _run(pacer, start, 1000)
        return board.hw.scans - scans

    k = layout.key_index("a1")
    board.hw.press(k)
    assert scans_in_a_second() >= 1000 // app.scan_ms // 2
    board.hw.release(k)
    _run(Pacer(app, board.hw, now=start), start, 200)  # the release settles
    assert scans_in_a_second() <= 1000 // FRAME_MS + 1

    session = board.link.session
    session.reset()  # as a host's HELLO does
    session.send(wire.LOG, wire.pack_text("unacknowledged"))
    assert not session.idle
    assert scans_in_a_second() >= 1000 // app.scan_ms // 2
    session.close()

    ui = app.ui
    ui.board_bots = "SN"  # both seats the board's bots: a bot always to play
    ui.new_game("SN", 3)
    assert Pacer(app, board.hw, now=start).lively(start)
    assert scans_in_a_second() >= 1000 // app.scan_ms // 2


def test_lively_lasts_a_while_after_a_nudge(board):
    """After the PC's last touch the board stays lively LIVELY_MS: an exchange it began
    (an acknowledgement owed, the next message) is served at the board's own pace."""
    start = ticks_ms()
    pacer = Pacer(board.app, board.hw, now=start)
    pacer.nudge(start)
    assert pacer.lively(ticks_add(start, LIVELY_MS - 1))
    assert not pacer.lively(ticks_add(start, LIVELY_MS))


def test_a_nudge_wakes_the_sleeping_loop_at_once(board):
    """The loop, asleep until its next frame, runs again as soon as a switch closes: the
    scan does not wait for the frame's time."""
    async def press_while_it_sleeps():
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(board.machine.run())
        try:
            end = loop.time() + TIMEOUT
            while board.hw.scans < 3:  # running, and asleep between frames
                assert loop.time() < end, "the firmware never ran"
                await asyncio.sleep(0.01)
            await asyncio.sleep(0)
            scans = board.hw.scans
            board.key_down(layout.key_index("c3"))
            for _ in range(5):  # a few turns of the loop, no time for a timer
                await asyncio.sleep(0)
                if board.hw.scans > scans:
                    break
            assert board.hw.scans > scans, "the scan waited for the frame"
        finally:
            board.key_up(layout.key_index("c3"))
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(press_while_it_sleeps())


def test_the_virtual_board_runs_its_firmware_at_the_pacers_pace(board):
    """`vora sim`'s loop (SimMachine.run) runs the App through the pacer: a quiet board
    scans about once a frame, in real time."""
    async def watch():
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(board.machine.run())
        try:
            end = loop.time() + TIMEOUT
            while board.pacer.lively(ticks_ms()) or board.hw.pixels.frames_written < 2:
                assert loop.time() < end, "the board never became quiet"
                await asyncio.sleep(0.01)
            scans, frames = board.hw.scans, board.hw.pixels.frames_written
            while board.hw.pixels.frames_written < frames + 15:
                assert loop.time() < end, "the board drew no frames"
                await asyncio.sleep(0.01)
            drawn = board.hw.pixels.frames_written - frames
            assert board.hw.scans - scans <= drawn + 2, (board.hw.scans - scans, drawn)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(watch())


def test_the_pacer_runs_what_app_run_runs():
    """The pacer calls the App's steps as App.run schedules them (vora_fw.app). Should
    App.run or its loops change what they call, this fails: vora_host/virtual/pace.py
    must then do the same."""
    names = set(App.run.__code__.co_names)
    for loop in (App._scan_loop, App._render_loop, App._link_loop):
        names |= set(loop.__code__.co_names)
    known = {"sample_keys", "asyncio", "create_task", "_scan_loop", "_render_loop",
             "link", "link_read", "append", "_link_loop", "gather", "stop_sampling",
             "output", "off", "stopping", "ticks_ms", "scan_once", "render_once",
             "_sleep_ms", "scan_ms", "FRAME_MS", "poll_link"}
    assert names == known, "App.run changed: %s" % sorted(names ^ known)
