"""Vorcept, rule by rule: each test quotes the rulebook sentence it checks
(../shared/rulebooks/vorcept.md: the English text is the reference; the Russian original
clarifies what the English leaves open) and plays it as a scenario: position in, move,
position out.

Play-phase positions are built with `pos()`: a 7x7 board (rank 7 at the top) holding the
Pylon on g1, Blue's Host on a7 and Red's Host on g7 unless a scenario moves them, and
the cells a scenario sets. Letters (docs/vorcept-notation.md): `.` empty, `#` lava, `@` the
Pylon, Blue `H` Host, `A` Drone-1, `B` Drone-2, `C` Drone-3; Red the same in lower case.
The Pylon in a corner keeps its triangle out of scenarios that are not about it.
"""

import json
import random

import pytest

from shared_rules import games, prng, vorcept
from shared_rules.errors import BadPosition, IllegalMove

BASE = {"g1": "@", "a7": "H", "g7": "h"}


def pos(cells=(), to_act=0, action=1, acted="-", reserves="4,3,2/4,3,2", size=7, base=BASE,
        **options):
    """A play-phase position: BASE with `cells` set ("." clears a cell)."""
    grid = [["."] * size for _ in range(size)]
    full = dict(base)
    full.update(dict(cells))
    for cell, letter in full.items():
        grid[size - int(cell[1:])][ord(cell[0]) - 97] = letter
    text = "%s %d %d %s %s" % ("/".join("".join(r) for r in grid), to_act, action, acted,
                               reserves)
    return vorcept.from_position(text, **options)


def at(state, cell):
    """The letter on a cell."""
    i = state.index[cell]
    return vorcept.LETTERS[state.grid[i]]


def setup(moves, **options):
    """A new game with the given setup moves played."""
    s = vorcept.new_game(2, 0, **options)
    for m in moves:
        s.play(m)
    return s


# Lava that touches neither the Pylon on d4 nor anything else of the scenarios below.
SIX_LAVA = ["lava a1", "lava g1", "lava a7", "lava g7", "lava b4", "lava f4"]


def played_setup(**options):
    """Pylon d4, six lava, Blue Host d1, Red Host d7: the play phase begins."""
    return setup(["pylon d4"] + SIX_LAVA + ["lava done", "host d1", "host d7"], **options)


# ---------------------------------------------------------------- setup

def test_blue_places_the_pylon_first():
    # "Синий игрок помещает синий блок Пилона на поле." / "The Blue player places the blue
    # Pylon block on the board."
    s = vorcept.new_game()
    assert s.phase_name() == "pylon" and s.to_act() == vorcept.BLUE
    assert s.legal_moves() == sorted("pylon " + c for c in s.cell_names())
    s.play("pylon d4")
    assert s.pylon_cell() == "d4" and at(s, "d4") == "@"


def test_lava_is_placed_alternately_starting_with_red():
    # "Then, starting with the Red player and alternating turns, players place 6-9 red
    # Lava blocks."
    s = setup(["pylon d4"])
    assert s.phase_name() == "lava"
    order = []
    for m in SIX_LAVA:
        order.append(s.to_act())
        s.play(m)
    assert order == [1, 0, 1, 0, 1, 0]
    assert s.lava_count() == 6 and s.to_act() == vorcept.RED


def test_lava_done_only_once_six_blocks_are_down_and_nine_end_the_lava():
    # "6-9 red Lava blocks": "lava done" is offered from the sixth block on; the ninth
    # ends the lava phase by itself.
    s = setup(["pylon d4"] + SIX_LAVA[:5])
    assert "lava done" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="5 lava blocks are down; at least 6"):
        s.play("lava done")
    s.play(SIX_LAVA[5])
    assert "lava done" in s.legal_moves()
    for m in ("lava a4", "lava g4", "lava d1"):
        assert s.phase_name() == "lava"
        s.play(m)
    assert s.lava_count() == 9
    assert s.phase_name() == "host" and s.to_act() == vorcept.BLUE


def test_lava_done_ends_the_lava_phase_and_blue_places_a_host():
    s = setup(["pylon d4"] + SIX_LAVA + ["lava done"])
    assert s.phase_name() == "host" and s.to_act() == vorcept.BLUE
    assert all(m.startswith("host ") for m in s.legal_moves())


def test_lava_must_not_touch_the_pylon():
    # "Лава не должна касаться Пилона." / "Lava must not touch the Pylon." To touch is to
    # share a side (the game moves along cell edges only): a diagonal cell is allowed.
    s = setup(["pylon d4"])
    for cell in ("d5", "e4", "d3", "c4"):
        assert "lava " + cell not in s.legal_moves()
        with pytest.raises(IllegalMove, match="lava must not touch the Pylon"):
            s.play("lava " + cell)
    with pytest.raises(IllegalMove, match="d4 is not free"):
        s.play("lava d4")
    s.play("lava e5")
    assert at(s, "e5") == "#"


def test_blue_host_touches_no_lava_and_stays_two_cells_from_the_pylon():
    # "The Blue player places their Host on the board, ensuring it does not touch Lava
    # and is at least two cells away from the Pylon." Distance counts steps along cell
    # edges: d6 and the diagonal e5 are two steps away, d5 one.
    s = setup(["pylon d4"] + SIX_LAVA + ["lava done"])
    with pytest.raises(IllegalMove, match="at least 2 cells from the Pylon"):
        s.play("host d5")
    with pytest.raises(IllegalMove, match="must not touch lava"):
        s.play("host b3")  # b4 holds lava
    with pytest.raises(IllegalMove, match="not free"):
        s.play("host a1")
    moves = s.legal_moves()
    assert "host d6" in moves and "host e5" in moves and "host b5" not in moves
    s.play("host e5")
    assert s.host_cell(vorcept.BLUE) == "e5" and s.to_act() == vorcept.RED


