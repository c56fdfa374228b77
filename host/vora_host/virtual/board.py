"""The virtual board (`vora sim`): the unchanged firmware on the PC, behind a real serial port.

What runs is the board's own application, `vora_fw.app.App`, on CPython's asyncio, with
the simulated hardware layer (`vora_fw.hal_sim.SimHardware`) in place of the key matrix and
the NeoPixels, the pin map of the reference build (hardware/pinmap-rp2-pico.json), the save
store in a folder of the PC, and the serial endpoint (`vora_fw.link.BoardLink`, the framed
protocol of docs/protocol.md) on a pseudo-terminal. Any serial program opens that pty like the board's USB port.

Three ways to press keys, all through the simulated switches (so every press goes through
the firmware's debouncer like a finger on the board):
- at a terminal: type a key name and Enter (`c3`, `Sc`, `cS`), `hold cS` (2.5 s: the
  menu), arrow keys and Space/Enter (the key under the cursor), or click a key with the
  mouse (held as long as the button is);
- commands, one per line, from stdin when the output is not a terminal (or --headless),
  or from a --script file:
      press KEY [MS]   close the switch for MS ms (default 80; longer if the firmware
                       has not seen it closed by then) and open it again
      KEY              the same as press KEY
      hold KEY [MS]    the same, default 2500 ms (a corner held opens the menu)
      down KEY / up KEY  close / open a switch and leave it so
      wait MS          let the board run for MS ms
      frame            the pixels as 49 hex RGB triples, key index order (k = y*7 + x,
                       y = 0 the south row), as the LED chain got them (brightness cap
                       and current cap applied)
      state            the game's position (vora notation), or `none` before a game
      commands         the commands (also `debug`; `help` too without a screen)
      help, ?          on the screen: what to do now, the step's rules, beside the board
      quit             stop the board
  Every command answers one line, `ok` or `error <why>`, after its data line if any
  (`frame`, `state`), and only once the board has seen the key released, so a script
  may read the state right after a press. Blank lines and lines starting with # are
  skipped. At the end of input the board keeps running: send `quit` or a signal.

The first line of standard output is the path of the serial device (e.g. /dev/pts/5),
written before anything else. The pseudo-terminal is new at each start, so the board also
keeps a stable name for it, as a USB board has: a symbolic link at
vora_host.link.ports.virtual_device_path() (/tmp/vora-<uid>/ttyVORA, or in
$XDG_RUNTIME_DIR; $VORA_SIM_DEVICE chooses another), pointed at the new pseudo-terminal at
every start and removed at the end (a second board running at the same time keeps a name
of its own, ttyVORA2, and says so). `vora mirror --port sim` opens that name.
"""

import asyncio
import errno
import json
import os
import shutil
import signal
import stat
import sys
import termios
from pathlib import Path

from shared_rules import vora
from vora_fw import layout, vora_ui
from vora_fw.clock import ticks_ms
from vora_fw.hal_sim import SimHardware
from vora_fw.store import Store
from vora_host import private_files
from vora_host.games.vora import view
from vora_host.virtual.savelock import SaveFolderBusy, SaveLock
from vora_host.virtual.flash import SimFlash
from vora_host.virtual.machine import SimMachine
from vora_host.words import plural

__all__ = ["SimError", "VirtualBoard", "PtyPort", "default_save_dir", "default_pinmap_path",
           "load_pinmap", "parse_key", "run", "PRESS_MS", "HOLD_MS", "PINMAP_NAME"]

PINMAP_NAME = "pinmap-rp2-pico.json"
PRESS_MS = 80  # a press: the switch stays closed this long (the firmware debounces 20 ms)
HOLD_MS = 2500  # `hold`: long enough for the menu (the firmware wants 2000 ms)
SETTLE_TIMEOUT_S = 2.0  # longest wait for the debouncer to report a change
REDRAW_S = 0.04  # the screen is looked at 25 times a second, redrawn only when it changed
OUT_LIMIT = 64 * 1024  # serial bytes kept for a host that does not read; older ones drop
RETRY_S = 0.2  # how often to look whether a serial program opened the port again

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


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


# ---------------------------------------------------------------- the serial port

