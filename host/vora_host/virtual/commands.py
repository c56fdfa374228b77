"""The virtual board's commands, one a line, typed at its screen or read from stdin or a
--script file (the list is in vora_host.virtual.sim's module doc): a key pressed or held,
a switch left closed or open, a move in notation, a takeback, a wait, the frame, the
state, a reset, help, quit. Each answers `ok` or `error <why>` (a refusal of the
firmware in words), once the firmware has seen the key released.

Apart from the board (vora_host.virtual.board) and its screen (vora_host.virtual.screen)
because scripts and tests drive the board through these alone, with no screen at all.
"""

import asyncio

from vora_fw import layout, vora_ui
from vora_fw.clock import ticks_ms
from vora_host.games.vora import view
from vora_host.virtual.board import HOLD_MS, PRESS_MS, frame_hex, parse_key

__all__ = ["HELP", "commands_help", "run_command", "refusal", "Quit", "MOVE_WORDS",
           "EXIT_OK", "EXIT_FAILED", "EXIT_INTERRUPTED"]

# vora sim's exit statuses: quit, a failure, Ctrl-C (or a hang-up)
EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


HELP = ("commands: KEY | press KEY [ms] | hold KEY [ms] | down KEY | up KEY | MOVE | undo | "
        "wait ms | frame | state | reset | help | quit   (keys: a1..e5, Sa..Se Na..Ne W1..W5 E1..E5, "
        "cS cW cN cE; a MOVE in notation, e.g. push crow Sc)")


def commands_help(board):
    """The board's commands (`commands`, or `help` without a screen), naming the keys as
    they are named now: Vora's, or those of the game the PC runs on the board."""
    game = board.pc_game()
    if game is None or game.game is None:
        return HELP
    state = game.state
    moves = state.legal_moves() if not state.is_over() else []
    title = game.game.view.rules.TITLE
    return ("%s: the rules and the keys of this step are its help (? on the board's "
            "screen); commands: KEY | press KEY [ms] | hold KEY [ms] | down KEY | up KEY | "
            "MOVE | undo | hint | wait ms | frame | state | reset | help | quit   (keys: "
            "a1..g7, the whole 7x7 as %s names them; a MOVE in its notation%s)" % (
                title, title, ", e.g. %s" % moves[0] if moves else ""))


MOVE_WORDS = ("push", "pig", "wolf", "crow", "mole", "duck", "ladybug", "water", "take",
              "pass", "extra", "steal")
SHOW_LIMIT = 60  # characters of a typed line repeated in an answer


class Quit(Exception):
    pass


def _ms(text, what="a time in ms"):
    try:
        n = int(text)
    except ValueError:
        raise ValueError("%r is not %s" % (text, what))
    if not 0 <= n <= 600000:
        raise ValueError("%d ms is out of range (0 to 600000)" % n)
    return n


def _shown(text):
    # A typed line repeated in an answer: cut, so a pasted page does not flood the screen.
    return text if len(text) <= SHOW_LIMIT else "%s... (%d characters)" % (
        text[:SHOW_LIMIT], len(text))


def refusal(board):
    """The board's last refusal in words."""
    ui = board.ui
    k = ui.refused_key
    name = layout.KEY_NAMES[k] if 0 <= k < layout.KEYS else None
    text = view.refusal_text(ui.refused_reason, name, ui.refused_detail)
    if ui.refused_reason == vora_ui.R_BUSY:  # a position asked for over the saved game
        text += "; or start with --fresh (the saved game is then forgotten)"
    return text


async def _press_and_say(board, k, ms, name, emit):
    before = board.ui.refusals
    seen = await board.press(k, ms)
    if not seen:
        emit("error the firmware did not see %s change" % name)
        return
    if board.ui.refusals != before:
        emit("refused " + refusal(board))
    emit("ok")


