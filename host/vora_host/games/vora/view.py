"""Rich rendering of a Vora state, laid out like the physical 7x7 board.

The board is a 7x7 frame of keys: the inner 5x5 is the meadow, the 20 edge keys push a
line in from their side (labelled Na..Ne on top, Sa..Se below, W1..W5 left, E1..E5
right, the names the move notation uses), and the 4 corner keys belong to the players.

Rendering happens in two steps so that a mirror of a real board can reuse the first one:
`frame_keys()` turns a state into a 7x7 grid of plain `Key` records (what each key of
the board shows), and `render_frame()` draws such a grid with rich. `render_game()` adds
the seat markers, the farms, the scores and the recent moves around the frame.

Colours are chosen to stay distinguishable for colour-blind players, but every cube
also always shows its letter, so colour is never the only cue.
"""

from collections import namedtuple

from rich.console import Group
from rich.table import Table
from rich.text import Text

from shared_rules import vora

from vora_host.words import plural

__all__ = [
    "CUBE_STYLES", "CUBE_STYLES_16", "palette_for", "SEAT_NAMES", "CORNER_OF_SEAT",
    "PHASE_NAMES", "Key", "frame_keys", "render_frame", "render_board", "render_farm",
    "render_status", "render_game", "phase_name", "seat_label", "end_reason",
    "result_lines", "cube_chip", "render_legend", "FARM_NOTE", "farm_seat_note",
    "REFUSALS", "refusal_text", "compact_status", "seat_help",
]

# One style per cube type, indexed like vora.TYPES: a background colour and a letter
# colour picked for contrast. Hues follow the animals, taken where possible from the
# Okabe-Ito palette, which stays distinguishable under the common colour blindnesses:
# reddish purple for the pig, vermillion for the ladybug, bluish green for grass, blue
# for water, yellow for the duck. The mole's brown is kept much darker than the
# ladybug's vermillion so that the two still differ in lightness where hue fails.
CUBE_STYLES = (
    "bold #000000 on #cc79a7",  # pig: reddish purple (pink)
    "bold #ffffff on #333333",  # crow: near black, white letter
    "bold #000000 on #999999",  # wolf: grey
    "bold #ffffff on #6b4423",  # mole: dark brown
    "bold #000000 on #f0e442",  # duck: yellow
    "bold #000000 on #d55e00",  # ladybug: vermillion red
    "bold #000000 on #f5f5f5",  # sheep: white
    "bold #ffffff on #0072b2",  # water: blue
    "bold #000000 on #009e73",  # grass: bluish green
)
# The same scheme in the 16 basic ANSI colours, for terminals without 256 colours: rich
# would otherwise map pink and grey both to plain white. Crow keeps a black background,
# which may melt into a dark terminal: its white letter still tells it apart.
CUBE_STYLES_16 = (
    "bold black on bright_magenta",  # pig
    "bold bright_white on black",  # crow
    "bold black on bright_black",  # wolf
    "bold bright_white on yellow",  # mole: dark yellow, brownish in most palettes
    "bold black on bright_yellow",  # duck
    "bold bright_white on red",  # ladybug
    "bold black on bright_white",  # sheep
    "bold bright_white on blue",  # water
    "bold bright_white on green",  # grass
)
GAP_STYLE = "dim"
EDGE_STYLE = "dim cyan"
CORNER_STYLE = "bold"
TO_ACT_STYLE = "bold reverse"

SEAT_NAMES = {"S": "South", "W": "West", "N": "North", "E": "East"}

# Which corner key belongs to which seat: the corner at each player's left hand as they
# face the meadow (South's is the south-west corner, and so on clockwise). The hardware
# folder may later fix another assignment; it only needs to change here.
CORNER_OF_SEAT = {"S": (6, 0), "W": (0, 0), "N": (0, 6), "E": (6, 6)}

PHASE_NAMES = {
    vora.PHASE_ACTION: "act",
    vora.PHASE_COLLECT: "collect",
    vora.PHASE_BONUS: "bonus",
    vora.PHASE_OVER: "over",
}

# What one key of the 7x7 frame shows.
#   kind:   "cube" (a meadow cell holding a cube), "gap" (an empty meadow cell),
#           "edge" (one of the 20 push keys), "corner" (a player's key or an unused corner)
#   label:  text on the key: the cube letter, the edge name, "P0".."P3" or ""
#   cube:   type index 0..8 for "cube" keys, else None
#   player: the player owning a corner key, else None
#   mark:   True for a meadow cell in a group the player may collect now, or for the
#           corner of the player to act
#   name:   the cell or edge name in move notation ("c3", "Sa"), "" for corners
Key = namedtuple("Key", "kind label cube player mark name")


