"""Typed play of a game with secrets, several humans at one screen (issue #23, 3): after a
human's turn the screen and its scrollback are wiped, the move is announced as the others
may see it, and the next human is named; nothing the next human can see depends on the
previous human's secrets."""

import io

from rich.console import Console

from shared_rules import tossing_tiger as tt
from vora_host.play.terminal import Human, TerminalGame

WIPE = "\x1b[2J\x1b[3J\x1b[H"


class Screen:
    """A terminal's bytes, and where they stood when each line of input was read."""

    def __init__(self, lines):
        self.console = Console(file=io.StringIO(), width=100, force_terminal=True,
                               color_system=None, legacy_windows=False)
        self.lines = list(lines)
        self.read_at = []  # (what was typed, characters written before it was read)

    def read(self, prompt):
        self.console.print(prompt, end="")
        if not self.lines:
            raise EOFError
        line = self.lines.pop(0)
        self.read_at.append((line, len(self.text())))
        return line

    def text(self):
        return self.console.file.getvalue()


def play_tiger(p0_hand, lines):
    # P0 attacks P1 with two dice and builds them: the cards P0 adds are P0's secrets
    # until the dice are rolled.
    state = tt.from_hands([p0_hand, ["tiger"] * 4])
    screen = Screen(lines)
    game = TerminalGame(state, [Human(), Human()], screen.console, read=screen.read,
                        echo=False, game="tossing-tiger")
    game.run()
    return screen


P0_TURN = ["", "fight 1 2", "add crane", "add crane", "next"]  # Enter: the hand-over
P1_TURN = ["", "add tiger"]


def after_p0(screen):
    """What was written after P0's last entry: all that P1 (or a spectator) can see."""
    k = len(P0_TURN) - 1
    assert screen.read_at[k][0] == P0_TURN[-1]
    return screen.text()[screen.read_at[k][1]:]


def _until_a_kept_card(seed):
    """Random moves of a 2-player game from `seed` until P0 may keep a card of the spoils
    (a secret) and the turn then passes to P1: (state at the start, the moves before, the
    'keep' move), or None when this game never gets there."""
    import random
    rnd = random.Random(seed)
    start = tt.new_game(2, seed)
    state = start.clone()
    moves = []
    while not state.is_over() and len(moves) < 400:
        legal = state.legal_moves()
        if state.to_act() == 0:
            for move in legal:
                if move.startswith("keep "):
                    after = state.clone()
                    after.play(move)
                    if after.to_act() == 1:
                        return start, moves, move
        move = rnd.choice(legal)
        state.play(move)
        moves.append(move)
    return None


def _typed_lines(start, moves):
    # What two humans type for `moves`: an Enter at each hand-over, then the moves.
    lines, state, last = [], start.clone(), None
    for move in moves:
        if state.to_act() != last:
            lines.append("")
            last = state.to_act()
        lines.append(move)
        state.play(move)
    if state.to_act() != last:
        lines.append("")
    return lines


def test_the_move_after_a_human_turn_is_public_and_the_scrollback_is_wiped():
    # The first seed whose random game reaches P0 keeping a card of the spoils (which
    # only P0 may know), after which the turn passes to P1.
    start, before, keep = next(found for found in map(_until_a_kept_card, range(100))
                               if found is not None)
    screen = Screen(_typed_lines(start, before + [keep]) + [""])
    game = TerminalGame(start, [Human(), Human()], screen.console, read=screen.read,
                        echo=False, game="tossing-tiger")
    game.run()
    kept = [at for line, at in screen.read_at if line == keep][-1]
    seen = screen.text()[kept:]
    assert seen.startswith(WIPE)  # the screen and its scrollback
    handed = [at for line, at in screen.read_at if line == ""][-1]
    public = screen.text()[kept:handed]  # until P1 pressed Enter: everybody's screen
    # Which card P0 kept is P0's secret. (The card itself may be named: a battle's
    # revealed cards stay on the war table, seen by all, and P0 grabbed it in public.)
    assert keep not in public and "P0 (human): keep a card" in public
    assert "P0 (human): keep a card" in seen
    assert "Next: P1 (human)" in seen and "Only P1 looks now" in seen
    assert "P1, press Enter" in seen


def test_a_redeal_of_p0s_secrets_changes_nothing_p1_can_see():
    one = play_tiger(["crane", "crane", "mantis", "mantis", "dragon"], P0_TURN + P1_TURN)
    two = play_tiger(["crane", "crane", "mantis", "mantis", "leopard"], P0_TURN + P1_TURN)
    # The games differ on P0's screens...
    assert "dragon" in one.text() and "leopard" in two.text()
    # ...and not at all from the hand-over to P1 on: byte for byte.
    assert after_p0(one) == after_p0(two)
    assert "add tiger" in after_p0(one) or "tiger" in after_p0(one)


def test_undo_asked_by_a_human_with_secrets_wipes_the_screen_before_the_others_answer():
    screen = play_tiger(["crane", "crane", "mantis", "mantis", "dragon"],
                        P0_TURN + P1_TURN + ["undo", "n"])
    undo_at = [at for line, at in screen.read_at if line == "undo"][0]
    asked = screen.text()[undo_at:]
    assert asked.startswith(WIPE)
    assert "P0" in asked and "take back" in asked and "does not agree" in asked
    # P1 is handed the screen again before their secrets come back.
    assert "Only P1 looks now" in asked.split("does not agree")[1]
