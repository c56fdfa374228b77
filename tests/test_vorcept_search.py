"""Vorcept's knowledge for the search bot (vora_host.games.vorcept.search): the actions
that win at once, found without playing every action out, and the simulations' policy
that takes them."""

import random

from shared_rules import vorcept
from vora_host.games.vorcept import search as vs
from vora_host.games import vorcept as host_vorcept


def _wins_by_brute_force(state, moves):
    out = []
    for m in moves:
        twin = state.clone()
        twin.play(m)
        if twin.win == state.active:
            out.append(m)
    return out


def test_winning_moves_are_every_action_that_wins_at_once():
    # Every position of 40 random games, host captures and Pylon triangles both: the
    # shortcut (only actions arriving beside the enemy Host or the Pylon are tried)
    # finds exactly what playing every action out finds.
    rnd = random.Random(5)
    positions = with_a_win = 0
    for seed in range(40):
        state = vorcept.new_game(2, seed, host_only=seed % 4 == 3)
        while not state.is_over():
            moves = state.legal_moves()
            if state.phase == vorcept.PHASE_PLAY:
                expected = _wins_by_brute_force(state, moves)
                assert vs.winning_moves(state, moves) == expected, state.position()
                positions += 1
                with_a_win += bool(expected)
            state.play(rnd.choice(moves))
    assert positions > 1000 and with_a_win > 50


def test_a_simulation_takes_a_win_when_there_is_one():
    # Twenty positions of random games where some actions win at once among others:
    # the policy plays one of them, whatever its generator.
    rnd = random.Random(2)
    found = 0
    for seed in range(30):
        state = vorcept.new_game(2, seed)
        while not state.is_over() and found < 20:
            moves = state.legal_moves()
            wins = vs.winning_moves(state, moves)
            if wins and len(moves) > len(wins):
                for k in range(5):
                    move = vs.rollout_move(state, random.Random(k))
                    assert move in wins
                found += 1
            state.play(rnd.choice(moves))
    assert found == 20
    assert host_vorcept.SEARCH_ROLLOUT is vs.rollout_move


def test_a_simulation_without_a_win_plays_at_random():
    rnd = random.Random(3)
    state = vorcept.new_game(2, 0)
    while state.phase != vorcept.PHASE_PLAY:
        state.play(rnd.choice(state.legal_moves()))
    moves = state.legal_moves()
    assert not vs.winning_moves(state, moves)
    seen = {vs.rollout_move(state, random.Random(k)) for k in range(200)}
    assert seen <= set(moves) and len(seen) > len(moves) // 2
