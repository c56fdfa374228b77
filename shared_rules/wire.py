"""The frame codec of the board-host link: COBS frames, CRC-32, message types and payloads.

On the wire every frame is `cobs(body) + b"\\x00"`, and a body is

    type (u8) | seq (u8) | ack (u8) | length (u16) | payload (length bytes) | crc32 (u32)

integers big-endian, with the CRC-32 of zlib (binascii.crc32) over type..payload.
docs/protocol.md is the specification; this module is its one implementation, shared by the
board (MicroPython) and the host (CPython).

Why by hand: the `cobs` package on PyPI is CPython-only (a C extension plus a Python
fallback that uses CPython-only features), so COBS is written here in the subset of Python
the two runtimes share. The tests check this codec against the `cobs` package byte for byte.

Limits come first: every decoder looks at the size of its input before it decodes or
checksums a byte of it, so a flood costs nothing but the length test.

Memory: a FrameReader preallocates one buffer of 1,200 bytes (MAX_FRAME), the body it
decodes COBS into, and never grows it; decoding a frame allocates the payload it returns,
the result list and a few small memoryview slices (and an error object for a bad frame).
Encoding allocates the frame's buffer (the body is encoded in place in it) and, for a body
of 254 bytes or more, the frame copied out of it. No function raises on bad input from the
wire: errors come back as WireError values naming what was wrong.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

import binascii
import json

from shared_rules.checks import MAX_DEPTH, crc32, crc32_soft, json_too_deep  # noqa: F401

# The major version: both ends must speak the same one. 2: the length field and CRC-32
# (version 1 had neither and let a lost trailing zero byte through).
PROTOCOL_VERSION = const(2)
PROTOCOL_MINOR = const(1)  # additions a peer may ignore (new JSON fields, types behind caps)

MAX_PAYLOAD = const(1024)
# The other sizes are the codec's own: named with "_", a const leaves no name on the board's
# heap (MicroPython keeps every other module-level name, and its text, for good).
# shared_rules.wire_host gives them to the PC's tools and the tests without the "_"
# (HEADER_SIZE, CRC_SIZE, MIN_BODY, ...); tests/test_wire.py checks the two agree.
_HEADER_SIZE = const(5)  # type, seq, ack, payload length (u16)
_MIN_BODY = const(9)  # _HEADER_SIZE + CRC_SIZE (4): an empty payload
_MAX_BODY = const(1033)  # _MIN_BODY + MAX_PAYLOAD
# Encoded bytes of one frame, without its delimiter. COBS adds one byte per 254 bytes of
# body (at most 5 for _MAX_BODY), so a valid frame needs at most 1038: the margin keeps a
# newer peer's slightly larger frame from being cut while still bounding the buffer.
_MAX_FRAME = const(1200)

# Message types. Bare ACK frames are produced and consumed by the session layer only.
HELLO = const(0x01)  # JSON: versions, nonce, capabilities; always seq 0
HELLO_OK = const(0x02)  # JSON; always seq 0
REFUSE = const(0x03)  # UTF-8 reason; always seq 0
ACK = const(0x04)  # empty: carries only the ack field
PING = const(0x05)  # any bytes, echoed by PONG; seq 0
PONG = const(0x06)
GAME = const(0x10)  # JSON game event
MOVE = const(0x11)  # binary: see pack_move
STATE_REQ = const(0x12)  # empty
STATE = const(0x13)  # JSON
MOVES_REQ = const(0x14)  # binary: see pack_moves_req
MOVES = const(0x15)  # binary: see pack_moves
KEY = const(0x16)  # binary: see pack_key
MODE = const(0x20)  # u8: MODE_STANDALONE or MODE_TERMINAL
PIXELS = const(0x21)  # 147 bytes: r, g, b for keys 0..48
PIXELS_DIFF = const(0x22)  # repeated [key, r, g, b]
REPL = const(0x30)  # empty: the board leaves the app for the MicroPython REPL
LOG = const(0x31)  # UTF-8 text

TYPE_NAMES = {
    HELLO: "HELLO", HELLO_OK: "HELLO_OK", REFUSE: "REFUSE", ACK: "ACK", PING: "PING",
    PONG: "PONG", GAME: "GAME", MOVE: "MOVE", STATE_REQ: "STATE_REQ", STATE: "STATE",
    MOVES_REQ: "MOVES_REQ", MOVES: "MOVES", KEY: "KEY", MODE: "MODE", PIXELS: "PIXELS",
    PIXELS_DIFF: "PIXELS_DIFF", REPL: "REPL", LOG: "LOG",
}

MODE_STANDALONE = const(0)
MODE_TERMINAL = const(1)
_KEYS = const(49)  # the 7x7 keys, indexed 0..48 as in the firmware's layout
PIXELS_SIZE = const(147)  # _KEYS * 3
_DIGEST_SIZE = const(8)  # raw bytes of a state digest (16 hex digits)
_U32_MAX = const(0xFFFFFFFF)


# --- errors -------------------------------------------------------------------------

class WireError(ValueError):
    """Something on the wire (or a payload) that is not what the protocol allows.

    FrameReader and decode_body RETURN these as values (input from the wire never makes
    them raise); encode_frame and the payload helpers RAISE them. `kind` is a short fixed
    word for counters ("cobs", "crc", "short", "long", "length", "type", "payload");
    str(error) says what exactly was wrong.
    """

    kind = "wire"

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class BadCobs(WireError):
    """The bytes between two delimiters are not a valid COBS encoding."""
    kind = "cobs"


class BadCrc(WireError):
    """The frame decoded, but its CRC does not match its contents."""
    kind = "crc"


class TooShort(WireError):
    """A body shorter than the header and the CRC."""
    kind = "short"


class TooLong(WireError):
    """A frame over MAX_FRAME (discarded up to the next delimiter) or a payload over MAX_PAYLOAD."""
    kind = "long"


class BadLength(WireError):
    """A body whose size is not what its length field says (bytes lost or added)."""
    kind = "length"


class UnknownType(WireError):
    """A frame with a good CRC whose type this side does not know."""
    kind = "type"


class BadPayload(WireError):
    """A payload that does not have the layout its message type requires."""
    kind = "payload"


ERROR_KINDS = ("cobs", "crc", "short", "long", "length", "type", "payload")


def type_name(t):
    """The name of a message type for logs: "MOVE", or "0x7f" for an unknown one."""
    name = TYPE_NAMES.get(t)
    return name if name is not None else "0x%02x" % t


# CRC-32 (crc32, crc32_soft) and the JSON depth limit (json_too_deep, MAX_DEPTH) are in
# shared_rules.checks: the board's saves check with them too, and a board that plays alone
# loads that small module, not this one.

# --- COBS -------------------------------------------------------------------------------
# Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999): every zero of the data is
# replaced by a code byte giving the distance to the next zero, so 0x00 never appears in a
# frame and can delimit frames; a receiver resynchronises at the next 0x00 after any noise.
# Runs of 254 non-zero bytes get code 0xFF (no zero follows). The last block drops its
# implicit trailing zero, and a final run of exactly 254 bytes gets no extra 0x01 block:
# the same choices as the `cobs` package and the Wikipedia examples.
# The loops work block by block with bytes.find and slice copies (done in C on both
# runtimes), not byte by byte in Python.

def _cobs_encode_into(data, i, n, out, o):
    """Encode data[i:n] (bytes or bytearray) at out[o:]; returns the end index. `out` may
    be `data` itself, the data at least 1 + (n - i) // 254 bytes after o: each block's
    code byte and data are then written before where they were read. Blocks are copied
    through memoryviews, which both runtimes copy as memmove does when the two overlap
    (a bytearray's slice assignment, on CPython, does not promise it)."""
    mv = memoryview(data)
    dst = mv if out is data else memoryview(out)
    while True:
        z = data.find(b"\x00", i, n)
        end = n if z < 0 else z
        # Full 254-byte blocks. Before a zero even an exact 254 takes a full block, and the
        # zero then needs its own 0x01 block; at the very end the last block may be full.
        while end - i > 254 or (z >= 0 and end - i == 254):
            out[o] = 0xFF
            dst[o + 1:o + 255] = mv[i:i + 254]
            o += 255
            i += 254
        k = end - i
        out[o] = k + 1
        if k:
            dst[o + 1:o + 1 + k] = mv[i:end]
        o += k + 1
        if z < 0:
            return o
        i = z + 1


# --- frames -----------------------------------------------------------------------------

def encode_frame(type, seq, ack, payload=b""):
    """The bytes to write for one frame: cobs(body) + b"\\x00", as bytes, or as a bytearray
    made for it alone (not kept: the caller may hold it, but it is not hashable). Raises
    WireError or ValueError for a payload over MAX_PAYLOAD, an unknown type, or seq/ack
    outside 0..255."""
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise TooLong("%s payload of %d bytes: at most %d" % ("a", n, MAX_PAYLOAD))
    if type not in TYPE_NAMES:
        raise UnknownType("cannot send unknown message type %d" % type)
    if not (0 <= seq <= 255 and 0 <= ack <= 255):
        raise ValueError("seq and ack are bytes, not %r and %r" % (seq, ack))
    size = n + _MIN_BODY
    # One buffer: the body is written `at` bytes in and encoded in place to the front (one
    # code byte per 254 bytes at most is added, so the encoding never overtakes what it
    # reads), with room for the delimiter. A frame's body under 254 bytes (all but a few)
    # encodes to exactly that room: the buffer is the frame. The board sends a few frames
    # a key event; a body, a buffer and a copy each were 1.5 KB of its heap at a move.
    at = size // 254 + 1
    out = bytearray(at + size + 1)
    out[at] = type
    out[at + 1] = seq
    out[at + 2] = ack
    _put_u16(out, at + 3, n)
    end = at + _HEADER_SIZE + n
    if n:
        out[at + _HEADER_SIZE:end] = payload
    _put_u32(out, end, crc32(memoryview(out)[at:end]))
    o = _cobs_encode_into(out, at, at + size, out, 0)
    out[o] = 0  # the delimiter, over what was the body's last byte
    if o + 1 == len(out):
        return out
    return bytes(memoryview(out)[:o + 1])


def _decode_body(body, n):
    """Check and split body[:n]: (type, seq, ack, payload bytes) or a WireError.

    Sizes first, then the length field, then the CRC, then the type: the cheap checks
    refuse most damage before a byte is summed."""
    if n < _MIN_BODY:
        return TooShort("frame too short: %d bytes, a frame has at least %d" % (n, _MIN_BODY))
    if n > _MAX_BODY:
        return TooLong("%s payload of %d bytes: at most %d" % ("a", n - _MIN_BODY, MAX_PAYLOAD))
    length = _u16(body, 3)
    if length + _MIN_BODY != n:
        return BadLength("frame of %d bytes says its payload is %d bytes (it holds %d)"
                         % (n, length, n - _MIN_BODY))
    end = _HEADER_SIZE + length
    got = _u32(body, end)
    want = crc32(memoryview(body)[:end])
    if got != want:
        return BadCrc("bad CRC: frame of %d bytes says %08x, contents give %08x" % (n, got, want))
    t = body[0]
    if t not in TYPE_NAMES:
        return UnknownType("unknown message type 0x%02x (seq %d, %d bytes of payload)"
                           % (t, body[1], length))
    return (t, body[1], body[2], bytes(memoryview(body)[_HEADER_SIZE:end]))


class FrameReader:
    """Cuts a byte stream into frames and checks them.

    feed(data) takes any chunk of bytes (a frame may arrive split anywhere, several frames
    may arrive at once) and returns a list, in stream order, of the frames completed by
    this chunk: each a tuple (type, seq, ack, payload) or a WireError value. It never
    raises on any input and does a bounded amount of work per byte.

    - Empty frames (two delimiters in a row) are ignored, so a host that opens the port may
      write a lone 0x00 first to end whatever partial frame noise left in the board. Never
      right after a frame, though: see the note on the CRC above.
    - Bytes before the first delimiter after power-up or noise form one bad frame, reported
      like any other; the next delimiter resynchronises.
    - A frame growing past max_frame bytes is reported once as TooLong as soon as it
      overflows, and every byte up to the next delimiter is discarded.
    """

    def __init__(self, max_frame=_MAX_FRAME):
        # COBS is decoded as the bytes come, block by block, into the one buffer of the
        # body (never longer than its encoding): the encoded frame is not kept.
        self._body = bytearray(max_frame)
        self.reset()

    def reset(self):
        """Forget a partial frame (not needed at a session reset: framing is independent)."""
        self._n = 0  # encoded bytes of the frame so far
        self._o = 0  # its decoded bytes so far
        self._left = 0  # data bytes still to come in the COBS block being read
        self._code = 0  # that block's code byte, at encoded byte _at
        self._at = 0
        self._zero = False  # a zero to write before the next block (the last ended short)
        self._skip = False  # discarding an oversize frame up to the next delimiter

    def feed(self, data):
        out = []
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)  # memoryview and other buffers: find() needs bytes
        n = len(data)
        mv = memoryview(data)
        cap = len(self._body)
        i = 0
        while i < n:
            z = data.find(b"\x00", i)
            end = n if z < 0 else z
            k = end - i
            if k and not self._skip:
                if self._n + k > cap:
                    out.append(TooLong("frame longer than %d bytes: discarded up to the next"
                                       " delimiter" % cap))
                    self.reset()
                    self._skip = True
                else:
                    self._decode(mv, i, end)
            if z < 0:
                break
            if self._skip:
                self._skip = False
            elif self._n:
                out.append(self._finish())
            self.reset()
            i = z + 1
        return out

    def _decode(self, mv, i, end):
        # The encoded bytes mv[i:end] (no zero among them) onto the body: a code byte
        # opens a block of that many bytes less one, copied whole as far as they came;
        # a block under 254 bytes stands for its data and a zero, written when another
        # block follows (the frame's last block has none).
        body = self._body
        o = self._o
        left = self._left
        at = self._n
        while i < end:
            if left:
                k = end - i if end - i < left else left
                body[o:o + k] = mv[i:i + k]
                o += k
                i += k
                at += k
                left -= k
                continue
            c = mv[i]
            if self._zero:
                body[o] = 0
                o += 1
            self._zero = c != 0xFF
            self._code = c
            self._at = at
            left = c - 1
            i += 1
            at += 1
        self._o = o
        self._left = left
        self._n = at

    def _end(self):
        # The length of the body decoded, or BadCobs when its last block was cut short.
        if self._left:
            return BadCobs("bad COBS: the block at byte %d says %d bytes follow, only %d do"
                           % (self._at, self._code - 1, self._code - 1 - self._left))
        return self._o

    def _finish(self):
        m = self._end()
        if isinstance(m, WireError):
            return m
        return _decode_body(self._body, m)


