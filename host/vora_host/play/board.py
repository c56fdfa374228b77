"""A game the host runs, played on the board: the board is screen and keypad (terminal mode).

The host keeps the state, the board shows the frames the host sends and reports its keys
(docs/protocol.md, terminal mode). Three parts, each testable alone:

- `KeyPad`: the generic key entry, free of I/O and clocks. The game's `BoardMapping`
  (vora_host.games.<module>.BOARD) says which keys name each legal move; pressing keys
  narrows the legal moves to those whose keys begin that way and previews the one they
  name; pressing the last key again cycles through moves named by the same keys (Vora's
  push and pig from one edge); the player's corner key plays the preview. A key that
  names nothing is refused with the reason, and the key flashes red.
- `compose_frame()`: the game's own frame with the key pad's marks over it: pressed keys
  blink white, the preview's keys are white, the refused key is red for a moment, the
  confirm corner pulses green when a move is ready (in the player's colour otherwise).
- `BoardGame`: the game loop over a link client (`set_mode`, `show`, key events): humans
  press keys, bots move after a short pause, every move is logged like every other game.

When the game hides information and two or more humans share the board, each human's
turn starts public: the board shows what everybody may see until that player presses
their corner (the others look away); after their move it is public again.
"""

from shared_rules import wire
from shared_rules.errors import IllegalMove

from vora_host.games.base import CORNERS, KEYS, OFF, SEATS_BY_COUNT

__all__ = ["KeyPad", "compose_frame", "BoardGame", "key_name"]

