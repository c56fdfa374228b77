"""Keys scanned by a timer interrupt (vora_fw.keysample): a press shorter than the game's loop
is busy is still seen, in order, debounced as ever; a full ring, a dead interrupt and a heap
with no room for the events lose nothing; the interrupt's scan allocates nothing on real
MicroPython; hal_rp2 runs it on a hard machine.Timer and reads its last reading meanwhile.

Found on the emulated RP2040 (docs/benchmarks.md, "Memory on a stock Pico"): 16% of 60 ms
presses were never seen, the game's loop being busy with a frame, the PC or a save.
"""

import textwrap

import pytest

from vora_fw import clock, layout
from vora_fw.app import SAMPLER_SILENT_MS, App
from vora_fw.hal_sim import SimHardware, default_pinmap
from vora_fw.keyscan import NO_EVENTS, KeyScanner
from vora_fw.keysample import KeySampler

from test_keyscan import fake_rp2, pico_pinmap  # noqa: F401  (the fake rp2 and its fixture)

PERIOD = 5  # the pin map's scan_period_ms
DEBOUNCE = 20


class Clock:
    def __init__(self, start=0):
        self.now = start

    def __call__(self):
        return self.now


class KeysHeard:
    """A link as the App sees one, that only listens: the KEY messages the PC would get."""

    mode = 0
    repl_requested = False
    frame_changed = False

    def __init__(self, clock):
        self.clock = clock
        self.keys = []  # (tick, key, pressed)

    def attach(self, ui):
        pass

    def game_event(self, *args):
        pass

    def poll(self, now):
        pass

    def key_event(self, k, pressed):
        self.keys.append((self.clock.now, k, pressed))


class Busy:
    """A board whose game loop comes round only every `loop_ms`, while the timer interrupt
    (when there is one) scans every PERIOD ms."""

    def __init__(self, loop_ms, sampled, start=0):
        self.hw = SimHardware()
        self.clock = Clock(start)
        self.heard = KeysHeard(self.clock)
        self.app = App(self.hw, default_pinmap(), link=self.heard, now=start)
        self.sampler = None
        if sampled:
            self.sampler = KeySampler(self.hw.read_rows, self.clock, PERIOD)
            self.app.use_sampler(self.sampler, start)
        self.loop_ms = loop_ms
        self.next_loop = start + loop_ms

    @property
    def events(self):
        """(tick of the loop that reported it, key, pressed)"""
        return self.heard.keys

    def run(self, ms):
        end = self.clock.now + ms
        while self.clock.now < end:
            self.clock.now += PERIOD
            if self.sampler is not None:
                self.sampler.sample()
            if self.clock.now >= self.next_loop:
                self.next_loop += self.loop_ms
                self.app.scan_once(clock.ticks_add(self.clock.now, 0))

    def tap(self, name, hold_ms=60, gap_ms=60):
        k = layout.key_index(name)
        self.hw.press(k)
        self.run(hold_ms)
        self.hw.release(k)
        self.run(gap_ms)
        return k


def test_a_quick_press_while_the_loop_is_busy_is_seen_from_the_interrupts_readings():
    polled = Busy(loop_ms=150, sampled=False)
    k = polled.tap("cE")
    polled.run(300)
    assert polled.events == []  # the loop's own scans never saw it: the emulated chip's miss

    sampled = Busy(loop_ms=150, sampled=True)
    k = sampled.tap("cE")
    sampled.run(300)
    assert [(key, pressed) for _, key, pressed in sampled.events] == [(k, True), (k, False)]


def test_many_quick_presses_come_out_in_order_and_none_is_lost():
    board = Busy(loop_ms=400, sampled=True)
    names = ["cE", "c3", "cW", "a1", "e5", "cN"]
    keys = [board.tap(n, hold_ms=40, gap_ms=30) for n in names]
    board.run(1000)
    want = [e for k in keys for e in ((k, True), (k, False))]
    assert [(key, pressed) for _, key, pressed in board.events] == want


def test_chatter_shorter_than_the_debounce_time_is_still_one_press():
    board = Busy(loop_ms=200, sampled=True)
    k = layout.key_index("c3")
    for _ in range(3):  # 5 ms on, 5 ms off: each bounce shorter than 20 ms
        board.hw.press(k)
        board.run(5)
        board.hw.release(k)
        board.run(5)
    board.hw.press(k)
    board.run(80)
    board.hw.release(k)
    board.run(400)
    assert [(key, pressed) for _, key, pressed in board.events] == [(k, True), (k, False)]


def test_the_same_presses_give_the_same_events_with_and_without_the_interrupt():
    # Scanned at every period by the loop itself, or kept by the interrupt and handed on
    # by a loop that comes every period: the debouncer hears the same.
    boards = [Busy(loop_ms=PERIOD, sampled=False), Busy(loop_ms=PERIOD, sampled=True)]
    for board in boards:
        for name, hold in (("cE", 40), ("c3", 25), ("b2", 100), ("cW", 19)):
            board.tap(name, hold_ms=hold, gap_ms=35)
        board.run(200)
    assert boards[0].events == boards[1].events
    assert len(boards[0].events) == 6  # the 19 ms press is shorter than the debounce time


