"""Games the PC runs are saved in the game log, and resumed from it.

The game log is the single source of truth: it holds every move of a game the PC runs
(typed, or on a board in terminal mode) as it is played, with the seed and options, so
resuming is replaying the log's live moves. `vora play GAME` resumes the newest
unfinished game of GAME the PC ran; `--fresh` abandons it and starts anew; `vora play
--resume ID` continues any unfinished game the PC ran.

The statuses of a game the PC runs, all decided here (the log keeps them, see
vora_host.log.store):

    started                              -> playing
    the game ends by the rules           -> over
    quit, Ctrl-C, end of input, the
      window or the board closed         -> interrupted   (resumed later)
    a demo (--bots-only) that stops,
      or whose terminal closes           -> abandoned     (a demo is never resumed: its
                                                            seat note says demo, for when
                                                            it was killed outright)
    the program killed                   -> stays playing, until the next session finds
                                            its process gone: interrupted (the log's
                                            close_stale); resumed later too
    a move after a resume                -> playing       (the log reopens interrupted games)
    the move that ended it taken back    -> playing       (the log reopens it)
    --fresh, or another game started     -> abandoned     (never resumed; still listed and
      in its place with --fresh                            replayable in `vora games`)

Who sits where (a human, or a bot's kind string) is the one thing the log's schema has no
place for: it is noted beside the log, in `<log>.seats.json` ({game id: [kind, ...]}),
and a resume seats the same players unless --human, --bot or --bots-only say otherwise.
A lost or unreadable note only means the defaults (the resume line names the seats).

Vora on the board is the board's own game: the board saves and resumes it (the log's
games with a board game id are the board's and are never resumed from here).
"""

import hashlib
import json
from datetime import datetime
from pathlib import Path

from shared_rules import games as rules_games

from vora_host import private_files
from vora_host.log.leases import held_message
from vora_host.log.records import result_of
from vora_host.log.errors import GameLogError, NoSuchGame
from vora_host.log.postgres import is_db_url
from vora_host.log.verify import record_of

__all__ = ["UNFINISHED", "TABLE_SOURCE", "ResumeError", "end_status", "saved_game",
           "resumable", "replay",
           "resumed_text", "abandon", "describe", "note_seats", "seats_noted"]

UNFINISHED = ("playing", "interrupted")
TABLE_SOURCE = "web table"  # the source of the games the tables of vora serve play


class ResumeError(Exception):
    """A game cannot be resumed; the message says why and what to do."""


def end_status(state, demo=False):
    """How a session leaves the game it played: over, or interrupted (resumable); a demo
    (bots only) that stops is abandoned: nobody's game to resume."""
    if state.is_over():
        return "over"
    return "abandoned" if demo else "interrupted"


def _pc_run(info):
    # A game played at a table on another computer (vora play --join) is that table's to
    # go on with: its copy here is never resumed as this PC's game. Nor is a table of
    # vora serve: the server takes it up again when it starts (vora_host.web.tables).
    source = str(info.get("source") or "")
    return info["board_game_id"] is None and info["imported_at"] is None \
        and not source.startswith("remote ") and source != TABLE_SOURCE


def saved_game(log, game, held=None):
    """The newest unfinished game of `game` the PC ran (a summary as log.games() gives),
    or None; never a demo. Games another program plays now are passed over; `held`, a
    list, gets each of them newer than the one returned, as (summary, holder)."""
    notes = _read_notes(log.url or log.path)
    for info in sorted((info for status in UNFINISHED for info in log.games(status=status)
                        if info["game"] == game and _pc_run(info)
                        and not _is_demo(notes, info["id"])),
                       key=lambda info: -info["id"]):
        holder = log.played_elsewhere(info["id"])
        if holder is None:
            return info
        if held is not None:
            held.append((info, holder))
    return None


def resumable(log, game_id, take_over=False):
    """The game `game_id` with its moves (log.game()), when it can be continued;
    ResumeError saying why not (another program playing it is a reason, unless
    `take_over`: the game is then taken over when its play starts, see LiveLog)."""
    try:
        info = log.game(game_id)
    except NoSuchGame:
        span = log.id_range()
        raise ResumeError("there is no game %s in the game log %s%s" % (
            game_id, log.path, " (its games are %d to %d)" % span if span else " (it is empty)"))
    if info["board_game_id"] is not None:
        raise ResumeError("game %d was played on a board, which keeps and resumes its own "
                          "game" % game_id)
    if info["imported_at"] is not None:
        raise ResumeError("game %d was imported: it is a copy, not a game to continue "
                          "('vora games show %d')" % (game_id, game_id))
    if str(info.get("source") or "").startswith("remote "):
        raise ResumeError("game %d was played at a table on another computer (%s): its seat's "
                          "link joins it again ('vora play --join LINK')"
                          % (game_id, info["source"][7:]))
    if info.get("source") == TABLE_SOURCE:
        raise ResumeError("game %d is a table of 'vora serve --tables': it goes on when that "
                          "server runs, and each seat's link joins it" % game_id)
    if info["status"] not in UNFINISHED:
        raise ResumeError("game %d is %s: it cannot be continued ('vora games show %d' "
                          "shows it)" % (game_id, info["status"], game_id))
    if _is_demo(_read_notes(log.url or log.path), game_id):
        raise ResumeError("game %d was a demo (--bots-only): nobody's game to continue "
                          "('vora games show %d' shows it)" % (game_id, game_id))
    elsewhere = log.played_elsewhere(game_id)
    if elsewhere is not None and not take_over:
        raise ResumeError(held_message(game_id, elsewhere, "'vora play --resume %d "
                                                           "--take-over'" % game_id))
    return info


