"""Vora on the host. The board referees Vora alone (its keys and pixels are mapped by the
firmware, firmware/vora_fw/vora_ui.py); the host draws it in the terminal (`view`, `ui`)
and brings the greedy collector bot (`bots`)."""

from shared_rules import vora as RULES

from vora_host.games.vora.bots import GreedyBot
from vora_host.games.vora.lookahead import LookaheadBot
from vora_host.games.vora.record_text import OPTION_TEXT  # noqa: F401  (the log's text format)
from vora_host.games.vora.ui import VoraView

RULEBOOK = "vora.md"  # in ../shared/rulebooks/
NOTATION = "vora-notation.md"  # in docs/
BOTS = {GreedyBot.kind: GreedyBot, LookaheadBot.kind: LookaheadBot}
VIEW = VoraView(RULES)
