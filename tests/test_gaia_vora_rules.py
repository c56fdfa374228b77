"""Gaia-Vora, rule by rule: each test quotes the rulebook sentence it checks
(../shared/rulebooks/gaia-vora.md, and FACTS.md for the geometry) and plays it as a
scenario: position in, move, position out.

Positions are set up with `position()` below: stacks and Life-Forms by name, everything
else derived (the tiles off the planet, the pools: every figure that is neither on the
planet nor on a Fossil Card) and checked by from_json. At rotation 0 the slots hold:
Moon over a, Meteor over b, Rainbow over d, Storm over f, Sun over h. The set-up stacks are
Stone on a c e g and Sand on b d f h.
"""

import random

import pytest

from shared_rules import gaia_vora as g
from shared_rules import games
from shared_rules.errors import BadPosition, IllegalMove

PLAYER_COLOURS = {2: "yellow green", 3: "yellow green white", 4: "yellow green white orange"}


def _lifeforms(text):
    # "green carnivore, white herbivore" -> [(colour, species)]
    out = []
    for item in text.split(","):
        if item.strip():
            colour, species = item.split()
            out.append((g.COLOURS.index(colour), g.SPECIES.index(species)))
    return out


def position(players=2, rot=0, stacks=None, life=None, fossils=None, stars=None, active=0,
             phase="rotate", moved="", **options):
    """A state from a readable description; from_json checks it is a valid one."""
    s = g.new_game(players, **options)
    s.rot = rot
    for p, text in (stacks or {}).items():
        s.stacks[g.POSITIONS.index(p)] = [g.TILES.index(w) for w in text.split()]
    s.home = 0
    for p in range(8):
        if s.stacks[p] and s.stacks[p][0] == g.SETUP_TILES[p] and g.POSITIONS[p] not in moved:
            s.home |= 1 << p
    for t in (g.GRASS, g.SNOW):
        s.supply[t] = g.TILE_COUNTS[t] - sum(st.count(t) for st in s.stacks)
    for loc, text in (life or {}).items():
        i = g.LOCATIONS.index(loc)
        for colour, species in _lifeforms(text):
            s.life[i * 3 + species] = colour
            s.pools[colour * 3 + species] -= 1
    for owner, text in (fossils or {}).items():
        o = g.COLOURS.index(owner)
        for colour, species in _lifeforms(text):
            s.fossils[o * 12 + colour * 3 + species] += 1
            s.pools[colour * 3 + species] -= 1
    if stars is not None:
        s.stars = list(stars)
    s.active = active
    s.phase = g.PHASE_NAMES.index(phase)
    return g.from_json(s.to_json())


def everything_of(colour, but=""):
    """All 12 figures of a colour as a Life-Form list, minus those named in `but`."""
    items = []
    for species, n in zip(g.SPECIES, g.FIGURES):
        items += ["%s %s" % (colour, species)] * n
    for gone in _lifeforms(but):
        items.remove("%s %s" % (g.COLOURS[gone[0]], g.SPECIES[gone[1]]))
    return ", ".join(items)


def life(state, loc):
    return state.lifeforms(loc)


def fossil_card(state, colour):
    return state.fossil_card(g.COLOURS.index(colour))


def pool(state, colour):
    return state.pool(g.COLOURS.index(colour))


def kinds(state, kind):
    return [m for m in state.legal_moves() if m.split()[0] == kind]


# ---------------------------------------------------------------- geometry and setup

def test_the_sky_objects_sit_over_the_diagonal_positions_and_the_moon_at_the_top():
    # FACTS.md: "The Sky Board's four corners hold, clockwise from top-left: Sun, Meteor,
    # Rainbow, Storm; each sits over a diagonal position. The Moon flap sits at the top
    # edge between Sun and Meteor, so it covers the top-centre position."
    assert g.SLOTS == ("n", "ne", "e", "se", "s", "sw", "w", "nw")
    assert dict(zip(g.SLOTS, g.SKY_OBJECTS)) == {
        "n": "moon", "ne": "meteor", "e": "", "se": "rainbow", "s": "", "sw": "storm",
        "w": "", "nw": "sun"}
    s = g.new_game(2)
    assert [s.sky_over(p) for p in range(8)] == list(g.SKY_OBJECTS)  # rotation 0
    assert g.POSITIONS[s.position_under("n")] == "a"


def test_the_planet_turns_clockwise_one_position_per_step():
    # "Each step trips the ratchet-stopper once" and the flap lets the carousel "only
    # rotate clockwise": a position moves from the slot it was under to the next one
    # clockwise, so the position under the Moon is the one that was counter-clockwise of it.
    s = g.new_game(2)
    s.play("rotate 1")
    assert s.rot == 1
    assert s.slot_of(0) == 1  # position a moved from n to ne, under the Meteor
    assert g.POSITIONS[s.position_under("n")] == "h"
    assert s.sky_over(0) == "meteor" and s.sky_over(7) == "moon"


def test_setup_covers_the_water_with_stone_and_sand_alternating():
    # "Cover all the Water around the perimeter of the Planet with Stone and Sand Tiles,
    # alternating." House default: Stone on a, c, e, g.
    s = g.new_game(2)
    assert [s.stack(p) for p in range(8)] == [["stone"], ["sand"]] * 4
    assert s.board()["water"] == {}


def test_snow_and_grass_are_set_aside():
    # "Set aside the Snow and Grass Tiles within reach of the players."
    s = g.new_game(3)
    assert s.board()["supply"] == {"grass": 4, "snow": 3}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_colour_gets_twelve_figures_bots_included(players):
    # "Give each player 12 Life-Form Figures in their color: 3 CarniVores, 4 HerbiVores,
    # and 5 Plants." "For a game with fewer than four players, set up the Fossil Cards
    # and Reincarnation Pools for unused player colors, the Bots."
    s = g.new_game(players)
    for c in range(4):
        assert s.pool(c) == {"carnivore": 3, "herbivore": 4, "plant": 5}
        assert s.fossil_card(c) == {}
    assert s.board()["colours"] == PLAYER_COLOURS[players].split()
    assert len(s.board()["bots"]) == 4 - players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_player_has_four_stars_whatever_the_player_count(players):
    # FACTS.md: "Stars: 4 per player colour (16 in all); a 2-player game gives each
    # player 4 in total." Bots never rotate, so they hold none.
    s = g.new_game(players)
    assert s.stars == [4] * players
    assert g.new_game(players, stars=2).stars == [2] * players


def test_player_zero_rotates_first():
    s = g.new_game(4)
    assert s.to_act() == 0 and s.legal_moves() == ["rotate 1", "rotate 2", "rotate 3"]


# ---------------------------------------------------------------- taking a turn

def test_rotating_two_steps_is_free_one_or_three_steps_cost_a_star():
    # "You must spend a Star to stop at one step, or to rotate the Planet three steps. If
    # you rotate the Planet two steps, you do not need to spend a Star."
    for move, stars, rot in (("rotate 1", 3, 1), ("rotate 2", 4, 2), ("rotate 3", 3, 3)):
        s = g.new_game(2)
        s.play(move)
        assert s.stars == [stars, 4] and s.rot == rot


def test_spent_stars_are_gone():
    # "Once spent, Stars are gone for the rest of the game."
    s = position(stars=[0, 4])
    assert s.legal_moves() == ["rotate 2"]
    with pytest.raises(IllegalMove, match="no Star left"):
        s.play("rotate 3")
    assert s.stars == [0, 4]


