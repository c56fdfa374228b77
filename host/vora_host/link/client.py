"""The PC's end of the link: say hello, follow the board's game, keep it in the log.

`BoardClient` is the protocol logic, free of I/O and clocks (bytes in with feed(), time in
with poll(), bytes out through `write`), so the same code serves a USB board, the virtual
board and the fault-injection tests. `vora_host.link.mirror` puts it on a real serial
device with pyserial, reconnecting after an unplug.

The client is in three modules, each with its own concern:
- this one: the session's life cycle (HELLO and its answers, a refusal, heartbeats, a
  session that fails and the HELLO again), the dispatch of the board's messages, the
  problems kept for the user, and what the host asks of the board (its state, the mode,
  pixels in terminal mode, the REPL; the play messages: the PC's bots, takebacks,
  positions, a game sent to the board);
- `vora_host.link.following` (`Following`, a part of BoardClient): what the host does
  with the game it hears of: replaying it from the seed and checking every move, logging
  it, asking for the moves it lacks, takebacks, and the disagreements with the board and
  the resync with its state (docs/host.md, "Following a game");
- `vora_host.link.board_checks`: the checks of every field the board sends and the
  escaping of its text.

The board is not trusted: every field of every message is checked (`check_summary` and the
wire helpers) before anything changes here; a bad message is reported and dropped, the link
stays up; a game switch happens whole or not at all; problems are kept as a bounded history
with counts; and text from the board is shown with its control characters escaped.

Imports point one way: this module imports `following`, and both import `board_checks`.
The names that now live in those two can still be imported from here, as code always has.
"""

import collections
import random
import time

from shared_rules import wire, wire_host
from shared_rules.session import Session, ticks_diff

from vora_host import __version__
from vora_host.link.board_checks import (BOARD_BOT_LEVELS, GAME_EVENTS, TEXT_LIMIT,
                                         check_event, check_hello_ok, check_summary, printable)
from vora_host.link.following import ASK_FIRST_MS, ASK_MAX_MS, Following

# BoardClient and what goes with it; for the code that has always imported them from here,
# the names whose homes are board_checks and following.
__all__ = [
    "BoardClient", "LinkRefused", "ticks_ms", "HELLO_INTERVAL_MS", "HELLO_ATTEMPTS",
    "HEARTBEAT_MS", "REFUSED_RETRY_MS", "PROBLEMS_KEPT", "ASK_FIRST_MS", "ASK_MAX_MS",
    "TEXT_LIMIT", "GAME_EVENTS", "BOARD_BOT_LEVELS", "printable", "check_summary",
    "check_event", "check_hello_ok",
]

HELLO_INTERVAL_MS = 500
HELLO_ATTEMPTS = 10
HEARTBEAT_MS = 2000  # an idle host asks for the state now and then: a dead board shows up
REFUSED_RETRY_MS = 5000  # a board that refused us may be updated: say HELLO again this often
PROBLEMS_KEPT = 100  # the latest problems in words; older ones survive as counts


def ticks_ms():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


class LinkRefused(Exception):
    """The board refused our HELLO (a protocol version it does not speak)."""


# ---- the client -------------------------------------------------------------------------

