"""Logging a game while it is played on the PC (`vora play --typed`), come what may.

    live = LiveLog(path, "vora", players, seed, options, say=print_warning)
    live.moved(1, "push crow Sc", digest)     # after every move
    live.took_back(1)                         # after an undo, once per move taken back
    live.ended("over", result)
    print(live.finish(record_path))           # "Logged as game 7 in ...", or the rescue

Nothing here ever stops the game. When the log cannot be written (a full disk, a
read-only file, a lock) the GameLog keeps every change in memory and writes them in order
once it can (vora_host.log.store); when the file cannot even be opened, this class keeps
the game itself and opens the log again at the next move. `say(text)` is told, once each
time, when logging starts failing and when it works again. At the end, `finish()` makes
a last try; a game that still could not be logged is saved as a JSON export in the
temporary folder (usually another file system), or printed, so that `vora games import`
adds it later: nothing is lost.
"""

import os
import tempfile
import time

from vora_host import private_files
from vora_host.log import formats
from vora_host.log.checks import _now
from vora_host.log.database import db_label
from vora_host.log.errors import (CannotWrite, DatabaseError, DatabaseLocked, GameHeld,
                                  GameLogError, LeaseLost, NotWritten)
from vora_host.log.store import GameLog

__all__ = ["LiveLog", "save_rescue"]


