"""Vora on the board: a game put in a position other than by its next move, on demand.

Four rare moments: the saved game resumed at power-up, a position the PC sets up
(teaching, puzzles), a game the PC sets in place of the board's (a table whose referee is
elsewhere), and a takeback (back to before the last move of a person, the bots'
moves after it too: asked from the menu or by the PC, agreed by every other person with
their corner, cancelled by any other key). VoraUI (vora_fw.vora_ui) imports this module for
them and lets it go once done, so that play never holds its code; vora_fw.start interns its
names at the start, while the heap is whole (vora_fw.intern_names). The functions take the
application as `ui`.
"""

from shared_rules import vora
from shared_rules.errors import RulesError
from vora_fw import layout
from vora_fw.movelog import MoveLog
from vora_fw.saved_game import parse_game
from vora_fw.vora_ui_frames import MENU_UNDO_KEY, MODE_MENU, MODE_PLAY, MODE_UNDO
from vora_fw.vora_ui_keys import (NO_KEY, R_BAD_POSITION, R_NO_TAKEBACK, R_NOT_NOW,
                                  R_UNDO_CANCELLED)


def resume(ui, text, levels_letters, default_level):
    # The saved game in `text` (read by VoraUI.resume, which passes its BOT_LEVELS and
    # BOT_DEFAULT as levels_letters and default_level).
    try:
        saved = parse_game(text)  # every field checked, as link input is
        state = vora.from_json(saved["state"])
        bots = saved.get("bots", "")
        if any(b not in state.seats for b in bots):
            raise ValueError("bots at seats %r where nobody sits" % bots)
        # A save from before the levels has none: its bots play at normal.
        levels = saved.get("levels", levels_letters[default_level] * len(bots))
        if (not isinstance(levels, str) or len(levels) != len(bots)
                or any(c not in levels_letters for c in levels)):
            raise ValueError("levels must be one letter of %s for each bot, not %r"
                             % (levels_letters, levels))
    except (ValueError, KeyError, TypeError) as exc:  # BadSave, RulesError: ValueErrors
        ui.error = "save ignored: %s" % exc  # a save from another version
        # Kept aside (game.bad), so the next game's saves do not overwrite it.
        set_aside = getattr(ui.store, "set_aside", None)
        if set_aside is not None:
            try:
                where = set_aside()
            except OSError:
                where = None
            if where:
                ui.error += " (kept as %s)" % where
        return
    _adopt(ui, state, saved, bots, levels)
    ui._tell("resume", None)


def _adopt(ui, state, saved, bots, levels):
    # The game a checked save holds becomes the board's (at power-up, or from the PC).
    ui._enter_game(state)
    ui.moves = MoveLog(saved["moves"], ui.store)
    ui.game_id = saved["game_id"]
    ui.seed = saved["seed"]
    ui.start = saved.get("start")
    ui.board_bots = bots
    ui.board_levels = levels
    ui.chosen_seats = state.seats


def resync(ui, text, now):
    # The board's game, whatever it is, replaced by the one the PC sends as a save's text
    # (RESYNC: a table whose referee is elsewhere, VoraUI.resync), checked as a save is.
    try:
        saved = parse_game(text)
        state = vora.from_json(saved["state"])
        if saved.get("bots"):
            raise ValueError("a game the PC sets has no board bots")
    except (ValueError, KeyError, TypeError) as exc:  # BadSave, RulesError: ValueErrors
        return ui.refuse(NO_KEY, now, R_BAD_POSITION, str(exc))
    if ui.bot is not None:
        ui.bot.n = -1  # its last decision was for a position that is gone
    ui.undo_wait = ""
    _adopt(ui, state, saved, "", "")
    ui._save()
    ui._tell("resume", None)
    return 0


def set_position(ui, position, seed, now):
    # A game set up from a position (VoraUI.set_position: no game is in progress).
    words = position.split(" ")
    try:
        state = vora.new_game(len(words[1]) if len(words) > 1 else 0, seed,
                              position=position)
    except (RulesError, ValueError) as exc:
        return ui.refuse(NO_KEY, now, R_BAD_POSITION, str(exc))
    ui.chosen_seats = state.seats
    ui._begin(state, seed, state.start)
    return 0


# ---- takebacks

def request_takeback(ui, seat, now):
    """Ask to take back the last move of a person (and the bots' moves after it).
    `seat` is the asker ("" for the PC): every other person agrees with their corner.
    Returns 0 or the reason it was refused."""
    if ui.state is None or ui.mode not in (MODE_PLAY, MODE_MENU) \
            or ui.auto_move is not None:
        return ui.refuse(NO_KEY if not seat else MENU_UNDO_KEY, now, R_NOT_NOW)
    try:
        target = _target(ui)
    except OSError as exc:
        return _unreadable(ui, NO_KEY if not seat else MENU_UNDO_KEY, now, exc)
    if target < 0:
        ui.mode = MODE_PLAY
        return ui.refuse(NO_KEY if not seat else MENU_UNDO_KEY, now, R_NO_TAKEBACK)
    ui._reset_selection()
    ui.undo_wait = ui.humans().replace(seat, "") if seat else ui.humans()
    ui.mode = MODE_UNDO
    if not ui.undo_wait:
        _take_back(ui, now)
    ui._refresh()
    return 0


def key_undo(ui, k, now):
    seat = layout.SEAT_OF_CORNER.get(k)
    if seat is not None and seat in ui.undo_wait:
        ui.undo_wait = ui.undo_wait.replace(seat, "")
        if not ui.undo_wait:
            _take_back(ui, now)
        return
    ui.undo_wait = ""
    ui.mode = MODE_PLAY
    ui.refuse(k, now, R_UNDO_CANCELLED)


def _target(ui):
    # How many moves stay: those before the last move of a person.
    if ui.snap is not None and ui.snap_n < len(ui.moves):
        return ui.snap_n
    n = -1
    st = _start_state(ui)
    i = 0
    for move in ui.moves:  # read once, in order (the first moves from the save's file)
        if not ui._is_bot(st.seats[st.active]):
            n = i
        st.play(move)
        i += 1
    return n


def _start_state(ui):
    st = ui.state
    if ui.start is not None:
        return vora.new_game(st.players, ui.seed, seats=st.seats, position=ui.start)
    return vora.new_game(st.players, ui.seed, seats=st.seats)


def _unreadable(ui, k, now, exc):
    # The record's first moves, in the save on the flash, could not be read back (a fault
    # of the flash): the takeback is refused and the game goes on as it was.
    ui.undo_wait = ""
    ui.mode = MODE_PLAY
    return ui.refuse(k, now, R_NOT_NOW, "the game's record cannot be read: %s" % (exc,))


def _take_back(ui, now):
    try:
        n = _target(ui)
        if ui.snap is not None and ui.snap_n == n:
            state = ui.snap
        else:  # after a power cut or a second takeback: replay the record
            state = _start_state(ui)
            i = 0
            for move in ui.moves:  # read once, in order, no list made
                if i == n:
                    break
                state.play(move)
                i += 1
        del ui.moves[n:]  # reads the save's moves first when it goes into them
    except OSError as exc:
        return _unreadable(ui, NO_KEY, now, exc)
    before = ui.state.grid
    ui.snap = None
    if ui.bot is not None:
        ui.bot.n = -1  # its last decision was for a position that is gone
    ui.undo_wait = ""
    ui._enter_game(state)
    ui.changed = 0
    for i in range(25):
        if state.grid[i] != before[i]:
            ui.changed |= 1 << i
    ui.changed_at = now
    ui._plan_animation("take back")
    ui._save()
    ui._tell("takeback", n)
