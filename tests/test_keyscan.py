"""Key scanning: debounce (bounce patterns in, clean events out, across the tick wrap),
ghost filtering with the simulated diode-less matrix, and no allocation on the board.

firmware/vora_fw/keyscan.py documents the rules these tests hold it to.
"""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))

from vora_fw import clock  # noqa: E402
from vora_fw.hal_sim import SimHardware  # noqa: E402
from vora_fw.keyscan import NO_EVENTS, KeyScanner  # noqa: E402

WRAP = 1 << 30  # MicroPython's ticks_ms period
DEBOUNCE = 20


def key(x, y):
    return y * 7 + x


def run(scanner, changes, start, duration, period=1):
    """Scan every `period` ms for `duration` ms from tick `start`.

    changes: (offset_ms, raw_mask) sorted by offset; the raw reading takes each value from
    its offset on. Returns [(offset_ms, key, pressed)] of the events reported.
    """
    events = []
    raw = 0
    pending = list(changes)
    for offset in range(0, duration, period):
        while pending and pending[0][0] <= offset:
            raw = pending.pop(0)[1]
        for k, pressed in scanner.update(raw, clock.ticks_add(start, offset)):
            events.append((offset, k, pressed))
    return events


def chatter(t0, first, second, gaps):
    """Raw readings alternating first / second with the given gaps, then settling on first.

    Returns the changes and the offset at which the reading settles.
    """
    out, t = [], t0
    for i, gap in enumerate(gaps):
        out.append((t, first if i % 2 == 0 else second))
        t += gap
    out.append((t, first))
    return out, t


STARTS = [0, 12345, WRAP - 30, WRAP - 1, WRAP - 200]


@pytest.mark.parametrize("start", STARTS)
def test_clean_press_and_release_after_debounce(start):
    k = key(3, 3)
    events = run(KeyScanner(DEBOUNCE), [(10, 1 << k), (100, 0)], start, 200)
    assert events == [(10 + DEBOUNCE, k, True), (100 + DEBOUNCE, k, False)]


@pytest.mark.parametrize("start", STARTS)
def test_chattering_press_and_release_give_one_event_each(start):
    k = key(1, 1)
    # contacts bounce for a while with gaps under the debounce time, then settle closed
    press, settled = chatter(5, 1 << k, 0, [1, 2, 1, 5, 3, 8, 2, 19, 1, 4])
    release, released = chatter(settled + 100, 0, 1 << k, [2, 1, 3, 7, 1, 12, 2, 19])
    events = run(KeyScanner(DEBOUNCE), press + release, start, released + 100)
    assert events == [(settled + DEBOUNCE, k, True), (released + DEBOUNCE, k, False)]


@pytest.mark.parametrize("start", STARTS)
def test_glitches_shorter_than_debounce_are_ignored(start):
    k = key(6, 6)  # key 48: the mask is a long int on MicroPython
    changes = [(10, 1 << k), (10 + DEBOUNCE - 1, 0), (60, 1 << k), (61, 0), (90, 1 << k), (105, 0)]
    assert run(KeyScanner(DEBOUNCE), changes, start, 200) == []


@pytest.mark.parametrize("start", STARTS)
def test_changes_further_apart_than_debounce_are_all_reported(start):
    k = key(0, 0)
    period = DEBOUNCE + 5
    changes = [(10 + i * period, (1 << k) if i % 2 == 0 else 0) for i in range(8)]
    events = run(KeyScanner(DEBOUNCE), changes, start, 10 + 8 * period + 50)
    assert events == [(10 + i * period + DEBOUNCE, k, i % 2 == 0) for i in range(8)]


def test_exactly_debounce_ms_is_enough_one_less_is_not():
    k = key(2, 5)
    # closed from 0 ms: the scan at 20 ms still reads it closed, so it is reported then
    assert run(KeyScanner(DEBOUNCE), [(0, 1 << k), (DEBOUNCE + 1, 0)], 0, 100) == [
        (DEBOUNCE, k, True), (2 * DEBOUNCE + 1, k, False)]
    # open again at 20 ms: it read closed for 19 ms only
    assert run(KeyScanner(DEBOUNCE), [(0, 1 << k), (DEBOUNCE, 0)], 0, 100) == []


