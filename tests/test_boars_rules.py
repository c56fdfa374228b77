"""Boars on the Run!, rule by rule: each test quotes the rulebook sentence it checks
(../shared/rulebooks/boars-on-the-run.md) and plays it as a scenario; then the house
defaults, the data files, hidden information, and refusals.

Scenarios start from a new game on the house data (shared_rules/boars_data.py) and
arrange it with the helpers below: cards placed in hands and on display, bags filled,
boars put on spaces. `check()` passes the arranged state through from_json(), so every
scenario starts from a state the engine itself accepts. House track spaces used below:
0 start, 1 red food, 3 yellow predator, 4 yellow food, 5 green food, 6 green predator,
7 red station (Prickly Cab), 12 yellow station (Beaver Ferry), 15 blue station (Metro
Mole), 18 red station, 22 green station (Air Squirrel), 95 finish.
"""

import json

import pytest

from shared_rules import boars, boars_data, games, prng
from shared_rules.errors import BadPosition, IllegalMove

R, B, Y, G, K = range(5)


def num(s, cid):
    return s.deck_data.index[cid]


def ids(s, numbers):
    return [s.card_id(i) for i in numbers]


def counts(text):
    """'rrbk' -> [2, 1, 0, 0, 1]"""
    c = [0] * 5
    for ch in text:
        c["rbygk".index(ch)] += 1
    return c


def arrange(s, display=None, hands=None, deck_top=(), boar=None):
    """Place cards: `display` (4 ids or None), `hands` {player: [ids]}, `deck_top` (the
    first cards of the deck, in order), `boar` {player: boar id}. The other Diet and
    Vendetta cards form the rest of the deck in file order; the whole deck is unseen."""
    data = s.deck_data
    placed = []
    if boar:
        for p, b in boar.items():
            s.boar[p] = num(s, b)
    if hands is not None:
        s.hands = [[num(s, c) for c in hands.get(p, [])] for p in range(s.players)]
    placed += [x for h in s.hands for x in h]
    if display is not None:
        s.display = [num(s, c) if c else -1 for c in display]
    placed += [x for x in s.display if x >= 0]
    top = [num(s, c) for c in deck_top]
    s.deck = top + [i for i in data.others if i not in placed and i not in top]
    s.deck_hidden = len(s.deck)
    return s


def fill(s, p, bag):
    """Set player p's bag (5 counts, black included) and refill the reserve to match."""
    s.bags[p] = list(bag)
    for c in range(4):
        s.supply[c] = s.cubes - sum(b[c] for b in s.bags) - s.front[c]
    return s


def check(s):
    return boars.from_json(s.to_json())


def game(players=2, seed=0, pos=None, hands=None, display=None, deck_top=(), boar=None,
         **options):
    s = boars.new_game(players, seed=seed, **options)
    held = [c for h in (hands or {}).values() for c in h]
    if display is None:  # the first 4 of these that nobody holds
        display = [c for c in DISPLAY if c not in held][:4]
    boar = dict(boar or {})
    spare = [b for b in ("tusker", "bristle", "snout", "trotter") if b not in boar.values()]
    for p in range(players):
        if p not in boar:
            boar[p] = spare.pop(0)
    arrange(s, display=display, hands=hands or {}, deck_top=deck_top, boar=boar)
    if pos:
        s.pos = list(pos)
    return check(s)


def draw_exactly(s, text):
    """Play 'draw n' with a PRNG state for which the bag gives exactly these cubes (the
    draw is random; this picks the PRNG state the way a seed would)."""
    want = counts(text)
    for k in range(200000):
        t = s.clone()
        t.rng = prng.seed_state(k)
        t.play("draw %d" % len(text))
        if t.drawn == want:
            s.rng = prng.seed_state(k)
            s.play("draw %d" % len(text))
            return s
    raise AssertionError("no PRNG state draws %s" % text)


def after_drawing(s, text, bag=None):
    """The active player draws exactly `text`; `bag` (counts) is the bag before it."""
    if bag is not None:
        fill(s, s.active, bag)
        s = check(s)
    return draw_exactly(s, text)


FULL = [5, 5, 5, 5, 5]
DISPLAY = ["mono-rr", "combo-rb", "portion-6", "knowledge", "mono-bbb", "combo-yg",
           "non-yellow", "feast-yellow"]


# ---------------------------------------------------------------- setup

def test_the_deck_is_shuffled_and_4_cards_are_revealed():
    # "shuffle the other cards into a single deck ... Reveal the top 4 cards from the deck
    # and place them face up in the remaining four spaces of the card display."
    s = boars.new_game(2, seed=3)
    assert len(s.display) == 4 and -1 not in s.display
    assert sorted(s.deck + s.display) == sorted(s.deck_data.others)
    assert s.deck_hidden == len(s.deck) == len(s.deck_data.others) - 4
    assert all(s.deck_data.cards[i]["kind"] != "boar" for i in s.deck + s.display)
    others = [boars.new_game(2, seed=k).display for k in range(4, 9)]
    assert any(d != s.display for d in others)
    assert boars.new_game(2, seed=3).to_json() == s.to_json()


def test_each_bag_holds_25_cubes_5_of_each_colour_and_the_rest_is_a_limited_reserve():
    # "Each player takes a bag and fills it with 25 food cubes (5 of each color: red, blue,
    # yellow, green, and black). Place the unused cubes in a common reserve"
    for players in (2, 3, 4):
        s = boars.new_game(players, seed=1)
        assert s.bags == [[5, 5, 5, 5, 5]] * players
        assert s.supply == [boars.DEFAULT_CUBES - 5 * players] * 4


def test_each_player_draws_a_random_boar_card_and_starts_on_start():
    # "Each player draws a random Boar card and places it face up in front of them ...
    # Place the corresponding miniatures ... on the 'Start' space"
    seen = set()
    for seed in range(12):
        s = boars.new_game(3, seed=seed)
        assert len(set(s.boar)) == 3
        assert all(s.deck_data.cards[b]["kind"] == "boar" for b in s.boar)
        assert s.pos == [boars.START] * 3
        assert s.hands == [[], [], []]
        seen.add(tuple(s.boar))
    assert len(seen) > 3  # random, not fixed


def test_the_first_player_is_player_0_and_play_goes_round():
    # "Determine a first player in any way you like ... then play will continue
    # clockwise." House: player 0 begins (hosts seat people accordingly).
    s = game(3)
    for p in (0, 1, 2, 0):
        assert s.to_act() == p
        s.play("draw 1")
        while s.to_act() == p and not s.is_over():
            s.play("end" if "end" in s.legal_moves() else s.legal_moves()[0])


def test_two_to_four_players():
    assert boars.PLAYER_COUNTS == (2, 3, 4)
    for bad in (1, 5, True, "2"):
        with pytest.raises(BadPosition, match="2, 3 or 4 players"):
            boars.new_game(bad)


# ---------------------------------------------------------------- phase 1: drawing

def test_draw_any_number_of_cubes_at_random():
    # "draw any number of cubes at random": the player says how many, the PRNG says which.
    s = game()
    assert s.legal_moves() == sorted("draw %d" % n for n in range(0, 26))
    s.play("draw 7")
    assert sum(s.drawn) == 7 and sum(s.bags[0]) == 18
    assert [s.bags[0][c] + s.drawn[c] for c in range(5)] == FULL
    draws = set()
    for k in range(10):
        t = game(seed=k)
        t.play("draw 7")
        draws.add(tuple(t.drawn))
    assert len(draws) > 1


def test_any_number_includes_drawing_nothing():
    # "draw any number of cubes at random": none is a number too. Nothing is in front, no
    # black cube was drawn (no vendetta, no sickness), and every colour was not drawn,
    # so a Non-diet pays. Option min_draw=1 keeps the old house reading.
    s = game(hands={0: ["non-green"]})
    assert "draw 0" in s.legal_moves()
    s.play("draw 0")
    assert s.drawn == [0] * 5 and s.front == [0] * 5 and s.bags[0] == FULL
    assert s.phase == boars.PH_ACT and "diet non-green" in s.legal_moves()
    t = game(min_draw=1)
    assert "draw 0" not in t.legal_moves() and t.options()["min_draw"] == 1
    with pytest.raises(IllegalMove, match="1 to 25"):
        t.play("draw 0")
    assert boars.from_json(t.to_json()).options()["min_draw"] == 1
    with pytest.raises(BadPosition, match="min_draw must be 0 or 1"):
        boars.new_game(2, min_draw=2)


