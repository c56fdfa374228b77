"""Simulated hardware layer: the same interface as hal_rp2.Hardware, without hardware.

Runs on CPython (the virtual board, tests) and on MicroPython. The simulation keeps the
state of the 49 switches of the WIRED matrix (pin map rotation applied, as on a real board)
and reads them back the way the matrix would:

- press(key) / release(key) / set_raw(mask) close and open switches, by logical key index
  k = y * 7 + x (the keys a player sees);
- read_keys() returns the mask of closed keys; with ghosting=True it emulates a matrix
  without diodes: every group of rows and columns joined by closed switches reads as fully
  closed, so three closed corners of a rectangle also report the fourth (longer chains of
  closed keys ghost the same way);
- pixels.write(buf) keeps a copy of the last chain buffer and counts frames_written, and
  frame_rgb() undoes the chain, colour and rotation mapping of the pin map so the virtual
  board can draw the frame as R, G, B per key index.

There is no bouncing here: tests and the virtual board make their own bounce patterns.
"""

from vora_fw.keyscan import rows_mask
from vora_fw.pixels import chain_map, wired_cell

_W = 7


def serpentine_order(size=_W):
    """The reference chain: up column 0, down column 1, up column 2, ... ([x, y] per pixel)."""
    order = []
    for x in range(size):
        ys = range(size) if x % 2 == 0 else range(size - 1, -1, -1)
        for y in ys:
            order.append([x, y])
    return order


def default_pinmap():
    """The Raspberry Pi Pico pin map of hardware/pinmap-rp2-pico.json (its working fields)."""
    return {
        "board": "Raspberry Pi Pico (RP2040)",
        "port": "rp2",
        "frame_size": [7, 7],
        "row_pins": [2, 3, 4, 5, 6, 7, 8],
        "col_pins": [9, 10, 11, 12, 13, 14, 15],
        "diode_direction": "col2row",
        "scan_period_ms": 5,
        "debounce_ms": 20,
        "pixel_pin": 16,
        "pixel_count": 49,
        "color_order": "GRB",
        "pixel_order": serpentine_order(),
        "brightness_cap": 160,
        "rotation": 0,
        "supply_ma": 500,
        "controller_ma": 50,
        "level_shifter_ma": 2,
        "idle_ma_per_pixel": 1,
        "current_budget_ma": 350,
        "ma_per_channel_full": 20,
        "max_channel_sum": 4462,
    }


class SimPixels:
    """Pixel driver that remembers the last buffer written."""

    def __init__(self, nbytes):
        self.buf = bytearray(nbytes)
        self.frames_written = 0

    def write(self, buf):
        if len(buf) == len(self.buf):
            self.buf[:] = buf  # no allocation
        else:
            self.buf = bytearray(buf)
        self.frames_written += 1


class SimHardware:
    """Simulated board: switches set by press/release/set_raw, pixels kept in memory."""

    def __init__(self, pinmap=None, ghosting=False):
        if pinmap is None:
            pinmap = default_pinmap()
        self.pinmap = pinmap
        self.ghosting = ghosting
        self.keys = _W * _W
        rotation = pinmap.get("rotation", 0)
        # logical key -> wired row and column bit, and back
        self._wrow = bytearray(self.keys)
        self._wbit = bytearray(self.keys)
        self._lkey = bytearray(self.keys)  # wired y * 7 + x -> logical key
        for k in range(self.keys):
            wx, wy = wired_cell(k % _W, k // _W, rotation)
            self._wrow[k] = wy
            self._wbit[k] = 1 << wx
            self._lkey[wy * _W + wx] = k
        self._closed = bytearray(_W)  # wired rows: bit x set = switch at (x, y) closed
        self._read = bytearray(_W)  # scratch: what the wired matrix reads
        self._rows = bytearray(_W)  # scratch for read_keys
        self._map = chain_map(pinmap)
        self.pixels = SimPixels(len(self._map))
        self.scans = 0

    # ------------------------------------------------------------ switches

    def press(self, key):
        self._closed[self._wrow[key]] |= self._wbit[key]

    def release(self, key):
        self._closed[self._wrow[key]] &= ~self._wbit[key] & 0x7F

    def set_raw(self, mask):
        """Set every switch at once: bit k of mask = logical key k closed."""
        for y in range(_W):
            self._closed[y] = 0
        for k in range(self.keys):
            if (mask >> k) & 1:
                self.press(k)

    @property
    def closed(self):
        """Mask of the switches really closed (no ghosts)."""
        mask = 0
        for k in range(self.keys):
            if self._closed[self._wrow[k]] & self._wbit[k]:
                mask |= 1 << k
        return mask

    # ------------------------------------------------------------ the hal interface

    def read_rows(self, buf):
        """One scan into buf[y] (bit x = logical key y*7+x closed); returns buf."""
        self.scans += 1
        read = self._read
        closed = self._closed
        for y in range(_W):
            read[y] = closed[y]
        if self.ghosting:
            _join(read)
        lkey = self._lkey
        for y in range(_W):
            buf[y] = 0
        for wy in range(_W):
            r = read[wy]
            wx = 0
            while r:
                if r & 1:
                    k = lkey[wy * _W + wx]
                    buf[k // _W] |= 1 << (k % _W)
                r >>= 1
                wx += 1
        return buf

    def read_keys(self):
        """One full scan: mask with bit k set when key k reads closed."""
        return rows_mask(self.read_rows(self._rows))

    def held_at_boot(self, key_index, samples=3, interval_ms=10):
        for _ in range(samples):
            if not (self.read_keys() >> key_index) & 1:
                return False
        return True

    def frame_rgb(self):
        """The last frame written, back as bytearray(147): R, G, B per logical key index."""
        buf = self.pixels.buf
        m = self._map
        out = bytearray(self.keys * 3)
        for j in range(min(len(m), len(buf))):
            out[m[j]] = buf[j]
        return out


def _join(rows):
    """Diode-less matrix: rows that share a closed column are connected, so each reads the
    union of their columns; repeat until nothing changes (connected components)."""
    changed = True
    while changed:
        changed = False
        for a in range(_W - 1):
            ra = rows[a]
            if not ra:
                continue
            for b in range(a + 1, _W):
                rb = rows[b]
                if rb & ra and rb != ra:
                    ra |= rb
                    rows[a] = ra
                    rows[b] = ra
                    changed = True
