"""Vora at a table on another computer, played on this PC's board (`vora play --join LINK
--port sim` at a Vora table): two boards in two homes, one game.

Vora on a board is the board's own game: the board checks every key against the rules
and shows every move. At a table whose referee is elsewhere it still does (the same keys,
lights and previews as at home), but the table decides. This PC keeps a copy of the table
(vora_host.remote.remote_table.RemoteTable, following the seat's stream) and, beside the
board's link (a BoardClient), keeps the board's game in step with the copy:

- the other players' seats are the PC's (BOTS), so the board waits for their moves; each
  move the table takes from them goes to the board as a BOT_MOVE, previewed and played
  there as a PC bot's move is;
- a move made on the board at this seat is sent to the table (with the number of moves
  the copy holds) and stays on the board once the table takes it;
- whenever the board's game and the table's part (the table refused the board's move, a
  takeback there, a move of this seat made elsewhere, the board's own takeback or a game
  started on it), the board is set back in step from the copy: RESYNC puts the table's
  game on it (from the start of the turn under way, with that turn's moves: a position is
  written at a turn's start), and why is said and logged (a `resync` event of the copy's
  game). The board's firmware must announce the capability "resync".

Every game the board plays this way starts from a position of the table's game, so a
board joined again finds its game by that position; a game of the board's own in progress
is never replaced: the player is asked to end it on the board first.
"""

import collections
import json
import random
import threading

from shared_rules import vora
from vora_fw import layout
from vora_fw.vora_ui_keys import NO_KEY, R_BAD_POSITION

from vora_host.games.vora import view as vora_view
from vora_host.table import Refused

__all__ = ["RemoteVoraPlay", "AT_ANOTHER_COMPUTER", "IN_A_BROWSER"]

# How a seat not the board's is played, as the mirror says it, the board's screen, and the
# mirror's narrow column beside the virtual board at 80 columns (26 wide: a phrase is cut).
AT_ANOTHER_COMPUTER = ("plays at another computer", "played at another computer", "remote")
IN_A_BROWSER = ("plays in a browser", "played in a browser", "browser")
RESYNC_AGAIN_MS = 5000  # a RESYNC the board has not taken by then is sent again


class _Request:
    """A request to the table (a blocking HTTP call) in a thread of its own: the board's
    link is served meanwhile. `refused`: the table's reason, once done; None if taken."""

    def __init__(self, name, call, *args):
        self.name = name
        self.args = args
        self.refused = None
        self.done = threading.Event()
        threading.Thread(target=self._run, args=(call,), daemon=True,
                         name="to the table: %s" % name).start()

    def _run(self, call):
        try:
            call(*self.args)
        except Refused as exc:
            self.refused = exc.reason
        except Exception as exc:  # noqa: BLE001  (said to the player, never a crash)
            self.refused = "it could not be sent: %s" % exc
        finally:
            self.done.set()


