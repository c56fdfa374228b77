"""The terminal game: humans at the keyboard and bots around one Vora state.

`TerminalGame.run()` loops until the game ends or stops: it asks the player to act for
a move (a human through `input()`, a bot through `choose()`), plays it, keeps the game
record, and draws the board with `render`. It never changes the state except through
`state.play()`, so the record always replays.

The board and serial link will later be another source of moves and another screen;
everything here that decides what to show lives in `render`, so they can share it.
"""

import sys
import time

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from shared_rules import vora
from shared_rules.errors import IllegalMove

from vora_host.games.vora import view as render
from vora_host.log.records import result_of

__all__ = ["Human", "TerminalGame", "group_moves", "resolve_entry", "HELP_TEXT"]

# How a game stopped, as the game loop reports it.
OVER, QUIT, INTERRUPTED, EOF = "over", "quit", "interrupted", "end of input"

HELP_TEXT = """\
[bold]Entering a move[/bold]: its [bold]number[/bold] from the list, or the move in notation:
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
west. Capitals do not matter when the move is clear ("push crow sc").
[bold]Commands[/bold]   moves: list every legal move, numbered   board: redraw the board
           ?, help: this text   q: quit (asks to confirm)"""


class Human:
    """A seat played from the keyboard (the bots live in vora_host.bots)."""

    kind = "human"

    def __repr__(self):
        return "Human()"


def group_moves(moves):
    """Group legal moves for display: [(family, [(number, last word), ...]), ...].

    The family is the move without its last word ("push crow", "mole b5", "take"); the
    numbers are 1-based positions in `moves`. The engine sorts its moves, so the moves of
    one family sit together; a family is nevertheless collected wherever it appears.
    """
    groups = {}
    order = []
    for n, move in enumerate(moves, 1):
        family, _, last = move.rpartition(" ")
        if not family:  # a one-word move such as "pass"
            family, last = move, ""
        if family not in groups:
            groups[family] = []
            order.append(family)
        groups[family].append((n, last))
    return [(f, groups[f]) for f in order]


def _edges_all(items):
    return len(items) == 20 and {last for _, last in items} == set(vora.EDGE_NAMES)


def moves_summary(moves, width=80):
    """One block per family of moves, numbered, as rich Text: compact enough that even
    the ~200 moves of an action phase fit on a screen (pushes from all 20 edges are
    shown as a range). Long families wrap between items, never inside one, and the
    continuation lines are indented under the first item."""
    out = Text()
    groups = group_moves(moves)
    indent = 2 + max((len(f) for f, _ in groups), default=0)
    for family, items in groups:
        if out:
            out.append("\n")
        out.append(("  " + family).ljust(indent), style="bold")
        numbers = [n for n, _ in items]
        if _edges_all(items) and numbers == list(range(numbers[0], numbers[0] + 20)):
            out.append("  %d-%d" % (numbers[0], numbers[-1]), style="cyan")
            out.append(" any edge, in the order E1..E5 Na..Ne Sa..Se W1..W5")
            continue
        column = indent
        for n, last in items:
            item = "  %d%s" % (n, " " + last if last else "")
            if column + len(item) > width and column > indent:
                out.append("\n" + " " * indent)
                column = indent
            out.append("  ")
            out.append(str(n), style="cyan")
            if last:
                out.append(" " + last)
            column += len(item)
    return out


