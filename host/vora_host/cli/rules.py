"""`vora rules GAME`: how to play a game, in the project's words (shipped with the package:
vora_host.howto), rendered and paged at a terminal; then its options and what each changes,
its bots and the levels' measured strength, and where the full notation is.

One command of `vora` (vora_host.cli): apart because it needs nothing of the others.
"""

from rich.markup import escape
from rich.table import Table

from shared_rules import games as rules_games

from vora_host import bots
from vora_host import games as host_games
from vora_host.words import print_table

__all__ = ["add_parser", "cmd_rules", "option_values_text"]


def add_parser(sub):
    """vora rules' arguments."""
    rules = sub.add_parser("rules", help="where a game's rules are, its options, its notation",
                           description="Show where a game's rulebook and notation documents "
                                       "are, list its options with their house defaults, "
                                       "and summarise its move notation.")
    rules.add_argument("game", nargs="?", default="vora", choices=rules_games.names(),
                       metavar="GAME", help="the game (default vora)")


def cmd_rules(game, console):
    """How to play `game` (shipped with the package), its options and what each changes,
    and where the full notation is. At a terminal: rendered, through a pager."""
    from vora_host import howto
    module = rules_games.load(game)
    host = host_games.host_game(game)
    try:
        text = howto.text(game)
    except LookupError as missing:  # a game added without its text: still the options
        text = "# %s\n\n(%s)\n" % (module.TITLE, missing)
    if not console.is_terminal:
        console.out(text, highlight=False)
        _rules_appendix(game, module, host, console)
        return 0
    from rich.markdown import Markdown
    with _pager(console):
        console.print(Markdown(text))
        _rules_appendix(game, module, host, console)
    return 0


def _rules_appendix(game, module, host, console):
    console.print()
    console.print("[bold]Players[/bold] %s.  [bold]Options[/bold] (vora play %s -o NAME=VALUE), "
                  "and what each changes:" % (", ".join(str(n) for n in module.PLAYER_COUNTS),
                                               game))
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("option", "values", "what it changes"):
        table.add_column(column)
    for name, default, kind, text in module.OPTIONS:
        values = option_values_text(kind)
        if default is not None:
            text += " (default %s)" % (default,)
        table.add_row(name, escape(values), escape(text))
    print_table(console, table)
    _rules_bots(game, console)
    console.print()
    # What an installed vora has: this text and the help inside a game. The notation in
    # full and the house rules' reasons are documents of the project's source, which a
    # wheel does not install: said so, and shown where they are in a checkout.
    console.print("[bold]More[/bold]: the moves as you type them are under \"Typed moves\" "
                  "above; in a game, ? (or help) shows the rules and keys of the step you "
                  "are in. The notation in full (positions too) and the reasons for the "
                  "house rules are in the project's source, not installed with vora: "
                  "docs/%s and docs/rules-decisions.md." % escape(host.NOTATION))
    from vora_host import resources
    root = resources.checkout()  # run from a checkout: the notation's file is here
    if root is not None and (root / "docs" / host.NOTATION).exists():
        console.print("Here: %s" % escape(str(root / "docs" / host.NOTATION)))


def option_values_text(kind):
    """What a player types for an option of this kind (-o NAME=VALUE), in words."""
    if isinstance(kind, tuple):
        return "|".join(kind)
    return {"int": "a whole number", "bool": "yes or no",
            "dict": 'a JSON object: {"name": number, ...}',
            "str": "text, or @FILE for a file's text"}.get(kind, kind)


def _rules_bots(game, console):
    """The bots a player can sit at the other seats, and the levels' measured strength:
    an installed package has no docs/bots.md to send people to."""
    from vora_host.bots.levels import LEVEL_NAMES, MEASURED, level_kind
    console.print()
    console.print("[bold]Bots[/bold] (vora play %s --bot SEAT=KIND): the levels, and what "
                  "each is in this game:" % game)
    table = Table(show_edge=False, box=None, padding=(0, 2))
    table.add_column("level")
    table.add_column("the bot")
    for level in LEVEL_NAMES:
        table.add_row(level, escape(level_kind(game, level)))
    print_table(console, table)
    if game in MEASURED:
        console.print("Measured at two players: %s. hard takes up to about a second a move."
                      % escape(MEASURED[game]))
    console.print("Other kinds: %s; search:N for N iterations a move, search:Nms for N "
                  "milliseconds." % escape(", ".join(sorted(bots.bot_kinds(game)))))


class _pager:
    """Page what is printed inside through $PAGER (else less, if there is one), with its
    colours; straight to the console when no pager can run."""

    def __init__(self, console):
        self.console = console
        self.capture = None

    def __enter__(self):
        self.capture = self.console.capture()
        self.capture.__enter__()
        return self

    def __exit__(self, *exc):
        self.capture.__exit__(*exc)
        if exc[0] is not None:
            return False
        import os
        import shutil
        import subprocess
        rendered = self.capture.get()
        command = os.environ.get("PAGER") or ("less" if shutil.which("less") else "")
        if command:
            env = dict(os.environ)
            env.setdefault("LESS", "FRX")  # colours kept, one screen needs no paging
            try:
                proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE,
                                        env=env, errors="replace", text=True)
            except OSError:
                proc = None
            if proc is not None:
                try:
                    with proc.stdin:
                        proc.stdin.write(rendered)
                except BrokenPipeError:
                    pass  # the reader quit the pager before the end
                proc.wait()
                return False
        self.console.file.write(rendered)
        return False