def test_red_host_touches_no_lava_nor_the_blue_host():
    # "The Red player places their Host on the board, ensuring it does not touch Lava, the
    # Blue Host, and is at least two cells away from the Pylon."
    s = setup(["pylon d4"] + SIX_LAVA + ["lava done", "host d1"])
    with pytest.raises(IllegalMove, match="Red Host must not touch the Blue Host"):
        s.play("host e1")
    with pytest.raises(IllegalMove, match="at least 2 cells"):
        s.play("host c4")
    with pytest.raises(IllegalMove, match="must not touch lava"):
        s.play("host g2")
    assert "host e1" not in s.legal_moves() and "host f1" not in s.legal_moves()  # g1 lava
    s.play("host c2")  # diagonal to the Blue Host: corners do not touch, sides do
    assert s.host_cell(vorcept.RED) == "c2"


def test_blue_starts_the_play_with_every_other_piece_in_reserve():
    # "Players now take turns, starting with Blue, using two pieces per turn ... All other
    # pieces remain in reserve and will enter the board later."
    s = played_setup()
    assert s.phase_name() == "play" and s.to_act() == vorcept.BLUE
    assert s.action_number() == 1 and s.turn_count() == 0
    for p in (0, 1):
        assert s.reserve(p) == {"drone1": 4, "drone2": 3, "drone3": 2}
        assert s.pieces_left(p) == 10
    pieces = [c for c in s.cell_names() if s.piece_at(c)]
    assert pieces == ["d1", "d7"]


def test_lava_may_not_leave_the_hosts_without_room():
    # House rule: no setup move may make the rest of the setup impossible. On a 5x5 board
    # with the Pylon on c3 and lava around it, a Host may still stand on e1 or e5 only;
    # lava on either would leave one cell for two Hosts.
    s = setup(["pylon c3", "lava b2", "lava d2", "lava b4", "lava d4", "lava a3", "lava c1",
               "lava e3", "lava c5", "lava a1", "lava a5"], size=5, lava_max=12)
    assert s.phase_name() == "lava"
    for cell in ("e1", "e5"):
        assert "lava " + cell not in s.legal_moves()
        with pytest.raises(IllegalMove, match="no room for both Hosts"):
            s.play("lava " + cell)
    s.play("lava done")
    assert s.legal_moves() == ["host e1", "host e5"]


def test_lava_done_is_offered_when_no_more_lava_fits_even_below_the_minimum():
    # House rule: if no cell can take lava any more, "lava done" ends the phase early.
    s = setup(["pylon c3"], size=5, lava_min=25, lava_max=25)
    while "lava done" not in s.legal_moves():
        s.play(s.legal_moves()[0])
    assert s.legal_moves() == ["lava done"] and s.lava_count() < 25
    s.play("lava done")
    blue = s.legal_moves()
    assert blue
    s.play(blue[0])
    assert s.legal_moves(), "Red always finds room for its Host"


def test_blue_host_must_leave_the_red_host_a_cell():
    # House rule: Blue may not take the cell whose neighbours are Red's only room. Here a
    # Host may stand on a1, b1 or c1 only; Blue on b1 would touch both others.
    board = ".#..@/...../####./...../....#"
    d = json.loads(vorcept.new_game(size=5).to_json())
    d.update(board=board, phase=vorcept.PHASE_HOST)
    s = vorcept.from_json(d)
    assert s.legal_moves() == ["host a1", "host c1"]
    with pytest.raises(IllegalMove, match="leave the Red Host no cell"):
        s.play("host b1")
    s.play("host a1")
    assert s.legal_moves() == ["host c1"]


def test_the_setup_moves_are_refused_out_of_turn():
    s = vorcept.new_game()
    for m in ("lava a1", "host a1", "move a1 a2", "summon drone1 a1", "concede"):
        with pytest.raises(IllegalMove, match="place the Pylon"):
            s.play(m)
    s.play("pylon d4")
    with pytest.raises(IllegalMove, match="place lava"):
        s.play("pylon c4")


# ---------------------------------------------------------------- actions

def test_a_turn_is_two_actions_of_the_same_player():
    # "Each turn consists of two mandatory actions: use two different pieces, either by
    # moving them or summoning reinforcements."
    s = played_setup()
    s.play("move d1 e1")
    assert s.to_act() == vorcept.BLUE and s.action_number() == 2
    assert s.acted_cells() == ["e1"]
    s.play("summon drone1 e2")
    assert s.to_act() == vorcept.RED and s.action_number() == 1 and s.turn_count() == 1
    assert s.acted_cells() == []


def test_the_two_actions_use_two_different_pieces():
    s = played_setup()
    s.play("move d1 e1")
    assert not any(m.startswith("move e1 ") for m in s.legal_moves())
    with pytest.raises(IllegalMove, match="already acted this turn"):
        s.play("move e1 f1")


def test_skipping_an_action_is_not_allowed():
    # "Пропускать действия нельзя." / "Skipping actions is not allowed."
    s = played_setup()
    assert all(m.split()[0] in ("move", "summon") for m in s.legal_moves())
    with pytest.raises(IllegalMove, match="unknown move word 'pass'"):
        s.play("pass")