class StableName:
    """A symbolic link at `link` to the pseudo-terminal `target`, kept while the board runs.

    Made atomically (a new link renamed over the old one), so a program opening the name
    gets the old device or the new one, never nothing. A running board holds a lock on
    LINK.lock: while another virtual board holds the name, this one takes a name of its
    own (LINK2, LINK3, ...: `taken` says so) rather than steal it; a link left by a board
    that was killed (its lock went with it) is simply replaced. The folder is created
    private (0700) when missing, and one that is not ours, or is itself a link, is refused:
    another user must not choose where the name points. remove() deletes the link only
    while it still points at our device."""

    OTHERS = 8  # names tried after the first one, while other virtual boards hold them

    def __init__(self, link, target):
        self.wanted = str(link)
        self.target = target
        self._lock = None
        folder = os.path.dirname(self.wanted) or "."
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise SimError("cannot make the folder %s for the stable device name: %s"
                           % (folder, exc.strerror or exc))
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise SimError("%s is not a folder of yours: the stable device name is not made "
                           "there (set VORA_SIM_DEVICE to another path)" % folder)
        for n in range(1, self.OTHERS + 2):
            name = self.wanted if n == 1 else "%s%d" % (self.wanted, n)
            if self._take(name):
                break
        else:
            raise SimError("%d other virtual boards hold the stable device names %s to %s%d"
                           % (self.OTHERS + 1, self.wanted, self.wanted, self.OTHERS + 1))
        self.link = name
        self.taken = name != self.wanted  # another board has the usual name
        tmp = "%s.%d.tmp" % (self.link, os.getpid())
        try:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            os.symlink(target, tmp)
            os.replace(tmp, self.link)
        except OSError as exc:
            self._release()
            raise SimError("cannot make the stable device name %s: %s"
                           % (self.link, exc.strerror or exc))

    def _take(self, name):
        # True when this board now holds `name` (the lock is kept open until remove()).
        import fcntl
        try:
            fd = os.open(name + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise SimError("cannot lock the stable device name %s: %s"
                           % (name, exc.strerror or exc))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._lock = fd
        return True

    def _release(self):
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def remove(self):
        try:
            if os.readlink(self.link) == self.target:
                os.unlink(self.link)
        except OSError:
            pass
        self._release()


class PtyPort:
    """The board's USB serial port: a pseudo-terminal whose slave side is the device path.

    The master stays open for the whole run. Nobody holds the slave open except a serial
    program: while none does, reading the master fails with EIO, so the port stops
    listening and looks again every RETRY_S. What the board writes while no program has
    the device open is kept here (up to OUT_LIMIT bytes, the oldest dropped first) and
    sent once one has opened it and settled: not into the pty at once, because serial
    programs flush a device's pending input when they open it (pyserial does), and the
    board's first line would be lost.
    """

    def __init__(self):
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        self.stable_path = None  # the stable name pointing here, once made (run())
        self.stable_note = ""  # why it is not the usual one (another board has that)
        # Raw mode so bytes pass unchanged (no echo, no CR/LF translation, no signals).
        # The settings belong to the pty, so they stay after this fd is closed.
        attrs = termios.tcgetattr(slave)
        attrs[0] &= ~(termios.IGNBRK | termios.BRKINT | termios.PARMRK | termios.ISTRIP
                      | termios.INLCR | termios.IGNCR | termios.ICRNL | termios.IXON)
        attrs[1] &= ~termios.OPOST
        attrs[2] &= ~(termios.CSIZE | termios.PARENB)
        attrs[2] |= termios.CS8
        attrs[3] &= ~(termios.ECHO | termios.ECHONL | termios.ICANON | termios.ISIG
                      | termios.IEXTEN)
        attrs[6][termios.VMIN] = 1
        attrs[6][termios.VTIME] = 0
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        os.close(slave)
        os.set_blocking(self.master, False)
        self._out = bytearray()
        self.bytes_sent = 0
        self.bytes_received = 0
        self.bytes_dropped = 0
        self.connected = False  # a serial program has the device open (as far as seen)
        self.connections = 0
        self.on_data = None
        self._loop = None
        self._reading = False
        self._writing = False
        self._closed = False

    def start(self, loop, on_data):
        """Serve the port on `loop`; on_data(bytes) gets what serial programs send."""
        self._loop = loop
        self.on_data = on_data
        self._watch()

    def write(self, data):
        """Queue bytes for the serial program; never blocks."""
        if self._closed:
            return
        self._out += data
        if len(self._out) > OUT_LIMIT:
            extra = len(self._out) - OUT_LIMIT
            del self._out[:extra]
            self.bytes_dropped += extra
        self._flush()

    def _flush(self):
        while self._out and self.connected:
            try:
                n = os.write(self.master, self._out)
            except (BlockingIOError, InterruptedError):
                break  # the program does not read: wait until the pty has room
            except OSError:
                break
            self.bytes_sent += n
            del self._out[:n]
        if self._loop is None or self._closed:
            return
        want = bool(self._out) and self.connected
        if want and not self._writing:
            self._loop.add_writer(self.master, self._flush)
            self._writing = True
        elif not want and self._writing:
            self._loop.remove_writer(self.master)
            self._writing = False

    def _watch(self):
        if self._closed or self._loop is None:
            return
        if not self._reading:
            self._loop.add_reader(self.master, self._readable)
            self._reading = True
            # Still listening a moment later (no EIO): a program holds the device open,
            # and has had the time to flush its input.
            self._loop.call_later(0.05, self._seen)

    def _seen(self):
        if self._reading and not self._closed and not self.connected:
            self.connected = True
            self.connections += 1
            self._flush()

    def _readable(self):
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            data = b""
        if not data:
            # EIO: no serial program has the device open. Stop listening (the master
            # would report itself readable all the time) and look again later.
            self.connected = False
            self._loop.remove_reader(self.master)
            self._reading = False
            self._flush()  # stops waiting to write
            self._loop.call_later(RETRY_S, self._watch)
            return
        if not self.connected:
            self._seen()
        self.bytes_received += len(data)
        if self.on_data is not None:
            self.on_data(data)

    def close(self):
        if self._closed:
            return
        self._closed = True
        if self._loop is not None and not self._loop.is_closed():
            if self._reading:
                self._loop.remove_reader(self.master)
            if self._writing:
                self._loop.remove_writer(self.master)
        os.close(self.master)


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
        self.machine = SimMachine(self, flash, confirm_ms)
        self.machine.power_on()
        self._down = [0] * layout.KEYS  # how many presses hold each switch closed
        # In terminal mode the PC's game names the keys (vora play GAME): a callable
        # giving (49 names, 49 marks), or None to keep Vora's.
        self.terminal_keys = None
        # ... and the game itself (vora_host.play.board.BoardGameCompanion): typed moves,
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

    def key_names(self):
        """The keys' names: Vora's (a1..e5, Sa, cS...), or in terminal mode the names of
        the game the PC runs (a1..g7 over the whole 7x7)."""
        if self.terminal_mode() and self.terminal_keys:
            named = self.terminal_keys()
            if named:
                return tuple(named[0])
        return layout.KEY_NAMES

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

    # ---- switches

    def key_down(self, k):
        self._down[k] += 1
        self.hw.press(k)

    def key_up(self, k):
        if self._down[k] > 0:
            self._down[k] -= 1
        if self._down[k] == 0:
            self.hw.release(k)

    def set_switch(self, k, closed):
        """`down`/`up`: close or open a switch outright."""
        self._down[k] = 1 if closed else 0
        if closed:
            self.hw.press(k)
        else:
            self.hw.release(k)

    async def _until(self, check, timeout=SETTLE_TIMEOUT_S):
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not check():
            if loop.time() > end:
                return False
            await asyncio.sleep(0.002)
        return True

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

    # ---- what the board shows

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
        if self.terminal_mode():
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
            names = self.host_bot_names
            return ((names() if callable(names) else names) or {}).get(seat, "bot") + \
                " on the PC"
        return ""

    host_bot_names = None  # seat -> bot kind (or a function giving it), from vora play

    def detail(self):
        """A second line: the preview, the farm on view (and from whose seat it is laid
        out), or what was picked."""
        if self.terminal_mode() or not self.game_on():
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
        if self.terminal_mode():
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

    def key_marks(self):
        """What each key shows besides its name: the cube's letter on a meadow cell (of
        the farm on view when there is one), the seat on a corner, the push direction on
        an edge. Empty in terminal mode (the PC's pixels mean what the PC says)."""
        marks = [""] * layout.KEYS
        if self.terminal_mode():
            named = self.terminal_keys() if self.terminal_keys else None
            return list(named[1]) if named else marks
        if not self.game_on():
            return marks
        ui = self.ui
        st = ui.state
        for seat, k in layout.CORNER_OF_SEAT.items():
            if seat in ui.board_bots:
                marks[k] = seat + " bot"
            elif st is not None and seat in st.seats:
                marks[k] = _SEAT_NAMES[seat] if seat not in ui.host_bots else seat + " bot"
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


# ---------------------------------------------------------------- commands

HELP = ("commands: KEY | press KEY [ms] | hold KEY [ms] | down KEY | up KEY | MOVE | undo | "
        "wait ms | frame | state | reset | help | quit   (keys: a1..e5, Sa..Se Na..Ne W1..W5 E1..E5, "
        "cS cW cN cE; a MOVE in notation, e.g. push crow Sc)")


def commands_help(board):
    """The board's commands (`commands`, or `help` without a screen), naming the keys as
    they are named now: Vora's, or in terminal mode those of the game the PC runs."""
    game = board.terminal_companion if board.terminal_mode() else None
    if game is None or game.game is None:
        return HELP
    state = game.state
    moves = state.legal_moves() if not state.is_over() else []
    title = game.game.view.rules.TITLE
    return ("%s: the rules and the keys of this step are its help (? on the board's "
            "screen); commands: KEY | press KEY [ms] | hold KEY [ms] | down KEY | up KEY | "
            "MOVE | undo | wait ms | frame | state | reset | help | quit   (keys: a1..g7, "
            "the whole 7x7 as %s names them; a MOVE in its notation%s)" % (
                title, title, ", e.g. %s" % moves[0] if moves else ""))


def vora_help_markup(board):
    """`?` on Vora's board screen: what to do now (the step's rules, on the board and
    typed) first, then the game in a few lines; rich markup."""
    from vora_host.games import host_game
    from vora_host.games.vora.ui import SUMMARY
    from vora_host.play.board import STEP_NOW
    if not board.game_on():
        return ("[bold]Now[/bold]: no game runs (%s): the keys do nothing until the "
                "firmware does; `reset` restarts the board." % board.machine.status())
    ui = board.ui
    st = ui.state
    now = None
    if ui.mode == vora_ui.MODE_SETUP or st is None:
        now = ("[bold]Now (setup)[/bold]: choose the seats. Press the corner (cS cW cN cE) "
               "of each player at the table; hold one 2 s and the board's bot plays it "
               "(normal; held again: hard, easy, a person). c3 deals.")
    elif ui.mode == vora_ui.MODE_MENU:
        now = ("[bold]Now (menu)[/bold]: c2 goes back to the game, c3 takes back the last "
               "move, c4 ends the game.")
    elif ui.mode == vora_ui.MODE_UNDO:
        now = ("[bold]Now (takeback)[/bold]: each corner asked agrees by pressing it; any "
               "other key cancels the takeback.")
    elif ui.mode == vora_ui.MODE_OVER:
        now = ("[bold]Now (over)[/bold]: the game is over. c3 starts a new game; a corner "
               "shows that farm.")
    if now is not None:
        return now + "\n" + SUMMARY
    markup = host_game("vora").VIEW.step_help(st)
    if STEP_NOW in markup:  # what to do now first: the rows beside the board run out
        summary, step = markup.split(STEP_NOW, 1)
        markup = STEP_NOW.lstrip("\n") + step + "\n" + summary
    return markup


def help_pages(markup, title, width, height):
    """The help as pages of at most `height` lines of `width` columns (ANSI), each after a
    title line; a page that is not the last says how to see the next."""
    from rich.text import Text
    from vora_host.link.mirror import ansi_lines
    lines = ansi_lines(Text.from_markup(markup), width)
    head = ansi_lines(Text("%s: help (Esc or Enter: back to the game)" % title,
                           style="bold"), width)
    room = max(1, height - len(head))
    if len(lines) > room:
        room = max(1, room - 1)  # a row for "page 1 of 3"
    pages = [lines[i:i + room] for i in range(0, len(lines), room)] or [[]]
    out = []
    for n, page in enumerate(pages, 1):
        more = [] if len(pages) == 1 else ansi_lines(Text(
            "? again: more (%d/%d)" % (n, len(pages)), style="dim"), width)[:1]
        out.append((head + page + more)[:max(1, height)])
    return out
MOVE_WORDS = ("push", "pig", "wolf", "crow", "mole", "duck", "ladybug", "water", "take",
              "pass", "extra", "steal")
SHOW_LIMIT = 60  # characters of a typed line repeated in an answer


class Quit(Exception):
    pass


def _ms(text, what="a time in ms"):
    try:
        n = int(text)
    except ValueError:
        raise ValueError("%r is not %s" % (text, what))
    if not 0 <= n <= 600000:
        raise ValueError("%d ms is out of range (0 to 600000)" % n)
    return n


def _shown(text):
    # A typed line repeated in an answer: cut, so a pasted page does not flood the screen.
    return text if len(text) <= SHOW_LIMIT else "%s... (%d characters)" % (
        text[:SHOW_LIMIT], len(text))


def refusal(board):
    """The board's last refusal in words."""
    ui = board.ui
    k = ui.refused_key
    name = layout.KEY_NAMES[k] if 0 <= k < layout.KEYS else None
    text = view.refusal_text(ui.refused_reason, name, ui.refused_detail)
    if ui.refused_reason == vora_ui.R_BUSY:  # a position asked for over the saved game
        text += "; or start with --fresh (the saved game is then forgotten)"
    return text


async def _press_and_say(board, k, ms, name, emit):
    before = board.ui.refusals
    seen = await board.press(k, ms)
    if not seen:
        emit("error the firmware did not see %s change" % name)
        return
    if board.ui.refusals != before:
        emit("refused " + refusal(board))
    emit("ok")


async def _typed_move(board, line, emit):
    # A move in notation, as the rules write it or with other capitals ("push crow sc").
    ui = board.ui
    text = " ".join(line.split())
    move = text
    for m in ui.legal if ui.state is not None else ():
        if m.lower() == text.lower():
            move = m
            break
    if not move.isascii() or not move.isprintable():
        emit("error %r is not a move in notation" % _shown(text))
        return
    if ui.enter_move(move, ticks_ms()):
        emit("error " + refusal(board))
        return
    await board._until(lambda: ui.auto_move is None, timeout=vora_ui.AUTO_MS / 1000 + 2)
    emit("ok")


def _typed_game_move(board, line, emit):
    """A move of the game the PC runs, typed in its notation (terminal mode): played at
    once, or refused with the reason. False when the line is not such a move (a key
    name of the game is a key)."""
    game = board.terminal_companion if board.terminal_mode() else None
    if game is None:
        return False
    if len(line.split()) == 1:
        names = board.key_names()
        if line.strip() in names or line.strip().lower() in names:
            return False  # a key of the game: pressed
    played, text = game.typed(line, ticks_ms())
    if played:
        emit("ok")
    else:
        emit("error " + text)
    return True


async def run_command(board, line, emit):
    """Run one command line; emit(text) gets the answer lines. Raises Quit for quit."""
    words = line.split()
    if not words or words[0].startswith("#"):
        return
    verb = words[0].lower()
    args = words[1:]
    try:
        if verb in ("quit", "exit", "q"):
            emit("ok")
            raise Quit()
        if verb in ("press", "hold"):
            if not 1 <= len(args) <= 2:
                raise ValueError("usage: %s KEY [ms]" % verb)
            k = _key(args[0], board)
            ms = _ms(args[1]) if len(args) > 1 else (PRESS_MS if verb == "press" else HOLD_MS)
            await _press_and_say(board, k, ms, args[0], emit)
        elif verb in ("down", "up"):
            if len(args) != 1:
                raise ValueError("usage: %s KEY" % verb)
            board.set_switch(_key(args[0], board), verb == "down")
            emit("ok")
        elif verb == "wait":
            if len(args) != 1:
                raise ValueError("usage: wait ms")
            await asyncio.sleep(_ms(args[0]) / 1000)
            emit("ok")
        elif verb == "frame":
            emit(frame_hex(board.frame()))
            emit("ok")
        elif verb == "state":
            emit(board.position())
            emit("ok")
        elif verb == "reset":
            board.machine.request_reset()  # the board restarts: boot path, game or REPL
            emit("ok")
        elif verb in ("commands", "debug") or verb in ("help", "?") and not board.screen_on:
            emit(commands_help(board))
            emit("ok")
        elif verb in ("help", "?"):
            # On the screen: what to do now and the step's rules, beside the board, kept
            # until Esc, Enter or a move (the board's commands are `commands`).
            game = board.terminal_companion if board.terminal_mode() else None
            if game is not None:
                game.help_shown = True
                title = game.game.view.rules.TITLE
            else:
                board.help_shown = True
                title = "Vora"
            emit("%s: what to do now is beside the board (Esc or Enter: back to the game); "
                 "'commands' lists the board's commands" % title)
            emit("ok")
        elif verb in ("undo", "takeback"):
            # From the PC: every person at the board then agrees with their corner.
            if board.ui.request_takeback("", ticks_ms()):
                emit("error " + refusal(board))
            else:
                emit("ok")
        elif _typed_game_move(board, line, emit):
            pass
        elif verb in MOVE_WORDS:
            await _typed_move(board, line, emit)
        elif len(words) == 1:
            try:
                k = board.parse_key(words[0])
            except KeyError:
                raise ValueError("%r is neither a command, a move nor a key (help lists "
                                 "them)" % _shown(words[0]))
            await _press_and_say(board, k, PRESS_MS, words[0], emit)
        else:
            raise ValueError("unknown command %r (help lists them)" % _shown(words[0]))
    except ValueError as exc:
        emit("error %s" % exc)


def _key(name, board=None):
    try:
        return board.parse_key(name) if board is not None else parse_key(name)
    except KeyError:
        raise ValueError("no key is called %r (a1..e5, Sa..Se, Na..Ne, W1..W5, E1..E5, "
                         "cS cW cN cE)" % name)


# ---------------------------------------------------------------- the screen

CELL_W = 6  # characters per key, plus one between keys
LEFT = 3  # first column of the board on the screen
TOP = 3  # first row of the board (row 1: the title, row 2: the cube legend)
SIDE_COL = LEFT + 7 * (CELL_W + 1) + 2  # first column of the mirror beside the board
CAP_RGB = (14, 14, 16)  # an unlit key (darker than the dimmest light, 24)
CAP_TEXT = (140, 140, 140)


def _sgr_rgb(rgb, bg):
    return "\x1b[%d;2;%d;%d;%dm" % (48 if bg else 38, rgb[0], rgb[1], rgb[2])


def _clip(text, width):
    """`text` cut to `width` visible characters (SGR sequences kept, not counted): a line
    that wrapped would scroll the whole screen."""
    out = []
    seen = 0
    i = 0
    while i < len(text):
        if text[i] == "\x1b":
            j = text.find("m", i)
            if j < 0:
                break
            out.append(text[i:j + 1])
            i = j + 1
            continue
        if seen >= width:
            i += 1
            continue
        out.append(text[i])
        seen += 1
        i += 1
    return "".join(out)


def _label_colour(rgb):
    lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    return (0, 0, 0) if lum > 110 else (235, 235, 235)


SIDE_FULL = 40  # columns beside the board for the whole mirror
SIDE_COMPACT = 22  # ... for its compact form (80 columns give 26)
BOTTOM = 7  # lines under the board: status, detail, link, entry, message, help


def _wrap(text, width):
    """Plain text folded at spaces into lines of at most `width` characters."""
    lines = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):
            while len(word) > width:
                if line:
                    lines.append(line)
                    line = ""
                lines.append(word[:width])
                word = word[width:]
            if not line:
                line = word
            elif len(line) + 1 + len(word) <= width:
                line += " " + word
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


