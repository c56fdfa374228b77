"""The PC's end of the link: say hello, follow the board's game, keep it in the log.

`BoardClient` is the protocol logic, free of I/O and clocks (bytes in with feed(), time in
with poll(), bytes out through `write`), so the same code serves a USB board, the virtual
board and the fault-injection tests. `run_bridge()` and `SerialLink` put it on a real
serial device with pyserial, reconnecting after an unplug.

What it keeps in step with the board (docs/protocol.md):
- the game being played (the board's game id and seed), replayed locally from the seed so
  every move the board reports is checked by the rules and its digest compared;
- the log: every move is logged (durable) as soon as it is known; whenever the board has
  moves the log lacks, the client asks for them (MOVES_REQ) and asks again, slower and
  slower, until it has them all: never twice the same move in the log, never a gap;
- mismatches (a move the rules refuse, a digest that differs) are reported, not hidden,
  and never stop the log: the host marks the game in the log as needing attention, asks
  for the board's state (STATE_REQ, again and again, slower and slower, until it comes),
  logs every move the board reports meanwhile as the board reports it, and once it holds
  exactly the board's moves it takes the board's state (checked against the board's
  digest) and checks every later move against it again.

The board is not trusted: every field of every message is checked (`check_summary` and the
wire helpers) before anything changes here; a bad message is reported and dropped, the link
stays up; a game switch happens whole or not at all; problems are kept as a bounded history
with counts; and text from the board is shown with its control characters escaped.
"""

import collections
import random
import time

from shared_rules import games, prng, vora, wire, wire_host
from shared_rules.errors import RulesError
from shared_rules.session import Session, ticks_diff

from vora_host import __version__
from vora_host.bots.levels import LEVEL_NAMES
from vora_host.log.errors import GameLogError, NotWritten

HELLO_INTERVAL_MS = 500
HELLO_ATTEMPTS = 10
HEARTBEAT_MS = 2000  # an idle host asks for the state now and then: a dead board shows up
# Asking for missing moves: at once, then again after ASK_FIRST_MS without progress,
# doubling up to ASK_MAX_MS, for as long as moves are missing.
ASK_FIRST_MS = 1000
ASK_MAX_MS = 8000
REFUSED_RETRY_MS = 5000  # a board that refused us may be updated: say HELLO again this often
PROBLEMS_KEPT = 100  # the latest problems in words; older ones survive as counts
TEXT_LIMIT = 200  # characters of board text shown in one problem or status line

GAME_EVENTS = ("new", "resume", "over", "abandon", "unknown")


def ticks_ms():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


class LinkRefused(Exception):
    """The board refused our HELLO (a protocol version it does not speak)."""


# ---- text and fields from the board -----------------------------------------------------