class RemoteVoraPlay:
    """Beside a BoardClient (`client`), as vora_host.play.board_play.BoardPlay is: what
    `vora play --join` plays on a board at a Vora table elsewhere (`table`: a RemoteTable;
    see the module doc). poll() every few tens of milliseconds; `messages` and `said` are
    what to tell the player (with what the table says: a hint, a seat gone, a claim, a
    resignation, a takeback); command(text) takes `hint`, `undo`, `yes`, `no`, `resign`."""

    def __init__(self, client, table, new_id=None, played=None):
        self.client = client
        self.table = table
        self.you = table.you
        # {player: (for the mirror, for the board's screen[, for the mirror's narrow
        # column])}: how that seat is played, at a table on this PC (IN_A_BROWSER; a bot:
        # "random (PC)", "random", as the PC's bots are shown); elsewhere all
        # AT_ANOTHER_COMPUTER
        self.played = played or {}
        self.messages = collections.deque(maxlen=6)
        self.said = 0
        self._new_id = new_id or (lambda: random.SystemRandom().randrange(1, 1 << 32))
        self.game = None  # the board's game id that plays the table's game, once known
        self.base = 0  # the table's moves before that game's first
        self._asked = None  # (game id, base, when) of a RESYNC not yet seen on the board
        self._told = None  # (seats, the HELLO_OK they were told under)
        self._sent = None  # (board game, move number) of the BOT_MOVE last sent
        self._relay = None  # the board's move on its way to the table (_Request)
        # (board game, move number) of the board's moves sent to the table: one missing
        # there later was taken back there, never sent again
        self._relayed = set()
        self._requests = []  # the player's other requests under way (_Request)
        self._takebacks = None  # (board game, its takebacks counted so far)
        self._waiting = None  # the board's own game we wait to see ended (said once)
        self._missing_said = False
        self._over_said = False
        self._asked_said = None
        self.failed = None  # why the board cannot be set in step (it refused; said once)
        self.resyncs = 0
        self._heard = table.seq  # the table's events said so far (none of before)
        self._owed_why = None  # why the board must be set, when the link was down then

    # ---- what the screens ask

    def seats(self):
        """The seat letters played elsewhere (the PC's, for the board)."""
        return "".join(s for p, s in enumerate(self.table.state.seats) if p != self.you)

    def _played(self):
        return dict((p, self.played.get(p, AT_ANOTHER_COMPUTER))
                    for p in range(len(self.table.agents)) if p != self.you)

    def names(self):
        """{seat letter: what plays it} for the virtual board's screen (a phrase is shown
        as it is, a bot's kind as a PC bot's)."""
        return dict((self.table.state.seats[p], shown[1])
                    for p, shown in self._played().items())

    def who(self, compact=False):
        """{player: what plays it} for the mirror, every seat not the board's; `compact`:
        the word for its narrow column, where a seat's phrase has one."""
        return dict((p, shown[2] if compact and len(shown) > 2 else shown[0])
                    for p, shown in self._played().items())

    def settled(self):
        """The board plays the table's game and nothing is on its way to either."""
        return self._asked is None and self._relay is None and self.game is not None \
            and self.client.game_id == self.game

    def say(self, text):
        self.messages.append(text)
        self.said += 1

    def command(self, text):
        """A line typed beside the board: `hint` (the hard level's move, thought of on
        the copy: Vora hides nothing), `undo` (ask the table for a takeback), `yes` or `no`
        (answer the table's), `resign`. Its answer lines, or None: not ours."""
        word = text.strip().lower()
        calls = {"hint": ("a hint", self.table.hint, self.you, None),
                 "undo": ("a takeback", self.table.request_takeback, self.you),
                 "takeback": ("a takeback", self.table.request_takeback, self.you),
                 "yes": ("yes to the takeback", self.table.answer_takeback, self.you, True),
                 "no": ("no to the takeback", self.table.answer_takeback, self.you, False),
                 "resign": ("resigning", self.table.resign, self.you)}
        if word not in calls:
            return None
        name, call = calls[word][:2]
        self._requests.append(_Request(name, call, *calls[word][2:]))
        self.say("%s: sent to the table" % name)
        return ["ok"]

    # ---- keeping the board in step

    def poll(self):
        c = self.client
        self._refusals()
        self._answers()
        self._table_says()
        if not c.connected:
            return
        if not c.takes_games():
            if not self._missing_said:
                self._missing_said = True
                self.say("this board's firmware cannot play at a table on another computer "
                         "(no \"resync\" capability): update it (vora update)")
            return
        seats = self.seats()
        if self._told != (seats, id(c.board)):
            if c.send_bots(seats):
                self._told = (seats, id(c.board))
        if self._relay is not None or self.failed is not None:
            return
        if c.asked_from is not None or len(c.moves) < c.board_moves:
            return  # the PC is catching up with the board
        with self.table.lock:
            moves = list(self.table.moves)
            over = self.table.is_over()
            takeback = self.table.takeback
        self._say_takeback(takeback)
        if self._asked is not None:
            game, base, when = self._asked
            if c.game_id == game:
                self.game, self.base, self._asked = game, base, None
            elif c.session.now - when < RESYNC_AGAIN_MS:
                return
            else:
                self._asked = None  # lost with a session that failed: sent again below
        if self.game is None or c.game_id != self.game:
            if not self._find_game(moves):
                return
        self._takeback_on_board()
        if over:
            if not self._over_said:
                self._over_said = True
                self.say("the table's game is over: q leaves")
            return
        self._step(moves)

    def _find_game(self, moves):
        """The board's game is the table's (a game this PC set, or one the board kept
        from when this seat was joined before: it started at a position of the table's
        game); else set it, unless it is a game of the board's own in progress. True
        when the board plays the table's game now."""
        c = self.client
        st = c.state
        if self.game is not None or st is None or st.is_over():
            # Set here before (the player started another game on it since), or none.
            self._resync("the board is set to the table's game")
            return False
        if c.start_position is not None:
            with self.table.lock:
                for k in range(len(moves) + 1):
                    at = self._state_at(k)
                    if at.phase == vora.PHASE_ACTION and at.position() == c.start_position:
                        self.game, self.base = c.game_id, k
                        return True
        if self._waiting != c.game_id:
            self._waiting = c.game_id
            self.say("the board has a game of its own under way (%d moves): end it on the "
                     "board (hold your corner for 2 s, then the red key) and the table's "
                     "game is set there" % len(c.moves))
        return False

    def _step(self, moves):
        # The board's moves and the table's, both from the table's position at `base`.
        c = self.client
        if self.base > len(moves):
            return self._resync("taken back at the table, to before this turn")
        board, table = list(c.moves), moves[self.base:]
        same = 0
        while same < min(len(board), len(table)) and board[same] == table[same]:
            same += 1
        if same == len(board) == len(table):
            return  # in step
        st = c.state
        if same == len(board) < len(table):
            if st.to_act() == self.you:
                self._resync("the table has a move of this seat the board has not: %s"
                             % table[same])
            elif self._sent != (c.game_id, same + 1):
                if c.send_bot_move(same + 1, table[same]):
                    self._sent = (c.game_id, same + 1)
            return
        if same == len(table) and len(board) == same + 1 \
                and (c.game_id, same + 1) not in self._relayed:
            with self.table.lock:
                mover = self.table.state.to_act()
            if mover == self.you:
                self._relayed.add((c.game_id, same + 1))
                self._relay = _Request("the board's move", self.table.play, board[same],
                                       self.you, self.base + same)
                return
        if same == len(table):
            self._resync("taken back at the table: %s" % " | ".join(board[same:]))
        else:
            self._resync("the board's moves (%s) are not the table's (%s)" % (
                " | ".join(board[same:]) or "none", " | ".join(table[same:])))

    def _answers(self):
        relay = self._relay
        if relay is not None and relay.done.is_set():
            self._relay = None
            if relay.refused is not None:
                self._resync("the table refused the board's move %s: %s"
                             % (relay.args[0], relay.refused))
        for request in [r for r in self._requests if r.done.is_set()]:
            self._requests.remove(request)
            if request.refused is not None:
                self.say("%s refused: %s" % (request.name, request.refused))

    def _table_says(self):
        # What the table says, as this seat may see it; its moves are the board's to show.
        events, _ = self.table.events_since(self._heard, viewer=self.you)
        for number, what, text in events:
            self._heard = number
            if what != "move":
                self.say(text)

    def _takeback_on_board(self):
        # The board's own takeback (its menu) is asked of the table, which decides; the
        # board shows the table's game meanwhile.
        c = self.client
        if self._takebacks is None or self._takebacks[0] != c.game_id:
            self._takebacks = (c.game_id, c.takebacks)
        if c.takebacks > self._takebacks[1]:
            self._takebacks = (c.game_id, c.takebacks)
            self._requests.append(_Request("a takeback", self.table.request_takeback,
                                           self.you))
            self.say("a takeback is asked of the table: the board shows the table's game "
                     "until the others agree")

    def _say_takeback(self, takeback):
        asked = takeback is not None and self.you in takeback.get("waiting", ())
        if asked and self._asked_said != takeback["what"]:
            self._asked_said = takeback["what"]
            self.say("the table asks to take back %s: type yes or no" % takeback["what"])
        elif not asked:
            self._asked_said = None

    def _state_at(self, k):
        # The copy's state after its first k moves (under the table's lock).
        table = self.table
        return table.before[k] if k < len(table.before) else table.state

    def _resync(self, why):
        """Put the copy's game on the board: from the start of the turn under way, with
        that turn's moves."""
        c = self.client
        with self.table.lock:
            k = len(self.table.moves)
            while k > 0 and self._state_at(k).phase != vora.PHASE_ACTION:
                k -= 1
            start = self._state_at(k).position()
            moves = list(self.table.moves[k:])
            state = json.loads(self.table.state.to_json())
        if self._owed_why is not None:  # said when it could not be sent
            why, self._owed_why = self._owed_why, None
        game = self._new_id()
        while game == c.game_id:
            game = self._new_id()
        text = json.dumps({"game_id": game, "seed": self.table.seed & 0xFFFFFFFF,
                           "start": start, "moves": moves, "state": state},
                          separators=(",", ":"))
        if not c.send_resync(text):
            self._owed_why = why  # the link is down: sent, with its reason, once it is up
            return
        self._asked = (game, k, c.session.now)
        self._relayed.clear()
        self._sent = None
        self.resyncs += 1
        if self.game is not None:  # a disagreement, not the first setting
            self.say("the board is set back in step with the table: %s" % why)
            log = self.table.log
            if log is not None:
                log.event("resync", {"why": why[:500], "board": list(c.moves)[-8:]})
        else:
            self.say(why)

    def _refusals(self):
        # REFUSED from the board, in words; a RESYNC refused stops the setting.
        c = self.client
        while c.refused:
            key, reason, detail = c.refused.popleft()
            text = vora_view.refusal_text(
                reason, None if key == NO_KEY else layout.KEY_NAMES[key], detail)
            if key == NO_KEY and self._asked is not None and reason == R_BAD_POSITION:
                self.failed = text
                self._asked = None
                text = "the board cannot take the table's game: %s" % text
            self.say(text)
