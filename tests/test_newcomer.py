"""A newcomer learns and plays each game the PC runs (issue #22, "how it is shown to
work"): `vora rules GAME` first, then the game on the virtual board at 80x24 and at 120x40
(through a pty, the screen read back with pyte): `?` shows the step's help and the game
comes back, the first move is made by typing key names, a key that names nothing is
refused with its reason, `undo` takes the turn back, `q` quits and the next `vora play GAME`
resumes it. The same in typed mode. At every screen looked at, the turn line ("P0 ... to
...") and what to do next are visible.

One launch per game and size: the 80x24 one starts the game, the 120x40 one resumes it."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shared_rules import games as rules_games
from vora_host import games as host_games
from vora_host.log.store import GameLog
from vora_host.play import saved
from vora_host.play.board_keys import KeyPad, key_name
from vora_host.virtual import screen as sim

from pty_screen import WAIT, PtyScreen

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("vorcept", "gaia-vora", "tossing-tiger", "boars")
SEED = 3
VORA = str(Path(sys.executable).with_name("vora"))
HOWTO_SECTIONS = ("## Goal", "## Set-up", "## A turn", "## On the board's keys",
                  "## Typed moves")


def flat(text):
    return " ".join(text.split())


@pytest.mark.parametrize("name", GAMES)
def test_the_how_to_play_has_the_goal_the_set_up_and_a_turn(name):
    out = subprocess.run([VORA, "rules", name], capture_output=True, text=True, timeout=60,
                         cwd=str(ROOT), env=dict(os.environ, COLUMNS="80"))
    assert out.returncode == 0, out.stderr
    title = rules_games.load(name).TITLE
    assert out.stdout.startswith("# How to play " + title), out.stdout[:200]
    where = [out.stdout.find(section + "\n") for section in HOWTO_SECTIONS]
    assert all(k > 0 for k in where) and where == sorted(where), where
    goal = out.stdout[where[0]:where[1]]
    assert len(goal.split()) > 15  # a goal in words, not a heading alone


# ---------------------------------------------------------------- on the virtual board



def _playing_now(log, name):
    """The id of the newest unfinished game of `name` in the log: the one the vora under
    test is playing (saved_game() passes it by, since a live vora holds it)."""
    return max(g["id"] for g in log.games() if g["game"] == name
               and g["status"] in saved.UNFINISHED)

class Board:
    """`vora play GAME` on the virtual board, as a newcomer sees and types it."""

    def __init__(self, tmp_path, name, cols, rows, *extra):
        self.name, self.cols, self.rows = name, cols, rows
        self.db = tmp_path / "games.sqlite3"
        self.host = host_games.host_game(name)
        args = [VORA, "play", name, "--port", "sim", "--save-dir", str(tmp_path / "save"),
                "--db", str(self.db), "--human", "0", "--bot", "1=random", "--delay", "0",
                *extra]
        self.term = PtyScreen(args, cols=cols, rows=rows, cwd=str(ROOT),
                              env={"VORA_SIM_DEVICE": str(tmp_path / "tty")})
        cell_h = 3 if rows >= sim.TOP + 21 + sim.BOTTOM else 2
        self.below = sim.TOP + 7 * cell_h - 1  # the first line under the board

    def panel(self):
        rows = self.term.lines()[sim.TOP - 1:self.below]
        return flat("\n".join(line[sim.SIDE_COL - 1:] for line in rows))

    def bottom(self):
        return flat("\n".join(self.term.lines()[self.below:]))

    def seen(self):
        return self.panel() + " || " + flat(self.term.text())

    def wait(self, needle, timeout=WAIT, where=None):
        where = where or self.seen
        self.term.wait_until(lambda: needle in where(), "%r appeared" % needle, timeout)
        return self.seen()

    def type(self, line):
        self.term.send(line + "\r", 0.3)

    def state(self):
        """The game's position now, as the game log holds it."""
        with GameLog(self.db) as log:
            return saved.replay(log.game(_playing_now(log, self.name)))[0]

    def moves(self):
        """The game's moves, as the game log holds them."""
        with GameLog(self.db) as log:
            return saved.replay(log.game(_playing_now(log, self.name)))[1]

    def turn(self, state):
        view = self.host.VIEW
        return "%s to %s" % (view.seat_label(state, 0, "you"), view.prompt(state))

    def my_turn(self):
        """Wait until the newcomer (P0) is to act and the screen says so; the position."""
        end = time.monotonic() + WAIT
        while True:
            if "(you) to " in self.bottom():  # the log is read when the screen says so
                state = self.state()
                if state.to_act() == 0 and self.bottom().startswith(flat(self.turn(state))):
                    self.check_turn_and_prompt(state)
                    return state
            assert time.monotonic() < end, "P0's turn never came:\n" + self.term.text()
            self.term.read_some(0.2)

    def check_turn_and_prompt(self, state):
        # The turn under the board and atop the panel; the line to type on, and the
        # footer saying what can be typed or pressed.
        turn = flat(self.turn(state))
        assert self.bottom().startswith(turn), self.term.text()
        assert self.panel().startswith(turn), self.term.text()
        lines = self.term.lines()
        assert any(line.startswith(">") for line in lines[self.below:]), self.term.text()
        footer = self.bottom()
        assert "Press the keys" in footer and "q quits" in footer, self.term.text()
        assert all(len(line) <= self.cols for line in lines)

    def play_by_keys(self, state, move):
        """Type the key names of `move` as the footer says, then play the preview: the
        player's corner, or (a game without corners) its last key held."""
        mapping = self.host.BOARD
        path = mapping.key_path(state, move)
        before = len(self.moves())
        # The keys to type, worked out on the board's own key entry (KeyPad): a key naming
        # several moves is pressed again for the next, until `move` is the preview. Typed
        # all, then the preview waited for: never a look at the screen before a key is in.
        pad = KeyPad(mapping)
        keys = []
        for k in path:
            pad.press(state, k, 0)
            pad.release(state, k, 30)
            keys.append(k)
        while pad.preview != move:
            assert len(keys) < len(path) + 6, "%s is never previewed" % move
            pad.press(state, path[-1], 0)
            pad.release(state, path[-1], 30)
            keys.append(path[-1])
        for k in keys:
            self.type(key_name(k))
        self.wait("preview: %s (" % move, where=self.panel)
        corners = mapping.confirm_keys(state, 0)
        if corners:
            self.type(key_name(corners[0]))
        else:
            assert "'hold a1' holds a key" in self.bottom(), self.term.text()  # says how
            self.type("hold " + key_name(path[-1]))
        # Played: in the log (the panel says "move: P0 ..." until the bot's answer,
        # which comes at once: --delay 0).
        end = time.monotonic() + WAIT
        while len(self.moves()) <= before:
            assert time.monotonic() < end, "%s was never played:\n%s" % (move, self.term.text())
            self.term.read_some(0.05)
        assert self.moves()[before] == move, self.term.text()

    def refuse_a_key(self, state):
        """Press a key that names nothing now; its refusal and reason are shown."""
        pad = KeyPad(self.host.BOARD)
        firsts = set(path[0] for path in pad.paths(state).values() if path)
        corners = set(self.host.BOARD.confirm_keys(state, 0))
        idle = min(k for k in range(49) if k not in firsts | corners)
        self.type(key_name(idle))
        text = self.wait("refused: key %s names no move now;" % key_name(idle),
                         where=self.panel)
        # Said under the board too, in place of the typed key's "ok".
        self.wait("refused: key %s names no move now;" % key_name(idle), where=self.bottom)
        assert "%s ok" % key_name(idle) not in self.bottom(), self.term.text()
        # The reason goes on: where the moves start, keys the newcomer can press now.
        starts = sorted(set(key_name(k) for k in firsts))
        assert "moves start at %s" % ", ".join(starts[:3]) in text, text

    def help_and_back(self, state):
        self.term.send("?", 0.5)
        self.wait("help (Esc or Enter: back to the game)")
        # The step's own help is what shows first, even beside an 80x24 board.
        self.wait("Now (", where=self.panel)
        self.check_turn_and_prompt(state)
        self.term.send("\x1b", 0.5)  # Escape (an Enter just after ? is the ?'s own)
        self.term.wait_until(lambda: "back to the game" not in self.panel(), "help closed")
        self.check_turn_and_prompt(state)

    def undo(self, turn, move):
        self.type("undo")
        # One human and a bot: nobody else to ask, taken back at once, said on the
        # message line under the board and in the panel.
        said = "taken back: P0's turn %d (" % turn
        text = self.wait(said, where=self.bottom)
        assert move in text.split(said)[1], text
        self.wait("takeback: " + said, where=self.panel)

    def quit(self):
        self.term.send("q", 0.5)
        assert self.term.wait_exit() == 0, self.term.text()
        self.term.close()
        with GameLog(self.db) as log:
            games = log.games()
            assert len(games) == 1
            info = log.game(games[0]["id"])
        assert info["status"] == "interrupted"
        return info["move_count"]


