"""The whole firmware application on the simulated hardware layer: keys pressed on the
simulated matrix go through the debouncer, the game, the renderer and the pixel output.
"""

import random

from shared_rules import vora
from vora_fw import layout, palette
from vora_fw.app import App
from vora_fw.hal_sim import SimHardware, default_pinmap

from board_player import enter_move


class Board:
    """A simulated board with a clock: press() holds a key for 60 ms, as a finger does."""

    def __init__(self, seed=1, ghosting=False, store=None):
        self.hw = SimHardware(ghosting=ghosting)
        self.now = 0
        self.events = []
        self.app = App(self.hw, default_pinmap(), store=store, seed_fn=lambda: seed)
        self.app.ui.listener = lambda e, s, d: self.events.append((e, d))

    def run(self, ms):
        end = self.now + ms
        while self.now < end:
            self.now += 5
            self.app.step(self.now)

    def press(self, name):
        k = layout.key_index(name)
        self.hw.press(k)
        self.run(60)
        self.hw.release(k)
        self.run(60)


def test_a_whole_game_through_the_simulated_matrix():
    board = Board(seed=8)
    board.press("cW")
    board.press("cE")
    board.press("c3")
    ui = board.app.ui
    shadow = vora.new_game(4, seed=8)
    assert ui.state == shadow
    rnd = random.Random(8)
    played = []
    while not shadow.is_over():
        move = rnd.choice(shadow.legal_moves())
        enter_move(ui, move, board.press)
        shadow.play(move)
        played.append(move)
        assert ui.state.digest() == shadow.digest()
    assert [d for e, d in board.events if e == "move"] == played
    assert board.events[-1] == ("over", None)


def test_the_pixels_show_the_meadow_after_a_move():
    board = Board(seed=2)
    board.press("c3")
    ui = board.app.ui
    move = [m for m in ui.legal if m.startswith("push")][0]
    enter_move(ui, move, board.press)
    board.run(1000)  # the fade of the changed cubes is over
    frame = board.hw.frame_rgb()
    for c in range(25):
        t = ui.state.grid[c]
        if palette.CUBE_PATTERN[t] == palette.STEADY:
            k = layout.meadow_key(c)
            rgb = tuple(frame[3 * k:3 * k + 3])
            want = palette.CUBE_RGB[t]
            # the output caps each channel and the whole frame's current: same hue, dimmer
            assert all(v <= w for v, w in zip(rgb, want)) and max(rgb) > 0


def test_a_bouncing_key_is_one_press():
    board = Board()
    k = layout.key_index("cE")
    for _ in range(4):  # 2 ms chatter, shorter than the debounce time
        board.hw.press(k)
        board.now += 2
        board.app.step(board.now)
        board.hw.release(k)
        board.now += 2
        board.app.step(board.now)
    board.hw.press(k)
    board.run(100)
    board.hw.release(k)
    board.run(100)
    assert board.app.ui.chosen_seats == "SNE"  # toggled once, not five times


def test_ghost_keys_do_not_press():
    # Three keys of a rectangle held on a matrix without diodes read as four.
    board = Board(ghosting=True)
    held = ["cS", "Sb", "W1"]  # (0,0), (2,0), (0,1): the ghost would be (2,1) = b1
    for name in held:
        board.hw.press(layout.key_index(name))
    board.run(100)
    assert not board.app.scanner.is_pressed(layout.key_index("b1"))
    assert board.app.scanner.ghosts_ignored >= 1


def test_frames_are_handed_out_at_once_after_a_key_event():
    board = Board()
    written = board.hw.pixels.frames_written
    k = layout.key_index("cE")
    board.hw.press(k)
    while board.app.ui.chosen_seats != "SNE":
        board.now += 5
        board.app.step(board.now)
    # the scan that delivered the event drew and wrote the new frame in the same step
    assert board.hw.pixels.frames_written > written
    frame = board.hw.frame_rgb()
    corner = 3 * layout.key_index("cE")
    assert max(frame[corner:corner + 3]) > 0