# --- payloads -------------------------------------------------------------------------
# Helpers raise BadPayload (a WireError) with a message naming the message type and the
# problem. Integers are big-endian. Move texts are printable ASCII (0x20..0x7E), so they
# can never contain the b"\n" that separates them in MOVES.

def _u16(b, i):
    return (b[i] << 8) | b[i + 1]


def _u32(b, i):
    return (b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]


def _put_u16(out, i, v):
    out[i] = (v >> 8) & 0xFF
    out[i + 1] = v & 0xFF


def _put_u32(out, i, v):
    out[i] = (v >> 24) & 0xFF
    out[i + 1] = (v >> 16) & 0xFF
    out[i + 2] = (v >> 8) & 0xFF
    out[i + 3] = v & 0xFF


def _check_int(what, name, v, lo, hi):
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise BadPayload("%s: %s must be an integer in %d..%d, not %r" % (what, name, lo, hi, v))


def _check_len(what, payload, least):
    if len(payload) < least:
        raise BadPayload("%s payload too short: %d bytes, at least %d" % (what, len(payload), least))


def _check_max(what, payload):
    # (Its text is the frame codec's too, with "a" for what: one string on the board.)
    # Before any decoding (a payload from a frame is never longer, so this only refuses
    # what did not come through decode_frame), and after packing JSON or text.
    if len(payload) > MAX_PAYLOAD:
        raise BadPayload("%s payload of %d bytes: at most %d" % (what, len(payload), MAX_PAYLOAD))
    return payload


