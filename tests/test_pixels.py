"""Pixel output: chain order, colour order, rotation, brightness cap and current cap
(firmware/vora_fw/pixels.py), checked through the simulated hardware's frame_rgb(), plus the
rp2/esp32 pixel driver on a fake neopixel module and allocation under real MicroPython.
"""

from __future__ import annotations

import copy
import importlib
import json
import random
import sys
import textwrap
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "firmware"))

from vora_fw.hal_sim import SimHardware, default_pinmap  # noqa: E402
from vora_fw.pixels import (  # noqa: E402
    PixelOutput,
    chain_map,
    channel_sum_cap,
    logical_cell,
    wired_cell,
)

PINMAPS = {
    name: json.loads((ROOT / "hardware" / f"pinmap-{name}.json").read_text(encoding="utf-8"))
    for name in ("rp2-pico", "rp2-pico2", "esp32-s3")
}
RP2 = PINMAPS["rp2-pico"]


def pinmap(**changes):
    """The Pico pin map with some fields changed (None removes a field)."""
    pm = copy.deepcopy(RP2)
    for k, v in changes.items():
        if v is None:
            pm.pop(k, None)
        else:
            pm[k] = v
    return pm


# No caps at all: what goes in comes out, only reordered.
UNCAPPED = dict(brightness_cap=255, max_channel_sum=10**6)


def board(**changes):
    hw = SimHardware(pinmap(**changes))
    return hw, PixelOutput(hw.pinmap, hw.pixels)


def random_frame(seed, top=256):
    rng = random.Random(seed)
    return bytearray(rng.randrange(top) for _ in range(147))


def set_key(frame, k, rgb):
    frame[3 * k : 3 * k + 3] = bytes(rgb)


def scaled(v, cap=160, level=255):
    return v * level * cap // (255 * 255)


# ------------------------------------------------------------------ data


def test_default_pinmap_is_the_pico_pin_map():
    default = default_pinmap()
    for field, value in default.items():
        assert RP2[field] == value, field


def test_rotation_table_of_the_readme():
    # hardware/README.md: wired cell of logical (x, y)
    table = {0: lambda x, y: (x, y), 90: lambda x, y: (y, 6 - x),
             180: lambda x, y: (6 - x, 6 - y), 270: lambda x, y: (6 - y, x)}
    for rotation, wired in table.items():
        for x in range(7):
            for y in range(7):
                assert wired_cell(x, y, rotation) == wired(x, y)
                assert logical_cell(*wired(x, y), rotation) == (x, y)
    # "With 90, the logical north edge lies on the wired east side."
    assert {wired_cell(x, 6, 90)[0] for x in range(7)} == {6}
    with pytest.raises(ValueError):
        wired_cell(0, 0, 45)


# ------------------------------------------------------------------ mapping