def test_when_no_second_action_exists_the_turn_ends():
    # House rule: a player whose first action leaves no second one (a lone Host that has
    # moved, an empty reserve) ends the turn; skipping is only forced, never chosen.
    s = pos({"a7": ".", "d1": "H"}, reserves="0,0,0/4,3,2")
    assert s.legal_moves() == ["concede", "move d1 c1", "move d1 d2", "move d1 e1"]
    s.play("move d1 d2")
    assert s.to_act() == vorcept.RED and s.turn_count() == 1 and s.action_number() == 1


def test_a_player_with_no_action_at_all_ends_the_game_in_a_stalemate():
    # House rule: a draw. Blue's Host in the corner, walled in by lava (the edge is not a
    # wall here), has nothing to do: its two drones in reserve have no cell to enter, and
    # with three pieces Blue may not concede.
    s = pos({"a7": ".", "a1": "H", "a2": "#", "b1": "#"}, to_act=1, action=2,
            reserves="1,1,0/4,3,2", edge_wall=False)
    s.play("move g7 f7")
    assert s.is_over() and s.end_reason() == "stalemate"
    assert s.winner() is None and s.scores() == [0, 0] and s.turn_count() == 1


def test_a_stuck_player_with_fewer_than_three_pieces_must_concede():
    # "If a player has fewer than three pieces ... if it's clear the remaining two pieces
    # cannot capture the Host, the player should concede." / "то игрок должен признать
    # поражение". A player with no action at all cannot capture anything: no stalemate
    # draw, their one move is to concede.
    s = pos({"a7": ".", "a1": "H", "a2": "#", "b1": "#"}, to_act=1, action=2,
            reserves="0,0,0/4,3,2", edge_wall=False)
    s.play("move g7 f7")
    assert not s.is_over() and s.to_act() == 0 and s.legal_moves() == ["concede"]
    s.play("concede")
    assert s.winner() == 1 and s.end_reason() == "concede" and s.scores() == [0, 1]
    # The same position is accepted as a start of a turn (notation, resuming).
    again = pos({"a7": ".", "a1": "H", "a2": "#", "b1": "#", "g7": ".", "f7": "h"},
                reserves="0,0,0/4,3,2", edge_wall=False)
    assert again.legal_moves() == ["concede"]


# ---------------------------------------------------------------- movement

def test_each_piece_moves_up_to_its_range_in_straight_lines():
    # "Host: Moves one cell." "Drone-1: Jumps one or two cells in a straight line."
    # "Drone-2: up to three cells." "Drone-3: up to four cells."
    s = pos({"d4": "H", "a7": ".", "b2": "A", "f6": "B", "a4": "C"})
    assert s.destinations("d4") == ["c4", "d3", "d5", "e4"]
    assert s.destinations("b2") == ["a2", "b1", "b3", "b4", "c2", "d2"]
    assert s.destinations("f6") == ["c6", "d6", "e6", "f3", "f4", "f5", "f7", "g6"]
    # Drone-3 jumps the Host on d4 to e4, four cells away.
    assert s.destinations("a4") == ["a1", "a2", "a3", "a5", "a6", "a7", "b4", "c4", "e4"]
    with pytest.raises(IllegalMove, match="the drone1 moves at most 2 cells"):
        s.play("move b2 b5")
    with pytest.raises(IllegalMove, match="the host moves at most 1 cell"):
        s.play("move d4 d6")


def test_pieces_jump_over_pieces_and_lava_but_never_over_the_pylon():
    # "If the range allows, pieces can jump over other pieces or Lava. The Pylon is the
    # only impassable obstacle."
    s = pos({"g1": ".", "e4": "@", "a4": "C", "b4": "#", "c4": "a", "a3": "#", "a2": "A"})
    assert "move a4 d4" in s.legal_moves()  # over lava and a Red drone
    assert "move a4 e4" not in s.legal_moves()
    # a1 over the lava on a3 and Blue's own drone on a2; a7 holds Blue's Host.
    assert s.destinations("a4") == ["a1", "a5", "a6", "d4"]
    s2 = pos({"g1": ".", "c4": "@", "a4": "C"})
    assert s2.destinations("a4") == ["a1", "a2", "a3", "a5", "a6", "b4"]
    with pytest.raises(IllegalMove, match="nothing passes over the Pylon"):
        s2.play("move a4 d4")


def test_movement_is_along_cell_edges_never_diagonal():
    # "Movement is restricted to along the edges of cells; diagonal (corner-to-corner)
    # movement is prohibited."
    s = pos({"d4": "C"})
    with pytest.raises(IllegalMove, match="never diagonally"):
        s.play("move d4 e5")
    with pytest.raises(IllegalMove, match="never diagonally"):
        s.play("move d4 e6")
    assert all(m.split()[2][0] == "d" or m.split()[2][1] == "4"
               for m in s.legal_moves() if m.startswith("move d4 "))


def test_a_piece_lands_only_on_a_free_cell():
    s = pos({"d4": "B", "d5": "a", "d6": "#"})
    with pytest.raises(IllegalMove, match="d5 is not free"):
        s.play("move d4 d5")
    with pytest.raises(IllegalMove, match="d6 is not free"):
        s.play("move d4 d6")
    with pytest.raises(IllegalMove, match="holds no piece of Blue"):
        s.play("move d5 c5")
    with pytest.raises(IllegalMove, match="another cell"):
        s.play("move d4 d4")
    s.play("move d4 d7")
    assert at(s, "d7") == "B" and at(s, "d4") == "."


# ---------------------------------------------------------------- reinforcement

