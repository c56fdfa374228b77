"""A move typed on the board's screen and refused says why, in the rules' words, as typed
play does (issue 38.4: Vorcept's board prompt said only "not a legal move now; try ...")."""

import pytest

from shared_rules import games
from shared_rules.errors import IllegalMove
from vora_host.play.board import BoardGame
from vora_host.play.board_session import BoardGameCompanion
from vora_host.play.terminal import Human

from test_board_games import FakeClient


def _companion(name, seed=3):
    state = games.load(name).new_game(2, seed)
    agents = [Human(), Human()]
    companion = BoardGameCompanion(name, state, agents)
    companion.game = BoardGame(name, state, agents, FakeClient(), bot_delay_ms=0,
                               on_event=companion._event)
    return companion


def _reason(state, move):
    with pytest.raises(IllegalMove) as info:
        state.clone().play(move)
    return info.value.reason


@pytest.mark.parametrize("move, setup", [
    ("lava d5", ["pylon d4"]),  # beside the Pylon
    ("pylon z9", []),  # no such cell
    ("lava a1 a2", ["pylon d4"]),  # one cell only
    ("move d2 d4", []),  # not the time to move
])
def test_vorcept_on_the_board_says_the_rules_reason(move, setup):
    companion = _companion("vorcept")
    for m in setup:
        assert companion.typed(m, 0) == (True, m)
    reason = _reason(companion.state, move)
    played, text = companion.typed(move, 10)
    assert not played
    assert text.startswith("%r is not a legal move now: %s" % (move, reason)), text


def test_a_word_no_move_starts_with_names_the_words_that_do():
    companion = _companion("vorcept")
    played, text = companion.typed("xyzzy 9", 0)
    assert not played
    assert text == "'xyzzy 9' is not a legal move now; moves now start with pylon"
