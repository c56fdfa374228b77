"""The generic bots (vora_host.bots): the random bot and the search bot, on every game.

The search bot is proven generic on Vora and on two toy games written against the common
interface alone (tests/toy_nim.py: no secrets; tests/toy_duel.py: a hidden hand, a hidden
pile and draws), registered in the game registry for the test, and checked on every
registered game: the full state and the view alone give the same search, and in the
games with secrets (Tossing Tiger, Boars) another deal of what the player cannot know
changes nothing. Every match here is
seeded (game, bots), so its outcome is the same on every run; the thresholds are ones a
random player would miss by far.
"""

import json
import math
import sys
import time
import types

import pytest

import shared_rules
from shared_rules import games, vora
from vora_host import games as host_games
from vora_host.bots import (GENERIC_BOTS, RandomBot, SearchBot, bot_kinds, make_bot,
                            split_kind)
from vora_host.cli import main

import toy_duel
import toy_nim
from test_conformance import Adapter, playout

TOYS = (toy_nim, toy_duel)


def register(monkeypatch, module):
    """Put a toy game into the registry (rules and host package) for one test."""
    modname = module.__name__
    monkeypatch.setitem(games.GAME_MODULES, module.NAME, modname)
    monkeypatch.setitem(sys.modules, "shared_rules." + modname, module)
    monkeypatch.setattr(shared_rules, modname, module, raising=False)
    host = types.ModuleType("vora_host.games." + modname)
    host.RULES = module
    host.BOTS = {}
    monkeypatch.setitem(sys.modules, "vora_host.games." + modname, host)


@pytest.fixture
def toys(monkeypatch):
    for module in TOYS:
        register(monkeypatch, module)


def positions(module, players, seed, count, every=3):
    """States of a random game of `module`, every few moves, while it goes on."""
    rnd = RandomBot(seed)
    state = module.new_game(players, seed)
    out = []
    k = 0
    while not state.is_over() and len(out) < count:
        if k % every == 0:
            out.append(state.clone())
        state.play(rnd.choose(state))
        k += 1
    return out


def play_game(module, agents, seed, **options):
    state = module.new_game(len(agents), seed, **options)
    while not state.is_over():
        state.play(agents[state.to_act()].choose(state))
    return state


# ---------------------------------------------------------------- the toy games are honest

@pytest.mark.parametrize("module", TOYS, ids=lambda m: m.NAME)
def test_toy_games_follow_the_contract(toys, module):
    # The conformance test's own playout (views, determinize, refusals, replay by digest).
    adapter = type("ToyAdapter", (Adapter,), {"module": module, "max_moves": 100})
    for seed in range(6):
        players = module.PLAYER_COUNTS[seed % len(module.PLAYER_COUNTS)]
        playout(adapter, players, seed, probe_every=1)


def test_toy_duel_view_hides_the_secrets():
    state = toy_duel.new_game(2, 4)
    view = state.view(0)
    assert view["hands"][0] == state.hands[0] and view["hands"][1] == 3
    assert view["pile"] == 4 and view["rng"] is None
    other = secrets_swapped(state, 0)
    assert other.to_json() != state.to_json() and other.view(0) == view


def secrets_swapped(state, me):
    """A duel state that `me` cannot tell from `state`: the other hand and the pile
    dealt differently (same sizes, same cards unseen by `me`)."""
    d = json.loads(state.to_json())
    other = 1 - me
    unseen = d["hands"][other] + d["pile"]
    unseen = unseen[::-1] if len(set(unseen)) > 1 else unseen
    n = len(d["hands"][other])
    d["hands"][other] = sorted(unseen[:n])
    d["pile"] = unseen[n:]
    return toy_duel.from_json(d)


# ---------------------------------------------------------------- kinds and budgets

def test_every_game_gets_the_generic_bots(toys):
    assert set(GENERIC_BOTS) == {"random", "search"}
    for name in games.names():
        kinds = bot_kinds(name)
        assert kinds["random"] is RandomBot and kinds["search"] is SearchBot
    assert set(bot_kinds("vora")) == {"random", "search", "greedy", "lookahead"}
    bot = make_bot("search:25", 3, "toy-duel")
    assert bot.game == "toy-duel" and bot.iterations == 25
    move = bot.choose(toy_duel.new_game(2, 1))
    assert move in toy_duel.new_game(2, 1).legal_moves()