def test_a_reinforcement_enters_on_a_free_cell_beside_the_host():
    # "Instead of moving a piece, you may summon a reinforcement: place a piece from your
    # reserve onto an empty cell adjacent to your Host." Adjacent: sharing a side.
    s = pos({"a7": ".", "d4": "H", "d5": "#"}, reserves="1,0,2/4,3,2")
    summons = [m for m in s.legal_moves() if m.startswith("summon")]
    assert summons == ["summon drone1 c4", "summon drone1 d3", "summon drone1 e4",
                       "summon drone3 c4", "summon drone3 d3", "summon drone3 e4"]
    with pytest.raises(IllegalMove, match="beside the Host"):
        s.play("summon drone1 e5")
    with pytest.raises(IllegalMove, match="d5 is not free"):
        s.play("summon drone1 d5")
    with pytest.raises(IllegalMove, match="no drone2 in reserve"):
        s.play("summon drone2 c4")
    with pytest.raises(IllegalMove, match="not a drone"):
        s.play("summon host c4")
    s.play("summon drone3 e4")
    assert at(s, "e4") == "C" and s.reserve(0) == {"drone1": 1, "drone2": 0, "drone3": 1}


def test_a_new_piece_cannot_move_in_the_same_turn():
    # "A newly placed piece counts as having taken its action and cannot move on the same
    # turn."
    s = pos({"a7": ".", "d4": "H"})
    s.play("summon drone3 e4")
    assert s.acted_cells() == ["e4"]
    with pytest.raises(IllegalMove, match="already acted"):
        s.play("move e4 e6")


def test_the_host_moves_then_a_reinforcement_enters_beside_it():
    # "You can move your Host one cell (first action) and then summon a reinforcement next
    # to it (second action). Summoning is a separate mechanic, not an action of the Host."
    s = pos({"a7": ".", "d4": "H"})
    s.play("move d4 d5")
    s.play("summon drone1 d6")
    assert at(s, "d6") == "A" and s.to_act() == 1
    t = pos({"a7": ".", "d4": "H"})
    t.play("summon drone1 d3")
    t.play("move d4 e4")  # the Host still has its own action after summoning
    assert at(t, "e4") == "H"


def test_two_reinforcements_in_one_turn():
    # "You can also summon two reinforcements or move two different pieces."
    s = pos({"a7": ".", "d4": "H"})
    s.play("summon drone1 d3")
    s.play("summon drone2 d5")
    assert s.to_act() == 1 and s.reserve(0) == {"drone1": 3, "drone2": 2, "drone3": 2}


def test_a_reinforcement_can_capture():
    # "Summoning a reinforcement can surround an opponent's piece, immediately removing it
    # from the board."
    s = pos({"a7": ".", "d4": "H", "e5": "a", "e6": "A"})
    s.play("summon drone1 e4")  # e5 between e4 and e6
    assert at(s, "e5") == "." and s.last_removed() == [("e5", 1, "drone1")]


# ---------------------------------------------------------------- captures

def test_a_piece_trapped_between_two_enemy_pieces_is_captured():
    # "Если вы зажмёте её с двух противоположных сторон" / "Trap it between two of your
    # pieces on opposite sides": the two sides across the piece, in a rank or a file.
    s = pos({"c4": "A", "d4": "a", "e2": "B"})
    s.play("move e2 e4")
    assert at(s, "d4") == "." and s.last_removed() == [("d4", 1, "drone1")]
    v = pos({"d6": "A", "d5": "b", "b4": "C"})
    v.play("move b4 d4")
    assert at(v, "d5") == "."


def test_lava_and_the_edge_do_not_make_a_trap():
    # The trap needs two of your pieces; lava on the far side is no partner.
    s = pos({"e4": "#", "d4": "a", "c2": "B"})
    s.play("move c2 c4")
    assert at(s, "d4") == "a"
    t = pos({"b1": "a", "c3": "A"})
    t.play("move c3 c1")  # b1 between c1 and the edge: no trap
    assert at(t, "b1") == "a"


def test_diagonal_neighbours_do_not_trap():
    s = pos({"c5": "A", "d4": "a", "e5": "B"})
    s.play("move e5 e3")
    assert at(s, "d4") == "a"


def test_a_piece_that_steps_between_two_enemies_stays():
    # "Если вы поместили свою фигуру между фигурами врага, она остаётся в игре" / "If your
    # piece is placed between opponent pieces, it remains in play": captures are made by
    # the player who acts, with the piece that acts.
    s = pos({"c4": "a", "e4": "a", "d2": "A"})
    s.play("move d2 d4")
    assert at(s, "d4") == "A" and s.last_removed() == []


def test_three_pieces_on_three_sides_capture_by_triangle():
    # "Окружите с трёх сторон треугольником" / "Surround it with three pieces in a
    # triangular formation": three of its four sides. It catches a piece that sat safely
    # between two of yours once a third arrives on a side between them.
    s = pos({"c4": "A", "e4": "A", "d4": "a", "d6": "B"}, to_act=0)
    s.play("move d6 d5")
    assert at(s, "d4") == "." and s.last_removed() == [("d4", 1, "drone1")]


def test_two_sides_are_no_triangle():
    s = pos({"c4": "A", "d4": "a", "d6": "B"})
    s.play("move d6 d5")  # c4 and d5 hold two sides, at a corner: no capture
    assert at(s, "d4") == "a"


def test_a_triangle_on_the_edge_takes_all_three_sides():
    s = pos({"c1": "A", "e1": "A", "d1": "a", "d3": "B"}, base={"g4": "@", "a7": "H",
                                                                "g7": "h"})
    s.play("move d3 d2")
    assert at(s, "d1") == "."


