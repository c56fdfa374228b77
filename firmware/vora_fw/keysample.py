"""Key readings taken by a timer interrupt, kept for the game's loop.

Why: the game's loop scans the keys between its other work, and on an RP2040 at 125 MHz that
work (a frame drawn, a message from the PC, a save) can hold it for longer than a quick press
lasts. On the emulated chip 16% of 60 ms presses were never seen and two scans were once
5.4 s apart (docs/benchmarks.md, "Memory on a stock Pico"). A hard timer interrupt scans the
matrix every few milliseconds whatever the loop is doing, and keeps each reading that differs
from the one before, with its tick, in a ring; the loop hands them to the debouncer in order
(drain), so a press is seen if the interrupt saw it, however late the loop comes.

The interrupt must not allocate (MicroPython runs a hard interrupt's handler with the heap
locked): sample() only reads pins into a buffer made beforehand, compares bytes, and stores
small ints. The ring is written by sample() alone at its head and read by drain() alone at
its tail, so neither needs the other stopped. A full ring takes no more readings, and keeps
its last one as the reading to compare with: a change then waits in the matrix until there
is room, and the state the loop ends with is always the keys' own.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from vora_fw.clock import ticks_add
from vora_fw.keyscan import NO_EVENTS

_W = const(7)
SLOTS = const(32)  # changes kept: 16 presses and releases while the loop is away
_COUNT_MASK = const(0x3FFFFFFF)  # the largest small int of a 32-bit MicroPython


class KeySampler:
    """sample() from the interrupt, drain(scanner, now) from the loop.

    read_rows(buf) scans the matrix into bytearray(7) without allocating (hal_rp2's
    sample_rows); ticks_ms() gives the reading's tick; period_ms: the timer's period.
    """

    def __init__(self, read_rows, ticks_ms, period_ms, slots=SLOTS):
        self._read = read_rows
        self._ticks = ticks_ms
        self._period = period_ms
        self._slots = slots
        self._scan = bytearray(_W)  # the interrupt's scan
        self._last = bytearray(_W)  # the last reading kept
        self._ring = bytearray(_W * slots)
        self._at = [0] * slots  # type: list  # the tick of each reading kept
        self._head = 0  # the next slot sample() writes
        self._tail = 0  # the next slot drain() reads
        self._prev = bytearray(_W)  # the loop's: the reading before the next one it takes
        self.samples = 0  # scans taken (wraps at 2**30): the loop sees the interrupt is alive
        self.waited = 0  # scans that found a change and no room for it

    def sample(self, _timer=None):
        """One scan; a reading that differs from the last one kept goes into the ring.
        Runs in the timer's hard interrupt: allocates nothing."""
        n = self.samples  # counted up to the last small int, then from 0 (never a long int)
        self.samples = n + 1 if n < _COUNT_MASK else 0
        rows = self._read(self._scan)
        last = self._last
        y = 0
        while y < _W:
            if rows[y] != last[y]:
                break
            y += 1
        if y == _W:
            return
        head = self._head
        nxt = head + 1
        if nxt == self._slots:
            nxt = 0
        if nxt == self._tail:  # full: the change stays in the matrix until there is room
            if self.waited < _COUNT_MASK:  # a long int would raise here
                self.waited += 1
            return
        ring = self._ring
        base = head * _W
        y = 0
        while y < _W:
            ring[base + y] = rows[y]
            last[y] = rows[y]
            y += 1
        self._at[head] = self._ticks()
        self._head = nxt  # last: drain() reads only slots written whole

    def drain(self, scanner, now):
        """Hand the readings kept since the last drain to scanner (keyscan.KeyScanner) in
        order, each at its own tick, then the last one at now. Returns the events of the
        first call that has any, as KeyScanner.update_rows does (NO_EVENTS when none): the
        readings after it wait for the next drain, so that a MemoryError (the events' list)
        loses nothing, as in KeyScanner, whose call it was."""
        prev = self._prev
        ring = self._ring
        tail = self._tail
        head = self._head
        while tail != head:
            at = self._at[tail]
            # The reading before was last seen a period before this one: keys it held long
            # enough by then settle (as the loop's own scans would have had them).
            events = scanner.update_rows(prev, ticks_add(at, -self._period))
            if events is not NO_EVENTS:
                return events
            base = tail * _W
            for y in range(_W):
                prev[y] = ring[base + y]
            events = scanner.update_rows(prev, at)
            tail += 1
            if tail == self._slots:
                tail = 0
            self._tail = tail
            if events is not NO_EVENTS:
                return events
        return scanner.update_rows(prev, now)

    def latest(self, buf):
        """The last reading kept, into buf (bytearray(7)): the keys as the interrupt sees
        them, for a reader beside the game (the doctor's key test)."""
        last = self._last
        for y in range(_W):
            buf[y] = last[y]
        return buf

