"""The drawing a move of a table costs the server, on its own (issue 39): for each
position of a game of random moves, each seat's panel as the seat's view draws it (72
columns, HTML and text, the seat's own player named "you") and the game page's position
for its spectators (100 columns, HTML), each with its board's keys.

    .venv/bin/python bench/bench_drawing.py [--game vorcept] [--moves 120] [--seed 5]

Prints the CPU of one move's drawings (time.process_time, the best of 5 passes over the
game, after one pass that warms the caches of the first positions), and how many Texts
rich laid out and how many were taken as laid out before (game_data.TextSegments).
"""

import argparse
import random
import time

from shared_rules import games
from vora_host.log.cli_views import game_view
from vora_host.web import game_data
from vora_host.web.seats import PANEL_WIDTH as SEAT_WIDTH


def positions(game, moves, seed):
    """[(state, history)] of a game of random moves (at most `moves`)."""
    state = games.start({"game": game, "players": 2, "seed": seed, "options": {}})
    rnd = random.Random(seed)
    out, history = [], []
    while not state.is_over() and len(out) < moves:
        out.append((state.clone(), list(history)))
        player = state.to_act()
        move = rnd.choice(sorted(state.legal_moves()))
        history.append((player, move))
        state.play(move)
    return out


def draw_move(game, view, state, history):
    """What the server draws at a move: both seats' views and the spectators' position."""
    palette = game_data._palette(view)
    for seat in (0, 1):
        who = {seat: "you", 1 - seat: "browser"}
        game_data.board_of(game, state, seat)
        game_data.render_html_and_text(view.render(state, seat, who, history,
                                                   width=SEAT_WIDTH, palette=palette),
                                       SEAT_WIDTH)
    game_data.board_of(game, state, None)
    game_data.render_html(view.render(state, None, {}, history, width=game_data.PANEL_WIDTH,
                                      palette=palette), game_data.PANEL_WIDTH)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="vorcept")
    parser.add_argument("--moves", type=int, default=120)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    view = game_view(args.game)
    game = positions(args.game, args.moves, args.seed)
    for state, history in game:
        draw_move(args.game, view, state, history)
    cache = getattr(game_data, "TEXT_SEGMENTS", None)
    counted = (cache.drawn, cache.reused) if cache is not None else None
    best = None
    for _ in range(5):
        began = time.process_time()
        for state, history in game:
            draw_move(args.game, view, state, history)
        ms = 1000 * (time.process_time() - began) / len(game)
        best = ms if best is None else min(best, ms)
    print("%s, %d moves: a move's drawings (2 seats' views, the spectators' position) "
          "%.2f ms of CPU (best of 5)" % (args.game, len(game), best))
    if cache is not None:
        passes = 5 * len(game)
        print("  Texts laid out %.1f a move, taken as laid out before %.1f a move"
              % ((cache.drawn - counted[0]) / passes, (cache.reused - counted[1]) / passes))


if __name__ == "__main__":
    main()
