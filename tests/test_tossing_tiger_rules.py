"""Tossing Tiger, Rolling Dragon, rule by rule: each test quotes the rulebook sentence
(../shared/rulebooks/tossing-tiger-rolling-dragon.md) or the FACTS.md fact it checks and
plays it as a scenario. House defaults (docs/rules-decisions.md) are tested too.

Scenarios start from chosen hands (`tt.from_hands`). Dice made of cards of one animal roll
predictably; where chance decides (a die of mixed cards, the Tiger's toss), the test checks
the rule for every outcome over several seeds. The strength table is house-1:

    dragon: tiger mantis crane panda      mantis: crane monkey leopard
    crane: monkey panda turtle            monkey: tiger dragon turtle leopard
    turtle: dragon mantis leopard         leopard: dragon mantis crane panda
    tiger, panda: none

so mantis beats crane, mantis and leopard are strong against each other, and two mantises
are strong against neither.
"""

import json
import random

import pytest

from shared_rules import games, prng
from shared_rules import tossing_tiger as tt
from shared_rules import tossing_tiger_data as data
from shared_rules.errors import BadPosition, IllegalMove


# ---------------------------------------------------------------- helpers

def build(s, piles):
    """The player to act makes these dice, left to right; the last one fills itself (a
    single die is made without any move)."""
    if len(piles) == 1:
        return
    assert s.phase() == "build"
    for pile in piles[:-1]:
        for c in pile:
            s.play("add " + c)
        s.play("next")


def war(hands, fight, att, dfn, seed=0, **options):
    """From these hands: player 0 announces `fight`, then both make their dice."""
    s = tt.from_hands(hands, seed=seed, **options)
    s.play(fight)
    build(s, att)
    build(s, dfn)
    return s


def keep_all(s):
    while s.phase() == "keep":
        card = s.legal_moves()[0].split()[1]
        s.play("keep " + card)


def result(s, battle):
    return s.battle_result(battle)


def war_of(s):
    """The war in progress, or the one fought last."""
    return s.war() or s.last_war()


def faces(s, battle):
    """The cards last revealed in a battle (they stay shown after being grabbed)."""
    bt = war_of(s)["b"][battle - 1]
    return [side["shown"] for side in bt["s"]]


def rooster_game(rule, change, hands, fight, seed=0, **options):
    """Dawndojo with one Rooster card (rooster1) having this Dawn rule and Change."""
    options.setdefault("dawndojo", True)
    options["roosters"] = "%s %s" % (rule, change)
    s = tt.from_hands(hands, seed=seed, **options)
    s.play(fight)
    return s


# ---------------------------------------------------------------- setup

@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup_deals_six_cards_each_and_the_rest_is_a_facedown_draw_pile(players):
    # "Deal all players a random deck of 6 cards. Place all remaining cards to the side as
    # a facedown draw pile."
    s = tt.new_game(players, seed=3)
    assert [len(h) for h in s.s["hands"]] == [6] * players
    assert len(s.s["draw"]) == 48 - 6 * players
    assert sorted(sum(s.s["hands"], []) + s.s["draw"]) == tt.deck_of(s.options())
    view = s.view(0)
    assert view["draw"] == 48 - 6 * players  # facedown: a count, never the cards
    assert view["hands"][0] == s.s["hands"][0]
    assert all(view["hands"][p] == 6 for p in range(1, players))


def test_the_deal_is_random_but_replays_from_the_seed():
    assert tt.new_game(3, seed=11) == tt.new_game(3, seed=11)
    hands = set(json.dumps(tt.new_game(3, seed=k).s["hands"]) for k in range(6))
    assert len(hands) == 6


def test_the_box_holds_six_of_each_base_animal():
    # FACTS: "Base deck: 8 animals, 6 copies each (48 cards)".
    deck = tt.deck_of(tt.new_game(2).options())
    assert len(deck) == 48
    assert all(deck.count(a) == 6 for a in data.BASE_ANIMALS)


# ---------------------------------------------------------------- objective

def test_the_game_ends_when_a_player_has_fewer_than_2_cards_and_most_cards_wins():
    # "The game ends when a player has fewer than 2 cards left. Whoever has the most cards
    # at that moment wins!"
    s = war([["mantis", "mantis"], ["crane", "crane"]], "fight 1 1", [["mantis", "mantis"]],
            [["crane", "crane"]])
    # One battle: mantis beats crane; player 0 grabs the crane and, winning the war, the
    # rest of that die.
    assert s.phase() == "keep" and s.legal_moves() == ["discard crane", "keep crane"]
    keep_all(s)
    assert s.is_over() and s.end_reason() == "cards"
    assert s.scores() == [4, 0] and s.winner() == 0 and s.winners() == [0]
    assert s.legal_moves() == [] and s.to_act() is None


def test_a_tie_for_most_cards_is_a_draw():
    s = war([["mantis", "mantis"], ["crane", "crane"], ["dragon", "dragon", "tiger", "tiger"]],
            "fight 1 1", [["mantis", "mantis"]], [["crane", "crane"]])
    keep_all(s)
    assert s.end_reason() == "cards"
    assert s.scores() == [4, 0, 4] and s.winner() is None and s.winners() == []


# ---------------------------------------------------------------- turns and the number

def test_turns_go_clockwise_from_the_start_player_and_each_turn_is_a_war():
    # "From start player, take clockwise turns. On your turn you always wage war against
    # another player."
    s = tt.from_hands([["mantis", "mantis"], ["crane", "crane"], ["mantis", "mantis"]])
    assert s.to_act() == 0 and s.phase() == "fight"
    assert {m.split()[1] for m in s.legal_moves()} == {"1", "2"}
    s.play("fight 2 1")  # one die each: mantis against mantis, both win a card
    keep_all(s)
    assert s.to_act() == 1 and s.turn_count() == 1 and s.phase() == "fight"
    assert {m.split()[1] for m in s.legal_moves()} == {"0", "2"}


def test_the_number_is_what_both_fighters_can_follow_with_piles_of_2_or_more():
    # "Say a number. That's how many piles (or "dice") both fighters must create out of
    # their deck. Every pile must have at least 2 cards, and you can't pick a number you or
    # your opponent can't legally follow."
    s = tt.from_hands([["crane"] * 6, ["mantis"] * 4, ["dragon"] * 5])
    assert s.legal_moves() == ["fight 1 1", "fight 1 2", "fight 2 1", "fight 2 2"]
    with pytest.raises(IllegalMove, match="make that many dice"):
        s.play("fight 1 3")
    with pytest.raises(IllegalMove, match="make that many dice"):
        s.play("fight 0 1")


def test_min_dice_is_a_house_option_that_keeps_the_rulebooks_any_number_by_default():
    # The rulebook lets the attacker say any number both can follow, 1 included: a war of
    # one die bets whole hands on one battle (docs/rules-decisions.md, "The one-die war").
    hands = [["crane"] * 6, ["mantis"] * 4, ["dragon"] * 2]
    assert tt.from_hands(hands).legal_moves() == [
        "fight 1 1", "fight 1 2", "fight 2 1"]
    two = tt.from_hands(hands, min_dice=2)
    assert two.legal_moves() == ["fight 1 2", "fight 2 1"]
    with pytest.raises(IllegalMove, match="make that many dice"):
        two.play("fight 1 1")
    assert two.options()["min_dice"] == 2
    # Where the hands cannot follow the minimum: as many dice as they can follow.
    three = tt.from_hands(hands, min_dice=3)
    assert three.legal_moves() == ["fight 1 2", "fight 2 1"]
    with pytest.raises(BadPosition, match="min_dice must be from 1 to 3"):
        tt.from_hands(hands, min_dice=4)


def test_the_whole_deck_goes_into_the_piles_of_at_least_2_cards():
    s = tt.from_hands([["crane", "crane", "mantis", "mantis", "dragon"], ["tiger"] * 4])
    s.play("fight 1 2")
    assert s.legal_moves() == ["add crane", "add dragon", "add mantis"]
    s.play("add crane")
    with pytest.raises(IllegalMove, match="needs at least 2 cards"):
        s.play("next")
    s.play("add crane")
    s.play("add mantis")  # a die of 3 leaves 2 for the other: fine
    assert "add dragon" not in s.legal_moves()  # 4 here would leave 1 card for the second
    with pytest.raises(IllegalMove, match="too few cards"):
        s.play("add dragon")
    s.play("next")
    # The last die takes the cards left, and the defender makes theirs.
    assert s.war()["b"][0]["s"][0]["pile"] == ["crane", "crane", "mantis"]
    assert s.war()["b"][1]["s"][0]["pile"] == ["dragon", "mantis"]
    assert s.to_act() == 1 and s.phase() == "build" and s.s["hands"][0] == []


def test_a_single_die_is_made_by_itself():
    s = tt.from_hands([["crane"] * 3, ["mantis"] * 2])
    s.play("fight 1 1")
    assert s.phase() == "keep"  # no build move: both dice were made and fought
    assert faces(s, 1) == ["crane", "mantis"]


def test_piles_face_each_other_in_pairs_and_battles_go_left_to_right():
    # "Once those piles are created, place them in pairs (one against one) on the table, in
    # two rows. Every single pair is called a "battle"; the entire turn is called a "war"."
    # "For every pair, from left to right ..."
    s = war([["mantis", "mantis", "crane", "crane"], ["crane", "crane", "mantis", "mantis"]],
            "fight 1 2", [["mantis", "mantis"], ["crane", "crane"]],
            [["crane", "crane"], ["mantis", "mantis"]])
    assert faces(s, 1) == ["mantis", "crane"] and faces(s, 2) == ["crane", "mantis"]
    assert result(s, 1) == {0} and result(s, 2) == {1}


# ---------------------------------------------------------------- rolling and actions

def test_rolling_a_die_reveals_a_random_card_of_it():
    # "Roll the dice. Shuffle the two piles and reveal the top cards."
    seen = set()
    for seed in range(12):
        s = war([["crane", "mantis"], ["turtle", "turtle"]], "fight 1 1", [["crane", "mantis"]],
                [["turtle", "turtle"]], seed=seed)
        face = faces(s, 1)[0]
        seen.add(face)
        # the card shown decides: crane beats turtle, turtle beats mantis
        assert result(s, 1) == ({0} if face == "crane" else {1})
    assert seen == {"crane", "mantis"}


def test_actions_happen_attacker_first_then_defender_and_the_owner_chooses():
    # "Some cards have special actions. Handle those now: attacker first, defender second.
    # If they require a choice, its player makes that choice now."
    s = war([["dragon", "dragon"], ["dragon", "dragon"]], "fight 1 1", [["dragon", "dragon"]],
            [["dragon", "dragon"]])
    assert s.phase() == "reroll" and s.to_act() == 0
    s.play("pass")
    assert s.phase() == "reroll" and s.to_act() == 1
    s.play("pass")
    assert s.phase() == "keep"


@pytest.mark.parametrize("a,d,reading,expect", [
    ("mantis", "crane", "rulebook", {0}),  # one strong: it wins
    ("crane", "mantis", "rulebook", {1}),
    ("mantis", "leopard", "rulebook", set()),  # both strong: nobody
    ("mantis", "mantis", "rulebook", {0, 1}),  # neither: both
    ("mantis", "crane", "published", {0}),
    ("mantis", "leopard", "published", {0, 1}),  # both strong: both
    ("mantis", "mantis", "published", set()),  # neither: nobody
])
def test_who_wins_a_battle(a, d, reading, expect):
    # "If one card is strong against the other, it wins. If both are strong against each
    # other, nobody wins. Otherwise, both players win." (FACTS: the designer's page says
    # the reverse for the last two cases: option battle_reading="published".)
    s = war([[a, a], [d, d]], "fight 1 1", [[a, a]], [[d, d]], battle_reading=reading)
    assert result(s, 1) == expect


# ---------------------------------------------------------------- spoils