def _check_size(what, payload, size):
    if len(payload) != size:
        raise BadPayload("%s payload is %d bytes, not %d" % (what, size, len(payload)))


def _move_bytes(what, move):
    """A move text as ASCII bytes, or BadPayload."""
    if not isinstance(move, str):
        raise BadPayload("%s: a move is a str, not %r" % (what, move))
    b = move.encode()
    if not b or len(b) != len(move):  # UTF-8 of non-ASCII text is longer than the text
        raise BadPayload("%s: a move is non-empty ASCII text, not %r" % (what, move))
    _check_move_text(what, b)
    return b


def _check_move_text(what, b):
    for c in b:
        if c < 0x20 or c > 0x7E:
            raise BadPayload("%s: byte 0x%02x in a move text (printable ASCII only)" % (what, c))


def _head(what, game, n, least, size):
    """A payload of `size` bytes that starts u32 game, u16 n (checked first: the game a
    u32, n in least..65535), the rest zero: for MOVE, MOVES and TAKEBACK."""
    _check_int(what, "game", game, 0, _U32_MAX)
    _check_int(what, "move number", n, least, 0xFFFF)
    out = bytearray(size)
    _put_u32(out, 0, game)
    _put_u16(out, 4, n)
    return out


def _digest(what, digest_hex):
    """The 8 bytes of a state digest given as 16 hex digits, or BadPayload."""
    if not isinstance(digest_hex, str) or len(digest_hex) != 2 * _DIGEST_SIZE:
        raise BadPayload("%s: the digest is %d hex digits, not %r" % (
            what, 2 * _DIGEST_SIZE, digest_hex))
    try:
        return binascii.unhexlify(digest_hex)
    except Exception:  # ValueError on CPython, ValueError/TypeError on MicroPython
        raise BadPayload("%s: the digest %r is not hexadecimal" % (what, digest_hex))


