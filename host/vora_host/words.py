"""Small helpers for what the `vora` commands print: counted nouns, and tables that are
not cut when the output goes to a file or another program."""

import os

__all__ = ["plural", "print_table", "PIPED_WIDTH"]

# A table printed to a file or a pipe: rich would assume 80 columns and cut or fold its
# cells; this is wide enough for any of ours, and a table takes only the width it needs.
PIPED_WIDTH = 1000


def plural(count, noun, nouns=None, number="%d"):
    """'1 move', '2 moves', '0 moves'; `nouns` for an irregular plural ('1 mouse',
    '2 mice'); `number` formats the count ("%+d": '+1 point', '-2 points')."""
    return "%s %s" % (number % count, noun if abs(count) == 1 else nouns or noun + "s")


def print_table(console, table):
    """Print a rich table: at a terminal within its width; to a file or a pipe whole,
    one line per row (unless $COLUMNS asks for a width)."""
    if console.is_terminal or os.environ.get("COLUMNS"):
        console.print(table)
        return
    from rich.segment import Segments
    # print(width=) cannot go past the console's width: render at ours, print as it is.
    lines = list(console.render(table, console.options.update_width(PIPED_WIDTH)))
    console.print(Segments(lines), soft_wrap=True)
