"""An asyncio sleep that something else can end early.

The virtual board's paced loop (vora_host.virtual.pace) and the mirror's link follower
(vora_host.link.mirror) sleep until their next look is due, which may be a whole frame or
50 ms away when nothing happens; a key pressed or the board's bytes must not wait for it.
"""

import asyncio

__all__ = ["WakeableSleep"]


class WakeableSleep:
    """sleep(seconds), ended at once by wake() (from the same event loop)."""

    def __init__(self):
        self._waiter = None  # the future a sleep under way waits on

    @property
    def sleeping(self):
        return self._waiter is not None

    async def sleep(self, seconds):
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = loop.call_later(seconds, _done, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None

    def wake(self):
        """End the sleep under way now; nothing when none is."""
        if self._waiter is not None:
            _done(self._waiter)


def _done(waiter):
    if not waiter.done():
        waiter.set_result(None)
