"""The whole firmware on the simulated hardware, for the Unix port of MicroPython with a hard
heap (tests/mpy.py run_unix_micropython; also runs on CPython, for the same digests):

1. a 4-player game of Vora played by keys to the end;
2. a game with two seats played by the board's own bot, a takeback by keys (asked in the
   menu, agreed by the other person's corner), a power cut in the middle of the game and
   the game resumed from its save, played to the end;
3. then a soak: more games, one after the other, without a reset (2 to 4 players, some
   with a bot seat);
4. in the last game, at move UPDATE_AT: the doctor's DIAG; a firmware update: offered while
   the game runs, the board restarts into its maker mode (vora_fw.maker_mode: no game in
   memory), where the bundle is offered again, received chunk by chunk and committed; the
   reset starts the new version on trial, which the boot path confirms, and the game goes
   on from its save to the end.

Everything goes through App.step() every 5 ms of simulated time, as on the board, with the
link connected to a scripted host that acknowledges every frame. Nothing here collects
during play: the collector runs when the heap is full, as on the board.

After each game it prints "over <game> <moves> <digest>", then "mem <game>" followed by
micropython.mem_info()'s lines, taken after a collection (free heap, largest free block):
fragmentation shows as a largest free block that shrinks from game to game. At the end:
"memory_errors <n>" (how many MemoryErrors the board caught and survived,
App._guarded; a passing run has 0), "key_to_frame_us <n>" (the slowest scan step that delivered a key event, key to frame
handed to the pixel driver), its median and 99th percentile (to 0.1 ms: the slowest one is
the machine's scheduler as much as the firmware) and "done <games>".

Usage (module on the path): board_soak SEED GAMES BUNDLE_DIR [HOLD_MS]
GAMES counts every game (at least 2, and 3 with a PC: the first two are the ones above).
BUNDLE_DIR "-": the board alone, as with no PC at the USB port: no update and no doctor
(they need the PC), and the link is never made (vora_fw.start makes it at the PC's first
byte), so its modules are never loaded.
"""

import gc
import os
from array import array
import sys
import time

try:
    import micropython
except ImportError:  # CPython
    micropython = None

try:
    from vora_fw import boot
except ImportError:  # the firmware in ROMFS (board_romfs): as on a board, the boot path
    import vora_boot as boot  # is /vora_boot.mpy on the filesystem, not in the image
from vora_fw import start  # what the boot path runs: it loads the firmware collecting often
start.collect_often()
from shared_rules import prng  # noqa: E402
from vora_fw import VERSION, layout  # noqa: E402
from vora_fw.hal_sim import SimHardware, default_pinmap  # noqa: E402

ALONE = sys.argv[3] == "-"
if not ALONE:
    from shared_rules import wire, wire_host
    from vora_fw.link import BoardLink
    from vora_fw.start import attach, take_maker_request

try:
    now_us = time.ticks_us
    elapsed_us = time.ticks_diff
except AttributeError:  # CPython
    def now_us():
        return int(time.perf_counter() * 1000000)

    def elapsed_us(a, b):
        return a - b

SEED = int(sys.argv[1])
GAMES = int(sys.argv[2])
# The update comes in the last game, at this move: MicroPython keeps every name it interns
# until a reset, so the maker mode's names, in a pool of 10 KB on a 32-bit build, stayed
# on this driver's heap through every game after it, where a board's reset clears them.
UPDATE_AT = 10
BOT_WAIT_MS = 60000  # simulated time a bot's move may take at most (it takes about 1 s)
assert GAMES >= 3 or sys.argv[3] == "-" or PART != "all", \
    "with a PC, 3 games at least (the update is in the last)"
BUNDLE = sys.argv[3]
# One part alone (the smallest heap of each, docs/benchmarks.md): "keys" game 1, "bot"
# game 2, "update" a 2-player game with the doctor and the update at move UPDATE_AT;
# "all" (the default) every part and the soak's games.
PART = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] != "debug" else "all"
DEBUG = "debug" in sys.argv[5:]
HOLD_MS = int(sys.argv[4]) if len(sys.argv) > 4 else 60
FLASH = "flash"
SAVES = "save"
IDENTITY = {"micropython": "1.27.0", "mpy": 6, "mpy_sub": 3, "arch": "armv6m",
            "platform": "rp2"}  # as the bundle was made for


