"""The PC's screen beside a board that plays a game the PC runs (vora play GAME on the
board): a bot thinking never stops the link nor the keys (issue 23.5), a player's secret
moves never stay on the screen once the board is handed over (issue 23.2), what a player
needs now stays on screen however small it is (issue 22), readable key labels, each
game's legend, typed moves and `?` on the board screen."""

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

from shared_rules import games, tossing_tiger
from vora_host import games as host_games
from vora_host.bots import RandomBot
from vora_host.play.board import BoardGame
from vora_host.play.board_keys import compose_frame, key_name
from vora_host.play.board_session import BoardGameCompanion
from vora_host.play.terminal import Human

from test_board_games import FakeClient  # one fake link for the board game tests

ROOT = Path(__file__).resolve().parents[1]


class HeldBot(RandomBot):
    """A bot that thinks until released (at most `hold_s`): a slow search."""

    kind = "held"

    def __init__(self, seed=0, hold_s=10.0):
        super().__init__(seed)
        self.release = threading.Event()
        self.hold_s = hold_s
        self.asked = 0

    def choose(self, state):
        self.asked += 1
        self.release.wait(self.hold_s)
        return super().choose(state)


def companion_for(name, state, agents, client=None):
    companion = BoardGameCompanion(name, state, agents)
    companion.game = BoardGame(name, state, agents, client or FakeClient(), bot_delay_ms=0,
                               on_event=companion._event)
    return companion


# ---------------------------------------------------------------- 23.5: a slow bot


def test_a_bot_held_10_s_never_blocks_the_loop_and_keys_are_answered_meanwhile():
    state = games.load("gaia-vora").new_game(2, seed=3)
    bot = HeldBot(hold_s=60.0)  # held until released: a tick that waited would take a minute
    events = []
    client = FakeClient()
    game = BoardGame("gaia-vora", state, [bot, Human()], client, bot_delay_ms=0,
                     on_event=lambda what, text: events.append((what, text)))
    legal = state.legal_moves()
    slowest = 0.0
    now = 0
    refused = 0
    for _ in range(400):  # 8 s of the board's time, a key every 0.5 s, while the bot thinks
        t0 = time.monotonic()
        game.tick(now)
        if now % 500 == 0:
            game.key(2, True, now)
            game.key(2, False, now + 40)
        slowest = max(slowest, time.monotonic() - t0)
        now += 20
        time.sleep(0.005)
    refused = [text for what, text in events if what == "refused"]
    # The loop that serves the link never waited for the bot; every key got an answer. (A
    # tick is far quicker; the bound leaves room for a loaded machine, not for a wait.)
    assert slowest < 10, "a tick took %.2f s while the bot thought" % slowest
    assert bot.asked == 1 and state.to_act() == 0 and not game.moves
    assert len(refused) >= 15 and all(t == "wait: P0 (held) is thinking" for t in refused)
    # The refused key flashes red on the board while the bot still thinks.
    assert any(f[3 * 2:3 * 2 + 3] == b"\xff\x00\x00" for f in client.frames)
    # Once the bot answers, its move is played at the next ticks.
    bot.release.set()
    end = time.monotonic() + 60
    while not game.moves and time.monotonic() < end:
        game.tick(now)
        now += 20
        time.sleep(0.01)
    assert len(game.moves) == 1 and game.moves[0] in legal


def test_an_answer_about_a_position_that_is_gone_is_not_played():
    state = games.load("gaia-vora").new_game(2, seed=4)
    bot = HeldBot(hold_s=5.0)
    game = BoardGame("gaia-vora", state, [bot, Human()], FakeClient(), bot_delay_ms=0)
    game.tick(0)
    first = game.thinking
    assert first is not None
    # The position changes meanwhile (a takeback, a move played from elsewhere).
    game.play(state.legal_moves()[0], 10)
    before = state.clone()
    game.tick(15)  # never a second search on the same bot while the first runs
    time.sleep(0.05)
    assert game.thinking is first and bot.asked == 1
    bot.release.set()
    assert game.thinking.done.wait(60)
    now = 20
    end = time.monotonic() + 60
    while len(game.moves) < 2 and time.monotonic() < end:  # the second answer, played
        game.tick(now)
        now += 20
        time.sleep(0.01)
    # The stale answer was dropped; the bot was asked again about the new position.
    assert bot.asked >= 2 and len(game.moves) >= 2
    assert game.moves[1] in before.legal_moves()


