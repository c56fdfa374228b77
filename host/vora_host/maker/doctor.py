"""`vora doctor`: is this board well? Versions and memory, then a guided test on the board.

1. HELLO and DIAG (docs/protocol.md, "The doctor"): firmware, protocol and MicroPython
   versions, free memory and flash, boot state, pixel caps, keys down right now.
2. Pixels: terminal mode, every pixel red, then green, blue and white, each shown until
   the person at the board says whether every key shows it (Enter) or for --colour-s
   seconds; the board reports the current it estimates for what it shows (after its
   brightness cap and current cap), next to the USB budget.
3. Keys: every key lit dim; each key pressed turns green. Missing keys were never
   pressed; stuck keys read closed before anyone touched the board, or never opened;
   ghosting: keys reported down together with another (press one key at a time) and the
   ambiguous patterns the board's scanner ignored (a missing or failed diode).
4. Back to standalone mode: the game is as it was.

The results come out as a table (rich) and, with --json, as a JSON document (RESULT_KEYS).
"""

import json
import select
import sys
import time

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from shared_rules import wire, wire_host
from vora_fw import layout
from vora_host.maker.link import Connection, LinkError, LinkOpenError

COLOURS = (("red", (255, 0, 0)), ("green", (0, 255, 0)), ("blue", (0, 0, 255)),
           ("white", (255, 255, 255)))
DIM = (24, 24, 24)
SEEN = (0, 160, 0)
HELD = (160, 160, 0)
SETTLE_S = 0.15  # the board shows a frame within a scan or two


UNTIL = object()  # what _wait returns when its condition came true (not a typed line)


class DoctorFailed(Exception):
    pass


NUMBERS = ("mem_free", "mem_alloc", "flash_free", "flash_total", "brightness_cap",
           "brightness", "max_channel_sum", "ma_per_channel_full", "current_budget_ma",
           "supply_ma", "frame_ma", "frame_sum", "current_scale", "frames_limited",
           "ghosts_ignored", "pixels")
TEXTS = ("fw", "micropython", "platform", "mpy", "arch", "board", "port")


def clean_diag(d):
    """DIAG as the doctor uses it: numbers are ints (else None), texts short strings,
    keys_down valid key indices, boot a dict of short strings. The board is untrusted."""
    out = {}
    for k in NUMBERS:
        v = d.get(k)
        out[k] = v if isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2 ** 40 else None
    for k in TEXTS:
        v = d.get(k)
        out[k] = v[:80] if isinstance(v, str) else None
    keys = d.get("keys_down")
    out["keys_down"] = sorted({k for k in keys if isinstance(k, int) and not isinstance(k, bool)
                               and 0 <= k < wire_host.KEYS}) \
        if isinstance(keys, list) else []
    boot = d.get("boot")
    out["boot"] = {k: v[:16] for k, v in boot.items() if isinstance(k, str)
                   and isinstance(v, str)} if isinstance(boot, dict) else None
    return out


def _frame(rgb_of_key):
    out = bytearray(wire.PIXELS_SIZE)
    for k in range(wire_host.KEYS):
        out[3 * k:3 * k + 3] = bytes(rgb_of_key(k))
    return bytes(out)


def _names(keys):
    return [layout.KEY_NAMES[k] for k in sorted(keys)]


