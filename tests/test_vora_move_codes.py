"""Vora's moves as codes (shared_rules.vora.move_code / move_text / legal_codes): the board
keeps its legal moves as small integers, so every code must name exactly one move, both
ways, and legal_codes() must be legal_moves() in the same order, in every phase."""

import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared_rules import vora


def test_legal_codes_are_the_legal_moves_in_order_through_whole_games():
    phases = set()
    for seed in range(30):
        state = vora.new_game(2 + seed % 3, seed=seed)
        rnd = random.Random(seed)
        while not state.is_over():
            moves = state.legal_moves()
            codes = state.legal_codes()
            assert [vora.move_text(c) for c in codes] == moves, state.position()
            assert [vora.move_code(m) for m in moves] == codes
            assert list(state.legal_codes(array("H"))) == codes  # as the board keeps them
            phases.add(state.phase)
            state.play(rnd.choice(moves))
    assert phases == {vora.PHASE_ACTION, vora.PHASE_COLLECT, vora.PHASE_BONUS}


def every_code():
    for kind in range(len(vora.MOVE_VERBS)):
        for code in range(kind << 10, (kind + 1) << 10):
            try:
                yield code, vora.move_text(code)
            except ValueError:
                pass


def test_each_move_text_has_one_code():
    texts = {}
    for code, text in every_code():
        assert vora.move_code(text) == code
        assert text not in texts, (code, texts.get(text))
        texts[text] = code
    # 25 crow + 625 duck + 25 extra + 25 ladybug + 625 mole + pass + 20 pig + 9*20 push
    # + 4*9 steal + 25 take + 25 water + 20 wolf (the codes, not all of them ever legal)
    assert len(texts) == 25 + 625 + 25 + 25 + 625 + 1 + 20 + 180 + 36 + 25 + 25 + 20


@pytest.mark.parametrize("code", [-1, 12 << 10, 1 << 14, vora.MOVE_CROW << 10 | 25 << 5,
                                  vora.MOVE_CROW << 10 | 3 << 5 | 1, vora.MOVE_PASS << 10 | 1,
                                  vora.MOVE_PUSH << 10 | 9 << 5, vora.MOVE_PUSH << 10 | 20,
                                  vora.MOVE_STEAL << 10 | 4 << 5, vora.MOVE_STEAL << 10 | 9])
def test_a_code_of_no_move_is_refused_by_name(code):
    with pytest.raises(ValueError, match="no Vora move has code %d" % code):
        vora.move_text(code)


@pytest.mark.parametrize("text", ["", "push", "push crow", "push crow Sc x", "push cow Sc",
                                  "push crow Sf", "crow a6", "crow  a1", "steal 4 crow",
                                  "steal 1 cow", "pass now", "Pass", "take a1 a2", None, 7])
def test_text_that_is_no_move_has_no_code(text):
    assert vora.move_code(text) == -1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcdeNSWE0123456789 pushcrowlfgtk", max_size=16))
def test_move_code_takes_any_text(text):
    code = vora.move_code(text)
    assert code == -1 or vora.move_text(code) == text
