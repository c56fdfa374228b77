"""A game the host runs, played on the board: the board is screen and keypad (terminal mode).

The host keeps the state, the board shows the frames the host sends and reports its keys
(docs/protocol.md, terminal mode). This file holds the game loop; the key pad and the
frame it marks are in vora_host.play.board_keys, the threads bots and hints think in in
vora_host.play.thinking, and the session at a serial device with the PC's screen beside
the board in vora_host.play.board_session (split by concern, issue 42).

`BoardGame` is the game loop over a link client (`set_mode`, `show`, key events): humans
press keys, bots move after a short pause, every move is logged like every other game.

When the game hides information and two or more humans share the board, each human's
turn starts public: the board shows what everybody may see until that player presses
their corner (the others look away); after their move it is public again.
"""

from shared_rules import wire

from vora_host.games.base import KEYS
from vora_host.play.board_keys import KeyPad, compose_frame, key_name
from vora_host.play.thinking import THINK_WAIT_S, BotThinking, HintThinking
from vora_host.table import Refused

__all__ = ["BoardGame"]

# The pause before a bot's move: long enough to see whose turn it is and to follow the
# move as it lights up (vora play --delay changes it).
BOT_DELAY_MS = 700
TAKEBACK_HOLD_MS = 2000  # a human's corner held this long, nothing chosen: asks a takeback
# The hint's chord: the middle keys of the west and east edges, a4 and g4, held together.
# Never a corner (a corner pressed with a move shown plays it), and a chord rather than
# one key because every key of the 7x7 means something in some game (Vorcept's cells).
HINT_CHORD = (21, 27)
SAID_KEPT = 24  # events kept for the PC screen