def palette_for(console):
    """The cube styles that read best on `console` (full colour or 16 colours)."""
    if console.color_system in ("standard", "windows"):
        return CUBE_STYLES_16
    return CUBE_STYLES


def phase_name(state):
    """The phase as one word: act, collect, bonus or over."""
    return PHASE_NAMES.get(state.phase, str(state.phase))


def seat_label(state, player, who=None):
    """'P1 North' or, with `who` (e.g. 'you', 'greedy'), 'P1 North (greedy)'."""
    text = "P%d %s" % (player, SEAT_NAMES[state.seats[player]])
    return "%s (%s)" % (text, who) if who else text


def _collectable_cells(state):
    cells = set()
    for group in state.collectable_groups().values():
        cells.update(group)
    return cells


def frame_keys(state):
    """The 7x7 frame as rows of `Key`, row 0 being the north (top) edge.

    Pure data, no styling: a renderer or a mirror of the real board turns it into
    pixels. Meadow row r (1..5) is rank 6 - r, column c (1..5) is file 'abcde'[c - 1].
    """
    meadow = state.meadow()  # rank 5 first, '.' for a gap
    marked = _collectable_cells(state)
    to_act = state.to_act()
    rows = []
    for r in range(7):
        row = []
        for c in range(7):
            if r in (0, 6) and c in (0, 6):
                row.append(_corner_key(state, r, c, to_act))
            elif r == 0 or r == 6:
                name = ("N" if r == 0 else "S") + "abcde"[c - 1]
                row.append(Key("edge", name, None, None, False, name))
            elif c == 0 or c == 6:
                name = ("W" if c == 0 else "E") + str(6 - r)
                row.append(Key("edge", name, None, None, False, name))
            else:
                letter = meadow[r - 1][c - 1]
                cell = "abcde"[c - 1] + str(6 - r)
                if letter == ".":
                    row.append(Key("gap", "", None, None, False, cell))
                else:
                    cube = vora.LETTERS.index(letter)
                    row.append(Key("cube", letter, cube, None, cell in marked, cell))
        rows.append(row)
    return rows


def _corner_key(state, r, c, to_act):
    for player, seat in enumerate(state.seats):
        if CORNER_OF_SEAT[seat] == (r, c):
            return Key("corner", "P%d" % player, None, player, player == to_act, "")
    return Key("corner", "", None, None, False, "")


def _key_text(key, pinned_name, palette):
    # Every key is 3 characters wide so the frame keeps its square grid. A collectable
    # cube is framed in brackets and the wolf that has eaten this turn (it does not fall)
    # gets a star: both cues work without colour.
    if key.kind == "cube":
        if key.mark:
            label = "[%s]" % key.label
        elif key.name and key.name == pinned_name:
            label = " %s*" % key.label
        else:
            label = " %s " % key.label
        return Text(label, style=palette[key.cube])
    if key.kind == "gap":
        return Text(" · ", style=GAP_STYLE)
    if key.kind == "edge":
        return Text(key.label.ljust(3), style=EDGE_STYLE)
    if key.player is not None:
        return Text(key.label.ljust(3), style=TO_ACT_STYLE if key.mark else CORNER_STYLE)
    return Text("   ")


def render_frame(keys, pinned_name="", palette=CUBE_STYLES):
    """Draw a 7x7 grid of `Key` (from `frame_keys`) as rich Text, one line per row.

    `pinned_name` is the cell of a wolf that has eaten this turn (drawn with a star)."""
    out = Text()
    for r, row in enumerate(keys):
        for c, key in enumerate(row):
            if c:
                out.append(" ")
            out.append_text(_key_text(key, pinned_name, palette))
        if r < len(keys) - 1:
            out.append("\n")
    return out


def _pinned_name(state):
    pinned = getattr(state, "pinned", -1)
    return vora.CELL_NAMES[pinned] if 0 <= pinned < 25 else ""


