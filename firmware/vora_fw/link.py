"""The board's end of the serial link (docs/protocol.md).

Framing, checksums and resends are shared_rules.wire and shared_rules.session, the same
code the PC runs. This module decides what the board says and how it answers:

- The board speaks only after a host said HELLO (a board with no PC stays quiet); the HELLO
  resets the session, and HELLO_OK tells the host the firmware, the board and the game in
  progress, so a host that reconnects knows what it missed.
- Standalone mode: every game event (GAME), every move (MOVE, with its number and the
  state's digest) and every key (KEY) goes to the host; STATE_REQ gets the whole state,
  MOVES_REQ the moves from a given number (from the game's record).
- Terminal mode: the game stays as it is; the pixels show what the host sends (PIXELS,
  PIXELS_DIFF) and keys go to the host only. A failed session (host gone) brings the board
  back to standalone.
- REPL: the application stops and MicroPython's REPL is free for mpremote.
Bytes from the host are data, never code: nothing here evaluates what it receives.
"""

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

from shared_rules import wire
from shared_rules.session import FAILED, Session
from vora_fw import VERSION
from vora_fw.clock import ticks_diff

CAPABILITIES = ("standalone", "terminal", "moves", "state", "keys", "repl")


class BoardLink:
    """write(data): bytes to the host. read(): bytes the host sent since the last call
    (b"" when none); leave it None when bytes are pushed in with receive() instead."""

    def __init__(self, write, read=None, board="", layout="7x7"):
        self.read = read
        self.board = board
        self.layout = layout
        self.session = Session(write, self._deliver, ticks_diff=ticks_diff,
                               on_fail=self._host_gone)
        self.session.close()  # nothing reliable until a host says HELLO
        self.connected = False
        self.mode = wire.MODE_STANDALONE
        self.frame = bytearray(wire.PIXELS_SIZE)  # what the host shows in terminal mode
        self.frame_changed = False
        self.repl_requested = False
        self.ui = None  # type: Any
        self.now = 0
        self.refused_hellos = 0
        self.maker = None  # type: Any  # vora_fw.maker.MakerService: messages 0x40..0x5F
        self.repl_refusal = None  # type: Any  # a reason to refuse REPL (the game goes on)

    def attach(self, ui):
        self.ui = ui

    # ---- bytes in, time passing

    def receive(self, data, now=None):
        if now is not None:
            self.now = now
        self.session.feed(data, self.now)

    def poll(self, now):
        self.now = now
        if self.read is not None:
            data = self.read()
            if data:
                self.session.feed(data, now)
        self.session.poll(now)

    def _host_gone(self):
        # No acknowledgement for max_retries rounds: the host is gone or the cable out.
        self.connected = False
        self.mode = wire.MODE_STANDALONE

    # ---- messages from the host

    def _deliver(self, type, payload):
        # Whatever a host sends, the board goes on playing: a message it cannot handle is
        # answered with a LOG saying why, and dropped.
        try:
            self._handle(type, payload)
        except Exception as exc:  # noqa: BLE001  (the firmware must not stop on a message)
            self._send(wire.LOG, wire.pack_text("refused %s: %s" % (
                wire.type_name(type), str(exc)[:200])))

    def _handle(self, type, payload):
        if type == wire.HELLO:
            self._hello(payload)
        elif type == wire.PING:
            self.session.send_unreliable(wire.PONG, payload)
        elif not self.connected:
            return  # anything else needs a HELLO first
        elif type == wire.STATE_REQ:
            summary = self._game_summary(full=True) if self._has_game() else {
                "game": None, "mode": self.mode}
            self._send(wire.STATE, wire.pack_json(summary))
        elif type == wire.MOVES_REQ:
            self._moves(*wire.unpack_moves_req(payload))
        elif type == wire.MODE:
            self.mode = wire.unpack_mode(payload)
            self.frame_changed = True
        elif type == wire.PIXELS:
            wire.check_pixels(payload)
            self.frame[:] = payload
            self.frame_changed = True
        elif type == wire.PIXELS_DIFF:
            frame = self.frame
            for k, r, g, b in wire.unpack_pixels_diff(payload):
                frame[3 * k] = r
                frame[3 * k + 1] = g
                frame[3 * k + 2] = b
            self.frame_changed = True
        elif type == wire.REPL:
            if self.repl_refusal is not None:
                self._send(wire.LOG, wire.pack_text("refused REPL: " + self.repl_refusal))
                return
            self.session.ack_now()
            self.repl_requested = True
        elif 0x40 <= type <= 0x5F and self.maker is not None:
            self.maker.handle(type, payload)

    def _hello(self, payload):
        try:
            hello = wire.unpack_json(payload)
            refusal = wire.version_refusal(hello.get("proto"))
        except wire.WireError as exc:
            refusal = "a HELLO that is not JSON: %s" % exc
        if refusal is not None:
            self.refused_hellos += 1
            self.session.send_unreliable(wire.REFUSE, wire.pack_text(refusal))
            return
        self.session.reset()
        self.connected = True
        self.mode = wire.MODE_STANDALONE
        answer = {"game": None}  # type: dict
        if self._has_game():
            answer = self._game_summary()  # game, seed, players, seats, moves, digest, over
        answer.update({"proto": wire.PROTOCOL_VERSION, "minor": wire.PROTOCOL_MINOR,
                       "role": "board", "fw": VERSION, "board": self.board,
                       "layout": self.layout, "mode": self.mode, "caps": list(CAPABILITIES)})
        if self.maker is not None:
            answer.update(self.maker.hello_info())
            answer["caps"] += list(self.maker.caps())
        if "nonce" in hello:
            answer["nonce"] = hello["nonce"]  # lets the host match this answer to its HELLO
        self.session.send_unreliable(wire.HELLO_OK, wire.pack_json(answer))

    def _moves(self, game, first):
        ui = self.ui
        if not self._has_game() or game != ui.game_id:
            self._send(wire.GAME, wire.pack_json({"event": "unknown", "game": game}))
            return
        moves = ui.moves
        # Split under the payload limit; an empty MOVES answers "nothing from there on".
        while True:
            chunk = moves[first - 1:]
            payload, count = wire.pack_moves(game, first, chunk)
            if not self._send(wire.MOVES, payload) or count == len(chunk):
                return
            first += count

    # ---- what the board reports

    def _has_game(self):
        return self.ui is not None and self.ui.state is not None

    def _game_summary(self, full=False):
        ui = self.ui
        st = ui.state
        d = {"game": ui.game_id, "name": "vora", "seed": ui.seed, "players": st.players,
             "seats": st.seats, "moves": ui.moves_played, "digest": st.digest(),
             "over": st.is_over(), "mode": self.mode}
        if full:
            d["state"] = st.to_json()
        return d

    def send(self, type, payload):
        """Send a reliable message to the host (for services such as vora_fw.maker)."""
        return self._send(type, payload)

    def _send(self, type, payload):
        # False when it could not be queued: the host will notice the gap in move numbers
        # and ask again (MOVES_REQ), or say HELLO again when the session failed.
        if not self.connected:
            return False
        ok = self.session.send(type, payload)
        if not ok and self.session.state == FAILED:
            self.connected = False
        return ok

    def game_event(self, event, state, detail):
        """From the game (VoraUI's listener): tell the host, if one is listening."""
        if not self.connected:
            return  # a host that connects later catches up with MOVES_REQ
        ui = self.ui
        if event == "move":
            self._send(wire.MOVE, wire.pack_move(ui.game_id, ui.moves_played, state.digest(),
                                                 detail))
            return
        d = self._game_summary() if state is not None else {"game": ui.game_id}
        d["event"] = event
        if event == "over":
            d["scores"] = state.scores()
            d["winner"] = state.winner()
        self._send(wire.GAME, wire.pack_json(d))

    def key_event(self, k, pressed):
        if self.connected:
            self._send(wire.KEY, wire.pack_key(k, pressed))


class StdioPort:
    """The board's USB serial port: MicroPython's stdin/stdout, read without blocking.

    While it is open the keyboard interrupt is off (micropython.kbd_intr(-1)): a 0x03 byte
    inside a frame is data, not Ctrl-C. close() gives Ctrl-C back for the REPL.
    """

    def __init__(self):
        import micropython
        import select
        import sys
        self._micropython = micropython
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._buf = bytearray(256)
        micropython.kbd_intr(-1)

    def read(self):
        n = 0
        buf = self._buf
        while n < len(buf) and self._poll.poll(0):
            b = self._in.read(1)
            if not b:
                break
            buf[n] = b[0]
            n += 1
        return bytes(buf[:n]) if n else b""

    def write(self, data):
        self._out.write(data)

    def close(self):
        self._micropython.kbd_intr(3)
