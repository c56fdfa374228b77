"""The firmware on an emulated Raspberry Pi Pico (RP2040, rp2040js at 125 MHz) with the PC's side on
the PC: stock MicroPython's heap at boot, `vora flash` (the firmware as .mpy files onto the
board's filesystem), games played by the board's keys with the PC following every move over the
emulated USB serial port, the free heap and largest free block after each game, key event (its
KEY message) to frame and key press to frame at the emulated 125 MHz, keys missed, scan gaps,
and `vora update` (the whole firmware) in the middle of a game.

    VORA_PICO_FIRMWARE=.../firmware.elf VORA_PICO_BOOTROM=.../bootrom \\
        .venv/bin/python bench/bench_rp2040.py [--games 3] [--seed 1] [--hold-ms 60]
            [--flash-in FILE] [--save-flash FILE] [--install-only] [--no-update]
            [--part all|update|resume] [--moves-after-update N]

It needs an RPI_PICO MicroPython firmware built from MicroPython's source (its ELF, for the
symbols: ports/rp2/build-RPI_PICO/firmware.elf), the RP2040 bootrom (B1) image, Node.js and
`npm ci` in bench/rp2040/. Nothing of them is in this repository: bench/rp2040/README.md says
what to get. Not part of the tests.

The run (a game's moves are chosen at random among the legal ones, seeded):
  1. boot stock MicroPython, micropython.mem_info() at its REPL (the heap every later figure is
     of), then `vora flash` as a maker runs it (skipped with --flash-in: a flash image saved
     by --save-flash after an install);
  2. game 1: 4 players, every move by keys, the PC following;
  3. game 2: S and N by keys, W and E the board's own bot (corners held 2 s), a takeback by
     keys at move 9, a power cut at move 15 and the game resumed from its save;
  4. game 3: 2 players by keys; at move 10 `vora update` (the whole firmware, the host's
     own command): the board saves, restarts into its maker mode, takes it, switches,
     restarts into the new version on trial, which confirms itself; the game goes on;
  5. games 4..N: 2 to 4 players by keys (every fifth with a board's bot seat).
(--install-only stops after 1; --part update plays game 3 alone, --part resume game 2.) An update that does not go
through is reported and the run goes on: a key pressed at the board ends its maker mode, as a
maker would, and the game resumes; the exit status is then 1.
After each game: the heap as the collection that the board makes when it leaves the game
(vora_fw.vora_ui._leave_game, at the centre key) left it, read from the emulated RAM by the
harness (no code of the bench runs on the board: the PC's side is all on the PC), and the
lowest free heap and smallest largest free block at any collection during the game.

The PC's side runs on the board's clock: time.monotonic() and time.time() of this process
and of the `vora` commands it runs follow the emulated time (the harness's clock file), so
the host's timeouts mean what they mean with a real Pico, whatever the emulation's speed.
"""

import argparse
import json
import mmap
import os
import random
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "bench" / "rp2040" / "harness.mjs"
PINMAP = ROOT / "hardware" / "pinmap-rp2-pico.json"
_real_monotonic = time.monotonic
_real_time = time.time
_real_sleep = time.sleep


# ---- the board's clock for the PC's side -------------------------------------------------

class EmulatedClock:
    """The emulated time from the harness's clock file (float64 seconds at offset 0)."""

    def __init__(self, path):
        self.f = open(path, "rb")
        self.mm = mmap.mmap(self.f.fileno(), 8, access=mmap.ACCESS_READ)
        self.wall0 = _real_time()

    def now(self):
        return struct.unpack_from("<d", self.mm, 0)[0]

    def install(self):
        """time.monotonic() and time.time() of this process follow the emulated time;
        time.sleep() sleeps at most a little real time (the board runs slower than real)."""
        time.monotonic = self.now
        time.time = lambda: self.wall0 + self.now()


def run_vora(clock_file, argv):
    """`vora ARGV...` in this process, on the board's clock (the hidden `_vora` command)."""
    EmulatedClock(clock_file).install()
    sys.path[:0] = [str(ROOT / "host"), str(ROOT), str(ROOT / "firmware")]
    sys.argv = ["vora"] + argv
    from vora_host.cli import main
    return main()


# ---- the harness ---------------------------------------------------------------------------

