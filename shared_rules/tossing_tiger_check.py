"""Tossing Tiger, Rolling Dragon: checking a state read from outside.

`from_json()` and `determinize()` (in `shared_rules.tossing_tiger`) take a state from
untrusted text: every field is checked here (its type, its range, that the parts of a war
fit together, that every card of the box lies in exactly one place) before a TigerState is
made of it, and the first fault found is raised as BadPosition, naming the field.
"""

from shared_rules import secret_prng
from shared_rules import tossing_tiger_data as data
from shared_rules.errors import BadPosition
from shared_rules.tossing_tiger_options import (
    COPYABLE, MAX_TURNS_LIMIT, MIN_PILE, MIN_PILE_TEAM, PHASE_HINTS, WAR_STEPS, _check_options,
    _copy, _types_in, deck_of)

_TOP_KEYS = ("active", "discard", "destroyed", "draw", "end", "format", "game", "hands",
             "last", "options", "pairs", "phase", "pi", "players", "rng", "round", "turn",
             "war", "warpile", "who")
_WAR_KEYS = ("b", "bonus", "build", "caps", "change", "claims", "dawn", "extra", "free",
             "guess", "i", "k", "loot", "merge", "minus", "n", "needpick", "nobonus",
             "nowinner", "overall", "pick", "queue", "ret", "rule", "sides", "step", "stopped",
             "takes", "talk", "winners")
_WAR_OPTIONAL = ("multi",)
_SIDE_KEYS = ("act", "dawn", "face", "know", "off", "own", "pile", "set", "shown", "toss",
              "void")
_BATTLE_KEYS = ("cnt", "con", "done", "gone", "guess", "guesser", "pea", "res", "s")
_BUILD_KEYS = ("cur", "hi", "left", "lo", "m", "made", "mode", "p", "pool", "s", "slots")
_ENDS = ("", "cards", "warpile", "dice", "turns")


def _need(cond, what):
    if not cond:
        raise BadPosition(what)


def _int(v, lo, hi, what):
    _need(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi,
          "%s must be a whole number from %d to %d, not %r" % (what, lo, hi, v))
    return v


def _str(v, allowed, what):
    _need(isinstance(v, str) and v in allowed, "%s must be one of %s, not %r"
          % (what, ", ".join(repr(a) for a in allowed), v))
    return v


def _keys(d, keys, what, optional=()):
    _need(isinstance(d, dict), "%s must be an object" % what)
    missing = [k for k in keys if k not in d]
    _need(not missing, "%s lacks the fields %s" % (what, ", ".join(missing)))
    extra = [k for k in d if k not in keys and k not in optional]
    _need(not extra, "%s has unknown fields %s" % (what, ", ".join(sorted(extra))))


def _cards(v, names, what):
    _need(isinstance(v, list) and all(isinstance(c, str) and c in names for c in v),
          "%s must be a list of card names of this game" % what)
    _need(v == sorted(v), "%s must be sorted" % what)
    return v