def test_players_take_turns_in_clockwise_order():
    # "Players take turns in clockwise order." "After resolving the Sky Object you chose,
    # play passes to the next player."
    s = g.new_game(3)
    order = []
    for _ in range(4):
        order.append(s.to_act())
        s.play("rotate 2")
        s.play("meteor stone a" if "meteor stone a" in s.legal_moves() else "meteor grass")
    assert order == [0, 1, 2, 0]
    assert s.turn_count() == 4 and s.to_act() == 1


def test_the_turn_is_a_rotation_then_one_sky_object():
    # "Begin your turn by rotating the Planet Carousel." "End your turn by activating the
    # Sun, Rainbow, Storm, or Meteor." "You may only activate one of these Sky Objects
    # per turn."
    s = g.new_game(2)
    with pytest.raises(IllegalMove, match="now is the time to rotate"):
        s.play("meteor grass")
    s.play("rotate 2")
    assert {m.split()[0] for m in s.legal_moves()} == {"sun", "rainbow", "meteor"}
    with pytest.raises(IllegalMove, match="now is the time to activate a Sky Object"):
        s.play("rotate 2")
    s.play("sun plant water")
    assert s.phase == g.PHASE_SUN  # more of the Sun's Life-Forms to place
    with pytest.raises(IllegalMove, match="place the Sun's next Life-Form"):
        s.play("meteor grass")


def test_the_moon_cannot_be_chosen():
    # "You may not select the Moon, because the Moon always activates its power."
    s = g.new_game(2)
    s.play("rotate 2")
    with pytest.raises(IllegalMove, match="unknown move word 'moon'"):
        s.play("moon water")


def test_a_sky_object_that_would_change_nothing_cannot_be_selected():
    # "You are not allowed to select a Sky Object whose activation would cause nothing to
    # change." At the start the Storm is over an empty tile: it offers no move.
    s = g.new_game(2)
    s.play("rotate 2")
    assert kinds(s, "storm") == []
    with pytest.raises(IllegalMove, match="no plant stands on d, the tile under the Storm"):
        s.play("storm plant water")
    # A player whose pool is empty cannot choose the Sun.
    t = position(players=2, life={}, fossils={"green": everything_of("yellow")},
                 phase="sky")
    assert kinds(t, "sun") == [] and kinds(t, "rainbow")
    with pytest.raises(IllegalMove, match="Reincarnation Pool has no plant"):
        t.play("sun plant water")


def test_a_turn_where_no_sky_object_can_act_ends_after_the_rotation():
    # House rule: the rulebook does not say what happens when every Sky Object would
    # change nothing; the turn ends after the rotation. Here every figure is on a Fossil
    # Card, the Storm has nothing to move and at rotation 2 the Meteor is over h, which
    # holds Sand, Stone and Snow while only Snow is left off the planet.
    stacks = {"a": "stone grass", "b": "sand grass", "c": "stone grass", "d": "sand snow",
              "g": "", "h": "sand stone grass snow"}
    fossils = {"yellow": ", ".join(everything_of(c) for c in ("green", "white", "orange")),
               "green": everything_of("yellow")}
    s = position(players=2, stacks=stacks, fossils=fossils)
    s.play("rotate 2")
    assert s.to_act() == 1 and s.phase == g.PHASE_ROTATE and s.turn_count() == 1
    # Rotating one step instead brings a (Stone and Grass) under the Meteor: the Snow
    # fits, and so does f's Sand.
    t = position(players=2, stacks=stacks, fossils=fossils)
    t.play("rotate 1")
    assert t.legal_moves() == ["meteor sand f", "meteor snow"]


def test_a_turn_whose_only_sky_object_would_change_nothing_ends_after_the_rotation():
    # Entries 7 and 8 together: after "rotate 2" the Moon is over the Water (g is
    # uncovered), where a Yellow HerbiVore stands. Yellow's one Plant is the only figure
    # left in any pool; the Sun (over f) and the Rainbow (over b) find a Plant on every
    # tile they touch, so either could only put it in the Water, to be eaten straight
    # back: "you are not allowed to select a Sky Object whose activation would cause
    # nothing to change". The Storm has nothing to move and no tile fits under the
    # Meteor, so the turn ends after the rotation.
    stacks = {"a": "stone grass", "b": "sand grass", "c": "stone grass", "d": "sand snow",
              "g": "", "h": "sand stone grass snow"}
    standing = {"a": "white plant", "b": "white plant", "c": "white plant",
                "e": "white plant", "f": "white plant", "water": "yellow herbivore"}
    fossils = {"yellow": ", ".join([everything_of("green"), everything_of("orange"),
                                    everything_of("white", but="white plant, white plant, "
                                                  "white plant, white plant, white plant")]),
               "green": everything_of("yellow", but="yellow plant, yellow herbivore")}
    s = position(players=2, stacks=stacks, life=standing, fossils=fossils)
    s.play("rotate 2")
    assert s.to_act() == 1 and s.phase == g.PHASE_ROTATE and s.turn_count() == 1
    assert pool(s, "yellow")["plant"] == 1 and life(s, "water") == {"herbivore": "yellow"}


def test_the_most_steps_must_be_done():
    # "You are required to take as many steps as you can. If taking the steps in a
    # different order would result in subsequent steps being impossible, you must take
    # steps in whichever order lets you do the most."
    # Yellow's pool holds one HerbiVore and one Plant. The Sun over h touches h (room for
    # a Plant only), g (a Plant or a HerbiVore) and a (a Plant only; the Water is full).
    # A Plant on g would leave the HerbiVore nowhere to go.
    s = position(
        players=2, phase="sky",
        life={"a": "green herbivore", "h": "green carnivore, green herbivore",
              "g": "green carnivore", "water": "green carnivore, green herbivore, green plant"},
        fossils={"green": everything_of("yellow", but="yellow herbivore, yellow plant")})
    assert kinds(s, "sun") == ["sun herbivore g", "sun plant a", "sun plant h"]
    with pytest.raises(IllegalMove, match="as many steps as you can .2 Life-Forms placed"):
        s.play("sun plant g")
    s.play("sun plant h")
    assert s.legal_moves() == ["sun herbivore g"]
    s.play("sun herbivore g")
    assert s.to_act() == 1


def test_carry_out_a_sky_object_as_much_as_possible():
    # "If it is not possible to completely fulfill the instructions of a Sky Object, carry
    # them out as much as possible. Skip any steps that are impossible." Yellow has one
    # figure left: the Sun places it and the turn ends.
    s = position(players=2, phase="sky",
                 fossils={"green": everything_of("yellow", but="yellow plant")})
    s.play("sun plant water")
    assert s.to_act() == 1 and life(s, "water") == {"plant": "yellow"}


# ---------------------------------------------------------------- the Sun and the Rainbow

def test_the_sun_adds_four_of_your_own_life_forms_under_it_and_on_the_touching_tiles():
    # "add four Life-Forms ...: one on the Tile directly under the Sun or Rainbow, and one
    # on the visible surface of each Tile touching that Tile, including Water." "If using
    # the Sun, all four Life-Forms must be your own color." FACTS.md: touching is the
    # next position clockwise, the next counter-clockwise, and the Water.
    s = position(players=2, phase="sky")  # the Sun over h
    suns = kinds(s, "sun")
    assert {m.split()[2] for m in suns} == {"g", "h", "a", "water"}
    assert len(suns) == 4 * 3
    for move in ("sun carnivore h", "sun herbivore g", "sun plant a"):
        s.play(move)
        assert s.to_act() == 0
    with pytest.raises(IllegalMove, match="already placed a Life-Form on h"):
        s.play("sun plant h")
    with pytest.raises(IllegalMove, match="b does not touch the tile under the Sun"):
        s.play("sun plant b")
    s.play("sun plant water")
    assert s.to_act() == 1
    assert [life(s, x) for x in ("h", "g", "a", "water")] == [
        {"carnivore": "yellow"}, {"herbivore": "yellow"}, {"plant": "yellow"},
        {"plant": "yellow"}]
    assert pool(s, "yellow") == {"carnivore": 2, "herbivore": 3, "plant": 3}


