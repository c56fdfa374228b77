"""The maker mode: the board with only its link, the updater and the doctor; no game.

An update offered while the game runs restarts the board into this mode (vora_fw.maker
leaves a request on the flash, vora_fw.start takes it at the next start, once). Here the
game's modules are never imported (the rules, the board's game, the save), so the update
has the heap whole, as MCUboot's separate updater has: the updater is imported first,
before anything has cut the heap into pieces. The game was saved at its last move and
resumes at the next start, as after a power cut.

The mode ends with a reset back to the game: the PC's UPD_RESET (after a switch, the new
version then starts on trial), a key pressed by a person at the board (outside the
doctor's terminal mode), or IDLE_MS without a frame from the PC (a PC that went away). A
power cut or a crash in it starts the game too (the request was removed before). The
safety of the update is the updater's, unchanged: the other slot, the hashes, the switch.

The keys show the mode: the 20 edge keys in dim blue, lit brighter one by one as the
update's files come in.
"""

import gc

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from vora_fw.clock import ticks_diff
from vora_fw.keyscan import KeyScanner
from vora_fw.pixels import PixelOutput

IDLE_MS = const(60000)  # no frame from the PC this long: back to the game
# What an update needs of the heap besides its code (vora_fw.update: the manifest's
# entries, the hashes, a chunk, the staging's state), with the manifest's bytes on top.
# Checked at the offer, before anything is written: an update that cannot have it is
# refused, saying so, and the board goes back to its game.
UPDATE_HEAP = const(12288)


def heap_short(manifest_size):
    """None when the heap can take an update with a manifest of that size now, else what
    to do, with the figures."""
    mem_free = getattr(gc, "mem_free", None)
    if mem_free is None:
        return None  # CPython: no fixed heap
    gc.collect()
    need = UPDATE_HEAP + manifest_size
    free = mem_free()
    if free >= need:
        return None
    return ("the update needs %d bytes of the board's heap and its maker mode has %d free: "
            "install the firmware with vora flash --romfs or a frozen build, which keep the "
            "code out of the heap (docs/makers.md)" % (need, free))
_TERMINAL = const(1)  # shared_rules.wire.MODE_TERMINAL
_DIM = const(12)
_LIT = const(64)


class MakerMode:
    """hw: the board's hardware layer; link: its BoardLink (made here by run_maker_mode);
    reset(): restarts the board. Has what the makers' service and the doctor read of an
    application: hw, scanner, output, release_reserve()."""

    def __init__(self, hw, pinmap, boot, link, reset, version, statvfs=None, now=0):
        from vora_fw.maker import MakerService
        self.link = link
        self.reset = reset
        self.maker = link.maker = MakerService(link, self, pinmap, boot, boot.identity,
                                               version, reset, statvfs)
        # The updater before anything else, while the heap is in one piece.
        self.maker.updater = self.maker._make_updater()
        self.maker.heap_short = heap_short
        self.hw = hw
        self.scanner = KeyScanner(pinmap.get("debounce_ms", 20))
        self.output = PixelOutput(pinmap, hw.pixels)
        self.frame = bytearray(147)
        self.rows = bytearray(7)
        self.last_input = now
        self.frames_seen = 0
        self.left = False
        self.shown = -1
        gc.collect()

    def release_reserve(self):
        gc.collect()  # no reserve here: the heap is the update's

    def step(self, now):
        """One scan, the link served, the keys drawn when they change."""
        link = self.link
        for k, pressed in self.scanner.update_rows(self.hw.read_rows(self.rows), now):
            if link.mode == _TERMINAL:
                link.key_event(k, pressed)  # the doctor's key test
            elif pressed:
                self.leave()  # a person at the board: back to the game
        link.poll(now)
        if self.maker.refused_memory:
            self.leave()  # no update fits here: back to the game (the PC was told why)
        n = link.session.frames_received
        if n != self.frames_seen:
            self.frames_seen = n
            self.last_input = now
        elif ticks_diff(now, self.last_input) >= IDLE_MS:
            self.leave()
        self.render()

    def leave(self):
        if not self.left:
            self.left = True
            self.reset()

    def render(self):
        link = self.link
        if link.mode == _TERMINAL:
            if link.frame_changed:
                link.frame_changed = False
                self.output.show(link.frame)
                self.shown = -1
            return
        up = self.maker.updater
        lit = 0
        if up is not None and up.files:
            lit = 20 * (up.file - 1) // len(up.files) if up.file else 0
        if lit == self.shown:
            return
        self.shown = lit
        frame = self.frame
        n = 0
        for k in range(49):
            x, y = k % 7, k // 7
            level = 0
            if (x in (0, 6)) != (y in (0, 6)):  # an edge key, not a corner
                level = _LIT if n < lit else _DIM
                n += 1
            frame[3 * k] = 0
            frame[3 * k + 1] = 0
            frame[3 * k + 2] = level
        self.output.show(frame)


def make_maker_mode(hw, pinmap, boot, port, reset, collect_often):
    """The link and the maker mode on it: (link, mode). Their modules are loaded with the
    collector running often (vora_fw.start.collect_often, given here: the start imports
    this module, not the other way round), which keeps the heap whole; then
    collect_often(False), as in the game. Left on, it collected every KB the link
    allocated, about 14 ms each on a Pico's 233 KB heap: 85 to 90% of the chip's time, a
    loop of a third of a second, and the PC's session gave up before the update went
    through (bench/bench_rp2040.py, an emulated RP2040)."""
    import os
    from vora_fw import VERSION
    from vora_fw.clock import ticks_ms
    from vora_fw.link import BoardLink
    link = BoardLink(port.write, port.read, board=pinmap.get("board", ""))
    mode = MakerMode(hw, pinmap, boot, link, reset, VERSION, getattr(os, "statvfs", None),
                     ticks_ms())
    collect_often(False)
    return link, mode


def run_maker_mode(hw, pinmap, boot, port, reset, collect_often):
    """The maker mode on the board, until a reset ends it; returns when the PC asks for
    the REPL."""
    import time
    from vora_fw.clock import ticks_ms
    link, mode = make_maker_mode(hw, pinmap, boot, port, reset, collect_often)
    while not link.repl_requested:
        mode.step(ticks_ms())
        time.sleep_ms(5)  # type: ignore[attr-defined]
    mode.output.off()
