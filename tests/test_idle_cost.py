"""What a virtual board and a game's screen cost while they wait for a key (issue 42).

The suite keeps many `vora sim` and `vora play --port sim` processes alive for tens of
seconds while it looks at them; each burned 4-11% of a core doing nothing. These tests hold
what took that down, without changing what anyone sees or how fast a key is answered:

- the firmware's loop on the virtual board (vora_host.virtual.pace): quiet, one round a
  frame; lively (a key, the link, the board's bot), the App's own periods, a key pressed
  seen no later than App.run sees it;
- the screen: an unchanged look writes nothing, and what is drawn from a position alone
  (the PC game's picture, Vorcept's state read back from its JSON) is made once for it;
- the PC's link follower: a quiet link is looked at less often, and the board's bytes
  wake it at once.

The firmware's pace is checked on a clock of the test's own (Pacer.step), the rest by
counting, so that none of it depends on how busy the machine is (what runs in real time
waits for what it counts, with a deadline).
"""

import asyncio
import io

import pytest

from shared_rules import vorcept, wire
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


# ---------------------------------------------------------------- the screen

def _vorcept_on_the_screen(board, monkeypatch):
    from vora_host.bots import RandomBot
    from vora_host.games import host_game
    from vora_host.play.board import BoardGame
    from vora_host.play.board_session import BoardGameCompanion
    from vora_host.play.terminal import Human
    from vora_host.virtual.screen import Screen

    from test_board_games import FakeClient

    state = vorcept.new_game(2, seed=3)
    companion = BoardGameCompanion("vorcept", state, [Human(), RandomBot(1)])
    board.terminal_keys = companion.key_names_and_marks
    board.terminal_companion = companion
    companion.game = BoardGame("vorcept", state, companion.agents, FakeClient())
    asked = {"render": 0, "determinize": 0}
    view, mapping = host_game("vorcept").VIEW, host_game("vorcept").BOARD
    render, determinize = view.render, vorcept.determinize

    def counted_render(*args, **kwargs):
        asked["render"] += 1
        return render(*args, **kwargs)

    def counted_determinize(*args, **kwargs):
        asked["determinize"] += 1
        return determinize(*args, **kwargs)

    monkeypatch.setattr(view, "render", counted_render)
    monkeypatch.setattr(vorcept, "determinize", counted_determinize)
    monkeypatch.setattr(mapping, "_seen_kept", None)  # nothing kept from another test
    out = io.StringIO()
    return Screen(board, out, companion), companion, out, asked


def test_an_idle_screen_writes_nothing_and_draws_a_position_once(board, monkeypatch):
    """A PC game beside the virtual board, nothing happening: looks after the first write
    nothing, and the game's picture is drawn, its state read back from its JSON, once
    for the position; a move, a light, a switch are drawn at the next look."""
    shown, companion, out, asked = _vorcept_on_the_screen(board, monkeypatch)
    shown.draw()
    assert shown.frames_drawn == 1
    assert asked == {"render": 1, "determinize": 2}  # the picture's, the keys' marks'
    written = len(out.getvalue())
    for _ in range(20):
        shown.draw()
    assert shown.frames_drawn == 1 and len(out.getvalue()) == written
    assert asked == {"render": 1, "determinize": 2}

    move = companion.state.legal_moves()[0]
    companion.game.play(move, ticks_ms())
    shown.draw()
    assert shown.frames_drawn == 2
    assert asked == {"render": 2, "determinize": 4}
    for _ in range(5):
        shown.draw()
    assert shown.frames_drawn == 2 and asked == {"render": 2, "determinize": 4}

    k = layout.key_index("c3")
    frame = bytearray(board.hw.pixels.buf)
    frame[:3] = bytes((9, 99, 9)) if frame[:3] != bytes((9, 99, 9)) else bytes((1, 2, 3))
    board.hw.pixels.write(frame)  # a light changed
    shown.draw()
    assert shown.frames_drawn == 3
    board.hw.press(k)  # a switch closed: its key drawn held
    shown.draw()
    assert shown.frames_drawn == 4
    shown.draw()
    assert shown.frames_drawn == 4


def test_vorcept_lights_read_the_state_once_a_position(monkeypatch):
    """The frame the PC sends the board is asked for 50 times a second, each at another
    time (the Hosts breathe): the state is read back from its view once a position."""
    from vora_host.games import host_game

    mapping = host_game("vorcept").BOARD
    monkeypatch.setattr(mapping, "_seen_kept", None)
    asked = []
    determinize = vorcept.determinize
    monkeypatch.setattr(vorcept, "determinize",
                        lambda *args: asked.append(1) or determinize(*args))
    state = vorcept.new_game(2, seed=3)
    frames = [mapping.frame(state, 0, now) for now in range(0, 2000, 20)]
    assert len(asked) == 1 and len(frames) == 100
    state.play(state.legal_moves()[0])
    after = mapping.frame(state, 0, 0)
    assert len(asked) == 2
    assert after == [tuple(rgb) for rgb in mapping.frame(vorcept.from_json(
        state.to_json()), 0, 0)]


def test_a_frame_keeps_levels_out_of_range_within_a_byte():
    """compose_frame clamps what a game's frame gives outside 0..255 (and truncates a
    fraction), as it always did."""
    from vora_host.games.base import KEYS
    from vora_host.games.vorcept.board import VorceptBoard
    from vora_host.play.board_keys import KeyPad, compose_frame

    class Loud(VorceptBoard):
        def frame(self, state, viewer, now):
            return [(300, -5, 12.7)] + [(0, 0, 0)] * (KEYS - 1)

    loud = Loud(vorcept)
    frame = compose_frame(loud, vorcept.new_game(2, seed=3), 0, KeyPad(loud), 0)
    assert frame[:3] == bytes((255, 0, 12)) and len(frame) == 3 * KEYS


# ---------------------------------------------------------------- the PC's follower

class _Port:
    broken = None

    def read(self):
        return b""


def test_the_follower_looks_less_often_at_a_quiet_link_and_wakes_for_bytes():
    """Connected with nothing under way, the follower's loop waits QUIET_POLL_S; while
    an exchange is under way (or before a session), POLL_S. Bytes from the board end
    the wait at once."""
    from vora_host.link import mirror

    follower = mirror.Follower("/dev/null-not-a-board")
    client = follower.client
    assert not follower.quiet()  # no session yet: the HELLOs keep their pace
    client.connected = True
    client.session.reset()
    assert follower.quiet()
    client.session.send(wire.STATE_REQ, b"")
    assert not follower.quiet()  # a request not acknowledged: resends are timed

    async def bytes_during_a_long_wait():
        follower.port = _Port()
        pause = asyncio.create_task(follower._pause.sleep(TIMEOUT))
        while not follower._pause.sleeping:
            await asyncio.sleep(0)
        follower._readable()
        await asyncio.wait_for(pause, TIMEOUT / 2)

    asyncio.run(bytes_during_a_long_wait())
    assert mirror.QUIET_POLL_S > mirror.POLL_S
