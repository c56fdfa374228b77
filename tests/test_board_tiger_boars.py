"""Boars on the Run! and Tossing Tiger on the board (terminal mode): the word-by-word keys
offer numbers by value in the same reading order as the track; boars show in their
seat's colour and take turns on a shared space; the Tiger's board shows the whole hand,
every battle and, while the viewer makes dice, the cards still to place and the dice made;
the docs say what the code draws; and no frame shows another player's secrets."""

import json
import random
import re
from pathlib import Path

import pytest

from shared_rules import boars, games
from vora_host import games as host_games
from vora_host.games.base import SEAT_RGB, SEATS_BY_COUNT, cell_key, word_order
from vora_host.games.tossing_tiger import board as tiger_board
from vora_host.play.board_keys import KeyPad, compose_frame, key_name

ROOT = Path(__file__).resolve().parents[1]
BOARS = games.load("boars")
TIGER = games.load("tossing-tiger")
BOARS_BOARD = host_games.host_game("boars").BOARD
TIGER_BOARD = host_games.host_game("tossing-tiger").BOARD
OFF = (0, 0, 0)
# The inner 5x5 in reading order: the choice keys' first 25, and the Boars' track.
INNER = ["%s%d" % (f, r) for r in (6, 5, 4, 3, 2) for f in "bcdef"]


def at(frame, name):
    return tuple(frame[cell_key(name)])


def names(keys):
    return [key_name(k) for k in keys]


def on_the_board_section(doc):
    text = (ROOT / "docs" / doc).read_text()
    start = text.index("## On the board")
    end = text.find("\n## ", start + 3)
    return text[start:end if end > 0 else len(text)]


# ---------------------------------------------------------------- word order

def test_words_are_ordered_naturally_numbers_by_value():
    words = ["10", "2", "1", "rooster10", "rooster2", "10a", "2a", "tiger", "25", "3"]
    assert sorted(words, key=word_order) == [
        "1", "2", "2a", "3", "10", "10a", "25", "rooster2", "rooster10", "tiger"]


def test_boars_draw_n_is_the_nth_choice_key_in_the_track_order():
    # draw 0 (drawing nothing, the rulebook's "any number") comes first: draw n is on the
    # (n+1)th inner key, and draw 25 on the first key past the inner 5x5, a6.
    state = BOARS.new_game(2, seed=0)
    assert state.legal_moves()[0].startswith("draw ")
    paths = [names(BOARS_BOARD.key_path(state, "draw %d" % n)) for n in range(0, 26)]
    assert all(p[0] == "b7" for p in paths)
    assert [p[1] for p in paths] == INNER + ["a6"]  # draw 0 on b6, draw 7 on d5
    assert paths[7] == ["b7", "d5"]
    labels = BOARS_BOARD.key_labels(state, [cell_key("b7")])
    assert dict((key_name(k), w) for k, w in labels.items()) == dict(
        (key, str(n)) for n, key in enumerate(INNER + ["a6"]))
    # With min_draw=1 the old layout: draw n on the nth inner key.
    old = BOARS.new_game(2, seed=0, min_draw=1)
    assert [names(BOARS_BOARD.key_path(old, "draw %d" % n))[1] for n in range(1, 26)] == INNER
    # The track is drawn in the same order: T1 (the boar's own space) on b6, T_n on the
    # n-th key, as for the choices.
    from vora_host.games.boars import board as boars_board
    assert names(boars_board.TRACK_KEYS) == INNER
    state.pos = [0, 30]  # the boars apart: the spaces ahead show their own colours
    frame = BOARS_BOARD.frame(state, 0, 0)
    spaces = boars.track_spaces(state.view(0)["track"])
    stations = 0
    for n, name in enumerate(INNER):
        if spaces[n]["kind"] == "station":
            assert at(frame, name) == (70, 70, 70), name
            stations += 1
        elif spaces[n]["kind"] == "food":
            assert at(frame, name) not in (OFF, (70, 70, 70)), name
    assert stations >= 3
    assert at(frame, "b6") == SEAT_RGB["S"]  # player 0's boar on T1


# ---------------------------------------------------------------- boars' colours

