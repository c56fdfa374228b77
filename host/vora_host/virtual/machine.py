"""The virtual board's power, boot and resets: what runs on it, from power-up on.

At every power-up and reset the virtual board does what a board does (docs/makers.md):

- development mode (no --flash): the repository's firmware runs at once, as before;
- with a simulated flash (vora_host.virtual.flash): a corner key held means safe mode (the
  REPL, nothing else); no /main.py means a board with stock MicroPython (the REPL); else
  the firmware's own boot path (vora_fw.boot.decide, the code the board runs) picks the slot
  and does the test-then-confirm bookkeeping on the folder. The slot is checked as an
  import on the board would find it (every file of its manifest there, whole, with its
  hash): a trial slot that fails restarts the board, which then goes back to the confirmed
  version; a confirmed slot that fails leaves the REPL free, as main.py's error would.

The code that runs is always this repository's firmware on CPython (the slots hold .mpy
files for the emulated Pico); the version it reports is the one of the slot it booted.
When the application stops for the REPL (the link's REPL message), or there is no
application, the serial port goes to the REPL emulation (vora_host.virtual.repl);
`machine.reset()` there, the link's UPD_RESET and the `reset` command restart the board.
"""

import asyncio
import random
import tempfile

from vora_fw import VERSION, boot, start
from vora_fw.app import App
from vora_fw.clock import ticks_ms
from vora_fw.layout import CORNER_OF_SEAT
from vora_fw.link import BoardLink
from vora_fw.store import Store

from vora_host.virtual import flash as flash_mod
from vora_host.virtual import repl as repl_mod
from vora_host.virtual.pace import Pacer

APP = "app"
REPL = "repl"
REPL_EARLY_LIMIT = 4096  # bytes kept for the REPL while the application stops (a USB buffer)


