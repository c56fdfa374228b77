"""The generator of the hidden-information games (Boars on the Run!, Tossing Tiger).

shared_rules.prng (xorshift32) has a 32-bit state: a player who sees a few draws (the
opening display of Boars, their own hand in Tossing Tiger) can try every seed and learn
the rest, every bag and the deck order. Here the chance is SHA-256 in counter mode:

    key   = SHA-256(DOMAIN || seed as 8 bytes)            (256 bits, fixed for the game)
    block = SHA-256(key || counter as 8 bytes)            (one block per attempt)

and a draw below n takes the block's first 64 bits, rejecting the top values that would
bias `% n` (so every value below n is exactly as likely), then counts the counter on.
Knowing any number of draws tells nothing of the key or of the draws still to come,
short of trying seeds: hence seeds from a large range, SEED_MAX, drawn from the
operating system's randomness by default (see docs/secrets.md).

Why a module of its own rather than more of prng.py: prng.py runs on the board under
MicroPython, where every function costs memory and hashlib is not on every port; these
games are CPython-only, so their generator lives where only they load it.

The state is one plain int, key << 64 | counter, so it sits in the game's JSON like
xorshift's state did and a saved game resumes the same draws.
"""

import hashlib

from shared_rules import prng

# Seeds of the hidden-information games: 0 to 2**64 - 1 (the log keeps the top bit in a
# column of its own: SQLite's INTEGER is signed). 1.8e19 seeds, each costing SHA-256 work
# to try, against the 10**6 default seeds (and 2**32 possible states) of the old
# generator.
SEED_BITS = 64
SEED_MAX = (1 << SEED_BITS) - 1
_DOMAIN = b"vora-board secret draws v1\x00"
_COUNTER_BITS = 64
_COUNTER_MASK = (1 << _COUNTER_BITS) - 1
_BLOCK = 1 << 64  # a draw's raw value is below this
# The largest state: a 256-bit key and a 64-bit counter.
STATE_MAX = (1 << (256 + _COUNTER_BITS)) - 1
_STATE_BYTES = (256 + _COUNTER_BITS) // 8
_sha256 = hashlib.sha256


def check_seed(seed):
    """`seed` if it is a seed of these games (an int from 0 to SEED_MAX), else ValueError."""
    return prng.check_seed(seed, SEED_MAX)


def seed_state(seed):
    """The generator's first state for a seed (0 to SEED_MAX): its key, counter 0."""
    check_seed(seed)
    key = hashlib.sha256(_DOMAIN + seed.to_bytes(8, "big")).digest()
    return int.from_bytes(key, "big") << _COUNTER_BITS


def check_state(x):
    """True if `x` can be a state of this generator (for from_json checks): any key and
    counter but 0 (never a state of a game) will draw, though only seed_state() gives
    keys nobody can guess."""
    return isinstance(x, int) and not isinstance(x, bool) and 0 < x <= STATE_MAX


def below(x, n):
    """Draw an int in [0, n) from state `x`; returns (value, new_state)."""
    if not 0 < n <= _BLOCK:
        raise ValueError("cannot draw below %r" % (n,))
    # values at or above `limit` would make the low residues more likely: draw again
    limit = _BLOCK - _BLOCK % n
    while True:
        # the state's 40 bytes are the key followed by the counter: the block's input
        u = int.from_bytes(_sha256(x.to_bytes(_STATE_BYTES, "big")).digest()[:8], "big")
        x = x + 1 if x & _COUNTER_MASK != _COUNTER_MASK else x - _COUNTER_MASK
        if u < limit:
            return u % n, x
