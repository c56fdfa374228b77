"""`vora flash`: the first install of the firmware on a board running stock MicroPython.

It talks to MicroPython's raw REPL through mpremote (its SerialTransport, used as a
library: nothing of mpremote is re-implemented), in this order, so that a problem found
on the way leaves the board as it was:

1. If the board already runs Vora firmware, the link asks it to stop for the REPL.
2. It asks the board what it is (sys.implementation, sys.platform, os.statvfs); without a
   pin map given, it takes the one shipped for what the board says it is (pinmap_for: the
   Pico 2's for an RP2350, else the Pico's). It refuses a board that is not MicroPython, is
   another kind than the pin map's (rp2, esp32), runs a MicroPython too old for the .mpy
   files (before 1.23, .mpy v6.3), or has no room for the firmware: nothing has been
   written yet.
3. It compiles the firmware with mpy-cross for that board (its .mpy version, -march for its
   architecture) into a version slot (vora_host.maker.bundle).
4. It copies the slot's files into /fw/<slot> (the one not running, if a version is
   installed), then /vora_boot.mpy and /pinmap.json (each written beside and renamed over),
   with a progress bar, and checks every file's SHA-256 on the board (mpremote's hashfile).
5. Only then the boot record (the new slot on trial) and last /main.py: until main.py is
   there, the board starts as before.
6. It resets the board and waits for the firmware's HELLO_OK, then for the new version to
   confirm itself (vora_fw.boot: test, then confirm).

With --romfs (vora_host.maker.romfs), step 3 also builds a ROMFS image of the slot's
modules; if the board has a ROMFS partition it fits in, step 4 writes and checks the image
first and the slot gets only its manifest.json: the code runs in place from /rom and
takes no RAM for its bytecode. A board without one is told so and gets the files, as
without --romfs.

The saved game (/save) is never touched.
"""

import time
from pathlib import Path

from rich.console import Console

from vora_fw import boot as fw_boot
from vora_host.maker import bundle as bundles
from vora_host.maker.link import Connection, LinkError

BLOCK = 4096
IDENTIFY = ("import sys, os\n"
            "_i = sys.implementation\n")
IDENTITY_EXPR = ("(_i.name, tuple(_i.version)[:3], getattr(_i, '_mpy', 0), sys.platform, "
                 "getattr(_i, '_machine', ''), tuple(os.statvfs('/')))")
CONFIRM_WAIT_S = 30.0
# The pin map installed when none is given, by what the board's MicroPython says it is
# (sys.implementation._machine, "Raspberry Pi Pico2 with RP2350"): a Pico 2 has the Pico's
# pins, its own map names the board. Any other board gets the Pico's.
DEFAULT_PINMAP = "pinmap-rp2-pico.json"  # shipped with the package (vora_host.resources)
PINMAPS_BY_CHIP = (("RP2350", "pinmap-rp2-pico2.json"),)


class FlashFailed(Exception):
    """The install did not happen or did not finish; the message says why and what the
    board does now."""


def check_board(ident, pinmap):
    """Refuse a board that cannot take this firmware; returns (arch, (mpy, sub), free bytes).

    ident: (name, version tuple, _mpy, platform, machine, statvfs tuple) as the board said."""
    name, version, mpy_word, platform, machine, st = ident
    want = pinmap.get("port", "rp2")
    if name != "micropython":
        raise FlashFailed("the board runs %s, not MicroPython: put MicroPython on it first "
                          "(micropython.org, the .uf2 for your board)" % name)
    if platform != want:
        raise FlashFailed("wrong board: it runs MicroPython for %s (%s), the pin map is for %s "
                          "boards; give the right one with --pinmap (rp2-pico, esp32-s3, or "
                          "a pin map file)"
                          % (platform, machine or "?", want))
    v = tuple(version[:3])
    mpy, sub, arch_code = mpy_word & 0xFF, (mpy_word >> 8) & 3, (mpy_word >> 10) & 0x0F
    have = bundles.mpy_cross_version()
    if v < bundles.MIN_MICROPYTHON or mpy != have[0] or sub < have[1]:
        raise FlashFailed("the board runs MicroPython %s (.mpy v%d.%d); the firmware needs "
                          "MicroPython %s or later (.mpy v%d.%d): update MicroPython first "
                          "(hold BOOTSEL, plug in, copy the .uf2 from micropython.org)" % (
                              ".".join(str(x) for x in v), mpy, sub,
                              ".".join(str(x) for x in bundles.MIN_MICROPYTHON), have[0], have[1]))
    arch = fw_boot.ARCHS[arch_code] if arch_code < len(fw_boot.ARCHS) else ""
    free = st[0] * st[4]
    return arch, (mpy, sub), free