def test_no_more_cubes_may_be_drawn_this_turn():
    # "You may not draw any more cubes this turn."
    s = game()
    s.play("draw 4")
    assert not [m for m in s.legal_moves() if m.startswith("draw")]
    with pytest.raises(IllegalMove, match="now is the time to"):
        s.play("draw 1")


def test_the_cubes_drawn_are_in_front_of_the_player_and_black_cannot_be_spent():
    # "The food cubes you drew (red, blue, green, yellow) are available ... black ...
    # represents spoiled food that your boar won't eat."
    s = after_drawing(game(), "rrkk")
    assert s.front == counts("rrkk")
    buys = [m for m in s.legal_moves() if m.startswith("buy ")]
    assert buys and all("k" not in m.split()[2] for m in buys)
    assert "buy mono-rr rr" in buys and "buy combo-rb rr" in buys


def test_there_are_always_5_black_cubes_in_the_bag_at_the_start_of_a_turn():
    # "There are always 5 spoiled food cubes in your bag at the beginning of your turn."
    s = game()
    for _ in range(40):
        if s.phase == boars.PH_DRAW:
            assert s.bags[s.active][K] == 5
            s.play("draw 6")
        else:
            ms = s.legal_moves()
            s.play("end" if "end" in ms else ms[0])


def test_a_player_does_not_see_into_any_bag_but_remembers_their_own():
    # "You may not look into your bag during the game, you must try to remember what cubes
    # are in there." House: the owner's view gives their bag; others see its size only.
    s = game()
    v0, v1, spectator = s.view(0), s.view(1), s.view(None)
    assert v0["bag"] == FULL and v1["bag"] == FULL and spectator["bag"] is None
    assert v0["bag_sizes"] == [25, 25]
    assert "bags" not in v0 and "rng" not in v0 and "deck" not in v0


# ---------------------------------------------------------------- sickness and the menu

def test_three_or_more_black_cubes_make_the_boar_sick():
    # "If, after drawing your cubes, you have 3 or more black cubes in front of you, you
    # become sick and you can't use any of the cubes you drew this turn. Return all of
    # them to your bag."
    s = after_drawing(game(), "rrrkkk")
    assert s.front == [0] * 5 and s.bags[0] == FULL
    assert s.drawn == counts("rrrkkk") and s.view(1)["sick"]
    assert s.legal_moves() == ["end"]  # no ticket with the 3 red: they are back in the bag


def test_two_black_cubes_do_not_make_the_boar_sick():
    s = after_drawing(game(), "rrrkk")
    assert s.front == counts("rrrkk") and not s.view(0)["sick"]
    assert "ticket cab" in s.legal_moves()


def test_a_sick_boars_turn_is_not_over_free_diets_still_work():
    # "Note that your turn is not over, some Diet cards do not cost any cubes to use."
    s = game(hands={0: ["non-green", "portion-6", "mono-bb"]})
    s = after_drawing(s, "rrbkkk")
    assert s.legal_moves() == ["diet non-green", "diet portion-6", "end"]
    s.play("diet non-green")
    s.play("diet portion-6")
    assert s.pos[0] == 3 + 3


def test_drawing_all_5_black_cubes_lets_the_player_change_the_menu():
    # "If you draw all 5 black cubes from your bag, you may also choose to put all 4
    # revealed cards in the display to the bottom of the deck and then reveal 4 new cards."
    s = game(deck_top=["cold", "sorry", "feast-red", "gatherer-red"])
    s = after_drawing(s, "rkkkkk", bag=[1, 0, 0, 0, 5])
    assert s.legal_moves() == ["menu keep", "menu new"]
    old = ids(s, s.display)
    s.play("menu new")
    assert ids(s, s.display) == ["cold", "sorry", "feast-red", "gatherer-red"]
    assert ids(s, s.deck[-4:]) == old  # to the bottom, in display order, seen by all
    assert s.view(1)["deck_known"] == old
    assert s.phase == boars.PH_ACT
    t = after_drawing(game(), "rkkkkk", bag=[1, 0, 0, 0, 5])
    shown = list(t.display)
    t.play("menu keep")
    assert t.display == shown and t.phase == boars.PH_ACT


def test_the_menu_is_not_offered_with_fewer_than_5_black():
    s = after_drawing(game(), "rkkkk")
    assert s.phase == boars.PH_ACT


# ---------------------------------------------------------------- phase 2: buying

def test_buy_one_card_a_turn_paying_its_cost_in_non_black_cubes_to_the_reserve():
    # "Once per turn, you can buy one of the available cards by discarding a number of
    # non-black cubes equal to the cost of the card ... Discarded cubes are returned to the
    # common reserve. Take the card from the display and place it in front of you"
    s = game(deck_top=["cold"])
    s = after_drawing(s, "rbyggk")
    reserve = list(s.supply)
    assert "buy mono-rr gg" in s.legal_moves() and "buy mono-rr rg" in s.legal_moves()
    s.play("buy mono-rr gg")
    assert ids(s, s.hands[0]) == ["mono-rr"]
    assert s.front == counts("rbyk")
    assert s.supply == [reserve[0], reserve[1], reserve[2], reserve[3] + 2]
    # "The card display is immediately refilled by revealing a new card from the deck"
    assert ids(s, s.display)[0] == "cold"
    # Once per turn.
    assert not [m for m in s.legal_moves() if m.startswith("buy")]
    with pytest.raises(IllegalMove, match="already bought a card this turn"):
        s.play("buy combo-rb rb")


def test_a_card_bought_can_be_used_this_turn():
    # "it can be used this turn."
    s = after_drawing(game(), "rrbbk")
    s.play("buy mono-rr bb")
    assert "diet mono-rr" in s.legal_moves()
    s.play("diet mono-rr")
    assert s.pos[0] == 4


def test_the_cost_must_be_paid_in_full():
    s = after_drawing(game(), "rkk")
    assert not [m for m in s.legal_moves() if m.startswith("buy mono-rr")]
    with pytest.raises(IllegalMove, match="costs 2 non-black cubes"):
        s.play("buy mono-rr rk")


# ---------------------------------------------------------------- phase 2: tickets

@pytest.mark.parametrize("name,drawn,station", [
    ("cab", "rrr", 7), ("ferry", "yyyy", 12), ("metro", "bbbbb", 15)])
def test_exact_cubes_of_a_colour_buy_a_ticket_to_the_next_station(name, drawn, station):
    # "If you drew the exact number of the cubes of a certain color for one of the
    # transport tickets, you can discard them to move your boar to the next transport
    # station of the corresponding type."
    s = after_drawing(game(pos=[1, 0]), drawn + "k")
    assert s.tickets() == [name] and s.view(1)["tickets"] == [name]
    reserve = sum(s.supply)
    s.play("ticket " + name)
    assert s.pos[0] == station
    assert sum(s.supply) == reserve + len(drawn) and sum(s.front[:4]) == 0


def test_the_air_squirrel_needs_exactly_6_green():
    s = game(pos=[2, 0])
    s = after_drawing(s, "gggggg", bag=[0, 0, 0, 6, 5])
    s.play("ticket squirrel")
    assert s.pos[0] == 22


def test_other_colours_do_not_matter_for_a_ticket():
    # "It doesn't matter what cubes of other colors you draw, only that you draw the exact
    # number of the transport system you want to use."
    s = after_drawing(game(), "rrrbbyk")
    assert "ticket cab" in s.legal_moves()


def test_four_red_cubes_buy_no_cab_ticket_even_after_spending_one():
    # "the red transport system costs 3 red cubes. If you draw 4 red cubes, you can not use
    # one of them to feed your boar, and then the remaining 3 to buy a ticket."
    s = after_drawing(game(boar={0: "snout"}), "rrrrk")
    assert "ticket cab" not in s.legal_moves()
    s.play("diet top")  # snout: 1 red -> 1 space
    assert s.front[R] == 3 and "ticket cab" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="exactly 3 red cubes drawn; you drew 4"):
        s.play("ticket cab")


def test_spending_a_cube_of_an_exact_ticket_loses_the_ticket():
    # "to use the transport system, you must have drawn the exact number before you begin
    # to spend them."
    s = after_drawing(game(boar={0: "snout"}), "rrrk")
    s.play("diet top")
    assert "ticket cab" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="already spent"):
        s.play("ticket cab")


