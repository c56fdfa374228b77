"""The checks of bytes that the link and the board's saves share: CRC-32 and the JSON depth
limit. Its own small module so that a board that plays alone, which checks its saves with
them, does not load the link's codec (shared_rules.wire) for them; wire takes them from here.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

import binascii

# --- CRC-32 -----------------------------------------------------------------------------
# The CRC-32 of zlib and Ethernet (reflected polynomial 0xEDB88320, initial value and final
# xor 0xFFFFFFFF; check value 0xCBF43926 for b"123456789"). binascii.crc32 computes it in C
# on both runtimes (MicroPython has it on every port this firmware targets); the nibble
# table below is the fallback for a build without it. Its final xor means zero bytes added
# to or lost from a body change the CRC; the length field catches them for certain anyway.

def _nibble_table():
    out = []
    for n in range(16):
        c = n
        for _ in range(4):
            c = (c >> 1) ^ (0xEDB88320 if c & 1 else 0)
        out.append(c)
    return tuple(out)


# Made at the first soft CRC, not at import: its 16 numbers are past a small int on a
# 32-bit board (a heap object each, 0.6 KB in all), and a board with binascii.crc32 (every
# port this firmware targets) never needs them.
_nibbles = None


def crc32_soft(data, crc=0):
    """CRC-32 without binascii, a nibble at a time (the reference and the fallback)."""
    global _nibbles
    table = _nibbles
    if table is None:
        table = _nibbles = _nibble_table()
    crc = ~crc & 0xFFFFFFFF
    for b in data:
        crc ^= b
        crc = (crc >> 4) ^ table[crc & 15]
        crc = (crc >> 4) ^ table[crc & 15]
    return ~crc & 0xFFFFFFFF


try:
    _crc32_c = binascii.crc32
except AttributeError:  # a port built without binascii.crc32
    _crc32_c = None


def crc32(data, crc=0):
    """CRC-32 (zlib) of a bytes-like `data`, unsigned; pass a previous result to continue."""
    if _crc32_c is not None:
        return _crc32_c(data, crc)  # unsigned on both runtimes (CPython 3, MicroPython)
    return crc32_soft(data, crc)


# --- text read as bytes ------------------------------------------------------------------
# The board writes and hashes its state's JSON as str pieces (VoraState.json_pieces,
# vora_fw.vora_ui). On MicroPython a str has the buffer protocol: a memoryview of it reads its
# UTF-8 bytes in place (16 bytes of heap, where encoding made a copy of the whole piece), and
# its len() is the bytes' count, which a str's is not. CPython wants the bytes themselves.

try:
    memoryview("")

    def utf8(piece):
        """A str or bytes-like piece as a bytes-like object of its UTF-8 (crc32, hashlib
        and binary files read it; len() is its size): here, read in place."""
        return memoryview(piece) if isinstance(piece, str) else piece
except TypeError:  # CPython
    def utf8(piece):
        """A str or bytes-like piece as a bytes-like object of its UTF-8 (crc32, hashlib
        and binary files read it; len() is its size): here, a str encoded."""
        return piece.encode("utf-8") if isinstance(piece, str) else piece


# --- JSON nesting -----------------------------------------------------------------------

MAX_DEPTH = const(8)  # JSON nesting the protocol's messages need: 3


def json_too_deep(data, limit=MAX_DEPTH):
    """True when the JSON text `data` (bytes) nests deeper than `limit`. Brackets inside
    strings do not count; an escaped quote does not end a string. Used before a parser
    sees untrusted JSON (by the link's codec and by the board's save loader)."""
    depth = 0
    in_string = False
    escaped = False
    for c in data:
        if in_string:
            if escaped:
                escaped = False
            elif c == 0x5C:  # backslash
                escaped = True
            elif c == 0x22:
                in_string = False
        elif c == 0x22:
            in_string = True
        elif c == 0x5B or c == 0x7B:  # [ {
            depth += 1
            if depth > limit:
                return True
        elif c == 0x5D or c == 0x7D:
            depth -= 1
    return False
