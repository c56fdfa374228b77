"""Hardware layer for CircuitPython boards (digitalio, board, microcontroller, neopixel).

The same interface as hal_rp2.Hardware and hal_sim.SimHardware:

    hw = Hardware(pinmap)          # a dict (the loaded JSON) or the JSON file's path
    hw.read_keys() -> int          # one full matrix scan, bit k = logical key k closed
    hw.read_rows(buf) -> buf       # the same into bytearray(7), buf[y] bit x
    hw.pixels.write(buf)           # send chain bytes (PixelOutput builds them)
    hw.held_at_boot(key_index)

Pins. A pin map entry may be a GPIO number (2 -> microcontroller.pin.GPIO2, which is GP2 on
a Pico and IO2 on an ESP32-S3) or a pin name: a `board` name ("GP2", "D5", "IO4") or a
`microcontroller.pin` name ("GPIO4").

Matrix scan as in hal_rp2: sense lines are inputs with pull-ups; each drive line in turn is
switched to an output driving LOW, the sense lines settle a few microseconds
(microcontroller.delay_us) and are read (0 = closed), and the line goes back to a
high-impedance input. diode_direction and rotation come from the pin map.

Pixels use the adafruit-circuitpython-neopixel library's NeoPixel (auto_write=False,
brightness=1.0: brightness and current capping happen in pixels.py) for the pin, and send
the chain bytes PixelOutput prepared, already in chain and colour order, straight through
neopixel_write on that pin: no per-pixel tuples, no copy, no allocation per frame.

Type checking: this module is left out of tests/test_firmware_typecheck.py, which checks
the firmware against the MicroPython stubs (micropython-rp2-stubs): no CircuitPython stubs
are installed in the project (PyPI's circuitpython-stubs would provide them), and
CircuitPython's `neopixel` is not MicroPython's.
"""

import json
import time

import board
import digitalio
import microcontroller
import neopixel
from neopixel_write import neopixel_write

from vora_fw.keyscan import matrix_wiring, rows_mask

_W = 7
SETTLE_US = 5


def load_pinmap(pinmap):
    if isinstance(pinmap, str):
        with open(pinmap) as f:
            return json.load(f)
    return pinmap


def pin_named(spec):
    """A microcontroller.Pin from a GPIO number or a board / microcontroller.pin name."""
    if isinstance(spec, int):
        names = ("GPIO%d" % spec, "GP%d" % spec, "IO%d" % spec)
    else:
        names = (spec,)
    for name in names:
        pin = getattr(microcontroller.pin, name, None)
        if pin is None:
            pin = getattr(board, name, None)
        if pin is not None:
            return pin
    raise ValueError("no pin %r on this board" % (spec,))


class NeoPixelDriver:
    """The pixel chain: a CircuitPython NeoPixel owns the pin, the bytes go out unchanged."""

    def __init__(self, pin, count, bpp=3):
        self.np = neopixel.NeoPixel(
            pin_named(pin), count, bpp=bpp, brightness=1.0, auto_write=False,
            pixel_order="RGB" if bpp == 3 else "RGBW",
        )
        self._nbytes = count * bpp
        self.frames_written = 0

    def write(self, buf):
        if len(buf) != self._nbytes:
            raise ValueError("pixel buffer of %d bytes, the chain takes %d" % (len(buf), self._nbytes))
        neopixel_write(self.np.pin, buf)
        self.frames_written += 1


class Hardware:
    """The board's keys and pixels under CircuitPython."""

    def __init__(self, pinmap, settle_us=SETTLE_US):
        pinmap = load_pinmap(pinmap)
        self.pinmap = pinmap
        self.settle_us = settle_us
        drive, sense, self._krow, self._kbit = matrix_wiring(pinmap)
        self._sense = []
        for p in sense:
            line = digitalio.DigitalInOut(pin_named(p))
            line.switch_to_input(pull=digitalio.Pull.UP)
            self._sense.append(line)
        self._drive = []
        for p in drive:
            line = digitalio.DigitalInOut(pin_named(p))
            line.switch_to_input(pull=None)  # high impedance until its turn
            self._drive.append(line)
        self._rows = bytearray(_W)
        self.pixels = NeoPixelDriver(pinmap["pixel_pin"], pinmap.get("pixel_count", 49))

    def read_rows(self, buf):
        drive = self._drive
        sense = self._sense
        krow = self._krow
        kbit = self._kbit
        settle = self.settle_us
        ns = len(sense)
        for y in range(_W):
            buf[y] = 0
        try:
            for i in range(len(drive)):
                line = drive[i]
                line.switch_to_output(value=False)
                microcontroller.delay_us(settle)
                base = i * ns
                for j in range(ns):
                    if not sense[j].value:
                        buf[krow[base + j]] |= kbit[base + j]
                line.switch_to_input(pull=None)
        except BaseException:
            for line in drive:
                line.switch_to_input(pull=None)
            raise
        return buf

    def read_keys(self):
        return rows_mask(self.read_rows(self._rows))

    def held_at_boot(self, key_index, samples=3, interval_ms=10):
        rows = self._rows
        y = key_index // _W
        bit = 1 << (key_index % _W)
        for n in range(samples):
            if n:
                time.sleep(interval_ms / 1000)
            if not self.read_rows(rows)[y] & bit:
                return False
        return True
