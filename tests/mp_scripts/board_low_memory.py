"""The board out of memory in the middle of a game, for the Unix port's hard heap
(tests/test_micropython_unix.py): a 2-player game by keys on the simulated hardware; before
the key that confirms a move, ballast fills the heap until only LEFT bytes are free, so
the move's allocations fail even after a collection. The board must keep the move, save
the game and show the error; once the ballast is gone, the move settles and the game goes
on to its end. Prints what it saw, one fact a line.

Usage (module on the path): board_low_memory SEED LEFT
"""

import gc
import json
import sys

from shared_rules import prng
from vora_fw import layout
from vora_fw.app import App
from vora_fw.hal_sim import SimHardware, default_pinmap
from vora_fw.store import Store
from vora_fw.vora_ui import SAVE_RETRY_MS
import board_player

SEED = int(sys.argv[1])
LEFT = int(sys.argv[2])


class Run:
    pass


R = Run()
R.now = 0


def scan(ms):
    end = R.now + ms
    while R.now < end:
        R.now += 5
        R.app.step(R.now)


def press(name):
    k = layout.key_index(name)
    R.hw.press(k)
    scan(60)
    R.hw.release(k)
    scan(60)


def fill(left):
    """Ballast until at most about `left` bytes of the heap could still be had: a chain of
    small nodes, as one big list would fail to grow long before the heap is full."""
    chain = None
    for size in (4096, 1024, 256, 64, 16):
        try:
            while True:
                chain = [chain, bytearray(size)]
        except MemoryError:
            pass
    freed = 0
    while freed < left and chain is not None:
        freed += len(chain[1]) + 16
        chain = chain[0]
    return chain


def main():
    try:
        import os
        os.mkdir("save")
    except OSError:
        pass
    R.hw = SimHardware()
    R.app = App(R.hw, default_pinmap(), Store("save"), seed_fn=lambda: SEED)
    ui = R.app.ui
    press("c3")  # S and N
    chooser = prng.seed_state(SEED)
    for _ in range(6):
        i, chooser = prng.below(chooser, len(ui.legal))
        for name in board_player.move_keys(ui, ui.legal[i]):
            press(name)
    i, chooser = prng.below(chooser, len(ui.legal))
    move = ui.legal[i]
    keys = board_player.move_keys(ui, move)
    for name in keys:
        if ui.preview != move:
            press(name)
            continue
        gc.collect()
        # A pocket for the key scanner's list of events, given back to the heap at the
        # collection the first failed allocation runs: the scan reports the key (a scan
        # that cannot is skipped, the key kept for the next: board_scan_no_memory.py) and
        # it is the move's allocations that fail, wherever the heap's last holes were.
        pocket = bytearray(256)
        ballast = fill(LEFT)
        pocket = None  # noqa: F841  (freed at the next collection)
        press(name)  # the confirming key, with the heap all but full
        oom, shown = R.app.out_of_memory, ui.memory_error
        room = 0
        while room < 16384:  # room for this script's checks; the heap stays nearly full
            room += len(ballast[1])
            ballast = ballast[0]
        gc.collect()
        print("out_of_memory", oom, "memory_error", shown)
        played = len(ui.moves)
        with open("save/game.json") as f:
            f.readline()  # the header
            saved = json.loads(f.read())
        print("saved_as_played", saved["moves"] == list(ui.moves),
              saved["state"] == json.loads(ui.state.to_json()))
        red = 0
        c3 = layout.key_index("c3") * 3
        edge = layout.key_index("Na") * 3
        for _ in range(100):  # half a second: the error blinks twice a second
            R.now += 5
            R.app.step(R.now)
            f = R.hw.frame_rgb()
            if f[c3] > 0 and f[c3 + 1] == f[c3 + 2] == 0 and f[edge] > 0 and f[edge + 1] == 0:
                red += 1
        print("red_frames", red > 0, "out_of_memory", R.app.out_of_memory)
        ballast = None
        gc.collect()
        scan(SAVE_RETRY_MS + 100)
        print("settled", ui.unsettled is None, "legal", len(ui.legal) > 0)
    print("moves", played, len(ui.moves))
    while ui.mode != 3:
        if ui.unsettled is not None:  # out of memory again: the board retries by itself
            scan(100)
            continue
        i, chooser = prng.below(chooser, len(ui.legal))
        for name in board_player.move_keys(ui, ui.legal[i]):
            press(name)
    print("over", len(ui.moves), ui.state.digest(), "out_of_memory", R.app.out_of_memory)


main()
