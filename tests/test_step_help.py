"""`?` in a game: each game's view says, for the step the game is in, the rules in short and
how that step is played on the board's keys and typed (TerminalView.step_help), in that
game's own words only; the typed game shows it and returns to its prompt."""

import io
import random
import re

import pytest
from rich.console import Console
from rich.text import Text

from shared_rules import games as rules_games
from shared_rules import vora
from vora_host.games import host_game
from vora_host.games.vora import view as vora_view
from vora_host.play.board_keys import key_name
from vora_host.play.terminal import Human, TerminalGame

# Words only one game uses: no other game's help may say them.
OWN_WORDS = {
    "vora": ("meadow", "farm", "push"),
    "vorcept": ("pylon", "lava", "drone"),
    "gaia-vora": ("planet", "life-forms?", "sky object"),
    "boars": ("boar", "bag", "diet"),
    "tossing-tiger": ("battle", "war", "dice"),
}

# What the help of each step must name: the typed form of that step's moves.
STEP_WORDS = {
    "vora": {"act": ("push <cube> <edge>", "pig <edge>", "ladybug <cell>"),
             "collect": ("take <cell>", "pass"),
             "bonus": ("extra <cell>", "steal <player> <cube>")},
    "vorcept": {"pylon": ("pylon <cell>",), "lava": ("lava <cell>", "lava done"),
                "host": ("host <cell>",),
                "play": ("move <from> <to>", "summon drone1", "concede")},
    "gaia-vora": {"rotate": ("rotate 1", "rotate 2", "rotate 3"),
                  "sky": ("sun <species> <location>", "meteor grass", "storm <species>"),
                  "sun": ("sun <species> <location>",),
                  "rainbow": ("rainbow <colour> <species> <location>",),
                  "storm": ("storm <species> <location>",)},
    "boars": {"draw": ("draw <n>",), "vendetta": ("vendetta <card>",),
              "menu": ("menu new", "menu keep"), "act": ("ticket cab", "buy <card>", "end"),
              "discard": ("discard <card>",), "space": ("take <cubes>", "lose <cubes>")},
    "tossing-tiger": {"fight": ("fight <player> <n>",), "build": ("add <card>", "next"),
                      "keep": ("keep <card>", "discard <card>"), "claim": ("claim <battle>",),
                      "reroll": ("reroll <battle>",), "look": ("look <battle>",),
                      "swap": ("swap <battle> <battle>",)},
}


def step_of(game, state):
    if game == "vora":
        return vora_view.phase_name(state)
    if game == "vorcept":
        return state.phase_name()
    if game == "gaia-vora":
        return state.board()["phase"]
    if game == "boars":
        return state.view(None)["decision"]
    return state.phase()


def plain(markup):
    return Text.from_markup(markup).plain


def reach_every_step(game):
    """{step: a state in it}, reached by real moves: set positions and the worked
    examples where chance would be slow, seeded random play for the rest."""
    module = rules_games.load(game)
    found = {}
    if game == "vora":
        # South's crow makes a run of 4 on row 1: collect, then the bonus.
        state = vora.new_game(2, 0, position="PDMSG/SGLAW/DWPGM/ALSDW/CCCPD SN 0 CC/GS "
                                             "P10C10W10M10D10L10S10A10G10")
        for move in ("push crow W1", "take a1", None):
            found.setdefault(step_of(game, state), state.clone())
            if move:
                state.play(move)
        return found
    if game == "vorcept":
        state = module.new_game(2, 0)
        for move in ("pylon d4", "lava b6", "lava f2", "lava b2", "lava f6", "lava a4",
                     "lava g4", "lava done", "host d1", "host d7", None):
            found.setdefault(step_of(game, state), state.clone())
            if move:
                state.play(move)
        return found
    wanted = set(STEP_WORDS[game])
    for seed in range(60):
        rng = random.Random(seed)
        state = module.new_game(3 if game == "boars" else 2, seed)
        for _ in range(400):
            if state.is_over():
                break
            found.setdefault(step_of(game, state), state.clone())
            state.play(rng.choice(state.legal_moves()))
        if wanted <= set(found):
            break
    return found


