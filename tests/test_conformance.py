"""One conformance test for every game module (after OpenSpiel's basic API tests).

Random playouts from many seeds check, at every step: legal moves are sorted, unique and
all playable; moves outside them raise and change nothing; clones and JSON round-trips are
equal and give the same digest; to_act/is_over/scores/winner agree; the game ends within
its bound; and the game's own invariant holds (Vora: no cube created or lost). A record of
the playout replays to the same digest after every move.
"""

import json
import random

import pytest

from shared_rules import boars, gaia_vora, games, tossing_tiger, tossing_tiger_data, vora, vorcept
from shared_rules.errors import BadPosition, IllegalMove


class Adapter:
    """What the conformance test needs to know about one game beyond its interface."""

    module = None
    player_counts = None  # default: module.PLAYER_COUNTS
    max_moves = 10000  # a random playout longer than this has not ended: a failure
    seeds = range(30)

    @staticmethod
    def move_universe():
        """Syntactically plausible moves, to probe what legal_moves() leaves out."""
        return []

    @staticmethod
    def invariant(state):
        """A quantity no move may change (Vora: the number of cubes), or None."""
        return None

    @staticmethod
    def check_state(state):
        """The game's own checks after every move (raise AssertionError)."""


class VoraAdapter(Adapter):
    module = vora
    # A random game mostly runs into the max_turns safeguard: each turn is a few moves.
    max_moves = vora.DEFAULT_MAX_TURNS * 40

    @staticmethod
    def move_universe():
        # Every syntactically valid Vora move, to probe what legal_moves() leaves out.
        cells, edges, types = vora.CELL_NAMES, vora.EDGE_NAMES, vora.TYPES
        out = ["push %s %s" % (t, e) for t in types for e in edges]
        out += ["pig " + e for e in edges] + ["wolf " + e for e in edges]
        for verb in ("crow", "ladybug", "water", "take", "extra"):
            out += [verb + " " + c for c in cells]
        out += ["mole %s %s" % (a, b) for a in cells for b in cells]
        out += ["duck %s %s" % (a, b) for a in cells for b in cells]
        out += ["steal %d %s" % (p, t) for p in range(4) for t in types]
        out += ["pass", "push", "take", "", "push crow sc", "PASS"]
        return out

    @staticmethod
    def invariant(state):
        total = sum(state.box) + sum(state.eaten) + sum(sum(f) for f in state.farms)
        total += sum(1 for c in state.grid if c != vora.EMPTY)
        return total

    @staticmethod
    def check_state(state):
        assert all(sum(f) >= 1 for f in state.farms), "a player has no cube"
        if state.phase == vora.PHASE_ACTION:
            assert vora.EMPTY not in state.grid, "a turn starts with a gap in the meadow"


class VorceptAdapter(Adapter):
    module = vorcept
    max_moves = vorcept.DEFAULT_MAX_TURNS * 2 + 100  # two actions a turn, and the setup
    seeds = range(200)  # short games (about 30 moves): many seeds, about 10 s

    @staticmethod
    def move_universe():
        cells = vorcept.geometry(vorcept.DEFAULT_SIZE)[0]
        out = ["move %s %s" % (a, b) for a in cells for b in cells]
        for verb in ("pylon", "lava", "host", "summon drone1", "summon drone2",
                     "summon drone3", "summon host"):
            out += [verb + " " + c for c in cells]
        out += ["lava done", "concede", "move", "move a1", "summon drone4 a1", "lava h8",
                "pylon a0", "MOVE a1 a2", "concede now", "host"]
        return out

    @staticmethod
    def check_state(state):
        g = state.grid
        assert g.count(vorcept.PYLON) <= 1 and g.count(vorcept.LAVA) <= state.lava_max
        if state.phase >= vorcept.PHASE_HOST:
            assert g.count(vorcept.LAVA) >= state.lava_min or not state._lava_cells()
        for p in (0, 1):
            for kind in (1, 2, 3):
                on_board = g.count(vorcept.piece_code(p, kind))
                assert on_board + state.reserves[p][kind - 1] <= state.pieces[kind - 1]
        # No piece is ever left with no free neighbour: it is removed at once.
        for c in range(len(g)):
            if g[c] >= vorcept.FIRST_PIECE:
                assert not state._enclosed(c, ()), "an enclosed piece stayed on the board"
        if state.phase == vorcept.PHASE_PLAY:
            assert state.action == 0 or state.acted == -1 or \
                state.grid[state.acted] >= vorcept.FIRST_PIECE