def test_each_battle_won_grabs_one_card_of_the_opposing_pile_and_a_tie_has_no_war_winner():
    # "For every battle you've won, grab 1 card from the opponent's pile (inside that
    # battle)." "(If it's a tie, nobody wins.)"
    s = war([["mantis", "mantis", "crane", "crane"], ["crane", "crane", "mantis", "mantis"]],
            "fight 1 2", [["mantis", "mantis"], ["crane", "crane"]],
            [["crane", "crane"], ["mantis", "mantis"]])
    w = s.war()
    assert w["winners"] == 0  # 1 battle each
    assert [lot["cards"] for lot in w["loot"][0]] == [["crane"]]
    assert [lot["cards"] for lot in w["loot"][1]] == [["crane"]]
    assert s.phase() == "keep" and s.to_act() == 0
    s.play("keep crane")
    assert s.to_act() == 1
    s.play("discard crane")
    # Cards left in dice go back to their owners.
    assert s.hand(0) == {"crane": 2, "mantis": 2} and s.hand(1) == {"crane": 1, "mantis": 2}
    assert s.s["discard"] == ["crane"]


def test_both_winners_of_a_battle_grab_from_each_other():
    s = war([["mantis", "mantis"], ["mantis", "mantis"]], "fight 1 1", [["mantis", "mantis"]],
            [["mantis", "mantis"]])
    w = s.war()
    assert [lot["cards"] for lot in w["loot"][0]] == [["mantis"]]
    assert [lot["cards"] for lot in w["loot"][1]] == [["mantis"]]


def test_the_war_winner_grabs_the_entire_pile_of_one_of_their_won_battles():
    # "If you won the war---you won the majority of battles---you grab the entire pile from
    # one of your won battles."
    s = war([["mantis"] * 4 + ["crane"] * 2, ["crane"] * 4 + ["mantis", "mantis"]],
            "fight 1 3", [["mantis", "mantis"], ["mantis", "mantis"], ["crane", "crane"]],
            [["crane", "crane"], ["crane", "crane"], ["mantis", "mantis"]])
    # Battles 1 and 2 to player 0; battle 3: crane loses to mantis.
    assert result(s, 1) == {0} and result(s, 2) == {0} and result(s, 3) == {1}
    assert s.phase() == "claim" and s.legal_moves() == ["claim 1", "claim 2"]
    s.play("claim 2")
    loot = s.war()["loot"][0]
    assert sorted(sum((lot["cards"] for lot in loot), [])) == ["crane", "crane", "crane"]


def test_grabbed_cards_are_kept_or_discarded_one_by_one():
    # "For all cards grabbed, decide if you want to take them into your hand or discard
    # them."
    s = war([["mantis", "mantis"], ["crane", "crane", "crane"]], "fight 1 1",
            [["mantis", "mantis"]], [["crane", "crane", "crane"]])
    assert s.legal_moves() == ["discard crane", "keep crane"]
    s.play("discard crane")
    s.play("keep crane")
    s.play("discard crane")
    assert s.hand(0) == {"mantis": 2, "crane": 1} and s.s["discard"] == ["crane", "crane"]


def test_spoils_wait_for_the_end_of_the_war_because_powers_change_earlier_battles():
    # "Yes, you should wait with grabbing your spoils until the war is over. Because
    # special powers can still change things at any time." A Bull in battle 2 destroys the
    # mantis that won battle 1: battle 1 now goes to the defender.
    s = war([["mantis", "mantis", "crane", "crane"], ["crane", "crane", "bull", "bull"]],
            "fight 1 2", [["mantis", "mantis"], ["crane", "crane"]],
            [["crane", "crane"], ["bull", "bull"]], more_animals=True)
    assert result(s, 1) == {0}
    assert s.phase() == "destroy" and s.to_act() == 1
    assert s.legal_moves() == ["destroy 1a", "destroy 1d", "pass"]
    s.play("destroy 1a")
    assert result(s, 1) == {1}
    assert s.s["destroyed"] == ["mantis"]
    # Battle 2: crane against bull, neither strong (different sets): both win. War: 1 to 2.
    w = s.war()
    assert w["winners"] == 2
    # The defender grabbed from battle 1 (its revealed card is gone: the other card of the
    # die) and battle 2's crane, then the rest of battle 2's die (battle 1's is empty).
    loot = lambda sd: sorted(sum((lot["cards"] for lot in w["loot"][sd]), []))
    assert loot(1) == ["crane", "crane", "mantis"] and loot(0) == ["bull"]
    assert s.phase() == "keep" and s.to_act() == 0


# ---------------------------------------------------------------- the base set's actions

def test_the_tiger_toss_decides_the_battle():
    # FACTS: "Tiger: toss the card; face up you win this battle, face down the opponent
    # wins." The monkey is strong against the tiger, but the toss decides.
    tosses = set()
    for seed in range(16):
        s = war([["tiger", "tiger"], ["monkey", "monkey"]], "fight 1 1", [["tiger", "tiger"]],
                [["monkey", "monkey"]], seed=seed)
        side = war_of(s)["b"][0]["s"][0]
        tosses.add(side["toss"])
        assert result(s, 1) == ({0} if side["toss"] == 1 else {1})
    assert tosses == {1, 2}


@pytest.mark.parametrize("rule", ["toss-both", "attacker", "nobody"])
def test_two_tigers_meeting(rule):
    # Not covered by the rules (FACTS): option two_tigers.
    outcomes = set()
    for seed in range(16):
        s = war([["tiger", "tiger"], ["tiger", "tiger"]], "fight 1 1", [["tiger", "tiger"]],
                [["tiger", "tiger"]], seed=seed, two_tigers=rule)
        a, d = [side["toss"] for side in war_of(s)["b"][0]["s"]]
        res = result(s, 1)
        if rule == "nobody":
            assert (a, d) == (0, 0) and res == set()
        elif rule == "attacker":
            assert d == 0 and res == ({0} if a == 1 else {1})
        else:
            says = {0 if a == 1 else 1, 1 if d == 1 else 0}
            assert res == (says if len(says) == 1 else set())
        outcomes.add(frozenset(res))
    expect = {"nobody": [set()], "attacker": [{0}, {1}], "toss-both": [set(), {0}, {1}]}
    assert outcomes == set(frozenset(e) for e in expect[rule])


def test_the_dragon_rerolls_this_battle_or_an_earlier_one():
    # FACTS: "Dragon: reroll this battle or an earlier one (choice)." A reroll rolls the
    # owner's die of that battle again: in battle 1 the attacker's crane-or-mantis die.
    seen = set()
    for seed in range(10):
        s = war([["crane", "mantis", "dragon", "dragon"], ["mantis", "mantis", "crane", "crane"]],
                "fight 1 2", [["crane", "mantis"], ["dragon", "dragon"]],
                [["mantis", "mantis"], ["crane", "crane"]], seed=seed)
        assert s.phase() == "reroll" and s.legal_moves() == ["pass", "reroll 1", "reroll 2"]
        s.play("reroll 1")
        face = faces(s, 1)[0]
        seen.add(face)
        # Battle 1 is settled again with the new card: mantis-mantis both win, crane loses.
        assert result(s, 1) == ({0, 1} if face == "mantis" else {1})
    assert seen == {"crane", "mantis"}


def test_the_dragon_may_reroll_its_own_battle():
    s = war([["dragon", "dragon"], ["crane", "crane"]], "fight 1 1", [["dragon", "dragon"]],
            [["crane", "crane"]])
    s.play("reroll 1")  # dragon again: the new card has no action (it was not a regular roll)
    assert faces(s, 1) == ["dragon", "crane"] and s.phase() == "keep"
    assert result(s, 1) == {0}


def test_mantis_and_crane_have_no_action():
    # FACTS: "Mantis, Crane: none."
    s = war([["mantis", "mantis"], ["crane", "crane"]], "fight 1 1", [["mantis", "mantis"]],
            [["crane", "crane"]])
    assert s.phase() == "keep"
    assert [side["act"] for side in s.war()["b"][0]["s"]] == ["", ""]


def test_the_monkey_looks_at_both_piles_of_a_later_battle():
    # FACTS: "Monkey: look at both piles of one later battle."
    s = war([["monkey"] * 2 + ["crane"] * 4, ["mantis", "mantis", "crane", "crane", "dragon", "panda"]],
            "fight 1 3", [["monkey", "monkey"], ["crane", "crane"], ["crane", "crane"]],
            [["mantis", "mantis"], ["crane", "crane"], ["dragon", "panda"]])
    assert s.phase() == "look" and s.to_act() == 0
    assert s.legal_moves() == ["look 2", "look 3", "pass"]
    assert s.view(0)["war"]["b"][2]["s"][1]["pile"] == 2  # not known yet
    s.play("look 3")
    # From now on player 0's view shows that die (battle 3 has been rolled since).
    side = s.view(0)["war"]["b"][2]["s"][1]
    assert sorted(side["pile"] + [side["shown"]]) == ["dragon", "panda"]
    assert s.view(0)["info"]["battles"][2]["d"]["known"] is True
    assert s.view(0)["war"]["b"][1]["s"][1]["pile"] == 1  # battle 2's still hidden
    assert s.view(1)["war"]["b"][1]["s"][0]["pile"] == 1  # and player 1 did not look


def test_the_panda_is_strong_against_the_animals_you_revealed_earlier():
    # FACTS: "Panda: every animal you revealed in earlier battles counts as one of its
    # strengths." Tiger and Panda print no strengths of their own.
    hands = [["mantis", "mantis", "panda", "panda"], ["mantis", "mantis", "mantis", "mantis"]]
    s = war(hands, "fight 1 2", [["mantis", "mantis"], ["panda", "panda"]],
            [["mantis", "mantis"], ["mantis", "mantis"]])
    assert result(s, 2) == {0}  # panda strong against mantis, mantis not against panda
    hands = [["crane", "crane", "panda", "panda"], ["mantis", "mantis", "mantis", "mantis"]]
    s = war(hands, "fight 1 2", [["crane", "crane"], ["panda", "panda"]],
            [["mantis", "mantis"], ["mantis", "mantis"]])
    assert result(s, 2) == {0, 1}  # no earlier mantis: neither is strong
    assert s.strength_table()["panda"] == () and s.strength_table()["tiger"] == ()


def test_the_turtle_cancels_the_opposing_action_even_the_attackers():
    # FACTS: "Turtle: cancels the opposing card's action."
    s = war([["dragon", "dragon"], ["turtle", "turtle"]], "fight 1 1", [["dragon", "dragon"]],
            [["turtle", "turtle"]])
    assert s.phase() == "keep"  # no reroll offered
    assert s.war()["b"][0]["s"][0]["off"] == 1
    assert result(s, 1) == {1}  # turtle strong against dragon


def test_the_leopard_swaps_two_of_its_owners_piles_revealed_or_not():
    # FACTS: "Leopard: swap two of your own piles, revealed or not (choice)."
    s = war([["crane", "crane", "leopard", "leopard", "dragon", "dragon"], ["mantis"] * 6],
            "fight 1 3", [["crane", "crane"], ["leopard", "leopard"], ["dragon", "dragon"]],
            [["mantis", "mantis"]] * 3)
    assert result(s, 1) == {1}  # crane lost to mantis
    assert s.phase() == "swap"
    assert s.legal_moves() == ["pass", "swap 1 2", "swap 1 3", "swap 2 3"]
    s.play("swap 1 3")
    # The dragon die moved into battle 1 is rolled there, without its action: it wins.
    assert faces(s, 1) == ["dragon", "mantis"] and result(s, 1) == {0}
    # The revealed crane die now waits in battle 3 and is rolled again there.
    assert faces(s, 3) == ["crane", "mantis"] and result(s, 3) == {1}


# ---------------------------------------------------------------- Highscore