def pack_move(game, n, digest_hex, move):
    """MOVE payload: u32 game id, u16 move number (1-based), 8 digest bytes, move text."""
    digest = _digest("MOVE", digest_hex)
    text = _move_bytes("MOVE", move)
    if len(text) > MAX_PAYLOAD - 6 - _DIGEST_SIZE:
        raise BadPayload("MOVE: move text of %d bytes is too long" % len(text))
    out = _head("MOVE", game, n, 1, 6 + _DIGEST_SIZE + len(text))
    out[6:6 + _DIGEST_SIZE] = digest
    out[6 + _DIGEST_SIZE:] = text
    return bytes(out)


def unpack_moves_req(payload):
    """(game, first) from a MOVES_REQ payload, or BadPayload."""
    _check_size("MOVES_REQ", payload, 6)
    first = _u16(payload, 4)
    if first == 0:
        raise BadPayload("MOVES_REQ: move numbers start at 1, got 0")
    return _u32(payload, 0), first


def pack_moves(game, first, moves, limit=MAX_PAYLOAD):
    """Pack as many of `moves` (numbered from `first`) as fit in `limit` bytes.

    Returns (payload, count): the MOVES payload (u32 game, u16 first, then the move texts
    joined by b"\\n") and how many moves it holds. The sender loops, asking again from
    first + count with moves[count:], until count covers the list; an empty list packs a
    MOVES with no moves (the answer "nothing from `first` on"). At least one move always
    fits in MAX_PAYLOAD, so count > 0 whenever moves is not empty.
    """
    _check_int("MOVES", "game", game, 0, _U32_MAX)
    _check_int("MOVES", "move number", first, 1, 0xFFFF)
    size = 6
    count = 0
    for move in moves:
        b = _move_bytes("MOVES", move)
        extra = len(b) + (1 if count else 0)
        if size + extra > limit or first + count > 0xFFFF:
            break
        size += extra
        count += 1
    if moves and not count:
        raise BadPayload("MOVES: move %r does not fit in %d bytes" % (moves[0], limit))
    out = _head("MOVES", game, first, 1, size)
    i = 6
    for k in range(count):
        if k:
            out[i] = 0x0A
            i += 1
        b = moves[k].encode()
        out[i:i + len(b)] = b
        i += len(b)
    return bytes(out), count