@pytest.mark.parametrize("name", GAMES)
def test_a_newcomer_plays_undoes_quits_and_resumes_on_the_virtual_board(tmp_path, name):
    title = rules_games.load(name).TITLE
    start = rules_games.load(name).new_game(2, seed=SEED)
    moves = None
    for (cols, rows), extra in (((80, 24), ("--fresh", "--seed", str(SEED))),
                                ((120, 40), ())):
        board = Board(tmp_path, name, cols, rows, *extra)
        try:
            if moves is None:
                board.wait("Type a key name (d4) or a move and Enter, ? for help")
                state = board.my_turn()
                assert state == start
            else:
                n = "%d move%s" % (moves, "" if moves == 1 else "s")
                text = board.wait("Resumed your game of %s from" % title, where=board.bottom)
                assert "(%s; game 1 in the log)" % n in text, board.term.text()
                state = board.my_turn()
                # Still said once the game is on: not replaced by the first hint at once.
                assert "Resumed your game of %s" % title in board.bottom(), board.term.text()
            board.help_and_back(state)
            # The first move by keys, as the footer says (the footer's own example).
            move = state.legal_moves()[0]
            assert "or type a move (%s)" % move in board.bottom(), board.term.text()
            board.play_by_keys(state, move)
            after = board.my_turn()
            board.refuse_a_key(after)
            board.check_turn_and_prompt(after)
            board.undo(state.turn_count() + 1, move)
            if moves is None:
                assert board.my_turn() == start
            else:  # back to P0's last turn (begun before the resume, or just now)
                undone = board.my_turn()
                assert undone.turn_count() <= state.turn_count() and \
                    len(undone.legal_moves()) and board.state() == undone
                state = undone
                move = state.legal_moves()[0]
            # Played again, so that the game quit has moves to resume.
            board.play_by_keys(state, move)
            board.my_turn()
            moves = board.quit()
            assert moves >= 1
        finally:
            board.term.close()


