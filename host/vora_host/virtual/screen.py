"""The virtual board's terminal screen: the 7x7 keys in true colour, each with its name and
what it holds, the cube legend, the PC's mirror or the step's help beside the board (whole
or compact as the width allows), the status, message and help lines under it (Screen); and
the keyboard and mouse of that terminal, in raw mode (KeyboardInput: typed commands,
arrows, Space, clicks held as long as the button is). docs/host.md, "Playing", says what a
newcomer sees.

Apart from the board (vora_host.virtual.board) because the board runs the same without a
screen (--headless, scripts, tests); the screen reads the board and presses its keys
through it, nothing more.
"""

import asyncio
import os
import shutil
import sys

from vora_fw import layout, vora_ui
from vora_host.games.vora import view
from vora_host.virtual.board import PRESS_MS
from vora_host.virtual.commands import EXIT_INTERRUPTED, EXIT_OK, refusal

__all__ = ["Screen", "KeyboardInput", "vora_help_markup", "help_pages", "CELL_W", "LEFT",
           "TOP", "SIDE_COL", "SIDE_FULL", "SIDE_COMPACT", "BOTTOM", "BEGIN_UPDATE", "END_UPDATE"]

CELL_W = 6  # characters per key, plus one between keys
LEFT = 3  # first column of the board on the screen
TOP = 3  # first row of the board (row 1: the title, row 2: the cube legend)
SIDE_COL = LEFT + 7 * (CELL_W + 1) + 2  # first column of the mirror beside the board
# Each redraw is one synchronized update (private mode 2026: kitty, WezTerm, foot, iTerm2,
# Windows Terminal and others): the terminal shows it whole, never a footer half
# drawn while the rest of a large redraw is still on its way; terminals that do not know the
# mode ignore it.
BEGIN_UPDATE, END_UPDATE = "\x1b[?2026h", "\x1b[?2026l"
CAP_RGB = (14, 14, 16)  # an unlit key (darker than the dimmest light, 24)
CAP_TEXT = (140, 140, 140)


def _sgr_rgb(rgb, bg):
    return "\x1b[%d;2;%d;%d;%dm" % (48 if bg else 38, rgb[0], rgb[1], rgb[2])


def _clip(text, width):
    """`text` cut to `width` visible characters (SGR sequences kept, not counted): a line
    that wrapped would scroll the whole screen."""
    out = []
    seen = 0
    i = 0
    while i < len(text):
        if text[i] == "\x1b":
            j = text.find("m", i)
            if j < 0:
                break
            out.append(text[i:j + 1])
            i = j + 1
            continue
        if seen >= width:
            i += 1
            continue
        out.append(text[i])
        seen += 1
        i += 1
    return "".join(out)


def _label_colour(rgb):
    lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    return (0, 0, 0) if lum > 110 else (235, 235, 235)


SIDE_FULL = 40  # columns beside the board for the whole mirror
SIDE_COMPACT = 22  # ... for its compact form (80 columns give 26)
BOTTOM = 7  # lines under the board: status, detail, link, entry, message, help


def _wrap(text, width):
    """Plain text folded at spaces into lines of at most `width` characters."""
    lines = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):
            while len(word) > width:
                if line:
                    lines.append(line)
                    line = ""
                lines.append(word[:width])
                word = word[width:]
            if not line:
                line = word
            elif len(line) + 1 + len(word) <= width:
                line += " " + word
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


# ---------------------------------------------------------------- help beside the board