def moves_table(moves, width=80):
    """Every legal move with its number, in as many columns as `width` allows, numbers
    running down each column (the `moves` command)."""
    cell = max((len(m) for m in moves), default=0) + 6  # "123 " + move + gap
    ncols = max(1, min(len(moves), width // cell)) if moves else 1
    nrows = -(-len(moves) // ncols) if moves else 0
    table = Table.grid(padding=(0, 2))
    for _ in range(ncols):
        table.add_column(no_wrap=True)
    for row in range(nrows):
        cells = []
        for col in range(ncols):
            n = col * nrows + row
            cells.append(Text.assemble((str(n + 1).rjust(3), "cyan"), " " + moves[n])
                         if n < len(moves) else "")
        table.add_row(*cells)
    return table


def resolve_entry(entry, moves):
    """Turn what a human typed into a move text: a number picks from `moves`; a text is
    tidied (spaces collapsed) and matched without regard to capitals when exactly one
    legal move matches ("push crow sc" is "push crow Sc"; "e1" as a cell and "E1" as an
    edge never compete in one move). Returns (move, None) or (None, error)."""
    text = " ".join(entry.split())
    if text.isdigit():
        n = int(text)
        if 1 <= n <= len(moves):
            return moves[n - 1], None
        return None, "there is no move number %d (the moves are numbered 1 to %d)" % (n, len(moves))
    if text in moves:
        return text, None
    matches = [m for m in moves if m.lower() == text.lower()]
    if len(matches) == 1:
        return matches[0], None
    # Not a legal move as typed: the engine's own words say why (or accept it, should
    # the engine allow something its list left out).
    return text, None


class TerminalGame:
    """One game in the terminal.

    state:   a fresh or resumed vora state
    agents:  one per player: a `Human()` or a bot with `choose(state)`
    console: a rich Console for all output
    delay:   seconds to wait before each bot move, so humans can follow
    record:  a record dict (vora_host.log.records.new_record) to append moves to, or None
    quiet:   show only the final position and result
    read:    the function that shows a prompt and reads one line, input() by default
             (tests pass their own); it raises EOFError at the end of input
    echo:    print what was read (when stdin is not a terminal it is not echoed)
    """

    def __init__(self, state, agents, console, delay=0.0, record=None, quiet=False,
                 read=None, echo=None):
        self.state = state
        self.agents = list(agents)
        self.console = console
        self.delay = delay
        self.record = record
        self.quiet = quiet
        self.read = read or input
        self.echo = (not sys.stdin.isatty()) if echo is None else echo
        self.history = []  # (player, move)
        self.palette = render.palette_for(console)
        self.who = {p: ("you" if isinstance(a, Human) and self._humans() == 1 else a.kind)
                    for p, a in enumerate(self.agents)}
        self._shown = None  # digest of the position last drawn, to avoid drawing it twice
        self.stopped = None

    def _humans(self):
        return sum(isinstance(a, Human) for a in self.agents)

    # ---- the loop

    def run(self):
        """Play until the game is over or stops; returns OVER, QUIT, INTERRUPTED or EOF."""
        try:
            while not self.state.is_over():
                player = self.state.to_act()
                agent = self.agents[player]
                if isinstance(agent, Human):
                    move = self._ask_human(player)
                    if move is None:
                        return self.stopped
                else:
                    if self.delay:
                        time.sleep(self.delay)
                    move = agent.choose(self.state)
                self._play(player, move)
            self.stopped = OVER
            return OVER
        except KeyboardInterrupt:
            self.console.print("\n[yellow]Interrupted: the game stops here.[/yellow]")
            self.stopped = INTERRUPTED
            return INTERRUPTED
        finally:
            if self.record is not None:
                self.record["result"] = result_of(self.state, None if self.state.is_over()
                                                  else self.stopped)

    def _play(self, player, move):
        before = self.state.clone()
        turn = self.state.turn
        self.state.play(move)  # a bot's or a checked human move: legal by construction
        self.history.append((player, move))
        if self.record is not None:
            self.record["moves"].append(move)
            self.record["digests"].append(self.state.digest())
        if not self.quiet:
            self._print_move(before, player, move)
            # Draw the board at the end of each turn that hands over to a bot, so the
            # table can follow; a human's turn draws it before asking anyway.
            nxt = self.state.to_act()
            if self.state.turn != turn and nxt is not None \
                    and not isinstance(self.agents[nxt], Human):
                self.show()

    def _print_move(self, before, player, move):
        line = Text()
        line.append("Turn %d  " % (before.turn + 1), style="dim")
        line.append(render.seat_label(before, player, self.who.get(player)), style="bold")
        line.append(": ")
        line.append(move, style="bold green")
        changes = farm_changes(before, self.state)
        if changes:
            line.append("   " + changes, style="dim")
        self.console.print(line)

    def show(self, force=False):
        """Draw the board and status unless this very position was just drawn."""
        digest = self.state.digest()
        if digest == self._shown and not force:
            return
        self._shown = digest
        self.console.print()
        self.console.print(render.render_game(self.state, self.who, self.history,
                                              width=self.console.width, palette=self.palette))

    # ---- a human's turn

    def _ask_human(self, player):
        """Prompt until a legal move is entered; None when the player quits or input ends."""
        state = self.state
        self.show()
        moves = state.legal_moves()
        self._print_prompt_header(player, moves)
        while True:
            entry = self._input("P%d> " % player)
            if entry is None:
                self.console.print("[yellow]Input ended: the game stops here.[/yellow]")
                self.stopped = EOF
                return None
            word = entry.strip().lower()
            if not word:
                continue
            if word in ("?", "h", "help"):
                self.console.print(HELP_TEXT)
                continue
            if word in ("moves", "m", "list"):
                self.console.print(moves_table(moves, self.console.width))
                continue
            if word in ("board", "b"):
                self.show(force=True)
                self._print_prompt_header(player, moves)
                continue
            if word in ("q", "quit", "exit"):
                answer = self._input("Quit this game? [y/N] ")
                if answer is None or answer.strip().lower() in ("y", "yes"):
                    self.console.print("[yellow]P%d quits: the game stops here.[/yellow]" % player)
                    self.stopped = QUIT if answer is not None else EOF
                    return None
                continue
            move, error = resolve_entry(entry, moves)
            if error is None:
                # Try it on a copy: the engine promises a refused move changes nothing,
                # and the copy makes sure of it whatever happens.
                try:
                    state.clone().play(move)
                except IllegalMove as exc:
                    error = "illegal move %r: %s" % (shorten(move), shorten(exc.reason, 200))
            if error is not None:
                self.console.print("[red]%s[/red]" % escape(error))
                continue
            return move

    def _print_prompt_header(self, player, moves):
        state = self.state
        title = Text()
        title.append(render.seat_label(state, player, self.who.get(player)), style="bold")
        title.append(" to %s" % {"act": "act: push or use an ability",
                                 "collect": "collect: take a group or pass",
                                 "bonus": "claim the bonus or pass"}.get(
                                     render.phase_name(state), render.phase_name(state)))
        title.append("  (? for help)", style="dim")
        self.console.print(title)
        self.console.print(moves_summary(moves, self.console.width))

    def _input(self, prompt):
        # One line of input, or None at the end of input. KeyboardInterrupt propagates to
        # run(), which ends the game cleanly.
        # input() gets the prompt itself so that line editing knows where the text starts.
        try:
            line = self.read(prompt)
        except EOFError:
            self.console.print()
            return None
        if self.echo:
            self.console.print(escape(shorten(line)), markup=True, highlight=False)
        return line

    # ---- the end

    def print_end(self):
        """Final position, scores, winner or draw with the tie-break, and why it ended."""
        state = self.state
        self.show()
        console = self.console
        console.print()
        if state.is_over():
            console.print("[bold]Game over[/bold] after %d turns: %s."
                          % (state.turn_count(), render.end_reason(state)))
        else:
            console.print("[bold]The game stopped[/bold] (%s) during turn %d; scores so far:"
                          % (self.stopped or "unfinished", state.turn + 1))
        console.print(scores_table(state, self.who, self.palette))
        if state.is_over():
            for line in render.result_lines(state):
                console.print(line, style="bold")


SHOW_LIMIT = 60  # characters of a typed line repeated on the screen


def shorten(text, limit=SHOW_LIMIT):
    """A typed text as repeated on the screen: cut past `limit` characters, saying how
    long it was (a pasted page is not printed back in full)."""
    return text if len(text) <= limit else "%s... (%d characters)" % (text[:limit], len(text))


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


def scores_table(state, who, palette=render.CUBE_STYLES):
    """Each player's score with the numbers the tie-breaks use (kinds of sets, loose
    cubes), and their farm."""
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for name, justify in (("player", "left"), ("score", "right"), ("sets", "right"),
                          ("loose", "right"), ("farm", "left")):
        table.add_column(name, justify=justify, no_wrap=True)
    for p in range(len(state.seats)):
        score, neg_kinds, neg_loose = state.ranking_key(p)
        table.add_row(render.seat_label(state, p, who.get(p)), "%+d" % score,
                      str(-neg_kinds), str(-neg_loose), render.render_farm(state, p, palette))
    return table
