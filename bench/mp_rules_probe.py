"""Runs under MicroPython (bench/bench_rules_micropython.py starts it): the slowest single
Vora move and the peak heap in use while the rules play full 4-player games.

A move is legal_moves() plus play(), cascades and refills included. Heap: before each
move the heap is collected (after yielding to the event loop: this WebAssembly build only
frees memory when the Python stack is unwound), then the collector is held off during the
move, so the heap in use after it is an upper bound of the peak during it.
"""

import asyncio
import gc
import sys
import time

try:
    import js  # the WebAssembly port: sub-millisecond timer from the JS host

    def now_us():
        return int(js.performance.now() * 1000)
except ImportError:
    def now_us():
        return time.ticks_us()


async def settle():
    await asyncio.sleep(0)
    gc.collect()
    return gc.mem_alloc()


async def main(games):
    base = await settle()
    from shared_rules import prng, vora
    rules = await settle()
    worst_us = 0
    worst = ""
    peak = 0
    max_live = 0
    max_move = 0
    moves_played = 0
    total_us = 0
    for seed in range(games):
        state = vora.new_game(4, seed=seed)
        chooser = prng.seed_state(seed + 1)
        while not state.is_over():
            live = await settle()
            gc.disable()
            t0 = now_us()
            moves = state.legal_moves()
            i, chooser = prng.below(chooser, len(moves))
            state.play(moves[i])
            dt = now_us() - t0
            used = gc.mem_alloc()
            gc.enable()
            moves_played += 1
            total_us += dt
            if dt > worst_us:
                worst_us = dt
                worst = moves[i]
            if used - rules > peak:
                peak = used - rules
            max_live = max(max_live, live - rules)
            max_move = max(max_move, used - live)
            moves = None  # as a bot or the board would: the list dies with the move
    print("rules_code_bytes", rules - base)
    print("peak_game_bytes", peak)
    print("max_live_between_moves_bytes", max_live)
    print("max_allocated_in_one_move_bytes", max_move)
    print("slowest_move_us", worst_us, worst)
    print("mean_move_us", total_us // moves_played)
    print("moves", moves_played)


await main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
