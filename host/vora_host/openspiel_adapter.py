"""Every game of the registry as an OpenSpiel game (the optional extra
`pip install vora-board[openspiel]`), so that OpenSpiel's algorithms and tests run on it.

    from vora_host import openspiel_adapter
    game = openspiel_adapter.load("vorcept")          # a pyspiel.Game
    # or, once registered: pyspiel.load_game("vora_board_vorcept")

Moves: stable integer ids. `MoveCodec` numbers a game's whole move space from a grammar
written from its rules (the kinds of move, and for each argument the words it may take:
cells, edges, animals, card ids...), so the same move has the same id in every game,
every process and every version that keeps the grammar: the id of a move of kind k with
arguments w1..wn is offset(k) + sum_i (index of wi in slot i + 1) * radix_i, where slot i
of kind k has radix_i = prod_{j<i} (len(slot j) + 1) (0 means "no word": a kind may take
fewer words than its slots, as `pass` or `draw deck`). `encode` and `decode` are inverse;
a move outside the grammar raises ValueError (tests check every legal move of random
games).

Chance: the rules draw from the PRNG kept in `state.rng` inside `play()`, and their
distributions are not spelled out as lists of outcomes. The adapter models every draw as
a chance node over `chance_outcomes` (default 16) equally likely PRNG states: a move that
draws (it changes `state.rng`) leads to a chance node whose outcome k reseeds the
generator (from the generator's state before the move and k) before the move is played; the start of a
game that deals at random is a chance node over the game's seeds. With enough outcomes
this samples the game's own distribution; OpenSpiel algorithms that enumerate chance
(expectimax, CFR) see a sample of it, not the exact one.

Information: for the hidden-information games (Boars, Tossing Tiger) the information
state and the observation of a player are their view (`state.view(player)`, canonical
JSON), with the number of moves played (the views already carry what the rules let a
player remember); `resample_from_infostate` is the game's `determinize`. Tensors are not
provided. Returns: the winner +1, the others -1/(n-1); a draw 0 each (zero-sum).
"""

import json

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("the OpenSpiel adapter needs the optional extra: "
                      "pip install 'vora-board[openspiel]' (%s)" % exc)

from shared_rules import games, prng, secret_prng

__all__ = ["MoveCodec", "from_native", "grammar", "load", "register", "short_name"]

DEFAULT_CHANCE_OUTCOMES = 16
# Games whose rules never draw once dealt (no chance nodes): a move is played without
# keeping the state before it, which only a draw would need (docs/openspiel.md, Speed).
NEVER_DRAW = frozenset(("vorcept", "gaia-vora"))
MAX_GAME_LENGTH = 20000  # moves; every game ends sooner (its max_turns safeguard)
_CHANCE = pyspiel.PlayerId.CHANCE
_TERMINAL = pyspiel.PlayerId.TERMINAL


# ---------------------------------------------------------------- move ids

class MoveCodec:
    """A bijection between a game's moves (notation strings) and integers 0..size-1,
    from a grammar: a sequence of (kind, (slot words, slot words, ...))."""

    def __init__(self, grammar):
        self.kinds = {}  # kind -> (offset, slots, index of each slot's words, radices)
        self._by_offset = []  # (offset, kind), ascending
        offset = 0
        for kind, slots in grammar:
            if kind in self.kinds:
                raise ValueError("kind %r twice in the grammar" % (kind,))
            slots = tuple(tuple(s) for s in slots)
            radices = []
            radix = 1
            for words in slots:
                if len(set(words)) != len(words):
                    raise ValueError("a slot of %r repeats a word" % (kind,))
                radices.append(radix)
                radix *= len(words) + 1
            index = tuple(dict((w, i) for i, w in enumerate(words)) for words in slots)
            self.kinds[kind] = (offset, slots, index, tuple(radices))
            self._by_offset.append((offset, kind))
            offset += radix
        self.size = offset
        self._known = {}  # move -> id, filled as moves are encoded: searches ask again and again
        self._moves = {}  # id -> move, likewise

    def encode(self, move):
        number = self._known.get(move)
        if number is None:
            number = self._known[move] = self._encode(move)
        return number

    def _encode(self, move):
        words = move.split(" ")
        try:
            offset, slots, index, radices = self.kinds[words[0]]
        except KeyError:
            raise ValueError("move %r: no kind %r in the grammar" % (move, words[0]))
        if len(words) - 1 > len(slots):
            raise ValueError("move %r: more words than its kind takes" % (move,))
        number = offset
        for i, word in enumerate(words[1:]):
            try:
                number += (index[i][word] + 1) * radices[i]
            except KeyError:
                raise ValueError("move %r: %r is not a word of slot %d" % (move, word, i + 1))
        return number

    def encode_sorted(self, moves):
        """The ids of `moves`, ascending: a search's every step asks for a state's legal
        actions, and Vora's hundred-odd moves a state made a call to `encode` each half of
        an OpenSpiel playout's time (docs/openspiel.md, Speed)."""
        known = self._known
        try:
            ids = [known[m] for m in moves]
        except KeyError:
            ids = [self.encode(m) for m in moves]
        ids.sort()
        return ids

    def decode(self, number):
        move = self._moves.get(number)
        if move is None:
            move = self._moves[number] = self._decode(number)
        return move

    def _decode(self, number):
        if not 0 <= number < self.size:
            raise ValueError("move id %r out of range 0..%d" % (number, self.size - 1))
        kind = None
        for offset, name in self._by_offset:
            if offset > number:
                break
            kind, base = name, offset
        _, slots, _, radices = self.kinds[kind]
        rest = number - base
        args = []
        for i in range(len(slots) - 1, -1, -1):
            digit, rest = divmod(rest, radices[i])
            if digit:
                args.append(slots[i][digit - 1])
        return " ".join([kind] + args[::-1])


