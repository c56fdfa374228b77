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

__all__ = ["GAMES_FILE", "REPORT_FILE", "GamesFile", "LabFileError", "read_games", "write_json"]

GAMES_FILE = "games.jsonl"
REPORT_FILE = "report.json"
FORMAT = "vora-lab-games"
FORMAT_VERSION = 1
MAX_LINE = 1 << 16  # a summary is a few hundred bytes; a longer line is not one of ours


class LabFileError(ValueError):
    """A lab file that cannot be used: the message names the file, the line and why."""


class GamesFile:
    """The games file, open for appending. A header line starts each session of the run
    (the first one, and each --resume), so the file says which spec every game was
    played under."""

    def __init__(self, path, spec, version, fingerprint):
        self.path = Path(path)
        self.file = open(self.path, "a", encoding="utf-8")
        self._line({"format": FORMAT, "format_version": FORMAT_VERSION, "version": version,
                    "fingerprint": fingerprint, "spec": spec.to_dict()})
        self.file.flush()
        self.flushed = time.monotonic()

    def _line(self, obj):
        self.file.write(json.dumps(obj, separators=(",", ":"), sort_keys=True) + "\n")

    def add(self, summaries):
        # One write per chunk: Ctrl-C (handled between Python steps) never cuts a line.
        self.file.write("".join(json.dumps(s, separators=(",", ":"), sort_keys=True) + "\n"
                                for s in summaries))
        # On disk within a second (close() writes the rest): a run killed outright loses
        # at most that; Ctrl-C loses nothing.
        if time.monotonic() - self.flushed >= 1.0:
            self.file.flush()
            self.flushed = time.monotonic()

    def close(self):
        self.file.close()


def read_games(path, spec=None):
    """(spec of the last header, [summaries]) from a games file. With `spec`, every header
    must describe the same games (LabFileError naming the fields that differ). A last line
    cut short (the run was killed while writing) is left out."""
    path = Path(path)
    headers, games = [], []
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            data = f.read(size)
    except OSError as exc:
        raise LabFileError("cannot read %s: %s" % (path, exc.strerror or exc))
    lines = data.split(b"\n")
    cut = lines.pop() if lines else b""  # after the last newline: empty, or a cut line
    del cut
    for k, raw in enumerate(lines, 1):
        if len(raw) > MAX_LINE:
            raise LabFileError("%s line %d: longer than %d bytes" % (path, k, MAX_LINE))
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise LabFileError("%s line %d: not JSON (%s)" % (path, k, exc))
        if isinstance(obj, dict) and "format" in obj:
            if obj.get("format") != FORMAT or obj.get("format_version") != FORMAT_VERSION:
                raise LabFileError("%s line %d: not a lab games file of format %d"
                                   % (path, k, FORMAT_VERSION))
            try:
                headers.append(LabSpec.from_dict(obj.get("spec")))
            except SpecError as exc:
                raise LabFileError("%s line %d: %s" % (path, k, exc))
            continue
        if not headers:
            raise LabFileError("%s line %d: a game before the header: not a lab games file"
                               % (path, k))
        games.append((k, obj))
    if not headers:
        raise LabFileError("%s: no header line: not a lab games file" % path)
    last = headers[-1]
    for h in headers[:-1] + ([spec] if spec is not None else []):
        differ = last.same_games(h)
        if differ:
            raise LabFileError("%s holds games of another run: %s differ%s" % (
                path, ", ".join(differ), "" if len(differ) > 1 else "s"))
    return last, games


def check_games(path, games, spec):
    """The summaries of `games` ([(line, obj)]) that belong to `spec` (a resumed run may
    have fewer games than the file); LabFileError at the first malformed one."""
    variants = spec.variants()
    widest = LabSpec.from_dict(dict(spec.to_dict(), games=2 ** 31 - 1,
                                    seed_effect=2 ** 31 - 1))
    out = []
    for k, obj in games:
        try:
            check_summary(obj, widest, variants)
        except SummaryError as exc:
            raise LabFileError("%s line %d: %s" % (path, k, exc))
        if obj["i"] < (spec.games if obj["r"] == 0 else spec.seed_effect):
            out.append(obj)
    return out


def write_json(path, obj):
    """Write JSON (sorted keys, indented) through a temporary file, so a reader never
    sees half a report."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