@pytest.mark.parametrize("game", sorted(STEP_WORDS))
def test_each_step_has_its_own_help_in_the_game_s_own_words(game):
    view = host_game(game).VIEW
    states = reach_every_step(game)
    assert set(STEP_WORDS[game]) <= set(states), sorted(states)
    texts = []
    for step, words in STEP_WORDS[game].items():
        text = plain(view.step_help(states[step]))
        texts.append(text)
        assert "Now (%s)" % step in text
        for word in words:
            assert word in text, (step, word)
        assert "On the board" in text and "Typed" in text
        for other, own in OWN_WORDS.items():
            if other != game:
                for w in own:
                    assert not re.search(r"\b%s\b" % w, text, re.I), (step, other, w)
    # The summary says the same in every step; the steps' parts differ.
    assert len(set(texts)) == len(texts)


def test_gaia_vora_help_names_the_keys_the_board_uses():
    board = host_game("gaia-vora").BOARD
    view = host_game("gaia-vora").VIEW
    for step, state in reach_every_step("gaia-vora").items():
        if step not in STEP_WORDS["gaia-vora"]:
            continue
        text = plain(view.step_help(state))
        for move in state.legal_moves():
            first = key_name(board.key_path(state, move)[0])
            assert first in text, (step, move, first)


def test_vora_help_names_the_corner_of_the_seat_to_act():
    view = host_game("vora").VIEW
    state = vora.new_game(2, 0)
    assert "cS" in plain(view.step_help(state)) and "cN" not in plain(view.step_help(state))
    state.play(next(m for m in state.legal_moves() if m.startswith("push")))
    while state.to_act() == 0:
        state.play("pass")
    assert "cN" in plain(view.step_help(state))


def test_question_mark_in_typed_play_shows_the_step_help_and_returns_to_the_game():
    module = rules_games.load("vorcept")
    state = module.new_game(2, 0)
    screen = Console(file=io.StringIO(), width=100, force_terminal=False, color_system=None)
    answers = ["?", "pylon d4"]

    def read(prompt):
        if not answers:
            raise EOFError
        screen.print(prompt)
        return answers.pop(0)

    from vora_host.bots import RandomBot
    game = TerminalGame(state, [Human(), RandomBot(1)], screen, read=read, echo=False,
                        game="vorcept")
    game.run()
    out = screen.file.getvalue()
    helped = out.split("P0> ", 1)[1]
    assert "Now (pylon)" in helped and "pylon <cell>" in helped and "Commands" in helped
    # Back to the game: the prompt line again, then the move is taken.
    after = helped.split("Commands", 1)[1]
    assert "to place the Pylon" in after and "P0> " in after
    assert game.history and game.history[0] == (0, "pylon d4")


@pytest.mark.parametrize("strengths", ["house-1", "print-5"])
def test_tiger_help_says_what_each_animal_is_strong_against_in_this_print(strengths):
    module = rules_games.load("tossing-tiger")
    state = module.new_game(2, 0, strengths=strengths)
    text = plain(host_game("tossing-tiger").VIEW.step_help(state))
    for animal, strong in state.strength_table().items():
        if strong and animal in ("dragon", "mantis", "crane", "monkey", "turtle", "leopard"):
            assert "%s > %s" % (animal, " ".join(strong)) in " ".join(text.split())
        if animal in ("snake", "frog"):  # More Animals! is not in this game
            assert "%s >" % animal not in text


@pytest.mark.parametrize("game", sorted(STEP_WORDS))
def test_at_the_end_the_help_says_the_game_is_over(game):
    state = rules_games.load(game).new_game(2, 1)
    rng = random.Random(1)
    while not state.is_over():
        state.play(rng.choice(state.legal_moves()))
    text = plain(host_game(game).VIEW.step_help(state))
    assert "The game is over." in text and "Now (" not in text