def test_after_a_ticket_diets_move_on():
    # "After you use a transport station, you can continue to move using your Diet cards
    # on the same turn."
    s = after_drawing(game(boar={0: "bristle"}), "rrryk")
    s.play("ticket cab")
    s.play("diet top")
    assert s.pos[0] == 8


def test_no_ticket_without_a_station_ahead():
    # House: a ticket goes to the next station further on; past the last one it is not sold.
    s = after_drawing(game(pos=[90, 0]), "rrrk")
    assert "ticket cab" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="no Prickly Cab station ahead"):
        s.play("ticket cab")


# ---------------------------------------------------------------- phase 2: diets

def test_boar_card_diets_one_or_both_each_once_per_turn():
    # "Boar cards have two starting diets ... You may use one or both on the same turn ...
    # Each diet on the boar card may only be used once per turn."
    # "For example ... you could discard 1 yellow cube to move 1 space and/or discard 2
    # red cubes to move exactly 3 spaces." (the boar shown is the house card bristle)
    s = after_drawing(game(boar={0: "bristle"}), "rrrryyk")
    assert {"diet top", "diet bottom"} <= set(s.legal_moves())
    s.play("diet bottom")
    assert s.pos[0] == 3 and s.front == counts("rryyk")
    assert "diet bottom" not in s.legal_moves()
    s.play("diet top")
    assert s.pos[0] == 4 and "diet top" not in s.legal_moves()
    with pytest.raises(IllegalMove, match="once per turn"):
        s.play("diet top")


def test_a_diet_moves_exactly_its_spaces_and_the_finish_ends_the_game():
    # "You must move all spaces if possible, unless you reach the finish space. In that
    # case, any extra movement is lost, and you win the game."
    s = after_drawing(game(pos=[93, 10], boar={0: "bristle"}), "rrk")
    s.play("diet bottom")  # 3 spaces from 93: the finish is 2 away
    assert s.pos[0] == boars.FINISH and s.is_over()
    assert s.end_reason() == "finish" and s.winner() == 0
    assert s.legal_moves() == [] and s.to_act() is None
    with pytest.raises(IllegalMove, match="the game is over"):
        s.play("end")


def test_mono_and_combo_diets_pay_their_cubes_to_move():
    # "Mono- and Combo-Diet cards allow you to spend food cubes to move your boar further"
    s = game(hands={0: ["mono-rrr", "combo-rbg"]})
    s = after_drawing(s, "rrrrbgk")
    s.play("diet mono-rrr")
    assert s.pos[0] == 7 and s.front == counts("rbgk")
    s.play("diet combo-rbg")
    assert s.pos[0] == 14 and s.front == counts("k")


def test_each_specific_diet_once_per_turn():
    # "You can use any number of Diet cards on your turn, as long as you can pay for them,
    # but you can use each diet only once per turn."
    s = game(hands={0: ["mono-rr", "mono-bb"]})
    s = after_drawing(s, "rrrrbbk")
    s.play("diet mono-rr")
    s.play("diet mono-bb")
    assert s.front[R] == 2 and "diet mono-rr" not in s.legal_moves()


def test_non_diets_need_no_cube_of_the_colour_drawn():
    # "Non-diets give you movement points, but only if you draw no cubes of a particular
    # color on your turn. ... You have to have drawn no cubes of the chosen color, it is
    # not allowed to discard cubes so that you have none left"
    s = game(hands={0: ["non-red", "non-blue"]}, boar={0: "snout"})
    s = after_drawing(s, "rggk")
    assert "diet non-blue" in s.legal_moves() and "diet non-red" not in s.legal_moves()
    s.play("diet top")  # snout spends the only red
    assert s.front[R] == 0 and "diet non-red" not in s.legal_moves()
    s.play("diet non-blue")
    assert s.pos[0] == 1 + 3


def test_midnight_feasts_put_cubes_from_the_reserve_into_the_bag():
    # "Midnight Feast diets give you additional food cubes when you draw no cubes of that
    # particular color on your turn. Take new cubes from the supply and put them into your
    # bag. They will be available to you in future turns."
    s = game(hands={0: ["feast-blue"]})
    s = after_drawing(s, "rrk")
    bag, reserve = s.bags[0][B], s.supply[B]
    s.play("diet feast-blue")
    assert s.bags[0][B] == bag + 3 and s.supply[B] == reserve - 3
    assert s.front == counts("rrk") and s.pos[0] == 0


def test_portion_diets_move_for_the_exact_number_drawn_without_spending():
    # "Portion diets will give you movement points for drawing the exact number of cubes
    # (of any color) on your turn. These diets also don't require you to spend those
    # cubes, so you can use them elsewhere."
    s = game(hands={0: ["portion-6", "portion-5"]})
    s = after_drawing(s, "rrbyyk")
    assert "diet portion-6" in s.legal_moves() and "diet portion-5" not in s.legal_moves()
    s.play("diet portion-6")
    assert s.pos[0] == 3 and s.front == counts("rrbyyk")


def test_gatherer_diets_add_a_cube_when_a_space_gives_their_colour():
    # "Gatherer Diets provide you with more food whenever you gain one or more cubes of the
    # specified color from foodstuff spaces or transport stations. The space doesn't have
    # to be of that color. I.e. if you land on a red foodstuff space, you could choose to
    # take 1 green cube, and if you have the card ..., you would gain 1 extra green cube."
    s = game(hands={0: ["gatherer-green"]}, boar={0: "snout"})
    s = after_drawing(s, "rkk")
    s.play("diet top")  # to space 1, a red foodstuff space
    s.play("end")
    assert sorted(s.legal_moves()) == ["take b", "take g", "take r", "take rrr", "take y"]
    green = s.bags[0][G]
    s.play("take g")
    assert s.bags[0][G] == green + 2


def test_gatherers_do_not_act_on_feasts_or_other_colours():
    s = game(hands={0: ["gatherer-green", "feast-green"]}, boar={0: "snout"})
    s = after_drawing(s, "rkk")
    green = s.bags[0][G]
    s.play("diet feast-green")
    assert s.bags[0][G] == green + 3
    s.play("diet top")
    s.play("end")
    s.play("take rrr")
    assert s.bags[0][G] == green + 3


def test_knowledge_is_power_moves_4_after_buying_a_diet():
    # '"Knowledge is Power" Move 4 spaces when you buy a new diet.'
    s = game(hands={0: ["knowledge"]}, display=["mono-rr", "overtake-red", "cold", "careless"])
    s = after_drawing(s, "rrbbk")
    assert "diet knowledge" not in s.legal_moves()
    s.play("buy mono-rr bb")
    s.play("diet knowledge")
    assert s.pos[0] == 4
    t = game(hands={0: ["knowledge"]}, display=["mono-rr", "overtake-red", "cold", "careless"])
    t = after_drawing(t, "rrbbk")
    t.play("buy overtake-red rr")  # a vendetta is not a diet
    assert "diet knowledge" not in t.legal_moves()


def test_knowledge_is_power_bought_this_turn_counts_as_the_new_diet():
    # House reading: Knowledge is Power is itself a new diet (docs/rules-decisions.md).
    s = game(display=["knowledge", "mono-rr", "cold", "careless"])
    s = after_drawing(s, "rrbbk")
    s.play("buy knowledge rrbb")  # it costs 4
    s.play("diet knowledge")
    assert s.pos[0] == 4


def test_best_served_cold_moves_6_after_buying_a_vendetta():
    # '"Best Served Cold" Move 6 spaces when you buy a vendetta.'
    s = game(hands={0: ["cold"]}, display=["mono-rr", "overtake-red", "knowledge", "careless"])
    s = after_drawing(s, "rrbbk")
    s.play("buy overtake-red rr")
    s.play("diet cold")
    assert s.pos[0] == 6 and "diet cold" not in s.legal_moves()