def test_the_rainbow_adds_four_life_forms_of_different_colours_bots_included():
    # "If using the Rainbow, all four Life-Forms must be in different colors." "Bot
    # Life-Forms are available to place on the Planet using the Rainbow."
    s = position(players=2, phase="sky")  # the Rainbow over d: c, d, e and the Water
    s.play("rainbow white plant d")
    assert s.phase == g.PHASE_RAINBOW
    with pytest.raises(IllegalMove, match="already placed a white Life-Form"):
        s.play("rainbow white carnivore c")
    s.play("rainbow orange carnivore c")
    s.play("rainbow yellow herbivore e")
    assert s.legal_moves() == ["rainbow green %s water" % sp for sp in
                               ("carnivore", "herbivore", "plant")]
    s.play("rainbow green herbivore water")
    assert s.to_act() == 1
    assert pool(s, "white")["plant"] == 4 and pool(s, "orange")["carnivore"] == 2
    assert s.board()["slots"][3]["life"] == {"plant": "white"}  # se: d at rotation 0


def test_the_rainbow_places_as_many_colours_as_it_can():
    # Green's pool holds only Plants, White's and Orange's are empty. e has room for a
    # HerbiVore only, the Water for a HerbiVore or a Plant: Green's Plant must go to the
    # Water, so Yellow must take e.
    s = position(
        players=2, phase="sky",
        life={"c": "white carnivore, white herbivore, white plant",
              "d": "orange carnivore, orange herbivore, orange plant",
              "e": "yellow carnivore, yellow plant", "water": "green carnivore"},
        fossils={"yellow": everything_of("white", but="white carnivore, white herbivore, "
                                                      "white plant")
                 + ", " + everything_of("orange", but="orange carnivore, orange herbivore, "
                                                      "orange plant")
                 + ", green carnivore, green carnivore, " + ", ".join(["green herbivore"] * 4)})
    assert kinds(s, "rainbow") == ["rainbow green plant water", "rainbow yellow herbivore e"]
    with pytest.raises(IllegalMove, match="as many steps as you can"):
        s.play("rainbow yellow herbivore water")
    s.play("rainbow green plant water")
    s.play("rainbow yellow herbivore e")
    assert s.to_act() == 1


def test_each_tile_may_only_have_one_of_each_species():
    # "Each Tile may only have one of each species standing on it. That means you might
    # not place the maximum possible number of Life-Forms, if there is not room."
    s = position(players=2, phase="sky",
                 life={"h": "green plant", "g": "green plant", "a": "green plant",
                       "water": "green plant"},
                 fossils={"green": everything_of("yellow", but="yellow plant, yellow plant")})
    assert kinds(s, "sun") == []  # only Plants in the pool, and no room for a Plant
    with pytest.raises(IllegalMove, match="water already has a plant"):
        s.play("sun plant water")


def test_the_water_is_one_big_tile():
    # "The uncovered surface of the Planet Carousel is one big Water Tile ... check if any
    # the Water already contains the species you are trying to add to the Water." The
    # position counter-clockwise of the Sun (g) is uncovered: it is the Water, so the Sun
    # has three locations, not four.
    s = position(players=2, phase="sky", stacks={"g": "", "b": "sand stone"})
    assert {m.split()[2] for m in kinds(s, "sun")} == {"h", "a", "water"}
    with pytest.raises(IllegalMove, match="position g is uncovered: it is part of the Water"):
        s.play("sun plant g")
    s.play("sun plant water")
    s.play("sun plant h")
    s.play("sun plant a")
    assert s.to_act() == 1  # three places: the turn is over


def test_a_sun_over_the_water_may_place_anywhere():
    # "If the Sun or Rainbow are over the exposed edge of the Water ... all of the
    # locations on the Planet qualify ... You may choose which four locations receive the
    # four Life-Forms, and which do not."
    s = position(players=2, phase="sky", stacks={"h": "", "c": "stone sand"})
    suns = kinds(s, "sun")
    assert {m.split()[2] for m in suns} == set("abcdefg") | {"water"}
    for move in ("sun carnivore c", "sun plant e", "sun herbivore b"):
        s.play(move)
    assert {m.split()[2] for m in s.legal_moves()} == set("adfg") | {"water"}
    s.play("sun plant water")
    assert s.to_act() == 1


# ---------------------------------------------------------------- the Storm

def storm_position(life=None):
    # The Storm over f (rotation 0) with a Yellow CarniVore and a White Plant; next to it
    # e and g, and the Water.
    return position(players=3, phase="sky", life=life or {"f": "yellow carnivore, white plant"})


def test_the_storm_moves_every_life_form_out_to_the_next_tiles_or_the_water():
    # "move all Life-Forms out of the Tile under the Storm. Move them into any Tiles that
    # Tile is next to, which may include Water." "You must move out all the Life-Forms,
    # even if you do not want to move all of them."
    s = storm_position()
    assert kinds(s, "storm") == ["storm %s %s" % (sp, loc) for sp in ("carnivore", "plant")
                                 for loc in ("e", "g", "water")]
    s.play("storm plant e")
    assert s.phase == g.PHASE_STORM and s.to_act() == 0
    assert s.legal_moves() == ["storm carnivore e", "storm carnivore g", "storm carnivore water"]
    with pytest.raises(IllegalMove, match="d is not next to f"):
        s.play("storm carnivore d")
    s.play("storm carnivore g")
    assert s.to_act() == 1
    assert life(s, "f") == {} and life(s, "e") == {"plant": "white"}
    assert life(s, "g") == {"carnivore": "yellow"}


def test_a_life_form_may_not_move_onto_a_tile_which_already_has_its_species():
    # "A Life-Form may not move onto a Tile which already has its species." "It may always
    # move onto the uncovered Water surface of the Planet Carousel, if its species is not
    # already there."
    s = storm_position(life={"f": "yellow carnivore, white plant", "e": "green plant",
                             "g": "green plant, green carnivore", "water": "green carnivore"})
    assert kinds(s, "storm") == ["storm carnivore e", "storm plant water"]
    with pytest.raises(IllegalMove, match="g already has a plant"):
        s.play("storm plant g")


def test_a_life_form_with_nowhere_to_go_stays():
    # The White Plant has no free tile: the Storm moves the CarniVore only, "as much as
    # possible".
    s = storm_position(life={"f": "yellow carnivore, white plant", "e": "green plant",
                             "g": "green plant", "water": "yellow plant"})
    assert kinds(s, "storm") == ["storm carnivore e", "storm carnivore g",
                                 "storm carnivore water"]
    s.play("storm carnivore water")
    assert s.to_act() == 1 and life(s, "f") == {"plant": "white"}


def test_a_storm_over_the_water_moves_its_life_forms_onto_any_land():
    # "(The Water is next to everything.)"
    s = position(players=2, phase="sky", stacks={"f": "", "a": "stone sand"},
                 life={"water": "green herbivore", "c": "yellow herbivore"})
    assert kinds(s, "storm") == ["storm herbivore %s" % p for p in "abdegh"]
    s.play("storm herbivore h")
    assert life(s, "water") == {} and life(s, "h") == {"herbivore": "green"}


# ---------------------------------------------------------------- the Meteor