def pack_key(key, pressed):
    """KEY payload: u8 key index 0..48, u8 1 pressed / 0 released."""
    _check_int("KEY", "key", key, 0, _KEYS - 1)
    return bytes((key, 1 if pressed else 0))


def unpack_mode(payload):
    """MODE_STANDALONE or MODE_TERMINAL from a MODE payload, or BadPayload."""
    if len(payload) != 1 or payload[0] > MODE_TERMINAL:
        raise BadPayload("MODE payload is one byte 0 (standalone) or 1 (terminal)")
    return payload[0]


def check_pixels(payload):
    """A PIXELS payload is exactly 147 bytes (r, g, b of keys 0..48); returns it or BadPayload."""
    _check_size("PIXELS", payload, PIXELS_SIZE)
    return payload


def unpack_pixels_diff(payload):
    """[(key, r, g, b), ...] from a PIXELS_DIFF payload, or BadPayload.

    The firmware may instead walk the payload in steps of 4 after this check passed on it
    once; the list is for the host and the tests."""
    if len(payload) % 4 or len(payload) > 4 * _KEYS:
        raise BadPayload("PIXELS_DIFF payload is 4 bytes per key, at most %d: got %d bytes"
                         % (4 * _KEYS, len(payload)))
    changes = []
    for i in range(0, len(payload), 4):
        if payload[i] >= _KEYS:
            raise BadPayload("PIXELS_DIFF: key index %d, the board has keys 0..%d"
                             % (payload[i], _KEYS - 1))
        changes.append((payload[i], payload[i + 1], payload[i + 2], payload[i + 3]))
    return changes