class Run:
    pass


R = Run()
R.now = 0
R.worst_us = 0
R.pressing = False
R.seq = 0
R.resets = 0
R.oom = 0  # App.memory_errors of the boards before the last power-up
R.statuses = []
R.refusal = None
R.reader = None
R.diag = None
R.chooser = prng.seed_state(SEED + 99)
# Key event to frame, as a histogram (no allocation while measuring): bins of 100 us.
LATENCY_BIN_US = 100
R.latency = array("I", bytes(4 * 200))  # to 20 ms; the last bin holds the slower ones


def percentile(q):
    total = sum(R.latency)
    seen = 0
    for i in range(len(R.latency)):
        seen += R.latency[i]
        if seen * 100 >= total * q:
            return (i + 1) * LATENCY_BIN_US
    return len(R.latency) * LATENCY_BIN_US


def mem(label):
    gc.collect()
    print("mem", label)
    if micropython is not None:
        micropython.mem_info()


def _reset():
    R.resets += 1


def power_on():
    """The board starts: boot record read (a trial confirms itself), the app resumes the
    save (or the maker mode starts, when the game asked for it), the host says HELLO."""
    fs = boot.Fs()
    slot, mode, rec = boot.decide(fs, FLASH)
    R.boot = boot.Boot(fs, FLASH, slot, mode, rec, VERSION)
    R.boot.identity = IDENTITY
    R.hw = SimHardware()
    R.out = []
    if ALONE:  # nobody at the USB port: the link waits for a first byte that never comes
        from vora_fw.app import App  # here, not at the top: a reset unloads the game
        from vora_fw.store import Store
        R.app = App(R.hw, default_pinmap(), Store(SAVES),
                    seed_fn=lambda: prng.seed_state(SEED + R.now) & 0xFFFFFF)
        start.intern_names(start.ON_DEMAND)  # as vora_fw.start.make_app
        R.app.link_on_demand(lambda: b"", None)
        if R.boot.mode == boot.MODE_TRIAL:
            scan(50)
            print("confirm", R.boot.confirm(), R.boot.mode)
        return
    R.link = BoardLink(R.out.append, board="soak")
    if R.reader is None:
        R.reader = wire.FrameReader()  # the PC's: made once, it outlives the board's resets
    R.reader.reset()
    R.last_in = 0
    if take_maker_request(R.boot):  # the game asked for the maker mode before its reset
        from vora_fw.maker_mode import MakerMode  # and nothing of the game
        R.app = MakerMode(R.hw, default_pinmap(), R.boot, R.link, _reset, VERSION,
                          getattr(os, "statvfs", None), R.now)
    else:
        from vora_fw.app import App
        from vora_fw.store import Store
        R.app = App(R.hw, default_pinmap(), Store(SAVES), R.link,
                    seed_fn=lambda: prng.seed_state(SEED + R.now) & 0xFFFFFF)
        start.intern_names(start.ON_DEMAND)  # as vora_fw.start.make_app
        attach(R.app, R.link, default_pinmap(), R.boot, IDENTITY, VERSION, _reset,
               getattr(os, "statvfs", None), maker_mode=start.MAKER_REQUEST)
    R.seq = R.last_in = 0  # a new session: HELLO has sequence number 0
    R.link.receive(wire.encode_frame(wire.HELLO, 0, 0, wire.pack_json(
        {"proto": wire.PROTOCOL_VERSION, "caps": ["play", "update", "doctor"]})), R.now)
    assert R.link.connected, "the scripted host must be connected"
    if R.boot.mode == boot.MODE_TRIAL:
        scan(50)
        print("confirm", R.boot.confirm(), R.boot.mode)


def send(t, payload=b""):
    R.seq = R.seq % 255 + 1
    R.link.receive(wire.encode_frame(t, R.seq, R.last_in, payload), R.now)


