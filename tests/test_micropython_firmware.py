"""The unchanged firmware under real MicroPython (the WebAssembly port run by Node), on the
simulated hardware layer: whole games entered key by key give the same digest after every
move as the same run on CPython, and the game's heap stays within the RP2040 budget."""

import subprocess
import sys
from pathlib import Path

import pytest

from mpy import REPO_ROOT, run_micropython

SCRIPT = Path(__file__).resolve().parent / "mp_scripts" / "board_game.py"
HEAP_BUDGET = 64 * 1024  # the game's heap (code aside); docs/benchmarks.md has the figures


@pytest.mark.parametrize("seed,players", [(1, 4), (2, 2), (3, 3)])
def test_a_game_by_key_presses_matches_cpython_move_by_move(seed, players):
    args = (str(seed), str(players))
    cpy = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                         cwd=REPO_ROOT, check=True).stdout.splitlines()
    mpy = run_micropython(SCRIPT, args, check=True, timeout=300, steps="step").stdout.splitlines()
    cpy_moves = [line for line in cpy if line.startswith(("start", "move"))]
    mpy_moves = [line for line in mpy if line.startswith(("start", "move"))]
    assert len(cpy_moves) > 100
    for k, (want, have) in enumerate(zip(cpy_moves, mpy_moves)):
        assert have == want, "first difference at line %d:\nCPython:     %s\nMicroPython: %s" % (
            k + 1, want, have)
    assert len(mpy_moves) == len(cpy_moves)
    measures = dict(line.split() for line in mpy if not line.startswith(("start", "move")))
    assert 0 < int(measures["peak_bytes"]) < HEAP_BUDGET
