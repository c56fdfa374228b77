"""The PC's end of the link: say hello, follow the board's game, keep it in the log.

`BoardClient` is the protocol logic, free of I/O and clocks (bytes in with feed(), time in
with poll(), bytes out through `write`), so the same code serves a USB board, the virtual
board and the fault-injection tests. `run_bridge()` and `SerialLink` put it on a real
serial device with pyserial, reconnecting after an unplug.

What it keeps in step with the board (docs/protocol.md):
- the game being played (the board's game id and seed), replayed locally from the seed so
  every move the board reports is checked by the rules and its digest compared;
- the log: every move is logged (durable) as soon as it is known; after a reconnect the
  client asks for the moves it missed (MOVES_REQ) and logs them, never twice;
- mismatches (a move the rules refuse, a digest that differs) are reported, not hidden.
"""

import collections
import random
import time

from shared_rules import games, vora, wire
from shared_rules.errors import RulesError
from shared_rules.session import Session

from vora_host import __version__
from vora_host.log.store import GameLogError

HELLO_INTERVAL_MS = 500
HELLO_ATTEMPTS = 10
HEARTBEAT_MS = 2000  # an idle host asks for the state now and then: a dead board shows up


def ticks_ms():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


class LinkRefused(Exception):
    """The board refused our HELLO (a protocol version it does not speak)."""