def replay(info):
    """The state after the game's live moves, and the moves, checked against the logged
    digests. ResumeError when the log's moves do not replay."""
    record, digests = record_of(info)
    try:
        state = rules_games.start(record)
        for n, (move, digest) in enumerate(zip(record["moves"], digests), 1):
            state.play(move)
            if state.digest() != digest:
                raise ResumeError("game %d does not replay: the position after move %d "
                                  "differs from the log's ('vora games verify %d')"
                                  % (info["id"], n, info["id"]))
    except ResumeError:
        raise
    except Exception as exc:  # an engine refusing a logged move, an option it lost
        raise ResumeError("game %d does not replay: %s ('vora games verify %d')"
                          % (info["id"], exc, info["id"]))
    return state, record["moves"]


def when(stamp):
    """A log time stamp as the player's local date and time: 'Thu 26 Nov 10:57'."""
    try:
        moment = datetime.fromisoformat(stamp).astimezone()
    except (TypeError, ValueError):
        return str(stamp)
    return moment.strftime("%a %d %b %H:%M")


def describe(info):
    """'game 12, Boars from Thu 26 Nov 10:57, 8 moves': a saved game in a message."""
    title = rules_games.load(info["game"]).TITLE
    n = info["move_count"]
    return "game %d, %s from %s, %d move%s" % (info["id"], title, when(info["started_at"]), n,
                                               "" if n == 1 else "s")


def resumed_text(info):
    """What the player is told: 'Resumed your game of Boars from Thu 26 Nov 10:57 (12
    moves; game 7 in the log).' Never the seed: a hidden game's seed is its secrets."""
    n = info["move_count"]
    return "Resumed your game of %s from %s (%d move%s; game %d in the log)." % (
        rules_games.load(info["game"]).TITLE, when(info["started_at"]), n,
        "" if n == 1 else "s", info["id"])


def abandon(log, info, state=None):
    """End a saved game for good (--fresh): abandoned, with its scores so far."""
    if state is None:
        try:
            state, _ = replay(log.game(info["id"]))
        except (ResumeError, GameLogError):
            state = None
    result = result_of(state, "abandoned") if state is not None else None
    log.end_game(info["id"], "abandoned", result)


# ---- who sits where, beside the log

MAX_NOTES = 200  # games whose seats are kept (the newest); older games start anew anyway


def _seats_path(db_path):
    from vora_host.log.database import db_label, default_db_path
    if is_db_url(db_path):
        # A log in PostgreSQL: the notes stay on this machine, beside the default log,
        # one file per database (named by a digest of its URL without the password).
        digest = hashlib.sha256(db_label(db_path).encode()).hexdigest()[:16]
        return default_db_path().with_name("postgresql-%s.seats.json" % digest)
    db_path = Path(db_path)
    return db_path.with_name(db_path.name + ".seats.json")


def _read_notes(db_path):
    path = _seats_path(db_path)
    private_files.tighten(path, "the seat notes")
    try:
        with open(path, encoding="utf-8") as f:
            notes = json.load(f)
    except (OSError, ValueError):
        return {}
    return notes if isinstance(notes, dict) else {}


def _is_demo(notes, game_id):
    note = notes.get(str(game_id))
    return isinstance(note, dict) and note.get("demo") is True


def note_seats(db_path, game_id, agents, demo=False):
    """Note who sits where in game `game_id` (a human, or the bot's kind), and whether it
    is a demo (--bots-only: never resumed); a note that cannot be written is no trouble
    (a resume then takes the defaults)."""
    if not isinstance(game_id, int) or game_id < 1:
        return
    notes = _read_notes(db_path)
    kinds = [getattr(a, "kind", "human") for a in agents]
    notes[str(game_id)] = {"seats": kinds, "demo": True} if demo else kinds
    newest = sorted(notes, key=lambda k: int(k) if k.isdigit() else 0)[-MAX_NOTES:]
    path = _seats_path(db_path)
    try:
        if is_db_url(db_path):  # beside the default log, in vora's own data folder
            private_files.make_folder(path.parent, own=True)
        # Private as the log it sits beside (0600, written whole: vora_host.private_files).
        private_files.write_atomically(path, json.dumps(dict((k, notes[k]) for k in newest)))
    except OSError:
        pass


def seats_noted(db_path, game_id, players):
    """The kinds noted for game `game_id` ('human' or a bot's kind string), one per
    player, or None when there is no usable note."""
    kinds = _read_notes(db_path).get(str(game_id))
    if isinstance(kinds, dict):  # a demo's
        kinds = kinds.get("seats")
    if not isinstance(kinds, list) or len(kinds) != players \
            or not all(isinstance(k, str) and 0 < len(k) <= 80 for k in kinds):
        return None
    return kinds
