"""Tossing Tiger, Rolling Dragon in the terminal, from `state.view(viewer)` only: the hand
of the viewer, every player's hand size, the war (attacker, defender, Dawn rule) and each
battle with the cards shown, the cards in each die and the winner."""

from rich.console import Group
from rich.table import Table
from rich.text import Text

from vora_host.games.base import TerminalView

__all__ = ["TigerView"]

HELP_TEXT = """\
[bold]Entering a move[/bold]: its [bold]number[/bold] from the list, or the move in notation:
  fight <player> <n>     wage war on a player with n dice (piles) each
  add <card> / next      put a card of your hand in the die you make / close that die
  reroll, look, swap, destroy, draw, copy ...   a card's action, or pass
  claim <battle>         after winning the war: take that whole opposing die
  keep <card> / discard <card>   what to do with each card you grabbed
Cards are named by their animal: tiger dragon mantis crane monkey panda turtle leopard
(and the expansions' snake peacock bull redpanda chameleon horse unicorn frog bird,
rooster1..rooster14). Battles are 1..n left to right; sides a (attacker), d (defender)."""


def _side(side):
    if side["face"]:
        return Text(side["face"], style="bold")
    if side["cards"]:
        return Text("%d face down" % side["cards"], style="dim")
    return Text("-", style="dim")


class TigerView(TerminalView):
    help_text = HELP_TEXT

    def prompt(self, state):
        decision = state.view(state.to_act())["info"]["decision"] or {}
        return decision.get("hint") or decision.get("kind") or "move"

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        v = self.seen(state, viewer)
        info = v["info"]
        who = who or {}
        t = Text()
        t.append("Turn %d   " % (v["turn"] + (0 if state.is_over() else 1)), style="bold")
        t.append("hands: " + ", ".join("P%d %d" % (p, n) for p, n in enumerate(info["hand_sizes"])))
        if viewer is not None:
            hand = info["hand"]
            t.append("\nYour hand (P%d): " % viewer, style="bold")
            t.append(", ".join("%s x%d" % (c, n) if n > 1 else c for c, n in sorted(hand.items()))
                     or "-")
        war = info.get("war")
        parts = [t]
        if war:
            head = Text("\nWar: P%s attacks P%s with %s dice" % (
                war["attacker"], war["defender"], war["dice"]), style="bold")
            if war.get("dawn"):
                head.append("   Dawn: %s %s" % (war["dawn"], war.get("rule", "")))
            parts.append(head)
            table = Table(show_edge=False, box=None, padding=(0, 2))
            table.add_column("battle")
            table.add_column("attacker")
            table.add_column("defender")
            table.add_column("won by")
            for n, b in enumerate(info["battles"], 1):
                won = {"a": "attacker", "d": "defender", "both": "both", "none": "nobody",
                       None: ""}.get(b["winner"], str(b["winner"]))
                table.add_row(str(n), _side(b["a"]), _side(b["d"]), won)
            parts.append(table)
        decision = info["decision"] or {}
        if decision.get("player") is not None and not state.is_over():
            parts.append(Text("P%s: %s" % (decision["player"], decision["hint"]), style="italic"))
        if history:
            # The history holds moves as everybody may see them (the terminal game
            # keeps secret cards out of it).
            h = Text("Last moves", style="underline")
            for player, move in list(history)[-4:]:
                h.append("\n  P%d %s" % (player, move))
            parts.append(h)
        return Group(*parts)

    def end_reason(self, state):
        return {"cards": "a player has fewer than 2 cards left",
                "turns": "the war limit was reached (a house safeguard)",
                "dice": "no team could make the dice any more"}.get(
                    state.end_reason(), state.end_reason())

    def result_lines(self, state):
        winners = state.winners()
        if not winners:
            return ["A draw."]
        return ["%s win%s with %s." % (", ".join("P%d" % p for p in winners),
                                      "" if len(winners) > 1 else "s",
                                      ", ".join(str(state.scores()[p]) for p in winners))]
