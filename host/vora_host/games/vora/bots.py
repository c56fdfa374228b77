"""Vora's own bot: the greedy collector (the generic bots are in vora_host.bots)."""

from shared_rules import vora

from vora_host.games.bot import Bot

__all__ = ["GreedyBot", "relative_score"]


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
