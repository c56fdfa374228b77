"""The board's Vora application, played through its keys only (firmware/vora_fw/vora_ui.py).

Full games are entered key by key as the player's guide says (tests/board_player.py) and
checked move by move against the rules core; refusals, menus, farm views, the end screen
and the frames drawn are checked too.
"""

import random

import pytest

from shared_rules import games, vora
from vora_fw import layout, palette
from vora_fw.vora_ui import MODE_MENU, MODE_OVER, MODE_PLAY, MODE_SETUP, VoraUI
from vora_fw.vora_ui_keys import R_EDGE_NO_CUBE

from board_player import enter_move, key_presser


class MemoryStore:
    def __init__(self):
        self.text = None
        self.saves = 0

    def save(self, text):
        self.text = text
        self.saves += 1

    def load(self):
        return self.text

    def clear(self):
        self.text = None


def started(seats="SN", seed=1, store=None):
    events = []
    ui = VoraUI(store=store, seed_fn=lambda: seed,
                listener=lambda e, s, d: events.append((e, d, s and s.digest())))
    clock = [0]
    press = key_presser(ui, clock)
    for seat in "SN":
        if seat not in seats:
            press("c" + seat)  # S and N are chosen by default: take them out
    for seat in "WE":
        if seat in seats:
            press("c" + seat)
    press("c3")
    assert ui.mode == MODE_PLAY
    return ui, press, events, clock


@pytest.mark.parametrize("seats,seed", [("SN", 1), ("SWN", 2), ("SWNE", 3), ("SE", 4)])
def test_a_full_game_through_the_keys_matches_the_rules_core(seats, seed):
    ui, press, events, clock = started(seats, seed)
    shadow = vora.new_game(len(seats), seed=seed, seats=seats)
    assert ui.state == shadow
    rnd = random.Random(seed)
    kinds = set()
    while not shadow.is_over():
        moves = shadow.legal_moves()
        # Prefer the rarer moves now and then so every kind of entry is exercised.
        special = [m for m in moves if not m.startswith("push")]
        move = rnd.choice(special if special and rnd.random() < 0.5 else moves)
        enter_move(ui, move, press)
        shadow.play(move)
        kinds.add(move.split()[0])
        assert ui.state.digest() == shadow.digest(), move
        assert events[-1][:2] == ("move", move) or events[-1][0] == "over"
    assert ui.mode == MODE_OVER
    assert events[-1][0] == "over"
    assert {"push", "take", "pass"} <= kinds
    assert len([e for e in events if e[0] == "move"]) == ui.moves_played
    # The board keeps the game's record: the PC can replay it to the same state.
    assert games.replay(ui.record()) == ui.state


def test_keys_that_lead_nowhere_are_refused_and_change_nothing():
    ui, press, events, clock = started()
    before = ui.state.to_json()
    press("Sc")  # an edge before a cube is picked
    assert ui.refused_key == layout.key_index("Sc")
    frame = bytearray(147)
    ui.render(frame, clock[0])
    k = layout.key_index("Sc") * 3
    assert tuple(frame[k:k + 3]) == palette.REFUSE
    # The refusal is told (the PC says why) and nothing else happened.
    assert events[1:] == [("refused", (layout.key_index("Sc"), R_EDGE_NO_CUBE, ""),
                           ui.state.digest())]
    assert ui.state.to_json() == before
    # A cube the farm does not hold, while the farm is on view: refused too.
    press("cS")
    empty = [vora.CELL_NAMES[c] for c, t in enumerate(ui.farm_cells(0)) if t < 0][0]
    press(empty)
    assert ui.refused_key == layout.key_index(empty)
    assert ui.state.to_json() == before


BASE = "PWMDL/DLPWM/WMDLP/LPWMD/MDLPW"


def test_every_move_is_previewed_and_only_the_corner_confirms_it():
    ui = VoraUI()
    ui._enter_game(vora.from_position(BASE + " SN 0 CP/D G30"))
    press = key_presser(ui, [0])
    press("cS")
    press(vora.CELL_NAMES[ui.farm_cells(0).index(vora.PIG)])
    press("Sc")
    assert ui.preview == "push pig Sc"
    press("a3")  # a wolf: nothing to do with it, refused; the preview stays
    assert ui.refused_key == layout.key_index("a3")
    press("cN")  # the other player's corner only shows their farm; the preview stays
    assert ui.view_for == "peek"
    assert ui.moves_played == 0 and ui.preview == "push pig Sc"
    press("cS")
    assert ui.moves_played == 1 and ui.state.active == 1
    assert ui.state.meadow()[4][2] == "P"