class Doctor:
    def __init__(self, device, console=None, colour_s=None, keys_s=60.0, interactive=None,
                 stdin=None):
        self.device = device
        self.console = console or Console(stderr=True)
        self.colour_s = colour_s
        self.keys_s = keys_s
        self.stdin = stdin or sys.stdin
        self.interactive = self.stdin.isatty() if interactive is None else interactive
        self.conn = Connection(device)
        self.events = []  # (key, pressed)

    def run(self, info_only=False):
        try:
            self.conn.open()
            board = self.conn.hello(5.0)
        except LinkOpenError as exc:
            raise DoctorFailed(str(exc))
        except LinkError as exc:
            raise DoctorFailed("no Vora Board firmware answers at %s (%s). A board with stock "
                               "MicroPython: vora flash installs the firmware." % (self.device, exc))
        self.conn.client.on_change = self._changed
        try:
            result = {"device": self.device, "firmware": board.get("fw"),
                      "protocol": "%s.%s" % (board.get("proto"), board.get("minor", 0)),
                      "board": board.get("board")}
            from vora_host import versions
            result["versions_ok"], result["versions"] = versions.compare(
                board.get("fw"), board.get("proto"), board.get("minor", 0))
            diag = self.diag() if "doctor" in (board.get("caps") or []) else None
            if diag is not None:
                for k in ("micropython", "mpy", "arch", "platform", "mem_free", "mem_alloc",
                          "flash_free", "flash_total", "boot", "brightness_cap",
                          "current_budget_ma", "supply_ma", "pixels"):
                    result[k] = diag.get(k)
            else:
                result["note"] = "this firmware has no doctor messages (update it)"
            if not info_only and diag is not None:
                result.update(self.guided(diag))
            return result
        finally:
            try:
                if self.conn.connected():
                    self.conn.client.set_mode(wire.MODE_STANDALONE)
                    self.conn.drain(3.0)
            except LinkError:
                pass
            self.conn.close()

    def _changed(self, what):
        if what == "key" and self.conn.client.keys:
            self.events.append(self.conn.client.keys[-1])

    def diag(self):
        payload = self.conn.request(wire.DIAG_REQ, b"", wire.DIAG, timeout=10.0)
        try:
            d = wire.unpack_json(payload)
        except wire.WireError as exc:
            raise DoctorFailed("the board sent a malformed DIAG: %s" % exc)
        return clean_diag(d)

    # ---- the guided test

    def _show(self, frame):
        self.conn.send(wire.PIXELS, frame)
        self.conn.drain(5.0)

    def _wait(self, seconds, prompt=None, until=None):
        """Let the board run: for `seconds` (None: no limit), or until a line is typed when
        interactive (the line is returned, "" for Enter alone), or until until() is true
        (UNTIL); None at the end of the time."""
        if prompt:
            self.console.print(prompt)
        end = None if seconds is None else time.monotonic() + seconds
        while True:
            self.conn.pump(0.002)
            if until is not None and until():
                return UNTIL
            if end is not None and time.monotonic() > end:
                return None
            if self.interactive:
                r, _, _ = select.select([self.stdin], [], [], 0)
                if r:
                    return self.stdin.readline().strip()

    def guided(self, diag):
        conn = self.conn
        stuck_at_start = set(diag["keys_down"])
        ghosts_before = diag.get("ghosts_ignored") or 0
        conn.client.set_mode(wire.MODE_TERMINAL)
        conn.drain(5.0)
        colours = []
        self.console.print("[bold]Pixels[/]: every key shows each colour in turn.")
        for name, rgb in COLOURS:
            self._show(_frame(lambda k: rgb))
            time.sleep(SETTLE_S)
            d = self.diag()
            hold = self.colour_s if self.colour_s is not None else (
                None if self.interactive else 1.0)
            answer = self._wait(hold, "  every key %s? Enter if so, or type the keys that are "
                                "not (e.g. a1 Sc), then Enter" % name if hold is None else None)
            bad = []
            if answer:
                bad = [w for w in answer.replace(",", " ").split() if w in layout.KEY_NAMES]
            colours.append({"colour": name, "estimated_ma": d.get("frame_ma"),
                            "current_scale": round((d.get("current_scale") or 1024) / 1024, 3),
                            "checked": bool(self.interactive and self.colour_s is None),
                            "bad_keys": bad})
        self.console.print("[bold]Keys[/]: press every key once, one at a time (the lit ones "
                           "are left)%s." % (", then Enter" if self.interactive else ""))
        seen = set()
        down = set()
        together = set()
        self.events.clear()

        def frame():
            return _frame(lambda k: SEEN if k in seen else HELD if k in down else DIM)

        self._show(frame())
        end = time.monotonic() + self.keys_s
        while time.monotonic() < end:
            got = self._wait(0.05, until=lambda: bool(self.events))
            changed = False
            while self.events:
                k, pressed = self.events.pop(0)
                changed = True
                if pressed:
                    if down:
                        together.add(k)
                        together.update(down)
                    down.add(k)
                else:
                    down.discard(k)
                    if k not in stuck_at_start:
                        seen.add(k)
            if changed:
                self._show(frame())
            if got is not None and got is not UNTIL:
                break  # Enter: the person has pressed every key they meant to
            if len(seen) == wire_host.KEYS - len(stuck_at_start) and not down:
                break
        after = self.diag()
        stuck = stuck_at_start | set(after["keys_down"])
        missing = set(range(wire_host.KEYS)) - seen - stuck
        ghosts = (after.get("ghosts_ignored") or 0) - ghosts_before
        white = colours[-1]
        return {
            "colours": colours,
            "keys_pressed": _names(seen), "keys_missing": _names(missing),
            "keys_stuck": _names(stuck), "keys_ghosting": _names(together),
            "ghost_patterns_ignored": ghosts,
            "white_estimated_ma": white["estimated_ma"],
            "ok": not missing and not stuck and not together and ghosts == 0
            and not any(c["bad_keys"] for c in colours),
        }