def test_quitting_while_a_pc_bot_thinks_is_prompt_and_keys_are_refused_meanwhile(tmp_path):
    # `vora play gaia-vora --bot 0=search:180s`: the board keeps the PC (keys answered for
    # seconds, never the board's own Vora game) and `quit` does not wait for the search.
    from play_session import PlaySession
    env = dict(os.environ, COLUMNS="120", NO_COLOR="1",
               VORA_SIM_DEVICE=str(tmp_path / "tty"))
    with PlaySession(["play", "gaia-vora", "--port", "sim",
                      "--db", str(tmp_path / "games.sqlite3"), "--save-dir",
                      str(tmp_path / "save"), "--fresh", "--human", "1", "--bot",
                      "0=search:180s", "--seed", "5"], env=env) as play:
        play.until_the_pcs_game("Gaia-Vora")
        play.expect("board thinking: P0 (search) is thinking")
        for _ in range(2):
            play.command("press c1")
            play.expect("board refused: wait: P0 (search) is thinking")
        asked = time.monotonic()
        out = play.quit()
        took = time.monotonic() - asked
    assert play.proc.returncode == 0, out
    assert out.count("board refused: wait: P0 (search) is thinking") == 2, out
    # Far less than the search's 180 s (with room for a loaded machine).
    assert took < 60, "quitting took %.1f s" % took


# ---------------------------------------------------------------- 23.2: secrets


def _press_move(game, move, now):
    """Enter `move` by its keys and play it with the corner."""
    path = game.mapping.key_path(game.state, move)
    for k in path:
        game.key(k, True, now)
        game.key(k, False, now + 30)
    assert game.pad.preview == move, (move, game.pad.preview)
    corner = game.pad.confirm_keys(game.state)[0]
    game.key(corner, True, now + 60)
    game.key(corner, False, now + 90)


def _screen_bytes(companion, width=100):
    buf = io.StringIO()
    Console(file=buf, force_terminal=True, color_system="truecolor", width=width).print(
        companion.renderable(width))
    room = {"height": 30} if getattr(companion, "takes_height", False) else {}
    return buf.getvalue() + "\n".join(companion.side_lines(width - 20, **room)[:30])


def _tiger_after_p0_secrets(seed):
    # The same public start, P0's hand dealt again from `seed`: P0 fights, makes a die
    # of three cards from their hand, and the board is handed over to P1.
    start = tossing_tiger.new_game(2, seed=1)
    start.play("fight 1 2")
    state = tossing_tiger.determinize(start.view(1), seed)
    companion = companion_for("tossing-tiger", state, [Human(), Human()])
    game = companion.game
    now = 1000
    game.tick(now)
    corner = game.pad.confirm_keys(state)[0]
    game.key(corner, True, now)  # only P0 looks now
    game.key(corner, False, now + 30)
    assert game.viewer() == 0
    hand = sorted(set(m for m in state.legal_moves() if m.startswith("add ")))
    for move in hand[:3]:
        now += 1000
        _press_move(game, move, now)
        game.tick(now)
    now += 1000
    _press_move(game, "next", now)
    game.tick(now)
    assert state.to_act() == 1 and game.viewer() is None
    return companion, hand[:3], now


def test_the_previous_players_secret_moves_never_stay_on_the_pc_screen():
    one, hand_one, now = _tiger_after_p0_secrets(11)
    two, hand_two, _ = _tiger_after_p0_secrets(12)
    assert hand_one != hand_two  # the secrets differ
    assert one.state.view(1) == two.state.view(1)
    # Handed over: the screen and the board show nothing of P0's cards.
    for companion, hand in ((one, hand_one), (two, hand_two)):
        text = _screen_bytes(companion)
        for move in hand:
            assert move not in text, move
        assert "add a card" in text
    assert _screen_bytes(one) == _screen_bytes(two)
    frame = [compose_frame(c.game.mapping, c.state, c.game.viewer(), c.game.pad, now,
                           c.game.waiting_for()) for c in (one, two)]
    assert frame[0] == frame[1]
    # The virtual board's keys name nothing of P0's hand, nor of P1's before P1 looks.
    assert one.key_names_and_marks() == two.key_names_and_marks()
    assert set(one.key_names_and_marks()[1]) <= {"", "P0", "P1 go"}  # corners by seat
    # P1 takes the board: still nothing of P0's secrets.
    for c in (one, two):
        corner = c.game.pad.confirm_keys(c.state)[0]
        c.game.key(corner, True, now + 100)
        c.game.key(corner, False, now + 130)
        assert c.game.viewer() == 1
    assert _screen_bytes(one) == _screen_bytes(two)


