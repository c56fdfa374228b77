"""Gaia-Vora in the terminal: the Sky Board's eight slots round the Water as a 3x3 grid,
each with its Sky Object, the position and stack under it and the Life-Forms there; then
pools, Fossil Cards, Stars, tiles left and scores."""

from rich.console import Group
from rich.table import Table
from rich.text import Text

from vora_host.games.base import TerminalView
from vora_host.words import plural

__all__ = ["GaiaView"]

COLOUR_STYLE = {"yellow": "bold #000000 on #f0e442", "green": "bold #000000 on #009e73",
                "white": "bold #000000 on #f5f5f5", "orange": "bold #000000 on #e69f00"}
TILE_STYLE = {"stone": "#999999", "sand": "#e69f00", "grass": "#009e73", "snow": "bold #ffffff"}
SPECIES_LETTER = {"carnivore": "C", "herbivore": "H", "plant": "P"}
GRID = (("nw", "n", "ne"), ("w", None, "e"), ("sw", "s", "se"))
GRID_WIDTH = 50  # columns the 3x3 picture of the planet needs (three of 16, and gaps)

HELP_TEXT = """\
[bold]Entering a move[/bold]: its [bold]#number[/bold] from the list (#5), or the move in notation:
  rotate 1|2|3                          turn the planet clockwise (1 and 3 cost a Star)
  sun <species> <location>              place one of your Life-Forms (the Sun)
  rainbow <colour> <species> <location> place a Life-Form of any colour (the Rainbow)
  storm <species> <location>            move a Life-Form out from under the Storm
  meteor grass|snow                     drop a Grass or Snow Tile under the Meteor
  meteor sand|stone <position>          drop a Sand or Stone Tile with its riders
Species: carnivore herbivore plant. Locations: the positions a..h (printed on the
planet, they turn with it) and water. Colours: yellow green white orange."""


# The help of `?`: the game in a few lines, then the step the game is in (step_help).
SUMMARY = (
    "[bold]Gaia-Vora[/bold]: turn the planet 1, 2 or 3 steps, then use one Sky Object on "
    "the location under it: the Sun places up to four of your Life-Forms there, beside it "
    "and in the Water; the Rainbow four of different colours; the Storm moves the "
    "Life-Forms there away; the Meteor drops a tile on it. One of each species per "
    "location. Under the Moon, herbivores eat plants and carnivores herbivores. Score: "
    "each Life-Form its height, each one eaten or crushed 1 for its taker.")

SLOT_KEYS_TEXT = ("the location's key: d4 the Water; round it the slots under the Moon d5, "
                  "the Meteor e5, the Rainbow e3, the Storm c3, the Sun c5, and e4, d3, c4")
STEP_HELP = {
    "rotate": ("turn the planet: 2 steps are free, 1 or 3 cost a Star. The Moon eats after "
               "every step.",
               "b1 (1 step), c1 (2 steps), d1 (3 steps); your corner plays it.",
               "rotate 1, rotate 2, rotate 3"),
    "sky": ("choose a Sky Object (only those that would change something are lit) and make "
            "its first move.",
            "Sun c7 or Storm e1, a species (a2 carnivore, b2 herbivore, c2 plant), then "
            + SLOT_KEYS_TEXT + "; Rainbow f1, a colour (a6 yellow, a5 green, a4 white, a3 "
            "orange), a species, a location; Meteor e7, a tile (g6 stone, g5 sand, g4 "
            "grass, g3 snow) and for stone or sand the slot over it. Your corner plays it.",
            "sun <species> <location>, rainbow <colour> <species> <location>, storm "
            "<species> <location>, meteor grass|snow, meteor sand|stone <position>"),
    "sun": ("go on with the Sun: place your next Life-Form (as many as can be placed).",
            "c7, a species (a2 carnivore, b2 herbivore, c2 plant), " + SLOT_KEYS_TEXT
            + "; your corner plays it.",
            "sun <species> <location>  (sun plant water)"),
    "rainbow": ("go on with the Rainbow: the next Life-Form, of a colour not placed yet.",
                "f1, a colour (a6 yellow, a5 green, a4 white, a3 orange), a species (a2, "
                "b2, c2), " + SLOT_KEYS_TEXT + "; your corner plays it.",
                "rainbow <colour> <species> <location>  (rainbow white herbivore d)"),
    "storm": ("go on with the Storm: move the next Life-Form off the tile under it.",
              "e1, a species (a2 carnivore, b2 herbivore, c2 plant), where it goes: "
              + SLOT_KEYS_TEXT + "; your corner plays it.",
              "storm <species> <location>  (storm carnivore water)"),
}


