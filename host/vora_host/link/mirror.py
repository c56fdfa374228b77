"""Mirroring a board on the PC: `vora mirror`, and `vora play` with the virtual board.

A BoardClient (vora_host.link.client) follows the board over a serial device opened with
pyserial and read by the asyncio loop; when the device goes away (an unplug, a reset) the
follower closes it and opens it again as soon as it is back, and the client catches up
with the moves it missed. Every move is logged as it arrives (vora_host.log.store).

At a terminal the mirror is drawn with rich: the meadow in colour, whose turn, the farms
and scores, the last moves, the link's state and any mismatch. Without a terminal it
prints one plain line per event, for logs and scripts.
"""

import asyncio
import errno
import os
import sys

import serial
from rich.console import Console, Group
from rich.markup import escape as rich_escape
from rich.text import Text

from vora_host import hang_up
from vora_host.ansi import ansi_lines
from vora_host.games.vora import view as render
from vora_host.link import portlock, ports
from vora_host.link.client import BoardClient, ticks_ms
from vora_host.link.ports import virtual_device_path
from vora_host.wakeable import WakeableSleep
from vora_host.words import plural

REOPEN_S = 1.0  # how often a missing device is looked for again
POLL_S = 0.01  # how often the client's clocks are looked at while an exchange is under way
# ... and while none is (connected, nothing unacknowledged nor owed): its timers then are a
# second or longer (a heartbeat, a request asked again), and the board's bytes wake the
# loop at once. A hundred looks a second at an idle link cost a PC more than a percent
# of a core (issue 42).
QUIET_POLL_S = 0.05


class SerialPort:
    """A serial device for the event loop: non-blocking reads, whole-frame writes. Opened
    for this program alone (portlock.PortBusy when another holds it)."""

    def __init__(self, path):
        self.path = path
        self.ser, self._hold = portlock.open_serial(path, baudrate=115200, timeout=0,
                                                    write_timeout=2)
        self.broken = None

    def fileno(self):
        return self.ser.fileno()

    def read(self):
        try:
            data = self.ser.read(4096)
        except (serial.SerialException, OSError) as exc:
            self.broken = exc
            return b""
        return data

    def write(self, data):
        if self.broken is not None:
            return
        try:
            self.ser.write(data)
        except (serial.SerialException, OSError) as exc:
            self.broken = exc

    def close(self):
        portlock.close_serial(self.ser, self._hold)
        self._hold = None


