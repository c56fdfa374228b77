"""The search bot: information-set Monte Carlo tree search over any game of the registry.

It decides from what its player may know, nothing more: `choose(state)` only reads
`state.to_act()` and `state.view(me)`, and `choose_from_view(view)` does the rest. Each
iteration of the search

1. draws a full state the view allows, `module.determinize(view, seed)`, with a seed from
   the bot's own generator: the hidden cards, bags and future draws are sampled afresh
   every time, consistently with what the player has seen (for a game without secrets
   only the future draws change);
2. walks down one tree of move sequences shared by all samples (single-observer ISMCTS,
   Cowling, Powley and Whitehouse 2012): at each node only the moves legal in this sample
   count, a child's UCB1 exploration uses how often it was *available* rather than its
   parent's visits, and the first move of the sample not yet in the tree is added (the
   root's moves are the same in every sample: each is tried once, in an order drawn
   once, then plain UCB1 chooses among them);
3. plays random moves from there up to a horizon (`horizon` turns after the position
   searched, by `turn_count()`, and at most `max_rollout_moves` moves), because random
   games of Vora last hundreds of moves and their end says little about the move tried;
4. scores the state reached with one reward per player (below) and adds to each node
   on the path the reward of the player who chose the move into it (max^n: each player
   maximises their own reward; no paranoid coalition).

Rewards, each from 0 to 1. A finished game: the winner 1, the others 0; a draw
(`winner()` is None) shares 1 between the players with the best score. A game cut at the
horizon: a soft estimate of who would win from each player's points, the softmax of the
points with temperature `temperature`: player p gets exp(s_p/T) / sum exp(s_q/T). The
points are `scores()`, or the game's own estimate when its host package has one
(`SEARCH_POINTS`, see `game_points`), unless the kind says `points=scores`.
Two players level get 1/2 each, a lead of T points is worth 0.73 in a two-player game,
and as T shrinks it becomes the finished game's win/draw reward, so cut and finished
games are measured alike.

The move chosen is the root's most visited child (then the best mean reward, then the
first in `legal_moves()` order).

Keeping the tree (`reuse=on`): when the move chosen leaves the same player to act and its
outcome is certain (the move played on two samples of different seeds gives the same
state), the bot keeps that move's subtree; if its next decision starts from exactly the
view it expected, the search goes on from that subtree instead of from nothing, so a turn
made of several moves (Gaia-Vora's rotation, Sky Object and placements) is searched as
one. Any other view, or a game with secrets or chance in the move, starts afresh.

Budget: `iterations` (the same seed and the same view give the same move, on any
machine) or `ms` (milliseconds: as many iterations as fit, so the move depends on the
machine's speed and is not reproducible). With both, whichever ends first. The
milliseconds are wall-clock time by default (`clock="wall"`: what a person waits), or
the process's CPU time (`clock="cpu"`, `time.process_time`), which other work on the
machine does not eat into: the budget to compare bots at equal time. Command-line and
lab spelling: see `SearchBot.from_spec`.
"""

import json
import math
import re
import sys
import time

from shared_rules import games, prng
from shared_rules.errors import BadPosition

from vora_host.bots.base import Bot

__all__ = ["SearchBot", "game_settings", "game_points", "game_rollout"]

DEFAULT_ITERATIONS = 1000
_TIME = re.compile(r"^(\d+(?:\.\d+)?)(ms|s)$")  # a time budget: 50ms, 1.5s
_SEEDS = prng.SEED_MAX + 1  # determinize() takes every game's seeds from 0 to SEED_MAX


class _Edge:
    """A move's statistics at its parent (with tree=infosets, where the node the move
    leads to is looked up by information state, not kept below the move)."""

    __slots__ = ("visits", "reward", "avail")

    def __init__(self):
        self.visits = 0
        self.reward = 0.0  # summed rewards of the player who chose the move into here
        self.avail = 1  # iterations in which this move was legal at its parent


class _Node(_Edge):
    """A node of the tree: the move sequence that leads here from the root."""

    __slots__ = ("children",)

    def __init__(self):
        _Edge.__init__(self)
        self.children = {}  # move -> _Node (or _Edge with tree=infosets)


