"""A game the host runs, played on the board: the board is screen and keypad (terminal mode).

The host keeps the state, the board shows the frames the host sends and reports its keys
(docs/protocol.md, terminal mode). Three parts, each testable alone:

- `KeyPad`: the generic key entry, free of I/O and clocks. The game's `BoardMapping`
  (vora_host.games.<module>.BOARD) says which keys name each legal move; pressing keys
  narrows the legal moves to those whose keys begin that way and previews the one they
  name; the player's corner key plays the preview, and so does the preview's last key
  pressed again and held (for games that use every key, such as Vorcept on the 7x7);
  pressed again briefly, it shows the next move named by the same keys (a push or a pig
  from one edge), then the moves that key names alone (which the selection hides: a
  Vorcept summon on a cell the selected piece could move to). The selection's first key
  pressed again (when it does not go on with the selection) cancels it. A key that names
  nothing is refused with the reason, and flashes red. The messages say how to play a
  preview the way the game allows (a corner or not).
- `compose_frame()`: the game's own frame with the key pad's marks over it: pressed keys
  blink white, the preview's keys are white, the refused key is red for a moment, the
  confirm corner pulses green when a move is ready (in the player's colour otherwise).
- `BoardGame`: the game loop over a link client (`set_mode`, `show`, key events): humans
  press keys, bots move after a short pause, every move is logged like every other game.

When the game hides information and two or more humans share the board, each human's
turn starts public: the board shows what everybody may see until that player presses
their corner (the others look away); after their move it is public again.
"""

import threading

from shared_rules import wire
from shared_rules.errors import IllegalMove

from vora_host.games.base import KEYS, OFF, SEAT_RGB, SEATS_BY_COUNT, WHITE
from vora_host.table import Refused
from vora_host.words import plural

__all__ = ["KeyPad", "compose_frame", "BoardGame", "key_name"]

REFUSED_MS = 600
HOLD_MS = 700  # a second press of the preview's last key held this long plays it
TAKEBACK_HOLD_MS = 2000  # a human's corner held this long, nothing chosen: asks a takeback
# The hint's chord: the middle keys of the west and east edges, a4 and g4, held together.
# Never a corner (a corner pressed with a move shown plays it), and a chord rather than
# one key because every key of the 7x7 means something in some game (Vorcept's cells).
HINT_CHORD = (21, 27)
RED = (255, 0, 0)
GREEN = (0, 255, 0)
_FILES = "abcdefg"