class SimMachine:
    """board: the VirtualBoard (its hardware, pin map, save folder, serial port);
    flash: a SimFlash, or None for development mode."""

    def __init__(self, board, flash=None, confirm_ms=None):
        self.board = board
        self.flash = flash
        self.confirm_ms = confirm_ms
        self.state = None
        self.boot = None
        self.version = VERSION
        self.repl = None
        self.repl_refusal = repl_mod.unavailable()
        self.identity = flash_mod.identity(repl_mod.micropython_version())
        self.boots = 0
        self.said = ""  # the board's last words at boot, for the screen
        self.loop = None
        self._wake = None
        self._reset_asked = False
        self._repl_start = None  # the REPL waits for the event loop
        self._dev_flash = None
        # Bytes that came while the application was stopping for the REPL: a board's USB
        # buffer keeps them for its REPL (mpremote's first Ctrl-C and Ctrl-A, sent the
        # moment `vora repl` returns), they are not the link's.
        self._for_repl = bytearray()

    # ---- power-up

    def power_on(self):
        """Reset: what the board does from power-up until the game or the REPL runs."""
        self.boots += 1
        self._stop_repl()
        self._for_repl.clear()
        # Looked at again at every reset: Node or MicroPython's npm package installed
        # while the board runs (as its refusal says) is found at the next reset.
        self.repl_refusal = repl_mod.unavailable()
        self.identity = flash_mod.identity(repl_mod.micropython_version())
        self.boot = None
        if self.flash is None:
            self._start_app(None, VERSION)
            return
        if self._corner_held():
            self._to_repl("Vora Board: safe mode (a corner key was held); the game does not "
                          "start. The REPL is free: vora flash reinstalls the firmware.")
            return
        if not self.flash.installed():
            self._to_repl("")  # a board with stock MicroPython: its REPL
            return
        fs, root = self.flash.fs, self.flash.root
        slot, mode, rec = boot.decide(fs, root)
        if slot is None:
            self._to_repl("Vora Board: no firmware version to start%s; the REPL is free "
                          "(vora flash)." % (" (the new version did not confirm itself)"
                                             if mode == boot.MODE_REVERTED else ""))
            return
        problem = self.check_slot(slot)
        if problem is not None:
            if mode == boot.MODE_TRIAL:
                # main.py resets the board when a trial fails; the next boot reverts it.
                self.said = ("Vora Board: the new version failed on trial (%s); restarting "
                             "into the previous one." % problem)
                self.power_on()
                return
            self._to_repl("Traceback (most recent call last):\r\n  File \"main.py\"\r\n"
                          "ImportError: the firmware in /fw/%s is damaged (%s)" % (slot, problem))
            return
        b = boot.Boot(fs, root, slot, mode, rec, boot.manifest_version(fs, root, slot))
        b.identity = self.identity
        if self.confirm_ms is not None:
            b.confirm_ms = self.confirm_ms
        self._start_app(b, b.version or VERSION)

    def check_slot(self, slot):
        """None when the slot's files are all there and whole, else what is wrong."""
        return flash_mod.slot_problem(self.flash.folder, slot, self.flash.romfs_path)

    def _corner_held(self):
        hw = self.board.hw
        return any(hw.held_at_boot(k) for k in CORNER_OF_SEAT.values())

    def _start_app(self, b, version):
        board = self.board
        store = Store(str(board.save_dir))
        link = BoardLink(board._link_write,
                         board="virtual board (%s)" % board.pinmap.get("board", ""))
        link.repl_refusal = self.repl_refusal
        # Every game its own id, even when --seed deals the same one again: the PC's log
        # tells games apart by (id, seed).
        app = App(board.hw, board.pinmap, store=store, link=link, seed_fn=board.seed_fn,
                  now=ticks_ms(), id_fn=lambda: random.getrandbits(32))
        start.attach(app, link, board.pinmap, b, self.identity, version, self.request_reset,
                     self.flash.fs.statvfs if self.flash is not None else None)
        board.store, board.link, board.app = store, link, app
        board.pacer = Pacer(app, board.hw)
        self.boot = b
        self.version = version
        self.state = APP

    def _to_repl(self, words):
        self.state = REPL
        if words:
            self.said = words.split("\r\n")[-1]
        if self.repl_refusal is not None:
            self.board._link_write((words + "\r\n" if words else "").encode()
                                   + ("[no REPL: %s]\r\n" % self.repl_refusal).encode())
            return
        self._repl_start = words
        if self.loop is not None:
            self._open_repl()

    def _open_repl(self):
        words = self._repl_start
        self._repl_start = None
        romfs_path = None
        if self.flash is not None:
            folder, capacity = self.flash.folder, self.flash.capacity
            romfs_path = self.flash.romfs_path
        else:
            if self._dev_flash is None:
                self._dev_flash = tempfile.TemporaryDirectory(prefix="vora-sim-flash-")
            folder, capacity = self._dev_flash.name, flash_mod.DEFAULT_CAPACITY
        if words:
            self.board._link_write(words.encode() + b"\r\n")
        self.repl = repl_mod.ReplEmulator(folder, capacity, self.identity, self.board._link_write,
                                          self._repl_reset, loop=self.loop,
                                          romfs_path=romfs_path)
        self.repl.start("friendly")
        if self._for_repl:
            early = bytes(self._for_repl)
            self._for_repl.clear()
            self.repl.feed(early)

    def _stop_repl(self):
        if self.repl is not None:
            self.repl.stop()
            self.repl = None

    def _repl_reset(self, kind):
        # machine.reset(), or Ctrl-D at the friendly prompt: a board with a main.py runs it.
        if kind == "soft" and self.flash is not None and not self.flash.installed():
            self.board._link_write(b"MPY: soft reboot\r\n")
            self._repl_start = ""
            self._open_repl()
            return
        self.request_reset()

    # ---- running

    def request_reset(self):
        """Restart the board (machine.reset(), UPD_RESET, the sim's `reset` command)."""
        self._reset_asked = True
        if self._wake is not None:
            self._wake.set()

    def receive(self, data):
        """Bytes from the serial port: to the firmware's link, or to the REPL."""
        if self.state == APP:
            link = self.board.link
            if link.repl_requested:  # stopping for the REPL: these are the REPL's
                if len(self._for_repl) + len(data) <= REPL_EARLY_LIMIT:
                    self._for_repl += data
                return
            link.receive(data, ticks_ms())
            self.board.nudge()
        elif self.repl is not None:
            self.repl.feed(data)

    async def run(self):
        """Run the board for ever: the application or the REPL, then what a reset brings."""
        self.loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        if self._reset_asked:
            self._wake.set()
        try:
            while True:
                if self.state == REPL:
                    if self._repl_start is not None:
                        self._open_repl()
                    await self._wake.wait()
                    self._restart()
                    continue
                # The App's loop at the virtual board's pace (vora_host.virtual.pace): the
                # pacer's run() in App.run's place, the trial's confirmation as on a board.
                app_task = asyncio.create_task(start.run_app(self.board.pacer, self.boot))
                wake = asyncio.create_task(self._wake.wait())
                done, _ = await asyncio.wait({app_task, wake},
                                             return_when=asyncio.FIRST_COMPLETED)
                if wake in done:
                    app_task.cancel()
                    await asyncio.gather(app_task, return_exceptions=True)
                    self._restart()
                    continue
                wake.cancel()
                exc = app_task.exception()
                if exc is not None:
                    if self.boot is not None and self.boot.mode == boot.MODE_TRIAL:
                        self.said = "Vora Board: the new version failed on trial: %r" % (exc,)
                        self.power_on()
                        continue
                    raise exc
                self._to_repl("Vora Board %s: stopped for the REPL (the PC asked); reset to "
                              "play again." % self.version)
        finally:
            self._stop_repl()

    def _restart(self):
        self._wake.clear()
        self._reset_asked = False
        self.power_on()

    def close(self):
        self._stop_repl()
        if self._dev_flash is not None:
            self._dev_flash.cleanup()
            self._dev_flash = None

    def status(self):
        """One line for the screen when the game is not running, else None."""
        if self.state == APP:
            return None
        if self.repl_refusal is not None:
            return "no REPL: %s  (reset to restart)" % self.repl_refusal
        if self.flash is not None and not self.flash.installed():
            return "stock MicroPython: no firmware on the flash (vora flash installs it); REPL free"
        return (self.said or "the REPL is free for mpremote") + "  (reset to restart)"
