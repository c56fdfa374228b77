"""Wire codec and session vectors, printed the same way on CPython and MicroPython.

    wire_vectors.py            print the vectors (tests/test_wire.py compares both runtimes'
                               output byte for byte)
    wire_vectors.py bench      under MicroPython with --steps step: time and memory of
                               encoding and decoding (printed, not compared)

The vectors: CRCs, COBS encodings, whole frames in hex, decode results of good, corrupted,
truncated and oversize frames, payload helpers and their errors, a FrameReader fed in
pseudo-random chunks with noise, and a session exchange over a scripted lossy channel.
All randomness comes from shared_rules.prng (the same xorshift on both runtimes).
"""

import gc
import sys

_ROOT = "/".join(__file__.split("/")[:-3]) or "."
if _ROOT not in sys.path:
    sys.path.append(_ROOT)  # CPython: run as a file from the repository

from shared_rules import prng  # noqa: E402

wire = sess = wire_host = None  # imported by load(): the bench measures what importing
# the board's two keeps (the host's half, which the board never loads, comes after)


def load():
    global wire, sess
    from shared_rules import session as s
    from shared_rules import wire as w
    wire, sess = w, s


def load_host():
    global wire_host
    from shared_rules import wire_host as h
    wire_host = h

MICRO = sys.implementation.name == "micropython"


def hx(b):
    import binascii
    return binascii.hexlify(bytes(b)).decode()


def show(item):
    """One decode result as text: the same on both runtimes."""
    if isinstance(item, wire.WireError):
        return "error %s: %s" % (item.kind, item)
    t, seq, ack, payload = item
    return "frame %s seq=%d ack=%d payload=%s" % (wire.type_name(t), seq, ack, hx(payload))


class Rng:
    def __init__(self, seed):
        self.x = prng.seed_state(seed)

    def below(self, n):
        v, self.x = prng.below(self.x, n)
        return v