def pack_json(obj):
    """Compact JSON as UTF-8 (HELLO, HELLO_OK, GAME, STATE). Key order is not defined."""
    return _check_max("JSON", json.dumps(obj, separators=(",", ":")).encode())


def unpack_json(payload):
    """The JSON object (a dict) of a HELLO, HELLO_OK, GAME or STATE payload, or BadPayload.

    Nesting is limited to MAX_DEPTH before the text reaches the JSON parser (CPython's
    recurses, and a deep enough text would raise RecursionError)."""
    _check_max("JSON", payload)
    if json_too_deep(payload):
        raise BadPayload("JSON nested deeper than %d levels" % MAX_DEPTH)
    try:
        obj = json.loads(bytes(payload).decode())
    except Exception:  # UnicodeError, ValueError; MicroPython may raise others on garbage
        raise BadPayload("payload is not UTF-8 JSON (%d bytes)" % len(payload))
    if not isinstance(obj, dict):
        raise BadPayload("payload is JSON but not an object")
    return obj


def pack_text(text):
    """UTF-8 text (REFUSE, LOG)."""
    return _check_max("text", text.encode())


def unpack_text(payload):
    _check_max("text", payload)
    try:
        return bytes(payload).decode()
    except Exception:
        raise BadPayload("text payload is not UTF-8 (%d bytes)" % len(payload))


def version_refusal(peer_version):
    """None if a peer speaking major version `peer_version` can talk to us, else the REFUSE reason."""
    if peer_version == PROTOCOL_VERSION:
        return None
    return "protocol version %r not supported: this side speaks version %d" % (
        peer_version, PROTOCOL_VERSION)


# --- play messages (0x17..0x1F): bots, takebacks, positions, refusals --------------------
# Sent only to a peer that announced the "play" capability in its HELLO / HELLO_OK.

BOTS = const(0x17)  # host -> board: the seats the host's bots play, as letters ("N", "")
BOT_MOVE = const(0x18)  # host -> board: u32 game, u16 n, move text: play it for the bot
REFUSED = const(0x19)  # board -> host: u8 key (255: a request), u8 reason, UTF-8 detail
TAKEBACK_REQ = const(0x1A)  # host -> board: u32 game: ask the people to agree to a takeback
TAKEBACK = const(0x1B)  # board -> host: u32 game, u16 moves kept, 8 digest bytes after
POSITION = const(0x1C)  # host -> board: u32 seed, position text: a game from that position
RESYNC = const(0x1D)  # host -> board: a save's text (capability "resync"): the game instead

TYPE_NAMES.update({BOTS: "BOTS", BOT_MOVE: "BOT_MOVE", REFUSED: "REFUSED",
                   TAKEBACK_REQ: "TAKEBACK_REQ", TAKEBACK: "TAKEBACK", POSITION: "POSITION",
                   RESYNC: "RESYNC"})

_MAX_DETAIL = const(200)  # bytes of a REFUSED detail text
_MAX_POSITION = const(200)  # bytes of a POSITION text (a 4-player position is under 120)


def check_seats(seats):
    """BOTS' seats: each of S, W, N, E at most once; returns them or BadPayload."""
    for i in range(len(seats)):
        if seats[i] not in "SWNE" or seats.count(seats[i]) > 1:
            raise BadPayload("BOTS: %r is not a set of seats among S, W, N, E" % (seats,))
    return seats


