"""`vora replay FILE`: a game record or an export replayed move by move, every move and
digest checked, the board drawn as a spectator sees it.

One command of `vora` (vora_host.cli): apart because it needs nothing of the others.
"""

import re

from rich.markup import escape

from vora_host.log.cli_views import game_view
from vora_host.log.records import RecordError, load_record, replay
from vora_host.words import plural

__all__ = ["add_parser", "cmd_replay"]


def add_parser(sub):
    """vora replay's arguments."""
    rep = sub.add_parser(
        "replay", help="replay a game record and check it",
        description="Replay a record written by 'vora play --record', checking every move "
                    "and, when the record has them, the digest after every move.")
    rep.add_argument("file", metavar="FILE", help="the game record (JSON)")
    rep.add_argument("--boards", action="store_true", help="draw the board after every move")
    rep.add_argument("--quiet", action="store_true",
                     help="do not list the moves, only the result of the check")


def cmd_replay(args, console):
    path = args.file
    try:
        record = load_record(path)
    except RecordError as exc:
        console.print("[red]vora replay: %s[/red]" % escape(str(exc)))
        return 1
    moves = record["moves"]
    checked = record.get("digests") is not None
    console.print("Replaying [bold]%s[/bold]: %s, %s, seed %d, %s (%s)."
                  % (escape(path), record["game"], plural(record["players"], "player"),
                     record["seed"], plural(len(moves), "move"),
                     "digests checked" if checked else "no digests to check"))
    who = {}
    for agent in record.get("agents") or []:
        # Shown beside the players: only a bot's short kind name from an untrusted file.
        if isinstance(agent, dict) and isinstance(agent.get("player"), int) \
                and isinstance(agent.get("kind"), str) \
                and re.fullmatch(r"[a-z][a-z0-9_-]{0,19}", agent["kind"]):
            who[agent["player"]] = agent["kind"]
    history = []
    view = game_view(record["game"])
    palette = view.palette_for(console)

    def draw(state):
        # Drawn as a spectator sees it: a game that hides information keeps its secrets
        # on the screen even in a replay (the moves list shows what the record holds).
        console.print(view.render(state, None, who, history, width=console.width,
                                  palette=palette))

    def on_step(k, player, move, state):
        history.append((player, move))
        if not args.quiet:
            console.print("%4d. P%d %s" % (k, player, escape(move)))
        if args.boards:
            draw(state)

    try:
        state = replay(record, on_step)
    except RecordError as exc:
        console.print("[red]vora replay: %s[/red]" % escape(str(exc)))
        return 1
    console.print()
    draw(state)
    console.print()
    if checked:
        console.print("[green]All %s replayed; every digest matches.[/green]"
                      % plural(len(moves), "move"))
    else:
        console.print("[green]All %s replayed.[/green]" % plural(len(moves), "move"))
    if state.is_over():
        console.print("Game over: %s." % view.end_reason(state))
        for line in view.result_lines(state):
            console.print(line, style="bold")
    else:
        stopped = (record.get("result") or {}).get("end", "unfinished")
        console.print("The game was not finished (%s); scores so far: %s."
                      % (escape(str(stopped)),
                         ", ".join("P%d %+d" % (p, s) for p, s in enumerate(state.scores()))))
    return 0
