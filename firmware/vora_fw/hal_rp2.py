"""Hardware layer for MicroPython on the rp2 (Raspberry Pi Pico) and esp32 (ESP32-S3) ports.

Both ports have machine.Pin and the neopixel module, so one thin layer serves both; every
board detail comes from the pin map (hardware/pinmap-*.json). The interface, shared with
hal_sim.SimHardware and hal_circuitpython.Hardware:

    hw = Hardware(pinmap)          # a dict (the loaded JSON) or the JSON file's path
    hw.read_keys() -> int          # one full matrix scan, bit k = logical key k closed
    hw.read_rows(buf) -> buf       # the same into bytearray(7), buf[y] bit x; no allocation
    hw.pixels.write(buf)           # send chain bytes (PixelOutput builds them)
    hw.held_at_boot(key_index)     # is that key held right now (a few scans agree)?
    hw.sample_keys(period_ms)      # scan from a timer interrupt from now on: a KeySampler, or None
    hw.stop_sampling()             # back to scans on demand

Scans from a timer interrupt (sample_keys, a hard one where the port has it): the game's
loop can be busy for longer than a quick press lasts, the interrupt is not
(vora_fw.keysample says why and how). While it runs,
read_rows() and read_keys() give its last reading instead of driving the lines themselves:
two scans at once would drive two lines low together.

Matrix scan. With diode_direction "col2row" (the reference wiring: diode band towards the
row wire) the row pins are driven and the column pins read: columns are inputs with the
internal pull-ups; each row in turn is pulled LOW, the columns settle a few microseconds
and are read, and a column reading 0 means the key at (that column, that row) is closed;
then the row is released. "row2col" swaps the roles. The driven pins are open-drain
outputs: value 1 is high impedance (exactly like an input), value 0 pulls low, so a line is
only ever driven LOW; two keys pressed on one column can never short two driven outputs
together. A full scan drives one line at a time. The timer interrupt's scan
(sample_rows) first drives them all low at once and reads the sense lines once: when none
reads low no key is closed (the keys are up nearly all the time), and the seven lines need
not be read one by one (with full scans every 5 ms the interrupt took about 18% of an
emulated RP2040's time: bench/bench_rp2040.py). Wired cells are mapped to logical keys through the pin map's
rotation. read_keys() allocates only when a key at index >= 30 is down (the mask is then a
long int on MicroPython); read_rows() never allocates.
"""

import json
import time

import machine
import neopixel

from vora_fw.keyscan import matrix_wiring, rows_mask

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

_W = const(7)
SETTLE_US = const(5)


def load_pinmap(pinmap):
    """The pin map as a dict: given as one, or read from a JSON file path."""
    if isinstance(pinmap, str):
        with open(pinmap) as f:
            return json.load(f)
    return pinmap


class NeoPixelDriver:
    """The pixel chain through MicroPython's neopixel module (machine.bitstream)."""

    def __init__(self, pin, count, bpp=3):
        self.np = neopixel.NeoPixel(machine.Pin(pin, machine.Pin.OUT), count, bpp=bpp)
        self._buf = self.np.buf
        self.frames_written = 0

    def write(self, buf):
        """Copy the chain bytes into the NeoPixel's own buffer (no allocation) and send them."""
        if len(buf) != len(self._buf):
            raise ValueError("pixel buffer of %d bytes, the chain takes %d" % (len(buf), len(self._buf)))
        self._buf[:] = buf
        self.np.write()
        self.frames_written += 1