def test_highscore_counts_minus_the_strengths_of_each_card_in_hand():
    # "The number of strengths on a card is its value in negative points. ... every player
    # sums the points of every card in their hand. Highest score wins!"
    s = war([["mantis", "mantis"], ["turtle", "turtle"]], "fight 1 1", [["mantis", "mantis"]],
            [["turtle", "turtle"]], highscore=True)
    # Turtle beats mantis: player 1 grabs both mantises.
    assert s.card_value("dragon") == -4 and s.card_value("mantis") == -3
    assert s.card_value("tiger") == 0 and s.card_value("turtle") == -3
    s.play("discard mantis")
    s.play("keep mantis")
    assert s.is_over() and s.scores() == [0, -9]
    assert s.winner() == 0  # fewer cards, but the least negative score


# ---------------------------------------------------------------- More Animals!

def test_more_animals_adds_five_of_each_new_animal():
    # FACTS: ""More Animals!" (40 cards, 5 of each; strengths only among these 8)."
    s = tt.new_game(2, more_animals=True)
    deck = tt.deck_of(s.options())
    assert len(deck) == 88 and all(deck.count(a) == 5 for a in data.ZOO_ANIMALS)
    table = s.strength_table()
    for a in data.ZOO_ANIMALS:
        assert table[a] and set(table[a]) <= set(data.ZOO_ANIMALS)


def test_later_battles_are_unrevealed_and_earlier_ones_are_before_the_card():
    # "Earlier battles refers to all battles before this card's position in the row.
    # Later battles ... after it. (Which are yet to come and should be unrevealed.)"
    s = war([["crane", "crane", "monkey", "monkey", "crane", "crane"], ["mantis"] * 6],
            "fight 1 3", [["crane", "crane"], ["monkey", "monkey"], ["crane", "crane"]],
            [["mantis", "mantis"]] * 3)
    assert s.legal_moves() == ["look 3", "pass"]  # only the later battle
    assert faces(s, 3) == ["", ""]


@pytest.mark.parametrize("first,expect", [("mantis", {0}), ("turtle", {1})])
def test_the_snake_follows_the_earlier_battles(first, expect):
    # FACTS: "Snake: always loses if you lost every earlier battle, always wins if you won
    # every earlier one." Snake against bull: bull is strong against snake. Battle 1:
    # mantis beats crane (won all), or crane beats turtle (lost all).
    hands = [[first, first, "snake", "snake"], ["crane", "crane", "bull", "bull"]]
    s = war(hands, "fight 1 2", [[first, first], ["snake", "snake"]],
            [["crane", "crane"], ["bull", "bull"]], more_animals=True)
    if s.phase() == "destroy":
        s.play("pass")
    assert result(s, 2) == expect


def test_the_snake_alone_does_nothing():
    s = war([["snake", "snake"], ["bull", "bull"]], "fight 1 1", [["snake", "snake"]],
            [["bull", "bull"]], more_animals=True)
    assert result(s, 1) == {1}  # the bull's strength decides


def test_the_peacock_takes_the_next_battle_without_a_single_winner():
    # FACTS: "Peacock: if the next battle has no single winner, you become its single
    # winner." Battle 2 is mantis against mantis: both would win.
    hands = [["peacock", "peacock", "mantis", "mantis"], ["peacock", "peacock", "mantis", "mantis"]]
    s = war(hands, "fight 1 2", [["peacock", "peacock"], ["mantis", "mantis"]],
            [["mantis", "mantis"], ["mantis", "mantis"]], more_animals=True)
    assert result(s, 2) == {0}
    s = war(hands, "fight 1 2", [["peacock", "peacock"], ["mantis", "mantis"]],
            [["peacock", "peacock"], ["mantis", "mantis"]], more_animals=True)
    assert result(s, 2) == {0, 1}  # two claims on one battle cancel


def test_the_bull_destroys_a_card_of_an_earlier_battle_out_of_the_game():
    # FACTS: "Bull: destroy a card of an earlier battle (choice)." "To destroy a card means
    # to permanently discard it, out of the game."
    s = war([["crane", "crane", "bull", "bull"], ["mantis", "mantis", "crane", "crane"]],
            "fight 1 2", [["crane", "crane"], ["bull", "bull"]],
            [["mantis", "mantis"], ["crane", "crane"]], more_animals=True)
    s.play("destroy 1d")
    assert s.s["destroyed"] == ["mantis"] and war_of(s)["b"][0]["s"][1]["face"] == ""
    assert result(s, 1) == {0}  # the defender has no card there any more
    everywhere = tt_cards(s)
    assert everywhere.count("mantis") == 6 and s.s["destroyed"].count("mantis") == 1


def test_the_red_panda_draws_when_the_opposing_card_is_strong_against_it():
    # FACTS: "Red Panda: if the opposing card is strong against it, draw a card from the
    # deck or from an earlier battle (choice)." "To draw a card means to draw blind from
    # the top of the draw pile and take into your hand/deck."
    hands = [["crane", "crane", "redpanda", "redpanda"], ["mantis", "mantis", "bull", "bull"]]
    s = war(hands, "fight 1 2", [["crane", "crane"], ["redpanda", "redpanda"]],
            [["mantis", "mantis"], ["bull", "bull"]], more_animals=True)
    assert s.phase() == "draw" and s.to_act() == 0  # bull is strong against red panda
    assert s.legal_moves() == ["draw 1a", "draw 1d", "draw deck", "pass"]
    before = len(s.s["draw"])
    s.play("draw deck")
    assert len(s.s["draw"]) == before - 1 and len(s.s["hands"][0]) == 1
    assert s.view(1)["hands"][0] == 1  # drawn blind into the hand: a secret
    s = war(hands, "fight 1 2", [["crane", "crane"], ["redpanda", "redpanda"]],
            [["mantis", "mantis"], ["bull", "bull"]], more_animals=True)
    s.play("draw 1d")  # the mantis that beat the crane: battle 1 turns
    assert s.hand(0) == {"mantis": 1} and result(s, 1) == {0}


def test_the_red_panda_does_nothing_when_the_opposing_card_is_not_strong():
    hands = [["redpanda", "redpanda"], ["frog", "frog"]]
    s = war(hands, "fight 1 1", [["redpanda", "redpanda"]], [["frog", "frog"]],
            more_animals=True)
    assert s.phase() == "keep"  # frog is not strong against red panda: no draw
    assert result(s, 1) == {0, 1}


def test_the_chameleon_copies_an_action_of_the_previous_battle():
    # FACTS: "Chameleon: copy the action of a card in the previous battle."
    hands = [["dragon", "dragon", "chameleon", "chameleon"], ["monkey", "monkey", "crane", "crane", "crane", "crane"]]
    s = tt.from_hands(hands, more_animals=True)
    s.play("fight 1 2")
    build(s, [["dragon", "dragon"], ["chameleon", "chameleon"]])
    build(s, [["monkey", "monkey"], ["crane", "crane", "crane", "crane"]])
    # Battle 1: dragon against monkey: monkey's look has no later unrevealed... it has one.
    while s.phase() in ("reroll", "look"):
        s.play("pass")
    assert s.phase() == "copy" and s.to_act() == 0
    assert s.legal_moves() == ["copy dragon", "copy monkey"]
    s.play("copy dragon")
    assert s.phase() == "reroll" and s.legal_moves() == ["pass", "reroll 1", "reroll 2"]


def test_the_chameleon_copies_by_itself_when_there_is_one_action():
    hands = [["crane", "crane", "chameleon", "chameleon"], ["tiger", "tiger", "crane", "crane"]]
    s = war(hands, "fight 1 2", [["crane", "crane"], ["chameleon", "chameleon"]],
            [["tiger", "tiger"], ["crane", "crane"]], more_animals=True)
    side = s.war()["b"][1]["s"][0]
    assert side["act"] == "tiger" and side["toss"] in (1, 2)  # it tossed like a tiger
    assert result(s, 2) == ({0} if side["toss"] == 1 else {1})


def test_the_horse_is_strong_against_everything_once_its_strengths_were_rolled():
    # FACTS: "Horse: if you already rolled all its strengths in earlier battles, it is
    # strong against everything." house-1 horse: snake bull unicorn.
    # Against a crane (another set) the horse is normally not strong: both would win.
    def run(first):
        hands = [[first, first, "bull", "bull", "unicorn", "unicorn", "horse", "horse"],
                 ["mantis"] * 6 + ["crane", "crane"]]
        s = tt.from_hands(hands, more_animals=True)
        s.play("fight 1 4")
        build(s, [[first, first], ["bull", "bull"], ["unicorn", "unicorn"], ["horse", "horse"]])
        build(s, [["mantis", "mantis"]] * 3 + [["crane", "crane"]])
        while s.phase() not in ("keep", "claim"):
            s.play("pass")  # the bull's choice
        return result(s, 4)
    assert run("snake") == {0}
    assert run("crane") == {0, 1}  # no snake earlier


def test_the_unicorn_gives_your_later_animals_a_strength_if_earlier_ones_differ():
    # FACTS: "Unicorn: if all your earlier animals differed, it becomes a strength of your
    # later animals."
    def run(first):
        hands = [[first, first, "unicorn", "unicorn", "crane", "crane"],
                 ["mantis", "mantis", "mantis", "mantis", "unicorn", "unicorn"]]
        s = war(hands, "fight 1 3", [[first, first], ["unicorn", "unicorn"], ["crane", "crane"]],
                [["mantis", "mantis"], ["mantis", "mantis"], ["unicorn", "unicorn"]],
                more_animals=True)
        return result(s, 3)
    # Crane against unicorn: different sets, neither strong: both would win.
    assert run("turtle") == {0}  # one earlier animal: all different; crane now strong
    s = war([["turtle", "turtle", "turtle", "turtle", "unicorn", "unicorn", "crane", "crane"],
             ["mantis"] * 6 + ["unicorn", "unicorn"]], "fight 1 4",
            [["turtle", "turtle"], ["turtle", "turtle"], ["unicorn", "unicorn"], ["crane", "crane"]],
            [["mantis", "mantis"]] * 3 + [["unicorn", "unicorn"]], more_animals=True)
    assert result(s, 4) == {0, 1}  # two turtles earlier: no strength added


def test_the_frog_always_loses_after_an_earlier_frog():
    # FACTS: "Frog: if anyone rolled a Frog earlier, this one always loses."
    hands = [["frog", "frog", "frog", "frog"], ["horse", "horse", "horse", "horse"]]
    s = war(hands, "fight 1 2", [["frog", "frog"], ["frog", "frog"]],
            [["horse", "horse"], ["horse", "horse"]], more_animals=True)
    assert result(s, 1) == {0}  # frog is strong against horse
    assert result(s, 2) == {1}  # the second frog always loses


# ---------------------------------------------------------------- Fight Together

def ft_hands():
    # Teams ABAB: A = players 0 and 2, B = players 1 and 3. Mantis beats crane; turtle and
    # panda are strong against neither (panda counts only B's earlier crane and panda).
    return [["mantis"] * 6, ["crane"] * 6, ["turtle"] * 6, ["panda"] * 6]


def test_fight_together_needs_teams_of_two_or_more():
    # "break the players into two teams as fairly as possible: A and B."
    with pytest.raises(BadPosition, match="4 to 6 players"):
        tt.new_game(3, fight_together=True)
    with pytest.raises(BadPosition, match="Simulwars"):
        tt.new_game(4, fight_together=True, simulwars=True)
    with pytest.raises(BadPosition, match="as even as possible"):
        tt.new_game(4, fight_together=True, teams="AAAB")
    assert tt.new_game(5, fight_together=True).options()["teams"] == "ABABA"
    s = tt.new_game(4, fight_together=True, teams="AABB")
    assert [s.team_of(p) for p in range(4)] == ["A", "A", "B", "B"]