class GaiaVoraAdapter(Adapter):
    module = gaia_vora
    # A turn is a rotation and at most four placements or three Storm moves.
    max_moves = gaia_vora.DEFAULT_MAX_TURNS * 6
    seeds = range(60)

    @staticmethod
    def move_universe():
        g = gaia_vora
        out = ["rotate %d" % n for n in range(5)]
        for s in g.SPECIES:
            for loc in g.LOCATIONS:
                out.append("sun %s %s" % (s, loc))
                out.append("storm %s %s" % (s, loc))
                out += ["rainbow %s %s %s" % (c, s, loc) for c in g.COLOURS]
        out += ["meteor " + t for t in g.TILES]
        out += ["meteor %s %s" % (t, p) for t in g.TILES for p in g.POSITIONS]
        out += ["rotate", "sun plant", "meteor", "storm water plant", "sun plant i",
                "rainbow red plant water", "meteor sand z", "rotate two"]
        return out

    @staticmethod
    def invariant(state):
        # No figure and no tile is ever created or lost: per colour and species, the
        # figures in pools, on the planet and on Fossil Cards; per tile type, the tiles on
        # the planet and off it.
        counts = []
        for c in range(gaia_vora.N_COLOURS):
            for s in range(3):
                n = state.pools[c * 3 + s] + sum(
                    1 for loc in range(9) if state.life[loc * 3 + s] == c)
                n += sum(state.fossils[o * 12 + c * 3 + s] for o in range(4))
                counts.append(n)
        for t in range(4):
            counts.append(state.supply[t] + sum(st.count(t) for st in state.stacks))
        return tuple(counts)

    @staticmethod
    def check_state(state):
        g = gaia_vora
        for p in range(8):
            st = state.stacks[p]
            assert len(set(st)) == len(st), "a stack holds two alike tiles"
            if not st:
                assert state.life[p * 3:p * 3 + 3] == [-1] * 3, "Life-Forms on bare Water edge"
        if state.phase in (g.PHASE_ROTATE, g.PHASE_SKY):
            m = state._moon_loc()
            c, h, p = state.life[m * 3:m * 3 + 3]
            assert not (h >= 0 and p >= 0) and not (c >= 0 and h >= 0), "the Moon did not eat"
        assert all(0 <= n <= state.stars_dealt for n in state.stars)


class BoarsAdapter(Adapter):
    module = boars
    # Random games often run into the max_turns safeguard (300 turns, about 4 moves each).
    max_moves = boars.DEFAULT_MAX_TURNS * 40
    seeds = range(12)

    @staticmethod
    def move_universe():
        # Moves of every kind, with the house cards' ids, legal or not.
        ids = [c["id"] for c in boars.cards_list()]
        others = [i for i in ids if i not in ("bristle", "tusker", "snout", "trotter")]
        cubes = ["-", "r", "b", "y", "g", "rr", "rb", "yg", "rrr", "rbg", "bbb", "gy", "k"]
        out = ["draw %d" % n for n in range(0, 40)] + ["draw", "draw -1", "draw x"]
        out += ["vendetta %s %d" % (i, p) for i in others for p in range(5)]
        out += ["vendetta %s %s" % (i, j) for i in ("finders", "switcheroo") for j in others]
        out += ["vendetta switcheroo %s %s" % (i, j) for i in others[:12] for j in others[:12]]
        out += ["buy %s %s" % (i, c) for i in others for c in cubes]
        out += ["ticket " + t[0] for t in boars.TICKETS] + ["ticket bus", "ticket"]
        out += ["diet top", "diet bottom", "diet"] + ["diet " + i for i in ids]
        out += ["diet careless " + i for i in ids]
        out += ["discard " + i for i in ids]
        out += ["take " + c for c in cubes] + ["lose " + c for c in cubes]
        out += ["menu new", "menu keep", "menu", "end", "end now", "pass"]
        return out

    @staticmethod
    def invariant(state):
        # Cubes of each colour (bags, reserve, in front) and cards (hands, display, deck).
        cubes = tuple(sum(b[c] for b in state.bags) + state.front[c]
                      + (state.supply[c] if c < boars.N_FOOD else 0) for c in range(5))
        cards = sorted(state.deck + [x for x in state.display if x >= 0]
                       + [x for h in state.hands for x in h])
        return cubes, tuple(cards)

    @staticmethod
    def check_state(state):
        # from_json's own consistency checks, on every state reached by play.
        boars.from_json(state.to_json())
        for p in range(state.players):
            assert 1 + len(state.hands[p]) <= boars.HAND_LIMIT + (
                state.phase == boars.PH_DISCARD and p == state.active)


