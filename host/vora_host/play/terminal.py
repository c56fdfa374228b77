"""The terminal game: humans at the keyboard and bots around one state, for any game.

`TerminalGame.run()` loops until the game ends or stops: it asks the player to act for
a move (a human through `input()`, a bot through `choose()`), plays it, keeps the game
record, and draws the game through its terminal view (`vora_host.games.<module>.VIEW`).
It never changes the state except through `state.play()`, so the record always replays.

When the game hides information and several humans share the screen, the screen and its
scrollback are wiped at the end of each human's turn (their secrets leave with them), the
move is announced as everybody may see it, and the next human is named and asked to press
Enter when only they look; each human sees the game as `state.view(player)` shows it to
them. With one human, the screen is theirs.

The game itself is held by a table (vora_host.table): the terminal is one of its clients.
Humans at the keyboard and bots play through it; a seat played in a browser (`vora play
--web`, vora_host.web.seats) plays through it too, while the terminal waits and shows
what the table says (the browser's move, a takeback it asks for, a resignation).
"""

import sys
import time

from rich.control import Control, ControlType
from rich.markup import escape
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from shared_rules.errors import IllegalMove

from vora_host import games as host_games
from vora_host import hang_up
from vora_host.bots import level_of, short_kind
from vora_host.games.base import word_order
from vora_host.log.records import result_of
from vora_host.table import Human, Refused
from vora_host.table import Table as GameTable
from vora_host.table import takeback_span
from vora_host.words import plural

__all__ = ["Human", "TerminalGame", "group_moves", "in_shown_order", "resolve_entry",
           "takeback_span", "COMMANDS_HELP", "OVER", "QUIT", "INTERRUPTED", "EOF", "RESIGNED"]

# How a game stopped, as the game loop reports it.
OVER, QUIT, INTERRUPTED, EOF = "over", "quit", "interrupted", "end of input"
RESIGNED = "resigned"  # a player in a browser gave the game up
WAIT_S = 0.5  # how often the terminal looks at the table while a browser seat plays
# What _ask_human returns when the last human turn was taken back instead of a move.
UNDONE = object()

# Erase the screen (2J), its scrollback (3J) and home the cursor (H): what a player left
# on the screen cannot be scrolled back to by the next one.
WIPE = "\x1b[2J\x1b[3J\x1b[H"


def wipe_screen(console):
    """Wipe the screen and its scrollback (a terminal only: in a file it writes nothing)."""
    control = Control()
    control.segment = Segment(WIPE, None, [(ControlType.CLEAR,), (ControlType.HOME,)])
    console.control(control)


COMMANDS_HELP = """\
[bold]Commands[/bold]   #5: the move numbered 5   moves: every legal move, numbered
           board: redraw the board   ?, help: this text   q: quit (asks first)
           undo: take back the last human turn (every human must agree)
           hint: the move the hard level would play, from what you see
           claim, abort: end the game when a player in a browser has been gone
           2 minutes (claim the win: two players only)"""


def in_shown_order(moves):
    """The legal moves in the order a human reads them, which their numbers follow:
    word by word in natural order (`word_order`: "draw 2" before "draw 10"), where the
    engine's own list is sorted as text ("draw 10" before "draw 2")."""
    return sorted(moves, key=lambda move: [word_order(w) for w in move.split(" ")])


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


def _family_label(family, words):
    # "fight 1 (vs P1)": the family as typed, and in words where they say more.
    typed = family.split(" ")
    said = [words(typed[:i], typed[i]) for i in range(1, len(typed))]
    return family if said == typed[1:] else "%s (%s)" % (family, " ".join(said))


def moves_summary(moves, width=80, compact=None, words=None):
    """One block per family of moves, numbered, as rich Text: compact enough that even
    the ~200 moves of a Vora action phase fit on a screen (`compact(family, items)`, the
    game view's hook, may stand for a whole family: Vora's pushes from all 20 edges are
    a range). Long families wrap between items, never inside one, and the continuation
    lines are indented under the first item. `words(before, word)`, where a game has it
    (its board mapping's word_text), says a choice in words: `fight 1 (vs P1)  1 1 die
    2 2 dice` rather than `fight 1  1 1  2 2`."""
    out = Text()
    groups = group_moves(moves)
    labels = dict((f, _family_label(f, words) if words else f) for f, _ in groups)
    indent = 2 + max((len(label) for label in labels.values()), default=0)
    for family, items in groups:
        if out:
            out.append("\n")
        out.append(("  " + labels[family]).ljust(indent), style="bold")
        short = compact(family, items) if compact else None
        if short:
            out.append("  " + short)
            continue
        column = indent
        before = family.split(" ")
        for n, last in items:
            if last and words:
                last = words(before, last)
            item = "  %s%s" % (number(n), " " + last if last else "")
            if column + len(item) > width and column > indent:
                out.append("\n" + " " * indent)
                column = indent
            out.append("  ")
            out.append(number(n), style="cyan")
            if last:
                out.append(" " + last)
            column += len(item)
    return out