def _numbers(lo, hi):
    return [str(n) for n in range(lo, hi + 1)]


def _vora_grammar(state):
    from shared_rules import vora
    cells, edges, types = list(vora.CELL_NAMES), list(vora.EDGE_NAMES), list(vora.TYPES)
    players = _numbers(0, 3)
    out = [("pass", ())]
    out += [(k, (cells,)) for k in ("crow", "extra", "ladybug", "take", "water")]
    out += [(k, (cells, cells)) for k in ("duck", "mole")]
    out += [(k, (edges,)) for k in ("pig", "wolf")]
    out += [("push", (types, edges)), ("steal", (players, types))]
    return out


def _vorcept_grammar(state):
    cells = ["%s%d" % (chr(97 + x), y + 1) for x in range(state.size) for y in range(state.size)]
    drones = ["drone1", "drone2", "drone3"]
    return [("concede", ()), ("host", (cells,)), ("lava", (cells + ["done"],)),
            ("move", (cells, cells)), ("pylon", (cells,)), ("summon", (drones, cells))]


def _gaia_grammar(state):
    from shared_rules import gaia_vora as g
    locations = list(g.LOCATIONS)
    return [("meteor", (list(g.TILES), list(g.POSITIONS))),
            ("rainbow", (list(g.COLOURS), list(g.SPECIES), locations)),
            ("rotate", (_numbers(0, 4),)),
            ("storm", (list(g.SPECIES), locations)),
            ("sun", (list(g.SPECIES), locations))]


def _boars_grammar(state):
    from shared_rules import boars
    cards = [c["id"] for c in boars.cards_list(state.options()["cards"])]
    cubes = []  # every multiset of cube letters in colour order, 1 to 8 cubes

    def grow(prefix, first):
        if prefix:
            cubes.append(prefix)
        if len(prefix) < 8:
            for c in range(first, len(boars.LETTERS)):
                grow(prefix + boars.LETTERS[c], c)
    grow("", 0)
    players = _numbers(0, max(boars.PLAYER_COUNTS))
    draws = _numbers(0, 5 * state.options()["cubes"])  # draw 0: "any number" (#24)
    return [("buy", (cards, cubes)), ("diet", (cards + ["top", "bottom"], cards)),
            ("discard", (cards,)), ("draw", (draws,)), ("end", ()), ("lose", (cubes,)),
            ("menu", (["new", "keep"],)), ("take", (cubes,)),
            ("ticket", ([t[0] for t in boars.TICKETS],)),
            ("vendetta", (cards, players + cards, cards))]


def _tiger_grammar(state):
    from shared_rules import tossing_tiger as tt
    from shared_rules import tossing_tiger_data as data
    most = 30  # battles, dice and Roosters are numbered below this
    cards = list(data.ANIMALS) + [data.BIRD] + ["rooster%d" % n for n in range(1, most + 1)]
    sides = ["%d%s" % (n, s) for n in range(1, most + 1) for s in "ad"]
    words = _numbers(0, most) + cards + sides + ["deck"]
    return [(verb, (words, words)) for verb in tt._VERBS]


_GRAMMARS = {"vora": _vora_grammar, "vorcept": _vorcept_grammar, "gaia-vora": _gaia_grammar,
             "boars": _boars_grammar, "tossing-tiger": _tiger_grammar}


