"""The host's half of the link's codec (shared_rules.wire): what only the PC packs for the
board or unpacks from it, and whole-frame helpers for the PC's tools and the tests.

The board never loads this module. With a PC its heap holds shared_rules.wire, and every
function there costs the board its code for good (MicroPython keeps a loaded module's
functions on the heap; a stock Pico has no ROMFS to hold them instead): so wire.py keeps
what the board calls (the frames, the payloads it packs or unpacks) and this module what
only the other end does. docs/protocol.md is the specification of both; each payload's
pair (pack here, unpack there, or the other way) is tested together (tests/test_wire.py,
and under MicroPython tests/mp_scripts/wire_vectors.py, which loads this module too: it
runs on MicroPython, as the PC's side of the Unix port's soak does).
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

import binascii

from shared_rules.wire import (  # noqa: F401
    MAX_PAYLOAD, MODE_STANDALONE, MODE_TERMINAL, BadCobs, BadPayload, FrameReader, TooLong,
    WireError, _check_int, _check_len, _check_max, _check_move_text, _cobs_encode_into,
    _decode_body, _move_bytes, _put_u16, _put_u32, _u16, _u32, check_seats)

# The protocol's sizes that the board's codec keeps to itself (shared_rules.wire names them
# with "_", so that they take no room on its heap; the makers' flag and SHA-256 size are
# vora_fw.maker's): the same values, for the PC's tools and the tests. tests/test_wire.py
# checks each against the board's copy.
HEADER_SIZE = const(5)  # type, seq, ack, payload length (u16)
CRC_SIZE = const(4)
MIN_BODY = const(9)  # HEADER_SIZE + CRC_SIZE: an empty payload
MAX_BODY = const(1033)  # MIN_BODY + MAX_PAYLOAD
MAX_FRAME = const(1200)  # encoded bytes of one frame at most, without its delimiter
KEYS = const(49)  # the 7x7 keys, indexed 0..48 as in the firmware's layout
DIGEST_SIZE = const(8)  # raw bytes of a state digest (16 hex digits)
U32_MAX = const(0xFFFFFFFF)
MAX_DETAIL = const(200)  # bytes of a REFUSED detail text
MAX_POSITION = const(200)  # bytes of a POSITION text (a 4-player position is under 120)
UPD_ALLOW_DOWNGRADE = const(1)  # UPD_OFFER flag: the user said --allow-downgrade
HASH_SIZE = const(32)  # SHA-256
UPD_CHUNK = const(1019)  # MAX_PAYLOAD - 5: the data of one UPD_DATA at most
UPD_MAX_FILES = const(255)  # file numbers are a byte; 0 is the manifest


# --- whole frames and COBS blocks (the host and the board read streams with FrameReader) ---

def cobs_encode(data):
    """COBS encoding of a bytes-like `data` (no delimiter): bytes without any 0x00."""
    if not isinstance(data, (bytes, bytearray)):
        data = bytes(data)
    n = len(data)
    out = bytearray(n + n // 254 + 1)  # the most COBS can need: one code per 254 bytes
    o = _cobs_encode_into(data, 0, n, out, 0)
    return bytes(memoryview(out)[:o])


def cobs_decode(data, limit=MAX_FRAME):
    """Decode one COBS-encoded block of bytes (no delimiter): bytes, or a BadCobs, or a
    TooLong for an input over `limit` bytes (refused before any work)."""
    n = len(data)
    if n > limit:
        return TooLong("frame of %d bytes: at most %d" % (n, limit))
    if not isinstance(data, (bytes, bytearray)):
        data = bytes(data)
    z = data.find(b"\x00")
    if z >= 0:
        return BadCobs("bad COBS: a zero byte inside the frame at byte %d" % z)
    # The frame reader's decoder, on the whole input at once.
    reader = FrameReader(n)
    reader._decode(memoryview(data), 0, n)
    m = reader._end()
    if isinstance(m, WireError):
        return m
    return bytes(memoryview(reader._body)[:m])


def decode_body(body):
    """Check a COBS-decoded body: (type, seq, ack, payload) or a WireError value (never raises)."""
    return _decode_body(body, len(body))


def decode_frame(frame):
    """Decode one whole frame (with or without its trailing delimiter): a tuple or a WireError."""
    n = len(frame)
    if n and frame[n - 1] == 0:
        n -= 1
    if n > MAX_FRAME:
        return TooLong("frame of %d bytes: at most %d" % (n, MAX_FRAME))
    body = cobs_decode(memoryview(frame)[:n])
    if isinstance(body, WireError):
        return body
    return decode_body(body)


# --- link payloads: the board's moves and keys read, the PC's requests and pixels --------

def unpack_move(payload):
    """(game, n, digest_hex, move) from a MOVE payload, or BadPayload."""
    _check_len("MOVE", payload, 6 + DIGEST_SIZE + 1)
    _check_max("MOVE", payload)
    n = _u16(payload, 4)
    if n == 0:
        raise BadPayload("MOVE: move numbers start at 1, got 0")
    text = bytes(payload[6 + DIGEST_SIZE:])
    _check_move_text("MOVE", text)
    digest = binascii.hexlify(bytes(payload[6:6 + DIGEST_SIZE])).decode()
    return _u32(payload, 0), n, digest, text.decode()


def pack_moves_req(game, first):
    """MOVES_REQ payload: u32 game id, u16 first move number wanted (1-based)."""
    _check_int("MOVES_REQ", "game", game, 0, U32_MAX)
    _check_int("MOVES_REQ", "first move number", first, 1, 0xFFFF)
    out = bytearray(6)
    _put_u32(out, 0, game)
    _put_u16(out, 4, first)
    return bytes(out)


def unpack_moves(payload):
    """(game, first, [move, ...]) from a MOVES payload, or BadPayload."""
    _check_len("MOVES", payload, 6)
    _check_max("MOVES", payload)
    first = _u16(payload, 4)
    if first == 0:
        raise BadPayload("MOVES: move numbers start at 1, got 0")
    moves = []
    text = bytes(payload[6:])
    if text:
        for part in text.split(b"\n"):
            if not part:
                raise BadPayload("MOVES: an empty move text (two separators in a row or at an end)")
            _check_move_text("MOVES", part)
            moves.append(part.decode())
    return _u32(payload, 0), first, moves


def unpack_key(payload):
    """(key, pressed: bool) from a KEY payload, or BadPayload."""
    if len(payload) != 2:
        raise BadPayload("KEY payload is 2 bytes, not %d" % len(payload))
    key = payload[0]
    if key >= KEYS:
        raise BadPayload("KEY: key index %d, the board has keys 0..%d" % (key, KEYS - 1))
    if payload[1] > 1:
        raise BadPayload("KEY: pressed is 0 or 1, not %d" % payload[1])
    return key, payload[1] == 1


def pack_mode(mode):
    _check_int("MODE", "mode", mode, MODE_STANDALONE, MODE_TERMINAL)
    return bytes((mode,))


def pack_pixels_diff(changes):
    """PIXELS_DIFF payload from (key, r, g, b) tuples: 4 bytes each, at most 49 of them."""
    changes = list(changes)
    if len(changes) > KEYS:
        raise BadPayload("PIXELS_DIFF: %d changes, at most %d" % (len(changes), KEYS))
    out = bytearray(4 * len(changes))
    i = 0
    for change in changes:
        if len(change) != 4:
            raise BadPayload("PIXELS_DIFF: a change is (key, r, g, b), not %r" % (change,))
        _check_int("PIXELS_DIFF", "key", change[0], 0, KEYS - 1)
        for v in change[1:]:
            _check_int("PIXELS_DIFF", "colour", v, 0, 255)
        out[i:i + 4] = bytes(change)
        i += 4
    return bytes(out)


# --- play messages: the host's bots, takebacks and positions, the board's refusals -------

def pack_bots(seats):
    return check_seats(seats).encode()


def pack_bot_move(game, n, move):
    _check_int("BOT_MOVE", "game id", game, 0, U32_MAX)
    _check_int("BOT_MOVE", "move number", n, 1, 0xFFFF)
    text = _move_bytes("BOT_MOVE", move)
    out = bytearray(6 + len(text))
    _put_u32(out, 0, game)
    _put_u16(out, 4, n)
    out[6:] = text
    return bytes(out)


def unpack_refused(payload):
    """(key, reason, detail) of a REFUSED (key 255: not a key but a request)."""
    _check_len("REFUSED", payload, 2)
    if len(payload) > 2 + MAX_DETAIL:
        raise BadPayload("REFUSED: a detail of %d bytes, at most %d" % (
            len(payload) - 2, MAX_DETAIL))
    key = payload[0]
    if key >= KEYS and key != 255:
        raise BadPayload("REFUSED: key %d is not 0..48 or 255" % key)
    try:
        detail = bytes(payload[2:]).decode()
    except Exception:
        raise BadPayload("REFUSED: the detail is not UTF-8")
    return key, payload[1], detail


def pack_takeback_req(game):
    _check_int("TAKEBACK_REQ", "game id", game, 0, U32_MAX)
    out = bytearray(4)
    _put_u32(out, 0, game)
    return bytes(out)


def unpack_takeback(payload):
    """(game, moves kept, digest hex) of a TAKEBACK."""
    if len(payload) != 6 + DIGEST_SIZE:
        raise BadPayload("TAKEBACK: %d bytes, it has %d" % (len(payload), 6 + DIGEST_SIZE))
    return _u32(payload, 0), _u16(payload, 4), binascii.hexlify(bytes(payload[6:])).decode()


def pack_position(seed, position):
    _check_int("POSITION", "seed", seed, 0, U32_MAX)
    text = position.encode()
    if not 0 < len(text) <= MAX_POSITION:
        raise BadPayload("POSITION: a text of 1 to %d bytes" % MAX_POSITION)
    _check_move_text("POSITION", text)
    out = bytearray(4)
    _put_u32(out, 0, seed)
    return bytes(out) + text


# --- makers: the update the PC offers and sends ------------------------------------------

def _check_hash(what, digest):
    if not isinstance(digest, (bytes, bytearray)) or len(digest) != HASH_SIZE:
        raise BadPayload("%s: a SHA-256 is %d bytes, not %r" % (what, HASH_SIZE, digest))


def pack_upd_offer(size, digest, allow_downgrade=False):
    """UPD_OFFER payload: u8 flags (bit 0: downgrade allowed), u32 manifest size in bytes,
    the manifest's 32-byte SHA-256 (which names the bundle)."""
    _check_int("UPD_OFFER", "manifest size", size, 1, U32_MAX)
    _check_hash("UPD_OFFER", digest)
    out = bytearray(5 + HASH_SIZE)
    out[0] = UPD_ALLOW_DOWNGRADE if allow_downgrade else 0
    _put_u32(out, 1, size)
    out[5:] = digest
    return bytes(out)


def pack_upd_data(file, offset, data):
    """UPD_DATA payload: u8 file number (0 the manifest, 1.. the manifest's files in order),
    u32 offset of this chunk in that file, then 1..UPD_CHUNK bytes of it."""
    _check_int("UPD_DATA", "file", file, 0, UPD_MAX_FILES)
    _check_int("UPD_DATA", "offset", offset, 0, U32_MAX)
    n = len(data)
    if not 1 <= n <= UPD_CHUNK:
        raise BadPayload("UPD_DATA: a chunk is 1..%d bytes, not %d" % (UPD_CHUNK, n))
    out = bytearray(5 + n)
    out[0] = file
    _put_u32(out, 1, offset)
    out[5:] = data
    return bytes(out)


def pack_upd_commit(digest):
    """UPD_COMMIT payload: the SHA-256 of the manifest being committed."""
    _check_hash("UPD_COMMIT", digest)
    return bytes(digest)