def test_plain_output_prints_only_what_everybody_may_see():
    out = io.StringIO()
    start = tossing_tiger.new_game(2, seed=1)
    start.play("fight 1 2")
    companion = BoardGameCompanion("tossing-tiger", start, [Human(), Human()], out=out,
                                   plain=True)
    companion.game = game = BoardGame("tossing-tiger", start, [Human(), Human()],
                                      FakeClient(), on_event=companion._event)
    game.tick(0)
    corner = game.pad.confirm_keys(start)[0]
    game.key(corner, True, 10)
    game.key(corner, False, 40)
    move = sorted(m for m in start.legal_moves() if m.startswith("add "))[0]
    _press_move(game, move, 100)
    printed = out.getvalue()
    assert "board move: P0 add a card" in printed
    assert move not in printed and move.split()[1] not in printed


# ---------------------------------------------------------------- 22: what stays on screen

BOARD_GAMES = ("vorcept", "gaia-vora", "tossing-tiger", "boars")
SIZES = ((80, 24), (120, 40))


def _panel(companion, cols, rows):
    """The side panel as the virtual board's screen lays it out at cols x rows, read
    back through pyte."""
    import pyte
    from vora_host.virtual import screen as sim
    cell_h = 3 if rows >= sim.TOP + 21 + sim.BOTTOM else 2
    width, height = cols - sim.SIDE_COL, 7 * cell_h
    screen = pyte.Screen(width, height)
    stream = pyte.Stream(screen)
    room = {"height": height} if getattr(companion, "takes_height", False) else {}
    lines = companion.side_lines(width, **room)[:height]  # the screen draws no more
    for i, line in enumerate(lines):
        stream.feed("\x1b[%d;1H%s\x1b[0m" % (i + 1, sim._clip(line, width)))
    return [line.rstrip() for line in screen.display]


def _played_long(name, seed, moves=40):
    # One human (P0) against a random bot, many moves in, P0 to act.
    import random
    module = games.load(name)
    state = module.new_game(2, seed=seed)
    companion = companion_for(name, state, [Human(), RandomBot(seed)])
    game = companion.game
    rnd = random.Random(seed)
    for _ in range(moves * 3):
        if state.is_over() or (len(game.moves) >= moves and state.to_act() == 0):
            break
        legal = [m for m in state.legal_moves() if m != "concede"] or state.legal_moves()
        game.play(rnd.choice(legal), 0)
    if state.is_over():
        return companion
    firsts = set(path[0] for path in game.pad.paths(state).values() if path)
    refused = min(k for k in range(49) if k not in firsts
                  and k not in game.pad.confirm_keys(state))
    game.key(refused, True, 0)
    game.key(refused, False, 30)
    companion.refused_name = key_name(refused)
    return companion


@pytest.mark.parametrize("name", BOARD_GAMES)
@pytest.mark.parametrize("cols,rows", SIZES)
def test_the_turn_the_prompt_and_the_last_refusal_stay_after_many_moves(name, cols, rows):
    # Random play ends a war of Tossing Tiger in some 7 to 25 moves.
    for seed in range(1, 40):
        companion = _played_long(name, seed, 12 if name == "tossing-tiger" else 40)
        if companion.state.is_over():
            continue
        lines = _panel(companion, cols, rows)
        text = " ".join(" ".join(lines).split())
        view = companion.game.view
        turn = "%s to %s" % (view.seat_label(companion.state, 0, "you"),
                             view.prompt(companion.state))
        assert " ".join(turn.split()) in text, (turn, lines)
        assert "refused: key %s names no move now" % companion.refused_name in text, lines
        return
    pytest.fail("every game ended before the moves were played")


