"""A table whose referee is on another computer, copied here so that this PC's board can
play a seat of it (`vora play --join LINK --port sim`): two boards in two homes, one game.

The copy is an ordinary vora_host.table.Table, so the board plays at it exactly as at a
table of its own (vora_host.play.board): the other seats are "elsewhere" (the board
shows their moves when they come and refuses keys meanwhile, as for a browser's seat).
What changes is who decides: a move made here is first sent to the table there (with
the number of moves this copy holds) and played here only once accepted; a takeback, its
answer and a resignation go there too. The table's changes come back through the seat's
view (the stream): its record's moves are played here, a move taken back there is taken
back here, and what it says is said here. Each move played here gives a digest, compared
with the table's: should they ever differ, the copy stops (`parted`), says after which
move, and the game stops here.

A copy needs the whole game as it goes, so only games that hide nothing are joined this
way (a hidden game's seat plays from the terminal, `vora play --join LINK`, or a browser).
"""

import threading

from shared_rules import games as rules_games

from vora_host.remote.seat_client import Refused as TableRefused
from vora_host.remote.seat_client import RemoteError
from vora_host.table import Human, Refused, Table

__all__ = ["ElsewhereSeat", "RemoteTable", "CannotCopy"]

# What the table there says that the copy says too (its moves and takebacks are the
# copy's own events, said as it plays them).
MIRRORED = ("seat", "claim", "resign", "hint")


class CannotCopy(ValueError):
    """The table's game cannot be copied here (it hides information, or its record
    cannot be set up by this computer's rules)."""


class ElsewhereSeat(Human):
    """A seat played at the table's own computer or in a browser there."""

    kind = "human"
    browser = True  # (the board's word for a seat played elsewhere)
    where = "at another computer"  # what the board says of it
    hints_there = "they ask for hints there"

    def __repr__(self):
        return "ElsewhereSeat()"