def test_keys_debounce_independently_and_high_keys_work():
    a, b, c = key(0, 0), key(2, 4), key(6, 6)  # 0, 30, 48
    changes = [(0, 1 << a), (7, (1 << a) | (1 << b)), (9, 1 << a), (12, (1 << a) | (1 << b)),
               (15, (1 << a) | (1 << b) | (1 << c))]
    scanner = KeyScanner(DEBOUNCE)
    events = run(scanner, changes, WRAP - 10, 100)
    assert events == [(DEBOUNCE, a, True), (12 + DEBOUNCE, b, True), (15 + DEBOUNCE, c, True)]
    assert scanner.state == (1 << a) | (1 << b) | (1 << c)
    assert scanner.is_pressed(c) and not scanner.is_pressed(1)


def test_scan_period_delays_report_to_next_scan():
    k = key(4, 2)
    events = run(KeyScanner(DEBOUNCE), [(3, 1 << k)], 0, 100, period=5)
    # first seen at the scan at 5 ms, stable 20 ms later at the scan at 25 ms
    assert events == [(25, k, True)]


def test_debounce_zero_reports_at_once():
    k = key(5, 1)
    assert run(KeyScanner(0), [(4, 1 << k), (5, 0)], 0, 10) == [(4, k, True), (5, k, False)]


def test_nothing_changed_returns_the_shared_empty_tuple():
    scanner = KeyScanner(DEBOUNCE)
    first = scanner.update(0, 0)
    assert first is NO_EVENTS and len(first) == 0
    assert scanner.update(0, 5) is NO_EVENTS
    assert scanner.update(1 << 40, 10) is NO_EVENTS  # settling: still no allocation of a list
    assert scanner.settling
    assert scanner.update(1 << 40, 30) == [(40, True)]
    assert scanner.update(1 << 40, 35) is NO_EVENTS
    assert not scanner.settling


def test_update_rows_matches_update():
    rng = random.Random(7)
    a, b = KeyScanner(DEBOUNCE), KeyScanner(DEBOUNCE)
    rows = bytearray(7)
    t = WRAP - 500
    for _ in range(400):
        mask = 0
        for _k in range(rng.randrange(4)):
            mask |= 1 << rng.randrange(49)
        for y in range(7):
            rows[y] = (mask >> (7 * y)) & 0x7F
        for _rep in range(rng.randrange(1, 8)):
            t = clock.ticks_add(t, rng.randrange(1, 9))
            assert list(a.update(mask, t)) == list(b.update_rows(rows, t))
    assert a.state == b.state


def test_reset_sets_state_without_events():
    scanner = KeyScanner(DEBOUNCE)
    scanner.reset(1 << 48)
    assert scanner.state == 1 << 48
    assert scanner.update(1 << 48, 0) is NO_EVENTS
    assert run(scanner, [(0, 1 << 48), (10, 0)], 100, 50) == [(10 + DEBOUNCE, 48, False)]


def reference_events(changes, start, duration, debounce):
    """A plain per-key model of the debounce rule, on unwrapped integer time."""
    db = [False] * 49
    raw = [False] * 49
    since = [0] * 49
    events = []
    mask = 0
    pending = list(changes)
    for offset in range(duration):
        while pending and pending[0][0] <= offset:
            mask = pending.pop(0)[1]
        for k in range(49):
            bit = bool((mask >> k) & 1)
            if bit != raw[k]:
                raw[k] = bit
                since[k] = offset
            if raw[k] != db[k] and offset - since[k] >= debounce:
                db[k] = raw[k]
                events.append((offset, k, db[k]))
    return events


@pytest.mark.parametrize("seed", range(12))
def test_random_bounce_matches_the_reference_model(seed):
    """Random chatter on a few keys (no ghost filter) against a straightforward model."""
    rng = random.Random(seed)
    keys = rng.sample(range(49), 4)
    changes, t, mask = [], 0, 0
    while t < 1500:
        t += rng.choice([1, 1, 2, 3, 5, 8, 13, 19, 20, 21, 30, 60])
        mask ^= 1 << rng.choice(keys)
        changes.append((t, mask))
    start = WRAP - rng.randrange(1, 2000)
    scanner = KeyScanner(DEBOUNCE, anti_ghost=False)
    got = run(scanner, changes, start, 1700)
    assert got == reference_events(changes, start, 1700, DEBOUNCE)
    assert got, "the pattern should produce some events"


# ------------------------------------------------------------------ ghosting


def scan_hw(scanner, hw, t, ms, period=5):
    events = []
    for _ in range(0, ms, period):
        events += [(k, p) for k, p in scanner.update(hw.read_keys(), t)]
        t = clock.ticks_add(t, period)
    return events, t