def test_a_piece_with_every_neighbour_filled_is_captured_lava_and_pylon_as_walls():
    # "Occupy all adjacent cells around it (Lava and the Pylon also count as barriers)."
    s = pos({"g1": ".", "c4": "@", "d5": "#", "d4": "a", "e4": "A", "d1": "B"})
    s.play("move d1 d3")  # no trap (c4 is the Pylon), two sides only: the full surround
    assert at(s, "d4") == "." and s.last_removed() == [("d4", 1, "drone1")]


def test_the_victims_own_pieces_fill_its_neighbours_too():
    # Every neighbour occupied, by anything, is a full surround.
    s = pos({"c4": "#", "d5": "b", "d4": "a", "e4": "A", "d1": "B"})
    s.play("move d1 d3")
    assert at(s, "d4") == "." and at(s, "d5") == "b"


def test_the_board_edge_is_a_wall_by_default_and_an_option():
    # House default: a cell off the board is no free neighbour, so a piece in the corner
    # is surrounded by two pieces. With edge_wall=False an edge piece is never surrounded.
    s = pos({"a1": "a", "a2": "A", "c1": "B"})
    s.play("move c1 b1")
    assert at(s, "a1") == "."
    t = pos({"a1": "a", "a2": "A", "c1": "B"}, edge_wall=False)
    t.play("move c1 b1")
    assert at(t, "a1") == "a"


def test_one_action_may_capture_several_pieces():
    s = pos({"c4": "A", "d4": "a", "e5": "b", "e6": "B", "e2": "C"})
    s.play("move e2 e4")
    assert at(s, "d4") == "." and at(s, "e5") == "."
    assert sorted(s.last_removed()) == [("d4", 1, "drone1"), ("e5", 1, "drone2")]


def test_captured_pieces_leave_at_once_and_the_cell_is_free_this_turn():
    # "Captured pieces are removed immediately, and you may move into the freed cell on
    # the same turn."
    s = pos({"c4": "A", "d4": "a", "e2": "B", "d6": "C"})
    s.play("move e2 e4")
    assert "move d6 d4" in s.legal_moves()
    s.play("move d6 d4")
    assert at(s, "d4") == "C" and s.to_act() == 1
    # The turn's captures stay listed for the renderer until the next turn acts.
    assert s.last_removed() == [("d4", 1, "drone1")]
    s.play("move g7 f7")
    assert s.last_removed() == []


def test_captured_pieces_do_not_return_to_the_reserve():
    s = pos({"c4": "A", "d4": "a", "e2": "B"}, reserves="4,3,2/4,3,2")
    before = s.pieces_left(1)
    s.play("move e2 e4")
    assert s.reserve(1) == {"drone1": 4, "drone2": 3, "drone3": 2}
    assert s.pieces_left(1) == before - 1


# ---------------------------------------------------------------- your own pieces

def test_you_cannot_surround_your_own_pieces():
    # "Важно: Нельзя окружать свои фигуры так, чтобы вокруг не осталось свободных клеток."
    # / "Important: You cannot surround your own pieces such that no adjacent cells
    # remain free." The default: an action that would leave a piece of yours (the one
    # that arrives, or one beside it) with no free neighbour is refused.
    s = pos({"c1": "a", "e1": "a", "d2": "#", "d4": "B", "a1": "A", "b1": "#", "a3": "C"})
    assert s.options()["self_capture"] == "forbid"
    assert "move d4 d1" not in s.legal_moves() and "move a3 a2" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="no free neighbour"):
        s.play("move d4 d1")  # into a hole between two enemies and lava
    with pytest.raises(IllegalMove, match="no free neighbour"):
        s.play("move a3 a2")  # onto a1's last free neighbour
    assert "move d4 d3" in s.legal_moves()


def test_you_cannot_wall_in_your_own_host():
    # The same sentence for the Host: a summon onto its last free cell is refused, so a
    # player never loses by their own hand.
    s = pos({"a7": ".", "a1": "H", "a2": "A"})
    assert "summon drone1 b1" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="no free neighbour"):
        s.play("summon drone1 b1")


def test_your_own_piece_left_with_no_free_neighbour_is_removed_as_an_option():
    # "Если вы случайно окружите свою фигуру, она тоже снимается" / "If you accidentally
    # surround your own piece, it is also removed" and "... but is removed if no free
    # adjacent cells are left". Option self_capture="remove": the action is legal, and
    # the piece leaves.
    s = pos({"c1": "a", "e1": "a", "d2": "#", "d4": "B"}, self_capture="remove")
    assert "move d4 d1" in s.legal_moves()
    s.play("move d4 d1")
    assert at(s, "d1") == "." and s.last_removed() == [("d1", 0, "drone2")]
    assert at(s, "c1") == "a" and at(s, "e1") == "a"
    assert s.acted_cells() == []


def test_a_move_that_walls_in_your_own_piece_removes_it():
    s = pos({"a1": "A", "b1": "#", "a3": "B"}, self_capture="remove")
    s.play("move a3 a2")  # a1's last free neighbour: a1 leaves; a2 has b2 free
    assert at(s, "a1") == "." and at(s, "a2") == "B"
    assert s.last_removed() == [("a1", 0, "drone1")]


def test_captures_come_first_so_a_capture_can_free_your_piece():
    # The piece that steps into a hole takes an enemy neighbour first, and that frees a
    # cell for it (as in Go).
    s = pos({"b1": "A", "c1": "a", "e1": "a", "d2": "#", "d4": "B"}, self_capture="forbid")
    assert "move d4 d1" in s.legal_moves()
    s.play("move d4 d1")
    assert at(s, "d1") == "B" and at(s, "c1") == "."


# ---------------------------------------------------------------- victory