def _turns(text):
    # A horizon in a kind: a whole number of turns, or "round" for one round (None, the
    # class default, which a game's own horizon would otherwise replace).
    return None if text == "round" else int(text)


_POINTS = ("game", "scores")  # what judges a cut game: the game's estimate, or scores()
_ROLLOUTS = ("game", "random")  # how simulations play: the game's own policy, or at random
# What a node below the root stands for: the move sequence from the root, shared by every
# sample (single observer), or the information state of the player to act in the sample
# (OpenSpiel's ISMCTSBot's nodes: a player's later decisions split by what they saw).
_TREES = ("moves", "infosets")
# What a time budget counts: wall-clock time, or the process's CPU time.
_CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _switch(text):
    # An on/off setting in a kind: "on" or "off", as spec() spells it.
    if text not in ("on", "off"):
        raise ValueError(text)
    return text == "on"


def _one_of(choices):
    # The parser of a setting whose value is one of `choices` (clock, rollout, tree, points).
    def parse(text):
        if text not in choices:
            raise ValueError(text)
        return text
    return parse


def game_settings(game):
    """The search settings a game's host package chose for it (`SEARCH` in
    vora_host.games.<module>: {name: value} of c, horizon, temperature,
    max_rollout_moves, points, reuse), measured with bench/bench_bots.py; {} for a game
    without, or when `game` is not a registry name."""
    return getattr(_host_package(game), "SEARCH", {})


def game_points(game):
    """The function a game's host package gives for judging a simulation cut before the
    end (`SEARCH_POINTS` in vora_host.games.<module>: state -> a number per player, on
    the scale of the scores), or None: judge by `scores()`. `game` is a registry name."""
    return getattr(_host_package(game), "SEARCH_POINTS", None)


def game_rollout(game):
    """The function a game's host package gives for choosing a simulation's moves past
    the tree (`SEARCH_ROLLOUT` in vora_host.games.<module>: (state, rng) -> a legal move
    of `state`, drawing any randomness from `rng`, the bot's random.Random), or None:
    uniformly random moves. `game` is a registry name."""
    return getattr(_host_package(game), "SEARCH_ROLLOUT", None)


def _host_package(game):
    # vora_host.games.<module> of a registry name; None when `game` is not one (a toy
    # game of the tests, a module): the class defaults then.
    if not isinstance(game, str):
        return None
    from vora_host import games as host_games
    try:
        return host_games.host_game(game)
    except (BadPosition, ImportError):
        return None