def test_across_the_tick_wrap():
    start = (1 << 30) - 100
    board = Busy(loop_ms=150, sampled=True, start=start)
    board.clock.now = start
    k = board.tap("cE")
    board.run(300)
    assert [(key, pressed) for _, key, pressed in board.events] == [(k, True), (k, False)]


def taps_while_away(hw, ticks, sampler, keys, hold=8):
    """Each key pressed and released, `hold` of the interrupt's periods each, while the
    game's loop takes nothing from the sampler."""
    for k in keys:
        for act in (hw.press, hw.release):
            act(k)
            for _ in range(hold):
                ticks.now += PERIOD
                sampler.sample()


def test_a_full_ring_delays_changes_and_never_ends_on_a_wrong_state():
    hw = SimHardware()
    ticks = Clock()
    sampler = KeySampler(hw.read_rows, ticks, PERIOD, slots=4)
    scanner = KeyScanner(DEBOUNCE)
    k = layout.key_index("c3")
    for _ in range(10):  # the loop away for 10 presses: 3 slots, the rest waits
        taps_while_away(hw, ticks, sampler, [k])
    assert sampler.waited > 0
    hw.press(k)  # held now
    events = []
    for _ in range(40):
        ticks.now += PERIOD
        sampler.sample()
        events += sampler.drain(scanner, ticks.now)
    assert events and events[0] == (k, True) and events[-1] == (k, True)
    assert scanner.is_pressed(k)
    for a, b in zip(events, events[1:]):
        assert a[1] != b[1]  # presses and releases alternate: nothing out of order
    hw.release(k)
    for _ in range(10):
        ticks.now += PERIOD
        sampler.sample()
        events += sampler.drain(scanner, ticks.now)
    assert events[-1] == (k, False) and not scanner.is_pressed(k)


def test_a_silent_interrupt_hands_the_scan_back_to_the_loop():
    # An exception in a hard interrupt's handler ends its timer without a word: the loop
    # notices the count of readings standing still and scans again itself.
    board = Busy(loop_ms=PERIOD, sampled=True)
    board.sampler.sample = lambda _timer=None: None  # the interrupt has died
    board.run(SAMPLER_SILENT_MS + 50)
    assert board.app.sampler is None and board.app.sampler_failures == 1
    k = board.tap("cE")
    board.run(100)
    assert [(key, pressed) for _, key, pressed in board.events] == [(k, True), (k, False)]


class _FailingScanner:
    """A KeyScanner whose event lists cannot be made once: KeyScanner._settle's promise
    (nothing settled when the list fails) kept, so the next call reports them."""

    def __init__(self):
        self.scanner = KeyScanner(DEBOUNCE)
        self.fail_next_events = False

    def update_rows(self, rows, now):
        if self.fail_next_events:
            saved = (bytes(self.scanner._db), bytes(self.scanner._pend), bytes(self.scanner._eff),
                     bytes(self.scanner._raw), list(self.scanner._since), self.scanner._pending)
            events = self.scanner.update_rows(rows, now)
            if events is not NO_EVENTS:
                self.fail_next_events = False
                s = self.scanner
                s._db[:], s._pend[:], s._eff[:], s._raw[:] = saved[0], saved[1], saved[2], saved[3]
                s._since[:] = saved[4]
                s._pending = saved[5]
                raise MemoryError
            return events
        return self.scanner.update_rows(rows, now)


def test_events_whose_list_cannot_be_made_come_at_the_next_drain():
    hw = SimHardware()
    ticks = Clock()
    sampler = KeySampler(hw.read_rows, ticks, PERIOD)
    scanner = _FailingScanner()
    keys = [layout.key_index(n) for n in ("cE", "c3")]
    taps_while_away(hw, ticks, sampler, keys)
    events, failures = [], 0
    for turn in range(12):
        scanner.fail_next_events = turn < 6
        try:
            events += sampler.drain(scanner, ticks.now)
        except MemoryError:
            failures += 1
    assert failures >= 3
    assert events == [e for k in keys for e in ((k, True), (k, False))]


# ------------------------------------------------------------ hal_rp2 on machine.Timer


@pytest.fixture
def rp2_with_timer(fake_rp2, monkeypatch):
    monkeypatch.setattr("time.ticks_ms", clock.ticks_ms, raising=False)
    hw, matrix = fake_rp2(pico_pinmap())
    return hw, matrix, matrix.timers