def grammar(name, state):
    """The move grammar of game `name` for the game `state` belongs to (its options can
    change the words: Vorcept's board size, Boars' card list)."""
    try:
        make = _GRAMMARS[name]
    except KeyError:
        raise ValueError("the OpenSpiel adapter has no move grammar for %r yet (add one to "
                         "openspiel_adapter._GRAMMARS; docs/openspiel.md)" % (name,))
    return make(state)


# ---------------------------------------------------------------- the OpenSpiel game

def short_name(name):
    """The OpenSpiel name of a registry game: vora_board_gaia_vora."""
    return "vora_board_" + name.replace("-", "_")


def _reseed(module):
    # The generator's seeding function of a game: secret_prng for the games whose seeds
    # reach its SEED_MAX (docs/adding-a-game.md), else prng.
    if games.seed_max(module) == secret_prng.SEED_MAX:
        return secret_prng.seed_state, secret_prng.SEED_MAX
    return prng.seed_state, prng.SEED_MAX


def _dealt(state):
    d = json.loads(state.to_json())
    d.pop("rng", None)
    return d


class _Game(pyspiel.Game):

    def __init__(self, name, params=None):
        params = dict(params or {})
        module = games.load(name)
        self.module = module
        self.name = name
        self.players = int(params.get("players", module.PLAYER_COUNTS[0]))
        self.chance_outcomes = int(params.get("chance_outcomes", DEFAULT_CHANCE_OUTCOMES))
        self.start = module.new_game(self.players, 0)
        self.codec = MoveCodec(grammar(name, self.start))
        self.seeding, self.seed_top = _reseed(module)
        # A game whose seed changes more than its generator deals at random.
        self.deals = _dealt(module.new_game(self.players, 1)) != _dealt(self.start)
        hidden = module.HIDDEN_INFORMATION
        info = pyspiel.GameType.Information
        kind = pyspiel.GameType(
            short_name=short_name(name), long_name="Vora Board: " + module.TITLE,
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=info.IMPERFECT_INFORMATION if hidden else info.PERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.ZERO_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=max(module.PLAYER_COUNTS), min_num_players=min(module.PLAYER_COUNTS),
            provides_information_state_string=hidden, provides_information_state_tensor=False,
            provides_observation_string=True, provides_observation_tensor=False,
            parameter_specification={"players": module.PLAYER_COUNTS[0],
                                     "chance_outcomes": DEFAULT_CHANCE_OUTCOMES})
        game_info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.size, max_chance_outcomes=self.chance_outcomes,
            num_players=self.players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(kind, game_info, {"players": self.players,
                                           "chance_outcomes": self.chance_outcomes})
        self.setup = _Setup(self)

    def new_initial_state(self):
        state = _State(self)
        if self.deals:
            state.pending = ("deal", None)
        else:
            state.native = self.start.clone()
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer(self)


class _Setup:
    """What a game's states share (codec, module...): a plain object, so that OpenSpiel's
    clone, which deep-copies a state's attributes, shares it instead of copying it."""

    def __init__(self, game):
        for key in ("module", "players", "chance_outcomes", "codec", "seeding", "seed_top"):
            setattr(self, key, getattr(game, key))
        self.never_draws = game.name in NEVER_DRAW

    def __deepcopy__(self, memo):
        return self


class _Native:
    """The rules' state inside an OpenSpiel state, and its legal action ids once asked
    (searches ask again and again); a deep copy is the rules' clone(), sharing the ids
    (a list never changed: a new one is made after a move)."""

    __slots__ = ("state", "legal")

    def __init__(self, state, legal=None):
        self.state = state
        self.legal = legal

    def __deepcopy__(self, memo):
        return _Native(None if self.state is None else self.state.clone(), self.legal)