def test_couldnt_care_less_discards_another_card_to_move_3():
    # '"Couldn\'t Care Less" Discard one of your other non-boar cards to the bottom of the
    # deck to move 3 spaces.' "Like other Diet cards, these can only be activated once per
    # turn."
    s = game(hands={0: ["careless", "mono-bb", "sorry"]})
    s = after_drawing(s, "rkkk")  # sick: it costs no cube
    assert s.legal_moves() == ["diet careless mono-bb", "diet careless sorry", "end"]
    s.play("diet careless sorry")
    assert s.pos[0] == 3 and ids(s, s.hands[0]) == ["careless", "mono-bb"]
    assert s.card_id(s.deck[-1]) == "sorry" and s.view(1)["deck_known"] == ["sorry"]
    assert s.legal_moves() == ["end"]
    alone = after_drawing(game(hands={0: ["careless"]}), "rk")
    assert not [m for m in alone.legal_moves() if "careless" in m]


def test_gatherers_and_vendettas_are_not_played_as_diets():
    s = game(hands={0: ["gatherer-red", "pullback-3"]})
    s = after_drawing(s, "rrk")
    with pytest.raises(IllegalMove, match="acts by itself"):
        s.play("diet gatherer-red")
    with pytest.raises(IllegalMove, match="is a vendetta"):
        s.play("diet pullback-3")


# ---------------------------------------------------------------- bumping

def test_a_boar_ending_its_movement_on_another_bumps_it_two_back_in_a_chain():
    # "After all your movement is complete, if your boar is on the same space as an
    # opponent's boar, move your opponent's boar two spaces back. If it lands on a space
    # with another boar, that one will also move two spaces back, and so on."
    s = game(3, pos=[10, 13, 11], boar={0: "bristle"})
    s = after_drawing(s, "rryk")
    s.play("diet bottom")  # 10 -> 13
    assert s.pos == [13, 13, 11]  # not yet: more movement may follow
    s.play("end")
    # Player 1 goes from 13 to 11, where player 2 stands; player 2 goes on to 9.
    assert s.pos == [13, 11, 9]
    s = game(4, pos=[10, 13, 11, 9], boar={0: "bristle"})
    s = after_drawing(s, "rrk")
    s.play("diet bottom")
    s.play("end")
    # 13 -> player 1 to 11, where player 2 stands -> player 2 to 9, where player 3 stands
    # -> player 3 to 7.
    assert s.pos == [13, 11, 9, 7]
    s = game(3, pos=[10, 13, 13], boar={0: "bristle"})
    s = after_drawing(s, "rrk")
    s.play("diet bottom")
    s.play("end")
    assert s.pos == [13, 11, 11]  # two boars bumped together do not bump each other


def test_only_where_the_movement_ends_counts():
    s = game(pos=[10, 11], boar={0: "bristle"})
    s = after_drawing(s, "rrybk")
    s.play("diet top")  # onto player 1 at 11 ...
    s.play("diet bottom")  # ... and on to 14 (a blue predator: it takes the blue cube)
    s.play("end")
    assert s.pos == [14, 11]


def test_nobody_is_bumped_on_the_start_or_behind_it():
    # House: every boar begins on the Start together; a bump never goes behind it.
    s = game(pos=[0, 0])
    s = after_drawing(s, "kkk")
    s.play("end")
    assert s.pos == [0, 0]
    t = game(3, pos=[1, 1, 0], boar={0: "snout"})
    t = after_drawing(t, "bk")
    t.play("end")
    assert t.pos == [1, 0, 0]


# ---------------------------------------------------------------- phase 3: the space

def test_the_space_is_activated_even_without_moving():
    # "Activate the space where your boar is currently standing. You must do this even if
    # you didn't move (usually because your boar got sick)."
    s = game(pos=[1, 0])  # red foodstuff
    s = after_drawing(s, "kkk")
    s.play("end")
    assert s.phase == boars.PH_SPACE and s.to_act() == 0
    assert "take rrr" in s.legal_moves()


def test_unspent_cubes_black_included_go_back_into_the_bag():
    # "Finally, at the end of your turn, return all unspent cubes, including black ones, to
    # your bag."
    s = after_drawing(game(pos=[7, 0]), "rbgkk")  # red station: take r + any
    s.play("end")
    s.play("take rr")
    assert s.bags[0] == [7, 5, 5, 5, 5] and s.to_act() == 1 and s.front == [0] * 5


def test_a_foodstuff_space_gives_3_cubes_of_its_colour_or_1_of_any():
    # "When you activate one of these spaces, you have two options: 1. Take 3 cubes of that
    # corresponding color. 2. Take 1 cube of any color. When you take a cube, it is taken
    # from the common supply and placed into your bag."
    s = after_drawing(game(pos=[4, 0]), "kkk")  # yellow foodstuff
    s.play("end")
    assert s.legal_moves() == ["take b", "take g", "take r", "take y", "take yyy"]
    reserve = s.supply[Y]
    s.play("take yyy")
    assert s.bags[0][Y] == 8 and s.supply[Y] == reserve - 3


def test_the_reserve_is_limited():
    # "The number of cubes is limited, so if there are not enough cubes in the supply when
    # a player gains new cubes, they just gain as many as they can." "If the supply of a
    # certain color runs out, you can no longer take cubes of that color."
    s = game(pos=[4, 0], cubes=12)  # 2 yellow left in the reserve
    s = after_drawing(s, "kkk")
    s.play("end")
    assert s.legal_moves() == ["take b", "take g", "take r", "take y", "take yy"]
    s.play("take yy")
    assert s.supply[Y] == 0 and s.bags[0][Y] == 7
    t = game(pos=[1, 0], cubes=10)  # nothing left at all: nothing to choose
    t = after_drawing(t, "kkk")
    t.play("end")
    assert t.to_act() == 1 and t.bags[0] == FULL


def test_a_predator_takes_1_cube_of_its_colour_or_3_of_any():
    # "you must discard a number of food cubes from those in front of you. You have two
    # options: 1. Discard 1 cube of the corresponding color. - Discard 3 cubes of any
    # colors (not black)."
    s = after_drawing(game(pos=[3, 0]), "rbyyk")  # yellow predator
    s.play("end")
    assert s.legal_moves() == ["lose byy", "lose rby", "lose ryy", "lose y"]
    reserve = s.supply[Y]
    s.play("lose y")
    assert s.supply[Y] == reserve + 1 and s.bags[0] == [5, 5, 4, 5, 5]


def test_a_predator_with_only_one_way_takes_it():
    s = after_drawing(game(pos=[3, 0]), "rbgk")
    s.play("end")
    # No yellow in front: the 3 cubes r, b, g go to the reserve, the black one to the bag.
    assert s.to_act() == 1 and s.bags[0] == [4, 4, 5, 4, 5]
    assert s.supply == [21, 21, 20, 21]


def test_a_predator_you_cannot_feed_moves_you_one_space_back():
    # "If you don't have enough cubes to discard, you must move your boar backwards one
    # space."
    s = after_drawing(game(pos=[3, 0]), "rbk")
    s.play("end")
    assert s.pos == [2, 0] and s.to_act() == 1 and sum(s.bags[0]) == 25


def test_a_station_gives_1_cube_of_its_colour_and_1_of_any():
    # "when you activate a transport station in Phase 3, take 1 cube of the color and
    # another 1 cube of any color into your bag."
    s = after_drawing(game(pos=[12, 0]), "kkk")  # yellow station
    s.play("end")
    assert s.legal_moves() == ["take by", "take ry", "take yg", "take yy"]
    s.play("take yg")
    assert s.bags[0] == [5, 5, 6, 6, 5]


# ---------------------------------------------------------------- cards

def test_five_cards_at_most_a_sixth_means_discarding_another_to_the_bottom():
    # "You can have up to five cards in total, including your Boar card. If you buy a 6th
    # card, you must immediately discard one of your other cards to the bottom of the deck.
    # You cannot discard your Boar card."
    hand = ["mono-bb", "non-red", "sorry", "feast-red"]
    s = game(hands={0: hand})
    s = after_drawing(s, "rrbkk")
    s.play("buy mono-rr rr")
    assert s.phase == boars.PH_DISCARD and s.to_act() == 0
    assert s.legal_moves() == sorted("discard " + c for c in hand)
    with pytest.raises(IllegalMove, match="except mono-rr"):
        s.play("discard mono-rr")
    with pytest.raises(IllegalMove):
        s.play("discard tusker")
    s.play("discard sorry")
    assert ids(s, s.hands[0]) == ["mono-bb", "non-red", "feast-red", "mono-rr"]
    assert s.card_id(s.deck[-1]) == "sorry" and s.phase == boars.PH_ACT