def pinmap_for(machine):
    """The shipped pin map (a name in vora_host.resources.SHIPPED) for a board whose
    MicroPython says it is `machine`."""
    for chip, name in PINMAPS_BY_CHIP:
        if isinstance(machine, str) and chip in machine:  # what a board said: any value
            return name
    return DEFAULT_PINMAP


def _blocks(n):
    return (n + BLOCK - 1) // BLOCK * BLOCK


class Flasher:
    def __init__(self, device, pinmap_path, console=None, progress=True, version=None,
                 confirm_wait_s=CONFIRM_WAIT_S, romfs=False):
        self.device = device
        # None: the shipped pin map for what the board says it is (pinmap_for), set in run
        self.pinmap_path = Path(pinmap_path) if pinmap_path is not None else None
        self.console = console or Console(stderr=True)
        self.progress = progress
        self.version = version
        self.confirm_wait_s = confirm_wait_s
        self.romfs = romfs  # asked for: use the board's ROMFS partition if it has one
        self.romfs_image = None  # the image written, when it was
        self.romfs_refusal = None  # why the board's ROMFS could not be used
        self.frozen = None  # the version frozen in the board's MicroPython, if any
        self.transport = None
        self.written = []
        self.seconds = 0.0

    def run(self):
        t0 = time.monotonic()
        pinmap = self._read_pinmap() if self.pinmap_path is not None else None
        self._stop_firmware()
        t = self._raw_repl()
        try:
            t.exec(IDENTIFY)
            ident = t.eval(IDENTITY_EXPR)
            chosen = pinmap is None
            if chosen:
                pinmap = self._board_pinmap(ident[4])
            arch, mpy, free = check_board(ident, pinmap)
            self.console.print("The board: MicroPython %s for %s (%s), .mpy v%d.%d%s, %d KB free."
                               % (".".join(str(x) for x in ident[1]), ident[3], ident[4] or "?",
                                  mpy[0], mpy[1], ", " + arch if arch else "", free // 1024))
            if chosen:  # said, as it is the one that goes onto the board
                self.console.print("The pin map: %s, for a %s; another with --pinmap."
                                   % (self.pinmap_path.name, pinmap.get("board") or "?"))
            record = self._read_record(t)
            slot = "a" if record is None or record["slot"] is None else fw_boot.other_slot(record["slot"])
            try:
                bundle = bundles.make_bundle(bundles.compile_tree(arch, self.version),
                                             pinmap.get("port", "rp2"), mpy, arch, self.version)
                roots = bundles.root_files(pinmap, arch)
            except bundles.BundleError as exc:
                raise FlashFailed(str(exc))
            frozen = self._frozen_plan(t, bundle)
            image = self._romfs_plan(t, bundle) if self.romfs and not frozen else None
            slot_files = [] if image is not None or frozen else bundle.files
            self._check_room(t, bundle, slot_files, roots, slot, free)
            if image is not None:
                self._deploy_romfs(t, image)
            self._install(t, bundle, slot_files, roots, slot, record)
        finally:
            self._close()
        self.console.print("Installed firmware %s in slot %s; the board restarts. Waiting for "
                           "its hello (a new version confirms itself after %d s)..." % (
                               bundle.version, slot, fw_boot.CONFIRM_MS // 1000))
        board = self._wait_hello(bundle.version)
        self.seconds = time.monotonic() - t0
        return {"version": bundle.version, "slot": slot, "files": len(self.written),
                "bytes": sum(n for _, n in self.written), "seconds": self.seconds,
                "boot": board.get("boot"),
                "romfs": len(self.romfs_image) if self.romfs_image is not None else None,
                "romfs_refusal": self.romfs_refusal, "frozen": self.frozen}

    # ---- the pin map

    def _read_pinmap(self):
        import json
        try:
            return json.loads(self.pinmap_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise FlashFailed("cannot read the pin map %s: %s" % (self.pinmap_path, exc))

    def _board_pinmap(self, machine):
        """The shipped pin map for what the board says it is (self.pinmap_path then names
        its file)."""
        from vora_host import resources
        try:
            self.pinmap_path = resources.path(pinmap_for(machine))
        except resources.MissingResource as exc:
            raise FlashFailed("%s; or give a pin map with --pinmap FILE" % exc)
        return self._read_pinmap()

    # ---- ROMFS

    def _frozen_plan(self, t, bundle):
        """True when the board's MicroPython has this very version frozen in (a build with
        firmware/manifest.py): the slot then needs only its manifest. A frozen version
        that differs is said, and the files (first on sys.path) are installed."""
        from vora_host.maker import romfs
        found = romfs.firmware_in_micropython(t)
        self.frozen = found[1] if found and found[0] == "frozen" else None
        if self.frozen is None:
            return False
        if self.frozen == bundle.version:
            self.console.print("The board's MicroPython has Vora firmware %s frozen in: the "
                               "slot gets only its manifest, the code runs from the firmware."
                               % self.frozen)
            return True
        self.console.print("[yellow]The board's MicroPython has Vora firmware %s frozen in; "
                           "this vora installs %s, as files (they come first).[/]"
                           % (self.frozen, bundle.version))
        return False

    def _romfs_plan(self, t, bundle):
        """The ROMFS image to write, or None (said why) when the board cannot take it."""
        from vora_host.maker import romfs
        why = romfs.mpremote_lacks()
        if why is None:
            image = romfs.build_image(bundle)
            why = romfs.unusable(romfs.query(t), image)
        if why is None and self.frozen is not None:
            # sys.path has .frozen before /rom (MicroPython's mp_init appends /rom): the
            # frozen version would run.
            why = "its MicroPython has Vora firmware %s frozen in, which comes before /rom " \
                  "on sys.path" % self.frozen
        if why is not None:
            self.romfs_refusal = why
            self.console.print("[yellow]No ROMFS for the firmware on this board: %s. "
                               "Installing it as files instead (the code then loads into "
                               "RAM).[/]" % why)
            return None
        self.console.print("ROMFS: the firmware's code goes into the board's ROMFS partition "
                           "(a %d KB image); it runs from there, in place." % (
                               (len(image) + 1023) // 1024))
        return image

    def _deploy_romfs(self, t, image):
        from vora_host.maker import romfs
        self.console.print("Writing the ROMFS partition and checking its SHA-256...")
        try:
            romfs.deploy(t, image)
        except romfs.RomfsFailed as exc:
            raise FlashFailed("%s. Run vora flash --romfs again, or vora flash without "
                              "--romfs to install the files. main.py and the boot record were "
                              "not changed: a version installed as files starts as before; "
                              "one installed with --romfs finds the partition half written "
                              "until then." % exc)
        self.romfs_image = image

    # ---- reaching the REPL

    def _stop_firmware(self):
        """A board running Vora firmware keeps Ctrl-C off: ask it over the link for the REPL."""
        from shared_rules import wire
        conn = Connection(self.device)
        try:
            conn.open()
        except LinkError as exc:
            raise FlashFailed(str(exc))
        try:
            try:
                board = conn.hello(1.5)
            except LinkError:
                return  # no firmware answers: stock MicroPython (or a busy REPL)
            self.console.print("The board runs Vora firmware %s: asking it to stop for the REPL."
                               % board.get("fw", "?"))
            try:
                conn.send(wire.REPL, b"")
                conn.drain(5.0)
            except LinkError as exc:
                raise FlashFailed("the board did not stop for the REPL (%s): hold a corner key "
                                  "while plugging it in (safe mode) and try again" % exc)
            time.sleep(0.3)
            try:
                conn.pump()  # a refusal that came with the acknowledgement
            except LinkError:
                pass  # gone to the REPL: mpremote takes it from here
            refused = [p for p in conn.client.problems if "refused REPL" in p]
            if refused:  # it said why (the virtual board without its MicroPython, ...)
                raise FlashFailed(refused[0].replace("the board says: ", "the board "))
        finally:
            conn.close()

    def _raw_repl(self):
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport
        from vora_host.link import portlock
        # mpremote opens the device exclusively itself; this program's hold on the port
        # (taken by the command, portlock.hold) keeps other vora programs out meanwhile.
        try:
            t = SerialTransport(self.device, baudrate=115200)
        except TransportError as exc:
            if portlock.is_local(self.device) and portlock.holders(self.device):
                raise portlock.busy(self.device)
            raise FlashFailed("cannot open %s: %s" % (self.device, exc))
        self.transport = t
        try:
            t.enter_raw_repl(soft_reset=True, timeout_overall=10)
        except TransportError as exc:
            self._close()
            raise FlashFailed("no MicroPython REPL answers at %s (%s). Is MicroPython on the "
                              "board? If it runs a program, hold a corner key while plugging it "
                              "in (safe mode)." % (self.device, exc))
        return t

    def _close(self):
        t = self.transport
        self.transport = None
        if t is not None:
            try:
                t.close()
            except OSError:
                pass

    def _read_record(self, t):
        from mpremote.transport import TransportError
        if not t.fs_exists(fw_boot.RECORD):
            return None
        try:
            return fw_boot.decode_record(bytes(t.fs_readfile(fw_boot.RECORD)))
        except TransportError:
            return None

    # ---- room and copying

    def _sizes(self, t, path):
        """Bytes, in whole blocks, of the files under `path` on the board (0 if missing)."""
        if not t.fs_exists(path):
            return 0
        st = t.fs_stat(path)
        if not st.st_mode & 0x4000:
            return _blocks(st.st_size)
        total = 0
        for entry in t.fs_listdir(path):
            total += self._sizes(t, path + "/" + entry.name)
        return total

    def _check_room(self, t, bundle, slot_files, roots, slot, free):
        need = sum(_blocks(len(d)) for _, d in slot_files) + _blocks(len(bundle.manifest_bytes))
        need += sum(_blocks(len(d)) for _, d in roots) + BLOCK  # and the boot record
        reclaim = self._sizes(t, "%s/%s" % (fw_boot.FW_DIR, slot))
        for name, _ in roots:
            reclaim += self._sizes(t, name)
        if need > free + reclaim:
            raise FlashFailed("the board's filesystem is too full: the firmware needs %d KB, "
                              "%d KB are free (and %d KB would be replaced). Nothing was "
                              "written. Make room (mpremote fs rm) and try again."
                              % (need // 1024, free // 1024, reclaim // 1024))

    def _install(self, t, bundle, slot_files, roots, slot, record):
        from mpremote.transport import TransportError
        slot_dir = "%s/%s" % (fw_boot.FW_DIR, slot)
        plan = [("%s/%s" % (slot_dir, name), data) for name, data in slot_files]
        plan.append(("%s/%s" % (slot_dir, fw_boot.MANIFEST), bundle.manifest_bytes))
        total = sum(len(d) for _, d in plan) + sum(len(d) for _, d in roots)
        new_record = {"slot": record["slot"] if record else None, "trial": slot, "tries": 0,
                      "prev": record["prev"] if record else None, "reverted": None}
        record_bytes = fw_boot.encode_record(new_record)
        bar = self._bar(total)
        try:
            t.exec("import os\n"
                   "def _rm(p):\n"
                   " try:\n  m = os.stat(p)[0]\n except OSError:\n  return\n"
                   " if m & 0x4000:\n"
                   "  for n in os.listdir(p):\n   _rm(p + '/' + n)\n"
                   "  os.rmdir(p)\n"
                   " else:\n  os.remove(p)\n"
                   "def _md(p):\n"
                   " try:\n  os.mkdir(p)\n except OSError:\n  pass\n")
            t.exec("_rm(%r)\n_md(%r)\n_md(%r)" % (slot_dir, fw_boot.FW_DIR, slot_dir))
            for package in sorted({name.split("/")[0] for name, _ in slot_files}):
                t.exec("_md(%r)" % ("%s/%s" % (slot_dir, package)))
            for path, data in plan:
                self._copy(t, path, data, bar)
            for name, data in roots:
                self._copy(t, name + ".new", data, bar)
            if bar is not None:
                bar.stop()
                bar = None
            self.console.print("Checking every file's SHA-256 on the board...")
            self._verify(t, [(p, d) for p, d in plan] + [(n + ".new", d) for n, d in roots])
            for name, _ in roots:
                if name != "main.py":
                    t.exec("os.rename(%r, %r)" % (name + ".new", name))
            self._copy(t, fw_boot.RECORD_NEW, record_bytes, None)
            self._verify(t, [(fw_boot.RECORD_NEW, record_bytes)])
            t.exec("os.rename(%r, %r)" % (fw_boot.RECORD_NEW, fw_boot.RECORD))
            # Last: from now on the board boots the firmware.
            t.exec("os.rename('main.py.new', 'main.py')")
            self._verify(t, [("main.py", dict(roots)["main.py"])])
        except TransportError as exc:
            raise FlashFailed("copying to the board failed (%s). The board starts as before "
                              "(main.py was not changed); run vora flash again." % exc)
        finally:
            if bar is not None:
                bar.stop()
        try:
            t.exec_raw_no_follow("import time, machine\ntime.sleep_ms(50)\nmachine.reset()")
        except TransportError:
            pass

    def _copy(self, t, path, data, bar):
        base = [0]

        def step(done, total):
            if bar is not None:
                bar.advance(self._task, done - base[0])
            base[0] = done

        t.fs_writefile(path, data, progress_callback=step)
        self.written.append((path, len(data)))

    def _verify(self, t, files):
        import hashlib
        for path, data in files:
            got = t.fs_hashfile(path, "sha256")
            if got != hashlib.sha256(data).digest():
                raise FlashFailed("%s differs on the board after copying (its flash or the "
                                  "cable?). The board starts as before; run vora flash again." % path)

    def _bar(self, total):
        if not self.progress:
            return None
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, \
            TimeRemainingColumn
        bar = Progress(TextColumn("copying"), BarColumn(), DownloadColumn(),
                       TimeRemainingColumn(), console=self.console)
        self._task = bar.add_task("copy", total=total)
        bar.start()
        return bar

    # ---- the firmware's hello

    def _wait_hello(self, version):
        end = time.monotonic() + self.confirm_wait_s
        conn = Connection(self.device)
        last = "no answer"
        time.sleep(0.3)
        try:
            while time.monotonic() < end:
                try:
                    conn.reopen(max(0.1, end - time.monotonic()))
                    board = conn.hello(min(3.0, max(0.5, end - time.monotonic())))
                except LinkError as exc:
                    last = str(exc)
                    time.sleep(0.3)
                    continue
                boot = board.get("boot") if isinstance(board.get("boot"), dict) else {}
                if board.get("fw") == version and boot.get("state") == "confirmed":
                    self.console.print("[green]The firmware says hello: Vora Board %s on %s "
                                       "(protocol %s.%s), confirmed.[/]" % (
                                           version, self.device, board.get("proto"),
                                           board.get("minor")))
                    return board
                last = "it runs %s (%s)" % (board.get("fw"), boot.get("state"))
                conn.close()
                time.sleep(0.5)
        finally:
            conn.close()
        raise FlashFailed("the firmware did not say hello and confirm itself within %.0f s "
                          "(%s). Hold a corner key while plugging the board in (safe mode) "
                          "and run vora flash again." % (self.confirm_wait_s, last))