def test_fight_together_the_number_is_greater_than_the_team_and_every_member_supplies():
    # "The current attacker states a number (of dice), as usual. This number must be
    # greater than the number of players on their team. Every team member must supply at
    # least one die. Every die must contain at least 3 cards."
    s = tt.from_hands(ft_hands(), fight_together=True)
    assert s.to_act() == 0 and s.legal_moves() == ["fight 3", "fight 4"]
    s.play("fight 3")
    # Player 0 (captain of A) may make 1 or 2 dice, player 2 then the rest.
    assert s.to_act() == 0 and s.legal_moves() == ["add mantis"]
    for _ in range(3):
        s.play("add mantis")
    assert "next" in s.legal_moves()
    s.play("add mantis")
    s.play("add mantis")
    assert s.legal_moves() == ["add mantis"]  # 6 cards: one die of 6 now (2 left for mate)
    s.play("add mantis")
    assert s.to_act() == 2 and s.phase() == "build"
    s.play("add turtle")
    s.play("add turtle")
    s.play("add turtle")
    assert s.legal_moves() == ["next"]  # player 2 must make two dice of 3
    s.play("next")
    assert s.to_act() == 1


def test_fight_together_the_attacker_alternates_between_the_teams():
    # "The "attacker" alternates between Team A and Team B." Every battle is won by both
    # (same animals face each other): a tie, both teams pay the war pile.
    hands = [["mantis"] * 3 + ["crane"] * 3, ["mantis"] * 3 + ["crane"] * 3,
             ["turtle"] * 3 + ["panda"] * 3, ["turtle"] * 3 + ["panda"] * 3]
    s = tt.from_hands(hands, fight_together=True)
    s.play("fight 4")
    for piles in ([["mantis"] * 3, ["crane"] * 3], [["turtle"] * 3, ["panda"] * 3]) * 2:
        build(s, piles)
    assert [result(s, b) for b in (1, 2, 3, 4)] == [{0, 1}] * 4
    while s.phase() == "keep":
        s.play([m for m in s.legal_moves() if m.startswith("keep")][0])
    assert s.phase() == "tribute" and s.team_of(s.to_act()) == "A"
    s.play(s.legal_moves()[0])
    assert s.phase() == "tribute" and s.team_of(s.to_act()) == "B"
    s.play(s.legal_moves()[0])
    assert s.phase() == "fight" and s.to_act() == 1 and s.team_of(1) == "B"
    assert len(s.s["warpile"]) == 2


def test_fight_together_choices_belong_to_the_player_who_supplied_the_die():
    # "If there's a choice to be made, the player who supplied that pile makes it."
    hands = [["crane"] * 6, ["mantis"] * 6, ["dragon"] * 3, ["panda"] * 6]
    s = tt.from_hands(hands, fight_together=True)
    assert s.legal_moves() == ["fight 3"]
    s.play("fight 3")
    build(s, [["crane"] * 3, ["crane"] * 3])  # player 0: two dice; player 2: the third
    assert s.to_act() == 1
    build(s, [["mantis"] * 3, ["mantis"] * 3])  # player 1; player 3 makes the last
    assert s.phase() == "reroll" and s.to_act() == 2  # battle 3: player 2's dragon
    assert s.war()["b"][2]["s"][0]["own"] == 2


def test_fight_together_spoils_are_divided_among_the_team():
    # "Finally, any cards grabbed are divided amongst the team members however they like"
    s = tt.from_hands(ft_hands(), fight_together=True)
    s.play("fight 4")
    while s.phase() == "build":
        s.play(s.legal_moves()[-1])  # "next" as soon as a die has 3 cards
    # Battles 1, 2: mantis beats crane; 3, 4: turtle and panda both win. A wins, 4 to 2.
    assert [result(s, b) for b in (1, 2, 3, 4)] == [{0}, {0}, {0, 1}, {0, 1}]
    assert s.phase() == "claim" and s.to_act() == 0  # the captain of A decides
    s.play("claim 1")
    assert s.phase() == "keep" and s.to_act() == 0
    assert s.legal_moves() == ["discard crane", "discard panda", "keep crane 0",
                               "keep crane 2", "keep panda 0", "keep panda 2"]
    s.play("keep crane 2")
    assert s.hand(2) == {"crane": 1}


def test_fight_together_the_losing_team_places_a_card_on_the_war_pile():
    # "After every war, the loser must place one card to the side. (If nobody wins, both are
    # losers.)"
    s = tt.from_hands(ft_hands(), fight_together=True)
    s.play("fight 4")
    while s.phase() not in ("tribute", "fight"):
        s.play(s.legal_moves()[-1])
    assert s.phase() == "tribute" and s.team_of(s.to_act()) == "B"
    s.play(s.legal_moves()[0])
    assert len(s.s["warpile"]) == 1 and s.phase() == "fight"


def test_fight_together_ends_when_the_war_pile_has_10_cards():
    # "Once this "war pile" has 10 cards, the game ends. The team with the most cards
    # (combined) wins."
    s = tt.from_hands(ft_hands(), fight_together=True)
    s.s["warpile"] = sorted(s.s["draw"][:9])
    s.s["draw"] = s.s["draw"][9:]
    s.play("fight 4")
    while not s.is_over():
        s.play(s.legal_moves()[-1])
    assert s.end_reason() == "warpile" and len(s.s["warpile"]) == 10
    sc = s.scores()
    assert sc[0] == sc[2] and sc[1] == sc[3] and sc[0] > sc[1]
    assert s.winners() == [0, 2] and s.winner() == 0


def test_fight_together_a_player_with_2_cards_or_fewer_ends_the_game_and_their_team_loses():
    # "If a player ever has 2 cards or fewer, the game also ends, and that player's team
    # loses."
    hands = [["mantis"] * 3, ["crane"] * 6, ["dragon"] * 3 + ["mantis"] * 3, ["monkey"] * 3]
    s = tt.from_hands(hands, fight_together=True)
    assert s.legal_moves() == ["fight 3"]
    s.play("fight 3")  # player 0 makes one die by itself
    build(s, [["dragon"] * 3, ["mantis"] * 3])  # player 2
    build(s, [["crane"] * 3, ["crane"] * 3])  # player 1; player 3's one die follows
    assert s.phase() == "reroll" and s.to_act() == 2  # battle 2's dragon
    s.play("pass")
    # Team A wins all three battles (mantis > crane, dragon > crane, mantis > monkey) and
    # claims player 3's whole die.
    assert s.phase() == "claim" and s.legal_moves() == ["claim 1", "claim 2", "claim 3"]
    s.play("claim 3")
    while s.phase() == "keep":
        s.play([m for m in s.legal_moves() if m.startswith("keep") and m.endswith(" 0")][0])
    assert s.phase() == "tribute" and s.to_act() == 1  # B's member with the most cards
    s.play("tribute crane")
    assert s.is_over() and s.end_reason() == "cards"
    assert s.s["hands"][3] == [] and s.winners() == [0, 2] and s.winner() == 0
    assert s.scores() == [14, 3, 14, 3]


def test_fight_together_the_communication_card_always_loses_and_lets_the_team_talk():
    # "If revealed in battle, they allow you to communicate freely about this war, until
    # the next card is revealed. But it always loses its current battle."
    hands = [["bird"] * 3 + ["mantis"] * 3, ["dragon"] * 3 + ["crane"] * 3, ["mantis"] * 3,
             ["crane"] * 3]
    s = tt.from_hands(hands, fight_together=True)
    s.play("fight 3")
    build(s, [["bird"] * 3, ["mantis"] * 3])
    build(s, [["dragon"] * 3, ["crane"] * 3])
    # Battle 1: bird against the dragon, whose owner now chooses: team A may talk.
    assert s.phase() == "reroll" and s.to_act() == 1
    assert s.view(None)["info"]["war"]["talk"] == [0]
    s.play("pass")
    assert result(s, 1) == {1}  # the bird loses (dragon is not strong against birds)
    assert s.view(None)["info"]["war"]["talk"] == []  # the next card was revealed


# ---------------------------------------------------------------- Dawndojo

def test_a_dawn_card_takes_the_first_pile_place_and_always_loses():
    # "On your turn, when creating your dice, you may play such a card. Place it faceup in
    # the position of the first pile (instead of creating a pile for it). ... In battle,
    # such a card will always lose."
    hands = [["rooster1", "crane", "crane"], ["mantis", "mantis", "mantis", "mantis"]]
    s = rooster_game("no_winner", "rooster_skip", hands, "fight 1 2")
    assert "dawn rooster1" in s.legal_moves()
    s.play("dawn rooster1")
    # The rest of the hand makes the one other die by itself.
    assert s.war()["b"][0]["s"][0]["face"] == "rooster1"
    assert s.war()["b"][1]["s"][0]["pile"] == ["crane", "crane"]
    assert s.view(1)["war"]["b"][0]["s"][0]["face"] == "rooster1"  # face up
    build(s, [["mantis", "mantis"], ["mantis", "mantis"]])
    assert result(s, 1) == {1}
    assert s.war()["rule"] == "no_winner" and s.war()["winners"] == 0


def test_a_number_only_a_dawn_card_allows_forces_it():
    hands = [["rooster1", "crane", "crane"], ["mantis", "mantis", "mantis", "mantis"]]
    s = rooster_game("no_winner", "rooster_skip", hands, "fight 1 2")
    assert s.legal_moves() == ["dawn rooster1"]  # 3 cards cannot make 2 dice without it


def test_a_rooster_without_a_dawn_card_always_loses():
    # "In battle, such a card will always lose." (Crane would otherwise win: neither is
    # strong against the other.)
    text = "no_winner rooster_always_win\nno_winner rooster_always_win"
    s = tt.from_hands([["rooster1", "rooster2"], ["crane", "crane"]], dawndojo=True,
                      roosters=text)
    s.play("fight 1 1")
    assert faces(s, 1)[1] == "crane" and result(s, 1) == {1}


def test_the_rooster_change_applies_to_roosters_rolled_later_in_the_war():
    # "The action described afterwards is applied to any Rooster revealed later in the war
    # (through a regular roll)."
    hands = [["rooster1", "rooster2", "rooster3", "crane", "crane"], ["mantis"] * 4]
    text = "no_winner rooster_always_win\none_less rooster_always_lose\none_less rooster_always_lose"
    s = tt.from_hands(hands, dawndojo=True, roosters=text)
    s.play("fight 1 2")
    s.play("dawn rooster1")
    # the other die is rooster2, rooster3, crane, crane
    build(s, [["mantis", "mantis"], ["mantis", "mantis"]])
    face = faces(s, 2)[0]
    if face.startswith("rooster"):
        assert result(s, 2) == {0}  # rooster1's change: always wins
    else:
        assert result(s, 2) == {1}


def rooster_war(rule, change, att_piles, dfn_piles, dawn=True, seed=0, n=None, **options):
    hands = [sorted(["rooster1"] * dawn + sum(att_piles, [])), sorted(sum(dfn_piles, []))]
    s = rooster_game(rule, change, hands, "fight 1 %d" % (n or len(dfn_piles)), seed=seed,
                     **options)
    if dawn:
        s.play("dawn rooster1")
        if s.phase() == "pick":
            return s
    if s.phase() == "build" and s.to_act() == 0:
        build(s, att_piles)
    if s.phase() == "build":
        build(s, dfn_piles)
    return s


def test_dawn_one_less():
    s = rooster_war("one_less", "rooster_skip", [["crane", "crane"]],
                    [["mantis", "mantis", "mantis", "mantis"]], n=2)
    # The defender (who could follow 2 dice) makes 1 die for the one place left; the last
    # place is an empty spot.
    assert s.war()["b"][1]["s"][1]["void"] == 1
    assert result(s, 1) == {1} and result(s, 2) == {0}  # you win against the empty spot


def test_dawn_no_winner_and_tied_winner():
    s = rooster_war("tied_winner", "rooster_skip", [["mantis", "mantis"]], [["crane", "crane"]] * 2)
    # Battle 1: the Dawn card loses; battle 2: mantis beats crane. 1 to 1: both win.
    assert s.war()["winners"] == 3