class Harness:
    def __init__(self, firmware, bootrom, flash_in=None, log_path=None):
        node = shutil.which("node")
        if node is None:
            raise SystemExit("bench_rp2040: Node.js (node) is needed for bench/rp2040/harness.mjs")
        if not (HARNESS.parent / "node_modules" / "rp2040js").is_dir():
            raise SystemExit("bench_rp2040: rp2040js is not installed: run `npm ci` in bench/rp2040/")
        self.tmp = tempfile.mkdtemp(prefix="vora-rp2040-")
        self.clock_file = os.path.join(self.tmp, "clock")
        cmd = [node, str(HARNESS), "--firmware", str(firmware), "--bootrom", str(bootrom),
               "--pinmap", str(PINMAP), "--clock-file", self.clock_file]
        if flash_in:
            cmd += ["--flash-in", str(flash_in)]
        self.log_path = log_path or os.path.join(self.tmp, "harness.log")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(self.log_path, "w"),
                                     text=True)
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise SystemExit("bench_rp2040: the harness did not start:\n" + open(self.log_path).read())
        info = json.loads(line)
        self.url = "socket://127.0.0.1:%d" % info["serial"]
        self.ctl = socket.create_connection(("127.0.0.1", info["control"]))
        self.ctl.setblocking(False)
        self.buf = b""
        self.ids = 0
        end = _real_monotonic() + 60
        while not os.path.exists(self.clock_file) or os.path.getsize(self.clock_file) < 8:
            if self.proc.poll() is not None or _real_monotonic() > end:
                raise SystemExit("bench_rp2040: the harness wrote no clock:\n"
                                 + open(self.log_path).read()[-2000:])
            _real_sleep(0.01)
        self.clock = EmulatedClock(self.clock_file)

    def send(self, **req):
        self.ids += 1
        req["id"] = self.ids
        self.ctl.sendall((json.dumps(req) + "\n").encode())
        return self.ids

    def poll(self, rid, timeout=0.0):
        """The answer to request rid, or None if it has not come within timeout (real s)."""
        end = _real_monotonic() + timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                ans = json.loads(line)
                if ans.get("id") == rid:
                    if "error" in ans:
                        raise RuntimeError("harness: %s" % ans["error"])
                    return ans
            left = end - _real_monotonic()
            r, _, _ = select.select([self.ctl], [], [], max(0.0, left))
            if r:
                d = self.ctl.recv(65536)
                if not d:
                    raise RuntimeError("the harness closed its control port:\n" + self.tail())
                self.buf += d
            elif left <= 0:
                return None

    def call(self, **req):
        return self.poll(self.send(**req), timeout=3600)

    def now(self):
        return self.clock.now()

    def tail(self, n=3000):
        try:
            return open(self.log_path).read()[-n:]
        except OSError:
            return ""

    def close(self):
        try:
            self.call(cmd="quit")
        except Exception:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


# ---- the PC's side of the link -----------------------------------------------------------

class Link:
    def __init__(self, url):
        import serial
        from vora_host.link.client import BoardClient
        self.ser = serial.serial_for_url(url, timeout=0)
        self.client = BoardClient(self.ser.write)

    def pump(self):
        from vora_host.link.client import ticks_ms
        data = self.ser.read(65536)
        if data:
            self.client.feed(data, ticks_ms())
        self.client.poll(ticks_ms())
        return bool(data)

    def close(self):
        self.ser.close()