class TossingTigerAdapter(Adapter):
    module = tossing_tiger
    # A random game is a few dozen moves (measured: 28 on average, 100 at most over 40 seeds).
    max_moves = 5000
    seeds = range(60)

    @staticmethod
    def move_universe():
        # Every move word with plausible arguments, to probe what legal_moves() leaves out.
        cards = sorted(set(tossing_tiger.deck_of(tossing_tiger._check_options(2, {
            "more_animals": True, "dawndojo": True}))))
        types = list(tossing_tiger_data.TYPES)
        out = ["fight %d %d" % (p, n) for p in range(7) for n in range(0, 8)]
        out += ["fight %d" % n for n in range(8)]
        out += ["add " + c for c in cards] + ["dawn " + c for c in cards if "rooster" in c]
        out += ["pick " + t for t in types] + ["guess " + t for t in types]
        out += ["copy " + t for t in types] + ["tribute " + c for c in cards]
        out += ["keep " + c for c in cards] + ["discard " + c for c in cards]
        out += ["keep %s %d" % (c, p) for c in cards[:6] for p in range(6)]
        for j in range(1, 7):
            out += ["merge %d" % j, "reroll %d" % j, "look %d" % j, "remove %d" % j,
                    "steal %d" % j, "claim %d" % j, "destroy %da" % j, "destroy %dd" % j,
                    "draw %da" % j, "draw %dd" % j, "bonus %d" % j]
            out += ["swap %d %d" % (j, i) for i in range(1, 7)]
            out += ["switch %d %d" % (j, i) for i in range(1, 7)]
            out += ["take %d %s" % (j, c) for c in cards[:8]]
        out += ["next", "flee", "pass", "stop", "give", "concede", "retreat", "rebuild",
                "draw deck", "fight", "add", "keep", "Pass", "next "]
        return out

    @staticmethod
    def invariant(state):
        # No card is created or lost: every card of the box lies in exactly one place.
        return len(tossing_tiger_cards(state))

    @staticmethod
    def check_state(state):
        s = state.s
        assert sorted(tossing_tiger_cards(state)) == state._c["deck"], "a card went astray"
        if s["war"] is None and not s["end"]:
            low = 3 if s["options"]["fight_together"] else 2
            assert all(len(h) >= low for h in s["hands"]), "a war starts with a player too low"


def tossing_tiger_cards(state):
    s = state.s
    out = [c for h in s["hands"] for c in h] + s["draw"] + s["discard"] + s["destroyed"]
    out += s["warpile"]
    w = s["war"]
    if w is not None:
        for bt in w["b"]:
            for side in bt["s"]:
                out += side["pile"] + ([side["face"]] if side["face"] else [])
        if w["build"] is not None:
            out += w["build"]["pool"] + w["build"]["cur"]
        for lots in w["loot"]:
            for lot in lots:
                out += lot["cards"]
    return out


ADAPTERS = {"vora": VoraAdapter, "vorcept": VorceptAdapter, "gaia-vora": GaiaVoraAdapter,
            "boars": BoarsAdapter, "tossing-tiger": TossingTigerAdapter}


def test_every_registered_game_has_an_adapter():
    assert sorted(ADAPTERS) == games.names()


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_module_attributes(name):
    module = games.load(name)
    assert module.NAME == name and games.load(module.NAME) is module
    assert isinstance(module.TITLE, str) and module.TITLE
    counts = module.PLAYER_COUNTS
    assert counts == tuple(sorted(set(counts))) and min(counts) >= 1
    assert module.HIDDEN_INFORMATION in (True, False)
    state = module.new_game(counts[0], seed=0)
    spelled = state.options()
    for spec in module.OPTIONS:
        opt, default, kind, help_text = spec
        assert isinstance(opt, str) and isinstance(help_text, str) and help_text
        assert kind in ("int", "bool", "str", "dict") or isinstance(kind, tuple), spec
        assert games.option_spec(module, opt) == spec
        assert opt in spelled, "options() must spell out %r" % opt
    assert sorted(spelled) == sorted(s[0] for s in module.OPTIONS)
    with pytest.raises(BadPosition):
        games.option_spec(module, "no-such-option")
    with pytest.raises(BadPosition):
        module.new_game(max(counts) + 1, seed=0)
    with pytest.raises((BadPosition, ValueError)):
        module.new_game(counts[0], seed=games.seed_max(module) + 1)
    assert module.new_game(counts[0], seed=games.seed_max(module)).to_json()
    for bad in ("", "{", "[]", '{"game": "%s"}' % name, "null", '"x"'):
        with pytest.raises(BadPosition):
            module.from_json(bad)