def vora_help_markup(board):
    """`?` on Vora's board screen: what to do now (the step's rules, on the board and
    typed) first, then the game in a few lines; rich markup."""
    from vora_host.games import host_game
    from vora_host.games.vora.ui import SUMMARY
    from vora_host.play.board_session import STEP_NOW
    if not board.game_on():
        return ("[bold]Now[/bold]: no game runs (%s): the keys do nothing until the "
                "firmware does; `reset` restarts the board." % board.machine.status())
    ui = board.ui
    st = ui.state
    now = None
    if ui.mode == vora_ui.MODE_SETUP or st is None:
        now = ("[bold]Now (setup)[/bold]: choose the seats. Press the corner (cS cW cN cE) "
               "of each player at the table; hold one 2 s and the board's bot plays it "
               "(normal; held again: hard, easy, a person). c3 deals.")
    elif ui.mode == vora_ui.MODE_MENU:
        now = ("[bold]Now (menu)[/bold]: c2 goes back to the game, c3 takes back the last "
               "move, c4 ends the game.")
    elif ui.mode == vora_ui.MODE_UNDO:
        now = ("[bold]Now (takeback)[/bold]: each corner asked agrees by pressing it; any "
               "other key cancels the takeback.")
    elif ui.mode == vora_ui.MODE_OVER:
        now = ("[bold]Now (over)[/bold]: the game is over. c3 starts a new game; a corner "
               "shows that farm.")
    if now is not None:
        return now + "\n" + SUMMARY
    markup = host_game("vora").VIEW.step_help(st)
    if STEP_NOW in markup:  # what to do now first: the rows beside the board run out
        summary, step = markup.split(STEP_NOW, 1)
        markup = STEP_NOW.lstrip("\n") + step + "\n" + summary
    return markup


def help_pages(markup, title, width, height):
    """The help as pages of at most `height` lines of `width` columns (ANSI), each after a
    title line; a page that is not the last says how to see the next."""
    from rich.text import Text
    from vora_host.ansi import ansi_lines
    lines = ansi_lines(Text.from_markup(markup), width)
    head = ansi_lines(Text("%s: help (Esc or Enter: back to the game)" % title,
                           style="bold"), width)
    room = max(1, height - len(head))
    if len(lines) > room:
        room = max(1, room - 1)  # a row for "page 1 of 3"
    pages = [lines[i:i + room] for i in range(0, len(lines), room)] or [[]]
    out = []
    for n, page in enumerate(pages, 1):
        more = [] if len(pages) == 1 else ansi_lines(Text(
            "? again: more (%d/%d)" % (n, len(pages)), style="dim"), width)[:1]
        out.append((head + page + more)[:max(1, height)])
    return out


# ---------------------------------------------------------------- the screen