def test_capturing_the_enemy_host_wins():
    # "To win, capture or surround the opponent's Host." "Host ... Role: Your commander. If
    # it is surrounded or captured, you lose."
    s = pos({"g7": ".", "d4": "h", "c4": "A", "e2": "B"})
    s.play("move e2 e4")
    assert s.is_over() and s.winner() == 0 and s.end_reason() == "host"
    assert s.scores() == [1, 0] and s.legal_moves() == [] and s.to_act() is None
    assert s.turn_count() == 1
    with pytest.raises(IllegalMove, match="the game is over"):
        s.play("move a7 a6")


def test_surrounding_the_enemy_host_wins():
    s = pos({"a7": ".", "g7": ".", "a1": "h", "a2": "A", "c1": "B", "d7": "H"})
    s.play("move c1 b1")
    assert s.winner() == 0 and s.end_reason() == "host"
    assert s.last_removed() == [("a1", 1, "host")]


def test_walling_in_your_own_host_loses_with_the_remove_option():
    # Your own Host with no free neighbour is removed like any piece of yours: you lose.
    s = pos({"a7": ".", "a1": "H", "a2": "A"}, self_capture="remove")
    s.play("summon drone1 b1")
    assert s.winner() == 1 and s.end_reason() == "host" and s.scores() == [0, 1]


def test_taking_the_enemy_host_comes_before_losing_your_own():
    s = pos({"a7": ".", "a1": "H", "a2": "A", "g7": ".", "c1": "h", "d1": "B"},
            self_capture="remove")
    s.play("summon drone1 b1")  # traps Red's Host on c1, and walls in Blue's own Host
    assert s.winner() == 0 and s.end_reason() == "host"


def test_three_sides_of_the_pylon_win():
    # "Или окружите Пилон с трёх сторон треугольником." / "or surround the Pylon with
    # three pieces in a triangular formation": three of its four sides, any pieces.
    s = pos({"g1": ".", "d4": "@", "d5": "A", "c4": "H", "a7": ".", "e2": "B"})
    s.play("move e2 e4")
    assert s.winner() == 0 and s.end_reason() == "pylon"


def test_red_wins_by_the_pylon_too():
    s = pos({"g1": ".", "d4": "@", "d5": "a", "c4": "b", "e1": "c"}, to_act=1)
    s.play("move e1 e4")
    assert s.winner() == 1 and s.end_reason() == "pylon"


def test_two_sides_of_the_pylon_do_not_win():
    s = pos({"g1": ".", "d4": "@", "d5": "A", "e2": "B"})
    s.play("move e2 e4")
    assert not s.is_over()


def test_the_pylon_on_the_edge_has_three_sides_in_the_corner_two():
    s = pos({"g1": ".", "d1": "@", "c1": "A", "e1": "A", "d3": "B"})
    s.play("move d3 d2")
    assert s.winner() == 0 and s.end_reason() == "pylon"
    t = pos({"g1": "@", "f1": "A", "g3": "B"})
    t.play("move g3 g2")
    assert not t.is_over()  # a Pylon in the corner cannot be won


def test_a_pylon_in_a_corner_may_be_placed_and_the_players_are_told():
    # "The Blue player places the blue Pylon block on the board": any cell, a corner too.
    # "or surround the Pylon with three pieces in a triangular formation": a corner cell
    # has two sides, so that victory is gone for the game, and the state says so.
    s = vorcept.new_game()
    assert "pylon a1" in s.legal_moves() and s.pylon_winnable()
    s.play("pylon a1")
    assert not s.pylon_winnable()
    t = vorcept.new_game()
    t.play("pylon a4")  # on the edge: three sides, all needed
    assert t.pylon_winnable()
    assert not vorcept.new_game(host_only=True).pylon_winnable()


def test_host_only_variant_ignores_the_pylon():
    # "If you want a more distributed game on the field, then do not use the condition of
    # capturing the Pylon, leave only the capture of the Host."
    s = pos({"g1": ".", "d4": "@", "d5": "A", "c4": "A", "e2": "B"}, host_only=True)
    s.play("move e2 e4")
    assert not s.is_over()
    t = pos({"g7": ".", "d4": "h", "c4": "A", "e2": "B"}, host_only=True)
    t.play("move e2 e4")
    assert t.winner() == 0 and t.end_reason() == "host"


# ---------------------------------------------------------------- concession

def test_a_player_with_fewer_than_three_pieces_may_concede():
    # "If a player has fewer than three pieces ... if it's clear the remaining two pieces
    # cannot capture the Host, the player should concede." Pieces count the board and
    # the reserve, the Host included.
    s = pos({"d4": "A"}, reserves="0,0,0/4,3,2")
    assert s.pieces_left(0) == 2 and "concede" in s.legal_moves()
    s.play("concede")
    assert s.winner() == 1 and s.end_reason() == "concede" and s.scores() == [0, 1]


def test_three_pieces_may_not_concede():
    s = pos({"d4": "A"}, reserves="1,0,0/4,3,2")
    assert s.pieces_left(0) == 3 and "concede" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="fewer than 3 pieces"):
        s.play("concede")


def test_concession_threshold_is_an_option():
    s = pos({"d4": "A"}, reserves="1,0,0/4,3,2", concede_below=99)
    assert "concede" in s.legal_moves()
    t = pos({}, reserves="0,0,0/0,0,0", concede_below=0)
    assert "concede" not in t.legal_moves()


def test_the_second_action_may_be_a_concession():
    s = pos({"d4": "A"}, reserves="0,0,0/4,3,2")
    s.play("move d4 d5")
    assert "concede" in s.legal_moves()
    s.play("concede")
    assert s.winner() == 1


# ---------------------------------------------------------------- safeguards and scores