def check_views(module, state, rnd):
    # Each viewer's view is JSON, and determinize() gives a state that shows the same
    # view; the player to act finds the same legal moves there.
    for viewer in [None] + list(range(len(state.scores()))):
        view = state.view(viewer)
        assert json.loads(json.dumps(view)) == view, "a view must be JSON-ready"
        sampled = module.determinize(view, rnd.randrange(games.seed_max(module) + 1))
        assert sampled.view(viewer) == view, "determinize() must agree with the view"
        if viewer is not None and viewer == state.to_act():
            assert sampled.legal_moves() == state.legal_moves()
        # A search bot determinizes one view many times and plays on each sample: the
        # sample must not share lists with the view (nor a rebuilt state with its dict).
        kept = json.dumps(view, sort_keys=True)
        for move in sampled.legal_moves()[:1]:
            sampled.play(move)
        assert json.dumps(view, sort_keys=True) == kept, "playing on a sample changed the view"
        parsed = json.loads(state.to_json())
        rebuilt = module.from_json(parsed)
        for move in rebuilt.legal_moves()[:1]:
            rebuilt.play(move)
        assert parsed == json.loads(state.to_json()), "from_json(dict) shares the dict's lists"


def playout(adapter, players, seed, probe_every=7):
    module = adapter.module
    universe = adapter.move_universe()
    rnd = random.Random(seed * 1000 + players)
    state = module.new_game(players, seed=seed)
    start_json = state.to_json()
    assert module.new_game(players, seed, **state.options()).to_json() == start_json
    conserved = adapter.invariant(state)
    record = {"game": module.NAME, "players": players, "seed": seed, "options": {},
              "moves": []}
    digests = []
    steps = 0
    turns = state.turn_count()
    while not state.is_over():
        moves = state.legal_moves()
        assert moves, "no legal move while the game goes on"
        assert moves == sorted(set(moves)), "legal moves must be sorted and unique"
        assert state.to_act() in range(players)
        assert len(state.scores()) == players and state.winner() is None
        assert state.end_reason() == ""

        # Equality is the JSON's (every game's __eq__): compared with `text` made once,
        # and == itself checked at the probes' steps (a to_json costs most of a step).
        text = state.to_json()
        copy = state.clone()
        assert copy.to_json() == text
        again = module.from_json(text)
        assert again.to_json() == text
        assert again.legal_moves() == moves
        if steps % probe_every == 0:
            # The dict path is the text path after json.loads, and every game's digest is
            # SHA-256 over to_json(): both checked at the probes' steps.
            assert module.from_json(json.loads(text)).to_json() == text
            assert copy.digest() == state.digest()
            assert copy == state and again == state and not (copy != state)

        if steps % probe_every == 0:
            check_views(module, state, rnd)
            # Every legal move plays on a clone; a sample of the rest is refused cleanly.
            for m in moves:
                c = state.clone()
                c.play(m)
                assert adapter.invariant(c) == conserved
            legal = set(moves)
            probes = rnd.sample(universe, min(40, len(universe)))
            probes += [m + " x" for m in rnd.sample(moves, min(3, len(moves)))]
            probes += ["", " ", "nonsense", moves[0].upper(), 7, None]
            for m in probes:
                if m in legal:
                    continue
                try:
                    state.play(m)
                except IllegalMove:
                    continue
                pytest.fail("%r is not a legal move, and it was played" % (m,))
            # Once for all the probes (a change never undoes itself), then probe by
            # probe to name the one that changed it.
            if state.to_json() != text:
                for m in probes:
                    fresh = module.from_json(text)
                    try:
                        fresh.play(m)
                    except IllegalMove:
                        pass
                    assert fresh.to_json() == text, "a refused move changed the state: %r" % m
                pytest.fail("the refused moves together changed the state")
        move = rnd.choice(moves)
        state.play(move)
        assert copy.to_json() == text, "playing on the state changed its clone"
        record["moves"].append(move)
        digests.append(state.digest())
        assert adapter.invariant(state) == conserved, "invariant broken by %r" % move
        adapter.check_state(state)
        assert state.turn_count() >= turns, "turn_count() went backwards"
        turns = state.turn_count()
        steps += 1
        assert steps <= adapter.max_moves, "the game did not end"

    assert state.legal_moves() == [] and state.to_act() is None
    assert isinstance(state.end_reason(), str) and state.end_reason()
    w = state.winner()
    assert w is None or w in range(players)
    with pytest.raises(IllegalMove):
        state.play(moves[0])
    assert module.from_json(start_json).to_json() == start_json
    replayed = games.replay(record, digests)
    assert replayed == state
    return state, steps