def test_simulated_diode_less_matrix_reports_the_fourth_corner():
    hw = SimHardware(ghosting=True)
    for k in (key(1, 1), key(4, 1), key(1, 5)):
        hw.press(k)
    reading = hw.read_keys()
    assert reading == hw.closed | (1 << key(4, 5))
    assert SimHardware(ghosting=False).read_keys() == 0
    clean = SimHardware()
    for k in (key(1, 1), key(4, 1), key(1, 5)):
        clean.press(k)
    assert clean.read_keys() == clean.closed


@pytest.mark.parametrize("start", [0, WRAP - 37])
def test_three_held_keys_in_a_rectangle_do_not_press_the_fourth(start):
    a, b, c, ghost = key(1, 1), key(4, 1), key(1, 5), key(4, 5)
    hw = SimHardware(ghosting=True)
    scanner = KeyScanner(DEBOUNCE)
    t = start
    hw.press(a)
    ev, t = scan_hw(scanner, hw, t, 50)
    assert ev == [(a, True)]
    hw.press(b)
    ev, t = scan_hw(scanner, hw, t, 50)
    assert ev == [(b, True)]
    hw.press(c)  # the matrix now also reads the ghost at the fourth corner
    assert (hw.read_keys() >> ghost) & 1
    ev, t = scan_hw(scanner, hw, t, 500)
    assert ev == []  # neither the ghost nor the ambiguous real press is reported
    assert not scanner.is_pressed(ghost)
    assert scanner.state == (1 << a) | (1 << b)
    assert scanner.ghosts_ignored == 2  # c and the ghost, once each
    # The pattern goes away: c is released. Nothing was reported for it, nothing is now.
    hw.release(c)
    ev, t = scan_hw(scanner, hw, t, 100)
    assert ev == []
    hw.release(a)
    ev, t = scan_hw(scanner, hw, t, 100)
    assert ev == [(a, False)]
    # A real press of the key that was the ghost, the pattern gone, is reported.
    hw.press(ghost)
    assert hw.read_keys() == hw.closed == (1 << b) | (1 << ghost)
    ev, t = scan_hw(scanner, hw, t, 100)
    assert ev == [(ghost, True)]
    hw.release(ghost)
    ev, t = scan_hw(scanner, hw, t, 100)
    assert ev == [(ghost, False)]
    assert scanner.state == 1 << b
    assert scanner.ghosts_ignored == 2


def test_ghost_pattern_drops_a_press_waiting_for_its_debounce_time():
    a, b, c, ghost = key(2, 2), key(5, 2), key(2, 4), key(5, 4)
    hw = SimHardware(ghosting=True)
    scanner = KeyScanner(DEBOUNCE)
    hw.press(a)
    hw.press(b)
    ev, t = scan_hw(scanner, hw, 0, 10)  # a and b read closed for 5 ms: not yet reported
    assert ev == [] and scanner.settling
    hw.press(c)  # the rectangle appears while a and b still settle
    ev, t = scan_hw(scanner, hw, t, 200)
    assert ev == [] and scanner.state == 0 and not scanner.settling
    assert scanner.ghosts_ignored == 4
    hw.release(c)  # pattern gone: a and b are debounced afresh from this scan
    ev, t = scan_hw(scanner, hw, t, 15)
    assert ev == []
    ev, t = scan_hw(scanner, hw, t, 50)
    assert ev == [(a, True), (b, True)]
    assert not scanner.is_pressed(c) and not scanner.is_pressed(ghost)


def test_longer_ghost_chains_are_caught_too():
    # keys on an L-shaped chain across three rows ghost two more keys
    chain = [key(1, 1), key(1, 3), key(4, 3), key(4, 5)]
    hw = SimHardware(ghosting=True)
    scanner = KeyScanner(DEBOUNCE)
    t = 0
    reported = []
    for k in chain:
        hw.press(k)
        ev, t = scan_hw(scanner, hw, t, 60)
        reported += ev
    ghosts = hw.read_keys() & ~hw.closed
    assert ghosts == (1 << key(4, 1)) | (1 << key(1, 5))
    assert all(not (ghosts >> k) & 1 for k, _ in reported)
    # the third key of the chain already closes an L, whose fourth corner ghosts
    assert reported == [(key(1, 1), True), (key(1, 3), True)]