class Screen:
    """The 7x7 board in true colour, each key with its name and what it holds (a cube's
    letter, a seat, an edge's push direction), the cube legend, the PC's mirror beside it
    (whole or compact, as the width allows), and status, message and help lines drawn with
    ANSI sequences on the alternate screen; only what changed is redrawn."""

    def __init__(self, board, out=None, companion=None):
        self.board = board
        self.out = out or sys.stdout
        self.companion = companion
        cap = board.pinmap.get("brightness_cap", 255) or 255
        self.scale = 255 / max(1, min(255, cap))  # show LEDs at full scale, not capped
        self.cursor = layout.key_index("c3")
        self.entry = ""
        # A game the PC runs says its own resume, never the board's saved Vora game.
        resumed = getattr(companion, "resumed_note", board.resumed_note)
        taken = getattr(board.port, "stable_note", "")
        notes = [n for n in (taken[:1].upper() + taken[1:], resumed()) if n]
        self.message = ". ".join(notes) or (
            "Type a key name (c3) or a move (push crow Sc) and Enter, or click a key")
        self.first_message = self.message
        self.first_is_a_note = bool(notes)  # a resume said: it stays until something else is
        self.cell_h = 3
        self.rows = self.cols = 0
        self._cells = [None] * layout.KEYS
        self._lines = {}
        self._unclipped = {}  # row -> the line before _clip, as last drawn there
        self._keys_look = None  # all that the 49 keys were last drawn from
        self._legend = None  # (width, Vora's cube legend drawn at that width)
        self.full = True
        self.frames_drawn = 0
        self._refusals = board.ui.refusals if board.game_on() else 0
        self.side_mode = "full"
        board.screen_on = True  # `help` shows the step's rules here rather than printing

    # geometry
    def layout_for_size(self):
        try:  # the terminal's own size (COLUMNS and LINES may be stale)
            size = os.get_terminal_size(self.out.fileno())
        except (AttributeError, ValueError, OSError):
            size = shutil.get_terminal_size((80, 24))
        self.cols, self.rows = size.columns, size.lines
        self.cell_h = 3 if self.rows >= TOP + 21 + BOTTOM else \
            2 if self.rows >= TOP + 14 + BOTTOM else 1
        side = self.cols - SIDE_COL
        self.side_mode = "full" if side >= SIDE_FULL else \
            "compact" if side >= SIDE_COMPACT else "none"

    def key_at(self, col, row):
        """The key at screen position (1-based column and row), or -1."""
        x, rem = divmod(col - LEFT, CELL_W + 1)
        if col < LEFT or rem >= CELL_W or not 0 <= x < 7:
            return -1
        r = row - TOP
        if r < 0:
            return -1
        y = 6 - r // self.cell_h
        if not 0 <= y < 7:
            return -1
        return y * 7 + x

    def vora_help(self):
        """True while `?` shows Vora's step help (not in a game the PC runs)."""
        return self.board.help_shown and self._game() is None

    def help_open(self):
        game = self._game()
        return game.help_shown if game is not None else self.board.help_shown

    def show_help(self):
        """`?`: the step's help beside the board; shown already, its next page."""
        game = self._game()
        if game is not None:
            if game.help_shown and hasattr(game, "page_side"):
                game.page_side()
            game.help_shown = True
            return
        if self.board.help_shown:
            self.board.help_page += 1
        else:
            self.board.help_shown = True
            self.board.help_page = 0

    def hide_help(self):
        game = self._game()
        if game is not None:
            game.help_shown = False
        self.board.help_shown = False

    def _game(self):
        """The game the PC runs on this board (from the moment it is attached, its MODE
        frame perhaps still on the way: VirtualBoard.pc_game), or None for Vora."""
        game = self.board.pc_game()
        return game if game is not None and hasattr(game, "turn_line") else None

    def _bottom_lines(self):
        b = self.board
        width = max(20, self.cols - 1)
        game = self._game()
        parts = [("\x1b[1m", b.status() if game is None else game.turn_line()),
                 ("", b.detail()), ("\x1b[2m", b.link_status())]
        if self.companion is not None and self.side_mode == "none":
            parts[2] = ("\x1b[33m", "PC mirror: widen the terminal to %d columns" % (
                SIDE_COL + SIDE_COMPACT))
        entry = "> " + self.entry + "\x1b[7m \x1b[0m"
        if game is not None:
            self._game_message(game)
        else:
            self._play_message()
        message = ("\x1b[31m" if " refused" in self.message or self.message.startswith(
            ("refused", "error")) else "", self.message)
        if self.vora_help() and self.side_mode == "none":
            # No room beside the board: what to do now, on the message line.
            from rich.text import Text
            now = Text.from_markup(vora_help_markup(b)).plain.split("\n")[0]
            message = ("", now + " (Esc: back)")
        help_part = ("\x1b[2m", b.help_line() if game is None else game.help_line())
        lines = []
        for style, text in parts:
            lines.append([style + line + "\x1b[0m" for line in _wrap(text, width) if line])
        lines.append([entry])
        lines.append([message[0] + line + "\x1b[0m" for line in _wrap(message[1], width)])
        lines.append([help_part[0] + line + "\x1b[0m" for line in _wrap(help_part[1], width)])
        # Too many for the room: the link line goes first (unless it asks for a wider
        # terminal), then the detail.
        flat = sum(len(x) for x in lines)
        if flat > BOTTOM and self.side_mode != "none":
            lines[2] = []
        if sum(len(x) for x in lines) > BOTTOM:
            lines[1] = []
        out = [line for group in lines for line in group][:BOTTOM]
        while len(out) < BOTTOM:
            out.append("")
        return out

    def _game_message(self, game):
        # The game's own hint instead of Vora's; a message typed for one player's eyes
        # goes when the board is handed over.
        viewer = game.game.viewer()
        if self.message == self.first_message and not self.first_is_a_note \
                or self._viewer_seen not in (viewer, self._NOBODY_YET):
            self.message = "Type a key name (d4) or a move and Enter, ? for help, or click a key"
            self.first_message = self.message
            self.first_is_a_note = False
        self._viewer_seen = viewer
        # A key the game refused: said on the message line too, where the key's own
        # line said "ok" (the board saw the key; the game then refused it).
        said = getattr(game, "events_said", 0)
        if said != self._events_seen:
            self._events_seen = said
            if game.last_what == "refused":
                self.message = "refused: " + game.last_event

    first_message = None
    first_is_a_note = False
    _side_drawn = False
    _play_said = 0

    def _play_message(self):
        # What vora play says of the board's game (the seats a resume gives back, a
        # refusal in words) on the message line: the mirror beside an 80-column board is
        # too narrow for it. A resume note said first stays with it.
        play = getattr(self.companion, "play", None)
        said = getattr(play, "said", 0)
        if said == self._play_said or not play.messages:
            return
        self._play_said = said
        text = play.messages[-1]
        if self.first_is_a_note and self.message == self.first_message:
            text = "%s. %s%s" % (self.message.rstrip("."), text[:1].upper(), text[1:])
        self.message = text
    _events_seen = 0
    _viewer_seen = _NOBODY_YET = object()  # no draw with the game on yet

    def _top_lines(self):
        b = self.board
        port = b.port
        title = "\x1b[1mVora Board\x1b[0m (virtual)  serial: \x1b[1m%s\x1b[0m%s  %s" % (
            port.path, " = %s" % port.stable_path if port.stable_path else "",
            "host connected" if port.connected else "no host")
        game = self._game()
        if game is not None:
            legend = game.legend_line(self.cols - 1)
        else:
            legend = self._vora_legend()
        return [title, legend]

    def _vora_legend(self):
        # The same nine cubes at every look: drawn again only at another width.
        if self._legend is None or self._legend[0] != self.cols:
            self._legend = (self.cols, _ansi(view.render_legend(
                sep="  " if self.cols > 76 else " "), max(20, self.cols - 1))[0])
        return self._legend[1]

    def _refusal_seen(self):
        if not self.board.game_on():
            return
        ui = self.board.ui
        if ui.refusals != self._refusals:
            self._refusals = ui.refusals
            self.message = refusal(self.board)

    def draw(self, force=False):
        out = []
        if force or self.full:
            self.layout_for_size()
            out.append("\x1b[0m\x1b[2J")
            self._cells = [None] * layout.KEYS
            self._lines = {}
            self._unclipped = {}
            self._keys_look = None
            self.full = False
        self._refusal_seen()
        self._draw_keys(out)
        self._draw_side(out)
        rows = {1: None, 2: None}
        top = self._top_lines()
        for i, line in enumerate(top):
            rows[1 + i] = line
        base = TOP + 7 * self.cell_h
        for i, line in enumerate(self._bottom_lines()):
            rows[base + i] = line
        for row, line in rows.items():
            if line is None or row > self.rows:
                continue  # a tiny terminal: the board first, what fits below it
            if self._unclipped.get(row) == line:
                continue  # as drawn at the last look (most looks): no need to cut it again
            self._unclipped[row] = line
            line = _clip(line, self.cols - 1)
            if self._lines.get(row) != line:
                self._lines[row] = line
                out.append("\x1b[%d;1H\x1b[2K%s" % (row, line))
        if out:
            self.out.write(BEGIN_UPDATE + "".join(out) + END_UPDATE)
            self.out.flush()
            self.frames_drawn += 1

    def _draw_keys(self, out):
        # The 49 keys: each redrawn when its look changed; nothing looked at key by key
        # while the lights, the switches, the cursor and the marks are as last drawn
        # (the screen looks 25 times a second, mostly at a board waiting for a key).
        frame = self.board.frame()
        closed = self.board.hw.closed
        names, marks = self.board.key_names_and_marks()
        whole = (bytes(frame), closed, self.cursor, self.cell_h, tuple(names), tuple(marks))
        if whole == self._keys_look:
            return
        self._keys_look = whole
        for k in range(layout.KEYS):
            v = bytes(frame[k * 3:k * 3 + 3])
            held = bool(closed >> k & 1)
            look = (v, k == self.cursor, held, self.cell_h, marks[k], names[k])
            if self._cells[k] == look:
                continue  # (a blinking key: the others as they were)
            self._cells[k] = look
            if any(v):
                rgb = tuple(min(255, int(c * self.scale + 0.5)) for c in v)
                fg = _label_colour(rgb)
            else:
                rgb, fg = CAP_RGB, CAP_TEXT
            x, y = k % 7, k // 7
            col = LEFT + x * (CELL_W + 1)
            row0 = TOP + (6 - y) * self.cell_h
            name = ("[%s]" % names[k]) if k == self.cursor else names[k]
            mark = marks[k]
            if self.cell_h == 1:
                texts = [(name + " " + mark[:1]).strip() if len(mark) <= 1 else name]
            else:
                texts = [name, mark] + [""] * (self.cell_h - 2)
            style = _sgr_rgb(rgb, True) + _sgr_rgb(fg, False) + ("\x1b[1;4m" if held else "")
            for i in range(self.cell_h):
                text = texts[i][:CELL_W].center(CELL_W)
                bold = "\x1b[1m" if i == 1 and len(mark) == 1 else ""
                out.append("\x1b[%d;%dH%s%s%s\x1b[0m" % (row0 + i, col, style, bold, text))

    def _draw_side(self, out):
        # The companion's panel (vora play's mirror) right of the board: whole when it
        # fits, else compact; the bottom lines say how wide it wants when neither fits.
        if self.side_mode == "none" or (self.companion is None and not self.vora_help()
                                        and not self._side_drawn):
            return
        width = self.cols - SIDE_COL
        rows = 7 * self.cell_h
        if self.vora_help():  # `?`: Vora's step help in the mirror's place
            pages = help_pages(vora_help_markup(self.board), "Vora", width, rows)
            lines = pages[self.board.help_page % len(pages)]
        elif self.companion is None:
            lines = []  # the help closed: its rows cleared
        else:
            room = {"height": rows} if getattr(self.companion, "takes_height", False) else {}
            lines = self.companion.side_lines(width, compact=self.side_mode == "compact",
                                              **room)
        self._side_drawn = bool(lines)
        for i in range(rows):
            line = lines[i] if i < len(lines) else ""
            key = ("side", i)
            if self._lines.get(key) != line:
                self._lines[key] = line
                out.append("\x1b[%d;%dH\x1b[0K%s\x1b[0m" % (TOP + i, SIDE_COL,
                                                             _clip(line, width)))