class Follower:
    """Keeps a BoardClient connected to a device path, reopening it after an unplug.
    refuse_busy: a device another program holds before this one ever had it ends run()
    with portlock.PortBusy (vora mirror: the second program is refused); otherwise, and
    once it had the device, it waits, its status naming the holder."""

    def __init__(self, path, log=None, source=None, on_event=None, refuse_busy=False):
        self.path = path
        self.refuse_busy = refuse_busy
        self.opened = 0  # how many times the device was opened
        self.port = None
        self.status = "opening %s" % path
        self.on_event = on_event or (lambda what, text: None)
        self.client = BoardClient(self._write, log=log, source=source or "board %s" % path,
                                  on_change=self._changed)
        self.reported = 0  # moves already announced by on_event
        self.problems_seen = 0
        self._pause = WakeableSleep()  # run()'s between two looks; bytes in end it

    def _write(self, data):
        if self.port is not None:
            self.port.write(data)

    def _changed(self, what):
        c = self.client
        if what == "link":
            self.on_event("link", c.status_line())
        elif what == "refused":
            self.on_event("refused", c.refusal)
        elif what == "game" and c.state is not None and not c.moves:
            self.on_event("game", "game %s: seed %s, seats %s" % (
                c.game_id, c.seed, c.state.seats))
        elif what == "move":
            while self.reported < len(c.moves):
                self.reported += 1
                self.on_event("move", "move %d %s" % (self.reported, c.moves[self.reported - 1]))
            if c.state.is_over():
                self.on_event("over", "game over: " + "; ".join(render.result_lines(c.state)))
        elif what == "problem":
            # The client keeps the latest problems only: announce those not seen yet.
            new = c.problem_count - self.problems_seen
            for text in c.problems[-new:] if 0 < new <= len(c.problems) else c.problems[-1:]:
                self.on_event("problem", text)
            self.problems_seen = c.problem_count
        elif what == "log":
            self.on_event("log", c.log_note() or "the game log has every move again")
        if what == "game":
            self.reported = len(c.moves)

    async def run(self):
        loop = asyncio.get_running_loop()
        while True:
            try:
                if ports.name_gone(self.path):
                    # A killed virtual board's name: what it points at is not a board now.
                    raise FileNotFoundError(errno.ENOENT, "the virtual board is not running")
                self.port = SerialPort(self.path)
            except portlock.PortBusy as exc:
                if self.refuse_busy and not self.opened:
                    raise
                status = "waiting: %s" % exc
                if status != self.status:
                    self.on_event("link", status)
                self.status = status
                await asyncio.sleep(REOPEN_S)
                continue
            except (serial.SerialException, OSError) as exc:
                if self.path == virtual_device_path():
                    status = "waiting for the virtual board at %s: start it with `vora sim`" % (
                        self.path)
                elif not self.opened and not os.path.exists(self.path):
                    # Never seen: the name may be wrong (say so, and what there is).
                    status = "waiting for the board at %s (%s): is the name right? %s" % (
                        self.path, ports.system_error(exc), ports.seen_text())
                else:
                    status = "waiting for the board at %s (%s)" % (
                        self.path, getattr(exc, "strerror", None) or exc)
                if status != self.status:
                    self.on_event("link", status)  # once, not at every look
                self.status = status
                await asyncio.sleep(REOPEN_S)
                continue
            self.status = "open"
            self.opened += 1
            self.client.hello(ticks_ms())
            fd = self.port.fileno()
            loop.add_reader(fd, self._readable)
            try:
                while self.port.broken is None:
                    self.client.poll(ticks_ms())
                    # What the board's bytes start (an acknowledgement owed, a move to ask
                    # for) is then looked after at POLL_S.
                    await self._pause.sleep(QUIET_POLL_S if self.quiet() else POLL_S)
            finally:
                loop.remove_reader(fd)
                self.port.close()
            self.on_event("link", "the board went away (%s); waiting for it" % self.port.broken)
            self.port = None
            self.client._session_failed()
            await asyncio.sleep(REOPEN_S)

    def quiet(self):
        """True while the link has nothing under way: connected, and its session has
        nothing unacknowledged, queued or owed an acknowledgement."""
        client = self.client
        return client.connected and client.session.idle

    def _readable(self):
        data = self.port.read()
        if data:
            self.client.feed(data, ticks_ms())
        self._pause.wake()


def mirror_renderable(follower, width=100, meadow=True, compact=False, play=None):
    """What the mirror shows: the game (the meadow too unless `meadow` is False: beside
    the virtual board it is already on screen), the link, the problems. `compact`: a
    narrow column (the virtual board at 80 columns). `play`: vora play's BoardPlay, for
    who plays each seat and what the board refused."""
    c = follower.client
    who = play.who(compact=compact) if play is not None else {}
    if compact:
        return _compact_mirror(follower, width, who)
    parts = []
    head = Text()
    head.append("Vora mirror", style="bold")
    head.append("  %s  %s" % (follower.path, c.status_line()))
    if follower.status != "open":
        head.append("  [%s]" % follower.status, style="yellow")
    parts.append(head)
    if c.state is None:
        parts.append(Text("no game on the board yet: deal one (the centre key)"))
    else:
        parts.append(Text("game %s, seed %s, %s, logged as game %s" % (
            c.game_id, c.seed, plural(len(c.moves), "move"),
            c.log_id if c.log_id is not None else "-"),
            style="dim"))
        if meadow:
            parts.append(render.render_game(c.state, who, history=list(c.history),
                                            width=width))
        else:
            parts.append(render.render_status(c.state, who, history=list(c.history),
                                              marks=False))
        if c.state.is_over():
            for line in render.result_lines(c.state):
                parts.append(Text(line, style="bold"))
    note = c.log_note()
    if note is not None:
        parts.append(Text(note, style="yellow"))
    for kind, p in list(c.recent)[-3:]:
        parts.append(Text("%s: %s" % (problem_label(kind), p), style="bold red"))
    if play is not None:
        for m in list(play.messages)[-2:]:
            parts.append(Text(m, style="yellow"))
    return Group(*parts)