REFUSED_MS = 600
WHITE = (255, 255, 255)
RED = (255, 0, 0)
GREEN = (0, 255, 0)
SEAT_RGB = {"S": (0, 200, 255), "W": (255, 0, 200), "N": (255, 140, 0), "E": (140, 255, 0)}
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

    def reset(self):
        self.pressed = []
        self.preview = None

    def paths(self, state):
        """{move: its keys} for the legal moves of `state` (computed once per position)."""
        digest = state.digest()
        if self._paths_of != digest:
            self._paths = dict((m, tuple(self.mapping.key_path(state, m)))
                               for m in state.legal_moves())
            self._paths_of = digest
        return self._paths

    def confirm_key(self, state):
        return self.mapping.confirm_key(state, state.to_act())

    def _is_confirm(self, state, k):
        confirm = self.confirm_key(state)
        return k == confirm if confirm is not None else k in CORNERS.values()

    def press(self, state, k, now):
        """A key pressed while `state` waits for a human. Returns (what, move):
        ("play", move), ("preview", move), ("partial", None) or ("refused", None); the
        reason of a refusal is in `message`."""
        if state.is_over() or not 0 <= k < KEYS:
            return self._refuse(k, now, "the game is over" if state.is_over() else
                                "there is no key %r" % (k,))
        paths = self.paths(state)
        if self.preview is not None and self._is_confirm(state, k):
            move = self.preview
            self.reset()
            self.message = ""
            return "play", move
        for start in (self.pressed + [k], [k]):
            n = len(start)
            matching = [m for m in paths if paths[m][:n] == tuple(start)]
            if matching:
                return self._select(start, matching, paths)
        if self.pressed and k == self.pressed[-1] and self.preview is not None:
            same = [m for m in paths if paths[m] == tuple(self.pressed)]
            i = same.index(self.preview) if self.preview in same else -1
            self.preview = same[(i + 1) % len(same)]
            self.message = "preview: %s" % self.preview
            return "preview", self.preview
        if self._is_confirm(state, k):
            return self._refuse(k, now, "choose a move first: press the keys that name it, "
                                        "then your corner")
        firsts = sorted(set(key_name(p[0]) for p in paths.values() if p))
        return self._refuse(k, now, "key %s names no move now; moves start at %s"
                            % (key_name(k), ", ".join(firsts[:12]) +
                               (" ..." if len(firsts) > 12 else "")))

    def _select(self, pressed, matching, paths):
        self.pressed = list(pressed)
        exact = [m for m in matching if len(paths[m]) == len(pressed)]
        if exact:
            self.preview = exact[0]
            self.message = "preview: %s (press your corner to play it%s)" % (
                self.preview, ", the last key again for another" if len(exact) > 1 else "")
            return "preview", self.preview
        self.preview = None
        self.message = "%d moves start this way: go on" % len(matching)
        return "partial", None

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
        confirm = pad.confirm_key(state)
        corners = [confirm] if confirm is not None else list(CORNERS.values())
        if waiting_for is None:
            if pad.preview is not None:
                for k in mapping.key_path(state, pad.preview):
                    pixels[k] = WHITE
                colour = GREEN
            else:
                blink = now % 600 < 400
                for k in pad.pressed:
                    pixels[k] = WHITE if blink else OFF
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
    log:     a GameLog or None; source: where the log says it was played
    on_event(what, text): "move", "refused", "preview", "over", "log" for the PC screen
    """

    def __init__(self, game, state, agents, client, log=None, source="virtual board",
                 bot_delay_ms=700, on_event=None):
        from vora_host import games as host_games
        from vora_host.play.terminal import Human
        host = host_games.host_game(game)
        self.game = game
        self.mapping = host.BOARD
        self.view = host.VIEW
        self.state = state
        self.agents = list(agents)
        self.humans = [p for p, a in enumerate(self.agents) if isinstance(a, Human)]
        self.client = client
        self.pad = KeyPad(self.mapping)
        self.log = log
        self.source = source
        self.log_id = None
        self.log_problem = None
        self.bot_delay_ms = bot_delay_ms
        self.on_event = on_event or (lambda what, text: None)
        self.moves = []
        self.history = []
        self.turn_started = None
        self.revealed = None  # the human whose secrets the board shows now
        self._sent = None
        self._mode_set = False

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

    # ---- the log

    def start_log(self):
        if self.log is None:
            return
        try:
            self.log_id = self.log.start_game(
                game=self.game, players=len(self.state.scores()), seed=self.seed,
                options=self.state.options(), source=self.source)
        except Exception as exc:  # noqa: BLE001 - the game goes on; the screen says why
            self._log_failed(exc)

    def _log_failed(self, exc):
        self.log_problem = "the game log cannot be written: %s" % (exc,)
        self.on_event("log", self.log_problem)

    def _log_move(self, move):
        if self.log is None or self.log_id is None:
            return
        try:
            self.log.add_move(self.log_id, len(self.moves), move, self.state.digest())
            if self.state.is_over():
                from vora_host.log.records import result_of
                self.log.end_game(self.log_id, "over", result_of(self.state))
        except Exception as exc:  # noqa: BLE001
            self._log_failed(exc)

    # ---- playing

    seed = 0

    def play(self, move, now):
        player = self.state.to_act()
        before = self.state.clone()
        shown = self.view.move_text(before, player, move, self.viewer())
        self.state.play(move)
        self.moves.append(move)
        self.history.append((player, move))
        self.pad.reset()
        if self.revealed == player and self.state.to_act() != player:
            self.revealed = None
        self.turn_started = now
        self._log_move(move)
        self.on_event("move", "P%d %s" % (player, shown))
        if self.state.is_over():
            self.on_event("over", "; ".join(self.view.result_lines(self.state)))

    def key(self, k, pressed, now):
        """A KEY event from the board (only presses matter)."""
        if not pressed or self.state.is_over():
            return
        player = self.state.to_act()
        if player not in self.humans:
            self.pad._refuse(k, now, "wait: P%d (%s) is thinking" % (
                player, getattr(self.agents[player], "kind", "bot")))
            self.on_event("refused", self.pad.message)
            return
        waiting = self.waiting_for()
        if waiting is not None:
            if self.pad._is_confirm(self.state, k):
                self.revealed = waiting
                self.on_event("log", "P%d's secrets are on the board" % waiting)
            else:
                self.pad._refuse(k, now, "P%d: press your corner when only you look" % waiting)
                self.on_event("refused", self.pad.message)
            return
        what, move = self.pad.press(self.state, k, now)
        if what == "play":
            try:
                self.play(move, now)
            except IllegalMove as exc:  # the pad only offers legal moves; say so if not
                self.pad._refuse(k, now, exc.reason)
                self.on_event("refused", self.pad.message)
        elif what == "refused":
            self.on_event("refused", self.pad.message)
        else:
            self.on_event("preview", self.pad.message)

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
        player = self.state.to_act()
        if player is not None and player not in self.humans \
                and now - self.turn_started >= self.bot_delay_ms:
            self.play(self.agents[player].choose(self.state), now)
        frame = compose_frame(self.mapping, self.state, self.viewer(), self.pad, now,
                              self.waiting_for())
        if frame != self._sent and self.client.show(frame):
            self._sent = frame