def test_chain_follows_the_serpentine_of_the_readme():
    hw, out = board(**UNCAPPED)
    frame = bytearray(147)
    for k in range(49):
        set_key(frame, k, (k, 100 + k, 200 + k // 2))  # R, G, B
    out.show(frame)
    buf = hw.pixels.buf
    # README drawing: chain 0 at (0,0), 6 at (0,6), 7 at (1,6), 13 at (1,0), 14 at (2,0), 48 at (6,6)
    for chain, (x, y) in {0: (0, 0), 6: (0, 6), 7: (1, 6), 13: (1, 0), 14: (2, 0), 48: (6, 6)}.items():
        k = y * 7 + x
        assert tuple(buf[3 * chain : 3 * chain + 3]) == (100 + k, k, 200 + k // 2)  # GRB


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
@pytest.mark.parametrize("order", ["GRB", "RGB", "BRG"])
def test_frame_round_trips_through_the_simulated_chain(rotation, order):
    hw, out = board(rotation=rotation, color_order=order, **UNCAPPED)
    for seed in range(5):
        frame = random_frame(seed)
        out.show(frame)
        assert hw.frame_rgb() == frame
    assert hw.pixels.frames_written == 5


@pytest.mark.parametrize("name", sorted(PINMAPS))
def test_frame_round_trips_with_the_real_pin_maps(name):
    hw = SimHardware(PINMAPS[name])
    out = PixelOutput(PINMAPS[name], hw.pixels)
    frame = random_frame(3, top=40)  # dim: under the current cap
    out.show(frame)
    assert out.frames_limited == 0
    assert hw.frame_rgb() == bytearray(scaled(v) for v in frame)


def test_rotation_moves_the_lit_pixel():
    frame = bytearray(147)
    set_key(frame, 42, (255, 255, 255))  # logical cW, (0, 6)
    for rotation, chain in {0: 6, 90: 48, 180: 42, 270: 0}.items():
        hw, out = board(rotation=rotation, **UNCAPPED)
        out.show(frame)
        lit = [i for i in range(49) if any(hw.pixels.buf[3 * i : 3 * i + 3])]
        assert lit == [chain], rotation
        assert hw.frame_rgb() == frame


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_keys_follow_the_rotation_too(rotation):
    hw = SimHardware(pinmap(rotation=rotation))
    for k in (0, 6, 24, 30, 48):
        hw.set_raw(1 << k)
        assert hw.read_keys() == 1 << k
    hw.set_raw((1 << 49) - 1)
    assert hw.read_keys() == hw.closed == (1 << 49) - 1


def test_colour_order():
    frame = bytearray(147)
    set_key(frame, 0, (10, 20, 30))
    for order, expect in {"GRB": (20, 10, 30), "RGB": (10, 20, 30), "brg": (30, 10, 20)}.items():
        hw, out = board(color_order=order, **UNCAPPED)
        out.show(frame)
        assert tuple(hw.pixels.buf[:3]) == expect
    for bad in ("RGBW", "RGG", "RG"):
        with pytest.raises(ValueError):
            board(color_order=bad)


def test_bad_pixel_orders_are_refused():
    order = [list(c) for c in RP2["pixel_order"]]
    with pytest.raises(ValueError):
        chain_map(pinmap(pixel_order=order[:-1] + [order[0]]))  # a cell twice
    with pytest.raises(ValueError):
        chain_map(pinmap(pixel_order=order[:-1] + [[7, 0]]))  # off the frame
    with pytest.raises(ValueError):
        chain_map(pinmap(pixel_count=48))


# ------------------------------------------------------------------ caps


def test_brightness_cap_is_never_exceeded_and_keeps_hue():
    hw, out = board(max_channel_sum=10**6)
    for seed in range(10):
        out.show(random_frame(seed))
        assert max(hw.pixels.buf) <= 160
    frame = bytearray(147)
    set_key(frame, 24, (255, 200, 0))  # duck yellow
    set_key(frame, 25, (255, 40, 110))  # pig pink
    out.show(frame)
    rgb = hw.frame_rgb()
    assert tuple(rgb[72:75]) == (160, 125, 0)
    assert tuple(rgb[75:78]) == (160, 25, 69)
    assert max(hw.pixels.buf) == 160


def test_user_brightness_scales_under_the_cap():
    hw, out = board(max_channel_sum=10**6)
    frame = bytearray([255] * 147)
    out.set_brightness(128)
    out.show(frame)
    assert set(hw.pixels.buf) == {scaled(255, level=128)} == {80}
    out.set_brightness(0)
    out.show(frame)
    assert not any(hw.pixels.buf)


@pytest.mark.parametrize("name", sorted(PINMAPS))
@pytest.mark.parametrize("white", [255, 160])
def test_current_cap_keeps_all_white_within_the_budget(name, white):
    pm = PINMAPS[name]
    hw = SimHardware(pm)
    out = PixelOutput(pm, hw.pixels)
    out.show(bytearray([white] * 147))
    buf = hw.pixels.buf
    assert sum(buf) <= pm["max_channel_sum"]
    assert out.estimate_ma(buf) <= pm["current_budget_ma"]
    assert out.estimate_ma() == out.estimate_ma(buf)
    assert out.frames_limited == 1
    # scaled evenly: still white (the cap's scale is kept in 1/1024 steps)
    sent = scaled(white)
    assert set(buf) == {sent * (pm["max_channel_sum"] * 1024 // (147 * sent)) >> 10}


def test_power_md_worked_examples():
    # All 49 pixels white at the cap: every channel 160 * 4462 // 23520 = 30, 345.9 mA.
    hw, out = board()
    out.show(bytearray([255] * 147))
    assert set(hw.pixels.buf) == {30}
    assert round(out.estimate_ma(), 1) == 345.9
    # The same with the brightness cap off: 255 * 4462 // 37485 = 30.
    hw, out = board(brightness_cap=255)
    out.show(bytearray([255] * 147))
    assert out.last_sum == 37485 and set(hw.pixels.buf) == {30}
    # One key white at the cap: 480, 37.6 mA, not scaled.
    hw, out = board()
    frame = bytearray(147)
    set_key(frame, 24, (255, 255, 255))
    out.show(frame)
    assert out.last_sum == 480 and round(out.estimate_ma(), 1) == 37.6 and out.frames_limited == 0


def test_dim_frame_is_untouched_by_the_current_cap():
    # power.md: meadow green (0, 96, 0), edges grey (16, 16, 16), corners red (160, 0, 0)
    frame = bytearray(147)
    for k in range(49):
        x, y = k % 7, k // 7
        corner = x in (0, 6) and y in (0, 6)
        edge = not corner and (x in (0, 6) or y in (0, 6))
        set_key(frame, k, (160, 0, 0) if corner else (16, 16, 16) if edge else (0, 96, 0))
    hw, out = board(brightness_cap=255)  # values as sent: no brightness scaling
    out.show(frame)
    assert out.last_sum == 4000 and out.frames_limited == 0
    assert hw.frame_rgb() == frame
    assert round(out.estimate_ma(), 1) == 313.7
    # with the reference cap of 160 the frame is dimmer still, and likewise not limited
    hw, out = board()
    out.show(frame)
    assert out.frames_limited == 0 and hw.frame_rgb() == bytearray(scaled(v) for v in frame)


def test_max_channel_sum_is_derived_when_absent():
    assert channel_sum_cap(RP2) == 4462
    assert channel_sum_cap(pinmap(max_channel_sum=None)) == 350 * 255 // 20 == 4462
    assert channel_sum_cap(PINMAPS["esp32-s3"] | {"max_channel_sum": None}) == 3825
    # no budget either: supply - controller - idle pixels - level shifter - 10 % margin
    assert channel_sum_cap(pinmap(max_channel_sum=None, current_budget_ma=None)) == (500 - 50 - 49 - 2 - 50) * 255 // 20
    hw = SimHardware(pinmap(max_channel_sum=None))
    out = PixelOutput(hw.pinmap, hw.pixels)
    out.show(bytearray([255] * 147))
    assert sum(hw.pixels.buf) <= 4462


def test_one_buffer_for_every_frame_and_off():
    seen = []

    class Driver:
        def write(self, buf):
            seen.append(buf)

    out = PixelOutput(RP2, Driver())
    out.show(random_frame(1))
    out.show(bytearray([255] * 147))
    out.off()
    assert len(seen) == 3 and seen[0] is seen[1] is seen[2]
    assert not any(seen[2])


# ------------------------------------------------------- rp2/esp32 pixel driver


@pytest.fixture
def hal_rp2(monkeypatch):
    """vora_fw.hal_rp2 imported against fake machine and neopixel modules."""
    machine = types.ModuleType("machine")

    class Pin:
        IN, OUT, OPEN_DRAIN, PULL_UP = 0, 1, 2, 1

        def __init__(self, pin_id, mode=-1, pull=-1, value=None):
            self.id, self.mode, self.level = pin_id, mode, value

        def value(self, v=None):
            if v is None:
                return 1
            self.level = v

    machine.Pin = Pin
    neopixel = types.ModuleType("neopixel")

    class NeoPixel:
        def __init__(self, pin, n, bpp=3, timing=1):
            self.pin, self.buf, self.sent = pin, bytearray(n * bpp), []

        def write(self):
            self.sent.append(bytes(self.buf))

    neopixel.NeoPixel = NeoPixel
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    monkeypatch.setattr("time.sleep_us", lambda us: None, raising=False)
    monkeypatch.setattr("time.sleep_ms", lambda ms: None, raising=False)
    monkeypatch.delitem(sys.modules, "vora_fw.hal_rp2", raising=False)
    module = importlib.import_module("vora_fw.hal_rp2")
    yield module
    sys.modules.pop("vora_fw.hal_rp2", None)


def test_rp2_pixel_driver_copies_into_the_neopixel_buffer(hal_rp2):
    hw = hal_rp2.Hardware(RP2)
    np = hw.pixels.np
    assert np.pin.id == RP2["pixel_pin"] and len(np.buf) == 147
    own = np.buf
    out = PixelOutput(RP2, hw.pixels)
    frame = random_frame(5)
    out.show(frame)
    assert np.buf is own  # copied into, not replaced
    assert np.sent == [bytes(out._buf)]
    sim = SimHardware(RP2)
    PixelOutput(RP2, sim.pixels).show(frame)
    assert np.sent[0] == bytes(sim.pixels.buf)
    with pytest.raises(ValueError):
        hw.pixels.write(bytearray(10))


# --------------------------------------------------------- real MicroPython


def test_show_allocates_nothing_under_micropython():
    from mpy import run_micropython

    script = textwrap.dedent(
        """
        import gc, sys, time
        sys.path.insert(0, "/app/firmware")
        from vora_fw.pixels import PixelOutput
        from vora_fw.hal_sim import SimHardware

        hw = SimHardware()
        out = PixelOutput(hw.pinmap, hw.pixels)
        dim = bytearray(147)
        for i in range(0, 147, 3):
            dim[i + 1] = 40
        white = bytearray(b"\\xff" * 147)

        def measure(frame, n=50):
            out.show(frame)
            gc.collect()
            gc.disable()
            before = gc.mem_alloc()
            t0 = time.ticks_us()
            for _ in range(n):
                out.show(frame)
            us = time.ticks_diff(time.ticks_us(), t0) // n
            used = gc.mem_alloc() - before
            gc.enable()
            return used, us

        print("dim", *measure(dim))
        print("white", *measure(white))
        print("limited", out.frames_limited, "sum", sum(hw.pixels.buf))
        """
    )
    result = run_micropython(script, check=True)
    lines = dict((ln.split()[0], ln.split()[1:]) for ln in result.stdout.splitlines() if ln.strip())
    assert lines["dim"][0] == "0" and lines["white"][0] == "0", result.stdout
    assert int(lines["limited"][0]) > 0 and int(lines["limited"][2]) <= 4462, result.stdout


def test_steady_pixels_stay_steady_while_others_blink_over_the_current_cap():
    # A full meadow is over the cap; a blinking key must not make the steady ones pulse.
    from vora_fw.hal_sim import SimHardware, default_pinmap
    from vora_fw.pixels import PixelOutput

    pinmap = default_pinmap()
    hw = SimHardware(pinmap)
    out = PixelOutput(pinmap, hw.pixels)
    steady = []
    for t in range(120):
        frame = bytearray([0, 60, 255] * 49)  # every key blue ...
        if t % 27 < 18:
            frame[0:3] = bytes([255, 255, 255])  # ... and one key blinking white
        out.show(frame)
        assert sum(hw.pixels.buf) <= out.max_channel_sum
        steady.append(hw.frame_rgb()[3 * 24 + 2])
    settled = steady[30:]
    assert max(settled) - min(settled) <= 2  # two levels in 73: under 3 % (it was 20 %)
    # Once the blinking stops, the scale creeps back up to what the frame allows.
    for _ in range(400):
        out.show(bytearray([0, 60, 255] * 49))
    assert out.scale == out.max_channel_sum * 1024 // out.last_sum