@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_boar_shows_in_its_seat_colour_as_its_corner(players):
    state = BOARS.new_game(players, seed=1)
    state.pos = [3, 5, 7, 9][:players]  # T1, T3, T5, T7 from player 0's boar
    for now in (0, 1000, 2345):
        frame = BOARS_BOARD.frame(state, 0, now)
        for p in range(players):
            seat = SEATS_BY_COUNT[players][p]
            assert at(frame, INNER[2 * p]) == SEAT_RGB[seat], (players, p)
    if players == 2:
        # Player 1 sits at N: amber, as their corner g7 pulses.
        assert at(BOARS_BOARD.frame(state, 0, 0), INNER[2]) == (255, 140, 0)


def test_the_corner_and_the_boar_of_the_player_to_act_share_a_hue():
    state = BOARS.new_game(2, seed=1)
    state.play("draw 3")
    while state.to_act() == 0:
        state.play("end" if "end" in state.legal_moves() else state.legal_moves()[0])
    assert state.to_act() == 1
    state.pos = [40, 20]
    pad = KeyPad(BOARS_BOARD)
    raw = compose_frame(BOARS_BOARD, state, None, pad, 500)
    corner = tuple(raw[3 * cell_key("g7"):3 * cell_key("g7") + 3])
    boar = at(BOARS_BOARD.frame(state, None, 500), "b6")  # T1: player 1's own space
    assert boar == (255, 140, 0)
    # The corner pulses the same colour, scaled.
    assert corner[2] == 0 and abs(corner[0] * 140 - corner[1] * 255) <= 255


