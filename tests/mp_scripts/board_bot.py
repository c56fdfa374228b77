"""One person against the board's own bot, on the simulated hardware with the link
connected, for CPython and real MicroPython (`--steps step`), so the two can be compared
move by move and the heap measured per step:
- a person's step is one key press (the keys of the move, as tests/board_player.py says);
- while the board's bot thinks, a step is one scan of 5 ms (the bot tries one candidate
  move per scan); while it shows its move, one step scans until the move is played;
- once, after move TAKEBACK_AT, South takes back by keys (hold cS, then c3).
Prints "move <n> <digest> <move>" for each move and "takeback <n> <digest>", then the
measures: peak_bytes (heap in use during any step, code aside; the collector held off),
bot_peak_bytes (during a step of the bot thinking), live_bytes, think_us (slowest bot scan).
Usage: board_bot.py SEED [MAX_MOVES [LEVEL]]  (the bot's level: easy, normal (the default)
or hard, chosen as a person does: cN held once for normal, twice for hard, three times easy)
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


BASE = collect()
_ROOT = __file__.rsplit("/", 3)[0]
sys.path.append(_ROOT + "/tests")
sys.path.append(_ROOT + "/firmware")
from shared_rules import prng, wire  # noqa: E402
from vora_fw import layout  # noqa: E402
from vora_fw.app import App  # noqa: E402
from vora_fw.hal_sim import SimHardware, default_pinmap  # noqa: E402
from vora_fw.link import BoardLink  # noqa: E402
import board_player  # noqa: E402

SEED = int(sys.argv[1])
MAX_MOVES = int(sys.argv[2]) if len(sys.argv) > 2 else 60
HOLDS = {"normal": 1, "hard": 2, "easy": 3}[sys.argv[3] if len(sys.argv) > 3 else "normal"]
TAKEBACK_AT = 12


class Run:
    pass


R = Run()
R.code = 0


def scan(ms):
    end = R.now + ms
    while R.now < end:
        R.now += 5
        R.app.step(R.now)
        if R.out:
            for chunk in R.out:
                for item in R.reader.feed(chunk):
                    if not isinstance(item, wire.WireError) and item[1]:
                        R.last_in = item[1]
            del R.out[:]
            R.link.receive(wire.encode_frame(wire.ACK, 0, R.last_in), R.now)


def press(name, ms=60):
    k = layout.key_index(name)
    R.hw.press(k)
    scan(ms)
    R.hw.release(k)
    scan(60)


def setup(code):
    R.code = code
    R.now = 0
    R.hw = SimHardware()
    R.out = []
    R.link = BoardLink(R.out.append, board="script")
    R.reader = wire.FrameReader()
    R.last_in = 0
    R.app = App(R.hw, default_pinmap(), link=R.link, seed_fn=lambda: SEED)
    R.link.receive(wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json(
        {"proto": wire.PROTOCOL_VERSION, "caps": ["play"]})), 0)
    assert R.link.connected, "the scripted host must be connected: its frames count"
    R.chooser = prng.seed_state(SEED + 99)
    R.started = False
    R.keys = None
    R.reported = 0
    R.took_back = False
    R.peak = R.bot_peak = R.live = R.think = 0


def report():
    ui = R.app.ui
    while R.reported < len(ui.moves):
        R.reported += 1
        print("move", R.reported, ui.state.digest(), ui.moves[R.reported - 1])


def step():
    live = collect()
    if not R.code:
        setup(live)
        return True
    if MICRO:
        gc.disable()
    ui = R.app.ui
    thinking = False
    if not R.started:
        for _ in range(HOLDS):  # held in setup: the board's bot plays North (at its level)
            press("cN", 2100)
        press("c3")
        R.started = True
        print("start", ui.board_bots, ui.state.digest())
    elif ui.state.is_over() or len(ui.moves) >= MAX_MOVES:
        if MICRO:
            gc.enable()
        report()
        print("peak_bytes", R.peak)
        print("bot_peak_bytes", R.bot_peak)
        print("live_bytes", R.live)
        print("think_us", R.think)
        return False
    elif ui.state.seats[ui.state.active] == "N":
        if ui.auto_move is None:
            thinking = True
            t0 = now_us()
            scan(5)
            R.think = max(R.think, now_us() - t0)
        else:
            scan(1200)
    elif not R.took_back and len(ui.moves) >= TAKEBACK_AT and R.keys is None:
        press("cS", 2100)
        press("c3")
        R.took_back = True
        R.reported = len(ui.moves)
        print("takeback", len(ui.moves), ui.state.digest())
    else:
        if R.keys is None:
            moves = ui.legal
            i, R.chooser = prng.below(R.chooser, len(moves))
            R.keys = board_player.move_keys(ui, moves[i])
            R.played = len(ui.moves)
        press(next(R.keys))
        if len(ui.moves) > R.played:
            R.keys = None
    if MICRO:
        used = gc.mem_alloc()
        gc.enable()
        R.peak = max(R.peak, used - R.code)
        if thinking:
            R.bot_peak = max(R.bot_peak, used - R.code)
        R.live = max(R.live, live - R.code)
    if not thinking:
        report()
    return True


if not MICRO:
    setup(-1)
    while step():
        pass
