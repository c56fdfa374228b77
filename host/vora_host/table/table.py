"""The table: one game being played, and the one place that changes it.

    table = Table("boars", state, [Human(), Human(), bot], log=live)
    table.play("draw 3", player=0, number=0)    # Refused(reason) unless legal and current
    table.request_takeback(asker=1)             # waits for the other humans' answers
    table.answer_takeback(0, True)
    table.resign(1)                             # the game stops; the log says who resigned
    table.hint(0, number=3)                     # the hard level's move, from P0's view
    table.left(1); table.back(1)                # a remote seat's client went, came back
    table.claim(0, "win")                       # P1 gone CLAIM_AFTER s: P0 takes the game

Everything that happens is an event (`events`): a number that only grows, what it is
("move", "takeback", "over", "resign", ...), and its words for each viewer ({viewer: text};
None: everybody), so that each client shows what its player may see and a client that
was away catches up from the last number it saw (`events_since`, `wait`). A move is in
the log before play() returns (the LiveLog writes it, or keeps it in memory when the log
cannot be written: it never stops the game).

A seat played from elsewhere (a browser) can drop: its client tells the table it left and
when it is back. Gone for `claim_after` seconds (CLAIM_AFTER: 2 minutes, as on Lichess), it
lets the others end the game (claim()): abort it, or, in a game of two players, claim the
win. A seat that never came counts as gone from the table's start. Neither is the rules'
end: the game is logged as abandoned, its end saying who claimed what and why, and its
winner left to the rules (None), as with a resignation.

Thread-safe: the web seats post from the server's threads while the terminal or the board
loop plays; every change runs under one lock, and `wait(seq, timeout)` wakes on a change.
"""

import threading
import time

from shared_rules.errors import IllegalMove

from vora_host import games as host_games
from vora_host.bots.hints import compute_hint
from vora_host.log.records import result_of
from vora_host.words import plural

__all__ = ["Human", "Refused", "Table", "TABLE_EVENTS", "CLAIM_AFTER", "CLAIMS",
           "takeback_span"]

TABLE_EVENTS = 200  # events kept; a client further behind reads the table afresh
CLAIM_AFTER = 120.0  # seconds a seat may be gone before the others may end the game
CLAIMS = ("win", "abort")


class Human:
    """A seat played by a person (at the terminal, on the board or in a browser); the
    bots live in vora_host.bots."""

    kind = "human"

    def __repr__(self):
        return "Human()"


class Refused(ValueError):
    """A move or a request the table does not take: `reason` says why, in the words a
    player reads (the same words at the terminal, on the board and in a browser)."""

    def __init__(self, reason):
        self.reason = reason
        super().__init__(reason)


def takeback_span(history, before, humans, label):
    """What a takeback takes back: the last turn a human played and the moves after it, as
    (index of its first move, the human, words naming it), or None when no human has
    moved. `history` holds (player, move as everybody may see it) and `before` the state
    before each move; `label(player)` names a player in the words."""
    last = next((k for k in range(len(history) - 1, -1, -1) if history[k][0] in humans),
                None)
    if last is None:
        return None
    who, turn = history[last][0], before[last].turn_count()
    start = last
    while start > 0 and history[start - 1][0] == who \
            and before[start - 1].turn_count() == turn:
        start -= 1
    # The history holds the moves as everybody may see them (secrets stay out).
    what = "%s's turn %d (%s)" % (label(who), turn + 1,
                                  ", ".join(m for _, m in history[start:last + 1]))
    after = [m for _, m in history[last + 1:]]
    if after:
        what += " and the %s after it (%s)" % (plural(len(after), "move"), ", ".join(after))
    return start, who, what