class BoardGame:
    """One game the host runs on a board. `client` is a link client (set_mode, show,
    connected); call `key(k, pressed, now)` for each KEY event and `tick(now)` often.

    game:    the registry name; state: its state; agents: a Human() or a bot per player
    log:     a vora_host.log.live.LiveLog (which never stops the game: it keeps moves in
             memory while the log cannot be written) or None
    on_event(what, text): "move", "refused", "preview", "cancel", "over", "log", "thinking"
             for the PC screen, as everybody at it may see them (`said` keeps each
             player's own version: `event_lines(viewer)`)
    table:   the table to play at (vora_host.table.Table), when the caller made it (to
             give some of its seats to browsers); else one is made of the above

    The game is the table's: the board is one of its clients. A seat played in a browser
    plays through the table too; the board shows its moves as they come.
    """

    def __init__(self, game, state, agents, client, log=None, bot_delay_ms=BOT_DELAY_MS,
                 on_event=None, seed=0, table=None):
        from vora_host import games as host_games
        from vora_host.table import Human, Table
        host = host_games.host_game(game)
        self.game = game
        self.seed = seed
        self.mapping = host.BOARD
        self.view = host.VIEW
        self.agents = list(agents)
        self.table = table if table is not None else Table(
            game, state, self.agents, log=log, label=lambda p: "P%d" % p)
        # The humans at the board (a browser's play elsewhere, on their own page).
        self.humans = [p for p, a in enumerate(self.agents)
                       if isinstance(a, Human) and not getattr(a, "browser", False)]
        self.client = client
        self.pad = KeyPad(self.mapping)
        self.bot_delay_ms = bot_delay_ms
        self.on_event = on_event or (lambda what, text: None)
        self._seen = 0  # the table's moves the board has caught up with
        self._seq = 0  # the table's events the board has said
        self._corner_down = None  # (corner, when) a human's corner went down, nothing chosen
        self.turn_started = None
        self.revealed = None  # the human whose secrets the board shows now
        self._sent = None
        self._mode_set = False
        self.thinking = None  # a bot's search under way (BotThinking), while it runs
        self.hinting = None  # a hint being thought of (HintThinking), while it runs
        self._down = set()  # the keys held down now (the hint's chord)
        self.said = []  # [(what, {viewer: text, None: everybody's})]: events, newest last

    # The game as the table holds it.
    state = property(lambda self: self.table.state)
    moves = property(lambda self: self.table.moves)
    history = property(lambda self: self.table.history)
    before = property(lambda self: self.table.before)
    takeback = property(lambda self: self.table.takeback)
    log = property(lambda self: self.table.log)

    def _browser(self, player):
        return player is not None and getattr(self.agents[player], "browser", False)

    def _where(self, player):
        # Where a seat played away from the board is: "in a browser", "at another computer".
        return getattr(self.agents[player], "where", "in a browser")

    def _catch_up(self, now):
        """Take in what the table did since the board last looked (a move, a takeback,
        from here or from a browser): its events said, the key pad and the hand-over
        reset after a move."""
        table = self.table
        with table.lock:
            events = table.raw_events_since(self._seq)
            self._seq = table.seq
            changed = table.number != self._seen
            self._seen = table.number
        if changed:
            self.pad.reset()
            if self.revealed is not None and self.state.to_act() != self.revealed:
                self.revealed = None
            self.turn_started = now
        for _, what, texts in events:
            if what == "takeback" and texts.get(None, "").startswith("taken back"):
                self.revealed = None
                self._sent = None
            self._said(what, texts)

    # ---- whose eyes

    def _hides(self):
        return self.view.rules.HIDDEN_INFORMATION and len(self.humans) > 1

    def viewer(self):
        """Whose view the board shows: the one human's; with several humans and
        secrets, the revealed player's, else the public view."""
        if len(self.humans) == 1:
            return self.humans[0]
        if self._hides():
            return self.revealed
        return None

    def waiting_for(self):
        p = self.state.to_act()
        if self._hides() and p in self.humans and self.revealed != p:
            return p
        return None

    # ---- what the PC screen says

    def _said(self, what, texts):
        """An event, `texts` {viewer: the text that viewer may see; None: everybody}.
        on_event gets what the PC screen may show to whoever looks at it: with secrets
        and several humans, the public text (the players take turns at the board)."""
        self.said.append((what, texts))
        del self.said[:-SAID_KEPT]
        shown = texts.get(None) if self._hides() else texts.get(self.viewer(), texts.get(None))
        if shown:
            self.on_event(what, shown)

    def _say(self, what, text):
        self._said(what, {None: text})

    def _pad_said(self, what):
        # The key pad's words name moves and keys: with secrets, the revealed player's.
        if self._hides() and self.revealed is not None:
            public = "P%d's key refused" % self.revealed if what == "refused" else None
            self._said(what, {None: public, self.revealed: self.pad.message})
        else:
            self._say(what, self.pad.message)

    def event_lines(self, viewer, count=6):
        """The last events as `viewer` (None: everybody) may see them, 'what: text'."""
        out = []
        repeats = []
        last = len(self.said) - 1
        for i, (what, texts) in enumerate(self.said):
            text = texts.get(viewer, texts.get(None))
            if not text or (what in ("preview", "cancel", "thinking") and i != last):
                continue  # stale once anything else happened
            line = "%s: %s" % (what, text)
            if out and out[-1] == line:
                repeats[-1] += 1  # the same again: counted, not repeated
            else:
                out.append(line)
                repeats.append(1)
        out = [line if n == 1 else "%s (x%d)" % (line, n) for line, n in zip(out, repeats)]
        return out[-count:]

    # ---- playing

    def play(self, move, now):
        """Play `move` at the table (logged there), and say it. Refused (a ValueError)
        when the table does not take it (a browser's takeback waits, the game stopped)."""
        self.table.play(move)
        self._catch_up(now)

    def key(self, k, pressed, now):
        """A KEY event from the board."""
        if self._hint_chord(k, pressed, now):
            return
        if self._takeback_key(k, pressed, now):
            return
        if self.state.is_over():
            return
        if not pressed:
            if self.state.to_act() in self.humans and self.waiting_for() is None:
                what, move = self.pad.release(self.state, k, now)
                if what == "play":
                    try:
                        self.play(move, now)
                    except Refused as exc:
                        self.pad._refuse(k, now, exc.reason)
                        self._pad_said("refused")
                elif what == "preview":
                    self._pad_said("preview")
            return
        player = self.state.to_act()
        if self._browser(player):
            self.pad._refuse(k, now, "wait: P%d plays %s" % (player, self._where(player)))
            self._pad_said("refused")
            return
        if player not in self.humans:
            self.pad._refuse(k, now, "wait: %s is thinking" % self.bot_name(player))
            self._pad_said("refused")
            return
        waiting = self.waiting_for()
        if waiting is not None:
            if self.pad._is_confirm(self.state, k) or not self.pad.confirm_keys(self.state):
                self.revealed = waiting
                self._say("log", "P%d's secrets are on the board: only P%d looks now"
                          % (waiting, waiting))
            else:
                self.pad._refuse(k, now, "P%d: press your corner %s when only you look" % (
                    waiting, "/".join(key_name(c) for c in self.pad.confirm_keys(self.state))))
                self._pad_said("refused")
            return
        what, move = self.pad.press(self.state, k, now)
        if what == "held":
            return
        if what == "play":
            try:
                self.play(move, now)
            except Refused as exc:  # the pad only offers legal moves; the table may refuse
                self.pad._refuse(k, now, exc.reason)
                self._pad_said("refused")
        elif what == "refused":
            self._pad_said("refused")
        elif what == "cancelled":
            self._pad_said("cancel")
        else:
            self._pad_said("preview")

    def _bot_turn(self, player, now):
        # The bot thinks in a thread on a copy of the position, so the link keeps being
        # served (a board drops a PC that is silent for ~2 s) and keys are answered; its
        # move is played once ready, if the position is still the one it was asked about.
        think = self.thinking
        if think is not None and think.asked != self._position_key():
            if not think.done.is_set() and think.player == player:
                return  # its stale search still runs: one at a time on a bot's own state
            think = self.thinking = None
        if think is None:
            self.thinking = BotThinking(self.agents[player], self.state.clone(), player,
                                   self._position_key())
            self._say("thinking", "%s is thinking" % self.bot_name(player))
            think = self.thinking
            think.done.wait(THINK_WAIT_S)  # a quick bot's move lands in this same tick
        if not think.done.is_set():
            return
        self.thinking = None
        if think.error is not None:
            raise think.error
        try:
            self.play(think.move, now)
        except Refused:
            pass  # the table changed under it (a browser's takeback): it thinks again

    def _position_key(self):
        return (len(self.moves), self.state.digest())

    # ---- hints

    def _hint_chord(self, k, pressed, now):
        """a4 and g4 held together ask for a hint (HINT_CHORD): the first key's own press
        is undone (the selection it began is dropped). True when the key was for that."""
        if pressed:
            self._down.add(k)
        else:
            self._down.discard(k)
        if not pressed or k not in HINT_CHORD or self.takeback is not None:
            return False
        other = HINT_CHORD[1] if k == HINT_CHORD[0] else HINT_CHORD[0]
        if other not in self._down:
            return False
        self.pad.reset()
        self.pad.refused_key = None
        self._corner_down = None
        self.request_hint(now)
        return True

    def request_hint(self, now):
        """Ask the table for a hint for the human to act at the board: the hard level's
        move from that player's view (vora_host.bots.hints), thought of in a thread while
        the link is served; once ready (tick) it is shown as a preview, its keys lit, that
        their corner plays. None when asked; else why not (said too)."""
        state = self.state
        player = state.to_act()
        reason = None
        if self.takeback is not None:
            reason = "a takeback waits for its answers"
        elif state.is_over():
            reason = "the game is over"
        elif self._browser(player):
            reason = "P%d plays %s: %s" % (player, self._where(player), getattr(
                self.agents[player], "hints_there", "the hint button is on their page"))
        elif player not in self.humans:
            reason = "%s is thinking: a hint is for a player at the board" % self.bot_name(player)
        elif self.waiting_for() is not None:
            reason = "P%d: take the board first (your corner, when only you look)" % player
        elif self.hinting is not None:
            reason = "a hint is being thought of already"
        if reason is not None:
            self._say("refused", "no hint: " + reason)
            return reason
        self.hinting = HintThinking(self.table, player, self.table.number,
                                    self._position_key())
        self._say("thinking", "thinking of a hint for P%d (the hard level's move, from what "
                              "P%d may see)" % (player, player))
        return None

    def _hint_ready(self, now):
        # A hint thought of: shown as the preview of its move (keys lit, the corner
        # pulsing green) if the position is still the one it was asked for.
        hinting = self.hinting
        if hinting is None or not hinting.done.is_set():
            return
        self.hinting = None
        if hinting.error is not None:
            if not isinstance(hinting.error, Refused):
                raise hinting.error
            self._say("refused", "no hint: %s" % hinting.error.reason)
            return
        self._catch_up(now)  # the table's "hint" event, said as its viewers may see it
        if hinting.asked != self._position_key() or self.state.to_act() != hinting.player:
            return
        move = hinting.hint.move
        path = self.pad.paths(self.state).get(move)
        if not path:
            return
        self.pad.reset()
        self.pad.pressed = list(path)
        self.pad.preview = move
        self.pad._say_preview(self.state, False)
        self._pad_said("preview")

    def bot_name(self, player):
        """'P0 (search)' or 'P0 (hard)': a bot's seat and its kind or level, for the
        messages (the keys' strip is narrow; its settings are in the log)."""
        from vora_host.bots import level_of
        kind = str(getattr(self.agents[player], "kind", "bot"))
        return "P%d (%s)" % (player, level_of(self.game, kind) or kind.split(":")[0])

    def tick(self, now):
        """Time passing: terminal mode once connected, bots' moves, the frame."""
        if not getattr(self.client, "connected", False):
            self._mode_set = False
            return
        if not self._mode_set:
            self._mode_set = bool(self.client.set_mode(wire.MODE_TERMINAL))
            self._sent = None
        if self.turn_started is None:
            self.turn_started = now
        self._catch_up(now)
        self._hint_ready(now)
        player = self.table.to_act()
        if player is not None and player not in self.table.humans and self.takeback is None \
                and now - self.turn_started >= self.bot_delay_ms:
            self._bot_turn(player, now)
        frame = compose_frame(self.mapping, self.state, self.viewer(), self.pad, now,
                              self.waiting_for())
        if frame == self._sent:
            return
        # Animations change a few keys at a time: send only those (4 bytes a key instead
        # of the whole 147-byte frame), the whole frame when much has changed.
        changes = []
        if self._sent is not None:
            for k in range(KEYS):
                rgb = frame[3 * k:3 * k + 3]
                if rgb != self._sent[3 * k:3 * k + 3]:
                    changes.append((k, rgb[0], rgb[1], rgb[2]))
        if self._sent is not None and len(changes) <= 12:
            sent = self.client.show_changes(changes)
        else:
            sent = self.client.show(frame)
        if sent:
            self._sent = frame

    # ---- resuming and taking back

    def replay_moves(self, moves):
        """Play a resumed game's earlier moves (from the log) without logging them again;
        they can be taken back like any other."""
        self.table.replay_moves(moves)
        self._seen = self.table.number
        self._seq = self.table.seq

    def corner_seats(self):
        """{corner key: player} when each human has a corner of their own; {} when the
        game uses every key (Vorcept) or players share corners."""
        out = {}
        for p in self.humans:
            for k in self.mapping.confirm_keys(self.state, p):
                if k in out:
                    return {}
                out[k] = p
        return out

    def request_takeback(self, asker, now):
        """Ask to take back the last turn a human played (and the bots' moves after it).
        `asker`: the player asking at the board, or None for the PC (then every human
        agrees, unless there is only one). Done at once when nobody else has to agree;
        otherwise it waits for answer_takeback() (a browser's answer comes through the
        table). True when asked or done."""
        how = "their corner on the board, or y on the PC" if self.corner_seats() else \
            "y on the PC"
        try:
            self.table.request_takeback(asker, how=how, refuse="n or any other key refuses")
        except Refused as exc:
            self._say("refused", exc.reason)
            return False
        self._catch_up(now)
        return True

    def answer_takeback(self, player, yes, now):
        """A human's answer to the waiting takeback (`player` None: the next one asked)."""
        try:
            self.table.answer_takeback(player, yes)
        except Refused:
            return
        self._catch_up(now)

    def _takeback_key(self, k, pressed, now):
        """The board's takeback gestures (games where each human has a corner): a human's
        corner held 2 s with nothing chosen asks; while a takeback waits, the corner of a
        player asked agrees and any other key refuses. True when the key was for that."""
        corners = self.corner_seats()
        if self.takeback is not None:
            if pressed:
                player = corners.get(k)
                self.answer_takeback(player if player in self.takeback["waiting"] else None,
                                     player in self.takeback["waiting"], now)
            return True
        if not corners:
            return False
        if pressed:
            quiet = self.pad.preview is None and not self.pad.pressed \
                and self.waiting_for() is None
            self._corner_down = (k, now) if k in corners and quiet else None
            return False
        down, self._corner_down = self._corner_down, None
        if down is not None and down[0] == k and now - down[1] >= TAKEBACK_HOLD_MS:
            self.request_takeback(corners[k], now)
            return True
        return False