def test_the_pico_scans_from_a_hard_timer_and_reads_its_last_reading_meanwhile(rp2_with_timer):
    hw, matrix, timers = rp2_with_timer
    app = App(hw, default_pinmap())
    app.sample_keys()
    assert len(timers) == 1
    timer = timers[0]
    assert timer.hard and timer.period == PERIOD and timer.running
    assert app.sampler is hw.sampler is not None
    matrix.closed = {(2, 3)}  # wired (x, y): logical key 23 at rotation 0
    timer.callback(timer)
    matrix.closed = set()  # released: the reading stays the interrupt's until it scans
    assert hw.read_keys() == 1 << 23  # the doctor's key test reads the interrupt's last
    assert matrix.low_lines() == []
    app.stop_sampling()
    assert not timer.running and hw.sampler is None and app.sampler is None
    assert hw.read_keys() == 0  # scans on demand again


@pytest.mark.parametrize("wiring", ["col2row", "row2col"])
def test_the_interrupts_scan_reads_what_a_full_scan_reads_and_costs_a_third_when_idle(
        fake_rp2, wiring):
    import random

    from vora_fw.pixels import wired_cell
    hw, matrix = fake_rp2(pico_pinmap(diode_direction=wiring, rotation=90))
    rng = random.Random(wiring)
    for _ in range(40):
        keys = rng.sample(range(49), rng.choice((0, 0, 1, 2, 5)))
        matrix.closed = {wired_cell(k % 7, k // 7, 90) for k in keys}
        full = bytes(hw.scan_rows(bytearray(7)))
        assert bytes(hw.sample_rows(bytearray(7))) == full
        assert matrix.low_lines() == []  # every line released after it
    matrix.closed = set()
    matrix.pin_calls = 0
    hw.scan_rows(bytearray(7))
    full_cost = matrix.pin_calls
    matrix.pin_calls = 0
    hw.sample_rows(bytearray(7))
    # 7 lines low, 7 sense lines read, 7 released: 21 calls, not 7 x (2 + 7) = 63
    assert (full_cost, matrix.pin_calls) == (63, 21)


def test_an_esp32_without_hard_timers_samples_from_a_soft_one(rp2_with_timer):
    # The ESP32-S3 runs hal_rp2 too, and its port refuses hard=True: a soft timer then,
    # whose callback the port schedules between the loop's bytecodes.
    hw, matrix, timers = rp2_with_timer
    matrix.timer_refusals.add("hard")
    app = App(hw, default_pinmap())
    app.sample_keys()
    assert len(timers) == 1 and not timers[0].hard and timers[0].running
    assert app.sampler is hw.sampler is not None


def test_no_timer_to_be_had_leaves_the_scan_to_the_loop(rp2_with_timer):
    hw, matrix, timers = rp2_with_timer
    matrix.timer_refusals.add("any")
    app = App(hw, default_pinmap())
    app.sample_keys()
    assert timers == [] and app.sampler is None and hw.sampler is None
    matrix.closed = {(2, 3)}
    now = 0
    pressed = []
    for _ in range(10):
        now += PERIOD
        pressed += app.scan_once(now)
    assert pressed == [(23, True)]  # scanned by the loop itself


def test_the_app_stops_the_timer_when_it_stops_for_the_repl(rp2_with_timer):
    import asyncio

    hw, matrix, timers = rp2_with_timer

    link = KeysHeard(Clock())
    link.repl_requested = True  # the PC asked for the REPL: run() returns at once
    app = App(hw, default_pinmap(), link=link)
    asyncio.run(app.run())
    assert len(timers) == 1 and not timers[0].running and hw.sampler is None


# ------------------------------------------------------------ real MicroPython


def test_the_interrupts_scan_allocates_nothing_and_drains_the_same_under_micropython():
    from mpy import run_micropython

    script = textwrap.dedent(
        """
        import gc, sys
        sys.path.insert(0, "/app/firmware")
        import micropython
        from vora_fw.keysample import KeySampler
        from vora_fw.keyscan import KeyScanner
        from vora_fw.hal_sim import SimHardware

        hw = SimHardware()
        t = [0]
        sampler = KeySampler(hw.read_rows, lambda: t[0], 5)
        scanner = KeyScanner(20)
        events = []

        def interrupt(n):
            for i in range(n):
                t[0] += 5
                sampler.sample()

        interrupt(1)
        gc.collect()
        before = gc.mem_alloc()
        micropython.heap_lock()  # as in a hard interrupt: an allocation raises
        try:
            interrupt(10)
            hw.press(8)
            interrupt(12)
            hw.release(8)
            hw.press(48)
            interrupt(12)
            hw.release(48)
            interrupt(12)
            sampler.samples = 0x3FFFFFFF  # 62 days of readings: the count goes round
            interrupt(1)
        finally:
            micropython.heap_unlock()
        print("allocated", gc.mem_alloc() - before)
        print("count", sampler.samples)
        for i in range(6):
            events += sampler.drain(scanner, t[0])
        print("events", " ".join("%d%s" % (k, "+" if p else "-") for k, p in events))
        """
    )
    result = run_micropython(script, check=True)
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines() if line.strip())
    assert lines == {"allocated": "0", "events": "8+ 8- 48+ 48-", "count": "0"}, result.stdout
