"""Frames to pixel bytes: chain order, colour order, rotation, brightness cap, current cap.

Pure logic (no machine import), the same on the board and on CPython. The renderer draws a
frame: a bytearray(147) holding R, G, B for every key index k = y * 7 + x (logical frame
coordinates of layout.py). PixelOutput.show(frame) turns it into the bytes the chain wants
and hands one preallocated bytearray to driver.write(buf) (the hal's pixel driver); no
allocation per frame.

What show() does, in this order (hardware/README.md and hardware/power.md say why):
1. Chain and rotation. Chain position i lights the wired cell pixel_order[i] of the pin
   map. `rotation` (0, 90, 180, 270: how the logical frame sits on the wired one, degrees
   clockwise seen from above) maps a logical cell to its wired cell: 90 -> (y, 6 - x),
   180 -> (6 - x, 6 - y), 270 -> (6 - y, x). Chain byte order follows `color_order`
   ("GRB" for WS2812B and SK6812, or any order of R, G and B).
2. Brightness. Every channel value v becomes v * level * cap // (255 * 255), where cap is
   the pin map's `brightness_cap` (160 on the reference board) and level the user's
   brightness 0..255 (set_brightness, default 255). So the full 0..255 range of the frame
   is mapped onto 0..cap: no channel is ever sent above cap, and colours keep their hue
   (clipping at cap instead would turn a pink (255, 40, 110) into a purple (160, 40, 110)).
   It is one 256-entry lookup table, where a gamma curve can go later.
3. Current cap. s = sum of all channel values to send; if s > max_channel_sum every value v
   becomes v * max_channel_sum // s (integer division rounds down, so the sum ends at or
   under the cap). max_channel_sum comes from the pin map; when it is absent it is derived
   as current_budget_ma * 255 // ma_per_channel_full, and when that is absent too the
   budget is supply_ma - controller_ma - pixel_count * idle_ma_per_pixel - level_shifter_ma
   less a 10 % margin of supply_ma.

estimate_ma(buf) gives the LED current of a buffer as power.md computes it.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

SIZE = const(7)
_CHANNELS = "RGB"


def wired_cell(x, y, rotation, size=SIZE):
    """The wired (hardware) cell of logical cell (x, y) for a rotation of 0/90/180/270."""
    m = size - 1
    if rotation == 0:
        return x, y
    if rotation == 90:
        return y, m - x
    if rotation == 180:
        return m - x, m - y
    if rotation == 270:
        return m - y, x
    raise ValueError("rotation must be 0, 90, 180 or 270, not %r" % (rotation,))


def logical_cell(wx, wy, rotation, size=SIZE):
    """The logical cell shown at (or read from) wired cell (wx, wy): wired_cell's inverse."""
    return wired_cell(wx, wy, (360 - rotation) % 360, size)


def channel_offsets(color_order):
    """For each byte of a pixel on the chain, which of R, G, B (0, 1, 2) it carries."""
    order = str(color_order).upper()
    if len(order) != 3 or sorted(order) != sorted(_CHANNELS):
        raise ValueError("color_order must be an order of R, G and B, not %r" % (color_order,))
    return tuple(_CHANNELS.index(c) for c in order)


def chain_map(pinmap):
    """m with m[j] = the frame byte sent as chain byte j (3 bytes per chain pixel): bytes.

    Checks the pixel order: every chain pixel on a cell of the frame, no cell twice.
    """
    size = pinmap.get("frame_size", (SIZE, SIZE))[0]
    order = pinmap["pixel_order"]
    count = pinmap.get("pixel_count", len(order))
    if count != len(order):
        raise ValueError("pixel_count %d but pixel_order lists %d cells" % (count, len(order)))
    rotation = pinmap.get("rotation", 0)
    offsets = channel_offsets(pinmap.get("color_order", "GRB"))
    seen = set()
    # Sized once: a list grown by appends would ask, on its last doubling, for a block of
    # 256 slots, which a board restarted on a heap in pieces may not have.
    out = [0] * (count * len(offsets))
    j = 0
    for i in range(count):
        wx, wy = order[i]
        if not (0 <= wx < size and 0 <= wy < size):
            raise ValueError("pixel %d sits outside the frame: %r" % (i, order[i]))
        x, y = logical_cell(wx, wy, rotation, size)
        k = y * size + x
        if k in seen:
            raise ValueError("pixel %d lights cell %r a second time" % (i, order[i]))
        seen.add(k)
        for c in offsets:
            out[j] = k * 3 + c
            j += 1
    if max(out) < 256:
        return bytes(out)  # 147 bytes for the 7x7 board, instead of a tuple of ints
    return tuple(out)


