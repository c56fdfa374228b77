"""Runs under MicroPython, started by bench/bench_rules_micropython.py with
`--steps step`: the slowest single move and the peak heap in use while the rules of one
game play full games at its largest player count.
Arguments: GAMES [GAME] (default 3 games of vora).

A move is legal_moves() plus play(), cascades and refills included. Each move is one
step(), a separate top-level call of the runner: this WebAssembly build only frees memory
between such calls, so gc.collect() at the start of a step sees only what is alive (the
rules' code, the state, this script). The collector is then held off during the move, so
the heap in use after it is an upper bound of the peak during it.
"""

import gc
import sys
import time

try:
    import js  # the WebAssembly port: a sub-millisecond timer from the JS host

    def now_us():
        return int(js.performance.now() * 1000)
except ImportError:
    def now_us():
        return time.ticks_us()

gc.collect()
BASE = gc.mem_alloc()
from shared_rules import games, prng  # noqa: E402  (measured: the rules' code on the heap)

GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 3
RULES = games.load(sys.argv[2] if len(sys.argv) > 2 else "vora")
PLAYERS = RULES.PLAYER_COUNTS[-1]
REPEAT = 3
R = {"seed": 0, "state": None, "chooser": 0, "worst_us": 0, "worst": "", "peak": 0,
     "live": 0, "moves": 0, "total_us": 0, "rules": 0}


def step():
    gc.collect()
    if not R["rules"]:
        R["rules"] = gc.mem_alloc()  # first step: the code is loaded, no game yet
    state = R["state"]
    if state is None or state.is_over():
        if R["seed"] == GAMES:
            report()
            return False
        R["state"] = state = RULES.new_game(PLAYERS, seed=R["seed"])
        R["chooser"] = prng.seed_state(R["seed"] + 1)
        R["seed"] += 1
        return True
    live = gc.mem_alloc()  # the rules' code, the state and this script's bits
    state_before = state.clone()  # kept for the timing below, not part of the game
    with_copy = gc.mem_alloc()
    gc.disable()
    t0 = now_us()
    moves = state.legal_moves()
    i, R["chooser"] = prng.below(R["chooser"], len(moves))
    state.play(moves[i])
    dt = now_us() - t0
    used = live + gc.mem_alloc() - with_copy
    gc.enable()
    # The host's JIT and scheduler add pauses of several ms now and then: time the same move
    # again on copies and keep the fastest, the move's own cost.
    for _ in range(REPEAT):
        copy = state_before.clone()
        t0 = now_us()
        copy.play(copy.legal_moves()[i])
        dt = min(dt, now_us() - t0)
    R["moves"] += 1
    R["total_us"] += dt
    if dt > R["worst_us"]:
        R["worst_us"] = dt
        R["worst"] = moves[i]
    R["peak"] = max(R["peak"], used - R["rules"])
    R["live"] = max(R["live"], live - R["rules"])
    return True


def report():
    print("games", GAMES, "moves", R["moves"], "players", PLAYERS)
    print("rules_code_bytes", R["rules"] - BASE)
    print("peak_game_bytes", R["peak"])
    print("max_live_between_moves_bytes", R["live"])
    print("slowest_move_us", R["worst_us"], R["worst"])
    print("mean_move_us", R["total_us"] // R["moves"])