def test_the_same_edge_again_switches_to_the_pig_push():
    ui = VoraUI()
    ui._enter_game(vora.from_position(BASE + " SN 0 PP/D G30"))
    press = key_presser(ui, [0])
    press("cS")
    press(vora.CELL_NAMES[ui.farm_cells(0).index(vora.PIG)])
    press("Sc")
    assert ui.preview == "push pig Sc"
    press("Sc")
    assert ui.preview == "pig Sc"
    press("Sc")
    assert ui.preview == "push pig Sc"
    press("Sc")
    press("cS")
    assert ui.state.farm(1) == {"duck": 1, "mole": 1, "pig": 1}  # two cubes out North


def test_collect_or_pass_by_the_corner():
    rows = "PWMDL/DLPWM/WMDLP/LPSMD/CCSSW"
    ui = VoraUI()
    # Chain lines offered too (a house option), so that the corner's pass is needed.
    ui._enter_game(vora.from_position(rows + " SN 0 CP/D G30", chain_lines="offered"))
    press = key_presser(ui, [0])
    enter_move(ui, "push crow W1", press)
    assert ui.state.phase == vora.PHASE_COLLECT
    press("e3")  # not in a line
    assert ui.refused_key == layout.key_index("e3")
    press("b1")  # any cube of the line previews it
    assert ui.preview == "take a1"
    press("cS")
    assert ui.state.farm(0)["crow"] == 3
    press("cS")
    assert ui.preview == "pass"  # the corner alone proposes to pass
    press("cS")
    assert ui.state.active == 1


def test_another_players_farm_is_shown_for_a_while():
    ui, press, events, clock = started()
    press("cN")
    assert ui.view_farm == 1 and ui.view_for == "peek"
    frame = bytearray(147)
    ui.render(frame, clock[0])
    lit = [c for c in range(25) if any(frame[layout.meadow_key(c) * 3:layout.meadow_key(c) * 3 + 3])]
    assert len(lit) == sum(ui.state.farms[1])
    clock[0] += 3500
    ui.tick(clock[0])
    assert ui.view_farm == -1


def test_holding_the_corner_opens_the_menu_and_the_game_can_end():
    store = MemoryStore()
    ui, press, events, clock = started(store=store)
    k = layout.key_index("cS")
    ui.key(k, True, clock[0])
    ui.tick(clock[0] + 1000)
    assert ui.mode == MODE_PLAY
    ui.tick(clock[0] + 2100)
    assert ui.mode == MODE_MENU
    ui.key(k, False, clock[0] + 2200)
    clock[0] += 2300
    press("c2")  # green: back
    assert ui.mode == MODE_PLAY
    end_from_the_menu(ui, press, clock)
    assert ui.mode == MODE_SETUP and store.text is None


def end_from_the_menu(ui, press, clock, corner="cS"):
    """A corner held 2 s opens the menu; its red key ends the game."""
    k = layout.key_index(corner)
    ui.key(k, True, clock[0])
    ui.tick(clock[0] + 2100)
    clock[0] += 2300
    ui.key(k, False, clock[0])
    press("c4")  # red: end the game


def test_the_game_is_saved_after_every_move_and_resumed():
    store = MemoryStore()
    ui, press, events, clock = started(store=store)
    rnd = random.Random(5)
    for _ in range(12):
        enter_move(ui, rnd.choice(ui.legal), press)
    assert store.saves == 13  # the new game, then every move
    resumed = []
    again = VoraUI(store=store, listener=lambda e, s, d: resumed.append((e, s.digest())))
    again.resume()
    assert again.mode == MODE_PLAY and again.state == ui.state
    assert again.moves_played == 12 and resumed == [("resume", ui.state.digest())]


def test_a_save_from_elsewhere_is_ignored_with_a_reason():
    store = MemoryStore()
    store.text = '{"game": "chess"}'
    ui = VoraUI(store=store)
    ui.resume()
    assert ui.mode == MODE_SETUP and "save ignored" in ui.error


def test_setup_needs_two_players_and_counts_them():
    ui = VoraUI(seed_fn=lambda: 9)
    press = key_presser(ui, [0])
    press("cN")
    press("c3")
    assert ui.mode == MODE_SETUP and ui.refused_key == layout.key_index("c3")
    press("cE")
    press("cW")
    press("c3")
    assert ui.mode == MODE_PLAY and ui.state.seats == "SWE"


