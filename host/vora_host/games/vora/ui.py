"""Vora's terminal view for the generic terminal game, replay and log (vora_host.games.base).

The drawing itself is in `view` (the 7x7 board, farms, status); this class adds what the
terminal game says around it: the help for typing moves, what a move did to the farms,
the scores with their tie-break numbers, and the end of a game in words.
"""

from rich.table import Table
from rich.text import Text

from shared_rules import vora

from vora_host.games.base import TerminalView
from vora_host.games.vora import view

__all__ = ["VoraView"]

HELP_TEXT = """\
[bold]Entering a move[/bold]: its [bold]#number[/bold] from the list (#5), or the move in notation:
  push <cube> <edge>     push a cube of your farm in at an edge (push crow Sc)
  pig <edge>             a pig of your farm pushes the line two spaces
  wolf <edge>            a wolf of your farm eats the first animal of that line
  crow <cell>            swap a crow of your farm with an animal of the meadow
  mole <cell> <cell>     a mole in the meadow swaps with a cube next to it
  duck <cell> <cell>     a duck in the meadow swaps with any grass or water
  ladybug <cell>         take a ladybug from the meadow (ends your turn)
  water <cell>           collect 3+ connected water, named by its first cell
  take <cell>            collect a line group (\\[x] on the board), named by its
                         first cell in the order a1, a2, ..., e5
  extra <cell>           bonus after a line of 4+: take any cube of the meadow
  steal <player> <cube>  bonus after a line of 5+: take a cube from a farm
  pass                   collect nothing more, or skip the bonus
Cells a1..e5: the letter is the column (Sa..Se below it), the digit the row
(W1..W5 beside it). Edges Sa..Se push north, Na..Ne south, W1..W5 east, E1..E5
west. Capitals do not matter when the move is clear ("push crow sc")."""

NOTATION_SUMMARY = """\
[bold]Vora move notation[/bold] (what you type, and what records store)
  Cells  a1..e5: file a..e from west to east, rank 1..5 from south to north
         (a1 is the bottom-left cell as South sees it).
  Edges  Sa..Se push north from below, Na..Ne push south from above,
         W1..W5 push east from the left, E1..E5 push west from the right.
  Cubes  pig crow wolf mole duck ladybug sheep water grass
         (letters P C W M D L S A G on the board; A is water, "aqua").
[bold]On your turn[/bold] (phase act), one of:
  push <cube> <edge>      push a cube of your farm in; the far end one goes out
  pig <edge>              a pig of your farm pushes the line two spaces
  wolf <edge>             a wolf of your farm eats the first animal; the rest flee
  crow <cell>             a crow of your farm swaps with an animal; you keep it
  mole <cell> <cell>      a meadow mole swaps with a neighbouring cube (8 around)
  duck <cell> <cell>      a meadow duck swaps with any grass or water
  ladybug <cell>          take a ladybug from the meadow; your turn ends
  water <cell>            collect 3+ connected water, named by its first cell
[bold]Then[/bold] (phase collect): take <cell> a line group you made, or pass.
  (phase bonus, after a line of 4 / 5+): extra <cell>, steal <player> <cube>, pass.
  Groups are named by their first cell in the order a1, a2, ..., e5.
  Type "?" during a game for the commands, "vora play --help" for the options."""


# The help of `?`: the game in a few lines, then the step the game is in (step_help).
SUMMARY = (
    "[bold]Vora[/bold]: push cubes into the 5x5 meadow and collect runs of 3 or more alike "
    "into your farm. A turn is one push (a cube of your farm in at an edge) or one "
    "ability (pig, wolf, crow from your farm; mole, duck, ladybug, water in the meadow). "
    "Runs your move made "
    "may be collected; gaps close towards you, then the box refills the meadow. Sets of "
    "3/6/9 alike score 1/3/9, loose cubes -1; the game ends when the box cannot refill.")

