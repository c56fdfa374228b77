"""Reliable, ordered delivery over the frame codec: the same Session class at both ends.

Go-Back-N with cumulative acknowledgements (docs/protocol.md, "Reliability"):

- a reliable message gets a sequence number 1..255 (wrapping 255 -> 1; 0 marks an
  unreliable frame); at most `window` of them are unacknowledged, later ones wait in a
  bounded queue;
- every frame carries in its ack field the last sequence number received in order (0:
  none yet in this session), so acknowledgements ride on traffic going the other way;
- the receiver delivers only the next number expected; anything else (a duplicate, or a
  frame after a lost one) is dropped and answered with a bare ACK;
- when the oldest unacknowledged frame has waited timeout_ms, all unacknowledged frames
  are sent again; after max_retries such rounds without progress the session is failed.

No clock, no I/O: time comes in as integer millisecond ticks (`now`) compared only through
`ticks_diff` (MicroPython's wrap arithmetic, period 2**30), and bytes go out only through
the `write` callback. The endpoint calls feed() with what the port read and poll() often
(the board's loop runs every few ms; poll at least every timeout_ms / 10).
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from shared_rules import wire

_PERIOD_MASK = const(0x3FFFFFFF)  # ticks wrap at 2**30, as MicroPython's ticks_ms
_HALF_PERIOD = const(0x20000000)
MAX_WINDOW = const(127)  # half the sequence space: old and new frames stay distinguishable

OPEN = "open"
CLOSED = "closed"  # by close(): only unreliable frames pass until reset()
FAILED = "failed"  # max_retries resends without progress: as closed until reset()


def ticks_diff(a, b):
    """a - b for ticks that wrap at 2**30 (MicroPython's time.ticks_diff on ticks_ms values)."""
    return ((a - b + _HALF_PERIOD) & _PERIOD_MASK) - _HALF_PERIOD


def _next_seq(seq):
    return seq % 255 + 1  # 1..255, then 1 again: 0 is never a reliable sequence number


class Session:
    """One end of the link.

    write(data): sends bytes to the wire (called with one whole frame at a time).
    deliver(type, payload): called once for each reliable message, in order, exactly once;
        and once for each good unreliable frame that arrives (seq 0: HELLO, PING...).
        It may call send(), send_unreliable(), reset() or close() on this session.
    on_fail(): optional, called once when the session becomes FAILED.
    window: unacknowledged reliable frames at most (1..127).
    queue_size: reliable messages waiting for the window at most; send() returns False
        (and queues nothing) when the queue is full or the session is not open.
    ack_delay_ms: how long an acknowledgement may wait for a frame to ride on.

    `state` is OPEN, CLOSED or FAILED. A CLOSED or FAILED session sends nothing by itself
    (no resends, no acks), drops reliable frames it receives, and refuses send(); it still
    delivers unreliable frames (so a HELLO gets through) and sends with send_unreliable().
    reset() opens it again as a new session.
    """

    def __init__(self, write, deliver, ticks_diff=ticks_diff, window=8, timeout_ms=250,
                 max_retries=8, queue_size=16, ack_delay_ms=20, on_fail=None):
        if not 1 <= window <= MAX_WINDOW:
            raise ValueError("window must be 1..%d, not %r" % (MAX_WINDOW, window))
        if queue_size < 0 or timeout_ms <= 0 or max_retries < 0 or ack_delay_ms < 0:
            raise ValueError("queue_size, timeout_ms, max_retries, ack_delay_ms must be positive")
        self._write = write
        self._deliver = deliver
        self._ticks_diff = ticks_diff
        self.window = window
        self.timeout_ms = timeout_ms
        self.max_retries = max_retries
        self.queue_size = queue_size
        self.ack_delay_ms = ack_delay_ms
        # Ack as soon as half a window arrived in order, so a sender never stalls waiting
        # out ack_delay_ms with a full window.
        self._ack_batch = max(1, window // 2)
        self.on_fail = on_fail
        self._reader = wire.FrameReader()
        self.now = None  # the last time given to feed() or poll(); None before the first
        # Counters for the link's statistics; they survive reset() (they describe the link).
        self.frames_sent = 0  # every frame written: new, resent, bare ACKs, unreliable
        self.frames_resent = 0
        self.acks_sent = 0  # bare ACK frames
        self.frames_received = 0  # good frames (CRC and type checked)
        self.delivered = 0  # calls of deliver()
        self.duplicates = 0  # reliable frames received again (already delivered)
        self.out_of_order = 0  # reliable frames ahead of the one expected (one was lost)
        self.dropped = 0  # reliable frames received while CLOSED or FAILED
        self.refused = 0  # send() calls that returned False
        self.resets = 0
        self.bad = {}  # WireError.kind -> frames dropped for it
        for kind in wire.ERROR_KINDS:
            self.bad[kind] = 0
        self._clear()
        self.state = OPEN

    # --- state ---

    def _clear(self):
        self._send_seq = 1  # sequence number of the next new reliable frame
        self._unacked = []  # [(seq, type, payload)], oldest first, at most `window`
        self._queue = []  # [(type, payload)] waiting for room in the window
        self._timer = None  # when the oldest unacked frame was last (re)sent; None: next poll
        self._retries = 0  # resend rounds since the last progress
        self._expected = 1  # the sequence number to deliver next
        self._last_in = 0  # the last delivered sequence number: our ack field (0: none yet)
        self._ack_pending = 0  # frames delivered since our last ack went out
        self._ack_since = 0
        self._ack_now = False  # a duplicate or out-of-order frame asks for an ACK at once

    def reset(self):
        """Start a new session: sequence numbers from 1, nothing pending, state OPEN.

        Used at the HELLO exchange (docs/protocol.md). A partial frame in the reader is
        kept: framing does not depend on the session, and the bytes after a HELLO in the
        same chunk already belong to the new session."""
        self._clear()
        self.state = OPEN
        self.resets += 1

    def close(self):
        """Drop everything pending and stop reliable traffic until reset() (the host closes
        its session while it waits for HELLO_OK)."""
        self._clear()
        self.state = CLOSED

    @property
    def idle(self):
        """True when nothing is unacknowledged, queued, or owed an acknowledgement."""
        return not self._unacked and not self._queue and not self._ack_pending and not self._ack_now

    @property
    def pending(self):
        """Reliable messages not yet acknowledged (in flight + queued)."""
        return len(self._unacked) + len(self._queue)

    def room(self):
        """How many send() calls would be taken now: free places in the window and the
        queue (0 unless OPEN). An endpoint keeps what does not fit and sends it later."""
        if self.state != OPEN:
            return 0
        return self.window - len(self._unacked) + self.queue_size - len(self._queue)

    def stats(self):
        """The counters as a new dict (for the host's `vora link` display and the tests)."""
        d = {
            "state": self.state, "frames_sent": self.frames_sent,
            "frames_resent": self.frames_resent, "acks_sent": self.acks_sent,
            "frames_received": self.frames_received, "delivered": self.delivered,
            "duplicates": self.duplicates, "out_of_order": self.out_of_order,
            "dropped": self.dropped, "refused": self.refused, "resets": self.resets,
            "pending": self.pending,
        }
        for kind in wire.ERROR_KINDS:
            d["bad_" + kind] = self.bad[kind]
        return d

    # --- sending ---

    def send(self, type, payload=b""):
        """Queue a reliable message. Returns True if taken, False if the queue is full or
        the session is not OPEN (nothing queued then: the caller keeps what it owes and
        sends it when room() allows; the board's link does, see firmware/vora_fw/link.py).
        Raises WireError for a payload over MAX_PAYLOAD and ValueError for a bad type:
        those are programming errors, not link conditions."""
        if len(payload) > wire.MAX_PAYLOAD:
            raise wire.TooLong("payload of %d bytes: at most %d" % (len(payload), wire.MAX_PAYLOAD))
        if type == wire.ACK or type not in wire.TYPE_NAMES:
            raise ValueError("cannot send message type %r reliably" % (type,))
        if self.state != OPEN:
            self.refused += 1
            return False
        if not isinstance(payload, bytes):
            payload = bytes(payload)  # resends must not see later changes to a buffer
        if len(self._unacked) < self.window and not self._queue:
            self._transmit_new(type, payload)
        elif len(self._queue) < self.queue_size:
            self._queue.append((type, payload))
        else:
            self.refused += 1
            return False
        return True

    def send_unreliable(self, type, payload=b""):
        """Send one frame with seq 0 now: never acknowledged, never resent (HELLO, PING...).
        It carries our current ack like any frame. Works in every state."""
        self._write_frame(type, 0, payload)

    def ack_now(self):
        """Send a bare ACK now if one is owed (before leaving for the REPL, for example)."""
        if self.state == OPEN and (self._ack_pending or self._ack_now):
            self._send_ack()

    def _transmit_new(self, type, payload):
        seq = self._send_seq
        self._send_seq = _next_seq(seq)
        self._unacked.append((seq, type, payload))
        if len(self._unacked) == 1:  # the oldest unacked frame starts the timer
            self._timer = self.now
            self._retries = 0
        self._write_frame(type, seq, payload)

    def _write_frame(self, type, seq, payload):
        frame = wire.encode_frame(type, seq, self._last_in, payload)
        if self.state == OPEN:
            self._ack_pending = 0  # the ack field of this frame acknowledges everything
            self._ack_now = False
        self.frames_sent += 1
        self._write(frame)

    def _send_ack(self):
        self.acks_sent += 1
        self._write_frame(wire.ACK, 0, b"")

    def _pump(self):
        while self._queue and len(self._unacked) < self.window and self.state == OPEN:
            type, payload = self._queue.pop(0)
            self._transmit_new(type, payload)

    # --- receiving ---

    def feed(self, data, now):
        """Take bytes read from the wire at time `now`: deliver what completes in order,
        count and drop the rest, acknowledge (see docs/protocol.md for when).

        If deliver() raises, the exception leaves feed(): that message counts as delivered
        (it will not come again), later frames of the same chunk are lost, and the peer
        resends the reliable ones among them since they were never acknowledged."""
        self.now = now
        for item in self._reader.feed(data):
            if isinstance(item, wire.WireError):
                self.bad[item.kind] = self.bad.get(item.kind, 0) + 1
                continue
            self.frames_received += 1
            type, seq, ack, payload = item
            if self.state == OPEN:
                self._on_ack(ack)
            if type == wire.ACK:
                continue
            if seq == 0:
                self.delivered += 1
                self._deliver(type, payload)
            elif self.state != OPEN:
                self.dropped += 1
            elif seq == self._expected:
                self._expected = _next_seq(seq)
                self._last_in = seq
                if not self._ack_pending:
                    self._ack_since = now
                self._ack_pending += 1
                self.delivered += 1
                # Counters first: deliver() may send (its frame then carries this ack) or
                # reset the session (then the new state must not be overwritten).
                self._deliver(type, payload)
            else:
                # (expected - seq) mod 255 in 1..127: we had it already; beyond: a frame
                # before this one was lost. Either way the sender learns where we are.
                if (self._expected - seq) % 255 <= MAX_WINDOW:
                    self.duplicates += 1
                else:
                    self.out_of_order += 1
                self._ack_now = True
        if self.state == OPEN and (self._ack_now or self._ack_pending >= self._ack_batch):
            self._send_ack()

    def _on_ack(self, ack):
        """Cumulative: `ack` acknowledges its frame and every one sent before it."""
        unacked = self._unacked
        k = 0
        for entry in unacked:
            k += 1
            if entry[0] == ack:
                break
        else:
            return  # 0, stale, or unknown: nothing of ours
        for _ in range(k):
            unacked.pop(0)
        self._retries = 0
        self._timer = self.now
        self._pump()

    # --- time ---

    def poll(self, now):
        """Call often: resends after timeout_ms, fails after max_retries rounds, sends a
        bare ACK owed for ack_delay_ms."""
        self.now = now
        if self.state != OPEN:
            return
        if self._unacked:
            if self._timer is None:
                self._timer = now
            elif self._ticks_diff(now, self._timer) >= self.timeout_ms:
                if self._retries >= self.max_retries:
                    self._fail()
                    return
                self._retries += 1
                self._timer = now
                for seq, type, payload in self._unacked:
                    self.frames_resent += 1
                    self._write_frame(type, seq, payload)
        self._pump()
        if self._ack_now or (self._ack_pending and
                             self._ticks_diff(now, self._ack_since) >= self.ack_delay_ms):
            self._send_ack()

    def _fail(self):
        self.state = FAILED
        if self.on_fail is not None:
            self.on_fail()
