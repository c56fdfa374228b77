"""Reliable delivery (shared_rules/session.py): two Sessions joined by a simulated lossy
channel and a simulated clock deliver every message exactly once and in order; a session
whose peer is gone fails cleanly; window, queue, acks, unreliable frames and reset behave
as docs/protocol.md says.

The channel works frame by frame (Session.write is called once per frame): a fault hits a
fraction of the frames, chosen at random among dropping the frame, corrupting 1 to 3 of its
bytes (the delimiter included), duplicating it, delaying it by up to 400 ms (so frames
overtake each other and some resends are spurious), cutting its end off, and inserting or
deleting one byte. Bytes reach the other end in random
chunks of 1 to 64 bytes. All randomness is seeded.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared_rules import session as sn
from shared_rules import wire, wire_host

PERIOD = 1 << 30


class Channel:
    """One direction of the link: frames in, (possibly damaged) bytes out when due."""

    def __init__(self, rng, fault_rate, latency_ms=3):
        self.rng = rng
        self.fault_rate = fault_rate
        self.latency_ms = latency_ms
        self.in_flight = []  # [due, order, bytes]
        self.order = 0
        self.faults = {"drop": 0, "corrupt": 0, "dup": 0, "delay": 0, "truncate": 0,
                       "insert": 0, "delete": 0}
        self.frames = 0

    def put(self, frame, now):
        self.frames += 1
        due = now + self.latency_ms
        if self.rng.random() < self.fault_rate:
            fault = self.rng.choice(tuple(self.faults))
            self.faults[fault] += 1
            if fault == "drop":
                return
            if fault == "truncate":  # the end lost, delimiter included
                frame = frame[:self.rng.randrange(1, len(frame))]
            elif fault == "insert":
                i = self.rng.randrange(len(frame) + 1)
                frame = frame[:i] + bytes((self.rng.randrange(256),)) + frame[i:]
            elif fault == "delete":
                i = self.rng.randrange(len(frame))
                frame = frame[:i] + frame[i + 1:]
            elif fault == "corrupt":
                frame = bytearray(frame)
                for _ in range(self.rng.randint(1, 3)):
                    frame[self.rng.randrange(len(frame))] = self.rng.randrange(256)
                frame = bytes(frame)
            elif fault == "dup":
                self._queue(due + self.rng.randint(0, 50), frame)
            else:
                due += self.rng.randint(1, 400)
        self._queue(due, frame)

    def _queue(self, due, frame):
        self.order += 1
        self.in_flight.append((due, self.order, frame))

    def take(self, now):
        due = sorted(f for f in self.in_flight if f[0] <= now)
        self.in_flight = [f for f in self.in_flight if f[0] > now]
        return b"".join(f[2] for f in due)


class Pair:
    """Two sessions A and B over two Channels, on one simulated clock (ms)."""

    def __init__(self, seed=1, fault_rate=0.0, start=0, **options):
        self.rng = random.Random(seed)
        self.t = start  # unwrapped time; sessions see it wrapped at 2**30
        self.got = {"A": [], "B": []}
        self.to = {"A": Channel(self.rng, fault_rate), "B": Channel(self.rng, fault_rate)}
        self.A = sn.Session(lambda f: self.to["B"].put(f, self.t),
                            lambda t, p: self.got["A"].append((t, p)), **options)
        self.B = sn.Session(lambda f: self.to["A"].put(f, self.t),
                            lambda t, p: self.got["B"].append((t, p)), **options)

    @property
    def now(self):
        return self.t % PERIOD

    def step(self, ms=2):
        self.t += ms
        for name, end in (("A", self.A), ("B", self.B)):
            data = self.to[name].take(self.t)
            i = 0
            while i < len(data):
                k = self.rng.randint(1, 64)
                end.feed(data[i:i + k], self.now)
                i += k
        self.A.poll(self.now)
        self.B.poll(self.now)

    def quiet(self):
        return self.A.idle and self.B.idle and not self.to["A"].in_flight and not self.to["B"].in_flight


def random_messages(rng, n):
    out = []
    for k in range(n):
        kind = rng.choice((wire.MOVE, wire.GAME, wire.KEY, wire.LOG, wire.PIXELS_DIFF, wire.PIXELS))
        if kind == wire.MOVE:
            payload = wire.pack_move(3, k + 1, "%016x" % rng.getrandbits(64), "push crow Sc")
        elif kind == wire.KEY:
            payload = wire.pack_key(rng.randrange(49), rng.randrange(2))
        elif kind == wire.PIXELS:
            payload = bytes(rng.getrandbits(8) for _ in range(147))
        else:
            payload = bytes(rng.choice((0, 0, 1, 255, rng.randrange(256))) for _ in range(rng.randrange(300)))
        out.append((kind, payload))
    return out


def run_traffic(pair, to_send_a, to_send_b, limit_ms=600_000, pings=False):
    queues = {"A": list(to_send_a), "B": list(to_send_b)}
    pings_sent = 0
    end_t = pair.t + limit_ms
    while pair.t < end_t:
        for name, end in (("A", pair.A), ("B", pair.B)):
            q = queues[name]
            if q and pair.rng.random() < 0.3 and end.send(*q[0]):
                q.pop(0)
            if pings and pair.rng.random() < 0.01:
                end.send_unreliable(wire.PING, b"p%d" % pings_sent)
                pings_sent += 1
        pair.step()
        assert pair.A.state == sn.OPEN and pair.B.state == sn.OPEN, (pair.A.stats(), pair.B.stats())
        if not queues["A"] and not queues["B"] and pair.quiet():
            return pings_sent
    raise AssertionError("traffic not done after %d ms: A %s B %s" % (
        limit_ms, pair.A.stats(), pair.B.stats()))


FAULT_RATES = [(0.0, "0pct"), (0.01, "1pct"), (0.05, "5pct"), (0.20, "20pct")]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rate", [r for r, _ in FAULT_RATES], ids=[i for _, i in FAULT_RATES])
def test_exactly_once_in_order_over_a_lossy_channel(rate, seed):
    """Fault rates 0 %, 1 %, 5 % and 20 % of frames (drop, corrupt, duplicate, delay), both
    directions busy at once, default settings (window 8, 250 ms, 8 retries): every reliable
    message arrives exactly once, in order; PINGs are never resent. 400 + 300 messages, so
    sequence numbers wrap (255 -> 1) more than once."""
    pair = Pair(seed, rate)
    msgs_a = random_messages(pair.rng, 400)
    msgs_b = random_messages(pair.rng, 300)
    pings = run_traffic(pair, msgs_a, msgs_b, pings=True)
    got_b = [m for m in pair.got["B"] if m[0] != wire.PING]
    got_a = [m for m in pair.got["A"] if m[0] != wire.PING]
    assert got_b == msgs_a
    assert got_a == msgs_b
    delivered_pings = len(pair.got["A"]) + len(pair.got["B"]) - len(got_a) - len(got_b)
    assert delivered_pings <= pings + pair.to["A"].faults["dup"] + pair.to["B"].faults["dup"]
    faults = sum(sum(c.faults.values()) for c in pair.to.values())
    frames = sum(c.frames for c in pair.to.values())
    if rate == 0:
        assert faults == 0 and pair.A.frames_resent == pair.B.frames_resent == 0
        assert sum(pair.A.bad.values()) == sum(pair.B.bad.values()) == 0
    else:
        assert 0.5 * rate < faults / frames < 1.5 * rate
        bad = sum(pair.A.bad.values()) + sum(pair.B.bad.values())
        assert bad > 0 or pair.to["A"].faults["corrupt"] + pair.to["B"].faults["corrupt"] == 0


def test_the_session_fails_cleanly_when_the_peer_is_gone():
    written = []
    failures = []
    s = sn.Session(written.append, lambda t, p: None, on_fail=lambda: failures.append(1))
    s.poll(1000)
    for k in range(3):
        assert s.send(wire.MOVE, b"m%d" % k)
    assert len(written) == 3
    t = 1000
    while s.state == sn.OPEN:
        t += 5
        s.poll(t)
    # 8 resend rounds of the 3 frames, 250 ms apart; failed at the 9th timeout.
    assert s.state == sn.FAILED and failures == [1]
    assert s.frames_resent == 8 * 3 and len(written) == 3 + 8 * 3
    assert t - 1000 == 9 * 250
    for _ in range(100):  # nothing more goes out by itself
        t += 50
        s.poll(t)
    assert len(written) == 27
    assert s.send(wire.MOVE, b"late") is False and s.refused == 1
    s.send_unreliable(wire.PING, b"still")  # unreliable frames still work: HELLO needs them
    assert wire_host.decode_frame(written[-1])[:2] == (wire.PING, 0)
    s.reset()
    assert s.state == sn.OPEN and s.pending == 0 and s.send(wire.MOVE, b"again")
    assert wire_host.decode_frame(written[-1])[:2] == (wire.MOVE, 1)


def test_progress_resets_the_retry_count():
    # Every reliable frame from A is lost twice and gets through the third time: with
    # max_retries=2 each message uses up all its resends, yet the session never fails,
    # because each acknowledgement starts the count again.
    pair = Pair(5, 0.0, max_retries=2)
    copies = {}
    put = pair.to["B"].put

    def lossy(frame, now):
        t, seq = wire_host.decode_frame(frame)[:2]
        copies[seq] = copies.get(seq, 0) + 1
        if seq == 0 or copies[seq] > 2:
            put(frame, now)

    pair.A._write = lambda f: lossy(f, pair.t)
    for k in range(5):
        assert pair.A.send(wire.MOVE, b"%d" % k)
        while not pair.A.idle:
            pair.step(5)
    assert pair.A.state == sn.OPEN and pair.A.frames_resent == 10
    assert [p for _, p in pair.got["B"]] == [b"%d" % k for k in range(5)]
    # The same loss once more than max_retries allows: the session fails.
    copies.clear()
    pair.A.reset()
    pair.B.reset()
    put_b = pair.to["B"].put
    pair.A._write = lambda f: None if wire_host.decode_frame(f)[1] else put_b(f, pair.t)
    pair.A.send(wire.MOVE, b"lost")
    for _ in range(400):
        pair.step(5)
    assert pair.A.state == sn.FAILED


def test_window_and_queue_bounds():
    written = []
    s = sn.Session(written.append, lambda t, p: None, window=8, queue_size=16)
    s.poll(0)
    results = [s.send(wire.KEY, wire.pack_key(k % 49, 1)) for k in range(30)]
    assert results == [True] * 24 + [False] * 6
    assert len(written) == 8 and s.pending == 24 and s.refused == 6
    assert [wire_host.decode_frame(f)[1] for f in written] == list(range(1, 9))
    # An ack for 3 frees three places: frames 9, 10, 11 go out at once.
    s.feed(wire.encode_frame(wire.ACK, 0, 3), 10)
    assert [wire_host.decode_frame(f)[1] for f in written[8:]] == [9, 10, 11]
    assert s.pending == 21


def test_unreliable_frames_are_never_resent():
    written = []
    s = sn.Session(written.append, lambda t, p: None)
    s.poll(0)
    s.send_unreliable(wire.PING, b"hi")
    for t in range(0, 10000, 10):
        s.poll(t)
    assert len(written) == 1 and s.frames_resent == 0 and s.idle
    assert wire_host.decode_frame(written[0]) == (wire.PING, 0, 0, b"hi")


def test_unreliable_frames_are_delivered_as_they_come():
    got = []
    s = sn.Session(lambda f: None, lambda t, p: got.append((t, p)))
    ping = wire.encode_frame(wire.PING, 0, 0, b"x")
    s.feed(ping + ping, 0)
    assert got == [(wire.PING, b"x")] * 2 and s.duplicates == 0


def test_duplicates_and_out_of_order_frames_are_dropped_and_re_acked():
    written = []
    got = []
    s = sn.Session(written.append, lambda t, p: got.append(p))
    f1 = wire.encode_frame(wire.LOG, 1, 0, b"one")
    f3 = wire.encode_frame(wire.LOG, 3, 0, b"three")
    s.feed(f1, 0)
    assert got == [b"one"] and written == []  # the ack waits ack_delay_ms for a ride
    s.feed(f1, 1)
    assert got == [b"one"] and s.duplicates == 1
    assert [wire_host.decode_frame(f) for f in written] == [(wire.ACK, 0, 1, b"")]
    s.feed(f3, 2)
    assert got == [b"one"] and s.out_of_order == 1
    assert wire_host.decode_frame(written[-1]) == (wire.ACK, 0, 1, b"")
    s.feed(wire.encode_frame(wire.LOG, 2, 0, b"two") + f3, 3)
    assert got == [b"one", b"two", b"three"]


def test_when_acks_go_out():
    written = []
    s = sn.Session(written.append, lambda t, p: None, window=8, ack_delay_ms=20)
    s.poll(100)
    s.feed(wire.encode_frame(wire.LOG, 1, 0, b"a"), 100)
    s.poll(119)
    assert written == [] and not s.idle
    s.poll(120)  # ack_delay_ms after the first unacknowledged arrival
    assert [wire_host.decode_frame(f) for f in written] == [(wire.ACK, 0, 1, b"")] and s.idle
    # Half a window (4) arriving in order is acknowledged at once, in the same feed().
    frames = b"".join(wire.encode_frame(wire.LOG, k, 0, b"b") for k in range(2, 6))
    s.feed(frames, 130)
    assert wire_host.decode_frame(written[-1]) == (wire.ACK, 0, 5, b"") and len(written) == 2
    # Anything sent carries the ack: no bare ACK then.
    s.feed(wire.encode_frame(wire.LOG, 6, 0, b"c"), 140)
    s.send(wire.LOG, b"reply")
    s.poll(200)
    assert [wire_host.decode_frame(f)[:3] for f in written[2:]] == [(wire.LOG, 1, 6)]


def test_ack_rides_on_a_reply_sent_from_deliver():
    pair = Pair(3)
    pair.B._deliver = lambda t, p: pair.B.send(wire.STATE, b"{}") if t == wire.STATE_REQ else None
    pair.A.send(wire.STATE_REQ)
    for _ in range(30):
        pair.step()
    assert pair.got["A"] == [(wire.STATE, b"{}")]
    assert pair.B.acks_sent == 0  # B's STATE acknowledged the request


def test_bad_frames_are_counted_by_kind_and_never_delivered():
    got = []
    s = sn.Session(lambda f: None, lambda t, p: got.append(p))
    good = wire.encode_frame(wire.LOG, 1, 0, b"fine")
    corrupt = bytearray(good)
    corrupt[good.index(b"fine")] ^= 0x20
    s.feed(b"\x05\x01\x00" + bytes(corrupt) + b"\x02\x01\x00" + b"\x41" * 1300 + b"\x00" + good, 0)
    assert got == [b"fine"]
    assert s.bad["cobs"] == 1 and s.bad["crc"] == 1 and s.bad["short"] == 1 and s.bad["long"] == 1
    st_ = s.stats()
    assert st_["bad_crc"] == 1 and st_["frames_received"] == 1 and st_["delivered"] == 1


def test_sequence_numbers_wrap_and_skip_zero():
    pair = Pair(9)
    msgs = [(wire.LOG, b"%d" % k) for k in range(600)]
    seqs = []
    write = pair.A._write
    pair.A._write = lambda f: (seqs.append(wire_host.decode_frame(f)[1]), write(f))
    run_traffic(pair, msgs, [])
    assert pair.got["B"] == msgs
    data_seqs = [s for s in seqs if s]
    assert data_seqs[:3] == [1, 2, 3] and data_seqs[254:257] == [255, 1, 2] and 0 not in data_seqs


def test_clock_wraps_at_2_to_the_30():
    pair = Pair(4, 0.05, start=PERIOD - 1000)  # the ticks wrap 1 s into the run
    msgs = random_messages(pair.rng, 200)
    run_traffic(pair, msgs, msgs[:50])
    assert pair.t > PERIOD
    assert pair.got["B"] == msgs and pair.got["A"] == msgs[:50]
    assert sn.ticks_diff(5, PERIOD - 5) == 10 and sn.ticks_diff(PERIOD - 5, 5) == -10


def test_a_custom_ticks_diff_is_used():
    calls = []

    def diff(a, b):
        calls.append((a, b))
        return a - b

    s = sn.Session(lambda f: None, lambda t, p: None, ticks_diff=diff)
    s.poll(0)
    s.send(wire.LOG, b"x")
    s.poll(300)
    assert calls and s.frames_resent == 1


def test_reset_starts_a_new_session():
    written = []
    s = sn.Session(written.append, lambda t, p: None)
    s.poll(0)
    for k in range(20):
        s.send(wire.LOG, b"%d" % k)
    s.feed(wire.encode_frame(wire.LOG, 1, 0, b"in"), 1)
    s.reset()
    assert s.state == sn.OPEN and s.pending == 0 and s.idle and s.resets == 1
    s.send(wire.LOG, b"new")
    assert wire_host.decode_frame(written[-1]) == (wire.LOG, 1, 0, b"new")  # seq 1, ack 0 again
    got = []
    s._deliver = lambda t, p: got.append(p)
    s.feed(wire.encode_frame(wire.LOG, 1, 0, b"fresh"), 2)
    assert got == [b"fresh"]


def test_send_refuses_programming_errors_loudly():
    s = sn.Session(lambda f: None, lambda t, p: None)
    with pytest.raises(wire.TooLong):
        s.send(wire.LOG, bytes(1025))
    with pytest.raises(ValueError):
        s.send(wire.ACK, b"")
    with pytest.raises(ValueError):
        s.send(0x7F, b"")
    with pytest.raises(ValueError):
        sn.Session(lambda f: None, lambda t, p: None, window=128)


def test_hello_exchange_as_documented():
    """docs/protocol.md, "Hello": the host closes its session and sends HELLO (seq 0); the
    board resets on HELLO and answers HELLO_OK (seq 0); the host resets on the HELLO_OK
    with its nonce. Old frames in flight either way are not taken for new ones, even when
    the board's old session was far along and had frames pending."""
    pair = Pair(8)
    board_log = []

    def board_deliver(t, p):
        if t == wire.HELLO:
            hello = wire.unpack_json(p)
            if wire.version_refusal(hello["proto"]):
                pair.B.send_unreliable(wire.REFUSE, wire.pack_text(wire.version_refusal(hello["proto"])))
                return
            pair.B.reset()
            pair.B.send_unreliable(wire.HELLO_OK, wire.pack_json({"proto": wire.PROTOCOL_VERSION,
                                                                   "nonce": hello["nonce"]}))
            pair.B.send(wire.GAME, wire.pack_json({"event": "resume", "game": 9, "moves": 3}))
        else:
            board_log.append((t, p))

    host_log = []
    nonce = [0]

    def host_deliver(t, p):
        if t == wire.HELLO_OK and wire.unpack_json(p)["nonce"] == nonce[0]:
            pair.A.reset()
        host_log.append((t, p))

    pair.A._deliver = host_deliver
    pair.B._deliver = board_deliver
    # An old session: 300 messages each way, then the board has 5 more in flight.
    old = [(wire.LOG, b"old %d" % k) for k in range(300)]
    run_traffic(pair, old, old)
    for k in range(5):
        pair.B.send(wire.MOVE, b"pending %d" % k)
    host_log.clear()
    # Host: close, then HELLO (twice: the first answer is "lost" to a late nonce).
    pair.A.close()
    for n in (41, 42):
        nonce[0] = n
        pair.A.send_unreliable(wire.HELLO, wire.pack_json({"proto": wire.PROTOCOL_VERSION, "nonce": n}))
    for _ in range(200):
        pair.step()
    assert pair.A.state == sn.OPEN and pair.B.state == sn.OPEN
    reliable = [(t, p) for t, p in host_log if t not in (wire.HELLO_OK,)]
    assert reliable == [(wire.GAME, wire.pack_json({"event": "resume", "game": 9, "moves": 3}))]
    # The new session works both ways from seq 1.
    pair.A.send(wire.STATE_REQ)
    pair.B.send(wire.MOVE, b"new")
    for _ in range(100):
        pair.step()
    assert board_log[-1] == (wire.STATE_REQ, b"") and host_log[-1] == (wire.MOVE, b"new")
    # A board speaking another major version is refused with both versions named.
    other = wire.PROTOCOL_VERSION + 1
    pair.A.send_unreliable(wire.HELLO, wire.pack_json({"proto": other, "nonce": 1}))
    for _ in range(10):
        pair.step()
    assert host_log[-1][0] == wire.REFUSE and b"version %d" % other in host_log[-1][1]


def test_closed_session_drops_reliable_frames_but_passes_unreliable():
    got = []
    written = []
    s = sn.Session(written.append, lambda t, p: got.append(t))
    s.close()
    s.feed(wire.encode_frame(wire.LOG, 1, 0, b"x") + wire.encode_frame(wire.HELLO_OK, 0, 0, b"{}"), 0)
    s.poll(1000)
    assert got == [wire.HELLO_OK] and s.dropped == 1 and written == []
    assert s.send(wire.LOG, b"y") is False


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=3000))
def test_feed_never_raises_on_garbage(data):
    s = sn.Session(lambda f: None, lambda t, p: None)
    assert s.feed(data, 0) is None  # bytes out only through write
    s.poll(10)