class Screen:
    """The 7x7 board in true colour, each key with its name and what it holds (a cube's
    letter, a seat, an edge's push direction), the cube legend, the PC's mirror beside it
    (whole or compact, as the width allows), and status, message and help lines drawn with
    ANSI sequences on the alternate screen; only what changed is redrawn."""

    def __init__(self, board, out=None, companion=None):
        self.board = board
        self.out = out or sys.stdout
        self.companion = companion
        cap = board.pinmap.get("brightness_cap", 255) or 255
        self.scale = 255 / max(1, min(255, cap))  # show LEDs at full scale, not capped
        self.cursor = layout.key_index("c3")
        self.entry = ""
        # A game the PC runs says its own resume, never the board's saved Vora game.
        resumed = getattr(companion, "resumed_note", board.resumed_note)
        taken = getattr(board.port, "stable_note", "")
        notes = [n for n in (taken[:1].upper() + taken[1:], resumed()) if n]
        self.message = ". ".join(notes) or (
            "Type a key name (c3) or a move (push crow Sc) and Enter, or click a key")
        self.first_message = self.message
        self.first_is_a_note = bool(notes)  # a resume said: it stays until something else is
        self.cell_h = 3
        self.rows = self.cols = 0
        self._cells = [None] * layout.KEYS
        self._lines = {}
        self.full = True
        self.frames_drawn = 0
        self._refusals = board.ui.refusals if board.game_on() else 0
        self.side_mode = "full"
        board.screen_on = True  # `help` shows the step's rules here rather than printing

    # geometry
    def layout_for_size(self):
        try:  # the terminal's own size (COLUMNS and LINES may be stale)
            size = os.get_terminal_size(self.out.fileno())
        except (AttributeError, ValueError, OSError):
            size = shutil.get_terminal_size((80, 24))
        self.cols, self.rows = size.columns, size.lines
        self.cell_h = 3 if self.rows >= TOP + 21 + BOTTOM else \
            2 if self.rows >= TOP + 14 + BOTTOM else 1
        side = self.cols - SIDE_COL
        self.side_mode = "full" if side >= SIDE_FULL else \
            "compact" if side >= SIDE_COMPACT else "none"

    def key_at(self, col, row):
        """The key at screen position (1-based column and row), or -1."""
        x, rem = divmod(col - LEFT, CELL_W + 1)
        if col < LEFT or rem >= CELL_W or not 0 <= x < 7:
            return -1
        r = row - TOP
        if r < 0:
            return -1
        y = 6 - r // self.cell_h
        if not 0 <= y < 7:
            return -1
        return y * 7 + x

    def vora_help(self):
        """True while `?` shows Vora's step help (not in a game the PC runs)."""
        return self.board.help_shown and self._game() is None

    def help_open(self):
        game = self._game()
        return game.help_shown if game is not None else self.board.help_shown

    def show_help(self):
        """`?`: the step's help beside the board; shown already, its next page."""
        game = self._game()
        if game is not None:
            if game.help_shown and hasattr(game, "page_side"):
                game.page_side()
            game.help_shown = True
            return
        if self.board.help_shown:
            self.board.help_page += 1
        else:
            self.board.help_shown = True
            self.board.help_page = 0

    def hide_help(self):
        game = self._game()
        if game is not None:
            game.help_shown = False
        self.board.help_shown = False

    def _game(self):
        """The game the PC runs on this board (terminal mode), or None for Vora."""
        game = getattr(self.companion, "game", None) if self.board.terminal_mode() else None
        return self.companion if game is not None and hasattr(self.companion, "turn_line") \
            else None

    def _bottom_lines(self):
        b = self.board
        width = max(20, self.cols - 1)
        game = self._game()
        parts = [("\x1b[1m", b.status() if game is None else game.turn_line()),
                 ("", b.detail()), ("\x1b[2m", b.link_status())]
        if self.companion is not None and self.side_mode == "none":
            parts[2] = ("\x1b[33m", "PC mirror: widen the terminal to %d columns" % (
                SIDE_COL + SIDE_COMPACT))
        entry = "> " + self.entry + "\x1b[7m \x1b[0m"
        if game is not None:
            self._game_message(game)
        else:
            self._play_message()
        message = ("\x1b[31m" if " refused" in self.message or self.message.startswith(
            ("refused", "error")) else "", self.message)
        if self.vora_help() and self.side_mode == "none":
            # No room beside the board: what to do now, on the message line.
            from rich.text import Text
            now = Text.from_markup(vora_help_markup(b)).plain.split("\n")[0]
            message = ("", now + " (Esc: back)")
        help_part = ("\x1b[2m", b.help_line() if game is None else game.help_line())
        lines = []
        for style, text in parts:
            lines.append([style + line + "\x1b[0m" for line in _wrap(text, width) if line])
        lines.append([entry])
        lines.append([message[0] + line + "\x1b[0m" for line in _wrap(message[1], width)])
        lines.append([help_part[0] + line + "\x1b[0m" for line in _wrap(help_part[1], width)])
        # Too many for the room: the link line goes first (unless it asks for a wider
        # terminal), then the detail.
        flat = sum(len(x) for x in lines)
        if flat > BOTTOM and self.side_mode != "none":
            lines[2] = []
        if sum(len(x) for x in lines) > BOTTOM:
            lines[1] = []
        out = [line for group in lines for line in group][:BOTTOM]
        while len(out) < BOTTOM:
            out.append("")
        return out

    def _game_message(self, game):
        # The game's own hint instead of Vora's; a message typed for one player's eyes
        # goes when the board is handed over.
        viewer = game.game.viewer()
        if self.message == self.first_message and not self.first_is_a_note \
                or self._viewer_seen not in (viewer, self._NOBODY_YET):
            self.message = "Type a key name (d4) or a move and Enter, ? for help, or click a key"
            self.first_message = self.message
            self.first_is_a_note = False
        self._viewer_seen = viewer
        # A key the game refused: said on the message line too, where the key's own
        # line said "ok" (the board saw the key; the game then refused it).
        said = getattr(game, "events_said", 0)
        if said != self._events_seen:
            self._events_seen = said
            if game.last_what == "refused":
                self.message = "refused: " + game.last_event

    first_message = None
    first_is_a_note = False
    _side_drawn = False
    _play_said = 0

    def _play_message(self):
        # What vora play says of the board's game (the seats a resume gives back, a
        # refusal in words) on the message line: the mirror beside an 80-column board is
        # too narrow for it. A resume note said first stays with it.
        play = getattr(self.companion, "play", None)
        said = getattr(play, "said", 0)
        if said == self._play_said or not play.messages:
            return
        self._play_said = said
        text = play.messages[-1]
        if self.first_is_a_note and self.message == self.first_message:
            text = "%s. %s%s" % (self.message.rstrip("."), text[:1].upper(), text[1:])
        self.message = text
    _events_seen = 0
    _viewer_seen = _NOBODY_YET = object()  # no draw with the game on yet

    def _top_lines(self):
        b = self.board
        port = b.port
        title = "\x1b[1mVora Board\x1b[0m (virtual)  serial: \x1b[1m%s\x1b[0m%s  %s" % (
            port.path, " = %s" % port.stable_path if port.stable_path else "",
            "host connected" if port.connected else "no host")
        game = self._game()
        if game is not None:
            legend = game.legend_line(self.cols - 1)
        else:
            legend = _ansi(view.render_legend(sep="  " if self.cols > 76 else " "),
                           max(20, self.cols - 1))[0]
        return [_clip(title, self.cols - 1), _clip(legend, self.cols - 1)]

    def _refusal_seen(self):
        if not self.board.game_on():
            return
        ui = self.board.ui
        if ui.refusals != self._refusals:
            self._refusals = ui.refusals
            self.message = refusal(self.board)

    def draw(self, force=False):
        out = []
        if force or self.full:
            self.layout_for_size()
            out.append("\x1b[0m\x1b[2J")
            self._cells = [None] * layout.KEYS
            self._lines = {}
            self.full = False
        self._refusal_seen()
        frame = self.board.frame()
        closed = self.board.hw.closed
        names = self.board.key_names()
        marks = self.board.key_marks()
        for k in range(layout.KEYS):
            v = frame[k * 3:k * 3 + 3]
            if any(v):
                rgb = tuple(min(255, int(c * self.scale + 0.5)) for c in v)
                fg = _label_colour(rgb)
            else:
                rgb, fg = CAP_RGB, CAP_TEXT
            held = bool(closed >> k & 1)
            look = (rgb, fg, k == self.cursor, held, self.cell_h, marks[k], names[k])
            if self._cells[k] == look:
                continue
            self._cells[k] = look
            x, y = k % 7, k // 7
            col = LEFT + x * (CELL_W + 1)
            row0 = TOP + (6 - y) * self.cell_h
            name = ("[%s]" % names[k]) if k == self.cursor else names[k]
            mark = marks[k]
            if self.cell_h == 1:
                texts = [(name + " " + mark[:1]).strip() if len(mark) <= 1 else name]
            else:
                texts = [name, mark] + [""] * (self.cell_h - 2)
            style = _sgr_rgb(rgb, True) + _sgr_rgb(fg, False) + ("\x1b[1;4m" if held else "")
            for i in range(self.cell_h):
                text = texts[i][:CELL_W].center(CELL_W)
                bold = "\x1b[1m" if i == 1 and len(mark) == 1 else ""
                out.append("\x1b[%d;%dH%s%s%s\x1b[0m" % (row0 + i, col, style, bold, text))
        self._draw_side(out)
        rows = {1: None, 2: None}
        top = self._top_lines()
        for i, line in enumerate(top):
            rows[1 + i] = line
        base = TOP + 7 * self.cell_h
        for i, line in enumerate(self._bottom_lines()):
            rows[base + i] = _clip(line, self.cols - 1)
        for row, line in rows.items():
            if line is None or row > self.rows:
                continue  # a tiny terminal: the board first, what fits below it
            if self._lines.get(row) != line:
                self._lines[row] = line
                out.append("\x1b[%d;1H\x1b[2K%s" % (row, line))
        if out:
            self.out.write("".join(out))
            self.out.flush()
            self.frames_drawn += 1

    def _draw_side(self, out):
        # The companion's panel (vora play's mirror) right of the board: whole when it
        # fits, else compact; the bottom lines say how wide it wants when neither fits.
        if self.side_mode == "none" or (self.companion is None and not self.vora_help()
                                        and not self._side_drawn):
            return
        width = self.cols - SIDE_COL
        rows = 7 * self.cell_h
        if self.vora_help():  # `?`: Vora's step help in the mirror's place
            pages = help_pages(vora_help_markup(self.board), "Vora", width, rows)
            lines = pages[self.board.help_page % len(pages)]
        elif self.companion is None:
            lines = []  # the help closed: its rows cleared
        else:
            room = {"height": rows} if getattr(self.companion, "takes_height", False) else {}
            lines = self.companion.side_lines(width, compact=self.side_mode == "compact",
                                              **room)
        self._side_drawn = bool(lines)
        for i in range(rows):
            line = lines[i] if i < len(lines) else ""
            key = ("side", i)
            if self._lines.get(key) != line:
                self._lines[key] = line
                out.append("\x1b[%d;%dH\x1b[0K%s\x1b[0m" % (TOP + i, SIDE_COL,
                                                             _clip(line, width)))


