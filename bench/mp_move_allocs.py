"""Where the board's heap goes with no PC, under MicroPython's WebAssembly port (32-bit):

1. the heap each module takes when imported, in the order a board alone imports them, then
   what the link adds (collected between imports: an await lets this port collect);
2. what one move allocates, at most over a 4-player game played at random: its legal
   moves (as the board keeps them, codes, and as text for the PC), the rules' play, the state's JSON and its digest (a second call: the first
   imports hashlib), measured as the growth of gc.mem_alloc() (no collection runs inside
   a call on this port);
3. the time of the board's save (vora_fw.vora_ui's, to the port's in-memory files) of
   that game, and of its pieces alone.

With the modules as .mpy files, as installed (bench/bench_firmware_micropython.py's tree):

    rm -rf /tmp/ct && .venv/bin/python -c "import sys; sys.path.insert(0, 'bench');
    from bench_firmware_micropython import compiled_tree; compiled_tree('/tmp/ct')" &&
    node tools/mpy_run.mjs --mount /tmp/ct:/app --path /app bench/mp_move_allocs.py
"""

import asyncio
import gc
import sys

import js

sys.path.append("/app/firmware")

ALONE = ["shared_rules.prng", "shared_rules.errors", "shared_rules.vora", "shared_rules.checks",
         "vora_fw.clock", "vora_fw.layout", "vora_fw.palette", "vora_fw.pixels",
         "vora_fw.keyscan", "vora_fw.movelog", "vora_fw.store", "vora_fw.vora_ui_frames",
         "vora_fw.vora_ui_keys", "vora_fw.vora_ui",
         "vora_fw.app", "vora_fw.start"]
WITH_PC = ["shared_rules.wire", "shared_rules.session", "vora_fw.link", "vora_fw.maker"]


async def collected():
    for _ in range(2):
        gc.collect()
        await asyncio.sleep(0)  # back in JavaScript: the collection runs
    return gc.mem_alloc()


async def module_heap():
    last = await collected()
    for group, names in (("no PC", ALONE), ("the link adds", WITH_PC)):
        total = 0
        for name in names:
            __import__(name)
            now = await collected()
            print("  %-22s %6d" % (name, now - last))
            total += now - last
            last = now
        print("  %s: %d bytes" % (group, total))


def allocations():
    from shared_rules import prng, vora
    state = vora.new_game(4, seed=1)
    chooser = prng.seed_state(5)
    state.digest()  # imports hashlib: not a move's cost
    most = {}

    def measure(name, call):
        before = gc.mem_alloc()
        out = call()
        most[name] = max(most.get(name, 0), gc.mem_alloc() - before)
        return out

    n = 0
    while not state.is_over() and n < 400:
        legal = measure("legal_moves (text)", state.legal_moves)
        measure("legal_codes (board)", state.legal_codes)
        measure("to_json", state.to_json)
        measure("digest", state.digest)
        i, chooser = prng.below(chooser, len(legal))
        move = legal[i]
        measure("play", lambda: state.play(move))
        most["legal moves, most"] = max(most.get("legal moves, most", 0), len(legal))
        n += 1
    print("  over %d moves, the most one call allocated:" % n)
    for name in sorted(most):
        print("  %-20s %6d" % (name, most[name]))


def save_time():
    from shared_rules import prng
    from vora_fw.store import Store
    from vora_fw.vora_ui import VoraUI
    ui = VoraUI(Store("/bench_save"), lambda: 1)
    ui.new_game("SWNE", 1)
    chooser = prng.seed_state(3)
    while not ui.state.is_over() and len(ui.moves) < 327:
        i, chooser = prng.below(chooser, len(ui.legal))
        ui.play(ui.legal[i], 0)
    times = []
    for _ in range(21):
        t0 = js.performance.now()
        ui._save()
        times.append(js.performance.now() - t0)
    times.sort()
    t0 = js.performance.now()
    ui._save_pieces()
    pieces = js.performance.now() - t0
    print("  the save of a %d-move game: median %.2f ms, slowest %.2f ms (of 21); its pieces "
          "alone %.2f ms" % (len(ui.moves), times[10], times[-1], pieces))


print("heap taken by importing each module, bytes:")
await module_heap()  # noqa: F704  (the runner allows top-level await)
print("allocations, bytes:")
allocations()
print("time:")
save_time()