async def _typed_move(board, line, emit):
    # A move in notation, as the rules write it or with other capitals ("push crow sc").
    ui = board.ui
    text = " ".join(line.split())
    move = text
    for m in ui.legal if ui.state is not None else ():
        if m.lower() == text.lower():
            move = m
            break
    if not move.isascii() or not move.isprintable():
        emit("error %r is not a move in notation" % _shown(text))
        return
    refused = ui.enter_move(move, ticks_ms())
    board.nudge()  # the move plays at its time: the firmware's ticks at full pace
    if refused:
        emit("error " + refusal(board))
        return
    await board._until(lambda: ui.auto_move is None, timeout=vora_ui.AUTO_MS / 1000 + 2)
    emit("ok")


def _typed_game_move(board, line, emit):
    """A move of the game the PC runs, typed in its notation: played at
    once, or refused with the reason. False when the line is not such a move (a key
    name of the game is a key)."""
    game = board.pc_game()
    if game is None:
        return False
    if len(line.split()) == 1:
        names = board.key_names()
        if line.strip() in names or line.strip().lower() in names:
            return False  # a key of the game: pressed
    played, text = game.typed(line, ticks_ms())
    if played:
        emit("ok")
    else:
        emit("error " + text)
    return True


async def run_command(board, line, emit):
    """Run one command line; emit(text) gets the answer lines. Raises Quit for quit."""
    words = line.split()
    if not words or words[0].startswith("#"):
        return
    verb = words[0].lower()
    args = words[1:]
    try:
        if verb in ("quit", "exit", "q"):
            emit("ok")
            raise Quit()
        if verb in ("press", "hold"):
            if not 1 <= len(args) <= 2:
                raise ValueError("usage: %s KEY [ms]" % verb)
            k = _key(args[0], board)
            ms = _ms(args[1]) if len(args) > 1 else (PRESS_MS if verb == "press" else HOLD_MS)
            await _press_and_say(board, k, ms, args[0], emit)
        elif verb in ("down", "up"):
            if len(args) != 1:
                raise ValueError("usage: %s KEY" % verb)
            board.set_switch(_key(args[0], board), verb == "down")
            emit("ok")
        elif verb == "wait":
            if len(args) != 1:
                raise ValueError("usage: wait ms")
            await asyncio.sleep(_ms(args[0]) / 1000)
            emit("ok")
        elif verb == "frame":
            emit(frame_hex(board.frame()))
            emit("ok")
        elif verb == "state":
            emit(board.position())
            emit("ok")
        elif verb == "reset":
            board.machine.request_reset()  # the board restarts: boot path, game or REPL
            emit("ok")
        elif verb in ("commands", "debug") or verb in ("help", "?") and not board.screen_on:
            emit(commands_help(board))
            emit("ok")
        elif verb in ("help", "?"):
            # On the screen: what to do now and the step's rules, beside the board, kept
            # until Esc, Enter or a move (the board's commands are `commands`).
            game = board.pc_game()
            if game is not None:
                game.help_shown = True
                title = game.game.view.rules.TITLE
            else:
                board.help_shown = True
                title = "Vora"
            emit("%s: what to do now is beside the board (Esc or Enter: back to the game); "
                 "'commands' lists the board's commands" % title)
            emit("ok")
        elif verb in ("undo", "takeback"):
            # From the PC: every person at the board then agrees with their corner.
            refused = board.ui.request_takeback("", ticks_ms())
            board.nudge()
            if refused:
                emit("error " + refusal(board))
            else:
                emit("ok")
        elif _typed_game_move(board, line, emit):
            pass
        elif verb in MOVE_WORDS:
            await _typed_move(board, line, emit)
        elif len(words) == 1:
            try:
                k = board.parse_key(words[0])
            except KeyError:
                raise ValueError("%r is neither a command, a move nor a key (help lists "
                                 "them)" % _shown(words[0]))
            await _press_and_say(board, k, PRESS_MS, words[0], emit)
        else:
            raise ValueError("unknown command %r (help lists them)" % _shown(words[0]))
    except ValueError as exc:
        emit("error %s" % exc)


def _key(name, board=None):
    try:
        return board.parse_key(name) if board is not None else parse_key(name)
    except KeyError:
        raise ValueError("no key is called %r (a1..e5, Sa..Se, Na..Ne, W1..W5, E1..E5, "
                         "cS cW cN cE)" % name)