@pytest.mark.parametrize("name,seed", [(n, s) for n in sorted(ADAPTERS)
                                        for s in ADAPTERS[n].seeds])
def test_random_playouts(name, seed):
    adapter = ADAPTERS[name]
    counts = adapter.player_counts or adapter.module.PLAYER_COUNTS
    players = counts[seed % len(counts)]
    playout(adapter, players, seed)


def test_vora_winner_follows_the_rulebook_tie_order():
    # The Vora winner is the best (score, fewest kinds of sets, fewest loose cubes).
    for seed in range(6):
        state, _ = playout(VoraAdapter, 2 + seed % 3, seed, probe_every=50)
        w = state.winner()
        keys = [state.ranking_key(p) for p in range(state.players)]
        if w is None:
            assert keys.count(max(keys)) > 1
        else:
            assert keys[w] == max(keys) and keys.count(max(keys)) == 1


def collecting_move(state, rnd):
    # A player who wants lines: take every line, and act where a line forms.
    moves = state.legal_moves()
    if state.phase != vora.PHASE_ACTION:
        return ([m for m in moves if m != "pass"] or moves)[0]
    good = []
    for m in moves:
        c = state.clone()
        c.play(m)
        if c.phase == vora.PHASE_COLLECT:
            good.append(m)
    return rnd.choice(good or moves)


def test_collecting_players_empty_the_box():
    # "The game ends when the box runs out of cubes to completely refill the meadow."
    for seed in range(4):
        s = vora.new_game(2 + seed % 3, seed=seed)
        rnd = random.Random(seed)
        while not s.is_over():
            s.play(collecting_move(s, rnd))
        assert s.end == "box" and s.turn < vora.DEFAULT_MAX_TURNS
        assert s.grid.count(vora.EMPTY) > sum(s.box)


def test_the_turn_limit_ends_a_game_that_never_collects():
    s = vora.new_game(2, seed=1, max_turns=10)
    while not s.is_over():
        s.play(s.legal_moves()[-1] if s.phase != vora.PHASE_ACTION else
               [m for m in s.legal_moves() if m.startswith("push")][0])
    assert s.end == "turns" and s.turn == 10


def test_replay_reports_the_move_that_fails():
    record = {"game": "vora", "players": 2, "seed": 5, "options": {}, "moves": []}
    state = games.start(record)
    record["moves"] = [state.legal_moves()[0], "push crow Zz"]
    with pytest.raises(IllegalMove, match="move 2 of the record"):
        games.replay(record)
    record["moves"] = record["moves"][:1]
    with pytest.raises(Exception, match="digest mismatch after move 1"):
        games.replay(record, ["0" * 16])
    with pytest.raises(Exception, match="unknown game 'chess'"):
        games.replay({"game": "chess"})


def test_a_record_with_bad_options_or_seed_is_refused_clearly():
    from shared_rules.errors import BadPosition
    with pytest.raises(BadPosition, match="cannot start a game"):
        games.start({"game": "vora", "players": 2, "seed": 0, "options": {"colour": "red"}})
    with pytest.raises(BadPosition, match="cannot start a game"):
        games.start({"game": "vora", "players": 2, "seed": -1, "options": {}})


# ---------------------------------------------------------------- one shape for every game

def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_random_state_and_views_have_one_shape_in_every_game(name):
    # Every game keeps its PRNG state in `state.rng` (None for a game that draws
    # nothing), serialised under "rng" by to_json(); no view holds an "rng" key; and
    # determinize() reseeds it. Code over every game (bots, the OpenSpiel adapter) then
    # needs no case per game.
    module = games.load(name)
    rnd = random.Random(11)
    for seed in (3, 4):
        state = module.new_game(module.PLAYER_COUNTS[0], seed)
        for _ in range(40):
            rng = state.rng
            parsed = json.loads(state.to_json())
            if rng is None:
                assert "rng" not in parsed
            else:
                assert _is_int(rng) and parsed["rng"] == rng
                assert module.from_json(parsed).rng == rng and state.clone().rng == rng
            for viewer in [None] + list(range(len(state.scores()))):
                view = state.view(viewer)
                assert "rng" not in view, "a view shows the PRNG key (viewer %r)" % viewer
                sampled = module.determinize(view, 12345)
                if rng is not None:
                    assert _is_int(sampled.rng)
                    assert sampled.rng != module.determinize(view, 12346).rng
            if state.is_over():
                break
            state.play(rnd.choice(state.legal_moves()))
