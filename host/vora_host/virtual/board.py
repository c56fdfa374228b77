"""The virtual board itself: the firmware's App on simulated hardware (vora_fw.hal_sim), a
save folder and the serial port, with its switches pressed and released as fingers would
and what it shows told in words (the game's status, the keys' marks, the help line) for
the screen and the commands. Also the reference build's pin map and the keys' names.

Apart from the rest of `vora sim` (vora_host.virtual.sim runs it) because this is the
board the host, mpremote and the tests talk to, whatever drives it: its serial port
(vora_host.virtual.port), the commands typed or scripted (vora_host.virtual.commands) and
the terminal screen (vora_host.virtual.screen) are each a module of their own.
"""

import asyncio
import json
import os
from pathlib import Path

from shared_rules import vora
from vora_fw import layout, vora_ui
from vora_fw.hal_sim import SimHardware
from vora_host.games.vora import view
from vora_host.virtual.machine import SimMachine
from vora_host.words import plural

__all__ = ["SimError", "VirtualBoard", "default_save_dir", "default_pinmap_path",
           "load_pinmap", "parse_key", "frame_hex", "PRESS_MS", "HOLD_MS", "PINMAP_NAME"]

PINMAP_NAME = "pinmap-rp2-pico.json"
PRESS_MS = 80  # a press: the switch stays closed this long (the firmware debounces 20 ms)
HOLD_MS = 2500  # `hold`: long enough for the menu (the firmware wants 2000 ms)
SETTLE_TIMEOUT_S = 2.0  # longest wait for the debouncer to report a change


class SimError(Exception):
    """A problem the `vora sim` command reports in one line (missing pin map, ...)."""


# ---------------------------------------------------------------- configuration

def default_save_dir(environ=None):
    """$XDG_DATA_HOME/vora/sim-save, or ~/.local/share/vora/sim-save."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return root / "vora" / "sim-save"


def default_pinmap_path():
    """The reference build's pin map: shipped with the package (hardware/ in a checkout)."""
    from vora_host import resources
    return resources.path(PINMAP_NAME)


def load_pinmap(path=None):
    """The pin map as a dict; SimError with a clear message when it is missing or broken."""
    if path is None:
        from vora_host import resources
        try:
            p = default_pinmap_path()
        except resources.MissingResource as exc:
            raise SimError("%s; or give a pin map with --pinmap FILE" % exc)
    else:
        from vora_host import resources
        p = resources.pinmap_file(path)  # a file, or a shipped pin map's name
    if not p.is_file():
        raise SimError("the pin map %s does not exist" % p)
    try:
        pinmap = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SimError("the pin map %s cannot be read: %s" % (p, exc))
    if not isinstance(pinmap, dict) or "pixel_order" not in pinmap:
        raise SimError("%s is not a pin map (no pixel_order)" % p)
    return pinmap


def parse_key(name):
    """Key index of a key name: a1..e5, Sa..Se, Na..Ne, W1..W5, E1..E5, cS cW cN cE.

    The exact name wins; otherwise capitals do not matter when only one key fits ("sc" is
    Sc, "cs" is cS; "e1" is the cell and "E1" the edge). KeyError when no key fits."""
    try:
        return layout.key_index(name)
    except KeyError:
        pass
    fits = [k for k, n in enumerate(layout.KEY_NAMES) if n.lower() == name.lower()]
    if len(fits) == 1:
        return fits[0]
    raise KeyError(name)


def frame_hex(frame):
    """A frame (147 bytes, or 49 RGB triples) as 49 hex triples separated by spaces."""
    data = bytes(frame) if not isinstance(frame[0], (tuple, list)) else \
        bytes(c for rgb in frame for c in rgb)
    return " ".join(data[i:i + 3].hex() for i in range(0, len(data), 3))


# ---------------------------------------------------------------- the board

