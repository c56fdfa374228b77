"""The `vora` command line: the terminal game, records and replay, bots, rendering.

Games are run both in-process through `main(argv)` (fast, output via capsys) and, where
the real program matters (exit status, piped stdin), as `python -m vora_host`.
"""

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from shared_rules import vora
from shared_rules.errors import IllegalMove
from vora_host import __version__
from vora_host.games.vora import view as render
from vora_host.bots import RandomBot, make_bot
from vora_host.games.vora.bots import GreedyBot
from vora_host.cli import main
from vora_host.cli.play_args import parse_box, parse_seat_list
from vora_host.log.records import load_record
from vora_host.log.store import GameLog
from vora_host.play.terminal import Human, TerminalGame, group_moves, resolve_entry

ROOT = Path(__file__).resolve().parents[1]
# A position at the start of South's turn (format: vora.position()). Rank 2 holds P P G:
# "push pig W2" makes P P P on a2..c2, a line South may then take.
POSITION = "LMLAL/AWSWC/LGDDG/PPGSD/SAPWL SN 0 PP/W P9C11W8M10D9L7S7A9G10"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    # rich wraps at the terminal width (80 when output is captured); a wide one keeps
    # each message on one line so that the tests can look for it.
    monkeypatch.setenv("COLUMNS", "200")


def run_vora(*args, stdin="", timeout=120):
    """Run the real program; a wide COLUMNS keeps rich from wrapping the messages."""
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "vora_host", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def play_record(tmp_path, *extra):
    path = tmp_path / "game.json"
    assert main(["play", "--bots-only", "--quiet", "--record", str(path), *extra]) == 0
    return path, json.loads(path.read_text())


# ---------------------------------------------------------------- play and replay

def test_bots_only_game_ends_and_its_record_replays(tmp_path):
    path = tmp_path / "game.json"
    done = run_vora("play", "--bots-only", "--seed", "3", "--players", "3", "--record", str(path))
    assert done.returncode == 0, done.stderr
    assert "Game over" in done.stdout and "Traceback" not in done.stderr
    record = json.loads(path.read_text())
    assert record["game"] == "vora" and record["seed"] == 3 and record["players"] == 3
    assert set(record["options"]) == {"box", "seats", "pushed_out", "max_turns", "chain_lines",
                                      "position"}
    assert record["moves"] and len(record["digests"]) == len(record["moves"])
    assert record["result"]["over"] is True
    assert record["result"]["end"] in ("box", "turns")
    # One count of turns everywhere: the screen's, the record's, the export's.
    shown = re.search(r"Game over after (\d+) turns", done.stdout)
    assert shown and int(shown.group(1)) == record["result"]["turns_completed"]
    assert record["result"]["end"] == "box"  # greedy collectors empty the box

    replayed = run_vora("replay", str(path))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "every digest matches" in replayed.stdout
    assert "%4d. P" % len(record["moves"]) in replayed.stdout


def test_the_same_seed_plays_the_same_game(tmp_path):
    _, first = play_record(tmp_path, "--seed", "5")
    _, second = play_record(tmp_path, "--seed", "5")
    assert first["moves"] == second["moves"] and first["digests"] == second["digests"]


def test_house_options_reach_the_game_and_the_record(tmp_path, capsys):
    path, record = play_record(tmp_path, "--seed", "2", "--box", "water=20,pig=8",
                               "--pushed-out", "pusher", "--seats", "SE", "--max-turns", "30")
    assert record["options"]["box"]["water"] == 20 and record["options"]["box"]["pig"] == 8
    assert record["options"]["box"]["crow"] == 12
    assert record["options"]["pushed_out"] == "pusher" and record["options"]["seats"] == "SE"
    assert record["result"]["turns_completed"] <= 30
    assert main(["replay", "--quiet", str(path)]) == 0


def _corrupt(record, k):
    # Replace move k (1-based) by another move that is legal at that point, so the
    # replay goes on but the digest after it differs.
    state = vora.new_game(record["players"], record["seed"], **record["options"])
    for move in record["moves"][:k - 1]:
        state.play(move)
    others = [m for m in state.legal_moves() if m != record["moves"][k - 1]]
    bad = dict(record, moves=list(record["moves"]))
    bad["moves"][k - 1] = others[0]
    return bad


