"""Vorcept on the board, as a tester at the keys found it (terminal mode): the key pad says
what is true for a game with no confirm corner, a selection can be cancelled, a summon on
a cell the selected piece could reach is reachable without a detour, and the board shows
whose turn it is. Also: docs/adding-a-game.md has the "On the board" it refers to."""

import re
from pathlib import Path

from shared_rules import games, vorcept
from vora_host import games as host_games
from vora_host.games.base import cell_key
from vora_host.games.vorcept.board import PYLON_TURN, SIDE_RGB
from vora_host.play.board import BoardGame
from vora_host.play.board_keys import HOLD_MS, KeyPad, compose_frame
from vora_host.play.terminal import Human

from test_board_games import FakeClient  # the same fake board link

ROOT = Path(__file__).resolve().parents[1]
BOARD = host_games.host_game("vorcept").BOARD

# Blue to act: Host b1 (free beside it: a1, b2, c1), Drone-1 c2 (it may also go to b2
# and c1), the Pylon d4, Red's Host g7.
PLAY = "......h/......./......./...@.../......./..A..../.H..... 0 1 - 4,3,2/4,3,2 0"
# The same with Blue's reserve empty: two pieces left, so conceding is legal.
FEW = "......h/......./......./...@.../......./..A..../.H..... 0 1 - 0,0,0/4,3,2 0"


def tap(pad, state, name, now):
    """A short press: what the press did, or (the preview's last key again) the release."""
    k = cell_key(name)
    out = pad.press(state, k, now)
    after = pad.release(state, k, now + 50)
    return after if out == ("held", None) else out


def hold(pad, state, name, now):
    k = cell_key(name)
    assert pad.press(state, k, now) == ("held", None)
    return pad.release(state, k, now + HOLD_MS)


def rgb(frame, name):
    k = cell_key(name)
    return tuple(frame[3 * k:3 * k + 3])




# ---------------------------------------------------------------- 1. the messages


def test_the_messages_say_how_to_play_a_preview_without_a_corner():
    state = vorcept.new_game(2, seed=0)
    pad = KeyPad(BOARD)
    assert pad.confirm_keys(state) == ()
    assert tap(pad, state, "c3", 0) == ("preview", "pylon c3")
    assert "corner" not in pad.message
    assert "press its last key again and hold it" in pad.message
    pad.press(state, cell_key("c3"), 500)
    assert pad.release(state, cell_key("c3"), 550) == ("preview", "pylon c3")  # a tap
    assert "corner" not in pad.message and "hold" in pad.message
    # A piece selected, then its destination: neither message speaks of a corner.
    state = vorcept.from_position(PLAY)
    pad = KeyPad(BOARD)
    assert tap(pad, state, "c2", 0) == ("partial", None)
    assert "corner" not in pad.message
    assert tap(pad, state, "c4", 100) == ("preview", "move c2 c4")
    assert "corner" not in pad.message and "hold" in pad.message


def test_a_game_with_corners_still_says_press_your_corner():
    module = games.load("gaia-vora")
    state = module.new_game(2, seed=2)
    pad = KeyPad(host_games.host_game("gaia-vora").BOARD)
    k = host_games.host_game("gaia-vora").BOARD.key_path(state, "rotate 2")[0]
    assert pad.press(state, k, 0) == ("preview", "rotate 2")
    assert pad.message.startswith("rotate 2 (press your corner")


def test_several_humans_at_vorcept_are_never_asked_for_a_corner():
    state = vorcept.new_game(2, seed=0)
    events = []
    game = BoardGame("vorcept", state, [Human(), Human()], FakeClient(), bot_delay_ms=0,
                     on_event=lambda what, text: events.append((what, text)))
    game.tick(0)
    game.key(cell_key("c3"), True, 10)
    game.key(cell_key("c3"), False, 60)
    assert events and all("corner" not in text for _, text in events)