def test_kind_strings():
    assert split_kind("Search:50ms") == ("search", "50ms")
    assert make_bot("search", 1).iterations == 1000
    assert make_bot("search:2000", 1).iterations == 2000
    bot = make_bot("search:50ms", 1)
    assert bot.ms == 50 and bot.iterations is None
    assert make_bot("search:1.5s", 1).ms == 1500
    bot = make_bot("search:300:horizon=6:c=1:temperature=2", 1)
    assert (bot.iterations, bot.horizon, bot.c, bot.temperature) == (300, 6, 1.0, 2.0)
    # A bot's kind makes it again (game records keep it).
    for kind in ("search", "search:2000", "search:50ms", "search:300:c=1:horizon=6",
                 "search:200:10ms"):
        bot = make_bot(kind, 1)
        assert bot.kind == kind
        again = make_bot(bot.kind, 1)
        assert (again.iterations, again.ms, again.horizon, again.c) == \
            (bot.iterations, bot.ms, bot.horizon, bot.c)
    assert make_bot("search:horizon=6:300:C=1", 1).kind == "search:300:c=1:horizon=6"
    assert make_bot("random", 1).kind == "random"


@pytest.mark.parametrize("game", sorted(games.names()))
def test_in_every_game_a_bots_kind_makes_the_same_bot_again(game):
    # Whatever the game's own settings (SEARCH), and settings set back to the defaults.
    settings = ("iterations", "ms", "c", "horizon", "temperature", "max_rollout_moves",
                "points", "reuse", "clock", "tree")
    for kind in ("search", "search:200", "search:20ms", "search:50:c=1:horizon=3",
                 "search:200:horizon=round", "search:200:temperature=3:c=0.2",
                 "search:100:max_rollout_moves=200:horizon=1", "search:200:points=scores",
                 "search:200:points=game", "search:200:reuse=on", "search:200:reuse=off",
                 "search:20ms:clock=cpu", "search:20ms:clock=wall",
                 "search:50:tree=infosets", "search:50:tree=moves"):
        bot = make_bot(kind, 1, game)
        again = make_bot(bot.kind, 1, game)
        assert again.kind == bot.kind, kind
        assert [getattr(again, k) for k in settings] == [getattr(bot, k) for k in settings], \
            (game, kind)


def test_a_game_may_choose_its_search_settings():
    # Gaia-Vora's host package sets the horizon its search needs (SEARCH); a kind string
    # still overrides it, the bot's kind names it, and the other games keep the defaults.
    from vora_host.bots.search import game_settings
    assert game_settings("gaia-vora") == {"horizon": 12, "temperature": 6.0}
    gaia = make_bot("search:200", 0, "gaia-vora")
    assert (gaia.horizon, gaia.temperature) == (12, 6.0)
    assert gaia.kind == "search:200:horizon=12:temperature=6"
    again = make_bot(gaia.kind, 0, "gaia-vora")
    assert (again.horizon, again.temperature) == (12, 6.0) and again.kind == gaia.kind
    mine = make_bot("search:200:horizon=2", 0, "gaia-vora")
    assert (mine.horizon, mine.temperature) == (2, 6.0)  # one setting overridden, not all
    # Set back to the class default, a setting the game chooses is still spelled out:
    # the kind makes the very bot again.
    back = make_bot("search:200:temperature=3", 0, "gaia-vora")
    assert back.kind == "search:200:horizon=12:temperature=3"
    assert make_bot(back.kind, 0, "gaia-vora").temperature == 3.0
    # Even the one-round horizon, which a number cannot say.
    direct = SearchBot(0, iterations=200, game="gaia-vora")
    assert direct.horizon is None and direct.kind == "search:200:horizon=round:temperature=3"
    again = make_bot(direct.kind, 0, "gaia-vora")
    assert (again.horizon, again.temperature, again.kind) == (None, 3.0, direct.kind)
    assert make_bot("search:200:horizon=round", 0, "vora").kind == "search:200"
    # Vorcept plays its simulations to the end (its scores say nothing before it).
    assert game_settings("vorcept") == {"horizon": 200}
    assert make_bot("search:200", 0, "vorcept").kind == "search:200:horizon=200"
    for name in games.names():
        if name not in ("gaia-vora", "vorcept"):
            assert game_settings(name) == {}
            assert make_bot("search:200", 0, name).horizon is None
    assert game_settings(None) == {} and game_settings("no-such-game") == {}