class VirtualBoard:
    """The firmware's App with simulated hardware, a save folder and the pty link.

    With `flash` (a vora_host.virtual.flash.SimFlash) the board boots from it at every
    power-up and reset (vora_host.virtual.machine): what runs is what is installed there,
    and its REPL serves mpremote; without, the repository's firmware runs at once."""

    def __init__(self, save_dir, pinmap, port, seed=None, ghosting=False, flash=None,
                 confirm_ms=None):
        self.pinmap = pinmap
        self.port = port
        self.save_dir = Path(save_dir)
        self.hw = SimHardware(pinmap, ghosting=ghosting)
        self.bytes_out = 0
        self.seed_fn = (lambda: seed) if seed is not None else None
        self.store = self.link = self.app = None  # set at every boot by the machine
        self.pacer = None  # ... and the pace of the App's loop (vora_host.virtual.pace)
        self.machine = SimMachine(self, flash, confirm_ms)
        self.machine.power_on()
        self._down = [0] * layout.KEYS  # how many presses hold each switch closed
        # In terminal mode the PC's game names the keys (vora play GAME): a callable
        # giving (49 names, 49 marks), or None to keep Vora's.
        self.terminal_keys = None
        # ... and the game itself (vora_host.play.board_session.BoardGameCompanion): typed moves,
        # help, the turn, the legend.
        self.terminal_companion = None
        # `?` on the screen: Vora's step help beside the board (a game the PC runs keeps
        # its own, companion.help_shown), and the page of it shown.
        self.help_shown = False
        self.help_page = 0
        self.screen_on = False  # a Screen draws this board (`help` shows, not prints)

    @property
    def ui(self):
        if self.app is None:  # a board with no firmware on its flash, or in safe mode
            raise ValueError("no game runs on the board: %s" % self.machine.status())
        return self.app.ui

    def game_on(self):
        """True while the firmware runs (not the REPL of a bare board or of safe mode)."""
        return self.app is not None and self.machine.state == "app"

    def _link_write(self, data):
        self.bytes_out += len(data)
        self.port.write(data)

    def terminal_mode(self):
        """True while the PC drives the keys and lights (no app: the REPL has the board)."""
        return self.link is not None and bool(self.link.mode)

    def pc_game(self):
        """The game the PC runs on this board (`vora play GAME` beside it), from the
        moment it is attached, or None (Vora, the board's own game). The screen's help,
        commands and key names are that game's at once: the PC's MODE frame puts the
        board in terminal mode only when it has crossed the serial line, and a `?` typed
        in between must not open Vora's help (tests/test_board_help_keys.py)."""
        game = self.terminal_companion
        return game if game is not None and getattr(game, "game", None) is not None else None

    def shows_pc_game(self):
        """True while the screen names the keys as the PC's game does: terminal mode, or
        a game the PC runs attached (its MODE on the way)."""
        return self.terminal_mode() or self.pc_game() is not None

    def key_names(self):
        """The keys' names: Vora's (a1..e5, Sa, cS...), or those of the game the PC runs
        on the board (a1..g7 over the whole 7x7)."""
        named = self._pc_keys()
        return tuple(named[0]) if named else layout.KEY_NAMES

    def _pc_keys(self):
        # (names, marks) from the game the PC runs, while the board shows it; None else.
        if self.shows_pc_game() and self.terminal_keys:
            return self.terminal_keys() or None
        return None

    def parse_key(self, name):
        """Key index of a key name as the keys are named now (key_names()); KeyError."""
        names = self.key_names()
        if names is not layout.KEY_NAMES and name in names:
            return names.index(name)
        return parse_key(name)

    def receive(self, data):
        """Bytes from the serial program: to the firmware's link, or to the REPL."""
        self.machine.receive(data)

    def link_status(self):
        """One line about the link for the screen."""
        link = self.link
        if self.machine.state != "app":
            return "serial: the MicroPython REPL (mpremote connect %s)" % self.port.path
        stats = link.session.stats()
        if not link.connected:
            return "link: waiting for a host's HELLO"
        mode = "terminal mode (the PC drives the pixels)" if link.mode else "standalone"
        return "link: host connected, %s; frames out %d, resent %d, bad in %d" % (
            mode, stats["frames_sent"], stats["frames_resent"],
            sum(v for k, v in stats.items() if k.startswith("bad_")))

    def nudge(self):
        """Something from the PC reached the firmware (a switch, bytes, a typed move): its
        loop runs at the board's own pace again at once (vora_host.virtual.pace)."""
        if self.pacer is not None:
            self.pacer.nudge()

    def key_down(self, k):
        self._down[k] += 1
        self.hw.press(k)
        self.nudge()

    def key_up(self, k):
        if self._down[k] > 0:
            self._down[k] -= 1
        if self._down[k] == 0:
            self.hw.release(k)
        self.nudge()

    def set_switch(self, k, closed):
        """`down`/`up`: close or open a switch outright."""
        self._down[k] = 1 if closed else 0
        if closed:
            self.hw.press(k)
        else:
            self.hw.release(k)
        self.nudge()

    async def _until(self, check, timeout=SETTLE_TIMEOUT_S):
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not check():
            if loop.time() > end:
                return False
            await asyncio.sleep(0.002)
        return True

    async def release_when_seen(self, k, hold_s):
        """Open key k (closed by key_down) after hold_s more, and not before the firmware
        has seen it closed: on a busy PC a click's press and release can come in one read
        while the board's scan waits its turn, and a switch opened before a scan ever saw
        it is no key event at all (the click was lost). Bounded as press() is."""
        try:
            if hold_s > 0:
                await asyncio.sleep(hold_s)
            # At once when no firmware reads the keys (the REPL, a board with none).
            await self._until(lambda: self.machine.state != "app" or self.app is None
                              or self.app.scanner.is_pressed(k))
        finally:
            self.key_up(k)

    async def press(self, k, ms=PRESS_MS):
        """Close key k for `ms` and open it; returns once the firmware has seen both
        (False if the debouncer never reported one of them, e.g. a ghost pattern)."""
        if self.machine.state != "app":  # no firmware reads the keys now
            self.key_down(k)
            await asyncio.sleep(ms / 1000)
            self.key_up(k)
            return False
        scanner = self.app.scanner
        self.key_down(k)
        try:
            await asyncio.sleep(ms / 1000)
            seen = await self._until(lambda: scanner.is_pressed(k))
        finally:
            self.key_up(k)
        if self._down[k] == 0:
            seen = await self._until(lambda: not scanner.is_pressed(k)) and seen
        return seen

    def frame(self):
        """The pixels as the chain got them: bytearray(147), R G B per key index."""
        return self.hw.frame_rgb()

    def position(self):
        if self.app is None:
            return "none"
        state = self.ui.state
        return "none" if state is None else state.position()

    def status(self):
        """One line about the game for the screen."""
        if self.machine.status() is not None:
            return self.machine.status()
        if self.shows_pc_game():
            return "The PC runs the game: the keys and lights are the PC's (terminal mode)"
        ui = self.ui
        st = ui.state
        if ui.mode == vora_ui.MODE_SETUP or st is None:
            seats = " ".join("%s%s" % (_SEAT_NAMES[s], " (board bot, %s)" % vora_ui.bot_level_name(
                ui.bot_level(s)) if s in ui.board_bots else "") for s in ui.chosen_seats)
            return "Setup: seats %s" % (seats or "none yet")
        if ui.mode == vora_ui.MODE_MENU:
            return "Menu (%s's): c2 back to the game, c3 take back, c4 end the game" % (
                _SEAT_NAMES.get(ui.menu_seat, "?"))
        if ui.mode == vora_ui.MODE_UNDO:
            return "Takeback asked: waiting for %s to agree (their corner)" % (
                ", ".join("%s (c%s)" % (_SEAT_NAMES[s], s) for s in ui.undo_wait))
        if ui.mode == vora_ui.MODE_OVER:
            w = st.winner()
            return "Game over: scores %s; %s" % (
                " ".join("%s %d" % (_SEAT_NAMES[st.seats[p]], sc)
                         for p, sc in enumerate(st.scores())),
                "a draw" if w is None else "%s wins" % _SEAT_NAMES[st.seats[w]])
        phase = {vora.PHASE_ACTION: "act", vora.PHASE_COLLECT: "collect",
                 vora.PHASE_BONUS: "take a bonus"}.get(st.phase, str(st.phase))
        seat = st.seats[st.active]
        who = self.seat_role(seat)
        text = "%s%s to %s (turn %d)" % (_SEAT_NAMES[seat], " (%s)" % who if who else "",
                                          phase, st.turn + 1)
        if ui.error:
            text += "  [%s]" % ui.error
        if ui.save_error:
            text += "  [%s]" % ui.save_error
        return text

    def seat_role(self, seat):
        """'board bot', 'greedy on the PC' or '' for a person."""
        ui = self.ui
        if seat in ui.board_bots:
            return "the board's bot, %s" % vora_ui.bot_level_name(ui.bot_level(seat))
        if seat in ui.host_bots:
            role = self._host_role(seat)
            return role if " " in role else role + " on the PC"
        return ""

    def _host_role(self, seat):
        names = self.host_bot_names
        return ((names() if callable(names) else names) or {}).get(seat, "bot")

    # seat -> bot kind (or a function giving it), from vora play; a phrase (with a space)
    # is shown as it is: a seat played elsewhere ("played at another computer")
    host_bot_names = None

    def detail(self):
        """A second line: the preview, the farm on view (and from whose seat it is laid
        out), or what was picked."""
        if self.shows_pc_game() or not self.game_on():
            return ""
        ui = self.ui
        st = ui.state
        if st is None or ui.mode not in (vora_ui.MODE_PLAY, vora_ui.MODE_OVER):
            return ""
        if ui.view_farm >= 0 and ui.view_cells is not None:
            viewer = st.active if ui.view_for != "peek" else ui.view_farm
            if ui.mode == vora_ui.MODE_OVER:
                viewer = ui.view_farm
            text = view.farm_seat_note(st.seats[ui.view_farm], st.seats[viewer],
                                       st.farms[ui.view_farm])
            if ui.view_for == "pick":
                text += "; press the cube to play"
            elif ui.view_for == "steal":
                text += "; press the cube to steal"
            return text
        if ui.auto_move is not None:
            return "playing %s in a moment" % ui.auto_move
        if ui.preview:
            return "preview: %s (c%s confirms)" % (ui.preview, st.seats[st.active])
        if ui.sel_type >= 0:
            return "%s picked: press a blinking edge%s" % (
                vora.TYPES[ui.sel_type], " or animal" if ui.sel_type == vora.CROW else "")
        if ui.sel_cell >= 0:
            return "%s on %s picked: press a blinking cube to swap with" % (
                vora.TYPES[st.grid[ui.sel_cell]], vora.CELL_NAMES[ui.sel_cell])
        if st.phase == vora.PHASE_COLLECT:
            return "lines to collect (they blink): " + view.collect_text(st)
        return ""

    def help_line(self):
        """The footer: the keys that play now, for the seat whose turn it is."""
        if self.shows_pc_game():
            return ("Press the keys the PC's screen names (click, or type a key name a1..g7 "
                    "and Enter) | q quits")
        if not self.game_on():
            return "No game runs: the keys do nothing until the firmware does | reset | q quits"
        ui = self.ui
        st = ui.state
        if ui.mode == vora_ui.MODE_SETUP or st is None:
            return ("Setup: press corners (cS cW cN cE) to choose seats; hold one 2 s and "
                    "the board's bot plays it (normal; held again: hard, easy, a person); "
                    "c3 deals | q quits")
        if ui.mode == vora_ui.MODE_MENU:
            return "c2: back | c3: take back the last move | c4: end the game"
        if ui.mode == vora_ui.MODE_UNDO:
            return "Each asked corner agrees; any other key cancels the takeback"
        if ui.mode == vora_ui.MODE_OVER:
            return "c3 starts a new game; a corner shows that farm | q quits"
        seat = st.seats[st.active]
        return view.seat_help(seat, st.phase, self.seat_role(seat)) + \
            " | or type a move (push crow Sc) | q quits"

    def key_names_and_marks(self):
        """key_names() and key_marks() at once: the PC's game asked once for both (the
        screen draws them 25 times a second)."""
        if self.shows_pc_game():
            named = self._pc_keys()
            if named:
                return tuple(named[0]), list(named[1])
            return layout.KEY_NAMES, [""] * layout.KEYS
        return layout.KEY_NAMES, self.key_marks()

    def key_marks(self):
        """What each key shows besides its name: the cube's letter on a meadow cell (of
        the farm on view when there is one), the seat on a corner, the push direction on
        an edge. Empty in terminal mode (the PC's pixels mean what the PC says)."""
        marks = [""] * layout.KEYS
        if self.shows_pc_game():
            named = self._pc_keys()
            return list(named[1]) if named else marks
        if not self.game_on():
            return marks
        ui = self.ui
        st = ui.state
        for seat, k in layout.CORNER_OF_SEAT.items():
            if seat in ui.board_bots:
                marks[k] = seat + " bot"
            elif st is not None and seat in st.seats:
                marks[k] = _SEAT_NAMES[seat] if seat not in ui.host_bots else seat + (
                    " far" if " " in self._host_role(seat) else " bot")
            elif st is None and seat in ui.chosen_seats:
                marks[k] = _SEAT_NAMES[seat]
        if st is None or ui.mode == vora_ui.MODE_SETUP:
            return marks
        for k in range(layout.KEYS):
            if layout.is_edge(k):
                marks[k] = _ARROWS[layout.KEY_NAMES[k][0]]
        cells = ui.view_cells if ui.view_cells is not None else st.grid
        if ui.mode == vora_ui.MODE_OVER and ui.view_cells is None:
            return marks  # the scores scroll over the meadow
        for c in range(25):
            t = cells[c]
            marks[layout.meadow_key(c)] = vora.LETTERS[t] if t >= 0 else "."
        return marks

    def resumed_note(self):
        """Said at start when the board resumed a saved game ('' otherwise)."""
        if not self.game_on():
            return ""
        ui = self.ui
        if ui.state is None:
            return self.dropped_save_note()
        return ("Resumed the saved game (%s). A new one: hold your corner 2 s, then "
                "c4; or start with --fresh" % plural(ui.moves_played, "move"))


    def dropped_save_note(self):
        """Said at start when a save was there but not resumed (why), else ''."""
        if not self.game_on() or self.ui.state is not None:
            return ""
        error = self.ui.error
        if not error.startswith("save ignored: "):
            return ""
        return "The saved game was not resumed: %s. A new game starts." % (
            error[len("save ignored: "):])


_ARROWS = {"S": "^", "N": "v", "W": ">", "E": "<"}  # the way an edge key pushes
_SEAT_NAMES = {"S": "South", "W": "West", "N": "North", "E": "East"}
