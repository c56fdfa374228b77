"""Rich renderables as lines of ANSI text, for the virtual board's screen (the panel
beside the board, the legend, the help) and the mirror's: `ansi_lines`."""

import io

from rich.console import Console, Group
from rich.text import Text

__all__ = ["ansi_lines", "text_key"]


def ansi_lines(renderable, width):
    """A rich renderable as lines of ANSI text (for the virtual board's screen). A Text,
    or a Group of them, is drawn once for each width: the screen asks again 25 times a
    second for what mostly has not changed (the panel beside the virtual board)."""
    key = _drawn_as(renderable)
    if key is not None:
        key = (key, width)
        lines = _ANSI_LINES.get(key)
        if lines is not None:
            return list(lines)
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, color_system="truecolor", width=width)
    console.print(renderable)
    lines = buf.getvalue().rstrip("\n").split("\n")
    if key is not None:
        if len(_ANSI_LINES) >= ANSI_LINES_KEPT:
            _ANSI_LINES.clear()
        _ANSI_LINES[key] = tuple(lines)
    return lines


_ANSI_LINES = {}  # (what a renderable draws, width) -> its lines (ansi_lines)
ANSI_LINES_KEPT = 256


def text_key(t):
    """All of a Text that decides how rich draws it in given options: its characters,
    spans, style, justify, overflow, no_wrap, end and tab size (rich's own == looks at
    the characters and spans only). Here and in the web's drawing cache
    (vora_host.web.game_data.TextSegments)."""
    return (t.plain, tuple(t.spans), t.style, t.justify, t.overflow, t.no_wrap, t.end,
            t.tab_size)


def _drawn_as(renderable):
    """All that decides what a Text (or a Group of them) draws at a given width, as a
    key; None for any other renderable (drawn every time)."""
    if type(renderable) is Text:
        return ("text",) + text_key(renderable)
    if type(renderable) is Group:
        parts = tuple(_drawn_as(part) for part in renderable.renderables)
        if None in parts:
            return None
        return ("group", renderable.fit, parts)
    return None
