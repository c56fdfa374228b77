"""Following the board's game: the part of the link's client (`BoardClient`, in
`vora_host.link.client`) that keeps the host's copy of the game and the game log in step
with the board (docs/host.md, "Following a game"; docs/protocol.md).

What it keeps in step with the board:
- the game being played (the board's game id and seed), replayed locally from the seed so
  every move the board reports is checked by the rules and its digest compared;
- the log: every move is logged (durable) as soon as it is known; whenever the board has
  moves the log lacks, the client asks for them (MOVES_REQ) and asks again, slower and
  slower, until it has them all: never twice the same move in the log, never a gap;
- mismatches (a move the rules refuse, a digest that differs) are reported, not hidden,
  and never stop the log: the host marks the game in the log as needing attention, asks
  for the board's state (STATE_REQ, again and again, slower and slower, until it comes),
  logs every move the board reports meanwhile as the board reports it, and once it holds
  exactly the board's moves it takes the board's state (checked against the board's
  digest) and checks every later move against it again.

Apart from the client because the session (HELLO, resends, heartbeats, the messages'
dispatch) and the game it carries change for different reasons: the client's module says
how the link comes up and goes down, this one what the host does with the game it hears
of. `Following` is a part of BoardClient, as the log's parts are of GameLog: it is handed
messages already checked (`vora_host.link.board_checks`) by the client's dispatch, and
reaches through `self` what the client owns: the fields BoardClient.__init__ sets (the
game, the moves, the requests pending, the step with the board), and its `send`,
`session`, `connected`, `on_change` and `_problem`.
"""

from shared_rules import games, vora, wire, wire_host
from shared_rules.errors import RulesError
from shared_rules.session import ticks_diff

from vora_host.link.board_checks import BOARD_BOT_LEVELS, check_event, printable
from vora_host.log.errors import GameLogError, NotWritten

# Asking for missing moves: at once, then again after ASK_FIRST_MS without progress,
# doubling up to ASK_MAX_MS, for as long as moves are missing. The board's state, while out
# of step, is asked for at the same pace.
ASK_FIRST_MS = 1000
ASK_MAX_MS = 8000


