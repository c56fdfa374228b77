"""Vora, rule by rule: each test quotes the rulebook sentence it checks
(../shared/rulebooks/vora.md) and plays it as a scenario: position in, move, position out.

Positions are in the notation of docs/vora-notation.md. Meadows are drawn rank 5 (North)
first, as the player seated South sees the board. Most scenarios use a box of grass only,
so that refills are predictable. BASE is a Latin square with no two alike side by side
in any rank or file, so the only lines are the ones a scenario builds.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared_rules import prng, vora
from shared_rules.errors import BadPosition, IllegalMove

BASE = [
    "PWMDL",  # rank 5
    "DLPWM",
    "WMDLP",
    "LPWMD",
    "MDLPW",  # rank 1
]


def board(changes=(), rows=BASE):
    """BASE with some cells changed: changes like {"a1": "C"}."""
    grid = [list(r) for r in rows]
    for cell, letter in dict(changes).items():
        grid[5 - int(cell[1])][ord(cell[0]) - 97] = letter
    return ["".join(r) for r in grid]


def game(rows, farms="CC/C", to_act=0, seats="SN", box="G30", **options):
    # Scenarios send cubes pushed out on an empty side back to the box unless they are
    # about that rule, so that only seated players' farms change.
    options.setdefault("pushed_out", "box")
    return vora.from_position("%s %s %d %s %s" % ("/".join(rows), seats, to_act, farms, box),
                              **options)


def meadow(state):
    return state.meadow()


def farm(state, p):
    return state.farm(p)


# ---------------------------------------------------------------- setup

def test_setup_takes_random_cubes_from_the_box_to_form_a_5x5_meadow():
    # "Take random cubes from the box and form a 5x5 grid in the center of the table."
    s = vora.new_game(2, seed=7)
    assert all(len(r) == 5 and "." not in r for r in s.meadow())
    assert len(s.meadow()) == 5
    dealt = sum(vora.DEFAULT_BOX) - sum(s.box)
    assert dealt == 25 + 2 + 1
    # Different seeds deal different meadows; the same seed deals the same one.
    assert vora.new_game(2, seed=7).meadow() == s.meadow()
    assert any(vora.new_game(2, seed=k).meadow() != s.meadow() for k in range(8, 12))


@pytest.mark.parametrize("players,seats", [(2, "SN"), (3, "SWN"), (4, "SWNE")])
def test_each_player_sits_in_front_of_one_side(players, seats):
    # "Each player sits in front of one side of the meadow." Seating is clockwise from
    # South; with 2 players they sit opposite by default.
    s = vora.new_game(players)
    assert s.seats == seats
    assert len(s.scores()) == players


def test_two_players_may_sit_at_adjacent_sides():
    # "In 2-player games, sitting on opposite sides is recommended (though not mandatory)."
    s = vora.new_game(2, seats="SE")
    assert s.seats == "SE"
    with pytest.raises(BadPosition, match="different side"):
        vora.new_game(2, seats="SS")
    with pytest.raises(BadPosition, match="2, 3 or 4 players"):
        vora.new_game(5)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_starting_player_takes_two_cubes_the_others_one(players):
    # "The starting player takes 2 random cubes from the box. The others take 1 cube each."
    s = vora.new_game(players, seed=3)
    assert [sum(s.farms[p]) for p in range(players)] == [2] + [1] * (players - 1)
    assert s.to_act() == 0


def test_the_box_content_is_an_option_with_a_documented_default():
    s = vora.new_game(2, box={"pig": 20, "crow": 20})
    assert set("".join(s.meadow())) <= {"P", "C"}
    assert sum(s.box) + 25 + 3 == 40
    with pytest.raises(BadPosition, match="at least 28"):
        vora.new_game(2, box={"pig": 10})
    with pytest.raises(BadPosition, match="unknown cube type 'cow'"):
        vora.new_game(2, box={"cow": 40})


# ---------------------------------------------------------------- the basic move

def test_push_moves_the_line_one_space_and_the_opposite_player_takes_the_cube_pushed_out():
    # "Choose a cube from your farm and use it to push a row or column in the meadow one
    # space in any direction. The cube pushed out from the opposite end is collected:
    # If there is a player on that side, they take it."
    s = game(BASE, farms="CC/D")
    s.play("push crow Sc")
    assert meadow(s) == ["PWPDL", "DLDWM", "WMWLP", "LPLMD", "MDCPW"]
    assert farm(s, 0) == {"crow": 1}
    assert farm(s, 1) == {"duck": 1, "mole": 1}  # c5 held a mole, North took it
    assert s.to_act() == 1


def test_pushes_come_from_every_edge_with_any_cube_of_the_farm():
    s = game(BASE, farms="CS/D")
    pushes = [m for m in s.legal_moves() if m.startswith("push ")]
    assert len(pushes) == 2 * 20
    assert {m.split()[2] for m in pushes} == set(vora.EDGE_NAMES)
    for side, exit_cell in (("Nc", "c1"), ("W3", "e3"), ("E3", "a3")):
        t = game(BASE, farms="CS/D")
        t.play("push sheep " + side)
        assert t.meadow()[{"Nc": 0, "W3": 2, "E3": 2}[side]][
            {"Nc": 2, "W3": 0, "E3": 4}[side]] == "S"


def test_cube_pushed_out_on_an_empty_side_goes_to_the_pusher_by_default():
    # The rulebook's sentence for an empty side is garbled; house default: the pusher
    # takes it (chosen by measurement, docs/rules-decisions.md).
    assert vora.DEFAULT_PUSHED_OUT == "pusher"
    s = vora.from_position("/".join(BASE) + " SN 0 CC/D G5")
    s.play("push crow W3")  # rank 3 moves east; p3 falls out on the East side, nobody sits
    assert meadow(s)[2] == "CWMDL"
    assert farm(s, 0) == {"crow": 1, "pig": 1} and farm(s, 1) == {"duck": 1}


def test_cube_pushed_out_on_an_empty_side_can_go_back_to_the_box_as_an_option():
    s = game(BASE, farms="CC/D", box="G5", pushed_out="box")
    s.play("push crow W3")
    assert meadow(s)[2] == "CWMDL"
    assert s.box[vora.PIG] == 1 and s.box[vora.GRASS] == 5
    assert farm(s, 0) == {"crow": 1} and farm(s, 1) == {"duck": 1}


def test_pushing_from_the_far_side_brings_the_cube_to_the_pusher():
    s = game(BASE, farms="C/D")
    s.play("push crow Nc")  # c1 (ladybug) falls out on South, where player 0 sits
    assert farm(s, 0) == {"ladybug": 1}


# ---------------------------------------------------------------- lines

LINE_PUSH = board({"a1": "C", "b1": "C", "c1": "S", "d1": "S", "c2": "S"})


def test_a_push_that_forms_a_line_of_three_lets_the_active_player_collect_it():
    # "If this push forms a line of 3 or more identical cubes, the active player collects
    # it. ... When cubes are collected, the ones above fall down to fill the gaps."
    s = game(LINE_PUSH, farms="CP/D")
    s.play("push crow W1")
    assert meadow(s)[4] == "CCCSS"
    assert s.legal_moves() == ["pass", "take a1"]
    assert s.collectable_groups() == {"a1": ["a1", "b1", "c1"]}
    s.play("take a1")
    assert farm(s, 0)["crow"] == 3


def test_falls_repeat_until_no_new_line_forms():
    # "If this fall creates new lines, they are also collected. This process repeats
    # until no new lines are formed."
    s = game(LINE_PUSH, farms="CP/D", chain_lines="offered")
    s.play("push crow W1")
    s.play("take a1")
    # a1..c1 emptied; files a, b, c fell one rank towards South; c1 d1 e1 are now sheep.
    assert meadow(s) == ["...DL", "PWMWM", "DLPLP", "WMDMD", "LPSSS"]
    assert s.legal_moves() == ["pass", "take c1"]
    s.play("take c1")
    assert farm(s, 0) == {"crow": 3, "pig": 1, "sheep": 3}
    # No third line: the meadow is refilled and the turn ends. The box held 30 grass and
    # the wolf that the push sent out East (nobody sits there): 7 gaps, 7 random cubes.
    assert meadow(s)[1:] == ["PWGDL", "DLMWM", "WMPLP", "LPDMD"]
    assert sorted(meadow(s)[0]) == sorted("GGGGW")
    assert s.to_act() == 1
    # By default the chain's line is collected without asking: the same end position.
    t = game(LINE_PUSH, farms="CP/D")
    t.play("push crow W1")
    t.play("take a1")
    assert t.position() == s.position()


def test_the_active_player_may_choose_not_to_collect_a_line():
    # "You can choose not to collect the line at this time."
    s = game(LINE_PUSH, farms="CP/D")
    s.play("push crow W1")
    s.play("pass")
    assert meadow(s)[4] == "CCCSS"
    assert farm(s, 0) == {"pig": 1}
    assert s.to_act() == 1


def test_lines_made_by_the_fall_are_collected_without_asking():
    # "When cubes are collected, the ones above fall down to fill the gaps. If this fall
    # creates new lines, they are also collected." The choice to decline belongs to the
    # line the push forms; a chain line is collected.
    s = game(LINE_PUSH, farms="CP/D")
    s.play("push crow W1")
    assert s.legal_moves() == ["pass", "take a1"]  # the push's line: a choice
    s.play("take a1")
    # The fall made c1 d1 e1 sheep: collected at once, and the turn is over.
    assert farm(s, 0) == {"crow": 3, "pig": 1, "sheep": 3}
    assert s.to_act() == 1 and s.phase == vora.PHASE_ACTION


def test_chain_lines_can_be_offered_as_a_named_option():
    # House option chain_lines="offered": every line of the chain is a choice too.
    s = game(LINE_PUSH, farms="CP/D", chain_lines="offered")
    s.play("push crow W1")
    s.play("take a1")
    assert s.legal_moves() == ["pass", "take c1"]
    s.play("pass")
    assert meadow(s)[4] == "LPSSS"
    assert farm(s, 0) == {"crow": 3, "pig": 1}
    assert s.to_act() == 1
    with pytest.raises(BadPosition, match="chain_lines"):
        game(LINE_PUSH, chain_lines="sometimes")


def test_a_chain_line_of_four_still_offers_its_bonus():
    # The bonus rules are unchanged for chain lines: "Making a line of 4 identical cubes
    # allows you to take one extra cube of your choice from the meadow before the fall."
    s = game(board({"a1": "C", "b1": "C", "c1": "S", "d1": "S", "b2": "S", "c2": "S"}),
             farms="CP/D")
    s.play("push crow W1")  # rank 1: C C C S S
    s.play("take a1")  # files a b c fall: rank 1 becomes L S S S S, a chain line of four
    assert farm(s, 0) == {"crow": 3, "pig": 1, "sheep": 4}
    assert s.phase == vora.PHASE_BONUS and s.to_act() == 0
    assert "pass" in s.legal_moves() and "extra a1" in s.legal_moves()
    s.play("extra a1")
    assert farm(s, 0)["ladybug"] == 1


def test_a_line_declined_belongs_to_nobody_afterwards():
    # Player 1 cannot collect the crows player 0 left, unless they change the line.
    s = game(LINE_PUSH, farms="CP/DC")
    s.play("push crow W1")
    s.play("pass")
    s.play("push duck Ne")  # file e moves, rank 1's crow line is untouched
    assert s.to_act() == 0 and not any(m.startswith("take") for m in s.legal_moves())


def test_several_lines_are_each_a_choice():
    # Two separate lines formed by one push: take one, then the other, or pass.
    rows = board({"a1": "C", "b1": "C", "a2": "S", "b3": "S", "c3": "S", "c2": "P"})
    s = game(rows, farms="CP/D")
    s.play("push crow Sa")  # file a moves north: a2's sheep rises to a3 beside b3 and c3
    groups = s.collectable_groups()  # a1 a2 are crows, b1 too: only two in a row
    assert groups == {"a3": ["a3", "b3", "c3"]}
    s2 = game(board({"b1": "C", "c1": "C", "a2": "S", "b3": "S", "c3": "S"}), farms="CP/D")
    s2.play("push crow Sa")
    assert s2.collectable_groups() == {"a1": ["a1", "b1", "c1"], "a3": ["a3", "b3", "c3"]}
    assert s2.legal_moves() == ["pass", "take a1", "take a3"]
    s2.play("take a3")
    assert s2.legal_moves() == ["pass", "take a1"]  # the other line is still on offer
    s2.play("take a1")
    assert farm(s2, 0) == {"crow": 3, "pig": 1, "sheep": 3}


def test_gaps_fall_towards_the_active_player():
    # "If a gap is created ... the fall occurs towards the active player." Seen from each
    # seat, the ladybug on c3 leaves a gap that the cubes beyond it close.
    rows = board({"c3": "L"})
    expected = {
        # seat: (rank 5..1 after the fall, before the refill) -> the refilled cell
        "S": ["PWGDL", "DLMWM", "WMPLP", "LPWMD", "MDLPW"],
        "N": ["PWMDL", "DLPWM", "WMWLP", "LPLMD", "MDGPW"],
        "W": ["PWMDL", "DLPWM", "WMLPG", "LPWMD", "MDLPW"],
        "E": ["PWMDL", "DLPWM", "GWMLP", "LPWMD", "MDLPW"],
    }
    for seat, after in expected.items():
        seats = "S" + seat if seat != "S" else "SN"
        to_act = 0 if seat == "S" else 1
        s = game(rows, farms="C/C", seats=seats, to_act=to_act)
        s.play("ladybug c3")
        assert meadow(s) == after, seat
        assert farm(s, to_act)["ladybug"] == 1


def test_refill_goes_left_to_right_then_top_to_bottom_from_the_active_players_view():
    # "refill the empty spaces ... going left to right, then top to bottom, from the
    # active player's point of view." South refills rank 5 a->c; North, facing South,
    # sees rank 1 as its top and e..a as left to right, so it refills c1, b1, a1.
    south = game(board({"a5": "A", "b5": "A", "c5": "A"}), farms="C/C", box="P1C1W1")
    north = game(board({"a1": "A", "b1": "A", "c1": "A"}), farms="C/C", box="P1C1W1",
                 to_act=1)
    south.play("water a5")
    north.play("water a1")
    first, second, third = meadow(south)[0][:3]
    assert sorted(first + second + third) == ["C", "P", "W"]
    assert meadow(north)[4][:3] == third + second + first


def test_the_refill_order_of_every_seat():
    names = vora.CELL_NAMES
    assert [names[i] for i in vora.VIEW["S"][:6]] == ["a5", "b5", "c5", "d5", "e5", "a4"]
    assert [names[i] for i in vora.VIEW["N"][:6]] == ["e1", "d1", "c1", "b1", "a1", "e2"]
    assert [names[i] for i in vora.VIEW["W"][:6]] == ["e5", "e4", "e3", "e2", "e1", "d5"]
    assert [names[i] for i in vora.VIEW["E"][:6]] == ["a1", "a2", "a3", "a4", "a5", "b1"]


def test_lines_made_by_refilling_belong_to_nobody_until_a_player_changes_them():
    # "if any new lines are formed during this process, they belong to no one until they
    # are modified in some way by a player (... makes the line longer or shorter)."
    s = game(LINE_PUSH, farms="CP/DG", pushed_out="pusher")  # the box stays all grass
    s.play("push crow W1")
    s.play("take a1")  # the fall's sheep line c1 d1 e1 is collected with it
    assert meadow(s)[0] == "GGGGG"  # the refill made a line of five grass
    s.play("push duck Sa")  # player 1 changes file a: a5's grass falls out North
    assert meadow(s)[0] == "PGGGG"
    # The shortened line is theirs now: "changes ... makes the line shorter".
    assert s.collectable_groups() == {"b5": ["b5", "c5", "d5", "e5"]}


def test_an_untouched_line_left_by_the_refill_cannot_be_collected():
    rows = board({"a5": "G", "b5": "G", "c5": "G"})
    s = game(rows, farms="CP/D")  # set up at the start of a turn: the line is nobody's
    s.play("push crow Se")
    assert s.to_act() == 1
    assert meadow(s)[0][:3] == "GGG"


def test_making_an_old_line_longer_makes_it_the_players():
    rows = board({"a5": "G", "b5": "G", "c5": "G", "d4": "G"})
    s = game(rows, farms="CP/D")
    s.play("push pig Sd")  # d4's grass rises to d5: the line is now four long
    assert s.collectable_groups() == {"a5": ["a5", "b5", "c5", "d5"]}


# ---------------------------------------------------------------- special lines

def test_a_line_of_four_gives_one_extra_cube_of_your_choice_before_the_fall():
    # "Making a line of 4 identical cubes allows you to take one extra cube of your choice
    # from the meadow before the fall happens."
    s = game(board({"a1": "C", "b1": "C", "c1": "C", "d1": "S"}), farms="CP/D")
    s.play("push crow W1")
    s.play("take a1")
    moves = s.legal_moves()
    assert "pass" in moves and "extra e5" in moves and "extra a1" not in moves
    assert not any(m.startswith("steal") for m in moves)
    assert len(moves) == 21 + 1
    s.play("extra e5")  # the ladybug on e5, taken before the gaps close
    assert farm(s, 0) == {"crow": 4, "ladybug": 1, "pig": 1}
    # Files a-d fell one rank; e5 stayed empty until the refill (grass, and the wolf that
    # went out East back into the box).
    assert meadow(s)[1:] == ["PWMDM", "DLPWP", "WMDLD", "LPWMS"]
    assert sorted(meadow(s)[0]) == sorted("GGGGW")


def test_a_line_of_five_gives_an_extra_cube_or_a_steal():
    # "Making a line of 5 or more ... allows you to either take an extra cube (as above) or
    # steal one cube from another player's farm."
    rows = board({"a1": "C", "b1": "C", "c1": "C", "d1": "C", "e1": "S"})
    s = game(rows, farms="CP/DDW")
    s.play("push crow W1")
    s.play("take a1")
    moves = s.legal_moves()
    assert {"steal 1 duck", "steal 1 wolf", "extra e5", "pass"} <= set(moves)
    s.play("steal 1 duck")
    assert farm(s, 0) == {"crow": 5, "duck": 1, "pig": 1}
    assert farm(s, 1) == {"duck": 1, "wolf": 1}


@pytest.mark.parametrize("shape,changes,push,first", [
    # L: the push raises two crows up file a beside the crows of rank 1.
    ("L", {"a1": "C", "a2": "C", "b1": "C", "c1": "C"}, "push crow Sa", "a1"),
    # T: the push raises crows up file b from the middle of rank 1.
    ("T", {"a1": "C", "b1": "C", "b2": "C", "c1": "C"}, "push crow Sb", "a1"),
])
def test_lines_of_five_count_in_l_and_t_shapes(shape, changes, push, first):
    s = game(board(changes), farms="CP/DD")
    s.play(push)
    (name, cells), = s.collectable_groups().items()
    assert name == first and len(cells) == 5, shape
    s.play("take " + first)
    assert "steal 1 duck" in s.legal_moves()


def test_a_line_of_three_gives_no_bonus():
    s = game(LINE_PUSH, farms="CP/D", chain_lines="offered")
    s.play("push crow W1")
    s.play("take a1")
    assert s.phase == vora.PHASE_COLLECT  # straight to the chain line, no bonus step


# ---------------------------------------------------------------- special abilities

def test_pig_pushes_a_line_two_spaces():
    # "Pig: Pushes with extra force, moving a line 2 spaces instead of 1."
    s = game(BASE, farms="PC/D")
    s.play("pig Sc")
    # The line moved two cells north: the pig on c2, c1's ladybug on c3; c1, the pig's
    # entry, is refilled from the box (grass). Both cubes pushed out North go to player 1.
    assert [r[2] for r in meadow(s)] == ["D", "W", "L", "P", "G"]
    assert farm(s, 1) == {"duck": 1, "mole": 1, "pig": 1}
    assert farm(s, 0) == {"crow": 1}


def test_the_written_out_names_are_the_meadows_geometry():
    # vora_meadow writes its cell and edge names out (cheaper on the board's heap than
    # building them): derived here again from the geometry. A cell is rank * 5 + file; an
    # edge key on a side pushes the line beside it towards the opposite side.
    files = "abcde"
    assert vora.CELL_NAMES == tuple(files[i % 5] + str(i // 5 + 1) for i in range(25))
    opposite = {"S": "N", "N": "S", "W": "E", "E": "W"}
    for e, name in enumerate(vora.EDGE_NAMES):
        side, line = name[0], name[1]
        if side in "SN":
            line_cells = [r * 5 + files.index(line) for r in range(5)]
        else:
            line_cells = [(int(line) - 1) * 5 + f for f in range(5)]
        entry_first = line_cells if side in "SW" else line_cells[::-1]
        assert vora.EDGE_CELLS[e] == tuple(entry_first), name
        assert vora.EDGE_EXIT[e] == opposite[side], name
    assert sorted(vora.EDGE_NAMES) == sorted(
        [s + f for s in "SN" for f in files] + [s + str(r) for s in "EW" for r in range(1, 6)])
    # Each cell's neighbours, diagonals too, in the order of their names (one table for
    # the rules' checks and for legal_moves()' sorted list).
    for i in range(25):
        r, f = divmod(i, 5)
        near = [rr * 5 + ff for rr in range(r - 1, r + 2) for ff in range(f - 1, f + 2)
                if (rr, ff) != (r, f) and 0 <= rr < 5 and 0 <= ff < 5]
        assert vora.AROUND[i] == tuple(sorted(near, key=lambda n: vora.CELL_NAMES[n]))
    assert [vora.cell_index(n) for n in vora.CELL_NAMES] == list(range(25))
    with pytest.raises(KeyError):
        vora.cell_index("f1")
    # Words that name no cell or edge: refused with what was wrong, nothing played.
    s = vora.new_game(2, seed=1)
    before = s.to_json()
    for move, said in (("crow f9", "'f9' is not a meadow cell"),
                       ("push %s Sf" % vora.TYPES[s.farms[0].index(max(s.farms[0]))],
                        "'Sf' is not an edge")):
        with pytest.raises(IllegalMove, match=said):
            s.play(move)
        assert s.to_json() == before
    assert vora.move_code("push pig Sa") == vora.MOVE_PUSH << 10
    assert vora.move_code("push pig Sf") == vora.move_code("push horse Sa") == -1


@pytest.mark.parametrize("seats,to_act", [("SN", 0), ("SN", 1), ("WE", 0), ("SE", 1)])
@pytest.mark.parametrize("edge", vora.EDGE_NAMES)
def test_a_pig_line_ends_two_cells_on_from_every_side(edge, seats, to_act):
    # The fall towards the active player is for gaps made "without a push action"; the
    # pig's entry gap is made by a push, so from every side, whoever pushes, the line ends
    # two cells on and the entry cell is refilled from the box.
    s = game(BASE, farms="PC/PC", seats=seats, to_act=to_act, pushed_out="pusher")
    cells = vora.EDGE_CELLS[vora.EDGE_NAMES.index(edge)]
    before = [BASE[4 - c // 5][c % 5] for c in cells]
    s.play("pig " + edge)
    assert s.to_act() == 1 - to_act, "the push made no line: the turn is over"
    after = [meadow(s)[4 - c // 5][c % 5] for c in cells]
    assert after == ["G", "P"] + before[:3], edge
def test_crow_swaps_with_an_animal_and_the_player_keeps_it():
    # "Crow: Flies in from your farm, swapping places with an animal in the meadow (but
    # not water or grass). You keep the swapped animal."
    s = game(board({"a3": "A", "b3": "G"}), farms="CP/D")
    assert "crow a3" not in s.legal_moves() and "crow b3" not in s.legal_moves()
    s.play("crow c3")
    assert meadow(s)[2] == "AGCLP"
    assert farm(s, 0) == {"duck": 1, "pig": 1}
    with pytest.raises(IllegalMove, match="not a crow|only with an animal"):
        game(board({"a3": "A"}), farms="CP/D").play("crow a3")


def test_wolf_eats_the_first_animal_and_the_rest_of_the_line_flees():
    # "Wolf: Enters from a side. If the first cube it encounters is an animal, the wolf
    # eats it. All other cubes in that line flee in the same direction, leaving a gap."
    s = game(BASE, farms="WP/D")
    s.play("wolf Sc")
    # c1's ladybug is eaten; the wolf takes its place; W D P move up, M flees out North;
    # the gap on c2 is closed by the fall towards South.
    assert [r[2] for r in meadow(s)] == ["G", "P", "D", "W", "W"]
    assert s.eaten[vora.LADYBUG] == 1
    assert farm(s, 1) == {"duck": 1, "mole": 1}


def test_a_wolf_that_has_eaten_does_not_fall():
    # "(If this causes a fall, a wolf that has eaten an animal does not fall)."
    s = game(BASE, farms="WP/D")
    s.play("wolf Nc")
    # The wolf ate c5's mole and stays on c5 above the gap on c4; the refill fills c4.
    assert [r[2] for r in meadow(s)] == ["W", "G", "P", "D", "W"]
    assert farm(s, 0) == {"ladybug": 1, "pig": 1}  # c1 fled out on South: player 0's side


def test_wolf_cannot_enter_where_the_first_cube_is_not_an_animal():
    s = game(board({"c1": "A"}), farms="WP/D")
    assert "wolf Sc" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="first cube is an animal"):
        s.play("wolf Sc")


def test_mole_swaps_with_an_orthogonally_or_diagonally_adjacent_cube():
    # "Mole: If there is a mole in the meadow, you can use it to dig and swap its position
    # with any orthogonally or diagonally adjacent cube."
    s = game(BASE, farms="CP/D")
    moles = [m for m in s.legal_moves() if m.startswith("mole b3 ")]
    assert sorted(m.split()[2] for m in moles) == ["a2", "a3", "a4", "b2", "b4", "c2", "c3",
                                                  "c4"]
    s.play("mole b3 a4")
    assert meadow(s)[1][0] == "M" and meadow(s)[2][1] == "D"
    with pytest.raises(IllegalMove, match="not next to"):
        game(BASE, farms="CP/D").play("mole b3 d3")


def test_duck_swaps_with_grass_or_water_anywhere():
    # "Duck: If there is a duck in the meadow, it can fly and swap its position with a
    # grass or water cube."
    s = game(board({"e5": "G", "a1": "A"}), farms="CP/D")
    ducks = sorted(m for m in s.legal_moves() if m.startswith("duck c3 "))
    assert ducks == ["duck c3 a1", "duck c3 e5"]
    s.play("duck c3 e5")
    assert meadow(s)[0][4] == "D" and meadow(s)[2][2] == "G"
    with pytest.raises(IllegalMove, match="only with grass or water"):
        game(board({"e5": "G"}), farms="CP/D").play("duck c3 b3")


def test_ladybug_is_taken_from_the_meadow_and_the_turn_ends():
    # "Ladybug: You may take a ladybug directly from the meadow. Your turn ends."
    # Even when the fall makes a line of three, nothing is collected on this turn.
    rows = board({"c3": "L", "a3": "S", "b3": "S", "c4": "S"})
    s = game(rows, farms="CP/D")
    s.play("ladybug c3")
    assert meadow(s)[2][:3] == "SSS"
    assert s.to_act() == 1 and farm(s, 0) == {"crow": 1, "ladybug": 1, "pig": 1}
    assert not any(m.startswith("take") for m in s.legal_moves())


def test_sheep_lines_bring_the_grass_orthogonally_next_to_them():
    # "Sheep: When you form a line of sheep, you also collect any grass orthogonally
    # adjacent to them."
    rows = board({"a1": "S", "b1": "S", "c1": "G", "a2": "G", "c2": "G", "d2": "G"})
    s = game(rows, farms="SP/D")
    s.play("push sheep W1")  # rank 1: S S S G P; e1's wolf out East
    s.play("take a1")
    f = farm(s, 0)
    # a2, c2 and d1 touch the sheep; d2 touches no sheep (only diagonally): it stays.
    assert f == {"sheep": 3, "grass": 3, "pig": 1}


def test_water_groups_of_three_or_more_connected_cubes_are_collected():
    # "Water: You can collect any group of 3 or more connected water cubes. It's liquid."
    rows = board({"a1": "A", "b1": "A", "a2": "A", "e5": "A", "e4": "A"})
    s = game(rows, farms="CP/D")
    assert [m for m in s.legal_moves() if m.startswith("water")] == ["water a1"]
    s.play("water a1")
    assert farm(s, 0) == {"crow": 1, "pig": 1, "water": 3}
    with pytest.raises(IllegalMove, match="3 or more connected"):
        game(rows, farms="CP/D").play("water e4")


# ---------------------------------------------------------------- no player without cubes

def test_no_action_may_leave_the_active_player_with_zero_cubes():
    # "No player can run out of cubes. An action that would leave any player with zero
    # cubes is not allowed."
    s = game(BASE, farms="C/D")
    moves = s.legal_moves()
    assert "push crow Sa" not in moves  # the pushed-out cube would go North
    assert "push crow W1" not in moves  # ... or back to the box
    assert "push crow Na" in moves  # the cube pushed out comes back to player 0
    with pytest.raises(IllegalMove, match="no cube"):
        s.play("push crow Sa")
    pusher = game(BASE, farms="C/D", pushed_out="pusher")
    assert "push crow W1" in pusher.legal_moves()


def test_no_steal_may_leave_the_victim_with_zero_cubes():
    rows = board({"a1": "C", "b1": "C", "c1": "C", "d1": "C", "e1": "S"})
    s = game(rows, farms="CP/D")
    s.play("push crow W1")
    s.play("take a1")
    assert not any(m.startswith("steal") for m in s.legal_moves())
    with pytest.raises(IllegalMove, match="no cube"):
        s.play("steal 1 duck")


# ---------------------------------------------------------------- end and scoring

def test_the_game_ends_when_the_box_cannot_refill_the_meadow():
    # "The game ends when the box runs out of cubes to completely refill the meadow to its
    # 5x5 size."
    s = game(board({"a5": "A", "b5": "A", "c5": "A"}), farms="C/D", box="G2")
    s.play("water a5")
    assert s.is_over() and s.end == "box" and s.to_act() is None
    # The turn that emptied the box was played: it counts (one count everywhere).
    assert s.turn_count() == 1 and s.end_reason() == "box"
    assert s.legal_moves() == []
    with pytest.raises(IllegalMove, match="over"):
        s.play("pass")
    exact = game(board({"a5": "A", "b5": "A", "c5": "A"}), farms="C/D", box="G3")
    exact.play("water a5")
    assert not exact.is_over()  # three gaps, three cubes: the meadow is whole again


@pytest.mark.parametrize("counts,score", [
    ({"crow": 8, "sheep": 5}, 0),  # the rulebook's example
    ({"crow": 3}, 1), ({"crow": 6}, 3), ({"crow": 9}, 9),
    ({"crow": 1}, -1), ({"crow": 2}, -2), ({"crow": 4}, 0), ({"crow": 7}, 2),
    ({"crow": 12}, 10), ({"crow": 18}, 18), ({}, 0), ({"crow": 0}, 0),
])
def test_scoring_sets_of_three_six_and_nine_and_minus_one_per_loose_cube(counts, score):
    # "Set of 3 identical cubes: +1 point. Set of 6 ...: +3 points. Set of 9 ...: +9
    # points. Each cube not in a set: -1 point."
    assert vora.score_farm(counts) == score


def test_score_farm_refuses_unknown_types_and_bad_counts():
    with pytest.raises(ValueError, match="unknown cube type 'cow'"):
        vora.score_farm({"cow": 3})
    with pytest.raises(ValueError, match="non-negative"):
        vora.score_farm({"crow": -1})


def ended(farms):
    # A game that ends at once: player 0 takes the ladybug, the box cannot refill.
    s = game(board({"c5": "L"}), farms=farms, box="-")
    s.play("ladybug c5")
    assert s.is_over()
    return s


def test_highest_score_wins():
    s = ended("CCCCCC/SSS")  # 6 crows + the ladybug: 3 - 1 = 2 against 1
    assert s.scores() == [2, 1] and s.winner() == 0


def test_tie_break_fewest_kinds_of_sets():
    # "In case of a tie, the player with the fewest types of cube sets wins."
    # Player 0 also holds the ladybug taken on the last turn.
    s = ended("CCCSSSPPP/GGGGGGL")  # 0: 1+1+1-1 = 2 with 3 kinds; 1: 3-1 = 2 with 1 kind
    assert s.scores() == [2, 2] and s.winner() == 1
    t = ended("CCCCCC/PPPSSSDDDG")  # 0: 3-1 = 2 with 1 kind; 1: 1+1+1-1 = 2 with 3 kinds
    assert t.scores() == [2, 2] and t.winner() == 0


def test_tie_break_fewest_loose_cubes_then_a_draw():
    # "If the tie continues, the player with the fewest remaining (non-set) cubes wins.
    # If the tie persists after that, the game is a draw."
    s = ended("CCCCCC/PPPPPPPPPGGAADDS")  # 0: 3-1 = 2, 1 loose; 1: 9-7 = 2, 7 loose
    assert s.scores() == [2, 2] and s.winner() == 0
    t = ended("PPPPPPPPPGGAAD/CCCCCC")  # 0: 9-6 = 3 (the ladybug too), 6 loose; 1: 3, none
    assert t.scores() == [3, 3] and t.winner() == 1
    draw = ended("CCCCCC/PPPPPPG")  # 2 each, 1 kind each, 1 loose each
    assert draw.scores() == [2, 2] and draw.winner() is None and draw.is_over()


# ---------------------------------------------------------------- errors leave the state alone

@pytest.mark.parametrize("move,reason", [
    ("fly crow c3", "unknown move word"),
    ("push cow Sc", "not a cube type"),
    ("push crow Xz", "not an edge"),
    ("push sheep Sc", "no sheep"),
    ("push crow  Sc", "single spaces"),
    ("take a1", "time to act"),
    ("crow z9", "not a meadow cell"),
    ("ladybug a1", "no ladybug on a1"),
    (42, "notation string"),
])
def test_illegal_moves_name_the_move_and_the_reason_and_change_nothing(move, reason):
    s = game(BASE, farms="CP/D")
    before = s.to_json()
    with pytest.raises(IllegalMove, match=reason) as info:
        s.play(move)
    assert info.value.move == move
    assert repr(move) in str(info.value)
    assert s.to_json() == before


def test_positions_round_trip_and_reject_nonsense():
    s = vora.new_game(3, seed=11)
    assert vora.from_position(s.position(), pushed_out=s.pushed_out) == s
    assert eval(repr(s), {"vora": vora}) == s  # the repr pastes back
    o = vora.new_game(2, seed=3, pushed_out="box", max_turns=50, chain_lines="offered")
    assert eval(repr(o), {"vora": vora}) == o  # options included
    for bad, why in [
        ("PWMDL/DLPWM SN 0 C/C G3", "5 ranks"),
        ("PWMDL/DLPWM/WMDLP/LPWMD/MDLPX SN 0 C/C G3", "not a cube letter"),
        ("PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 2 C/C G3", "to act"),
        ("PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 C/- G3", "empty"),
        ("PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 C G3", "2 players"),
        ("PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 C/C G", "needs a count"),
        ("PWMDL/DLPWM/WMDLP/LPWMD/MDLPW", "5 to 8 fields"),
    ]:
        with pytest.raises(BadPosition, match=why):
            vora.from_position(bad)


def test_json_round_trip_mid_turn_and_clear_errors():
    s = game(LINE_PUSH, farms="CP/D")
    s.play("push crow W1")
    t = vora.from_json(s.to_json())
    assert t == s and t.legal_moves() == s.legal_moves() and t.digest() == s.digest()
    assert eval(repr(s), {"vora": vora}) == s
    for bad, why in [
        ("{", "not JSON"),
        ("[]", "JSON object"),
        ('{"game": "chess", "format": 1}', "not a Vora state"),
        (s.to_json().replace('"active":0', '"active":7'), "active"),
        (s.to_json().replace('"grid":[', '"grid":[9,'), "grid"),
        (s.to_json().replace('"phase":1', '"phase":0'), "before"),
    ]:
        with pytest.raises(BadPosition, match=why):
            vora.from_json(bad)


def test_digest_changes_with_the_state_and_is_short_hex():
    s = vora.new_game(2, seed=1)
    d = s.digest()
    assert len(d) == 16 and int(d, 16) >= 0
    t = s.clone()
    t.play(t.legal_moves()[0])
    assert t.digest() != d and s.digest() == d


def test_prng_is_a_fixed_sequence():
    # The generator is part of the saved-game format: its sequence must never change.
    x = prng.seed_state(0)
    seq = []
    for _ in range(5):
        v, x = prng.below(x, 1000)
        seq.append(v)
    y = prng.seed_state(0)
    assert [prng.below(y, 1000)[0]] == seq[:1]
    # xorshift32 reference values (Marsaglia): 1 -> 270369 -> 67634689.
    assert prng.step(1) == 270369
    assert prng.step(270369) == 67634689
    with pytest.raises(ValueError):
        prng.seed_state(-1)


def whole_word_step(x):
    # xorshift32 as Marsaglia wrote it: prng.step computes it on 16-bit halves.
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    return x


@settings(max_examples=3000, deadline=None)
@given(st.integers(1, 0xFFFFFFFF))
def test_the_prng_on_halves_is_xorshift32(x):
    assert prng.step(x) == whole_word_step(x)


def test_the_prng_on_halves_follows_long_sequences():
    for seed in (0, 1, 0xFFFFFFFF):
        x = y = prng.seed_state(seed)
        for _ in range(20000):
            x, y = prng.step(x), whole_word_step(y)
            assert x == y
