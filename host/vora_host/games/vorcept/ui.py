"""Vorcept in the terminal: the board as coloured letters, the reserves, the phase."""

from rich.console import Group
from rich.table import Table
from rich.text import Text

from vora_host.games.base import TerminalView
from vora_host.words import plural

__all__ = ["VorceptView"]

# Blue and Red as cyan and amber: apart for every common colour blindness; lava is a dim
# red and the Pylon white, each with its own letter as well, so colour is never the only cue.
STYLES = {
    ".": "dim",
    "#": "bold #ffffff on #7a1f00",
    "@": "bold #000000 on #ffffff",
    "H": "bold #000000 on #56b4e9", "A": "#56b4e9", "B": "bold #56b4e9", "C": "bold reverse #56b4e9",
    "h": "bold #000000 on #e69f00", "a": "#e69f00", "b": "bold #e69f00", "c": "bold reverse #e69f00",
}
LEGEND = ("H/h Host (1 step)  A/a Drone-1 (1-2)  B/b Drone-2 (1-3)  C/c Drone-3 (1-4)\n"
          "capitals Blue, small letters Red;  # lava  @ Pylon  . empty")

HELP_TEXT = """\
[bold]Entering a move[/bold]: its [bold]#number[/bold] from the list (#5), or the move in notation:
  pylon <cell>            Blue places the Pylon                 (pylon d4)
  lava <cell>             place a lava block, not beside the Pylon (lava b2)
  lava done               stop placing lava (from the 6th block)
  host <cell>             place your Host                       (host c1)
  move <cell> <cell>      move a piece in a straight line        (move d2 d4)
  summon <drone> <cell>   a drone from your reserve beside your Host (summon drone1 c3)
  concede                 give up (only with fewer than 3 pieces left)
Cells a1..g7: file a..g from west to east, rank 1..7 from south to north.
Each turn of play is two actions with two different pieces."""

# The help of `?`: the game in a few lines, then the step the game is in (step_help).
SUMMARY = (
    "[bold]Vorcept[/bold]: Blue and Red each command a Host and drones on a 7x7 grid. A "
    "turn is two actions with two different pieces: move one in a straight line (Host 1 "
    "cell, Drone-1 up to 2, Drone-2 up to 3, Drone-3 up to 4; it may jump, never over the "
    "Pylon), or summon a drone onto a free cell beside your Host. An enemy piece beside "
    "the one that arrives is taken when trapped between two of yours, held on three sides, "
    "or left no free cell. Take the enemy Host, or hold three sides of the Pylon, to win.")

HOLD = "then press it again and hold it (about a second) to play"
STEP_HELP = {
    "pylon": ("Blue places the Pylon, on any cell. In a corner it has only two sides, so "
              "nobody can hold three: only taking a Host wins that game.",
              "press the cell, " + HOLD + ".",
              "pylon <cell>  (pylon d4)"),
    "lava": ("Place a lava block, Red first, then in turn; never beside the Pylon. From the "
             "6th block on, the player to place may stop instead; the 9th ends it.",
             "press the cell, " + HOLD + "; to stop, the Pylon's key, held.",
             "lava <cell>  (lava b2),  lava done"),
    "host": ("Place your Host: not beside lava, not beside the Pylon (Red: nor beside "
             "Blue's Host).",
             "press the cell, " + HOLD + ".",
             "host <cell>  (host d1)"),
    "play": ("Action %(action)d of 2, with a piece that has not acted this turn.",
             "a piece, then where it goes (the cells it can reach glow); or a free cell "
             "beside your Host to summon (it shows the first kind you still have; tap it "
             "again for the next); your Host, then the Pylon, to concede. Hold the last key to play; the "
             "first key again cancels.",
             "move <from> <to>  (move d2 d4),  summon drone1|drone2|drone3 <cell>,  concede "
             "(with fewer than 3 pieces left)"),
}

CORNER_PYLON = ("The Pylon is in a corner: it has two sides, so nobody can hold three; only "
                "taking a Host wins this game.")

_PROMPTS = {"pylon": "place the Pylon", "lava": "place lava (or lava done)",
            "host": "place your Host", "play": "act"}