# ---------------------------------------------------------------- 2. cancelling


def test_the_selected_piece_pressed_again_cancels_the_selection():
    state = vorcept.from_position(PLAY)
    pad = KeyPad(BOARD)
    assert tap(pad, state, "c2", 0) == ("partial", None)
    assert "c2 again to cancel" in pad.message
    assert tap(pad, state, "c2", 200) == ("cancelled", None)
    assert pad.pressed == [] and pad.preview is None and "cancelled" in pad.message
    # Nothing blinks any more: the frame is the plain game again with the start glows.
    frame = compose_frame(BOARD, state, None, pad, 1000)
    assert rgb(frame, "c2") == BOARD.frame(state, None, 1000)[cell_key("c2")]
    # And the next press of the piece selects it afresh.
    assert tap(pad, state, "c2", 400) == ("partial", None)


def test_a_previewed_move_is_cancelled_by_its_first_key():
    state = vorcept.from_position(PLAY)
    pad = KeyPad(BOARD)
    tap(pad, state, "c2", 0)
    assert tap(pad, state, "c4", 100) == ("preview", "move c2 c4")
    assert "c2 again to cancel" in pad.message
    assert tap(pad, state, "c2", 200) == ("cancelled", None)
    assert pad.preview is None and pad.pressed == []
    assert state.position() == PLAY  # nothing played


def test_the_host_selection_cancels_too_even_while_conceding_is_legal():
    state = vorcept.from_position(FEW)
    assert "concede" in state.legal_moves()
    pad = KeyPad(BOARD)
    assert tap(pad, state, "b1", 0) == ("partial", None)
    assert tap(pad, state, "b1", 100) == ("cancelled", None)
    # Conceding is the Host, then the Pylon, and is played like any preview.
    assert BOARD.key_path(state, "concede") == (cell_key("b1"), cell_key("d4"))
    tap(pad, state, "b1", 200)
    assert tap(pad, state, "d4", 300) == ("preview", "concede")
    assert hold(pad, state, "d4", 400) == ("play", "concede")


def test_cancelling_on_the_board_is_reported_and_the_key_pad_offers_it_to_every_game():
    state = vorcept.from_position(PLAY)
    events = []
    game = BoardGame("vorcept", state, [Human(), Human()], FakeClient(), bot_delay_ms=0,
                     on_event=lambda what, text: events.append((what, text)))
    game.tick(0)
    for now in (10, 100):
        game.key(cell_key("c2"), True, now)
        game.key(cell_key("c2"), False, now + 40)
    assert events[-1][0] == "cancel" and game.pad.pressed == []
    # Gaia-Vora (a game with corners): the Sun pressed again drops the selection too.
    module = games.load("gaia-vora")
    gaia = module.new_game(2, seed=2)
    gaia.play("rotate 2")
    board = host_games.host_game("gaia-vora").BOARD
    pad = KeyPad(board)
    move = next(m for m in gaia.legal_moves() if m.startswith("rainbow"))
    first = board.key_path(gaia, move)[0]
    assert pad.press(gaia, first, 0) == ("partial", None)
    assert pad.press(gaia, first, 100) == ("cancelled", None)


# ---------------------------------------------------------------- 3. summoning


def test_a_summon_on_a_cell_the_selected_host_could_reach_is_a_tap_away():
    state = vorcept.from_position(PLAY)
    pad = KeyPad(BOARD)
    tap(pad, state, "b1", 0)  # the Host
    assert tap(pad, state, "b2", 100) == ("preview", "move b1 b2")
    assert "another" in pad.message
    # A tap on the destination goes on to the summons there, then round to the move.
    assert tap(pad, state, "b2", 200) == ("preview", "summon drone1 b2")
    frame = compose_frame(BOARD, state, None, pad, 250)
    assert rgb(frame, "b2") == (255, 255, 255) and rgb(frame, "b1") != (255, 255, 255)
    assert tap(pad, state, "b2", 300) == ("preview", "summon drone2 b2")
    assert tap(pad, state, "b2", 400) == ("preview", "summon drone3 b2")
    assert tap(pad, state, "b2", 500) == ("preview", "move b1 b2")
    assert tap(pad, state, "b2", 600) == ("preview", "summon drone1 b2")
    assert hold(pad, state, "b2", 700) == ("play", "summon drone1 b2")


