"""Tossing Tiger, Rolling Dragon in the terminal, from `state.view(viewer)` only: the hand
of the viewer, every player's hand size, the war (attacker, defender, Dawn rule) and each
battle with the cards shown, the cards in each die and the winner."""

from rich.console import Group
from rich.table import Table
from rich.text import Text

from vora_host.games.base import TerminalView, word_keys_help, word_order
from vora_host.words import plural

__all__ = ["TigerView"]

HELP_TEXT = """\
[bold]Entering a move[/bold]: its [bold]#number[/bold] from the list (#5), or the move in notation:
  fight <player> <n>     wage war on a player with n dice (piles) each
  add <card> / next      put a card of your hand in the die you make / close that die
  reroll, look, swap, destroy, draw, copy ...   a card's action, or pass
  claim <battle>         after winning the war: take that whole opposing die
  keep <card> / discard <card>   what to do with each card you grabbed
Cards are named by their animal: tiger dragon mantis crane monkey panda turtle leopard
(and the expansions' snake peacock bull redpanda chameleon horse unicorn frog bird,
rooster1..rooster14). Battles are 1..n left to right; sides a (attacker), d (defender)."""


# The help of `?`: the game in a few lines, then the step the game is in (step_help).
SUMMARY = (
    "[bold]Tossing Tiger, Rolling Dragon[/bold]: on your turn you wage war on a player "
    "with n dice: both split their whole hand into n piles of 2 or more. Pile against "
    "pile, each battle reveals a random card of each: one strong against "
    "the other wins, both strong: nobody, neither: both. Card actions come first (Tiger "
    "tosses, Dragon rerolls, Monkey looks, Turtle cancels, Leopard swaps). Each battle "
    "won grabs the losing card; winning more than half of the battles grabs a whole pile "
    "too. Fewer than 2 cards after a war ends the game: most cards wins.")

STEP_HELP = {
    "fight": ("wage war: choose the opponent and the number of dice each makes.",
              "fight <player> <n>  (fight 1 2: on the board b7, then the player's key, then "
              "the number's; Fight Together: fight <n>)"),
    "build": ("make your dice in secret, one card at a time; close each die (2 cards or "
              "more) with next; the last die takes the cards left.",
              "add <card>, next  (add tiger; a Dawndojo Rooster first: dawn <rooster>)"),
    "claim": ("you won the war: take the rest of the opposing die of one battle you won.",
              "claim <battle>"),
    "keep": ("for each card you grabbed: into your hand, or onto the discards.",
             "keep <card>, discard <card>"),
}


NARROW = 44  # columns under which a war is written a battle a line, not as a table


def _cards_text(cards):
    """'crane x2, tiger' for a list of cards (or a {card: count} hand)."""
    counts = cards if isinstance(cards, dict) else {}
    if not isinstance(cards, dict):
        for c in cards:
            counts[c] = counts.get(c, 0) + 1
    return ", ".join("%s x%d" % (c, n) if n > 1 else c
                     for c, n in sorted(counts.items(), key=lambda cn: word_order(cn[0])))


def _side(side):
    """A side of a battle as the viewer may see it (a side of state.view's war): the card
    it revealed, which stays named once the battle is fought (`shown`: it was seen by all,
    even after the winner grabbed it), then the rest of the die, its cards where the viewer
    knows them (their own, or one a Monkey looked at), else how many lie face down."""
    t = Text()
    card = side["face"] or side["shown"]
    if card:
        t.append(card, style="bold")
    pile = side["pile"]
    if isinstance(pile, list) and pile:
        t.append((" (rest: %s)" if card else "%s") % _cards_text(pile))
    elif not isinstance(pile, list) and pile:
        t.append((" (rest: %d face down)" if card else "%d face down") % pile, style="dim")
    return t if t else Text("-", style="dim")


WON_BY = {1: "attacker", 2: "defender", 3: "both", 0: "nobody"}


