"""Tossing Tiger, Rolling Dragon: the animals.

What each card does once revealed (`_step_act`, the war's "act" step: the attacker's action
first, then the defender's), whom its choices may target, the moves that carry them out
(the Dragon's reroll, the Monkey's look, the Leopard's swap, the Bull's destroy, the Red
Panda's draw, the Chameleon's copy), a card's strengths and who wins a battle by the cards.
The printed texts are in `shared_rules.tossing_tiger_data`. A mixin of TigerState (see
`shared_rules.tossing_tiger_war` for how the mixins share the state).
"""

from shared_rules import secret_prng
from shared_rules import tossing_tiger_data as data
from shared_rules.tossing_tiger_options import (
    COPYABLE, EVERYTHING, _bit, _insert, _sorted_unique, card_type)


class Animals:
    """The cards' actions, strengths and battles (mixed into TigerState)."""

    # ---- actions

    def _prev_battle(self, k):
        w = self.s["war"]
        j = k - 1
        while j >= 0 and (w["b"][j]["gone"] or w["b"][j]["done"] != 2):
            j -= 1
        return j

    def _copy_options(self, k):
        w = self.s["war"]
        j = self._prev_battle(k)
        if j < 0:
            return []
        out = []
        for side in w["b"][j]["s"]:
            if not side["face"]:
                continue
            t = card_type(side["face"])
            a = side["act"] if t == "chameleon" else t
            if a in COPYABLE:
                out.append(a)
        return _sorted_unique(out)

    def _step_act(self, w):
        # "Handle those now: attacker first, defender second": the attacker's action is
        # handled to its end before the defender's begins.
        k = w["k"]
        bt = w["b"][k]
        i = w["i"]
        if i >= 2:
            w["step"] = "settle"
            return False
        side = bt["s"][i]
        a = side["act"]
        if side["off"] or not a or not side["face"]:
            w["i"] = i + 1
            return False
        other = bt["s"][1 - i]
        owner = side["own"]
        if a == "chameleon":
            # It copies in its own turn, from the previous battle as it lies now (after an
            # attacker's Dragon, Leopard or Bull changed it).
            opts = self._copy_options(k)
            if len(opts) > 1:
                return self._decide("copy", owner)  # _do_copy sets act; i stays
            side["act"] = a = opts[0] if opts else ""
            if not a:
                w["i"] = i + 1
                return False
        if a == "turtle":
            # A copied Turtle cancels from now on; what the attacker's action did stays done.
            other["off"] = 1
        if a == "tiger":
            w["i"] = i + 1
            both = other["act"] == "tiger" and not other["off"] and other["face"]
            rule = self._opts()["two_tigers"]
            if both and (rule == "nobody" or (rule == "attacker" and i == 1)):
                return False
            t, self.rng = secret_prng.below(self.rng, 2)
            side["toss"] = 1 + t
            return False
        if a == "dragon":
            if self._reroll_targets(k, i, k):
                return self._decide("reroll", owner)
        elif a == "monkey":
            if self._look_targets(k):
                return self._decide("look", owner)
        elif a == "leopard":
            if len(self._swap_positions(i, owner)) >= 2:
                return self._decide("swap", owner)
        elif a == "bull":
            if self._face_targets(k):
                return self._decide("destroy", owner)
        elif a == "redpanda":
            if other["face"] and self._strong(k, 1 - i):
                if self._can_draw() or self._face_targets(k):
                    return self._decide("draw", owner)
        elif a == "peacock":
            j = k + 1
            while j < w["n"] and w["b"][j]["gone"]:
                j += 1
            if j < w["n"]:
                w["b"][j]["pea"] |= _bit(i)
        elif a == "unicorn":
            earlier = self._earlier_types(k, i)
            if len(earlier) == len(set(earlier)):  # "add my type as a strength"
                w["extra"].append([k, i, card_type(side["face"])])
        elif a == "bird":
            w["talk"] |= _bit(i)
        elif a == "rooster":
            if self._rooster_action(k, i):
                return True
            if w["overall"]:  # the war instantly ended: no later action is handled
                w["i"] = 2
                return False
        w["i"] = i + 1
        return False

    def _earlier_types(self, k, sd):
        w = self.s["war"]
        out = []
        for j in self._fought_before(k):
            f = w["b"][j]["s"][sd]["face"]
            if f:
                out.append(card_type(f))
        return out

    # ---- targets of the choices

    def _reroll_targets(self, k, sd, upto):
        # Battles 0..upto where side sd's die can be rolled again.
        w = self.s["war"]
        out = []
        for j in range(upto + 1):
            bt = w["b"][j]
            side = bt["s"][sd]
            if bt["gone"] or not bt["done"] or side["void"] or side["dawn"]:
                continue
            if side["pile"] or side["face"]:
                out.append(j)
        return out

    def _look_targets(self, k):
        w = self.s["war"]
        return [j for j in range(k + 1, w["n"]) if not w["b"][j]["gone"]
                and (w["b"][j]["s"][0]["set"] or w["b"][j]["s"][1]["set"])]

    def _swap_positions(self, sd, owner):
        w = self.s["war"]
        out = []
        for j in range(w["n"]):
            bt = w["b"][j]
            side = bt["s"][sd]
            if bt["gone"] or not side["set"] or side["void"] or side["dawn"]:
                continue
            if side["own"] == owner:
                out.append(j)
        return out

    def _face_targets(self, k):
        # Revealed cards of earlier battles: (battle, side).
        w = self.s["war"]
        out = []
        for j in self._fought_before(k):
            for sd in (0, 1):
                if w["b"][j]["s"][sd]["face"]:
                    out.append((j, sd))
        return out

    # ---- strengths and results

    def _strengths(self, k, sd):
        # The types side sd's card in battle k is strong against (EVERYTHING: all).
        w = self.s["war"]
        side = w["b"][k]["s"][sd]
        t = card_type(side["face"])
        rule, pick = w["rule"], w["pick"]
        if rule == "superweak_type" and t == pick:
            return set()
        act = side["act"] if not side["off"] else ""
        printed = self._c["table"].get(t, ())
        if act == "horse":
            earlier = set(self._earlier_types(k, sd))
            if printed and not [x for x in printed if x not in earlier]:
                return EVERYTHING
        got = set(printed)
        if act == "panda":
            got |= set(self._earlier_types(k, sd))
        for k0, who, typ in w["extra"]:
            if k > k0 and (who == sd or (who == 2 and t == data.ROOSTER)):
                got.add(typ)
        if rule == "strong_type" and sd == 0:
            got.add(pick)
        if rule == "weak_type":
            got.discard(pick)
        for k0, typ in w["minus"]:
            if k > k0:
                got.discard(typ)
        return got

    def _strong(self, k, sd):
        w = self.s["war"]
        other = w["b"][k]["s"][1 - sd]["face"]
        if not other or not w["b"][k]["s"][sd]["face"]:
            return False
        got = self._strengths(k, sd)
        return got == EVERYTHING or card_type(other) in got

    def _fight(self, k):
        w = self.s["war"]
        bt = w["b"][k]
        sides = bt["s"]
        t = [card_type(sides[0]["face"]), card_type(sides[1]["face"])]
        act = [sides[sd]["act"] if not sides[sd]["off"] else "" for sd in (0, 1)]
        win = [0, 0]
        lose = [0, 0]
        fought = self._fought_before(k)
        for sd in (0, 1):
            if sides[sd]["dawn"] or t[sd] == data.BIRD:
                lose[sd] = 1
            elif t[sd] == data.ROOSTER:
                ch = w["change"] if act[sd] == "rooster" else ""
                if ch in ("rooster_always_win", "rooster_always_win_alt"):
                    win[sd] = 1
                elif ch in ("rooster_always_lose", "rooster_always_lose_alt") or not ch:
                    lose[sd] = 1
            a = act[sd]
            if a == "snake" and fought:
                wins = self._wins_before(k, sd)
                if wins == 0:
                    lose[sd] = 1
                elif wins == len(fought):
                    win[sd] = 1
            elif a == "frog":  # "If anyone rolled me in an earlier battle, I always lose."
                for j in fought:
                    for side in w["b"][j]["s"]:
                        if side["face"] and card_type(side["face"]) == t[sd]:
                            lose[sd] = 1
        tigers = [sd for sd in (0, 1) if act[sd] == "tiger" and sides[sd]["toss"]]
        if act[0] == "tiger" and act[1] == "tiger":
            rule = self._opts()["two_tigers"]
            if rule == "nobody" or len(tigers) == 0:
                lose = [1, 1]
            else:
                says = set()
                for sd in tigers:
                    says.add(sd if sides[sd]["toss"] == 1 else 1 - sd)
                if len(says) == 1:
                    win[says.pop()] = 1
                else:
                    lose = [1, 1]
        elif tigers:
            sd = tigers[0]
            win[sd if sides[sd]["toss"] == 1 else 1 - sd] = 1
        g = bt["guesser"]
        if g >= 0 and t[1 - g] == bt["guess"]:
            win[g] = 1
        if w["rule"] == "no_ties" and t[0] == t[1]:
            win[0] = 1
            lose[1] = 1
        for sd in (0, 1):
            if win[sd] and lose[sd]:
                win[sd] = lose[sd] = 0
        if win[0] or win[1]:
            res = win[0] | win[1] << 1
        elif lose[0] or lose[1]:
            res = (0 if lose[0] else 1) | (0 if lose[1] else 2)
        else:
            sa = self._strong(k, 0)
            sd_ = self._strong(k, 1)
            published = self._opts()["battle_reading"] == "published"
            if sa and not sd_:
                res = 1
            elif sd_ and not sa:
                res = 2
            elif sa and sd_:
                res = 3 if published else 0
            else:
                res = 0 if published else 3
        if w["rule"] == "superhero_type":
            for sd in (0, 1):
                if t[sd] == w["pick"]:
                    res |= _bit(sd)
        return res

    # ---- the animals' moves (the move is known to be legal)

    def _do_copy(self, words):
        w = self.s["war"]
        side = w["b"][w["k"]]["s"][w["i"]]
        side["act"] = words[1]  # _step_act handles the copied action next

    def _reroll(self, j, sd):
        self._roll_side(j, sd, False)
        self._resettle(j)

    def _do_reroll(self, words):
        # The Dragon: "Reroll this battle or an earlier one."
        w = self.s["war"]
        sd = w["i"]
        if words[0] == "reroll":
            self._reroll(int(words[1]) - 1, sd)
        w["i"] = sd + 1

    def _do_look(self, words):
        # The Monkey: its owner looks at both dice of a later battle.
        w = self.s["war"]
        sd = w["i"]
        if words[0] == "look":
            owner = w["b"][w["k"]]["s"][sd]["own"]
            for side in w["b"][int(words[1]) - 1]["s"]:
                if side["set"] and not side["void"]:
                    side["know"] |= _bit(owner)
        w["i"] = sd + 1

    def _do_swap(self, words):
        # The Leopard: two of its owner's dice change places, revealed or not. A die moved
        # into a battle already fought is rolled there (no action); results of fought
        # battles are settled again.
        w = self.s["war"]
        sd = w["i"]
        k = w["k"]
        if words[0] == "swap":
            a, b = int(words[1]) - 1, int(words[2]) - 1
            ba, bb = w["b"][a], w["b"][b]
            ba["s"][sd], bb["s"][sd] = bb["s"][sd], ba["s"][sd]
            for j in (a, b):
                bt = w["b"][j]
                side = bt["s"][sd]
                if bt["done"] and not side["face"]:
                    self._roll_side(j, sd, False)
                if j < k:
                    self._resettle(j)
        w["i"] = sd + 1

    def _take_face(self, j, sd):
        w = self.s["war"]
        side = w["b"][j]["s"][sd]
        card = side["face"]
        side["face"] = ""
        side["act"] = ""
        side["toss"] = 0
        self._resettle(j)
        return card

    def _do_destroy(self, words):
        # The Bull: a revealed card of an earlier battle leaves the game.
        w = self.s["war"]
        sd = w["i"]
        if words[0] == "destroy":
            j = int(words[1][:-1]) - 1
            card = self._take_face(j, "ad".index(words[1][-1]))
            _insert(self.s["destroyed"], card)
        w["i"] = sd + 1

    def _do_draw(self, words):
        # The Red Panda: draw from the deck, or take a revealed card of an earlier battle.
        s = self.s
        w = s["war"]
        sd = w["i"]
        owner = w["b"][w["k"]]["s"][sd]["own"]
        if words[0] == "draw":
            if words[1] == "deck":
                card = self._draw_card()
            else:
                j = int(words[1][:-1]) - 1
                card = self._take_face(j, "ad".index(words[1][-1]))
            if card:
                _insert(s["hands"][owner], card)
        w["i"] = sd + 1