class Bench:
    def __init__(self, h, a):
        self.h = h
        self.a = a
        self.rng = random.Random(a.seed)
        self.link = None
        self.pinmap = json.loads(PINMAP.read_text())
        self.latency = []  # key event to frame, ns (the board's KEY message to the next frame)
        self.press_latency = []  # key press to that frame, ns
        self.event_delay = []  # the KEY message after the press's debounce time, ns
        self.unmeasured = 0
        self.rows = []  # (label, free, largest, lowest free in the game, smallest largest)
        self.chosen = "SN"  # the setup's seats, as the board has them since its start
        self.bots = ""
        self.mark = 0  # gc log sequence at the start of the current game
        self.problems = []
        self.heard = []  # (key, pressed) as the board reported them to the PC
        self.taps = 0
        self.missed = 0  # presses the board did not report (pressed again)
        self.missed_keys = []

    # ---- time and the link

    def pump_until(self, cond, emu_s, what):
        end = self.h.now() + emu_s
        while True:
            got = cond()
            if got:
                return got
            if self.h.now() > end:
                raise RuntimeError("%s: not within %.0f s of the board's time" % (what, emu_s))
            if not (self.link and self.link.pump()):
                _real_sleep(0.003)

    def wait_emu(self, s):
        end = self.h.now() + s
        while self.h.now() < end:
            if not (self.link and self.link.pump()):
                _real_sleep(0.003)

    def connect(self, emu_s=60):
        if self.link is not None:
            self.link.close()
        self.link = Link(self.h.url)
        c = self.link.client
        c.on_change = self._key_heard
        self.pump_until(lambda: c.connected, emu_s, "the firmware's HELLO_OK")
        return c.board

    # ---- keys

    def key_pins(self, name):
        from vora_fw import layout
        k = layout.key_index(name)
        x, y = k % 7, k // 7  # rotation 0 in the Pico's pin map: wired cell = logical key
        return self.pinmap["row_pins"][y], self.pinmap["col_pins"][x]

    def _key_heard(self, what):
        if what == "key" and self.link is not None and self.link.client.keys:
            self.heard.append(self.link.client.keys[-1])

    def tap(self, name, hold_ms=None):
        """Press and release a key (held hold_ms, then as long again before the next), and
        check that the board reported the press to the PC (its KEY message): a press the
        board did not see (it was busy for longer than the key was held) is counted and
        pressed again, as a person would."""
        from vora_fw import layout
        row, col = self.key_pins(name)
        k = layout.key_index(name)
        hold = self.a.hold_ms if hold_ms is None else hold_ms
        for attempt in range(4):
            seen = len(self.heard)
            rid = self.h.send(cmd="tap", key=name, row=row, col=col, hold_ms=hold, gap_ms=self.a.hold_ms)
            while True:
                ans = self.h.poll(rid, 0.003)
                if ans is not None:
                    break
                self.link.pump()
            self.taps += 1
            end = self.h.now() + 0.5
            while (k, True) not in self.heard[seen:] and self.h.now() < end:
                if not self.link.pump():
                    _real_sleep(0.003)
            if (k, True) in self.heard[seen:]:
                break
            self.missed += 1
            self.missed_keys.append((name, len(self.link.client.moves), round(self.h.now(), 1)))
        if hold_ms is None or hold_ms < 500:
            if ans["key_to_frame_ns"] is not None:
                self.latency.append(ans["key_to_frame_ns"])
                self.press_latency.append(ans["press_to_frame_ns"])
                self.event_delay.append(ans["event_delay_ns"])
            else:
                self.unmeasured += 1
        self.link.pump()
        return ans

    # ---- playing

    def state(self):
        return self.link.client.state

    def move_keys(self, move):
        """The keys that play `move` (tests/board_player.py's guide, from the PC's replay of
        the game: the farm as the board lays it out on the meadow, the pig's and the wolf's
        second press when the plain push is legal too)."""
        from shared_rules import vora
        from vora_fw.vora_ui_frames import farm_layout
        st = self.state()
        me = "c" + st.seats[st.active]
        words = move.split(" ")
        verb = words[0]

        def farm_key(player, type_name):
            cells = farm_layout(st.farms[player], st.seats[st.active])
            return vora.CELL_NAMES[cells.index(vora.TYPES.index(type_name))]

        keys = []
        if verb in ("push", "pig", "wolf", "crow"):
            type_name = words[1] if verb == "push" else verb
            keys += [me, farm_key(st.active, type_name), words[-1]]
            if verb in ("pig", "wolf") and "push %s %s" % (verb, words[-1]) in st.legal_moves():
                keys.append(words[-1])
        elif verb in ("mole", "duck"):
            keys += [words[1], words[2]]
        elif verb in ("ladybug", "water", "take", "extra"):
            keys.append(words[1])
        elif verb == "steal":
            keys += ["c" + st.seats[int(words[1])], farm_key(int(words[1]), words[2])]
        elif verb == "pass":
            keys.append(me)
        keys.append(me)
        return keys

    def person_move(self):
        c = self.link.client
        st = self.state()
        moves = list(st.legal_moves())
        move = moves[self.rng.randrange(len(moves))]
        before = len(c.moves)
        for attempt in range(2):
            refused = len(c.refused)
            for k in self.move_keys(move):
                self.tap(k)
            try:
                self.pump_until(lambda: len(c.moves) > before, 10, "the move %r by keys" % move)
                break
            except RuntimeError:
                if attempt:
                    raise
                self.problems.append("move %d %r: the keys did not play it (refused: %s); "
                                     "pressed again" % (before + 1, move, list(c.refused)[refused:]))
        if c.moves[before] != move:
            raise RuntimeError("the keys played %r, not %r" % (c.moves[before], move))

    def active_is_bot(self):
        c = self.link.client
        st = self.state()
        return st.seats[st.active] in (c.board_bots or "")

    def set_up(self, seats, bots, tries=3):
        """Seats by keys, as the soak's set_up: a corner adds or removes a seat, a corner
        held 2 s gives it to the board's bot; the centre key deals. The board does not
        tell the PC its setup, so it is tracked here; a deal that differs is ended from the
        menu (which leaves the setup as dealt, then known) and set up again."""
        c = self.link.client
        for _ in range(tries):
            for seat in "SWNE":
                if seat in self.bots and seat not in bots:
                    self.tap("c" + seat)  # a bot seat pressed: out of play
                    self.bots = self.bots.replace(seat, "")
                    self.chosen = self.chosen.replace(seat, "")
                if seat in bots and seat not in self.bots:
                    self.tap("c" + seat, 2100)
                    self.bots += seat
                    if seat not in self.chosen:
                        self.chosen += seat
                elif seat not in bots and (seat in seats) != (seat in self.chosen):
                    self.tap("c" + seat)
                    self.chosen = self.chosen.replace(seat, "") if seat in self.chosen else self.chosen + seat
            old = c.game_id
            self.tap("c3")
            self.pump_until(lambda: c.game_id != old and c.state is not None, 20, "the deal")
            self.wait_emu(0.5)
            st = c.state
            self.chosen = st.seats
            self.bots = c.board_bots or ""
            if sorted(st.seats) == sorted(seats) and sorted(self.bots) == sorted(bots):
                return
            self.problems.append("setup gave seats %s bots %r for %s %r: ended and set again"
                                 % (st.seats, self.bots, seats, bots))
            self.end_game_from_menu()
        raise RuntimeError("could not set up %s with bots %r" % (seats, bots))

    def end_game_from_menu(self):
        st = self.state()
        old = self.link.client.game_id
        self.tap("c" + st.seats[st.active], 2100)  # the menu
        self.tap("c4")  # end the game
        self.wait_emu(0.5)
        assert self.link.client.game_id == old

    def takeback(self):
        c = self.link.client
        st = self.state()
        n = len(c.moves)
        self.tap("c" + st.seats[st.active], 2100)  # the menu
        self.tap("c3")  # take back
        for seat in st.seats:
            if seat != st.seats[st.active] and seat not in (c.board_bots or ""):
                self.tap("c" + seat)  # every other person agrees
        self.pump_until(lambda: c.takebacks > 0 and len(c.moves) < n, 10, "the takeback")
        print("  takeback: %d moves -> %d" % (n, len(c.moves)), flush=True)

    def play(self, label, stop_at=None, takeback_at=None):
        """Play the followed game until it is over (True) or has stop_at moves (False)."""
        c = self.link.client
        while not c.state.is_over():
            n = len(c.moves)
            if stop_at is not None and n >= stop_at:
                return False
            if self.active_is_bot():
                self.pump_until(lambda: len(c.moves) > n or c.state.is_over(), 90,
                                "the board's bot's move %d" % (n + 1))
                continue
            if takeback_at is not None and n >= takeback_at:
                takeback_at = None
                self.takeback()
                continue
            self.person_move()
            if len(c.moves) % 20 == 0:
                print("    game %s: %d moves, board time %.0f s" % (label, len(c.moves), self.h.now()),
                      flush=True)
        return True

    def after_game(self, label):
        """The centre key leaves the game (and collects): the heap then; the lowest at any
        collection during the game."""
        c = self.link.client
        moves = len(c.moves)
        during = [g for g in self.h.call(cmd="gc_log", after=self.mark)["log"]]
        t = self.h.now()
        self.tap("c3")
        self.wait_emu(0.3)
        log = self.h.call(cmd="gc_log", after=self.mark)["log"]
        after = [g for g in log if g["ns"] / 1e9 >= t]
        row = after[0] if after else self.h.call(cmd="heap")["now"]
        low_free = min((g["free"] for g in during), default=row["free"])
        low_block = min((g["max_free"] for g in during), default=row["max_free"])
        self.rows.append((label, row["free"], row["max_free"], low_free, low_block, moves))
        print("  game %s over after %d moves: free %d B, largest free block %d B "
              "(during the game: lowest free %d, smallest largest block %d)"
              % (label, moves, row["free"], row["max_free"], low_free, low_block), flush=True)
        self.mark = log[-1]["seq"] if log else self.mark

    def heap_row(self, label):
        g = self.h.call(cmd="heap")
        last = g["last"] or g["now"]
        self.rows.append((label, last["free"], last["max_free"], None, None, None))
        print("  %s: free %d B, largest free block %d B (the last collection)"
              % (label, last["free"], last["max_free"]), flush=True)
        self.mark = g["collections"]

    def power_cut(self):
        c = self.link.client
        n, game = len(c.moves), c.game_id
        self.link.close()
        self.link = None
        self.h.call(cmd="reset", why="power cut")
        self.chosen, self.bots = "SN", ""
        self.connect()
        self.pump_until(lambda: self.link.client.game_id == game and
                        len(self.link.client.moves) >= n, 30, "the resumed game")
        self.bots = self.link.client.board_bots or ""
        print("  power cut at move %d: game %d resumed with %d moves"
              % (n, game, len(self.link.client.moves)), flush=True)

    def vora(self, *argv, timeout=3600):
        """A `vora` command of the host, as a maker runs it, on the board's clock."""
        cmd = [sys.executable, __file__, "_vora", self.h.clock_file] + list(argv)
        t0r, t0e = _real_monotonic(), self.h.now()
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        out = (done.stdout + done.stderr).strip()
        for line in out.splitlines():
            print("    | " + line, flush=True)
        return done.returncode, out, _real_monotonic() - t0r, self.h.now() - t0e

    def update(self):
        c = self.link.client
        n, game = len(c.moves), c.game_id
        self.link.close()  # the port is the update's now
        self.link = None
        rc, out, real_s, emu_s = self.vora("update", "--port", self.h.url, "--no-progress")
        switched = rc == 0
        print("  vora update: exit %d, %.1f s of the board's time (%.0f s real)"
              % (rc, emu_s, real_s), flush=True)
        self.chosen, self.bots = "SN", ""
        if not switched:
            # As a maker would: a key pressed at the board ends its maker mode (a reset back
            # to the game, which resumes its save).
            row, col = self.key_pins("c3")
            self.h.call(cmd="tap", key="c3", row=row, col=col, hold_ms=1500, gap_ms=200)
            self.problems.append("the update did not go through; a key pressed at the board "
                                 "sent it back to its game")
        self.connect()
        self.heap_row("back in the game after the update" if switched else
                      "back in the game after the failed update")
        self.pump_until(lambda: self.link.client.game_id == game and
                        len(self.link.client.moves) >= n, 30, "the game after the update")
        info = self.link.client.board or {}
        print("  after the update: firmware %s, boot %s" % (info.get("fw"), info.get("boot")),
              flush=True)
        return switched, out


