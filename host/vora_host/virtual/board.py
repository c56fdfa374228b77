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
      help             the commands
      quit             stop the board
  Every command answers one line, `ok` or `error <why>`, after its data line if any
  (`frame`, `state`), and only once the board has seen the key released, so a script
  may read the state right after a press. Blank lines and lines starting with # are
  skipped. At the end of input the board keeps running: send `quit` or a signal.

The first line of standard output is the path of the serial device (e.g. /dev/pts/5),
written before anything else.
"""

import asyncio
import errno
import json
import os
import shutil
import signal
import sys
import termios
from pathlib import Path

import vora_fw
from shared_rules import vora
from vora_fw import layout, vora_ui
from vora_fw.hal_sim import SimHardware
from vora_fw.store import Store
from vora_host.virtual.flash import SimFlash
from vora_host.virtual.machine import SimMachine

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
    """hardware/pinmap-rp2-pico.json of the repository the firmware package sits in."""
    return Path(vora_fw.__file__).resolve().parents[2] / "hardware" / PINMAP_NAME


def load_pinmap(path=None):
    """The pin map as a dict; SimError with a clear message when it is missing or broken."""
    p = Path(path) if path is not None else default_pinmap_path()
    if not p.is_file():
        if path is None:
            raise SimError(
                "the pin map %s is missing: the virtual board reads hardware/%s of the "
                "repository the firmware (%s) comes from; run it from a checkout of the "
                "repository or give one with --pinmap FILE"
                % (p, PINMAP_NAME, Path(vora_fw.__file__).resolve().parent))
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

    @property
    def ui(self):
        return self.app.ui

    def _link_write(self, data):
        self.bytes_out += len(data)
        self.port.write(data)

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
        ui = self.ui
        st = ui.state
        if ui.mode == vora_ui.MODE_SETUP or st is None:
            text = "setup: seats %s (press corners to change, c3 to deal)" % (
                ui.chosen_seats or "-")
        elif ui.mode == vora_ui.MODE_MENU:
            text = "menu: c2 back to the game, c4 ends it"
        elif ui.mode == vora_ui.MODE_OVER:
            w = st.winner()
            text = "game over: scores %s, %s" % (
                " ".join("%s %d" % (st.seats[p], s) for p, s in enumerate(st.scores())),
                "a draw" if w is None else "%s wins" % _SEAT_NAMES[st.seats[w]])
        else:
            phase = {vora.PHASE_ACTION: "act", vora.PHASE_COLLECT: "collect",
                     vora.PHASE_BONUS: "bonus"}.get(st.phase, str(st.phase))
            text = "%s to %s (turn %d)" % (_SEAT_NAMES[st.seats[st.active]], phase, st.turn + 1)
            if ui.preview:
                text += "; preview: %s (the corner confirms)" % ui.preview
            elif ui.view_for == "pick":
                text += "; the farm is on the meadow: press a cube"
            elif ui.view_for == "steal":
                text += "; a farm to steal from is on the meadow: press a cube"
            elif ui.view_for == "peek":
                text += "; showing %s's farm" % _SEAT_NAMES[st.seats[ui.view_farm]]
            elif ui.sel_type >= 0:
                text += "; %s picked: press an edge" % vora.TYPES[ui.sel_type]
            elif ui.sel_cell >= 0:
                text += "; %s picked: press the cube to swap with" % vora.CELL_NAMES[ui.sel_cell]
        if ui.error:
            text += "  [%s]" % ui.error
        return text


_SEAT_NAMES = {"S": "South", "W": "West", "N": "North", "E": "East"}


# ---------------------------------------------------------------- commands

HELP = ("commands: KEY | press KEY [ms] | hold KEY [ms] | down KEY | up KEY | wait ms | "
        "frame | state | reset | help | quit   (keys: a1..e5, Sa..Se Na..Ne W1..W5 E1..E5, "
        "cS cW cN cE)")


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
            k = _key(args[0])
            ms = _ms(args[1]) if len(args) > 1 else (PRESS_MS if verb == "press" else HOLD_MS)
            seen = await board.press(k, ms)
            emit("ok" if seen else "error the firmware did not see %s change" % args[0])
        elif verb in ("down", "up"):
            if len(args) != 1:
                raise ValueError("usage: %s KEY" % verb)
            board.set_switch(_key(args[0]), verb == "down")
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
        elif verb in ("help", "?"):
            emit(HELP)
            emit("ok")
        elif len(words) == 1:
            try:
                k = parse_key(words[0])
            except KeyError:
                raise ValueError("%r is neither a command nor a key (help lists them)"
                                 % words[0])
            seen = await board.press(k)
            emit("ok" if seen else "error the firmware did not see %s change" % words[0])
        else:
            raise ValueError("unknown command %r (help lists them)" % words[0])
    except ValueError as exc:
        emit("error %s" % exc)


def _key(name):
    try:
        return parse_key(name)
    except KeyError:
        raise ValueError("no key is called %r (a1..e5, Sa..Se, Na..Ne, W1..W5, E1..E5, "
                         "cS cW cN cE)" % name)


# ---------------------------------------------------------------- the screen

CELL_W = 6  # characters per key, plus one between keys
LEFT = 3  # first column of the board on the screen
TOP = 3  # first row of the board
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


class Screen:
    """The 7x7 board in true colour, the cursor, and a few status lines, drawn with ANSI
    sequences on the alternate screen; only what changed is redrawn."""

    def __init__(self, board, out=None, companion=None):
        self.board = board
        self.out = out or sys.stdout
        self.companion = companion
        cap = board.pinmap.get("brightness_cap", 255) or 255
        self.scale = 255 / max(1, min(255, cap))  # show LEDs at full scale, not capped
        self.cursor = layout.key_index("c3")
        self.entry = ""
        self.message = "type a key name and Enter, or click a key; q quits"
        self.cell_h = 3
        self.rows = self.cols = 0
        self._cells = [None] * layout.KEYS
        self._lines = {}
        self.full = True
        self.frames_drawn = 0

    # geometry
    def layout_for_size(self):
        try:  # the terminal's own size (COLUMNS and LINES may be stale)
            size = os.get_terminal_size(self.out.fileno())
        except (AttributeError, ValueError, OSError):
            size = shutil.get_terminal_size((80, 24))
        self.cols, self.rows = size.columns, size.lines
        status = 7
        self.cell_h = 3 if self.rows >= TOP + 21 + status else \
            2 if self.rows >= TOP + 14 + status else 1

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

    def _status_lines(self):
        b = self.board
        port = b.port
        lines = [
            "\x1b[1mVora Board\x1b[0m (virtual)  serial: \x1b[1m%s\x1b[0m  %s" % (
                port.path, "host connected" if port.connected else "no host"),
            b.status(),
        ]
        lines.append("\x1b[2m%s\x1b[0m" % b.link_status())
        while len(lines) < 5:
            lines.append("")
        lines.append("> " + self.entry + "\x1b[7m \x1b[0m")
        lines.append(self.message)
        lines.append("\x1b[2mkey name+Enter: press it | hold cS: menu | arrows+Space | "
                     "click | q: quit\x1b[0m")
        return [_clip(line, self.cols - 1) for line in lines]

    def draw(self, force=False):
        out = []
        if force or self.full:
            self.layout_for_size()
            out.append("\x1b[0m\x1b[2J")
            self._cells = [None] * layout.KEYS
            self._lines = {}
            self.full = False
        frame = self.board.frame()
        closed = self.board.hw.closed
        names = layout.KEY_NAMES
        for k in range(layout.KEYS):
            v = frame[k * 3:k * 3 + 3]
            if any(v):
                rgb = tuple(min(255, int(c * self.scale + 0.5)) for c in v)
                fg = _label_colour(rgb)
            else:
                rgb, fg = CAP_RGB, CAP_TEXT
            held = bool(closed >> k & 1)
            look = (rgb, fg, k == self.cursor, held, self.cell_h)
            if self._cells[k] == look:
                continue
            self._cells[k] = look
            x, y = k % 7, k // 7
            col = LEFT + x * (CELL_W + 1)
            row0 = TOP + (6 - y) * self.cell_h
            name = names[k]
            label = ("[%s]" % name) if k == self.cursor else (" %s " % name)
            label = label.center(CELL_W)
            style = _sgr_rgb(rgb, True) + _sgr_rgb(fg, False) + ("\x1b[1;4m" if held else "")
            mid = self.cell_h // 2 if self.cell_h != 2 else 0
            for i in range(self.cell_h):
                text = label if i == mid else " " * CELL_W
                out.append("\x1b[%d;%dH%s%s\x1b[0m" % (row0 + i, col, style, text))
        self._draw_side(out)
        base = TOP + 7 * self.cell_h + 1
        for i, line in enumerate(self._status_lines()):
            if self._lines.get(i) != line:
                self._lines[i] = line
                row = 1 if i == 0 else base + i - 1
                if row > self.rows:
                    continue  # a tiny terminal: the board first, what fits below it
                out.append("\x1b[%d;1H\x1b[2K%s" % (row, line))
        if out:
            self.out.write("".join(out))
            self.out.flush()
            self.frames_drawn += 1


    def _draw_side(self, out):
        # The companion's panel (vora play's mirror) right of the board, when it fits.
        if self.companion is None:
            return
        col = LEFT + 7 * (CELL_W + 1) + 3
        width = self.cols - col
        if width < 40:
            return
        lines = self.companion.side_lines(width)
        rows = max(0, TOP + 7 * self.cell_h - TOP)
        for i in range(rows):
            line = lines[i] if i < len(lines) else ""
            key = ("side", i)
            if self._lines.get(key) != line:
                self._lines[key] = line
                out.append("\x1b[%d;%dH\x1b[0K%s\x1b[0m" % (TOP + i, col, line))


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
        # any other incomplete sequence is dropped

    def _escape(self, buf, i):
        """Handle the escape sequence at buf[i]; index after it, or None if incomplete."""
        if i + 1 >= len(buf):
            return None
        second = buf[i + 1]
        if second not in "[O":
            self.screen.entry = ""  # Escape followed by something else: Escape, then it
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
                self.mouse_key = k
                self.mouse_at = loop.time()
                self.screen.cursor = k
                self.board.key_down(k)
                self.screen.message = "mouse: %s" % layout.KEY_NAMES[k]
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
        if ch in ("\x03", "\x04"):  # Ctrl-C, Ctrl-D
            self.quit(EXIT_INTERRUPTED if ch == "\x03" else EXIT_OK)
        elif ch in ("\r", "\n"):
            line = s.entry.strip()
            s.entry = ""
            if line:
                self._run_typed(line)
            else:
                self.submit("press " + layout.KEY_NAMES[s.cursor])
        elif ch == " " and not s.entry:
            self.submit("press " + layout.KEY_NAMES[s.cursor])
        elif ch == "q" and not s.entry:
            self.quit(EXIT_OK)
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
        # the cursor follows a key named on its own or after press/hold
        name = words[0] if len(words) == 1 else words[1] if words[0].lower() in (
            "press", "hold", "down", "up") else None
        if name is not None:
            try:
                self.screen.cursor = parse_key(name)
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
        flash_size=None):
    """Run the virtual board until quit; returns the exit status.

    `flash_dir`: the board's simulated flash (boot from what is installed there; its save
    in flash_dir/save unless save_dir says otherwise); flash_size its capacity in bytes.

    `companion` (vora play's mirror) runs in the same event loop: companion.start(board)
    returns its tasks, and companion.side_lines(width) what to draw beside the board."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        pinmap = load_pinmap(pinmap_file)
        lines = _read_script(script) if script else []
        flash = None
        if flash_dir is not None:
            try:
                flash = SimFlash(flash_dir, **({"capacity": flash_size} if flash_size else {}))
            except OSError as exc:
                raise SimError("cannot use the flash folder %s: %s" % (flash_dir, exc.strerror or exc))
            except ValueError as exc:
                raise SimError(str(exc))
        folder = Path(save_dir) if save_dir else flash.save_dir if flash else default_save_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if fresh:
                Store(str(folder)).clear()
        except OSError as exc:
            raise SimError("cannot use the save folder %s: %s" % (folder, exc.strerror or exc))
    except SimError as exc:
        stderr.write("vora sim: %s\n" % exc)
        stderr.flush()
        return EXIT_FAILED
    port = PtyPort()
    board = None
    try:
        # The very first line: where to connect.
        stdout.write(port.path + "\n")
        stdout.flush()
        board = VirtualBoard(folder, pinmap, port, seed=seed, ghosting=ghosting, flash=flash)
        draw = not headless and _isatty(stdout)
        keyboard = draw and _isatty(stdin)
        return asyncio.run(_main(board, lines, draw, keyboard, stdin, stdout, stderr,
                                 companion))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        if board is not None:
            board.machine.close()
        port.close()


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

    for sig, status in ((signal.SIGINT, EXIT_INTERRUPTED), (signal.SIGTERM, EXIT_OK),
                        (signal.SIGHUP, EXIT_OK)):
        try:
            loop.add_signal_handler(sig, finish, status)
        except (ValueError, RuntimeError, NotImplementedError):
            pass

    screen = Screen(board, stdout, companion) if draw else None
    terminal = _Terminal(_fileno(stdin) if keyboard else None, stdout) if draw else None

    def emit(text):
        if screen is not None:  # answers go to the message line of the screen
            screen.message = screen.message + "  ok" if text == "ok" else text
            return
        try:
            stdout.write(text + "\n")
            stdout.flush()
        except (BrokenPipeError, ValueError):
            finish(EXIT_OK)

    commands = asyncio.Queue()

    async def do(line):
        if screen is not None and line.strip() and not line.strip().startswith("#"):
            screen.message = "> " + line.strip()
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
            screen.draw()
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
