"""The unchanged firmware under real MicroPython (the WebAssembly port run by Node, and the
Unix port), on the simulated hardware layer: whole games entered key by key give the same
digest after every move as the same run on CPython, and the game's heap stays within the
RP2040 budget.

A whole game by keys takes 12 to 15 s of CPU under the WebAssembly port and 2 to 3 s under
MicroPython's Unix port (PyPI, 64-bit, the same VM). So (issue 42: the suite's time) one
whole game runs on WebAssembly, a Pico's 32-bit heap: the board alone, from the .mpy files
installed, compared with CPython move by move and held to the issue-25 budget; one game of
each player count runs with a PC on the Unix port, where the heap budget with a PC is held
at the 64-bit figure (UNIX_HEAP_BUDGET). The link under WebAssembly, byte for byte, and the
board's bot there have tests of their own below."""

import os
import subprocess
import tempfile
import sys
from pathlib import Path

import pytest

from mpy import REPO_ROOT, run_micropython, unix_micropython

SCRIPT = Path(__file__).resolve().parent / "mp_scripts" / "board_game.py"
HEAP_BUDGET = 64 * 1024  # the game's heap (code aside); docs/benchmarks.md has the figures
# The same budget on the 64-bit Unix port: its objects take more room (8-byte words). The
# same 4-player game (seed 1, with a PC, from source) peaks at 46,352 bytes on the 32-bit
# WebAssembly port and 65,568 on the 64-bit Unix port (1.41 times); the board alone 1.49
# times (29,696 and 44,320): 1.5 times the 32-bit budget (docs/benchmarks.md, issue 42).
UNIX_HEAP_BUDGET = HEAP_BUDGET * 3 // 2
# Issue 40 (a stock Pico): with a PC the game's peak fell when the state's JSON was made
# once a move for the save and the PC's digest together, in three pieces (it was made twice,
# whole), and the scores' scroll became a byte a column: on this port, seed 1, from 65,568
# to 55,808 bytes (seeds 2 and 3: 59,168 and 59,840 to 53,888 and 53,504), from source;
# from the .mpy files the test now runs, 65,568, 59,296 and 59,968 before that change
# (451ce5f) and 51,360, 49,216 and 47,680 after it; 48,640, 46,496 and 45,344 once the
# frame reader kept one buffer and the record no table of ends (2026-11-30); 42,048,
# 40,128 and 40,992 (from 47,936, 46,048 and 44,768) once the moves a save holds stayed
# on the flash and a frame was encoded in place (2026-11-30, later). Held under 45 KB, so
# that undoing the record's change fails here (docs/benchmarks.md, "Memory on a stock
# Pico").
UNIX_WITH_PC_BUDGET = 45 * 1024
# The Unix port's heap for a game by keys: the script collects at every key event, which
# sweeps the whole heap, so a small one is quicker (4 MB: 20 s; 256 KB: 2 to 3 s). The
# firmware runs from its .mpy files, as installed: compiled from source in 256 KB, whether
# the link's import found the 14 KB block the interned names' table doubles into depended
# on anything the script itself named (it failed at 240, 280 to 320 KB, passed at 256 and
# 264, as the driver's loads moved into steps); from .mpy files it passes from 240 KB.
UNIX_HEAP = "256K"


@pytest.fixture(scope="module")
def mpy_tree(tmp_path_factory):
    """The board's modules as .mpy files, as `vora flash` installs them, with the driver."""
    sys.path.insert(0, str(REPO_ROOT / "bench"))
    from bench_firmware_micropython import compiled_tree
    return compiled_tree(tmp_path_factory.mktemp("tree"))
GAMES = [(1, 4), (2, 2), (3, 3)]


def _moves(lines):
    return [line for line in lines if line.startswith(("start", "move"))]


def _same_moves(cpy, mpy):
    cpy_moves, mpy_moves = _moves(cpy), _moves(mpy)
    assert len(cpy_moves) > 100
    for k, (want, have) in enumerate(zip(cpy_moves, mpy_moves)):
        assert have == want, "first difference at line %d:\nCPython:     %s\nMicroPython: %s" % (
            k + 1, want, have)
    assert len(mpy_moves) == len(cpy_moves)


