"""`vora play` as a newcomer meets it: the virtual board's screen under a real pseudo-
terminal, read back with pyte (a VT100 emulator) at 80x24 and at 120x40: letters on the
keys, the cube legend, the farm's seat, the mirror beside the board (compact at 80
columns), refusals in words, the help of the seat to act, typed moves, the resume notice.
And the small findings of issue 7: ./dev's help, the mirror's promise of [x] marks, a
long bad input echoed in full, `vora mirror --plain` silent while it waits."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shared_rules import vora
from vora_fw import layout
from vora_host.games.vora import view

from pty_screen import PtyScreen

ROOT = Path(__file__).resolve().parents[1]
VORA = str(Path(sys.executable).with_name("vora"))
SEED = 3


def play(tmp_path, cols, rows, *extra, fresh=True):
    args = [VORA, "play", "--port", "sim", "--save-dir", str(tmp_path / "save"),
            "--db", str(tmp_path / "games.sqlite3"), "--seed", str(SEED), *extra]
    if fresh:
        args.append("--fresh")
    return PtyScreen(args, cols=cols, rows=rows, cwd=str(ROOT))


def flat(text):
    return " ".join(text.split())


def cell_text(term, name, line=1):
    """What the screen shows on key `name` (line 0: its name, line 1: what it holds),
    at the geometry of a 24-line screen (keys 2 lines high) or a 40-line one (3)."""
    from vora_host.virtual import screen as sim
    k = layout.key_index(name)
    cell_h = 3 if term.rows >= 31 else 2
    row = sim.TOP - 1 + (6 - k // 7) * cell_h + line
    col = sim.LEFT - 1 + (k % 7) * (sim.CELL_W + 1)
    return term.screen.display[row][col:col + sim.CELL_W].strip()


def wait_for_game(term):
    term.wait_for("PC mirror" if term.cols < 100 else "Vora mirror")
    term.send("c3\r", 1.0)
    term.wait_for("South to act")


def test_at_80x24_nothing_is_cut_and_the_legend_letters_mirror_and_help_are_there(tmp_path):
    state = vora.new_game(2, seed=SEED)
    helptext = view.seat_help("S", vora.PHASE_ACTION) + \
        " | or type a move (push crow Sc) | q quits"
    with play(tmp_path, 80, 24) as term:
        wait_for_game(term)
        term.wait_until(lambda: ">P0 South -2" in term.text()
                        and flat(helptext) in flat(term.text())
                        and all(cell_text(term, name) == vora.LETTERS[state.grid[c]]
                                for c, name in enumerate(vora.CELL_NAMES)),
                        "the board, the mirror and the help drawn")
        lines = term.lines()
        text = "\n".join(lines)
        # The legend names the nine cube types with their letters.
        for t, name in enumerate(vora.TYPES):
            assert "%s %s" % (vora.LETTERS[t], name) in lines[1], lines[1]
        # Every meadow key shows its cube's letter, as the rules dealt it.
        for c, name in enumerate(vora.CELL_NAMES):
            assert cell_text(term, name) == vora.LETTERS[state.grid[c]], name
        assert cell_text(term, "cS") == "South" and cell_text(term, "Sc") == "^"
        # The PC's mirror, compact, beside the board: both seats with scores and farms.
        assert "PC mirror" in text and ">P0 South -2" in text and "P1 North -1" in text
        assert "farm: count, letter" in text
        # The help of the seat to act, whole (folded, not cut), and the last lines fit.
        assert flat(helptext) in flat(text)
        assert all(len(line) <= 80 for line in lines)
        term.send("q", 0.5)
        assert term.wait_exit() == 0


def test_at_120x40_the_whole_mirror_sits_beside_the_board(tmp_path):
    state = vora.new_game(2, seed=SEED)
    with play(tmp_path, 120, 40) as term:
        wait_for_game(term)
        term.wait_until(lambda: "score -2" in term.text() and view.FARM_NOTE in term.text()
                        and cell_text(term, "c3")
                        == vora.LETTERS[state.grid[vora.cell_index("c3")]],
                        "the board and the whole mirror drawn")
        text = term.text()
        assert "Vora mirror" in text and "score -2" in text
        assert view.FARM_NOTE in text and "[x]" not in text
        assert cell_text(term, "c3") == vora.LETTERS[state.grid[vora.cell_index("c3")]]
        term.send("q", 0.5)


def test_a_refused_key_says_why_and_a_farm_says_from_whose_seat_it_is_laid_out(tmp_path):
    with play(tmp_path, 80, 24) as term:
        wait_for_game(term)
        term.send("Sa\r", 1.0)  # an edge before a cube is picked
        term.wait_until(lambda: "Sa refused: pick a cube from your farm first"
                        in flat(term.text()), "Sa refused")
        term.send("cN\r", 1.0)  # North's corner: North's farm, as North reads it
        term.wait_until(lambda: "North's farm on the meadow" in flat(term.text())
                        and sorted(x for x in (cell_text(term, n) for n in vora.CELL_NAMES)
                                   if x != ".") == ["S"],
                        "North's farm shown")
        note = flat(term.text())
        assert "North's farm on the meadow, laid out for North's seat (upside down " \
               "from here): 1S" in note
        # ... and the meadow shows it: one S (sheep) where North's layout puts it.
        shown = [cell_text(term, n) for n in vora.CELL_NAMES]
        assert sorted(x for x in shown if x != ".") == ["S"]
        term.send("q", 0.5)


def test_a_typed_move_plays_and_a_bot_answers_on_the_virtual_board(tmp_path):
    state = vora.new_game(2, seed=SEED)
    move = [m for m in state.legal_moves() if m.startswith("push ")][0]
    with play(tmp_path, 80, 24, "--bot", "N=greedy") as term:
        wait_for_game(term)
        assert "North (greedy on the PC)" not in term.text()
        term.send(move.upper().replace("PUSH", "push") + "\r", 0.5)  # any capitals
        term.wait_for("P0 " + move)
        term.wait_for("P1 ")  # the PC's bot played North
        assert "N bot" in term.text() and "greedy (PC)" in term.text()
        term.send("q", 0.5)


def test_the_screen_says_when_it_resumes_a_saved_game_and_how_to_start_afresh(tmp_path):
    with play(tmp_path, 80, 24) as term:
        wait_for_game(term)
        term.send("q", 0.5)
        term.wait_exit()
    with play(tmp_path, 80, 24, fresh=False) as term:
        term.wait_for("Resumed")
        assert "Resumed the saved game (0 moves). A new one: hold your corner 2 s, then " \
               "c4; or start with --fresh" in flat(term.text())
        term.send("q", 0.5)


def test_too_narrow_for_the_mirror_it_says_how_wide_it_wants(tmp_path):
    with play(tmp_path, 70, 24) as term:
        term.wait_for("widen the terminal")
        text = term.text()
        assert "PC mirror: widen the terminal to 76 columns" in text
        assert "G grass" in text.splitlines()[1]  # the legend still whole
        term.send("q", 0.5)


# ---------------------------------------------------------------- the headless board

def sim(tmp_path, *commands):
    lines = "\n".join(commands + ("quit",)) + "\n"
    done = subprocess.run(
        [sys.executable, "-m", "vora_host", "sim", "--headless", "--fresh", "--save-dir",
         str(tmp_path), "--seed", str(SEED)], input=lines, capture_output=True, text=True,
        timeout=60, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[1:]


def test_headless_refusals_say_why_moves_may_be_typed_and_undo_asks(tmp_path):
    state = vora.new_game(2, seed=SEED)
    move = [m for m in state.legal_moves() if m.startswith("push ")][0]
    after = state.clone()
    after.play(move)
    out = sim(tmp_path, "press c3", "press Sa", move, "state", "undo", "press c3",
              "push sheep Zz")
    assert out[0] == "ok"
    assert out[1:3] == ["refused Sa refused: pick a cube from your farm first: press your "
                        "corner, then a cube", "ok"]
    assert out[3:6] == ["ok", after.position() if after.phase == vora.PHASE_ACTION
                        else out[4], "ok"]
    assert out[6] == "ok"  # undo asked: the people agree with their corners
    assert out[7:9] == ["refused c3 refused: takeback cancelled", "ok"]
    assert out[9].startswith("error refused: the rules refuse that move:")


# ---------------------------------------------------------------- the small findings

def test_dev_alone_lists_its_commands_without_a_stray_line():
    done = subprocess.run(["bash", str(ROOT / "dev")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert "set -euo pipefail" not in done.stdout
    assert "./dev vora" in done.stdout and "./dev play" in done.stdout


def test_the_side_mirror_names_the_lines_to_collect_instead_of_promising_x_marks():
    state = vora.new_game(2, seed=11)
    k = 0
    while state.phase != vora.PHASE_COLLECT:
        moves = state.legal_moves()
        state.play(moves[k % len(moves)])
        k += 7
    from rich.console import Console
    console = Console(width=70, record=True, file=open(os.devnull, "w"))
    console.print(view.render_status(state, marks=False))
    text = console.export_text()
    assert "[x]" not in text
    first, cells = sorted(state.collectable_groups().items())[0]
    assert "take %s (%s)" % (first, " ".join(cells)) in text


def test_typed_play_shortens_a_huge_bad_input_when_it_repeats_it():
    from rich.console import Console
    from vora_host.play.terminal import Human, TerminalGame
    console = Console(width=100, record=True, file=open(os.devnull, "w"))
    entries = iter(["x" * 10000])

    def read(prompt):
        try:
            return next(entries)
        except StopIteration:
            raise EOFError

    game = TerminalGame(vora.new_game(2, seed=1), [Human(), Human()], console, read=read,
                        echo=True)
    game.run()
    text = console.export_text()
    assert "x" * 200 not in text
    assert "(10000 characters)" in text


def test_mirror_plain_says_it_is_waiting_for_the_port(tmp_path):
    missing = tmp_path / "ttyVORA"
    import threading
    proc = subprocess.Popen([VORA, "mirror", "--plain", "--port", str(missing), "--db",
                             str(tmp_path / "g.sqlite3")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=str(ROOT))
    said = []
    reader = threading.Thread(target=lambda: said.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        end = time.monotonic() + 60
        while not any("waiting for the board" in line for line in said) \
                and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
    finally:
        proc.terminate()
    proc.wait(timeout=60)
    reader.join(60)
    err = proc.stderr.read()
    out = "".join(said)
    assert "waiting for the board at %s" % missing in out, (out, err)


def test_a_bad_position_or_bot_is_a_usage_error_naming_what_is_wrong(tmp_path):
    for extra, message in ((["--position", "PWMDL/DLPWM SN 0"], "--position: a position has"),
                           (["--bot", "X=greedy"], "--bot: 'X' is not a seat"),
                           (["--bot", "N=clever"], "--bot: unknown bot 'clever'")):
        done = subprocess.run([VORA, "play", "--port", "sim", "--db",
                               str(tmp_path / "g.sqlite3"), *extra], capture_output=True,
                              text=True, timeout=60, cwd=str(ROOT), stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and message in done.stderr, (extra, done.stderr)


def test_typed_play_starts_from_a_position_and_its_record_replays(tmp_path):
    record = tmp_path / "game.json"
    done = subprocess.run([VORA, "play", "--typed", "--bots-only", "--seed", "4", "--quiet",
                           "--position", "PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 CP/D G30",
                           "--bot", "1=random", "--record", str(record)],
                          capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr
    import json
    from shared_rules import games
    rec = json.loads(record.read_text())
    assert rec["options"]["position"].startswith("PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 PC/D")
    assert rec["agents"][1]["kind"] == "random"
    assert games.replay(rec).digest() == rec["digests"][-1]