def _ansi(renderable, width):
    import io
    from rich.console import Console
    buf = io.StringIO()
    Console(file=buf, force_terminal=True, color_system="truecolor", width=width).print(
        renderable)
    return buf.getvalue().rstrip("\n").split("\n")


class KeyboardInput:
    """Bytes from a terminal in raw mode: typed commands, arrows, Space, mouse clicks."""

    def __init__(self, screen, board, submit, quit):
        self.screen = screen
        self.board = board
        self.submit = submit  # submit(command line)
        self.quit = quit  # quit(status)
        self.pending = ""
        self._esc_timer = None
        self.mouse_key = -1
        self.mouse_at = 0.0
        self._after_help = False  # the last key was `?`: an Enter now belongs to it
        self._after_cr = False

    def feed(self, text):
        if self._esc_timer is not None:
            self._esc_timer.cancel()
            self._esc_timer = None
        buf = self.pending + text
        self.pending = ""
        i = 0
        while i < len(buf):
            ch = buf[i]
            if ch == "\x1b":
                n = self._escape(buf, i)
                if n is None:  # incomplete: wait a moment for the rest
                    self.pending = buf[i:]
                    loop = asyncio.get_running_loop()
                    self._esc_timer = loop.call_later(0.05, self._lone_escape)
                    return
                i = n
                continue
            self._char(ch)
            i += 1

    def _lone_escape(self):
        self._esc_timer = None
        rest = self.pending
        self.pending = ""
        if rest == "\x1b":
            self.screen.entry = ""
            self.screen.hide_help()
        # any other incomplete sequence is dropped

    def _escape(self, buf, i):
        """Handle the escape sequence at buf[i]; index after it, or None if incomplete."""
        if i + 1 >= len(buf):
            return None
        second = buf[i + 1]
        if second not in "[O":
            self.screen.entry = ""  # Escape followed by something else: Escape, then it
            self.screen.hide_help()
            return i + 1
        j = i + 2
        while j < len(buf) and not "\x40" <= buf[j] <= "\x7e":  # up to the final byte
            j += 1
        if j >= len(buf):
            return None
        seq = buf[i + 2:j + 1]
        if second == "[" and seq.startswith("<"):
            self._mouse(seq)
        elif seq in ("A", "B", "C", "D"):
            self._arrow(seq)
        return j + 1

    def _arrow(self, code):
        k = self.screen.cursor
        x, y = k % 7, k // 7
        dx, dy = {"A": (0, 1), "B": (0, -1), "C": (1, 0), "D": (-1, 0)}[code]
        x = min(6, max(0, x + dx))
        y = min(6, max(0, y + dy))
        self.screen.cursor = y * 7 + x

    def _mouse(self, seq):
        # SGR mouse: "<b;x;yM" on press, "<b;x;ym" on release
        try:
            b, x, y = (int(v) for v in seq[1:-1].split(";"))
        except ValueError:
            return
        if b & (32 | 64):  # motion or wheel
            return
        loop = asyncio.get_running_loop()
        if seq.endswith("M") and b & 3 == 0:
            k = self.screen.key_at(x, y)
            if k >= 0 and self.mouse_key < 0:
                self.screen.hide_help()  # a key pressed: back to the game
                self.mouse_key = k
                self.mouse_at = loop.time()
                self.screen.cursor = k
                self.board.key_down(k)
                self.screen.message = "mouse: %s" % self.board.key_names()[k]
        elif seq.endswith("m") and self.mouse_key >= 0:
            k = self.mouse_key
            self.mouse_key = -1
            # a quick click still keeps the switch closed long enough to be debounced
            left = PRESS_MS / 1000 - (loop.time() - self.mouse_at)
            if left > 0:
                loop.call_later(left, self.board.key_up, k)
            else:
                self.board.key_up(k)

    def _char(self, ch):
        s = self.screen
        game = s._game()
        after_help, self._after_help = self._after_help, False
        after_cr, self._after_cr = self._after_cr, ch == "\r"
        if ch == "\n" and after_cr:
            self._after_help = after_help
            return  # CR LF: one Enter
        if ch == "?" and not s.entry:
            # The step's help, kept until Esc, Enter or a move; `?` and Enter (a line, as
            # elsewhere) shows it all the same: that Enter does not close it.
            s.show_help()
            self._after_help = True
            return
        if s.help_open() and not s.entry and ch in ("\r", "\n", " "):
            if not (after_help and ch != " "):
                s.hide_help()  # back to the game, nothing pressed
            return
        if ch in ("\x03", "\x04"):  # Ctrl-C, Ctrl-D
            self.quit(EXIT_INTERRUPTED if ch == "\x03" else EXIT_OK)
        elif ch in ("\r", "\n"):
            line = s.entry.strip()
            s.entry = ""
            if line:
                self._run_typed(line)
            else:
                self.submit("press " + self.board.key_names()[s.cursor])
        elif ch == " " and not s.entry:
            self.submit("press " + self.board.key_names()[s.cursor])
        elif ch == "q" and not s.entry:
            self.quit(EXIT_OK)
        elif ch == "\t" and game is not None:
            game.page_side()  # the panel beside the board: its next page (play/panel.py)
        elif ch in ("\x7f", "\x08"):
            s.entry = s.entry[:-1]
        elif ch == "\x15":  # Ctrl-U
            s.entry = ""
        elif ch == "\x0c":  # Ctrl-L
            s.full = True
        elif ch.isprintable() and len(s.entry) < 40:
            s.entry += ch

    def _run_typed(self, line):
        words = line.split()
        if line.lower() not in ("help", "?"):
            self.screen.hide_help()
        # the cursor follows a key named on its own or after press/hold
        name = words[0] if len(words) == 1 else words[1] if words[0].lower() in (
            "press", "hold", "down", "up") else None
        if name is not None:
            try:
                self.screen.cursor = self.board.parse_key(name)
            except KeyError:
                pass
        self.submit(line)