def test_the_meteor_drops_snow_or_grass_from_off_the_board():
    # "It may be a Snow or Grass Land Tile which is off the board." The Meteor is over b.
    s = position(players=2, phase="sky")
    assert kinds(s, "meteor") == ["meteor grass", "meteor snow", "meteor stone a",
                                  "meteor stone c", "meteor stone e", "meteor stone g"]
    s.play("meteor snow")
    assert s.stack(1) == ["sand", "snow"] and s.board()["supply"] == {"grass": 4, "snow": 2}
    assert s.to_act() == 1


def test_the_meteor_never_makes_a_stack_with_two_alike_tiles():
    # "You may not create a stack with duplicates of the same Tile."
    s = position(players=2, phase="sky", stacks={"b": "sand grass"})
    assert "meteor grass" not in kinds(s, "meteor")
    with pytest.raises(IllegalMove, match="already has a grass Tile"):
        s.play("meteor grass")
    with pytest.raises(IllegalMove, match="already has a sand Tile"):
        s.play("meteor sand d")


def test_the_meteor_moves_a_single_sand_or_stone_tile_with_its_riders():
    # "It may be a single Sand or Stone Tile, from its starting location on the Planet.
    # All the Life-forms standing on it are carried along, and live in the new location."
    # "Water will expand all the way to the edge of the Planet Carousel when Land Tiles of
    # Stone and Sand stack on other Tiles."
    s = position(players=2, phase="sky", life={"c": "white plant, green carnivore"})
    s.play("meteor stone c")
    assert s.stack(1) == ["sand", "stone"] and s.stack(2) == []
    assert life(s, "b") == {"carnivore": "green", "plant": "white"}
    assert s.location_of(2) == g.WATER and life(s, "water") == {}


def test_only_a_tile_still_alone_at_its_starting_location_can_be_moved():
    # House reading of "a single Sand or Stone Tile, from its starting location": a tile
    # with another on top is not single, and a tile that has moved is not at its start.
    s = position(players=2, phase="sky", stacks={"a": "stone snow"})
    assert "meteor stone a" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="position a holds stone.snow"):
        s.play("meteor stone a")
    # A Stone moved onto the bare Water at b is alone there, but not where it started.
    # At rotation 2 the Meteor is over h (Sand).
    t = position(players=3, rot=2, phase="sky", stacks={"b": "stone", "c": "", "e": "stone sand"})
    assert kinds(t, "meteor") == ["meteor grass", "meteor snow", "meteor stone a",
                                  "meteor stone g"]
    with pytest.raises(IllegalMove, match="position b holds stone"):
        t.play("meteor stone b")


def test_a_moved_tile_never_moves_again():
    # b is uncovered (its Sand is on c): the Meteor over b drops a's Stone onto the Water.
    s = position(players=2, phase="sky", stacks={"b": "", "c": "stone sand"})
    s.play("meteor stone a")
    assert s.stack(1) == ["stone"] and s.stack(0) == []
    s.play("rotate 2")  # the Meteor over h (Sand): b's Stone is alone but not at its start
    assert kinds(s, "meteor") == ["meteor grass", "meteor snow", "meteor stone e",
                                  "meteor stone g"]


def test_the_meteor_kills_what_stands_where_its_tile_lands():
    # "The Life-Forms which were standing on the Tile where this Tile landed are all
    # killed by this Tile falling on them. The killed Life-Forms go onto the Fossil area
    # on the Fossil Card of the player whose turn it is." Your own go back to your pool
    # (house default, option own_kills): "A Fossil area is only for keeping one's
    # opponents' Life-Forms, not one's own."
    s = position(players=2, phase="sky",
                 life={"b": "green carnivore, yellow herbivore, orange plant"})
    s.play("meteor grass")
    assert life(s, "b") == {}
    assert fossil_card(s, "yellow") == {"green": {"carnivore": 1}, "orange": {"plant": 1}}
    assert pool(s, "yellow")["herbivore"] == 4
    t = position(players=2, phase="sky", own_kills="fossil",
                 life={"b": "green carnivore, yellow herbivore, orange plant"})
    t.play("meteor grass")
    assert fossil_card(t, "yellow") == {"green": {"carnivore": 1}, "orange": {"plant": 1},
                                        "yellow": {"herbivore": 1}}
    assert t.scores()[0] == 3
    assert g.from_json(t.to_json()) == t  # a card may hold its own colour with this option


def test_life_forms_in_the_water_survive_a_tile_dropped_on_the_water():
    # "Water is an exception: Life-Forms in the Water will always swim into the center of
    # the Planet ... and survive the Meteor dropping a Tile on Water." b is uncovered (its
    # Sand is on c): the Meteor drops e's Stone onto the Water there.
    s = position(players=2, phase="sky", stacks={"b": "", "c": "stone sand"},
                 life={"water": "green carnivore, yellow plant", "c": "white herbivore"})
    s.play("meteor stone e")
    assert s.stack(1) == ["stone"] and s.stack(4) == []
    assert life(s, "water") == {"carnivore": "green", "plant": "yellow"}
    assert fossil_card(s, "yellow") == {}


# ---------------------------------------------------------------- the Moon

EXAMPLE = dict(
    players=3, stacks={"f": "", "a": "stone sand"},
    life={"h": "green carnivore, white herbivore, yellow plant",
          "g": "yellow carnivore, yellow plant",
          "c": "yellow carnivore, white plant",
          "water": "yellow herbivore, green plant"})


def test_example_first_rotation_step():
    # "On the first rotation step, a Land Tile rotates into position under the Moon. It
    # has a Green CarniVore, a White HerbiVore, and a Yellow Plant. The White player is
    # awarded the Yellow Plant, and the Green player is awarded the White HerbiVore."
    s = position(**EXAMPLE)
    s.play("rotate 1")
    assert g.POSITIONS[s.position_under("n")] == "h"
    assert fossil_card(s, "white") == {"yellow": {"plant": 1}}
    assert fossil_card(s, "green") == {"white": {"herbivore": 1}}
    assert life(s, "h") == {"carnivore": "green"}
    assert fossil_card(s, "yellow") == {}


def test_example_second_rotation_step():
    # "On the second rotation step, a Land Tile rotates into position under the Moon,
    # which has a Yellow CarniVore and a Yellow Plant. CarniVores do not eat Plants, so
    # nothing gets eaten here."
    s = position(**EXAMPLE)
    s.play("rotate 2")
    assert g.POSITIONS[s.position_under("n")] == "g"
    assert life(s, "g") == {"carnivore": "yellow", "plant": "yellow"}
    assert fossil_card(s, "white") == {"yellow": {"plant": 1}}  # from the first step only
    assert life(s, "water") == {"herbivore": "yellow", "plant": "green"}


def test_example_third_step_and_the_storm():
    # "On the third rotation step ... what rotates under the Moon is the bare surface of
    # the Planet Carousel, which is Water. So, eating occurs in the Water. There is a
    # Yellow HerbiVore and a Green Plant in the Water. Yellow is awarded the Green Plant."
    s = position(**EXAMPLE)
    s.play("rotate 3")
    assert s.stars == [3, 4, 4]
    assert s.location_of(s.position_under("n")) == g.WATER
    assert life(s, "water") == {"herbivore": "yellow"}
    assert fossil_card(s, "yellow") == {"green": {"plant": 1}}
    # "Yellow activates Storm. The Storm is over a Land Tile with a Yellow CarniVore and a
    # White Plant. Yellow moves them both of them into the Water."
    assert g.POSITIONS[s.position_under("sw")] == "c"
    assert "storm plant water" in s.legal_moves() and "storm carnivore water" in s.legal_moves()
    s.play("storm plant water")
    s.play("storm carnivore water")
    # "The Yellow HerbiVore ... awards the White Plant to Yellow. Then the Yellow CarniVore
    # eats the Yellow HerbiVore." "Because it is Yellow's own color, it is returned to its
    # reincarnation pool, not awarded as points in Yellow's Fossils."
    assert fossil_card(s, "yellow") == {"green": {"plant": 1}, "white": {"plant": 1}}
    assert life(s, "water") == {"carnivore": "yellow"}
    assert pool(s, "yellow") == {"carnivore": 1, "herbivore": 4, "plant": 3}
    assert s.to_act() == 1
    # Yellow now: 2 fossils, a CarniVore in the Water (1), a CarniVore and a Plant on g's
    # single Stone (2 each).
    assert s.scores()[0] == 2 + 1 + 2 + 2