def _check_war(w, s, names, types):
    n_players = s["players"]
    all_mask = (1 << n_players) - 1
    _keys(w, _WAR_KEYS, "field 'war'", _WAR_OPTIONAL)
    n = _int(w["n"], 1, 60, "war.n")
    ft = s["options"]["fight_together"]
    for key in ("sides", "caps", "free", "claims"):
        _need(isinstance(w[key], list) and len(w[key]) == 2, "war.%s must hold 2 numbers" % key)
    for sd in (0, 1):
        _int(w["sides"][sd], 0, 1 if ft else n_players - 1, "war.sides")
        _int(w["caps"][sd], 0, n_players - 1, "war.caps")
        _int(w["free"][sd], 0, 1, "war.free")
        _int(w["claims"][sd], 0, 4 * n, "war.claims")
    _need(w["sides"][0] != w["sides"][1], "war.sides must be two different sides")
    _need(isinstance(w["b"], list) and len(w["b"]) == n, "war.b must hold n battles")
    for bt in w["b"]:
        _keys(bt, _BATTLE_KEYS, "a battle")
        _int(bt["done"], 0, 2, "battle.done")
        _int(bt["gone"], 0, 1, "battle.gone")
        _int(bt["res"], 0, 3, "battle.res")
        _int(bt["pea"], 0, 3, "battle.pea")
        _int(bt["con"], 0, 3, "battle.con")
        _int(bt["guesser"], -1, 1, "battle.guesser")
        _str(bt["guess"], [""] + types, "battle.guess")
        _need(isinstance(bt["cnt"], list) and len(bt["cnt"]) == 2, "battle.cnt holds 2 numbers")
        for c in bt["cnt"]:
            _int(c, -1, 60, "battle.cnt")
        _need(isinstance(bt["s"], list) and len(bt["s"]) == 2, "a battle has 2 sides")
        for side in bt["s"]:
            _keys(side, _SIDE_KEYS, "a battle side")
            _cards(side["pile"], names, "a die")
            _str(side["face"], [""] + names, "a face")
            _str(side["shown"], [""] + names, "side.shown")
            _int(side["own"], -1, n_players - 1, "side.own")
            _int(side["know"], 0, all_mask, "side.know")
            for key in ("set", "void", "dawn", "off"):
                _int(side[key], 0, 1, "side." + key)
            _int(side["toss"], 0, 2, "side.toss")
            _str(side["act"], [""] + list(COPYABLE) + ["chameleon", "bird", "rooster"], "side.act")
            _need(side["own"] >= 0 or not (side["pile"] or side["face"]) or side["dawn"],
                  "a die with cards must have an owner")
    _int(w["k"], 0, n, "war.k")
    _int(w["i"], 0, 4, "war.i")
    _str(w["step"], list(WAR_STEPS), "war.step")
    _str(w["ret"], ["", "pre", "reveal"], "war.ret")
    _str(w["dawn"], [""] + [c for c in names if c.startswith("rooster")], "war.dawn")
    _str(w["rule"], [""] + list(data.DAWN_KEYS), "war.rule")
    _str(w["change"], [""] + list(data.CHANGE_KEYS), "war.change")
    _str(w["pick"], [""] + types, "war.pick")
    for key in ("needpick", "nobonus", "nowinner", "stopped", "guess", "merge"):
        _int(w[key], 0, 1, "war." + key)
    _int(w["overall"], 0, 3, "war.overall")
    _int(w["winners"], 0, 3, "war.winners")
    _int(w["talk"], 0, 3, "war.talk")
    _int(w["takes"], 0, 3, "war.takes")
    _int(w["bonus"], 0, 4 * n, "war.bonus")
    if "multi" in w:
        _int(w["multi"], 1, 1, "war.multi")
    _need(isinstance(w["queue"], list), "war.queue must be a list")
    for q in w["queue"]:
        _need(isinstance(q, list) and len(q) == 3, "war.queue holds [player, side, mode]")
        _int(q[0], 0, n_players - 1, "war.queue player")
        _int(q[1], 0, 1, "war.queue side")
        _str(q[2], ["war", "stage"], "war.queue mode")
    _need(isinstance(w["extra"], list) and isinstance(w["minus"], list),
          "war.extra and war.minus must be lists")
    for e in w["extra"]:
        _need(isinstance(e, list) and len(e) == 3, "war.extra holds [battle, side, type]")
        _int(e[0], 0, n - 1, "war.extra battle")
        _int(e[1], 0, 2, "war.extra side")
        _str(e[2], types, "war.extra type")
    for e in w["minus"]:
        _need(isinstance(e, list) and len(e) == 2, "war.minus holds [battle, type]")
        _int(e[0], 0, n - 1, "war.minus battle")
        _str(e[1], types + [data.ROOSTER, data.BIRD], "war.minus type")
    b = w["build"]
    if b is not None:
        _keys(b, _BUILD_KEYS, "war.build")
        _int(b["p"], 0, n_players - 1, "build.p")
        _int(b["s"], 0, 1, "build.s")
        _str(b["mode"], ["war", "stage", "rebuild"], "build.mode")
        _cards(b["pool"], names, "build.pool")
        _need(isinstance(b["cur"], list) and all(c in names for c in b["cur"]),
              "build.cur must be a list of card names")
        for key in ("made", "lo", "hi", "left"):
            _int(b[key], 0, 60, "build." + key)
        _int(b["m"], MIN_PILE, MIN_PILE_TEAM, "build.m")
        _need(isinstance(b["slots"], list), "build.slots must be a list")
        for j in b["slots"]:
            _int(j, 0, n - 1, "build.slots")
    _check_war_flow(w, s)
    _need(isinstance(w["loot"], list) and len(w["loot"]) == 2, "war.loot holds 2 lists")
    for lots in w["loot"]:
        _need(isinstance(lots, list), "war.loot holds lists of lots")
        for lot in lots:
            _keys(lot, ("cards", "know"), "a lot of spoils")
            _cards(lot["cards"], names, "a lot of spoils")
            _int(lot["know"], 0, all_mask, "lot.know")