class Following:
    """The part of vora_host.link.client.BoardClient that follows the board's game: the
    game events, the moves and catching up, takebacks, the disagreements and the resync,
    and the game's entry in the log."""

    # ---- the board's game events

    def _game_event(self, event):
        kind = check_event(event)
        game = event["game"]
        if kind in ("new", "resume"):
            self._follow(event)
        elif kind == "over" and game == self.game_id:
            self._follow(event)
            if self.in_step and self.state is not None and self.state.is_over():
                self._end("over")
        elif kind == "abandon" and game == self.game_id:
            self._end("abandoned")
            self.game_id = None
            self.state = None
            self.asked_from = None
        elif kind == "unknown" and game == self.game_id:
            # The board no longer has the game we asked about: what we lack is gone.
            missing = self.board_moves - len(self.moves)
            self.board_moves = len(self.moves)
            self.asked_from = None
            if missing > 0:
                self._problem("lost", "the board no longer has game %d: its moves %d to %d "
                              "are not in the log" % (game, len(self.moves) + 1,
                                                       len(self.moves) + missing))
        self.on_change("game")

    # ---- following the game

    def board_bot_level(self, seat):
        """The level's name ("easy", "normal", "hard") of the board's own bot at `seat`, or
        None when it plays no seat there or the board does not say (older firmware)."""
        i = self.board_bots.find(seat)
        return BOARD_BOT_LEVELS.get(self.board_levels[i:i + 1]) if i >= 0 else None

    def _follow(self, summary):
        """The board tells which game it plays and how far it is (a checked summary):
        start following it if it is new to us, and ask for the moves we miss."""
        game = summary.get("game")
        if game is None:
            return
        seed = summary["seed"]
        if game != self.game_id or seed != self.seed:
            if not self._start(game, seed, summary["players"], summary["seats"],
                               summary.get("position")):
                return
        self.board_digest = (summary["moves"], summary["digest"])
        self.board_moves = summary["moves"]
        self._note_saving(summary.get("save_error"))
        self.board_bots = summary.get("board_bots", "")  # checked by check_summary
        self.board_levels = summary.get("board_levels", "")  # a board before levels: none
        have = len(self.moves)
        if self.board_moves > have:
            self._catch_up(self.session.now)
        elif self.board_moves == have:
            self._check_board_digest()
            if not self.in_step and "state" in summary:
                self._take_board_state(summary)

    def _note_saving(self, error):
        # The board's summaries say whether it can save (its LOG about it may be lost).
        if error == self.board_save_error:
            return
        if error:
            self._problem("board save", "the board cannot save its game: %s" % error)
        elif self.board_save_error:
            self._problem("board save", "the board saves its game again")
        self.board_save_error = error

    def _start(self, game, seed, players, seats, position=None):
        """Switch to another game: all of it (state, replayed log, log entry) is made
        first, then taken over at once; if any part fails, nothing changes."""
        options = {"seats": seats}
        if position is not None:
            options["position"] = position
        record = {"game": vora.NAME, "players": players, "seed": seed,
                  "options": options, "moves": []}
        try:
            state = games.start(record)
        except RulesError as exc:
            self._problem("malformed", "the board announced game %d that cannot be set up "
                          "(seed %r, %r players, seats %r): %s" % (game, seed, players, seats, exc))
            return False
        known = []  # (number, move) logged before: replayed so new moves continue from there
        log_id = None
        if self.log is not None:
            try:
                found = self.log.find_game(game, seed)
                # The same board id and seed but another start (a position) is another game.
                if found is not None and found["status"] != "abandoned" \
                        and found["options"].get("position") == position:
                    log_id = found["id"]
                    # The board is the referee and it is here (a port has one program):
                    # whoever logged its game before (another computer it was plugged
                    # into) is taken over, and its later writes are refused.
                    self.log.hold(log_id, take_over=True)
                    known = [(m["number"], m["move"]) for m in self.log.game(log_id)["moves"]]
                else:
                    log_id = self.log.start_game(players=players, seed=seed, source=self.source,
                                                 board_game_id=game, options=options)
            except (GameLogError, ValueError) as exc:
                self._problem("log", "the game log cannot take game %d: %s (followed, not "
                              "logged)" % (game, exc))
                log_id = None
                known = []
        self.game_id = game
        self.seed = seed
        self.start_position = position
        self.state = state
        self.moves = []
        self.history.clear()
        self.asked_from = None
        self.asked_at = None
        self.ask_wait = ASK_FIRST_MS
        self.board_moves = 0
        self.board_digest = None
        self.log_id = log_id
        self._in_step_again()
        for n, move in known:
            self._play_known(n, move)
        self.on_change("game")
        return True

    def _play_known(self, n, move):
        # A logged move that does not replay (a game the host followed from the board's
        # state after a mismatch) is kept all the same: the board's state is asked for.
        player = self.state.to_act()
        if not self.state_lost:
            try:
                self.state.play(move)
            except RulesError as exc:
                self._diverged(n, "logged move %d %r does not replay: %s" % (n, move, exc),
                               lost=True)
        else:
            self.unchecked += 1
        self.moves.append(move)
        self.history.append((player, move))

    def _move(self, n, move, digest):
        """Move n as the board reports it. Returns False when it could not be taken (a
        gap before it, or refused by the rules): later moves of the same message wait."""
        have = len(self.moves)
        if n <= have:
            if self.moves[n - 1] != move:
                self._problem("mismatch", "move %d: the board says %r, the log has %r" % (
                    n, move, self.moves[n - 1]))
            return True  # a repeat (after a resend or a reconnect): already logged
        if n > have + 1:
            # Moves went by while we were away (or a report was dropped): fetch them.
            self.board_moves = max(self.board_moves, n)
            self._catch_up(self.session.now)
            return False
        player = self.state.to_act()
        mine = None
        if not self.state_lost:
            try:
                self.state.play(move)
                mine = self.state.digest()
            except RulesError as exc:
                self._diverged(n, "move %d %r from the board is refused by the rules: %s" % (
                    n, move, exc), lost=True)
        if mine is None:
            # Not checked: the replayed state is known to be wrong. Logged as the board
            # reports it, with its digest (or, from a MOVES without digests, the last one
            # the host knows of the board's); the game is marked in the log.
            self.unchecked += 1
            if digest is None:
                digest = self.board_digest[1] if self.board_digest else self.state.digest()
        elif digest is not None and digest != mine:
            self._diverged(n, "move %d %r: the board's digest %s, replayed here %s" % (
                n, move, digest, mine))
        self.moves.append(move)
        self.history.append((player, move))
        self.board_moves = max(self.board_moves, n)
        self.progress_at = self.session.now
        self.ask_wait = ASK_FIRST_MS
        if self.log is not None and self.log_id is not None:
            try:
                self.log.add_move(self.log_id, n, move, digest or mine)
            except NotWritten as exc:  # kept by the log, written once it works again
                self._log_kept(n, exc)
            except (GameLogError, ValueError) as exc:  # a conflict with what was logged: say it, go on
                self._problem("log", "the log refused move %d: %s" % (n, exc))
            else:
                self._log_written()
        if self.in_step and self.state.is_over():
            self._end("over")
        self._resync(self.session.now)
        self.on_change("move")
        return True

    def _catch_up(self, now):
        """Ask for the moves the board has and we lack: at once the first time, then again
        whenever ask_wait passed without a move arriving, the wait doubling up to
        ASK_MAX_MS. The board answers every request, but an answer can still be lost with
        a session that ended, and a request with a queue that was full."""
        if not self.connected or self.state is None or now is None:
            return
        have = len(self.moves)
        if self.board_moves <= have:
            self.asked_from = None
            return
        if self.asked_at is not None:
            since = self.asked_at
            if self.progress_at is not None and ticks_diff(self.progress_at, since) > 0:
                since = self.progress_at
            if ticks_diff(now, since) < self.ask_wait:
                return
            if self.asked_from == have + 1:
                self.ask_wait = min(2 * self.ask_wait, ASK_MAX_MS)  # no progress: slower
        if self.send(wire.MOVES_REQ, wire_host.pack_moves_req(self.game_id, have + 1)):
            self.asked_from = have + 1
            self.asked_at = now
            self.asks += 1

    def _take_back(self, n, digest):
        """The board took back its moves after the n-th (people agreed). The log records
        each takeback, last move first (history is not rewritten); the game is replayed
        here to n moves and checked against the board's digest."""
        if n >= len(self.moves):
            return  # a repeat, or moves we never had: nothing to take back here
        if self.log is not None and self.log_id is not None:
            for number in range(len(self.moves), n, -1):
                try:
                    self.log.take_back(self.log_id, number)
                except NotWritten as exc:
                    self._log_kept(None, exc)
                except GameLogError as exc:
                    self._problem("log", "the log refused the takeback of move %d: %s" % (
                        number, exc))
                    break
        moves = self.moves[:n]
        self._start_replay(moves)
        self.board_moves = n
        if self.state_lost or self.state.digest() != digest:
            self._diverged(n, "after the takeback to move %d the board's state is %s, "
                           "replayed here %s" % (n, digest, "unknown" if self.state_lost
                                                 else self.state.digest()))
        self.takebacks += 1
        self.on_change("takeback")

    def _start_replay(self, moves):
        options = {"seats": self.state.seats}
        if self.start_position is not None:
            options["position"] = self.start_position
        self.state = games.start({"game": vora.NAME, "players": self.state.players,
                                  "seed": self.seed, "options": options, "moves": []})
        self.moves = []
        self.history.clear()
        self.state_lost = False
        for k, move in enumerate(moves, 1):
            self._play_known(k, move)

    def _check_board_digest(self):
        # When we hold exactly the moves of the board's last summary, the states must agree.
        if (self.board_digest and self.state is not None and self.in_step
                and len(self.moves) == self.board_digest[0]
                and self.state.digest() != self.board_digest[1]):
            self._diverged(len(self.moves), "after move %d the board's state is %s, replayed "
                           "here %s" % (len(self.moves), self.board_digest[1],
                                        self.state.digest()))

    # ---- when the board and the host disagree

    def _in_step_again(self):
        self.in_step = True
        self.state_lost = False
        self.diverged_at = None
        self.unchecked = 0
        self.resync_at = None
        self.resync_wait = ASK_FIRST_MS

    def _diverged(self, n, text, lost=False):
        """The board and the replay here disagree at move n (`text` says how). Said once
        per disagreement, marked on the game in the log, and the board's state asked for;
        `lost`: the replayed state cannot even follow the board's moves any more."""
        if lost:
            self.state_lost = True
        if not self.in_step:
            return  # the state is asked for already; the note says it once
        self.in_step = False
        self.diverged_at = n
        self.unchecked = 0
        self._problem("mismatch", text + "; following the board's own state from here")
        self._attention(text)
        self.resync_at = None  # asked for at once (_resync, from poll or the next move)

    def _resync(self, now):
        """Ask for the board's state while out of step, once the host holds every move the
        board has (the answer is then a state it can take: the board sends its moves before
        its state): at once the first time, then again after resync_wait without taking
        it, the wait doubling up to ASK_MAX_MS."""
        if self.in_step or not self.connected or now is None or self.game_id is None:
            return
        if len(self.moves) < self.board_moves:
            return  # the missing moves first (_catch_up), then the state
        if self.resync_at is not None:
            if ticks_diff(now, self.resync_at) < self.resync_wait:
                return
            self.resync_wait = min(2 * self.resync_wait, ASK_MAX_MS)
        if self.send(wire.STATE_REQ, b""):
            self.resync_at = now

    def _take_board_state(self, summary):
        """A STATE with the board's whole state, at exactly the moves the host holds,
        while out of step: the board's state replaces the replayed one (it must match the
        board's own digest), and later moves are checked against it again."""
        n = summary["moves"]
        try:
            state = vora.from_json(summary["state"])
        except RulesError as exc:
            self._problem("malformed", "the board's state after move %d cannot be read: %s"
                          % (n, exc))
            return
        if state.digest() != summary["digest"] or state.players != self.state.players \
                or state.seats != self.state.seats:
            self._problem("mismatch", "the board's state after move %d is not the one it "
                          "names (digest %s, %s players, seats %s): asked again"
                          % (n, summary["digest"], state.players, state.seats))
            return
        state.start = self.state.start
        if not self.state_lost and state.digest() == self.state.digest():
            note = ("the board's state after move %d is the one replayed here: only what "
                    "it reported was wrong" % n)
            corrected = self._correct_logged()
            if corrected:
                note += ("; the log now holds the digests replayed here for move%s %s (what "
                         "the board reported is kept as an event)"
                         % ("" if len(corrected) == 1 else "s",
                            ", ".join(str(k) for k in corrected)))
        else:
            note = ("from move %d on, the host follows the board's state (taken after move "
                    "%d, digest %s)" % (self.diverged_at or n, n, summary["digest"]))
            if self.unchecked:
                note += "; %d move%s before it logged as the board reported them, unchecked" % (
                    self.unchecked, "" if self.unchecked == 1 else "s")
        self.state = state
        self.resyncs += 1
        self._attention(note)
        self._problem("resync", note)
        self._in_step_again()
        if state.is_over():
            self._end("over")
        self.on_change("game")

    def _correct_logged(self):
        """After a resync that found the board's state to be the one replayed here, every
        logged move since the mismatch whose digest is not the replay's (the board
        reported it wrong) is corrected in the log, the false one kept as an event: the
        game then verifies. Returns the numbers corrected."""
        if self.log is None or self.log_id is None or self.diverged_at is None:
            return []
        options = {"seats": self.state.seats}
        if self.start_position is not None:
            options["position"] = self.start_position
        corrected = []
        try:
            logged = self.log.game(self.log_id)["moves"]
            state = games.start({"game": vora.NAME, "players": self.state.players,
                                 "seed": self.seed, "options": options, "moves": []})
            for k, move in enumerate(self.moves, 1):
                state.play(move)
                if k < self.diverged_at or k > len(logged):
                    continue
                row = logged[k - 1]
                if row["move"] == move and row["digest"] != state.digest():
                    self.log.correct_move(self.log_id, k, move, state.digest(),
                                          "the board reported digest %s for move %d; its "
                                          "state is the one replayed here" % (row["digest"], k))
                    corrected.append(k)
        except RulesError:
            return corrected  # the replay fails after all: the attention note stands
        except (GameLogError, ValueError) as exc:
            self._problem("log", "the log cannot correct game %s: %s" % (self.log_id, exc))
        return corrected

    # ---- the game's entry in the log

    def _attention(self, note):
        if self.log is not None and self.log_id is not None:
            try:
                self.log.mark_attention(self.log_id, note)
            except (GameLogError, ValueError) as exc:
                self._problem("log", "the log cannot mark game %s as needing attention: %s"
                              % (self.log_id, exc))

    def _end(self, status):
        if self.log is not None and self.log_id is not None:
            result = None
            if status == "over" and self.state is not None:
                from vora_host.log.records import result_of
                result = result_of(self.state)
            try:
                self.log.end_game(self.log_id, status, result)
            except (GameLogError, ValueError) as exc:
                self._problem("log", "the log cannot close game %s: %s" % (self.log_id, exc))

    def _log_kept(self, n, exc):
        """The log kept move n (or a takeback: n None) in memory: it cannot be written now."""
        first = self.log_waiting is None
        if first:
            self.log_waiting = {"first": n, "last": n, "reason": printable(
                getattr(exc, "reason", None) or "it cannot be written now", 200)}
        elif n is not None:
            if self.log_waiting["first"] is None:
                self.log_waiting["first"] = n
            self.log_waiting["last"] = n
        if first:
            self.on_change("log")

    def _log_written(self):
        """A write went through: once nothing waits in the log's memory, the note goes."""
        if self.log_waiting is not None and not getattr(self.log, "pending", 0):
            self.log_waiting = None
            self.on_change("log")

    def log_note(self):
        """While the game log cannot take moves: what happens to them, in words (None
        otherwise). Not a mismatch: the game goes on and nothing is lost."""
        w = self.log_waiting
        if w is None:
            return None
        reason = w["reason"]
        head = ("the game log is unreachable (%s)" % reason if "reach" in reason
                else "the game log cannot be written (%s)" % reason)
        if w["first"] is None:
            kept = "the takeback is"
        elif w["first"] == w["last"]:
            kept = "move %d is" % w["first"]
        else:
            kept = "moves %d to %d are" % (w["first"], w["last"])
        return "%s: %s kept here and written to it as soon as it works again" % (head, kept)