def test_a_changed_move_makes_replay_fail_at_its_step(tmp_path, capsys):
    path, record = play_record(tmp_path, "--seed", "3", "--players", "3")
    k = 7
    path.write_text(json.dumps(_corrupt(record, k)))
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "step %d" % k in out and "digest mismatch" in out


def test_an_illegal_move_makes_replay_fail_at_its_step(tmp_path, capsys):
    path, record = play_record(tmp_path, "--seed", "4")
    record["moves"][2] = "push unicorn Sa"
    path.write_text(json.dumps(record))
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "step 3: illegal move 'push unicorn Sa'" in out and "not a cube type" in out


def test_a_record_without_digests_still_replays(tmp_path, capsys):
    path, record = play_record(tmp_path, "--seed", "6")
    del record["digests"]
    path.write_text(json.dumps(record))
    assert main(["replay", "--quiet", str(path)]) == 0
    assert "no digests to check" in capsys.readouterr().out


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("{not json", "is not JSON"),
    ('["vora"]', "a game record is a JSON object"),
    ('{"game": "chess", "players": 2, "seed": 0, "moves": []}', "record of game 'chess'"),
    ('{"game": "vora", "players": 7, "seed": 0, "moves": []}', "'players' must be 2, 3 or 4"),
    ('{"game": "vora", "players": 2, "seed": 0, "moves": [], "options": {"cheat": 1}}',
     "unknown option 'cheat'"),
    ('{"game": "vora", "players": 2, "seed": 0, "moves": ["pass"], "digests": []}',
     "0 digests for 1 move:"),
    ('{"game": "vora", "players": 2, "seed": 0, "moves": [],'
     ' "options": {"pushed_out": "sea"}}', "cannot be set up"),
])
def test_replay_reports_bad_files_clearly(tmp_path, capsys, content, message):
    path = tmp_path / "record.json"
    if content is not None:
        path.write_text(content)
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert "vora replay:" in out and message in out


# ---------------------------------------------------------------- a human at the keyboard

def test_a_human_game_from_piped_input_shows_the_reason_and_quits(tmp_path):
    state = vora.new_game(2, 1)
    with pytest.raises(IllegalMove) as refused:
        state.clone().play("push unicorn Sc")
    path = tmp_path / "quit.json"
    done = run_vora("play", "--typed", "--seed", "1", "--record", str(path),
                    stdin="push unicorn Sc\n9999\nq\ny\n")
    assert done.returncode == 0, done.stderr
    assert refused.value.reason in done.stdout
    assert "there is no move number 9999" in done.stdout
    assert "quits" in done.stdout and "Traceback" not in done.stderr
    record = load_record(str(path))
    assert record["moves"] == []  # the refused entries changed nothing
    assert record["result"]["end"] == "quit" and record["result"]["over"] is False


def test_end_of_input_stops_the_game_cleanly_and_keeps_the_record(tmp_path):
    path = tmp_path / "eof.json"
    done = run_vora("play", "--typed", "--seed", "1", "--record", str(path), stdin="1\n")
    assert done.returncode == 0, done.stderr
    assert "Input ended" in done.stdout
    record = load_record(str(path))
    assert len(record["moves"]) >= 2 and record["result"]["end"] == "end of input"
    assert run_vora("replay", str(path)).returncode == 0


def test_ctrl_c_stops_the_game_and_still_writes_the_record(tmp_path, monkeypatch, capsys):
    def interrupted(prompt=""):
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupted)
    path = tmp_path / "int.json"
    assert main(["play", "--typed", "--seed", "1", "--record", str(path)]) == 130
    assert "Interrupted" in capsys.readouterr().out
    assert load_record(str(path))["result"]["end"] == "interrupted"


def _scripted(lines):
    feed = iter(lines)

    def read(prompt):
        return next(feed)  # StopIteration would be a test bug: EOFError is the real end
    return read


def test_a_human_collects_a_line_typing_numbers_and_any_capitals():
    state = vora.from_position(POSITION)
    console = Console(record=True, width=100)
    record = {"moves": [], "digests": []}
    game = TerminalGame(state, [Human(), GreedyBot(1)], console, record=record,
                        read=_scripted(["push pig w2", "take a2", "q", "y"]))
    assert game.run() == "quit"
    assert record["moves"][:2] == ["push pig W2", "take a2"]
    text = console.export_text()
    assert "[P] [P] [P]" in text  # the collectable line is marked on the board
    assert "P0 +3 P" in text