def _check_war_flow(w, s):
    # The parts of a war must fit together: who makes which dice, which places are free.
    ft = s["options"]["fight_together"]
    teams = s["options"]["teams"]
    n = w["n"]

    def on_side(p, sd):
        return teams[p] == "AB"[w["sides"][sd]] if ft else p == w["sides"][sd]

    for sd in (0, 1):
        _need(on_side(w["caps"][sd], sd), "war.caps must be players of their side")
    for j, bt in enumerate(w["b"]):
        for sd in (0, 1):
            side = bt["s"][sd]
            if not side["set"]:
                _need(not side["pile"] and not side["face"] and side["own"] == -1
                      and not side["void"] and not side["dawn"] and bt["done"] == 0,
                      "battle %d: a place not yet filled holds nothing" % (j + 1))
            elif not side["void"]:
                _need(side["own"] >= 0 and on_side(side["own"], sd),
                      "battle %d: a die belongs to a player of its side" % (j + 1))
            else:
                _need(not side["pile"] and not side["face"],
                      "battle %d: an empty spot holds no card" % (j + 1))
            _need(not side["dawn"] or (j == 0 and sd == 0 and side["face"] in (w["dawn"], "")),
                  "battle %d: only the first attacking place holds the Dawn card" % (j + 1))
    for q in w["queue"]:
        _need(on_side(q[0], q[1]), "war.queue: a maker must be on the side they make for")
        _need(q[2] == "war" or "multi" in w, "war.queue: stages only with multi_stage")
    if ft:
        order = []  # each team's members from its captain on, attackers first
        for sd in (0, 1):
            members = [p for p in range(s["players"]) if teams[p] == "AB"[w["sides"][sd]]]
            at = members.index(w["caps"][sd])
            order += [[members[(at + j) % len(members)], sd, "war"] for j in range(len(members))]
        queue = w["queue"]
        _need(not queue or queue == order[len(order) - len(queue):],
              "war.queue: team members make their dice in turn")
        b = w["build"]
        if b is not None and b["mode"] == "war":
            _need(len(queue) < len(order) and order[len(order) - len(queue) - 1][:2]
                  == [b["p"], b["s"]], "build.p must be the maker whose turn it is")
    if w["step"] != "build":
        _need(w["build"] is None and not w["queue"] and not w["needpick"],
              "dice are only made in the war's 'build' step")
        upto = w["k"] if "multi" in w else n
        for j in range(min(upto, n)):
            _need(w["b"][j]["gone"] or (w["b"][j]["s"][0]["set"] and w["b"][j]["s"][1]["set"]),
                  "battle %d: both dice must be placed before the battles" % (j + 1))
    b = w["build"]
    if b is not None:
        _need(on_side(b["p"], b["s"]), "build.p must be a player of side build.s")
        _need(b["made"] < b["hi"] or b["hi"] == 0, "build.made must be below build.hi")
        _need(b["lo"] >= 1 and b["hi"] <= n, "build.lo and build.hi must be from 1 to n")
        free = [j for j in range(n) if not w["b"][j]["s"][b["s"]]["set"]]
        if b["mode"] == "rebuild":
            _need(len(b["slots"]) == b["hi"] - b["made"] and all(j in free for j in b["slots"]),
                  "build.slots must be the free places still to fill")
            _need(w["ret"] == "reveal", "a rebuild returns to the battle's reveal")
        elif b["mode"] == "stage":
            _need("multi" in w and b["lo"] == b["hi"] == 1 and w["k"] in free
                  and b["left"] == len([j for j in free if j > w["k"]]),
                  "build: a stage makes the die of the current battle")
        else:
            _need(not b["slots"] and b["left"] == 0, "build: a war's dice fill free places")
            if ft:
                _need(len(free) >= b["hi"] - b["made"], "build: too few free places")
                mine = [j for j in range(n) if w["b"][j]["s"][b["s"]]["own"] == b["p"]
                        and not w["b"][j]["s"][b["s"]]["dawn"]]
                _need(len(mine) == b["made"], "build.made must count the maker's dice")
            else:
                _need(b["lo"] == b["hi"] and len(free) == b["hi"] - b["made"],
                      "build: the dice left to make must match the free places")


