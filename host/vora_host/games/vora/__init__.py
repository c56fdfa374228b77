"""Vora on the host. The board referees Vora alone (its keys and pixels are mapped by the
firmware, firmware/vora_fw/vora_ui.py); the host draws it in the terminal (`view`) and
brings the greedy collector bot (`bots`)."""

from shared_rules import vora as RULES

from vora_host.games.vora.bots import GreedyBot

BOTS = {GreedyBot.kind: GreedyBot}