def _plain(companion, width=100):
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None).print(companion.renderable(width))
    return buf.getvalue()


def test_stale_previews_go_and_repeated_messages_are_counted():
    state = games.load("vorcept").new_game(2, seed=2)
    bot = HeldBot(hold_s=5.0)
    companion = companion_for("vorcept", state, [Human(), bot])
    game = companion.game
    from vora_host.games.base import cell_key
    game.key(cell_key("d4"), True, 0)  # previews "pylon d4"
    game.key(cell_key("d4"), False, 30)
    assert "preview: pylon d4" in _plain(companion)
    game.play("pylon c3", 100)  # played some other way: the preview is stale
    assert "preview: pylon d4" not in _plain(companion)
    game.tick(200)  # the bot thinks: every key pressed now is refused the same way
    for now in (300, 400, 500):
        game.key(cell_key("a1"), True, now)
    bot.release.set()
    text = _plain(companion)
    assert text.count("is thinking") == 2, text  # the turn line and the refusal, once
    assert "refused: wait: P1 (held) is thinking (x3)" in text, text


# ---------------------------------------------------------------- on the board screen


def _flat(text):
    return " ".join(text.split())


def _screen_flat(term):
    """The screen's text in words: the panel beside the board read on its own (its lines
    share the rows with the keys), then the whole screen."""
    from vora_host.virtual import screen as sim
    side = [line[sim.SIDE_COL - 1:] for line in term.lines()]
    return _flat("\n".join(side)) + " || " + _flat(term.text())


def _wait_flat(term, needle, timeout=60.0):
    term.wait_until(lambda: needle in _screen_flat(term), "%r appeared" % needle, timeout)
    return _screen_flat(term)


def _board_screen(tmp_path, name, cols, rows, *extra):
    from pty_screen import PtyScreen
    vora = str(Path(sys.executable).with_name("vora"))
    args = [vora, "play", name, "--port", "sim", "--save-dir", str(tmp_path / "save"),
            "--db", str(tmp_path / "games.sqlite3"), "--seed", "3", "--fresh", *extra]
    return PtyScreen(args, cols=cols, rows=rows, cwd=str(ROOT),
                     env={"VORA_SIM_DEVICE": str(tmp_path / "tty")})


LEGEND_WORDS = {"vorcept": "Pylon: whose turn", "gaia-vora": "stone",
                "tossing-tiger": "attacker won", "boars": "station"}


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_typed_moves_help_and_the_games_legend_on_the_board_screen(tmp_path, name):
    import re
    with _board_screen(tmp_path, name, 80, 24, "--human", "0", "--bot", "1=random") as term:
        _wait_flat(term, "(you) to")
        text = _wait_flat(term, "type a move (")
        lines = term.lines()
        assert LEGEND_WORDS[name] in lines[1] and "P pig" not in lines[1], lines[1]
        move = re.search(r"type a move \(([^)]*)\)", text).group(1)
        term.send("xyzzy 9\r", 0.5)
        _wait_flat(term, "'xyzzy 9' is not a legal move now")
        term.send(move + "\r", 0.5)
        _wait_flat(term, "move: P0 " + move)
        term.send("?", 0.5)
        _wait_flat(term, "help (Esc or Enter: back to the game)")
        term.send("\x1b", 0.5)  # (an Enter right after `?` keeps it: test_board_help_keys)
        term.wait_until(lambda: "back to the game" not in _screen_flat(term), "help closed")
        assert all(len(line) <= 80 for line in term.lines())
        term.send("q", 0.5)
        assert term.wait_exit() == 0


# ---------------------------------------------------------------- labels


def test_key_marks_are_words_not_cut_words():
    gaia = games.load("gaia-vora").new_game(2, seed=1)
    marks = set(host_games.host_game("gaia-vora").BOARD.key_marks(gaia, 0).values())
    assert {"rainbw", "carniv", "herbiv", "yellow", "orange", "green"} <= marks, marks
    assert not marks & {"rainbo", "rainb", "carni", "herbi", "yello", "orang"}
    # Every word a move of Tossing Tiger or Boars may show on a key fits it readably.
    tiger = host_games.host_game("tossing-tiger").BOARD
    assert tiger.short_label("monkey") == "monkey" and tiger.short_label("leopard") == "leoprd"
    boars = host_games.host_game("boars").BOARD
    assert [boars.short_label(w) for w in ("feast-yellow", "combo-rbg", "portion-5",
                                            "mono-bbb", "switcheroo")] == [
        "feastY", "co rbg", "port 5", "mo bbb", "switch"]