def test_dawn_early_stop():
    s = rooster_war("early_stop", "rooster_skip", [["crane", "crane"], ["crane", "crane"]],
                    [["mantis", "mantis"]] * 3)
    # Battle 1 lost (Dawn card), battle 2 lost (crane): the war ends before battle 3.
    assert result(s, 1) == {1} and result(s, 2) == {1}
    assert s.war()["b"][2]["gone"] == 1


@pytest.mark.parametrize("rule,pick,expect", [
    ("strong_type", "mantis", {0, 1}),  # crane strong against mantis too: both strong
    ("weak_type", "crane", {0, 1}),  # nothing strong against crane: neither
    ("superhero_type", "crane", {0, 1}),  # crane cannot lose
    ("superweak_type", "mantis", {0, 1}),  # mantis has no strengths
])
def test_dawn_rules_that_pick_an_animal(rule, pick, expect):
    s = rooster_war(rule, "rooster_skip", [["crane", "crane"]], [["mantis", "mantis"]] * 2)
    assert s.phase() == "pick" and s.to_act() == 0
    assert "pick mantis" in s.legal_moves() and "pass" not in s.legal_moves()
    s.play("pick " + pick)
    build(s, [["mantis", "mantis"], ["mantis", "mantis"]])
    if rule == "strong_type":
        assert result(s, 2) == set()  # both strong: nobody
    else:
        assert result(s, 2) == expect


def test_dawn_no_ties():
    s = rooster_war("no_ties", "rooster_skip", [["mantis", "mantis"]], [["mantis", "mantis"]] * 2)
    assert result(s, 2) == {0}  # same animal on both sides: the opponent loses


def test_dawn_guess():
    s = rooster_war("guess", "rooster_skip", [["crane", "crane"]], [["mantis", "mantis"]] * 2)
    assert s.phase() == "guess" and s.to_act() == 0  # before battle 1
    s.play("pass")
    assert s.phase() == "guess"  # before battle 2: still unused
    s.play("guess mantis")
    assert result(s, 2) == {0}


def test_dawn_flee_concedes_and_cancels_the_pile_bonus():
    # "To lose on purpose, means you declare before revealing a battle that "I concede this
    # battle!". You still reveal, but no actions trigger and the opponent simply wins that
    # battle."
    s = rooster_war("flee", "rooster_skip", [["dragon", "dragon"]], [["mantis", "mantis"]] * 2)
    assert s.phase() == "flee" and s.to_act() == 0
    s.play("pass")
    s.play("pass")
    s.play("flee")  # the attacker concedes battle 2 (their dragon would have won)
    assert s.phase() == "flee" and s.to_act() == 1
    s.play("pass")
    assert faces(s, 2)[0] == "dragon" and result(s, 2) == {1}
    assert s.phase() != "reroll"  # no action triggers
    assert s.war()["nobonus"] == 1 and s.war()["claims"] == [0, 0]


def test_dawn_one_reroll_gives_each_side_one_free_reroll():
    s = rooster_war("one_reroll", "rooster_skip", [["crane", "crane"]], [["mantis", "mantis"]] * 2)
    # After battle 1 the attacker has nothing to reroll (the Dawn card is not a die).
    assert s.phase() == "free" and s.to_act() == 1 and s.legal_moves() == ["pass", "reroll 1"]
    s.play("reroll 1")
    assert s.war()["free"] == [1, 0]
    assert s.phase() == "free" and s.to_act() == 0  # after battle 2, the attacker's chance
    assert s.legal_moves() == ["pass", "reroll 2"]


def test_dawn_final_reroll_for_the_winner_of_the_last_battle():
    s = rooster_war("final_reroll", "rooster_skip", [["crane", "crane"]], [["mantis", "mantis"]] * 2)
    assert s.phase() == "free" and s.to_act() == 1  # mantis won the last battle
    assert s.legal_moves() == ["pass", "reroll 1", "reroll 2"]


def test_dawn_bait_and_switch():
    s = rooster_war("bait_and_switch", "rooster_skip", [["mantis", "mantis"], ["crane", "crane"]],
                    [["crane", "crane"], ["mantis", "mantis"], ["mantis", "mantis"]])
    assert s.phase() == "switch" and s.to_act() == 0
    assert s.legal_moves() == ["pass", "switch 2 1", "switch 2 3"]
    s.play("switch 2 3")  # battle 2 (both won) becomes the defender's; battle 3 both's
    assert result(s, 2) == {1} and result(s, 3) == {0, 1}


def test_dawn_multi_stage_makes_dice_one_battle_at_a_time():
    hands = [["rooster1", "crane", "crane", "mantis", "mantis"], ["crane"] * 4 + ["turtle"] * 2]
    s = rooster_game("multi_stage", "rooster_skip", hands, "fight 1 3")
    s.play("dawn rooster1")
    assert s.to_act() == 1 and s.phase() == "build"  # the defender's first die only
    s.play("add crane")
    s.play("add crane")
    s.play("next")
    assert result(s, 1) == {1}  # battle 1 is fought before more dice are made
    assert s.to_act() == 0 and s.phase() == "build"
    assert s.legal_moves() == ["add crane", "add mantis"]


def test_dawn_one_merge():
    s = rooster_war("one_merge", "rooster_skip", [["crane", "crane"], ["crane", "crane"]],
                    [["mantis", "mantis"], ["tiger", "tiger"], ["dragon", "dragon"]])
    assert s.phase() == "merge" and s.legal_moves() == ["merge 2", "merge 3", "pass"]
    s.play("merge 3")
    side = s.war()["b"][0]["s"][1]  # battle 1 has been rolled from the merged die
    assert sorted(side["pile"] + [side["face"]]) == ["dragon", "dragon", "mantis", "mantis"]
    assert s.war()["b"][2]["s"][1]["void"] == 1
    while s.phase() not in ("keep", "claim"):
        s.play("pass")
    assert result(s, 3) == {0}  # you always win against an empty spot


def change_war(change, att_piles, dfn_piles, seed=0, **options):
    # The Dawn card's Change on rooster2..; the Dawn rule does nothing special (no_winner).
    text = "no_winner %s\nno_winner %s\nno_winner %s" % (change, change, change)
    hands = [sorted(["rooster1"] + sum(att_piles, [])), sorted(sum(dfn_piles, []))]
    s = tt.from_hands(hands, seed=seed, dawndojo=True, roosters=text, **options)
    s.play("fight 1 %d" % len(dfn_piles))
    s.play("dawn rooster1")
    if s.phase() == "build" and s.to_act() == 0:
        build(s, att_piles)
    build(s, dfn_piles)
    return s


def test_rooster_change_always_win():
    s = change_war("rooster_always_win", [["rooster2", "rooster3"]],
                   [["crane", "crane"], ["mantis", "mantis"]])
    assert faces(s, 2)[0] in ("rooster2", "rooster3") and result(s, 2) == {0}


def test_rooster_change_always_win_two_roosters_end_the_war_and_the_defender_wins_it():
    # The published Change: "I always win. But if the opponent rolls this card too, the war
    # instantly ends and they win (overall)." Actions are handled "attacker first, defender
    # second": the attacker's Rooster ends the war at once and its opponent, the defender,
    # wins it; the defender's Rooster is never handled (docs/rules-decisions.md, 32).
    text = "\n".join(["no_winner rooster_always_win"] * 5)
    hands = [["rooster1", "rooster2", "rooster3", "crane", "crane"],
             ["crane", "crane", "rooster4", "rooster5", "mantis", "mantis"]]
    s = tt.from_hands(hands, dawndojo=True, roosters=text)
    s.play("fight 1 3")
    s.play("dawn rooster1")
    build(s, [["rooster2", "rooster3"], ["crane", "crane"]])
    build(s, [["crane", "crane"], ["rooster4", "rooster5"], ["mantis", "mantis"]])
    assert result(s, 1) == {1} and result(s, 2) == {0, 1}
    w = s.war()
    assert w["b"][2]["gone"] == 1 and result(s, 3) is None  # the war ended at once
    assert w["overall"] == 2 and w["winners"] == 2
    assert w["claims"] == [0, 0] and s.phase() == "keep"  # the defender took a whole die
    loot = sorted(sum((lot["cards"] for lot in w["loot"][1]), []))
    assert loot == ["rooster1", "rooster2", "rooster3"]


def test_rooster_change_always_lose_stop_or_remove():
    s = change_war("rooster_always_lose", [["rooster2", "rooster3"], ["crane", "crane"]],
                   [["mantis", "mantis"]] * 3)
    assert s.phase() == "rooster" and s.legal_moves() == ["pass", "remove 1", "stop"]
    s.play("stop")
    assert result(s, 2) == {1} and s.war()["b"][2]["gone"] == 1
    s = change_war("rooster_always_lose", [["rooster2", "rooster3"], ["crane", "crane"]],
                   [["mantis", "mantis"]] * 3)
    s.play("remove 1")
    assert s.war()["b"][0]["gone"] == 1


def test_rooster_change_always_lose_alt_takes_up_to_3_cards_back():
    s = change_war("rooster_always_lose_alt",
                   [["rooster2", "rooster3"], ["crane", "crane", "crane", "dragon"]],
                   [["mantis", "mantis"]] * 3)
    assert s.phase() == "take" and result(s, 2) is None
    assert s.legal_moves() == ["pass", "take 3 crane", "take 3 dragon"]
    s.play("take 3 dragon")
    s.play("take 3 crane")
    assert s.legal_moves() == ["pass", "take 3 crane"]
    s.play("take 3 crane")
    assert s.phase() != "take"  # 3 cards: done
    assert s.hand(0) == {"dragon": 1, "crane": 2} and result(s, 2) == {1}


def test_rooster_change_always_win_alt_removes_a_strength_in_later_battles():
    s = change_war("rooster_always_win_alt", [["rooster2", "rooster3"], ["mantis", "mantis"]],
                   [["crane", "crane"]] * 3)
    assert result(s, 2) == {0}
    assert result(s, 3) == {0, 1}  # mantis is no longer strong against crane: neither is


def test_rooster_change_insta_end_gives_the_die_to_the_opponent():
    s = change_war("rooster_insta_end", [["rooster2", "rooster3"], ["mantis", "mantis"]],
                   [["crane", "crane"]] * 3)
    assert s.phase() == "rooster" and s.legal_moves() == ["give", "pass"]
    s.play("give")
    w = s.war()
    assert w["b"][1]["gone"] == 1 and w["b"][2]["gone"] == 1 and w["winners"] == 0
    loot = sorted(sum((lot["cards"] for lot in w["loot"][1]), []))
    assert loot == ["rooster1", "rooster2", "rooster3"]  # battle 1's Dawn card, and the die


def test_rooster_change_concede_and_retreat():
    s = change_war("rooster_concede", [["rooster2", "rooster3"], ["mantis", "mantis"]],
                   [["crane", "crane"]] * 3)
    s.play("concede")
    assert result(s, 2) == {1} and s.war()["nobonus"] == 1
    s = change_war("rooster_skip", [["rooster2", "rooster3"], ["mantis", "mantis"]],
                   [["crane", "crane"]] * 3)
    s.play("retreat")
    assert s.war()["b"][2]["gone"] == 1 and result(s, 3) is None


def test_rooster_change_rebuilds_the_later_dice():
    s = change_war("rooster_change",
                   [["rooster2", "rooster3"], ["mantis", "mantis"], ["crane", "crane"]],
                   [["panda", "panda"]] * 2 + [["turtle", "turtle"]] * 2)
    assert s.legal_moves() == ["pass", "rebuild"]
    s.play("rebuild")
    assert s.phase() == "build" and s.to_act() == 0
    assert s.legal_moves() == ["add crane", "add mantis"]
    s.play("add crane")
    s.play("add mantis")
    s.play("next")
    assert result(s, 2) == {1}  # lost on purpose
    assert faces(s, 3)[0] in ("crane", "mantis") and faces(s, 4)[0] in ("crane", "mantis")


