"""Boars on the Run! in the terminal, from `state.view(viewer)` only: the track with every
boar, the display of cards, the viewer's own bag and hand, the cubes drawn and in front,
the tickets on offer. Another player's bag is shown only by its size."""

from functools import lru_cache

from rich.console import Group
from rich.text import Text

from vora_host.games.base import TerminalView, word_keys_help
from vora_host.words import plural

__all__ = ["BoarsView"]

CUBE_STYLE = {"r": "bold #ffffff on #d55e00", "b": "bold #ffffff on #0072b2",
              "y": "bold #000000 on #f0e442", "g": "bold #ffffff on #009e73",
              "k": "bold #ffffff on #000000"}
SPACE_CHAR = {"start": "S", "finish": "F", "food": "f", "predator": "!", "station": "T"}

HELP_TEXT = """\
[bold]Entering a move[/bold]: its [bold]#number[/bold] from the list (#5), or the move in notation:
  draw <n>                     draw n cubes from your bag (you choose how many)
  buy <card> <cubes>           buy a displayed card, paying with cubes drawn (buy mono-rr gy)
  ticket cab|ferry|metro|squirrel   exactly 3 red / 4 yellow / 5 blue / 6 green drawn
  diet top|bottom|<card>       use your Boar card's diet or a Diet card, once a turn each
  end                          movement over: bump, then the space acts
  vendetta <card> <target>     a Vendetta that your draw triggered
  menu new|keep, discard <card>, take <cubes>, lose <cubes>
Cubes: r red, b blue, y yellow, g green, k black (spoiled)."""


# The help of `?`: the game in a few lines, then the step the game is in (step_help).
SUMMARY = (
    "[bold]Boars on the Run![/bold]: be the first boar at the Finish, 95 spaces on. Each "
    "turn: draw as many cubes from your bag as you like (3 or more black: sick, they all go "
    "back); use them on diets (your Boar card's two, Diet cards; each once a turn) to move, "
    "on a ticket (exactly 3 red, 4 yellow, 5 blue or 6 green drawn) to ride to the next "
    "station, or to buy one card; then end: boars on your space go 2 back, and your space "
    "gives food, takes food (a predator) or gives a station's cubes.")

STEP_HELP = {
    "draw": ("say how many cubes you draw from your bag.", "draw",
             "draw <n>  (draw 7: on the board, draw then the 8th inner key, d5; draw 0 "
             "draws nothing)"),
    "vendetta": ("your draw set off a Vendetta card: choose its target (it must be used).",
                 "vendetta", "vendetta <card> <player>, or <card> <card> for the cards it "
                 "moves"),
    "menu": ("you drew all 5 black cubes: swap the display for 4 new cards, or keep it.",
             "menu", "menu new, menu keep"),
    "act": ("use your cubes: diets, a ticket, one card bought; then end your movement.",
            "diet, ticket, buy or end",
            "diet top|bottom|<card>, ticket cab|ferry|metro|squirrel, buy <card> <cubes> "
            "(buy mono-rr gy), end"),
    "discard": ("a sixth card came in: give one back (not your Boar card, not the new one).",
                "discard", "discard <card>"),
    "space": ("your space acts: choose what it gives (food, a station) or takes (a "
              "predator).", "take or lose", "take <cubes> (take rrr, take g), lose <cubes>"),
}


@lru_cache(maxsize=8)
def _track(text):
    from shared_rules import boars
    return tuple(s["kind"] for s in boars.track_spaces(text))


@lru_cache(maxsize=8)
def _cards(text):
    from shared_rules import boars
    return dict((c["id"], c) for c in boars.cards_list(text))


def cubes_short(counts):
    """'r3 b1 y5' (each count in its colour), for the few lines of a summary."""
    t = Text()
    for letter, n in zip("rbygk", counts):
        if n:
            t.append(" " if t else "")
            t.append("%s%d" % (letter, n), style=CUBE_STYLE[letter])
    return t if t else Text("-", style="dim")


def cubes_text(counts):
    t = Text()
    for letter, n in zip("rbygk", counts):
        if n:
            t.append(" %s%d " % (letter, n), style=CUBE_STYLE[letter])
            t.append(" ")
    return t if t else Text("-", style="dim")


def diet_text(v, player, diet):
    """What a diet of `player` costs and gives, from a view `v`: 'pay y: move 1' for their
    Boar card's top or bottom diet, a Diet card's own words for a card ('' if unknown)."""
    cards = _cards(v["cards"])
    if diet in ("top", "bottom"):
        boar = cards.get(v["boars"][player])
        if boar is None:
            return ""
        key = "" if diet == "top" else "2"
        return "pay %s: move %d" % (boar["pay" + key], boar["move" + key])
    card = cards.get(diet)
    return card["text"] if card else ""


def boar_text(v, player):
    """A player's Boar card with its two diets: 'bristle (top: pay y: move 1; bottom: pay
    rr: move 3)'."""
    return "%s (top: %s; bottom: %s)" % (v["boars"][player], diet_text(v, player, "top"),
                                         diet_text(v, player, "bottom"))