def test_example_storm_order_does_not_matter_when_the_moon_eats_at_the_end():
    # House default (moon_eats "end"): the Life-Forms a Sky Object brings under the Moon
    # arrive together and the Moon eats once the Sky Object is resolved, as the example
    # tells it. Moving the CarniVore first gives the same result.
    a = position(**EXAMPLE)
    b = position(**EXAMPLE)
    for s, order in ((a, ("plant", "carnivore")), (b, ("carnivore", "plant"))):
        s.play("rotate 3")
        for sp in order:
            s.play("storm %s water" % sp)
    assert a == b


def test_with_moon_eats_each_the_moon_eats_after_every_life_form():
    # Option moon_eats "each": "Eating also occurs instantly when a player uses the Storm
    # to move Life-Forms into the Water when it is under the Moon", one Life-Form at a time.
    first_carnivore = position(moon_eats="each", **EXAMPLE)
    first_carnivore.play("rotate 3")
    first_carnivore.play("storm carnivore water")
    # The CarniVore eats the HerbiVore at once: back to Yellow's pool.
    assert life(first_carnivore, "water") == {"carnivore": "yellow"}
    first_carnivore.play("storm plant water")
    assert life(first_carnivore, "water") == {"carnivore": "yellow", "plant": "white"}
    assert fossil_card(first_carnivore, "yellow") == {"green": {"plant": 1}}
    first_plant = position(moon_eats="each", **EXAMPLE)
    first_plant.play("rotate 3")
    first_plant.play("storm plant water")
    assert fossil_card(first_plant, "yellow") == {"green": {"plant": 1}, "white": {"plant": 1}}
    first_plant.play("storm carnivore water")
    assert life(first_plant, "water") == {"carnivore": "yellow"}


def test_with_moon_eats_each_the_order_that_lets_you_do_the_most_is_required():
    # "If taking the steps in a different order would result in subsequent steps being
    # impossible, you must take steps in whichever order lets you do the most." At
    # rotation 3 the Storm is over c (a Yellow HerbiVore and a Yellow Plant) and the Moon
    # over the Water (f is uncovered), which holds a Green Plant. Next to c: b (no room
    # for either), d (room for the HerbiVore) and the Water.
    base = dict(players=2, rot=3, stacks={"f": "", "a": "stone sand"},
                life={"c": "yellow herbivore, yellow plant",
                      "water": "green plant",
                      "b": "green herbivore, green plant",
                      "d": "green carnivore, green plant"},
                phase="sky")
    s = position(moon_eats="each", **base)
    # The Plant can only go to the Water, which holds a Plant; the HerbiVore can go to d
    # or the Water. Moving the HerbiVore into the Water first lets it eat the Green Plant
    # at once, making room for the Plant: 2 steps. The HerbiVore to d: only 1.
    assert kinds(s, "storm") == ["storm herbivore water"]
    with pytest.raises(IllegalMove, match="as many steps as you can .2 Life-Forms moved"):
        s.play("storm herbivore d")
    s.play("storm herbivore water")
    assert fossil_card(s, "yellow") == {"green": {"plant": 1}}
    assert s.legal_moves() == ["storm plant water"]
    s.play("storm plant water")
    # The Yellow HerbiVore eats the Yellow Plant at once: back to the pool.
    assert life(s, "water") == {"herbivore": "yellow"}
    assert pool(s, "yellow")["plant"] == 5
    # When the Moon eats at the end, the Plant can never move: both HerbiVore moves count.
    t = position(**base)
    assert kinds(t, "storm") == ["storm herbivore d", "storm herbivore water"]


def test_herbivore_eats_plant_then_carnivore_eats_herbivore():
    # "The player who owns the HerbiVore (if any) awards its player with ownership of the
    # Plant (if any). Then the player who owns the CarniVore (if any) awards its player
    # with ownership of the HerbiVore (if any)." "Plants do not eat anything. Nothing eats
    # CarniVores; they cannot be eaten."
    s = position(players=4, life={"h": "orange carnivore, green herbivore, white plant"})
    s.play("rotate 1")
    assert fossil_card(s, "green") == {"white": {"plant": 1}}
    assert fossil_card(s, "orange") == {"green": {"herbivore": 1}}
    assert life(s, "h") == {"carnivore": "orange"}
    t = position(players=2, life={"h": "green carnivore, white plant"})
    t.play("rotate 1")
    assert life(t, "h") == {"carnivore": "green", "plant": "white"}


def test_eaten_life_forms_go_to_the_eater_even_off_its_turn_and_to_bots():
    # "the eaten Life-Form is awarded to the player whose color did the eating, even if
    # that is not the player whose turn it is." "When a Bot player's Life-Forms eat other
    # Life-Forms, put them on the Fossil area on the Bot player's Fossil Card."
    s = position(players=2, life={"h": "white herbivore, green plant"})  # white is a Bot
    s.play("rotate 1")
    assert fossil_card(s, "white") == {"green": {"plant": 1}}
    assert s.scores() == [0, 0] and s.colour_score(2) == 1 + 2  # a fossil, a HerbiVore on h


def test_life_forms_eaten_by_their_own_colour_go_back_to_the_pool():
    # "Life-Forms are also able eat Life-Forms of the same color. They are required to do
    # so" "If your Life-Forms are eaten by your own Life-Forms, return them to your
    # Reincarnation Pool instead of putting them on your Fossil Card."
    s = position(players=2, life={"h": "green carnivore, green herbivore, green plant"})
    s.play("rotate 1")
    assert life(s, "h") == {"carnivore": "green"}
    assert fossil_card(s, "green") == {}
    assert pool(s, "green") == {"carnivore": 2, "herbivore": 4, "plant": 5}


def test_the_moon_eats_after_every_step_not_only_where_the_rotation_stops():
    # "it activates itself to cause Eating in the location under it, at the end of each
    # turn, and after every rotation step of the planet." h passes under the Moon during
    # a two-step rotation and g ends there: both eat.
    s = position(players=2, life={"h": "green herbivore, yellow plant",
                                  "g": "yellow herbivore, green plant"})
    s.play("rotate 2")
    assert fossil_card(s, "green") == {"yellow": {"plant": 1}}
    assert fossil_card(s, "yellow") == {"green": {"plant": 1}}


def test_the_moon_eats_at_the_end_of_the_turn():
    # "Eating also occurs instantly when a player uses the Sun or Rainbow to add
    # Life-Forms into the Water when it is under the Moon". The Water is under the Moon
    # (a is uncovered) with a Green HerbiVore: a Yellow Plant placed there is eaten before
    # the turn passes.
    s = position(players=2, phase="sky", stacks={"a": "", "b": "sand stone"},
                 life={"water": "green herbivore"},
                 fossils={"green": everything_of("yellow", but="yellow plant")})
    s.play("sun plant water")
    assert s.to_act() == 1
    assert life(s, "water") == {"herbivore": "green"}
    assert fossil_card(s, "green")["yellow"]["plant"] == 5