def test_anti_ghost_off_reports_every_corner():
    hw = SimHardware(ghosting=True)
    scanner = KeyScanner(DEBOUNCE, anti_ghost=False)
    for k in (key(1, 1), key(4, 1), key(1, 5)):
        hw.press(k)
    ev, _ = scan_hw(scanner, hw, 0, 50)
    assert sorted(k for k, _p in ev) == [key(1, 1), key(4, 1), key(1, 5), key(4, 5)]
    assert scanner.ghosts_ignored == 0


def test_with_diodes_a_real_rectangle_is_held_back_until_it_resolves():
    """The documented price of the filter on a board with diodes (no ghosting)."""
    corners = [key(0, 0), key(6, 0), key(0, 6), key(6, 6)]
    hw = SimHardware(ghosting=False)
    scanner = KeyScanner(DEBOUNCE)
    t = 0
    reported = []
    for k in corners:
        hw.press(k)
        ev, t = scan_hw(scanner, hw, t, 50)
        reported += ev
    assert reported == [(k, True) for k in corners[:3]]
    hw.release(corners[0])
    ev, t = scan_hw(scanner, hw, t, 50)
    assert ev == [(corners[0], False), (corners[3], True)]


# ------------------------------------------------- the rp2/esp32 matrix scan


class FakeMatrix:
    """machine.Pin stand-in wired as a 7x7 key matrix with diodes (rows, columns, switches).

    A sense line reads 0 when a closed switch joins it, through its diode's forward
    direction, to a drive line pulled LOW; otherwise its pull-up holds it at 1.
    """

    def __init__(self, pinmap):
        self.rows = list(pinmap["row_pins"])
        self.cols = list(pinmap["col_pins"])
        self.wiring = pinmap["diode_direction"]
        self.closed = set()  # wired (x, y)
        self.pins = {}
        self.most_low = 0
        self.timers = []  # machine.Timer made
        self.pin_calls = 0  # Pin.value() calls: what a scan costs
        self.timer_refusals = set()  # "hard": hard timers refused (ESP32); "any": none made
        matrix = self

        class Pin:
            IN, OUT, OPEN_DRAIN, PULL_UP = 0, 1, 2, 1

            def __init__(self, pin_id, mode=-1, pull=-1, value=None):
                self.id, self.mode, self.pull, self.level = pin_id, mode, pull, value
                matrix.pins[pin_id] = self

            def value(self, v=None):
                matrix.pin_calls += 1
                if v is None:
                    return matrix.read(self)
                self.level = v
                matrix.most_low = max(matrix.most_low, len(matrix.low_lines()))

        self.Pin = Pin

    def low_lines(self):
        return [p.id for p in self.pins.values() if p.mode in (1, 2) and p.level == 0]

    def read(self, pin):
        assert pin.mode == 0 and pin.pull == 1, "sense lines are inputs with pull-ups"
        low = self.low_lines()
        if self.wiring == "col2row" and pin.id in self.cols:  # current: column -> diode -> row
            x = self.cols.index(pin.id)
            return 0 if any((x, self.rows.index(r)) in self.closed for r in low if r in self.rows) else 1
        if self.wiring == "row2col" and pin.id in self.rows:
            y = self.rows.index(pin.id)
            return 0 if any((self.cols.index(c), y) in self.closed for c in low if c in self.cols) else 1
        return 1


@pytest.fixture
def fake_rp2(monkeypatch):
    """Import vora_fw.hal_rp2 against a fake machine (FakeMatrix) and neopixel module."""
    import importlib
    import types

    def load(pinmap):
        matrix = FakeMatrix(pinmap)
        machine = types.ModuleType("machine")
        machine.Pin = matrix.Pin
        neopixel = types.ModuleType("neopixel")

        class NeoPixel:
            def __init__(self, pin, n, bpp=3, timing=1):
                self.buf = bytearray(n * bpp)

            def write(self):
                pass

        neopixel.NeoPixel = NeoPixel

        class Timer:  # rp2's soft timer: the key interrupt's (tests/test_key_sampler.py)
            def __init__(self, id=-1, period=None, callback=None, hard=False):
                assert id == -1  # the only timer rp2 has
                if hard and "hard" in matrix.timer_refusals:  # the ESP32's
                    raise ValueError("hard Timers are not implemented")
                if "any" in matrix.timer_refusals:
                    raise OSError(12)  # ENOMEM: no alarm left
                self.period, self.callback, self.hard, self.running = period, callback, hard, True
                matrix.timers.append(self)

            def deinit(self):
                self.running = False

        machine.Timer = Timer
        monkeypatch.setitem(sys.modules, "machine", machine)
        monkeypatch.setitem(sys.modules, "neopixel", neopixel)
        monkeypatch.setattr("time.sleep_us", lambda us: None, raising=False)
        monkeypatch.setattr("time.sleep_ms", lambda ms: None, raising=False)
        sys.modules.pop("vora_fw.hal_rp2", None)
        module = importlib.import_module("vora_fw.hal_rp2")
        return module.Hardware(pinmap), matrix

    yield load
    sys.modules.pop("vora_fw.hal_rp2", None)