def test_rooster_change_disable_makes_later_roosters_strong():
    text = "\n".join(["no_winner rooster_disable"] * 5)
    hands = [["rooster1", "rooster2", "rooster3", "rooster4", "rooster5"], ["crane"] * 6]
    s = tt.from_hands(hands, dawndojo=True, roosters=text)
    s.play("fight 1 3")
    s.play("dawn rooster1")
    s.play("add rooster2")
    s.play("add rooster3")
    s.play("next")
    build(s, [["crane", "crane"]] * 3)
    assert result(s, 2) == {0, 1}  # a changed Rooster fights: neither strong
    assert result(s, 3) == {0}  # now Roosters are strong against cranes


def test_rooster_change_steal_after_more_than_3_roosters():
    text = "\n".join(["no_winner rooster_steal"] * 9)
    hands = [["rooster1", "rooster2", "rooster3", "rooster4", "rooster5"],
             ["rooster6", "rooster7", "rooster8", "rooster9", "mantis", "mantis"]]
    s = tt.from_hands(hands, dawndojo=True, roosters=text)
    s.play("fight 1 3")
    s.play("dawn rooster1")
    build(s, [["rooster2", "rooster3"], ["rooster4", "rooster5"]])
    build(s, [["rooster6", "rooster7"], ["rooster8", "rooster9"], ["mantis", "mantis"]])
    # Battles 1 and 2 show at most 3 earlier Roosters; battle 3 has 4 before it.
    assert s.phase() == "rooster" and s.war()["k"] == 2
    assert s.legal_moves() == ["pass", "steal 1", "steal 2"]
    stolen = s.war()["b"][1]["s"][1]["face"]
    s.play("steal 2")
    assert s.hand(0) == {stolen: 1} and war_of(s)["b"][1]["s"][1]["face"] == ""


def test_rooster_change_count_takes_as_many_cards_as_earlier_roosters():
    text = "\n".join(["no_winner rooster_count"] * 5)
    hands = [["rooster1", "rooster2", "rooster3"], ["rooster4", "rooster5", "crane", "crane", "crane"]]
    s = tt.from_hands(hands, dawndojo=True, roosters=text)
    s.play("fight 1 2")
    s.play("dawn rooster1")
    build(s, [["rooster4", "rooster5"], ["crane", "crane", "crane"]])
    w = s.war()
    assert w["b"][1]["cnt"][0] == 2 and result(s, 2) == {0, 1}
    assert sorted(sum((lot["cards"] for lot in w["loot"][0]), [])) == ["crane", "crane"]


def test_rooster_change_bonus_and_multi_bonus():
    s = change_war("rooster_change_bonus", [["rooster2", "rooster3"], ["mantis", "mantis"]],
                   [["crane", "crane"]] * 3)
    assert s.legal_moves() == ["bonus 1", "bonus 2", "bonus 3", "bonus 4", "pass"]
    s.play("bonus 3")
    assert s.war()["bonus"] == 3
    s = change_war("rooster_multi_bonus", [["rooster2", "rooster3"], ["mantis", "mantis"]],
                   [["crane", "crane"]] * 3)
    assert s.war()["bonus"] == 0  # times the 0 earlier battles won


def test_rooster_change_pity_picks_a_strength_after_losing_every_battle():
    s = change_war("rooster_pity_type", [["rooster2", "rooster3"], ["crane", "crane"]],
                   [["mantis", "mantis"]] * 3)
    assert s.phase() == "pick" and "pass" in s.legal_moves()
    s.play("pick mantis")
    assert result(s, 3) == set()  # crane and mantis now strong against each other


# ---------------------------------------------------------------- Simulwars

def test_simulwars_pairs_everyone_and_an_odd_start_player_sits_out():
    # FACTS: "Simulwars variant: everyone is paired each round and all wars run at once;
    # with an odd count the round's start player sits out."
    s = tt.from_hands([["crane"] * 2, ["mantis"] * 2, ["mantis"] * 2], simulwars=True)
    assert s.to_act() == 1  # player 0 starts the round and sits out
    assert s.legal_moves() == ["fight 2 1"]
    s.play("fight 2 1")  # mantis against mantis: both win a card, nobody the war
    keep_all(s)
    assert s.s["active"] == 1 and s.s["round"] == 1  # next round: player 1 sits out
    assert s.to_act() == 2 and s.legal_moves() == ["fight 0 1"]
    s = tt.new_game(4, seed=2, simulwars=True)
    s.play("fight 2 1")
    assert s.to_act() == 1 and {m.split()[1] for m in s.legal_moves()} == {"3"}
    s.play("fight 3 1")
    assert s.war()["sides"] == [0, 2]  # the wars are fought in the order they were paired


def test_simulwars_checks_the_end_after_the_round():
    s = tt.from_hands([["mantis", "mantis"], ["crane", "crane"], ["mantis", "mantis"],
                       ["crane", "crane"]], simulwars=True)
    s.play("fight 1 1")
    s.play("fight 3 1")
    s.play("keep crane")
    s.play("keep crane")
    assert not s.is_over() and s.war()["sides"] == [2, 3]  # player 1 has no card, yet
    keep_all(s)
    assert s.is_over() and s.end_reason() == "cards" and s.winner() is None


# ---------------------------------------------------------------- house defaults

def test_cards_left_in_piles_go_back_to_their_owner_or_are_discarded():
    for leftovers, back in (("owner", {"mantis": 2, "crane": 2}), ("discard", {"crane": 1})):
        s = war([["mantis", "mantis", "crane", "crane"], ["crane", "crane", "mantis", "mantis"]],
                "fight 1 2", [["mantis", "mantis"], ["crane", "crane"]],
                [["crane", "crane"], ["mantis", "mantis"]], leftovers=leftovers)
        s.play("keep crane")
        s.play("keep crane")
        assert s.hand(0) == back


def test_discards_go_to_a_face_up_pile_or_into_the_draw_pile():
    for discards in ("pile", "draw"):
        s = war([["mantis", "mantis"], ["crane", "crane", "crane"], ["tiger", "tiger"]],
                "fight 1 1", [["mantis", "mantis"]], [["crane", "crane", "crane"]],
                discards=discards)
        draw = len(s.s["draw"])
        s.play("discard crane")
        if discards == "pile":
            assert s.s["discard"] == ["crane"] and len(s.s["draw"]) == draw
            assert s.view(1)["discard"] == ["crane"]  # face up
        else:
            assert s.s["discard"] == [] and len(s.s["draw"]) == draw + 1


def test_an_empty_draw_pile_is_refilled_from_the_discards_or_gives_nothing():
    hands = [["crane", "crane", "redpanda", "redpanda"], ["mantis", "mantis", "bull", "bull"]]
    for rule in ("reshuffle", "nothing"):
        s = war(hands, "fight 1 2", [["crane", "crane"], ["redpanda", "redpanda"]],
                [["mantis", "mantis"], ["bull", "bull"]], more_animals=True, empty_draw=rule)
        s.s["discard"] = sorted(s.s["draw"])
        s.s["draw"] = []
        s = tt.from_json(s.to_json())
        if rule == "nothing":
            assert "draw deck" not in s.legal_moves()
        else:
            s.play("draw deck")
            assert len(s.s["hands"][0]) == 1 and len(s.s["draw"]) == 88 - 8 - 1
            assert s.s["discard"] == []


def test_the_turn_limit_ends_an_endless_game():
    # House safeguard: the game ends after max_turns wars (end reason "turns").
    s = tt.from_hands([["mantis", "mantis"], ["mantis", "mantis"]], max_turns=1)
    s.play("fight 1 1")  # both win, both keep what they grab: nobody runs low
    keep_all(s)
    assert s.is_over() and s.end_reason() == "turns" and s.turn_count() == 1
    assert s.scores() == [2, 2] and s.winner() is None
    assert tt.new_game(2).options()["max_turns"] == 300
    with pytest.raises(BadPosition, match="max_turns"):
        tt.new_game(2, max_turns=0)


def test_games_where_every_card_is_kept_end_by_the_safeguard_or_the_rulebook():
    # Players who keep every card never lose one: the safeguard ends such games.
    s = tt.new_game(3, seed=9, max_turns=40)
    rnd = random.Random(1)
    while not s.is_over():
        moves = s.legal_moves()
        keeps = [m for m in moves if m.startswith("keep")]
        s.play(keeps[0] if keeps else rnd.choice(moves))
    assert s.end_reason() in ("turns", "cards")
    assert sum(len(h) for h in s.s["hands"]) == 18


# ---------------------------------------------------------------- the strength table as data

HOUSE_1 = {
    "dragon": ("tiger", "mantis", "crane", "panda"), "mantis": ("crane", "monkey", "leopard"),
    "crane": ("monkey", "panda", "turtle"), "monkey": ("tiger", "dragon", "turtle", "leopard"),
    "turtle": ("dragon", "mantis", "leopard"), "leopard": ("dragon", "mantis", "crane", "panda"),
    "tiger": (), "panda": (),
    "snake": ("peacock", "redpanda", "frog"), "peacock": ("bull", "chameleon", "unicorn"),
    "bull": ("snake", "redpanda", "horse", "frog"), "redpanda": ("peacock", "chameleon", "unicorn"),
    "chameleon": ("snake", "horse", "frog"), "horse": ("snake", "bull", "unicorn"),
    "unicorn": ("bull", "redpanda", "chameleon", "frog"), "frog": ("snake", "peacock", "horse"),
}


def test_the_built_in_table_house_1_never_changes():
    # A built-in data set is never changed in place: records made with it must replay.
    assert data.strength_table("house-1") == HOUSE_1
    assert len(data.HOUSE_ROOSTERS["house-1"]) == 14
    assert sorted(c for _d, c in data.HOUSE_ROOSTERS["house-1"]) == list(data.CHANGE_KEYS)


def test_a_print_table_is_generated_like_the_published_generator():
    # FACTS: "the published generator draws them at random per print: 1 to 5 strengths per
    # animal, taken from the animals of the same set; an animal may be strong against
    # itself."
    counts = {}
    self_strong = 0
    for n in range(60):
        table = data.generate_strengths(n)
        assert table == data.strength_table("print-%d" % n)  # the same print every time
        for animals in (data.BASE_ANIMALS, data.ZOO_ANIMALS):
            at = None
            for a in animals:
                got = table[a]
                if a in ("tiger", "panda"):
                    assert got == ()
                    continue
                assert 1 <= len(got) <= 5 and set(got) <= set(animals)
                # a run of consecutive animals of the set, in the set's order
                i = animals.index(got[0])
                assert list(got) == [animals[(i + j) % 8] for j in range(len(got))]
                counts[len(got)] = counts.get(len(got), 0) + 1
                self_strong += a in got
    assert set(counts) == {1, 2, 3, 4, 5}
    assert max(counts, key=counts.get) == 4  # the most likely count (35 % of the pool)
    assert self_strong > 0
    assert data.generate_strengths(1) != data.generate_strengths(2)


def test_print_roosters_pair_dawn_rules_and_changes_at_random():
    # FACTS: "16 Dawn rules and 14 Rooster Changes exist, paired at random (14 Roosters
    # per print)."
    seen = set()
    for n in range(20):
        roosters = data.rooster_list("print-%d" % n)
        assert len(roosters) == 14
        assert len(set(d for d, _c in roosters)) == 14
        assert sorted(c for _d, c in roosters) == list(data.CHANGE_KEYS)
        seen.add(roosters)
    assert len(seen) == 20
    s = tt.new_game(2, dawndojo=True, roosters="print-7")
    assert s.rooster_cards()["rooster1"] == data.rooster_list("print-7")[0]
    assert s.options()["roosters"] == "print-7"