def test_a_boar_has_exactly_one_boar_card_all_game():
    # "Each player has one of these cards for the duration of the game."
    s = game()
    for _ in range(60):
        ms = s.legal_moves()
        s.play(ms[len(ms) // 2])
        if s.is_over():
            break
    assert ids(s, s.boar) == ["tusker", "bristle"]


def test_the_deck_keeps_discards_in_order_at_the_bottom():
    # "Whenever a card is discarded, it is placed on the bottom of the deck."
    s = game(hands={0: ["careless", "mono-bb", "sorry"]})
    s = after_drawing(s, "rkk")
    s.play("diet careless mono-bb")
    assert s.card_id(s.deck[-1]) == "mono-bb"
    assert s.deck_hidden == len(s.deck) - 1


# ---------------------------------------------------------------- vendettas

def test_vendettas_trigger_on_the_exact_black_count_and_come_first():
    # "They all trigger the same way by drawing the exact number of black cubes on your
    # turn. Vendetta card effects are mandatory and should be resolved first, before any
    # other actions"
    s = game(pos=[0, 20], hands={0: ["pullback-3"]})
    s = after_drawing(s, "rrk")
    assert s.phase == boars.PH_VENDETTA and s.legal_moves() == ["vendetta pullback-3 1"]
    with pytest.raises(IllegalMove, match="now is the time to resolve a triggered"):
        s.play("end")
    s.play("vendetta pullback-3 1")
    assert s.pos == [0, 17] and s.phase == boars.PH_ACT
    # "Vendetta cards are always discarded after they are triggered."
    assert s.hands[0] == [] and s.card_id(s.deck[-1]) == "pullback-3"
    other = after_drawing(game(pos=[0, 20], hands={0: ["pullback-3"]}), "rrkk")
    assert other.phase == boars.PH_ACT and ids(other, other.hands[0]) == ["pullback-3"]


def test_vendettas_come_before_changing_the_menu():
    # "... and even before changing the Diet cards on display." The house cards have no
    # vendetta on 5 black; a user's card file with one shows the order.
    cards = boars_data.CARDS["house-1"].replace(
        "pullback-4,pullback,2,black=2,spaces=4", "pullback-4,pullback,2,black=5,spaces=4")
    t = game(pos=[0, 20], hands={0: ["pullback-4"]}, cards=cards)
    t = after_drawing(t, "kkkkk", bag=[0, 0, 0, 0, 5])
    assert t.legal_moves() == ["vendetta pullback-4 1"]
    t.play("vendetta pullback-4 1")
    assert t.legal_moves() == ["menu keep", "menu new"]


def test_vendettas_are_mandatory_when_they_have_a_legal_target():
    # "Whenever you draw the appropriate number of black cubes and there is a legal target
    # for a vendetta, you must trigger it."
    s = game(3, pos=[5, 20, 30], hands={0: ["pullback-3", "switcheroo"], 1: ["mono-bb"],
                                         2: ["non-red"]})
    s = after_drawing(s, "rk")
    assert s.legal_moves() == ["vendetta pullback-3 1", "vendetta pullback-3 2",
                               "vendetta switcheroo mono-bb non-red",
                               "vendetta switcheroo mono-bb pullback-3",
                               "vendetta switcheroo non-red pullback-3"]
    s.play("vendetta switcheroo mono-bb pullback-3")
    # Player 1 now holds the pullback; player 0 has mono-bb and must still resolve nothing:
    assert ids(s, s.hands[0]) == ["mono-bb"] and ids(s, s.hands[1]) == ["pullback-3"]
    assert s.phase == boars.PH_ACT


def test_a_vendetta_without_a_legal_target_stays_in_hand():
    s = game(pos=[0, 0], hands={0: ["pullback-3"]})
    s = after_drawing(s, "rk")
    assert s.phase == boars.PH_ACT and ids(s, s.hands[0]) == ["pullback-3"]


def test_when_your_own_hog_is_the_only_target_you_take_it():
    # "Sometimes, your own hog is the only possible target for a vendetta. If so, you must
    # resolve it that way."
    s = game(pos=[10, 0], hands={0: ["pullback-3"]})
    s = after_drawing(s, "rk")
    assert s.legal_moves() == ["vendetta pullback-3 0"]
    s.play("vendetta pullback-3 0")
    assert s.pos == [7, 0]


def test_overtake_moves_you_one_space_past_a_boar_on_its_colour():
    # '"Overtake" vendettas move your hog to one space further than an opponent who is
    # standing on the specified color space. You can use this effect on your own hog to
    # just move one space, but you cannot trigger this card if no players are standing on
    # the color needed.'
    s = game(3, pos=[1, 16, 33], hands={0: ["overtake-red"]})  # 1 and 16 are red spaces
    s = after_drawing(s, "bk")
    assert s.legal_moves() == ["vendetta overtake-red 0", "vendetta overtake-red 1"]
    s.play("vendetta overtake-red 1")
    assert s.pos == [17, 16, 33]
    t = game(3, pos=[1, 16, 33], hands={0: ["overtake-red"]})
    t = after_drawing(t, "bk")
    t.play("vendetta overtake-red 0")
    assert t.pos[0] == 2
    u = game(pos=[2, 4], hands={0: ["overtake-red"]})  # blue and yellow spaces
    u = after_drawing(u, "bk")
    assert u.phase == boars.PH_ACT


def test_overtake_to_the_finish_wins():
    # A user's track whose space 94 is yellow: one past it is the Finish.
    track = boars_data.TRACK_HOUSE_1.replace("food,green\nfinish", "food,yellow\nfinish")
    s = game(pos=[50, 94], hands={0: ["overtake-yellow"]}, track=track)
    s = after_drawing(s, "rk")
    s.play("vendetta overtake-yellow 1")
    assert s.is_over() and s.winner() == 0 and s.end_reason() == "finish"


def test_pullback_moves_a_boar_back_or_to_the_start():
    # '"Pullback" vendettas move your chosen opponent back on the track for a number of
    # spaces. If they cannot move back all of the spaces (because they are near the
    # start), move them back to the start.'
    s = game(pos=[0, 2], hands={0: ["pullback-5"]})
    s = after_drawing(s, "rkk")
    s.play("vendetta pullback-5 1")
    assert s.pos == [0, 0]


def test_switcheroo_switches_two_cards_of_two_different_players():
    # '"Switcheroo" switch two cards of two different players (you included).'
    s = game(3, hands={0: ["switcheroo"], 1: ["mono-bb", "cold"], 2: ["non-red"]})
    s = after_drawing(s, "rk")
    assert s.legal_moves() == ["vendetta switcheroo cold non-red",
                               "vendetta switcheroo mono-bb non-red"]
    s.play("vendetta switcheroo cold non-red")
    assert ids(s, s.hands[1]) == ["mono-bb", "non-red"] and ids(s, s.hands[2]) == ["cold"]
    assert s.hands[0] == []
    with pytest.raises(IllegalMove):
        s.play("vendetta switcheroo non-red cold")


def test_finders_keepers_takes_a_card_and_a_sixth_card_means_a_discard():
    # '"Finders Keepers" take any card from an opponent to yourself. If you then have 6
    # cards, discard one.'
    s = game(hands={0: ["finders", "mono-bb"], 1: ["cold", "sorry"]})
    s = after_drawing(s, "rkk")
    assert s.legal_moves() == ["vendetta finders cold", "vendetta finders sorry"]
    s.play("vendetta finders cold")
    assert ids(s, s.hands[0]) == ["mono-bb", "cold"] and ids(s, s.hands[1]) == ["sorry"]
    full = game(hands={0: ["finders", "mono-bb", "mono-gg", "mono-yy"], 1: ["cold"]})
    full = after_drawing(full, "rkk")
    full.play("vendetta finders cold")
    assert full.phase == boars.PH_DISCARD
    # The vendetta is still in hand while it resolves (house reading): 6 cards.
    assert full.legal_moves() == ["discard cold", "discard mono-bb", "discard mono-gg",
                                  "discard mono-yy"]
    full.play("discard mono-gg")
    assert ids(full, full.hands[0]) == ["mono-bb", "mono-yy", "cold"]
    assert ids(full, full.deck[-2:]) == ["mono-gg", "finders"]
    assert full.phase == boars.PH_ACT


def test_sorry_not_sorry_discards_all_cards_of_one_player():
    # '"Sorry, not sorry" discard all cards of any one player.'
    s = game(3, hands={0: ["sorry", "mono-bb"], 1: ["cold", "non-red"], 2: []})
    s = after_drawing(s, "rk")
    assert s.legal_moves() == ["vendetta sorry 1"]
    s.play("vendetta sorry 1")
    assert s.hands[1] == [] and ids(s, s.deck[-3:]) == ["cold", "non-red", "sorry"]
    assert ids(s, s.hands[0]) == ["mono-bb"]


def test_disrupt_vendettas_never_touch_boar_cards():
    # '"Disrupt" vendettas allow you to manipulate player's cards (excluding Boar cards)'
    s = game(hands={0: ["finders"]})
    s = after_drawing(s, "rkk")
    assert s.phase == boars.PH_ACT  # the opponent holds only a Boar card: no target


# ---------------------------------------------------------------- the turn example

def test_the_rulebooks_turn_example():
    # "Alex decided to draw 10 cubes from his bag. ... He got 3 red, 1 blue, 2 yellow, 2
    # green and 2 black." Alex is player 0 with the boar of the example (house card
    # tusker: 1 green -> 1, 2 yellow -> 3); an opponent stands on the next Prickly Cab
    # station (space 7); a Portion Diet (cost 2) is on display.
    s = game(pos=[0, 7], boar={0: "tusker", 1: "bristle"},
             display=["portion-6", "mono-rr", "combo-rb", "knowledge"])
    s = draw_exactly(s, "rrrbyyggkk")
    assert s.drawn == [3, 1, 2, 2, 2]
    # "First, he used both diets on his hog card discarding one green cube to advance 1
    # space on the track and then 2 yellow cubes to advance 3 more spaces."
    s.play("diet top")
    s.play("diet bottom")
    assert s.pos[0] == 4
    # "Although he had another green cube, he couldn't use it for movement since you can
    # only use your diet once per turn."
    assert s.front[G] == 1 and "diet top" not in s.legal_moves()
    # "So, he elected to spend it one of the available cards - getting Portion Diet by
    # discarding green and blue cubes to the reserve."
    s.play("buy portion-6 bg")
    assert ids(s, s.hands[0]) == ["portion-6"] and s.front == [3, 0, 0, 0, 2]
    # "Next, because he drew exactly 3 red cubes, he chose to discard them as a ticket to
    # move to the next Prickle Cab station."
    s.play("ticket cab")
    assert s.pos[0] == 7
    # "However, one of opponents already was on that spot. That opponent had to move two
    # spaces back."
    s.play("end")
    assert s.pos == [7, 5]
    # "Then, since he was finishing his turn on the red transport station, he gained 1 red
    # cube and an additional blue cube."
    assert "take rb" in s.legal_moves()
    s.play("take rb")
    # "And finally, he put his black cubes back into his bag."
    assert s.bags[0] == [5 - 3 + 1, 5 - 1 + 1, 5 - 2, 5 - 2, 5]
    assert s.to_act() == 1 and s.turn_count() == 1


# ---------------------------------------------------------------- house defaults

def test_options_are_spelled_out_and_deal_the_same_game():
    s = boars.new_game(3, seed=9)
    assert s.options() == {"track": "house-1", "cards": "house-1", "cubes": 30,
                           "max_turns": 300, "min_draw": 0}
    assert [o[0] for o in boars.OPTIONS] == ["track", "cards", "cubes", "max_turns",
                                            "min_draw"]
    assert boars.new_game(3, 9, **s.options()) == s


def test_the_cubes_option_sets_the_limited_supply():
    s = boars.new_game(4, cubes=20)
    assert s.supply == [0, 0, 0, 0]
    with pytest.raises(BadPosition, match="from 20"):
        boars.new_game(4, cubes=19)
    with pytest.raises(BadPosition, match="cubes"):
        boars.new_game(2, cubes="many")


def test_the_turn_limit_ends_the_game_with_its_own_reason():
    s = boars.new_game(2, seed=2, max_turns=4)
    s.pos = [0, 0]
    while not s.is_over():
        s.play("draw 1")
        while s.phase != boars.PH_DRAW and not s.is_over():
            ms = s.legal_moves()
            s.play("end" if "end" in ms else ms[0])
    assert s.end_reason() == "turns" and s.turn_count() == 4 and s.legal_moves() == []
    with pytest.raises(BadPosition, match="max_turns"):
        boars.new_game(2, max_turns=0)


def test_at_the_turn_limit_the_boar_furthest_along_wins_or_nobody_on_a_tie():
    s = game(pos=[8, 4], max_turns=1)  # 8 is a red foodstuff space
    s.play("draw 3")
    s.play("end")
    s.play("take rrr")
    assert s.is_over() and s.end_reason() == "turns"
    assert s.scores() == [8, 4] and s.winner() == 0
    t = check(s)
    t.pos = [5, 5]
    assert t.winner() is None and t.scores() == [5, 5]


# ---------------------------------------------------------------- data files

def test_house_data_sets_are_named_and_parse():
    assert sorted(boars_data.TRACKS) == ["house-1"] and sorted(boars_data.CARDS) == ["house-1"]
    track = boars.parse_track(boars_data.TRACK_HOUSE_1)
    assert len(track.kinds) == 96 and track.kinds[0] == boars.K_START
    assert track.kinds[95] == boars.K_FINISH
    cards = boars.parse_cards(boars_data.CARDS_HOUSE_1)
    kinds = set(c["kind"] for c in cards.cards)
    assert kinds == set(boars.DIET_KINDS + boars.VENDETTA_KINDS)
    assert len(cards.boars) == 4
    spaces = boars.track_spaces()
    assert spaces[7] == {"kind": "station", "colour": "red"} and spaces[0]["colour"] is None
    info = {c["id"]: c for c in boars.cards_list()}
    assert info["tusker"] == {"id": "tusker", "kind": "boar", "type": "boar", "cost": None,
                              "pay": "g", "move": 1, "pay2": "yy", "move2": 3,
                              "text": "pay g: move 1; pay yy: move 3"}
    assert info["pullback-3"]["type"] == "vendetta" and info["non-red"]["colour"] == "red"


def test_a_users_own_files_are_given_as_text_and_replay():
    track = boars_data.TRACK_HOUSE_1.replace("# spaces 0 to 9\nstart\nfood,red",
                                             "# mine\nstart\nfood,blue")
    cards = boars_data.CARDS_HOUSE_1.replace("mono-rr,mono,2,pay=rr,move=4",
                                             "mono-rr,mono,1,pay=rr,move=9")
    s = boars.new_game(2, seed=4, track=track, cards=cards)
    assert s.options()["track"] == track and s.options()["cards"] == cards
    assert s.space(1) == {"kind": "food", "colour": "blue"}
    assert s.card(num(s, "mono-rr"))["move"] == 9
    record = {"game": "boars", "players": 2, "seed": 4, "options": s.options(), "moves": []}
    while len(record["moves"]) < 30:
        ms = s.legal_moves()
        m = ms[len(record["moves"]) * 7 % len(ms)]
        s.play(m)
        record["moves"].append(m)
    assert games.replay(record) == s
    assert boars.from_json(s.to_json()) == s


def test_an_unknown_built_in_name_is_refused():
    with pytest.raises(BadPosition, match="'house-9' is not a built-in track"):
        boars.new_game(2, track="house-9")
    with pytest.raises(BadPosition, match="not a built-in cards"):
        boars.new_game(2, cards="")


def track_with(line_no, text):
    """The house track with one space line (0-based space number) replaced."""
    lines = boars_data.TRACK_HOUSE_1.split("\n")
    spaces = [i for i, l in enumerate(lines)
              if l and not l.startswith("#") and l != "kind,colour"]
    lines[spaces[line_no]] = text
    return "\n".join(lines), spaces[line_no] + 1


@pytest.mark.parametrize("space,text,message", [
    (5, "food,purple", "field 'colour': 'purple' is not a colour"),
    (5, "swamp,red", "field 'kind': 'swamp' is not a kind of space"),
    (5, "food", "field 'colour': a food space needs a colour"),
    (5, "food,red,3", "a space has 2 fields"),
    (0, "food,red", "field 'kind': the first space must be the start"),
    (95, "food,red", "field 'kind': the last space must be the finish"),
    (5, "start", "field 'kind': only the first space is the start"),
    (5, "finish", "field 'kind': only the last space"),
    (0, "start,red", "field 'colour': start has no colour"),
])
def test_a_bad_track_names_the_line_and_the_field(space, text, message):
    track, line = track_with(space, text)
    with pytest.raises(BadPosition) as err:
        boars.parse_track(track)
    assert "track line %d (space %d)" % (line, space) in str(err.value)
    assert message in str(err.value)
    with pytest.raises(BadPosition, match="track line %d" % line):
        boars.new_game(2, track=track)


def test_a_track_that_is_not_96_spaces_is_refused():
    short = boars_data.TRACK_HOUSE_1.replace("food,green\nfinish", "finish")
    with pytest.raises(BadPosition, match="the track file has 95 spaces; a track has 96"):
        boars.parse_track(short)
    cut = "\n".join(boars_data.TRACK_HOUSE_1.split("\n")[:30]) + "\n"
    lines = [l for l in cut.split("\n") if l and not l.startswith("#")]
    with pytest.raises(BadPosition, match="has %d spaces; a track has 96" % (len(lines) - 1)):
        boars.parse_track(cut)
    long = boars_data.TRACK_HOUSE_1.replace("\nfinish", "\nfood,red\nfinish")
    with pytest.raises(BadPosition, match="the last space must be the finish"):
        boars.parse_track(long)
    extra = boars_data.TRACK_HOUSE_1 + "food,red\n"
    with pytest.raises(BadPosition, match="track line 112 .space 95.* more spaces follow"):
        boars.parse_track(extra)
    with pytest.raises(BadPosition, match="header 'kind,colour'"):
        boars.parse_track("start\n" + boars_data.TRACK_HOUSE_1)
    with pytest.raises(BadPosition, match="no header"):
        boars.parse_track("# nothing\n")
    with pytest.raises(BadPosition, match="not printable ASCII"):
        boars.parse_track(boars_data.TRACK_HOUSE_1.replace("# kind", "# k\u00efnd"))
    with pytest.raises(BadPosition, match="characters long"):
        boars.parse_track("#" * 70000)
    with pytest.raises(BadPosition, match="is a text"):
        boars.parse_track(None)


def cards_with(old, new):
    text = boars_data.CARDS_HOUSE_1
    assert old in text
    text = text.replace(old, new)
    line = text.split("\n").index(new.split("\n")[0]) + 1 if new else None
    return text, line


@pytest.mark.parametrize("old,new,message", [
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono,2,pay=rx,move=4",
     "field 'pay': 'rx' is not 1 to 9 cube letters"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono,2,pay=rr", "field 'move': missing"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono,2,pay=rr,move=4,colour=red",
     "field 'colour': a mono card has no such field"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono,2,pay=rb,move=4",
     "a mono diet pays cubes of one colour"),
    ("combo-rb,combo,2,pay=rb,move=4", "combo-rb,combo,2,pay=rr,move=4",
     "a combo diet pays cubes of 2 or more colours"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono,two,pay=rr,move=4",
     "field 'cost': 'two' is not a whole number"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono,2,pay=rr,move=0",
     "field 'move': '0' is not a whole number from 1 to 30"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono,2,pay=rr,move=4,move=5",
     "field 'move': given twice"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono,2,pay=rr,move",
     "'move' is not a field written key=value"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,diet,2,pay=rr,move=4",
     "field 'kind': 'diet' is not a kind of card"),
    ("mono-yy,mono,2,pay=yy,move=4", "mono-bb,mono,2,pay=yy,move=4",
     "field 'id': 'mono-bb' is already the id of line"),
    ("mono-rr,mono,2,pay=rr,move=4", "Mono,mono,2,pay=rr,move=4", "field 'id': 'Mono'"),
    ("mono-rr,mono,2,pay=rr,move=4", "top,mono,2,pay=rr,move=4", "field 'id': 'top'"),
    ("mono-rr,mono,2,pay=rr,move=4", "mono-rr,mono", "needs at least id,kind,cost"),
    ("non-red,non,2,colour=red,move=3", "non-red,non,2,colour=pink,move=3",
     "field 'colour': 'pink' is not a colour"),
    ("pullback-3,pullback,2,black=1,spaces=3", "pullback-3,pullback,2,black=6,spaces=3",
     "field 'black': '6' is not a whole number from 0 to 5"),
    ("bristle,boar,-,pay=y,move=1,pay2=rr,move2=3", "bristle,boar,2,pay=y,move=1,pay2=rr,move2=3",
     "field 'cost': a Boar card is not bought"),
    ("feast-red,feast,2,colour=red,gain=rrr", "feast-red,feast,2,colour=red,gain=kk",
     "field 'gain': 'kk' is not 1 to 9 cube letters"),
])
def test_a_bad_card_file_names_the_line_and_the_field(old, new, message):
    text, line = cards_with(old, new)
    with pytest.raises(BadPosition) as err:
        boars.parse_cards(text)
    assert "cards line %d" % line in str(err.value) and message in str(err.value)


def test_a_card_file_needs_its_boars_and_enough_cards():
    text = boars_data.CARDS_HOUSE_1.replace("trotter,boar,-,pay=b,move=1,pay2=gg,move2=3\n", "")
    with pytest.raises(BadPosition, match="3 Boar cards; 4 players need 4"):
        boars.parse_cards(text)
    head = "id,kind,cost,fields\n" + "\n".join(
        l for l in boars_data.CARDS_HOUSE_1.split("\n") if ",boar," in l)
    with pytest.raises(BadPosition, match="0 Diet and Vendetta cards"):
        boars.parse_cards(head + "\n")
    with pytest.raises(BadPosition, match="header 'id,kind,cost,fields'"):
        boars.parse_cards("id,kind\n")


# ---------------------------------------------------------------- hidden information

def test_views_hide_other_bags_and_the_unseen_deck_order_but_not_public_things():
    s = game(3, pos=[3, 9, 12], hands={1: ["cold"]})
    s = after_drawing(s, "rrbk")
    twin = s.clone()
    # Player 1 and player 2 swap a blue and a green cube between their bags...
    twin.bags[1][B] -= 1
    twin.bags[1][G] += 1
    twin.bags[2][B] += 1
    twin.bags[2][G] -= 1
    # ... the unseen deck is in another order and the PRNG differs.
    twin.deck[:twin.deck_hidden] = twin.deck[:twin.deck_hidden][::-1]
    twin.rng = 12345
    twin = check(twin)
    assert twin != s
    assert twin.view(0) == s.view(0) and twin.view(None) == s.view(None)
    assert twin.view(1) != s.view(1) and twin.view(2) != s.view(2)
    v = s.view(0)
    assert v["bag"] == s.bags[0] and v["bag_sizes"] == [21, 25, 25]
    assert v["front"] == counts("rrbk") and v["drawn"] == counts("rrbk")
    assert v["positions"] == [3, 9, 12] and v["hands"] == [[], ["cold"], []]
    assert v["decision"] == "act" and v["to_act"] == 0 and v["viewer"] == 0
    assert v["display"] == ["mono-rr", "combo-rb", "portion-6", "knowledge"]
    assert v["deck_size"] == len(s.deck) and v["deck_known"] == []
    assert json.loads(json.dumps(v)) == v
    # Anything public that differs shows.
    moved = s.clone()
    moved.pos[2] = 13
    assert moved.view(0) != s.view(0)
    with pytest.raises(BadPosition, match="a view is for a player"):
        s.view(3)


def test_determinize_keeps_the_view_and_samples_the_rest():
    s = game(3, pos=[3, 9, 12], hands={1: ["cold"]},
             boar={0: "bristle", 1: "tusker", 2: "snout"})
    s = after_drawing(s, "rrbk")
    s.play("diet bottom")
    assert s.pos[0] == 6
    for viewer in (None, 0, 1, 2):
        view = s.view(viewer)
        bags = set()
        for seed in range(12):
            d = boars.determinize(view, seed)
            assert d.view(viewer) == view
            if viewer == s.to_act():
                assert d.legal_moves() == s.legal_moves()
            bags.add(json.dumps(d.bags))
            assert d.options() == s.options()
        if viewer is None:
            assert len(bags) > 1  # opponents' bags are sampled
    # The viewer's own bag is kept exactly.
    d = boars.determinize(s.view(2), 5)
    assert d.bags[2] == s.bags[2]
    # The known bottom of the deck stays in place; the unseen top is reshuffled.
    t = game(hands={0: ["careless", "mono-bb"]})
    t = after_drawing(t, "rk")
    t.play("diet careless mono-bb")
    d = boars.determinize(t.view(1), 3)
    assert d.card_id(d.deck[-1]) == "mono-bb" and d.deck_hidden == t.deck_hidden
    orders = set(tuple(boars.determinize(t.view(1), k).deck) for k in range(5))
    assert len(orders) > 1


def test_determinize_refuses_a_view_that_does_not_add_up():
    view = game().view(0)
    bad = dict(view, bag_sizes=[25, 26])
    with pytest.raises(BadPosition, match="bag"):
        boars.determinize(bad, 1)
    with pytest.raises(BadPosition, match="not a Boars on the Run! view"):
        boars.determinize({"game": "vora"}, 1)
    with pytest.raises(BadPosition, match="deck_hidden"):
        boars.determinize(dict(view, deck_hidden=3), 1)


# ---------------------------------------------------------------- JSON and refusals

def test_json_round_trip_and_errors_name_the_field():
    s = game()
    s = after_drawing(s, "rrbk")
    d = json.loads(s.to_json())
    assert boars.from_json(d) == s and boars.from_json(s.to_json()).digest() == s.digest()
    assert repr(s).startswith("boars.from_json(")
    for key, value, message in [
        ("positions", [0, 96], "positions"),
        ("phase", "nap", "phase"),
        ("hands", [["nope"], []], "'nope' is not a card"),
        ("bags", [[5, 5, 5, 5, 5], [5, 5, 5, 5, 5]], "red cubes"),
        ("rng", 0, "rng"),
        ("end", "finish", "end"),
        ("display", ["mono-rr"], "display"),
        ("used", ["top", "top"], "used"),
        ("active", 2, "active"),
    ]:
        with pytest.raises(BadPosition, match=message):
            boars.from_json(dict(d, **{key: value}))
    missing = dict(d)
    del missing["supply"]
    with pytest.raises(BadPosition, match="field 'supply' is missing"):
        boars.from_json(missing)
    dup = dict(d, hands=[["mono-rr"], []])
    with pytest.raises(BadPosition, match="exactly one place"):
        boars.from_json(dup)


def test_refused_moves_name_the_reason_and_change_nothing():
    s = game(hands={0: ["mono-bb"]})
    before = s.to_json()
    for move, reason in [
        ("draw -1", "one number"), ("draw 26", "0 to 25"), ("draw", "one number"),
        ("hop 3", "unknown move word 'hop'"), ("end", "now is the time to draw"),
        (7, "notation string"),
    ]:
        with pytest.raises(IllegalMove, match=reason):
            s.play(move)
        assert s.to_json() == before
    s = after_drawing(s, "rrk")
    before = s.to_json()
    for move, reason in [
        ("diet mono-bb", "condition is not met"), ("diet cold", "not a card in your hand"),
        ("buy cold rr", "not on display"), ("buy nope rr", "'nope' is not a card"),
        ("ticket bus", "tickets: cab"), ("ticket metro", "exactly 5 blue"),
        ("end now", "no argument"), ("take r", "now is the time to use cubes"),
        ("buy mono-rr  rr", "single spaces"),
    ]:
        with pytest.raises(IllegalMove, match=reason):
            s.play(move)
        assert s.to_json() == before


def test_random_two_player_games_on_the_house_data_reach_the_finish():
    # Balance yardstick (docs/rules-decisions.md): random players reach the Finish in
    # about 80 turns each, well inside the 300-turn safeguard.
    import random
    for seed in range(10):
        rnd = random.Random(seed)
        s = boars.new_game(2, seed=seed)
        while not s.is_over():
            s.play(rnd.choice(s.legal_moves()))
        assert s.end_reason() == "finish" and s.winner() == s.pos.index(boars.FINISH)


# ---------------------------------------------------------------- more house decisions

def test_a_vendetta_works_while_sick():
    # "Vendetta cards and some of the Diet cards can be used without spending cubes. These
    # can be used even when your boar got sick" (a user's card triggering on 3 black).
    cards = boars_data.CARDS_HOUSE_1.replace("pullback-3,pullback,2,black=1,spaces=3",
                                             "pullback-3,pullback,2,black=3,spaces=3")
    s = game(pos=[0, 20], hands={0: ["pullback-3"]}, cards=cards)
    s = after_drawing(s, "rkkk")
    assert s.view(0)["sick"] and s.legal_moves() == ["vendetta pullback-3 1"]
    s.play("vendetta pullback-3 1")
    assert s.pos == [0, 17]


def test_a_sick_boar_buys_no_card_even_one_that_costs_nothing():
    # "If your boar did not get sick, you can now use your cubes in three different ways:
    # - Buy a card". A user's card file with a card of cost 0: only a boar that is not
    # sick may buy it.
    cards = boars_data.CARDS_HOUSE_1.replace("mono-rr,mono,2,", "mono-rr,mono,0,")
    s = after_drawing(game(cards=cards), "rkkk")
    assert s.view(0)["sick"] and s.legal_moves() == ["end"]
    with pytest.raises(IllegalMove, match="your boar is sick"):
        s.play("buy mono-rr -")
    t = after_drawing(game(cards=cards), "rkk")
    assert "buy mono-rr -" in t.legal_moves()


def test_a_vendetta_bought_this_turn_does_not_trigger_this_turn():
    # House: vendettas are resolved "first, before any other actions".
    s = game(pos=[0, 20], display=["pullback-3", "mono-rr", "cold", "careless"])
    s = after_drawing(s, "rrk")
    s.play("buy pullback-3 rr")
    assert s.phase == boars.PH_ACT and ids(s, s.hands[0]) == ["pullback-3"]
    assert not [m for m in s.legal_moves() if m.startswith("vendetta")]


def test_overtake_is_mandatory_even_onto_a_boar_behind():
    # House: the only legal target may be behind you; the card is mandatory.
    s = game(pos=[30, 16], hands={0: ["overtake-red"]})  # 30 is a red station, 16 red food
    s = after_drawing(s, "bk")
    assert s.legal_moves() == ["vendetta overtake-red 0", "vendetta overtake-red 1"]
    s.play("vendetta overtake-red 1")
    assert s.pos == [17, 16]


def test_a_boar_that_did_not_move_still_bumps_a_boar_on_its_space():
    # House: the bump is checked when movement ends, moved or not.
    s = game(pos=[8, 8])  # a red foodstuff space
    s = after_drawing(s, "kkk")
    s.play("end")
    assert s.pos == [8, 6] and s.phase == boars.PH_SPACE


def test_a_gatherer_acts_on_a_station_too():
    # "... from foodstuff spaces or transport stations."
    s = game(pos=[12, 0], hands={0: ["gatherer-yellow", "gatherer-red"]})
    s = after_drawing(s, "kkk")
    s.play("end")
    s.play("take ry")
    assert s.bags[0] == [5 + 2, 5, 5 + 2, 5, 5]


def test_an_empty_deck_leaves_a_bought_cards_slot_empty():
    # House: no reshuffle; the slot stays empty until the menu is changed.
    lines = boars_data.CARDS_HOUSE_1.split("\n")
    wanted = ("bristle", "tusker", "snout", "trotter", "mono-rr", "mono-bb", "mono-yy",
              "mono-gg", "non-red")
    keep = [l for l in lines if l.startswith("#") or l.split(",")[0] in ("id",) + wanted]
    s = game(display=["mono-rr", "mono-bb", "mono-yy", "mono-gg"], cards="\n".join(keep))
    assert ids(s, s.deck) == ["non-red"]
    s = after_drawing(s, "rrk")
    s.play("buy mono-rr rr")
    assert ids(s, s.display) == ["non-red", "mono-bb", "mono-yy", "mono-gg"] and s.deck == []
    s.play("end")
    while s.phase != boars.PH_DRAW:
        s.play(s.legal_moves()[0])
    s = after_drawing(s, "bbk")
    s.play("buy mono-bb bb")
    assert s.view(0)["display"] == ["non-red", None, "mono-yy", "mono-gg"]
    assert "buy" not in " ".join(s.legal_moves())
