"""The terminal game is generic: it plays any game of the registry through the game's
terminal view, and when a game hides information and several humans share the screen,
each human sees only their own secrets (the screen is handed over between turns)."""

import io

from rich.console import Console

from fakegames import high_card
from vora_host.bots import RandomBot, make_bot
from vora_host.play.terminal import Human, TerminalGame


def scripted(lines):
    lines = list(lines)

    def read(prompt):
        if not lines:
            raise EOFError
        return lines.pop(0)
    return read


def console():
    return Console(file=io.StringIO(), width=100, force_terminal=False, color_system=None)


def test_a_fake_game_plays_to_its_end_through_the_generic_loop(monkeypatch):
    module, _ = high_card.register(monkeypatch)
    state = module.new_game(2, seed=4)
    con = console()
    game = TerminalGame(state, [RandomBot(1), RandomBot(2)], con, game="high-card")
    assert game.run() == "over"
    game.print_end()
    out = con.file.getvalue()
    assert "Game over" in out and "shown" in out
    assert state.is_over()


def test_each_human_sees_only_their_own_card(monkeypatch):
    module, _ = high_card.register(monkeypatch)
    state = module.new_game(2, seed=11)
    mine, theirs = state.cards
    assert mine != theirs  # seed chosen so that the two cards can be told apart
    con = console()
    answers = ["", "keep", "", "keep"]  # P0: Enter (hand over), keep; P1 the same

    def read(prompt):
        con.print(prompt)  # as input() shows its prompt on the screen
        return answers.pop(0)

    game = TerminalGame(state, [Human(), Human()], con, read=read, echo=False, game="high-card")
    assert game.run() == "over"
    out = con.file.getvalue()
    p0_turn, p1_turn = out.split("Turn 1")
    p1_turn = p1_turn.split("Turn 2")[0]
    assert "Only P0 looks now" in p0_turn and "Only P1 looks now" in p1_turn
    assert "card-%d" % mine in p0_turn and "card-%d" % theirs not in p0_turn
    assert "card-%d" % theirs in p1_turn and "card-%d" % mine not in p1_turn


def test_with_one_human_the_screen_is_theirs_and_bots_see_nothing_more(monkeypatch):
    module, _ = high_card.register(monkeypatch)
    state = module.new_game(2, seed=11)
    mine, theirs = state.cards
    con = console()
    game = TerminalGame(state, [RandomBot(5), Human()], con, read=scripted(["keep"]),
                        echo=False, game="high-card")
    assert game.run() == "over"
    before_end = con.file.getvalue().split("Game over")[0]
    assert "look away" not in before_end  # nobody to hide from
    assert "card-%d" % theirs in before_end


def test_a_bot_is_made_for_any_game_and_leaves_the_state_alone(monkeypatch):
    module, _ = high_card.register(monkeypatch)
    bot = make_bot("random", 3, "high-card")
    state = module.new_game(2, seed=1)
    before = state.to_json()
    assert bot.choose(state) in state.legal_moves()
    assert state.to_json() == before
