"""The OpenSpiel adapter (vora_host.openspiel_adapter): every game passes OpenSpiel's own
random_sim_test, move ids are a stable bijection, chance sits where the game draws, and
the hidden-information games give information states from the player's view."""

import json
import random

import pytest

from shared_rules import games

pyspiel = pytest.importorskip(
    "pyspiel", reason="open-spiel is not installed (the optional extra vora-board[openspiel])")
from vora_host import openspiel_adapter as osa  # noqa: E402


@pytest.mark.parametrize("name", games.names())
def test_openspiel_random_sim_test_passes(name):
    game = osa.load(name)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("name", games.names())
def test_every_legal_move_has_one_stable_id(name):
    module = games.load(name)
    rnd = random.Random(5)
    for players in module.PLAYER_COUNTS[:2]:
        state = module.new_game(players, 3)
        codec = osa.MoveCodec(osa.grammar(name, state))
        while not state.is_over():
            moves = state.legal_moves()
            ids = [codec.encode(m) for m in moves]
            assert len(set(ids)) == len(ids) and all(0 <= i < codec.size for i in ids)
            assert [codec.decode(i) for i in ids] == moves
            state.play(rnd.choice(moves))


# Ids are a contract (saved OpenSpiel data and trained policies refer to them): these
# must not change when moves are met in another order, nor from one version to the next
# unless the grammar changes on purpose.
PINNED_IDS = {"boars": {"draw 0": 65612, "draw 1": 65613, "draw 9": 65621},
              "gaia-vora": {"rotate 1": 247, "rotate 3": 249},
              "tossing-tiger": {"fight 1 1": 282, "fight 1 3": 562},
              "vora": {"duck a5 b5": 724, "wolf W5": 1523},
              "vorcept": {"pylon a1": 2603, "pylon g7": 2651}}


@pytest.mark.parametrize("name", games.names())
def test_move_ids_are_pinned(name):
    state = games.load(name).new_game(2, 0)
    codec = osa.MoveCodec(osa.grammar(name, state))
    for move, number in PINNED_IDS[name].items():
        assert codec.encode(move) == number and codec.decode(number) == move


def test_ids_follow_the_documented_numbering():
    codec = osa.MoveCodec([("pass", ()), ("take", (["a1", "b2"],)), ("push", (["x", "y"], ["N", "S"]))])
    # pass: 0; take: 1 + (0: none, 1: a1, 2: b2); push: 4 + (w1 + 1) + 3 * (w2 + 1)
    assert [codec.encode(m) for m in ("pass", "take", "take a1", "take b2")] == [0, 1, 2, 3]
    assert codec.encode("push y S") == 4 + 2 + 3 * 2 and codec.size == 4 + 9
    assert codec.decode(4 + 2 + 3 * 2) == "push y S" and codec.decode(4 + 1) == "push x"
    for bad in ("jump", "take c3", "take a1 b2"):
        with pytest.raises(ValueError):
            codec.encode(bad)
    with pytest.raises(ValueError):
        codec.decode(codec.size)


def test_a_list_of_moves_encodes_sorted_whether_met_before_or_not():
    codec = osa.MoveCodec([("pass", ()), ("take", (["a1", "b2"],)), ("push", (["x", "y"], ["N", "S"]))])
    moves = ["take b2", "push x N", "pass", "take a1"]
    assert codec.encode_sorted(moves) == [0, 2, 3, 5 + 3]  # first time: encoded one by one
    assert codec.encode_sorted(moves[::-1]) == [0, 2, 3, 5 + 3]  # again: from the ids kept
    # One move never met among known ones still gets its id, and a bad one is named.
    assert codec.encode_sorted(["pass", "push y S"]) == [0, 4 + 2 + 3 * 2]
    with pytest.raises(ValueError, match="'take c3'"):
        codec.encode_sorted(["pass", "take c3"])


