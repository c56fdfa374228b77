"""Tossing Tiger, Rolling Dragon: the war machine.

One war at a time (`war["step"]`, see the model in `shared_rules.tossing_tiger`): who wages
war (the turns, Simulwars' pairing), how many dice may be announced, making the dice, then
for each battle the choices before the roll, the roll and the reveal (the actions come in
between, from `tossing_tiger_animals`), the result, the choices after it; at the end the
spoils, the claims, the cards kept and the next turn. A mixin of TigerState: its methods
read and change `self.s` and `self.rng`, and call the table's helpers TigerState defines
(`_decide`, `_ft`, `_opts`...) and the other mixins' methods through `self`.
"""

from shared_rules import secret_prng
from shared_rules import tossing_tiger_data as data
from shared_rules.tossing_tiger_options import (
    COPYABLE, MIN_PILE, MIN_PILE_TEAM, ON_PURPOSE_CHANGES, TEAM_LOW, WAR_PILE_END, _bit,
    _insert, _new_battle, _remove, _sorted_unique, card_type)


class WarMachine:
    """The turns and the steps of a war (mixed into TigerState)."""

    # ---- turns and pairing

    def _start_turn(self):
        s = self.s
        if self._ft():
            team = s["turn"] % 2
            if not self._team_numbers():
                # House rule: no number of dice both teams can follow: the game ends.
                s["end"] = "dice"
                s["phase"] = "over"
                s["who"] = -1
                return True
            return self._decide("fight", self._captain(team))
        if s["options"]["simulwars"]:
            if len(self._unpaired()) >= 2:
                return self._decide("fight", self._unpaired()[0])
            a, d, n = s["pairs"][s["pi"]]
            self._start_war(a, d, n)
            return False
        return self._decide("fight", s["active"])

    def _sitter(self):
        # Simulwars: with an odd player count the round's start player sits out.
        s = self.s
        return s["active"] if s["players"] % 2 else -1

    def _unpaired(self):
        s = self.s
        taken = set()
        for a, d, _n in s["pairs"]:
            taken.add(a)
            taken.add(d)
        out = []
        for i in range(s["players"]):
            p = (s["active"] + i) % s["players"]
            if p not in taken and p != self._sitter():
                out.append(p)
        return out

    # ---- feasibility of dice

    def _pile_min(self):
        return MIN_PILE_TEAM if self._ft() else MIN_PILE

    def _fight_numbers(self, a, d):
        # The numbers of dice the attacker may announce against d (base game, Simulwars):
        # the defender can make that many dice of 2 cards or more from their whole hand,
        # and so can the attacker, or the attacker can with a Dawn card in the first place.
        hands = self.s["hands"]
        ha = len(hands[a])
        hd = len(hands[d])
        rules = self._dawn_rules_in(hands[a]) if self._opts()["dawndojo"] else []
        out = []
        n = 1
        while 2 * n <= hd:
            if 2 * n <= ha or [r for r in rules if self._dawn_ok(r, n, ha - 1, [], [hd])]:
                out.append(n)
            n += 1
        # min_dice: at least that many dice, or as many as the hands can follow.
        least = min(self._opts()["min_dice"], out[-1]) if out else 0
        return [n for n in out if n >= least]

    # ---- starting a war

    def _start_war(self, a, d, n):
        s = self.s
        ft = self._ft()
        w = {
            "sides": [a, d], "n": n, "caps": [a, d],
            "dawn": "", "rule": "", "change": "", "pick": "", "needpick": 0,
            "b": [_new_battle() for _ in range(n)],
            "k": 0, "step": "build", "i": 0, "ret": "",
            "queue": [], "build": None,
            "extra": [], "minus": [], "bonus": 1, "nobonus": 0, "nowinner": 0,
            "overall": 0, "stopped": 0, "free": [0, 0], "guess": 0, "merge": 0,
            "talk": 0, "takes": 0, "loot": [[], []], "claims": [0, 0], "winners": 0,
        }
        s["war"] = w
        if ft:
            w["caps"] = [self._captain(a), self._captain(d)]
            for sd in (0, 1):
                members = self._team_members("AB"[w["sides"][sd]])
                cap = w["caps"][sd]
                at = members.index(cap)
                for j in range(len(members)):
                    w["queue"].append([members[(at + j) % len(members)], sd, "war"])
        else:
            w["queue"] = [[a, 0, "war"], [d, 1, "war"]]

    # ---- building dice

    def _slots_free(self, sd):
        w = self.s["war"]
        return [j for j in range(w["n"]) if not w["b"][j]["s"][sd]["set"]]

    def _step_build(self, w):
        if w["needpick"]:
            return self._decide("pick", w["caps"][0])
        b = w["build"]
        if b is not None:
            return self._decide("build", b["p"])
        if w["queue"]:
            p, sd, mode = w["queue"].pop(0)
            self._start_session(p, sd, mode)
            return False
        if w["ret"]:
            w["step"] = w["ret"]
            w["ret"] = ""
            return False
        w["step"] = "pre"
        w["i"] = 0
        return False

    def _start_session(self, p, sd, mode, slots=None, pool=None):
        # One player makes one or more dice. Every card of the pool must end in a die; the
        # dice each hold at least `m` cards; the player makes from `lo` to `hi` dice now and
        # must leave at least `left` dice' worth of cards for later stages.
        s = self.s
        w = s["war"]
        m = self._pile_min()
        if pool is None:
            pool = s["hands"][p]
            s["hands"][p] = []
        left = 0
        if mode == "rebuild":
            lo = hi = len(slots)
        elif mode == "stage":
            lo = hi = 1
            slots = [w["k"]]
            left = len([j for j in self._slots_free(sd) if j > w["k"]])
        elif self._ft():
            free = self._slots_free(sd)
            need = len(free)
            later = [q for q in w["queue"] if q[1] == sd and q[2] == "war"]
            caps = sum(len(s["hands"][q[0]]) // m for q in later)
            lo = max(1, need - caps)
            hi = min(len(pool) // m, need - len(later))
            slots = None
        else:
            slots = None
            lo = hi = len(self._slots_free(sd))
        w["build"] = {"p": p, "s": sd, "mode": mode, "pool": pool, "cur": [], "made": 0,
                      "lo": lo, "hi": hi, "m": m, "left": left, "slots": slots or []}
        self._build_auto()

    def _build_auto(self):
        # The last die of a session takes every card left; a session ends when its pool is
        # empty or its dice are made.
        w = self.s["war"]
        b = w["build"]
        if self._dawn_cards():  # the attacker may still play a Dawn card instead
            return
        if b["left"] == 0 and b["made"] == b["hi"] - 1 and b["hi"] >= 1 and b["lo"] <= b["hi"]:
            b["cur"] += b["pool"]
            b["pool"] = []
            self._close_pile()
        elif b["hi"] == 0:
            self._end_session()

    def _close_pile(self):
        w = self.s["war"]
        b = w["build"]
        sd = b["s"]
        if b["slots"]:
            j = b["slots"].pop(0)
        else:
            j = self._slots_free(sd)[0]
        side = w["b"][j]["s"][sd]
        side["pile"] = sorted(b["cur"])
        side["own"] = b["p"]
        side["know"] = _bit(b["p"])
        side["set"] = 1
        b["cur"] = []
        b["made"] += 1
        if not b["pool"] or (b["made"] == b["hi"] and b["left"] > 0):
            self._end_session()
        else:
            self._build_auto()

    def _end_session(self):
        s = self.s
        w = s["war"]
        b = w["build"]
        if b["pool"]:  # a stage leaves the rest in hand for the next stages
            s["hands"][b["p"]] = sorted(s["hands"][b["p"]] + b["pool"])
        w["build"] = None

    def _build_moves(self):
        w = self.s["war"]
        b = w["build"]
        pool, cur, m = b["pool"], b["cur"], b["m"]
        reserve = m * b["left"]
        moves = []
        after = len(pool) - 1
        still = max(0, b["lo"] - b["made"] - 1)
        if b["lo"] > b["hi"]:  # only the Dawn card makes these dice possible
            after = -1
        # after this card, the cards left must still fill this die and the dice to come
        if after >= max(0, m - len(cur) - 1) + m * still + reserve:
            for c in _sorted_unique(pool):
                moves.append("add " + c)
        if len(cur) >= m:
            if b["made"] + 1 < b["hi"] and len(pool) >= m + reserve:
                moves.append("next")
            elif b["made"] + 1 == b["hi"] and b["left"] > 0 and len(pool) >= reserve:
                moves.append("next")
        for c in self._dawn_cards():
            moves.append("dawn " + c)
        return sorted(moves)

    # ---- battles: before the roll

    def _step_pre(self, w):
        k = w["k"]
        if k >= w["n"] or w["stopped"]:
            self._stop_rest()
            w["step"] = "final"
            w["i"] = 0
            return False
        bt = w["b"][k]
        if bt["gone"]:
            w["k"] += 1
            return False
        if w.get("multi") and not (bt["s"][0]["set"] and bt["s"][1]["set"]):
            for sd in (0, 1):
                if not bt["s"][sd]["set"]:
                    w["queue"].append([w["sides"][sd] if not self._ft() else w["caps"][sd],
                                       sd, "stage"])
            w["step"] = "build"
            w["ret"] = "pre"
            return False
        i = w["i"]
        rule = w["rule"]
        if i == 0:
            w["i"] = 1
            if rule == "one_merge" and w["merge"] and self._merge_targets():
                return self._decide("merge", w["caps"][0])
            return False
        if i == 1:
            w["i"] = 2
            if rule == "guess" and w["guess"]:
                return self._decide("guess", w["caps"][0])
            return False
        if i in (2, 3):
            w["i"] = i + 1
            sd = i - 2
            if rule == "flee" and not bt["con"] & _bit(sd):
                return self._decide("flee", w["caps"][sd])
            return False
        w["step"] = "roll"
        return False

    def _stop_rest(self):
        # Battles not fought when the war stops are not part of it.
        w = self.s["war"]
        for bt in w["b"]:
            if bt["done"] != 2:
                bt["gone"] = 1
                bt["res"] = 0

    # ---- the roll

    def _roll_side(self, k, sd, regular):
        s = self.s
        w = s["war"]
        side = w["b"][k]["s"][sd]
        if side["void"] or side["dawn"]:
            side["act"] = ""
            return
        if side["face"]:
            _insert(side["pile"], side["face"])
            side["face"] = ""
        side["toss"] = 0
        side["off"] = 0
        side["act"] = ""
        if not side["pile"]:
            return
        i, self.rng = secret_prng.below(self.rng, len(side["pile"]))
        face = side["pile"].pop(i)
        side["face"] = face
        side["shown"] = face
        if regular:
            t = card_type(face)
            if t == data.ROOSTER:
                side["act"] = "rooster" if w["dawn"] else ""
            elif t in COPYABLE or t in ("chameleon", data.BIRD):
                side["act"] = t

    def _step_roll(self, w):
        k = w["k"]
        bt = w["b"][k]
        w["talk"] = 0
        for sd in (0, 1):
            self._roll_side(k, sd, True)
        bt["done"] = 1
        if bt["con"]:
            for sd in (0, 1):
                bt["s"][sd]["act"] = ""
        w["step"] = "reveal"
        w["i"] = 0
        return False

    def _step_reveal(self, w):
        # What holds from the reveal, before any action is handled. A Rooster whose Change
        # loses the battle on purpose decides now: "no actions trigger" then, not even the
        # attacker's, which would be handled first. A printed Turtle's cancel is no choice:
        # a cancelled action is never handled, whichever side the Turtle is on.
        k = w["k"]
        bt = w["b"][k]
        i = w["i"]
        if i < 2:
            side = bt["s"][i]
            if side["act"] == "rooster" and w["change"] in ON_PURPOSE_CHANGES \
                    and bt["s"][1 - i]["act"] != "turtle" and not bt["con"] \
                    and self._rooster_moves(k, i):
                return self._decide("rooster", side["own"])  # _do_rooster moves i on
            w["i"] = i + 1
            return False
        for sd in (0, 1):
            if bt["con"]:
                bt["s"][sd]["act"] = ""
            elif bt["s"][1 - sd]["act"] == "turtle":
                bt["s"][sd]["off"] = 1
        w["step"] = "act"
        w["i"] = 0
        return False

    # ---- results

    def _wins_before(self, k, sd):
        w = self.s["war"]
        return len([j for j in range(k) if not w["b"][j]["gone"] and w["b"][j]["done"] == 2
                    and w["b"][j]["res"] & _bit(sd)])

    def _fought_before(self, k):
        w = self.s["war"]
        return [j for j in range(k) if not w["b"][j]["gone"] and w["b"][j]["done"] == 2]

    def _settle(self, k):
        # Who won battle k, from the cards as they lie now. A battle settled earlier is
        # settled again (only it) when a card changes it.
        w = self.s["war"]
        bt = w["b"][k]
        bt["done"] = 2
        if bt["gone"]:
            bt["res"] = 0
            return
        sides = bt["s"]
        has = [bool(sides[0]["face"]), bool(sides[1]["face"])]
        if not (has[0] and has[1]):
            res = (1 if has[0] else 0) | (2 if has[1] else 0)
        elif bt["con"]:
            res = (0, 2, 1, 0)[bt["con"]]
        else:
            res = self._fight(k)
        pea = bt["pea"]
        if pea in (1, 2) and res not in (1, 2):
            res = pea
        bt["res"] = res

    def _step_settle(self, w):
        self._settle(w["k"])
        w["step"] = "post"
        w["i"] = 0
        return False

    def _resettle(self, j):
        w = self.s["war"]
        if w["b"][j]["done"] == 2:
            self._settle(j)

    # ---- after a battle

    def _step_post(self, w):
        k = w["k"]
        i = w["i"]
        if i < 2:
            w["i"] = i + 1
            if w["free"][i] and not w["stopped"] and self._reroll_targets(k, i, k):
                return self._decide("free", w["caps"][i])
            return False
        if not w["stopped"] and w["rule"] == "early_stop":
            fought = self._fought_before(k + 1)
            for sd in (0, 1):
                if len(fought) - self._wins_before(k + 1, sd) >= 2:
                    w["stopped"] = 1
        w["k"] = k + 1
        w["step"] = "pre"
        w["i"] = 0
        return False

    # ---- the end of the war

    def _last_fought(self):
        w = self.s["war"]
        f = self._fought_before(w["n"])
        return f[-1] if f else -1

    def _step_final(self, w):
        i = w["i"]
        if i < 2:
            w["i"] = i + 1
            if w["rule"] == "final_reroll":
                j = self._last_fought()
                if j >= 0 and w["b"][j]["res"] & _bit(i) and self._reroll_targets(
                        w["n"] - 1, i, w["n"] - 1):
                    return self._decide("free", w["caps"][i])
            return False
        if i < 4:
            w["i"] = i + 1
            sd = i - 2
            if w["rule"] == "bait_and_switch" and self._switch_moves(sd):
                return self._decide("switch", w["caps"][sd])
            return False
        self._spoils()
        w["step"] = "claim"
        w["i"] = 0
        return False

    def _add_loot(self, sd, card, know):
        w = self.s["war"]
        lots = w["loot"][sd]
        for lot in lots:
            if lot["know"] == know:
                _insert(lot["cards"], card)
                return
        lots.append({"cards": [card], "know": know})
        lots.sort(key=lambda lot: -lot["know"])

    def _grab(self, sd, j, count):
        # Side sd takes `count` cards of the opposing die of battle j: its revealed card
        # first, then random cards of the die.
        s = self.s
        w = s["war"]
        side = w["b"][j]["s"][1 - sd]
        team = self._side_mask(sd)
        for _ in range(count):
            if side["face"]:
                self._add_loot(sd, side["face"], self._all_mask())
                side["face"] = ""
            elif side["pile"]:
                i, self.rng = secret_prng.below(self.rng, len(side["pile"]))
                self._add_loot(sd, side["pile"].pop(i), side["know"] | team)

    def _spoils(self):
        w = self.s["war"]
        for j in range(w["n"]):
            bt = w["b"][j]
            if bt["gone"] or bt["done"] != 2:
                continue
            for sd in (0, 1):
                if bt["res"] & _bit(sd):
                    cnt = bt["cnt"][sd]
                    self._grab(sd, j, 1 if cnt < 0 else cnt)
        wins = [self._wins_before(w["n"], sd) for sd in (0, 1)]
        # "you won the majority of battles": more than half of the battles fought (option
        # war_winner=more: more than the opponent). Two majorities of one size: a tie.
        fought = len(self._fought_before(w["n"]))
        lead = 0 if wins[0] > wins[1] else 1
        majority = self._opts()["war_winner"] == "more" or 2 * wins[lead] > fought
        if w["overall"]:
            winners = w["overall"]
        elif w["nowinner"]:
            winners = 0
        elif wins[0] != wins[1]:
            winners = _bit(lead) if majority else 0
        elif w["rule"] == "tied_winner":
            winners = 3
        else:
            winners = 0
        w["winners"] = winners
        if not w["nobonus"]:
            for sd in (0, 1):
                if winners & _bit(sd):
                    w["claims"][sd] = w["bonus"]

    def _claim_targets(self, sd):
        w = self.s["war"]
        out = []
        for j in range(w["n"]):
            bt = w["b"][j]
            side = bt["s"][1 - sd]
            if not bt["gone"] and bt["done"] == 2 and bt["res"] & _bit(sd) \
                    and (side["pile"] or side["face"]):
                out.append(j)
        return out

    def _step_claim(self, w):
        i = w["i"]
        if i >= 2:
            w["step"] = "keep"
            w["i"] = 0
            return False
        targets = self._claim_targets(i)
        if w["claims"][i] <= 0 or not targets:
            w["claims"][i] = 0
            w["i"] = i + 1
            return False
        if len(targets) <= w["claims"][i]:
            for j in targets:
                self._claim(i, j)
            w["claims"][i] = 0
            return False
        return self._decide("claim", w["caps"][i])

    def _claim(self, sd, j):
        w = self.s["war"]
        side = w["b"][j]["s"][1 - sd]
        count = len(side["pile"]) + (1 if side["face"] else 0)
        self._grab(sd, j, count)
        w["claims"][sd] -= 1

    def _step_keep(self, w):
        i = w["i"]
        if i >= 2:
            self._leftovers()
            w["step"] = "tribute"
            w["i"] = 0
            return False
        if not w["loot"][i]:
            w["i"] = i + 1
            return False
        return self._decide("keep", w["caps"][i])

    def _leftovers(self):
        s = self.s
        w = s["war"]
        for bt in w["b"]:
            for side in bt["s"]:
                cards = side["pile"] + ([side["face"]] if side["face"] else [])
                side["pile"] = []
                side["face"] = ""
                for c in cards:
                    if s["options"]["leftovers"] == "owner":
                        _insert(s["hands"][side["own"]], c)
                    else:
                        self._discard(c)

    def _step_tribute(self, w):
        # Fight Together: "After every war, the loser must place one card to the side.
        # (If nobody wins, both are losers.)"
        if self._ft():
            i = w["i"]
            if i < 2:
                w["i"] = i + 1
                if not w["winners"] & _bit(i):
                    p = self._tribute_payer(w["sides"][i])
                    if p >= 0:
                        return self._decide("tribute", p)
                return False
        self._finish_war()
        return False

    def _finish_war(self):
        s = self.s
        s["last"] = s["war"]  # kept for renderers: its dice are empty, everything is public
        s["war"] = None
        s["turn"] += 1
        n = s["players"]
        o = s["options"]
        if o["fight_together"]:
            if [p for p in range(n) if len(s["hands"][p]) <= TEAM_LOW]:
                s["end"] = "cards"
            elif len(s["warpile"]) >= WAR_PILE_END:
                s["end"] = "warpile"
        elif o["simulwars"]:
            s["pi"] += 1
            if s["pi"] >= len(s["pairs"]):
                if [p for p in range(n) if len(s["hands"][p]) < 2]:
                    s["end"] = "cards"
                s["pairs"] = []
                s["pi"] = 0
                s["active"] = (s["active"] + 1) % n
                s["round"] += 1
        else:
            if [p for p in range(n) if len(s["hands"][p]) < 2]:
                s["end"] = "cards"
            s["active"] = (s["active"] + 1) % n
        if not s["end"] and s["turn"] >= o["max_turns"] and not (o["simulwars"] and s["pairs"]):
            s["end"] = "turns"
        if s["end"]:
            s["phase"] = "over"
            s["who"] = -1

    # ---- the war's moves (the move is known to be legal)

    def _do_fight(self, words):
        s = self.s
        if self._ft():
            att = s["turn"] % 2
            self._start_war(att, 1 - att, int(words[1]))
            return
        me = s["who"]
        p, n = int(words[1]), int(words[2])
        if self._opts()["simulwars"]:
            s["pairs"].append([me, p, n])  # the wars start once everyone is paired
            return
        self._start_war(me, p, n)

    def _do_build(self, words):
        w = self.s["war"]
        b = w["build"]
        if words[0] == "add":
            _remove(b["pool"], words[1])
            b["cur"].append(words[1])
            if not b["pool"]:
                self._close_pile()
        elif words[0] == "next":
            self._close_pile()
        else:
            self._play_dawn(words[1])

    def _do_claim(self, words):
        w = self.s["war"]
        self._claim(w["i"], int(words[1]) - 1)

    def _do_keep(self, words):
        s = self.s
        w = s["war"]
        lots = w["loot"][w["i"]]
        card = words[1]
        for lot in lots:
            if card in lot["cards"]:
                _remove(lot["cards"], card)
                break
        w["loot"][w["i"]] = [lot for lot in lots if lot["cards"]]
        if words[0] == "keep":
            p = int(words[2]) if len(words) == 3 else w["caps"][w["i"]]
            _insert(s["hands"][p], card)
        else:
            self._discard(card)