def test_a_users_table_is_text_checked_line_by_line():
    text = "# my print\ndragon: tiger mantis\nmantis: crane   # short\n"
    s = tt.new_game(2, strengths=text)
    assert s.strength_table()["dragon"] == ("tiger", "mantis")
    assert s.strength_table()["crane"] == ()
    assert s.options()["strengths"] == text  # spelled out in full
    assert tt.new_game(2, **s.options()) == s
    assert data.parse_strengths(data.table_text(HOUSE_1)) == HOUSE_1
    for bad, msg in (("dragon tiger\nmantis: crane", "line 1: write"),
                     ("dragon: tiger\ndrgon: mantis", "line 2, field 1: 'drgon' is not an animal"),
                     ("dragon: tiger monky", "line 1, field 3: 'monky' is not a card type"),
                     ("dragon: tiger tiger", "line 1, field 3: tiger is named twice"),
                     ("dragon: tiger\ndragon: crane", "line 2, field 1: dragon is listed twice"),
                     ("x" * 5000 + ":", "at most"),
                     ("house-9", "unknown strength table"), ("print-01", "unknown strength"),
                     ("print-4294967296", "unknown strength")):
        with pytest.raises(BadPosition, match=msg):
            tt.new_game(2, strengths=bad)
    with pytest.raises(BadPosition, match="line 1, field 2: 'rooster_fly' is not a Rooster"):
        tt.new_game(2, dawndojo=True, roosters="one_less rooster_fly")
    with pytest.raises(BadPosition, match="line 2, field 1: 'one_more' is not a Dawn rule"):
        tt.new_game(2, dawndojo=True, roosters="one_less rooster_count\none_more rooster_count")


def test_a_users_rooster_list_sets_the_roosters_in_the_box():
    s = tt.new_game(2, dawndojo=True, roosters="guess rooster_count\nflee rooster_skip")
    assert s.rooster_cards() == {"rooster1": ("guess", "rooster_count"),
                                 "rooster2": ("flee", "rooster_skip")}
    assert len(tt.deck_of(s.options())) == 50


# ---------------------------------------------------------------- hidden information

def pair_differing_in(state, change):
    other = tt.from_json(state.to_json())
    change(other.s)
    return tt.from_json(other.to_json())


def test_views_hide_other_hands_the_draw_pile_and_the_prng():
    s = tt.new_game(3, seed=5)
    draw = s.s["draw"]

    def swap_hand_1_with_draw(d):
        d["hands"][1], d["draw"] = sorted(draw[:6]), sorted(d["hands"][1] + draw[6:])

    t = pair_differing_in(s, swap_hand_1_with_draw)
    assert t != s
    assert t.view(0) == s.view(0) and t.view(2) == s.view(2) and t.view(None) == s.view(None)
    assert t.view(1) != s.view(1)
    u = s.clone()
    u.rng ^= 12345
    assert u.to_json() != s.to_json()
    assert u.view(0) == s.view(0) and u.view(None) == s.view(None)
    assert "rng" not in s.view(0)  # no view of any game holds the PRNG key


def test_views_hide_the_dice_a_player_did_not_make_or_see():
    s = tt.from_hands([["crane", "crane", "mantis", "mantis"], ["dragon", "dragon", "tiger", "tiger"],
                       ["turtle", "turtle"]])
    s.play("fight 1 2")
    s.play("add crane")
    s.play("add mantis")
    s.play("next")  # player 1 now makes dice; player 0's are on the table, unknown to 1

    def other_dice(d):
        b = d["war"]["b"]
        b[0]["s"][0]["pile"], b[1]["s"][0]["pile"] = ["crane", "crane"], ["mantis", "mantis"]

    t = pair_differing_in(s, other_dice)
    assert t.view(1) == s.view(1) and t.view(2) == s.view(2)
    assert t.view(0) != s.view(0)
    assert s.view(1)["war"]["b"][0]["s"][0]["pile"] == 2
    assert s.view(0)["war"]["b"][0]["s"][0]["pile"] == ["crane", "mantis"]


def test_determinize_agrees_with_the_view_and_deals_only_unaccounted_cards():
    s = tt.from_hands([["crane", "crane", "mantis", "mantis"], ["dragon", "dragon", "tiger", "tiger"],
                       ["turtle", "turtle"]])
    s.play("fight 1 2")
    s.play("add crane")
    s.play("add mantis")
    s.play("next")
    view = s.view(1)
    deals = set()
    for seed in range(8):
        t = tt.determinize(view, seed)
        assert t.view(1) == view
        assert t.legal_moves() == s.legal_moves()
        # Player 0's dice hold 4 cards the viewer cannot name: drawn from the cards player 1
        # cannot account for (all but their own 4).
        dice = sorted(t.war()["b"][0]["s"][0]["pile"] + t.war()["b"][1]["s"][0]["pile"])
        unaccounted = list(tt.deck_of(t.options()))
        for c in s.war()["build"]["pool"]:
            unaccounted.remove(c)
        assert len(dice) == 4 and all(dice.count(c) <= unaccounted.count(c) for c in dice)
        deals.add(tuple(dice))
        assert sorted(tt_cards(t)) == tt.deck_of(t.options())
    assert len(deals) > 1
    with pytest.raises(BadPosition):
        tt.determinize({"players": 2}, 0)


def tt_cards(state):
    s = state.s
    out = sum(s["hands"], []) + s["draw"] + s["discard"] + s["destroyed"] + s["warpile"]
    if s["war"]:
        for bt in s["war"]["b"]:
            for side in bt["s"]:
                out += side["pile"] + ([side["face"]] if side["face"] else [])
        if s["war"]["build"]:
            out += s["war"]["build"]["pool"] + s["war"]["build"]["cur"]
        for lots in s["war"]["loot"]:
            for lot in lots:
                out += lot["cards"]
    return out


def test_determinize_respects_revealed_cards():
    s = war([["mantis", "mantis"], ["crane", "crane", "crane"]], "fight 1 1",
            [["mantis", "mantis"]], [["crane", "crane", "crane"]])
    view = s.view(None)
    t = tt.determinize(view, 3)
    assert faces(t, 1) == ["mantis", "crane"] and t.view(None) == view


# ---------------------------------------------------------------- errors and records

def test_an_illegal_move_names_the_reason_and_changes_nothing():
    s = tt.from_hands([["crane", "crane", "mantis", "mantis"], ["tiger", "tiger"]])
    text = s.to_json()
    for move, msg in (("fight 1 2", "make that many dice"), ("dance", "unknown move word"),
                      ("add crane", "must now wage war"), (7, "notation string"),
                      ("", "unknown move word"), ("fight 1 1 ", "'fight' takes a player and a number")):
        with pytest.raises(IllegalMove, match=msg):
            s.play(move)
        assert s.to_json() == text
    s = tt.from_hands([["crane", "crane", "mantis", "mantis"], ["tiger"] * 4])
    s.play("fight 1 2")
    text = s.to_json()
    for move, msg in (("add tiger", "player 0 has no tiger left"), ("next", "at least 2"),
                      ("add", "'add' takes one card name"), ("claim 1", "must now make")):
        with pytest.raises(IllegalMove, match=msg) as info:
            s.play(move)
        assert info.value.move == move and s.to_json() == text


def test_bad_options_and_corrupt_states_are_refused_with_the_field_named():
    with pytest.raises(BadPosition, match="2 to 6 players"):
        tt.new_game(7)
    with pytest.raises(BadPosition, match="no option 'colour'"):
        tt.new_game(2, colour="red")
    with pytest.raises(BadPosition, match="battle_reading must be one of"):
        tt.new_game(2, battle_reading="mine")
    with pytest.raises(BadPosition, match="highscore must be true or false"):
        tt.new_game(2, highscore=1)
    s = tt.new_game(2, seed=1)
    d = json.loads(s.to_json())
    for change, msg in (
            (lambda d: d["hands"][0].__setitem__(slice(0, 6), sorted(d["hands"][0] + ["crane"])),
             "box's 48 cards"),
            (lambda d: d["hands"][0].__setitem__(0, "wolf"), "card names"),
            (lambda d: d.update(rng=0), "rng"),
            (lambda d: d.update(who=5), "who"),
            (lambda d: d.pop("turn"), "lacks the fields turn"),
            (lambda d: d.update(extra=1), "unknown fields extra"),
            (lambda d: d["options"].pop("highscore"), "spell out every option"),
            (lambda d: d.update(phase="keep"), "phase is 'fight'"),
            (lambda d: d.update(draw=list(reversed(d["draw"]))), "sorted")):
        bad = json.loads(json.dumps(d))
        change(bad)
        with pytest.raises(BadPosition, match=msg):
            tt.from_json(bad)
    with pytest.raises(BadPosition, match="not JSON"):
        tt.from_json("{")


def test_a_record_replays_to_the_same_digest_after_every_move():
    options = {"more_animals": True, "dawndojo": True}
    s = tt.new_game(3, seed=21, **options)
    rnd = random.Random(21)
    record = {"game": "tossing-tiger", "players": 3, "seed": 21, "options": options, "moves": []}
    digests = []
    while not s.is_over():
        m = rnd.choice(s.legal_moves())
        s.play(m)
        record["moves"].append(m)
        digests.append(s.digest())
    assert games.replay(record, digests) == s
    assert repr(s).startswith("tossing_tiger.from_json(")


# ---------------------------------------------------------------- every option set, randomly

OPTION_SETS = [
    {"more_animals": True},
    {"dawndojo": True, "roosters": "print-3"},
    {"fight_together": True},
    {"simulwars": True, "highscore": True},
    {"more_animals": True, "dawndojo": True, "fight_together": True, "roosters": "print-8",
     "strengths": "print-8"},
    {"more_animals": True, "dawndojo": True, "simulwars": True, "battle_reading": "published",
     "two_tigers": "attacker", "discards": "draw", "leftovers": "discard",
     "empty_draw": "nothing"},
]


@pytest.mark.parametrize("k", range(len(OPTION_SETS)))
def test_random_games_with_every_option_set_keep_the_interface_promises(k):
    # The shared conformance test plays the default game; these play the variants and
    # expansions with the same checks on views, determinization, JSON and refusals.
    options = OPTION_SETS[k]
    counts = (4, 5, 6) if options.get("fight_together") else (2, 3, 4, 5, 6)
    for seed in range(6):
        players = counts[seed % len(counts)]
        rnd = random.Random(seed)
        s = tt.new_game(players, seed, **options)
        total = len(tt_cards(s))
        steps = 0
        while not s.is_over():
            moves = s.legal_moves()
            assert moves == sorted(set(moves))
            text = s.to_json()
            assert tt.from_json(text) == s
            if steps % 4 == 0:
                for viewer in [None] + list(range(players)):
                    view = s.view(viewer)
                    assert json.loads(json.dumps(view)) == view
                    t = tt.determinize(view, rnd.randrange(prng.SEED_MAX + 1))
                    assert t.view(viewer) == view
                    if viewer == s.to_act():
                        assert t.legal_moves() == moves
                for bad in ("pass x", "add", "fight 9 9", "keep wolf"):
                    if bad not in moves:
                        with pytest.raises(IllegalMove):
                            s.play(bad)
                        assert s.to_json() == text
            s.play(rnd.choice(moves))
            assert len(tt_cards(s)) == total
            steps += 1
            assert steps < 3000
        assert s.end_reason() in ("cards", "warpile", "dice", "turns")


