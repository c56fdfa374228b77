"""Key scanning logic: debounce and ghost filtering of the 7x7 key matrix (pure, no I/O).

The hardware layer (hal_*.py) reads the matrix; this module turns those raw readings into
clean key events. It runs unchanged on MicroPython and CPython.

Keys. Key index k = y * 7 + x (x the column 0..6 west to east, y the row 0..6 south to
north, as in layout.py). A mask has bit k set when key k is closed (pressed). A 49-bit mask
is a long int on MicroPython (small ints end at 2**30), so internally the scanner keeps one
7-bit small int per row in bytearrays; `update_rows` takes such rows directly and never
allocates, `update` takes the 49-bit mask and splits it when it changes.

Debounce rule (per key, integer ticks). A key's debounced state changes only once its raw
state has read the same, different from the debounced state, for at least debounce_ms:
the scanner notes the tick at which it first saw the key's current raw value and reports the
change at the first scan with ticks_diff(now, that tick) >= debounce_ms. Any bounce back
restarts the wait, so chatter shorter than debounce_ms never produces an event and a press
is reported debounce_ms after the contacts stop bouncing. Ticks are compared only through
clock.ticks_diff, so the rule holds across the tick wrap (2**30 ms on MicroPython).
debounce_ms=0 reports every change at the scan that sees it.

Ghosting rule. In a matrix without working diodes, three closed corners of a rectangle make
the fourth corner read closed too (current finds a path through the other three), and longer
chains of closed keys do the same. Every such reading contains two rows that share two or
more closed columns, and from the reading alone nobody can tell which corner is the ghost.
So, when anti_ghost is on (the default), every scan looks for pairs of rows whose raw
readings share >= 2 closed columns; the keys at those shared columns in both rows are
"involved" and their changes are ignored: each involved key keeps its previous debounced
state (and any change it was waiting to confirm is dropped) for as long as the pattern
lasts. Involved keys all read closed, so in practice this holds back presses (of the ghost
and of the real keys that were not yet down when the pattern appeared); a key that opens
leaves the pattern, so releases are never held back. When the pattern is gone the keys are
debounced again from that scan on, so a real press that remains is reported debounce_ms
later. `ghosts_ignored` counts the key changes ignored this way: +1 each time a key starts
reading differently from its debounced state while involved in a pattern (once per
episode, not per scan).
The reference board has a diode on every key and never ghosts; the filter is there for a
missing or failed diode. Its price: four genuinely pressed keys at the corners of a
rectangle are ambiguous too, so the last of them to go down is held back until one of the
four is released. Pass anti_ghost=False to report every debounced change.

Allocation. In the steady state (raw reading unchanged, nothing waiting for debounce)
update() does one comparison (no allocation, even for a long-int mask) and returns the
shared empty tuple NO_EVENTS; while keys are settling it loops over small ints only. A list
is allocated only for a scan that has events; update() also splits a long-int mask (keys
>= 30 down) when the reading changes, which update_rows() avoids.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from vora_fw.clock import ticks_diff
from vora_fw.pixels import logical_cell

_W = const(7)  # columns per row
_ROW_BITS = const(0x7F)

NO_EVENTS = ()  # returned, shared, when a scan has no event: never mutate it

# Number of set bits of 0..127.
_POPCOUNT = bytes([bin(i).count("1") for i in range(128)])


def matrix_wiring(pinmap):
    """How a pin map's matrix is scanned: (drive pins, sense pins, krow, kbit).

    The diodes decide which lines are driven low one at a time and which are read:
    col2row drives the rows and reads the columns, row2col the other way round. krow and
    kbit map (drive i, sense j), at index i * len(sense) + j, to the logical key it closes
    (rotation applied): its row in a scan buffer and its bit there.
    """
    rows = pinmap["row_pins"]
    cols = pinmap["col_pins"]
    direction = pinmap.get("diode_direction", "col2row")
    if direction == "col2row":
        drive, sense = rows, cols
    elif direction == "row2col":
        drive, sense = cols, rows
    else:
        raise ValueError("diode_direction must be col2row or row2col, not %r" % (direction,))
    rotation = pinmap.get("rotation", 0)
    ns = len(sense)
    krow = bytearray(len(drive) * ns)
    kbit = bytearray(len(drive) * ns)
    for i in range(len(drive)):
        for j in range(ns):
            wx, wy = (j, i) if direction == "col2row" else (i, j)
            x, y = logical_cell(wx, wy, rotation)
            krow[i * ns + j] = y
            kbit[i * ns + j] = 1 << x
    return drive, sense, krow, kbit


def rows_mask(rows):
    """One scan given as 7-bit rows (rows[y] bit x = key y*7+x closed) as one int mask.

    On MicroPython an int over 30 bits is allocated on the heap: prefer the rows with
    KeyScanner.update_rows in loops; this is for the occasional whole mask."""
    mask = 0
    for y in range(_W - 1, -1, -1):
        mask = (mask << _W) | rows[y]
    return mask


class KeyScanner:
    """Debounced, ghost-filtered key state from raw matrix readings.

    scanner = KeyScanner(debounce_ms=20)
    for key, pressed in scanner.update(hw.read_keys(), clock.ticks_ms()): ...
    """

    def __init__(self, debounce_ms=20, keys=49, anti_ghost=True):
        if not 0 < keys <= 49:
            raise ValueError("keys must be 1..49")
        if debounce_ms < 0:
            raise ValueError("debounce_ms must be >= 0")
        self.debounce_ms = debounce_ms
        self.keys = keys
        self.anti_ghost = anti_ghost
        self.ghosts_ignored = 0
        n = (keys + _W - 1) // _W
        self._n = n
        valid = bytearray(n)
        for k in range(keys):
            valid[k // _W] |= 1 << (k % _W)
        self._valid = valid
        self._raw = bytearray(n)  # last raw reading
        self._eff = bytearray(n)  # raw reading with involved (ghost) keys held at their state
        self._db = bytearray(n)  # debounced state
        self._pend = bytearray(n)  # keys whose effective reading differs from the debounced state
        self._ghost = bytearray(n)  # keys involved in an ambiguous (rectangle) pattern
        self._supp = bytearray(n)  # involved keys whose raw reading differs from their state
        self._split = bytearray(n)  # scratch for update()
        self._since = [0] * keys  # tick at which each key's effective reading last changed
        self._last_mask = 0
        self._pending = False

    # ----------------------------------------------------------------- input

    def update(self, raw_mask, now_ms):
        """Feed one full scan (bit k = key k closed) taken at tick now_ms.

        Returns the events of this scan as (key_index, pressed) pairs in key order, or the
        shared empty tuple NO_EVENTS when there are none.
        """
        if raw_mask != self._last_mask:
            self._last_mask = raw_mask
            split = self._split
            for y in range(self._n):
                split[y] = (raw_mask >> (y * _W)) & _ROW_BITS
            self._ingest(split, now_ms)
        if not self._pending:
            return NO_EVENTS
        return self._settle(now_ms)

    def update_rows(self, rows, now_ms):
        """Like update(), with the scan given as 7-bit rows (rows[y] bit x = key y*7+x).

        Never allocates unless there are events: pair it with hal read_rows(buf).
        """
        raw = self._raw
        valid = self._valid
        for y in range(self._n):
            if rows[y] & valid[y] != raw[y]:
                self._last_mask = -1  # forces update() to split its next mask
                self._ingest(rows, now_ms)
                break
        if not self._pending:
            return NO_EVENTS
        return self._settle(now_ms)

    # ----------------------------------------------------------------- state

    @property
    def state(self):
        """The debounced state as a mask (bit k set = key k is down)."""
        db = self._db
        mask = 0
        for y in range(self._n - 1, -1, -1):
            mask = (mask << _W) | db[y]
        return mask

    def is_pressed(self, key):
        """True when key is down (debounced)."""
        return (self._db[key // _W] >> (key % _W)) & 1 == 1

    @property
    def settling(self):
        """True while some key waits for its debounce time (the caller should keep scanning)."""
        return self._pending

    def reset(self, state_mask=0):
        """Forget all history and take state_mask as the debounced state, without events.

        For instance after a key held at boot has been handled, so that it is not also
        reported as a fresh press.
        """
        n = self._n
        for y in range(n):
            v = (state_mask >> (y * _W)) & self._valid[y]
            self._raw[y] = v
            self._eff[y] = v
            self._db[y] = v
            self._pend[y] = 0
            self._ghost[y] = 0
            self._supp[y] = 0
        self._last_mask = state_mask
        self._pending = False

    # -------------------------------------------------------------- internals

    def _ingest(self, rows, now):
        """Take a new raw reading: find ghost patterns, restart the timers of changed keys."""
        n = self._n
        raw = self._raw
        valid = self._valid
        changed = False
        for y in range(n):
            r = rows[y] & valid[y]
            if r != raw[y]:
                raw[y] = r
                changed = True
        if not changed:
            return

        ghost = self._ghost
        for y in range(n):
            ghost[y] = 0
        if self.anti_ghost:
            for y1 in range(n - 1):
                a = raw[y1]
                if a & (a - 1) == 0:  # fewer than two keys: shares fewer than two columns
                    continue
                for y2 in range(y1 + 1, n):
                    s = a & raw[y2]
                    if s & (s - 1):  # two or more shared columns: a rectangle
                        ghost[y1] |= s
                        ghost[y2] |= s

        db = self._db
        eff = self._eff
        pend = self._pend
        supp = self._supp
        since = self._since
        any_pending = 0
        for y in range(n):
            g = ghost[y]
            r = raw[y]
            d = db[y]
            e = (r & ~g) | (d & g)
            change = e ^ eff[y]
            if change:
                eff[y] = e
                k = y * _W
                while change:
                    if change & 1:
                        since[k] = now
                    change >>= 1
                    k += 1
            s = g & (r ^ d)
            fresh = s & ~supp[y]
            if fresh:
                self.ghosts_ignored += _POPCOUNT[fresh]
            supp[y] = s
            p = e ^ d
            pend[y] = p
            any_pending |= p
        self._pending = any_pending != 0

    def _settle(self, now):
        """Confirm the changes that have been stable for debounce_ms; return their events.

        The events are made before any key is marked settled: when the heap cannot give
        their list (MemoryError), nothing has changed and the next scan reports them."""
        wait = self.debounce_ms
        db = self._db
        eff = self._eff
        pend = self._pend
        since = self._since
        events = None
        for y in range(self._n):
            p = pend[y]
            bit = 1
            k = y * _W
            while bit <= p:
                if p & bit and ticks_diff(now, since[k]) >= wait:
                    if events is None:
                        events = []
                    events.append((k, eff[y] & bit != 0))
                bit <<= 1
                k += 1
        any_pending = 0
        for y in range(self._n):
            p = pend[y]
            left = p
            bit = 1
            k = y * _W
            while bit <= p:
                if p & bit and ticks_diff(now, since[k]) >= wait:
                    db[y] ^= bit
                    left ^= bit
                bit <<= 1
                k += 1
            pend[y] = left
            any_pending |= left
        self._pending = any_pending != 0
        if events is None:
            return NO_EVENTS
        return events
