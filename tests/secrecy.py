"""The differential secrecy check, shared by tests/test_secrecy.py and bench/bench_secrecy.py.

For a game with hidden information, every byte a viewer can see must be the same in two
games that differ only in what that viewer cannot know. At positions reached by random
play, for each viewer (every player and a spectator, None), the secrets the viewer cannot
know are dealt again (`rules.determinize(state.view(viewer), seed)`), and everything the
host shows that viewer is drawn from both states and compared:

- the terminal view (`VIEW.render`) at 26, 80 and 120 columns, in colour (styles count
  too), and its summary (`VIEW.summary`: the scores and the viewer's own secrets);
- the prompt, the step help (`VIEW.step_help`, where the view has it) and the seat labels;
- what the viewer learns of each move the player to act could make next (`move_text`,
  for the moves legal in both deals);
- the board: the game's own frame at several instants, and the whole frame the board is
  sent (`compose_frame`, with the key pad idle), the marks and the labels of the keys;
- the screen beside the board (`BoardGameCompanion`: its panel and the virtual board's
  key names and marks), every seat a human's: for a spectator with the public picture on
  the board, for the player to act once they have taken the board (hand-over).

A re-deal that leaves the state unchanged proves nothing, so the check counts how many
comparisons were of states that really differ; the callers require most of them to.
"""

import io
import random

from rich.console import Console

from shared_rules import games
from vora_host import games as host_games
from vora_host.play.board import BoardGame
from vora_host.play.board_keys import KeyPad, compose_frame
from vora_host.play.board_session import BoardGameCompanion
from vora_host.play.terminal import Human

__all__ = ["hidden_games", "seen_by", "differential"]

INSTANTS = (0, 250, 777, 1234, 5000)


def hidden_games():
    """The registered games that hide information."""
    return [n for n in games.names() if games.load(n).HIDDEN_INFORMATION]


def _printed(renderable, width):
    out = io.StringIO()
    Console(file=out, width=width, color_system="truecolor", force_terminal=True,
            legacy_windows=False).print(renderable)
    return out.getvalue()


def seen_by(name, state, viewer):
    """Everything the host shows `viewer` of `state`, as a dict of comparable values."""
    host = host_games.host_game(name)
    view = host.VIEW
    seen = {}
    for width in (80, 120):
        seen["render%d" % width] = _printed(
            view.render(state, viewer, {}, [(0, "x")], width=width), width)
    # Beside an 80x24 board the picture is drawn narrow; the summary (scores and the
    # viewer's own secrets) above the typed prompt and in that panel.
    seen["render26"] = _printed(view.render(state, viewer, {}, [(0, "x")], width=26), 26)
    seen["summary"] = _printed(view.summary(state, viewer), 80)
    if not state.is_over():
        seen["prompt"] = view.prompt(state)
        step_help = getattr(view, "step_help", None)
        if step_help is not None:
            seen["step_help"] = _printed(step_help(state), 100)
    seen["seats"] = [view.seat_label(state, p) for p in range(len(state.scores()))]
    board = getattr(host, "BOARD", None)
    if board is not None:
        seen["frames"] = [tuple(board.frame(state, viewer, now)) for now in INSTANTS]
        seen["sent"] = [compose_frame(board, state, viewer, KeyPad(board), now)
                        for now in INSTANTS]
        seen["marks"] = board.key_marks(state, viewer, ())
        labels = getattr(board, "key_labels", None)
        if labels is not None and viewer is not None and state.to_act() == viewer:
            seen["labels"] = labels(state, ())
            seen["key_texts"] = board.key_texts(state, ())
        if viewer is None or viewer == state.to_act():
            seen.update(_beside_the_board(name, state, viewer))
    return seen


class _NoLink:
    connected = False


def _beside_the_board(name, state, viewer):
    # The companion's screen with every seat a human's: the board shows the public
    # picture until the player to act takes it (`revealed`).
    players = len(state.scores())
    agents = [Human() for _ in range(players)]
    companion = BoardGameCompanion(name, state.clone(), agents)
    companion.game = BoardGame(name, companion.state, agents, _NoLink(),
                               on_event=companion._event)
    companion.game.revealed = viewer
    return {"panel%d" % width: _printed(companion.renderable(width), width)
            for width in (40, 60)} | {"keys": companion.key_names_and_marks()}


def _public_texts(name, state, other, viewer):
    # What the viewer learns of each move the player to act could make, for the moves
    # legal in both deals (a move naming a secret card exists in one deal only).
    view = host_games.host_game(name).VIEW
    player = state.to_act()
    if player is None or player == viewer:
        return [], []
    both = sorted(set(state.legal_moves()) & set(other.legal_moves()))
    return ([view.move_text(state, player, m, viewer) for m in both],
            [view.move_text(other, player, m, viewer) for m in both])


def differential(name, positions, seed=0, every=3):
    """Compare what each viewer sees at about `positions` positions of game `name`
    (random games from `seed`, a position every `every` moves). Returns a dict:
    compared (positions x viewers), redealt (comparisons of states that really
    differ) and leaks (a list of (game seed, move number, viewer, what differed))."""
    module = games.load(name)
    rnd = random.Random("%s/%d" % (name, seed))
    out = {"compared": 0, "redealt": 0, "leaks": []}
    game_seed = seed
    while out["compared"] < positions:
        players = module.PLAYER_COUNTS[game_seed % len(module.PLAYER_COUNTS)]
        state = module.new_game(players, seed=game_seed)
        k = 0
        while out["compared"] < positions:
            if k % every == 0:
                for viewer in [None] + list(range(players)):
                    other = module.determinize(state.view(viewer), rnd.randrange(1 << 32))
                    out["compared"] += 1
                    out["redealt"] += other.to_json() != state.to_json()
                    mine, theirs = seen_by(name, state, viewer), seen_by(name, other, viewer)
                    differ = sorted(key for key in set(mine) | set(theirs)
                                    if mine.get(key) != theirs.get(key))
                    texts = _public_texts(name, state, other, viewer)
                    if texts[0] != texts[1]:
                        differ.append("move_text")
                    if differ:
                        out["leaks"].append((game_seed, k, viewer, differ))
            if state.is_over():
                break
            state.play(rnd.choice(state.legal_moves()))
            k += 1
        game_seed += 1
    return out
