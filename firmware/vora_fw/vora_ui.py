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

import json
from array import array

from shared_rules import vora
from shared_rules.errors import RulesError
from vora_fw import layout, palette
from vora_fw.clock import ticks_diff
from vora_fw.movelog import MoveLog
from vora_fw.store import parse_game

MODE_SETUP = const(0)
MODE_PLAY = const(1)
MODE_MENU = const(2)
MODE_OVER = const(3)
MODE_UNDO = const(4)  # a takeback was asked for: waiting for every person to agree

HOLD_MS = const(2000)  # corner held this long opens the menu
PEEK_MS = const(3000)  # another player's farm stays on view this long
REFUSE_MS = const(450)
ANIM_MS = const(350)  # a cube that changed fades in from white over this time
SWEEP_MS = const(45)  # a push sweeps along its line, one cell after the other
FALL_DELAY_MS = const(260)  # then the cubes that fell or were refilled
SCROLL_MS = const(160)  # one column of scrolling text
AUTO_MS = const(1100)  # a bot's (or a typed) move stays previewed this long, then plays
BOT_WAIT_MS = const(500)  # the board's bot starts thinking once the last move has shown
# The board's bot's levels (vora_fw.bot.LEVELS), as saved: one letter each.
BOT_EASY = const(0)
BOT_NORMAL = const(1)
BOT_HARD = const(2)
BOT_DEFAULT = const(1)  # a seat just made a bot, and a save from before the levels
BOT_LEVELS = "enh"
BOT_FLASH_MS = const(180)  # a setup corner's flash (on, then off) for each level step
BOT_FLASH_CYCLE_MS = const(1800)  # the flashes repeat this often

# Why a key (or a request from the PC) was refused: refused_reason holds one of these; the
# PC says it in words (vora_host.games.vora.view.REFUSALS). Codes never change meaning.
R_SETUP_KEY = const(1)  # setup: only corners and c3 do something
R_FEW_SEATS = const(2)  # c3 with fewer than two seats
R_MENU_KEY = const(3)  # menu: c2, c3, c4 only
R_OVER_KEY = const(4)  # game over: c3 or a corner
R_NO_SEAT = const(5)  # a corner where nobody sits
R_RULES = const(6)  # the rules refused the move (refused_detail says why)
R_FARM_EMPTY = const(7)  # a cell with no cube of the farm on view
R_NO_STEAL = const(8)  # that cube cannot be stolen
R_NOT_IN_LINE = const(9)  # collect phase: not a cube of a line
R_NO_EXTRA = const(10)  # bonus phase: no extra cube there
R_CELL_NO_MOVE = const(11)  # action phase: that cube has no move of its own
R_EDGE_NOT_NOW = const(12)  # an edge outside the action phase
R_EDGE_NO_CUBE = const(13)  # an edge before a cube was picked from the farm
R_EDGE_BAD = const(14)  # the picked cube cannot go in there
R_BOT_TURN = const(15)  # a bot plays this seat now
R_WAIT = const(16)  # a move is being shown and plays in a moment
R_NOT_NOW = const(17)  # a request from the PC that does not fit the board's state
R_BUSY = const(18)  # a position while a game is in progress
R_BAD_POSITION = const(19)  # a position the rules refuse (refused_detail says why)
R_NO_TAKEBACK = const(20)  # no move of a person to take back
R_UNDO_CANCELLED = const(21)  # a key other than an agreeing corner: takeback cancelled
R_FARM_TARGET = const(22)  # a farm cube picked: the cell pressed takes none of it
R_SWAP_TARGET = const(23)  # a mole or duck picked: it cannot swap with that cube
NO_KEY = const(255)  # refused_key of a request that came from the PC, not a key
SAVE_RETRY_MS = const(5000)  # a save that failed (flash full) is tried again this often
SAVE_FLASH_MS = const(150)  # while saving fails, the edges flash red this long ...
SAVE_FLASH_EVERY_MS = const(2000)  # ... this often

