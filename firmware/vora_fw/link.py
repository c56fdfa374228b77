"""The board's end of the serial link (docs/protocol.md).

Framing, checksums and resends are shared_rules.wire and shared_rules.session, the same
code the PC runs. This module decides what the board says and how it answers:

- The board speaks only after a host said HELLO (a board with no PC stays quiet); the HELLO
  resets the session, and HELLO_OK tells the host the firmware, the board and the game in
  progress, so a host that reconnects knows what it missed.
- Standalone mode: every game event (GAME), every move (MOVE, with its number and the
  state's digest) and every key (KEY) goes to the host; STATE_REQ gets the whole state,
  MOVES_REQ the moves from a given number (from the game's record).
- Nothing is dropped for want of room: when the session's queue is full, what could not be
  sent is remembered in a few bytes (the first move number not yet reported or asked for,
  a STATE owed, up to OWED_EVENTS game events and OWED_KEYS keys) and sent as soon as the
  host's acknowledgements make room, in that order. Move reports held back this way go
  out as MOVES from the first one missing, so the host still gets every move, in order.
- Terminal mode: the game stays as it is; the pixels show what the host sends (PIXELS,
  PIXELS_DIFF) and keys go to the host only. A failed session (host gone) brings the board
  back to standalone.
- REPL: the application stops and MicroPython's REPL is free for mpremote.
- Play (capability "play", messages 0x17..0x1C): the host's bots (BOTS, BOT_MOVE), a
  takeback asked from the PC (TAKEBACK_REQ) and reported (TAKEBACK), a position to set up
  (POSITION), and every refused key or request with its reason (REFUSED). With
  capability "resync" (0x1D): the game replaced by the one the host sends (RESYNC), for a
  seat of a table whose referee is on another computer.
Bytes from the host are data, never code: nothing here evaluates what it receives.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

from shared_rules import wire
from shared_rules.session import FAILED, Session
from vora_fw import VERSION
from vora_fw.clock import ticks_diff
# As vora_fw.vora_ui has them: the link does not import the game (the maker mode has none).
NO_KEY = const(255)  # vora_ui.NO_KEY: a refusal of a request from the PC, not of a key
R_NOT_NOW = const(17)  # vora_ui.R_NOT_NOW
MOVES_READ = const(360)  # moves read for one MOVES: 1,024 bytes of payload hold fewer

CAPABILITIES = ("standalone", "terminal", "moves", "state", "keys", "repl", "play", "resync")
OWED_EVENTS = const(4)  # GAME events kept while the queue is full (then a STATE says it all)
OWED_KEYS = const(16)  # key events kept while the queue is full (the oldest go first)
KEY_ROOM = const(8)  # standalone: a key report leaves this many places for moves and answers


MAKER_CAPS = ("update", "doctor")  # what the makers' service adds to HELLO_OK's caps


def maker_caps(boot):
    """The makers' capabilities of a board: the update needs the boot record of vora
    flash; the doctor works without."""
    return MAKER_CAPS if boot is not None else ("doctor",)


def board_info(version, pinmap, identity, boot):
    """What HELLO_OK says of the board for the makers' tools (vora doctor, vora update):
    here, with the link, so that the makers' service (vora_fw.maker) and its stand-in
    (vora_fw.start.MakerOnDemand) both say it, the stand-in without loading the service."""
    d = {"fw": version, "port": pinmap.get("port", ""),
         "micropython": identity.get("micropython"), "arch": identity.get("arch"),
         "mpy": "%d.%d" % (identity.get("mpy", 0), identity.get("mpy_sub", 0))}
    if boot is not None:
        d["boot"] = boot.info()
    return d


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
        self.maker = None  # type: Any  # the makers' service (vora_fw.start): messages 0x40..0x5F
        self.repl_refusal = None  # type: Any  # a reason to refuse REPL (the game goes on)
        self.host_play = False  # the host announced "play": it reads REFUSED and TAKEBACK
        self.keys_dropped = 0  # key events lost to a queue full for too long
        # (state, moves played, digest) of the move just reported, for the "over" that
        # may follow it at once: a digest is the state's JSON hashed (VoraUI.digest_of
        # takes it from the save's pieces when it can; otherwise a whole JSON text of
        # garbage), and the last move's step is the game's costliest. The next game
        # event, whatever it is, lets it go, and so does the next poll (a few ms later):
        # it never stays on the heap through a move.
        self._moved = None  # type: Any
        self._clear_owed()

    def _clear_owed(self):
        # What the session had no room for, kept small: a number, not the moves.
        self._owed_events = []  # (type, payload) of GAME and TAKEBACK messages, oldest first
        self._owed_state = False
        self._owed_game = 0
        self._owed_moves = 0  # first move number owed to the host (0: none)
        self._owed_answer = False  # a MOVES_REQ waits: at least one MOVES, even empty
        self._owed_keys = []  # KEY payloads

    def attach(self, ui):
        self.ui = ui

    # ---- bytes in, time passing

    def receive(self, data, now=None):
        if now is not None:
            self.now = now
        self.session.feed(data, self.now)

    def poll(self, now):
        self.now = now
        self._moved = None  # a move's digest is kept until the next poll at most
        if self.read is not None:
            data = self.read()
            if data:
                self.session.feed(data, now)
        self.session.poll(now)
        if self.connected:
            self._flush()

    def _host_gone(self):
        # No acknowledgement for max_retries rounds: the host is gone or the cable out.
        # What was owed goes too: a host that comes back says HELLO and asks again.
        self.connected = False
        self.mode = wire.MODE_STANDALONE
        if self.ui is not None:
            self.ui.host_bots = ""  # nobody plays them now: people may take those seats
        self._clear_owed()

    # ---- messages from the host

    def _deliver(self, type, payload):
        # Whatever a host sends, the board goes on playing: a message it cannot handle is
        # answered with a LOG saying why, and dropped.
        try:
            self._handle(type, payload)
        except Exception as exc:  # noqa: BLE001  (the firmware must not stop on a message)
            self._log("refused %s: %s" % (wire.type_name(type), str(exc)[:200]))
        if self.connected:
            self._flush()

    def _handle(self, type, payload):
        if type == wire.HELLO:
            self._hello(payload)
        elif type == wire.PING:
            self.session.send_unreliable(wire.PONG, payload)
        elif not self.connected:
            return  # anything else needs a HELLO first
        elif type == wire.STATE_REQ:
            self._owed_state = True  # sent by _flush, now or when there is room
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
        else:
            self._play_message(type, payload)

    def _play_message(self, type, payload):
        ui = self.ui
        if type == wire.BOTS:
            ui.host_bots = wire.unpack_bots(payload)
        elif type == wire.BOT_MOVE:
            game, n, move = wire.unpack_bot_move(payload)
            st = ui.state
            if (st is None or game != ui.game_id or n != ui.moves_played + 1
                    or st.seats[st.active] not in ui.host_bots):
                ui.refuse(NO_KEY, self.now, R_NOT_NOW,
                          "BOT_MOVE %d of game %d is not the move awaited" % (n, game))
            else:
                ui.enter_move(move, self.now, True)
        elif type == wire.TAKEBACK_REQ:
            if wire.unpack_takeback_req(payload) != ui.game_id or ui.state is None:
                ui.refuse(NO_KEY, self.now, R_NOT_NOW, "TAKEBACK_REQ for another game")
            else:
                ui.request_takeback("", self.now)
        elif type == wire.POSITION:
            seed, text = wire.unpack_position(payload)
            ui.set_position(text, seed, self.now)
        elif type == wire.RESYNC:
            ui.resync(wire.unpack_text(payload), self.now)

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
        self._clear_owed()  # the new session starts clean: the host asks for what it lacks
        self.connected = True
        self.mode = wire.MODE_STANDALONE
        caps = hello.get("caps")
        self.host_play = isinstance(caps, list) and "play" in caps
        if self.ui is not None:
            self.ui.host_bots = ""  # a new session: the host says again which seats it plays
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
            self._owe_event(wire.GAME, wire.pack_json({"event": "unknown", "game": game}))
            return
        if self._owed_moves == 0 or self._owed_game != game or first < self._owed_moves:
            self._owed_moves = first
        self._owed_game = game
        self._owed_answer = True

    def _owe_event(self, type, payload):
        events = self._owed_events
        if len(events) >= OWED_EVENTS:
            events.pop(0)
            self._owed_state = True  # a STATE tells the host where things are instead
        events.append((type, payload))

    def _flush(self):
        """Send what is owed, as far as the session has room: events, moves, the state,
        keys. Called after every message and every poll, so it goes out as soon as the
        host's acknowledgements free the window."""
        session = self.session
        events = self._owed_events
        while events and session.room():
            type, payload = events.pop(0)
            session.send(type, payload)
        if self._owed_moves and session.room():
            self._flush_moves()
        if self._owed_state and session.room():
            summary = self._game_summary(full=True) if self._has_game() else {
                "game": None, "mode": self.mode}
            session.send(wire.STATE, wire.pack_json(summary))
            self._owed_state = False
        keys = self._owed_keys
        room = KEY_ROOM if self.mode == wire.MODE_STANDALONE else 1
        while keys and session.room() >= room:
            session.send(wire.KEY, keys.pop(0))

    def _flush_moves(self):
        ui = self.ui
        game = self._owed_game
        if not self._has_game() or ui.game_id != game:
            # The game changed before the moves went out: a host that asked hears so.
            if self._owed_answer:
                self._owe_event(wire.GAME, wire.pack_json({"event": "unknown", "game": game}))
            self._owed_moves = 0
            self._owed_answer = False
            return
        moves = ui.moves
        first = self._owed_moves
        # Split under the payload limit; an empty MOVES answers "nothing from there on".
        while self.session.room():
            try:
                # No more than a frame can hold (a move takes 3 bytes or more): the first
                # moves are read from the save's file, and reading stops there.
                todo = moves[first - 1:first - 1 + MOVES_READ]
            except OSError as exc:
                # A fault of the flash: what cannot be read is not sent; the host hears why.
                self._log("the game's record cannot be read: %s" % (exc,))
                self._owed_moves = 0
                self._owed_answer = False
                return
            payload, count = wire.pack_moves(game, first, todo)
            todo = None
            self.session.send(wire.MOVES, payload)
            first += count
            if first > len(moves):
                self._owed_moves = 0
                self._owed_answer = False
                return
        self._owed_moves = first

    # ---- what the board reports

    def _has_game(self):
        return self.ui is not None and self.ui.state is not None

    def _game_summary(self, full=False, digest=None):
        ui = self.ui
        st = ui.state
        d = {"game": ui.game_id, "name": "vora", "seed": ui.seed, "players": st.players,
             "seats": st.seats, "moves": ui.moves_played, "digest": digest or ui.digest_of(st),
             "over": st.is_over(), "mode": self.mode}
        if ui.start is not None:
            d["position"] = ui.start
        if ui.board_bots:
            d["board_bots"] = ui.board_bots
            d["board_levels"] = ui.bot_levels()
        if ui.save_error:
            d["save_error"] = ui.save_error  # saving fails: the host says so
        if full:
            d["state"] = st.to_json()
        return d

    def send(self, type, payload):
        """Send a reliable message to the host (for services such as vora_fw.maker)."""
        return self._send(type, payload)

    def _send(self, type, payload):
        # False when it could not be queued (the caller keeps it owed), or when no host
        # listens (a host that connects later catches up from HELLO_OK and MOVES_REQ).
        if not self.connected:
            return False
        ok = self.session.send(type, payload)
        if not ok and self.session.state == FAILED:
            self.connected = False
        return ok

    def _log(self, text):
        # LOG is unreliable: a note for the host's user; what matters is also in STATE.
        if self.connected:
            self.session.send_unreliable(wire.LOG, wire.pack_text(text))

    def game_event(self, event, state, detail):
        """From the game (VoraUI's listener): tell the host, if one is listening."""
        if not self.connected:
            return  # a host that connects later catches up with MOVES_REQ
        ui = self.ui
        moved = self._moved
        self._moved = None
        if event == "move":
            n = ui.moves_played
            owed = self._owed_moves and self._owed_game == ui.game_id
            if not owed and not self._owed_events:
                digest = ui.digest_of(state)
                if self._send(wire.MOVE, wire.pack_move(ui.game_id, n, digest, detail)):
                    self._moved = (state, n, digest)
                    return
            if not owed:  # held back: it goes out with the owed MOVES, in order
                self._owed_game = ui.game_id
                self._owed_moves = n
            return
        if event == "save_failed" or event == "saved" or event == "low_memory":
            self._log(detail)
            return
        if event == "refused" or event == "takeback":
            if self.host_play:
                if event == "refused":
                    # A note for the player's screen: lost with a full queue, it is not
                    # owed (the next refusal says the same).
                    self._send(wire.REFUSED, wire.pack_refused(
                        detail[0] if 0 <= detail[0] < 49 else NO_KEY, detail[1], detail[2]))
                else:
                    # The host must hear of it, in order with the moves: owed like a GAME.
                    payload = wire.pack_takeback(ui.game_id, detail, ui.digest_of(state))
                    if self._owed_events or self._owed_moves or \
                            not self._send(wire.TAKEBACK, payload):
                        self._owe_event(wire.TAKEBACK, payload)
            return
        digest = None
        if event == "over" and moved is not None and moved[0] is state and \
                moved[1] == ui.moves_played:
            digest = moved[2]  # the last move's, reported just before
        d = self._game_summary(digest=digest) if state is not None else {"game": ui.game_id}
        d["event"] = event
        if event == "over":
            d["scores"] = state.scores()
            # The game's screen ranked the farms for its end (VoraUI._prepare_scores, just
            # before): the last key event is the costliest on the heap, so not twice.
            d["winner"] = ui.winner_player if state is ui.state else state.winner()
        payload = wire.pack_json(d)
        if self._owed_events or not self._send(wire.GAME, payload):
            self._owe_event(wire.GAME, payload)

    def key_event(self, k, pressed):
        if not self.connected:
            return
        payload = wire.pack_key(k, pressed)
        # In standalone mode keys only inform the host: they may not fill the queue that
        # moves and answers need (KEY_ROOM places stay free for those).
        room = KEY_ROOM if self.mode == wire.MODE_STANDALONE else 1
        if not self._owed_keys and self.session.room() >= room and self._send(wire.KEY, payload):
            return
        if len(self._owed_keys) >= OWED_KEYS:
            self._owed_keys.pop(0)
            self.keys_dropped += 1
        self._owed_keys.append(payload)
