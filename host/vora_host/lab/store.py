"""A lab run's files: the games file (JSON Lines: a header with the spec, then one summary
per game, appended as games come back, so an interrupted run keeps them) and the report
(report.json). Files are read as untrusted: bounded lines, every field checked.
"""

import json
import os
import time
from pathlib import Path

from vora_host.lab.analysis import SummaryError, check_summary
from vora_host.lab.spec import LabSpec, SpecError

__all__ = ["GAMES_FILE", "REPORT_FILE", "GamesFile", "LabFileError", "read_games", "whole_lines",
           "json_line", "write_json", "repair_cut_end"]

GAMES_FILE = "games.jsonl"
REPORT_FILE = "report.json"
FORMAT = "vora-lab-games"
FORMAT_VERSION = 1
MAX_LINE = 1 << 16  # a summary is a few hundred bytes; a longer line is not one of ours


class LabFileError(ValueError):
    """A lab file that cannot be used: the message names the file, the line and why."""


def repair_cut_end(path):
    """Drop a last line cut short (a run killed while writing it) from the games file, so
    that what is appended next starts a line of its own: every whole line is kept.
    Returns the number of bytes dropped (0: the file ends with a whole line, or is empty
    or missing)."""
    path = Path(path)
    try:
        f = open(path, "r+b")
    except FileNotFoundError:
        return 0
    except OSError as exc:
        raise LabFileError("cannot open %s: %s" % (path, exc.strerror or exc))
    with f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return 0
        # Look back block by block for the end of the last whole line.
        end = size
        keep = 0
        while end > 0:
            start = max(0, end - 65536)
            f.seek(start)
            block = f.read(end - start)
            k = block.rfind(b"\n")
            if k >= 0:
                keep = start + k + 1
                break
            end = start
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return size - keep


def json_line(obj):
    """One line of a JSON Lines file of the lab: compact, keys sorted."""
    return json.dumps(obj, separators=(",", ":"), sort_keys=True) + "\n"


class GamesFile:
    """The games file, open for appending. A header line starts each session of the run
    (the first one, and each --resume), so the file says which spec every game was
    played under. A last line cut short is dropped first (repair_cut_end; `dropped` says
    how many bytes): nothing is ever written into the middle of a line."""

    def __init__(self, path, spec, version, fingerprint):
        self.path = Path(path)
        self.dropped = repair_cut_end(self.path)
        self.file = open(self.path, "a", encoding="utf-8")
        self._line({"format": FORMAT, "format_version": FORMAT_VERSION, "version": version,
                    "fingerprint": fingerprint, "spec": spec.to_dict()})
        self.file.flush()
        self.flushed = time.monotonic()

    def _line(self, obj):
        self.file.write(json_line(obj))

    def add(self, summaries):
        # One write per chunk: Ctrl-C (handled between Python steps) never cuts a line.
        self.file.write("".join(json_line(s) for s in summaries))
        # On disk within a second (close() writes the rest): a run killed outright loses
        # at most that; Ctrl-C loses nothing.
        if time.monotonic() - self.flushed >= 1.0:
            self.file.flush()
            self.flushed = time.monotonic()

    def close(self):
        self.file.close()


# How a header line starts (keys sorted): found after a cut line glued to it (below).
HEADER_START = b'{"fingerprint":'


def _glued_header(raw):
    """A header that an older vora appended to a last line cut short, on the same line
    (the cut game is lost, the header is good): the header, or None."""
    k = raw.find(HEADER_START, 1)
    if k < 0:
        return None
    try:
        obj = json.loads(raw[k:].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return obj if isinstance(obj, dict) and "format" in obj else None


def whole_lines(path):
    """(number, bytes) of each whole line of the file `path`, read line by line: a line
    longer than MAX_LINE is LabFileError, a last line cut short (a run killed while
    writing it) is left out."""
    path = Path(path)
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise LabFileError("cannot read %s: %s" % (path, exc.strerror or exc))
    with f:
        k = 0
        while True:
            raw = f.readline(MAX_LINE + 1)
            if not raw:
                return
            k += 1
            if not raw.endswith(b"\n"):
                if len(raw) > MAX_LINE:
                    raise LabFileError("%s line %d: longer than %d bytes" % (path, k, MAX_LINE))
                return  # cut short at the end: left out
            yield k, raw


def read_games(path, spec=None, on_game=None, on_note=None):
    """Read a games file line by line (a run of millions of games is never held whole).

    Every header must describe the same games as `spec` (when given) and as the others:
    LabFileError naming the fields that differ. Each game that belongs to `spec` (a
    resumed run may hold fewer games than the file), checked field by field, goes to
    on_game(summary). A last line cut short (the run killed while writing it) is left out.
    A line made of a cut line and a header after it (written by a --resume of vora before
    it repaired cut lines) counts as that header; on_note(text) is told.
    Returns (the spec of the last header, the number of games read)."""
    path = Path(path)
    header = None
    variants = widest = None
    count = 0
    for k, raw in whole_lines(path):
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            obj = _glued_header(raw)
            if obj is None:
                raise LabFileError("%s line %d: not JSON (%s)" % (path, k, exc))
            if on_note is not None:
                on_note("%s line %d: a game cut short, then a header: the cut game is "
                        "left out (it is played again)" % (path, k))
        if isinstance(obj, dict) and "format" in obj:
            if obj.get("format") != FORMAT or obj.get("format_version") != FORMAT_VERSION:
                raise LabFileError("%s line %d: not a lab games file of format %d"
                                   % (path, k, FORMAT_VERSION))
            try:
                this = LabSpec.from_dict(obj.get("spec"))
            except SpecError as exc:
                raise LabFileError("%s line %d: %s" % (path, k, exc))
            for other in (header, spec):
                differ = this.same_games(other) if other is not None else []
                if differ:
                    raise LabFileError("%s holds games of another run: %s differ%s" % (
                        path, ", ".join(differ), "" if len(differ) > 1 else "s"))
            header = this
            if variants is None:
                ref = spec or header
                variants = ref.variants()
                widest = LabSpec.from_dict(dict(ref.to_dict(), games=2 ** 31 - 1,
                                                seed_effect=2 ** 31 - 1))
            continue
        if header is None:
            raise LabFileError("%s line %d: a game before the header: not a lab games "
                               "file" % (path, k))
        try:
            check_summary(obj, widest, variants)
        except SummaryError as exc:
            raise LabFileError("%s line %d: %s" % (path, k, exc))
        ref = spec or header
        if obj["i"] < (ref.games if obj["r"] == 0 else ref.seed_effect):
            count += 1
            if on_game is not None:
                on_game(obj)
    if header is None:
        raise LabFileError("%s: no header line: not a lab games file" % path)
    return header, count


def write_json(path, obj):
    """Write JSON (sorted keys, indented) through a temporary file, so a reader never
    sees half a report."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
