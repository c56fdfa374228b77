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

from shared_rules import games, prng, vora
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


ADAPTERS = {"vora": VoraAdapter}


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
        module.new_game(counts[0], seed=prng.SEED_MAX + 1)
    for bad in ("", "{", "[]", '{"game": "%s"}' % name, "null", '"x"'):
        with pytest.raises(BadPosition):
            module.from_json(bad)


def check_views(module, state, rnd):
    # Each viewer's view is JSON, and determinize() gives a state that shows the same
    # view; the player to act finds the same legal moves there.
    for viewer in [None] + list(range(len(state.scores()))):
        view = state.view(viewer)
        assert json.loads(json.dumps(view)) == view, "a view must be JSON-ready"
        sampled = module.determinize(view, rnd.randrange(prng.SEED_MAX + 1))
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

        text = state.to_json()
        copy = state.clone()
        assert copy == state and copy.digest() == state.digest()
        again = module.from_json(text)
        assert again == state and again.to_json() == text
        assert again.legal_moves() == moves
        assert module.from_json(json.loads(text)) == state

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
                with pytest.raises(IllegalMove):
                    state.play(m)
                assert state.to_json() == text, "a refused move changed the state: %r" % m
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
