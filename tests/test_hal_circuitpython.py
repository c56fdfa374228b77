"""The CircuitPython hardware layer against fake board modules: digitalio lines wired as
the key matrix with its diodes, the NeoPixel chain written by neopixel_write."""

import importlib
import json
import sys
import types
from pathlib import Path

import pytest

from vora_fw import layout

ROOT = Path(__file__).resolve().parents[1]


class FakeBoard:
    """digitalio/microcontroller/board stand-ins: a line pulled low by a driven line
    through a closed switch (and its diode) reads False."""

    def __init__(self, pinmap):
        self.rows = pinmap["row_pins"]
        self.cols = pinmap["col_pins"]
        self.closed = set()  # (x, y) of closed switches
        self.lines = {}
        self.written = []
        fake = self

        class Pull:
            UP = "up"

        class DigitalInOut:
            def __init__(self, pin):
                self.pin = pin.number
                self.output = False
                self.level = True
                self.pull = None
                fake.lines[self.pin] = self

            def switch_to_input(self, pull=None):
                self.output = False
                self.pull = pull

            def switch_to_output(self, value=False):
                self.output = True
                self.level = value

            @property
            def value(self):
                if self.output:
                    return self.level
                assert self.pull == Pull.UP, "a sense line needs its pull-up"
                x = fake.cols.index(self.pin)
                return not any(line.output and not line.level and (x, fake.rows.index(n))
                               in fake.closed for n, line in fake.lines.items()
                               if n in fake.rows)

        class Pin:
            def __init__(self, number):
                self.number = number

        self.modules = {
            "digitalio": types.SimpleNamespace(DigitalInOut=DigitalInOut, Pull=Pull),
            "microcontroller": types.SimpleNamespace(
                pin=types.SimpleNamespace(**{"GP%d" % n: Pin(n) for n in range(30)}),
                delay_us=lambda us: None),
            "board": types.SimpleNamespace(),
            "neopixel": types.SimpleNamespace(NeoPixel=lambda pin, n, **kw:
                                              types.SimpleNamespace(pin=pin)),
            "neopixel_write": types.SimpleNamespace(
                neopixel_write=lambda pin, buf: fake.written.append(bytes(buf))),
        }

    def lows(self):
        return [n for n, line in self.lines.items() if line.output and not line.level]


@pytest.fixture
def circuitpython(monkeypatch):
    pinmap = json.loads((ROOT / "hardware" / "pinmap-rp2-pico.json").read_text())
    fake = FakeBoard(pinmap)
    for name, module in fake.modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    sys.modules.pop("vora_fw.hal_circuitpython", None)
    hal = importlib.import_module("vora_fw.hal_circuitpython")
    yield hal.Hardware(pinmap), fake
    sys.modules.pop("vora_fw.hal_circuitpython", None)


def test_a_scan_reads_the_closed_keys_and_leaves_no_line_driven(circuitpython):
    hw, fake = circuitpython
    assert hw.read_keys() == 0
    for name in ("cS", "c3", "E5"):
        k = layout.key_index(name)
        fake.closed.add((k % 7, k // 7))
    mask = hw.read_keys()
    assert mask == sum(1 << layout.key_index(n) for n in ("cS", "c3", "E5"))
    assert fake.lows() == []  # every row back to high impedance after the scan


def test_a_corner_held_at_power_up(circuitpython):
    hw, fake = circuitpython
    assert not hw.held_at_boot(layout.key_index("cN"), samples=2, interval_ms=0)
    fake.closed.add((6, 6))
    assert hw.held_at_boot(layout.key_index("cN"), samples=2, interval_ms=0)


def test_pixels_go_out_unchanged_through_neopixel_write(circuitpython):
    hw, fake = circuitpython
    hw.pixels.write(bytes(range(147)))
    assert fake.written == [bytes(range(147))]
    with pytest.raises(ValueError, match="147"):
        hw.pixels.write(bytes(10))