class TigerView(TerminalView):
    help_text = HELP_TEXT

    def step_help(self, state):
        # The public step only (the kind of decision): help never depends on a hand.
        phase = state.phase()
        if phase == "over":
            return SUMMARY + "\n[bold]The game is over.[/bold]"
        hint = self.rules.PHASE_HINTS.get(phase, phase)
        what, typed = STEP_HELP.get(phase, ("a choice: %s." % hint,
                                            hint))
        kind = phase if phase != "free" else "reroll"
        return "%s\n%s\n[bold]Now (%s)[/bold]: %s\n  [bold]On the board[/bold]: %s\n  " \
               "[bold]Typed[/bold]: %s" % (SUMMARY, self._strengths(state), phase, what,
                                          word_keys_help(kind), typed)

    def _strengths(self, state):
        # The print in play (public: printed on every card); nothing else on screen says it.
        table = state.strength_table()
        in_game = set(self.rules.card_type(c) for c in self.rules.deck_of(state.options()))
        parts = ["%s > %s" % (animal, " ".join(strong))
                 for animal, strong in table.items() if animal in in_game and strong]
        return "[bold]Strong against[/bold]: " + "; ".join(parts)

    def prompt(self, state):
        decision = state.view(state.to_act())["info"]["decision"] or {}
        return decision.get("hint") or decision.get("kind") or "move"

    def summary(self, state, viewer=None, who=None):
        # The cards each player owns (the score, counted from what everybody may see),
        # then the viewer's own: their hand, and their dice, those made and the one being
        # made with the cards still to place (their hand is in them meanwhile).
        v = self.seen(state, viewer)
        info = v["info"]
        who = who or {}
        owned = list(info["hand_sizes"])
        war = v["war"]
        if war is not None:
            for bt in war["b"]:
                for side in bt["s"]:
                    if 0 <= side["own"] < len(owned):
                        pile = side["pile"]
                        owned[side["own"]] += (len(pile) if isinstance(pile, list) else pile) \
                            + bool(side["face"])
            b = war["build"]
            if b is not None:
                owned[b["p"]] += sum(len(x) if isinstance(x, list) else x
                                     for x in (b["pool"], b["cur"]))
        t = Text("Cards: " + ", ".join("%s %d" % (self.seat_label(state, p, who.get(p)), n)
                                       for p, n in enumerate(owned)))
        if viewer is None:
            return t
        t.append("\nYour hand: %s" % (_cards_text(info["hand"]) or "-"))
        if war is None:
            return t
        dice = []
        for k, bt in enumerate(war["b"], 1):
            side = bt["s"][0] if bt["s"][0]["own"] == viewer else \
                bt["s"][1] if bt["s"][1]["own"] == viewer else None
            if side is not None and isinstance(side["pile"], list) \
                    and (side["pile"] or side["face"]):
                dice.append("%d: %s" % (k, _cards_text(side["pile"] + [side["face"]] if
                                                       side["face"] else side["pile"])))
        b = war["build"]
        making = b is not None and b["p"] == viewer
        if dice or making:
            t.append("\nYour dice: %s" % ("; ".join(dice) or "none made yet"))
        if making:
            t.append("\nThe die you make: %s" % (_cards_text(b["cur"]) or "empty"))
            t.append("\nStill to place: %s" % (_cards_text(b["pool"]) or "-"))
        return t

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        v = self.seen(state, viewer)
        info = v["info"]
        t = Text()
        t.append("Turn %d   " % (v["turn"] + (0 if state.is_over() else 1)), style="bold")
        t.append("in hand: " + ", ".join("P%d %d" % (p, n)
                                         for p, n in enumerate(info["hand_sizes"])))
        t.append("\n")
        t.append_text(self.summary(state, viewer, who))
        parts = [t]
        # The war under way, or the last one fought: its revealed cards stay named once
        # grabbed, so that who won each battle, and with what, can be followed.
        war = v["war"] or v.get("last")
        if war:
            attacker, defender = war["sides"]
            head = Text("\n%s: P%s %s P%s with %s" % (
                "War" if v["war"] else "Last war", attacker,
                "attacks" if v["war"] else "attacked", defender,
                plural(war["n"], "die", "dice")), style="bold")
            if war.get("dawn"):
                head.append("   Dawn: %s %s" % (war["dawn"], war.get("rule", "")))
            parts.append(head)
            table = Table(show_edge=False, box=None, padding=(0, 2))
            table.add_column("battle")
            table.add_column("attacker")
            table.add_column("defender")
            table.add_column("won by")
            # Beside an 80-column board the panel is too narrow for four columns (cut
            # to "b…  at…"): one line a battle there, in words.
            lines = Text()
            for n, bt in enumerate(war["b"], 1):
                won = WON_BY.get(bt["res"], "") if bt["done"] == 2 else ""
                a, d = _side(bt["s"][0]), _side(bt["s"][1])
                table.add_row(str(n), a, d, won)
                lines.append("\n" if n > 1 else "")
                lines.append_text(Text.assemble("%d: " % n, a, " vs ", d))
                if won:
                    lines.append(", won by %s" % won)
            parts.append(table if width is None or width >= NARROW else lines)
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