# ---------------------------------------------------------------- typed


class Typed:
    """`vora play GAME --typed` at an 80x24 terminal, as a newcomer types it."""

    def __init__(self, tmp_path, name, *extra, db="typed.sqlite3"):
        self.name = name
        self.db = tmp_path / db
        self.host = host_games.host_game(name)
        args = [VORA, "play", name, "--typed", "--db", str(self.db), "--human", "0",
                "--bot", "1=random", "--delay", "0", *extra]
        self.term = PtyScreen(args, cols=80, rows=24, cwd=str(ROOT))

    def state(self):
        with GameLog(self.db) as log:
            return saved.replay(log.game(_playing_now(log, self.name)))[0]

    def moves(self):
        with GameLog(self.db) as log:
            return saved.replay(log.game(_playing_now(log, self.name)))[1]

    def asked(self):
        lines = [line for line in self.term.lines() if line.strip()]
        return bool(lines) and lines[-1] == "P0>"

    def wait(self, needle, timeout=WAIT):
        return self.term.wait_for(needle, timeout)

    def my_turn(self, *needles):
        """Wait until P0 is asked for a move (and `needles` are on the screen); check that
        the turn line and the prompt are visible; the position."""
        end = time.monotonic() + WAIT
        while True:
            text = flat(self.term.text())
            if self.asked() and all(flat(n) in text for n in needles):
                state = self.state()
                if state.to_act() == 0:
                    break
            assert time.monotonic() < end, "never asked %r:\n%s" % (needles, self.term.text())
            self.term.read_some(0.1)
        view = self.host.VIEW
        turn = "%s to %s" % (view.seat_label(state, 0, "you"), view.prompt(state))
        assert flat(turn) in flat(self.term.text()), self.term.text()
        return state

    def type(self, line):
        self.term.send(line + "\r", 0.2)