def test_fight_together_falls_back_to_the_team_size_then_ends_when_no_number_fits():
    # House rule: if no number greater than the team's size can be followed, the team's
    # size will do; if even that cannot be followed, the game ends ("dice").
    hands = [["mantis"] * 6, ["crane"] * 3, ["turtle"] * 6, ["crane"] * 3 + ["panda"]]
    s = tt.from_hands(hands, fight_together=True)
    assert s.legal_moves() == ["fight 2"]  # team B can make only 2 dice of 3 cards
    hands = [["mantis"] * 6, ["crane"] * 3, ["turtle"] * 6, ["crane"] * 3 + ["panda", "panda"],
             ["dragon"] * 6]
    s = tt.from_hands(hands, fight_together=True)  # teams ABABA: A has 3 players
    assert s.is_over() and s.end_reason() == "dice"
    assert s.winners() == [0, 2, 4] and s.scores()[0] == 18 and s.scores()[1] == 8


def test_determinize_deals_again_when_a_deal_contradicts_the_announcement():
    # Player 0 announced 2 dice with 3 cards: only a Rooster as the Dawn card allows that.
    # Player 1 does not see player 0's hand, but every deal they plan on must allow it.
    hands = [["rooster1", "crane", "crane"], ["mantis"] * 4]
    s = tt.from_hands(hands, dawndojo=True)
    s.play("fight 1 2")
    assert s.legal_moves() == ["dawn rooster1"]
    view = s.view(1)
    assert view["war"]["build"]["pool"] == 3
    for seed in range(10):
        t = tt.determinize(view, seed)
        assert t.view(1) == view
        moves = t.legal_moves()
        assert moves and all(m.startswith("dawn rooster") for m in moves)


def test_every_card_rule_and_change_has_a_text_for_renderers():
    for kind in data.TYPES:
        assert kind in data.ACTIONS and kind in data.FULL_NAMES
    assert len(data.DAWN_RULES) == 16 and len(data.ROOSTER_CHANGES) == 14
    assert all(data.DAWN_RULES.values()) and all(data.ROOSTER_CHANGES.values())
    assert set(tt.PHASE_HINTS) >= {"fight", "build", "keep", "over"}


# ---------------------------------------------------------------- issue #24: the rulebook's words

def test_a_war_is_won_by_a_strict_majority_of_the_battles_fought():
    # "If you won the war---you won the majority of battles---you grab the entire pile from
    # one of your won battles. (If it's a tie, nobody wins.)" Battle 1: mantis beats crane;
    # battles 2 and 3: mantis and leopard are strong against each other, nobody wins. One
    # win of three is more than the opponent's none, but not the majority of battles.
    hands = [["mantis"] * 6, ["crane", "crane"] + ["leopard"] * 4]
    piles = ([["mantis", "mantis"]] * 3, [["crane", "crane"], ["leopard", "leopard"],
                                          ["leopard", "leopard"]])
    def fought(**options):
        s = war(hands, "fight 1 3", *piles, **options)
        while s.phase() == "swap":  # the Leopards swap nothing
            s.play("pass")
        return s

    s = fought()
    assert [result(s, j) for j in (1, 2, 3)] == [{0}, set(), set()]
    assert s.war()["winners"] == 0 and s.phase() == "keep"  # no whole pile to claim
    # The house reading kept as an option: more battles than the opponent wins the war.
    s = fought(war_winner="more")
    assert s.war()["winners"] == 1
    assert sorted(sum((lot["cards"] for lot in s.war()["loot"][0]), [])) == ["crane", "crane"]


def test_two_majorities_of_equal_size_are_a_tie_and_a_bigger_one_wins():
    # Both win a battle where neither card is strong against the other (rulebook reading),
    # so both sides can hold a majority: equal counts are the rulebook's tie.
    s = war([["crane", "crane", "mantis", "mantis"], ["crane"] * 4], "fight 1 2",
            [["crane", "crane"], ["mantis", "mantis"]], [["crane", "crane"]] * 2)
    assert result(s, 1) == {0, 1} and result(s, 2) == {0}
    assert s.war()["winners"] == 1  # 2 of 2 against 1 of 2
    s = war([["crane", "crane", "mantis", "mantis"]] * 2, "fight 1 2",
            [["crane", "crane"], ["mantis", "mantis"]], [["crane", "crane"], ["mantis", "mantis"]])
    assert result(s, 1) == {0, 1} and result(s, 2) == {0, 1}
    assert s.war()["winners"] == 0  # 2 of 2 each: a tie


def test_a_rooster_that_concedes_lets_no_action_trigger_the_opponents_included():
    # More Animals!: "To lose on purpose ... You still reveal, but no actions trigger and the
    # opponent simply wins that battle." The attacker's Rooster concedes battle 2: the
    # defender's Monkey there does not look at battle 3.
    s = change_war("rooster_concede", [["rooster2", "rooster3"], ["crane", "crane"]],
                   [["crane", "crane"], ["monkey", "monkey"], ["mantis", "mantis"]])
    assert s.phase() == "rooster" and s.to_act() == 0 and s.legal_moves() == ["concede", "pass"]
    s.play("concede")
    assert s.phase() != "look"
    assert result(s, 2) == {1} and s.war()["b"][1]["s"][1]["act"] == ""


def test_a_defending_rooster_concedes_before_the_attackers_action_is_handled():
    # The same words for the defender's Rooster: its owner decides before any action of the
    # battle, so the attacker's Monkey, which would act first, does not look either.
    text = "\n".join(["no_winner rooster_concede"] * 5)
    hands = [["rooster1", "monkey", "monkey", "crane", "crane"],
             ["crane", "crane", "rooster2", "rooster3", "mantis", "mantis"]]
    s = tt.from_hands(hands, dawndojo=True, roosters=text)
    s.play("fight 1 3")
    s.play("dawn rooster1")
    build(s, [["monkey", "monkey"], ["crane", "crane"]])
    build(s, [["crane", "crane"], ["rooster2", "rooster3"], ["mantis", "mantis"]])
    assert s.phase() == "rooster" and s.to_act() == 1
    s.play("concede")
    assert s.phase() != "look"
    assert result(s, 2) == {0}


def test_a_rooster_that_loses_on_purpose_to_remake_its_dice_lets_no_action_trigger():
    # rooster_change is a loss on purpose too: the defender's Monkey does not look.
    s = change_war("rooster_change",
                   [["rooster2", "rooster3"], ["mantis", "mantis"], ["crane", "crane"]],
                   [["panda", "panda"], ["monkey", "monkey"], ["turtle", "turtle"],
                    ["turtle", "turtle"]])
    assert s.legal_moves() == ["pass", "rebuild"]
    s.play("rebuild")
    s.play("add crane")
    s.play("add crane")
    s.play("next")
    assert s.phase() != "look"
    assert result(s, 2) == {1}


def test_the_defenders_chameleon_copies_the_previous_battle_as_the_attackers_action_left_it():
    # "Handle those now: attacker first, defender second." The attacker's Dragon rerolls
    # battle 1 before the defender's Chameleon (battle 2) picks what to copy from battle 1.
    # Battle 1's attacking die holds a Tiger and a Crane: a Crane there leaves nothing to
    # copy, a Tiger lets the Chameleon toss.
    hands = [["tiger", "crane", "dragon", "dragon"], ["mantis", "mantis", "chameleon", "chameleon"]]
    changed = 0
    for seed in range(40):
        s = war(hands, "fight 1 2", [["tiger", "crane"], ["dragon", "dragon"]],
                [["mantis", "mantis"], ["chameleon", "chameleon"]], seed=seed, more_animals=True)
        before = faces(s, 1)[0]
        assert s.phase() == "reroll" and s.to_act() == 0
        s.play("reroll 1")
        after = faces(s, 1)[0]
        changed += before != after
        chameleon = s.war()["b"][1]["s"][1]
        if after == "tiger":
            assert chameleon["act"] == "tiger" and chameleon["toss"] in (1, 2)
        else:
            assert chameleon["act"] == "" and chameleon["toss"] == 0
    assert changed  # some rerolls turned the Tiger into the Crane or back


def test_a_printed_turtle_cancels_from_its_reveal_but_a_copied_one_only_in_its_turn():
    # Decided (docs/rules-decisions.md, 17): the Turtle's cancel is no choice and no step of
    # its own; a cancelled action is not handled at all, so a printed Turtle holds from the
    # reveal, whichever side shows it (see the test above with a defending Turtle). A
    # Chameleon copies when its turn comes: the attacker's copied Turtle cancels the
    # defender's action before it is handled.
    hands = [["monkey", "monkey", "chameleon", "chameleon"],
             ["turtle", "turtle", "dragon", "dragon"]]
    s = war(hands, "fight 1 2", [["monkey", "monkey"], ["chameleon", "chameleon"]],
            [["turtle", "turtle"], ["dragon", "dragon"]], more_animals=True)
    # Battle 1: the defender's Turtle cancels the attacker's Monkey (no look offered).
    # Battle 2: the attacker's Chameleon copies the Turtle: the Dragon cannot reroll.
    assert s.phase() == "copy" and s.to_act() == 0
    assert s.legal_moves() == ["copy monkey", "copy turtle"]
    s.play("copy turtle")
    assert s.phase() == "claim"  # battle 1 to the Monkey, battle 2 to nobody: no reroll
    w = s.war()
    assert w["b"][0]["s"][0]["off"] == 1
    assert w["b"][1]["s"][0]["act"] == "turtle" and w["b"][1]["s"][1]["off"] == 1


def test_a_defenders_chameleon_copying_a_turtle_cancels_only_what_is_left_of_the_attackers():
    # The attacker's Tiger is handled first: it tosses. Then the defender's Chameleon copies
    # battle 1's Turtle: the toss no longer decides, so neither card is strong: both win.
    hands = [["crane", "crane", "tiger", "tiger"], ["turtle", "turtle", "chameleon", "chameleon"]]
    for seed in range(4):
        s = war(hands, "fight 1 2", [["crane", "crane"], ["tiger", "tiger"]],
                [["turtle", "turtle"], ["chameleon", "chameleon"]], seed=seed, more_animals=True)
        tiger, chameleon = s.war()["b"][1]["s"]
        assert tiger["toss"] in (1, 2) and tiger["off"] == 1 and chameleon["act"] == "turtle"
        assert result(s, 2) == {0, 1}


def test_without_dawndojo_no_dawn_move_is_offered_nor_hinted():
    # Issue 38.5: the build's prompt offered 'dawn <rooster>' in a game without Dawndojo.
    s = tt.new_game(2, seed=3)
    s.play("fight 1 2")  # the attacker makes two dice
    assert s.phase() == "build"
    assert not [m for m in s.legal_moves() if m.startswith("dawn")]
    for viewer in (None, 0, 1):
        hint = s.view(viewer)["info"]["decision"]["hint"]
        assert "add <card>" in hint and "dawn" not in hint, hint
    with pytest.raises(IllegalMove) as info:
        s.play("dawn rooster1")
    assert "Dawndojo" in info.value.reason and "off" in info.value.reason
    with pytest.raises(IllegalMove) as info:
        s.play("guess tiger")
    assert "dawn" not in info.value.reason
    # With Dawndojo the hint names the Dawn card, as the rules allow it there.
    hands = [["rooster1", "crane", "crane"], ["mantis", "mantis", "mantis", "mantis"]]
    s = rooster_game("no_winner", "rooster_skip", hands, "fight 1 2")
    assert "dawn <rooster>" in s.view(0)["info"]["decision"]["hint"]


def test_the_state_s_json_sorted_by_hand_is_cpythons_sort_keys_text():
    # MicroPython's json.dumps has no sort_keys: there to_json sorts the keys itself
    # (tests/test_micropython_rules.py replays games there); both texts must be the same.
    rnd = random.Random(5)
    runs = [(2, {}), (3, {}), (4, {"fight_together": True, "dawndojo": True,
                                   "more_animals": True}),
            (3, {"simulwars": True, "highscore": True, "discards": "draw"})]
    for players, options in runs:
        state = tt.new_game(players, seed=players, **options)
        while True:
            d = dict(state.s)
            d["rng"] = state.rng
            assert tt._canonical_json(json.dumps, d) == state.to_json()
            if state.is_over():
                break
            state.play(rnd.choice(state.legal_moves()))