def vectors():
    print("crc 123456789 %08x" % wire.crc32(b"123456789"))
    print("crc soft %08x" % wire.crc32_soft(b"123456789"))
    print("crc empty %08x" % wire.crc32(b""))
    print("crc 256 %08x" % wire.crc32(bytes(range(256))))
    print("crc continued %08x" % wire.crc32(b"56789", wire.crc32(b"1234")))
    for data in (b"", b"\x00", b"\x00\x00", b"\x11\x22\x00\x33", b"\x11\x22\x33\x44",
                 b"\x11\x00\x00\x00", bytes(range(1, 255)), bytes(range(0, 255)),
                 bytes(range(1, 256)), bytes(range(2, 256)) + b"\x00",
                 bytes(range(3, 256)) + b"\x00\x01"):
        enc = wire_host.cobs_encode(data)
        print("cobs %d -> %d %s" % (len(data), len(enc), hx(enc) if len(enc) < 40 else
                                     hx(enc[:8]) + ".." + hx(enc[-8:])))
        assert wire_host.cobs_decode(enc) == data
    for bad in (b"\x03\x01", b"\x02\x01\x00", b"\x05", b"\xff\x01"):
        print("cobs decode %s -> %s" % (hx(bad), show(wire_host.cobs_decode(bad))))

    move = wire.pack_move(0x01020304, 12, "0123456789abcdef", "push crow Sc")
    frames = [
        wire.encode_frame(wire.MOVE, 1, 0, move),
        wire.encode_frame(wire.ACK, 0, 1),
        wire.encode_frame(wire.HELLO, 0, 0, b'{"proto":2}'),
        wire.encode_frame(wire.KEY, 200, 255, wire.pack_key(48, True)),
        wire.encode_frame(wire.PIXELS, 3, 2, bytes(range(147))),
        wire.encode_frame(wire.PIXELS_DIFF, 4, 2, wire_host.pack_pixels_diff([(0, 255, 0, 0), (24, 1, 2, 3)])),
        wire.encode_frame(wire.MOVES, 5, 2, wire.pack_moves(9, 3, ["take a1", "mole b3 c4"])[0]),
        wire.encode_frame(wire.LOG, 0, 9, b"x" * 300),
        # Encoded in place (shared_rules.wire.encode_frame): zeros and full blocks astride.
        wire.encode_frame(wire.LOG, 0, 9, bytes(range(256)) * 3),
        wire.encode_frame(wire.LOG, 0, 9, b"\x01" * 249 + b"\x00" + b"\x02" * 600),
    ]
    for f in frames:
        print("frame %d %s" % (len(f), hx(f) if len(f) < 80 else hx(f[:20]) + ".." + hx(f[-20:])))
        print("  " + show(wire_host.decode_frame(f)))
    print("move %r" % (wire_host.unpack_move(wire_host.decode_frame(frames[0])[3]),))
    print("moves %r" % (wire_host.unpack_moves(wire_host.decode_frame(frames[6])[3]),))

    # Every single-byte change of the MOVE frame, followed by the ACK frame: what the reader
    # reports. good counts frames let through other than the ACK (must be 0).
    f = frames[0]
    kinds = {}
    good = 0
    for i in range(len(f)):
        for v in (0x00, 0x01, 0x55, 0xFF, f[i] ^ 0x80):
            if v == f[i]:
                continue
            g = bytearray(f)
            g[i] = v
            out = wire.FrameReader().feed(bytes(g) + frames[1])
            for item in out:
                if isinstance(item, wire.WireError):
                    kinds[item.kind] = kinds.get(item.kind, 0) + 1
                elif item != wire_host.decode_frame(frames[1]):
                    good += 1
    print("corruptions: good=%d %s" % (good, " ".join(
        "%s=%d" % (k, kinds[k]) for k in wire.ERROR_KINDS if k in kinds)))

    # Errors by name.
    print(show(wire_host.decode_body(b"\x11\x01")))
    print(show(wire_host.decode_body(b"\x7f\x01\x00" + bytes(2))))
    body = bytearray(b"\x7f\x01\x00\x00\x00\x00\x00\x00\x00")
    c = wire.crc32(body[:5])
    body[5:9] = bytes(((c >> 24) & 0xFF, (c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF))
    print(show(wire_host.decode_body(bytes(body))))
    body[4] = 1  # the length field says one byte more than there is
    print(show(wire_host.decode_body(bytes(body))))
    big = bytearray(wire_host.MAX_BODY + 1)
    big[0] = wire.LOG
    print(show(wire_host.decode_body(bytes(big))))
    print(show(wire_host.decode_frame(b"\x01" * 5000)))
    print([show(x) for x in wire.FrameReader().feed(b"\x01" * 1300 + b"\x00" + frames[1])])

    # The reader: noise, frames and noise again, in pseudo-random chunks.
    rng = Rng(7)
    stream = bytearray(b"\x13\x37noise")
    for f in frames:
        stream += f
        if rng.below(3) == 0:
            stream += bytes(rng.below(256) for _ in range(rng.below(20)))
    reader = wire.FrameReader()
    i = 0
    got = []
    while i < len(stream):
        k = 1 + rng.below(60)
        got += reader.feed(bytes(stream[i:i + k]))
        i += k
    for item in got:
        print("read " + show(item))

    # Payload helper errors.
    for fn, args in ((wire_host.unpack_move, (b"\x00" * 10,)), (wire_host.unpack_key, (b"\x31\x01",)),
                     (wire_host.unpack_key, (b"\x01\x02",)), (wire_host.unpack_moves, (b"\x00" * 6 + b"a\n\nb",)),
                     (wire.unpack_moves_req, (b"\x00" * 6,)), (wire.unpack_pixels_diff, (b"\x00" * 5,)),
                     (wire.unpack_mode, (b"\x02",)), (wire.pack_move, (1, 0, "00" * 8, "x")),
                     (wire.pack_move, (1, 1, "zz" * 8, "x")), (wire.pack_move, (1, 1, "00" * 8, "a\nb")),
                     (wire.unpack_json, (b"[1]",)), (wire.unpack_json, (b"\xff{",)),
                     (wire.check_pixels, (bytes(146),))):
        try:
            fn(*args)
            print("no error?")
        except wire.WireError as e:
            print("%s: %s" % (e.kind, e))
    print(wire.version_refusal(1), wire.version_refusal(2))

    session_exchange()


def session_exchange():
    """Two sessions over a scripted lossy channel; every write and delivery is printed."""
    rng = Rng(11)
    clock = [(1 << 30) - 600]  # ticks wrap at 2**30 during the exchange
    wires = {"A": [], "B": []}  # frames in flight to A and to B: [due, bytes]
    got = {"A": [], "B": []}
    count = [0]

    def writer(src, dst):
        def write(frame):
            count[0] += 1
            n = count[0]
            fate = "ok"
            frame = bytes(frame)
            if n % 9 == 4:
                fate = "drop"
            elif n % 11 == 6:
                g = bytearray(frame)
                g[rng.below(len(g))] ^= 1 + rng.below(255)
                frame = bytes(g)
                fate = "corrupt"
            elif n % 13 == 7:
                wires[dst].append([clock[0] + 3, frame])
                fate = "dup"
            print("w %d %s>%s %s %s" % (n, src, dst, fate, hx(frame)))
            if fate != "drop":
                wires[dst].append([clock[0] + 2 + (30 if n % 17 == 8 else 0), frame])
        return write

    def deliverer(name):
        def deliver(t, payload):
            got[name].append((t, bytes(payload)))
            print("d %s %s %s" % (name, wire.type_name(t), hx(payload)))
        return deliver

    ends = {
        "A": sess.Session(writer("A", "B"), deliverer("A"), window=4, timeout_ms=40, max_retries=20),
        "B": sess.Session(writer("B", "A"), deliverer("B"), window=4, timeout_ms=40, max_retries=20),
    }
    sent = {"A": [], "B": []}
    todo = {"A": 30, "B": 12}
    steps = 0
    while steps < 4000:
        steps += 1
        clock[0] = (clock[0] + 1) & ((1 << 30) - 1)
        now = clock[0]
        for name in ("A", "B"):
            due = [w for w in wires[name] if sess.ticks_diff(now, w[0]) >= 0]
            wires[name] = [w for w in wires[name] if sess.ticks_diff(now, w[0]) < 0]
            for _, frame in due:
                i = 0
                while i < len(frame):
                    k = 1 + rng.below(len(frame))
                    ends[name].feed(frame[i:i + k], now)
                    i += k
        for name in ("A", "B"):
            end = ends[name]
            if todo[name] and rng.below(4) == 0:
                k = len(sent[name])
                if name == "A":
                    msg = (wire.MOVE, wire.pack_move(5, k + 1, "%016x" % (k * 77), "take a%d" % k))
                else:
                    msg = (wire.KEY, wire.pack_key(k % 49, k % 2))
                if end.send(msg[0], msg[1]):
                    sent[name].append(msg)
                    todo[name] -= 1
            if steps == 50 and name == "A":
                end.send_unreliable(wire.PING, b"ping")
            end.poll(now)
        if not todo["A"] and not todo["B"] and ends["A"].idle and ends["B"].idle \
                and not wires["A"] and not wires["B"]:
            break
    print("steps %d" % steps)
    for name in ("A", "B"):
        other = "B" if name == "A" else "A"
        reliable = [m for m in got[other] if m[0] != wire.PING]
        print("%s sent %d, %s got them in order: %s" % (name, len(sent[name]), other,
                                                         reliable == sent[name]))
        st = ends[name].stats()
        print("stats %s %s" % (name, " ".join("%s=%s" % (k, st[k]) for k in sorted(st))))


# --- bench (MicroPython, --steps step) --------------------------------------------------

MAX_NEW_SPLIT = 128 * 1024 * 1024


def _now_ms():
    try:
        import js
        return js.performance.now()
    except ImportError:
        import time
        return time.perf_counter() * 1000


def measure(label, fn, n):
    gc.collect()
    a0 = gc.mem_alloc() if MICRO else 0
    t0 = _now_ms()
    for _ in range(n):
        fn()
    t1 = _now_ms()
    a1 = gc.mem_alloc() if MICRO else 0
    print("%-38s %8.1f us  %6d bytes allocated per call" % (label, (t1 - t0) * 1000 / n, (a1 - a0) // n))


class Bench:
    stage = 0
    base = 0


B = Bench()


def step():
    gc.collect()
    if B.stage == 0:
        B.base = gc.mem_alloc() if MICRO else 0
    elif B.stage == 1:
        load()
    elif B.stage == 2:
        print("live after importing wire + session (from .py source): %d bytes"
              % ((gc.mem_alloc() if MICRO else 0) - B.base))
        B.base = gc.mem_alloc() if MICRO else 0
        B.s = sess.Session(lambda b: None, lambda t, p: None)
    elif B.stage == 3:
        live = (gc.mem_alloc() if MICRO else 0) - B.base
        load_host()
        print("live for one Session (reader buffers 2 x %d included): %d bytes"
              % (wire_host.MAX_FRAME, live))
        move = wire.pack_move(7, 12, "0123456789abcdef", "push crow Sc")
        mf = wire.encode_frame(wire.MOVE, 1, 0, move)
        px = bytes(range(147))
        pf = wire.encode_frame(wire.PIXELS, 1, 0, px)
        big = bytes(1024)
        bf = wire.encode_frame(wire.LOG, 1, 0, big)
        reader = wire.FrameReader()
        measure("pack_move", lambda: wire.pack_move(7, 12, "0123456789abcdef", "push crow Sc"), 200)
        measure("encode_frame MOVE (%d B)" % len(mf), lambda: wire.encode_frame(wire.MOVE, 1, 0, move), 200)
        measure("FrameReader.feed MOVE", lambda: reader.feed(mf), 200)
        measure("encode_frame ACK", lambda: wire.encode_frame(wire.ACK, 0, 3), 200)
        measure("encode_frame PIXELS (%d B)" % len(pf), lambda: wire.encode_frame(wire.PIXELS, 1, 0, px), 100)
        measure("FrameReader.feed PIXELS", lambda: reader.feed(pf), 100)
        text = (b"push crow Sc\n" * 79)[:1024]
        tf = wire.encode_frame(wire.MOVES, 1, 0, text)
        measure("encode_frame 1024 B text payload", lambda: wire.encode_frame(wire.MOVES, 1, 0, text), 30)
        measure("FrameReader.feed 1024 B text payload", lambda: reader.feed(tf), 30)
        measure("encode_frame 1024 zero bytes", lambda: wire.encode_frame(wire.LOG, 1, 0, big), 30)
        measure("FrameReader.feed 1024 zero bytes", lambda: reader.feed(bf), 30)
        measure("crc32 (binascii), 1024 B", lambda: wire.crc32(big), 30)
        measure("crc32 soft, 1024 B", lambda: wire.crc32_soft(big), 10)
        measure("cobs_encode 1024 zero bytes", lambda: wire_host.cobs_encode(big), 30)
        measure("cobs_encode 1024 B text", lambda: wire_host.cobs_encode(text), 30)
        s = B.s
        measure("Session.send MOVE + poll", lambda: (s.send(wire.MOVE, move), s.poll(0), s.reset()), 100)
    else:
        return False
    B.stage += 1
    return True


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "bench":
        if not MICRO:
            while step():
                pass
    else:
        load()
        load_host()
        vectors()