@pytest.mark.parametrize("name", GAMES)
def test_a_newcomer_plays_undoes_quits_and_resumes_typed(tmp_path, name):
    from vora_host.play.terminal import in_shown_order
    title = rules_games.load(name).TITLE
    start = rules_games.load(name).new_game(2, seed=SEED)
    typed = Typed(tmp_path, name, "--fresh", "--seed", str(SEED))
    try:
        assert typed.my_turn("? for help") == start
        typed.type("?")
        typed.my_turn("Now (", "Commands")
        first = in_shown_order(start.legal_moves())[0]
        typed.type("#1")  # a move by its number in the list
        after = typed.my_turn()
        assert typed.moves()[0] == first
        # Three tries that are not moves, each refused with its reason; the turn stays.
        typed.type("xyzzy")
        words = sorted(set(m.split()[0] for m in after.legal_moves()))
        typed.my_turn("illegal move 'xyzzy'", "moves now start with %s" % ", ".join(words))
        typed.type(words[0] + " zz9")  # a move's word, then nonsense: the engine's reason
        typed.my_turn("illegal move '%s zz9': " % words[0])
        count = len(after.legal_moves())
        typed.type("#%d" % (count + 1))
        typed.my_turn("there is no move number %d (the moves are numbered #1 to #%d)"
                      % (count + 1, count))
        typed.type("undo")
        assert typed.my_turn("Taken back: ") == start
        typed.type("#1")
        typed.my_turn()
        assert typed.moves()[0] == first
        typed.type("q")
        typed.wait("Quit this game? [y/N]")
        typed.type("y")
        typed.wait("Saved: 'vora play %s --typed' resumes it" % name)
        assert typed.term.wait_exit() == 0
    finally:
        typed.term.close()
    with GameLog(typed.db) as log:
        moves = log.game(1)["move_count"]
    again = Typed(tmp_path, name)
    try:
        n = "%d move%s" % (moves, "" if moves == 1 else "s")
        # Said where it is seen: above the first prompt, under the board.
        again.my_turn("Resumed your game of %s from" % title, "(%s; game 1 in the log)" % n)
        again.type("q")
        again.wait("Quit this game? [y/N]")
        again.type("y")
        assert again.term.wait_exit() == 0
    finally:
        again.term.close()


def test_the_footer_offers_a_move_to_type_only_when_a_human_is_to_act():
    # While the bot is to move, a move offered in the footer would only be refused
    # ("wait: P1 (random) is thinking"): the footer offers none then.
    from vora_host.bots import RandomBot
    from vora_host.play.board import BoardGame
    from vora_host.play.board_session import BoardGameCompanion
    from vora_host.play.terminal import Human
    from test_board_screen import FakeClient
    state = rules_games.load("vorcept").new_game(2, seed=SEED)
    companion = BoardGameCompanion("vorcept", state, [Human(), RandomBot(1)])
    companion.game = BoardGame("vorcept", state, [Human(), RandomBot(1)], FakeClient(),
                               on_event=companion._event)
    first = state.legal_moves()[0]
    assert "or type a move (%s)" % first in companion.help_line()
    companion.game.play(first, 0)
    assert state.to_act() == 1
    assert "or type a move |" in companion.help_line(), companion.help_line()
    assert "(%s)" % state.legal_moves()[0] not in companion.help_line()


def test_a_war_beside_an_80x24_board_is_read_in_words_not_cut_columns():
    # The panel beside the board at 80 columns is some 26 wide: the war's table of four
    # columns was cut to "b…  at…  d…" there, and who won each battle could not be read.
    import io

    from rich.console import Console
    from shared_rules import tossing_tiger
    state = tossing_tiger.new_game(2, seed=SEED)
    state.play("fight 1 2")
    while state.to_act() is not None and state.view(0)["info"].get("war") \
            and not any(b["winner"] for b in state.view(0)["info"]["battles"]):
        state.play(sorted(state.legal_moves())[0])
    info = state.view(0)["info"]
    assert info.get("war") and any(b["winner"] for b in info["battles"])
    view = host_games.host_game("tossing-tiger").VIEW
    width = 80 - sim.SIDE_COL
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None).print(view.render(state, 0, width=width))
    text = buf.getvalue()
    assert "…" not in text, text
    for n, b in enumerate(info["battles"], 1):
        if b["winner"] in ("a", "d"):
            assert "%d:" % n in text and ("attacker" if b["winner"] == "a" else "defender") \
                in text, text
        if b["a"]["face"]:
            assert b["a"]["face"] in text, text


def test_the_planet_beside_an_80x24_board_is_read_in_words_not_cut_cells():
    # Gaia-Vora's 3x3 picture of the planet wants some 50 columns; beside an 80-column
    # board it was cut to "nw SUN  n MOON  ne METE…" and "h: sa (…": one line a location.
    import io

    from rich.console import Console
    state = rules_games.load("gaia-vora").new_game(2, seed=SEED)
    view = host_games.host_game("gaia-vora").VIEW
    width = 80 - sim.SIDE_COL
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None).print(view.render(state, 0, width=width))
    text = buf.getvalue()
    assert "…" not in text, text
    board = state.board()
    for slot in board["slots"]:
        if slot["location"] != "water":
            tiles = " ".join(tile[:2] for tile in slot["stack"])
            assert "%s: %s (%d)" % (slot["position"], tiles, slot["altitude"]) in text, text
        if slot["sky"]:
            assert "%s %s" % (slot["slot"], slot["sky"].upper()) in text, text
    assert "WATER" in text