class BoarsView(TerminalView):
    help_text = HELP_TEXT

    def seat_label(self, state, player, who=None):
        text = "P%d" % player
        return "%s (%s)" % (text, who) if who else text

    def step_help(self, state):
        # The public view's step only: help never depends on a bag or a hand.
        decision = state.view(None)["decision"]
        if decision not in STEP_HELP:
            return SUMMARY + "\n[bold]The game is over.[/bold]"
        what, kind, typed = STEP_HELP[decision]
        return "%s\n[bold]Now (%s)[/bold]: %s\n  [bold]On the board[/bold]: %s\n  " \
               "[bold]Typed[/bold]: %s" % (SUMMARY, decision, what, word_keys_help(kind),
                                          typed)

    def prompt(self, state):
        decision = state.view(state.to_act())["decision"]
        if decision == "draw":
            # The choices are numbered from 1 and the draws from 0 (#24): name the range, so
            # that nobody takes choice 3 for three cubes. A bag's size is public.
            counts = [int(m.split()[1]) for m in state.legal_moves() if m.startswith("draw ")]
            if counts:
                return "draw cubes: 'draw N', N from %d to %d" % (min(counts), max(counts))
        return {"draw": "draw cubes", "vendetta": "resolve a vendetta",
                "menu": "keep or change the menu", "act": "buy, take tickets, eat, or end",
                "discard": "discard a card", "space": "choose what the space gives"}.get(
                    decision, decision)

    def summary(self, state, viewer=None, who=None):
        # Each boar's space (the standing), the viewer's bag (their secret), the cubes of
        # the turn, and the Boar card of the viewer (the player to act when the screen is
        # everybody's) with its diets: what they cost and how far they go.
        v = self.seen(state, viewer)
        who = who or {}
        t = Text("Spaces (Finish %d): " % (len(_track(v["track"])) - 1))
        t.append(", ".join("%s %d" % (self.seat_label(state, p, who.get(p)), pos)
                           for p, pos in enumerate(v["positions"])))
        if viewer is not None and v.get("bag") is not None:
            t.append("\nYour bag: ")
            t.append_text(cubes_short(v["bag"]))
        if any(v["drawn"]) or any(v["front"]):
            t.append("\nDrawn: ")
            t.append_text(cubes_short(v["drawn"]))
            t.append("; in front: ")
            t.append_text(cubes_short(v["front"]))
            if v["sick"]:
                t.append("  sick!", style="bold red")
        mine = viewer if viewer is not None else v["to_act"]
        if mine is not None:
            t.append("\n%s Boar: %s" % ("Your" if viewer is not None else "P%d's" % mine,
                                         boar_text(v, mine)))
        return t

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        v = self.seen(state, viewer)
        who = who or {}
        kinds = _track(v["track"])
        cards = _cards(v["cards"])
        # The legend first: beside an 80x24 board the track's rows take the panel.
        track = Text("S start, F finish, f food, ! predator, T station; digits: the boars\n",
                     style="dim")
        # Rows of 48 spaces, 24 or 20 in a narrow panel (the number before them and a
        # space take 3 columns).
        width = width or 80
        per_row = 48 if width >= 51 else 24 if width >= 27 else 20
        for start in range(0, len(kinds), per_row):
            line = Text("%2d " % start, style="dim")
            here = Text("   ")
            for i in range(start, min(start + per_row, len(kinds))):
                line.append(SPACE_CHAR.get(kinds[i], "?"))
                boars_here = [p for p, pos in enumerate(v["positions"]) if pos == i]
                here.append(str(boars_here[0]) if boars_here else " ",
                            style="bold reverse" if boars_here else "")
            track.append_text(line)
            track.append("\n")
            track.append_text(here)
            if start + per_row < len(kinds):
                track.append("\n")
        # A player a few lines: space and bag, then their cards, the Boar card with its two
        # diets; the cards of the viewer (the player to act when the screen is everybody's)
        # with what they do, the others' by name (the display says what those do).
        mine = viewer if viewer is not None else v["to_act"]
        players = Text()
        for p, pos in enumerate(v["positions"]):
            players.append("\n" if p else "")
            players.append(self.seat_label(state, p, who.get(p)),
                           style="bold reverse" if p == v["to_act"] else "bold")
            players.append("  space %d  bag " % pos)
            if p == viewer and v.get("bag") is not None:
                players.append_text(cubes_text(v["bag"]))
            else:
                players.append(plural(v["bag_sizes"][p], "cube"))
            players.append("\n  Boar " + boar_text(v, p))
            hand = [c for c in v["hands"][p] if c != v["boars"][p]]
            if hand:
                players.append("\n  cards: " + ", ".join(
                    "%s (%s)" % (c, cards[c]["text"]) if p == mine and c in cards else c
                    for c in hand))
        status = Text()
        status.append("Turn %d   decision: %s" % (v["turn"] + (v["decision"] != "over"),
                                                   v["decision"]), style="bold")
        if v["sick"]:
            status.append("   sick!", style="bold red")
        status.append("\nDrawn: ")
        status.append_text(cubes_text(v["drawn"]))
        status.append("   in front: ")
        status.append_text(cubes_text(v["front"]))
        status.append("\nReserve: ")
        status.append_text(cubes_text(list(v["supply"]) + [0]))
        status.append("\nDisplay: " + ", ".join(
            "%s (%s)" % (c, cards[c]["text"]) if c in cards else str(c)
            for c in v["display"] if c))
        if v["tickets"]:
            status.append("\nTickets on offer: " + ", ".join(v["tickets"]))
        if history:
            status.append("\nLast moves", style="underline")
            for player, move in list(history)[-4:]:
                status.append("\n  P%d %s" % (player, move))
        return Group(track, players, status)

    def end_reason(self, state):
        return {"finish": "a boar reached the Finish",
                "turns": "the turn limit was reached (a house safeguard)"}.get(
                    state.end_reason(), state.end_reason())

    def result_lines(self, state):
        w = state.winner()
        return ["A draw."] if w is None else ["P%d wins." % w]