STEP_HELP = {
    "act": ("push a cube or use an ability.",
            "%(c)s (your farm appears on the meadow), a cube, an edge key, %(c)s to play; the "
            "same edge again switches to the pig's push or the wolf's bite. Crow: %(c)s, a "
            "crow, the animal. Mole, duck: the meadow cube, then the one to swap with. "
            "Ladybug, water: that cube. Hold %(c)s 2 s for the menu (c3 takes back).",
            "push <cube> <edge> (push crow Sc), pig <edge>, wolf <edge>, crow <cell>, "
            "mole <cell> <cell>, duck <cell> <cell>, ladybug <cell>, water <cell>"),
    "collect": ("collect a run your move made (its cubes blink), or stop.",
                "a cube of the run, then %(c)s; %(c)s alone (it blinks red) and %(c)s again "
                "collects nothing more.",
                "take <cell> (the run named by its first cell, a1 before a2 ... e5), pass"),
    "bonus": ("your run of 4 (or 5+) earns a bonus: a cube of the meadow (or, after 5+, "
              "one stolen from a farm).",
              "a meadow cube, then %(c)s; or another player's corner, one of their cubes, "
              "then %(c)s; %(c)s alone passes.",
              "extra <cell>, steal <player> <cube>, pass"),
}

_PROMPTS = {"act": "act: push or use an ability",
            "collect": "collect: take a group or pass",
            "bonus": "claim the bonus or pass"}


class VoraView(TerminalView):
    help_text = HELP_TEXT
    notation_summary = NOTATION_SUMMARY

    def palette_for(self, console):
        return view.palette_for(console)

    def seat_label(self, state, player, who=None):
        return view.seat_label(state, player, who)

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        # Vora hides nothing but the box's next draws, which no drawing shows.
        return view.render_game(state, who, history, width=width,
                                palette=palette or view.CUBE_STYLES)

    def step_help(self, state):
        phase = view.phase_name(state)
        if phase not in STEP_HELP:
            return SUMMARY + "\n[bold]The game is over.[/bold]"
        corner = "c" + state.seats[state.to_act()]
        what, keys, typed = STEP_HELP[phase]
        return "%s\n[bold]Now (%s)[/bold]: %s\n  [bold]On the board[/bold]: %s\n  " \
               "[bold]Typed[/bold]: %s" % (SUMMARY, phase, what, keys % {"c": corner}, typed)

    def summary(self, state, viewer=None, who=None):
        # Vora's scores as its farms write them (+3, -2); farms are open, nothing hidden.
        who = who or {}
        return Text("Scores: " + ", ".join(
            "%s %+d" % (view.seat_label(state, p, who.get(p)), score)
            for p, score in enumerate(state.scores())))

    def prompt(self, state):
        phase = view.phase_name(state)
        return _PROMPTS.get(phase, phase)

    def describe(self, before, after, viewer=None):
        return farm_changes(before, after)

    def compact_family(self, family, items):
        # Pushes from all 20 edges, numbered in a row: one range instead of 20 items.
        numbers = [n for n, _ in items]
        if len(items) == 20 and {last for _, last in items} == set(vora.EDGE_NAMES) \
                and numbers == list(range(numbers[0], numbers[0] + 20)):
            return "#%d-#%d any edge, in the order E1..E5 Na..Ne Sa..Se W1..W5" % (
                numbers[0], numbers[-1])
        return None

    def end_reason(self, state):
        return view.end_reason(state)

    def result_lines(self, state):
        return view.result_lines(state)

    def scores_table(self, state, who=None, palette=None):
        return scores_table(state, who or {}, palette or view.CUBE_STYLES)


def farm_changes(before, after):
    """What a move did to the farms, e.g. 'P0 +3 L, -1 C; P1 +1 S' ('' if nothing)."""
    parts = []
    for p in range(len(after.seats)):
        a, b = before.farm(p), after.farm(p)
        diffs = []
        for t, name in enumerate(vora.TYPES):
            d = b.get(name, 0) - a.get(name, 0)
            if d:
                diffs.append("%+d %s" % (d, vora.LETTERS[t]))
        if diffs:
            parts.append("P%d %s" % (p, ", ".join(diffs)))
    return "; ".join(parts)


def scores_table(state, who, palette=view.CUBE_STYLES):
    """Each player's score with the numbers the tie-breaks use (kinds of sets, loose
    cubes), and their farm."""
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for name, justify in (("player", "left"), ("score", "right"), ("sets", "right"),
                          ("loose", "right"), ("farm", "left")):
        table.add_column(name, justify=justify, no_wrap=True)
    for p in range(len(state.seats)):
        score, neg_kinds, neg_loose = state.ranking_key(p)
        table.add_row(view.seat_label(state, p, who.get(p)), "%+d" % score,
                      str(-neg_kinds), str(-neg_loose), view.render_farm(state, p, palette))
    return table
