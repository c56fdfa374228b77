"""The rules under real MicroPython (the WebAssembly port from npm, run by Node): the same
seeded random games give the same digest after every move as on CPython, and the rules'
checks hold there too."""

import subprocess
import sys
from pathlib import Path

import pytest

from mpy import REPO_ROOT, run_micropython

SCRIPTS = Path(__file__).resolve().parent / "mp_scripts"


def cpython(script, *args):
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, check=True)
    return done.stdout


# The games the board can referee alone: their rules run unchanged under MicroPython.
BOARD_GAMES = ("vora", "vorcept", "gaia-vora")
# Games per batch, so that a batch plays well over 150 moves (random Vorcept games are short),
# and the options of extra runs that take other paths through a game's rules.
GAMES_PER_BATCH = {"vora": 3, "vorcept": 12, "gaia-vora": 3}
OPTION_RUNS = {"vorcept": ['{"self_capture": "remove", "edge_wall": false}',
                           '{"edge_wall": false}',
                           '{"size": 9, "host_only": true, "lava_min": 0}'],
               "tossing-tiger": ['{"dawndojo": true, "more_animals": true, "simulwars": true}']}


def compare_runtimes(args):
    expected = cpython(SCRIPTS / "random_games.py", *args).splitlines()
    got = run_micropython(SCRIPTS / "random_games.py", args, check=True).stdout.splitlines()
    assert len(expected) > 3 * 50, "the games are too short to prove anything"
    for k, (want, have) in enumerate(zip(expected, got)):
        assert have == want, "first difference at line %d:\nCPython:     %s\nMicroPython: %s" % (
            k + 1, want, have)
    assert len(got) == len(expected)


@pytest.mark.parametrize("game", BOARD_GAMES)
@pytest.mark.parametrize("batch", [0, 1, 2])
def test_same_seeded_games_give_the_same_digests_on_both_runtimes(game, batch):
    count = GAMES_PER_BATCH.get(game, 3)  # games per batch, player counts cycling
    compare_runtimes((game, str(batch * count), str(count)))


@pytest.mark.parametrize("game,options", [(g, o) for g in sorted(OPTION_RUNS)
                                          for o in OPTION_RUNS[g]])
def test_games_with_options_give_the_same_digests_on_both_runtimes(game, options):
    compare_runtimes((game, "0", "6", "100000", options))


# The games the PC referees (the board their screen and keypad): their records replay to the
# same digests on MicroPython too. Tossing Tiger's JSON needed keys sorted by hand there
# (MicroPython's json.dumps has no sort_keys: its to_json raised TypeError before).
HOST_GAMES = {"boars": 2, "tossing-tiger": 8}  # games: over 150 moves each way


@pytest.mark.parametrize("game", sorted(HOST_GAMES))
def test_the_pcs_games_give_the_same_digests_on_both_runtimes(game):
    compare_runtimes((game, "0", str(HOST_GAMES[game])))


def test_rules_checks_pass_under_micropython():
    out = run_micropython(SCRIPTS / "rules_checks.py", check=True).stdout.split()
    assert out[0] == "ok" and int(out[1]) > 1000


def test_the_probe_script_runs_on_cpython_too():
    # The digest lines are produced by one script on both runtimes: make sure it is the
    # rules that are compared, not two different scripts.
    lines = cpython(SCRIPTS / "random_games.py", "vora", "0", "1", "5").splitlines()
    assert lines[0].startswith("0 2 0 ") and len(lines) == 6