class BoardClient:
    """Follows one board. `log` is a vora_host.log.store.GameLog or None; `source` says
    where the games come from in the log ("board <device>", "virtual board")."""

    def __init__(self, write, log=None, source="board", on_change=None):
        self.session = Session(write, self._deliver, on_fail=self._session_failed)
        self.session.close()
        self.log = log
        self.source = source
        self.on_change = on_change or (lambda what: None)
        self.connected = False
        self.refusal = None
        self.board = None  # the HELLO_OK
        self.nonce = None
        self.hello_at = None
        self.hello_attempts = 0
        self.game_id = None  # the board's id of the game followed
        self.seed = None
        self.state = None  # the game replayed here
        self.moves = []
        self.log_id = None
        self.board_digest = None
        self.board_moves = 0
        self.asked_from = None  # a MOVES_REQ in flight
        self.history = collections.deque(maxlen=8)  # (player, move) for the mirror
        self.keys = collections.deque(maxlen=8)
        self.problems = []  # mismatches and refused moves, in words
        self.last_heard = None
        self.mode = wire.MODE_STANDALONE
        self.pongs = collections.deque(maxlen=16)  # PONG payloads, for ping()
        # on_message(type, payload): the messages this client does not handle itself (the
        # makers' tools take UPD_STATUS and DIAG through it), once connected.
        self.on_message = None

    # ---- the session

    def hello(self, now):
        """Start (or restart) a session: HELLO with a new nonce; answered by HELLO_OK."""
        self.connected = False
        self.session.close()
        self.nonce = random.getrandbits(32)
        self.hello_at = now
        self.hello_attempts += 1
        self.session.send_unreliable(wire.HELLO, wire.pack_json({
            "proto": wire.PROTOCOL_VERSION, "minor": wire.PROTOCOL_MINOR, "nonce": self.nonce,
            "role": "host", "sw": "vora-host %s" % __version__,
            "caps": ["standalone", "terminal"]}))

    def feed(self, data, now):
        self.session.feed(data, now)

    def poll(self, now):
        """Time passing: HELLO again while unanswered, heartbeats, the session's resends."""
        if self.refusal is not None:
            return
        if not self.connected:
            # Unanswered: HELLO every 0.5 s, then every 2 s once silent() says nobody is
            # there; never giving up, so a board plugged back in is found again.
            interval = HELLO_INTERVAL_MS if not self.silent() else 4 * HELLO_INTERVAL_MS
            if self.hello_at is None or now - self.hello_at >= interval:
                self.hello(now)
            return
        self.session.poll(now)
        if (self.session.idle and self.last_heard is not None
                and now - self.last_heard >= HEARTBEAT_MS):
            self.last_heard = now
            self.session.send(wire.STATE_REQ, b"")

    def silent(self):
        """True when every HELLO went unanswered: no board behind this port."""
        return not self.connected and self.hello_attempts >= HELLO_ATTEMPTS

    def _session_failed(self):
        # The board stopped acknowledging: unplugged, reset, or gone for the REPL. Say HELLO
        # again; what it played meanwhile comes back with MOVES_REQ.
        self.connected = False
        self.hello_attempts = 0
        self.hello_at = None
        self.on_change("link")

    def send(self, type, payload=b""):
        return self.connected and self.session.send(type, payload)

    # ---- messages from the board

    def _deliver(self, type, payload):
        self.last_heard = self.session.now
        try:
            self._handle(type, payload)
        except wire.WireError as exc:
            self._problem("the board sent a malformed %s: %s" % (wire.type_name(type), exc))

    def _handle(self, type, payload):
        if type == wire.HELLO_OK:
            self._hello_ok(wire.unpack_json(payload))
        elif type == wire.REFUSE:
            self.refusal = wire.unpack_text(payload)
            self.on_change("refused")
        elif type == wire.PONG:
            self.pongs.append(bytes(payload))
        elif not self.connected:
            return
        elif type == wire.MOVE:
            game, n, digest, move = wire.unpack_move(payload)
            if game == self.game_id:
                self._move(n, move, digest)
        elif type == wire.MOVES:
            game, first, moves = wire.unpack_moves(payload)
            if game == self.game_id:
                self.asked_from = None
                for k, move in enumerate(moves):
                    self._move(first + k, move, None)
                self._check_board_digest()
        elif type == wire.GAME:
            self._game_event(wire.unpack_json(payload))
        elif type == wire.STATE:
            summary = wire.unpack_json(payload)
            self.mode = summary.get("mode", self.mode)
            self._follow(summary)
        elif type == wire.KEY:
            self.keys.append(wire.unpack_key(payload))
            self.on_change("key")
        elif type == wire.LOG:
            self._problem("the board says: " + wire.unpack_text(payload))
        elif self.on_message is not None:
            self.on_message(type, payload)

    def _hello_ok(self, info):
        if info.get("nonce") != self.nonce:
            return  # the answer to an older HELLO
        refusal = wire.version_refusal(info.get("proto"))
        if refusal is not None:
            self.refusal = "the board speaks protocol %r, this host %d: %s" % (
                info.get("proto"), wire.PROTOCOL_VERSION, refusal)
            self.on_change("refused")
            return
        self.session.reset()
        self.connected = True
        self.hello_attempts = 0
        self.board = info
        self.mode = info.get("mode", wire.MODE_STANDALONE)
        self.on_change("link")
        if info.get("game") is not None:
            self._follow(info)

    def _game_event(self, event):
        kind = event.get("event")
        if kind in ("new", "resume"):
            self._follow(event)
        elif kind == "over" and event.get("game") == self.game_id:
            self._follow(event)
            if self.state is not None and self.state.is_over():
                self._end("over")
        elif kind == "abandon" and event.get("game") == self.game_id:
            self._end("abandoned")
            self.game_id = None
            self.state = None
        self.on_change("game")

    # ---- following the game

    def _follow(self, summary):
        """The board tells which game it plays and how far it is: start following it if it
        is new to us, and ask for the moves we miss."""
        game = summary.get("game")
        if game is None:
            return
        seed = summary.get("seed")
        if game != self.game_id or seed != self.seed:
            self._start(game, seed, summary.get("players"), summary.get("seats"))
        self.board_digest = summary.get("digest")
        have = len(self.moves)
        board_moves = self.board_moves = summary.get("moves", have)
        if board_moves > have and self.asked_from != have + 1:
            self.asked_from = have + 1
            self.send(wire.MOVES_REQ, wire.pack_moves_req(game, have + 1))
        elif board_moves == have:
            self._check_board_digest()

    def _start(self, game, seed, players, seats):
        record = {"game": vora.NAME, "players": players, "seed": seed,
                  "options": {"seats": seats}, "moves": []}
        self.game_id = game
        self.seed = seed
        self.state = games.start(record)
        self.moves = []
        self.history.clear()
        self.asked_from = None
        self.log_id = None
        if self.log is not None:
            found = self.log.find_game(game, seed)
            if found is not None and found["status"] != "abandoned":
                self.log_id = found["id"]
                # What we logged before: replay it, so new moves continue from there.
                for m in self.log.game(found["id"])["moves"]:
                    self._play_known(m["number"], m["move"])
            else:
                self.log_id = self.log.start_game(players=players, seed=seed,
                                                  source=self.source, board_game_id=game,
                                                  options={"seats": seats})
        self.on_change("game")

    def _play_known(self, n, move):
        player = self.state.to_act()
        try:
            self.state.play(move)
        except RulesError as exc:
            self._problem("logged move %d %r does not replay: %s" % (n, move, exc))
            return
        self.moves.append(move)
        self.history.append((player, move))

    def _move(self, n, move, digest):
        have = len(self.moves)
        if n <= have:
            if self.moves[n - 1] != move:
                self._problem("move %d: the board says %r, the log has %r" % (
                    n, move, self.moves[n - 1]))
            return  # a repeat (after a resend or a reconnect): already logged
        if n > have + 1:
            # Moves went by while we were away (or a report was dropped): fetch them.
            if self.asked_from != have + 1:
                self.asked_from = have + 1
                self.send(wire.MOVES_REQ, wire.pack_moves_req(self.game_id, have + 1))
            return
        player = self.state.to_act()
        try:
            self.state.play(move)
        except RulesError as exc:
            self._problem("move %d %r from the board is refused by the rules: %s" % (
                n, move, exc))
            return
        mine = self.state.digest()
        if digest is not None and digest != mine:
            self._problem("move %d %r: the board's digest %s, replayed here %s" % (
                n, move, digest, mine))
        self.moves.append(move)
        self.history.append((player, move))
        if self.log is not None and self.log_id is not None:
            try:
                self.log.add_move(self.log_id, n, move, digest or mine)
            except GameLogError as exc:  # a conflict with what was logged: say it, go on
                self._problem("the log refused move %d: %s" % (n, exc))
        if self.state.is_over():
            self._end("over")
        self.on_change("move")

    def _check_board_digest(self):
        # When we hold exactly the moves the board said it had, the states must agree.
        if (self.board_digest and self.state is not None
                and len(self.moves) == self.board_moves
                and self.state.digest() != self.board_digest):
            self._problem("after move %d the board's state is %s, replayed here %s" % (
                len(self.moves), self.board_digest, self.state.digest()))
            self.board_digest = None  # said once

    def _end(self, status):
        if self.log is not None and self.log_id is not None:
            result = None
            if status == "over" and self.state is not None:
                from vora_host.log.records import result_of
                result = result_of(self.state)
            self.log.end_game(self.log_id, status, result)

    def _problem(self, text):
        self.problems.append(text)
        self.on_change("problem")

    # ---- asking the board

    def request_state(self):
        return self.send(wire.STATE_REQ, b"")

    def set_mode(self, mode):
        return self.send(wire.MODE, wire.pack_mode(mode))

    def show(self, frame):
        """Terminal mode: the whole frame (147 bytes, RGB per key index)."""
        wire.check_pixels(frame)
        return self.send(wire.PIXELS, bytes(frame))

    def show_changes(self, changes):
        """Terminal mode: [(key, r, g, b)] changed pixels."""
        return self.send(wire.PIXELS_DIFF, wire.pack_pixels_diff(changes))

    def ask_repl(self):
        return self.send(wire.REPL, b"")

    def ping(self, token):
        self.session.send_unreliable(wire.PING, token)

    def status_line(self):
        if self.refusal:
            return "refused: " + self.refusal
        if not self.connected:
            return "no answer from the board yet" if not self.silent() else "no board answers"
        b = self.board or {}
        return "connected to %s, firmware %s" % (b.get("board") or "a board", b.get("fw", "?"))

