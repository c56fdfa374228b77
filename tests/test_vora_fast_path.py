"""Vora's legal moves come from one of two builders: from string tables on CPython (fast,
for the lab's millions of games) and string by string on the board (little memory). They
must give the same lists; the MicroPython digest tests compare them across runtimes, these
compare them on CPython, position by position, options and odd farms included."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from shared_rules import vora, vora_tables


def board_moves(state):
    saved = vora._STRING_TABLES
    vora._STRING_TABLES = False
    try:
        return state.legal_moves()
    finally:
        vora._STRING_TABLES = saved


def test_cpython_uses_the_tables():
    assert vora._STRING_TABLES is True


def test_the_tables_stay_off_the_board():
    # What the board gets is what vora flash and vora update put there (maker.bundle).
    from vora_host.maker import bundle
    names = [name for name, _ in bundle.sources()]
    assert "shared_rules/vora" in names and "shared_rules/vora_tables" not in names


def test_both_builders_agree_over_random_games():
    checked = 0
    configs = [{}, {"pushed_out": "box"}, {"seats": "SE"},
               {"box": {"water": 40, "duck": 10, "mole": 10, "ladybug": 10, "pig": 4}}]
    for ci, options in enumerate(configs):
        for seed in range(12):
            players = 2 if "seats" in options else 2 + seed % 3
            state = vora.new_game(players, seed=seed, **options)
            rnd = random.Random(seed + 100 * ci)
            while not state.is_over():
                fast = state.legal_moves()
                if state.phase == vora.PHASE_ACTION:
                    assert fast == board_moves(state), state.position()
                    checked += 1
                state.play(rnd.choice(fast))
    assert checked > 5000


@settings(max_examples=300, deadline=None)
@given(grid=st.lists(st.sampled_from(range(vora.N_TYPES)), min_size=25, max_size=25),
       farm=st.lists(st.integers(0, 2), min_size=vora.N_TYPES, max_size=vora.N_TYPES),
       active=st.integers(0, 2), pushed_out=st.sampled_from(vora.PUSHED_OUT_CHOICES))
def test_both_builders_agree_on_any_meadow_and_farm(grid, farm, active, pushed_out):
    # Farms of 0, 1 or 2 cubes take the paths where a push must bring a cube back.
    if not sum(farm):
        farm[vora.CROW] = 1
    state = vora.new_game(3, seed=1, pushed_out=pushed_out)
    state.grid = grid
    state.farms[active] = farm
    state.active = active
    assert state.legal_moves() == board_moves(state)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from((vora.WATER, vora.WATER, vora.GRASS, vora.EMPTY)),
                min_size=25, max_size=25))
def test_the_water_shortcut_never_hides_a_group(grid):
    water = sum(1 << i for i in range(25) if grid[i] == vora.WATER)
    if vora.water_groups(grid):
        assert vora_tables.may_hold_water_group(water)