def _on_cpython(args):
    with tempfile.TemporaryDirectory() as temp:
        lines = tuple(subprocess.run(
            [sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
            cwd=REPO_ROOT, check=True, env=dict(os.environ, TMPDIR=temp)).stdout.splitlines())
        # It once left its save folder in the machine's temp at every run (136 of them).
        assert os.listdir(temp) == [], "the CPython run left %s behind" % os.listdir(temp)
    return lines


@pytest.mark.parametrize("seed,players", GAMES)
def test_a_game_by_key_presses_matches_cpython_move_by_move_on_the_unix_port(
        seed, players, tmp_path, mpy_tree):
    args = (str(seed), str(players))
    root = str(mpy_tree)
    done = subprocess.run(  # in a folder of its own: the board's saves go there
        [unix_micropython(), "-X", "heapsize=" + UNIX_HEAP,
         str(mpy_tree / "tests" / "mp_scripts" / SCRIPT.name), *args],
        capture_output=True, text=True, cwd=str(tmp_path), timeout=300,
        env=dict(os.environ, MICROPYPATH=os.pathsep.join(
            [root, os.path.join(root, "firmware"), os.path.join(root, "tests")])))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    mpy = done.stdout.splitlines()
    _same_moves(_on_cpython(args), mpy)
    measures = dict(line.split() for line in mpy if not line.startswith(("start", "move")))
    assert 0 < int(measures["peak_bytes"]) < UNIX_WITH_PC_BUDGET < UNIX_HEAP_BUDGET, measures


def test_the_board_link_speaks_the_same_under_micropython():
    # HELLO, a game by keys with every MOVE and KEY reported, STATE_REQ, MOVES_REQ,
    # terminal mode, a malformed MODE and a HELLO of another version: byte for byte the
    # same answers on both runtimes.
    script = SCRIPT.with_name("board_link.py")
    cpy = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=REPO_ROOT, check=True).stdout
    mpy = run_micropython(script, check=True, timeout=300).stdout
    assert mpy == cpy
    lines = cpy.splitlines()
    assert lines[0].startswith("HELLO_OK 0") and sum(l.startswith("MOVE ") for l in lines) == 6
    assert any(l.startswith("MOVES ") for l in lines) and any(l.startswith("STATE ") for l in lines)
    assert "pixel True" in lines
    assert any(l.startswith("LOG") and "refused MODE" in l for l in lines)
    assert any(l.startswith("REFUSE 0") and "protocol version 3" in l for l in lines)
    assert lines[-1] == "moves 6 connected True mode 1"


def test_one_person_against_the_boards_bot_matches_cpython_and_fits_the_heap():
    # The board's bot at North, South by keys, a takeback by keys: the same moves and
    # digests on both runtimes, and no step (a key event, or one scan of the bot
    # thinking) above the heap budget.
    script = SCRIPT.with_name("board_bot.py")
    args = ("1", "60")
    cpy = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                         cwd=REPO_ROOT, check=True).stdout.splitlines()
    mpy = run_micropython(script, args, check=True, timeout=300, steps="step").stdout.splitlines()
    played = ("start", "move", "takeback")
    assert [l for l in mpy if l.startswith(played)] == [l for l in cpy if l.startswith(played)]
    assert cpy[0].startswith("start N ") and any(l.startswith("takeback") for l in cpy)
    assert sum(l.startswith("move") for l in cpy) >= 60
    measures = dict(line.split() for line in mpy if not line.startswith(played))
    assert 0 < int(measures["bot_peak_bytes"]) <= int(measures["peak_bytes"]) < HEAP_BUDGET


# Issue 25: code from .mpy plus the game's peak, no PC, under 120 KB, counted as the issue
# counts (its "168 KB" were 168,304 bytes). The test driver's own code is not the board's
# (tests/mp_scripts/board_game.py weighs it apart).
BOARD_ALONE_BUDGET = 120000


def test_a_board_alone_matches_cpython_and_holds_its_code_and_its_game_in_120_kb(mpy_tree):
    # The firmware as installed (.mpy files), no PC (its link never made), a 4-player game
    # by keys on a Pico's 32-bit heap: the same moves and digests as on CPython, and the
    # modules' code on the heap plus the game's peak (the collector held off for each key
    # event: an upper bound) under the budget. Seed 2 was the largest of seeds 1 to 3
    # (docs/benchmarks.md, "The firmware under MicroPython").
    from bench_firmware_micropython import run
    mpy, measures = run(mpy_tree, 2, alone=True, lines=True)
    _same_moves(_on_cpython(("2", "4", "alone")), mpy)
    assert sum(line.startswith("move") for line in mpy) > 300
    assert 0 < measures["peak_bytes"] < HEAP_BUDGET, measures
    assert measures["code_bytes"] + measures["peak_bytes"] < BOARD_ALONE_BUDGET, measures

