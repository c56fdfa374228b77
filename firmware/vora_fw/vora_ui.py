"""Vora on the board: key presses in, moves to the rules core, frames out.

Pure logic: no machine, no clock (every call is given `now` in ms ticks), so it runs the
same on the board, in the virtual board and under tests. The player's guide is the
"Playing on the board" section of docs/firmware.md; in short:

- Setup: the corners of the seats in play glow; press a corner to add or remove that seat
  (2 to 4 players); press the green centre key (c3) to start.
- Your turn: your corner pulses. Press it to see your farm on the meadow (one light per
  cube), press a cube to pick it, then an edge key to push with it: the line is previewed;
  press the same edge again to switch to the pig's double push or the wolf's bite where
  they are possible; press your corner to confirm. A crow picked from the farm goes onto
  a meadow animal instead. Press a mole or a duck in the meadow, then the cube to swap it
  with; press a ladybug, or a water cube of a group of three or more, to take it. Every
  move is previewed and confirmed with your corner; a key that leads nowhere flashes red
  and nothing changes.
- Lines you made blink: press one to preview it, your corner to collect it. Your corner
  with nothing previewed proposes "pass" (the corner blinks red): press it again to pass.
- After a line of 4 or more: press any meadow cube for the extra cube, or (5 or more)
  another player's corner, then one of their cubes to steal it; your corner passes.
- Any player's corner, pressed when it is not their turn, shows their farm for 3 seconds.
- Holding your corner for 2 seconds opens the menu: the green key goes back to the game,
  the red key ends it and starts a new setup.
- At the end the scores scroll across the meadow in each seat's colour, and the winner's
  corner pulses; press the centre key for a new game.
- Bots: a corner held for 2 seconds in setup makes that seat the board's own bot
  (vora_fw.bot) at level normal; held again, hard, then easy, then a person again; the
  corner flashes once (easy), twice (normal) or three times (hard). The PC may play seats
  too (host bots, BOTS and BOT_MOVE messages). A bot's move is previewed like a player's,
  then played.
- Taking back: in the menu the centre key (amber) asks to take back the last move of a
  person (and the bots' moves after it); every other person agrees with their corner.
- A refused key says why: refuse() keeps a reason code (R_...), which the PC turns into
  words (vora_host.games.vora.view.refusal_text).

The application is in four files, split where the heap allows it (docs/benchmarks.md, "The
board's game in four files"): this one (the game's life cycle: dealing, playing and saving,
the bots, time passing), vora_fw.vora_ui_keys (what each key means) and
vora_fw.vora_ui_frames (what the keys show), which VoraUI mixes in, and
vora_fw.vora_ui_restore (a saved game resumed, a position set up, a takeback), loaded only
for those and let go after.
"""

try:
    from micropython import const
except ImportError:
    def const(x):  # type: ignore[misc]
        return x

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

import gc
import json
from array import array

from shared_rules import vora
from shared_rules.errors import RulesError
from vora_fw import layout, palette
from vora_fw.clock import ticks_diff
from vora_fw.movelog import SAVE_HEAD, MoveLog
# The modes and the refusal codes are part of this module's interface (the PC's view reads
# them here); they are defined beside the code that draws and reads the keys.
from vora_fw.vora_ui_frames import (  # noqa: F401
    MODE_MENU, MODE_OVER, MODE_PLAY, MODE_SETUP, MODE_UNDO, Frames)
from vora_fw.vora_ui_keys import (  # noqa: F401
    NO_KEY, R_BOT_TURN, R_BUSY, R_NOT_NOW, R_RULES, R_WAIT, Keys)

HOLD_MS = const(2000)  # corner held this long opens the menu
AUTO_MS = const(1100)  # a bot's (or a typed) move stays previewed this long, then plays
BOT_WAIT_MS = const(500)  # the board's bot starts thinking once the last move has shown
# The board's bot's levels (vora_fw.bot.LEVELS), as saved: one letter each.
BOT_EASY = const(0)
BOT_NORMAL = const(1)
BOT_HARD = const(2)
BOT_DEFAULT = const(1)  # a seat just made a bot, and a save from before the levels
BOT_LEVELS = "enh"
SAVE_RETRY_MS = const(5000)  # a save that failed (flash full) is tried again this often


