"""What the board screen says once (issue 38.5): the end of a game and a bot thinking are
on the turn line atop the panel beside the board, not again as the newest event."""

import time

from shared_rules import games
from vora_host.play.board import BoardGame
from vora_host.play.terminal import Human

from test_board_games import FakeClient
from test_board_screen import HeldBot, _board_screen, _panel, _wait_flat, companion_for


def test_a_bot_thinking_is_said_once_beside_the_board():
    state = games.load("vorcept").new_game(2, seed=3)
    bot = HeldBot(hold_s=30.0)
    companion = companion_for("vorcept", state, [bot, Human()])
    game = companion.game
    end = time.monotonic() + 10
    now = 0
    while game.thinking is None and time.monotonic() < end:
        game.tick(now)
        now += 20
    assert game.thinking is not None
    try:
        for cols, rows in ((80, 24), (120, 40)):
            text = " ".join(" ".join(_panel(companion, cols, rows)).split())
            assert text.count("is thinking") == 1, text
            assert "P0 (held) is thinking..." in text
    finally:
        bot.release.set()


def test_game_over_is_said_once_beside_the_board(tmp_path):
    # Two bots play a short game (Tossing Tiger, seed 3) to its end. (The turn line is
    # under the board too, by design: beside the line typed on.)
    from vora_host.virtual import screen as sim
    with _board_screen(tmp_path, "tossing-tiger", 80, 24, "--human", "none") as term:
        _wait_flat(term, "Game over")
        rows = term.lines()[sim.TOP - 1:sim.TOP - 1 + 7 * 2]
        panel = " ".join(" ".join(line[sim.SIDE_COL - 1:] for line in rows).split())
        assert panel.count("Game over") == 1 and panel.count("wins with") == 1, term.text()
        term.send("q", 0)
        assert term.wait_exit() == 0