class GaiaView(TerminalView):
    help_text = HELP_TEXT

    def seat_label(self, state, player, who=None):
        text = "P%d %s" % (player, self.rules.COLOURS[player])
        return "%s (%s)" % (text, who) if who else text

    def step_help(self, state):
        phase = state.board()["phase"]
        if phase not in STEP_HELP:
            return SUMMARY + "\n[bold]The game is over.[/bold]"
        what, keys, typed = STEP_HELP[phase]
        return "%s\n[bold]Now (%s)[/bold]: %s\n  [bold]On the board[/bold]: %s\n  " \
               "[bold]Typed[/bold]: %s" % (SUMMARY, phase, what, keys, typed)

    def prompt(self, state):
        phase = state.board()["phase"]
        return {"rotate": "rotate the planet", "sky": "choose a Sky Object",
                "sun": "go on with the Sun", "rainbow": "go on with the Rainbow",
                "storm": "go on with the Storm"}.get(phase, phase)

    def summary(self, state, viewer=None, who=None):
        # The scores, the Stars, and the pool and fossils of the viewer (the player to act
        # when the screen is everybody's): nothing is hidden, and the picture with every
        # colour's is too tall for a panel beside an 80x24 board.
        b = state.board()
        who = who or {}
        t = Text("Scores: " + ", ".join(
            "%s %d" % (self.seat_label(state, p, who.get(p)), b["scores"][c])
            for p, c in enumerate(b["colours"])))
        if b["bots"]:
            t.append("; bots " + ", ".join("%s %d" % (c, b["scores"][c]) for c in b["bots"]))
        t.append("\nStars: " + ", ".join("%s %d" % (c, n)
                                         for c, n in zip(b["colours"], b["stars"])))
        mine = viewer if viewer is not None else b["to_act"]
        if mine is not None:
            colour = b["colours"][mine]
            pool = b["pools"][colour]
            t.append("\n%s pool: C%d H%d P%d; fossils %d" % (
                "Your" if viewer is not None else colour.capitalize() + "'s",
                pool["carnivore"], pool["herbivore"], pool["plant"],
                sum(sum(v.values()) for v in b["fossils"][colour].values())))
        return t

    def _life(self, life, narrow=False):
        # " C  .  P ", or " C.P" a line a location beside an 80-column board (26 columns:
        # "ne METEOR b: sa (2)" and the wide form wrapped).
        t = Text(" " if narrow else "")
        for species in ("carnivore", "herbivore", "plant"):
            colour = life.get(species)
            pad = "%s" if narrow else " %s "
            if colour:
                t.append(pad % SPECIES_LETTER[species], style=COLOUR_STYLE[colour])
            else:
                t.append(pad % ".", style="dim")
        return t

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        b = self.rules.from_json(self.seen(state, viewer)).board()
        slots = dict((s["slot"], s) for s in b["slots"])
        grid = Table.grid(padding=(0, 1))
        for _ in range(3):
            grid.add_column(width=16, no_wrap=True)
        for row in GRID:
            cells = []
            for name in row:
                cell = Text()
                if name is None:
                    cell.append("WATER\n", style="bold #56b4e9")
                    cell.append_text(self._life(b["water"]))
                else:
                    s = slots[name]
                    cell.append("%-2s %s\n" % (name, (s["sky"] or "").upper()), style="bold")
                    if s["location"] == "water":
                        cell.append("%s: uncovered\n" % s["position"], style="#56b4e9")
                    else:
                        cell.append("%s: " % s["position"])
                        for tile in s["stack"]:
                            cell.append(tile[:2] + " ", style=TILE_STYLE[tile])
                        cell.append("(%d)\n" % s["altitude"], style="dim")
                        cell.append_text(self._life(s["life"]))
                cells.append(cell)
            grid.add_row(*cells)
        if width is not None and width < GRID_WIDTH:
            # Beside an 80-column board the 3x3 cells were cut ("ne METE…", "h: sa (…"):
            # one line a location there, in the same words.
            grid = Text()
            for k, name in enumerate(n for row in GRID for n in row):
                grid.append("\n" if k else "")
                if name is None:
                    grid.append("WATER", style="bold #56b4e9")
                    grid.append_text(self._life(b["water"], narrow=True))
                    continue
                s = slots[name]
                grid.append(("%s %s" % (name, (s["sky"] or "").upper())).rstrip(), style="bold")
                if s["location"] == "water":
                    grid.append(" %s: uncovered" % s["position"], style="#56b4e9")
                    continue
                grid.append(" %s: " % s["position"])
                grid.append_text(Text(" ").join(
                    Text(tile[:2], style=TILE_STYLE[tile]) for tile in s["stack"]))
                grid.append(" (%d)" % s["altitude"], style="dim")
                grid.append_text(self._life(s["life"], narrow=True))
        legend = Text("C carnivore  H herbivore  P plant, on their colour; (n) points a "
                      "Life-Form scores there", style="dim")
        return Group(grid, legend, Text(""), self._status(b, state, who or {}, history))

    def _status(self, b, state, who, history):
        t = Text()
        t.append("Turn %d   phase %s   Stars %s   off the planet: %d grass, %d snow"
                 % (b["turn"] + (0 if b["phase"] == "over" else 1), b["phase"], "/".join(str(n) for n in b["stars"]),
                    b["supply"]["grass"], b["supply"]["snow"]), style="bold")
        for colour in b["colours"] + b["bots"]:
            p = b["colours"].index(colour) if colour in b["colours"] else None
            t.append("\n")
            label = self.seat_label(state, p, who.get(p)) if p is not None else "bot %s" % colour
            t.append(label, style="bold reverse" if p is not None and p == b["to_act"] else "bold")
            pool = b["pools"][colour]
            t.append("  score %d  pool C%d H%d P%d  fossils %d" % (
                b["scores"][colour], pool["carnivore"], pool["herbivore"], pool["plant"],
                sum(sum(v.values()) for v in b["fossils"][colour].values())))
        if history:
            t.append("\nLast moves", style="underline")
            for player, move in list(history)[-4:]:
                t.append("\n  P%d %s" % (player, move))
        return t

    def end_reason(self, state):
        return {"tiles": "the last Land Tile was placed",
                "turns": "the turn limit was reached (a house safeguard)"}.get(
                    state.end_reason(), state.end_reason())

    def result_lines(self, state):
        w = state.winner()
        scores = state.scores()
        if w is None:
            return ["A draw on %s." % plural(max(scores), "point")]
        return ["P%d %s wins with %s." % (w, self.rules.COLOURS[w], plural(scores[w], "point"))]
