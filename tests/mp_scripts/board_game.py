"""The firmware application on the simulated hardware layer, a whole game by key presses.

Runs on CPython and, with `--steps step`, under real MicroPython (tools/mpy_run.mjs), so
the two can be compared move by move: each step() enters one move by pressing keys on the
simulated matrix (held 60 ms, released 60 ms, scanned every 5 ms through the debouncer)
and prints "move <n> <digest> <move>". At the end it prints the measures:
- key_to_frame_us: the longest scan step that delivered a key event, from reading the
  matrix to handing the new frame to the pixel driver (the latency a player feels);
- peak_bytes: heap in use during a key event (the collector held off: an upper bound; the
  game saved after every move, as on the board; the driver's own report and its clock's
  reads not counted), with the state, the application and its buffers, less the code of
  the modules;
- code_bytes: the board's modules' code on the heap (compiled from .py source here), and
  driver_code_bytes this driver's helper's (tests/board_player.py), counted apart, as are
  pc_reader_bytes, the scripted PC's frame reader (on the PC in real life), and
  port_code_bytes, what this MicroPython port's own binascii takes (none on a Pico);
- under MicroPython also live_bytes and transient_bytes (peak_bytes' two parts: kept
  between key events, allocated during one), and board_transient_bytes and
  board_peak_bytes: the same with only what the board's own steps allocate (App.step and
  the link's receive), not this driver's choice of the move and its keys, nor the PC's.
Usage: board_game.py SEED PLAYERS [MAX_MOVES] [alone]
With "alone" no PC is there: the link is never made (as on a board with no PC, whose link
is made at the PC's first byte); otherwise a scripted PC has said HELLO before the game.
"""

import gc
import sys
import time

try:
    import js

    def now_us():
        return int(js.performance.now() * 1000)
except ImportError:
    try:
        now_us = time.ticks_us  # MicroPython on a board
    except AttributeError:
        def now_us():
            return int(time.perf_counter() * 1000000)

MICRO = sys.implementation.name == "micropython"


def collect():
    # The heap is measured on MicroPython only; on CPython a full collection at every
    # step was 93% of the run's time (the same moves either way).
    if not MICRO:
        return 0
    gc.collect()
    return gc.mem_alloc()


_ROOT = __file__.rsplit("/", 3)[0]
sys.path.append(_ROOT + "/tests")  # board_player
sys.path.append(_ROOT + "/firmware")  # vora_fw, as the board has it at its root
SEED = int(sys.argv[1])
PLAYERS = int(sys.argv[2])
MAX_MOVES = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "alone" else 100000
ALONE = sys.argv[-1] == "alone"  # no PC: the link is never made, its modules never loaded


# What is loaded before the game, one step each, so that each is weighed on a heap really
# collected (under --steps, between two steps; a collection inside a step of the
# WebAssembly port still counts what the step left on its stack: a top-level measure
# counted this driver's code as 2,736 bytes where it takes 1,568).

def load_port():
    # The WebAssembly port freezes micropython-lib's binascii.py over its C module (base64
    # tables, in Python); a Pico's binascii is the C module alone (the rp2 port freezes no
    # binascii.py), on no heap. The port's cost, not the board's: port_code_bytes.
    import binascii  # noqa: F401


def load_board():
    # The board's code, its link to the PC too: code_bytes.
    global prng, layout, App, SimHardware, default_pinmap, Store, wire, BoardLink
    from shared_rules import prng
    from vora_fw import layout
    from vora_fw.app import App
    from vora_fw.hal_sim import SimHardware, default_pinmap
    from vora_fw.store import Store
    if not ALONE:
        from shared_rules import wire
        from vora_fw.link import BoardLink


def load_driver():
    # This driver's own code (how a move is entered by keys): on the heap beside the
    # board's, but not the board's: driver_code_bytes.
    global board_player
    import board_player


def load_pc():
    # The PC's frame reader (a buffer of a frame) reads the board's frames on the
    # PC, not on a board's heap: pc_reader_bytes.
    global PC_READER
    if not ALONE:
        PC_READER = wire.FrameReader()


LOADS = (load_port, load_board, load_driver, load_pc)
LOADED = ("port_code_bytes", "code_bytes", "driver_code_bytes", "pc_reader_bytes")

if MICRO:
    SAVE_DIR = "board_game_save"  # in the runner's own filesystem (memory, or a temp folder)
else:
    import atexit  # noqa: E402
    import shutil  # noqa: E402
    import tempfile  # noqa: E402
    SAVE_DIR = tempfile.mkdtemp(prefix="board_game_save")
    # CPython's run is a check beside MicroPython's: its save folder goes with it.
    atexit.register(shutil.rmtree, SAVE_DIR, True)


class Run:
    pass


R = Run()
R.loaded = []  # the heap in use before each load and after the last
R.code = None  # the heap in use once all is loaded: what the game's figures start from
R.started = False