def key_name(k):
    """A key's name on the whole 7x7: a1 (south-west) .. g7 (north-east)."""
    return "%s%d" % (_FILES[k % 7], k // 7 + 1)


def _pulse(now, period=1000):
    t = now % period
    half = period // 2
    t = t if t < half else period - t
    return 64 + t * 192 // half


def _scale(rgb, level):
    return tuple(c * level // 256 for c in rgb)


class KeyPad:
    """Key entry for one board: which keys are pressed, the move they preview."""

    def __init__(self, mapping):
        self.mapping = mapping
        self.pressed = []
        self.preview = None
        self.refused_key = None
        self.refused_at = 0
        self.message = ""
        self._paths = {}
        self._paths_of = None
        self.repeat = None  # (key, when pressed): the preview's last key pressed again
        self.cycle = None  # the moves short second presses step through, once begun
        self.played = None

    def reset(self):
        self.pressed = []
        self.preview = None
        self.repeat = None
        self.cycle = None

    def paths(self, state):
        """{move: its keys} for the legal moves of `state` (computed once per position)."""
        digest = state.digest()
        if self._paths_of != digest:
            self._paths = dict((m, tuple(self.mapping.key_path(state, m)))
                               for m in state.legal_moves())
            self._paths_of = digest
        return self._paths

    def confirm_keys(self, state):
        return self.mapping.confirm_keys(state, state.to_act())

    def _is_confirm(self, state, k):
        return k in self.confirm_keys(state)

    def how_to_play(self, state):
        """How the player to act plays a preview, in words: with their corner when the game
        gives them one, else by its last key pressed again and held."""
        if self.confirm_keys(state):
            return "press your corner, or its last key again and hold it,"
        return "press its last key again and hold it"

    def press(self, state, k, now):
        """A key pressed while `state` waits for a human. Returns (what, move):
        ("play", move), ("preview", move), ("partial", None), ("held", None) (the
        preview's last key again: release() decides), ("cancelled", None) (the
        selection's first key again, when it does not go on with it) or ("refused",
        None); the reason of a refusal is in `message`."""
        if state.is_over() or not 0 <= k < KEYS:
            return self._refuse(k, now, "the game is over" if state.is_over() else
                                "there is no key %r" % (k,))
        paths = self.paths(state)
        if self.preview is not None and self._is_confirm(state, k):
            move = self.preview
            self.reset()
            self.message = ""
            return "play", move
        if self.preview is not None and self.pressed and k == self.pressed[-1]:
            self.repeat = (k, now)
            return "held", None
        if self.pressed and k == self.pressed[0]:
            longer = tuple(self.pressed) + (k,)
            if not any(paths[m][:len(longer)] == longer for m in paths):
                self.reset()
                self.message = "selection cancelled: %s" % self._starts(paths)
                return "cancelled", None
        for start in (self.pressed + [k], [k]):
            n = len(start)
            matching = [m for m in paths if paths[m][:n] == tuple(start)]
            if matching:
                return self._select(state, start, matching, paths)
        if self._is_confirm(state, k):
            return self._refuse(k, now, "choose a move first: press the keys that name it, "
                                        "then your corner")
        return self._refuse(k, now, "key %s names no move now; %s"
                            % (key_name(k), self._starts(paths)))

    def _starts(self, paths):
        firsts = sorted(set(key_name(p[0]) for p in paths.values() if p))
        return "moves start at %s" % (", ".join(firsts[:12]) +
                                      (" ..." if len(firsts) > 12 else ""))

    def _cycle_of(self, paths):
        """The moves a short second press of the preview's last key steps through: those
        named by the keys pressed, then those that key names alone (a selection going on
        through that key hides them)."""
        pressed = tuple(self.pressed)
        same = [m for m in paths if paths[m] == pressed]
        alone = [m for m in paths if len(pressed) > 1 and paths[m] == pressed[-1:]]
        return same + alone

    def release(self, state, k, now):
        """A key released. The preview's last key pressed again: held long, it plays the
        preview (("play", move)); briefly, the next move named by the same keys, then the
        moves that key names alone, round again."""
        if self.repeat is None or self.repeat[0] != k or self.preview is None:
            return None, None
        held = now - self.repeat[1]
        self.repeat = None
        if held >= HOLD_MS:
            move = self.preview
            self.reset()
            self.message = ""
            return "play", move
        paths = self.paths(state)
        cycle = self.cycle if self.cycle and self.preview in self.cycle \
            else self._cycle_of(paths)
        if len(cycle) > 1:
            i = cycle.index(self.preview) if self.preview in cycle else -1
            self.preview = cycle[(i + 1) % len(cycle)]
            self.pressed = list(paths[self.preview])
            self.cycle = cycle
        self._say_preview(state, len(cycle) > 1)
        return "preview", self.preview

    def _select(self, state, pressed, matching, paths):
        self.pressed = list(pressed)
        self.cycle = None
        exact = [m for m in matching if len(paths[m]) == len(pressed)]
        if exact:
            self.preview = exact[0]
            self._say_preview(state, len(self._cycle_of(paths)) > 1)
            return "preview", self.preview
        self.preview = None
        self.message = "%s this way: go on, or press %s again to cancel" % (
            plural(len(matching), "move starts", "moves start"), key_name(pressed[0]))
        return "partial", None

    def _say_preview(self, state, more):
        first, last = self.pressed[0], self.pressed[-1]
        self.message = "%s (%s to play it%s%s)" % (
            self.preview, self.how_to_play(state),
            "; that key briefly for another" if more else "",
            "; %s again to cancel" % key_name(first) if first != last else "")

    def _refuse(self, k, now, reason):
        self.refused_key = k
        self.refused_at = now
        self.message = reason
        return "refused", None

    def next_keys(self, state):
        """Keys that would continue the current selection."""
        n = len(self.pressed)
        paths = self.paths(state)
        return set(p[n] for p in paths.values()
                   if len(p) > n and list(p[:n]) == self.pressed)


def compose_frame(mapping, state, viewer, pad, now, waiting_for=None):
    """The 147-byte frame the board shows: the game's frame with the key pad's marks.
    `waiting_for`: a player whose turn waits for them to press their corner (hand-over
    of a game with secrets): only the public frame and their pulsing corner."""
    pixels = list(mapping.frame(state, viewer, now))
    if len(pixels) != KEYS:
        raise ValueError("a frame has %d keys, not %d" % (KEYS, len(pixels)))
    player = state.to_act()
    if player is not None:
        seats = SEATS_BY_COUNT.get(len(state.scores()))
        colour = SEAT_RGB[seats[player]] if seats else WHITE
        corners = pad.confirm_keys(state)
        if waiting_for is None:
            if pad.preview is not None:
                for k in mapping.key_path(state, pad.preview):
                    pixels[k] = WHITE
                colour = GREEN
            else:
                blink = now % 600 < 400
                for k in pad.pressed:
                    pixels[k] = WHITE if blink else OFF
                # Where the selection can go on: dark keys glow faintly; lit ones flicker
                # to dim white now and then, so the game's own colours stay readable.
                flicker = now % 1200 < 300
                for k in pad.next_keys(state):
                    if pixels[k] == OFF or (pad.pressed and flicker):
                        pixels[k] = (40, 40, 40)
        for c in corners:
            pixels[c] = _scale(colour, _pulse(now))
    if pad.refused_key is not None and now - pad.refused_at < REFUSED_MS:
        pixels[pad.refused_key] = RED
    out = bytearray(KEYS * 3)
    for k, rgb in enumerate(pixels):
        out[3 * k:3 * k + 3] = bytes(max(0, min(255, int(c))) for c in rgb)
    return bytes(out)


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

    def __init__(self, game, state, agents, client, log=None, bot_delay_ms=700,
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
            self.pad._refuse(k, now, "wait: P%d plays in a browser" % player)
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
            reason = "P%d plays in a browser: the hint button is on their page" % player
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


STEP_NOW = "\n[bold]Now ("  # where a step help turns from the game to this step
REASON_MAX = 200  # characters of a rules module's refusal said on the board's screen
SAID_KEPT = 24  # events kept for the PC screen
THINK_WAIT_S = 0.005  # how long a tick waits for a bot that may answer at once


class BotThinking:
    """One bot's choice computed in a daemon thread (quitting never waits for it)."""

    def __init__(self, agent, state, player, asked):
        self.player = player
        self.asked = asked  # the position it was asked about
        self.move = None
        self.error = None
        self.done = threading.Event()
        thread = threading.Thread(target=self._run, args=(agent, state), daemon=True,
                                  name="bot P%d" % player)
        thread.start()

    def _run(self, agent, state):
        try:
            self.move = agent.choose(state)
        except BaseException as exc:  # raised again in the loop that plays the move
            self.error = exc
        finally:
            self.done.set()


class HintThinking:
    """One hint asked of the table (Table.hint: it logs and says it) in a daemon thread:
    the hard level may think up to about 2 s, and the link must be served meanwhile."""

    def __init__(self, table, player, number, asked):
        self.player = player
        self.asked = asked  # the position it was asked about
        self.hint = None
        self.error = None
        self.done = threading.Event()
        thread = threading.Thread(target=self._run, args=(table, player, number),
                                  daemon=True, name="hint P%d" % player)
        thread.start()

    def _run(self, table, player, number):
        try:
            self.hint = table.hint(player, number)
        except BaseException as exc:  # said (a refusal) or raised again by the board loop
            self.error = exc
        finally:
            self.done.set()


# ---------------------------------------------------------------- on a serial device

POLL_S = 0.02


class BoardGameCompanion:
    """A host-run game on a board at a serial device: the link follower (which reopens
    the device after an unplug), the board game loop, and the game drawn for the PC
    screen (beside the virtual board, or alone for a USB board)."""

    def __init__(self, game, state, agents, log=None, seed=0, out=None, plain=False):
        self.game_name = game
        self.state = state
        self.agents = agents
        self.log = log
        self.seed = seed
        self.out = out
        self.plain = plain
        self.follower = None
        self.game = None
        self.table = None  # the table to play at, when the caller made one (vora play --web)
        self.earlier = ()  # a resumed game's moves from the log, replayed at start
        self.resumed = ""  # what to say about a resumed game
        self.last_event = ""  # the newest event as the screen may show it (command answers)
        self.log_lines = []  # what the game log said last (it fails, it works again)

    # The game's state is the board game's once it runs (a takeback replaces it).
    @property
    def state(self):
        return self.game.state if self.game is not None else self._start_state

    @state.setter
    def state(self, value):
        self._start_state = value

    def resumed_note(self):
        """Said at start by the virtual board's screen: this game's resume, never the
        board's own saved Vora game."""
        return self.resumed

    def command(self, text):
        """A line typed at the PC (the virtual board's line, or stdin beside a USB board):
        'undo' asks for a takeback of this game, y or n answers one, 'hint' asks for the
        hard level's move for the player to act (shown on the board's keys once thought
        of), 'more' pages the panel beside the board (as Tab). The answer lines, or None
        when the line is not for this game (the board goes on with it)."""
        from vora_host.link.client import ticks_ms
        game = self.game
        word = text.strip().lower()
        if game is None or not word:
            return None
        if word == "more":  # as Tab: the next page of the panel beside the board
            self.page_side()
            return ["ok"]
        if word == "hint":
            refused = game.request_hint(ticks_ms())
            return ["ok"] if refused is None else ["error no hint: " + refused]
        if word in ("undo", "takeback"):
            if game.takeback is not None:
                return ["error a takeback already waits: y or n"]
            if not game.request_takeback(None, ticks_ms()):
                return ["error nothing to take back: no human has moved yet"]
            return self._said()
        if game.takeback is not None and word in ("y", "yes", "n", "no"):
            # The PC answers for the first human asked (the question names them).
            game.answer_takeback(game.takeback["waiting"][0], word in ("y", "yes"),
                                 ticks_ms())
            return self._said()
        return None

    def _said(self):
        # Plain output printed the event already: the command's answer is ok; the screen
        # shows the event itself on its message line.
        said = self.last_event
        return ["ok"] if self.plain or not said else [said]

    def note(self, what, text):
        """Something the PC says about a typed line: on the screen's message lines (and
        the plain output) as any event of the game everybody may see."""
        if self.game is not None:
            self.game._say(what, text)
        else:
            self._event(what, text)

    def log_in_trouble(self):
        """True while the game log cannot take this game's moves (they wait in memory) or
        cannot be used at all; False once everything is written."""
        live = self.log
        if live is None:
            return False
        if live.broken is not None or live.lost is not None or live.failing is not None:
            return True
        log = live.log
        return log is not None and (log.trouble is not None or bool(log.pending))

    def log_said(self, text):
        """For LiveLog's `say`: the log started failing or works again."""
        self.log_lines.append("game log: " + text)
        self._event("log", text)

    def _event(self, what, text):
        # The screen draws the game's events itself (as its viewer may see them); the
        # plain output prints what everybody at the PC may see.
        self.last_event = text
        self.last_what = what
        self.events_said += 1
        if self.plain and self.out is not None:
            self.out.write("board %s: %s\n" % (what, text))
            self.out.flush()

    def start(self, board=None, path=None):
        """Start on the virtual board (`board`) or a device path; returns the tasks."""
        import asyncio

        from vora_host.link.client import ticks_ms
        from vora_host.link.mirror import Follower
        path = path or board.port.path
        if board is not None:
            board.terminal_keys = self.key_names_and_marks
            board.terminal_companion = self
        self.follower = Follower(path, log=None)
        client = self.follower.client
        self.game = BoardGame(self.game_name, self.state, self.agents, client, log=self.log,
                              on_event=self._event, seed=self.seed, table=self.table)
        self.game.replay_moves(self.earlier)
        earlier = client.on_change

        def changed(what):
            earlier(what)
            if what == "key":
                while client.keys:
                    k, pressed = client.keys.popleft()
                    self.help_shown = False
                    self.game.key(k, pressed, ticks_ms())

        client.on_change = changed

        async def loop():
            while True:
                self.game.tick(ticks_ms())
                await asyncio.sleep(POLL_S)

        return [asyncio.create_task(self.follower.run()), asyncio.create_task(loop())]

    def key_names_and_marks(self):
        """The keys as this game names them (a1..g7 over the whole 7x7) and what each
        shows now, for the virtual board's screen."""
        game = self.game
        if game is None:
            return None
        viewer = game.viewer()
        marks = dict(self.corner_marks())
        marks.update(game.mapping.key_marks(self.state, viewer, tuple(game.pad.pressed)))
        return (tuple(key_name(k) for k in range(KEYS)),
                tuple(marks.get(k, "") for k in range(KEYS)))

    def corner_marks(self):
        """{corner key: 'P1'} for the players who confirm with a corner; the corner of a
        player the board waits for says 'P1 go'."""
        game = self.game
        state = self.state
        if state.is_over() or state.to_act() is None:
            return {}
        marks = {}
        players = len(state.scores())
        for p in range(players):
            keys = game.mapping.confirm_keys(state, p)
            if len(keys) == 1:
                marks[keys[0]] = "P%d" % p
        waiting = game.waiting_for()
        if waiting is not None:
            for k in game.pad.confirm_keys(state):
                marks[k] = "P%d go" % waiting
        return marks

    def finish(self):
        """The session ends: an unfinished game is logged as interrupted. Returns (a line
        for the user saying where the game was logged, or where it was saved when the
        log could not be written; True when it is in the log)."""
        if self.log is None:
            return "the game was not logged (--no-log)", True
        if not self.state.is_over():
            from vora_host.log.records import result_of
            from vora_host.play.saved import end_status
            self.log.ended(end_status(self.state), result_of(self.state, "quit"))
        return self.log.finish()

    # ---- the PC screen: what a player needs now first, the game's picture after it

    def turn_line(self):
        """Whose turn and what to do, the hand-over, a bot thinking, or the result."""
        game = self.game
        if game is None:
            return ""
        state = self.state
        view = game.view
        if state.is_over():
            return "Game over: " + " ".join(view.result_lines(state))
        p = state.to_act()
        if p is None:
            return ""
        if p not in game.humans:
            return "%s is thinking..." % game.bot_name(p)
        if game.hinting is not None:
            return "P%d to %s: thinking of a hint..." % (p, view.prompt(state))
        waiting = game.waiting_for()
        if waiting is not None:
            corners = game.pad.confirm_keys(state)
            key = "their corner %s" % "/".join(key_name(k) for k in corners) if corners \
                else "any key"
            return ("P%d's turn: only P%d looks now (the others look away), then presses "
                    "%s to go on" % (waiting, waiting, key))
        who = "you" if len(game.humans) == 1 else None
        return "%s to %s" % (view.seat_label(state, p, who), view.prompt(state))

    def key_choices(self):
        """'c5 draw 7  d5 buy ...': what each key chooses now, for the player to act
        (only once their secrets are on the board)."""
        game = self.game
        p = self.state.to_act()
        labels = getattr(game.mapping, "key_labels", None)
        if p is None or p not in game.humans or labels is None or game.waiting_for() is not None:
            return ""
        if game.view.rules.HIDDEN_INFORMATION and game.viewer() != p:
            return ""
        texts = getattr(game.mapping, "key_texts", labels)
        choices = texts(self.state, game.pad.pressed)
        return "  ".join("%s %s" % (key_name(k), w) for k, w in sorted(choices.items()))

    def legend_line(self, width=None):
        """The game's colours as the keys show them, each beside its words (ANSI), as
        many as fit in `width` columns."""
        items = self.game.mapping.legend(self.state) if self.game is not None else []
        out = []
        used = 0
        for rgb, words in items:
            size = 3 + len(words) + (1 if out else 0)
            if width is not None and used + size > width:
                break
            out.append("\x1b[48;2;%d;%d;%dm  \x1b[0m %s" % (rgb[0], rgb[1], rgb[2], words))
            used += size
        return " ".join(out)

    def help_line(self):
        """The footer of the virtual board's screen: how to play this game there."""
        example = ""
        game = self.game
        secret = game is not None and game.view.rules.HIDDEN_INFORMATION \
            and game.viewer() != self.state.to_act()
        # Only a human's move: a bot's, typed, would be refused while it thinks.
        human = game is not None and self.state.to_act() in game.humans
        if game is not None and not self.state.is_over() and not secret and human:
            moves = self.state.legal_moves()
            example = " (%s)" % moves[0] if moves else ""
        # A game without corners plays a move by holding its last key: say how to hold
        # one from the keyboard, or a newcomer typing key names can only preview.
        player = self.state.to_act()
        held = game is not None and player is not None and not self.state.is_over() \
            and not game.mapping.confirm_keys(self.state, player)
        return ("Press the keys (click, or type a key name a1..g7 and Enter%s) or type a "
                "move%s | hint | ? or help: the rules and keys now | q quits" % (
                    "; 'hold a1' holds a key" if held else "", example))

    def typed(self, line, now):
        """A move typed on the virtual board's screen, in the game's notation: (played,
        what to say)."""
        game = self.game
        if game is None:
            return False, "the game has not started yet"
        text = " ".join(line.split())
        state = self.state
        legal = state.legal_moves() if not state.is_over() else []
        match = [m for m in legal if m.lower() == text.lower()]
        kinds = sorted(set(m.split(" ")[0] for m in legal))
        first = text.split(" ")[0].lower()
        if state.is_over():
            return False, "the game is over"
        p = state.to_act()
        if p not in game.humans:
            return False, "wait: %s is thinking" % game.bot_name(p)
        if game.waiting_for() is not None:
            return False, ("P%d: press your corner first, when only you look"
                           % game.waiting_for())
        if not match:
            starts = [m for m in legal if m.lower().startswith(first)]
            # Why not, in the rules' words, as typed play says it (tried on a copy).
            reason = ""
            try:
                state.clone().play(text)
            except IllegalMove as exc:
                if not exc.reason.startswith("unknown move word"):
                    reason = ": " + (exc.reason if len(exc.reason) <= REASON_MAX
                                     else exc.reason[:REASON_MAX - 3] + "...")
            return False, "%r is not a legal move now%s; %s" % (
                text, reason, "try %s" % ", ".join(starts[:4]) if starts else
                "moves now start with %s" % ", ".join(kinds))
        game.play(match[0], now)
        return True, match[0]

    help_shown = False  # `?`: the rules and the keys of this step instead of the picture
    events_said = 0  # events so far: the virtual board's screen puts a new refusal below
    last_what = ""

    def help_renderable(self):
        from rich.text import Text
        view = self.game.view
        step_help = getattr(view, "step_help", None)
        markup = step_help(self.state) if step_help is not None else view.help_text
        if isinstance(markup, str) and STEP_NOW in markup:
            # What to do now first: beside an 80x24 board the panel's rows run out
            # within the game's summary, and the step is what a newcomer pressed ? for.
            summary, now = markup.split(STEP_NOW, 1)
            markup = STEP_NOW.lstrip("\n") + now + "\n" + summary
        text = Text.from_markup(markup) if isinstance(markup, str) else markup
        head = Text("%s: help (Esc or Enter: back to the game)\n" % view.rules.TITLE,
                    style="bold")
        return Text.assemble(head, text)

    def sections(self, width):
        """The screen's parts as (priority, renderable), in the order drawn; the lower the
        priority number, the longer a part stays when rows run short."""
        return [(priority, part) for _, priority, part in self._parts(width)]

    def _parts(self, width):
        # (name, priority, renderable): the turn and what to do, the last event, what the
        # keys choose, the scores and the viewer's secrets (the summary, which the
        # picture holds too but would lose first to a short panel), then the game's
        # picture or the help, the older events, the link.
        from rich.text import Text
        game = self.game
        out = []
        turn = self.turn_line()
        if turn:
            out.append(("turn", 0, Text(turn, style="bold")))
        if self.log_in_trouble():  # once written again, its last words are an event
            for line in self.log_lines[-1:]:
                out.append(("log", 1, Text(line, style="bold red")))
        # The turn line says a bot thinking and the end: not again as events.
        events = [line for line in game.event_lines(game.viewer())
                  if not line.startswith(("thinking: ", "over: "))]
        if events:
            newest = events[-1]
            out.append(("event", 1, Text(newest, style="red" if newest.startswith("refused")
                                         else "")))
        choices = self.key_choices()
        if choices:
            out.append(("keys", 2, Text("keys: " + choices, style="cyan")))
        if self.help_shown:
            out.append(("help", 0, self.help_renderable()))
        else:
            out.append(("summary", 1, game.view.summary(self.state, game.viewer())))
            out.append(("picture", 3, game.view.render(self.state, game.viewer(), None,
                                                       game.history, width=width)))
        if len(events) > 1:
            out.append(("events", 4, Text("\n".join(events[-5:-1]), style="dim")))
        if self.follower is not None:
            out.append(("link", 5, Text(self.follower.client.status_line(), style="dim")))
        return out

    def renderable(self, width):
        from rich.console import Group
        return Group(*(part for _, part in self.sections(width)))

    takes_height = True  # the virtual board's screen gives side_lines its rows
    side_page = 0  # the page of the panel shown (Tab turns it; see vora_host.play.panel)
    _page_of = None  # the position and view the page was turned in

    def page_side(self):
        """The next page of the panel beside the board (Tab), back to the first after
        the last."""
        self.side_page += 1

    def side_lines(self, width, compact=False, height=None):
        """The screen beside the virtual board, at most `height` rows. When all does not
        fit, the first page keeps the turn and what to do, the last event, the scores
        and the viewer's secrets and the keys, cutting the rest (the bottom of the
        picture, the older events); its last row says Tab turns to the next pages, which
        hold all of it. A help is paged at the ends of its sentences."""
        if self.game is None:
            return []
        from vora_host.link.mirror import ansi_lines
        from vora_host.play.panel import book
        named = [(name, priority, ansi_lines(part, width))
                 for name, priority, part in self._parts(width)]
        # A new position, view or message (a key pressed) starts again at the first page.
        key = (self.state.digest(), self.help_shown, self.events_said)
        if key != self._page_of:
            self._page_of = key
            self.side_page = 0
        pages = book(named, height)
        return pages[self.side_page % len(pages)]


def run_board_game(path, companion, plain=False):
    """A host-run game on the board at serial device `path` until it ends, `q` or
    Ctrl-C; the game drawn live on this terminal (or one line per event). Exit status."""
    import asyncio
    import sys

    from rich.console import Console, Group

    async def main(live):
        tasks = companion.start(path=path)
        quit_asked = asyncio.Event()
        typed = _read_typed_lines(companion, on_quit=quit_asked.set)
        try:
            while not companion.state.is_over() and not quit_asked.is_set():
                if live is not None:
                    live.update(Group(companion.renderable(live.console.width), typed.footer(
                        "type hint, undo (a takeback), y or n and Enter | q quits")))
                await asyncio.sleep(0.1)
            if not quit_asked.is_set():
                await asyncio.sleep(0.5)  # the last frame reaches the board
        finally:
            typed()
            for task in tasks:
                task.cancel()

    try:
        if plain:
            companion.plain = True
            companion.out = companion.out or sys.stdout
            asyncio.run(main(None))
        else:
            from rich.live import Live
            console = Console()
            with Live(console=console, refresh_per_second=10, screen=False) as live:
                asyncio.run(main(live))
    except KeyboardInterrupt:
        return 130
    return 0


def _read_typed_lines(companion, stdin=None, on_quit=None):
    """Lines typed on this terminal beside a USB board go to the game ('hint', 'undo', y, n),
    as on the virtual board's line; `q` calls on_quit (at a terminal at once, else `q`
    and Enter). Returns the reader (vora_host.link.mirror.TypedKeys): calling it stops
    reading, its footer() draws the line being typed."""
    import sys

    from vora_host.link.mirror import TypedKeys

    def line(text):
        answer = companion.command(text)
        if answer is None:
            companion.note("refused", "typed here: undo (a takeback), then y or n; hint "
                                      "(the hard level's move); q quits")
        elif answer and answer[0].startswith("error "):
            companion.note("refused", answer[0][len("error "):])

    return TypedKeys(stdin or sys.stdin, line, on_quit or (lambda: None)).start()
