"""Integer millisecond ticks that wrap like MicroPython's, on both runtimes.

On the board these are time.ticks_ms/ticks_diff/ticks_add; on CPython (the virtual board
and tests) the same arithmetic is rebuilt on a monotonic clock, so code that compares
ticks only through ticks_diff behaves the same across a wrap.
"""

import time

try:
    ticks_ms = time.ticks_ms  # type: ignore[attr-defined]
    ticks_us = time.ticks_us  # type: ignore[attr-defined]
    ticks_diff = time.ticks_diff  # type: ignore[attr-defined]
    ticks_add = time.ticks_add  # type: ignore[attr-defined]
except AttributeError:  # CPython
    _PERIOD = 1 << 30
    _HALF = _PERIOD // 2

    def ticks_ms():
        return int(time.monotonic() * 1000) & (_PERIOD - 1)  # type: ignore[attr-defined]

    def ticks_us():
        return int(time.monotonic() * 1000000) & (_PERIOD - 1)  # type: ignore[attr-defined]

    def ticks_add(t, delta):
        return (t + delta) & (_PERIOD - 1)

    def ticks_diff(a, b):
        return ((a - b + _HALF) & (_PERIOD - 1)) - _HALF