def test_a_game_may_judge_a_cut_simulation_its_own_way():
    # Gaia-Vora's host package adds two points for each Star left to the scores that
    # judge a simulation cut before the end (SEARCH_POINTS); points=scores turns it off,
    # and the kind says so.
    from shared_rules import gaia_vora
    from vora_host.bots.search import game_points
    from vora_host.games import gaia_vora as gaia_host
    assert game_points("gaia-vora") is gaia_host.search_points
    for name in games.names():
        if name != "gaia-vora":
            assert game_points(name) is None
    assert game_points(None) is None and game_points("no-such-game") is None
    state = gaia_vora.new_game(3, 0)
    assert state.scores() == [0, 0, 0] and state.stars == [4, 4, 4]
    for move in ("rotate 1", "meteor grass"):  # one Star spent, the turn over
        state.play(move)
    assert not state.is_over() and state.stars == [3, 4, 4]
    assert gaia_host.search_points(state) == [s + 2 * n for s, n in
                                              zip(state.scores(), state.stars)]
    own = make_bot("search:10", 0, "gaia-vora")
    plain = make_bot("search:10:points=scores", 0, "gaia-vora")
    assert own.points == "game" and plain.points == "scores"
    assert plain.kind == "search:10:horizon=12:temperature=6:points=scores"
    assert make_bot(plain.kind, 0, "gaia-vora").points == "scores"
    # Level scores: by the scores alone, a third each. With the Stars, Red's 0 + 2 * 3
    # points against 0 + 2 * 4 at temperature 6: e^(-2/6) / (e^(-2/6) + 2) for Red.
    assert plain.rewards(state) == pytest.approx([1 / 3] * 3)
    red = math.exp(-2 / 6) / (math.exp(-2 / 6) + 2)
    assert own.rewards(state) == pytest.approx([red, (1 - red) / 2, (1 - red) / 2])
    # A bot not made for one game judges each game by its own points.
    anywhere = SearchBot(0, iterations=5, temperature=6)
    assert anywhere.rewards(state) == pytest.approx(own.rewards(state))
    other = vora.new_game(2, 0)  # Vora has no points of its own: its scores
    assert anywhere.rewards(other) == SearchBot(0, temperature=6,
                                                points="scores").rewards(other)
    # ... and back to Gaia-Vora's after Vora's: the lookup follows the game.
    assert anywhere.rewards(state) == pytest.approx(own.rewards(state))
    with pytest.raises(ValueError) as exc:
        make_bot("search:points=best", 0, "gaia-vora")
    assert "points takes game or scores, not 'best'" in str(exc.value)
    with pytest.raises(ValueError) as exc:
        SearchBot(0, points="mine")
    assert "points must be game or scores, not 'mine'" in str(exc.value)


@pytest.mark.parametrize("kind,words", [
    ("search:abc", "'abc'"), ("search:0", "'search:0': iterations must be a whole number of at least 1, not 0"), ("search:-5ms", "'-5ms'"),
    ("search:depth=3", "depth"), ("search:horizon=x", "horizon takes a number (or round), not 'x'"), ("search:c=x", "c takes a number, not 'x'"), ("search:lots", "cannot read 'lots'"),
    ("search:reuse=maybe", "reuse takes on or off, not 'maybe'"),
    ("search:tree=states", "tree takes moves or infosets, not 'states'"),
    ("search:reuse=on:tree=infosets", "reuse=on keeps a subtree of the tree of moves: not with tree=infosets"),
    ("random:5", "no parameters"), ("greedy:fast", "no parameters"),
    ("oracle", "unknown bot 'oracle'"),
])
def test_bad_kind_strings_are_named(kind, words):
    with pytest.raises(ValueError) as exc:
        make_bot(kind, 1)
    assert words in str(exc.value)