class Hardware:
    """The board's keys and pixels on a MicroPython port with machine.Pin and neopixel."""

    def __init__(self, pinmap, settle_us=SETTLE_US):
        pinmap = load_pinmap(pinmap)
        self.pinmap = pinmap
        self.settle_us = settle_us
        drive, sense, self._krow, self._kbit = matrix_wiring(pinmap)
        Pin = machine.Pin
        # Sense lines first, so nothing is driven before the inputs are in place.
        self._sense = [Pin(p, Pin.IN, Pin.PULL_UP) for p in sense]
        self._drive = [Pin(p, Pin.OPEN_DRAIN, value=1) for p in drive]
        self._rows = bytearray(_W)
        self.pixels = NeoPixelDriver(pinmap["pixel_pin"], pinmap.get("pixel_count", 49))
        self.sampler = None  # a KeySampler while the timer interrupt scans
        self._timer = None

    def sample_keys(self, period_ms):
        """Scan every period_ms from a timer interrupt from now on; returns the
        vora_fw.keysample.KeySampler that keeps the readings for the game's loop, or None
        when the port gives no timer (the loop then scans, as before).

        A hard interrupt where the port has one (rp2): it comes whatever the loop does. The
        ESP32's timers are soft only ("hard Timers are not implemented"): its callback is
        scheduled, and runs between the loop's bytecodes, which still comes through a long
        frame or message, not through a long call into C."""
        from vora_fw.keysample import KeySampler
        self.stop_sampling()
        sampler = KeySampler(self.sample_rows, time.ticks_ms, period_ms)  # type: ignore[attr-defined]
        Timer = machine.Timer
        try:
            timer = Timer(-1, period=period_ms, callback=sampler.sample, hard=True)
        except ValueError:
            try:
                timer = Timer(-1, period=period_ms, callback=sampler.sample)
            except (ValueError, OSError):
                return None
        except OSError:  # no alarm left in the port's pool
            return None
        self._timer = timer
        self.sampler = sampler
        return sampler

    def stop_sampling(self):
        """Stop the timer interrupt's scans (the REPL, the maker mode scan on demand)."""
        timer = self._timer
        if timer is not None:
            timer.deinit()
        self._timer = None
        self.sampler = None

    def read_rows(self, buf):
        """The keys into buf (bytearray(7)): buf[y] bit x = logical key y*7+x closed. A scan
        of the matrix, or the timer interrupt's last reading while it scans."""
        sampler = self.sampler
        if sampler is not None:
            return sampler.latest(buf)
        return self.scan_rows(buf)

    def scan_rows(self, buf):
        """One full scan into buf (bytearray(7)): buf[y] bit x = logical key y*7+x closed.
        Allocates nothing (it runs in the timer interrupt too)."""
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
                line.value(0)
                time.sleep_us(settle)
                base = i * ns
                for j in range(ns):
                    if not sense[j].value():
                        buf[krow[base + j]] |= kbit[base + j]
                line.value(1)
        except BaseException:  # a KeyboardInterrupt mid-scan must not leave a line driven
            for i in range(len(drive)):
                drive[i].value(1)
            raise
        return buf

    def sample_rows(self, buf):
        """scan_rows(buf) for the timer interrupt: one look with every drive line low first;
        with no sense line low no key is closed and buf is all zero, without the full scan.
        Allocates nothing."""
        drive = self._drive
        sense = self._sense
        closed = False
        try:
            for i in range(len(drive)):
                drive[i].value(0)
            time.sleep_us(self.settle_us)
            for j in range(len(sense)):
                if not sense[j].value():
                    closed = True
                    break
        finally:
            for i in range(len(drive)):
                drive[i].value(1)
        if closed:
            return self.scan_rows(buf)
        for y in range(_W):
            buf[y] = 0
        return buf

    def read_keys(self):
        """One full scan: an int with bit k set when logical key k is closed."""
        return rows_mask(self.read_rows(self._rows))

    def held_at_boot(self, key_index, samples=3, interval_ms=10):
        """True when key_index reads closed in `samples` scans interval_ms apart."""
        rows = self._rows
        y = key_index // _W
        bit = 1 << (key_index % _W)
        for n in range(samples):
            if n:
                time.sleep_ms(interval_ms)
            if not self.read_rows(rows)[y] & bit:
                return False
        return True
