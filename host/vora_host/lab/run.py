"""A lab run from start to report: the games still to play, the runner playing them with
a progress bar, the games file growing as they come back, then the report (terminal,
report.json, plots, report.html), complete or partial.
"""

import platform
import time
from pathlib import Path

from vora_host import __version__
from vora_host.lab.analysis import Results
from vora_host.lab.playing import fingerprint
from vora_host.lab.store import GAMES_FILE, REPORT_FILE, GamesFile, read_games, write_json
from vora_host.words import plural

__all__ = ["LabError", "run_lab", "default_out_dir", "chunk_size"]


class LabError(RuntimeError):
    """A run that cannot go on: the message says why and what to do."""


def default_out_dir(game):
    return Path("lab-runs") / ("%s-%s" % (game, time.strftime("%Y%m%d-%H%M%S")))


def chunk_size(games, workers):
    # Small enough that every worker gets many chunks (an even finish, a quick stop on
    # Ctrl-C), large enough that handing them out costs nothing next to playing them.
    return max(1, min(100, games // (max(1, workers) * 40)))


def load_previous(out, spec, resume, err=None):
    """Results holding the games already in `out` (when resuming); LabError otherwise.
    `err` (a rich console) is told about damage that was repaired."""
    results = Results(spec)
    path = Path(out) / GAMES_FILE
    if path.exists():
        if not resume:
            raise LabError("%s already holds a lab run: add --resume to go on with it, or "
                           "choose another --out" % path.parent)
        read_games(path, spec, results.add, on_note=None if err is None else (
            lambda text: err.print(text, style="yellow", highlight=False)))
    elif resume:
        raise LabError("nothing to resume: %s has no %s" % (Path(out), GAMES_FILE))
    return results


def run_lab(spec, out, runner, console, err, resume=False, plots=True):
    """Play the run described by `spec` (checked) into folder `out`; print and write the
    report. Returns (report, complete)."""
    from vora_host.lab import report as lab_report
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results = load_previous(out, spec, resume, err)
    before = results.count
    fp = fingerprint(spec)
    size = chunk_size(results.missing_count(), getattr(runner, "workers", 1) or 1)
    chunks = _chunks(results.missing(), size)
    total = results.count + results.missing_count()
    if before:
        err.print("Resuming: %d of %s already played in %s." % (before, plural(total, "game"),
                                                                 out))
    games_file = GamesFile(out / GAMES_FILE, spec, __version__, fp)
    if games_file.dropped:
        err.print("%s ended in a line cut short (the run was killed while writing it): "
                  "dropped its %d bytes, every whole line kept; that game is played again."
                  % (out / GAMES_FILE, games_file.dropped), style="yellow", highlight=False)
    started = time.perf_counter()
    complete = True
    progress = _progress(err)
    # The games asked for and the seed effect's replays are counted apart: a run of 40
    # games with 40 replays reads 40 games, not 80 (the bar fills with both).
    count = GameCount(spec, results)
    try:
        with progress:
            task = progress.add_task("%s, %s" % (spec.game, runner.name), total=total,
                                     completed=before, rate="-", done=count.text())

            def on_result(result):
                if result.get("fingerprint") != fp:
                    raise LabError(
                        "a worker plays other code (rules or bots fingerprint %s, here %s): "
                        "install the same version of the project everywhere"
                        % (result.get("fingerprint"), fp))
                games_file.add(result["games"])
                for s in result["games"]:
                    if results.add(s) is not False:
                        count.add(s)
                elapsed = time.perf_counter() - started
                rate = (results.count - before) / elapsed if elapsed > 0 else 0.0
                progress.update(task, completed=results.count, done=count.text(),
                                rate=("%.1f" if rate < 10 else "%.0f") % rate)

            complete = runner.run(spec.to_dict(), chunks, on_result,
                                  notice=lambda text: progress.console.print(text, style="yellow"))
    finally:
        games_file.close()
    seconds = time.perf_counter() - started
    played = results.count - before
    report = results.report()
    report.update({
        "format": "vora-lab-report", "format_version": 1,
        "version": __version__, "python": platform.python_version(),
        "fingerprint": fp, "spec": spec.to_dict(), "games_file": GAMES_FILE,
        "complete": results.count == total, "played": results.count, "planned": total,
        "options_in_full": _options_in_full(spec),
        "games_digest": "%016x" % _xor(results.digest),
        "command": spec_command(spec),
        # The only part that differs between two runs of the same command.
        "run": {"runner": runner.name, "workers": getattr(runner, "workers", None),
                "seconds": round(seconds, 3), "games_this_session": played,
                "games_per_second": round(played / seconds, 1) if seconds > 0 else None},
    })
    write_json(out / REPORT_FILE, report)
    lab_report.print_report(console, report)
    images = []
    if plots:
        images = lab_report.write_plots(report, out)
        lab_report.write_html(report, out, images)
    console.print("Files in %s: %s" % (out, ", ".join(
        [GAMES_FILE, REPORT_FILE] + [p.name for p in images] + (["report.html"] if plots else []))),
        style="dim", highlight=False)
    if not complete or results.count < total:
        console.print("Partial report: %d of %s. Go on with the same command and "
                      "--resume --out %s" % (results.count, plural(total, "game"), out),
                      style="yellow", highlight=False)
    return report, complete and results.count == total


def _chunks(tasks, size):
    chunk = []
    for task in tasks:
        chunk.append(task)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _xor(values):
    x = 0
    for v in values:
        x ^= v
    return x


def _options_in_full(spec):
    # Every option of each variant spelled out, house defaults included (state.options()),
    # so the report still says what was played after a default changes.
    from shared_rules import games as rules_games
    module = rules_games.load(spec.game)
    out = []
    for label, players, options in spec.variants():
        out.append(module.new_game(players, 0, **options).options())
    return out


def spec_command(spec):
    """The `vora lab` command line that runs this spec (for the report and the docs)."""
    import shlex
    from shared_rules import games as rules_games
    from vora_host.lab.spec import dict_default, value_text
    module = rules_games.load(spec.game)

    def text(name, value):
        # A dict with one count for each key of the default is written as that count,
        # as it can be typed (-o box=10).
        if isinstance(value, dict) and len(set(value.values())) == 1:
            default = dict_default(module, name) or {}
            if sorted(value) == sorted(default):
                return value_text(next(iter(value.values())))
        return value_text(value)
    parts = ["vora", "lab", spec.game, "--players", str(spec.players), "--games",
             str(spec.games), "--seed", str(spec.seed), "--bots", ",".join(spec.bots)]
    for name in sorted(spec.options):
        parts += ["-o", "%s=%s" % (name, text(name, spec.options[name]))]
    if spec.compare is not None:
        name, values = spec.compare
        parts += ["--compare", "%s=%s" % (name, ",".join(text(name, v) for v in values))]
    parts += ["--seed-effect", str(spec.seed_effect)]
    return " ".join(shlex.quote(p) for p in parts)


class GameCount:
    """The progress bar's words: the games asked for and the seed effect's replays, each
    played of planned ("23/40 games, 5/40 seed-effect replays")."""

    def __init__(self, spec, results):
        variants = len(spec.variants())
        self.games_total = spec.games * variants
        self.replays_total = (spec.seed_effect or 0) * variants
        self.replays = sum(len(s.present()) for s in results.replicas)
        self.games = results.count - self.replays

    def add(self, s):
        if s["r"] == 0:
            self.games += 1
        else:
            self.replays += 1

    def text(self):
        said = "%d/%d games" % (self.games, self.games_total)
        if self.replays_total:
            said += ", %d/%d seed-effect replays" % (self.replays, self.replays_total)
        return said


def _progress(err):
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn
    return Progress(TextColumn("{task.description}"), BarColumn(),
                    TextColumn("{task.fields[done]}  {task.fields[rate]} games/s"),
                    TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                    console=err, disable=not err.is_terminal, transient=False)
