"""What a game's host place offers the rest of the host: its terminal view.

Every game package `vora_host.games.<module>` exposes `VIEW`, an instance of a subclass
of `TerminalView`, and the terminal game, the replay, the mirror and the log's `show`
draw the game only through it. The defaults here suit any game; a game overrides what it
can say better (its board, its help text, what a move changed, why the game ended).

Hidden information: `render()` and every other method that shows a position get the full
state and the viewer, and must show only what `state.view(viewer)` holds (a spectator is
viewer None). `seen(state, viewer)` gives that dict; views of hidden-information games
draw from it alone, and their tests prove that two states differing in secrets the
viewer cannot know draw the same.
"""

from rich.markup import escape
from rich.table import Table
from rich.text import Text

__all__ = ["TerminalView"]


class TerminalView:
    """The defaults every game's terminal view builds on."""

    #: How to enter moves, in rich markup, shown by `?` in the terminal game.
    help_text = ("Type a move's [bold]number[/bold] from the list, or the move in the "
                 "game's notation.")

    #: The notation on one screen, for `vora rules GAME` (defaults to the help text).
    notation_summary = None

    def __init__(self, rules):
        self.rules = rules
        if self.notation_summary is None:
            self.notation_summary = self.help_text

    # ---- what a viewer may see

    def seen(self, state, viewer):
        """What `viewer` may know of `state` (state.view), the only source for drawing."""
        return state.view(viewer)

    def palette_for(self, console):
        """A game's colours for `console` (None when the game has no palette)."""
        return None

    # ---- the position

    def seat_label(self, state, player, who=None):
        """'P1' or, with `who` (e.g. 'you', 'search'), 'P1 (search)'."""
        text = "P%d" % player
        return "%s (%s)" % (text, who) if who else text

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        """The position as `viewer` sees it, as a rich renderable."""
        raise NotImplementedError

    def prompt(self, state):
        """What the player to act is asked to do, after 'P1 to ...' ('move')."""
        return "move"

    def move_text(self, before, player, move, viewer=None):
        """A move as `viewer` may see it: the move itself, unless the game hides
        information and the viewer is not the player who made it; then the rules'
        `public_move(state_before, move, viewer)` says what the others learn."""
        if not self.rules.HIDDEN_INFORMATION or (viewer is not None and viewer == player):
            return move
        public = getattr(self.rules, "public_move", None)
        return public(before, move, viewer) if public else "(a move kept secret)"

    def describe(self, before, after, viewer=None):
        """What the last move changed, in a few words ('' if nothing to add)."""
        return ""

    def compact_family(self, family, items):
        """A short text standing for a whole family of moves in the move list (Vora's
        pushes from all 20 edges), or None to list them."""
        return None

    # ---- the end

    def end_reason(self, state):
        """Why the game ended, in words."""
        reason = state.end_reason()
        return "the game is over (%s)" % (reason or "no reason recorded")

    def result_lines(self, state):
        """The winner or a draw, as a list of strings."""
        w = state.winner()
        if w is None:
            return ["A draw."]
        return ["P%d wins." % w]

    def scores_table(self, state, who=None, palette=None):
        """Each player's score, as a rich table."""
        who = who or {}
        table = Table(show_edge=False, box=None, padding=(0, 2))
        table.add_column("player", no_wrap=True)
        table.add_column("score", justify="right", no_wrap=True)
        for p, score in enumerate(state.scores()):
            table.add_row(escape(self.seat_label(state, p, who.get(p))), str(score))
        return table

    def title(self, state):
        """The game's name with its player count, for headings."""
        return Text("%s, %d players" % (self.rules.TITLE, len(state.scores())))