class Installed(Exception):
    """--install-only, --part update: the run ends here."""


def boot_mem_info(h):
    """Stock MicroPython's REPL: micropython.mem_info() and machine.freq()."""
    import serial
    ser = serial.serial_for_url(h.url, timeout=0.05)
    out = b""
    end = h.now() + 30
    while b">>>" not in out and h.now() < end:
        ser.write(b"\r\n")
        _real_sleep(0.3)
        out += ser.read(4096)
    if b">>>" not in out:
        ser.close()
        return None
    ser.reset_input_buffer()
    ser.write(b"import micropython, machine, sys; micropython.mem_info(); "
              b"print('freq', machine.freq()); print(sys.implementation._build, sys.version)\r\n")
    out = b""
    end = h.now() + 10
    while out.count(b">>>") < 1 and h.now() < end:
        out += ser.read(4096)
    ser.close()
    return out.decode(errors="replace")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "_vora":
        sys.exit(run_vora(sys.argv[2], sys.argv[3:]))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--firmware", default=os.environ.get("VORA_PICO_FIRMWARE"),
                   help="an RPI_PICO MicroPython ELF (default $VORA_PICO_FIRMWARE)")
    p.add_argument("--bootrom", default=os.environ.get("VORA_PICO_BOOTROM"),
                   help="the RP2040 bootrom B1 image (default $VORA_PICO_BOOTROM)")
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hold-ms", type=int, default=60)
    p.add_argument("--flash-in", help="start from this flash image (saved with --save-flash)")
    p.add_argument("--save-flash", help="save the flash image here after the install")
    p.add_argument("--no-update", action="store_true")
    p.add_argument("--part", choices=("all", "update", "resume"), default="all",
                   help="update: game 3 alone (2 people, the update at move 10); resume: game 2 "
                        "alone (the board's bot, a takeback at move 9, a power cut at 15)")
    p.add_argument("--moves-after-update", type=int, default=None,
                   help="with --part update: stop this many moves after the update (default: "
                        "play the game to its end)")
    p.add_argument("--install-only", action="store_true",
                   help="stop once the firmware is installed and says hello (with --save-flash: "
                        "the image for later runs' --flash-in)")
    p.add_argument("--harness-log", help="keep the harness's log here")
    a = p.parse_args()
    missing = []
    if not a.firmware or not os.path.isfile(a.firmware):
        missing.append("an RPI_PICO MicroPython firmware ELF: --firmware PATH or "
                       "VORA_PICO_FIRMWARE=PATH (ports/rp2/build-RPI_PICO/firmware.elf of a "
                       "MicroPython build; given: %r)" % a.firmware)
    if not a.bootrom or not os.path.isfile(a.bootrom):
        missing.append("the RP2040 bootrom (B1): --bootrom PATH or VORA_PICO_BOOTROM=PATH "
                       "(given: %r)" % a.bootrom)
    if missing:
        raise SystemExit("bench_rp2040 needs " + "; and ".join(missing) +
                         ". See bench/rp2040/README.md.")
    if a.games < 3:
        p.error("--games: 3 at least (the update is in game 3)")
    sys.path[:0] = [str(ROOT / "host"), str(ROOT), str(ROOT / "firmware")]
    t_real0 = _real_monotonic()
    h = Harness(a.firmware, a.bootrom, a.flash_in, a.harness_log)
    h.clock.install()  # this process's clock is the board's from here on
    b = Bench(h, a)
    result = {}
    try:
        print("Vora Board firmware on an emulated RP2040 (rp2040js, 125 MHz): %s" % a.firmware,
              flush=True)
        if not a.flash_in:
            info = boot_mem_info(h)
            print("stock MicroPython at boot:\n" + "\n".join("    " + l for l in (info or "(no REPL)").splitlines()), flush=True)
            for line in (info or "").splitlines():
                if line.startswith("GC: total:"):
                    result["gc_total"] = int(line.split()[2].rstrip(","))
            rc, out, real_s, emu_s = b.vora("flash", "--port", h.url, "--no-progress")
            print("  vora flash: exit %d, %.1f s of the board's time (%.0f s real)"
                  % (rc, emu_s, real_s), flush=True)
            if rc != 0:
                raise RuntimeError("vora flash failed")
            if a.save_flash:
                h.call(cmd="save_flash", path=os.path.abspath(a.save_flash))
        t = h.now()
        board = b.connect(120)
        print("  the firmware says hello after %.1f s of the board's time: %s %s"
              % (h.now() - t, board.get("fw"), board.get("boot")), flush=True)
        b.wait_emu(1.0)
        b.heap_row("start (the firmware and the link loaded)")
        if a.install_only:
            raise Installed()
        if a.part == "resume":
            b.set_up("SWNE", "WE")
            if not b.play("2", stop_at=15, takeback_at=9):
                b.power_cut()
                b.play("2")
            b.after_game("2")
            raise Installed()
        if a.part == "update":
            b.set_up("SN", "")
            b.play("3", stop_at=10)
            result["update"] = b.update()[0]
            if a.moves_after_update is None:
                b.play("3")
                b.after_game("3")
            else:
                b.play("3", stop_at=10 + a.moves_after_update)
                b.heap_row("%d moves after the update" % a.moves_after_update)
            raise Installed()
        # game 1: four people by keys
        b.set_up("SWNE", "")
        b.play("1")
        b.after_game("1")
        # game 2: the board's bot, a takeback, a power cut
        b.set_up("SWNE", "WE")
        if not b.play("2", stop_at=15, takeback_at=9):
            b.power_cut()
            b.play("2")
        b.after_game("2")
        # game 3: the update in its middle
        b.set_up("SN", "")
        if not b.play("3", stop_at=10):
            if a.no_update:
                b.play("3")
            else:
                result["update"] = b.update()[0]
                b.play("3")
        b.after_game("3")
        for game in range(4, a.games + 1):
            players = 2 + game % 3
            seats = ("SN", "SWN", "SWNE")[players - 2]
            b.set_up(seats, "N" if game % 5 == 0 else "")
            b.play(str(game))
            b.after_game(str(game))
        result["ok"] = True
    except Installed:
        result["ok"] = True
    except Exception as exc:  # the figures so far, and why it stopped
        result["ok"] = False
        print("STOPPED: %s: %s" % (type(exc).__name__, exc), flush=True)
        print(h.tail(2000))
    finally:
        st = h.call(cmd="status")
        h.close()
    lat = sorted(b.latency)
    print()
    print("Emulated RP2040, firmware %s, seed %d, keys held %d ms, %d games played"
          % (os.path.basename(a.firmware), a.seed, a.hold_ms,
             sum(1 for r in b.rows if r[5] is not None)))
    if "gc_total" in result:
        print("  GC total at boot (stock MicroPython): %d B" % result["gc_total"])
    print("  %-45s %9s %9s %11s %11s" % ("after", "free B", "largest", "game: low", "low largest"))
    for label, free, largest, low, lowb, moves in b.rows:
        print("  %-45s %9d %9d %11s %11s" % (label if moves is None else "game %s (%d moves)" % (label, moves),
                                             free, largest, "" if low is None else low,
                                             "" if lowb is None else lowb))
    def pcts(ns):
        ns = sorted(ns)
        return "median %.1f ms, 99th percentile %.1f ms, slowest %.1f ms" % (
            ns[len(ns) // 2] / 1e6, ns[min(len(ns) - 1, int(0.99 * len(ns)))] / 1e6, ns[-1] / 1e6)
    if lat:
        print("  key event to frame (the board's KEY message to the first bit of the next "
              "frame), %d presses: %s" % (len(lat), pcts(lat)))
        print("  key press to frame (with the %d ms debounce): %s"
              % (b.pinmap.get("debounce_ms", 20), pcts(b.press_latency)))
        print("  the KEY message after the press's debounce time (the game's loop taking the "
              "timer interrupt's readings): %s" % pcts(b.event_delay))
    print("  key presses: %d, of which the board did not see %d (held %d ms; pressed again)"
          % (b.taps, b.missed, a.hold_ms))
    if b.missed_keys:
        print("    missed (key, moves played, board time s): %s" % b.missed_keys[:20])
    print("  scans more than 60 ms apart: %d, the longest %.0f ms"
          % (st["scanGapsOver60ms"], st["maxScanGapNs"] / 1e6))
    g = st.get("scanGaps")
    if g:
        print("  scans (row 0 driven) apart: up to 6 ms %d, 6 to 20 ms %d, 20 to 60 ms %d, "
              "over 60 ms %d" % tuple(g))
    if b.unmeasured:
        print("  presses without a measured frame: %d" % b.unmeasured)
    if "update" in result:
        print("  vora update (the whole firmware) in game 3: %s"
              % ("went through" if result["update"] else "FAILED"))
    for pr in b.problems:
        print("  note: " + pr)
    print("  emulated %.0f s in %.0f s real (%.2fx real time); %d resets, %d collections, "
          "%d flash erases, %d programs" % (st["emulated_ns"] / 1e9, _real_monotonic() - t_real0,
                                            st["emulated_ns"] / 1e9 / (_real_monotonic() - t_real0),
                                            st["resets"], st["collections"], st["erases"],
                                            st["programs"]))
    if not result.get("ok") or result.get("update") is False:
        sys.exit(1)


if __name__ == "__main__":
    main()