def test_the_turn_limit_ends_the_game_in_a_draw():
    # House safeguard: a game that reaches max_turns play turns is a draw ("turns").
    s = played_setup(max_turns=2)
    s.play("move d1 c1")
    s.play("summon drone1 d1")
    s.play("move d7 c7")
    assert not s.is_over()
    s.play("summon drone1 d7")
    assert s.is_over() and s.end_reason() == "turns" and s.turn_count() == 2
    assert s.winner() is None and s.scores() == [0, 0]


def test_scores_are_zero_while_the_game_goes_on():
    s = played_setup()
    assert s.scores() == [0, 0] and s.winner() is None and s.end_reason() == ""


def test_random_games_end_and_only_rarely_by_concession():
    ends = {}
    for seed in range(60):
        rnd = random.Random(seed)
        s = vorcept.new_game(2, seed)
        while not s.is_over():
            s.play(rnd.choice(s.legal_moves()))
        ends[s.end_reason()] = ends.get(s.end_reason(), 0) + 1
        assert s.turn_count() <= vorcept.DEFAULT_MAX_TURNS
    assert ends.get("concede", 0) <= 6 and ends.get("host", 0) >= 40


@pytest.mark.parametrize("options", [
    {}, {"self_capture": "forbid"}, {"edge_wall": False}, {"host_only": True},
    {"size": 5}, {"size": 11, "lava_min": 12, "lava_max": 20},
    {"pieces": {"drone1": 1}, "lava_min": 0, "lava_max": 0},
])
def test_random_games_with_options_keep_the_contract(options):
    # Sorted unique legal moves that all play; refusals change nothing; JSON and clones
    # round-trip; no piece is ever left enclosed; every game ends.
    for seed in range(8):
        rnd = random.Random(seed)
        s = vorcept.new_game(2, seed, **options)
        assert vorcept.new_game(2, seed, **s.options()) == s
        while not s.is_over():
            moves = s.legal_moves()
            assert moves and moves == sorted(set(moves))
            text = s.to_json()
            assert vorcept.from_json(text).to_json() == text and s.clone() == s
            for bad in ("move a1 a1", "summon drone9 a1", "lava z9"):
                with pytest.raises(IllegalMove):
                    s.play(bad)
                assert s.to_json() == text
            if s.phase_name() == "play":
                again = vorcept.from_position(s.position(), **{
                    k: v for k, v in s.options().items() if k != "size"})
                assert again.position() == s.position()
                assert again.legal_moves() == moves
            s.play(rnd.choice(moves))
            for c in range(len(s.grid)):
                if s.grid[c] >= vorcept.FIRST_PIECE:
                    assert not s._enclosed(c, ())


# ---------------------------------------------------------------- no chance, the interface

def test_vorcept_has_no_chance_every_seed_plays_the_same_game():
    # The seed is checked and kept (the common interface); nothing draws from it.
    a = vorcept.new_game(2, 0)
    b = vorcept.new_game(2, 12345)
    assert a.rng != b.rng and a.legal_moves() == b.legal_moves()
    for m in ["pylon d4"] + SIX_LAVA + ["lava done", "host d1", "host d7", "move d1 e1"]:
        a.play(m)
        b.play(m)
        assert a.view() == b.view()
    assert b.rng == prng.seed_state(12345)
    with pytest.raises(ValueError):
        vorcept.new_game(2, -1)


def test_view_is_the_whole_state_and_determinize_rebuilds_it():
    s = played_setup()
    s.play("move d1 e1")
    view = s.view(0)
    assert view == s.view(None) == s.view(1)
    assert "rng" not in view and view["board"] == "/".join(s.board_rows())
    back = vorcept.determinize(view, 99)
    assert back.view(0) == view and back.legal_moves() == s.legal_moves()
    assert back.rng == prng.seed_state(99)


def test_a_record_replays():
    record = {"game": "vorcept", "players": 2, "seed": 3, "options": {"size": 7},
              "moves": ["pylon d4"] + SIX_LAVA + ["lava done", "host d1", "host d7"]}
    digests = []
    s = games.start(record)
    for m in record["moves"]:
        s.play(m)
        digests.append(s.digest())
    assert games.replay(record, digests) == s


def test_the_position_example_of_the_notation_page():
    text = "H.....h/......./......./..Aa.../......./....B../......@ 0 1 - 4,3,2/4,3,2 0"
    s = vorcept.from_position(text)
    assert s.position() == text
    s.play("move e2 e4")
    assert s.last_removed() == [("d4", 1, "drone1")]


def test_renderer_accessors():
    s = pos({"d4": "A", "d5": "#", "c4": "a", "e4": "B"}, reserves="3,2,1/4,3,2")
    assert s.content("d4") == (0, "drone1") and s.content("d5") == "lava"
    assert s.content("g1") == "pylon" and s.content("a1") == "empty"
    assert s.piece_at("c4") == (1, "drone1") and s.piece_at("d5") is None
    assert s.host_cell(0) == "a7" and s.host_cell(1) == "g7" and s.pylon_cell() == "g1"
    assert s.board_rows()[0] == "H.....h" and len(s.board_rows()) == 7
    assert s.reserve(0) == {"drone1": 3, "drone2": 2, "drone3": 1}
    assert s.phase_name() == "play" and s.action_number() == 1
    with pytest.raises(ValueError):
        s.piece_at("h9")


# ---------------------------------------------------------------- options and errors

