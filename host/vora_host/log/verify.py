"""A logged game replayed and checked: its record (game, options, seed, moves, digests,
result), its history with takebacks (checked, and told as events in order), the replay
move by move with shared_rules.games, and the report of what a replay against the log
found (`vora games verify`, GameLog.verify, an import's check).

Apart from the store (vora_host.log.store) because none of it needs a database: the file
formats (vora_host.log.formats) and `vora games` replay what they read with it too.
"""

from dataclasses import dataclass, field
from typing import Any, Iterator, List, Optional

from shared_rules import games
from shared_rules.errors import BadPosition, IllegalMove

from vora_host.log.checks import _short

__all__ = ["Step", "VerifyReport", "replay_steps", "check_replay", "result_difference",
           "check_history", "history_events", "record_of", "player_label"]


def player_label(player):
    """'P0' for player 0; 'P-' for nobody (a move logged after the game was over);
    'P?' when not known (a move after one that does not replay)."""
    if player == "?":
        return "P?"
    return "P-" if player is None else "P%d" % player


def record_of(info):
    """(record, digests) of a game() dict: its live moves."""
    moves = [m["move"] for m in info["moves"]]
    digests = [m["digest"] for m in info["moves"]]
    record = {
        "game": info["game"],
        "format": 1,
        "options": info["options"],
        "seed": info["seed"],
        "players": info["players"],
        "moves": moves,
        "digests": list(digests),
        "result": info["result"] if info["result"] is not None else {},
    }
    return record, digests


# ---------------------------------------------------------------- history

def check_history(rows):
    """Check that `rows` (dicts with number and taken_back_at, in the order played) is a
    history live play can make: each move numbered one past the live moves before it,
    and a move replaced by a later one only after it was taken back. Returns the live
    rows in order; ValueError naming the first row that breaks the rule."""
    stack = []
    for k, row in enumerate(rows, 1):
        n = row["number"]
        while stack and stack[-1]["number"] >= n:
            top = stack.pop()
            if top["taken_back_at"] is None:
                raise ValueError("history entry %d: move %d is played again but the move %d "
                                 "before it was not taken back" % (k, n, top["number"]))
        if n != len(stack) + 1:
            raise ValueError("history entry %d: move %d follows %d live moves; moves are "
                             "numbered one after the other" % (k, n, len(stack)))
        stack.append(row)
    while stack and stack[-1]["taken_back_at"] is not None:
        stack.pop()
    for row in stack:
        if row["taken_back_at"] is not None:
            raise ValueError("move %d is marked taken back, but live moves follow it"
                             % row["number"])
    return stack


def history_events(rows):
    """The history as events in order: ("move", row) and ("takeback", number); a takeback
    appears just before the move that follows it (or at the end)."""
    stack, events = [], []
    for row in rows:
        while stack and stack[-1]["number"] >= row["number"]:
            events.append(("takeback", stack.pop()["number"]))
        stack.append(row)
        events.append(("move", row))
    while stack and stack[-1]["taken_back_at"] is not None:
        events.append(("takeback", stack.pop()["number"]))
    return events


# ---------------------------------------------------------------- replay and verify

@dataclass
class Step:
    """One move replayed: `player` was to act before it (None once the game is over),
    `state` is the state after it (unchanged when the move is illegal, `illegal` then
    giving the reason)."""
    number: int
    player: Optional[int]
    move: str
    logged_digest: Optional[str]
    replayed_digest: str
    state: Any
    illegal: Optional[str] = None

    @property
    def ok(self):
        return self.illegal is None and (self.logged_digest is None
                                         or self.logged_digest == self.replayed_digest)


def replay_steps(record, digests=None) -> Iterator[Step]:
    """Replay a record move by move with shared_rules.games, yielding a Step per move up
    to the first illegal move (nothing after it is played: the state would be
    meaningless). BadPosition before the first step when the game cannot be set up. The
    state is the same object throughout: clone it to keep one."""
    state = games.start(record)
    for k, move in enumerate(record.get("moves", []), 1):
        player = state.to_act()
        logged = digests[k - 1] if digests is not None and k <= len(digests) else None
        try:
            state.play(move)
        except IllegalMove as exc:
            yield Step(k, player, move, logged, state.digest(), state, exc.reason)
            return
        yield Step(k, player, move, logged, state.digest(), state)