def pico_pinmap(**changes):
    import json

    pm = json.loads((ROOT / "hardware" / "pinmap-rp2-pico.json").read_text(encoding="utf-8"))
    pm.update(changes)
    return pm


@pytest.mark.parametrize("wiring", ["col2row", "row2col"])
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_hardware_scan_reads_the_matrix(fake_rp2, wiring, rotation):
    from vora_fw.pixels import wired_cell

    hw, matrix = fake_rp2(pico_pinmap(diode_direction=wiring, rotation=rotation))
    drive = matrix.rows if wiring == "col2row" else matrix.cols
    assert all(matrix.pins[p].mode == matrix.Pin.OPEN_DRAIN and matrix.pins[p].level == 1 for p in drive)
    rng = random.Random(rotation)
    for _ in range(30):
        keys = rng.sample(range(49), rng.randrange(0, 6))
        matrix.closed = {wired_cell(k % 7, k // 7, rotation) for k in keys}
        expect = sum(1 << k for k in keys)
        assert hw.read_keys() == expect
        rows = hw.read_rows(bytearray(7))
        assert sum(rows[y] << (7 * y) for y in range(7)) == expect
        assert matrix.low_lines() == []  # every line released after the scan
    assert matrix.most_low == 1  # never two lines driven at once


def test_hardware_held_at_boot(fake_rp2):
    hw, matrix = fake_rp2(pico_pinmap())
    matrix.closed = {(6, 6)}
    assert hw.held_at_boot(48)
    assert not hw.held_at_boot(0)


def test_hardware_refuses_an_unknown_diode_direction(fake_rp2):
    with pytest.raises(ValueError):
        fake_rp2(pico_pinmap(diode_direction="sideways"))


# --------------------------------------------------------- real MicroPython


def test_no_allocation_per_scan_under_micropython():
    """Steady-state scans allocate nothing under real MicroPython (WebAssembly port)."""
    from mpy import run_micropython

    script = textwrap.dedent(
        """
        import gc, sys
        sys.path.insert(0, "/app/firmware")
        from vora_fw.keyscan import KeyScanner, NO_EVENTS
        from vora_fw.hal_sim import SimHardware

        hw = SimHardware()
        ks = KeyScanner(20)
        rows = bytearray(7)

        def measure(fn, n=200):
            fn(0)
            gc.collect()
            gc.disable()
            before = gc.mem_alloc()
            for i in range(n):
                fn(i)
            used = gc.mem_alloc() - before
            gc.enable()
            return used

        t = [0]
        def idle_mask(i):
            t[0] += 5
            assert ks.update(0, t[0]) is NO_EVENTS
        def idle_rows(i):
            t[0] += 5
            assert ks.update_rows(hw.read_rows(rows), t[0]) is NO_EVENTS
        print("idle_update", measure(idle_mask))
        print("idle_rows", measure(idle_rows))
        hw.press(8); hw.press(29)  # keys below 30: small-int masks
        ks.update_rows(hw.read_rows(rows), t[0]); t[0] += 100; ks.update_rows(rows, t[0])
        print("held_update", measure(lambda i: ks.update(hw.read_keys(), t[0] + i)))
        hw.press(48)  # a key above 30: long-int masks, but rows stay small ints
        ks.update_rows(hw.read_rows(rows), t[0] + 200); ks.update_rows(rows, t[0] + 300)
        print("held_rows_high", measure(lambda i: ks.update_rows(hw.read_rows(rows), t[0] + 300 + i)))
        ks2 = KeyScanner(20)
        ks2.update(0, 0)
        ks2.update(1 << 3, 1)  # key 3 settling: scans until its debounce time allocate nothing
        print("settling", measure(lambda i: ks2.update(1 << 3, 2 + (i % 10))))
        """
    )
    result = run_micropython(script, check=True)
    figures = dict(line.split() for line in result.stdout.split("\n") if line.strip())
    assert figures == {
        "idle_update": "0", "idle_rows": "0", "held_update": "0", "held_rows_high": "0", "settling": "0",
    }, result.stdout