def moves_table(moves, width=80):
    """Every legal move with its number, in as many columns as `width` allows, numbers
    running down each column (the `moves` command)."""
    cell = max((len(m) for m in moves), default=0) + 7  # "#123 " + move + gap
    ncols = max(1, min(len(moves), width // cell)) if moves else 1
    nrows = -(-len(moves) // ncols) if moves else 0
    table = Table.grid(padding=(0, 2))
    for _ in range(ncols):
        table.add_column(no_wrap=True)
    for row in range(nrows):
        cells = []
        for col in range(ncols):
            n = col * nrows + row
            cells.append(Text.assemble((number(n + 1).rjust(4), "cyan"), " " + moves[n])
                         if n < len(moves) else "")
        table.add_row(*cells)
    return table


def number(n):
    """How the lists number the moves: '#5'. A bare 5 beside "draw" or "rotate" was read
    as a count ("draw 5") when it picked the fifth move ("draw 4")."""
    return "#%d" % n


def _by_number(n, moves):
    if 1 <= n <= len(moves):
        return moves[n - 1], None
    return None, "there is no move number %d (the moves are numbered #1 to #%d)" % (
        n, len(moves))


def resolve_entry(entry, moves):
    """Turn what a human typed into a move text. `#5` picks the move numbered 5 in the
    list; a bare 5 does too unless a move has a number among its words: then it is the
    count itself when the moves are one family ("5" is "draw 5", "2" is "rotate 2"), and
    otherwise refused as ambiguous. A text is tidied (spaces collapsed) and matched
    without regard to capitals when exactly one legal move matches ("push crow sc" is
    "push crow Sc"; "e1" as a cell and "E1" as an edge never compete in one move).
    Returns (move, None) or (None, error)."""
    text = " ".join(entry.split())
    if text.startswith("#") and text[1:].strip().isdigit():
        return _by_number(int(text[1:]), moves)
    if text.isdigit():
        n = int(text)
        if not any(w.isdigit() for m in moves for w in m.split(" ")[1:]):
            return _by_number(n, moves)
        families = set(m.rpartition(" ")[0] for m in moves)
        if len(families) == 1:
            family = families.pop()
            counted = "%s %s" % (family, text)
            if counted in moves:
                return counted, None
            counts = sorted((m.rpartition(" ")[2] for m in moves), key=word_order)
            legal = "only %s %s" % (family, counts[0]) if len(counts) == 1 else \
                "%s %s to %s %s" % (family, counts[0], family, counts[-1])
            return None, ("no move is %r now (%s); #%d picks the move numbered %d"
                          % (counted, legal, n, n))
        return None, ("%s alone could be a count or the list's number: type #%s for the "
                      "move numbered %s, or the whole move" % (text, text, text))
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

    state:   a fresh or resumed state of any game of shared_rules.games
    game:    the game's registry name ("vora", "vorcept", ...)
    agents:  one per player: a `Human()` or a bot with `choose(state)`
    console: a rich Console for all output
    delay:   seconds to wait before each bot move, so humans can follow
    record:  a record dict (vora_host.log.records.new_record) to append moves to, or None
    quiet:   show only the final position and result
    read:    the function that shows a prompt and reads one line, input() by default
             (tests pass their own); it raises EOFError at the end of input
    echo:    print what was read (when stdin is not a terminal it is not echoed)
    log:     told every move and takeback: `moved(number, move, digest)` and
             `took_back(number)` (vora_host.log.live.LiveLog), or None
    table:   the table to play at (vora_host.table.Table), when the caller made it (to
             give some of its seats to browsers); else one is made of the above
    """

    def __init__(self, state, agents, console, delay=0.0, record=None, quiet=False,
                 read=None, echo=None, game="vora", log=None, table=None):
        self.game_name = game
        self.view = host_games.host_game(game).VIEW
        self.hidden = self.view.rules.HIDDEN_INFORMATION
        self.agents = list(agents)
        self.table = table if table is not None else GameTable(
            game, state, self.agents, log=log, record=record,
            label=lambda p: self.view.seat_label(self.table.state, p))
        self.console = console
        self.delay = delay
        self.quiet = quiet
        self.read = read or input
        self.echo = (not sys.stdin.isatty()) if echo is None else echo
        self.note = ""  # said just above the next prompt's turn line (a resume, a takeback)
        self.palette = self.view.palette_for(console)
        # The humans at this keyboard (a browser's are elsewhere: they see their own page).
        self.here = [p for p, a in enumerate(self.agents)
                     if isinstance(a, Human) and not getattr(a, "browser", False)]
        # A level's bot goes by its level ("hard"), another by its short kind: its
        # concrete kind, long for the seat rows at 80 columns, is in the record.
        self.who = dict((p, self._who(p, a)) for p, a in enumerate(self.agents))
        # Whose eyes the screen is for: the one human's; with several humans, nobody's
        # (public information) except during each human's own turn.
        self.viewer = self.here[0] if len(self.here) == 1 else None
        self._last_human = None
        self._offered = None  # the absence (player, since) whose claim was offered
        self._shown = None  # digest of the position last drawn, to avoid drawing it twice
        self._seen = 0  # the table's moves this screen has shown
        self._seq = 0  # the table's events this screen has read
        self.stopped = None

    def _who(self, player, agent):
        if not isinstance(agent, Human):
            return level_of(self.game_name, agent.kind) or short_kind(self.game_name,
                                                                     agent.kind)
        if player not in self.here:
            return "browser"
        return "you" if len(self.here) == 1 else short_kind(self.game_name, agent.kind)

    # The game as the table holds it.
    state = property(lambda self: self.table.state)
    history = property(lambda self: self.table.history)
    before = property(lambda self: self.table.before)
    record = property(lambda self: self.table.record,
                      lambda self, record: setattr(self.table, "record", record))
    log = property(lambda self: self.table.log)

    def replay_moves(self, moves):
        """Play a resumed game's earlier moves (from the log) without telling the log or
        the screen: they can be taken back like any other."""
        self.table.replay_moves(moves)
        self._seen = self.table.number
        self._seq = self.table.seq

    def _humans(self):
        return len(self.here)

    # ---- the loop

    def run(self):
        """Play until the game is over or stops; returns OVER, QUIT, INTERRUPTED, EOF or
        RESIGNED."""
        table = self.table
        try:
            while not table.is_over():
                self._catch_up()
                if table.is_over():
                    break
                if table.takeback is not None:
                    if not self._await_takeback():
                        return self.stopped
                    continue
                player = table.to_act()
                agent = self.agents[player]
                if isinstance(agent, Human) and player not in self.here:
                    if not self._await_browser(player):
                        return self.stopped
                    continue
                if isinstance(agent, Human):
                    self._hand_over(player)
                    move = self._ask_human(player)
                    if move is None:
                        return self.stopped
                    if move is UNDONE:
                        continue
                else:
                    if self.delay:
                        time.sleep(self.delay)
                    move = agent.choose(self.state.clone())
                try:
                    self._play(player, move)
                except Refused as exc:  # the table changed meanwhile (a browser's request)
                    self.console.print("[yellow]%s[/yellow]" % escape(exc.reason))
            self._catch_up()
            self.stopped = RESIGNED if table.stopped is not None else OVER
            return self.stopped
        except KeyboardInterrupt:
            self.console.print("\n[yellow]Interrupted: the game stops here.[/yellow]")
            self.stopped = INTERRUPTED
            return INTERRUPTED
        finally:
            if self.record is not None:
                self.record["result"] = result_of(self.state, None if self.state.is_over()
                                                  else self.table.stopped or self.stopped)

    def _shares_secrets(self):
        return self.hidden and self._humans() > 1

    def _hand_over(self, player):
        # Several humans at one screen and secrets to keep: name the next player, wait
        # until only they look, then show them their view.
        if not self._shares_secrets():
            return
        if self._last_human != player:
            if self.viewer is not None:  # another human's secrets are still on the screen
                self._wipe()
            label = self.view.seat_label(self.state, player, self.who.get(player))
            short = self.view.seat_label(self.state, player)
            self.console.print()
            self.console.print("[bold]Next: %s[/bold]. Only %s looks now; everybody else, "
                               "look away." % (escape(label), escape(short)))
            self._input("%s, press Enter to see your turn. " % short)
            self._shown = None
        self._last_human = player
        self.viewer = player

    def _wipe(self):
        wipe_screen(self.console)
        self.viewer = None
        self._last_human = None
        self._shown = None

    def _end_human_turn(self, player):
        # The human's secrets leave the screen (and its scrollback) with them when others
        # share it. True when the screen was wiped.
        if self._shares_secrets() and self.state.to_act() != player:
            self._wipe()
            return True
        return False

    def _play(self, player, move):
        # A bot's or a checked human move: the table plays it (and logs it), or refuses
        # it when a browser changed the game meanwhile.
        self.table.play(move, player, self._seen)
        if player in self.here:
            self._end_human_turn(player)
        self._catch_up()

    def _catch_up(self):
        """Show what the table did since this screen last looked: each move (as this
        screen's viewer may see it), then what else was said (a browser's takeback, a
        resignation, a seat that came or left)."""
        table = self.table
        with table.lock:
            if self._seen > table.number:  # taken back (at a browser's request)
                self._seen = table.number
                self._shown = None
            fresh = [(table.history[k][0], table.before[k], table.moves[k],
                      table.before[k + 1] if k + 1 < table.number else table.state)
                     for k in range(self._seen, table.number)]
            self._seen = table.number
            events, _ = table.events_since(self._seq, self.viewer)
            self._seq = table.seq
        for player, before, move, after in fresh:
            # After a wipe the screen is everybody's: the move as the others may see it.
            shown = self.view.move_text(before, player, move, self.viewer)
            if not self.quiet:
                self._print_move(before, player, shown, after)
                # Draw the board at the end of each turn that hands over to a bot, so the
                # table can follow; a human's turn draws it before asking anyway.
                nxt = after.to_act()
                if after.turn_count() != before.turn_count() and nxt is not None \
                        and nxt not in self.here and after is table.state:
                    self.show()
        for _, what, text in events:
            if what in ("takeback", "resign", "seat", "claim") and not self.quiet:
                self.console.print("[yellow]%s[/yellow]" % escape(text))

    def _await_browser(self, player):
        """A seat played in a browser is to act: wait for the table to change (its move,
        a takeback, the game stopped). Ctrl-C stops the game as ever. False when input
        ended (at the question whether to end the game of a seat that has gone)."""
        label = self.view.seat_label(self.state, player, self.who.get(player))
        self.console.print("[dim]Waiting for %s to play in the browser...[/dim]" % escape(label))
        # From what this screen last read (_catch_up), not from now: a move the browser
        # made since the loop saw whose turn it was is a change already, not one to wait
        # for (waiting past it, the game hung at the next turn).
        seq = self._seq
        while self.table.wait(seq, WAIT_S) == seq:
            changed = self._offer_claim()
            if changed is None:
                return False
            if changed:
                break
        return True

    def _offer_claim(self):
        """While a browser seat is awaited: once it has been gone long enough, ask the
        first human here (once for each absence) whether to end the game. True when the
        table changed meanwhile (the claim, or anything the browser did); None when input
        ended."""
        table = self.table
        for here in self.here:
            allowed, against = table.claims(here)
            if against is None:
                continue
            since = table.gone.get(against)
            if since is None or self._offered == (against, since):
                return False
            self._offered = (against, since)
            seq = table.seq
            them = self.view.seat_label(self.state, against)
            options = "claim to claim the win, abort" if "win" in allowed else "abort"
            answer = self._input("%s has not come back: type %s to stop the game, or Enter "
                                 "to wait on. " % (them, options))
            if answer is None:
                self.console.print("[yellow]Input ended: the game stops here.[/yellow]")
                self.stopped = EOF
                return None
            word = answer.strip().lower()
            if word in ("claim", "abort"):
                self._claim(here, "win" if word == "claim" else "abort")
            return table.seq != seq
        return False

    def _claim(self, player, what):
        """`player` ends the game because a browser seat has gone (Table.claim): True when
        it stopped; the reason said otherwise."""
        try:
            self.table.claim(player, what)
        except Refused as exc:
            self.console.print("[yellow]Not now: %s.[/yellow]" % escape(exc.reason))
            return False
        self._catch_up()
        return True

    def _await_takeback(self):
        """A takeback waits: the humans at this keyboard answer it here; a browser's answer
        comes through the table. False when input ends."""
        table = self.table
        self._catch_up()
        while table.takeback is not None:
            here = [p for p in table.takeback["waiting"] if p in self.here]
            if not here:
                seq = table.seq
                table.wait(seq, WAIT_S)
                self._catch_up()
                continue
            other = here[0]
            answer = self._input("%s, take back %s? [y/N] "
                                 % (self.view.seat_label(self.state, other),
                                    table.takeback["what"]))
            if answer is None:
                self.stopped = EOF
                return False
            try:
                table.answer_takeback(other, answer.strip().lower() in ("y", "yes"))
            except Refused:
                pass  # answered or withdrawn meanwhile
            self._catch_up()
        self._shown = None
        return True

    def _print_move(self, before, player, shown, after=None):
        line = Text()
        line.append("Turn %d  " % (before.turn_count() + 1), style="dim")
        line.append(self.view.seat_label(before, player, self.who.get(player)), style="bold")
        line.append(": ")
        line.append(shown, style="bold green")
        changes = self.view.describe(before, self.state if after is None else after,
                                     self.viewer)
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
        self.console.print(self.view.render(self.state, self.viewer, self.who, self.history,
                                            width=self.console.width, palette=self.palette))

    # ---- a human's turn

    def _ask_human(self, player):
        """Prompt until a legal move is entered; None when the player quits or input ends."""
        state = self.state
        self.show()
        moves = in_shown_order(state.legal_moves())  # what a number picks is what is shown
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
                # This game's rules and the keys and moves of the step it is in, then
                # back to the game: its prompt line again.
                self.console.print(self.view.step_help(state))
                self.console.print(COMMANDS_HELP)
                self._print_prompt_header(player)  # not the moves: they would scroll it away
                continue
            if word in ("moves", "m", "list"):
                self.console.print(moves_table(moves, self.console.width))
                continue
            if word in ("board", "b"):
                self.show(force=True)
                self._print_prompt_header(player, moves)
                continue
            if word == "hint":
                self._hint(player, moves)
                continue
            if word in ("claim", "abort"):
                if self._claim(player, "win" if word == "claim" else "abort"):
                    return UNDONE  # the table stopped: run() ends the game
                continue
            if word == "undo":
                if self._undo(player):
                    return UNDONE
                if self._shares_secrets() and self.viewer != player:
                    # Refused after the screen was wiped for the others: hand it back.
                    self._hand_over(player)
                    self.show()
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
                    reason = exc.reason
                    if reason.startswith("unknown move word"):
                        # The engine names every word of its notation (expansions
                        # included); a newcomer needs the ones that make a move now.
                        reason = "no move starts with %r; moves now start with %s" % (
                            shorten(move.split(" ")[0]),
                            ", ".join(sorted(set(m.split(" ")[0] for m in moves))))
                    error = "illegal move %r: %s" % (shorten(move), shorten(reason, 200))
            if error is not None:
                self.console.print("[red]%s[/red]" % escape(error))
                # The turn again, in one line: a long list of moves above it and a few
                # refusals would have scrolled it out of sight.
                self._print_turn(player, "? for help, moves: the list")
                continue
            return move

    # ---- hint

    def _hint(self, player, moves):
        """The hard level's move for `player`, from what they see (the table asks it and
        logs it), said with its number in the list and its reason."""
        self.console.print("[dim]Thinking of a hint (the hard level's move, from what "
                           "%s may see)...[/dim]" % escape(self.view.seat_label(
                               self.state, player)))
        try:
            hint = self.table.hint(player, self.table.number)
        except Refused as exc:
            self.console.print("[yellow]No hint: %s.[/yellow]" % escape(exc.reason))
            return
        line = Text()
        line.append("Hint: ", style="bold")
        line.append(hint.move, style="bold green")
        if hint.move in moves:
            line.append(" (%s)" % number(moves.index(hint.move) + 1), style="cyan")
        if hint.reason:
            line.append("   " + hint.reason, style="dim")
        self.console.print(line)
        self._print_turn(player, "type it, or its number, to play it")

    # ---- undo

    def _undo(self, player):
        """Take back the last turn a human played (and the bots' moves after it) when every
        human agrees: the one who asks, then each other human in turn (a browser's in its
        page). True when done."""
        table = self.table
        number = table.number
        span = table.takeback_span()
        what = span[2] if span is not None else ""
        if self._shares_secrets() and len(self.here) > 1:
            self._wipe()  # the asker's secrets leave the screen before the others look
        try:
            table.request_takeback(player)
        except Refused as exc:
            self.console.print("[yellow]%s.[/yellow]" % escape(exc.reason[0].upper() +
                                                               exc.reason[1:]))
            return False
        self._seq = table.seq  # the request is said here by the questions below
        if table.takeback is not None:
            if any(p not in self.here for p in table.takeback["waiting"]):
                self.console.print("[dim]Asked in the browser too; waiting for the answers."
                                   "[/dim]")
            while table.takeback is not None:
                here = [p for p in table.takeback["waiting"] if p in self.here]
                if not here:
                    seq = table.seq
                    table.wait(seq, WAIT_S)
                    continue
                other = here[0]
                answer = self._input("%s, take back %s? [y/N] "
                                     % (self.view.seat_label(self.state, other), what))
                yes = answer is not None and answer.strip().lower() in ("y", "yes")
                try:
                    table.answer_takeback(other, yes)
                except Refused:
                    continue
                if not yes:
                    self.console.print("[yellow]%s does not agree: nothing is taken back."
                                       "[/yellow]" % self.view.seat_label(self.state, other))
            self._seq = table.seq
        if table.number >= number:
            return False
        self._seen = table.number
        self._seq = table.seq
        self._shown = None
        self.note = "[bold]Taken back[/bold]: %s." % escape(what)  # by the next prompt
        return True

    def _print_prompt_header(self, player, moves=None):
        # The moves first, then the scores and the player's own secrets, then whose turn
        # and what to do, just above the prompt: a long list of moves (Vora's 150, a
        # Sun's 40) scrolls the board out of an 80x24 terminal, never these.
        if moves is not None:
            self.console.print(moves_summary(moves, self.console.width,
                                             self.view.compact_family, self._choice_words()))
        self.console.print(self.view.summary(self.state, self.viewer, self.who))
        if self.note:
            # A resume or a takeback, said next to the prompt: above the board or the
            # moves, a tall position would scroll it out of an 80x24 terminal.
            self.console.print(self.note)
            self.note = ""
        self._print_turn(player)

    def _print_turn(self, player, hint="? for help"):
        state = self.state
        title = Text()
        title.append(self.view.seat_label(state, player, self.who.get(player)), style="bold")
        title.append(" to %s" % self.view.prompt(state))
        title.append("  (%s)" % hint, style="dim")
        self.console.print(title)

    def _choice_words(self):
        # The game's words for the choices of a move (its board mapping's, which the
        # screen beside the board shows too): None when it has none.
        word_text = getattr(getattr(host_games.host_game(self.game_name), "BOARD", None),
                            "word_text", None)
        if word_text is None:
            return None
        state = self.state
        return lambda before, word: word_text(state, before, word)

    def _input(self, prompt):
        # One line of input, or None at the end of input. KeyboardInterrupt propagates to
        # run(), which ends the game cleanly.
        # input() gets the prompt itself so that line editing knows where the text starts.
        try:
            line = self.read(prompt)
        except (EOFError, OSError) as exc:
            hang_up.stop_if_closed(0, exc)  # the terminal closed: stop as its SIGHUP would
            if not isinstance(exc, EOFError):
                raise
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
            console.print("[bold]Game over[/bold] after %s: %s."
                          % (plural(state.turn_count(), "turn"), self.view.end_reason(state)))
        else:
            console.print("[bold]The game stopped[/bold] (%s) during turn %d; scores so far:"
                          % (self.table.stopped or self.stopped or "unfinished",
                             state.turn_count() + 1))
        console.print(self.view.scores_table(state, self.who, self.palette))
        if state.is_over():
            for line in self.view.result_lines(state):
                console.print(line, style="bold")


SHOW_LIMIT = 60  # characters of a typed line repeated on the screen


def shorten(text, limit=SHOW_LIMIT):
    """A typed text as repeated on the screen: cut past `limit` characters, saying how
    long it was (a pasted page is not printed back in full)."""
    return text if len(text) <= limit else "%s... (%d characters)" % (text[:limit], len(text))


