"""A game the PC runs on a board at a serial device, and the PC's screen beside it.

`BoardGameCompanion` follows the link (reopening the device after an unplug), runs the
game loop (vora_host.play.board.BoardGame) on it, answers the lines typed at the PC
('hint', 'undo', y, n, 'more'), ends the game's log, and draws the game for the PC
screen: beside the virtual board, or alone for a USB board (`run_board_game`). Split from
vora_host.play.board (issue 42): the session and its screen are one concern, the game
loop another.
"""

from shared_rules.errors import IllegalMove

from vora_host.games.base import KEYS
from vora_host.play.board import BOT_DELAY_MS, BoardGame
from vora_host.play.board_keys import key_name

__all__ = ["BoardGameCompanion", "run_board_game"]

STEP_NOW = "\n[bold]Now ("  # where a step help turns from the game to this step
REASON_MAX = 200  # characters of a rules module's refusal said on the board's screen
POLL_S = 0.02
_KEY_NAMES = tuple(key_name(k) for k in range(KEYS))  # a1 .. g7, as the screen asks for them


class BoardGameCompanion:
    """A host-run game on a board at a serial device: the link follower (which reopens
    the device after an unplug), the board game loop, and the game drawn for the PC
    screen (beside the virtual board, or alone for a USB board)."""

    # Beside the virtual board with plain output, `vora play GAME` ends with its game, as
    # run_board_game does beside a USB board (vora_host.virtual.sim).
    ends_with_its_game = True

    def __init__(self, game, state, agents, log=None, seed=0, out=None, plain=False,
                 bot_delay_ms=BOT_DELAY_MS):
        self.game_name = game
        self.bot_delay_ms = bot_delay_ms  # the pause before a bot's move (vora play --delay)
        self.state = state
        self.agents = agents
        self.log = log
        self.seed = seed
        self.out = out
        self.plain = plain
        self.follower = None
        self.game = None
        self.table = None  # the table to play at, when the caller made one (vora play --web)
        self.earlier = ()  # a resumed game's moves from the log, replayed at start
        self.resumed = ""  # what to say about a resumed game
        self.last_event = ""  # the newest event as the screen may show it (command answers)
        self.log_lines = []  # what the game log said last (it fails, it works again)

    # The game's state is the board game's once it runs (a takeback replaces it).
    @property
    def state(self):
        return self.game.state if self.game is not None else self._start_state

    @state.setter
    def state(self, value):
        self._start_state = value

    def resumed_note(self):
        """Said at start by the virtual board's screen: this game's resume, never the
        board's own saved Vora game."""
        return self.resumed

    def command(self, text):
        """A line typed at the PC (the virtual board's line, or stdin beside a USB board):
        'undo' asks for a takeback of this game, y or n answers one, 'hint' asks for the
        hard level's move for the player to act (shown on the board's keys once thought
        of), 'more' pages the panel beside the board (as Tab). The answer lines, or None
        when the line is not for this game (the board goes on with it)."""
        from vora_host.link.client import ticks_ms
        game = self.game
        word = text.strip().lower()
        if game is None or not word:
            return None
        if word == "more":  # as Tab: the next page of the panel beside the board
            self.page_side()
            return ["ok"]
        if word == "hint":
            refused = game.request_hint(ticks_ms())
            return ["ok"] if refused is None else ["error no hint: " + refused]
        if word in ("undo", "takeback"):
            if game.takeback is not None:
                return ["error a takeback already waits: y or n"]
            if not game.request_takeback(None, ticks_ms()):
                return ["error nothing to take back: no human has moved yet"]
            return self._said()
        if game.takeback is not None and word in ("y", "yes", "n", "no"):
            # The PC answers for the first human asked (the question names them).
            game.answer_takeback(game.takeback["waiting"][0], word in ("y", "yes"),
                                 ticks_ms())
            return self._said()
        return None

    def _said(self):
        # Plain output printed the event already: the command's answer is ok; the screen
        # shows the event itself on its message line.
        said = self.last_event
        return ["ok"] if self.plain or not said else [said]

    def note(self, what, text):
        """Something the PC says about a typed line: on the screen's message lines (and
        the plain output) as any event of the game everybody may see."""
        if self.game is not None:
            self.game._say(what, text)
        else:
            self._event(what, text)

    def log_in_trouble(self):
        """True while the game log cannot take this game's moves (they wait in memory) or
        cannot be used at all; False once everything is written."""
        live = self.log
        if live is None:
            return False
        if live.broken is not None or live.lost is not None or live.failing is not None:
            return True
        log = live.log
        return log is not None and (log.trouble is not None or bool(log.pending))

    def log_said(self, text):
        """For LiveLog's `say`: the log started failing or works again."""
        self.log_lines.append("game log: " + text)
        self._event("log", text)

    def _event(self, what, text):
        # The screen draws the game's events itself (as its viewer may see them); the
        # plain output prints what everybody at the PC may see.
        self.last_event = text
        self.last_what = what
        self.events_said += 1
        if self.plain and self.out is not None:
            self.out.write("board %s: %s\n" % (what, text))
            self.out.flush()

    def start(self, board=None, path=None):
        """Start on the virtual board (`board`) or a device path; returns the tasks."""
        import asyncio

        from vora_host.link.client import ticks_ms
        from vora_host.link.mirror import Follower
        path = path or board.port.path
        if board is not None:
            board.terminal_keys = self.key_names_and_marks
            board.terminal_companion = self
        self.follower = Follower(path, log=None)
        client = self.follower.client
        self.game = BoardGame(self.game_name, self.state, self.agents, client, log=self.log,
                              bot_delay_ms=self.bot_delay_ms, on_event=self._event,
                              seed=self.seed, table=self.table)
        self.game.replay_moves(self.earlier)
        earlier = client.on_change

        def changed(what):
            earlier(what)
            if what == "key":
                while client.keys:
                    k, pressed = client.keys.popleft()
                    self.help_shown = False
                    self.game.key(k, pressed, ticks_ms())

        client.on_change = changed

        async def loop():
            while True:
                self.game.tick(ticks_ms())
                await asyncio.sleep(POLL_S)

        return [asyncio.create_task(self.follower.run()), asyncio.create_task(loop())]

    def key_names_and_marks(self):
        """The keys as this game names them (a1..g7 over the whole 7x7) and what each
        shows now, for the virtual board's screen."""
        game = self.game
        if game is None:
            return None
        viewer = game.viewer()
        marks = dict(self.corner_marks())
        marks.update(game.mapping.key_marks(self.state, viewer, tuple(game.pad.pressed)))
        return _KEY_NAMES, tuple(marks.get(k, "") for k in range(KEYS))

    def corner_marks(self):
        """{corner key: 'P1'} for the players who confirm with a corner; the corner of a
        player the board waits for says 'P1 go'."""
        game = self.game
        state = self.state
        if state.is_over() or state.to_act() is None:
            return {}
        marks = {}
        players = len(state.scores())
        for p in range(players):
            keys = game.mapping.confirm_keys(state, p)
            if len(keys) == 1:
                marks[keys[0]] = "P%d" % p
        waiting = game.waiting_for()
        if waiting is not None:
            for k in game.pad.confirm_keys(state):
                marks[k] = "P%d go" % waiting
        return marks

    def finish(self):
        """The session ends: an unfinished game is logged as interrupted. Returns (a line
        for the user saying where the game was logged, or where it was saved when the
        log could not be written; True when it is in the log)."""
        if self.log is None:
            return "the game was not logged (--no-log)", True
        table = self.game.table if self.game is not None else self.table
        if not self.state.is_over() and (table is None or table.stopped is None):
            # (A game the table stopped, a resignation or a claim, is logged so already.)
            from vora_host.log.records import result_of
            from vora_host.play.saved import end_status
            self.log.ended(end_status(self.state), result_of(self.state, "quit"))
        return self.log.finish()

    # ---- the PC screen: what a player needs now first, the game's picture after it

    def turn_line(self):
        """Whose turn and what to do, the hand-over, a bot thinking, or the result."""
        game = self.game
        if game is None:
            return ""
        state = self.state
        view = game.view
        if state.is_over():
            return "Game over: " + " ".join(view.result_lines(state))
        p = state.to_act()
        if p is None:
            return ""
        if p not in game.humans:
            return "%s is thinking..." % game.bot_name(p)
        if game.hinting is not None:
            return "P%d to %s: thinking of a hint..." % (p, view.prompt(state))
        waiting = game.waiting_for()
        if waiting is not None:
            corners = game.pad.confirm_keys(state)
            key = "their corner %s" % "/".join(key_name(k) for k in corners) if corners \
                else "any key"
            return ("P%d's turn: only P%d looks now (the others look away), then presses "
                    "%s to go on" % (waiting, waiting, key))
        who = "you" if len(game.humans) == 1 else None
        return "%s to %s" % (view.seat_label(state, p, who), view.prompt(state))

    def key_choices(self):
        """'c5 draw 7  d5 buy ...': what each key chooses now, for the player to act
        (only once their secrets are on the board)."""
        game = self.game
        p = self.state.to_act()
        labels = getattr(game.mapping, "key_labels", None)
        if p is None or p not in game.humans or labels is None or game.waiting_for() is not None:
            return ""
        if game.view.rules.HIDDEN_INFORMATION and game.viewer() != p:
            return ""
        texts = getattr(game.mapping, "key_texts", labels)
        choices = texts(self.state, game.pad.pressed)
        return "  ".join("%s %s" % (key_name(k), w) for k, w in sorted(choices.items()))

    def legend_line(self, width=None):
        """The game's colours as the keys show them, each beside its words (ANSI), as
        many as fit in `width` columns."""
        items = self.game.mapping.legend(self.state) if self.game is not None else []
        out = []
        used = 0
        for rgb, words in items:
            size = 3 + len(words) + (1 if out else 0)
            if width is not None and used + size > width:
                break
            out.append("\x1b[48;2;%d;%d;%dm  \x1b[0m %s" % (rgb[0], rgb[1], rgb[2], words))
            used += size
        return " ".join(out)

    def help_line(self):
        """The footer of the virtual board's screen: how to play this game there."""
        example = ""
        game = self.game
        secret = game is not None and game.view.rules.HIDDEN_INFORMATION \
            and game.viewer() != self.state.to_act()
        # Only a human's move: a bot's, typed, would be refused while it thinks.
        human = game is not None and self.state.to_act() in game.humans
        if game is not None and not self.state.is_over() and not secret and human:
            moves = self.state.legal_moves()
            example = " (%s)" % moves[0] if moves else ""
        # A game without corners plays a move by holding its last key: say how to hold
        # one from the keyboard, or a newcomer typing key names can only preview.
        player = self.state.to_act()
        held = game is not None and player is not None and not self.state.is_over() \
            and not game.mapping.confirm_keys(self.state, player)
        return ("Press the keys (click, or type a key name a1..g7 and Enter%s) or type a "
                "move%s | hint | ? or help: the rules and keys now | q quits" % (
                    "; 'hold a1' holds a key" if held else "", example))

    def typed(self, line, now):
        """A move typed on the virtual board's screen, in the game's notation: (played,
        what to say)."""
        game = self.game
        if game is None:
            return False, "the game has not started yet"
        text = " ".join(line.split())
        state = self.state
        legal = state.legal_moves() if not state.is_over() else []
        match = [m for m in legal if m.lower() == text.lower()]
        kinds = sorted(set(m.split(" ")[0] for m in legal))
        first = text.split(" ")[0].lower()
        if state.is_over():
            return False, "the game is over"
        p = state.to_act()
        if p not in game.humans:
            return False, "wait: %s is thinking" % game.bot_name(p)
        if game.waiting_for() is not None:
            return False, ("P%d: press your corner first, when only you look"
                           % game.waiting_for())
        if not match:
            starts = [m for m in legal if m.lower().startswith(first)]
            # Why not, in the rules' words, as typed play says it (tried on a copy).
            reason = ""
            try:
                state.clone().play(text)
            except IllegalMove as exc:
                if not exc.reason.startswith("unknown move word"):
                    reason = ": " + (exc.reason if len(exc.reason) <= REASON_MAX
                                     else exc.reason[:REASON_MAX - 3] + "...")
            return False, "%r is not a legal move now%s; %s" % (
                text, reason, "try %s" % ", ".join(starts[:4]) if starts else
                "moves now start with %s" % ", ".join(kinds))
        game.play(match[0], now)
        return True, match[0]

    help_shown = False  # `?`: the rules and the keys of this step instead of the picture
    events_said = 0  # events so far: the virtual board's screen puts a new refusal below
    last_what = ""

    def help_renderable(self):
        from rich.text import Text
        view = self.game.view
        step_help = getattr(view, "step_help", None)
        markup = step_help(self.state) if step_help is not None else view.help_text
        if isinstance(markup, str) and STEP_NOW in markup:
            # What to do now first: beside an 80x24 board the panel's rows run out
            # within the game's summary, and the step is what a newcomer pressed ? for.
            summary, now = markup.split(STEP_NOW, 1)
            markup = STEP_NOW.lstrip("\n") + now + "\n" + summary
        text = Text.from_markup(markup) if isinstance(markup, str) else markup
        head = Text("%s: help (Esc or Enter: back to the game)\n" % view.rules.TITLE,
                    style="bold")
        return Text.assemble(head, text)

    def sections(self, width):
        """The screen's parts as (priority, renderable), in the order drawn; the lower the
        priority number, the longer a part stays when rows run short."""
        return [(priority, part) for _, priority, part in self._parts(width)]

    def _parts(self, width):
        # (name, priority, renderable): the turn and what to do, the last event, what the
        # keys choose, the scores and the viewer's secrets (the summary, which the
        # picture holds too but would lose first to a short panel), then the game's
        # picture or the help, the older events, the link.
        from rich.text import Text
        game = self.game
        out = []
        turn = self.turn_line()
        if turn:
            out.append(("turn", 0, Text(turn, style="bold")))
        if self.log_in_trouble():  # once written again, its last words are an event
            for line in self.log_lines[-1:]:
                out.append(("log", 1, Text(line, style="bold red")))
        # The turn line says a bot thinking and the end: not again as events.
        events = [line for line in game.event_lines(game.viewer())
                  if not line.startswith(("thinking: ", "over: "))]
        if events:
            newest = events[-1]
            out.append(("event", 1, Text(newest, style="red" if newest.startswith("refused")
                                         else "")))
        choices = self.key_choices()
        if choices:
            out.append(("keys", 2, Text("keys: " + choices, style="cyan")))
        if self.help_shown:
            out.append(("help", 0, self.help_renderable()))
        else:
            out += self._position_parts(width)
        if len(events) > 1:
            out.append(("events", 4, Text("\n".join(events[-5:-1]), style="dim")))
        if self.follower is not None:
            out.append(("link", 5, Text(self.follower.client.status_line(), style="dim")))
        return out

    def _position_parts(self, width):
        # The summary and the game's picture: what the game's view draws of the position
        # alone, for this viewer, with these last moves, at this width (pure functions
        # of those). The screen beside the virtual board asks 25 times a second, mostly
        # for one position: drawn once for it (a Vorcept picture reads the state back
        # from its JSON, every field checked).
        game = self.game
        viewer = game.viewer()
        key = (self.state.to_json(), viewer, tuple(game.history), width)
        kept = self._position_kept
        if kept is None or kept[0] != key:
            kept = self._position_kept = (key, [
                ("summary", 1, game.view.summary(self.state, viewer)),
                ("picture", 3, game.view.render(self.state, viewer, None, game.history,
                                                width=width))])
        return kept[1]

    _position_kept = None  # (what the position's parts were drawn from, those parts)

    def renderable(self, width):
        from rich.console import Group
        return Group(*(part for _, part in self.sections(width)))

    takes_height = True  # the virtual board's screen gives side_lines its rows
    side_page = 0  # the page of the panel shown (Tab turns it; see vora_host.play.panel)
    _page_of = None  # the position and view the page was turned in

    def page_side(self):
        """The next page of the panel beside the board (Tab), back to the first after
        the last."""
        self.side_page += 1

    def side_lines(self, width, compact=False, height=None):
        """The screen beside the virtual board, at most `height` rows. When all does not
        fit, the first page keeps the turn and what to do, the last event, the scores
        and the viewer's secrets and the keys, cutting the rest (the bottom of the
        picture, the older events); its last row says Tab turns to the next pages, which
        hold all of it. A help is paged at the ends of its sentences."""
        if self.game is None:
            return []
        from vora_host.link.mirror import ansi_lines
        from vora_host.play.panel import book
        named = [(name, priority, ansi_lines(part, width))
                 for name, priority, part in self._parts(width)]
        # A new position, view or message (a key pressed) starts again at the first page.
        key = (self.state.to_json(), self.help_shown, self.events_said)
        if key != self._page_of:
            self._page_of = key
            self.side_page = 0
        pages = book(named, height)
        return pages[self.side_page % len(pages)]