def test_with_moon_eats_each_a_figure_eaten_by_its_own_colour_can_be_placed_again():
    # Yellow has one Plant; the Water under the Moon holds a Yellow HerbiVore. With
    # moon_eats "each", a Plant in the Water is eaten at once and back in the pool, so the
    # Sun can place it again: the Water first is the order that lets Yellow do the most.
    base = dict(players=2, phase="sky", stacks={"a": "", "b": "sand stone"},
                life={"water": "yellow herbivore", "g": "green plant"},
                fossils={"green": everything_of("yellow", but="yellow plant, yellow herbivore")})
    s = position(moon_eats="each", **base)
    assert kinds(s, "sun") == ["sun plant water"]
    s.play("sun plant water")
    assert pool(s, "yellow")["plant"] == 1 and s.phase == g.PHASE_SUN
    assert s.legal_moves() == ["sun plant h"]
    s.play("sun plant h")
    assert s.to_act() == 1
    t = position(**base)  # the Moon eats at the end: one Plant, one place
    assert kinds(t, "sun") == ["sun plant h"]  # the Water would eat it back (entry 7)
    t.play("sun plant h")
    assert t.to_act() == 1 and pool(t, "yellow")["plant"] == 0


@pytest.mark.parametrize("moon_eats", ["end", "each"])
def test_a_sun_whose_one_life_form_is_eaten_back_at_once_cannot_be_selected(moon_eats):
    # "You are not allowed to select a Sky Object whose activation would cause nothing to
    # change." Yellow's only Plant can go nowhere but the Water, under the Moon, where a
    # Yellow HerbiVore eats it back into Yellow's pool: the planet, the pools and the
    # Fossil Cards would be as they were, so the Sun is not offered.
    s = position(players=2, phase="sky", moon_eats=moon_eats,
                 stacks={"a": "", "b": "sand stone"},
                 life={"water": "yellow herbivore", "g": "green plant", "h": "white plant"},
                 fossils={"green": everything_of("yellow", but="yellow plant, yellow herbivore")})
    assert kinds(s, "sun") == [] and kinds(s, "rainbow")
    with pytest.raises(IllegalMove, match="the Sun would change nothing"):
        s.play("sun plant water")
    assert pool(s, "yellow") == {"carnivore": 0, "herbivore": 0, "plant": 1}
    # A Green HerbiVore there instead eats the Plant onto Green's card: that changes
    # something, so the same Sun may be selected.
    t = position(players=2, phase="sky", moon_eats=moon_eats,
                 stacks={"a": "", "b": "sand stone"},
                 life={"water": "green herbivore", "g": "green plant", "h": "white plant"},
                 fossils={"green": everything_of("yellow", but="yellow plant")})
    assert kinds(t, "sun") == ["sun plant water"]


def test_a_rainbow_whose_one_life_form_is_eaten_back_at_once_cannot_be_selected():
    # The same sentence for the Rainbow: its one possible Life-Form, a Yellow Plant under
    # the Moon beside a Yellow HerbiVore, would go straight back to Yellow's pool.
    # The Rainbow (over d) also touches c, d and e, where Plants stand already.
    everyone_else = ", ".join(everything_of(c, but=c + " plant")
                              for c in ("green", "white", "orange"))
    s = position(players=2, phase="sky", stacks={"a": "", "b": "sand stone"},
                 life={"water": "yellow herbivore", "c": "green plant", "d": "white plant",
                       "e": "orange plant"},
                 fossils={"yellow": everyone_else,
                          "green": everything_of("yellow", but="yellow plant, yellow herbivore")})
    assert kinds(s, "rainbow") == []
    with pytest.raises(IllegalMove, match="the Rainbow would change nothing"):
        s.play("rainbow yellow plant water")


def test_water_uncovered_under_the_moon_eats_at_the_end_of_the_turn():
    # "Water will expand all the way to the edge of the Planet Carousel when Land Tiles of
    # Stone and Sand stack on other Tiles ... Whenever an exposed Water edge is under the
    # Moon's position, Eating occurs in the Water." The Meteor (over b) takes a's Stone
    # from under the Moon: the Water is under the Moon when the turn ends.
    s = position(players=2, phase="sky", life={"water": "green herbivore, yellow plant",
                                               "a": "white carnivore"})
    s.play("meteor stone a")
    assert s.location_of(0) == g.WATER and life(s, "b") == {"carnivore": "white"}
    assert life(s, "water") == {"herbivore": "green"}
    assert fossil_card(s, "green") == {"yellow": {"plant": 1}}


def test_the_board_dict_gives_a_renderer_everything():
    # For the host's terminal view and the 7x7 keys: what is under each slot of the Sky
    # Board, stacks, Life-Forms, pools, fossils, Stars, whose turn and which step.
    s = position(players=3, rot=2, stacks={"b": "", "c": "stone sand"},
                 life={"c": "green plant", "water": "yellow carnivore"},
                 fossils={"white": "green herbivore"}, stars=[4, 3, 2])
    s.play("rotate 2")
    b = s.board()
    assert [(x["slot"], x["sky"], x["position"]) for x in b["slots"]] == [
        ("n", "moon", "e"), ("ne", "meteor", "f"), ("e", "", "g"), ("se", "rainbow", "h"),
        ("s", "", "a"), ("sw", "storm", "b"), ("w", "", "c"), ("nw", "sun", "d")]
    assert b["slots"][5]["location"] == "water" and b["slots"][5]["stack"] == []
    assert b["slots"][6]["stack"] == ["stone", "sand"] and b["slots"][6]["altitude"] == 3
    assert b["slots"][6]["life"] == {"plant": "green"}
    assert b["water"] == {"carnivore": "yellow"}
    assert b["phase"] == "sky" and b["to_act"] == 0 and b["turn"] == 0 and b["rotation"] == 4
    assert b["colours"] == ["yellow", "green", "white"] and b["bots"] == ["orange"]
    assert b["pools"]["green"] == {"carnivore": 3, "herbivore": 3, "plant": 4}
    assert b["fossils"]["white"] == {"green": {"herbivore": 1}}
    assert b["stars"] == [4, 3, 2] and b["supply"] == {"grass": 4, "snow": 3}
    assert b["scores"] == {"yellow": 1, "green": 3, "white": 1, "orange": 0}
    s.play("sun plant water")
    assert s.board()["phase"] == "sun" and s.board()["placed_on"] == ["water"]
    import json
    assert json.loads(json.dumps(b)) == b


# ---------------------------------------------------------------- the end and scoring

def test_the_last_grass_tile_ends_the_game():
    # "The game is over at the end of the turn when all the Snow and Grass Tiles are on
    # the Planet" / "The game is over when the last Land Tile is added to the Planet."
    s = position(players=2, stacks={"a": "stone grass snow", "c": "stone grass snow",
                                    "e": "stone grass snow", "g": "stone"},
                 life={"water": "yellow plant"}, phase="sky")
    assert s.board()["supply"] == {"grass": 1, "snow": 0}
    s.play("meteor grass")
    assert s.is_over() and s.end_reason() == "tiles" and s.to_act() is None
    assert s.legal_moves() == [] and s.turn_count() == 1
    with pytest.raises(IllegalMove, match="the game is over"):
        s.play("rotate 2")
    assert s.scores() == [1, 0] and s.winner() == 0