def test_iteration_budget_is_exact():
    bot = SearchBot(5, iterations=37)
    for state in positions(vora, 2, 3, 6):
        bot.choose(state)
        n = len(state.legal_moves())
        assert bot.last["iterations"] == (37 if n > 1 else 0)
        assert sum(bot.last["visits"].values()) == (37 if n > 1 else 0)


def test_time_budget_is_kept():
    state = positions(vora, 3, 2, 4)[-1]
    assert len(state.legal_moves()) > 1
    for ms in (20, 100):
        bot = SearchBot(5, ms=ms)
        started = time.perf_counter()
        bot.choose(state)
        elapsed = time.perf_counter() - started
        # It searches until the time is up, then stops within one iteration (a few
        # milliseconds; generous slack for a loaded machine).
        assert ms / 1000 <= elapsed < ms / 1000 + 0.25, elapsed
        assert bot.last["iterations"] > 1


def test_cpu_time_budget_is_kept():
    # clock=cpu counts the process's CPU time: kept like the wall-clock budget, within
    # an iteration.
    state = positions(vora, 3, 2, 4)[-1]
    for ms in (20, 100):
        bot = make_bot("search:%dms:clock=cpu" % ms, 5, "vora")
        started = time.process_time()
        bot.choose(state)
        used = time.process_time() - started
        assert ms / 1000 <= used < ms / 1000 + 0.25, used
        assert bot.last["iterations"] > 1


def test_cpu_time_budget_counts_cpu_time_not_the_wall_clock(monkeypatch):
    # A CPU clock that advances 1 ms at each reading, and a wall clock that stands
    # still: a 10 ms CPU budget stops after about ten iterations; a wall-clock budget
    # would never stop. So load elsewhere on the machine, which moves the wall clock
    # but not this process's CPU time, does not change the search.
    from vora_host.bots import search as search_module
    ticks = iter(range(10 ** 6))
    monkeypatch.setitem(search_module._CLOCKS, "cpu", lambda: next(ticks) / 1000.0)
    monkeypatch.setitem(search_module._CLOCKS, "wall", lambda: 0.0)
    state = positions(vora, 3, 2, 4)[-1]
    bot = make_bot("search:10ms:clock=cpu", 5, "vora")
    bot.choose(state)
    assert 8 <= bot.last["iterations"] <= 10
    assert bot.kind == "search:10ms:clock=cpu"
    assert make_bot(bot.kind, 5, "vora").clock == "cpu"


def test_a_clock_needs_a_time_budget():
    with pytest.raises(ValueError) as exc:
        make_bot("search:200:clock=cpu", 1)
    assert "clock=cpu needs a time budget" in str(exc.value)
    with pytest.raises(ValueError) as exc:
        make_bot("search:50ms:clock=sundial", 1)
    assert "clock takes wall or cpu, not 'sundial'" in str(exc.value)


def test_bad_budgets():
    for kwargs in ({"iterations": 0}, {"iterations": 2.5}, {"ms": 0}, {"ms": "5"},
                   {"horizon": -1}, {"temperature": 0}, {"reuse": "on"}):
        with pytest.raises(ValueError):
            SearchBot(1, **kwargs)


# ---------------------------------------------------------------- keeping the tree