def render_board(state, who=None, palette=CUBE_STYLES):
    """The frame with a marker on each side where a player sits (the one to act
    highlighted), as a rich renderable. `who` maps player -> 'you' / bot kind."""
    who = who or {}
    to_act = state.to_act()
    by_side = {seat: p for p, seat in enumerate(state.seats)}
    frame = render_frame(frame_keys(state), _pinned_name(state), palette)
    width = 7 * 4 - 1

    def style_of(p):
        return TO_ACT_STYLE if p == to_act else "bold"

    def top_bottom(side, arrow):
        # North's and South's full labels fit above and below the frame.
        if side not in by_side:
            return Text("")
        p = by_side[side]
        label = arrow + " " + seat_label(state, p, who.get(p))
        out = Text(" " * max(0, (width - len(label)) // 2))
        out.append(label, style=style_of(p))
        return out

    def flank(side, arrow):
        # West and East get a short marker beside the middle row (row 3 of 0..6).
        out = Text("\n" * 3)
        if side in by_side:
            p = by_side[side]
            body = "P%d" % p
            out.append(body + " " + arrow if side == "W" else arrow + " " + body, style=style_of(p))
        return out

    west, east = flank("W", "▸"), flank("E", "◂")
    # no_wrap everywhere: a narrow terminal must crop the frame, never fold it.
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", min_width=5, no_wrap=True)
    grid.add_column(min_width=width, no_wrap=True)
    grid.add_column(min_width=5, no_wrap=True)
    grid.add_row("", top_bottom("N", "▾"), "")
    grid.add_row(west, frame, east)
    grid.add_row("", top_bottom("S", "▴"), "")
    return grid


def cube_chip(t, count=None, palette=CUBE_STYLES):
    """A cube's letter on its colour, after its count when given ('3C': three crows; a
    count after the letter, 'P1', would read as player 1).

    The letter is one character wide so that a farm of all nine types fits in 27 columns."""
    chip = Text()
    if count is not None:
        chip.append("%d" % count)
    chip.append(vora.LETTERS[t], style=palette[t])
    return chip


def render_farm(state, player, palette=CUBE_STYLES):
    """A farm as coloured chips with counts, in the fixed type order; '-' if empty."""
    farm = state.farm(player)
    out = Text()
    for t, name in enumerate(vora.TYPES):
        if name in farm:
            if out:
                out.append(" ")
            out.append_text(cube_chip(t, farm[name], palette))
    return out if out else Text("-", style="dim")


def _bonus_text(state):
    bonus = getattr(state, "bonus", 0)
    if bonus == 2:
        return "line of 5+: extra cube or steal"
    if bonus == 1:
        return "line of 4: an extra cube"
    return ""


def render_status(state, who=None, history=(), last=4, palette=CUBE_STYLES, marks=True):
    """Turn, box, phase, each farm with its score, and the last few moves.

    `marks`: the meadow drawn with it shows [x] on the cubes that may be collected; when
    it is drawn elsewhere (beside the virtual board, where they blink), the groups are
    named instead."""
    who = who or {}
    lines = Text()
    over = state.is_over()
    lines.append("Turn %d" % (state.turn if over else state.turn + 1), style="bold")
    lines.append("   Box %s" % plural(sum(state.box), "cube"))
    lines.append("   Phase ")
    lines.append(phase_name(state), style="bold")
    if state.phase == vora.PHASE_BONUS:
        lines.append("\n" + _bonus_text(state), style="italic")
    elif state.phase == vora.PHASE_COLLECT:
        if marks:
            lines.append("\n[x] marks the cubes you may collect", style="italic")
        else:
            lines.append("\nlines to collect (they blink): %s" % collect_text(state),
                         style="italic")
    scores = state.scores()
    to_act = state.to_act()
    for p in range(len(state.seats)):
        lines.append("\n")
        style = TO_ACT_STYLE if p == to_act else "bold"
        lines.append(seat_label(state, p, who.get(p)), style=style)
        lines.append("  score %+d" % scores[p])
        lines.append("\n  ")
        lines.append_text(render_farm(state, p, palette))
    lines.append("\n" + FARM_NOTE, style="dim")
    if history:
        lines.append("\nLast moves", style="underline")
        for player, move in list(history)[-last:]:
            lines.append("\n  P%d %s" % (player, move))
    return lines


# ---------------------------------------------------------------- help for newcomers

FARM_NOTE = "farms: how many, then the cube's letter (2C = two crows)"


def render_legend(palette=CUBE_STYLES, width=None, sep="  "):
    """The nine cube types, each letter on its colour with its name: 'P pig  C crow ...'.
    Folded onto more lines when `width` is too small for one."""
    items = [(t, vora.LETTERS[t] + " " + name) for t, name in enumerate(vora.TYPES)]
    out = Text()
    col = 0
    for t, label in items:
        size = len(label) + (len(sep) if col else 0)
        if width is not None and col and col + size > width:
            out.append("\n")
            col = 0
            size = len(label)
        elif col:
            out.append(sep)
        out.append(vora.LETTERS[t], style=palette[t])
        out.append(label[1:])
        col += size
    return out


def collect_text(state):
    """The line groups the player may collect now: 'take a1 (a1 b1 c1); take ...'."""
    return "; ".join("take %s (%s)" % (first, " ".join(cells))
                     for first, cells in sorted(state.collectable_groups().items()))


def farm_seat_note(owner_seat, viewer_seat, counts=None):
    """Says whose farm the meadow shows and from whose seat it is laid out, for a screen
    drawn with South at the bottom: 'North's farm on the meadow, laid out for North's
    seat (upside down from here): 2C 1P'."""
    turn = {"S": "", "N": " (upside down from here)", "W": " (turned a quarter to the right)",
            "E": " (turned a quarter to the left)"}[viewer_seat]
    text = "%s's farm on the meadow, laid out for %s's seat%s" % (
        SEAT_NAMES[owner_seat], SEAT_NAMES[viewer_seat], turn)
    if counts is not None:
        text += ": " + (" ".join("%d%s" % (n, vora.LETTERS[t]) for t, n in enumerate(counts)
                                 if n) or "empty")
    return text


# What a refused key means, by the board's reason code (firmware/vora_fw/vora_ui_keys.py R_*).
REFUSALS = {
    1: "in setup only the corners (seats) and c3 (deal) do something",
    2: "choose two seats or more (their corners) before c3 deals",
    3: "menu: c2 goes back to the game, c3 takes back the last move, c4 ends the game",
    4: "the game is over: c3 starts a new one, a corner shows that farm",
    5: "nobody sits at that corner",
    6: "the rules refuse that move",
    7: "no cube of the farm there: press a lit cell",
    8: "that cube cannot be stolen",
    9: "collect: press a cube of a blinking line (your corner alone passes)",
    10: "bonus: press a meadow cube for the extra cube, a corner to steal, or your corner to pass",
    11: "that cube has no move of its own: open your farm with your corner first",
    12: "edges push only at the start of a turn (now: collect, bonus, or your corner to pass)",
    13: "pick a cube from your farm first: press your corner, then a cube",
    14: "that cube cannot go in there: the blinking edges can take it",
    15: "a bot plays this seat: wait for its move",
    16: "a move is being shown: it plays in a moment",
    17: "the board cannot do that now",
    18: "a game is in progress: end it first (hold your corner 2 s, then c4)",
    19: "the rules refuse that position",
    20: "there is no move of a person to take back",
    21: "takeback cancelled",
    22: "the picked cube goes in at a blinking edge (a crow also onto a blinking animal)",
    23: "it swaps only with a blinking cube",
}


def refusal_text(reason, key_name=None, detail=""):
    """A refusal in words: 'Sa refused: pick a cube from your farm first: ...'."""
    text = REFUSALS.get(reason, "refused (reason %d)" % reason)
    if detail:
        text += ": " + detail
    return ("%s refused: %s" % (key_name, text)) if key_name else "refused: " + text


def seat_help(seat, phase, is_bot=None):
    """The footer for the seat whose turn it is: which keys play now."""
    corner = "c" + seat
    name = SEAT_NAMES[seat]
    if is_bot:
        return "%s is %s: wait for its move. Take back: hold your corner 2 s, then c3" % (
            name, is_bot)
    if phase == vora.PHASE_COLLECT:
        what = "press a blinking line, then %s collects it; %s alone passes" % (corner, corner)
    elif phase == vora.PHASE_BONUS:
        what = "a meadow cube (extra), a corner (steal), or %s to pass" % corner
    else:
        what = "%s shows your farm, press a cube, then an edge; %s confirms" % (corner, corner)
    return "%s (%s): %s | hold %s: menu, undo" % (name, corner, what, corner)


def compact_status(state, who=None, history=(), palette=CUBE_STYLES, width=25):
    """The mirror in a narrow column (the virtual board at 80 columns): turn, phase and
    box, each seat's score and farm (one line each), the last moves."""
    who = who or {}
    out = Text()
    over = state.is_over()
    out.append("Turn %d %s, box %d" % (state.turn if over else state.turn + 1,
                                        phase_name(state), sum(state.box)), style="bold")
    to_act = state.to_act()
    scores = state.scores()
    for p in range(len(state.seats)):
        out.append("\n")
        mark = ">" if p == to_act else " "
        label = "%sP%d %s %+d" % (mark, p, SEAT_NAMES[state.seats[p]], scores[p])
        if who.get(p):
            label += " " + who[p]
        out.append(label[:width], style=TO_ACT_STYLE if p == to_act else "bold")
        out.append("\n  ")
        farm = render_farm(state, p, palette)
        farm.truncate(width - 2)
        out.append_text(farm)
    out.append("\n" + "farm: count, letter"[:width], style="dim")
    for player, move in list(history)[-2:]:
        out.append("\n" + ("P%d %s" % (player, move))[:width])
    return out


def render_game(state, who=None, history=(), width=None, palette=CUBE_STYLES):
    """Board and status side by side (stacked when `width` is under 76 columns).

    `who` maps player -> a word shown with their seat ('you', 'greedy'); `history` is
    the list of (player, move) played so far, of which the last few are shown."""
    board = render_board(state, who, palette)
    status = render_status(state, who, history, palette=palette)
    if width is not None and width < 76:
        return Group(board, Text(""), status)
    grid = Table.grid(padding=(0, 3))
    grid.add_column(no_wrap=True)
    grid.add_column()
    grid.add_row(board, status)
    return grid


# ---------------------------------------------------------------- the end of a game

def end_reason(state):
    """Why the game ended, in words ('' while it goes on)."""
    if not state.is_over():
        return ""
    if state.end == "box":
        gaps = sum(row.count(".") for row in state.meadow())
        return ("the box ran out: %d gap%s to refill the meadow but only %d cube%s left"
                % (gaps, "" if gaps == 1 else "s", sum(state.box),
                   "" if sum(state.box) == 1 else "s"))
    if state.end == "turns":
        return ("the turn limit was reached after %d turns (a house safeguard: "
                "the rulebook has no limit)" % state.turn)
    return "the game is over (%s)" % (state.end or "no reason recorded")


def _tie_key(state, p):
    # (score, kinds of sets, loose cubes), from the engine's own ranking key so the
    # explanation can never disagree with winner().
    score, neg_kinds, neg_loose = state.ranking_key(p)
    return score, -neg_kinds, -neg_loose


def result_lines(state):
    """The winner or a draw, with the tie-break that decided it, as a list of strings."""
    n = len(state.seats)
    keys = [_tie_key(state, p) for p in range(n)]
    best = max(k[0] for k in keys)
    top = [p for p in range(n) if keys[p][0] == best]
    names = ", ".join("P%d" % p for p in top)
    winner = state.winner()
    if len(top) == 1:
        return ["P%d wins with %s." % (top[0], plural(best, "point", number="%+d"))]
    lines = ["%s tie on %s." % (names, plural(best, "point", number="%+d"))]
    # First tie-break: fewest kinds of cube sets.
    fewest = min(keys[p][1] for p in top)
    detail = ", ".join("P%d %d" % (p, keys[p][1]) for p in top)
    top2 = [p for p in top if keys[p][1] == fewest]
    if len(top2) == 1:
        lines.append("P%d wins the first tie-break, fewest kinds of sets (%s)." % (top2[0], detail))
        return _check(lines, winner, top2[0])
    lines.append("Fewest kinds of sets does not separate them (%s)." % detail)
    # Second tie-break: fewest loose cubes (cubes in no set).
    least = min(keys[p][2] for p in top2)
    detail = ", ".join("P%d %d" % (p, keys[p][2]) for p in top2)
    top3 = [p for p in top2 if keys[p][2] == least]
    if len(top3) == 1:
        lines.append("P%d wins the second tie-break, fewest loose cubes (%s)." % (top3[0], detail))
        return _check(lines, winner, top3[0])
    lines.append("Fewest loose cubes does not separate them either (%s): a draw." % detail)
    return _check(lines, winner, None)


def _check(lines, winner, mine):
    # Should the engine and this explanation ever disagree, say so instead of hiding it.
    if winner != mine:
        lines.append("(The engine names %s as the winner.)"
                     % ("nobody" if winner is None else "P%d" % winner))
    return lines
