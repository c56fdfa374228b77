"""The board's keys for a game the PC runs: the key pad (what the keys mean) and the frame.

Split from vora_host.play.board (issue 42) because the key entry and the lights are free of
the link, the table and the clock (the caller passes `now`): they are tested alone, and the
game loop (vora_host.play.board.BoardGame) and the PC screen beside the board
(vora_host.play.board_session) both read them.

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
"""

from vora_host.games.base import KEYS, OFF, SEAT_RGB, SEATS_BY_COUNT, WHITE
from vora_host.words import plural

__all__ = ["KeyPad", "compose_frame", "key_name"]

REFUSED_MS = 600
HOLD_MS = 700  # a second press of the preview's last key held this long plays it
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
        """{move: its keys} for the legal moves of `state` (computed once per position,
        told by its JSON text: its digest would hash that text too, 50 times a second)."""
        position = state.to_json()
        if self._paths_of != position:
            self._paths = dict((m, tuple(self.mapping.key_path(state, m)))
                               for m in state.legal_moves())
            self._paths_of = position
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
    levels = [int(c) for rgb in pixels for c in rgb]
    try:
        return bytes(levels)
    except ValueError:  # a level out of 0..255 (ValueError only then): each one clamped
        return bytes(max(0, min(255, c)) for c in levels)