def test_with_reuse_a_turn_of_several_moves_is_searched_as_one():
    # Gaia-Vora's turn is a rotation, then a Sky Object: with reuse=on the second
    # decision goes on from the subtree of the first one's move, its visits and all.
    from shared_rules import gaia_vora
    state = gaia_vora.new_game(4, 0)
    bot = make_bot("search:60:reuse=on", 5, "gaia-vora")
    assert bot.reuse and bot.kind.endswith(":reuse=on")
    first = bot.choose(state)
    assert first.startswith("rotate ") and bot.last["reused"] == 0
    visits = bot.last["visits"][first]
    assert visits > 1
    state.play(first)
    second = bot.choose(state)
    assert second in state.legal_moves()
    assert bot.last["reused"] == visits and bot.last["iterations"] == 60
    # The move's first visit opened it; each later one went through one of its children.
    assert sum(bot.last["visits"].values()) == visits - 1 + 60
    # Without reuse (the class default), the same decision starts from nothing.
    plain = make_bot("search:60", 5, "gaia-vora")
    assert not plain.reuse and "reuse" not in plain.kind
    plain.choose(state)
    assert plain.last["reused"] == 0 and sum(plain.last["visits"].values()) == 60


def test_reuse_starts_afresh_from_a_view_it_did_not_expect():
    from shared_rules import gaia_vora
    state = gaia_vora.new_game(3, 0)
    bot = SearchBot(2, iterations=30, reuse=True)  # any game: the module of the state
    state.play(bot.choose(state))  # a rotation: the bot expects its Sky Object next
    other = gaia_vora.new_game(3, 0)
    other.play("rotate 3" if state.stars[0] == 4 else "rotate 2")  # another rotation
    assert other.view(0) != state.view(0)
    bot.choose(other)
    assert bot.last["reused"] == 0
    # ... and after a decision in another game it keeps nothing for this one.
    state = gaia_vora.new_game(3, 0)
    state.play(bot.choose(state))
    bot.choose(vora.new_game(2, 0))
    bot.choose(state)
    assert bot.last["reused"] == 0
    # (while straight after its rotation it would have gone on)
    state = gaia_vora.new_game(3, 0)
    state.play(bot.choose(state))
    bot.choose(state)
    assert bot.last["reused"] > 0


def test_reuse_keeps_nothing_when_a_move_has_chance_in_it():
    # In Vora the refills are future draws, sampled afresh in every determinization,
    # so no move's outcome is certain and every decision starts from nothing, even
    # those where the player acts again (collecting after a push).
    state = vora.new_game(2, 4)
    bot = SearchBot(3, iterations=20, reuse=True)
    again = 0
    while not state.is_over() and state.turn_count() < 12:
        me = state.to_act()
        move = bot.choose(state)
        assert bot.last["reused"] == 0 and bot._kept is None
        state.play(move)
        again += state.to_act() == me
    assert again > 0  # the case was met


# ---------------------------------------------------------------- legal, untouched, reproducible

@pytest.mark.parametrize("module,players", [(vora, 2), (vora, 3), (vora, 4), (toy_nim, 2),
                                            (toy_nim, 4), (toy_duel, 2)],
                         ids=lambda x: getattr(x, "NAME", x))
def test_search_plays_legal_moves_and_never_changes_its_input(module, players):
    state = module.new_game(players, 11)
    agents = [SearchBot(p, iterations=12) for p in range(players)]
    moves = 0
    while not state.is_over():
        me = state.to_act()
        text, view = state.to_json(), state.view(me)
        legal = state.legal_moves()
        move = agents[me].choose(state)
        assert move in legal
        assert state.to_json() == text and state.view(me) == view
        state.play(move)
        moves += 1
    assert moves > 3


def test_the_view_given_is_not_changed():
    # choose_from_view plays thousands of simulations from one view: it must stay as given.
    for module, state in ((vora, positions(vora, 2, 1, 5)[-1]),
                          (toy_duel, positions(toy_duel, 2, 1, 3)[-1])):
        view = state.view(state.to_act())
        kept = json.dumps(view, sort_keys=True)
        SearchBot(1, iterations=200).choose_from_view(view, module)
        assert json.dumps(view, sort_keys=True) == kept


def test_same_seed_same_move_and_same_game():
    for state in positions(vora, 3, 8, 5) + positions(toy_duel, 2, 8, 3):
        a = SearchBot(42, iterations=60).choose(state)
        b = SearchBot(42, iterations=60).choose(state.clone())
        assert a == b
    # A whole game between search bots plays out the same twice.
    runs = []
    for _ in range(2):
        bots = [SearchBot(7, iterations=15), SearchBot(8, iterations=15)]
        runs.append(play_game(vora, bots, 5, max_turns=30).to_json())
    assert runs[0] == runs[1]