class LiveLog:
    """One game played on the PC, logged as it goes (see the module doc)."""

    def __init__(self, path, game, players, seed, options, source="terminal", say=None,
                 timeout=5.0, game_id=None, earlier=(), take_over=False):
        self.path = path
        self.say = say or (lambda text: None)
        self.timeout = timeout
        self.log = None
        self.gid = None
        self.broken = None  # the log cannot be used at all (not a game log, corrupt)
        self.failing = None  # why the file cannot be opened now, or None
        # One writer per game (vora_host.log.leases): a resumed game is held before it is
        # shown (GameHeld from here when another program plays it, unless `take_over`);
        # `took_over` is the holder taken over, `lost` why this program no longer writes
        # the game (another took it over): it is then saved apart at the end.
        self.take_over = take_over
        self.took_over = None
        self.lost = None
        self.start = {"game": game, "players": players, "seed": seed, "options": options,
                      "source": source, "started_at": _now()}
        # The game as played, kept for a rescue: every move with its digest and times.
        # A resumed game (`game_id`, vora_host.play.saved) goes on in the log under its id;
        # `earlier`, its live moves (log.game()'s "moves"), belongs to a rescue's export.
        self.resumed = game_id
        self.history = [{"number": m["number"], "move": m["move"], "digest": m["digest"],
                         "logged_at": m["logged_at"], "taken_back_at": None} for m in earlier]
        self.end = None
        self._open()

    # ---- the log file

    def _open(self):
        if self.log is not None or self.broken is not None or self.lost is not None:
            return self.log is not None
        try:
            log = GameLog(self.path, timeout=self.timeout)
        except (CannotWrite, DatabaseLocked) as exc:
            if self.failing is None:
                self.say("cannot open the game log (%s): the game goes on and is kept in "
                         "memory; it will be logged as soon as the log can be written" % exc)
            self.failing = str(exc)
            return False
        except DatabaseError as exc:
            self.broken = str(exc)
            self.say("the game log cannot be used (%s): this game is kept in memory only, "
                     "and saved for a later import when it ends" % exc)
            return False
        log.on_trouble = self.say
        if self.resumed is not None and self.lost is None:
            try:
                self.took_over = log.hold(self.resumed, take_over=self.take_over)
            except GameHeld as exc:
                log.close()
                if self.gid is None:
                    raise  # before the game is shown: the caller refuses to play it
                self._lose(exc)
                return False
            except (CannotWrite, DatabaseLocked):
                pass  # cannot be written now: the first write that goes through takes it
        self.log = log
        if self.gid is None:  # this session's start: games of killed programs interrupted
            try:
                log.close_stale()
            except GameLogError:
                pass
        if self.failing is not None:
            self.failing = None
            self.say("the game log %s can be opened again" % db_label(self.path))
        self._catch_up()
        return True

    def _catch_up(self):
        """Give the log what was played while it could not be opened."""
        s = self.start
        if self.resumed is not None:
            self.gid = self.resumed  # its earlier moves are there: repeats change nothing
        else:
            self.gid = self.log.start_game(game=s["game"], players=s["players"],
                                           seed=s["seed"], options=s["options"],
                                           source=s["source"], started_at=s["started_at"])
        live = []
        for row in self.history:
            # Replayed as it happened: a move, and its takeback when one followed.
            while live and live[-1]["number"] >= row["number"]:
                self._call(self.log.take_back, self.gid, live.pop()["number"])
            self._call(self.log.add_move, self.gid, row["number"], row["move"], row["digest"])
            live.append(row)
        while live and live[-1]["taken_back_at"] is not None:
            self._call(self.log.take_back, self.gid, live.pop()["number"])
        if self.end is not None:
            self._call(self.log.end_game, self.gid, self.end[0], self.end[1])

    def _call(self, method, *args):
        if self.lost is not None:
            return
        try:
            method(*args)
        except NotWritten:
            pass  # kept by the GameLog and said through on_trouble
        except (LeaseLost, GameHeld) as exc:
            self._lose(exc)
        except GameLogError as exc:
            self.say("the game log refused a change: %s" % exc)

    def _lose(self, exc):
        """Another program writes this game now: nothing more goes to the log from here;
        the game as played here is saved apart when it ends (finish)."""
        self.lost = exc
        self.say("%s. The moves made here from now on are not logged; the whole game is "
                 "saved in a file when you quit, for 'vora games import'" % exc)

    # ---- the game

    def moved(self, number, move, digest):
        self.history.append({"number": number, "move": move, "digest": digest,
                             "logged_at": _now(), "taken_back_at": None})
        if self.log is not None:
            self._call(self.log.add_move, self.gid, number, move, digest)
        else:
            self._open()

    def took_back(self, number):
        for row in reversed(self.history):
            if row["number"] == number and row["taken_back_at"] is None:
                row["taken_back_at"] = _now()
                break
        if self.log is not None:
            self._call(self.log.take_back, self.gid, number)
        else:
            self._open()

    def ended(self, status, result):
        self.end = (status, result)
        if self.log is not None:
            self._call(self.log.end_game, self.gid, status, result)
        else:
            self._open()

    def event(self, kind, data):
        """Record an event beside the moves (GameLog.add_event: a hint asked for). An
        event is never worth the game: when the log cannot take it, it is dropped (said
        once by the log's own trouble line) and play goes on."""
        if self.log is None or self.lost is not None or self.gid is None:
            return False
        try:
            self.log.add_event(self.gid, kind, data)
        except (LeaseLost, GameHeld) as exc:
            self._lose(exc)
            return False
        except GameLogError:
            return False
        return True

    # ---- the end

    def finish(self, record_path=None):
        """Write what waits, close the log and say where the game went: a line for the
        player, and whether it is in the log (True) or was rescued elsewhere (False)."""
        if self.log is None:
            self._open()
        if self.lost is not None:
            if self.log is not None:
                self.log.close()
            return self._rescue("another program took the game over: %s" % self.lost,
                                record_path), False
        if self.log is not None:
            try:
                self.log.flush()
            except GameLogError:
                pass
            gid = self.log.real_id(self.gid)
            pending = self.log.pending
            partial = None
            if pending and gid is not None:
                try:
                    partial = [g for g in self.log.games() if g["id"] == gid]
                except GameLogError:
                    partial = None
            self.log.close()
            if not pending and gid is not None:
                return ("Logged as game %d in %s ('vora games show %d')." % (gid, db_label(self.path), gid),
                        True)
            why = self.log.trouble or "it cannot be written"
            message = self._rescue(why, record_path)
            if partial:
                message += (" The log's game %d holds only its first %d move%s: delete it "
                            "after the import ('vora games delete %d')."
                            % (gid, partial[0]["move_count"],
                               "" if partial[0]["move_count"] == 1 else "s", gid))
            return message, False
        why = self.failing or self.broken or "it cannot be opened"
        return self._rescue(why, record_path), False

    def export(self):
        """The game as an export_json text, takebacks included (what a rescue saves)."""
        live = [r for r in self.history if r["taken_back_at"] is None]
        s = self.start
        status, result = self.end or ("abandoned", None)
        record = {"game": s["game"], "format": formats.RECORD_FORMAT, "options": s["options"],
                  "seed": s["seed"], "players": s["players"],
                  "moves": [r["move"] for r in live], "digests": [r["digest"] for r in live],
                  "result": result or {}}
        meta = {"source": s["source"], "status": status, "started_at": s["started_at"],
                "ended_at": _now(), "logged_at": [r["logged_at"] for r in live]}
        takebacks = [dict(at=k, **r) for k, r in enumerate(self.history)
                     if r["taken_back_at"] is not None]
        if takebacks:
            meta["takebacks"] = takebacks
        record["log"] = meta
        return formats.dumps_json(record)

    def _rescue(self, why, record_path):
        return save_rescue(self.export(), db_label(self.path), why, record_path)


def save_rescue(text, log_path, why, record_path=None):
    """Save an export of a game the log could not take in the temporary folder (usually
    another file system than a full disk's): a message saying where, and how to import
    it later. When even that fails, the message carries the export itself (unless the
    game's record file holds it)."""
    name = "vora-unlogged-%s-%d.json" % (time.strftime("%Y%m%d-%H%M%S"), os.getpid())
    target = os.path.join(tempfile.gettempdir(), name)
    try:
        # 0600, created new (never through a link another account left in /tmp): it holds
        # the game's seed (vora_host.private_files).
        with private_files.open_new(target) as f:
            f.write(text)
        where = "it is saved in %s" % target
    except OSError:
        target = None
        where = "its record is in %s" % record_path if record_path else \
            "here it is: save it in a file"
    message = ("This game is NOT in the game log %s (%s); %s: add it later with "
               "'vora games import %s'." % (log_path, why or "it cannot be written", where,
                                            target or record_path or "FILE"))
    if target is None and not record_path:
        message += "\n" + text
    return message