@pytest.mark.parametrize("players", [2, 3, 4])
def test_boars_sharing_a_space_take_turns(players):
    state = BOARS.new_game(players, seed=2)  # every boar on the Start: T1, b6
    from vora_host.games.boars.board import BOAR_MS
    shown = [at(BOARS_BOARD.frame(state, 0, now), "b6")
             for now in range(0, BOAR_MS * players * 2, BOAR_MS // 3)]
    assert set(shown) == set(SEAT_RGB[s] for s in SEATS_BY_COUNT[players])
    # In turn, the lowest-numbered player first, BOAR_MS each.
    assert [at(BOARS_BOARD.frame(state, 0, BOAR_MS * p), "b6") for p in range(players)] == \
        [SEAT_RGB[s] for s in SEATS_BY_COUNT[players]]


# ---------------------------------------------------------------- the Tiger's hand

def tiger_with_hands(sizes, seed=0, **options):
    """A new game whose hands hold `sizes` cards (more cards dealt from the draw pile)."""
    state = TIGER.new_game(len(sizes), seed=seed, **options)
    d = json.loads(state.to_json())
    for p, n in enumerate(sizes):
        while len(d["hands"][p]) < n:
            d["hands"][p].append(d["draw"].pop())
        while len(d["hands"][p]) > n:
            d["draw"].append(d["hands"][p].pop())
        d["hands"][p].sort()
    d["draw"].sort()
    return TIGER.from_json(d)


def card_rgb(card):
    return tiger_board.ANIMAL_RGB[TIGER.card_type(card)]


HAND = ["%s%d" % (f, r) for r in (6, 5) for f in "abcdefg"]


@pytest.mark.parametrize("size", [6, 7, 9, 14])
def test_the_whole_hand_shows_one_key_a_card(size):
    state = tiger_with_hands([size, 6], seed=size)
    cards = sorted(state.s["hands"][0], key=word_order)
    assert names(tiger_board.HAND_KEYS) == HAND
    for now in (0, 5000):
        frame = TIGER_BOARD.frame(state, 0, now)
        assert [at(frame, k) for k in HAND] == \
            [card_rgb(c) for c in cards] + [OFF] * (14 - size)
    # A spectator sees no hand.
    assert all(at(TIGER_BOARD.frame(state, None, 0), k) == OFF for k in HAND)


def test_a_hand_of_more_than_14_cards_shows_in_pages():
    state = tiger_with_hands([20, 6], seed=4)
    cards = sorted(state.s["hands"][0], key=word_order)
    page = tiger_board.PAGE_MS
    first = TIGER_BOARD.frame(state, 0, 0)
    second = TIGER_BOARD.frame(state, 0, page)
    assert [at(first, k) for k in HAND] == [card_rgb(c) for c in cards[:14]]
    assert [at(second, k) for k in HAND] == [card_rgb(c) for c in cards[14:]] + [OFF] * 8
    assert TIGER_BOARD.frame(state, 0, 2 * page) == first


# ---------------------------------------------------------------- the Tiger's war

ATTACKER = ["%s4" % f for f in "abcdefg"]
WINNER = ["%s3" % f for f in "abcdefg"]
DEFENDER = ["%s2" % f for f in "abcdefg"]


def check_battles(state, viewer, checked):
    # Every battle where the frame shows it (its page): its winner, its revealed cards.
    info = state.view(viewer)["info"]
    page = tiger_board.PAGE_MS
    for j, b in enumerate(info["battles"]):
        frame = TIGER_BOARD.frame(state, viewer, (j // 7) * page)
        col = j % 7
        assert at(frame, WINNER[col]) == tiger_board.RESULT_RGB.get(b["winner"], OFF), j
        for side, row in (("a", ATTACKER), ("d", DEFENDER)):
            if b[side]["face"]:
                assert at(frame, row[col]) == card_rgb(b[side]["face"]), (j, side)
                if b["fought"]:
                    checked.add(j)
        if b["winner"] in tiger_board.RESULT_RGB:  # its cards may be spoils already
            checked.add(j)
    if len(info["battles"]) <= 7:  # one page: nothing moves on but the known dice
        for c in range(len(info["battles"]), 7):
            assert at(TIGER_BOARD.frame(state, viewer, 0), WINNER[c]) == OFF


@pytest.mark.parametrize("n,seed", [(6, 1), (7, 2), (9, 3)])
def test_every_battle_shows(n, seed):
    assert names(tiger_board.ATTACKER_KEYS) == ATTACKER
    assert names(tiger_board.WINNER_KEYS) == WINNER
    assert names(tiger_board.DEFENDER_KEYS) == DEFENDER
    state = tiger_with_hands([2 * n, 2 * n], seed=seed)
    state.play("fight 1 %d" % n)
    rnd = random.Random(seed)
    checked = set()
    while state.war() is not None:
        for viewer in (None, 0, 1):
            check_battles(state, viewer, checked)
        state.play(rnd.choice(state.legal_moves()))
    assert checked == set(range(n)), "every battle seen fought"


def test_a_battle_won_by_both_is_grey():
    for seed in range(60):
        state = TIGER.new_game(2, seed=seed)
        rnd = random.Random(seed)
        while not state.is_over():
            info = state.view(None)["info"]
            both = [j for j, b in enumerate(info["battles"]) if b["winner"] == "both"]
            if both:
                frame = TIGER_BOARD.frame(state, None, 0)
                assert at(frame, WINNER[both[0]]) == (120, 120, 120)
                return
            state.play(rnd.choice(state.legal_moves()))
    raise AssertionError("no battle won by both sides in 60 games")


def colours_over_time(state, viewer, name, span):
    return [at(TIGER_BOARD.frame(state, viewer, now), name) for now in range(0, span, 50)]


def test_while_making_dice_the_cards_left_and_the_dice_made_show():
    state = TIGER.new_game(2, seed=3)
    state.play("fight 1 3")
    card_ms = tiger_board.CARD_MS
    steps = 0
    while state.phase() == "build" and state.to_act() == 0:
        build = state.view(0)["war"]["build"]
        pool = sorted(build["pool"], key=word_order)
        cur = build["cur"]
        frame = TIGER_BOARD.frame(state, 0, 0)
        # The cards still to place on the hand's keys (the hand itself is empty now).
        assert not state.hand(0)
        assert [at(frame, k) for k in HAND] == [card_rgb(c) for c in pool] + \
            [OFF] * (14 - len(pool))
        made = [j for j, bt in enumerate(state.war()["b"]) if bt["s"][0]["set"]]
        making = ATTACKER[len(made)]
        seen = set(colours_over_time(state, 0, making, card_ms * 6))
        if cur:
            assert seen == set(card_rgb(c) for c in cur) | {tiger_board.MAKING}
        else:
            assert seen == {tiger_board.MAKING}
        for j in made:
            pile = state.war()["b"][j]["s"][0]["pile"]
            seen = colours_over_time(state, 0, ATTACKER[j], card_ms * len(pile) * 2)
            assert set(seen) == set(card_rgb(c) for c in pile) | {OFF}
        # The defender sees the attacker's dice face down, nothing of the cards left.
        other = TIGER_BOARD.frame(state, 1, 0)
        assert [at(other, k) for k in HAND] == [
            card_rgb(c) for c in sorted(state.s["hands"][1], key=word_order)] + [OFF] * 8
        assert [at(other, ATTACKER[j]) for j in made] == [tiger_board.FACE_DOWN] * len(made)
        assert at(other, making) == OFF
        state.play(state.legal_moves()[0])
        steps += 1
    assert steps >= 4
    # Once made, the attacker's three dice show their cards in turn; the hand is empty.
    frame = TIGER_BOARD.frame(state, 0, 0)
    assert all(at(frame, k) == OFF for k in HAND)
    for j in range(3):
        pile = state.war()["b"][j]["s"][0]["pile"]
        assert set(colours_over_time(state, 0, ATTACKER[j], card_ms * 4)) == \
            set(card_rgb(c) for c in pile) | {OFF}


# ---------------------------------------------------------------- what the docs say

def test_the_tiger_docstring_and_doc_name_the_keys_the_frame_uses():
    doc = on_the_board_section("tossing-tiger-notation.md").replace("`", "")
    code = tiger_board.__doc__
    for first, last in (("a6", "g6"), ("a5", "g5"), ("a4", "g4"), ("a3", "g3"),
                        ("a2", "g2")):
        for text in (doc, code):
            assert "%s..%s" % (first, last) in text, (first, last)
    assert not re.search(r"\brow [0-9]", code), "rows named 0-based"
    for text in (doc, code):
        assert "grey" in text and "(120, 120, 120)" in text
        assert "white: both" not in text and "white the both" not in text
    assert "14" in doc and "PAGE_MS" not in doc and "2.5 s" in doc
    assert "cards still to place" in doc and "cards still to place" in code


def test_the_boars_doc_orders_choices_as_the_code_does():
    doc = on_the_board_section("boars-notation.md").replace("`", "")
    assert "String order" not in doc and "string order" not in doc
    assert "draw 7" in doc and "c5" in doc
    assert "seat colour" in doc and "take turns" in doc
    assert "T1..T25 (b6..f6, then down row by row to f2)" in doc


# ---------------------------------------------------------------- hidden information

def positions(module, players, seeds, every, limit):
    for seed in seeds:
        state = module.new_game(players, seed=seed)
        rnd = random.Random(seed)
        k = 0
        while not state.is_over() and k < limit:
            if k % every == 0:
                yield state.clone()
            state.play(rnd.choice(state.legal_moves()))
            k += 1


@pytest.mark.parametrize("name,players", [("boars", 2), ("boars", 3), ("tossing-tiger", 2),
                                          ("tossing-tiger", 3)])
def test_frames_show_no_secret_of_another_player(name, players):
    # Two states that differ only in what the viewer cannot know (determinize() deals
    # the unknown again) give the same frames and key marks, at any time.
    module = games.load(name)
    board = host_games.host_game(name).BOARD
    differed = 0
    others_building = 0
    for state in positions(module, players, range(3), 3, 150):
        for viewer in [None] + list(range(players)):
            view = state.view(viewer)
            other = module.determinize(view, 12345)
            if other.to_json() == state.to_json():
                continue
            differed += 1
            if name == "tossing-tiger" and view["war"] and view["war"]["build"] and \
                    view["war"]["build"]["p"] != viewer and view["war"]["build"]["pool"]:
                others_building += 1
            for now in (0, 300, 650, 1400, 2600, 5100, 9999):
                assert board.frame(other, viewer, now) == board.frame(state, viewer, now)
            assert board.key_marks(other, viewer) == board.key_marks(state, viewer)
    assert differed > 20, "the test must compare states that really differ in secrets"
    if name == "tossing-tiger":
        assert others_building, "and states where another player makes dice"