# ---------------------------------------------------------------- issue 38: all of it at 80x24
# At every step, typed and beside the virtual board, an 80x24 screen shows whose turn,
# what to do, the scores and the player's own hidden things (tests/test_screen_essentials.py
# says which facts, from the rules' own view); beside the board, what the panel cuts is a
# Tab away, and the help is paged, never cut.

SEEDS_38 = {"vora": 5, "vorcept": 5, "gaia-vora": 5, "tossing-tiger": 4, "boars": 6}


def _choose(name, state, rnd):
    """P0's move in these tests: at random, but making the moments looked at likely (a
    war of two dice in Tossing Tiger, draws that feed a diet in Boars)."""
    legal = [m for m in state.legal_moves() if m != "concede"] or state.legal_moves()
    if name == "tossing-tiger":
        legal = [m for m in legal if not m.startswith("fight ") or m.endswith(" 2")] or legal
    if name == "boars":
        legal = [m for m in legal if not m.startswith("draw ")
                 or 4 <= int(m.split()[1]) <= 9] or legal
    return rnd.choice(legal)


def _typed_to_mid_game(typed, name, turns, check=None):
    """Play P0's moves typed (`_choose`), `turns` of them or until the game ends; at each
    prompt `check(state, screen)` first. Returns the kinds of moment checked."""
    import random
    from test_screen_essentials import missing
    rnd = random.Random(SEEDS_38[name])
    seen = set()
    for _ in range(turns):
        end = time.monotonic() + 30
        while not typed.asked() and "Game over" not in typed.term.text():
            assert time.monotonic() < end, typed.term.text()
            typed.term.read_some(0.1)
        if not typed.asked():
            break  # the game ended
        state = typed.my_turn()
        screen = typed.term.text()
        assert len(typed.term.lines()) == 24
        gone = missing(name, state, screen, who={0: "you", 1: "random"})
        assert not gone, (gone, screen)
        if check is not None:
            seen |= check(state, screen)
        typed.type(_choose(name, state, rnd))
    return seen


def _list_rows(name, state):
    # How many rows the typed list of moves takes at 80 columns.
    from vora_host.play.terminal import in_shown_order, moves_summary
    host = host_games.host_game(name)
    words = getattr(getattr(host, "BOARD", None), "word_text", None)
    listed = moves_summary(in_shown_order(state.legal_moves()), 80, host.VIEW.compact_family,
                           words and (lambda before, word: words(state, before, word)))
    return len(listed.plain.splitlines())


def _moments(name, state, screen):
    """The moments issue 38 names, checked where they are: Tossing Tiger while P0 makes
    dice (facts() asks for the cards to place), after a battle (its revealed cards);
    Boars at the diet choice (each diet's cost and distance); a long list of moves."""
    seen = set()
    text = flat(screen)
    if _list_rows(name, state) >= 14:  # a list of moves taller than half the screen
        seen.add("long list")
    if name == "tossing-tiger":
        war = state.view(0)["war"]
        if war is not None and war["build"] is not None and war["build"]["p"] == 0:
            seen.add("making dice")
        if war is not None:
            for n, bt in enumerate(war["b"], 1):
                if bt["done"] == 2:
                    a, d = (side["shown"] for side in bt["s"])
                    assert re.search(r"\b%d\s+%s\b.*\b%s\b" % (n, a, d), text), screen
                    seen.add("after a battle")
    if name == "boars":
        diets = [m.split()[1] for m in state.legal_moves() if m.startswith("diet ")]
        for diet in diets:
            if diet in ("top", "bottom"):
                assert re.search(r"#\d+ %s \(pay \w+: move \d\)" % diet, text), screen
                seen.add("diet choice")
    return seen


@pytest.mark.parametrize("name", ("vora",) + GAMES)
def test_typed_at_80x24_every_prompt_shows_the_turn_the_scores_and_your_secrets(tmp_path,
                                                                                  name):
    typed = Typed(tmp_path, name, "--fresh", "--seed", str(SEEDS_38[name]))
    try:
        seen = _typed_to_mid_game(typed, name, 14, lambda s, screen: _moments(name, s, screen))
    finally:
        typed.term.close()
    wanted = {"tossing-tiger": {"making dice", "after a battle"},
              "boars": {"diet choice"}, "gaia-vora": {"long list"}}.get(name, set())
    assert wanted <= seen, seen