def test_chance_nodes_sit_where_the_game_draws():
    # Vora deals its meadow at random and refills it from the box: a chance node first,
    # then one after every move that draws; Vorcept and Gaia-Vora never draw.
    for name, draws in (("vora", True), ("vorcept", False), ("gaia-vora", False)):
        state = osa.load(name).new_initial_state()
        assert state.is_chance_node() == draws
        rnd = random.Random(1)
        chances = 0
        for _ in range(60):
            if state.is_terminal():
                break
            if state.is_chance_node():
                chances += 1
                outcomes = state.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
                state.apply_action(rnd.choice(outcomes)[0])
            else:
                state.apply_action(rnd.choice(state.legal_actions()))
        assert (chances > 1) == draws, name


@pytest.mark.parametrize("name", ["boars", "tossing-tiger"])
def test_information_states_come_from_the_players_view(name):
    game = osa.load(name)
    state = game.new_initial_state()
    state.apply_action(0)  # the deal
    for player in range(game.num_players()):
        text = state.information_state_string(player)
        seen = json.loads(text.split(" ", 1)[1])
        assert seen == state.native.view(player) and "rng" not in seen
    assert state.information_state_string(0) != state.information_state_string(1)
    # A sample for ISMCTS is a state the player's view allows, and shows them the same.
    twin = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0., 1.))
    assert twin.information_state_string(0) == state.information_state_string(0)
    assert twin.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("name", games.names())
def test_legal_actions_asked_again_follow_the_state(name):
    # The adapter keeps a state's legal ids once asked (searches ask again and again):
    # after moves, chance outcomes and clones played apart, they are still the rules'.
    game = osa.load(name)
    codec = game.codec
    rnd = random.Random(7)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal() and steps < 150:
        if state.is_chance_node():
            state.apply_action(rnd.choice(state.chance_outcomes())[0])
            continue
        legal = state.legal_actions()
        assert legal == sorted(codec.encode(m) for m in state.native.legal_moves())
        twin = state.clone()
        assert twin.legal_actions() == legal
        twin.apply_action(legal[0])
        state.apply_action(legal[-1])
        for s in (state, twin):
            if not s.is_terminal() and not s.is_chance_node():
                assert s.legal_actions() == sorted(
                    codec.encode(m) for m in s.native.legal_moves())
        steps += 1


def test_a_game_said_never_to_draw_is_caught_drawing(monkeypatch):
    # Vorcept and Gaia-Vora are played without keeping the state before each move;
    # should a game in that list draw after all, the adapter says so instead of
    # playing on without its chance node.
    monkeypatch.setattr(osa, "NEVER_DRAW", osa.NEVER_DRAW | {"vora"})
    game = osa._Game("vora", {"players": 2})
    state = osa.from_native(game, games.load("vora").new_game(2, 1))
    rnd = random.Random(1)
    with pytest.raises(RuntimeError) as exc:
        while not state.is_terminal():
            state.apply_action(rnd.choice(state.legal_actions()))
    assert "vora drew from its PRNG" in str(exc.value)


def test_chance_outcomes_draw_differently():
    # A move that draws waits at a chance node; its outcomes reseed the generator from
    # its state before the move, so they deal different refills.
    game = osa.load("vora")
    rnd = random.Random(3)
    state = osa.from_native(game, games.load("vora").new_game(2, 4))
    while not state.is_chance_node():
        state.apply_action(rnd.choice(state.legal_actions()))
    dealt = set()
    for outcome, _ in state.chance_outcomes():
        twin = state.clone()
        twin.apply_action(outcome)
        dealt.add(twin.native.to_json())
    assert len(dealt) >= 8


def test_a_process_that_registered_a_game_exits_cleanly():
    # OpenSpiel keeps the game's factory in a C++ static map freed after the interpreter
    # has shut down. The shutdown first empties module dicts (the adapter's table of
    # factories with them); were the map then the factory's last holder, freeing it
    # there aborted the process, exit status 134 ("Fatal Python error:
    # PyThreadState_Get"), once per suite run in a pytest worker. The script empties
    # the adapter's dict as the shutdown does.
    import subprocess
    import sys
    script = ("from vora_host import openspiel_adapter as osa\n"
              "osa.load('vorcept').new_initial_state()\n"
              "for name in list(vars(osa)):\n"
              "    if not name.startswith('__'):\n"
              "        setattr(osa, name, None)\n"
              "print('done')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout) == (0, "done\n"), done.stderr[-2000:]
    assert "Fatal Python error" not in done.stderr