def test_the_end_screen_scrolls_the_scores_and_starts_again():
    ui = VoraUI(seed_fn=lambda: 3)
    ui._enter_game(vora.from_position(BASE.replace("P", "L", 1) + " SN 0 CCCCCC/SSS -"))
    press = key_presser(ui, [0])
    enter_move(ui, "ladybug a5", press)
    assert ui.mode == MODE_OVER and ui.state.winner() == 0
    frames = set()
    for t in range(0, 4000, 160):
        frame = bytearray(147)
        ui.render(frame, t)
        frames.add(bytes(frame))
    assert len(frames) > 5  # the text moves
    # Each player's score in their seat's colour: South's first (its first column at the
    # meadow's left edge at the start), then North's, and no other colour on the meadow.
    meadow = [r * 7 + c for r in range(1, 6) for c in range(1, 6)]
    seen = []
    for t in range(0, 160 * len(ui.scroll), 160):
        frame = bytearray(147)
        ui.render(frame, t)
        lit = {bytes(frame[k * 3:k * 3 + 3]) for k in meadow} - {bytes(3)}
        assert len(lit) <= 1, (t, lit)
        seen += [c for c in lit if c not in seen]
    assert seen == [bytes(palette.SEAT_RGB[seat]) for seat in "SN"]
    first = bytearray(147)
    ui.render(first, 0)
    assert any(first[(r * 7 + 1) * 3:(r * 7 + 2) * 3] == bytes(palette.SEAT_RGB["S"])
               for r in range(1, 6))
    press("c3")
    assert ui.mode == MODE_SETUP


@pytest.mark.parametrize("how", ["over", "ended"])
def test_back_in_the_setup_the_board_holds_nothing_of_the_last_game(how):
    # What a game leaves on a board's fixed heap pins it: the record's pieces, the state,
    # the takeback's snapshot, the end screen's text, made wherever the heap had room,
    # split its free memory (tests/test_micropython_unix.py: the largest free block after
    # a game was 5.8 KB of 68 KB free, 27 KB and more once the setup let go of them).
    store = MemoryStore()
    ui, press, events, clock = started("SWNE", seed=3, store=store)
    rnd = random.Random(3)
    while ui.mode == MODE_PLAY and (how == "over" or ui.moves_played < 30):
        enter_move(ui, rnd.choice(ui.legal), press)
    if how == "over":
        assert ui.mode == MODE_OVER and ui.scroll and len(ui.moves.texts) >= 2
        press("c3")
    else:
        assert ui.snap is not None
        end_from_the_menu(ui, press, clock)
    assert ui.mode == MODE_SETUP and store.text is None
    assert ui.state is None and ui.snap is None and ui.scroll is None and ui.bot is None
    assert len(ui.moves) == 0 and ui.moves.texts == [] and len(ui.legal) == 0
    press("c3")  # the next game starts from nothing of the last
    assert ui.mode == MODE_PLAY and ui.moves_played == 0 and ui.state.seats == "SWNE"


def test_frames_show_each_cube_in_its_colour():
    ui, press, events, clock = started()
    frame = bytearray(147)
    ui.render(frame, 100)
    for c in range(25):
        t = ui.state.grid[c]
        if palette.CUBE_PATTERN[t] == palette.STEADY:
            k = layout.meadow_key(c) * 3
            assert tuple(frame[k:k + 3]) == palette.CUBE_RGB[t]


def test_a_push_sweeps_along_its_line_then_the_rest_follows():
    ui = VoraUI()
    ui._enter_game(vora.from_position(BASE + " SN 0 CP/D G30"))
    press = key_presser(ui, [0])
    enter_move(ui, "push crow Sc", press)
    t0 = ui.changed_at
    keys = [layout.key_index("c%d" % r) for r in range(1, 6)]  # the pushed file, from South

    def whiteness(dt):
        # how far each cell of file c is mixed towards white, 0..256, by the animation
        lit, plain = bytearray(147), bytearray(147)
        ui.render(lit, t0 + dt)
        changed, ui.changed = ui.changed, 0
        ui.render(plain, t0 + dt)
        ui.changed = changed
        out = []
        for k in keys:
            room = 765 - sum(plain[3 * k:3 * k + 3])
            out.append((sum(lit[3 * k:3 * k + 3]) - sum(plain[3 * k:3 * k + 3])) * 256 // room)
        return out

    start = whiteness(150)
    assert start[0] < start[2] < start[4]  # c1 has been fading longest, c5 not yet begun
    assert whiteness(900) == [0, 0, 0, 0, 0]
    ui.render(bytearray(147), t0 + 900)
    assert ui.changed == 0  # the animation is over