def check_fields(d):
    """A copy of the state dict `d` (its game and format already checked), every field
    checked but the cards' count (check_cards) and what needs the state's own methods."""
    _keys(d, _TOP_KEYS, "the state")
    players = d["players"]
    opts = d["options"]
    _need(isinstance(opts, dict), "field 'options' must be an object")
    checked = _check_options(players, opts)
    _need(checked == opts, "field 'options' must spell out every option (%s)"
          % ", ".join(sorted(checked)))
    s = _copy(d)
    names = sorted(set(deck_of(opts)))
    types = _types_in(opts)
    _need(secret_prng.check_state(s["rng"]),
          "field 'rng' must be a state of shared_rules.secret_prng")
    _need(isinstance(s["hands"], list) and len(s["hands"]) == players,
          "field 'hands' must hold one hand per player")
    for h in s["hands"]:
        _cards(h, names, "a hand")
    for key in ("draw", "discard", "destroyed", "warpile"):
        _cards(s[key], names, "field %r" % key)
    _int(s["turn"], 0, MAX_TURNS_LIMIT, "field 'turn'")
    _int(s["round"], 0, MAX_TURNS_LIMIT, "field 'round'")
    _int(s["active"], 0, players - 1, "field 'active'")
    _int(s["pi"], 0, players, "field 'pi'")
    _need(isinstance(s["pairs"], list) and len(s["pairs"]) <= players // 2,
          "field 'pairs' must be a list of at most %d pairs" % (players // 2))
    for pr in s["pairs"]:
        _need(isinstance(pr, list) and len(pr) == 3, "a pair is [attacker, defender, dice]")
        _int(pr[0], 0, players - 1, "a pair's attacker")
        _int(pr[1], 0, players - 1, "a pair's defender")
        _int(pr[2], 1, 60, "a pair's dice")
    _str(s["end"], _ENDS, "field 'end'")
    _str(s["phase"], list(PHASE_HINTS), "field 'phase'")
    if s["end"]:
        _need(s["phase"] == "over" and s["who"] == -1 and s["war"] is None,
              "a finished game has phase 'over', who -1 and no war")
    else:
        _int(s["who"], 0, players - 1, "field 'who'")
        _need(s["phase"] != "over", "phase 'over' only once the game has ended")
    if s["war"] is not None:
        _check_war(s["war"], s, names, types)
    else:
        _need(s["phase"] in ("fight", "over"), "without a war the phase is 'fight'")
    if s["last"] is not None:
        _check_war(s["last"], s, names, types)
        _need(s["last"]["build"] is None and all(
            not side["pile"] and not side["face"] for bt in s["last"]["b"] for side in bt["s"])
            and not any(s["last"]["loot"]), "field 'last' (the finished war) holds no card")
    return s


def check_cards(s):
    """Every card of the box the options put in play lies in exactly one place of `s`."""
    deck = deck_of(s["options"])
    everything = []
    for h in s["hands"]:
        everything += h
    for key in ("draw", "discard", "destroyed", "warpile"):
        everything += s[key]
    w = s["war"]
    if w is not None:
        for bt in w["b"]:
            for side in bt["s"]:
                everything += side["pile"]
                if side["face"]:
                    everything.append(side["face"])
        if w["build"] is not None:
            everything += w["build"]["pool"] + w["build"]["cur"]
        for lots in w["loot"]:
            for lot in lots:
                everything += lot["cards"]
    _need(sorted(everything) == deck, "the cards on the table are not exactly the box's %d "
          "cards (%d found)" % (len(deck), len(everything)))