def test_resolve_entry():
    moves = ["pass", "push crow E1", "take a2"]
    assert resolve_entry("2", moves) == ("push crow E1", None)
    assert resolve_entry("  push   crow e1 ", moves) == ("push crow E1", None)
    assert resolve_entry("4", moves)[1].startswith("there is no move number 4")
    assert resolve_entry("wolf Sa", moves) == ("wolf Sa", None)  # the engine will judge it


def test_a_typed_number_picks_the_move_shown_with_it_in_natural_order():
    """Issue 22: Boars' draws were numbered as the engine sorts them, as text ("1 1  2 10
    3 11"), so typing 3 drew 11 cubes. The list reads in natural order; since a draw of 0
    cubes is legal (#24) it starts there: #1 draws 0, #4 draws 3 (issue 38: numbered with
    '#', and a bare 4 is the count, 4 cubes)."""
    from shared_rules import games
    state = games.start({"game": "boars", "players": 2, "seed": 1, "options": {},
                         "moves": []})
    assert "draw 10" in state.legal_moves() and "draw 3" in state.legal_moves()
    console = Console(record=True, width=200)
    record = {"moves": [], "digests": []}
    game = TerminalGame(state, [Human(), RandomBot(1)], console, record=record, game="boars",
                        read=_scripted(["#4", "q", "y"]), echo=False)
    game.run()
    assert record["moves"][0] == "draw 3"
    text = console.export_text()
    assert re.search(r"draw +#1 0 cubes +#2 1 cube +#3 2 cubes +#4 3 cubes .* #10 9 cubes "
                     r"+#11 10 cubes +#12 11 cubes", text), text
    # ... and the prompt names the draws' own range, so choice 3 is not read as 3 cubes.
    assert "draw cubes: 'draw N', N from 0 to" in text, text


def test_typed_choices_are_said_in_words_not_bare_numbers():
    """Issue 22: `fight 1  1 1  2 2` told a player nothing: the typed list says the
    choices in words, as the screen beside the board does (the board mapping's words)."""
    from shared_rules import games
    state = games.start({"game": "tossing-tiger", "players": 2, "seed": 3, "options": {},
                         "moves": []})
    console = Console(record=True, width=120)
    game = TerminalGame(state, [Human(), RandomBot(1)], console, game="tossing-tiger",
                        read=_scripted(["q", "y"]), echo=False)
    game.run()
    text = console.export_text()
    assert re.search(r"fight 1 \(vs P1\) +#1 1 die +#2 2 dice +#3 3 dice", text), text


def test_a_pc_run_game_on_a_port_that_does_not_open_says_why_and_logs_nothing(tmp_path):
    """Issue 22: `vora play boars --port /dev/ttyXYZ` said "no answer from the board yet"
    and logged a game that never started (left "playing")."""
    db = tmp_path / "games.sqlite3"
    done = run_vora("play", "boars", "--port", str(tmp_path / "ttyXYZ"), "--db", str(db),
                    timeout=60)
    assert done.returncode == 1
    assert "cannot open %s: No such file or directory" % (tmp_path / "ttyXYZ") in done.stdout
    assert not db.exists() or main(["games", "--db", str(db), "list"]) == 0 and \
        GameLog(db).games() == []


def test_one_move_is_one_move_not_1_moves(tmp_path):
    """Issue 22: "(1 moves)"; counts say "1 move" and "2 moves" (vora_host.words.plural)."""
    from vora_host.words import plural
    assert (plural(1, "move"), plural(0, "move"), plural(2, "game")) == (
        "1 move", "0 moves", "2 games")
    assert (plural(1, "point", number="%+d"), plural(-2, "point", number="%+d")) == (
        "+1 point", "-2 points")
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"game": "vora", "players": 2, "seed": 0, "moves": ["pass"],
                                "digests": []}))
    done = run_vora("replay", str(path))
    assert "0 digests for 1 move:" in done.stdout + done.stderr


def test_group_moves_numbers_every_move_once():
    moves = vora.new_game(3, 8).legal_moves()
    groups = group_moves(moves)
    numbered = [(n, family, last) for family, items in groups for n, last in items]
    assert sorted(n for n, _, _ in numbered) == list(range(1, len(moves) + 1))
    for n, family, last in numbered:
        assert moves[n - 1] == (family + " " + last if last else family)