def test_the_seed_matters():
    # Different seeds search differently: the visit counts differ (the move may agree).
    state = positions(vora, 2, 4, 4)[-1]
    visits = set()
    for seed in range(3):
        bot = SearchBot(seed, iterations=80)
        bot.choose(state)
        visits.add(json.dumps(bot.last["visits"], sort_keys=True))
    assert len(visits) == 3


# ---------------------------------------------------------------- the view alone

class ViewOnly:
    """A state that shows its player's view and nothing else: any other look fails."""

    def __init__(self, state):
        self._state = state

    def to_act(self):
        return self._state.to_act()

    def view(self, player=None):
        assert player == self._state.to_act(), "a bot asked for another player's view"
        return self._state.view(player)


@pytest.mark.parametrize("module,players", [(vora, 2), (vora, 4), (toy_duel, 2)],
                         ids=lambda x: getattr(x, "NAME", x))
def test_full_state_and_view_alone_choose_the_same(module, players):
    for state in positions(module, players, 6, 4, every=2):
        me = state.to_act()
        full = SearchBot(9, iterations=80)
        move = full.choose(state)
        from_view = SearchBot(9, iterations=80)
        assert from_view.choose_from_view(state.view(me), module) == move
        proxied = SearchBot(9, iterations=80, game=module)
        assert proxied.choose(ViewOnly(state)) == move
        # The whole search saw the same: the same visits at the root.
        assert from_view.last["visits"] == full.last["visits"] == proxied.last["visits"]


def assert_same_search(state, other, me, iterations, tree="moves"):
    """`other` looks the same to player `me` as `state`, and the bot searches both alike,
    visit for visit."""
    assert other.view(me) == state.view(me)
    a = SearchBot(3, iterations=iterations, tree=tree)
    b = SearchBot(3, iterations=iterations, tree=tree)
    assert a.choose(state) == b.choose(other)
    assert a.last["visits"] == b.last["visits"]


def test_secrets_it_cannot_know_change_nothing():
    # Duel: the other hand and the pile dealt otherwise. The bot's search, visit for
    # visit, is the same: it never looked at them.
    checked = 0
    for seed in range(6):
        for state in positions(toy_duel, 2, seed, 4, every=2):
            me = state.to_act()
            other = secrets_swapped(state, me)
            if other.to_json() == state.to_json():
                continue
            assert_same_search(state, other, me, 60)
            checked += 1
    assert checked >= 10
    # Vora: the only secret is the PRNG (the box's next draws).
    for state in positions(vora, 2, 3, 4):
        other = state.clone()
        other.rng = state.rng ^ 0x5A5A5A5A
        a, b = SearchBot(3, iterations=60), SearchBot(3, iterations=60)
        assert a.choose(state) == b.choose(other)
        assert a.last["visits"] == b.last["visits"]


REGISTERED = [(name, players) for name in games.names()
              for players in games.load(name).PLAYER_COUNTS[:2]]


@pytest.mark.parametrize("name,players", REGISTERED, ids=lambda x: str(x))
def test_every_game_the_full_state_and_its_view_choose_the_same(name, players):
    # The games themselves, hidden information and chance included: the bot given the
    # full state and the bot given only the view make the same search, visit for visit.
    module = games.load(name)
    checked = 0
    for seed in (1, 2):
        for state in positions(module, players, seed, 3, every=4):
            if len(state.legal_moves()) < 2:
                continue
            me = state.to_act()
            full = SearchBot(5, iterations=25)
            move = full.choose(state)
            alone = SearchBot(5, iterations=25, game=module)
            assert alone.choose(ViewOnly(state)) == move
            assert alone.last["visits"] == full.last["visits"]
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("tree", ["moves", "infosets"])
@pytest.mark.parametrize("name", [n for n in games.names()
                                  if games.load(n).HIDDEN_INFORMATION])