def run_board_game(path, companion, plain=False):
    """A host-run game on the board at serial device `path` until it ends, `q` or
    Ctrl-C; the game drawn live on this terminal (or one line per event). Exit status."""
    import asyncio
    import sys

    from rich.console import Console, Group

    async def main(live):
        tasks = companion.start(path=path)
        quit_asked = asyncio.Event()
        typed = _read_typed_lines(companion, on_quit=quit_asked.set)
        try:
            while not companion.state.is_over() and not quit_asked.is_set():
                if live is not None:
                    live.update(Group(companion.renderable(live.console.width), typed.footer(
                        "type hint, undo (a takeback), y or n and Enter | q quits")))
                await asyncio.sleep(0.1)
            if not quit_asked.is_set():
                await asyncio.sleep(0.5)  # the last frame reaches the board
        finally:
            typed()
            for task in tasks:
                task.cancel()

    try:
        if plain:
            companion.plain = True
            companion.out = companion.out or sys.stdout
            asyncio.run(main(None))
        else:
            from rich.live import Live
            console = Console()
            with Live(console=console, refresh_per_second=10, screen=False) as live:
                asyncio.run(main(live))
    except KeyboardInterrupt:
        return 130
    return 0


def _read_typed_lines(companion, stdin=None, on_quit=None):
    """Lines typed on this terminal beside a USB board go to the game ('hint', 'undo', y, n),
    as on the virtual board's line; `q` calls on_quit (at a terminal at once, else `q`
    and Enter). Returns the reader (vora_host.link.mirror.TypedKeys): calling it stops
    reading, its footer() draws the line being typed."""
    import sys

    from vora_host.link.mirror import TypedKeys

    def line(text):
        answer = companion.command(text)
        if answer is None:
            companion.note("refused", "typed here: undo (a takeback), then y or n; hint "
                                      "(the hard level's move); q quits")
        elif answer and answer[0].startswith("error "):
            companion.note("refused", answer[0][len("error "):])

    return TypedKeys(stdin or sys.stdin, line, on_quit or (lambda: None)).start()
