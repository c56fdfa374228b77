"""The one small integer PRNG every game keeps inside its state.

xorshift32 (Marsaglia 2003): three shifts and xors on a 32-bit word, so CPython and
MicroPython produce the same sequence bit for bit. It is not cryptographic; it only has
to be reproducible, cheap and good enough to shuffle cubes and cards. The state is a
plain int (never 0), stored in the game's JSON so a saved game resumes the same draws.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

_MASK = const(0xFFFFFFFF)
# The one range of game seeds, everywhere (command line, records, the log, the board):
# 0 to 2**32 - 1. The generator's state is 32 bits, so a larger seed could only alias a
# smaller one; within the range, distinct seeds give distinct first states (the
# multiplier below is odd, so seed -> state is a bijection before the zero fix-up).
SEED_MAX = const(0xFFFFFFFF)


def check_seed(seed, top=SEED_MAX):
    """`seed` if it is a game seed (an int from 0 to `top`, SEED_MAX unless a game's
    generator takes more), else ValueError saying so."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= top:
        raise ValueError("a seed is a whole number from 0 to %d, not %r" % (top, seed))
    return seed


def seed_state(seed):
    """Turn a game seed (0 to SEED_MAX) into a valid (non-zero) generator state."""
    check_seed(seed)
    x = (seed * 2654435761 + 0x9E3779B9) & _MASK
    if x == 0:
        x = 0x6D2B79F5
    for _ in range(4):  # let neighbouring seeds drift apart before the first draw
        x = step(x)
    return x


def step(x):
    """The state after `x`."""
    # On the two 16-bit halves of x: on a 32-bit MicroPython, an int of 2**30 or more is
    # an object on the heap, and every whole-word shift, mask and xor made another (some
    # 250 bytes a step; a new game's 30 draws took 9 KB of the board's heap). The halves
    # stay small ints; only the result is a big one. The same numbers as
    #     x ^= (x << 13) & 0xFFFFFFFF;  x ^= x >> 17;  x ^= (x << 5) & 0xFFFFFFFF
    # (tests/test_prng.py compares the two).
    hi = x >> 16
    lo = x & 0xFFFF
    hi ^= (hi << 13 | lo >> 3) & 0xFFFF  # x ^= x << 13
    lo ^= (lo << 13) & 0xFFFF
    lo ^= hi >> 1  # x ^= x >> 17
    hi ^= (hi << 5 | lo >> 11) & 0xFFFF  # x ^= x << 5
    lo ^= (lo << 5) & 0xFFFF
    return hi << 16 | lo


def below(x, n):
    """Draw an int in [0, n) from state `x`; returns (value, new_state)."""
    if n <= 0:
        raise ValueError("cannot draw below %r" % (n,))
    x = step(x)
    return x % n, x
