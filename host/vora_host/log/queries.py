"""Reading the game log: the games' summaries, one game whole (its live moves and its
history), the game a board is continuing, what happened to a game beside its moves (its
events), and a game's record and its verification; every read includes the changes still
waiting in memory.

Apart from the store (vora_host.log.store) because reading never writes: `Queries` is a
part of GameLog, and its functions are what `vora games`, the web mirror and a resume use.
"""

import json
from typing import Any, Dict, List, Optional, Tuple

from vora_host.log.checks import STATUSES, _add_note, _is_int, _short
from vora_host.log.errors import DatabaseError, NoSuchGame
from vora_host.log.schema import _SEED_LOW_BITS, _seed_columns, _seed_of
from vora_host.log.verify import VerifyReport, check_replay, record_of

__all__ = ["Queries"]


class Queries:
    """The part of vora_host.log.store.GameLog that reads games."""

    def events(self, game_id) -> List[Dict[str, Any]]:
        """What happened to a game beside its moves, in order: dicts with number (its live
        moves then), kind ("correction": see correct_move; "hint": see add_event), data (a
        dict) and at."""
        gid = self._canon(game_id)
        if not _is_int(gid) or gid < 0:
            return []
        with self._errors():
            rows = self._conn.execute("SELECT number, kind, data, at FROM events WHERE "
                                      "game_id = ? ORDER BY id", (gid,)).fetchall()
        out = []
        for number, kind, data, at in rows:
            try:
                data = json.loads(data)
            except ValueError:
                data = {"text": data}
            out.append({"number": number, "kind": kind, "data": data, "at": at})
        return out

    _SUMMARY = ("SELECT g.id, g.board_game_id, g.game, g.players, g.seed, g.options, g.source, "
                "g.started_at, g.ended_at, g.result, g.status, g.imported_at, g.attention, "
                "g.seed_high, "
                "(SELECT count(*) FROM moves m WHERE m.game_id = g.id "
                "AND m.taken_back_at IS NULL), "
                "(SELECT count(*) FROM moves m WHERE m.game_id = g.id "
                "AND m.taken_back_at IS NOT NULL) FROM games g ")

    _KEYS = ("id", "board_game_id", "game", "players", "seed", "options", "source",
             "started_at", "ended_at", "result", "status", "imported_at", "attention",
             "seed_high", "move_count", "taken_back")

    def _summary(self, row):
        info = dict(zip(self._KEYS, row))
        info["seed"] = _seed_of(info["seed"], info.pop("seed_high"))
        try:
            info["options"] = json.loads(info["options"])
            info["result"] = None if info["result"] is None else json.loads(info["result"])
        except ValueError as exc:
            raise DatabaseError("%s: game %d has unreadable JSON: %s"
                                % (self.path, info["id"], exc))
        return info

    def games(self, limit=None, status=None) -> List[Dict[str, Any]]:
        """Summaries of the games in the file, newest first: dicts with id,
        board_game_id, game, players, seed, options, source, started_at, ended_at,
        result, status, imported_at (None unless the game came in by import_game),
        attention (None, or why the game needs attention: notes, one a line, see
        mark_attention), move_count (live moves) and taken_back (moves taken back)."""
        if status is not None and status not in STATUSES:
            raise ValueError("status must be one of %s, not %s" % (", ".join(STATUSES),
                                                                  _short(status)))
        if limit is not None and (not _is_int(limit) or limit < 1):
            raise ValueError("limit must be a whole number from 1, not %s" % _short(limit))
        sql = self._SUMMARY
        args = []  # type: List[Any]
        if status is not None:
            sql += "WHERE g.status = ? "
            args.append(status)
        sql += "ORDER BY g.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        with self._errors():
            return [self._summary(r) for r in self._conn.execute(sql, args)]

    def find_game(self, board_game_id, seed) -> Optional[Dict[str, Any]]:
        """The latest game the board logged under this game id and seed (a summary as in
        games(); move_count tells which move to ask the board for next), or None. Imported
        copies are not candidates: a reconnect continues the game that was logged live.
        A game whose start still waits in memory is a candidate too (the newest)."""
        for op in reversed(self._pending):
            if op["kind"] == "start" and op["board_game_id"] == board_game_id \
                    and op["seed"] == seed and self._is_waiting(op["gid"]):
                info = self.game(op["gid"])
                info.pop("moves")
                info.pop("history")
                return info
        if not _is_int(seed) or not 0 <= seed < 1 << (_SEED_LOW_BITS + 1):
            return None  # no game of the log has such a seed
        with self._errors():
            row = self._conn.execute(self._SUMMARY + "WHERE g.board_game_id = ? AND g.seed = ? "
                                     "AND g.seed_high = ? AND g.imported_at IS NULL "
                                     "ORDER BY g.id DESC LIMIT 1",
                                     (board_game_id,) + _seed_columns(seed)).fetchone()
        if row is None:
            return None
        info = self._summary(row)
        if self._pending:
            full = self.game(info["id"])
            full.pop("moves")
            full.pop("history")
            return full
        return info

    def game(self, game_id) -> Dict[str, Any]:
        """A game's summary plus "moves", its live moves in order ([{number, move, digest,
        logged_at}]), and "history", every move in the order played, each with
        taken_back_at (None for a live move). Changes waiting in memory are included."""
        if self._is_waiting(game_id):
            op = next(o for o in self._pending if o["kind"] == "start" and o["gid"] == game_id)
            info = dict(zip(self._KEYS, (game_id, op["board_game_id"], op["game"],
                                         op["players"], op["seed"], json.loads(op["options"]),
                                         op["source"], op["at"], None, None, "playing", None,
                                         None, 0, 0)))
            history = []
        else:
            gid = self._canon(game_id)
            with self._errors():
                row = self._conn.execute(self._SUMMARY + "WHERE g.id = ?",
                                         (gid,)).fetchone() if _is_int(gid) else None
                if row is None:
                    raise NoSuchGame(game_id, self.path)
                info = self._summary(row)
                history = [
                    {"number": n, "move": m, "digest": d, "logged_at": t, "taken_back_at": b}
                    for n, m, d, t, b in self._conn.execute(
                        "SELECT number, move, digest, logged_at, taken_back_at FROM moves "
                        "WHERE game_id = ? ORDER BY id", (gid,))]
        for op in self._pending:
            if op["kind"] == "start" or self._canon(op["gid"]) != self._canon(game_id):
                continue
            if op["kind"] == "move":
                if info["status"] == "interrupted":
                    info["status"], info["result"], info["ended_at"] = "playing", None, None
                history.append({"number": op["number"], "move": op["move"],
                                "digest": op["digest"], "logged_at": op["at"],
                                "taken_back_at": None})
            elif op["kind"] == "takeback":
                for entry in reversed(history):
                    if entry["number"] == op["number"] and entry["taken_back_at"] is None:
                        entry["taken_back_at"] = op["at"]
                        break
                if info["status"] == "over":
                    info["status"], info["result"], info["ended_at"] = "playing", None, None
            elif op["kind"] == "end":
                info["status"], info["ended_at"] = op["status"], op["at"]
                info["result"] = None if op["result"] is None else json.loads(op["result"])
            elif op["kind"] == "attention":
                info["attention"] = _add_note(info["attention"], op["note"])
        info["history"] = history
        info["moves"] = [dict((k, v) for k, v in e.items() if k != "taken_back_at")
                         for e in history if e["taken_back_at"] is None]
        info["move_count"] = len(info["moves"])
        info["taken_back"] = len(history) - len(info["moves"])
        return info

    def change_marks(self, status=None) -> Dict[int, Tuple[int, int, str]]:
        """{game id: (live moves, moves taken back, status)} of every game (of `status`):
        what tells that a game changed, read without any game's other fields (the web
        mirror looks at it tens of times a second)."""
        if status is not None and status not in STATUSES:
            raise ValueError("status must be one of %s, not %s" % (", ".join(STATUSES),
                                                                  _short(status)))
        sql = ("SELECT g.id, (SELECT count(*) FROM moves m WHERE m.game_id = g.id "
               "AND m.taken_back_at IS NULL), (SELECT count(*) FROM moves m "
               "WHERE m.game_id = g.id AND m.taken_back_at IS NOT NULL), g.status "
               "FROM games g")
        args = ()  # type: Tuple[Any, ...]
        if status is not None:
            sql += " WHERE g.status = ?"
            args = (status,)
        with self._errors():
            return dict((r[0], (r[1], r[2], r[3])) for r in self._conn.execute(sql, args))

    def commit_mark(self):
        """A number that changes whenever another connection (of this process or another)
        has committed to the log since this one last asked (SQLite's data_version), or
        None where there is no such cheap test (PostgreSQL: its NOTIFY says it instead).
        Equal marks: nothing in the log changed, no need to read it again."""
        if self.backend != "sqlite":
            return None
        with self._errors():
            return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def id_range(self):
        """(smallest, largest) game id in the log, or None when it is empty."""
        with self._errors():
            row = self._conn.execute("SELECT min(id), max(id) FROM games").fetchone()
        return None if row[0] is None else (row[0], row[1])

    def same_games(self, record, started_at=None) -> List[int]:
        """Ids of the games of the log that hold this very game: the same game, players,
        seed, options and live moves (and start time, when `started_at` is given)."""
        options = json.dumps(record.get("options"))
        seed = record.get("seed")
        if not _is_int(seed) or not 0 <= seed < 1 << (_SEED_LOW_BITS + 1):
            return []  # no game of the log has such a seed
        with self._errors():
            rows = self._conn.execute(
                "SELECT id, options, started_at FROM games WHERE game = ? AND seed = ? "
                "AND seed_high = ? AND players = ? ORDER BY id",
                (record.get("game"),) + _seed_columns(record.get("seed"))
                + (record.get("players"),)).fetchall()
            out = []
            for gid, opts, start in rows:
                if opts != options or (started_at is not None and start != started_at):
                    continue
                moves = [r[0] for r in self._conn.execute(
                    "SELECT move FROM moves WHERE game_id = ? AND taken_back_at IS NULL "
                    "ORDER BY number", (gid,))]
                if moves == list(record.get("moves", [])):
                    out.append(gid)
        return out

    def record(self, game_id) -> Tuple[Dict[str, Any], List[str]]:
        """(record, digests): the game record (game, format, options, seed, players,
        moves, digests, result) of the live moves and the digest after each, so that
        `shared_rules.games.replay(record, digests)` replays it and checks every digest.
        The record is also what `vora play --record` writes and `vora replay` reads."""
        return record_of(self.game(game_id))

    def verify(self, game_id) -> "VerifyReport":
        """Replay a logged game's live moves with shared_rules.games and compare the
        digest after every move with the logged one. The report says ok, or gives the
        first problem (nothing after it is replayed)."""
        record, digests = record_of(self.game(game_id))
        report = check_replay(record, digests)
        report.game_id = game_id
        return report