# What the selection adds to a key (VoraUI.overlay holds one per key).
OV_NONE = const(0)
OV_CANDIDATE = const(1)  # may be chosen next: blinks white
OV_SELECTED = const(2)  # chosen and waiting for its target
OV_STRONG = const(3)  # the line group previewed for collecting
OV_PREVIEW = const(4)  # cells the previewed move changes: flash white
OV_EDGE_OPTION = const(5)  # an edge (or corner) that may be chosen: blinks in the cube's colour
OV_EDGE_CHOSEN = const(6)  # the edge of the previewed push
OV_CONFIRM = const(7)  # the corner that confirms: blinks in the seat's colour
OV_PASS = const(8)  # the corner that confirms a pass: blinks red

CENTRE_KEY = const(24)  # c3
MENU_BACK_KEY = const(17)  # c2: green, back to the game
MENU_END_KEY = const(31)  # c4: red, end the game
MENU_UNDO_KEY = const(24)  # c3: amber, take back the last move

# 3x5 digits for the scores; each glyph is 3 columns, bit 0 the top row.
_FONT = {
    "0": (0x1F, 0x11, 0x1F), "1": (0x12, 0x1F, 0x10), "2": (0x1D, 0x15, 0x17),
    "3": (0x15, 0x15, 0x1F), "4": (0x07, 0x04, 0x1F), "5": (0x17, 0x15, 0x1D),
    "6": (0x1F, 0x15, 0x1D), "7": (0x01, 0x01, 0x1F), "8": (0x1F, 0x15, 0x1F),
    "9": (0x17, 0x15, 0x1F), "-": (0x04, 0x04, 0x04), " ": (0, 0, 0),
}


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


def _ability_kind(t):
    # The move kind of a cube that acts from its cell towards another (mole, duck), or -1.
    return vora.MOVE_MOLE if t == vora.MOLE else vora.MOVE_DUCK if t == vora.DUCK else -1