def test_the_board_size_is_an_option_from_5_to_11():
    s = vorcept.new_game()
    assert s.size == 7 and len(s.cell_names()) == 49 and s.cell_names()[-1] == "g7"
    big = vorcept.new_game(size=11)
    assert big.cell_names()[-1] == "k11" and "pylon k11" in big.legal_moves()
    for bad in (4, 12, "7", True):
        with pytest.raises(BadPosition, match="size must be an integer from 5 to 11"):
            vorcept.new_game(size=bad)


def test_piece_counts_are_an_option():
    s = vorcept.new_game(pieces={"drone1": 6, "drone3": 1})
    assert s.options()["pieces"] == {"drone1": 6, "drone2": 0, "drone3": 1}
    assert vorcept.new_game().options()["pieces"] == {"drone1": 4, "drone2": 3, "drone3": 2}
    with pytest.raises(BadPosition, match="unknown piece 'drone4'"):
        vorcept.new_game(pieces={"drone4": 1})
    with pytest.raises(BadPosition, match="pieces must be a dict"):
        vorcept.new_game(pieces=[1, 2, 3])
    with pytest.raises(BadPosition, match="count of drone1"):
        vorcept.new_game(pieces={"drone1": -1})


def test_other_options_are_checked():
    with pytest.raises(BadPosition, match="2 players"):
        vorcept.new_game(3)
    with pytest.raises(BadPosition, match="lava_min must be an integer from 0 to 9"):
        vorcept.new_game(lava_min=10)
    with pytest.raises(BadPosition, match="host_only must be true or false"):
        vorcept.new_game(host_only=1)
    with pytest.raises(BadPosition, match="self_capture must be one of forbid, remove"):
        vorcept.new_game(self_capture="keep")
    with pytest.raises(BadPosition, match="max_turns"):
        vorcept.new_game(max_turns=0)
    s = vorcept.new_game(lava_min=0, lava_max=0)
    s.play("pylon d4")
    assert s.phase_name() == "host" and s.to_act() == 0


def test_bad_moves_are_refused_with_a_reason_and_change_nothing():
    s = played_setup()
    text = s.to_json()
    for move, why in (("jump d1 d2", "unknown move word 'jump'"),
                      ("move d1", "takes 2 arguments"),
                      ("move d1 z9", "'z9' is not a cell of the board"),
                      ("move d7 d6", "holds no piece of Blue"),
                      ("concede", "fewer than 3 pieces"),
                      (None, "notation string")):
        with pytest.raises(IllegalMove, match=why):
            s.play(move)
        assert s.to_json() == text


def test_from_json_refuses_corrupt_states():
    good = json.loads(played_setup().to_json())
    for key, value, why in (
            ("board", "......./", "ranks"),
            ("board", good["board"].replace(".", "x", 1), "not one of"),
            ("size", 8, "'board' is 7x7"),
            ("reserves", [[5, 3, 2], [4, 3, 2]], "more drone1"),
            ("phase", 9, "phase"),
            ("end", "host", "exactly when the game is over"),
            ("removed", [3], "pairs"),
            ("acted", 2, "acted"),
            ("rng", 0, "rng"),
            ("host_only", "no", "wrong type")):
        d = dict(good)
        d[key] = value
        with pytest.raises(BadPosition, match=why):
            vorcept.from_json(d)
    d = dict(good)
    del d["turn"]
    with pytest.raises(BadPosition, match="'turn' is missing"):
        vorcept.from_json(d)
    with pytest.raises(BadPosition, match="not JSON"):
        vorcept.from_json("{")
    with pytest.raises(BadPosition, match="not a Vorcept state"):
        vorcept.from_json('{"game": "vora"}')


def test_from_position_refuses_impossible_positions():
    with pytest.raises(BadPosition, match="Red's Host must be on the board"):
        pos({"g7": "."})
    with pytest.raises(BadPosition, match="more than one Host"):
        pos({"b2": "H"})
    with pytest.raises(BadPosition, match="no free neighbour"):
        pos({"a1": "A", "a2": "#", "b1": "#"})
    with pytest.raises(BadPosition, match="three sides of the Pylon"):
        pos({"g1": ".", "d4": "@", "d5": "A", "c4": "A", "e4": "A"})
    with pytest.raises(BadPosition, match="reserves"):
        vorcept.from_position("@....../......./......./......./......./......./H.....h "
                              "0 1 - 4,3/4,3,2")
    with pytest.raises(BadPosition, match="not size 9"):
        vorcept.from_position(pos({}).position(), size=9)
    with pytest.raises(BadPosition, match="the player to act has no action"):
        pos({"a7": ".", "a1": "H", "a2": "#", "b1": "#"}, reserves="1,1,0/4,3,2",
            edge_wall=False)


def test_the_view_tells_the_players_when_a_corner_pylon_switches_its_victory_off():
    # Vorcept 6 and 16 (docs/rules-decisions.md): the Pylon may go in a corner, where
    # "surround the Pylon with three pieces" can never happen; the players are told when
    # it is placed and for the rest of the game, not left to find out.
    import io
    from rich.console import Console
    from vora_host.games import host_game
    view = host_game("vorcept").VIEW

    def shown(state):
        out = io.StringIO()
        Console(file=out, width=100, color_system=None).print(view.render(state))
        return out.getvalue()

    before = vorcept.new_game()
    corner = before.clone()
    corner.play("pylon g7")
    assert "only taking a Host wins" in view.describe(before, corner)
    assert "Pylon is in a corner" in shown(corner)
    middle = before.clone()
    middle.play("pylon d4")
    assert view.describe(before, middle) == "" and "corner" not in shown(middle)
    chosen = vorcept.new_game(host_only=True)  # the variant, chosen: nothing to tell
    chosen.play("pylon g7")
    assert "corner" not in shown(chosen)
    assert "only taking a Host wins" in view.step_help(before)