# ---------------------------------------------------------------- running it

class _Terminal:
    """Raw keyboard input, alternate screen, hidden cursor and mouse reporting; undone by
    restore() whatever happens."""

    SCREEN_ON = "\x1b[?1049h\x1b[?25l"  # alternate screen, cursor hidden
    MOUSE_ON = "\x1b[?1000h\x1b[?1006h"  # button events, SGR coordinates
    MOUSE_OFF = "\x1b[?1006l\x1b[?1000l"
    SCREEN_OFF = "\x1b[0m\x1b[?25h\x1b[?1049l"

    def __init__(self, fd_in, out):
        self.fd = fd_in
        self.out = out
        self.saved = None

    def enter(self):
        if self.fd is not None:
            self.saved = termios.tcgetattr(self.fd)
            attrs = termios.tcgetattr(self.fd)
            attrs[0] &= ~(termios.IXON | termios.ICRNL | termios.INLCR)
            attrs[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN)
            attrs[6][termios.VMIN] = 1
            attrs[6][termios.VTIME] = 0
            termios.tcsetattr(self.fd, termios.TCSANOW, attrs)
        # Mouse reports only when this program reads the keyboard (else nobody would).
        self.out.write(self.SCREEN_ON + (self.MOUSE_ON if self.fd is not None else ""))
        self.out.flush()

    def restore(self):
        try:
            self.out.write(self.MOUSE_OFF + self.SCREEN_OFF)
            self.out.flush()
        except (OSError, ValueError):
            pass
        if self.saved is not None:
            try:
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)
            except termios.error:
                pass
            self.saved = None