def _ansi(renderable, width):
    from vora_host.ansi import ansi_lines
    return ansi_lines(renderable, width)


# ---------------------------------------------------------------- the keyboard

class KeyboardInput:
    """Bytes from a terminal in raw mode: typed commands, arrows, Space, mouse clicks."""

    def __init__(self, screen, board, submit, quit):
        self.screen = screen
        self.board = board
        self.submit = submit  # submit(command line)
        self.quit = quit  # quit(status)
        self.pending = ""
        self._esc_timer = None
        self.mouse_key = -1
        self.mouse_at = 0.0
        self._releases = set()  # the clicks' releases under way
        self._after_help = False  # the last key was `?`: an Enter now belongs to it
        self._after_cr = False

    def feed(self, text):
        if self._esc_timer is not None:
            self._esc_timer.cancel()
            self._esc_timer = None
        buf = self.pending + text
        self.pending = ""
        i = 0
        while i < len(buf):
            ch = buf[i]
            if ch == "\x1b":
                n = self._escape(buf, i)
                if n is None:  # incomplete: wait a moment for the rest
                    self.pending = buf[i:]
                    loop = asyncio.get_running_loop()
                    self._esc_timer = loop.call_later(0.05, self._lone_escape)
                    return
                i = n
                continue
            self._char(ch)
            i += 1

    def _lone_escape(self):
        self._esc_timer = None
        rest = self.pending
        self.pending = ""
        if rest == "\x1b":
            self.screen.entry = ""
            self.screen.hide_help()
        # any other incomplete sequence is dropped

    def _escape(self, buf, i):
        """Handle the escape sequence at buf[i]; index after it, or None if incomplete."""
        if i + 1 >= len(buf):
            return None
        second = buf[i + 1]
        if second not in "[O":
            self.screen.entry = ""  # Escape followed by something else: Escape, then it
            self.screen.hide_help()
            return i + 1
        j = i + 2
        while j < len(buf) and not "\x40" <= buf[j] <= "\x7e":  # up to the final byte
            j += 1
        if j >= len(buf):
            return None
        seq = buf[i + 2:j + 1]
        if second == "[" and seq.startswith("<"):
            self._mouse(seq)
        elif seq in ("A", "B", "C", "D"):
            self._arrow(seq)
        return j + 1

    def _arrow(self, code):
        k = self.screen.cursor
        x, y = k % 7, k // 7
        dx, dy = {"A": (0, 1), "B": (0, -1), "C": (1, 0), "D": (-1, 0)}[code]
        x = min(6, max(0, x + dx))
        y = min(6, max(0, y + dy))
        self.screen.cursor = y * 7 + x

    def _mouse(self, seq):
        # SGR mouse: "<b;x;yM" on press, "<b;x;ym" on release
        try:
            b, x, y = (int(v) for v in seq[1:-1].split(";"))
        except ValueError:
            return
        if b & (32 | 64):  # motion or wheel
            return
        loop = asyncio.get_running_loop()
        if seq.endswith("M") and b & 3 == 0:
            k = self.screen.key_at(x, y)
            if k >= 0 and self.mouse_key < 0:
                self.screen.hide_help()  # a key pressed: back to the game
                self.mouse_key = k
                self.mouse_at = loop.time()
                self.screen.cursor = k
                self.board.key_down(k)
                self.screen.message = "mouse: %s" % self.board.key_names()[k]
        elif seq.endswith("m") and self.mouse_key >= 0:
            k = self.mouse_key
            self.mouse_key = -1
            # a quick click still keeps the switch closed long enough to be debounced,
            # and until the firmware has seen it (VirtualBoard.release_when_seen)
            left = PRESS_MS / 1000 - (loop.time() - self.mouse_at)
            task = loop.create_task(self.board.release_when_seen(k, left))
            self._releases.add(task)  # the loop keeps only a weak reference to its tasks
            task.add_done_callback(self._releases.discard)

    def _char(self, ch):
        s = self.screen
        game = s._game()
        after_help, self._after_help = self._after_help, False
        after_cr, self._after_cr = self._after_cr, ch == "\r"
        if ch == "\n" and after_cr:
            self._after_help = after_help
            return  # CR LF: one Enter
        if ch == "?" and not s.entry:
            # The step's help, kept until Esc, Enter or a move; `?` and Enter (a line, as
            # elsewhere) shows it all the same: that Enter does not close it.
            s.show_help()
            self._after_help = True
            return
        if s.help_open() and not s.entry and ch in ("\r", "\n", " "):
            if not (after_help and ch != " "):
                s.hide_help()  # back to the game, nothing pressed
            return
        if ch in ("\x03", "\x04"):  # Ctrl-C, Ctrl-D
            self.quit(EXIT_INTERRUPTED if ch == "\x03" else EXIT_OK)
        elif ch in ("\r", "\n"):
            line = s.entry.strip()
            s.entry = ""
            if line:
                self._run_typed(line)
            else:
                self.submit("press " + self.board.key_names()[s.cursor])
        elif ch == " " and not s.entry:
            self.submit("press " + self.board.key_names()[s.cursor])
        elif ch == "q" and not s.entry:
            self.quit(EXIT_OK)
        elif ch == "\t" and game is not None:
            game.page_side()  # the panel beside the board: its next page (play/panel.py)
        elif ch in ("\x7f", "\x08"):
            s.entry = s.entry[:-1]
        elif ch == "\x15":  # Ctrl-U
            s.entry = ""
        elif ch == "\x0c":  # Ctrl-L
            s.full = True
        elif ch.isprintable() and len(s.entry) < 40:
            s.entry += ch

    def _run_typed(self, line):
        words = line.split()
        if line.lower() not in ("help", "?"):
            self.screen.hide_help()
        # the cursor follows a key named on its own or after press/hold
        name = words[0] if len(words) == 1 else words[1] if words[0].lower() in (
            "press", "hold", "down", "up") else None
        if name is not None:
            try:
                self.screen.cursor = self.board.parse_key(name)
            except KeyError:
                pass
        self.submit(line)