# ---------------------------------------------------------------- output

def table(result):
    t = Table(title="Vora Board doctor: %s" % escape(str(result.get("device"))),
              show_header=False, box=None, padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()

    def row(label, value):
        t.add_row(label, escape(str(value)) if value is not None else "-")

    row("firmware", result.get("firmware"))
    row("protocol", result.get("protocol"))
    if result.get("versions"):
        row("this vora", result["versions"])
    row("MicroPython", "%s (%s, .mpy v%s%s)" % (result.get("micropython"), result.get("platform"),
                                               result.get("mpy"), ", " + result["arch"]
                                               if result.get("arch") else ""))
    row("board", result.get("board"))
    mf = result.get("mem_free")
    row("free memory", "%d KB" % (mf // 1024) if isinstance(mf, int) else "unknown")
    ff = result.get("flash_free")
    row("free flash", "%d of %d KB" % (ff // 1024, (result.get("flash_total") or 0) // 1024)
        if isinstance(ff, int) else "unknown")
    boot = result.get("boot") or {}
    row("boot", "slot %s, %s" % (boot.get("slot"), boot.get("state")) if boot else None)
    if result.get("note"):
        row("note", result["note"])
    if "colours" in result:
        row("brightness cap", "%s of 255" % result.get("brightness_cap"))
        for c in result["colours"]:
            row("all %s" % c["colour"], "about %s mA%s%s" % (
                c["estimated_ma"], " (scaled to %d %% by the current cap)" % (c["current_scale"] * 100)
                if c["current_scale"] < 1 else "",
                "; wrong: " + " ".join(c["bad_keys"]) if c["bad_keys"] else ""))
        row("USB budget", "%s mA for the LEDs (supply %s mA)" % (result.get("current_budget_ma"),
                                                                result.get("supply_ma")))
        row("keys pressed", "%d of 49" % len(result["keys_pressed"]))
        row("missing keys", " ".join(result["keys_missing"]) or "none")
        row("stuck keys", " ".join(result["keys_stuck"]) or "none")
        row("ghosting keys", (" ".join(result["keys_ghosting"]) or "none") + (
            "; %d ambiguous patterns ignored" % result["ghost_patterns_ignored"]
            if result["ghost_patterns_ignored"] else ""))
        row("verdict", "all well" if result["ok"] else "see the keys above")
    return t


def main(args, device, console, err):
    doctor = Doctor(device, console=err, colour_s=args.colour_s, keys_s=args.keys_s)
    try:
        result = doctor.run(info_only=args.info)
    except (DoctorFailed, LinkError) as exc:
        err.print("[red]vora doctor: %s[/red]" % escape(str(exc)))
        return 1
    text = json.dumps(result, indent=2, sort_keys=True)
    if args.json_file == "-":
        sys.stdout.write(text + "\n")
    else:
        console.print(table(result))
        if args.json_file:
            try:
                with open(args.json_file, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
            except OSError as exc:
                err.print("[red]vora doctor: cannot write %s: %s[/red]" % (
                    escape(args.json_file), escape(exc.strerror or str(exc))))
                return 1
    return 0 if result.get("ok", True) else 1