class BoardClient(Following):
    """Follows one board. `log` is a vora_host.log.store.GameLog or None; `source` says
    where the games come from in the log ("board <device>", "virtual board")."""

    def __init__(self, write, log=None, source="board", on_change=None):
        self.session = Session(write, self._deliver, on_fail=self._session_failed)
        self.session.close()
        self.log = log
        self.source = source
        self.on_change = on_change or (lambda what: None)
        self.connected = False
        self.refusal = None  # why the board refused us (shown; we try again later)
        self.refused_at = None
        self.board = None  # the HELLO_OK
        self.nonce = None
        self.hello_at = None
        self.hello_attempts = 0
        self.game_id = None  # the board's id of the game followed
        self.seed = None
        self.state = None  # the game replayed here
        self.moves = []
        self.log_id = None
        self.board_digest = None  # (moves, digest) from the board's last summary
        self.board_moves = 0  # the moves the board has, as far as we know
        self.board_save_error = None  # why the board cannot save its game (None: it can)
        self.asked_from = None  # the first move of the last MOVES_REQ (None: none pending)
        self.asked_at = None
        self.ask_wait = ASK_FIRST_MS
        self.asks = 0  # MOVES_REQ sent, first ones and repeats
        self.progress_at = None  # when the last missing move arrived
        self.history = collections.deque(maxlen=8)  # (player, move) for the mirror
        self.keys = collections.deque(maxlen=8)
        self.problems = []  # the latest PROBLEMS_KEPT problems, in words (escaped)
        self.recent = collections.deque(maxlen=8)  # (kind, text) of the latest problems
        # The game log cannot take moves now (a database server down, a full disk): they
        # are kept in memory by the log and written in order once it works. Not a problem
        # of the game: {"first", "last": move numbers kept, "reason"} while it lasts.
        self.log_waiting = None
        self.problem_count = 0  # every problem ever, kept or not
        self.problem_kinds = {}  # kind -> how many
        self.last_heard = None
        self.mode = wire.MODE_STANDALONE
        self.pongs = collections.deque(maxlen=16)  # PONG payloads, for ping()
        self.refused = collections.deque(maxlen=8)  # REFUSED: (key, reason code, detail)
        self.start_position = None  # the position the followed game was set up from
        self.board_bots = ""  # seats the board's own bot plays
        self.board_levels = ""  # its level at each of them: e(asy), n(ormal), h(ard)
        self.takebacks = 0
        # Out of step with the board (docs/host.md, "When the board and the host disagree"):
        # in_step is False from a mismatch until the board's state is taken; state_lost
        # once a move of the board does not even play on the replayed state, which is then
        # left alone (moves are logged unchecked) until the board's state replaces it.
        self.in_step = True
        self.state_lost = False
        self.diverged_at = None  # the move number where the host and the board parted
        self.unchecked = 0  # moves logged without a check since then
        self.resync_at = None  # when the board's state was last asked for
        self.resync_wait = ASK_FIRST_MS
        self.resyncs = 0  # times the board's state was taken
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
        self.asked_from = None  # a request of the old session is gone with it
        self.asked_at = None
        self.resync_at = None
        self.session.send_unreliable(wire.HELLO, wire.pack_json({
            "proto": wire.PROTOCOL_VERSION, "minor": wire.PROTOCOL_MINOR, "nonce": self.nonce,
            "role": "host", "sw": "vora-host %s" % __version__,
            "caps": ["standalone", "terminal", "play"]}))

    def feed(self, data, now):
        """Bytes from the board. Never raises for anything the board sends."""
        self.session.feed(data, now)

    def poll(self, now):
        """Time passing: HELLO again while unanswered, heartbeats, the session's resends,
        asking again for moves still missing."""
        if not self.connected:
            if self.refusal is not None:
                # Refused: say so, and look again now and then (the board may be updated).
                if self.refused_at is None or ticks_diff(now, self.refused_at) >= REFUSED_RETRY_MS:
                    self.refused_at = now
                    self.hello(now)
                return
            # Unanswered: HELLO every 0.5 s, then every 2 s once silent() says nobody is
            # there; never giving up, so a board plugged back in is found again.
            interval = HELLO_INTERVAL_MS if not self.silent() else 4 * HELLO_INTERVAL_MS
            if self.hello_at is None or ticks_diff(now, self.hello_at) >= interval:
                self.hello(now)
            return
        self.session.poll(now)
        if not self.connected:
            return  # the session failed during that poll
        self._catch_up(now)
        self._resync(now)
        if (self.session.idle and self.last_heard is not None
                and ticks_diff(now, self.last_heard) >= HEARTBEAT_MS):
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
        except wire.BadPayload as exc:
            self._problem("malformed", "the board sent a malformed %s: %s" % (
                wire.type_name(type), exc))

    def _handle(self, type, payload):
        if type == wire.HELLO_OK:
            self._hello_ok(wire.unpack_json(payload))
        elif type == wire.REFUSE:
            self._refused(wire.unpack_text(payload))
        elif type == wire.PONG:
            self.pongs.append(bytes(payload))
        elif type == wire.LOG:
            self._problem("board log", "the board says: " + wire.unpack_text(payload))
        elif not self.connected:
            return
        elif type == wire.MOVE:
            game, n, digest, move = wire_host.unpack_move(payload)
            if game == self.game_id:
                self._move(n, move, digest)
        elif type == wire.MOVES:
            game, first, moves = wire_host.unpack_moves(payload)
            if game == self.game_id:
                if first + len(moves) - 1 > 0xFFFF:
                    raise wire.BadPayload("MOVES: move numbers past 65535")
                for k, move in enumerate(moves):
                    if not self._move(first + k, move, None):
                        break
                self._check_board_digest()
        elif type == wire.GAME:
            self._game_event(wire.unpack_json(payload))
        elif type == wire.STATE:
            summary = wire.unpack_json(payload)
            check_summary(summary, "STATE")
            self.mode = summary.get("mode", self.mode)
            self._follow(summary)
        elif type == wire.KEY:
            self.keys.append(wire_host.unpack_key(payload))
            self.on_change("key")
        elif type == wire.REFUSED:
            self.refused.append(wire_host.unpack_refused(payload))
            self.on_change("refused_key")
        elif type == wire.TAKEBACK:
            game, n, digest = wire_host.unpack_takeback(payload)
            if game == self.game_id:
                self._take_back(n, digest)
        elif self.on_message is not None:
            self.on_message(type, payload)

    def _refused(self, reason):
        if self.connected or self.hello_at is None:
            # Nobody asked: a REFUSE answers a HELLO, and ours was answered already.
            self._problem("unsolicited", "the board sent a REFUSE nobody asked for: " + reason)
            return
        self.refusal = printable(reason)
        self.refused_at = self.session.now
        self.on_change("refused")

    def _hello_ok(self, info):
        if info.get("nonce") != self.nonce or self.nonce is None:
            return  # the answer to an older HELLO
        check_hello_ok(info)
        refusal = wire.version_refusal(info.get("proto"))
        if refusal is not None:
            self.refusal = "the board speaks protocol %r, this host %d: %s" % (
                info.get("proto"), wire.PROTOCOL_VERSION, refusal)
            self.refused_at = self.session.now
            self.on_change("refused")
            return
        self.session.reset()
        self.connected = True
        self.refusal = None
        self.hello_attempts = 0
        self.board = info
        self.mode = info.get("mode", wire.MODE_STANDALONE)
        if self.mode not in (wire.MODE_STANDALONE, wire.MODE_TERMINAL):
            self.mode = wire.MODE_STANDALONE
        self.on_change("link")
        # The link is up even when the game part is malformed: that is reported (below,
        # by _deliver) and the next STATE may be better.
        if check_summary(info, "HELLO_OK") is not None:
            self._follow(info)

    # ---- problems, for the user

    def _problem(self, kind, text):
        """Keep a problem for the user: the text escaped, the latest PROBLEMS_KEPT of them,
        and a count per kind of all of them."""
        self.problem_count += 1
        self.problem_kinds[kind] = self.problem_kinds.get(kind, 0) + 1
        self.recent.append((kind, printable(text)))
        self.problems.append(printable(text))
        if len(self.problems) > PROBLEMS_KEPT:
            del self.problems[:len(self.problems) - PROBLEMS_KEPT]
        self.on_change("problem")

    # ---- asking the board

    def request_state(self):
        return self.send(wire.STATE_REQ, b"")

    def set_mode(self, mode):
        return self.send(wire.MODE, wire_host.pack_mode(mode))

    def show(self, frame):
        """Terminal mode: the whole frame (147 bytes, RGB per key index)."""
        wire.check_pixels(frame)
        return self.send(wire.PIXELS, bytes(frame))

    def show_changes(self, changes):
        """Terminal mode: [(key, r, g, b)] changed pixels."""
        return self.send(wire.PIXELS_DIFF, wire_host.pack_pixels_diff(changes))

    def ask_repl(self):
        return self.send(wire.REPL, b"")

    # ---- play: bots, takebacks, positions (capability "play")

    def plays(self):
        """True when the board takes the play messages (it announced "play")."""
        return self.connected and "play" in ((self.board or {}).get("caps") or ())

    def send_bots(self, seats):
        """The seats the PC's bots play (letters); the board waits for their moves."""
        return self.plays() and self.send(wire.BOTS, wire_host.pack_bots(seats))

    def send_bot_move(self, n, move):
        """Move number n of the followed game, for a bot seat: the board checks it like
        keys, shows it, plays it (or answers REFUSED)."""
        return self.plays() and self.send(wire.BOT_MOVE,
                                          wire_host.pack_bot_move(self.game_id, n, move))

    def ask_takeback(self):
        """Ask the people at the board to agree to take back the last move."""
        return (self.plays() and self.game_id is not None
                and self.send(wire.TAKEBACK_REQ, wire_host.pack_takeback_req(self.game_id)))

    def send_position(self, seed, position):
        """A game set up from `position` (checked by the board's rules too)."""
        return self.plays() and self.send(wire.POSITION, wire_host.pack_position(seed, position))

    def takes_games(self):
        """True when the board takes a game in place of its own (it announced "resync")."""
        return self.plays() and "resync" in ((self.board or {}).get("caps") or ())

    def send_resync(self, save_text):
        """The board's game replaced by the one `save_text` holds (a board save's text:
        game_id, seed, start, moves, state), checked by the board as a save is."""
        return self.takes_games() and self.send(wire.RESYNC, wire.pack_text(save_text))

    def ping(self, token):
        self.session.send_unreliable(wire.PING, token)

    def status_line(self):
        if not self.connected and self.refusal:
            return "refused: " + self.refusal
        if not self.connected:
            if not self.silent():
                return "no answer from the board yet"
            return ("no board answers (a board whose firmware speaks another protocol "
                    "version stays silent too: this host speaks version %d)" % wire.PROTOCOL_VERSION)
        b = self.board or {}
        return "connected to %s, firmware %s" % (printable(b.get("board") or "a board", 64),
                                                 printable(b.get("fw", "?"), 32))
