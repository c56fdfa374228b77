"""Every game's host place draws any position of its game: the terminal view renders
random positions at several widths without an error and within the width, says what the
player to act is asked, and explains the end; the board frame is 49 colours."""

import io
import random

import pytest
from rich.console import Console

from shared_rules import games
from vora_host import games as host_games


def positions(name, count=3, every=5):
    module = games.load(name)
    rnd = random.Random(name)
    for seed in range(count):
        players = module.PLAYER_COUNTS[seed % len(module.PLAYER_COUNTS)]
        state = module.new_game(players, seed=seed)
        k = 0
        while not state.is_over():
            if k % every == 0 and k < 12 * every:
                yield state.clone()
            state.play(rnd.choice(state.legal_moves()))
            k += 1
        yield state


@pytest.mark.parametrize("name", games.names())
def test_the_view_draws_every_position_within_the_width(name):
    host = host_games.host_game(name)
    view = host.VIEW
    assert host.RULES is games.load(name)
    for state in positions(name):
        for width in (60, 80, 120):
            out = io.StringIO()
            console = Console(file=out, width=width, color_system=None)
            console.print(view.render(state, None, {}, [(0, "x")], width=width,
                                      palette=view.palette_for(console)))
            lines = out.getvalue().splitlines()
            assert lines and max(len(line) for line in lines) <= width
        if state.is_over():
            assert view.end_reason(state) and view.result_lines(state)
            Console(file=io.StringIO()).print(view.scores_table(state, {}))
        else:
            assert view.prompt(state)
            assert view.seat_label(state, state.to_act())


@pytest.mark.parametrize("name", [n for n in games.names()
                                  if hasattr(host_games.host_game(n), "BOARD")])
def test_the_board_frame_is_49_colours(name):
    board = host_games.host_game(name).BOARD
    for state in positions(name, count=2, every=7):
        for now in (0, 1234):
            frame = list(board.frame(state, None, now))
            assert len(frame) == 49
            assert all(len(rgb) == 3 and all(0 <= c <= 255 for c in rgb) for rgb in frame)


@pytest.mark.parametrize("name", [n for n in games.names() if games.load(n).HIDDEN_INFORMATION])
def test_a_view_shows_no_secret_of_another_player(name):
    # Two states that differ only in what the viewer cannot know (determinize() deals
    # the unknown again) draw exactly the same for that viewer, and for a spectator.
    module = games.load(name)
    view = host_games.host_game(name).VIEW
    differed = 0
    for state in positions(name, count=2, every=9):
        for viewer in [None] + list(range(len(state.scores()))):
            other = module.determinize(state.view(viewer), 12345)
            differed += other.to_json() != state.to_json()

            def drawn(s):
                out = io.StringIO()
                Console(file=out, width=100, color_system=None).print(
                    view.render(s, viewer, {}, [], width=100))
                return out.getvalue()
            assert drawn(other) == drawn(state)
    assert differed, "the test must compare states that really differ in secrets"


def test_vora_farms_cannot_be_read_as_player_names():
    """Issue 22: a farm written "P1 L1" (one pig, one ladybug) read as player 1 beside the
    players P0 and P1 it is listed with; counts come first now: "1P 1L"."""
    import re
    from shared_rules import vora
    from vora_host.games.vora import view
    state = vora.new_game(2, 7)
    pig, ladybug = vora.TYPES.index("pig"), vora.TYPES.index("ladybug")
    state.farms[0][pig] = 1
    state.farms[0][ladybug] = 1
    shown = [view.render_farm(state, 0).plain,
             view.farm_seat_note("S", "S", state.farms[0]),
             view.compact_status(state).plain,
             view.render_status(state).plain]
    for text in shown:
        farms = text.replace("P0", "").replace("P1", "")  # the players' own names
        assert "1P" in farms and "1L" in farms, text
        assert not re.search(r"\b[%s]\d" % vora.LETTERS, farms), text
    assert "2C = two crows" in view.FARM_NOTE