class VorceptView(TerminalView):
    help_text = HELP_TEXT

    def seat_label(self, state, player, who=None):
        text = "P%d %s" % (player, self.rules.PLAYER_NAMES[player])
        return "%s (%s)" % (text, who) if who else text

    def step_help(self, state):
        phase = state.phase_name()
        if phase not in STEP_HELP:
            return SUMMARY + "\n[bold]The game is over.[/bold]"
        what, keys, typed = STEP_HELP[phase]
        if phase == "play":
            what = what % {"action": state.action_number()}
        return "%s\n[bold]Now (%s)[/bold]: %s\n  [bold]On the board[/bold]: %s\n  " \
               "[bold]Typed[/bold]: %s" % (SUMMARY, phase, what, keys, typed)

    def prompt(self, state):
        phase = state.phase_name()
        if phase == "play":
            return "act (action %d of 2)" % state.action_number()
        return _PROMPTS.get(phase, phase)

    def summary(self, state, viewer=None, who=None):
        # Vorcept scores only its winner: the standing is in the pieces left, and what
        # can still be summoned (nothing is hidden).
        who = who or {}
        t = Text("Pieces left: " + ", ".join(
            "%s %d" % (self.seat_label(state, p, who.get(p)), state.pieces_left(p))
            for p in (0, 1)))
        reserves = [state.reserve(p) for p in (0, 1)]
        t.append("\nTo summon (Drone-1/2/3): " + ", ".join(
            "%s %d/%d/%d" % (self.rules.PLAYER_NAMES[p], r["drone1"], r["drone2"],
                             r["drone3"]) for p, r in enumerate(reserves)))
        return t

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        seen = self.rules.determinize(self.seen(state, viewer), 0)  # nothing is hidden
        return Group(self._board(seen), Text(""), self._status(seen, who or {}, history))

    def _board(self, state):
        rows = state.board_rows()
        n = len(rows)
        acted = set(state.acted_cells())
        removed = set(c for c, _, _ in state.last_removed())
        grid = Text()
        for r, row in enumerate(rows):
            rank = n - r
            grid.append("%2d " % rank, style="dim")
            for f, ch in enumerate(row):
                name = "%s%d" % (self.rules.FILES[f], rank)
                style = STYLES.get(ch, "")
                if name in acted:
                    style += " underline"
                text = ch if ch != "." else ("x" if name in removed else ".")
                grid.append(" %s " % text, style=style if text != "x" else "bold red")
            grid.append("\n")
        grid.append("   " + "".join(" %s " % self.rules.FILES[f] for f in range(n)), style="dim")
        return Group(grid, Text(LEGEND, style="dim"))

    def _status(self, state, who, history):
        t = Text()
        phase = state.phase_name()
        t.append("Phase %s" % phase, style="bold")
        if phase == "play":
            t.append("   turn %d, action %d of 2" % (state.turn_count() + 1, state.action_number()))
        elif phase == "lava":
            t.append("   %d lava placed" % state.lava_count())
        to_act = state.to_act()
        for p in (0, 1):
            r = state.reserve(p)
            t.append("\n")
            t.append(self.seat_label(state, p, who.get(p)),
                     style="bold reverse" if p == to_act else "bold")
            t.append("  reserve: %d Drone-1, %d Drone-2, %d Drone-3; %s left"
                     % (r["drone1"], r["drone2"], r["drone3"],
                        plural(state.pieces_left(p), "piece")))
        if self._corner_pylon(state):
            t.append("\n" + CORNER_PYLON, style="yellow")
        gone = state.last_removed()
        if gone:
            t.append("\nRemoved: " + ", ".join("%s %s on %s" % (
                self.rules.PLAYER_NAMES[p], k, c) for c, p, k in gone), style="red")
        if history:
            t.append("\nLast moves", style="underline")
            for player, move in list(history)[-4:]:
                t.append("\n  P%d %s" % (player, move))
        return t

    def describe(self, before, after, viewer=None):
        if before.pylon_cell() is None and after.pylon_cell() is not None:
            return CORNER_PYLON if self._corner_pylon(after) else ""
        gone = after.last_removed()
        if not gone or gone == before.last_removed():
            return ""
        return "removed: " + ", ".join("%s %s on %s" % (self.rules.PLAYER_NAMES[p], k, c)
                                       for c, p, k in gone)

    @staticmethod
    def _corner_pylon(state):
        # The Pylon victory lost to the Pylon's place (not chosen with host_only).
        return state.pylon_cell() is not None and not state.options()["host_only"] \
            and not state.pylon_winnable()

    def end_reason(self, state):
        return {
            "host": "a Host was captured or surrounded",
            "pylon": "three sides of the Pylon are held",
            "concede": "a player conceded",
            "turns": "the turn limit was reached (a house safeguard): a draw",
            "stalemate": "the player to act had no action: a draw",
        }.get(state.end_reason(), state.end_reason())

    def result_lines(self, state):
        w = state.winner()
        if w is None:
            return ["A draw."]
        return ["P%d %s wins." % (w, self.rules.PLAYER_NAMES[w])]

    def scores_table(self, state, who=None, palette=None):
        who = who or {}
        table = Table(show_edge=False, box=None, padding=(0, 2))
        for col in ("player", "result", "pieces left"):
            table.add_column(col, no_wrap=True)
        w = state.winner()
        for p in (0, 1):
            table.add_row(self.seat_label(state, p, who.get(p)),
                          "won" if w == p else ("lost" if w is not None else "-"),
                          str(state.pieces_left(p)))
        return table
