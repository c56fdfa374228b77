"""The board application: asyncio tasks that scan keys, draw frames and serve the link.

Everything is driven by two synchronous steps, scan_once() and render_once(), so the
virtual board and the tests run the very same code with a simulated clock; run() only
schedules them. Scanning never waits for a frame: an animation is a function of time
drawn by render_once(), not a sleep.
"""

import gc

try:
    import asyncio
except ImportError:  # a MicroPython build without asyncio
    asyncio = None  # type: ignore[assignment]

try:
    from micropython import const
except ImportError:
    def const(x):  # type: ignore[misc]
        return x

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

from vora_fw.clock import ticks_diff, ticks_ms

TERMINAL = const(1)  # shared_rules.wire.MODE_TERMINAL
from vora_fw.keyscan import NO_EVENTS, KeyScanner
from vora_fw.pixels import PixelOutput
from vora_fw.vora_ui import VoraUI

FRAME_MS = const(33)  # about 30 frames a second for blinks and fades
# Heap kept aside for the worst case: given back when an allocation fails twice, so that
# the game can still be saved (_guarded).
RESERVE_BYTES = const(4096)
# The PC's bytes kept while the link cannot be made yet (out of memory): a frame and more.
PENDING_BYTES = const(1024)
# A key-scanning interrupt that has taken no reading for this long has stopped.
SAMPLER_SILENT_MS = const(500)
# Batches of events one scan_once() takes from the interrupt's readings at most (each
# reading kept gives at most two; more wait for the next scan).
DRAIN_BATCHES = const(80)