def printable(text, limit=TEXT_LIMIT):
    """Text from the board as it may reach a terminal: every character that is not
    printable (controls, escape sequences, C1 codes, bidirectional overrides, line breaks)
    written as a Python escape (\\x1b, \\u202e), and at most `limit` characters."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) > limit:
        text = text[:limit] + "..."
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _bad(what, field, value, want):
    raise wire.BadPayload("%s: %s must be %s, not %s" % (what, field, want, printable(repr(value), 60)))


def _int_field(what, d, field, lo, hi, required=True):
    if field not in d:
        if required:
            raise wire.BadPayload("%s: the field %s is missing" % (what, field))
        return None
    v = d[field]
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        _bad(what, field, v, "a whole number from %d to %d" % (lo, hi))
    return v


# The board's own bot's levels as a summary spells them (board_levels, one letter a bot):
# the first letter of each level's name.
BOARD_BOT_LEVELS = {name[0]: name for name in LEVEL_NAMES}


def _str_field(what, d, field, limit, required=False):
    if field not in d:
        if required:
            raise wire.BadPayload("%s: the field %s is missing" % (what, field))
        return None
    v = d[field]
    if not isinstance(v, str) or len(v) > limit:
        _bad(what, field, v, "text of at most %d characters" % limit)
    return v


def check_summary(d, what):
    """Check the game summary of a HELLO_OK, GAME or STATE (docs/protocol.md, "JSON
    fields"): every field the host uses has its type and range, or wire.BadPayload names
    the first that does not. Returns the game id (None: no game)."""
    _int_field(what, d, "mode", wire.MODE_STANDALONE, wire.MODE_TERMINAL, required=False)
    if "over" in d and not isinstance(d["over"], bool):
        _bad(what, "over", d["over"], "true or false")
    name = _str_field(what, d, "name", 32)
    if name is not None and name != vora.NAME:
        _bad(what, "name", name, "%r (the one game a board referees)" % vora.NAME)
    if "game" not in d:
        raise wire.BadPayload("%s: the field game is missing" % what)
    game = d["game"]
    if game is None:
        return None
    _int_field(what, d, "game", 0, wire.U32_MAX)
    _int_field(what, d, "seed", 0, prng.SEED_MAX)
    players = _int_field(what, d, "players", min(vora.PLAYER_COUNTS), max(vora.PLAYER_COUNTS))
    seats = _str_field(what, d, "seats", 4, required=True)
    if len(seats) != players or any(s not in vora.SIDES or seats.count(s) > 1 for s in seats):
        _bad(what, "seats", seats, "%d different sides among %s" % (players, vora.SIDES))
    _int_field(what, d, "moves", 0, 0xFFFF)
    digest = _str_field(what, d, "digest", 16, required=True)
    if len(digest) != 16 or any(c not in "0123456789abcdef" for c in digest):
        _bad(what, "digest", digest, "16 hexadecimal digits")
    _str_field(what, d, "state", wire.MAX_PAYLOAD)
    _str_field(what, d, "save_error", TEXT_LIMIT)
    bots = _str_field(what, d, "board_bots", 4) or ""
    if any(b not in seats or bots.count(b) > 1 for b in bots):
        _bad(what, "board_bots", bots, "different seats among %s" % seats)
    levels = _str_field(what, d, "board_levels", 4)
    if levels is not None and (len(levels) != len(bots)
                               or any(c not in BOARD_BOT_LEVELS for c in levels)):
        _bad(what, "board_levels", levels, "one of %s for each of board_bots %r"
             % ("".join(BOARD_BOT_LEVELS), bots))
    return game


def check_event(d):
    """Check a GAME message: the event, and the summary where the event carries one."""
    event = d.get("event")
    if event not in GAME_EVENTS:
        _bad("GAME", "event", event, "one of %s" % ", ".join(GAME_EVENTS))
    what = "GAME %s" % event
    if event in ("new", "resume", "over"):
        check_summary(d, what)
    _int_field(what, d, "game", 0, wire.U32_MAX)
    if event == "over":
        scores = d.get("scores")
        if not isinstance(scores, list) or len(scores) != d["players"] or any(
                not isinstance(s, int) or isinstance(s, bool) or not -99999 <= s <= 99999 for s in scores):
            _bad(what, "scores", scores, "one whole number per player")
        winner = d.get("winner")
        if winner is not None:
            _int_field(what, d, "winner", 0, d["players"] - 1)
    return event


def check_hello_ok(d):
    """The link part of a HELLO_OK (the game summary is checked apart)."""
    _int_field("HELLO_OK", d, "nonce", 0, wire.U32_MAX)
    _int_field("HELLO_OK", d, "proto", 0, 255)
    for field in ("fw", "board", "layout", "role"):
        _str_field("HELLO_OK", d, field, 64)
    caps = d.get("caps", [])
    if not isinstance(caps, list) or len(caps) > 32 or any(
            not isinstance(c, str) or len(c) > 32 for c in caps):
        _bad("HELLO_OK", "caps", caps, "a list of short names")


# ---- the client -------------------------------------------------------------------------

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

    def _game_event(self, event):
        kind = check_event(event)
        game = event["game"]
        if kind in ("new", "resume"):
            self._follow(event)
        elif kind == "over" and game == self.game_id:
            self._follow(event)
            if self.in_step and self.state is not None and self.state.is_over():
                self._end("over")
        elif kind == "abandon" and game == self.game_id:
            self._end("abandoned")
            self.game_id = None
            self.state = None
            self.asked_from = None
        elif kind == "unknown" and game == self.game_id:
            # The board no longer has the game we asked about: what we lack is gone.
            missing = self.board_moves - len(self.moves)
            self.board_moves = len(self.moves)
            self.asked_from = None
            if missing > 0:
                self._problem("lost", "the board no longer has game %d: its moves %d to %d "
                              "are not in the log" % (game, len(self.moves) + 1,
                                                       len(self.moves) + missing))
        self.on_change("game")

    # ---- following the game

    def board_bot_level(self, seat):
        """The level's name ("easy", "normal", "hard") of the board's own bot at `seat`, or
        None when it plays no seat there or the board does not say (older firmware)."""
        i = self.board_bots.find(seat)
        return BOARD_BOT_LEVELS.get(self.board_levels[i:i + 1]) if i >= 0 else None

    def _follow(self, summary):
        """The board tells which game it plays and how far it is (a checked summary):
        start following it if it is new to us, and ask for the moves we miss."""
        game = summary.get("game")
        if game is None:
            return
        seed = summary["seed"]
        if game != self.game_id or seed != self.seed:
            if not self._start(game, seed, summary["players"], summary["seats"],
                               summary.get("position")):
                return
        self.board_digest = (summary["moves"], summary["digest"])
        self.board_moves = summary["moves"]
        self._note_saving(summary.get("save_error"))
        self.board_bots = summary.get("board_bots", "")  # checked by check_summary
        self.board_levels = summary.get("board_levels", "")  # a board before levels: none
        have = len(self.moves)
        if self.board_moves > have:
            self._catch_up(self.session.now)
        elif self.board_moves == have:
            self._check_board_digest()
            if not self.in_step and "state" in summary:
                self._take_board_state(summary)

    def _note_saving(self, error):
        # The board's summaries say whether it can save (its LOG about it may be lost).
        if error == self.board_save_error:
            return
        if error:
            self._problem("board save", "the board cannot save its game: %s" % error)
        elif self.board_save_error:
            self._problem("board save", "the board saves its game again")
        self.board_save_error = error

    def _start(self, game, seed, players, seats, position=None):
        """Switch to another game: all of it (state, replayed log, log entry) is made
        first, then taken over at once; if any part fails, nothing changes."""
        options = {"seats": seats}
        if position is not None:
            options["position"] = position
        record = {"game": vora.NAME, "players": players, "seed": seed,
                  "options": options, "moves": []}
        try:
            state = games.start(record)
        except RulesError as exc:
            self._problem("malformed", "the board announced game %d that cannot be set up "
                          "(seed %r, %r players, seats %r): %s" % (game, seed, players, seats, exc))
            return False
        known = []  # (number, move) logged before: replayed so new moves continue from there
        log_id = None
        if self.log is not None:
            try:
                found = self.log.find_game(game, seed)
                # The same board id and seed but another start (a position) is another game.
                if found is not None and found["status"] != "abandoned" \
                        and found["options"].get("position") == position:
                    log_id = found["id"]
                    # The board is the referee and it is here (a port has one program):
                    # whoever logged its game before (another computer it was plugged
                    # into) is taken over, and its later writes are refused.
                    self.log.hold(log_id, take_over=True)
                    known = [(m["number"], m["move"]) for m in self.log.game(log_id)["moves"]]
                else:
                    log_id = self.log.start_game(players=players, seed=seed, source=self.source,
                                                 board_game_id=game, options=options)
            except (GameLogError, ValueError) as exc:
                self._problem("log", "the game log cannot take game %d: %s (followed, not "
                              "logged)" % (game, exc))
                log_id = None
                known = []
        self.game_id = game
        self.seed = seed
        self.start_position = position
        self.state = state
        self.moves = []
        self.history.clear()
        self.asked_from = None
        self.asked_at = None
        self.ask_wait = ASK_FIRST_MS
        self.board_moves = 0
        self.board_digest = None
        self.log_id = log_id
        self._in_step_again()
        for n, move in known:
            self._play_known(n, move)
        self.on_change("game")
        return True

    def _play_known(self, n, move):
        # A logged move that does not replay (a game the host followed from the board's
        # state after a mismatch) is kept all the same: the board's state is asked for.
        player = self.state.to_act()
        if not self.state_lost:
            try:
                self.state.play(move)
            except RulesError as exc:
                self._diverged(n, "logged move %d %r does not replay: %s" % (n, move, exc),
                               lost=True)
        else:
            self.unchecked += 1
        self.moves.append(move)
        self.history.append((player, move))

    def _move(self, n, move, digest):
        """Move n as the board reports it. Returns False when it could not be taken (a
        gap before it, or refused by the rules): later moves of the same message wait."""
        have = len(self.moves)
        if n <= have:
            if self.moves[n - 1] != move:
                self._problem("mismatch", "move %d: the board says %r, the log has %r" % (
                    n, move, self.moves[n - 1]))
            return True  # a repeat (after a resend or a reconnect): already logged
        if n > have + 1:
            # Moves went by while we were away (or a report was dropped): fetch them.
            self.board_moves = max(self.board_moves, n)
            self._catch_up(self.session.now)
            return False
        player = self.state.to_act()
        mine = None
        if not self.state_lost:
            try:
                self.state.play(move)
                mine = self.state.digest()
            except RulesError as exc:
                self._diverged(n, "move %d %r from the board is refused by the rules: %s" % (
                    n, move, exc), lost=True)
        if mine is None:
            # Not checked: the replayed state is known to be wrong. Logged as the board
            # reports it, with its digest (or, from a MOVES without digests, the last one
            # the host knows of the board's); the game is marked in the log.
            self.unchecked += 1
            if digest is None:
                digest = self.board_digest[1] if self.board_digest else self.state.digest()
        elif digest is not None and digest != mine:
            self._diverged(n, "move %d %r: the board's digest %s, replayed here %s" % (
                n, move, digest, mine))
        self.moves.append(move)
        self.history.append((player, move))
        self.board_moves = max(self.board_moves, n)
        self.progress_at = self.session.now
        self.ask_wait = ASK_FIRST_MS
        if self.log is not None and self.log_id is not None:
            try:
                self.log.add_move(self.log_id, n, move, digest or mine)
            except NotWritten as exc:  # kept by the log, written once it works again
                self._log_kept(n, exc)
            except (GameLogError, ValueError) as exc:  # a conflict with what was logged: say it, go on
                self._problem("log", "the log refused move %d: %s" % (n, exc))
            else:
                self._log_written()
        if self.in_step and self.state.is_over():
            self._end("over")
        self._resync(self.session.now)
        self.on_change("move")
        return True

    def _catch_up(self, now):
        """Ask for the moves the board has and we lack: at once the first time, then again
        whenever ask_wait passed without a move arriving, the wait doubling up to
        ASK_MAX_MS. The board answers every request, but an answer can still be lost with
        a session that ended, and a request with a queue that was full."""
        if not self.connected or self.state is None or now is None:
            return
        have = len(self.moves)
        if self.board_moves <= have:
            self.asked_from = None
            return
        if self.asked_at is not None:
            since = self.asked_at
            if self.progress_at is not None and ticks_diff(self.progress_at, since) > 0:
                since = self.progress_at
            if ticks_diff(now, since) < self.ask_wait:
                return
            if self.asked_from == have + 1:
                self.ask_wait = min(2 * self.ask_wait, ASK_MAX_MS)  # no progress: slower
        if self.send(wire.MOVES_REQ, wire_host.pack_moves_req(self.game_id, have + 1)):
            self.asked_from = have + 1
            self.asked_at = now
            self.asks += 1

    def _take_back(self, n, digest):
        """The board took back its moves after the n-th (people agreed). The log records
        each takeback, last move first (history is not rewritten); the game is replayed
        here to n moves and checked against the board's digest."""
        if n >= len(self.moves):
            return  # a repeat, or moves we never had: nothing to take back here
        if self.log is not None and self.log_id is not None:
            for number in range(len(self.moves), n, -1):
                try:
                    self.log.take_back(self.log_id, number)
                except NotWritten as exc:
                    self._log_kept(None, exc)
                except GameLogError as exc:
                    self._problem("log", "the log refused the takeback of move %d: %s" % (
                        number, exc))
                    break
        moves = self.moves[:n]
        self._start_replay(moves)
        self.board_moves = n
        if self.state_lost or self.state.digest() != digest:
            self._diverged(n, "after the takeback to move %d the board's state is %s, "
                           "replayed here %s" % (n, digest, "unknown" if self.state_lost
                                                 else self.state.digest()))
        self.takebacks += 1
        self.on_change("takeback")

    def _start_replay(self, moves):
        options = {"seats": self.state.seats}
        if self.start_position is not None:
            options["position"] = self.start_position
        self.state = games.start({"game": vora.NAME, "players": self.state.players,
                                  "seed": self.seed, "options": options, "moves": []})
        self.moves = []
        self.history.clear()
        self.state_lost = False
        for k, move in enumerate(moves, 1):
            self._play_known(k, move)

    def _check_board_digest(self):
        # When we hold exactly the moves of the board's last summary, the states must agree.
        if (self.board_digest and self.state is not None and self.in_step
                and len(self.moves) == self.board_digest[0]
                and self.state.digest() != self.board_digest[1]):
            self._diverged(len(self.moves), "after move %d the board's state is %s, replayed "
                           "here %s" % (len(self.moves), self.board_digest[1],
                                        self.state.digest()))

    # ---- when the board and the host disagree

    def _in_step_again(self):
        self.in_step = True
        self.state_lost = False
        self.diverged_at = None
        self.unchecked = 0
        self.resync_at = None
        self.resync_wait = ASK_FIRST_MS

    def _diverged(self, n, text, lost=False):
        """The board and the replay here disagree at move n (`text` says how). Said once
        per disagreement, marked on the game in the log, and the board's state asked for;
        `lost`: the replayed state cannot even follow the board's moves any more."""
        if lost:
            self.state_lost = True
        if not self.in_step:
            return  # the state is asked for already; the note says it once
        self.in_step = False
        self.diverged_at = n
        self.unchecked = 0
        self._problem("mismatch", text + "; following the board's own state from here")
        self._attention(text)
        self.resync_at = None  # asked for at once (_resync, from poll or the next move)

    def _resync(self, now):
        """Ask for the board's state while out of step, once the host holds every move the
        board has (the answer is then a state it can take: the board sends its moves before
        its state): at once the first time, then again after resync_wait without taking
        it, the wait doubling up to ASK_MAX_MS."""
        if self.in_step or not self.connected or now is None or self.game_id is None:
            return
        if len(self.moves) < self.board_moves:
            return  # the missing moves first (_catch_up), then the state
        if self.resync_at is not None:
            if ticks_diff(now, self.resync_at) < self.resync_wait:
                return
            self.resync_wait = min(2 * self.resync_wait, ASK_MAX_MS)
        if self.send(wire.STATE_REQ, b""):
            self.resync_at = now

    def _take_board_state(self, summary):
        """A STATE with the board's whole state, at exactly the moves the host holds,
        while out of step: the board's state replaces the replayed one (it must match the
        board's own digest), and later moves are checked against it again."""
        n = summary["moves"]
        try:
            state = vora.from_json(summary["state"])
        except RulesError as exc:
            self._problem("malformed", "the board's state after move %d cannot be read: %s"
                          % (n, exc))
            return
        if state.digest() != summary["digest"] or state.players != self.state.players \
                or state.seats != self.state.seats:
            self._problem("mismatch", "the board's state after move %d is not the one it "
                          "names (digest %s, %s players, seats %s): asked again"
                          % (n, summary["digest"], state.players, state.seats))
            return
        state.start = self.state.start
        if not self.state_lost and state.digest() == self.state.digest():
            note = ("the board's state after move %d is the one replayed here: only what "
                    "it reported was wrong" % n)
            corrected = self._correct_logged()
            if corrected:
                note += ("; the log now holds the digests replayed here for move%s %s (what "
                         "the board reported is kept as an event)"
                         % ("" if len(corrected) == 1 else "s",
                            ", ".join(str(k) for k in corrected)))
        else:
            note = ("from move %d on, the host follows the board's state (taken after move "
                    "%d, digest %s)" % (self.diverged_at or n, n, summary["digest"]))
            if self.unchecked:
                note += "; %d move%s before it logged as the board reported them, unchecked" % (
                    self.unchecked, "" if self.unchecked == 1 else "s")
        self.state = state
        self.resyncs += 1
        self._attention(note)
        self._problem("resync", note)
        self._in_step_again()
        if state.is_over():
            self._end("over")
        self.on_change("game")

    def _correct_logged(self):
        """After a resync that found the board's state to be the one replayed here, every
        logged move since the mismatch whose digest is not the replay's (the board
        reported it wrong) is corrected in the log, the false one kept as an event: the
        game then verifies. Returns the numbers corrected."""
        if self.log is None or self.log_id is None or self.diverged_at is None:
            return []
        options = {"seats": self.state.seats}
        if self.start_position is not None:
            options["position"] = self.start_position
        corrected = []
        try:
            logged = self.log.game(self.log_id)["moves"]
            state = games.start({"game": vora.NAME, "players": self.state.players,
                                 "seed": self.seed, "options": options, "moves": []})
            for k, move in enumerate(self.moves, 1):
                state.play(move)
                if k < self.diverged_at or k > len(logged):
                    continue
                row = logged[k - 1]
                if row["move"] == move and row["digest"] != state.digest():
                    self.log.correct_move(self.log_id, k, move, state.digest(),
                                          "the board reported digest %s for move %d; its "
                                          "state is the one replayed here" % (row["digest"], k))
                    corrected.append(k)
        except RulesError:
            return corrected  # the replay fails after all: the attention note stands
        except (GameLogError, ValueError) as exc:
            self._problem("log", "the log cannot correct game %s: %s" % (self.log_id, exc))
        return corrected

    def _attention(self, note):
        if self.log is not None and self.log_id is not None:
            try:
                self.log.mark_attention(self.log_id, note)
            except (GameLogError, ValueError) as exc:
                self._problem("log", "the log cannot mark game %s as needing attention: %s"
                              % (self.log_id, exc))

    def _end(self, status):
        if self.log is not None and self.log_id is not None:
            result = None
            if status == "over" and self.state is not None:
                from vora_host.log.records import result_of
                result = result_of(self.state)
            try:
                self.log.end_game(self.log_id, status, result)
            except (GameLogError, ValueError) as exc:
                self._problem("log", "the log cannot close game %s: %s" % (self.log_id, exc))

    def _log_kept(self, n, exc):
        """The log kept move n (or a takeback: n None) in memory: it cannot be written now."""
        first = self.log_waiting is None
        if first:
            self.log_waiting = {"first": n, "last": n, "reason": printable(
                getattr(exc, "reason", None) or "it cannot be written now", 200)}
        elif n is not None:
            if self.log_waiting["first"] is None:
                self.log_waiting["first"] = n
            self.log_waiting["last"] = n
        if first:
            self.on_change("log")

    def _log_written(self):
        """A write went through: once nothing waits in the log's memory, the note goes."""
        if self.log_waiting is not None and not getattr(self.log, "pending", 0):
            self.log_waiting = None
            self.on_change("log")

    def log_note(self):
        """While the game log cannot take moves: what happens to them, in words (None
        otherwise). Not a mismatch: the game goes on and nothing is lost."""
        w = self.log_waiting
        if w is None:
            return None
        reason = w["reason"]
        head = ("the game log is unreachable (%s)" % reason if "reach" in reason
                else "the game log cannot be written (%s)" % reason)
        if w["first"] is None:
            kept = "the takeback is"
        elif w["first"] == w["last"]:
            kept = "move %d is" % w["first"]
        else:
            kept = "moves %d to %d are" % (w["first"], w["last"])
        return "%s: %s kept here and written to it as soon as it works again" % (head, kept)

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