def scan(ms):
    end = R.now + ms
    while R.now < end:
        R.now += 5
        # The clock's two reads are this driver's: under WebAssembly each makes a float
        # (32 bytes a step: 1.5 KB over the 24 steps of a press, with the collector held
        # off), where a board's ticks_us() is a small int. Counted apart (R.clock_alloc).
        start = gc.mem_alloc() if MICRO else 0
        t0 = now_us()
        before = gc.mem_alloc() if MICRO else 0
        shown = R.app.step(R.now)
        after = gc.mem_alloc() if MICRO else 0
        dt = now_us() - t0
        if MICRO:
            R.board_alloc += after - before
            R.clock_alloc += before - start + gc.mem_alloc() - after
        if not ALONE and R.out:
            for chunk in R.out:
                for item in R.reader.feed(chunk):
                    if not isinstance(item, wire.WireError) and item[1]:
                        R.last_in = item[1]
            del R.out[:]
            ack = wire.encode_frame(wire.ACK, 0, R.last_in)
            before = gc.mem_alloc() if MICRO else 0
            R.link.receive(ack, R.now)
            if MICRO:
                R.board_alloc += gc.mem_alloc() - before
        if shown and R.app.scanner.settling is False and dt > R.worst_us and R.pressing:
            R.worst_us = dt


def press(name):
    k = layout.key_index(name)
    R.pressing = True
    R.hw.press(k)
    scan(60)
    R.pressing = False
    R.hw.release(k)
    scan(60)


R.pressing = False


def setup(code):
    R.code = code
    R.now = 0
    R.hw = SimHardware()
    # The link as on the board, with a host that says HELLO and acknowledges every frame
    # (its few allocations count in the figures too: they are an upper bound).
    R.out = []
    # The game saved after every move, as on the board (a fresh folder: nothing resumes).
    store = Store(SAVE_DIR)
    store.clear()
    if ALONE:
        # As vora_fw.start makes it: the link waits for the PC's first byte, which never comes.
        R.app = App(R.hw, default_pinmap(), store, seed_fn=lambda: SEED)
        R.app.link_on_demand(lambda: b"", None)
    else:
        R.link = BoardLink(R.out.append, board="script")
        R.reader = PC_READER
        R.last_in = 0
        R.app = App(R.hw, default_pinmap(), store, link=R.link, seed_fn=lambda: SEED)
        R.link.receive(wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json(
            {"proto": wire.PROTOCOL_VERSION})), 0)
        assert R.link.connected, "the scripted host must be connected: its frames count"
    R.chooser = prng.seed_state(SEED + 99)
    R.moves = 0
    R.worst_us = 0
    R.peak = 0
    R.board_peak = R.board_transient = 0
    R.keys = None  # the keys of the move being entered
    R.setup_keys = None  # the setup's keys left to press


def step():
    live = collect()
    if len(R.loaded) < len(LOADS):
        R.loaded.append(live)
        LOADS[len(R.loaded) - 1]()
        return True
    if R.code is None:
        # Everything loaded, and (under --steps) really collected.
        R.loaded.append(live)
        setup(live)
        return True
    if MICRO:
        gc.disable()
    R.board_alloc = 0  # what the board's own steps allocate (not this driver, not the PC)
    R.clock_alloc = 0  # what the driver's clock reads allocate (see scan)
    ui = R.app.ui
    if not R.started:
        # The setup's keys, one a step as in play: the seats beyond South and North, then
        # c3 deals the game.
        if R.setup_keys is None:
            R.setup_keys = ["c" + seat for seat in "WE"[:PLAYERS - 2]] + ["c3"]
        press(R.setup_keys.pop(0))
        if not R.setup_keys:
            R.started = True
    elif R.keys is None and (ui.state.is_over() or R.moves >= MAX_MOVES):
        if MICRO:
            gc.enable()
        print("key_to_frame_us", R.worst_us)
        print("peak_bytes", R.peak)
        if MICRO:
            print("live_bytes", R.live)
            print("transient_bytes", R.transient)
            print("board_transient_bytes", R.board_transient)
            print("board_peak_bytes", R.board_peak)
        for i, name in enumerate(LOADED):
            print(name, R.loaded[i + 1] - R.loaded[i])
        return False
    else:
        # One key press per step, so the heap is measured around each key event.
        if R.keys is None:
            moves = ui.legal
            i, R.chooser = prng.below(R.chooser, len(moves))
            R.move = moves[i]
            R.keys = board_player.move_keys(ui, R.move)
            R.played = ui.moves_played
        press(next(R.keys))
    # Measured before the driver's own report below (its digest is not the board's work).
    if MICRO:
        used = gc.mem_alloc() - R.clock_alloc
        gc.enable()
        R.peak = max(R.peak, used - R.code)
        R.live = max(getattr(R, "live", 0), live - R.code)
        R.transient = max(getattr(R, "transient", 0), used - live)
        R.board_transient = max(R.board_transient, R.board_alloc)
        R.board_peak = max(R.board_peak, live - R.code + R.board_alloc)
    if R.started and R.moves == 0 and R.keys is None:  # the deal: the game's first state
        print("start", ui.state.digest())
    if R.keys is not None and ui.moves_played > R.played:  # that was the confirming key
        R.keys = None
        R.moves += 1
        print("move", R.moves, ui.state.digest(), R.move)
    return True


if not MICRO or sys.platform != "webassembly":  # CPython, or MicroPython's Unix port
    while step():
        pass
