"""Boars on the Run!: what may be played now, and why a move is refused.

The moves each phase offers: the vendettas the black cubes drawn trigger and their
targets, the active player's purchases, tickets and diets with what each diet needs, the
outcomes the boar's space offers; and, for a move that is not legal, a reason that names
what is wrong (`_why_not`). Nothing here changes the state. A mixin of BoarsState (the
state and its interface are in `shared_rules.boars`, which gathers the mixins: its
`legal_moves()` and `play()` call the methods here; `shared_rules.boars_turn` asks
`_triggered` and `_space_options` what comes next, and `shared_rules.boars_check` whether
a phase read from outside fits): its methods read the state's fields through `self`.
"""

from shared_rules.boars_options import (
    BLACK, COLOURS, DIET_KINDS, FOOD_SAME, K_FOOD, K_PREDATOR, K_STATION, LETTERS, N_FOOD,
    PH_ACT, PH_DISCARD, PH_DRAW, PH_MENU, PH_SPACE, PH_VENDETTA, PREDATOR_ANY, SICK_AT, START,
    TICKETS, VENDETTA_KINDS, _has, _multisets, cubes_text)


class LegalMoves:
    """The moves the rules allow now, and the reasons for a refusal (mixed into BoarsState)."""

    def _triggered(self):
        # Vendettas in hand whose black count was drawn and that have a legal target.
        k = self.drawn[BLACK]
        out = []
        for ci in self.hands[self.active]:
            card = self.deck_data.cards[ci]
            if card["black"] == k and card["kind"] in VENDETTA_KINDS and self._targets(ci):
                out.append(ci)
        return out

    def _targets(self, ci):
        # The target words of a vendetta: players, a card id, or two card ids.
        card = self.deck_data.cards[ci]
        kind = card["kind"]
        a = self.active
        n = self.players
        if kind == "overtake":
            return [str(p) for p in range(n)
                    if self.track.colours[self.pos[p]] == card["colour"]]
        if kind == "pullback":
            them = [str(p) for p in range(n) if p != a and self.pos[p] > START]
            if not them and self.pos[a] > START:
                them = [str(a)]
            return them
        if kind == "finders":
            return [self.card_id(x) for p in range(n) if p != a for x in self.hands[p]]
        if kind == "sorry":
            them = [str(p) for p in range(n) if p != a and self.hands[p]]
            if not them and len(self.hands[a]) > 1:
                them = [str(a)]
            return them
        # switcheroo: two cards of two different players, the card itself excluded
        held = []
        for p in range(n):
            for x in self.hands[p]:
                if x != ci:
                    held.append((self.card_id(x), p))
        out = []
        for i in range(len(held)):
            for j in range(len(held)):
                if held[i][1] != held[j][1] and held[i][0] < held[j][0]:
                    out.append(held[i][0] + " " + held[j][0])
        return out

    def _act_moves(self):
        a = self.active
        front = self.front
        moves = ["end"]
        # "If your boar did not get sick, you can now use your cubes ...: Buy a card":
        # a sick boar buys nothing, not even a card that costs no cube.
        if self.bought < 0 and self.drawn[BLACK] < SICK_AT:
            for ci in self.display:
                if ci >= 0:
                    cid = self.card_id(ci)
                    for pay in _multisets(front, self.deck_data.cards[ci]["cost"]):
                        moves.append("buy %s %s" % (cid, pay or "-"))
        here = self.pos[a]
        for name, colour, count, _ in TICKETS:
            if self.drawn[colour] == count and front[colour] == count \
                    and self.track.next_station[colour][here] >= 0:
                moves.append("ticket " + name)
        boar = self.deck_data.cards[self.boar[a]]
        if "top" not in self.used and _has(front, boar["pay"]):
            moves.append("diet top")
        if "bottom" not in self.used and _has(front, boar["pay2"]):
            moves.append("diet bottom")
        hand = self.hands[a]
        for ci in hand:
            card = self.deck_data.cards[ci]
            cid = card["id"]
            if cid in self.used or card["kind"] in VENDETTA_KINDS:
                continue
            kind = card["kind"]
            if kind == "careless":
                for other in hand:
                    if other != ci:
                        moves.append("diet %s %s" % (cid, self.card_id(other)))
            elif self._diet_ready(card):
                moves.append("diet " + cid)
        return moves

    def _diet_ready(self, card):
        kind = card["kind"]
        if kind in ("mono", "combo"):
            return _has(self.front, card["pay"])
        if kind in ("non", "feast"):
            return self.drawn[card["colour"]] == 0
        if kind == "portion":
            return sum(self.drawn) == card["drawn"]
        if kind == "knowledge":
            return self.bought >= 0 and self.deck_data.cards[self.bought]["kind"] in DIET_KINDS
        if kind == "cold":
            return self.bought >= 0 and \
                self.deck_data.cards[self.bought]["kind"] in VENDETTA_KINDS
        return False  # gatherer: it acts by itself on the space

    def _space_options(self):
        # The distinct outcomes of activating the boar's space, as cube letters.
        here = self.pos[self.active]
        kind = self.track.kinds[here]
        c = self.track.colours[here]
        sup = self.supply
        out = []
        if kind == K_FOOD:
            k = min(FOOD_SAME, sup[c])
            if k:
                out.append(LETTERS[c] * k)
            for x in range(N_FOOD):
                if sup[x] and LETTERS[x] not in out:
                    out.append(LETTERS[x])
        elif kind == K_STATION:
            for x in range(N_FOOD):
                got = [0] * N_FOOD
                if sup[c]:
                    got[c] = 1
                if sup[x] > got[x]:
                    got[x] += 1
                t = cubes_text(got)
                if t != "-" and t not in out:
                    out.append(t)
        elif kind == K_PREDATOR:
            if self.front[c]:
                out.append(LETTERS[c])
            for t in _multisets(self.front, PREDATOR_ANY):
                if t not in out:
                    out.append(t)
        return out

    def _why_not(self, move):
        # A specific reason for a refused move (the move is known not to be legal).
        w = move.split(" ")
        verb = w[0]
        phase_verbs = {PH_DRAW: ("draw",), PH_VENDETTA: ("vendetta",), PH_MENU: ("menu",),
                       PH_ACT: ("buy", "ticket", "diet", "end"), PH_DISCARD: ("discard",),
                       PH_SPACE: ("take", "lose")}
        hints = {PH_DRAW: "draw cubes: 'draw <n>'",
                 PH_VENDETTA: "resolve a triggered vendetta: 'vendetta <card> <target>'",
                 PH_MENU: "choose 'menu new' or 'menu keep'",
                 PH_ACT: "use cubes: 'buy', 'ticket', 'diet' or 'end'",
                 PH_DISCARD: "discard a card: 'discard <card>'",
                 PH_SPACE: "activate the space: 'take <cubes>' or 'lose <cubes>'"}
        all_verbs = ("buy", "diet", "discard", "draw", "end", "lose", "menu", "take",
                     "ticket", "vendetta")
        if verb not in all_verbs:
            return "unknown move word %r; moves start with one of: %s" % (
                verb, ", ".join(all_verbs))
        if verb not in phase_verbs[self.phase]:
            return "now is the time to %s" % hints[self.phase]
        if "" in w:
            return "words are separated by single spaces"
        data = self.deck_data
        a = self.active
        if verb == "draw":
            size = sum(self.bags[a])
            if len(w) != 2 or not w[1].isdigit():
                return "'draw' takes one number: how many cubes"
            return "you draw %d to %d cubes (the cubes in your bag)" % (self.min_draw, size)
        if verb == "menu":
            return "'menu new' changes the 4 cards on display, 'menu keep' keeps them"
        if verb == "end":
            return "'end' takes no argument"
        if verb in ("vendetta", "buy", "discard") and (len(w) < 2 or w[1] not in data.index):
            return "%r is not a card of this game" % (w[1] if len(w) > 1 else "")
        if verb == "vendetta":
            ci = data.index[w[1]]
            card = data.cards[ci]
            if ci not in self.hands[a] or card["kind"] not in VENDETTA_KINDS:
                return "%s is not a vendetta in your hand" % w[1]
            if card["black"] != self.drawn[BLACK]:
                return "%s triggers on exactly %d black cubes; you drew %d" % (
                    w[1], card["black"], self.drawn[BLACK])
            return "not a legal target of %s; its targets: %s" % (
                w[1], ", ".join(self._targets(ci)) or "none")
        if verb == "buy":
            ci = data.index[w[1]]
            if self.bought >= 0:
                return "you already bought a card this turn"
            if self.drawn[BLACK] >= SICK_AT:
                return "your boar is sick: only a boar that did not get sick buys a card"
            if ci not in self.display:
                return "%s is not on display" % w[1]
            cost = data.cards[ci]["cost"]
            if len(w) != 3:
                return "'buy' takes the card and the cubes paid ('-' for none)"
            return "%s costs %d non-black cubes from the ones in front of you (%s), written " \
                   "in colour order r b y g" % (w[1], cost, cubes_text(self.front))
        if verb == "discard":
            return "discard one of your Diet or Vendetta cards except %s" % (
                self.card_id(self.keep) if self.keep >= 0 else "the new one")
        if verb == "ticket":
            for name, colour, count, title in TICKETS:
                if len(w) == 2 and w[1] == name:
                    if self.drawn[colour] != count:
                        return "the %s needs exactly %d %s cubes drawn; you drew %d" % (
                            title, count, COLOURS[colour], self.drawn[colour])
                    if self.front[colour] != count:
                        return "you already spent some of the %s cubes" % COLOURS[colour]
                    return "there is no %s station ahead" % title
            return "tickets: %s" % ", ".join(t[0] for t in TICKETS)
        if verb == "diet":
            if len(w) < 2:
                return "'diet' takes top, bottom or a card"
            name = w[1]
            if name in self.used:
                return "each diet is used once per turn; %s was used" % name
            if name not in ("top", "bottom"):
                ci = data.index.get(name, -1)
                if ci not in self.hands[a]:
                    return "%s is not a card in your hand" % name
                kind = data.cards[ci]["kind"]
                if kind in VENDETTA_KINDS:
                    return "%s is a vendetta: it triggers on black cubes drawn" % name
                if kind == "gatherer":
                    return "%s acts by itself when you gain its colour from a space" % name
                if kind == "careless":
                    return "%s needs another card of yours to discard: 'diet %s <card>'" % (
                        name, name)
            return "the diet's condition is not met (cubes in front: %s, drawn: %s)" % (
                cubes_text(self.front), cubes_text(self.drawn))
        options = self._space_options()
        return "the space offers: %s" % ", ".join(options)