class VoraUI:
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
        try:
            saved = parse_game(text)  # every field checked, as link input is
            state = vora.from_json(saved["state"])
            moves = saved["moves"]
            game_id = saved["game_id"]
            seed = saved["seed"]
            start = saved.get("start")
            bots = saved.get("bots", "")
            if any(b not in state.seats for b in bots):
                raise ValueError("bots at seats %r where nobody sits" % bots)
            # A save from before the levels has none: its bots play at normal.
            levels = saved.get("levels", BOT_LEVELS[BOT_DEFAULT] * len(bots))
            if (not isinstance(levels, str) or len(levels) != len(bots)
                    or any(c not in BOT_LEVELS for c in levels)):
                raise ValueError("levels must be one letter of %s for each bot, not %r"
                                 % (BOT_LEVELS, levels))
        except (ValueError, KeyError, TypeError) as exc:  # BadSave, RulesError: ValueErrors
            self.error = "save ignored: %s" % exc  # a save from another version
            # Kept aside (game.bad), so the next game's saves do not overwrite it.
            set_aside = getattr(self.store, "set_aside", None)
            if set_aside is not None:
                try:
                    where = set_aside()
                except OSError:
                    where = None
                if where:
                    self.error += " (kept as %s)" % where
            return
        self._enter_game(state)
        self.moves = MoveLog(moves)
        self.game_id = game_id
        self.seed = seed
        self.start = start
        self.board_bots = bots
        self.board_levels = levels
        self.chosen_seats = state.seats
        self._tell("resume", None)

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
        self.moves = MoveLog()
        self.seed = seed
        self.start = start
        self.game_id = self.id_fn() & 0xFFFFFFFF
        self._save()
        self._tell("new", None)

    def set_position(self, position, seed, now):
        """A game set up from a position (from the PC: teaching, puzzles). Refused while
        a game is in progress, or when the rules refuse the position. Returns 0 or the
        reason code."""
        if self.state is not None and self.mode != MODE_OVER:
            return self.refuse(NO_KEY, now, R_BUSY)
        words = position.split(" ")
        try:
            state = vora.new_game(len(words[1]) if len(words) > 1 else 0, seed,
                                  position=position)
        except (RulesError, ValueError) as exc:
            return self.refuse(NO_KEY, now, R_BAD_POSITION, str(exc))
        self.chosen_seats = state.seats
        self._begin(state, seed, state.start)
        return 0

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
                save_pieces(pieces)
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
        # moves are the move log's own buffers, already JSON: nothing is made per move.
        p = ['{"game_id":%d,"seed":%d,"start":%s,"bots":"%s","levels":"%s","moves":[' % (
            self.game_id, self.seed, json.dumps(self.start), self.board_bots,
            self.bot_levels())]
        for i, piece in enumerate(self.moves.json_pieces()):
            if i:
                p.append(",")
            p.append(piece)
        p.append('],"state":')
        p.append(self.state.to_json().encode())  # encoded once for the store's two passes
        p.append("}")
        return p

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

    def request_takeback(self, seat, now):
        """Ask to take back the last move of a person (and the bots' moves after it).
        `seat` is the asker ("" for the PC): every other person agrees with their corner.
        Returns 0 or the reason it was refused."""
        if self.state is None or self.mode not in (MODE_PLAY, MODE_MENU) \
                or self.auto_move is not None:
            return self.refuse(NO_KEY if not seat else MENU_UNDO_KEY, now, R_NOT_NOW)
        if self._takeback_target() < 0:
            self.mode = MODE_PLAY
            return self.refuse(NO_KEY if not seat else MENU_UNDO_KEY, now, R_NO_TAKEBACK)
        self._reset_selection()
        self.undo_wait = self.humans().replace(seat, "") if seat else self.humans()
        self.mode = MODE_UNDO
        if not self.undo_wait:
            self._take_back(now)
        self._refresh()
        return 0

    def _key_undo(self, k, now):
        seat = layout.SEAT_OF_CORNER.get(k)
        if seat is not None and seat in self.undo_wait:
            self.undo_wait = self.undo_wait.replace(seat, "")
            if not self.undo_wait:
                self._take_back(now)
            return
        self.undo_wait = ""
        self.mode = MODE_PLAY
        self.refuse(k, now, R_UNDO_CANCELLED)

    def _takeback_target(self):
        # How many moves stay: those before the last move of a person.
        if self.snap is not None and self.snap_n < len(self.moves):
            return self.snap_n
        n = -1
        st = self._start_state()
        for i in range(len(self.moves)):
            if not self._is_bot(st.seats[st.active]):
                n = i
            st.play(self.moves[i])
        return n

    def _start_state(self):
        st = self.state
        if self.start is not None:
            return vora.new_game(st.players, self.seed, seats=st.seats, position=self.start)
        return vora.new_game(st.players, self.seed, seats=st.seats)

    def _take_back(self, now):
        n = self._takeback_target()
        if self.snap is not None and self.snap_n == n:
            state = self.snap
        else:  # after a power cut or a second takeback: replay the record
            state = self._start_state()
            for i in range(n):
                state.play(self.moves[i])
        before = self.state.grid
        del self.moves[n:]
        self.snap = None
        if self.bot is not None:
            self.bot.n = -1  # its last decision was for a position that is gone
        self.undo_wait = ""
        self._enter_game(state)
        self.changed = 0
        for i in range(25):
            if state.grid[i] != before[i]:
                self.changed |= 1 << i
        self.changed_at = now
        self._plan_animation("take back")
        self._save()
        self._tell("takeback", n)

    def _key_setup(self, k, now):
        seat = layout.SEAT_OF_CORNER.get(k)
        if seat is not None:
            if seat in self.chosen_seats:
                self.chosen_seats = self.chosen_seats.replace(seat, "")
                self._set_bot(seat, -1)
            else:
                self.chosen_seats += seat
        elif k == CENTRE_KEY and len(self.chosen_seats) >= 2:
            self.new_game(self.chosen_seats, self.seed_fn())
        else:
            self.refuse(k, now, R_FEW_SEATS if k == CENTRE_KEY else R_SETUP_KEY)

    def _key_menu(self, k, now):
        if k == MENU_BACK_KEY:
            self.mode = MODE_PLAY
        elif k == MENU_UNDO_KEY:
            self.request_takeback(self.menu_seat, now)
        elif k == MENU_END_KEY:
            self._tell("abandon", None)
            if self.store is not None:
                self.store.clear()
            self.state = None
            self.mode = MODE_SETUP
        else:
            self.refuse(k, now, R_MENU_KEY)

    def _key_over(self, k, now):
        seat = layout.SEAT_OF_CORNER.get(k)
        if k == CENTRE_KEY:
            if self.store is not None:
                self.store.clear()
            self.state = None
            self.mode = MODE_SETUP
        elif seat is not None and seat in self.state.seats:
            self._peek(self.state.seats.index(seat), now)
        else:
            self.refuse(k, now, R_OVER_KEY)

    def _my_corner(self):
        return layout.CORNER_OF_SEAT[self.state.seats[self.state.active]]

    def _peek(self, player, now):
        self.view_farm = player
        self.view_for = "peek"
        self.view_until = now + PEEK_MS

    def _key_play(self, k, now):
        st = self.state
        mine = self._my_corner()
        seat = layout.SEAT_OF_CORNER.get(k)
        cell = layout.key_cell(k)
        if self.view_for == "peek":
            self.view_farm = -1
            self.view_for = ""
        if seat is not None and seat not in st.seats:
            self.refuse(k, now, R_NO_SEAT)
            return
        if self.auto_move is not None or self._is_bot(st.seats[st.active]):
            # A bot's turn, or a move being shown: corners still show farms (and a
            # person's held corner opens the menu); anything else waits.
            if seat is not None:
                self._peek(st.seats.index(seat), now)
            else:
                self.refuse(k, now, R_WAIT if self.auto_move is not None else R_BOT_TURN)
            return
        if k == mine:
            self._own_corner(now)
        elif seat is not None:
            p = st.seats.index(seat)
            steal = vora.MOVE_STEAL << 5 | p
            if st.phase == vora.PHASE_BONUS and any(c >> 5 == steal for c in self.legal.codes):
                self._reset_selection()
                self.view_farm = p
                self.view_for = "steal"
            else:
                self._peek(p, now)
        elif self.view_for in ("pick", "steal"):
            self._farm_pick(k, cell, now)
        elif cell >= 0:
            self._cell(k, cell, now)
        else:
            self._edge(k, now)

    def _own_corner(self, now):
        st = self.state
        if self.preview is not None:
            move = self.preview
            try:
                self.play(move, now)
            except RulesError as exc:
                self.refuse(self._my_corner(), now, R_RULES, str(exc))
            return
        if self.view_for == "pick":
            self._reset_selection()  # a second press closes the farm
        elif st.phase == vora.PHASE_ACTION:
            self._reset_selection()
            self.view_farm = st.active
            self.view_for = "pick"
        else:
            self._reset_selection()
            self.preview = "pass"

    def _farm_pick(self, k, cell, now):
        t = self.farm_cells(self.view_farm)[cell] if cell >= 0 else -1
        if t < 0:
            self.refuse(k, now, R_FARM_EMPTY)
            return
        if self.view_for == "steal":
            move = "steal %d %s" % (self.view_farm, vora.TYPES[t])
            if move in self.legal:
                self.preview = move
                self.view_farm = -1
                self.view_for = ""
            else:
                self.refuse(k, now, R_NO_STEAL)
            return
        self.view_farm = -1
        self.view_for = ""
        self.sel_type = t

    def _cell(self, k, cell, now):
        st = self.state
        name = vora.CELL_NAMES[cell]
        if st.phase == vora.PHASE_COLLECT:
            for first, cells in st.collectable_groups().items():
                if name in cells:
                    self._reset_selection()
                    self.preview = "take " + first
                    return
            self.refuse(k, now, R_NOT_IN_LINE)
            return
        if st.phase == vora.PHASE_BONUS:
            move = "extra " + name
            if move in self.legal:
                self._reset_selection()
                self.preview = move
            else:
                self.refuse(k, now, R_NO_EXTRA)
            return
        # The action phase.
        if self.sel_type == vora.CROW and ("crow " + name) in self.legal:
            self.sel_edge = -1
            self.preview = "crow " + name
            return
        if self.sel_cell >= 0:
            source = vora.CELL_NAMES[self.sel_cell]
            word = vora.TYPES[st.grid[self.sel_cell]]
            move = "%s %s %s" % (word, source, name)
            if move in self.legal:
                self.preview = move
                return
            if cell == self.sel_cell:
                self._reset_selection()
                return
        # A cube whose ability starts here; anything else is refused and the current
        # selection stays, so a stray press costs nothing.
        t = st.grid[cell]
        if t == vora.MOLE or t == vora.DUCK:
            head = _ability_kind(t) << 5 | cell
            if any(c >> 5 == head for c in self.legal.codes):
                self._reset_selection()
                self.sel_cell = cell
                return
        elif t == vora.LADYBUG and ("ladybug " + name) in self.legal:
            self._reset_selection()
            self.preview = "ladybug " + name
            return
        elif t == vora.WATER:
            for m in vora.water_groups(st.grid):
                if m >> cell & 1:
                    self._reset_selection()
                    self.preview = "water " + vora.CELL_NAMES[vora.first_cell(m)]
                    return
        self.refuse(k, now, R_SWAP_TARGET if self.sel_cell >= 0 else
                    R_FARM_TARGET if self.sel_type >= 0 else R_CELL_NO_MOVE)

    def _edge(self, k, now):
        st = self.state
        edge = layout.KEY_NAMES[k]
        if st.phase != vora.PHASE_ACTION or self.sel_type < 0:
            self.refuse(k, now, R_EDGE_NOT_NOW if st.phase != vora.PHASE_ACTION
                        else R_EDGE_NO_CUBE)
            return
        if k == self.sel_edge and len(self.variants) > 1:
            self.variant = (self.variant + 1) % len(self.variants)
            self.preview = self.variants[self.variant]
            return
        t = vora.TYPES[self.sel_type]
        candidates = ["push %s %s" % (t, edge)]
        if self.sel_type == vora.PIG or self.sel_type == vora.WOLF:
            candidates.append("%s %s" % (t, edge))  # the ability on the same edge
        options = [m for m in candidates if m in self.legal]
        if not options:
            self.refuse(k, now, R_EDGE_BAD)
            return
        self.sel_edge = k
        self.variants = options
        self.variant = 0
        self.preview = options[0]

    # ---- farms on the meadow

    def farm_cells(self, player):
        """Type code shown on each meadow cell (or -1) while `player`'s farm is on view:
        laid out for the player who looks (the owner when peeking, else the active one)."""
        viewer = self.state.active if self.view_for != "peek" else player
        return farm_layout(self.state.farms[player], self.state.seats[viewer])

    # ---- output

    def _refresh(self):
        # What the selection adds to the meadow, worked out once per key press and kept in
        # a byte per key, so drawing a frame (30 times a second) allocates nothing.
        ov = self.overlay
        for k in range(49):
            ov[k] = OV_NONE
        self.view_cells = None
        st = self.state
        if st is None or self.mode not in (MODE_PLAY, MODE_OVER):
            return
        if self.view_farm >= 0:
            self.view_cells = self.farm_cells(self.view_farm)
            return
        if self.mode == MODE_OVER:
            return
        for m in st.group_masks():
            lit = self.preview == "take " + vora.CELL_NAMES[vora.first_cell(m)]
            for c in range(25):
                if m >> c & 1:
                    ov[layout.meadow_key(c)] = OV_STRONG if lit else OV_CANDIDATE
        if self.preview is None:
            # Read from the moves' codes (kind and first word in code >> 5), which
            # allocates nothing.
            codes = self.legal.codes
            if st.phase == vora.PHASE_ACTION and self.sel_type >= 0:
                self.pick_rgb = palette.CUBE_RGB[self.sel_type]
                push = vora.MOVE_PUSH << 5 | self.sel_type
                crow = self.sel_type == vora.CROW
                for c in codes:
                    if c >> 5 == push:
                        ov[layout.edge_key(vora.EDGE_NAMES[c & 31])] = OV_EDGE_OPTION
                    elif crow and c >> 10 == vora.MOVE_CROW:
                        ov[layout.meadow_key(c >> 5 & 31)] = OV_CANDIDATE
            if self.sel_cell >= 0:
                head = _ability_kind(st.grid[self.sel_cell]) << 5 | self.sel_cell
                ov[layout.meadow_key(self.sel_cell)] = OV_SELECTED
                for c in codes:
                    if c >> 5 == head:
                        ov[layout.meadow_key(c & 31)] = OV_CANDIDATE
            return
        words = self.preview.split(" ")
        verb = words[0]
        mine = self._my_corner()
        ov[mine] = OV_PASS if verb == "pass" else OV_CONFIRM
        if verb in ("push", "pig", "wolf"):
            e = vora.EDGE_NAMES.index(words[-1])
            t = vora.PIG if verb == "pig" else vora.WOLF if verb == "wolf" else self.sel_type
            self.pick_rgb = palette.CUBE_RGB[t]
            ov[layout.edge_key(words[-1])] = OV_EDGE_CHOSEN
            for c in vora.EDGE_CELLS[e][:3 if verb == "pig" else 5]:
                ov[layout.meadow_key(c)] = OV_PREVIEW
        elif verb == "steal":
            self.pick_rgb = palette.CUBE_RGB[vora.TYPES.index(words[2])]
            ov[layout.CORNER_OF_SEAT[st.seats[int(words[1])]]] = OV_EDGE_OPTION
        elif verb == "water":
            for m in vora.water_groups(st.grid):
                if vora.first_cell(m) == vora.cell_index(words[1]):
                    for c in range(25):
                        if m >> c & 1:
                            ov[layout.meadow_key(c)] = OV_PREVIEW
        elif verb != "take" and verb != "pass":
            for w in words[1:]:
                if w in vora.CELL_NAMES:
                    ov[layout.meadow_key(vora.cell_index(w))] = OV_PREVIEW

    def render(self, frame, now):
        """Draw the whole board into `frame` (bytearray of 49 x RGB, key index order)."""
        self.now = now
        for i in range(147):
            frame[i] = 0
        if self.mode == MODE_SETUP:
            self._render_setup(frame, now)
        elif self.mode == MODE_MENU:
            self._render_menu(frame, now)
        elif self.mode == MODE_UNDO:
            self._render_undo(frame, now)
        elif self.mode == MODE_OVER:
            self._render_over(frame, now)
        else:
            self._render_play(frame, now)
        if 0 <= self.refused_key < 49:
            age = ticks_diff(now, self.refused_at)
            if 0 <= age < REFUSE_MS:
                if (age // 110) % 2 == 0:
                    _put(frame, self.refused_key, palette.REFUSE, 256)
            else:
                self.refused_key = -1
        if self.memory_error and now % 500 < 250:
            # Out of memory: every edge key and the centre red, twice a second (the save
            # error flashes the free edges briefly every 2 s: this one cannot be missed).
            for k in range(49):
                if layout.is_edge(k) or k == CENTRE_KEY:
                    _put(frame, k, palette.STOP, 256)
        if self.save_error and now % SAVE_FLASH_EVERY_MS < SAVE_FLASH_MS:
            for k in range(49):  # saving fails: the free edge keys flash red together
                if layout.is_edge(k) and self.overlay[k] == OV_NONE:
                    _put(frame, k, palette.STOP, 160)

    def _render_setup(self, frame, now):
        for seat in vora.SIDES:
            k = layout.CORNER_OF_SEAT[seat]
            if seat in self.board_bots:
                # The board's bot: the seat's colour, flashing once (easy), twice (normal)
                # or three times (hard) in every BOT_FLASH_CYCLE_MS, so the level reads
                # without telling colours apart.
                t = now % BOT_FLASH_CYCLE_MS
                lit = t // BOT_FLASH_MS % 2 == 0 and t < BOT_FLASH_MS * 2 * (
                    self.bot_level(seat) + 1)
                _put(frame, k, palette.SEAT_RGB[seat], 256 if lit else 48)
            elif seat in self.chosen_seats:
                _put(frame, k, palette.SEAT_RGB[seat], 256)
            else:
                _put(frame, k, palette.DIM, 256)
        n = len(self.chosen_seats)
        # The number of players as lit cells of rank 1, and the start key.
        for i in range(n):
            _put(frame, layout.meadow_key(i), palette.WHITE, 96)
        _put(frame, CENTRE_KEY, palette.GO if n >= 2 else palette.STOP, palette.pulse(now))

    def _render_menu(self, frame, now):
        self._render_meadow(frame, now, 40)
        _put(frame, MENU_BACK_KEY, palette.GO, 256)
        _put(frame, MENU_END_KEY, palette.STOP, palette.pulse(now))
        _put(frame, MENU_UNDO_KEY, palette.UNDO, 256)

    def _render_undo(self, frame, now):
        # The meadow dimmed; the corners whose agreement is awaited blink amber.
        self._render_meadow(frame, now, 40)
        _put(frame, MENU_UNDO_KEY, palette.UNDO, palette.pulse(now))
        for seat in self.undo_wait:
            _put(frame, layout.CORNER_OF_SEAT[seat], palette.UNDO,
                 256 if now % 500 < 330 else 48)

    def _render_farm(self, frame, now):
        cells = self.view_cells
        for c in range(25):
            t = cells[c]
            if t >= 0:
                _put(frame, layout.meadow_key(c), palette.CUBE_RGB[t],
                     palette.level(palette.CUBE_PATTERN[t], now))

    def _render_play(self, frame, now):
        st = self.state
        if self.view_cells is not None:
            self._render_farm(frame, now)
            self._render_corners(frame, now)
            seat = st.seats[self.view_farm]
            _put(frame, layout.CORNER_OF_SEAT[seat], palette.SEAT_RGB[seat], 256)
            return
        self._render_meadow(frame, now, 256)
        self._render_corners(frame, now)
        blink = now % 500 < 330
        ov = self.overlay
        seat_rgb = palette.SEAT_RGB[st.seats[st.active]]
        for k in range(49):
            o = ov[k]
            if o == OV_NONE:
                continue
            if o == OV_CANDIDATE:
                _mix_white(frame, k, 64 if blink else 12)
            elif o == OV_SELECTED:
                _mix_white(frame, k, 128)
            elif o == OV_STRONG:
                _mix_white(frame, k, 160)
            elif o == OV_PREVIEW:
                _mix_white(frame, k, 150 if blink else 0)
            elif o == OV_EDGE_OPTION:
                _put(frame, k, self.pick_rgb, 256 if blink else 48)
            elif o == OV_EDGE_CHOSEN:
                _put(frame, k, self.pick_rgb, 256)
            elif o == OV_CONFIRM:
                _put(frame, k, seat_rgb, 256 if blink else 48)
            elif o == OV_PASS:
                _put(frame, k, palette.STOP, 256 if blink else 48)
        if self.changed:
            age = ticks_diff(now, self.changed_at)
            running = False
            for c in range(25):
                if self.changed >> c & 1:
                    a = age - self.delay[c] * 10
                    if a < ANIM_MS:
                        running = True
                        # white until its turn comes, then fading to the cube's colour
                        _mix_white(frame, layout.meadow_key(c),
                                   200 if a < 0 else 200 - a * 200 // ANIM_MS)
            if not running:
                self.changed = 0

    def _plan_animation(self, move):
        # A push sweeps from its edge along the line; the cells a move names (collected,
        # swapped, taken) flash first; what fell or was refilled follows.
        words = move.split(" ")
        delay = self.delay
        rest = FALL_DELAY_MS // 10
        for c in range(25):
            delay[c] = rest
        if words[0] in ("push", "pig", "wolf"):
            cells = vora.EDGE_CELLS[vora.EDGE_NAMES.index(words[-1])]
            for k in range(5):
                delay[cells[k]] = k * SWEEP_MS // 10
        else:
            for w in words[1:]:
                if w in vora.CELL_NAMES:
                    delay[vora.cell_index(w)] = 0

    def _render_meadow(self, frame, now, scale):
        g = self.state.grid if self.state is not None else ()
        for c in range(len(g)):
            t = g[c]
            if t >= 0:
                _put(frame, layout.meadow_key(c), palette.CUBE_RGB[t],
                     palette.level(palette.CUBE_PATTERN[t], now) * scale >> 8)

    def _render_corners(self, frame, now):
        st = self.state
        for p in range(st.players):
            seat = st.seats[p]
            k = layout.CORNER_OF_SEAT[seat]
            if p == st.active and st.phase != vora.PHASE_OVER:
                _put(frame, k, palette.SEAT_RGB[seat], palette.pulse(now))
            else:
                _put(frame, k, palette.SEAT_RGB[seat], 40)

    # ---- the end

    def _prepare_scores(self):
        # Scrolling text: for each player in turn, their score in their seat's colour.
        cols = []  # (column bits, seat)
        scores = self.state.scores()
        for p in range(self.state.players):
            seat = self.state.seats[p]
            for ch in "%d " % scores[p]:
                for bits in _FONT[ch]:
                    cols.append((bits, seat))
                cols.append((0, seat))
        self.scroll = cols
        self.winner_player = self.state.winner()

    def _render_over(self, frame, now):
        st = self.state
        for p in range(st.players):
            seat = st.seats[p]
            level = palette.pulse(now, 600) if p == self.winner_player else 40
            _put(frame, layout.CORNER_OF_SEAT[seat], palette.SEAT_RGB[seat], level)
        if self.view_cells is not None:
            self._render_farm(frame, now)
            return
        cols = self.scroll
        n = len(cols)
        start = (now // SCROLL_MS) % n
        for x in range(5):
            bits, seat = cols[(start + x) % n]
            for y in range(5):
                if bits >> y & 1:
                    # bit 0 is the top row: rank 5
                    _put(frame, (5 - y) * 7 + x + 1, palette.SEAT_RGB[seat], 256)


def farm_layout(counts, seat):
    """A farm on the meadow: the type code shown on each of the 25 cells, or -1.

    One light per cube, types in order, laid out in the reading order of the player seated
    at `seat`. More than 25 cubes: each type keeps at least one light and the rest are
    shared in proportion (the counts are then approximate; the PC shows exact ones).
    """
    total = sum(counts)
    shown = list(counts)
    if total > 25:
        kinds = sum(1 for n in counts if n)
        spare = 25 - kinds
        rest = total - kinds
        for t in range(vora.N_TYPES):
            if counts[t]:
                shown[t] = 1 + (counts[t] - 1) * spare // rest
    order = vora.VIEW[seat]
    out = [-1] * 25
    k = 0
    for t in range(vora.N_TYPES):
        for _ in range(shown[t]):
            out[order[k]] = t
            k += 1
    return out


def bot_level_name(level):
    """vora_fw.bot's name of a level (BOT_EASY...): its LEVEL_NAMES, spelled here because
    bot.py is imported only when a bot seat first plays."""
    return ("easy", "normal", "hard")[level]


def _put(frame, k, rgb, level):
    i = k * 3
    frame[i] = rgb[0] * level >> 8
    frame[i + 1] = rgb[1] * level >> 8
    frame[i + 2] = rgb[2] * level >> 8


def _mix_white(frame, k, amount):
    # Blend the key's colour towards white by amount/256: highlights keep the cube's hue.
    i = k * 3
    for j in range(i, i + 3):
        v = frame[j]
        frame[j] = v + ((255 - v) * amount >> 8)