def unpack_bots(payload):
    if len(payload) > 4:
        raise BadPayload("BOTS: %d bytes, at most 4 seats" % len(payload))
    try:
        seats = bytes(payload).decode()
    except Exception:
        raise BadPayload("BOTS: not ASCII")
    return check_seats(seats)


def unpack_bot_move(payload):
    """(game, n, move) of a BOT_MOVE; BadPayload when the layout is wrong."""
    _check_len("BOT_MOVE", payload, 7)
    move = bytes(payload[6:])
    _check_move_text("BOT_MOVE", move)
    return _u32(payload, 0), _u16(payload, 4), move.decode()


def pack_refused(key, reason, detail=""):
    _check_int("REFUSED", "key", key, 0, 255)
    _check_int("REFUSED", "reason", reason, 0, 255)
    text = detail[:_MAX_DETAIL].encode()
    if len(text) > _MAX_DETAIL:  # non-ASCII text: cut where no character can be split
        text = detail[:_MAX_DETAIL // 4].encode()
    return bytes((key, reason)) + text


def unpack_takeback_req(payload):
    _check_size("TAKEBACK_REQ", payload, 4)
    return _u32(payload, 0)


def pack_takeback(game, n, digest_hex):
    """TAKEBACK payload: u32 game id, u16 moves kept (0..), 8 digest bytes after."""
    digest = _digest("TAKEBACK", digest_hex)
    out = _head("TAKEBACK", game, n, 0, 6 + _DIGEST_SIZE)
    out[6:] = digest
    return bytes(out)


def unpack_position(payload):
    """(seed, position text) of a POSITION; the text is checked by the rules later."""
    _check_len("POSITION", payload, 5)
    if len(payload) > 4 + _MAX_POSITION:
        raise BadPayload("POSITION: a text of %d bytes, at most %d" % (
            len(payload) - 4, _MAX_POSITION))
    text = bytes(payload[4:])
    _check_move_text("POSITION", text)
    return _u32(payload, 0), text.decode()


# --- makers: firmware update and doctor (0x40..0x5F) ------------------------------------
# docs/protocol.md, "Updating the firmware" and "The doctor". The host sends a bundle (a
# manifest and its files, docs/makers.md) in UPD_DATA chunks; the board stages it beside the
# running version and answers with UPD_STATUS (JSON). Only boards whose HELLO_OK lists the
# capability "update" (or "doctor") get these messages: to an older board they would be
# unknown types, dropped as bad frames.

UPD_OFFER = const(0x40)  # u8 flags, u32 manifest size, 32 bytes manifest SHA-256
UPD_DATA = const(0x41)  # u8 file (0 = the manifest), u32 offset, 1..UPD_CHUNK bytes
UPD_QUERY = const(0x42)  # empty: the board answers UPD_STATUS
UPD_STATUS = const(0x43)  # JSON: where the staging stands, or why it stopped
UPD_COMMIT = const(0x44)  # 32 bytes manifest SHA-256: verify everything, then switch
UPD_ABORT = const(0x45)  # empty: forget the staged version
UPD_RESET = const(0x46)  # empty: restart the board (into the new version, on trial)
DIAG_REQ = const(0x50)  # empty
DIAG = const(0x51)  # JSON: versions, memory, flash, keys down, pixel caps and current

for _t, _n in ((UPD_OFFER, "UPD_OFFER"), (UPD_DATA, "UPD_DATA"), (UPD_QUERY, "UPD_QUERY"),
               (UPD_STATUS, "UPD_STATUS"), (UPD_COMMIT, "UPD_COMMIT"),
               (UPD_ABORT, "UPD_ABORT"), (UPD_RESET, "UPD_RESET"),
               (DIAG_REQ, "DIAG_REQ"), (DIAG, "DIAG")):
    TYPE_NAMES[_t] = _n
del _t, _n

# What the board does with these messages' payloads is vora_fw.maker's (it loads at the
# PC's first makers' message, docs/firmware.md); the sizes and the flag are wire_host's
# (UPD_CHUNK, HASH_SIZE, UPD_ALLOW_DOWNGRADE, UPD_MAX_FILES), as the PC packs them.
