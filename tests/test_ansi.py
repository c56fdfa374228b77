"""vora_host.ansi.ansi_lines: rich renderables as ANSI lines for the virtual board's screen,
a Text (or a Group of them) drawn once for each width however often the screen asks."""

import io

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from vora_host import ansi


def _drawn(renderable, width):
    buf = io.StringIO()
    Console(file=buf, force_terminal=True, color_system="truecolor", width=width).print(
        renderable)
    return buf.getvalue().rstrip("\n").split("\n")


def _counting(monkeypatch):
    printed = []

    class Counted(Console):
        def print(self, *args, **kwargs):
            printed.append(args)
            return super().print(*args, **kwargs)

    monkeypatch.setattr(ansi, "Console", Counted)
    monkeypatch.setattr(ansi, "_ANSI_LINES", {})
    return printed


def test_texts_and_groups_are_drawn_once_a_width_and_as_rich_draws_them(monkeypatch):
    printed = _counting(monkeypatch)
    spans = Text("P0 South ")
    spans.append("to act", style="bold red")
    spans.append(": push or use an ability, which takes a whole line and more at 20")
    for renderable in (Text("Turn 3", style="bold"), spans,
                       Group(Text("pieces left: 4"), Text(""), spans)):
        for width in (20, 40):
            before = len(printed)
            first = ansi.ansi_lines(renderable, width)
            assert first == _drawn(renderable, width)
            for _ in range(3):  # the screen asks 25 times a second
                again = ansi.ansi_lines(renderable, width)
                assert again == first
                again.append("a caller's own line")  # each caller gets its own list
            assert len(printed) == before + 1


def test_what_rich_compares_as_equal_but_draws_otherwise_is_drawn_again(monkeypatch):
    # rich's Text == looks at the letters and the spans, not the style of the whole.
    printed = _counting(monkeypatch)
    plain, bold = Text("refused: c3"), Text("refused: c3", style="bold red")
    assert plain == bold
    assert ansi.ansi_lines(plain, 30) == _drawn(plain, 30)
    assert ansi.ansi_lines(bold, 30) == _drawn(bold, 30) != _drawn(plain, 30)
    justified = Text("refused: c3", justify="right")
    assert ansi.ansi_lines(justified, 30) == _drawn(justified, 30)
    assert len(printed) == 3


def test_other_renderables_are_drawn_every_time(monkeypatch):
    printed = _counting(monkeypatch)
    table = Table("seat", "score")
    table.add_row("South", "3")
    for _ in range(2):
        assert ansi.ansi_lines(table, 30) == _drawn(table, 30)
        assert ansi.ansi_lines(Group(Text("x"), table), 30) == _drawn(Group(Text("x"), table), 30)
    assert len(printed) == 4