def test_a_summon_where_a_selected_drone_could_go_is_reachable_on_the_board():
    state = vorcept.from_position(PLAY)
    game = BoardGame("vorcept", state, [Human(), Human()], FakeClient(), bot_delay_ms=0)
    game.tick(0)
    for name, now in (("c2", 10), ("c1", 100), ("c1", 200)):  # drone, destination, tap
        game.key(cell_key(name), True, now)
        game.key(cell_key(name), False, now + 40)
    assert game.pad.preview == "summon drone1 c1"
    game.key(cell_key("c1"), True, 300)
    game.key(cell_key("c1"), False, 300 + HOLD_MS)
    assert game.moves == ["summon drone1 c1"]
    assert state.piece_at("c1") == (0, "drone1") and state.piece_at("c2") == (0, "drone1")


# ---------------------------------------------------------------- 4. whose turn


def test_the_pylon_shows_whose_turn_it_is_in_every_phase():
    state = vorcept.new_game(2, seed=0)
    state.play("pylon d4")  # lava: Red places first, then Blue
    seen = []
    while state.phase_name() != "over" and len(seen) < 30:
        frame = compose_frame(BOARD, state, None, KeyPad(BOARD), 0)
        seen.append((state.to_act(), rgb(frame, "d4")))
        state.play(state.legal_moves()[0] if state.phase_name() != "lava" or
                   state.lava_count() < 6 else "lava done")
    players = set(p for p, _ in seen)
    assert players == {0, 1}
    for player, colour in seen:
        assert colour == PYLON_TURN[player]
        side, other = SIDE_RGB[player], SIDE_RGB[1 - player]
        # The Pylon leans towards the colour of the player to act, not the other's.
        lean = sum(abs(a - b) for a, b in zip(colour, side))
        assert lean < sum(abs(a - b) for a, b in zip(colour, other))


def test_the_two_players_turns_look_different_and_the_game_over_is_white():
    blue = vorcept.from_position(PLAY)
    red = vorcept.from_position(PLAY.replace(" 0 1 - ", " 1 1 - "))
    a = compose_frame(BOARD, blue, None, KeyPad(BOARD), 0)
    b = compose_frame(BOARD, red, None, KeyPad(BOARD), 0)
    assert rgb(a, "d4") != rgb(b, "d4")
    over = vorcept.from_position(FEW)
    over.play("concede")
    assert over.is_over()
    assert rgb(compose_frame(BOARD, over, None, KeyPad(BOARD), 0), "d4") == (200, 200, 200)


def test_the_notation_page_lists_the_lights_the_code_shows():
    text = (ROOT / "docs" / "vorcept-notation.md").read_text()
    board = text[text.index("## On the board"):]
    for colour in PYLON_TURN:
        assert "(%d, %d, %d)" % colour in board
    assert "cancel" in board and "concede" in board


# ---------------------------------------------------------------- 5. the guide


def test_adding_a_game_has_the_on_the_board_section_it_refers_to():
    text = (ROOT / "docs" / "adding-a-game.md").read_text()
    headings = set(re.findall(r"^#+ (.+?)\s*$", text, re.M))
    for ref in re.findall(r'see "([^"]+)" below', text):
        assert ref in headings, ref
    section = text[text.index("## On the board"):]
    for word in ("BoardMapping", "key_path", "frame", "confirm_keys", "key_marks",
                 "state.view", "HOLD_MS", "cancel", "test_board_games"):
        assert word in section, word