class _State(pyspiel.State):

    def __init__(self, game):
        super().__init__(game)
        self.game = game.setup
        self.box = _Native(None)  # the rules' state (None before the deal)
        self.pending = None  # ("deal", None) or ("move", move): a chance node's question

    @property
    def native(self):
        return self.box.state

    @native.setter
    def native(self, state):
        self.box.state = state
        self.box.legal = None

    # -- whose turn

    # OpenSpiel asks these at every step of a playout, several times: they read the box
    # directly rather than through the `native` property.
    def current_player(self):
        if self.pending is not None:
            return _CHANCE
        state = self.box.state
        if state.is_over():
            return _TERMINAL
        return state.to_act()

    def is_terminal(self):
        return self.pending is None and self.box.state.is_over()

    def _legal_actions(self, player):
        box = self.box
        legal = box.legal
        if legal is None:
            legal = box.legal = self.game.codec.encode_sorted(box.state.legal_moves())
        return legal

    def chance_outcomes(self):
        k = self.game.chance_outcomes
        return [(o, 1.0 / k) for o in range(k)]

    def _apply_action(self, action):
        game = self.game
        self.box.legal = None
        if self.pending is not None:
            what, move = self.pending
            self.pending = None
            if what == "deal":
                self.native = game.module.new_game(
                    game.players, (action * 0x9E3779B1 + 12345) % (game.seed_top + 1))
            else:
                # The generator's state stands for the position: it differs from one
                # game's history to another's like the digest of the whole state did,
                # and costs nothing (the digest was half of Boars' simulations).
                salt = self.native.rng
                self.native.rng = game.seeding((salt + action * 0x9E3779B97F4A7C15)
                                               % (game.seed_top + 1))
                self.native.play(move)
            return
        move = game.codec.decode(action)
        box = self.box
        if game.never_draws:
            rng = box.state.rng
            box.state.play(move)
            if box.state.rng != rng:
                raise RuntimeError("%s drew from its PRNG in %r, but the adapter has it "
                                   "among the games that never draw (NEVER_DRAW)"
                                   % (game.module.NAME, move))
            return
        before = box.state.clone()
        box.state.play(move)
        if box.state.rng != before.rng:  # the move drew: a chance node reseeds it
            self.native = before
            self.pending = ("move", move)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return "chance %d" % action
        return self.game.codec.decode(action)

    def returns(self):
        n = self.game.players
        if not self.is_terminal():
            return [0.0] * n
        winner = self.native.winner()
        if winner is None:
            return [0.0] * n
        out = [-1.0 / (n - 1)] * n
        out[winner] = 1.0
        return out

    # -- what a player knows

    def _seen(self, player):
        if self.native is None:
            return "before the deal"
        return "%d %s" % (len(self.history()), json.dumps(
            self.native.view(player), sort_keys=True, separators=(",", ":")))

    def information_state_string(self, player=None):
        return self._seen(self.current_player() if player is None else player)

    def observation_string(self, player=None):
        return self._seen(self.current_player() if player is None else player)

    def resample_from_infostate(self, player, sampler):
        game = self.game
        seed = int(sampler() * (game.seed_top + 1)) % (game.seed_top + 1)
        twin = self.clone()
        if twin.native is not None:
            twin.native = game.module.determinize(self.native.view(player), seed)
        return twin

    def __str__(self):
        return "before the deal" if self.native is None else self.native.to_json()


class _Observer:
    """Observation strings only: a player's view (tensors are not provided)."""

    def __init__(self, game):
        self.game = game
        import numpy
        self.tensor = numpy.zeros(0, numpy.float32)
        self.dict = {}

    def set_from(self, state, player):
        pass  # no tensor

    def string_from(self, state, player):
        return state._seen(player)


_REGISTERED = {}


def _keep_forever(obj):
    """Hold one reference to `obj` that is never given back.

    OpenSpiel keeps a registered game's factory in a C++ static map, whose destructor
    runs at the process's exit, after the interpreter has shut down and without the
    GIL. If the map held the factory's last reference (the interpreter's shutdown
    empties module dicts, `_REGISTERED` with them), freeing it there aborts the process:
    "Fatal Python error: PyThreadState_Get", exit status 134, after all the work was
    done. With this reference the map's destructor only counts it down."""
    import ctypes
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def register(name):
    """Register game `name` with OpenSpiel (once) as short_name(name)."""
    if name not in _REGISTERED:
        games.load(name)
        probe = _Game(name)

        def make(params=None, _name=name):
            return _Game(_name, params)
        pyspiel.register_game(probe.get_type(), make)
        _REGISTERED[name] = make
        _keep_forever(make)
    return short_name(name)


def from_native(game, native):
    """An OpenSpiel state of `game` (from `load`) at the rules' state `native` (a copy
    is kept): to start from a given seed (`module.new_game(players, seed)`) rather than
    from the adapter's sampled deal."""
    state = _State(game)
    state.native = native.clone()
    return state


def load(name, players=None, chance_outcomes=DEFAULT_CHANCE_OUTCOMES):
    """The OpenSpiel game of registry game `name` (a pyspiel.Game)."""
    register(name)
    params = {"chance_outcomes": chance_outcomes}
    if players is not None:
        params["players"] = players
    return pyspiel.load_game(short_name(name), params)
