"""The pace of the firmware's loop on the virtual board: busy when something happens, else
once a frame.

On a board, the firmware's App.run scans the keys every 5 ms, serves the link every 5 ms
and draws a frame every 33 ms (vora_fw.app). On the PC each of those 430 wake-ups a
second costs the event loop tens of microseconds whatever it finds, so a virtual board
left waiting for a key burned 4-6% of a core (issue 42, docs/benchmarks.md). Yet on the virtual board nothing
can change between frames unless the PC makes it change: its switches close only when
the screen, a command or a test presses them (VirtualBoard.key_down...), and bytes come
only through its pty (VirtualBoard.receive). So `Pacer.run` calls the App's own steps
(scan_once, poll_link, render_once) at the App's own periods while the board is lively,
and when it is quiet only once a frame, scan and link first, as the frame's time comes:

- lively: for LIVELY_MS after the PC touched it (`nudge`: a switch, bytes in, a typed
  move), while a switch is closed or a key settles, while the link owes the PC something
  (its session is not idle), and while the firmware's game counts on its ticks: the
  board's bot thinks a step a tick, a previewed move plays at its time, a corner is held;
- quiet: nothing of that. A frame is still drawn every FRAME_MS, so blinking keys and
  fades look as they do on the board, and the game's timers (a peek that ends, a save
  tried again) run just before the frame that shows them.

A key pressed wakes the loop at once and is scanned then: the firmware sees it no later
than it did (App.run's scan came up to a scan period later).
"""

import asyncio

from vora_fw import vora_ui
from vora_fw.app import FRAME_MS
from vora_fw.clock import ticks_add, ticks_diff, ticks_ms

from vora_host.wakeable import WakeableSleep

__all__ = ["Pacer", "LIVELY_MS", "LINK_MS"]

LINK_MS = 5  # App._link_loop's period
# Full pace this long after the PC touched the board: past the debounce time and a few
# scans more, by when what the touch began (a key settling, a message's answer owed) keeps
# the board lively by itself; a margin for what the checks below do not see.
LIVELY_MS = 100


class Pacer:
    """Runs `app` (a vora_fw.app.App on simulated hardware `hw`) as App.run does, at full
    pace only while the board is lively (module comment). `run()` takes App.run's place;
    `step(now)` is one round of it, for the tests to drive on a clock of their own."""

    def __init__(self, app, hw, now=None):
        self.app = app
        self.hw = hw
        now = ticks_ms() if now is None else now
        self._lively_until = now
        self._next_scan = self._next_link = self._next_frame = now
        self._sleep = WakeableSleep()  # run()'s, ended early by nudge()

    def nudge(self, now=None):
        """The PC touched the board (a switch, bytes, a move typed): a scan and a look at
        the link at once, and full pace from now."""
        now = ticks_ms() if now is None else now
        self._lively_until = ticks_add(now, LIVELY_MS)
        self._next_scan = self._next_link = now
        self._sleep.wake()

    def lively(self, now):
        """True while the board must run at the firmware's own pace (module comment)."""
        if ticks_diff(self._lively_until, now) > 0:
            return True
        app = self.app
        if _game_counts_on_ticks(app.ui):
            return True
        link = app.link
        if link is not None and not link.session.idle:
            return True
        if link is None and app.link_read is not None:
            return True  # a link made at the PC's first byte: read() is polled
        if app.scanner.settling or app.scanner.state:
            return True
        return self.hw.closed != 0

    def step(self, now):
        """One round at `now`: what is due of the App's scan, link and frame (lively, at
        their own periods; quiet, all three with the frame). Returns the milliseconds
        until the next round."""
        app = self.app
        frame_due = ticks_diff(now, self._next_frame) >= 0
        lively = self.lively(now)
        if frame_due and not lively or lively and ticks_diff(now, self._next_scan) >= 0:
            if app.scan_once(now):
                app.render_once(now, force=True)  # a key event: its frame at once
            self._next_scan = ticks_add(now, app.scan_ms)
        if frame_due and not lively or lively and ticks_diff(now, self._next_link) >= 0:
            app.poll_link(now)
            self._next_link = ticks_add(now, LINK_MS)
        if frame_due:
            app.render_once(now)
            self._next_frame = ticks_add(now, FRAME_MS)
        wake = self._next_frame
        if self.lively(now):  # (a step may have made it lively: a key event, a message)
            for t in (self._next_scan, self._next_link):
                if ticks_diff(t, wake) < 0:
                    wake = t
        return max(0, ticks_diff(wake, now))

    async def run(self):
        """App.run, paced: until the PC asks for the REPL (forever otherwise)."""
        app = self.app
        app.sample_keys()
        now = ticks_ms()
        self._next_scan = self._next_link = self._next_frame = now
        try:
            while not app.stopping():
                ms = self.step(ticks_ms())
                if ms:
                    await self._sleep.sleep(ms / 1000)
                else:
                    await asyncio.sleep(0)  # due again at once: others run first all the same
        finally:
            app.stop_sampling()  # as App.run: the REPL's board scans on demand
        app.output.off()


def _game_counts_on_ticks(ui):
    """True while the firmware's game does something at each tick, or at a time of its
    own (VoraUI.tick): a corner held (the menu opens at HOLD_MS), a move played that is
    not settled, a move previewed that plays at its time, the board's bot thinking (one
    candidate move a tick)."""
    if ui.held_key >= 0 or ui.unsettled is not None or ui.auto_move is not None:
        return True
    state = ui.state
    return (ui.mode == vora_ui.MODE_PLAY and state is not None
            and state.seats[state.active] in ui.board_bots)