def test_scores_count_fossils_and_altitude():
    # "Each of your opponents' Life-Forms you killed and placed on your Fossil Card adds
    # one point to your score." "Each of your Life-Forms alive on the Planet adds one point
    # to your score, for each Tile under it, including the Planet Carousel itself. So each
    # one on the Water is worth one point, each one on a single layer of Land is worth two
    # points, etc."
    s = position(players=3, rot=2,
                 life={"water": "yellow plant", "b": "yellow herbivore",
                       "c": "green carnivore"},
                 stacks={"c": "stone grass"},
                 fossils={"white": "yellow carnivore, green plant"})
    assert s.scores() == [1 + 2, 3, 2]


def test_the_example_of_the_highest_stack():
    # "Example: Amy has a CarniVore, a HerbiVore, and a Plant on a stack of
    # Snow/Grass/Sand/Stone/Water. Those five layers mean each Life-form is worth five
    # points, for a total of fifteen points."
    s = position(players=2, rot=2, stacks={"a": "stone sand grass snow", "b": ""},
                 life={"a": "yellow carnivore, yellow herbivore, yellow plant"})
    assert s.scores() == [15, 0]
    assert s.board()["slots"][2]["altitude"] == 5  # a is under e at rotation 2


def finished(state):
    # The game over, at once (scoring tests only).
    state.phase = g.PHASE_OVER
    state.end = "turns"
    return state


def test_ties_go_to_the_player_with_the_most_life_forms_on_the_planet():
    # "The winner is the player with the highest score. Ties are broken in favor of the
    # player with the most Life-Forms on the Planet."
    s = finished(position(players=2, life={"water": "yellow plant, yellow herbivore",
                                           "c": "green carnivore"}))
    assert s.scores() == [2, 2] and s.winner() == 0
    t = finished(position(players=2, life={"water": "yellow plant", "c": "green carnivore"},
                          fossils={"yellow": "green plant"}))
    assert t.scores() == [2, 2] and t.winner() is None  # house: then a draw


def test_bots_cannot_win():
    # "Bots cannot win the game."
    s = finished(position(players=2, stacks={"c": "stone grass snow"},
                          life={"c": "white carnivore, white herbivore, white plant",
                                "water": "green plant"}))
    assert s.colour_score(2) == 12 and s.scores() == [0, 1] and s.winner() == 1


def test_the_turn_limit_is_a_house_safeguard():
    # Nothing forces anybody to drop the last tiles: option max_turns ends the game with
    # its own reason.
    s = g.new_game(2, max_turns=3)
    while not s.is_over():
        s.play("rotate 2")
        s.play([m for m in s.legal_moves() if m.startswith("sun")][0])
        while s.phase == g.PHASE_SUN:
            s.play(s.legal_moves()[0])
    assert s.end_reason() == "turns" and s.turn_count() == 3


# ---------------------------------------------------------------- options, states, errors

def test_options_are_spelled_out_and_checked():
    s = g.new_game(3, seed=9, stars=2, max_turns=50, moon_eats="each", own_kills="fossil")
    assert s.options() == {"stars": 2, "max_turns": 50, "moon_eats": "each",
                           "own_kills": "fossil"}
    assert g.new_game(3).options() == {"stars": 4, "max_turns": 200, "moon_eats": "end",
                                       "own_kills": "pool"}
    for bad, match in ((dict(stars=-1), "stars"), (dict(stars=True), "stars"),
                       (dict(max_turns=0), "max_turns"), (dict(moon_eats="never"), "moon_eats"),
                       (dict(own_kills="box"), "own_kills")):
        with pytest.raises(BadPosition, match=match):
            g.new_game(2, **bad)
    with pytest.raises(BadPosition, match="2, 3 or 4 players"):
        g.new_game(1)
    with pytest.raises(BadPosition, match="seed"):
        g.new_game(2, seed=-1)


def test_there_is_no_chance_element():
    # Nothing is shuffled or rolled: every seed deals the same game, and the view of any
    # viewer is the whole state, which determinize() rebuilds.
    assert g.new_game(2, seed=1) == g.new_game(2, seed=12345)
    s = position(**EXAMPLE)
    s.play("rotate 3")
    views = [s.view(v) for v in (None, 0, 1, 2)]
    assert all(v == views[0] for v in views)
    assert g.determinize(views[0], 77) == s
    with pytest.raises(BadPosition):
        s.view(3)


def test_json_round_trip_and_repr():
    s = position(**EXAMPLE)
    s.play("rotate 3")
    s.play("storm plant water")
    again = g.from_json(s.to_json())
    assert again == s and again.digest() == s.digest() and again.legal_moves() == s.legal_moves()
    assert repr(s).startswith("gaia_vora.from_json(")
    assert eval(repr(s), {"gaia_vora": g}) == s


def corrupt(state, **changes):
    import json
    d = json.loads(state.to_json())
    d.update(changes)
    return d


@pytest.mark.parametrize("changes,match", [
    (dict(rot=8), "rot"),
    (dict(stacks=[[0]] * 8, home=0), "stone Tiles do not add up"),
    (dict(stacks=[[1]] + [[t] for t in g.SETUP_TILES[1:]]), "home"),
    (dict(stacks=[[0, 0]] + [[t] for t in g.SETUP_TILES[1:]]), "two stone Tiles"),
    (dict(supply=[0, 0, 4, 2]), "snow Tiles do not add up"),
    (dict(home=0x1FF), "home"),
    (dict(life=[0] + [-1] * 26), "yellow carnivores do not add up"),
    (dict(pools=[3, 4, 5] * 3 + [3, 4, 4]), "orange plants do not add up"),
    (dict(stars=[5, 4]), "stars"),
    (dict(phase=2), "do not fit phase sun"),
    (dict(phase=5), "end"),
    (dict(turn=200), "should be over"),
    (dict(active=2), "active"),
    (dict(moon_eats="later"), "moon_eats"),
    (dict(end="box"), "out of range"),
    (dict(players=True), "players"),
])
def test_from_json_refuses_corrupt_states(changes, match):
    s = g.new_game(2)
    with pytest.raises(BadPosition, match=match):
        g.from_json(corrupt(s, **changes))


def test_from_json_refuses_life_on_bare_water_edges_and_uneaten_moons():
    s = position(players=2, stacks={"c": "", "b": "sand stone"})
    life = [-1] * 27
    life[2 * 3] = 0
    with pytest.raises(BadPosition, match="position c is uncovered"):
        g.from_json(corrupt(s, life=life, pools=[2, 4, 5] + [3, 4, 5] * 3))
    life = [-1] * 27
    life[1], life[2] = 1, 0  # a Green HerbiVore and a Yellow Plant under the Moon on a
    with pytest.raises(BadPosition, match="under the Moon .a. have not eaten"):
        g.from_json(corrupt(s, life=life, pools=[3, 4, 4, 3, 3, 5] + [3, 4, 5] * 2))
    with pytest.raises(BadPosition, match="missing"):
        g.from_json({"game": "gaia-vora", "format": 1})


@pytest.mark.parametrize("move,match", [
    ("rotate 4", "turns 1, 2 or 3 steps"),
    ("rotate", "takes 1 argument"),
    ("jump a", "unknown move word 'jump'"),
    ("Rotate 2", "unknown move word"),
])
def test_refusals_at_the_rotation_name_the_reason(move, match):
    s = g.new_game(2)
    text = s.to_json()
    with pytest.raises(IllegalMove, match=match) as info:
        s.play(move)
    assert info.value.move == move and s.to_json() == text


