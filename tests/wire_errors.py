"""Single errors in frames, for tests/test_wire.py and bench/bench_link_faults.py: random
frames as the endpoints send them, and the check that a damaged frame lets nothing through
but the frame that follows it."""

import random

from shared_rules import wire, wire_host

_MOVES = ["push crow Sc", "take b3", "mole e3 e2", "pass", "water c2", "steal 1 pig", "wolf Nd",
          "extra a1", "ladybug d4", "duck b2 b3", "pig Wa"]


def random_frame(rng):
    """A frame as the endpoints send them: any type, realistic payloads."""
    t = rng.choice([wire.MOVE, wire.MOVE, wire.KEY, wire.ACK, wire.MOVES_REQ, wire.GAME,
                    wire.MOVES, wire.PIXELS_DIFF, wire.STATE_REQ, wire.LOG])
    seq, ack = rng.randrange(256), rng.randrange(256)
    if t == wire.MOVE:
        p = wire.pack_move(rng.getrandbits(32), rng.randint(1, 400), "%016x" % rng.getrandbits(64),
                           rng.choice(_MOVES))
    elif t == wire.KEY:
        p = wire.pack_key(rng.randrange(49), rng.random() < .5)
    elif t == wire.MOVES_REQ:
        p = wire_host.pack_moves_req(rng.getrandbits(32), rng.randint(1, 400))
    elif t == wire.GAME:
        p = wire.pack_json({"event": "new", "game": rng.getrandbits(32),
                            "seed": rng.getrandbits(32), "moves": 0, "players": 2})
    elif t == wire.MOVES:
        p = wire.pack_moves(rng.getrandbits(32), rng.randint(1, 300),
                            [rng.choice(_MOVES) for _ in range(rng.randint(0, 12))])[0]
    elif t == wire.PIXELS_DIFF:
        p = wire_host.pack_pixels_diff([(rng.randrange(49), rng.randrange(256), 0, rng.randrange(256))
                                   for _ in range(rng.randint(0, 6))])
    elif t == wire.LOG:
        p = bytes(rng.choice(b"ab \x00\x01") for _ in range(rng.randint(0, 40)))
    else:
        p = b""
    return wire.encode_frame(t, seq, ack, p)


def frames_for_the_error_test(count, seed):
    """`count` random frames, one in four of them chosen so that the encoding ends with
    0x01 before its delimiter (the body ends with a zero byte: the case of finding 2)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        f = random_frame(rng)
        if len(out) % 4 == 0 and f[-2:] != b"\x01\x00":
            continue
        out.append(f)
    return out


_READER = wire.FrameReader()  # every stream below ends with a delimiter: it ends clean
_DECODED = {}


def _decoded(frame):
    frame = bytes(frame)  # a key: encode_frame may give a bytearray
    got = _DECODED.get(frame)
    if got is None:
        if len(_DECODED) > 64:
            _DECODED.clear()
        got = _DECODED[frame] = wire_host.decode_frame(frame)
    return got


def assert_no_bogus_frame(frame, after, damaged, what, harmless_possible=False):
    got = _READER.feed(bytes(damaged) + after)
    assert _READER._n == 0
    want = (_decoded(after), _decoded(frame) if harmless_possible else None)
    errors = 0
    for x in got:
        if isinstance(x, wire.WireError):
            errors += 1
        elif x not in want:  # nothing gets through but the next frame
            raise AssertionError("%s of %s let %r through" % (what, bytes(frame).hex(), x))
    # A zero inserted before or after the frame leaves it whole; any other damage is seen.
    assert errors or harmless_possible, "%s of %s: no error" % (what, bytes(frame).hex())


def check_frame(frame, after, substitutions=True):
    """Every single error of `frame` (every bit flipped; every byte lost; 0x00, 0x01 and
    a random byte inserted at every place; with `substitutions`, every byte replaced by
    each of its 255 other values), each followed by `after`. Returns the errors tried;
    AssertionError names the first one that let a bogus frame through."""
    tried = 0
    rng = random.Random(len(frame) * 7919 + frame[0])
    for i in range(len(frame)):
        for bit in range(8):
            damaged = bytearray(frame)
            damaged[i] ^= 1 << bit
            assert_no_bogus_frame(frame, after, damaged, "bit %d of byte %d" % (bit, i))
        assert_no_bogus_frame(frame, after, frame[:i] + frame[i + 1:], "byte %d lost" % i)
        for v in (0, 1, rng.randrange(2, 256)):
            assert_no_bogus_frame(frame, after, frame[:i] + bytes((v,)) + frame[i:],
                                  "%02x inserted at %d" % (v, i), harmless_possible=v == 0)
        tried += 12
        if substitutions:
            for v in range(256):
                if v != frame[i]:
                    damaged = bytearray(frame)
                    damaged[i] = v
                    assert_no_bogus_frame(frame, after, damaged, "byte %d -> %02x" % (i, v))
            tried += 255
    return tried