class LegalMoves:
    """The legal moves of a position, kept as move codes (vora.legal_codes()) in an
    array('H'): to whoever reads it, a sequence of move texts (in, len, [i], for), 2 bytes a
    move where a list of strings held some forty (11 KB at the most moves of a 4-player
    game) and a list of codes grew into a block of 2 KB, which a fragmented heap may not
    have. The board's own drawing reads `codes`, which allocates nothing."""

    def __init__(self, state=None):
        self.codes = state.legal_codes(array("H")) if state is not None else ()

    def __len__(self):
        return len(self.codes)

    def __getitem__(self, i):
        return vora.move_text(self.codes[i])

    def __contains__(self, move):
        code = vora.move_code(move)
        for c in self.codes:  # MicroPython's array has no `in` for numbers
            if c == code:
                return True
        return False

    def __iter__(self):
        for code in self.codes:
            yield vora.move_text(code)


NO_MOVES = LegalMoves()


class VoraUI(Frames, Keys):
    """The board's Vora application. Feed it key events and ask it for frames."""

    def __init__(self, store=None, seed_fn=None, listener=None, now=0, id_fn=None):
        self.store = store
        self.seed_fn = seed_fn or (lambda: 0)
        # A number that names each game the board deals, so the PC can tell a game it
        # logged from a new one after a reconnect (App gives a random one on the board).
        self.id_fn = id_fn or self.seed_fn
        # listener(event, state, detail): "move" after each move, "new" at a new game,
        # "over" at the end. The serial link uses it to mirror the board on the PC.
        self.listener = listener
        self.state = None  # type: Any
        self.saved_digest = None  # type: Any  # (state, digest) of the state last saved
        # () -> whether the listener reports digests now (vora_fw.app: a PC connected);
        # None: whenever there is a listener. The save hashes it then (digest_of).
        self.digest_wanted = None  # type: Any
        self.mode = MODE_SETUP
        self.chosen_seats = "SN"
        self.legal = NO_MOVES
        self.sel_type = -1  # cube type picked from the farm
        self.sel_cell = -1  # a mole or duck waiting for its target
        self.sel_edge = -1
        self.variants = []  # moves of the edge last pressed (push / pig / wolf)
        self.variant = 0
        self.preview = None  # type: Any  # the move that the corner confirms
        self.view_farm = -1  # player whose farm is on the meadow
        self.view_for = ""  # "pick" (own farm), "steal" or "peek"
        self.view_until = 0
        self.refused_key = -1
        self.refused_at = 0
        self.refused_reason = 0
        self.refused_detail = ""
        self.refusals = 0  # counts refusals, so a caller can tell whether its key was one
        self.held_key = -1
        self.held_since = 0
        self.changed = 0  # mask of meadow cells that changed with the last move
        self.changed_at = 0
        self.delay = bytearray(25)  # per cell: when its fade starts, in 10 ms
        self.scroll = None  # type: Any
        self.winner_player = None  # type: Any
        self.error = ""
        self.save_error = ""  # why saving fails, while it does (the flash is full...)
        self.save_retry_at = 0
        self.unsettled = None  # type: Any  # a move played whose settle() has not finished
        self.memory_error = False  # out of memory twice in a row: shown on the keys
        self.memory_retry_at = 0
        # The game's record: what the PC needs to replay it and fetch moves it missed.
        self.game_id = 0
        self.seed = 0
        self.moves = MoveLog()  # every move played, in order (reads as a list)
        self.start = None  # the position the game was set up from, None for a deal
        self.board_bots = ""  # seats the board's own bot plays (chosen in setup)
        self.board_levels = ""  # its level at each of those seats, a letter of BOT_LEVELS
        self.host_bots = ""  # seats the PC's bots play (BOTS message; forgotten with the PC)
        self.bot = None  # type: Any  # vora_fw.bot.BoardBot, made when a bot seat first acts
        self.auto_move = None  # type: Any  # a bot's or typed move, previewed until auto_at
        self.auto_at = 0
        self.hold_fired = False
        self.setup_press = False  # the key held was pressed in setup (which acts on release)
        self.menu_seat = ""  # who opened the menu (the takeback's asker)
        self.undo_wait = ""  # seats whose agreement to a takeback is still awaited
        # The state before the last move of a person, and how many moves came before it:
        # a takeback returns there without replaying the game (None: replay instead).
        self.snap = None  # type: Any
        self.snap_n = 0
        self.overlay = bytearray(49)
        self.view_cells = None  # type: Any
        self.pick_rgb = palette.OFF
        self.now = now

    # ---- game life cycle

    def resume(self):
        """Resume the saved game, if any (at power-up, once the link is listening)."""
        if self.store is None:
            return
        text = self.store.load()
        if not text:
            why = getattr(self.store, "last_error", None)  # a file there held no save
            if why:
                self.error = "save ignored: %s" % why
            return
        _restore().resume(self, text, BOT_LEVELS, BOT_DEFAULT)
        _let_go()

    @property
    def moves_played(self):
        return len(self.moves)

    def record(self):
        """The game record: replaying it from the seed gives the board's state."""
        options = {"seats": self.state.seats}
        if self.start is not None:
            options["position"] = self.start
        return {"game": vora.NAME, "players": self.state.players, "seed": self.seed,
                "options": options, "moves": list(self.moves)}

    def _enter_game(self, state):
        self.state = state
        self.saved_digest = None
        self.unsettled = None
        self.auto_move = None
        self.snap = None
        self._reset_selection()
        self.legal = LegalMoves(state)
        self.mode = MODE_OVER if state.is_over() else MODE_PLAY
        if self.mode == MODE_OVER:
            self._prepare_scores()
        self._refresh()

    def new_game(self, seats, seed):
        order = "".join(s for s in vora.SIDES if s in seats)
        state = vora.new_game(len(order), seed=seed, seats=order)
        self._begin(state, seed, None)

    def _begin(self, state, seed, start):
        for seat in self.board_bots:
            if seat not in state.seats:
                self._set_bot(seat, -1)
        self._enter_game(state)
        self.moves = MoveLog(flash=self.store)
        self.seed = seed
        self.start = start
        self.game_id = self.id_fn() & 0xFFFFFFFF
        self._save()
        self._tell("new", None)

    def _leave_game(self):
        """Back to the setup, the game over or abandoned. What the game held goes and the
        collector runs now, while nobody waits on the keys: the next game's state and
        lists are then made together at the bottom of the heap, not in the holes the last
        game's garbage left all over it (a board's heap is fixed, and scattered survivors
        split its free memory into blocks too small for a save; the largest free block
        after a game: tests/test_micropython_unix.py). The record of moves goes too: with
        no game, a PC that asks for moves hears the game is unknown (vora_fw.link)."""
        if self.store is not None:
            self.store.clear()
        self.state = None
        self.saved_digest = None
        self.moves = None  # type: ignore[assignment]  # made again below
        self.variants = self.scroll = self.snap = self.bot = None
        self.winner_player = None
        self.legal = NO_MOVES
        self.mode = MODE_SETUP
        gc.collect()
        self.moves = MoveLog(flash=self.store)  # after the collection: where the heap is lowest
        self._reset_selection()

    def set_position(self, position, seed, now):
        """A game set up from a position (from the PC: teaching, puzzles). Refused while
        a game is in progress, or when the rules refuse the position. Returns 0 or the
        reason code."""
        if self.state is not None and self.mode != MODE_OVER:
            return self.refuse(NO_KEY, now, R_BUSY)
        why = _restore().set_position(self, position, seed, now)
        _let_go()
        return why

    def resync(self, text, now):
        """The board's game, whatever it is, replaced by the one `text` holds (a save's
        text: docs/protocol.md, RESYNC), from a PC playing a seat of a table whose referee
        is elsewhere, when the board and that referee part. Returns 0 or the reason."""
        why = _restore().resync(self, text, now)
        _let_go()
        return why

    def play(self, move, now):
        """Play a move from the keys (or from the host); RulesError leaves everything alone.

        In two steps, so that a MemoryError (vora_fw.app retries once, then saves and shows
        the error) never leaves the state and the record disagreeing: the move is played on
        a copy, and the copy, the record and the takeback's snapshot change together;
        settle() then does what follows a move (legal moves, save, report), and may run
        again if it was cut short."""
        old = self.state
        new = old.clone()
        new.play(move)  # RulesError or MemoryError: nothing has changed
        self.moves.append(move)
        self.state = new
        self.saved_digest = None
        if not self._is_bot(old.seats[old.active]):
            self.snap = old  # where a takeback of this move returns; never played on again
            self.snap_n = len(self.moves) - 1
        self.unsettled = move
        changed = 0
        for i in range(25):
            if new.grid[i] != old.grid[i]:
                changed |= 1 << i
        self.changed = changed
        self.changed_at = now
        self._plan_animation(move)
        self._reset_selection()
        self.legal = NO_MOVES  # the old list may go before the new one is built (heap peak)
        self.settle(now)

    def settle(self, now):
        """What follows a move played (play()): the next legal moves, the save, the report
        to the listener, the end of the game. Does nothing when there is nothing to do."""
        move = self.unsettled
        if move is None:
            return
        self.legal = LegalMoves(self.state)
        self._save()
        self.unsettled = None
        self.memory_error = False
        self._tell("move", move)
        if self.state.is_over():
            self.mode = MODE_OVER
            self._prepare_scores()
            self._tell("over", None)
        self._refresh()

    def out_of_memory(self, now):
        """An allocation failed twice (vora_fw.app): save the game as it stands (the state
        and the record agree), show the error on the keys until a key or a move goes
        through again, and tell the listener."""
        self.memory_error = True
        self.memory_retry_at = now + SAVE_RETRY_MS
        try:
            self._save()
        except MemoryError:
            pass
        try:
            self._tell("low_memory", "the board ran out of memory; the game is saved")
        except MemoryError:
            pass

    def _save(self):
        # The state with the record that led to it: the PC may ask for any move it missed.
        # A save that fails (OSError: the flash is full) does not stop the game: it is
        # shown (the edges flash red, the host gets a LOG and the STATE says so) and tried
        # again every SAVE_RETRY_MS and at the next move; each save holds the whole game.
        if self.store is None or self.state is None:
            return
        try:
            pieces = self._save_pieces()
            save_pieces = getattr(self.store, "save_pieces", None)
            if save_pieces is not None:
                save_pieces(pieces, self.moves.committed)
            else:  # a store of the tests', which takes the text whole
                self.store.save("".join(
                    x if isinstance(x, str) else str(x, "utf-8") for x in pieces))
        except OSError as exc:
            code = exc.args[0] if exc.args else 0
            failing = self.save_error
            self.save_error = "saving the game fails: %s" % (
                "no space left on the flash" if code == 28 else "error %s" % code)  # 28: ENOSPC
            self.save_retry_at = self.now + SAVE_RETRY_MS
            if not failing:
                self._tell("save_failed", self.save_error + "; the game goes on, unsaved")
            return
        if self.save_error:
            self.save_error = ""
            self._tell("saved", "the game is saved again")

    def _save_pieces(self):
        # The save as pieces of about a KB at most (Store.save joins them on the flash): one
        # string of the whole game would need a free block of that size in the heap. The
        # moves come first (SAVE_HEAD): those of the last save, copied from it on the flash,
        # then the move log's own buffers, already JSON: nothing is made per move.
        p = [SAVE_HEAD]
        for i, piece in enumerate(self.moves.json_pieces()):
            if i:
                p.append(",")
            p.append(piece)
        p.append('],"game_id":%d,"seed":%d,"start":%s,"bots":"%s","levels":"%s","state":' % (
            self.game_id, self.seed, json.dumps(self.start), self.board_bots,
            self.bot_levels()))
        # The state's JSON in its pieces, never joined; hashed from the same pieces when a
        # PC hears the digest (digest_of): one JSON a move, where the save and the digest
        # made one each (a whole text each, 3 KB of garbage on the board: issue 40).
        start = len(p)
        self.state.json_pieces(p)
        wanted = self.digest_wanted
        if wanted() if wanted is not None else self.listener is not None:
            self.saved_digest = (self.state, vora.digest_pieces(p, start, len(p)))
        p.append("}")
        return p

    def digest_of(self, state):
        """state.digest(), taken from the save when `state` is the one just saved (the
        board never plays on a state it shows: play() plays on a copy)."""
        saved = self.saved_digest
        if saved is not None and saved[0] is state:
            return saved[1]
        return state.digest()

    def _tell(self, event, detail):
        if self.listener is not None:
            self.listener(event, self.state, detail)

    def _reset_selection(self):
        self.sel_type = -1
        self.sel_cell = -1
        self.sel_edge = -1
        self.variants = []
        self.variant = 0
        self.preview = None
        self.view_farm = -1
        self.view_for = ""

    # ---- input

    def key(self, k, pressed, now):
        """A debounced key event: key index 0..48, pressed or released."""
        self.now = now
        if not pressed:
            if k == self.held_key:
                self.held_key = -1
                # Setup acts on release: a corner held long enough did its hold instead.
                if self.mode == MODE_SETUP and self.setup_press and not self.hold_fired:
                    self._key_setup(k, now)
                    self._refresh()
            return
        self.held_key = k
        self.held_since = now
        self.hold_fired = False
        self.setup_press = self.mode == MODE_SETUP
        if self.setup_press:
            return  # on release (above) or on hold (tick)
        if self.mode == MODE_MENU:
            self._key_menu(k, now)
        elif self.mode == MODE_UNDO:
            self._key_undo(k, now)
        elif self.mode == MODE_OVER:
            self._key_over(k, now)
        else:
            self._key_play(k, now)
        self._refresh()

    def tick(self, now):
        """Time passing: long presses, views that expire, bots and previewed moves."""
        # A job added here that needs every tick (not a time of its own a frame may be
        # late for) must be named in vora_host.virtual.pace._game_counts_on_ticks too: the
        # virtual board runs this at the App's pace only while that says so.
        self.now = now
        if self.held_key >= 0 and ticks_diff(now, self.held_since) >= HOLD_MS:
            k = self.held_key
            self.held_key = -1
            seat = layout.SEAT_OF_CORNER.get(k)
            if self.mode == MODE_SETUP and seat is not None:
                self.hold_fired = True
                # A corner held in setup: that seat is played by the board's bot at
                # normal; held again, hard, then easy, then by a person again.
                if seat not in self.chosen_seats:
                    self.chosen_seats += seat
                if seat not in self.board_bots:
                    self._set_bot(seat, BOT_DEFAULT)
                else:
                    level = self.bot_level(seat)
                    self._set_bot(seat, -1 if level == BOT_EASY else
                                  BOT_EASY if level == BOT_HARD else BOT_HARD)
            elif (self.mode == MODE_PLAY and seat is not None and seat in self.state.seats
                  and not self._is_bot(seat) and self.auto_move is None):
                self.hold_fired = True
                self._reset_selection()
                self.menu_seat = seat
                self.mode = MODE_MENU
                self._refresh()
        if self.view_for == "peek" and ticks_diff(now, self.view_until) >= 0:
            self.view_farm = -1
            self.view_for = ""
            self._refresh()
        if self.save_error and ticks_diff(now, self.save_retry_at) >= 0:
            self._save()
        if self.mode != MODE_PLAY:
            return
        if self.auto_move is not None:
            if ticks_diff(now, self.auto_at) >= 0:
                move = self.auto_move
                self.auto_move = None
                try:
                    self.play(move, now)
                except RulesError as exc:
                    self._reset_selection()
                    self.refuse(NO_KEY, now, R_RULES, str(exc))
                    self._refresh()
        elif self.state.seats[self.state.active] in self.board_bots:
            self._bot_tick(now)

    def _bot_tick(self, now):
        # The board's own bot thinks a little at each tick (one candidate move per call),
        # so key scanning goes on and the heap holds one trial state at a time.
        if ticks_diff(now, self.changed_at) < BOT_WAIT_MS:
            return
        if self.bot is None:
            from vora_fw.bot import BoardBot
            self.bot = BoardBot()
        bot = self.bot
        if bot.n != len(self.moves) or bot.game != self.game_id:
            bot.start(self.state, self.legal.codes, self.seed ^ self.game_id, len(self.moves),
                      self.game_id, bot_level_name(self.bot_level(self.state.seats[
                          self.state.active])))
        elif bot.step() and self.enter_move(bot.best, now, True):
            bot.n = -1  # refused (it cannot be, but never loop on it): think again

    def refuse(self, k, now, reason=0, detail=""):
        """A key (or, with NO_KEY, a request from the PC) that does nothing: the key
        flashes red, and the reason is kept and told to the listener. Returns reason."""
        self.refused_key = k
        self.refused_at = now
        self.refused_reason = reason
        self.refused_detail = detail
        self.refusals += 1
        self._tell("refused", (k, reason, detail))
        return reason

    def _is_bot(self, seat):
        return seat in self.board_bots or seat in self.host_bots

    def bot_level(self, seat):
        """The level (BOT_EASY, BOT_NORMAL, BOT_HARD) of the board's bot at `seat`."""
        i = self.board_bots.find(seat)
        if 0 <= i < len(self.board_levels):
            return BOT_LEVELS.find(self.board_levels[i])
        return BOT_DEFAULT

    def bot_levels(self):
        """The level of the board's bot at each of board_bots, a letter of BOT_LEVELS each
        (as saved, and as the link tells the PC)."""
        return "".join(BOT_LEVELS[self.bot_level(b)] for b in self.board_bots)

    def _set_bot(self, seat, level):
        # The board's bot plays `seat` at `level`; -1: a person does.
        levels = ""
        for b in self.board_bots:
            if b != seat:
                levels += BOT_LEVELS[self.bot_level(b)]
        self.board_bots = self.board_bots.replace(seat, "")
        if level >= 0:
            self.board_bots += seat
            levels += BOT_LEVELS[level]
        self.board_levels = levels

    def humans(self):
        """The seats of the game played by people (not by a bot of the board or the PC)."""
        return "".join(s for s in self.state.seats if not self._is_bot(s))

    def enter_move(self, move, now, bot=False):
        """A whole move at once (a bot's, or typed on the PC): checked like keys, shown as
        a preview for AUTO_MS, then played. `bot`: it comes from the bot of the seat to
        act (else from a person, refused on a bot's turn). Returns 0, or the reason it
        was refused."""
        if self.state is None or self.mode != MODE_PLAY:
            return self.refuse(NO_KEY, now, R_NOT_NOW)
        if self.auto_move is not None:
            return self.refuse(NO_KEY, now, R_WAIT)
        if self._is_bot(self.state.seats[self.state.active]) != bot:
            return self.refuse(NO_KEY, now, R_NOT_NOW if bot else R_BOT_TURN)
        if move not in self.legal:
            try:
                self.state.clone().play(move)
                why = "not a legal move now"
            except RulesError as exc:
                why = str(exc)
            return self.refuse(NO_KEY, now, R_RULES, why)
        self._reset_selection()
        words = move.split(" ")
        if words[0] == "push":
            self.sel_type = vora.TYPES.index(words[1])
        self.preview = move
        self.auto_move = move
        self.auto_at = now + AUTO_MS
        self._refresh()
        return 0

    # ---- takebacks (vora_fw.vora_ui_restore)

    def request_takeback(self, seat, now):
        """Ask to take back the last move of a person (and the bots' moves after it).
        `seat` is the asker ("" for the PC): every other person agrees with their corner.
        Returns 0 or the reason it was refused."""
        why = _restore().request_takeback(self, seat, now)
        if self.mode != MODE_UNDO:
            _let_go()
        return why

    def _key_undo(self, k, now):
        _restore().key_undo(self, k, now)
        if self.mode != MODE_UNDO:
            _let_go()


def _restore():
    # A saved game resumed, a position set up, a takeback: rare, so their code is loaded
    # when one comes (vora_fw.vora_ui_restore) and let go once it is done (_let_go).
    from vora_fw import vora_ui_restore
    return vora_ui_restore


def _let_go():
    # Done with vora_fw.vora_ui_restore, vora_fw.saved_game if it read a save, and
    # shared_rules.vora_position if it read a state or a position (vora.from_json,
    # new_game(position=...)): their code goes back to the heap (their names stay:
    # vora_fw.start interns them at the start).
    import sys
    for package, leaf in (("vora_fw", "vora_ui_restore"), ("vora_fw", "saved_game"),
                          ("shared_rules", "vora_position")):
        sys.modules.pop(package + "." + leaf, None)
        if leaf in sys.modules[package].__dict__:  # not always imported (MicroPython: KeyError)
            delattr(sys.modules[package], leaf)


def bot_level_name(level):
    """vora_fw.bot's name of a level (BOT_EASY...): its LEVEL_NAMES, spelled here because
    bot.py is imported only when a bot seat first plays."""
    return ("easy", "normal", "hard")[level]