def test_in_the_hidden_games_secrets_it_cannot_know_change_nothing(name, tree):
    # Tossing Tiger's hands and piles, Boars' bags: another deal of everything the player
    # to act cannot know (determinize() of their view, a state they cannot tell from the
    # true one) leaves the search as it was, visit for visit.
    module = games.load(name)
    checked = 0
    for seed in (3, 4, 5):
        for state in positions(module, 2, seed, 4, every=5):
            if len(state.legal_moves()) < 2:
                continue
            me = state.to_act()
            other = module.determinize(state.view(me), 777 + seed)
            if other.to_json() == state.to_json():
                continue
            assert_same_search(state, other, me, 30, tree)
            checked += 1
    assert checked >= 3, "the test must compare states that really differ in secrets"


def test_with_infosets_the_others_decide_by_what_they_hold():
    # tree=infosets (OpenSpiel's ISMCTSBot's nodes): below the root a node is what the
    # player to act knows in the sample, so the other player's decisions split by the hand
    # each sample deals them. The same search on samples that always deal the true hands
    # and pile (a bot that peeked) has fewer nodes: what split them was the hands.
    class Dealt:
        NAME = toy_duel.NAME

        def __init__(self, truth):
            self.truth = truth

        def determinize(self, view, seed):
            return toy_duel.from_json(self.truth)

    more = 0
    for seed in range(4):
        for state in positions(toy_duel, 2, seed, 4, every=2):
            if len(state.legal_moves()) < 2:
                continue
            view = state.view(state.to_act())
            fair = SearchBot(3, iterations=200, tree="infosets")
            fair.choose_from_view(view, toy_duel)
            peeked = SearchBot(3, iterations=200, tree="infosets")
            peeked.choose_from_view(view, Dealt(state.to_json()))
            assert sum(fair.last["visits"].values()) == 200
            more += fair.last["infosets"] > peeked.last["infosets"]
            plain = SearchBot(3, iterations=200)
            plain.choose_from_view(view, toy_duel)
            assert "infosets" not in plain.last
    assert more >= 3


def test_a_bot_that_peeked_would_be_caught():
    # The check above can fail: a search that plays on the true state (the secrets
    # included) instead of on samples of the view searches differently when they change.
    class Peeking(SearchBot):
        def choose(self, state):
            module = toy_duel
            truth = state.to_json()
            original = module.determinize
            module.determinize = lambda view, seed: module.from_json(truth)
            try:
                return SearchBot.choose_from_view(self, state.view(state.to_act()), module)
            finally:
                module.determinize = original

    differs = 0
    for seed in range(6):
        for state in positions(toy_duel, 2, seed, 4, every=2):
            other = secrets_swapped(state, state.to_act())
            a, b = Peeking(3, iterations=60), Peeking(3, iterations=60)
            a.choose(state)
            b.choose(other)
            differs += a.last["visits"] != b.last["visits"]
    assert differs >= 3


# ---------------------------------------------------------------- rewards

def test_rewards():
    bot = SearchBot(1, temperature=3.0)
    over = toy_nim.from_json(dict(toy_nim.new_game(3, 0).view(), pile=0, taker=2, rng=1))
    assert bot.rewards(over) == [0.0, 0.0, 1.0]
    duel = toy_duel.from_json(json.loads(toy_duel.new_game(2, 0).to_json()))
    duel.points = [2, 2]
    duel.hands = [[], []]
    duel.played = list(range(1, 11))
    duel.pile = []
    assert duel.is_over() and duel.winner() is None
    assert bot.rewards(duel) == [0.5, 0.5]  # a draw is shared
    level = toy_duel.new_game(2, 0)
    assert bot.rewards(level) == [0.5, 0.5]
    level.points = [3, 0]  # a lead of T points, the game not over: about 0.73
    r = bot.rewards(level)
    assert r[0] == pytest.approx(0.7311, abs=1e-3) and sum(r) == pytest.approx(1)


# ---------------------------------------------------------------- it plays well

def match(module, players, make, games_count, seed0=0):
    """The search bot at each seat in turn against random bots: its wins."""
    wins = 0
    for g in range(games_count):
        seat = g % players
        agents = [RandomBot(1000 + g * 10 + p) for p in range(players)]
        agents[seat] = make(g)
        state = play_game(module, agents, seed0 + g)
        wins += state.winner() == seat
    return wins