@dataclass
class VerifyReport:
    """What a replay against the log found. problem: None (ok), "setup" (the game cannot
    be set up), "illegal" (move `number` is illegal), "mismatch" (the digest after move
    `number` differs), "result" (the logged result differs from the replay's). Replay
    stops at the first problem: `players` and `replayed` cover the moves up to it."""
    game_id: Optional[int]
    moves: int
    problem: Optional[str] = None
    number: Optional[int] = None
    move: Optional[str] = None
    player: Optional[int] = None
    logged_digest: Optional[str] = None
    replayed_digest: Optional[str] = None
    reason: Optional[str] = None
    state: Any = None  # the replay's final state (at the problem when there is one)
    players: List[Optional[int]] = field(default_factory=list, repr=False)
    replayed: List[str] = field(default_factory=list, repr=False)

    @property
    def ok(self):
        return self.problem is None

    @property
    def message(self):
        if self.problem is None:
            return "%s replay and every digest matches" % (
                "the one move" if self.moves == 1 else "all %d moves" % self.moves)
        if self.problem == "setup":
            return "the game cannot be set up: %s" % self.reason
        if self.problem == "illegal":
            return "move %d (%s): the logged move %r is illegal: %s" % (
                self.number, player_label(self.player), self.move, self.reason)
        if self.problem == "mismatch":
            return ("move %d (%s %s): digest mismatch: the log has %s, the replay gives %s"
                    % (self.number, player_label(self.player), self.move, self.logged_digest,
                       self.replayed_digest))
        return "the logged result differs from the replay: %s" % self.reason

    def __str__(self):
        return self.message


def result_difference(result, state):
    """Why a logged result disagrees with a replayed state, or None when it agrees (or
    there is no result)."""
    if not result:
        return None
    if result.get("over") != state.is_over():
        return "the log says the game is %s, the replay says it is %s" % (
            "over" if result.get("over") else "not over",
            "over" if state.is_over() else "not over")
    if result.get("scores") != state.scores():
        return "the log has scores %s, the replay %s" % (_short(result.get("scores")),
                                                         state.scores())
    if state.is_over() and result.get("winner") != state.winner():
        return "the log names winner %s, the replay %s" % (_short(result.get("winner")),
                                                           state.winner())
    if state.is_over() and result.get("end") != state.end_reason():
        return "the log says the game ended by %s, the replay by %r" % (
            _short(result.get("end")), state.end_reason())
    if result.get("turns_completed") != state.turn_count():
        return "the log has %s turns completed, the replay %d" % (
            _short(result.get("turns_completed")), state.turn_count())
    return None


def check_replay(record, digests=None) -> VerifyReport:
    """Replay the moves up to the first problem; the report keeps it, the player to act
    before every move replayed and the replayed digests (for an import without
    digests)."""
    report = VerifyReport(None, len(record.get("moves", [])))
    try:
        for step in replay_steps(record, digests):
            report.players.append(step.player)
            report.replayed.append(step.replayed_digest)
            report.state = step.state
            if step.illegal is not None:
                _fill(report, "illegal", step, step.illegal)
                report.replayed.pop()  # an illegal move has no digest of its own
                break
            if not step.ok:
                _fill(report, "mismatch", step, None)
                break
    except BadPosition as exc:
        report.problem, report.reason = "setup", str(exc)
        return report
    if report.problem is None:
        if report.state is None:
            report.state = games.start(record)
        diff = result_difference(record.get("result"), report.state)
        if diff:
            report.problem, report.reason = "result", diff
    return report


def _fill(report, problem, step, reason):
    report.problem, report.number, report.move = problem, step.number, step.move
    report.player, report.reason = step.player, reason
    report.logged_digest, report.replayed_digest = step.logged_digest, step.replayed_digest
