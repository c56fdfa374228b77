"""Rules checks that must hold on MicroPython too (run by tests/test_micropython_rules.py):
JSON and position round trips, refusals that change nothing, scoring, records replay.
Prints "ok <n>" after n checks; any failure raises."""

from shared_rules import gaia_vora, games, prng, vora, vorcept
from shared_rules.errors import BadPosition, IllegalMove

checks = 0


def check(cond, what):
    global checks
    if not cond:
        raise AssertionError(what)
    checks += 1


check(vora.score_farm({"crow": 8, "sheep": 5}) == 0, "the rulebook's example scores 0")
check(vora.score_farm({"crow": 12}) == 10, "12 alike score 9 + 1")

s = vora.from_position("PWMDL/DLPWM/WMDLP/LPWMD/MDLPW SN 0 CC/D G30")
s.play("push crow Sc")
check(s.meadow() == ["PWPDL", "DLDWM", "WMWLP", "LPLMD", "MDCPW"], "a push moves the file")
check(s.farm(1) == {"duck": 1, "mole": 1}, "the cube pushed out goes North")

for seed in range(3):
    state = vora.new_game(2 + seed, seed=seed)
    chooser = prng.seed_state(seed)
    record = {"game": "vora", "players": 2 + seed, "seed": seed, "options": {}, "moves": []}
    for _ in range(120):
        if state.is_over():
            break
        text = state.to_json()
        check(vora.from_json(text).to_json() == text, "JSON round trip")
        check(state.clone() == state, "clone")
        if state.phase == vora.PHASE_ACTION:
            check(vora.from_position(state.position()).position() == state.position(),
                  "position round trip")
        try:
            state.play("push cow Sc")
            check(False, "an illegal move was accepted")
        except IllegalMove as exc:
            check(exc.move == "push cow Sc" and exc.reason, "the refusal names the move and why")
        check(state.to_json() == text, "a refusal changes nothing")
        moves = state.legal_moves()
        check(moves == sorted(moves), "legal moves are sorted")
        i, chooser = prng.below(chooser, len(moves))
        state.play(moves[i])
        record["moves"].append(moves[i])
    check(games.replay(record) == state, "the record replays")

try:
    vora.from_json("{")
    check(False, "bad JSON accepted")
except BadPosition:
    check(True, "")

# Vorcept: a trap, a full surround, a refusal that changes nothing, JSON round trips.
s = vorcept.from_position("H.....h/......./......./..AaB../......./......./......@ 0 1 - 4,3,2/4,3,2")
s.play("move e4 e5")
check(s.piece_at("d4") == (1, "drone1"), "no trap without the far side")
s = vorcept.from_position("H.....h/......./......./..Aa.../......./....B../......@ 0 1 - 4,3,2/4,3,2")
s.play("move e2 e4")
check(s.piece_at("d4") is None and s.last_removed() == [("d4", 1, "drone1")], "a trap captures")
s = vorcept.from_position("H....../......./......./......./......./A....../h.B...@ 1 1 - 4,3,2/4,3,2")
text = s.to_json()
try:
    s.play("move a1 a3")
    check(False, "the Host moves one cell")
except IllegalMove as exc:
    check("at most 1 cell" in exc.reason, "the refusal says why")
check(s.to_json() == text, "a refusal changes nothing")
s = vorcept.from_position("H....../......./......./......./......./A....../h.B...@ 0 1 - 4,3,2/4,3,2")
s.play("move c1 b1")
check(s.is_over() and s.winner() == 0 and s.end_reason() == "host", "a surrounded Host loses")
for seed in range(2):
    state = vorcept.new_game(2, seed, self_capture="remove")  # the default is "forbid"
    chooser = prng.seed_state(seed + 11)
    while not state.is_over():
        text = state.to_json()
        check(vorcept.from_json(text).to_json() == text, "Vorcept JSON round trip")
        moves = state.legal_moves()
        check(moves == sorted(moves), "Vorcept legal moves are sorted")
        i, chooser = prng.below(chooser, len(moves))
        state.play(moves[i])
try:
    vorcept.from_json('{"game": "vorcept"}')
    check(False, "a bad Vorcept state accepted")
except BadPosition:
    check(True, "")
# Gaia-Vora: the rulebook's example (three steps, then the Storm) and round trips.
g = gaia_vora.new_game(3)
g.stacks[5] = []  # f's Sand sits on a: f is Water
g.stacks[0] = [gaia_vora.STONE, gaia_vora.SAND]
g.home = 0xFF & ~(1 << 5)
for loc, species, colour in ((7, 0, 1), (7, 1, 2), (7, 2, 0), (6, 0, 0), (6, 2, 0),
                             (2, 0, 0), (2, 2, 2), (8, 1, 0), (8, 2, 1)):
    g.life[loc * 3 + species] = colour
    g.pools[colour * 3 + species] -= 1
g = gaia_vora.from_json(g.to_json())
g.play("rotate 3")
check(g.fossil_card(2) == {"yellow": {"plant": 1}}, "white ate the yellow plant")
check(g.fossil_card(1) == {"white": {"herbivore": 1}}, "green ate the white herbivore")
g.play("storm plant water")
g.play("storm carnivore water")
check(g.fossil_card(0) == {"green": {"plant": 1}, "white": {"plant": 1}}, "yellow's fossils")
check(g.lifeforms("water") == {"carnivore": "yellow"}, "the water after the storm")
check(g.pool(0)["herbivore"] == 4, "the yellow herbivore is back in the pool")
for seed in range(3):
    state = gaia_vora.new_game(2 + seed, seed=seed, moon_eats=("end", "each")[seed % 2])
    chooser = prng.seed_state(seed)
    while not state.is_over():
        text = state.to_json()
        check(gaia_vora.from_json(text).to_json() == text, "gaia JSON round trip")
        try:
            state.play("sun cow water")
            check(False, "an illegal move was accepted")
        except IllegalMove as exc:
            check(exc.move == "sun cow water" and exc.reason, "the refusal says why")
        check(state.to_json() == text, "a refusal changes nothing")
        moves = state.legal_moves()
        check(moves == sorted(moves), "legal moves are sorted")
        i, chooser = prng.below(chooser, len(moves))
        state.play(moves[i])
    check(state.end_reason() in ("tiles", "turns"), "the game ended")

print("ok", checks)