def test_search_beats_random_at_nim():
    # Random against random wins about half of the two-player games and a third of
    # the three-player ones.
    assert match(toy_nim, 2, lambda g: SearchBot(g, iterations=150), 30) >= 27
    assert match(toy_nim, 3, lambda g: SearchBot(g, iterations=150), 30) >= 18


def test_search_beats_random_at_the_hidden_duel():
    # The duel has much luck in the deal: random against random wins half the games;
    # a player who answers well wins about seven in ten.
    wins = match(toy_duel, 2, lambda g: SearchBot(g, iterations=100), 80)
    assert wins >= 50, wins


def test_search_beats_random_at_vora():
    # Seven games against random players (who hardly ever collect a line), at a small
    # budget: a random player in the search bot's seat would win them all about once
    # in 2300 tries.
    results = []
    for players, g in ((2, 0), (2, 1), (2, 2), (2, 3), (3, 4), (4, 5), (4, 6)):
        seat = g % players
        agents = [RandomBot(50 + p) for p in range(players)]
        agents[seat] = SearchBot(g, iterations=40)
        state = play_game(vora, agents, 30 + g)
        results.append((seat, state.winner(), state.scores()))
    assert all(seat == winner for seat, winner, _ in results), results


# ---------------------------------------------------------------- the command line

def test_vora_play_takes_search_kinds(tmp_path):
    path = tmp_path / "game.json"
    assert main(["play", "--bots-only", "--quiet", "--seed", "4", "--bot", "search:20,random",
                 "--record", str(path)]) == 0
    record = json.loads(path.read_text())
    assert [a["kind"] for a in record["agents"]] == ["search:20", "random"]
    assert games.replay(record).digest() == record["digests"][-1]
    # The record's kinds and seeds make the same game again.
    agents = [make_bot(a["kind"], a["seed"]) for a in record["agents"]]
    state = play_game(vora, agents, 4)
    assert state.digest() == record["digests"][-1]


def test_vora_play_names_a_bad_search_kind(capsys):
    with pytest.raises(SystemExit) as done:
        main(["play", "--bots-only", "--bot", "search:lots"])
    assert done.value.code == 2
    assert "--bot: search bot: cannot read 'lots'; write e.g. search:2000" in capsys.readouterr().err


def test_a_move_that_wins_at_once_is_played_even_with_one_simulation_each():
    # Nim, 3 stones, 2 players, simulations to the end (horizon 10): "take 3" wins at
    # once; "take 1" leaves 2 and its one random simulation wins half the time (the
    # opponent takes 1). With 3 iterations
    # each root move has one simulation, and a tie between two winning simulations
    # used to go to the first legal move, "take 1": the move that won the game at once
    # in every simulation of it now comes first.
    for seed in range(20):
        bot = SearchBot(seed, iterations=3, game=toy_nim, horizon=10)
        assert bot.choose(toy_nim.new_game(2, 0, stones=3)) == "take 3", seed


def test_a_game_may_choose_its_rollout_policy(monkeypatch):
    # SEARCH_ROLLOUT in a host package plays the simulations past the tree;
    # rollout=random turns it off, and the kind spells it.
    from vora_host.games import vorcept as host_vorcept
    from shared_rules import vorcept
    calls = []

    def counting(state, rng):
        calls.append(1)
        return rng.choice(state.legal_moves())
    monkeypatch.setattr(host_vorcept, "SEARCH_ROLLOUT", counting)
    state = positions(vorcept, 2, 3, 12)[-1]
    make_bot("search:20", 1, "vorcept").choose(state)
    assert calls
    del calls[:]
    bot = make_bot("search:20:rollout=random", 1, "vorcept")
    assert bot.kind == "search:20:horizon=200:rollout=random"
    bot.choose(state)
    assert not calls
    with pytest.raises(ValueError) as exc:
        make_bot("search:20:rollout=clever", 1, "vorcept")
    assert "rollout takes game or random, not 'clever'" in str(exc.value)