@pytest.mark.parametrize("move,match", [
    ("sun tree water", "'tree' is not a species"),
    ("sun plant", "takes 2 arguments"),
    ("meteor sand d e", "takes 1 or 2 arguments"),
    ("sun plant i", "'i' is not a location"),
    ("rainbow purple plant water", "'purple' is not a colour"),
    ("meteor lava", "'lava' is not a Land Tile"),
    ("meteor snow b", "comes from off the board"),
    ("meteor stone", "name the position"),
    ("meteor stone z", "'z' is not a position"),
    ("meteor stone b", "under the Meteor itself"),
    ("meteor sand c", "the tile at position c is stone, not sand"),
    ("meteor sand d", "already has a sand Tile"),
    ("storm plant e", "no plant stands on f"),
    ("sun plant b", "b does not touch the tile under the Sun"),
])
def test_refusals_of_sky_objects_name_the_reason(move, match):
    s = position(players=2, phase="sky")
    text = s.to_json()
    with pytest.raises(IllegalMove, match=match):
        s.play(move)
    assert s.to_json() == text


def test_every_game_is_registered_and_plays_through_the_registry():
    assert games.load("gaia-vora") is g
    record = {"game": "gaia-vora", "players": 3, "seed": 0, "options": {},
              "moves": ["rotate 2", "meteor stone a", "rotate 3"]}
    state = games.replay(record)
    assert state.turn_count() == 1 and state.phase == g.PHASE_SKY


# ---------------------------------------------------------------- the most steps, by brute force

def _basic_steps(state):
    # Every placement or move the rulebook's other sentences allow now, without the "as
    # many steps as you can" rule: (move, state after) pairs, computed from first
    # principles (touching, one per species per location, pools, colours).
    out = []
    me = state.active
    frees = state._frees()

    def after(fn):
        t = state.clone()
        fn(t)
        return t

    def place(t, loc, s, colour, which):
        t.pools[colour * 3 + s] -= 1
        t.life[loc * 3 + s] = colour
        if t.moon_eats == "each" and loc == t._moon_loc():
            t._eat(loc)
        t.used |= 1 << loc
        if which == "rainbow":
            t.colours_used |= 1 << colour
        t.phase = g.PHASE_NAMES.index(which)

    for which, slot in (("sun", g.SUN_SLOT), ("rainbow", g.RAINBOW_SLOT)):
        if state.phase not in (g.PHASE_SKY, g.PHASE_NAMES.index(which)):
            continue
        if which == "sun" and g.SUN_LIFEFORMS - bin(state.used).count("1") <= 0:
            continue
        lmask = state.touching(state.position_under(slot)) & ~state.used
        colours = [me] if which == "sun" else [c for c in range(4)
                                               if not state.colours_used >> c & 1]
        for loc in range(9):
            if not lmask >> loc & 1:
                continue
            for c in colours:
                for s in range(3):
                    if frees[loc] >> s & 1 and state.pools[c * 3 + s]:
                        move = ("sun %s %s" % (g.SPECIES[s], g.LOCATIONS[loc]) if which == "sun"
                                else "rainbow %s %s %s" % (g.COLOURS[c], g.SPECIES[s],
                                                           g.LOCATIONS[loc]))
                        out.append((move, after(lambda t, loc=loc, s=s, c=c, w=which:
                                                place(t, loc, s, c, w))))
    if state.phase in (g.PHASE_SKY, g.PHASE_STORM):
        p = state.position_under(g.STORM_SLOT)
        src = state.location_of(p)
        dests = state.storm_destinations(p)
        for s in range(3):
            colour = state.life[src * 3 + s]
            if colour < 0:
                continue
            for loc in range(9):
                if dests >> loc & 1 and frees[loc] >> s & 1:
                    def move_it(t, s=s, loc=loc, colour=colour):
                        t.life[src * 3 + s] = -1
                        t.life[loc * 3 + s] = colour
                        if t.moon_eats == "each" and loc == t._moon_loc():
                            t._eat(loc)
                        t.phase = g.PHASE_STORM
                    out.append(("storm %s %s" % (g.SPECIES[s], g.LOCATIONS[loc]),
                                after(move_it)))
    return out


def _most(state, memo=None):
    # The most steps the activation under way can still take, by trying every order.
    memo = {} if memo is None else memo
    key = state.to_json()
    if key not in memo:
        best = 0
        for move, t in _basic_steps(state):
            best = max(best, 1 + _most(t, memo))
        memo[key] = best
    return memo[key]


def _kind(move):
    return move.split()[0]


def _check_most(state):
    # Compare legal_moves() with brute force for each Sky Object of the position; the
    # number of Sky Objects where the rule ruled out some steps.
    steps = _basic_steps(state)
    bound = 0
    for kind in ("sun", "rainbow", "storm"):
        mine = [(m, t) for m, t in steps if _kind(m) == kind]
        memo = {}
        most = {m: 1 + _most(t, memo) for m, t in mine}
        best = max(most.values() or [0])
        want = sorted(m for m in most if most[m] == best)
        if best == 1 and state.phase == g.PHASE_SKY:
            # An activation that would change nothing may not be selected: its one
            # step, once the Moon has eaten, leaves the planet, pools and cards as they
            # were.
            def unchanged(t):
                t = t.clone()
                t._eat(t._moon_loc())
                return (t.life, t.pools, t.fossils) == (state.life, state.pools,
                                                        state.fossils)
            after = dict(mine)
            want = [m for m in want if not unchanged(after[m])]
        assert [m for m in state.legal_moves() if _kind(m) == kind] == want, kind
        bound += len(want) < len(most)
    return bound


def _random_sky_states(moon_eats, count, seed):
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        s = g.new_game(rnd.choice((2, 3, 4)), moon_eats=moon_eats)
        for _ in range(rnd.randrange(4, 40)):
            if s.is_over():
                break
            s.play(rnd.choice(s.legal_moves()))
        if s.phase in (g.PHASE_SKY, g.PHASE_SUN, g.PHASE_RAINBOW, g.PHASE_STORM):
            out.append(s)
    return out


@pytest.mark.parametrize("moon_eats", ["end", "each"])
def test_the_most_steps_rule_agrees_with_brute_force(moon_eats):
    # Positions from random play, some with scarce pools (taken out into Fossil Cards)
    # so that choices bind: the Sun, Rainbow and Storm moves offered are exactly those
    # from which the most steps can still be taken.
    bound = 0
    for s in _random_sky_states(moon_eats, 40, 1 if moon_eats == "end" else 4):
        if s.phase == g.PHASE_SKY and s.players < 4:
            bound += _check_most(s)
            # Scarce: keep a few figures in each pool, the rest on a Bot's card.
            bot = s.players
            for c in range(4):
                for sp in range(3):
                    keep = (c + sp + s.turn) % 2
                    extra = max(0, s.pools[c * 3 + sp] - keep)
                    if c != bot and extra:
                        s.pools[c * 3 + sp] -= extra
                        s.fossils[bot * 12 + c * 3 + sp] += extra
            if s.legal_moves():
                bound += _check_most(s)
        else:
            bound += _check_most(s)
    assert bound >= 3, "the positions never tested the rule: %d" % bound


@pytest.mark.parametrize("moon_eats", ["end", "each"])
def test_random_games_keep_every_figure_and_tile(moon_eats):
    # Whole random games in both eating modes: the invariants of the conformance test.
    for seed in range(8):
        rnd = random.Random(seed)
        s = g.new_game(2 + seed % 3, seed=seed, moon_eats=moon_eats)
        while not s.is_over():
            moves = s.legal_moves()
            assert moves == sorted(set(moves))
            s.play(rnd.choice(moves))
            assert g.from_json(s.to_json()) == s
        assert s.end_reason() in ("tiles", "turns")
