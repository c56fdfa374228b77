"""The virtual board (`vora sim`): the unchanged firmware on the PC, behind a real serial port.

What runs is the board's own application, `vora_fw.app.App`, on CPython's asyncio (its
loop paced by vora_host.virtual.pace: the board's own periods while anything happens, once
a frame while it waits), with the simulated hardware layer (`vora_fw.hal_sim.SimHardware`)
in place of the key matrix and the NeoPixels, the pin map of the reference build
(hardware/pinmap-rp2-pico.json), the save store in a folder of the PC, and the serial
endpoint (`vora_fw.link.BoardLink`, the framed protocol of docs/protocol.md) on a
pseudo-terminal. Any serial program opens that pty like the board's USB port.

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

The pieces: the board (vora_host.virtual.board), its serial port (vora_host.virtual.port),
the commands (vora_host.virtual.commands), the screen (vora_host.virtual.screen); this
module runs them together in one event loop: run() is `vora sim`.
"""

import asyncio
import os
import signal
import sys
import termios
from pathlib import Path

from vora_fw.store import Store
from vora_host import private_files
from vora_host.virtual.board import SimError, VirtualBoard, default_save_dir, load_pinmap
from vora_host.virtual.commands import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, Quit, _shown,
                                        run_command)
from vora_host.virtual.flash import SimFlash
from vora_host.virtual.port import PtyPort, StableName
from vora_host.virtual.savelock import SaveFolderBusy, SaveLock
from vora_host.virtual.screen import KeyboardInput, Screen

__all__ = ["run", "REDRAW_S"]

REDRAW_S = 0.04  # the screen is looked at 25 times a second, redrawn only when it changed
OVER_POLL_S = 0.1  # how often a plain `vora play` looks whether its game is over


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
            # The keyboard is a terminal read key by key (no line editing, so no Ctrl-D
            # end of input): a read that ends or fails means the terminal closed, whether
            # or not its SIGHUP has come yet (under load it can come much later).
            loop.remove_reader(stdin_fd)
            hung_up()
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
        if screen is None and getattr(companion, "ends_with_its_game", False):
            # Plain lines (no terminal): the PC's game is all `vora play GAME` is for, and
            # it ends with it, as beside a USB board (a script's input may be over long
            # before, and nobody would type `quit`); a screen stays on the end until q.
            # (The board's own Vora goes on: c3 deals the next game.)
            tasks.append(asyncio.create_task(_until_over(companion, finish)))
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


async def _until_over(companion, finish):
    while not companion.state.is_over():
        await asyncio.sleep(OVER_POLL_S)
    finish(EXIT_OK)


def _task_ended(task, finish):
    if task.cancelled():
        return
    exc = task.exception()
    if isinstance(exc, Quit):
        finish(EXIT_OK)
    elif exc is not None:
        finish(EXIT_FAILED)
