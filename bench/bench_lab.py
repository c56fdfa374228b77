"""The balance lab's speed: Vora random self-play through `vora lab` on one core, on all
cores (local processes) and through Ray on this machine, side by side in one run, with
the lab's overhead over bare playouts of the very same games.

    .venv/bin/python bench/bench_lab.py [GAMES]      (default 1000 games per line)

"Bare playouts" play the lab's games (same seeds, same random bots) in a plain loop:
new_game, then choose and play until the end, nothing counted, nothing written. The lab
on one core (`--workers 1`) plays them with everything it does per game: move kinds
counted, the summary written to the games file, the results gathered, the progress
updated, the report computed. Overhead = lab time / bare time - 1, both in CPU seconds of
this process (so other work on the machine counts less), the best of five runs each,
after a first short lab run that imports the report's modules; target under 10%.

Games per second of wall time are given for every line, side by side (they depend on what
else the machine runs: the load average is printed); per CPU second for the lines that
play in this process. Ray's start-up (ray.init, a few seconds) is shown apart and not
counted.
"""

import os
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from shared_rules import vora
from vora_host.bots.base import RandomBot
from vora_host.lab.run import run_lab
from vora_host.lab.runners import InProcessRunner, ProcessRunner, RayRunner
from vora_host.lab.spec import LabSpec, bot_seeds, game_seed

TARGET_OVERHEAD = 0.10


def bare(games, seed):
    c0, t0 = time.process_time(), time.perf_counter()
    moves = 0
    for i in range(games):
        state = vora.new_game(2, game_seed(seed, i))
        bots = [RandomBot(s) for s in bot_seeds(seed, i, 2)]
        while not state.is_over():
            state.play(bots[state.to_act()].choose(state))
            moves += 1
    return time.process_time() - c0, time.perf_counter() - t0, moves


def lab(games, seed, runner, folder):
    spec = LabSpec("vora", players=2, bots=["random"], games=games, seed=seed,
                   seed_effect=0).check()
    quiet = Console(file=open(os.devnull, "w"))
    c0, t0 = time.process_time(), time.perf_counter()
    report, complete = run_lab(spec, folder, runner, quiet, quiet, plots=False)
    assert complete
    return time.process_time() - c0, time.perf_counter() - t0, report


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = 0
    cores = os.cpu_count() or 1
    print("vora lab, Vora random self-play, 2 players, %d games per line, %d cores, "
          "load average %.1f" % (games, cores, os.getloadavg()[0]))
    with tempfile.TemporaryDirectory() as tmp:
        # A first short run imports what the lab needs (the report's modules): a cost paid
        # once per command, not per game. Then the two alternate, the best of 5 counts.
        lab(5, seed + 1, InProcessRunner(), Path(tmp) / "warm")
        bare_runs, lab_runs = [], []
        for k in range(5):
            cpu, wall, moves = bare(games, seed)
            bare_runs.append((cpu, wall))
            cpu, wall, one = lab(games, seed, InProcessRunner(), Path(tmp) / ("one%d" % k))
            lab_runs.append((cpu, wall))
        cpu_bare, wall_bare = min(bare_runs)
        cpu_lab, wall_lab = min(lab_runs)
        rows = [("bare playouts, 1 core", games / cpu_bare, games / wall_bare, moves / cpu_bare,
                 "-"),
                ("vora lab --workers 1", games / cpu_lab, games / wall_lab, moves / cpu_lab, "-")]
        _, wall, many = lab(games, seed, ProcessRunner(cores), Path(tmp) / "many")
        rows.append(("vora lab, %d local processes" % cores, None, games / wall, None, "-"))
        ray = RayRunner("local")
        _, wall, through_ray = lab(games, seed, ray, Path(tmp) / "ray")
        playing = wall - ray.startup_seconds
        rows.append(("vora lab --ray local (%d CPUs)" % ray.workers, None, games / playing,
                     None, "%.1f s" % ray.startup_seconds))
    same = all(r["games_digest"] == one["games_digest"] for r in (many, through_ray))
    print("%-34s %14s %14s %14s %10s" % ("", "games/CPU s", "games/s (wall)",
                                           "moves/CPU s", "start-up"))
    for name, per_cpu, per_wall, moves_cpu, startup in rows:
        print("%-34s %14s %14.1f %14s %10s" % (
            name, "-" if per_cpu is None else "%.1f" % per_cpu, per_wall,
            "-" if moves_cpu is None else "%.0f" % moves_cpu, startup))
    overhead = cpu_lab / cpu_bare - 1
    print("lab overhead over bare playouts (CPU time, 1 core): %+.1f%% (target under %d%%): %s"
          % (100 * overhead, 100 * TARGET_OVERHEAD, "met" if overhead < TARGET_OVERHEAD
             else "NOT MET"))
    print("the same games everywhere (games digest %s): %s" % (one["games_digest"],
                                                                "yes" if same else "NO"))


if __name__ == "__main__":
    main()