class SearchBot(Bot):
    """Information-set Monte Carlo tree search (see the module's documentation).

    seed:        the bot's own generator (determinizations and rollouts)
    iterations:  iterations per decision (default 1000 when `ms` is not given either)
    ms:          milliseconds per decision instead (not reproducible)
    clock:       what `ms` counts: "wall" (wall-clock time) or "cpu" (the process's
                 CPU time, time.process_time: the same search on a loaded machine)
    game:        the rules module or its registry name; None: the module that defines
                 the class of the state given to `choose`
    c:           UCB1 exploration constant (rewards are 0..1). Low by default: the
                 rewards of games cut at the horizon differ by little (a point of
                 score is 0.08), and on Vora 0.2 beat 0.7 clearly (docs/benchmarks.md)
    horizon:     turns played past the searched position before a simulation is cut and
                 judged by the players' points; None: one round (as many turns as players),
                 spelled "horizon=round" in a kind
    temperature: points of score difference that make a cut game's estimate softer
    max_rollout_moves: a cap on the random moves of one simulation, whatever the turns
    points:      what a cut game is judged by: "game" (the game's own estimate,
                 `game_points`, when it has one, else `scores()`) or "scores"
    rollout:     how a simulation plays past the tree: "game" (the game's own policy,
                 `game_rollout`, when it has one, else random moves) or "random"
    reuse:       keep the subtree of the move chosen for the bot's next decision when
                 that move leaves it to act and its outcome is certain (module docs)
    """

    kind = "search"

    def __init__(self, seed=0, iterations=None, ms=None, game=None, c=0.2, horizon=None,
                 temperature=3.0, max_rollout_moves=200, points="game", reuse=False,
                 clock="wall", rollout="game", tree="moves"):
        super().__init__(seed)
        if iterations is None and ms is None:
            iterations = DEFAULT_ITERATIONS
        if iterations is not None and (not isinstance(iterations, int)
                                       or isinstance(iterations, bool) or iterations < 1):
            raise ValueError("iterations must be a whole number of at least 1, not %r"
                             % (iterations,))
        if ms is not None and (isinstance(ms, bool) or not isinstance(ms, (int, float))
                               or not ms > 0):
            raise ValueError("ms must be a number of milliseconds above 0, not %r" % (ms,))
        if horizon is not None and (not isinstance(horizon, int) or horizon < 0):
            raise ValueError("horizon must be a whole number of turns (0 or more), not %r"
                             % (horizon,))
        if not c >= 0 or not temperature > 0 or max_rollout_moves < 0:
            raise ValueError("c must be >= 0, temperature > 0 and max_rollout_moves >= 0")
        if points not in _POINTS:
            raise ValueError("points must be %s, not %r" % (" or ".join(_POINTS), points))
        if not isinstance(reuse, bool):
            raise ValueError("reuse must be True or False, not %r" % (reuse,))
        if rollout not in _ROLLOUTS:
            raise ValueError("rollout must be %s, not %r" % (" or ".join(_ROLLOUTS), rollout))
        if clock not in _CLOCKS:
            raise ValueError("clock must be wall or cpu, not %r" % (clock,))
        if tree not in _TREES:
            raise ValueError("tree must be %s, not %r" % (" or ".join(_TREES), tree))
        if reuse and tree != "moves":
            raise ValueError("reuse=on keeps a subtree of the tree of moves: not with "
                             "tree=%s" % tree)
        if clock != "wall" and ms is None:
            raise ValueError("clock=%s needs a time budget (search:50ms:clock=%s)"
                             % (clock, clock))
        self.iterations = iterations
        self.ms = ms
        self.game = game
        self.c = float(c)
        self.horizon = horizon
        self.temperature = float(temperature)
        self.max_rollout_moves = max_rollout_moves
        self.points = points
        self.reuse = reuse
        self.clock = clock
        self.rollout = rollout
        self.tree = tree
        # The subtree kept for the next decision: (the view text expected, the game
        # module, the node), or None.
        self._kept = None
        self._cut_points = None  # the points function of the game being searched
        self._cut_points_of = None  # ... and the name of that game
        self._policy = None  # the rollout policy of that game, or None: random moves
        # What the last decision did: iterations, seconds, the root's visit counts and
        # the visits it went on from (reused).
        self.last = {}
        self.kind = self.spec()

    # ---- naming

    # (name, class default, parser, what the parser takes: for the error message)
    _PARAMS = (("c", 0.2, float, "a number"),
               ("horizon", None, _turns, "a number (or round)"),
               ("temperature", 3.0, float, "a number"),
               ("max_rollout_moves", 200, int, "a number"),
               ("points", "game", _one_of(_POINTS), "game or scores"),
               ("reuse", False, _switch, "on or off"),
               ("clock", "wall", _one_of(_CLOCKS), "wall or cpu"),
               ("rollout", "game", _one_of(_ROLLOUTS), "game or random"),
               ("tree", "moves", _one_of(_TREES), "moves or infosets"))

    def spec(self):
        """The kind string that makes this bot again with `make_bot` (records keep it)."""
        parts = ["search"]
        if self.iterations is not None and (self.ms is not None
                                            or self.iterations != DEFAULT_ITERATIONS):
            parts.append(str(self.iterations))
        if self.ms is not None:
            parts.append("%gms" % self.ms)
        # A setting the game chooses is always spelled, even set back to the class
        # default: from_spec starts from the game's settings, and the kind must make
        # this very bot again.
        game = self.game if isinstance(self.game, str) else getattr(self.game, "NAME", None)
        chosen = game_settings(game)
        for name, default, _, _ in self._PARAMS:
            value = getattr(self, name)
            if value != default or name in chosen:
                parts.append("%s=%s" % (name, _spelled(value)))
        return ":".join(parts)

    @classmethod
    def from_spec(cls, seed, game, arg):
        """A search bot from the part of a kind string after "search:".

        Parts separated by colons: a whole number is the iteration budget, a number
        with "ms" (or "s") a time budget, and name=value sets c, horizon, temperature,
        max_rollout_moves, points, reuse, clock (what the time budget counts: wall,
        the default, or cpu), rollout (game or random) or tree (moves or infosets). "search:2000", "search:50ms", "search:1.5s",
        "search:50ms:clock=cpu",
        "search:500:horizon=8:c=1", "search:200:horizon=round",
        "search:200:points=scores", "search:200:reuse=on". ValueError names the part it
        cannot read. Settings not given are the game's own (`game_settings`), else the
        class defaults; the bot's `kind` spells out every one that differs from the
        class defaults or that the game chooses, so a record names the very bot that
        played.
        """
        kwargs = dict(game_settings(game))
        kinds = {n: (k, takes) for n, _, k, takes in cls._PARAMS}
        for part in arg.split(":") if arg else ():
            text = part.strip().lower()
            name, _, value = text.partition("=")
            timed = _TIME.match(text)
            if value:
                if name not in kinds:
                    raise ValueError("search bot: unknown setting %r in %r (known: %s)"
                                     % (name, part, ", ".join(sorted(kinds))))
                parse, takes = kinds[name]
                try:
                    kwargs[name] = parse(value)
                except ValueError:
                    raise ValueError("search bot: %s takes %s, not %r" % (name, takes, value))
            elif text.isdigit():
                kwargs["iterations"] = int(text)
            elif timed:
                kwargs["ms"] = float(timed.group(1)) * (1 if timed.group(2) == "ms" else 1000)
            else:
                raise ValueError("search bot: cannot read %r; write e.g. search:2000 "
                                 "(iterations), search:50ms or search:2s (time), "
                                 "search:500:horizon=8" % (part,))
        try:
            return cls(seed, game=game, **kwargs)
        except ValueError as exc:
            raise ValueError("search bot %r: %s" % ("search:" + arg, exc))

    # ---- deciding

    def _module(self, state):
        if self.game is None:
            return sys.modules[type(state).__module__]
        if isinstance(self.game, str):
            return games.load(self.game)
        return self.game

    def choose(self, state):
        """The move for the player to act, decided from that player's view alone."""
        me = state.to_act()
        return self.choose_from_view(state.view(me), self._module(state))

    def choose_from_view(self, view, module=None, always_search=False):
        """The move for the player to act, from their `view` (`state.view(player)`).

        `always_search`: search a position with one legal move too (a bot answers it at
        once; an evaluation, `evaluate`, needs its values)."""
        if module is None:
            if not isinstance(self.game, str) and self.game is not None:
                module = self.game
            elif self.game is None:
                raise ValueError("choose_from_view needs the game: SearchBot(game=...)")
            else:
                module = games.load(self.game)
        started = time.perf_counter()
        clock = _CLOCKS[self.clock]
        started_clock = clock()
        self._judge_by(module)
        # Each sample is built from its own copy of the view: a game module that shared
        # lists between a view and its sample would otherwise let one simulation change
        # what the next one believes it saw.
        text = json.dumps(view)
        rng = self.rng
        sample = module.determinize(json.loads(text), rng.randrange(_SEEDS))
        moves = sample.legal_moves()
        if not moves:
            raise ValueError("no legal move: the game is over")
        kept, self._kept = self._kept, None
        if len(moves) == 1 and not always_search:
            self.last = {"iterations": 0, "seconds": time.perf_counter() - started,
                         "visits": {moves[0]: 0}, "reused": 0}
            return moves[0]
        players = len(sample.scores())
        horizon = players if self.horizon is None else self.horizon
        limit_turn = sample.turn_count() + horizon
        if kept is not None and kept[0] == text and kept[1] is module:
            root = kept[2]  # the view this bot expected: go on searching its subtree
        else:
            root = _Node()
        reused = root.visits
        # The root's moves are legal in every sample (the view shows them): they are
        # tried once each, in an order drawn once, then chosen by plain UCB1.
        untried = [m for m in moves if m not in root.children]
        rng.shuffle(untried)
        deadline = None if self.ms is None else started_clock + self.ms / 1000.0
        budget = self.iterations
        done = 0
        won_at_once = {}  # root move -> simulations in which it won the game at once
        # tree=infosets: the nodes below the root by information state ({key: node}).
        self._infosets = {} if self.tree == "infosets" else None
        self._child = _Node if self._infosets is None else _Edge
        # Every player's rewards summed over this decision's simulations: the root's
        # value for each (read by evaluate(); no decision depends on it).
        self._root_sum = [0.0] * players
        while True:
            self._iterate(sample, root, moves, untried, limit_turn, won_at_once)
            done += 1
            if budget is not None and done >= budget:
                break
            if deadline is not None and clock() >= deadline:
                break
            sample = module.determinize(json.loads(text), rng.randrange(_SEEDS))
        children = root.children
        # A move that won the game at once in every simulation of it comes first: with
        # few iterations a root move may have one simulation, and a win found later in a
        # rollout would otherwise tie with it.
        best = max(moves, key=lambda m: _rank(children.get(m), won_at_once.get(m, 0)))
        # max() keeps the first of equals, so ties go to the earliest legal move.
        self.last = {"iterations": done, "seconds": time.perf_counter() - started,
                     "visits": {m: children[m].visits for m in moves if m in children},
                     "reused": reused,
                     # The root's mean reward for each player over this decision's
                     # simulations, and each root move's mean reward for the mover.
                     "value": [r / done for r in self._root_sum],
                     "values": {m: children[m].reward / children[m].visits
                                for m in moves if m in children and children[m].visits}}
        if self._infosets is not None:
            self.last["infosets"] = len(self._infosets)  # nodes below the root
        self._infosets = None
        if self.reuse:
            self._keep(module, text, best, children[best])
        return best

    def evaluate(self, state, sample=None):
        """What the search thinks of `state` (not over), for a review: a dict with
        "value" (each player's mean reward over the simulations at the root: their chance
        to win, 0..1), "best" (the move the search would play), "values" ({move: the
        mover's mean reward through it}) and "player" (who acts). A position with one
        legal move is searched too. `sample(seed)`: a full state to search from (e.g. the
        true state with its PRNG reseeded, seeing every hand), instead of the game's
        `determinize` of the mover's view. Uses this bot's generator like a decision."""
        module = self._module(state)
        me = state.to_act()
        if sample is not None:
            class _Sampler:  # determinize() as choose_from_view calls it
                NAME = getattr(module, "NAME", None)

                @staticmethod
                def determinize(view, seed):
                    return sample(seed)
            module = _Sampler
        best = self.choose_from_view(state.view(me), module, always_search=True)
        return {"player": me, "best": best, "value": list(self.last["value"]),
                "values": dict(self.last["values"])}

    def _keep(self, module, text, move, node):
        # Keep `node`, the subtree of `move`, when the move leaves the same player to
        # act and its outcome is certain: played on samples of two different seeds, it
        # gives the same state (no secret and no chance in it). The next decision uses
        # it only if it starts from the very view expected here.
        after = []
        for seed in (0, 1):
            state = module.determinize(json.loads(text), seed)
            me = state.to_act()
            state.play(move)
            if state.is_over() or state.to_act() != me:
                return
            after.append(state)
        if after[0].to_json() == after[1].to_json():
            self._kept = (json.dumps(after[0].view(me)), module, node)

    def _iterate(self, state, root, root_moves, root_untried, limit_turn, won_at_once):
        rng = self.rng
        log = math.log
        sqrt = math.sqrt
        c = self.c
        player = state.to_act()
        if root_untried:
            move = root_untried.pop()
            child = root.children[move] = self._child()
            state.play(move)
            path = [(child, player)]  # (node, the player who chose the move into it)
            node = None  # a new leaf: the rollout starts here
            if state.is_over() and state.winner() == player:
                won_at_once[move] = won_at_once.get(move, 0) + 1
        else:
            children = root.children
            log_n = log(root.visits)
            best_value = -1.0
            for m in root_moves:
                child = children[m]
                value = child.reward / child.visits + c * sqrt(log_n / child.visits)
                if value > best_value:
                    best_value, move = value, m
            state.play(move)
            node = children[move]
            path = [(node, player)]
            if state.is_over() and state.winner() == player:
                won_at_once[move] = won_at_once.get(move, 0) + 1
        # Below the root: a sample's moves differ with its secrets and its chance, so
        # each node counts how often each child was available (ISMCTS).
        infosets = self._infosets
        while node is not None and not state.is_over():
            if infosets is not None:
                # The node is what the player to act knows here, in this sample: the
                # move sequence alone would merge decisions they could tell apart.
                key = json.dumps(state.view(state.to_act()), sort_keys=True)
                node = infosets.get(key)
                if node is None:
                    node = infosets[key] = _Node()
            moves = state.legal_moves()
            children = node.children
            untried = []
            for m in moves:
                child = children.get(m)
                if child is None:
                    untried.append(m)
                else:
                    child.avail += 1
            player = state.to_act()
            if untried:
                move = untried[0] if len(untried) == 1 else rng.choice(untried)
                child = children[move] = self._child()
                state.play(move)
                path.append((child, player))
                break
            best_value = -1.0
            move = None
            for m in moves:
                child = children[m]
                value = child.reward / child.visits + c * sqrt(log(child.avail) / child.visits)
                if value > best_value:
                    best_value, move = value, m
            state.play(move)
            node = children[move]
            path.append((node, player))
        # Rollout: the game's policy, or random moves, up to the horizon.
        steps = self.max_rollout_moves
        policy = self._policy
        if policy is None:
            choice = rng.choice
            while steps and not state.is_over() and state.turn_count() < limit_turn:
                state.play(choice(state.legal_moves()))
                steps -= 1
        else:
            while steps and not state.is_over() and state.turn_count() < limit_turn:
                state.play(policy(state, rng))
                steps -= 1
        rewards = self._rewards(state)
        root_sum = self._root_sum
        for p in range(len(root_sum)):
            root_sum[p] += rewards[p]
        root.visits += 1
        for node, player in path:
            node.visits += 1
            node.reward += rewards[player]

    def _judge_by(self, module):
        # The points function for cut games of `module` and its rollout policy, looked
        # up once per game.
        name = getattr(module, "NAME", None)
        if name != self._cut_points_of:
            self._cut_points_of = name
            self._cut_points = game_points(name) if self.points == "game" else None
            self._policy = game_rollout(name) if self.rollout == "game" else None

    def rewards(self, state):
        """One reward from 0 to 1 per player for a simulation's last state."""
        self._judge_by(sys.modules[type(state).__module__])
        return self._rewards(state)

    def _rewards(self, state):
        # rewards() once the points of the state's game are known: choose_from_view
        # looks them up once a decision, not once a simulation.
        if not state.is_over():  # cut at the horizon: the softmax of the points
            points = self._cut_points
            scores = state.scores() if points is None else points(state)
            top = max(scores)
            t = self.temperature
            weights = [math.exp((s - top) / t) for s in scores]
            total = sum(weights)
            return [w / total for w in weights]
        # A finished game: the winner 1; a draw shared by the best scores.
        scores = state.scores()
        n = len(scores)
        winner = state.winner()
        out = [0.0] * n
        if winner is not None:
            out[winner] = 1.0
        else:
            best = max(scores)
            tied = [p for p in range(n) if scores[p] == best]
            for p in tied:
                out[p] = 1.0 / len(tied)
        return out


def _spelled(value):
    # A setting's value as a kind string writes it: 12, 0.5, round, scores, on.
    if value is None:
        return "round"
    if isinstance(value, bool):
        return "on" if value else "off"
    return value if isinstance(value, str) else "%g" % value


def _rank(node, won_at_once=0):
    if node is None:
        return (False, -1, 0.0)
    return (won_at_once == node.visits, node.visits, node.reward / node.visits)
