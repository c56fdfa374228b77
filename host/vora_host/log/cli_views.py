"""How a logged game and its record are said on the command line (`vora games`).

The game's terminal view (or a plain one for a game without a host package), times,
texts from the log made safe for a terminal, results, options, and what a spectator
may see of a hidden-information game (--full refused while it may go on). Split from
vora_host.log.cli (issue 42) because every action uses them, reading (vora_host.log.
cli_show) and writing (vora_host.log.cli_records) alike, and the web pages take
`game_view` too.
"""

import json
from datetime import datetime

from rich.text import Text

from shared_rules import games
from shared_rules.errors import BadPosition

from vora_host import games as host_games
from vora_host.games.base import TerminalView
from vora_host.log import formats
from vora_host.log.errors import GameLogError
from vora_host.log.records import game_title
from vora_host.log.verify import player_label

__all__ = ["game_view"]


# ---------------------------------------------------------------- how a game is drawn

class _PlainView(TerminalView):
    """For a game whose host package is not written yet: its public view as text."""

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        text = json.dumps(state.view(viewer), sort_keys=True, separators=(",", ":"))
        return Text(text if len(text) <= 2000 else text[:2000] + "...")


def game_view(name):
    """The terminal view of a game of the registry (its host package's VIEW), or a plain
    one when the game has no host package yet."""
    try:
        return host_games.host_game(name).VIEW
    except ImportError:
        return _PlainView(games.load(name))


# ---------------------------------------------------------------- helpers

def _when(stamp, short=False):
    """An ISO time as local 'YYYY-MM-DD HH:MM' ('28 Nov 06:12' when `short`), or the text
    as it is if it is not one."""
    if not stamp:
        return "-"
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%d %b %H:%M" if short else "%Y-%m-%d %H:%M")


def _shown(text):
    """A text from the log (an imported file may have put anything a check lets through
    there) as it may reach a terminal: every character that is not printable (C1
    controls such as the CSI U+009B, line breaks, bidirectional overrides) written as an
    escape (\\x9b)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _age_hours(stamp):
    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return 0
    if moment.tzinfo is None:
        return 0
    return (datetime.now(moment.tzinfo) - moment).total_seconds() / 3600


def _result_text(result, public=False):
    if not result:
        return "-"
    scores = " ".join("%+d" % s for s in result["scores"])
    if not result["over"]:
        # The scores of a hidden-information game in progress may count secret cards.
        return "not over (%s)%s" % (result["end"], "" if public else ": " + scores)
    if result["winner"] is None:
        return "draw: %s" % scores
    return "P%d wins: %s" % (result["winner"], scores)


def _option_texts(info):
    """The game's options as 'name value' texts, in the game's text-format spelling."""
    try:
        return ["%s %s" % pair for pair in formats.option_texts(info["game"], info["options"])]
    except (BadPosition, GameLogError, ValueError, TypeError):
        return ["%s %s" % (k, json.dumps(v)) for k, v in sorted(info["options"].items())]


def _public_mode(args, info):
    """(public, refusal) for show, replay and export: whether the game is shown as a
    spectator sees it (a hidden-information game, unless --full), and why --full is
    refused (None when it is not)."""
    if not formats.hides_information(info["game"]):
        return False, None
    if not getattr(args, "full", False):
        return True, None
    if not formats.full_record_allowed(info):
        return True, ("game %d is still %s and may go on: the full record of a %s game "
                      "(its seed, every secret move) is shown only once it is over or "
                      "abandoned (without --full: what a spectator may know; 'vora games "
                      "end %d' closes a game nobody plays any more)"
                      % (info["id"], info["status"], game_title(info["game"]), info["id"]))
    return False, None


def _public_problem(report, live_texts):
    """A replay problem in words that tell nothing secret (no move text beyond what the
    rules revealed, no digest)."""
    if report.problem in ("illegal", "mismatch"):
        text = live_texts[report.number - 1] if report.number <= len(live_texts) \
            else formats.PUBLIC_UNKNOWN_MOVE
        return "move %d (%s %s) %s" % (report.number, player_label(report.player),
                                      text, "is illegal" if report.problem == "illegal"
                                      else "gives another digest than the log")
    if report.problem == "result":
        return "the logged result differs from the replay"
    return report.message
