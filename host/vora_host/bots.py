"""Computer players for Vora.

A bot is any object with a `choose(state) -> move` method (calling the bot does the same):
it looks at a state whose `to_act()` is the bot's seat and returns one of
`state.legal_moves()`, never changing the state it was given. Every bot draws its own
randomness from a private `random.Random(seed)`, so a game between bots is fully
reproducible from the game seed and the bot seeds, and the engine's PRNG (which deals
cubes) is never touched.
"""

import random

from shared_rules import vora

__all__ = ["Bot", "RandomBot", "GreedyBot", "BOT_KINDS", "make_bot"]


class Bot:
    """Base class: subclasses implement `choose`."""

    #: Short name used on the command line (`--bot`) and in game records.
    kind = "bot"

    def __init__(self, seed=0):
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, state):  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, state):
        return self.choose(state)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.seed)


class RandomBot(Bot):
    """Plays a uniformly random legal move: the baseline every other bot must beat."""

    kind = "random"

    def choose(self, state):
        return self.rng.choice(state.legal_moves())


def relative_score(state, player):
    """`player`'s score minus the best score among the other players.

    Judging by the margin rather than by one's own score makes a bot value hurting the
    leader (a steal, or pushing a loose cube into an opponent's farm) as well as helping
    itself, which is what winning needs.
    """
    scores = state.scores()
    others = [s for p, s in enumerate(scores) if p != player]
    return scores[player] - (max(others) if others else 0)


class GreedyBot(Bot):
    """Looks one action ahead and prefers collecting lines.

    - collect phase: always takes a group (never passes), the one that leaves it best off;
    - bonus phase: takes the extra cube or steal that most improves its margin (passing
      only when every choice would cost points);
    - action phase: tries each legal action on `state.clone()`, finishes the turn's
      collecting greedily in that copy, and keeps the action with the best resulting
      margin, then the most cubes gained, ties broken by its own RNG.

    Work is capped: at most `budget` actions are tried per decision (a random sample when
    there are more; a position can offer about 200 moves) and at most `max_chain` collect
    or bonus steps are simulated after each, so a decision costs a few milliseconds.
    The look-ahead stops when the turn ends, so it never peeks at the cubes the refill
    will draw (farm scores do not depend on them anyway).
    """

    kind = "greedy"

    def __init__(self, seed=0, budget=120, max_chain=12):
        super().__init__(seed)
        self.budget = budget
        self.max_chain = max_chain

    def choose(self, state):
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        me = state.to_act()
        if state.phase == vora.PHASE_COLLECT:
            takes = [m for m in moves if m != "pass"]
            return self._best_immediate(state, takes or moves, me)
        if state.phase == vora.PHASE_BONUS:
            return self._best_immediate(state, moves, me)
        return self._best_action(state, moves, me)

    # ---- helpers

    def _best_immediate(self, state, moves, me):
        # Rank by the margin right after the move; cubes in the farm break ties (a bigger
        # group means a likelier bonus and a quicker end to the box).
        best, best_key = None, None
        for m in moves:
            t = state.clone()
            t.play(m)
            key = (relative_score(t, me), sum(t.farm(me).values()), self.rng.random())
            if best_key is None or key > best_key:
                best, best_key = m, key
        return best

    def _finish_turn(self, t, me, turn):
        # Play the collect and bonus steps the way choose() would, without recursion into
        # actions, until the turn is over or the step cap is reached.
        steps = 0
        while (not t.is_over() and t.turn == turn and t.phase != vora.PHASE_ACTION
               and steps < self.max_chain):
            moves = t.legal_moves()
            if t.phase == vora.PHASE_COLLECT:
                moves = [m for m in moves if m != "pass"] or moves
            t.play(self._best_immediate(t, moves, me))
            steps += 1

    def _best_action(self, state, moves, me):
        if len(moves) > self.budget:
            moves = self.rng.sample(moves, self.budget)
        before = sum(state.farm(me).values())
        best, best_key = None, None
        for m in moves:
            t = state.clone()
            t.play(m)
            self._finish_turn(t, me, state.turn)
            gained = sum(t.farm(me).values()) - before
            key = (relative_score(t, me), gained, self.rng.random())
            if best_key is None or key > best_key:
                best, best_key = m, key
        return best


BOT_KINDS = {cls.kind: cls for cls in (GreedyBot, RandomBot)}


def make_bot(kind, seed=0):
    """A bot of the named kind ("greedy" or "random") seeded with `seed`."""
    try:
        cls = BOT_KINDS[kind]
    except KeyError:
        raise ValueError("unknown bot %r (choose from %s)" % (kind, ", ".join(sorted(BOT_KINDS))))
    return cls(seed)