def channel_sum_cap(pinmap):
    """max_channel_sum of the pin map, or derived from its current budget (power.md)."""
    cap = pinmap.get("max_channel_sum")
    if cap is not None:
        return int(cap)
    per_channel = pinmap.get("ma_per_channel_full", 20)
    budget = pinmap.get("current_budget_ma")
    if budget is None:
        supply = pinmap.get("supply_ma", 500)
        budget = (
            supply
            - pinmap.get("controller_ma", 50)
            - pinmap.get("pixel_count", 49) * pinmap.get("idle_ma_per_pixel", 1)
            - pinmap.get("level_shifter_ma", 2)
            - supply // 10
        )
    return max(0, int(budget) * 255 // per_channel)


RELEASE = const(1)


class PixelOutput:
    """Send key-indexed RGB frames to the pixel chain within the brightness and current caps."""

    def __init__(self, pinmap_dict, driver, brightness=255):
        pinmap = pinmap_dict
        size = pinmap.get("frame_size", (SIZE, SIZE))[0]
        self.frame_bytes = size * size * 3
        self._map = chain_map(pinmap)
        self.pixel_count = len(self._map) // 3
        self.brightness_cap = max(0, min(255, int(pinmap.get("brightness_cap", 255))))
        self.max_channel_sum = channel_sum_cap(pinmap)
        self.ma_per_channel_full = pinmap.get("ma_per_channel_full", 20)
        self.driver = driver
        self._buf = bytearray(len(self._map))
        self._lut = bytearray(256)
        self.brightness = 255
        self.set_brightness(brightness)
        self.last_sum = 0  # channel sum of the last frame before the current cap
        self.frames = 0
        self.frames_limited = 0  # frames the current cap scaled down
        # The current cap's scale, in 1/1024: it drops at once to what a frame needs, and
        # comes back up only slowly (RELEASE per frame, about 7 s from 80 % to 100 % at 30
        # frames a second). Following each frame instead would make steady cubes swell and
        # fade with every blink elsewhere on the board, and steadiness is one of the cues
        # that tell colours apart (palette.py).
        self.scale = 1024

    def set_brightness(self, level):
        """User brightness 0..255 (255 = up to brightness_cap)."""
        level = max(0, min(255, int(level)))
        self.brightness = level
        scale = level * self.brightness_cap
        lut = self._lut
        for v in range(256):
            lut[v] = v * scale // 65025

    def show(self, frame):
        """Map, cap and write one frame (bytearray of R, G, B per key index)."""
        out = self._buf
        m = self._map
        lut = self._lut
        n = len(out)
        s = 0
        for j in range(n):
            v = lut[frame[m[j]]]
            out[j] = v
            s += v
        self.last_sum = s
        cap = self.max_channel_sum
        need = cap * 1024 // s if s > cap else 1024
        scale = self.scale
        scale = need if need < scale else min(need, scale + RELEASE)
        self.scale = scale
        if scale < 1024:
            for j in range(n):
                out[j] = out[j] * scale >> 10
            self.frames_limited += 1
        self.frames += 1
        self.driver.write(out)

    def off(self):
        """All pixels dark."""
        out = self._buf
        for j in range(len(out)):
            out[j] = 0
        self.last_sum = 0
        self.driver.write(out)

    def estimate_ma(self, buf=None):
        """LED current (mA, above the pixels' idle draw) of chain bytes buf (default: last sent).

        sum of channel values / 255 * ma_per_channel_full, as in hardware/power.md.
        """
        if buf is None:
            buf = self._buf
        return sum(buf) * self.ma_per_channel_full / 255