def _read_script(path):
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SimError("cannot read the script %s: %s" % (path, exc.strerror or exc))
    except UnicodeDecodeError as exc:
        raise SimError("the script %s is not UTF-8 text: %s" % (path, exc))


def run(save_dir=None, fresh=False, seed=None, headless=False, script=None, pinmap_file=None,
        ghosting=False, stdin=None, stdout=None, stderr=None, companion=None, flash_dir=None,
        flash_size=None, on_fresh=None, romfs_size=0):
    """Run the virtual board until quit; returns the exit status.

    `flash_dir`: the board's simulated flash (boot from what is installed there; its save
    in flash_dir/save unless save_dir says otherwise); flash_size its capacity in bytes;
    romfs_size, bytes of a ROMFS partition beside it (0: none).

    `companion` (vora play's mirror) runs in the same event loop: companion.start(board)
    returns its tasks, and companion.side_lines(width) what to draw beside the board.
    `on_fresh(text)` is told the saved game `fresh` throws away (vora play abandons it in
    the game log)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    lock = SaveLock()
    try:
        pinmap = load_pinmap(pinmap_file)
        lines = _read_script(script) if script else []
        flash = None
        if romfs_size and flash_dir is None:
            raise SimError("--romfs-size needs --flash DIR: the partition is kept beside it")
        if flash_dir is not None:
            try:
                flash = SimFlash(flash_dir, romfs_size=romfs_size,
                                 **({"capacity": flash_size} if flash_size else {}))
            except OSError as exc:
                raise SimError("cannot use the flash folder %s: %s" % (flash_dir, exc.strerror or exc))
            except ValueError as exc:
                raise SimError(str(exc))
        folder = Path(save_dir) if save_dir else flash.save_dir if flash else default_save_dir()
        try:
            # Made 0700 like the rest of vora's data folder, which holds the game log
            # (vora_host.private_files); a folder that exists is left as it is.
            private_files.make_folder(folder)
            lock.acquire(folder)  # before --fresh: never wipe the game of a board still running
            if fresh:
                store = Store(str(folder))
                dropped = store.load()
                store.clear()
                if dropped and on_fresh is not None:
                    on_fresh(dropped)
        except OSError as exc:
            raise SimError("cannot use the save folder %s: %s" % (folder, exc.strerror or exc))
        except SaveFolderBusy as exc:
            raise SimError(str(exc))
    except SimError as exc:
        lock.release()
        stderr.write("vora sim: %s\n" % exc)
        stderr.flush()
        return EXIT_FAILED
    port = PtyPort()
    stable = None
    board = None
    try:
        from vora_host.link.ports import virtual_device_path
        try:  # the stable name first: whoever reads the first line finds it made
            stable = StableName(virtual_device_path(), port.path)
            port.stable_path = stable.link
            if stable.taken:
                port.stable_note = ("another virtual board runs as %s (--port sim); this one "
                                    "is %s (--port %s)" % (stable.wanted, stable.link,
                                                           stable.link))
                stderr.write("vora sim: %s\n" % port.stable_note)
                stderr.flush()
        except SimError as exc:
            stderr.write("vora sim: %s; use %s\n" % (exc, port.path))
            stderr.flush()
        # The very first line: where to connect.
        stdout.write(port.path + "\n")
        stdout.flush()
        board = VirtualBoard(folder, pinmap, port, seed=seed, ghosting=ghosting, flash=flash)
        if flash is not None and board.machine.repl_refusal is not None:
            # a simulated flash is for vora flash and mpremote, which need the REPL
            stderr.write("vora sim: %s\n" % board.machine.repl_refusal)
            stderr.flush()
        draw = not headless and _isatty(stdout)
        if not draw and board.dropped_save_note():  # the screen says it on its message line
            stderr.write("vora sim: %s\n" % board.dropped_save_note())
            stderr.flush()
        keyboard = draw and _isatty(stdin)
        return asyncio.run(_main(board, lines, draw, keyboard, stdin, stdout, stderr,
                                 companion))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        if stable is not None:
            stable.remove()
        if board is not None:
            board.machine.close()
        port.close()
        lock.release()


def _isatty(f):
    try:
        return f.isatty()
    except (AttributeError, ValueError):
        return False


def _fileno(f):
    try:
        return f.fileno()
    except (AttributeError, ValueError, OSError):
        return None


async def _main(board, script_lines, draw, keyboard, stdin, stdout, stderr, companion=None):
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def finish(status):
        if not done.done():
            done.set_result(status)

    def hung_up():
        # The terminal closed: as Ctrl-C (vora play saves its game), what is printed from
        # now on going nowhere (a write to the gone terminal would fail first).
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
        except OSError:
            pass
        finish(EXIT_INTERRUPTED)

    handlers = [(signal.SIGINT, finish, EXIT_INTERRUPTED), (signal.SIGTERM, finish, EXIT_OK)]
    if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN:  # nohup: kept running
        handlers.append((signal.SIGHUP, hung_up))
    for sig, handler, *status in handlers:
        try:
            loop.add_signal_handler(sig, handler, *status)
        except (ValueError, RuntimeError, NotImplementedError):
            pass

    screen = Screen(board, stdout, companion) if draw else None
    terminal = _Terminal(_fileno(stdin) if keyboard else None, stdout) if draw else None

    def emit(text):
        if screen is not None:  # answers go to the message line of the screen
            if text == "ok":
                if screen.message.startswith("> "):
                    screen.message += "  ok"
            elif text.startswith("refused "):
                screen._refusals = board.ui.refusals
                screen.message = text[len("refused "):]
            else:
                screen.message = text
            return
        try:
            stdout.write(text + "\n")
            stdout.flush()
        except (BrokenPipeError, ValueError):
            finish(EXIT_OK)

    commands = asyncio.Queue()

    async def do(line):
        if screen is not None and line.strip() and not line.strip().startswith("#"):
            screen.message = "> " + _shown(line.strip())
        # A game the PC runs takes its own commands first ('undo' is that game's, never
        # the board's hidden Vora game's).
        answer = getattr(companion, "command", lambda text: None)(line)
        if answer is not None:
            for text in answer:
                emit(text)
            return
        await run_command(board, line, emit)

    async def worker():
        for line in script_lines:
            await do(line)
        start_reading()
        while True:
            await do(await commands.get())

    stdin_fd = _fileno(stdin)
    reader = {"fd": None, "buf": b""}

    def on_stdin_lines():
        try:
            data = os.read(reader["fd"], 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(reader["fd"])
            reader["fd"] = None
            if reader["buf"]:
                commands.put_nowait(reader["buf"].decode("utf-8", "replace"))
                reader["buf"] = b""
            return  # end of input: the board keeps running until quit or a signal
        buf = reader["buf"] + data
        *lines, reader["buf"] = buf.split(b"\n")
        for line in lines:
            commands.put_nowait(line.decode("utf-8", "replace").rstrip("\r"))

    keys = KeyboardInput(screen, board, commands.put_nowait, finish) if keyboard else None

    def on_keyboard():
        try:
            data = os.read(stdin_fd, 1024)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(stdin_fd)
            return
        keys.feed(data.decode("utf-8", "replace"))

    def start_reading():
        # Command lines from stdin, once the script is done (the keyboard, when there is
        # one, is read from the start so that q works during a script too).
        if stdin_fd is None or keyboard:
            return
        try:
            loop.add_reader(stdin_fd, on_stdin_lines)
            reader["fd"] = stdin_fd
        except (PermissionError, OSError):
            # A regular file (epoll will not watch it): read it all now.
            try:
                text = stdin.read()
            except (OSError, ValueError):
                text = ""
            for line in text.splitlines():
                commands.put_nowait(line)

    async def redraw():
        while True:
            try:
                screen.draw()
            except OSError:  # EIO: the terminal closed, its SIGHUP may not be handled yet
                hung_up()
                return
            await asyncio.sleep(REDRAW_S)

    def on_resize():
        screen.full = True

    board.port.start(loop, board.receive)
    tasks = [asyncio.create_task(board.machine.run())]  # the firmware, or the REPL
    if companion is not None:
        tasks += companion.start(board)
    worker_task = asyncio.create_task(worker())
    tasks.append(worker_task)
    if keyboard:
        loop.add_reader(stdin_fd, on_keyboard)
    if screen is not None:
        terminal.enter()
        tasks.append(asyncio.create_task(redraw()))
        try:
            loop.add_signal_handler(signal.SIGWINCH, on_resize)
        except (ValueError, RuntimeError, NotImplementedError, AttributeError):
            pass
    status = EXIT_OK
    try:
        for t in tasks:
            t.add_done_callback(lambda t: _task_ended(t, finish))
        status = await done
    finally:
        if reader["fd"] is not None:
            loop.remove_reader(reader["fd"])
        if keyboard:
            loop.remove_reader(stdin_fd)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if terminal is not None:
            terminal.restore()
    crashed = [t for t in tasks if not t.cancelled() and t.exception() is not None
               and not isinstance(t.exception(), Quit)]
    if crashed:
        import traceback
        exc = crashed[0].exception()
        stderr.write("vora sim: the board stopped on an error:\n")
        stderr.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
        stderr.flush()
        return EXIT_FAILED
    return status


def _task_ended(task, finish):
    if task.cancelled():
        return
    exc = task.exception()
    if isinstance(exc, Quit):
        finish(EXIT_OK)
    elif exc is not None:
        finish(EXIT_FAILED)