class App:
    def __init__(self, hw, pinmap, store=None, link=None, seed_fn=None, now=0, id_fn=None):
        # The reserve first, while the heap is in one piece; a heap with no 4 KB block left
        # (a board restarted without a reset) starts without it, and _guarded makes it
        # once memory allows, as after an out-of-memory.
        try:
            self.reserve = bytearray(RESERVE_BYTES)  # type: bytearray | None
        except MemoryError:
            self.reserve = None
        self.hw = hw
        self.scan_ms = pinmap.get("scan_period_ms", 5)
        self.scanner = KeyScanner(pinmap.get("debounce_ms", 20))
        self.output = PixelOutput(pinmap, hw.pixels)
        self.frame = bytearray(147)
        self.rows = bytearray(7)  # one scan, a byte per row: ints over 30 bits would allocate
        self.sampler = None  # type: Any  # a KeySampler while a timer interrupt scans
        self._samples_seen = 0
        self._samples_at = now
        self.sampler_failures = 0  # times the interrupt stopped and the loop scanned again
        self.link = link
        self.ui = VoraUI(store, seed_fn or (lambda: ticks_ms()), self._on_event, now, id_fn)
        self.ui.digest_wanted = self._link_listens  # no digest hashed for nobody
        self.last_frame = now
        self.dirty = True
        self.memory_errors = 0  # MemoryErrors caught in play (each retried once)
        self.out_of_memory = 0  # times an allocation failed twice in a row
        # The link made at the PC's first byte (link_on_demand): read() and make_link().
        self.link_read = None  # type: Any
        self.make_link = None  # type: Any
        self.link_pending = b""  # bytes read before the link could be made (MemoryError)
        if link is not None:
            link.attach(self.ui)
        self.ui.resume()  # after the link, so that it hears of the resumed game

    def link_on_demand(self, read, make_link):
        """Make the link when the PC first sends a byte, not before: read() gives the bytes
        waiting (b"" when none), make_link() imports and builds the BoardLink. A board that
        plays alone so never holds the link's code (vora_fw.link, shared_rules.wire and
        session, vora_fw.maker) on its heap."""
        self.link_read = read
        self.make_link = make_link

    def attach_link(self, link):
        """A link made after the start hears what it would have heard at power-up."""
        self.link = link
        link.attach(self.ui)
        if self.ui.state is not None:
            link.game_event("resume", self.ui.state, None)

    def poll_link(self, now):
        """Serve the link; with no link yet, watch for the PC's first bytes and then make it:
        those bytes are its first input, so nothing the PC sent is lost."""
        link = self.link
        if link is None:
            if self.link_read is None:
                return
            data = self.link_read()
            if not data:
                return
            if self.link_pending:
                data = self.link_pending + data
            try:
                link = self.make_link()
            except MemoryError:
                # The game goes on; the bytes wait for the next try, at the PC's next bytes
                # (a PC repeats what goes unanswered, so a bounded tail is enough).
                self.link_pending = data[-PENDING_BYTES:]
                self.memory_errors += 1
                gc.collect()
                return
            self.link_pending = b""
            self.attach_link(link)
            link.receive(data, now)
        link.poll(now)

    def _on_event(self, event, state, detail):
        if self.link is not None:
            self.link.game_event(event, state, detail)

    def _link_listens(self):
        link = self.link
        return link is not None and link.connected

    def terminal(self):
        """True while the PC drives the pixels and takes the keys (terminal mode)."""
        return self.link is not None and self.link.mode == TERMINAL

    def sample_keys(self):
        """Have the keys scanned from a timer interrupt where the hardware can
        (hal_rp2.Hardware.sample_keys; vora_fw.keysample says why): scan_once() then
        takes the readings the interrupt kept. Elsewhere (or with no timer to be had) it
        scans on each call."""
        start = getattr(self.hw, "sample_keys", None)
        sampler = None if start is None else start(self.scan_ms)
        if sampler is not None:
            self.use_sampler(sampler, now=ticks_ms())

    def use_sampler(self, sampler, now):
        """Take the key readings from sampler (a vora_fw.keysample.KeySampler) from now on."""
        self.sampler = sampler
        self._samples_seen = sampler.samples
        self._samples_at = now

    def stop_sampling(self):
        stop = getattr(self.hw, "stop_sampling", None)
        if stop is not None:
            stop()
        self.sampler = None

    def _sampled(self, now):
        """The events of the readings the interrupt kept, or None when it has stopped
        taking any (an exception in it ends its timer): the scan is then the loop's again."""
        sampler = self.sampler
        count = sampler.samples
        if count != self._samples_seen:
            self._samples_seen = count
            self._samples_at = now
        elif ticks_diff(now, self._samples_at) > SAMPLER_SILENT_MS:
            self.stop_sampling()
            self.sampler_failures += 1
            return None
        return sampler.drain(self.scanner, now)

    def scan_once(self, now):
        """Read the matrix (or the readings a timer interrupt kept), debounce, hand key
        events to the game (or, in terminal mode, to the PC only). Returns the events: with
        an interrupt's readings, those of the last batch handed on (keysample.drain hands
        them on a batch at a time), so a scan with any event returns some."""
        if self.sampler is None:
            return self._scan_batch(now)
        last = NO_EVENTS
        for _ in range(DRAIN_BATCHES):
            events = self._scan_batch(now)
            if events is NO_EVENTS:
                break
            last = events
        return last

    def _scan_batch(self, now):
        try:
            events = None
            if self.sampler is not None:
                events = self._sampled(now)
            if events is None:
                events = self.scanner.update_rows(self.hw.read_rows(self.rows), now)
        except MemoryError:
            # The scanner settles no key whose event it could not make (keyscan._settle):
            # with the heap full, this scan is skipped whole and the next one reports the
            # keys. Raising here would end the scan loop, and the keys with it.
            self.memory_errors += 1
            gc.collect()
            return NO_EVENTS
        terminal = self.terminal()
        for k, pressed in events:
            if self.link is not None:
                self.link.key_event(k, pressed)
            if not terminal:
                self._guarded(now, k, pressed)
            self.dirty = True
        self._guarded(now)
        return events

    def _guarded(self, now, k=-1, pressed=False):
        """ui.key(k, pressed, now), or ui.tick(now) when k < 0, such that running out of
        memory does not lose the game: the collector runs and the call is tried once more;
        a key that had already played its move is not pressed again, the move is settled
        instead (VoraUI.settle). Failing twice, the reserve goes back to the heap, the game
        is saved and the keys show the error (VoraUI.out_of_memory)."""
        ui = self.ui
        for _ in range(2):
            played = len(ui.moves)
            try:
                if ui.unsettled is not None and (
                        not ui.memory_error or ticks_diff(now, ui.memory_retry_at) >= 0):
                    ui.settle(now)
                if k >= 0:
                    ui.key(k, pressed, now)
                    if pressed and ui.unsettled is None:
                        ui.memory_error = False
                else:
                    ui.tick(now)
            except MemoryError:
                self.memory_errors += 1
                gc.collect()
                if len(ui.moves) != played:
                    k = -1  # the key played its move: what is left is to settle it
                continue
            if self.reserve is None:
                try:
                    self.reserve = bytearray(RESERVE_BYTES)
                except MemoryError:
                    pass
            return
        self.release_reserve()
        self.out_of_memory += 1
        ui.out_of_memory(now)
        self.dirty = True

    def release_reserve(self):
        """Give the reserve back to the heap (4 KB made while it was whole) and collect,
        for an allocation that found no block; _guarded makes it again when memory allows."""
        self.reserve = None
        gc.collect()

    def render_once(self, now, force=False):
        """Draw and show a frame when something changed or a frame period has passed."""
        if self.terminal():
            if force or self.link.frame_changed:
                self.link.frame_changed = False
                self.output.show(self.link.frame)
                self.last_frame = now
                return True
            return False
        if force or self.dirty or ticks_diff(now, self.last_frame) >= FRAME_MS:
            self.ui.render(self.frame, now)
            self.output.show(self.frame)
            self.last_frame = now
            self.dirty = False
            return True
        return False

    def step(self, now):
        """One scan and, after a key event, the new frame at once (the latency path)."""
        events = self.scan_once(now)
        self.poll_link(now)
        return self.render_once(now, force=bool(events))

    def stopping(self):
        """True when the PC asked for the REPL: run() returns."""
        return self.link is not None and self.link.repl_requested

    async def _scan_loop(self):
        while not self.stopping():
            now = ticks_ms()
            if self.scan_once(now):
                self.render_once(now, force=True)
            await _sleep_ms(self.scan_ms)

    async def _render_loop(self):
        while not self.stopping():
            self.render_once(ticks_ms())
            await _sleep_ms(FRAME_MS)

    async def _link_loop(self):
        while not self.stopping():
            self.poll_link(ticks_ms())
            await _sleep_ms(5)

    async def run(self):
        """Run until the PC asks for the REPL (forever otherwise)."""
        self.sample_keys()
        try:
            tasks = [asyncio.create_task(self._scan_loop()),
                     asyncio.create_task(self._render_loop())]
            if self.link is not None or self.link_read is not None:
                tasks.append(asyncio.create_task(self._link_loop()))
            await asyncio.gather(*tasks)
        finally:
            self.stop_sampling()  # the REPL's board scans on demand
        self.output.off()


def _sleep_ms(ms):
    # MicroPython has asyncio.sleep_ms; CPython (the virtual board) only asyncio.sleep.
    sleep_ms = getattr(asyncio, "sleep_ms", None)
    if sleep_ms is not None:
        return sleep_ms(ms)
    return asyncio.sleep(ms / 1000)