def test_option_parsing():
    assert parse_box("10") == {name: 10 for name in vora.TYPES}
    assert parse_box("water=20")["water"] == 20 and parse_box("water=20")["pig"] == 12
    assert parse_seat_list("0,N", 3, "SWN") == {0, 2}
    assert parse_seat_list("none", 2, "SN") == set()
    with pytest.raises(ValueError):
        parse_seat_list("5", 2, "SN")


def test_version_rules_and_help(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and __version__ in capsys.readouterr().out
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "push <cube> <edge>" in out and "How to play Vora" in out and "take <cell>" in out
    assert "rulebooks" not in out  # not shipped: an installed vora has no such folder
    assert main([]) == 2
    with pytest.raises(SystemExit) as done:
        main(["play", "--bots-only", "--human", "0"])
    assert done.value.code == 2


# ---------------------------------------------------------------- bots

@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_only_ever_play_legal_moves(players):
    for seed in range(3):
        state = vora.new_game(players, seed)
        bots = [(GreedyBot if (p + seed) % 2 else RandomBot)(seed * 10 + p)
                for p in range(players)]
        moves = 0
        while not state.is_over():
            before = state.digest()
            legal = state.legal_moves()
            move = bots[state.to_act()].choose(state)
            assert state.digest() == before, "a bot changed the state it was shown"
            assert move in legal
            state.play(move)
            moves += 1
        assert moves > 0


def _duel(seed, greedy_seat):
    state = vora.new_game(2, seed)
    bots = [RandomBot(seed), RandomBot(seed)]
    bots[greedy_seat] = GreedyBot(seed)
    while not state.is_over():
        state.play(bots[state.to_act()].choose(state))
    scores = state.scores()
    return scores[greedy_seat] - scores[1 - greedy_seat], state.winner() == greedy_seat


def test_greedy_beats_random_on_average():
    # Ten fixed games (seeds 0..9), the greedy bot taking each seat in turn: bots and
    # deals are all seeded, so the outcome is the same on every run.
    results = [_duel(seed, seed % 2) for seed in range(10)]
    margins = [m for m, _ in results]
    wins = sum(w for _, w in results)
    assert sum(margins) / len(margins) > 10, margins
    assert wins >= 8, results


def test_make_bot():
    assert isinstance(make_bot("greedy", 1), GreedyBot)
    assert isinstance(make_bot("random", 1), RandomBot)
    with pytest.raises(ValueError):
        make_bot("oracle")


# ---------------------------------------------------------------- rendering

def test_render_a_known_position_shows_labels_and_meadow_rows():
    state = vora.from_position(POSITION)
    console = Console(record=True, width=100)
    console.print(render.render_game(state, {0: "you", 1: "greedy"}, [(1, "push crow Sc")]))
    text = console.export_text()
    for edge in vora.EDGE_NAMES:
        assert edge in text
    lines = text.splitlines()
    for k, row in enumerate(state.meadow()):  # rank 5 first
        rank = 5 - k
        line = next(l for l in lines if "W%d " % rank in l and " E%d" % rank in l)
        between = line.split("W%d" % rank)[1].split("E%d" % rank)[0]
        assert between.split() == list(row)
    assert "P0 South (you)" in text and "P1 North (greedy)" in text
    assert "Phase act" in text and "Box %d" % sum(state.box) in text
    assert "push crow Sc" in text


def test_frame_keys_follow_the_hardware_layout():
    keys = render.frame_keys(vora.new_game(4, 0))
    assert [k.name for k in keys[0][1:6]] == ["Na", "Nb", "Nc", "Nd", "Ne"]
    assert [k.name for k in keys[6][1:6]] == ["Sa", "Sb", "Sc", "Sd", "Se"]
    assert [keys[r][0].name for r in range(1, 6)] == ["W5", "W4", "W3", "W2", "W1"]
    assert keys[1][1].name == "a5" and keys[5][5].name == "e1"
    layout_file = ROOT / "hardware" / "layout.json"
    if not layout_file.exists():
        pytest.skip("no hardware/layout.json in this checkout")
    layout = json.loads(layout_file.read_text())
    seats = "SWNE"
    for k in layout["keys"]:
        key = keys[6 - k["y"]][k["x"]]  # layout rows count from the south
        if k["role"] == "corner":
            assert key.kind == "corner" and key.player == seats.index(k["seat"])
        else:
            assert key.name == k["name"]


def test_end_of_game_texts():
    state = vora.new_game(2, 3)
    bots = [GreedyBot(1), GreedyBot(2)]
    while not state.is_over():
        state.play(bots[state.to_act()].choose(state))
    assert render.end_reason(state)
    lines = render.result_lines(state)
    winner = state.winner()
    if winner is None:
        assert "draw" in lines[-1]
    else:
        assert any("P%d wins" % winner in line for line in lines)


def _finished(position):
    # A position judged as final: the same state with its phase set to over.
    data = json.loads(vora.from_position(position).to_json())
    data["phase"], data["end"] = vora.PHASE_OVER, "box"
    return vora.from_json(json.dumps(data))


def test_tie_breaks_are_explained():
    meadow = "PPPPP/PPPPP/PPPPP/PPPPP/PPPPP"
    # 3 points each; P1 has one kind of set against three: P1 wins the first tie-break.
    state = _finished(meadow + " SN 0 CCCSSSDDD/AAAAAA P9")
    assert state.scores() == [3, 3] and state.winner() == 1
    lines = render.result_lines(state)
    assert "tie on +3 points" in lines[0] and "P1 wins the first tie-break" in lines[1]
    # Same score and kinds; P0 has fewer loose cubes: the second tie-break.
    state = _finished(meadow + " SN 0 CCCCCC/DDSSAAAAAAAAAGG P9")
    assert state.scores()[0] == state.scores()[1] and state.winner() == 0
    assert "P0 wins the second tie-break" in render.result_lines(state)[-1]
    # Nothing separates them: a draw.
    state = _finished(meadow + " SN 0 CCC/SSS P9")
    assert state.winner() is None and "a draw" in render.result_lines(state)[-1]


def test_sixteen_colour_terminals_get_their_own_palette():
    basic = Console(force_terminal=True, color_system="standard")
    full = Console(force_terminal=True, color_system="truecolor")
    assert render.palette_for(basic) == render.CUBE_STYLES_16
    assert render.palette_for(full) == render.CUBE_STYLES
    for palette in (render.CUBE_STYLES, render.CUBE_STYLES_16):
        assert len(set(palette)) == len(vora.TYPES)  # one distinct style per cube type
        console = Console(record=True, force_terminal=True, color_system="standard", width=100)
        console.print(render.render_game(vora.new_game(2, 0), palette=palette))
        assert "Na" in console.export_text()


def test_a_command_that_reviews_nothing_never_loads_the_process_pools_module(tmp_path):
    # concurrent.futures.process (and multiprocessing under it) was 10 ms of every `vora`
    # start, imported by the review's command for one exception class: only a review loads
    # it now (a fresh interpreter: this one may hold it already).
    script = "\n".join([
        "import sys",
        "from vora_host.cli import main",
        "assert main(['games', '--db', sys.argv[1], 'list']) == 0",
        "assert 'concurrent.futures.process' not in sys.modules, 'loaded at start'",
        # and multiprocessing, some 3 ms more, with the review's runner
        "assert 'multiprocessing' not in sys.modules, 'multiprocessing loaded at start'",
        "assert 'vora_host.review.run' not in sys.modules, 'the review loaded at start'",
    ])
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "games.sqlite")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("where", [
    ["--typed", "--delay", "0"],
    ["vorcept", "--port", "sim", "--human", "0", "--bot", "1=random", "--delay", "0",
     "--fresh"],
], ids=["typed", "board"])
def test_a_game_without_browser_seats_never_loads_the_web_servers_modules(tmp_path, where):
    # The browser seats' module (starlette, and http and email under it) was some 40 ms of
    # every `vora play`, imported to make a BrowserSeat whether or not --web asked for one:
    # only --web loads it now (a fresh interpreter: this one may hold it already).
    script = "\n".join([
        "import sys",
        "from vora_host.cli import main",
        "status = main(['play', *sys.argv[3:], '--seed', '1', '--db', sys.argv[1],"
        " '--save-dir', sys.argv[2]])",
        "assert status == 0, status",
        "web = sorted(m for m in sys.modules",
        "             if m.startswith(('starlette', 'vora_host.web.seats')))",
        "assert not web, 'loaded: %s' % web",
    ])
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "games.sqlite"),
                           str(tmp_path / "save"), *where], input="q\ny\n",
                          capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env=dict(os.environ, COLUMNS="200", NO_COLOR="1",
                                   VORA_SIM_DEVICE=str(tmp_path / "tty")))
    assert done.returncode == 0, done.stdout + done.stderr