class Table:
    """One game being played (see the module doc).

    game:   the registry name; state: its state (fresh, or resumed: replay_moves)
    agents: a Human() or a bot per player
    log:    a vora_host.log.live.LiveLog, or None
    record: a record dict (vora_host.log.records.new_record) the moves go into, or None
    label:  label(player) -> how messages name a player (P0 by default)
    claim_after: seconds a seat may be gone before the others may claim (CLAIM_AFTER)
    clock:  the seconds clock gone seats are timed with (time.monotonic; tests give theirs)
    seed:   the game's seed, when a client may be told it (public_record())
    final:  the table closes (close()) as its game ends, by the rules, a resignation or a
            claim: a server's table, whose log is closed then (no takeback reopens it)
    """

    def __init__(self, game, state, agents, log=None, record=None, label=None,
                 claim_after=CLAIM_AFTER, clock=None, seed=None, final=False):
        self.game = game
        self.view = host_games.host_game(game).VIEW
        self.hidden = self.view.rules.HIDDEN_INFORMATION
        self.state = state
        self.agents = list(agents)
        self.humans = [p for p, a in enumerate(self.agents) if isinstance(a, Human)]
        self.log = log
        self.record = record
        self.label = label or (lambda p: "P%d" % p)
        self.seed = seed
        self.options = state.options()  # as the game started (a record's options)
        self.moves = []
        self.digests = []  # the state's digest after each move
        self.history = []  # (player, the move as everybody may see it)
        self.before = []  # the state before each move, for takebacks
        self.takeback = None  # {"start", "what", "asker", "waiting"}: see request_takeback
        self.stopped = None  # why the game stopped before its end (a resignation...)
        self.events = []  # [(seq, what, {viewer: text})], the newest TABLE_EVENTS
        self.seq = 0
        self.changes = 0  # grows with every move played or taken back: the position's age
        self.hints = {}  # {player: (changes then, Hint)}: each human's last hint
        self.drawn_for_seats = {}  # a server's drawings of this position (web.seats)
        self.claim_after = float(claim_after)
        self.clock = clock or time.monotonic
        self.gone = {}  # {player: (since when by self.clock, "left" or "not here yet")}
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self._listeners = []  # called at every event (listen()): a server's streams
        self.closed = None  # why nothing more is played here (close()), or None
        self.final = final

    def close(self, why):
        """Nothing more is played at this table (a server's table whose game is over and
        logged, or whose server stops): every move and request is refused with `why` from
        now on, and the states kept for takebacks are let go (a server keeps finished
        tables a while for their seats to read)."""
        with self._changed:
            self.closed = why
            self.takeback = None
            self.before = []

    def _ended(self):
        # The game has just ended (under the lock): a final table takes nothing more.
        if self.final:
            self.close("the game is over")

    def _refuse_if_closed(self):
        if self.closed is not None:
            raise Refused(self.closed)

    # ---- reading

    @property
    def number(self):
        """How many moves are live: the number a client gives with its move."""
        return len(self.moves)

    def to_act(self):
        return None if self.stopped is not None else self.state.to_act()

    def is_over(self):
        return self.stopped is not None or self.state.is_over()

    def events_since(self, seq, viewer=None):
        """[(seq, what, text)] after `seq`, as `viewer` may see them (None: a spectator),
        and whether some were lost (the client was further behind than the table keeps:
        it reads the table afresh)."""
        with self.lock:
            lost = bool(self.events) and self.events[0][0] > seq + 1
            out = []
            for n, what, texts in self.events:
                if n <= seq:
                    continue
                text = texts.get(viewer, texts.get(None)) if viewer is not None \
                    else texts.get(None)
                if text:
                    out.append((n, what, text))
            return out, lost

    def raw_events_since(self, seq):
        """[(seq, what, {viewer: text})] after `seq`: for a client that shows several
        viewers' texts (the board's screen picks the one its viewer may see)."""
        with self.lock:
            return [e for e in self.events if e[0] > seq]

    def listen(self, poke):
        """Call `poke()` at every event from now on, in the thread that made it (under the
        table's lock: it must only note the change, such as an event loop's
        call_soon_threadsafe). A server's event streams wait so, without a thread each."""
        with self.lock:
            self._listeners.append(poke)

    def unlisten(self, poke):
        with self.lock:
            if poke in self._listeners:
                self._listeners.remove(poke)

    def wait(self, seq, timeout, stop=None):
        """Block until an event after `seq` exists, or `timeout` seconds pass, or the
        threading.Event `stop` is set and wake() called: the newest sequence number."""
        with self._changed:
            self._changed.wait_for(
                lambda: self.seq > seq or (stop is not None and stop.is_set()), timeout)
            return self.seq

    def wake(self):
        """Wake every wait() to look at its `stop` (a server that stops)."""
        with self._changed:
            self._changed.notify_all()

    def public_record(self):
        """The game as a record (game, players, seed, options, moves, digests) when
        everybody may know all of it: a game that hides nothing, or one that is over (its
        secrets shown); None otherwise, or when the table was not told the seed. Another
        host that plays a seat (vora play --join) logs the same game from it."""
        with self.lock:
            if self.seed is None or (self.hidden and not self.is_over()):
                return None
            return {"game": self.game, "players": len(self.agents), "seed": str(self.seed),
                    "options": dict(self.options), "moves": list(self.moves),
                    "digests": list(self.digests)}

    # ---- events

    def said(self, what, texts):
        """An event: `texts` {viewer: the text that viewer may see; None: everybody}."""
        with self._changed:
            self.seq += 1
            self.events.append((self.seq, what, texts))
            del self.events[:-TABLE_EVENTS]
            self._changed.notify_all()
            for poke in list(self._listeners):
                poke()

    def say(self, what, text):
        self.said(what, {None: text})

    def move_texts(self, before, player, move):
        """The move as each player may see it (None: a spectator's view)."""
        texts = {None: "%s %s" % (self.label(player),
                                  self.view.move_text(before, player, move, None))}
        for p in range(len(self.agents)):
            texts[p] = "%s %s" % (self.label(player),
                                  self.view.move_text(before, player, move, p))
        return texts

    # ---- playing

    def check(self, move, player=None, number=None):
        """Refused(reason) unless `move` may be played now: the game goes on, it is
        `player`'s turn (when given), the client saw the current position (`number`,
        when given) and the rules take the move (tried on a copy)."""
        self._refuse_if_closed()
        if self.stopped is not None:
            raise Refused("the game has stopped (%s)" % self.stopped)
        if self.state.is_over():
            raise Refused("the game is over")
        if self.takeback is not None:
            raise Refused("a takeback waits for %s's answer" % ", ".join(
                self.label(p) for p in self.takeback["waiting"]))
        to_act = self.state.to_act()
        if player is not None and player != to_act:
            raise Refused("it is %s's turn, not %s's" % (self.label(to_act),
                                                        self.label(player)))
        if number is not None and number != len(self.moves):
            raise Refused("the game has moved on since: %s made, your move was for move %d"
                          % (plural(len(self.moves), "move"), number + 1))
        if not isinstance(move, str) or not move.strip():
            raise Refused("a move is text in the game's notation")
        try:
            self.state.clone().play(move)
        except IllegalMove as exc:
            raise Refused("illegal move %r: %s" % (move[:60], exc.reason))

    def play(self, move, player=None, number=None):
        """Play `move` (see check()); logged before this returns. Returns the move's texts
        ({viewer: text})."""
        with self._changed:
            self.check(move, player, number)
            player = self.state.to_act()
            before = self.state.clone()
            texts = self.move_texts(before, player, move)
            self.state.play(move)
            self.moves.append(move)
            self.history.append((player, self.view.move_text(before, player, move, None)
                                 if self.hidden else move))
            self.before.append(before)
            self.changes += 1
            digest = self.state.digest()
            self.digests.append(digest)
            if self.record is not None:
                self.record["moves"].append(move)
                self.record["digests"].append(digest)
            if self.log is not None:
                self.log.moved(len(self.moves), move, digest)
                if self.state.is_over():
                    self.log.ended("over", result_of(self.state))
            self.said("move", texts)
            if self.state.is_over():
                self._ended()
                self.say("over", "; ".join(self.view.result_lines(self.state)))
            return texts

    def replay_moves(self, moves):
        """A resumed game's earlier moves (from the log), played without logging them
        again or telling anyone; they can be taken back like any other."""
        with self.lock:
            for move in moves:
                player = self.state.to_act()
                before = self.state.clone()
                self.state.play(move)
                self.moves.append(move)
                self.history.append((player, self.view.move_text(before, player, move, None)
                                     if self.hidden else move))
                self.before.append(before)
                self.changes += 1
                self.digests.append(self.state.digest())
                if self.record is not None:
                    self.record["moves"].append(move)
                    self.record["digests"].append(self.digests[-1])

    # ---- takebacks

    def takeback_span(self):
        """(first move index, player, words) of the last turn a human played together with
        the moves after it, or None when no human has moved."""
        return takeback_span(self.history, self.before, self.humans, self.label)

    def request_takeback(self, asker, how=None, refuse=None):
        """Ask to take back the last turn a human played (and the bots' moves after it).
        `asker`: the human asking, or None for the PC (then every human agrees, unless
        there is only one). Done at once when nobody else has to agree; otherwise it waits
        for answer_takeback(). Refused when nothing can be taken back or one waits. `how`:
        how the others agree, and `refuse` how they refuse, in the asking client's words."""
        with self._changed:
            self._refuse_if_closed()
            if self.stopped is not None:
                raise Refused("the game has stopped (%s)" % self.stopped)
            if self.takeback is not None:
                raise Refused("a takeback already waits for %s" % ", ".join(
                    self.label(p) for p in self.takeback["waiting"]))
            if asker is not None and asker not in self.humans:
                raise Refused("only a human takes moves back")
            span = self.takeback_span()
            if span is None:
                raise Refused("nothing to take back: no human has moved yet")
            waiting = [h for h in self.humans if h != asker]
            if asker is None and len(self.humans) == 1:
                waiting = []
            self.takeback = {"start": span[0], "what": span[2], "asker": asker,
                             "waiting": waiting}
            if not waiting:
                self._take_back()
                return
            self.say("takeback", "%s asks to take back %s: %s agree%s%s%s" % (
                "the PC" if asker is None else self.label(asker), span[2],
                ", ".join(self.label(p) for p in waiting), "s" if len(waiting) == 1 else "",
                " (%s)" % how if how else "", "; %s" % refuse if refuse else ""))

    def answer_takeback(self, player, yes):
        """A human's answer to the waiting takeback (`player` None: the next one asked)."""
        with self._changed:
            tb = self.takeback
            if tb is None:
                raise Refused("no takeback is waiting")
            if player is not None and player not in tb["waiting"]:
                raise Refused("%s is not asked" % self.label(player))
            if not yes:
                self.takeback = None
                self.say("takeback", "%s: nothing is taken back" % (
                    "not agreed" if player is None
                    else "%s does not agree" % self.label(player)))
                return
            if player is None:
                player = tb["waiting"][0]
            tb["waiting"].remove(player)
            if tb["waiting"]:
                self.say("takeback", "%s agrees; waiting for %s" % (
                    self.label(player), ", ".join(self.label(p) for p in tb["waiting"])))
            else:
                self._take_back()

    def _take_back(self):
        tb, self.takeback = self.takeback, None
        start = tb["start"]
        if self.log is not None:
            for number in range(len(self.moves), start, -1):
                self.log.took_back(number)
        self.state = self.before[start]
        self.changes += 1
        del self.moves[start:], self.history[start:], self.before[start:], self.digests[start:]
        if self.record is not None:
            del self.record["moves"][start:], self.record["digests"][start:]
        self.say("takeback", "taken back: %s" % tb["what"])

    # ---- hints

    def hint(self, player=None, number=None):
        """A hint for `player` (a human to act; None: whoever acts): the move the hard
        level would play, computed from that player's view alone (vora_host.bots.hints),
        outside the table's lock so that the other clients go on meanwhile. Logged as an
        event ("hint") and said: to the player the move and its reason, to everybody
        else only that a hint was taken. Refused (the reason in a player's words) when
        the game does not wait for that human, when the client saw an older position
        (`number`, as with a move), or when the game moved on while it was computed.
        Returns the Hint (vora_host.bots.hints.Hint)."""
        with self.lock:
            self._refuse_if_closed()
            if self.stopped is not None:
                raise Refused("the game has stopped (%s)" % self.stopped)
            if self.state.is_over():
                raise Refused("the game is over: no hint")
            if self.takeback is not None:
                raise Refused("a takeback waits for %s's answer" % ", ".join(
                    self.label(p) for p in self.takeback["waiting"]))
            to_act = self.state.to_act()
            if player is None:
                player = to_act
            if player != to_act:
                raise Refused("a hint is for the player to act: it is %s's turn, not %s's"
                              % (self.label(to_act), self.label(player)))
            if player not in self.humans:
                raise Refused("only a human asks for a hint")
            if number is not None and number != len(self.moves):
                raise Refused("the game has moved on since: %s made, your hint was for "
                              "move %d" % (plural(len(self.moves), "move"), number + 1))
            state = self.state.clone()
            at = len(self.moves)
            changes = self.changes
        hint = compute_hint(self.game, state, at, player)
        with self._changed:
            if self.changes != changes or self.stopped is not None:
                raise Refused("the game moved on while the hint was thought of")
            self.hints[player] = (changes, hint)
            if self.log is not None:
                self.log.event("hint", hint.data())
            who = self.label(player)
            texts = {None: "%s took a hint" % who}
            texts[player] = "hint for %s: %s" % (who, hint.text())
            self.said("hint", texts)
        return hint

    def current_hint(self, player):
        """`player`'s last hint while the position is still the one it was for, or None."""
        with self.lock:
            changes, hint = self.hints.get(player, (None, None))
            return hint if changes == self.changes else None

    # ---- seats played from elsewhere: gone, back, and the claims

    def away(self, player):
        """A seat played from elsewhere whose client has not come yet: gone from now on,
        quietly (the seat's link is still to be opened)."""
        with self._changed:
            self.gone[player] = (self.clock(), "not here yet")

    def left(self, player):
        """`player`'s client went (a phone asleep, Wi-Fi lost, a lid shut): the others are
        told, and may claim after claim_after seconds unless it comes back."""
        with self._changed:
            if player in self.gone or self.is_over():
                return
            self.gone[player] = (self.clock(), "left")
            self.say("seat", "%s has left (reconnecting): after %s the others may %s"
                     % (self.label(player), _duration(self.claim_after), self._claim_words()))

    def back(self, player, how=""):
        """`player`'s client is here (again)."""
        with self._changed:
            was = self.gone.pop(player, None)
            if was is not None and not self.is_over():
                self.say("seat", "%s is %s%s" % (self.label(player),
                                                 "back" if was[1] == "left" else "here",
                                                 " (%s)" % how if how else ""))

    def gone_for(self, player):
        """Seconds `player` has been gone, or None while here."""
        with self.lock:
            was = self.gone.get(player)
            return None if was is None else max(0.0, self.clock() - was[0])

    def claims(self, player):
        """What `player` may claim now ([] or some of CLAIMS), and the gone seat it is
        claimed against (None when nothing may be claimed)."""
        with self.lock:
            if self.is_over() or player not in self.humans or player in self.gone:
                return [], None
            now = self.clock()
            long_gone = [p for p, (since, _) in sorted(self.gone.items())
                         if p != player and now - since >= self.claim_after]
            if not long_gone:
                return [], None
            what = list(CLAIMS) if len(self.agents) == 2 else ["abort"]
            return what, long_gone[0]

    def claim(self, player, what):
        """`player`, here, ends the game because a seat has been gone claim_after seconds:
        "abort" (it stops; nobody wins) or "win" (in a game of two players, the game is
        theirs). Refused, with why, otherwise. Logged as abandoned, its end saying it."""
        with self._changed:
            self._refuse_if_closed()
            if what not in CLAIMS:
                raise Refused("a claim is %s" % " or ".join(CLAIMS))
            if self.is_over():
                raise Refused("the game is over already")
            if player not in self.humans:
                raise Refused("only a human claims the game")
            if player in self.gone:
                raise Refused("%s is not here" % self.label(player))
            allowed, against = self.claims(player)
            if against is None:
                waiting = [(p, self.gone_for(p)) for p in sorted(self.gone) if p != player]
                if not waiting:
                    raise Refused("nobody has left: there is nothing to claim")
                p, seconds = waiting[0]
                raise Refused("%s has been gone %s: the game may be claimed after %s"
                              % (self.label(p), _duration(seconds),
                                 _duration(self.claim_after)))
            if what not in allowed:
                raise Refused("a win is claimed only in a game of two players; here the "
                              "game may be aborted")
            gone = "%s left and did not come back" % self.label(against)
            if what == "win":
                self.stopped = "%s: %s claims the win" % (gone, self.label(player))
            else:
                self.stopped = "%s: %s aborts the game" % (gone, self.label(player))
            self.takeback = None
            if self.log is not None:
                self.log.ended("abandoned", result_of(self.state, self.stopped))
            self._ended()
            self.say("claim", "%s; the game stops here" % self.stopped)

    def _claim_words(self):
        return "claim the win or abort" if len(self.agents) == 2 else "abort the game"

    # ---- stopping

    def resign(self, player):
        """`player` gives the game up: it stops here, logged as abandoned with who resigned
        and the scores so far."""
        with self._changed:
            self._refuse_if_closed()
            if self.is_over():
                raise Refused("the game is over already")
            if player not in self.humans:
                raise Refused("only a human resigns")
            self.stopped = "%s resigned" % self.label(player)
            self.takeback = None
            if self.log is not None:
                self.log.ended("abandoned", result_of(self.state, self.stopped))
            self._ended()
            self.say("resign", "%s resigns: the game stops here" % self.label(player))


def _duration(seconds):
    """Seconds as people say them: "45 s", "2 min", "2 min 30 s"."""
    seconds = int(round(seconds))
    if seconds < 60:
        return "%d s" % seconds
    minutes, rest = divmod(seconds, 60)
    return "%d min" % minutes + (" %d s" % rest if rest else "")
