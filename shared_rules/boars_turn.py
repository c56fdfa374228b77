"""Boars on the Run!: what each move does, through the turn.

Applying a move already known to be legal: drawing cubes from the bag (sick at 3 black),
the vendettas, changing the menu, buying a card (and the discard a sixth card forces),
tickets, diets, the end of movement (the bump, then the space: its cubes to take or to
lose), and the end of the turn (unspent cubes back to the bag, the next player, the turn
limit). A mixin of BoarsState (the state and its interface are in `shared_rules.boars`,
whose `play()` checks a move and calls the method here): its methods change the state's
fields through `self` and ask `shared_rules.boars_legal`'s methods what comes next.
"""

from shared_rules import secret_prng
from shared_rules.boars_options import (
    BLACK, BUMP, DISPLAY_SLOTS, FINISH, HAND_LIMIT, K_PREDATOR, N_FOOD, PER_COLOUR_IN_BAG,
    PH_ACT, PH_DISCARD, PH_DRAW, PH_MENU, PH_OVER, PH_SPACE, PH_VENDETTA, SICK_AT, START,
    TICKETS, _letters_counts)


class TurnSteps:
    """The moves' effects on the table (mixed into BoarsState)."""

    def _draw(self, n):
        a = self.active
        bag = self.bags[a]
        got = [0] * 5
        for _ in range(n):
            k, self.rng = secret_prng.below(self.rng, sum(bag))
            for c in range(5):
                k -= bag[c]
                if k < 0:
                    bag[c] -= 1
                    got[c] += 1
                    break
        self.drawn = got
        if got[BLACK] >= SICK_AT:
            # Sick: none of the cubes drawn may be used; they go back into the bag.
            for c in range(5):
                bag[c] += got[c]
            self.front = [0] * 5
        else:
            self.front = got[:]
        self._after_vendettas()

    def _after_vendettas(self):
        if self._triggered():
            self.phase = PH_VENDETTA
        elif self.drawn[BLACK] == PER_COLOUR_IN_BAG:
            self.phase = PH_MENU
        else:
            self.phase = PH_ACT

    def _vendetta(self, ci, args):
        card = self.deck_data.cards[ci]
        kind = card["kind"]
        a = self.active
        data = self.deck_data
        if kind == "overtake":
            self._set_pos(a, self.pos[int(args[0])] + 1)
        elif kind == "pullback":
            p = int(args[0])
            self.pos[p] = max(START, self.pos[p] - card["spaces"])
        elif kind == "switcheroo":
            x, y = data.index[args[0]], data.index[args[1]]
            px, py = self._holder(x), self._holder(y)
            hx, hy = self.hands[px], self.hands[py]
            hx[hx.index(x)] = y
            hy[hy.index(y)] = x
        elif kind == "finders":
            x = data.index[args[0]]
            self.hands[self._holder(x)].remove(x)
            self.hands[a].append(x)
            if 1 + len(self.hands[a]) > HAND_LIMIT:
                # The vendetta is still in hand while it resolves: a sixth card means a
                # discard first, then the vendetta goes (rules decisions).
                self.phase = PH_DISCARD
                self.keep = ci
                self.then = ci
                return
        else:  # sorry
            p = int(args[0])
            for x in self.hands[p][:]:
                if x != ci:
                    self.hands[p].remove(x)
                    self.deck.append(x)
        self._to_bottom(a, ci)
        if self.phase != PH_OVER:
            self._after_vendettas()

    def _holder(self, ci):
        for p in range(self.players):
            if ci in self.hands[p]:
                return p
        return -1

    def _to_bottom(self, p, ci):
        self.hands[p].remove(ci)
        self.deck.append(ci)

    def _refill(self, slot):
        if self.deck:
            self.display[slot] = self.deck.pop(0)
            if self.deck_hidden:
                self.deck_hidden -= 1
        else:
            self.display[slot] = -1

    def _change_menu(self):
        for slot in range(DISPLAY_SLOTS):
            if self.display[slot] >= 0:
                self.deck.append(self.display[slot])
                self.display[slot] = -1
        for slot in range(DISPLAY_SLOTS):
            self._refill(slot)

    def _pay(self, counts):
        for c in range(N_FOOD):
            self.front[c] -= counts[c]
            self.supply[c] += counts[c]

    def _gain(self, p, c, n):
        # Cubes from the reserve into a bag: as many as there are. Returns how many.
        n = min(n, self.supply[c])
        self.supply[c] -= n
        self.bags[p][c] += n
        return n

    def _set_pos(self, p, space):
        self.pos[p] = min(FINISH, space)
        if self.pos[p] == FINISH:
            self.phase = PH_OVER
            self.end = "finish"

    def _buy(self, ci, pay):
        a = self.active
        self._pay(_letters_counts(pay))
        slot = self.display.index(ci)
        self._refill(slot)
        self.hands[a].append(ci)
        self.bought = ci
        if 1 + len(self.hands[a]) > HAND_LIMIT:
            self.phase = PH_DISCARD
            self.keep = ci
            self.then = -1

    def _discard_limit(self, ci):
        a = self.active
        self._to_bottom(a, ci)
        then = self.then
        self.keep = self.then = -1
        if then >= 0:  # the Finders Keepers that brought the sixth card
            self._to_bottom(a, then)
            self._after_vendettas()
        else:
            self.phase = PH_ACT

    def _ticket(self, name):
        for tname, colour, count, _ in TICKETS:
            if tname == name:
                self.front[colour] -= count
                self.supply[colour] += count
                a = self.active
                self._set_pos(a, self.track.next_station[colour][self.pos[a]])

    def _diet(self, name, other):
        a = self.active
        self.used.append(name)
        if name in ("top", "bottom"):
            boar = self.deck_data.cards[self.boar[a]]
            key = "" if name == "top" else "2"
            self._pay(boar["pay" + key])
            self._set_pos(a, self.pos[a] + boar["move" + key])
            return
        card = self.deck_data.cards[self.deck_data.index[name]]
        kind = card["kind"]
        if kind in ("mono", "combo"):
            self._pay(card["pay"])
        elif kind == "feast":
            for c in range(N_FOOD):
                self._gain(a, c, card["gain"][c])
            return
        elif kind == "careless":
            self._to_bottom(a, self.deck_data.index[other])
        self._set_pos(a, self.pos[a] + card["move"])

    def _end_moving(self):
        # "After all your movement is complete": bump, then activate the space.
        self._bump()
        options = self._space_options()
        if len(options) > 1:
            self.phase = PH_SPACE
            return
        if options:
            self._resolve_space(options[0])
            return
        a = self.active
        if self.track.kinds[self.pos[a]] == K_PREDATOR:
            self.pos[a] = max(START, self.pos[a] - 1)
        self._end_turn()

    def _bump(self):
        a = self.active
        space = self.pos[a]
        movers = [p for p in range(self.players) if p != a and self.pos[p] == space]
        while movers and space != START:
            space = max(START, space - BUMP)
            nxt = []
            if space != START:
                nxt = [p for p in range(self.players)
                       if p != a and p not in movers and self.pos[p] == space]
            for p in movers:
                self.pos[p] = space
            movers = nxt

    def _resolve_space(self, cubes):
        a = self.active
        here = self.pos[a]
        counts = _letters_counts(cubes)
        if self.track.kinds[here] == K_PREDATOR:
            for c in range(N_FOOD):
                self.front[c] -= counts[c]
                self.supply[c] += counts[c]
        else:
            gained = [self._gain(a, c, counts[c]) for c in range(N_FOOD)]
            for ci in self.hands[a]:
                card = self.deck_data.cards[ci]
                if card["kind"] == "gatherer" and gained[card["colour"]]:
                    self._gain(a, card["colour"], card["extra"])
        self._end_turn()

    def _end_turn(self):
        a = self.active
        for c in range(5):
            self.bags[a][c] += self.front[c]
        self.front = [0] * 5
        self.drawn = [0] * 5
        self.used = []
        self.bought = -1
        self.turn += 1
        self.active = (a + 1) % self.players
        self.phase = PH_DRAW
        if self.turn >= self.max_turns:
            self.phase = PH_OVER
            self.end = "turns"