def test_choices_are_said_in_words_not_bare_numbers():
    state = tossing_tiger.new_game(2, seed=1)
    companion = companion_for("tossing-tiger", state, [Human(), RandomBot(1)])
    game = companion.game
    assert companion.key_choices() == "b7 fight"
    fight = game.mapping.key_path(state, "fight 1 2")
    game.key(fight[0], True, 0)
    game.key(fight[0], False, 30)
    assert companion.key_choices() == "b6 vs P1"
    game.key(fight[1], True, 60)
    game.key(fight[1], False, 90)
    assert companion.key_choices() == "b6 1 die  c6 2 dice  d6 3 dice"
    boars = games.load("boars").new_game(2, seed=1)
    mapping = host_games.host_game("boars").BOARD
    draw = mapping.key_path(boars, "draw 7")
    texts = mapping.key_texts(boars, draw[:1])
    assert texts[draw[1]] == "7 cubes"


def test_the_hand_over_says_who_is_next_who_looks_and_the_one_key_to_go_on():
    companion, _, now = _tiger_after_p0_secrets(11)
    game = companion.game
    turn = companion.turn_line()
    assert turn == ("P1's turn: only P1 looks now (the others look away), then presses "
                    "their corner g7 to go on")
    names, marks = companion.key_names_and_marks()
    assert marks[names.index("g7")] == "P1 go" and marks[names.index("a1")] == "P0"
    game.key(names.index("c4"), True, now + 10)  # not the corner: refused, nothing shown
    assert game.event_lines(None)[-1] == "refused: P1: press your corner g7 when only you look"
    assert game.viewer() is None
    game.key(names.index("g7"), True, now + 20)
    assert game.viewer() == 1 and companion.turn_line().startswith("P1 to ")


def test_track_spaces_and_cards_are_named_on_their_keys():
    from shared_rules import boars
    from vora_host.games.boars.board import TRACK_KEYS, _spaces
    state = boars.new_game(2, seed=3)
    marks = host_games.host_game("boars").BOARD.key_marks(state, 0)
    spaces = _spaces(state.view(0)["track"])
    assert marks[TRACK_KEYS[0]] == "P0 P1"  # both boars at the start
    for i, k in enumerate(TRACK_KEYS[1:], 1):
        kind, colour = spaces[i]
        assert marks[k] == {"food": colour, "predator": colour.upper(),
                            "station": "statn"}.get(kind, marks[k]), (i, kind, marks[k])
    tiger = tossing_tiger.new_game(2, seed=3)
    mapping = host_games.host_game("tossing-tiger").BOARD
    hand = sorted(c for c, n in tiger.view(0)["info"]["hand"].items() for _ in range(n))
    from vora_host.games.tossing_tiger.board import HAND_KEYS
    marks = mapping.key_marks(tiger, 0)
    assert [marks[k] for k in HAND_KEYS[:len(hand)]] == [
        mapping.short_label(tossing_tiger.card_type(c)) for c in hand]
    assert not mapping.key_marks(tiger, None)  # nobody's hand for everybody's eyes


def test_the_boards_messages_name_a_bots_level_or_its_kind():
    # "wait: P1 (hard) is thinking": the level the player chose, on the keys' narrow strip;
    # a bot chosen by kind keeps its kind's name there.
    from vora_host.bots import make_bot
    state = games.load("boars").new_game(2, 3)
    game = BoardGame("boars", state, [Human(), make_bot("hard", 1, "boars")], FakeClient(),
                     bot_delay_ms=0)
    assert game.bot_name(1) == "P1 (hard)"
    game = BoardGame("boars", state, [Human(), make_bot("search:30", 1, "boars")],
                     FakeClient(), bot_delay_ms=0)
    assert game.bot_name(1) == "P1 (search)"