def host_reads():
    for chunk in R.out:
        for item in R.reader.feed(chunk):
            if isinstance(item, wire.WireError):
                continue
            t, seq, ack, payload = item
            if seq:
                R.last_in = seq
            if t == wire.UPD_STATUS:
                st = wire.unpack_json(payload)
                R.statuses.append(st["state"])
                if st["state"] == "error" and R.refusal is None:
                    R.refusal = st  # the run says why the update did not go through (first)
            elif t == wire.LOG and (DEBUG or payload.startswith(b"refused")):
                print("log", payload)  # a refusal is the first thing to read when a run fails
            elif t == wire.DIAG:
                R.diag = wire.unpack_json(payload)
    del R.out[:]
    R.link.receive(wire.encode_frame(wire.ACK, 0, R.last_in), R.now)


def scan(ms):
    end = R.now + ms
    while R.now < end:
        R.now += 5
        t0 = now_us()
        shown = R.app.step(R.now)
        dt = elapsed_us(now_us(), t0)
        if R.out:
            host_reads()
        if shown and R.pressing and not R.app.scanner.settling:
            R.worst_us = max(R.worst_us, dt)
            R.latency[min(dt // LATENCY_BIN_US, len(R.latency) - 1)] += 1


def press(name, ms=HOLD_MS):
    k = layout.key_index(name)
    R.pressing = True
    R.hw.press(k)
    scan(ms)
    R.pressing = False
    R.hw.release(k)
    scan(HOLD_MS)


def person_move():
    if DEBUG and len(R.app.ui.moves) % 20 == 0:
        gc.collect(); print("dbg", len(R.app.ui.moves), gc.mem_alloc(), gc.mem_free())
    ui = R.app.ui
    # A move the board could not settle for want of memory (its legal moves, its save) is
    # tried again every few seconds (VoraUI.settle): a person waits for the keys.
    waited = R.now
    while ui.unsettled is not None and R.now - waited < BOT_WAIT_MS:
        scan(5)
    moves = ui.legal
    assert len(moves), "the board offers no move, still settling the last one (MemoryErrors " \
        "the board caught: %d)" % R.app.memory_errors
    i, R.chooser = prng.below(R.chooser, len(moves))
    played = len(ui.moves)
    import board_player
    for name in board_player.move_keys(ui, moves[i]):
        press(name)
    assert len(ui.moves) == played + 1, "the keys did not play the move (MemoryErrors the " \
        "board caught: %d)" % R.app.memory_errors


def set_up(seats, bots):
    """Seats by keys: S and N sit at power-up; a corner adds or removes a seat, a corner
    held 2 s gives the seat to the board's bot; the centre key starts."""
    ui = R.app.ui
    for seat in "SWNE":
        if seat in ui.board_bots and seat not in bots:
            press("c" + seat)  # a bot seat pressed: no longer in play
        if seat in bots and seat not in ui.board_bots:
            press("c" + seat, 2100)
        elif seat not in bots and (seat in seats) != (seat in ui.chosen_seats):
            press("c" + seat)
    press("c3")
    assert ui.state is not None and ui.state.seats == seats and ui.board_bots == bots, \
        (ui.state and ui.state.seats, ui.board_bots)


def takeback():
    ui = R.app.ui
    me = ui.state.seats[ui.state.active]
    press("c" + me, 2100)  # the menu
    press("c3")  # take back
    for seat in ui.undo_wait:
        press("c" + seat)  # every other person agrees
    print("takeback", len(ui.moves), ui.state.digest())


def power_cut():
    """The power goes and comes back: the board resumes its save. Called from main() only,
    between two calls of play_to_end(): this port's collector scans the C stack and every
    live frame's whole value stack conservatively, and a stale slot of a frame that had
    the old application in hand (play_to_end's) kept it alive, a second game on the heap
    that a board never has."""
    n, digest = R.cut
    R.oom += R.app.memory_errors
    R.app = R.link = None
    # Under MicroPython the test's player module kept the old board alive (10 KB freed
    # when it went; how, not found): it is loaded again at the next move.
    sys.modules.pop("board_player", None)
    scrub_stack()
    gc.collect()
    power_on()
    ui = R.app.ui
    assert len(ui.moves) == n and ui.state.digest() == digest, "the resumed game differs"
    print("resumed", n, digest)


def play_to_end(game, takeback_at=-1, cut_at=-1, resumed=False):
    """Play game to its end; returns False when it stopped for a power cut at move cut_at
    (R.cut: the moves and digest then), for main() to cut the power and call it again."""
    ui = R.app.ui
    if not resumed:
        print("start", game, ui.state.seats, ui.board_bots, ui.state.digest())
    while ui.mode != 3:  # MODE_OVER
        if len(ui.moves) >= takeback_at >= 0 and ui.auto_move is None and \
                ui.state.seats[ui.state.active] not in ui.board_bots:
            takeback_at = -1
            takeback()
        elif len(ui.moves) >= cut_at >= 0:
            R.cut = (len(ui.moves), ui.state.digest())
            return False
        elif ui.state.seats[ui.state.active] in ui.board_bots or ui.auto_move is not None:
            waited = R.now
            played = len(ui.moves)
            while len(ui.moves) == played and ui.mode != 3 and R.now - waited < BOT_WAIT_MS:
                scan(5)
            # A bot that cannot move (the heap too full for its search, the board blinking
            # red and trying again every 5 s) would keep the run going for ever.
            assert len(ui.moves) != played or ui.mode == 3, \
                "the board's bot made no move in %d s (MemoryErrors the board caught: %d)" % (
                    BOT_WAIT_MS // 1000, R.app.memory_errors)
        else:
            person_move()
    print("over", game, len(ui.moves), ui.state.digest())
    press("c3")  # a new setup
    mem(game)
    return True


def read_bundle(names=False):
    """The PC's side of the update: the manifest's size and SHA-256, read before the board
    starts (this driver shares the board's heap, and the manifest read whole, 3 KB, after
    a game was the run's first MemoryError at low heaps, the PC's and not the board's);
    with names, its files' names too, read when the board is in its maker mode (a list
    of names kept all game long would be the PC's too)."""
    with open(BUNDLE + "/manifest.json", "rb") as f:
        manifest = f.read()
    import hashlib
    R.bundle = (len(manifest), hashlib.sha256(manifest).digest())
    if names:
        import json
        return [e[0] for e in json.loads(manifest)["files"]]


def names_interned(label):
    # MicroPython's count of interned names (qstrs): an update after play must add none,
    # the makers' modules having brought theirs when the link was made (vora_fw.maker).
    if micropython is not None:
        print("names_interned", label)
        micropython.qstr_info()


# The modules of the game and of the maker mode: a reset unloads them (reset()), and the
# next start imports what it runs, as on a board. The driver's own (the PC's side: the
# codec, the simulated hardware, the boot path, the key names) stay.
UNLOADED = ("vora_fw.app", "vora_fw.vora_ui", "vora_fw.vora_ui_keys", "vora_fw.vora_ui_frames",
            "vora_fw.vora_ui_restore", "vora_fw.saved_game", "vora_fw.store", "vora_fw.movelog",
            "vora_fw.bot", "vora_fw.palette", "vora_fw.doctor", "vora_fw.maker_mode",
            "vora_fw.update", "shared_rules.vora", "shared_rules.vora_meadow",
            "shared_rules.vora_position", "board_player")


def scrub_stack(depth=60):
    """Overwrite the C stack below here: this port's collector scans it conservatively,
    and a stale word left there by the old board's calls kept its application alive after
    a power cut (a second game on the heap, which a board never has)."""
    if depth:
        a = b = c = d = 0  # noqa: F841
        scrub_stack(depth - 1)


def reset():
    """What a reset leaves of the board: nothing on the heap. The driver's names let the
    board go, and its modules leave sys.modules, as a real reset clears them."""
    R.oom += getattr(R.app, "memory_errors", 0)
    R.app = R.link = None
    scrub_stack()
    import vora_fw
    import shared_rules
    for name in UNLOADED:
        sys.modules.pop(name, None)
        package, _, module = name.rpartition(".")
        package = vora_fw if package == "vora_fw" else shared_rules if package else None
        if package is not None and module in package.__dict__:
            delattr(package, module)
    gc.collect()
    start.collect_often()  # as vora_fw.start.run at every start
    power_on()
    start.collect_often(False)  # the game and the maker mode run without, once made


def update_and_doctor():
    """The doctor, then the update offered while the game runs."""
    size, bundle_id = R.bundle
    send(wire.DIAG_REQ)
    scan(5)
    print("diag", R.diag["fw"], R.diag["pixels"], R.diag["keys_down"])
    names_interned("before_update")
    send(wire.UPD_OFFER, wire_host.pack_upd_offer(size, bundle_id))
    scan(5)
    # The game is saved: the board restarts into its maker mode; the PC offers again.
    assert R.statuses[-1] == "restart" and R.resets == 1, (R.statuses, R.refusal)


def update_in_maker_mode():
    size, bundle_id = R.bundle
    print("maker_mode", type(R.app).__name__, "vora_fw.vora_ui" in sys.modules)
    mem("maker_mode")
    names = read_bundle(True)
    send(wire.UPD_OFFER, wire_host.pack_upd_offer(size, bundle_id))
    scan(5)
    for k in range(len(names) + 1):
        path = BUNDLE + "/" + (names[k - 1] if k else "manifest.json")
        size = os.stat(path)[6]
        with open(path, "rb") as f:
            for offset in range(0, size, wire_host.UPD_CHUNK):
                send(wire.UPD_DATA, wire_host.pack_upd_data(k, offset, f.read(wire_host.UPD_CHUNK)))
                scan(5)
    send(wire.UPD_QUERY)
    scan(5)
    send(wire.UPD_COMMIT, wire_host.pack_upd_commit(bundle_id))
    scan(5)
    status = R.statuses[-1]
    send(wire.UPD_RESET)
    scan(5)
    print("update", R.statuses[0], status, "resets", R.resets)
    if DEBUG:
        print("statuses", R.statuses)
    # A refused update leaves the board playing, so the run would end well: it must not
    # (bench/bench_firmware_unix.py counted such runs as passing, issue 40).
    assert status == "switched", "the update did not go through: %r" % (R.refusal,)


def update_mid_game(game):
    """The doctor and the update where the game stopped (play_to_end's R.cut), then the
    game on to its end. The resets are called from here, a frame that never had the
    board in hand (a stale slot would keep the old board alive: power_cut())."""
    update_and_doctor()
    reset()  # into the maker mode
    update_in_maker_mode()
    reset()  # the reset the update asked for: the new version on trial confirms itself
    names_interned("after_update")
    check_resumed()
    mem("update")
    play_to_end(game, resumed=True)


def check_resumed():
    ui = R.app.ui
    assert (len(ui.moves), ui.state.digest()) == R.cut, "the game after the update differs"
    print("resumed", R.cut[0], R.cut[1])


def main():
    try:
        os.mkdir(FLASH)
    except OSError:
        pass
    rec = boot.empty_record()
    rec["slot"] = "a"
    boot.write_record(boot.Fs(), FLASH, rec)
    if not ALONE:
        read_bundle()
        gc.collect()
    power_on()
    start.collect_often(False)  # the game plays without (vora_fw.start.run)
    mem("start")
    if PART in ("all", "keys"):
        set_up("SWNE", "")
        play_to_end(1)
    if PART in ("all", "bot"):
        set_up("SWNE", "WE")
        if not play_to_end(2, takeback_at=9, cut_at=15):
            power_cut()
            play_to_end(2, resumed=True)
    if PART == "update":
        set_up("SN", "")
        if not play_to_end(3, cut_at=UPDATE_AT):
            update_mid_game(3)
    for game in range(3, GAMES + 1 if PART == "all" else 3):
        players = 2 + game % 3
        seats = ("SN", "SWN", "SWNE")[players - 2]
        set_up(seats, "N" if game % 5 == 0 else "")
        if game < GAMES or ALONE or play_to_end(game, cut_at=UPDATE_AT):
            play_to_end(game)
        else:
            update_mid_game(game)  # in the middle of the last game
    loaded = [m for m in ("vora_fw.link", "shared_rules.wire", "shared_rules.session",
                          "vora_fw.maker") if m in sys.modules]
    print("link_modules", ",".join(loaded) or "-")
    print("memory_errors", R.oom + R.app.memory_errors)  # MemoryErrors the board survived
    print("key_to_frame_us", R.worst_us)
    print("key_to_frame_median_us", percentile(50), "p99_us", percentile(99))
    print("done", GAMES)


main()