class RemoteTable(Table):
    """See the module doc. `client`: a SeatClient; `view`: its first view; `log`: a
    LiveLog for the copy, or None; `logged`: the moves that log holds already (the seat
    joined again: its copy goes on)."""

    def __init__(self, client, view, log=None, logged=()):
        record = view.get("record")
        if record is None:
            raise CannotCopy("%s hides each player's secrets from the others: its game "
                             "cannot be copied to this computer's board; play the seat from "
                             "the terminal ('vora play --join LINK') or in a browser"
                             % view["title"])
        try:
            state = rules_games.start(dict(record, moves=[], seed=int(record["seed"])))
        except Exception as exc:  # a record this computer's rules cannot set up
            raise CannotCopy("the table's game cannot be set up here: %s" % exc)
        you = view["you"]
        agents = [Human() if p == you else ElsewhereSeat() for p in range(record["players"])]
        labels = [seat["label"] for seat in view["seats"]]
        super().__init__(view["game"], state, agents, log=log, seed=int(record["seed"]),
                         label=lambda p: "P%d" % p)
        self.client = client
        self.you = you
        self.labels = labels
        self.parted = None  # why this copy stopped following the table
        self.said_there = 0  # the table's newest event said here
        self._stream_seq = 0  # the seq of the newest view the stream brought (see sync)
        # Joined again: what the log holds is played without being logged twice, what the
        # table took back since is taken back in the log.
        same = 0
        moves = record["moves"]
        while same < min(len(moves), len(logged)) and moves[same] == logged[same]:
            same += 1
        if log is not None:
            for number in range(len(logged), same, -1):
                log.took_back(number)
        self.replay_moves(list(logged[:same]))
        self.sync(view)

    # ---- the table's changes, played here

    def sync(self, view, answer=False):
        """Bring the copy to the table's view (its record, its takeback, its end). A view
        from the stream is always taken (the stream is in order, and a table started
        again counts its events anew); one answering a request (`answer`) is dropped when
        the stream brought a newer one meanwhile (the request's thread ran late): taken,
        it would bring back a move taken back since. Returns whether it was taken."""
        with self._changed:
            if self.parted is not None:
                return False
            seq = view.get("seq", 0)
            if answer and seq < self._stream_seq:
                return False
            if not answer:
                self._stream_seq = seq
            record = view.get("record")
            self.takeback = None  # the table's own, set again below
            if record is not None:
                self._follow(record["moves"], record["digests"])
            tb = view.get("takeback")
            if tb is None:
                self.takeback = None
            else:
                self.takeback = {"start": None, "what": tb["what"], "asker": None,
                                 "waiting": [self.you] if tb["asked_you"] else
                                 [p for p in range(len(self.agents)) if p != self.you][:1]}
            for number, kind, text in view["events"]:
                if number > self.said_there:
                    self.said_there = number
                    if kind in MIRRORED or (kind == "takeback"
                                            and not text.startswith("taken back")):
                        self.say(kind, text)
            if view["over"] and view["stopped"] and self.stopped is None \
                    and not self.state.is_over():
                self.stopped = view["stopped"]
                if self.log is not None:
                    from vora_host.log.records import result_of
                    self.log.ended("abandoned", result_of(self.state, self.stopped))
                self.say("resign", "%s: the game stops here" % view["stopped"])
            return True

    def _follow(self, moves, digests):
        same = 0
        while same < min(len(moves), len(self.moves)) and moves[same] == self.moves[same]:
            same += 1
        if same < len(self.moves):
            # Taken back there: taken back here (logged, said as the table's own takeback).
            span = "%s (%s)" % ("the moves after move %d" % same,
                                ", ".join(self.moves[same:]))
            self.takeback = {"start": same, "what": span, "asker": None, "waiting": []}
            self._take_back()
        for k in range(same, len(moves)):
            try:
                Table.play(self, moves[k])
            except Refused as exc:
                return self._part("move %d, %r, is refused by this computer's rules: %s"
                                  % (k + 1, moves[k][:60], exc.reason))
            if self.digests[-1] != digests[k]:
                return self._part("after move %d the table's digest is %s, this computer's "
                                  "%s" % (k + 1, digests[k][:20], self.digests[-1]))

    def _part(self, why):
        self.parted = why
        self.stopped = "this copy parted from the table: %s" % why
        if self.log is not None:
            from vora_host.log.records import result_of
            self.log.event("parted", {"why": why})
            self.log.ended("interrupted", result_of(self.state, self.stopped))
        self.say("resign", "the game here stops: %s" % why)

    def leave(self):
        """This PC leaves the table: the copy takes no more of its views. The stream's
        thread may bring one as the seat leaves; played after the log's last word (the
        caller's, once this returns), its move would reopen the game there."""
        with self._changed:
            if self.parted is None:
                self.parted = "this computer left the table"

    # ---- this PC's requests, sent to the table

    def _send(self, action, body=None):
        """The request sent; whether its answer was taken (see sync)."""
        try:
            view = self.client.post(action, body)
        except TableRefused as exc:
            raise Refused(exc.reason)
        except RemoteError as exc:
            raise Refused("the table cannot be reached now: %s" % exc)
        return self.sync(view, answer=True)

    def play(self, move, player=None, number=None):
        """A move made here: checked here (the same reasons, at once), then sent to the
        table, and played here once it is accepted (sync)."""
        with self.lock:
            self.check(move, player, number)
            at = len(self.moves)
        taken = self._send("move", {"move": move, "number": at})
        with self.lock:
            if len(self.moves) <= at or self.moves[at] != move:
                raise Refused("the table took another move meanwhile" if taken else
                              "the table took it and then took it back (a takeback there)")
            return self.move_texts(self.before[at], self.history[at][0], move)

    def request_takeback(self, asker, how=None, refuse=None):
        self._send("takeback")

    def answer_takeback(self, player, yes):
        self._send("answer", {"yes": bool(yes)})

    def resign(self, player):
        self._send("resign")

    def claim(self, player, what):
        self._send("claim", {"what": what})


def follow_stream(table, stream_events, stop):
    """Feed the table's views from a seat's event stream (SeatClient.events) into the copy
    until `stop` is set or the game is over; a thread's body."""
    for kind, data in stream_events:
        if stop.is_set():
            return
        if kind == "seat":
            table.sync(data)
            if data["over"]:
                return


def start_following(table, client, on_trouble):
    """A thread that keeps the copy in step with the table, connecting again when the
    stream drops (`on_trouble(text)` says so). Returns its stop event."""
    stop = threading.Event()

    def run():
        waits = (1, 2, 4, 8, 10)
        tries = 0
        while not stop.is_set() and not table.is_over():
            try:
                follow_stream(table, client.events(), stop)
                tries = 0
            except RemoteError as exc:
                on_trouble(str(exc))
            if table.is_over() or stop.is_set():
                return
            stop.wait(waits[min(tries, len(waits) - 1)])
            tries += 1
            try:
                table.sync(client.view())  # what happened meanwhile
            except RemoteError:
                pass

    threading.Thread(target=run, daemon=True, name="remote table").start()
    return stop