def _compact_mirror(follower, width, who):
    c = follower.client
    out = Text()
    out.append("PC mirror", style="bold")
    if not c.connected:
        out.append(": " + ("waiting" if follower.status == "open" else follower.status),
                   style="yellow")
    elif c.log_id is not None:
        out.append(", logged #%s" % c.log_id, style="dim")
    if c.state is None:
        out.append("\nno game yet")
        return out
    out.append("\n")
    out.append_text(render.compact_status(c.state, who, list(c.history), width=width))
    # Whole, wrapped to the column by the console that draws it (never cut mid-word).
    note = c.log_note()
    if note is not None:
        out.append("\n" + note, style="yellow")
    for kind, p in list(c.recent)[-1:]:
        out.append("\n%s: %s" % (problem_label(kind), p), style="bold red")
    return out


# What each kind of problem the client keeps is, on the mirror's screen: only a board and
# a host that disagree on the game is a mismatch.
PROBLEM_LABELS = {"mismatch": "mismatch", "lost": "mismatch", "resync": "resync",
                  "log": "game log", "board log": "board", "board save": "board"}


def problem_label(kind):
    return PROBLEM_LABELS.get(kind, "problem")


def plain_printer(out):
    def emit(what, text):
        out.write("mirror %s: %s\n" % (what, text))
        out.flush()
    return emit


async def _mirror_main(follower, live, emit=None, play=None, stdin=None):
    tasks = [asyncio.create_task(follower.run())]
    if play is not None:
        tasks.append(asyncio.create_task(_play_loop(play, emit)))
    stop = asyncio.Event()  # `q` typed
    keys = None
    if stdin is not None:
        keys = _read_commands(follower, stdin, play.say if play is not None else (
            lambda text: emit("play", text) if emit is not None else None), stop.set,
            getattr(play, "command", None))
    status = None
    try:
        while not stop.is_set():
            if tasks[0].done():
                tasks[0].result()  # the follower stopped: its error (PortBusy) goes up
            if live is not None:
                shown = mirror_renderable(follower, live.console.width, play=play)
                if keys is not None:
                    shown = Group(shown, keys.footer(
                        "undo and Enter asks for a takeback%s | q quits"
                        % (" | hint" if play is not None else "")))
                live.update(shown)
            elif emit is not None and follower.status != status:
                # Plain output says what the follower is waiting for, not only events.
                status = follower.status
                if status != "open":
                    emit("link", status)
            await asyncio.sleep(0.1)
    finally:
        if keys is not None:
            keys.stop()
        for task in tasks:
            task.cancel()


def _read_commands(follower, stdin, say, quit=None, command=None):
    # Lines typed under the mirror: `undo` asks the people at the board for a takeback;
    # `q` quits; what plays beside the board (vora play) takes its own first
    # (`command(text)`: its answer lines, or None: `hint`). Returns the TypedKeys.
    def line(word):
        answer = command(word) if command is not None else None
        if answer is not None:
            # Its refusal is said by `play` already; the footer keeps it too.
            error = answer and answer[0].startswith("error ")
            keys.said = answer[0][len("error "):] if error else ""
            return
        word = word.strip().lower()
        if word in ("undo", "takeback"):
            ok = follower.client.ask_takeback()
            text = ("takeback asked: every person at the board agrees with their corner"
                    if ok else "no takeback: the board is not connected or cannot do it")
        elif word:
            text = "type undo (and Enter) to ask for a takeback%s; q quits" % (
                "; hint for the hard level's move" if command is not None else "")
        else:
            return
        keys.said = text
        say(text)

    keys = TypedKeys(stdin, line, quit or (lambda: None))
    keys.start()
    return keys


QUIT_WORDS = ("q", "quit", "exit")
ENTRY_MAX = 60  # characters of a line typed beside a board


