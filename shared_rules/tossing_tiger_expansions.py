"""Tossing Tiger, Rolling Dragon: the expansions' own rules.

Fight Together (two teams, every player in every war: the captains, the numbers of dice a
team may announce, the tribute to the war pile) and Dawndojo (the Dawn card the attacker
may play first, its Dawn rule for the whole war, and the Rooster Change its Roosters carry
when rolled). More Animals! adds only cards, whose actions are in
`shared_rules.tossing_tiger_animals`. A mixin of TigerState (see
`shared_rules.tossing_tiger_war` for how the mixins share the state).
"""

from shared_rules import secret_prng
from shared_rules import tossing_tiger_data as data
from shared_rules.tossing_tiger_options import (
    MIN_PILE_TEAM, ON_PURPOSE_CHANGES, TYPE_PICK_RULES, _bit, _insert, _new_side, _remove,
    _sorted_unique, card_type)


class Expansions:
    """Fight Together and Dawndojo (mixed into TigerState)."""

    # ---------------------------------------------------------------- Fight Together

    def _captain(self, team):
        # Fight Together: each team's captain this war (the player who speaks for the team
        # where one decision is needed), rotating through the team's members.
        members = self._team_members("AB"[team])
        return members[(self.s["turn"] // 2) % len(members)]

    def _team_caps(self, team, captain_dawn=False):
        # Fight Together: (members, most dice each member can make) for a team.
        members = self._team_members("AB"[team])
        cap = self._captain(team)
        caps = []
        for p in members:
            h = len(self.s["hands"][p]) - (1 if captain_dawn and p == cap else 0)
            caps.append(h // MIN_PILE_TEAM)
        return members, caps

    def _team_numbers(self):
        # Fight Together: the numbers the attacking team's captain may announce.
        s = self.s
        att = s["turn"] % 2
        ma, ca = self._team_caps(att)
        md, cd = self._team_caps(1 - att)
        cap = self._captain(att)
        rules = self._dawn_rules_in(s["hands"][cap]) if self._opts()["dawndojo"] else []
        rest = len(s["hands"][cap]) - 1
        others = [len(s["hands"][p]) for p in ma if p != cap]
        defenders = [len(s["hands"][p]) for p in md]
        out = []
        for n in range(len(ma), sum(cd) + 1):
            if n < len(md):
                continue
            ok = n <= sum(ca)
            if not ok:
                ok = bool([r for r in rules if self._dawn_ok(r, n, rest, others, defenders)])
            if ok:
                out.append(n)
        # "This number must be greater than the number of players on their team" -- unless
        # no such number can be followed: then (house rule) the team's size will do.
        strict = [n for n in out if n > len(ma)]
        return strict or out[:1]

    def _tribute_payer(self, team):
        s = self.s
        members = self._team_members("AB"[team])
        best = -1
        for p in members:
            if s["hands"][p] and (best < 0 or len(s["hands"][p]) > len(s["hands"][best])):
                best = p
        return best

    def _do_tribute(self, words):
        s = self.s
        _remove(s["hands"][s["who"]], words[1])
        _insert(s["warpile"], words[1])

    # ---------------------------------------------------------------- Dawndojo

    def _dawn_ok(self, rule, n, rest, others, defenders):
        # Can both sides make their dice when the attacker plays a Dawn card with `rule` in
        # the first place of n? rest: the attacker's (captain's) other cards; others: the
        # hand sizes of the attacker's teammates; defenders: the defenders' hand sizes.
        m = self._pile_min()
        if n < 2:
            return False
        dn = n - 1 if rule == "one_less" else n
        if self._ft():
            caps = [rest // m] + [h // m for h in others]
            dcaps = [h // m for h in defenders]
            return (min(caps) >= 1 and len(caps) <= n - 1 <= sum(caps)
                    and len(dcaps) <= dn <= sum(dcaps))
        return m * (n - 1) <= rest and dn >= 1 and m * dn <= defenders[0]

    def _dawn_rules_in(self, cards):
        return [self._c["roosters"][int(c[7:]) - 1][0] for c in _sorted_unique(cards)
                if c.startswith(data.ROOSTER)]

    def _dawn_cards(self):
        # Roosters the attacker may play as the Dawn card: at the very start of making the
        # attacker's dice, if the rest of the cards can still make the other dice.
        s = self.s
        w = s["war"]
        b = w["build"]
        if (not self._opts()["dawndojo"] or w["dawn"] or b["s"] != 0 or b["mode"] != "war"
                or b["p"] != w["caps"][0] or b["made"] or b["cur"] or w["b"][0]["s"][0]["set"]
                or w["n"] < 2):
            return []
        roosters = _sorted_unique(c for c in b["pool"] if c.startswith("rooster"))
        if not roosters:
            return []
        out = []
        for c in roosters:
            rule = self._c["roosters"][int(c[7:]) - 1][0]
            if self._dawn_fits(rule):
                out.append(c)
        return out

    def _dawn_fits(self, rule):
        # With the Dawn card in the first place, can both sides still make their dice?
        s = self.s
        w = s["war"]
        b = w["build"]
        others = [len(s["hands"][q[0]]) for q in w["queue"] if q[1] == 0]
        if self._ft():
            defenders = [len(s["hands"][p]) for p in self._team_members("AB"[w["sides"][1]])]
        else:
            defenders = [len(s["hands"][w["sides"][1]])]
        return self._dawn_ok(rule, w["n"], len(b["pool"]) - 1, others, defenders)

    def _play_dawn(self, card):
        s = self.s
        w = s["war"]
        b = w["build"]
        _remove(b["pool"], card)
        rule, change = self._c["roosters"][int(card[7:]) - 1]
        side = w["b"][0]["s"][0]
        side["face"] = card
        side["shown"] = card
        side["own"] = b["p"]
        side["know"] = self._all_mask()
        side["set"] = 1
        side["dawn"] = 1
        w["dawn"] = card
        w["rule"] = rule
        w["change"] = change
        if rule == "one_less":
            last = w["b"][w["n"] - 1]["s"][1]
            last["set"] = 1
            last["void"] = 1
        elif rule == "one_reroll":
            w["free"] = [1, 1]
        elif rule == "guess":
            w["guess"] = 1
        elif rule == "one_merge":
            w["merge"] = 1
        elif rule == "no_winner":
            w["nowinner"] = 1
        if rule in TYPE_PICK_RULES:
            w["needpick"] = 1
        if rule == "multi_stage" and not self._ft():
            # Dice are made one battle at a time: put the cards back, make them per stage.
            s["hands"][b["p"]] = sorted(s["hands"][b["p"]] + b["pool"])
            w["build"] = None
            w["queue"] = []
            w["multi"] = 1
            return
        # the session goes on with one die fewer to make
        if self._ft():
            later = [q for q in w["queue"] if q[1] == 0]
            caps = sum(len(s["hands"][q[0]]) // b["m"] for q in later)
            need = len(self._slots_free(0))
            b["lo"] = max(1, need - caps)
            b["hi"] = min(len(b["pool"]) // b["m"], need - len(later))
        else:
            b["lo"] = b["hi"] = len(self._slots_free(0))
        self._build_auto()

    # ---- the Dawn rules in the battles

    def _merge_targets(self):
        w = self.s["war"]
        k = w["k"]
        if w["b"][k]["s"][1]["void"]:
            return []
        out = []
        for j in range(k + 1, w["n"]):
            bt = w["b"][j]
            side = bt["s"][1]
            if not bt["gone"] and side["set"] and not side["void"]:
                out.append(j)
        return out

    def _switch_moves(self, sd):
        w = self.s["war"]
        fought = self._fought_before(w["n"])
        won = [j for j in fought if w["b"][j]["res"] & _bit(sd)]
        other = [j for j in fought if not w["b"][j]["res"] & _bit(sd)]
        return ["switch %d %d" % (a + 1, b + 1) for a in won for b in other]

    def _do_pick(self, words):
        w = self.s["war"]
        if w["step"] == "build":
            w["pick"] = words[1]
            w["needpick"] = 0
            return
        # Rooster Change "pity": the picked type becomes a strength of your later animals.
        if words[0] == "pick":
            w["extra"].append([w["k"], w["i"], words[1]])
        w["i"] += 1

    def _do_merge(self, words):
        w = self.s["war"]
        w["i"] = 1
        if words[0] == "pass":
            return
        w["merge"] = 0
        k = w["k"]
        j = int(words[1]) - 1
        src = w["b"][j]["s"][1]
        dst = w["b"][k]["s"][1]
        cards = src["pile"] + ([src["face"]] if src["face"] else [])
        dst["pile"] = sorted(dst["pile"] + cards)
        # Who knew both dice knows the merged one; the suppliers, who merge it, see it.
        dst["know"] = (dst["know"] & src["know"]) | _bit(dst["own"]) | _bit(src["own"])
        src["pile"] = []
        src["face"] = ""
        src["void"] = 1
        src["own"] = -1
        src["know"] = 0

    def _do_guess(self, words):
        w = self.s["war"]
        if words[0] == "guess":
            w["guess"] = 0
            bt = w["b"][w["k"]]
            bt["guess"] = words[1]
            bt["guesser"] = 0

    def _do_flee(self, words):
        w = self.s["war"]
        if words[0] == "flee":
            sd = w["i"] - 3
            w["b"][w["k"]]["con"] |= _bit(sd)
            w["nobonus"] = 1

    def _do_free(self, words):
        # A free reroll (Dawn rules one_reroll and final_reroll): i was moved on already.
        w = self.s["war"]
        sd = w["i"] - 1
        if words[0] == "reroll":
            if w["step"] == "post":
                w["free"][sd] = 0
            self._reroll(int(words[1]) - 1, sd)

    def _do_switch(self, words):
        w = self.s["war"]
        sd = w["i"] - 3
        if words[0] == "switch":
            a, b = int(words[1]) - 1, int(words[2]) - 1
            w["b"][a]["res"] &= ~_bit(sd)
            w["b"][b]["res"] |= _bit(sd)

    # ---- the Rooster Changes

    def _rooster_action(self, k, i):
        # The Rooster Change of this war's Dawn card, applied to a Rooster revealed by a
        # regular roll. Returns True when its owner must decide.
        w = self.s["war"]
        bt = w["b"][k]
        side = bt["s"][i]
        other = bt["s"][1 - i]
        owner = side["own"]
        ch = w["change"]
        if ch == "rooster_always_win":
            # "if the opponent rolls this card too, the war instantly ends and they win
            # (overall)": handled attacker first, so two Roosters give the defender the war.
            if other["face"] and card_type(other["face"]) == data.ROOSTER:
                w["overall"] = _bit(1 - i)
                w["stopped"] = 1
        elif ch == "rooster_always_win_alt":
            if other["face"]:
                w["minus"].append([k, card_type(other["face"])])
        elif ch == "rooster_disable":
            if other["face"]:
                w["extra"].append([k, 2, card_type(other["face"])])
        elif ch == "rooster_count":
            bt["cnt"][i] = self._rooster_count(k)
        elif ch == "rooster_multi_bonus":
            w["bonus"] *= self._wins_before(k, i)
        elif ch == "rooster_always_lose_alt":
            # (a decision of several moves: `takes` counts them, reset when it is over)
            if self._take_moves(k, i, owner):
                return self._decide("take", owner)
        elif ch == "rooster_pity_type":
            if self._lost_all_before(k, i):
                return self._decide("pick", owner)
        elif ch in ON_PURPOSE_CHANGES:
            pass  # decided at the reveal (_step_reveal)
        elif self._rooster_moves(k, i):
            return self._decide("rooster", owner)
        return False

    def _rooster_count(self, k):
        w = self.s["war"]
        n = 0
        for j in range(k):
            bt = w["b"][j]
            if bt["gone"] or bt["done"] != 2:
                continue
            for side in bt["s"]:
                if side["face"] and card_type(side["face"]) == data.ROOSTER:
                    n += 1
        return n

    def _lost_all_before(self, k, sd):
        fought = self._fought_before(k)
        return bool(fought) and self._wins_before(k, sd) == 0

    def _take_moves(self, k, sd, owner):
        w = self.s["war"]
        if w["takes"] >= 3:
            return []
        out = []
        for j in range(k + 1, w["n"]):
            bt = w["b"][j]
            side = bt["s"][sd]
            if bt["gone"] or side["own"] != owner:
                continue
            for c in _sorted_unique(side["pile"]):
                out.append("take %d %s" % (j + 1, c))
        return out

    def _rooster_moves(self, k, sd):
        w = self.s["war"]
        ch = w["change"]
        out = []
        if ch == "rooster_always_lose":
            out.append("stop")
            for j in self._fought_before(k):
                out.append("remove %d" % (j + 1))
        elif ch == "rooster_insta_end":
            out.append("give")
        elif ch == "rooster_concede":
            out.append("concede")
        elif ch == "rooster_skip":
            if [j for j in range(k + 1, w["n"]) if not w["b"][j]["gone"]]:
                out.append("retreat")
        elif ch == "rooster_change":
            if self._rebuild_slots(k, sd, w["b"][k]["s"][sd]["own"]):
                out.append("rebuild")
        elif ch == "rooster_steal":
            if self._rooster_count(k) > 3:
                for j in range(w["n"]):
                    bt = w["b"][j]
                    side = bt["s"][1 - sd]
                    if j != k and not bt["gone"] and (side["face"] or side["pile"]):
                        out.append("steal %d" % (j + 1))
        elif ch == "rooster_change_bonus":
            out += ["bonus 1", "bonus 2", "bonus 3", "bonus 4"]
        return out

    def _rebuild_slots(self, k, sd, owner):
        w = self.s["war"]
        out = []
        for j in range(k + 1, w["n"]):
            bt = w["b"][j]
            side = bt["s"][sd]
            if not bt["gone"] and side["set"] and not side["void"] and not side["dawn"] \
                    and side["own"] == owner:
                out.append(j)
        return out

    def _do_rooster(self, words):
        s = self.s
        w = s["war"]
        k = w["k"]
        sd = w["i"]
        bt = w["b"][k]
        side = bt["s"][sd]
        v = words[0]
        w["i"] = sd + 1
        if v == "stop":
            w["stopped"] = 1
        elif v == "remove":
            j = int(words[1]) - 1
            w["b"][j]["gone"] = 1
            w["b"][j]["res"] = 0
        elif v == "give":
            # The Rooster's die goes to the opponent (as spoils); the war stops, no winner.
            cards = side["pile"] + ([side["face"]] if side["face"] else [])
            for c in cards:
                know = self._all_mask() if c == side["face"] else side["know"] | self._side_mask(1 - sd)
                self._add_loot(1 - sd, c, know)
            side["pile"] = []
            side["face"] = ""
            bt["gone"] = 1
            w["stopped"] = 1
            w["nowinner"] = 1
        elif v == "concede":
            bt["con"] |= _bit(sd)
            w["nobonus"] = 1
        elif v == "retreat":
            j = k + 1
            while w["b"][j]["gone"]:
                j += 1
            w["b"][j]["gone"] = 1
        elif v == "rebuild":
            bt["con"] |= _bit(sd)
            owner = side["own"]
            slots = self._rebuild_slots(k, sd, owner)
            pool = []
            for j in slots:
                t = w["b"][j]["s"][sd]
                pool += t["pile"] + ([t["face"]] if t["face"] else [])
                w["b"][j]["s"][sd] = _new_side()
            self._start_session(owner, sd, "rebuild", slots, sorted(pool))
            w["ret"] = w["step"]
            w["step"] = "build"
        elif v == "steal":
            j = int(words[1]) - 1
            target = w["b"][j]["s"][1 - sd]
            if target["face"]:
                card = self._take_face(j, 1 - sd)
            else:
                i, self.rng = secret_prng.below(self.rng, len(target["pile"]))
                card = target["pile"].pop(i)
            _insert(s["hands"][side["own"]], card)
        elif v == "bonus":
            w["bonus"] = int(words[1])

    def _do_take(self, words):
        # Rooster Change: take up to 3 cards of your later dice back into your hand.
        s = self.s
        w = s["war"]
        sd = w["i"]
        if words[0] == "take":
            j = int(words[1]) - 1
            side = w["b"][j]["s"][sd]
            _remove(side["pile"], words[2])
            _insert(s["hands"][side["own"]], words[2])
            w["takes"] += 1
        if words[0] == "pass" or not self._take_moves(w["k"], sd, w["b"][w["k"]]["s"][sd]["own"]):
            w["takes"] = 0
            w["i"] = sd + 1