@pytest.mark.parametrize("name", GAMES)
def test_resumed_mid_game_beside_an_80x24_board_all_is_on_the_panel_or_a_tab_away(tmp_path,
                                                                                     name):
    from test_screen_essentials import missing, printed
    typed = Typed(tmp_path, name, "--fresh", "--seed", str(SEEDS_38[name]),
                  db="games.sqlite3")  # the log the board resumes from
    try:
        _typed_to_mid_game(typed, name, 10)
        typed.my_turn()
        typed.type("q")
        typed.wait("Quit this game? [y/N]")
        typed.type("y")
        assert typed.term.wait_exit() == 0
    finally:
        typed.term.close()
    board = Board(tmp_path, name, 80, 24)
    try:
        board.wait("Resumed your game of", where=board.bottom)
        state = board.state()
        view = board.host.VIEW
        turn = flat("%s to %s" % (view.seat_label(state, 0, "you"), view.prompt(state)))
        board.wait(turn, where=board.panel)
        # Tab turns the pages; the first has the scores and the player's secrets, and
        # every line of the game's picture is on one of them.
        width = 80 - sim.SIDE_COL
        panel_rows = lambda: [line[sim.SIDE_COL - 1:].rstrip()  # noqa: E731
                              for line in board.term.lines()[sim.TOP - 1:board.below]]
        pages = _turn_pages(board, panel_rows)
        first = flat(" ".join(pages[0]))
        assert not missing(name, state, first), (missing(name, state, first), pages[0])
        assert len(pages) > 1 and "Tab: more (1/%d)" % len(pages) in first
        for page in pages:
            assert flat(" ".join(page)).startswith(turn), page
        shown = set(line for page in pages for line in page)
        picture = [line.rstrip() for line in printed(view.render(
            state, 0, None, [], width=width), width).splitlines()]
        unseen = [line for line in picture if line and line not in shown
                  and not line.lstrip().startswith("P")]  # the last moves: their history
        assert unseen == [], (unseen, pages)
        # `?`: the help, paged under the turn; each page says which it is.
        board.term.send("?", 0.5)
        board.wait("help (Esc or Enter: back to the game)", where=board.panel)
        helped = _turn_pages(board, panel_rows)
        for n, page in enumerate(helped, 1):
            text = flat(" ".join(page))
            assert text.startswith(turn), page
            assert text.endswith("? or Tab: %s (%d/%d)" % (
                "more" if n < len(helped) else "page 1", n, len(helped))), page
        # Under the lines every page shares (the turn), the pages read as one text: the
        # whole help, every sentence of it.
        head = 0
        while all(len(page) > head and page[head] == helped[0][head] for page in helped):
            head += 1
        said = flat(" ".join(line for page in helped for line in page[head:]
                             if not line.strip().startswith("? or Tab: ")))
        for line in _plain(view.step_help(state)).splitlines():
            for sentence in re.split(r"(?<=\.) ", flat(line)):
                assert sentence in said, (sentence, helped)
        board.term.send("\x1b", 0.5)
        board.quit()
    finally:
        board.term.close()


def _page_mark(rows):
    # (this page, of how many) from a page's last row: "Tab: more (2/4)".
    text = [row for row in rows if row.strip()]
    found = re.search(r"\((\d+)/(\d+)\)$", text[-1]) if text else None
    return (int(found.group(1)), int(found.group(2))) if found else (1, 1)


def _turn_pages(board, rows):
    """Every page of the panel, pressing Tab until each has shown (the panel starts again
    at its first page when something new is said: then it goes on from there)."""
    pages = {}
    end = time.monotonic() + 60
    while True:
        shown = rows()
        k, n = _page_mark(shown)
        if any(_page_mark(page)[1] != n for page in pages.values()):
            pages = {}
        pages[k] = shown
        if len(pages) == n:
            return [pages[k] for k in range(1, n + 1)]
        board.term.send("\t", 0.1)
        turned = time.monotonic() + 3
        while _page_mark(rows()) == (k, n) and time.monotonic() < turned:
            board.term.read_some(0.1)
        assert time.monotonic() < end, (pages, board.term.text())


def _plain(markup):
    from rich.text import Text
    return Text.from_markup(markup).plain