class TypedKeys:
    """What is typed on the terminal beside a board on a port (`vora play --port`, `vora
    mirror`): `on_line(text)` gets each line, `on_quit()` is called for `q` (or quit,
    exit) and Enter. At a terminal the keys are read one at a time, unechoed (the screen
    draws the line being typed: footer()), so that `q` on an empty line quits at once, as
    on the virtual board's screen; elsewhere (a pipe, a file) whole lines are read."""

    def __init__(self, stdin, on_line, on_quit):
        self.stdin = stdin
        self.on_line = on_line
        self.on_quit = on_quit
        self.entry = ""
        self.said = ""  # the last answer to a line, for the footer
        self._fd = None
        self._saved = None
        self._loop = None
        self._pending = b""
        self._esc = False

    def start(self):
        import os
        try:
            fd = self.stdin.fileno()
            self._loop = asyncio.get_running_loop()
        except (AttributeError, ValueError, OSError, RuntimeError):
            return self
        if os.isatty(fd) and sys.stdout.isatty():  # a person at the screen it draws
            import termios
            import tty
            try:
                self._saved = termios.tcgetattr(fd)
                tty.setcbreak(fd)  # keys one at a time, no echo; Ctrl-C still interrupts
            except termios.error:
                self._saved = None
        try:
            self._loop.add_reader(fd, self._readable)
        except (ValueError, OSError, NotImplementedError):
            self._restore(fd)
            return self
        self._fd = fd
        return self

    def stop(self):
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            self._loop.remove_reader(fd)
        except (ValueError, OSError, RuntimeError):
            pass
        self._restore(fd)

    __call__ = stop  # a stop function, as _read_typed_lines returns

    def _restore(self, fd):
        if self._saved is not None:
            import termios
            try:
                termios.tcsetattr(fd, termios.TCSADRAIN, self._saved)
            except termios.error:
                pass
            self._saved = None

    def _readable(self):
        import os
        error = None
        try:
            data = os.read(self._fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            data, error = b"", exc
        if not data:  # end of input: nothing more to read (the board goes on)
            fd = self._fd
            self.stop()
            hang_up.stop_if_closed(fd, error)  # unless the terminal closed: as on SIGHUP
            return
        if self._saved is None:
            self._lines(data)
        else:
            for ch in data.decode("utf-8", "replace"):
                self._key(ch)

    def _lines(self, data):
        self._pending += data
        while b"\n" in self._pending:
            raw, self._pending = self._pending.split(b"\n", 1)
            self._submit(raw.decode("utf-8", "replace"))

    def _key(self, ch):
        if self._esc:  # an escape sequence (an arrow key): skipped up to its last byte
            if ch.isalpha() or ch == "~":
                self._esc = False
            return
        if ch == "\x1b":
            self._esc = True
        elif ch in ("\r", "\n"):
            line, self.entry = self.entry, ""
            self._submit(line)
        elif ch == "q" and not self.entry:
            self.on_quit()
        elif ch in ("\x7f", "\x08"):
            self.entry = self.entry[:-1]
        elif ch == "\x15":  # Ctrl-U
            self.entry = ""
        elif ch.isprintable() and len(self.entry) < ENTRY_MAX:
            self.entry += ch

    def _submit(self, line):
        text = line.strip()
        if text.lower() in QUIT_WORDS:
            self.on_quit()
        elif text:
            self.on_line(text)

    def footer(self, hint):
        """The line being typed (when keys are read one at a time) and `hint`, for the
        screen."""
        out = Text()
        if self._saved is not None:
            out.append("> " + self.entry)
            out.append(" ", style="reverse")
            out.append("\n")
        if self.said:
            out.append(self.said + "\n", style="yellow")
        out.append(hint, style="dim")
        return out


def run_mirror(path, log, out=None, plain=None, play=None, stdin=None):
    """Follow the board at `path` until `q` or Ctrl-C. Returns the exit status. `play`:
    None, or what plays beside the mirror, made from the follower's BoardClient as
    `play(client)` (vora play gives vora_host.play.board_play.BoardPlay with its options:
    the play room sits above the link's). Lines typed on `stdin` (default sys.stdin at a
    terminal) may ask for a takeback (`undo`); `q` quits."""
    out = out or sys.stdout
    plain = (not out.isatty()) if plain is None else plain
    emit = plain_printer(out) if plain else None
    follower = Follower(path, log=log, on_event=emit, refuse_busy=True)
    board_play = None
    if play is not None:
        board_play = play(follower.client)
    if stdin is None:
        stdin = sys.stdin  # undo, and q to quit (q and Enter from a pipe)
    try:
        if plain:
            asyncio.run(_mirror_main(follower, None, emit, board_play, stdin))
        else:
            from rich.live import Live
            console = Console(file=out)
            with Live(mirror_renderable(follower, console.width), console=console,
                      refresh_per_second=10, screen=False) as live:
                asyncio.run(_mirror_main(follower, live, None, board_play, stdin))
    except KeyboardInterrupt:
        return 130
    except portlock.PortBusy as exc:
        Console(stderr=True, highlight=False).print(
            "[red]%s[/red]" % rich_escape(str(exc)), soft_wrap=True)
        return 1
    return 0


class VirtualCompanion:
    """The mirror next to the virtual board (`vora play` without a board): a follower on
    the virtual board's own serial device, drawn beside the board or printed as lines.
    `play`: None, or what plays beside it, made as `play(client)` from the follower's
    BoardClient (as run_mirror's)."""

    def __init__(self, log, out, plain, play=None):
        self.log = log
        self.out = out
        self.plain = plain
        self.follower = None
        self.make_play = play
        self.play = None

    def start(self, board):
        self.follower = Follower(board.port.path, log=self.log, source="virtual board",
                                 on_event=plain_printer(self.out) if self.plain else None)
        tasks = [asyncio.create_task(self.follower.run())]
        if self.make_play is not None:
            self.play = self.make_play(self.follower.client)
            board.host_bot_names = self.play.names  # asked each time: a resume seats bots
            tasks.append(asyncio.create_task(_play_loop(
                self.play, plain_printer(self.out) if self.plain else None)))
        return tasks

    def command(self, text):
        """A line typed on the virtual board's line that is what plays beside it (vora
        play's `hint`): its answer lines, or None (the board takes the line)."""
        command = getattr(self.play, "command", None)
        return command(text) if command is not None else None

    def side_lines(self, width, compact=False):
        if self.follower is None:
            return []
        return ansi_lines(mirror_renderable(self.follower, width, meadow=False,
                                            compact=compact, play=self.play), width)


async def _play_loop(play, emit=None):
    said = 0
    try:
        while True:
            play.poll()
            if emit is not None and play.said > said:
                for m in list(play.messages)[-min(play.said - said, len(play.messages)):]:
                    emit("play", m)
                said = play.said
            await asyncio.sleep(0.05)
    finally:
        # Stopped between two polls (a quit just after the deal): what the next poll
        # would have kept is kept (the seats noted for the game's resume).
        finish = getattr(play, "finish", None)
        if finish is not None:
            finish()



def send_repl(path, timeout=5.0):
    """Ask the board at `path` to leave its application for the REPL.
    Returns (ok, message for the user)."""
    import time
    try:
        port = SerialPort(path)
    except portlock.PortBusy as exc:
        return False, str(exc)
    except (serial.SerialException, OSError) as exc:
        return False, "cannot open %s: %s" % (path, getattr(exc, "strerror", None) or exc)
    try:
        client = BoardClient(port.write)
        end = time.monotonic() + timeout
        asked = False
        while time.monotonic() < end and port.broken is None:
            data = port.read()
            now = ticks_ms()
            if data:
                client.feed(data, now)
            client.poll(now)
            if client.refusal:
                return False, "the board refused the link: %s" % client.refusal
            if client.connected and not asked:
                asked = client.ask_repl()
            refused = [p for p in client.problems if "refused REPL" in p]
            if refused:  # the board said why not, and goes on playing
                return False, refused[0].replace("the board says: ", "the board ")
            if asked and client.session.idle:
                return True, ("The board left its application: `mpremote connect %s repl` "
                              "reaches the REPL now. Reset the board to play again." % path)
            time.sleep(0.005)
        return False, ("no answer from a Vora Board at %s: hold a corner key while plugging "
                       "it in (safe mode) to reach the REPL" % path)
    finally:
        port.close()
