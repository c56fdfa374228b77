"""Showing a lab report: tables in the terminal (rich), plots (matplotlib, PNG) and one
self-contained HTML page holding the tables and the plots. Everything here reads the
report dict of analysis/run; nothing is computed twice.
"""

import base64
import html
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from vora_host.lab.spec import value_text
from vora_host.words import plural, print_table

__all__ = ["print_report", "write_plots", "write_html", "PLOTS"]

PLOTS = ("lengths.png", "win_rates.png", "scores.png", "ends.png")


# ---------------------------------------------------------------- numbers as text

def pct(x):
    return "-" if x is None else "%.1f%%" % (100 * x)


def interval(d):
    return "%.1f-%.1f%%" % (100 * d["low"], 100 * d["high"])


def num(x, digits=1):
    if x is None:
        return "-"
    if isinstance(x, int) or float(x).is_integer():
        return "%d" % x
    return "%.*f" % (digits, x)


def p_text(p):
    return "<0.001" if p < 0.001 else "%.3f" % p


def signed(x, unit=""):
    return "%+.1f%s" % (x, unit)


def header_lines(report):
    spec = report["spec"]
    main = sum(v["games"] for v in report["variants"])
    per_value = " per value" if len(report["variants"]) > 1 else ""
    lines = ["%s lab, project version %s, rules and bots fingerprint %s"
             % (spec["game"], report["version"], report["fingerprint"]),
             "%s%s, %s, base seed %d, bots by seat: %s; %s"
             % (plural(spec["games"], "game"), per_value,
                "players compared" if spec["compare"] and spec["compare"][0] == "players"
                else plural(spec["players"], "player"), spec["seed"],
                ", ".join(spec["bots"]),
                "seed effect: the first %d replayed with other bot seeds" % spec["seed_effect"]
                if spec["seed_effect"] else "no replays for the seed effect")]
    if not report["complete"]:
        lines.append("PARTIAL: %d of %s played (%d of them replays)"
                     % (report["played"], plural(report["planned"], "game"),
                        report["played"] - main))
    if spec["options"]:
        lines.append("options: " + ", ".join("%s=%s" % (k, value_text(v))
                                             for k, v in sorted(spec["options"].items())))
    if spec["compare"]:
        lines.append("compared: %s (the same seeds for every value; differences are from "
                     "the first)" % ", ".join(v["label"] for v in report["variants"]))
    lines.append("command: " + report["command"])
    return lines


# ---------------------------------------------------------------- tables (rows of text)

def seat_rows(v):
    rows = []
    for s in v["seats"]:
        rows.append(["seat %d%s" % (s["seat"], " (first)" if s["seat"] == 0 else ""),
                     s["bot"], str(s["count"]), pct(s["rate"]), interval(s)])
    d = v["draws"]
    rows.append(["draws", "", str(d["count"]), pct(d["rate"]), interval(d)])
    for b in v.get("by_bot", ()):
        rows.append(["bot %s (fair %s)" % (b["bot"], pct(b["fair_share"])), "",
                     str(b["count"]), pct(b["rate"]), interval(b)])
    return rows


def edge_line(v):
    e = v["first_player_edge"]
    mixed = len(set(v["bots"])) > 1
    return ("First player's edge: %s points (%s to %s) over the fair share of %s: %s%s"
            % (signed(100 * e["edge"]), signed(100 * e["low"]), signed(100 * e["high"]),
               pct(v["fair_share"]), "significant" if e["significant"] else "not significant",
               " (the seats have different bots: this is the bots' difference as much as "
               "the seat's)" if mixed else ""))


LENGTH_COLUMNS = ("mean", "sd", "min", "p5", "p25", "median", "p75", "p95", "max")


def length_rows(v):
    rows = []
    for name in ("turns", "moves"):
        s = v[name]
        rows.append([name] + [num(s.get(c)) for c in LENGTH_COLUMNS])
    for name, key in (("best score", "best"), ("score spread", "spread"),
                      ("margin of victory", "margin")):
        s = v["scores"][key]
        rows.append([name] + [num(s.get(c)) for c in LENGTH_COLUMNS])
    return rows


def end_rows(v):
    rows = []
    for e in v["ends"]:
        name = e["reason"]
        if e["safeguard"]:
            name += " (turn limit: a safeguard)" if name == "turns" else " (the lab's move cap)"
        rows.append([name, str(e["count"]), pct(e["rate"]), interval(e)])
    return rows


def kind_rows(v):
    return [[k["kind"], num(k["per_game"], 2), pct(k["games_using_rate"]),
             pct(k["winner_share"])] for k in v["kinds"]]


def seed_effect_line(v):
    s = v.get("seed_effect")
    if not s:
        return None
    corr = s["lead_correlation"]
    kappa = ("kappa undefined (the same winner every time)" if s["kappa"] is None
             else "kappa %.2f (%.2f to %.2f)" % (s["kappa"], s["low"], s["high"]))
    return ("Seed effect: %s replayed with other bot seeds (same deal and draws): the "
            "winner is the same in %s (chance alone: %s), %s; seat 0's lead correlates %s"
            % (plural(s["pairs"], "game"), pct(s["agreement"]), pct(s["expected"]), kappa,
               "-" if corr is None else "%.2f" % corr))


def verdict_lines(report):
    """What the run found, in a few sentences (the top of the HTML page): each variant's
    first-player edge and seed effect, and which compared differences are significant."""
    lines = []
    variants = [v for v in report["variants"] if v["games"]]
    for v in variants:
        head = "%s: " % v["label"] if len(variants) > 1 else ""
        lines.append(head + edge_line(v))
        seed = seed_effect_line(v)
        if seed:
            lines.append(head + seed)
    for c in report["comparisons"]:
        found = [r for r in c["rows"] if r["significant"]]
        if not found:
            lines.append("%s against %s: no difference is significant at 5%% (paired tests)"
                         % (c["variant"], c["base"]))
            continue
        said = []
        for r in found:
            if r["kind"] == "rate":
                said.append("%s %s to %s (%s, p=%s)" % (r["metric"], pct(r["base"]),
                                                         pct(r["value"]),
                                                         signed(100 * r["diff"], " pts"),
                                                         p_text(r["p"])))
            else:
                said.append("%s %s to %s (%s, p=%s)" % (r["metric"], num(r["base"]),
                                                         num(r["value"]), signed(r["diff"]),
                                                         p_text(r["p"])))
        lines.append("%s against %s, significant at 5%%: %s" % (c["variant"], c["base"],
                                                                 "; ".join(said)))
    return lines


def compare_rows(report):
    """Rows of the side-by-side table: metric, each variant's value (the first one's is
    the base of every comparison), then each other variant's difference from it."""
    variants = report["variants"]
    comps = report["comparisons"]
    rows = []
    metrics = [r["metric"] for r in comps[0]["rows"]] if comps else []
    for c in comps[1:]:
        metrics += [r["metric"] for r in c["rows"] if r["metric"] not in metrics]
    for metric in metrics:
        base = None
        cells = []
        diffs = []
        for c in comps:
            row = next((r for r in c["rows"] if r["metric"] == metric), None)
            if row is None:
                cells.append("-")
                diffs.append("-")
                continue
            fmt = pct if row["kind"] == "rate" else (lambda x: num(x, 1))
            base = fmt(row["base"])
            cells.append(fmt(row["value"]))
            diff = (signed(100 * row["diff"], " pts") if row["kind"] == "rate"
                    else signed(row["diff"]))
            diffs.append("%s  p=%s%s" % (diff, p_text(row["p"]),
                                         "  *" if row["significant"] else ""))
        rows.append([metric, base or "-"] + cells + diffs)
    for name in ("median", "p95"):
        rows.append(["turns, %s" % ("median" if name == "median" else "95th percentile")]
                    + [num(v["turns"].get(name)) for v in variants]
                    + [""] * (len(variants) - 1))
    return rows


# ---------------------------------------------------------------- the terminal

def _table(title, columns, rows, justify_first="left"):
    t = Table(title=title, title_justify="left", title_style="bold")
    for k, c in enumerate(columns):
        t.add_column(c, justify=justify_first if k == 0 else "right")
    for r in rows:
        t.add_row(*[escape(str(x)) for x in r])
    return t


def print_report(console, report):
    for line in header_lines(report):
        console.print(escape(line), highlight=False)
    variants = report["variants"]
    if report["comparisons"]:
        comps = report["comparisons"]
        columns = ["metric"] + [v["label"] for v in variants] + \
                  ["difference: %s" % c["variant"] for c in comps]
        print_table(console, _table(
            "Side by side (same seeds; * significant at 5%, paired tests)", columns,
            compare_rows(report)))
    for v in variants:
        if len(variants) > 1:
            console.rule(escape(v["label"]))
        print_table(console, _table(
            "Win rate by seat (95%% interval), %s" % plural(v["games"], "game"),
            ["seat", "bot", "wins", "rate", "95% interval"], seat_rows(v)))
        console.print(escape(edge_line(v)), highlight=False)
        print_table(console, _table("Game length and scores",
                                    ["per game"] + list(LENGTH_COLUMNS), length_rows(v)))
        print_table(console, _table("How games end", ["end", "games", "rate", "95% interval"],
                                    end_rows(v)))
        print_table(console, _table("Move kinds", ["kind", "per game", "games using it",
                                                   "by the winner (fair %s)"
                                                   % pct(v["fair_share"])], kind_rows(v)))
        line = seed_effect_line(v)
        if line:
            console.print(escape(line), highlight=False)
        elif v["games"] and report["spec"]["seed_effect"] == 0:
            console.print("Seed effect: not measured (--seed-effect 0; the default for a "
                          "game without chance, where every seed deals the same game).",
                          highlight=False)


# ---------------------------------------------------------------- plots

def write_plots(report, out):
    """The PNG plots of a report in folder `out`; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    out = Path(out)
    variants = [v for v in report["variants"] if v["games"]]
    paths = []
    if not variants:
        return paths
    title = "%s, %s%s%s" % (report["spec"]["game"],
                            plural(max(v["games"] for v in variants), "game"),
                                  " per value" if len(variants) > 1 else "",
                                  "" if report["complete"] else " (partial)")

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, key, label in ((axes[0], "turns_histogram", "turns"),
                           (axes[1], "moves_histogram", "moves")):
        for v in variants:
            edges, counts = v[key]
            if counts:
                total = sum(counts)
                ax.stairs([c / total for c in counts], edges, label=v["label"])
        ax.set_xlabel("%s per game" % label)
        ax.set_ylabel("share of games")
        ax.legend(fontsize=8)
    fig.suptitle("Game length: " + title)
    paths.append(_save(fig, out / "lengths.png", plt))

    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(variants)
    for k, v in enumerate(variants):
        xs = [s["seat"] + (k - (len(variants) - 1) / 2) * width for s in v["seats"]]
        ys = [100 * s["rate"] for s in v["seats"]]
        err = [[100 * (s["rate"] - s["low"]) for s in v["seats"]],
               [100 * (s["high"] - s["rate"]) for s in v["seats"]]]
        ax.bar(xs, ys, width, yerr=err, capsize=3, label=v["label"])
    for v in variants:
        ax.axhline(100 * v["fair_share"], color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(range(max(v["players"] for v in variants)))
    ax.set_xticklabels(["seat %d" % p for p in range(max(v["players"] for v in variants))])
    ax.set_ylabel("wins, % of games (95% interval)")
    ax.set_title("Win rate by seat (dotted: fair share): " + title, fontsize=10)
    ax.legend(fontsize=8)
    paths.append(_save(fig, out / "win_rates.png", plt))

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, key, label in ((axes[0], "spread_histogram", "score spread (best - worst)"),
                           (axes[1], "margin_histogram", "margin of victory (best - second)")):
        for v in variants:
            edges, counts = v["scores"][key]
            if counts:
                total = sum(counts)
                ax.stairs([c / total for c in counts], edges, label=v["label"])
        ax.set_xlabel(label)
        ax.set_ylabel("share of games")
        ax.legend(fontsize=8)
    fig.suptitle("Scores: " + title)
    paths.append(_save(fig, out / "scores.png", plt))

    fig, ax = plt.subplots(figsize=(8, 0.6 * len(variants) + 1.6))
    reasons = []
    for v in variants:
        reasons += [e["reason"] for e in v["ends"] if e["reason"] not in reasons]
    left = [0.0] * len(variants)
    for reason in reasons:
        shares = [100 * next((e["rate"] for e in v["ends"] if e["reason"] == reason), 0.0)
                  for v in variants]
        ax.barh(range(len(variants)), shares, left=left, label=reason)
        left = [a + b for a, b in zip(left, shares)]
    ax.set_yticks(range(len(variants)))
    ax.set_yticklabels([v["label"] for v in variants], fontsize=8)
    ax.set_xlabel("% of games")
    ax.set_xlim(0, 100)
    ax.set_title("How games end: " + title, fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    paths.append(_save(fig, out / "ends.png", plt))
    return paths


def _save(fig, path, plt):
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ---------------------------------------------------------------- HTML

def _html_table(title, columns, rows):
    out = ["<h3>%s</h3><table><tr>" % html.escape(title)]
    out += ["<th>%s</th>" % html.escape(c) for c in columns]
    out.append("</tr>")
    for r in rows:
        out.append("<tr>" + "".join("<td>%s</td>" % html.escape(str(x)) for x in r) + "</tr>")
    out.append("</table>")
    return "".join(out)


def write_html(report, out, images):
    """report.html in `out`: one file, the plots inlined as data URIs."""
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s lab report</title>"
             "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
             "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;"
             "padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
             "img{max-width:100%%}code{background:#eee}</style></head><body>"
             % html.escape(report["spec"]["game"])]
    parts.append("<h1>%s lab report</h1>" % html.escape(report["spec"]["game"]))
    parts.append("<p>" + "<br>".join(html.escape(line) for line in header_lines(report)) + "</p>")
    # The verdict first, then the plots and the tables it comes from.
    parts.append("<h2>Verdict</h2><ul class='verdict'>%s</ul>" % "".join(
        "<li>%s</li>" % html.escape(line) for line in verdict_lines(report)))
    variants = report["variants"]
    if report["comparisons"]:
        parts.append(_html_table(
            "Side by side (same seeds; * significant at 5%, paired tests)",
            ["metric"] + [v["label"] for v in variants]
            + ["difference: %s" % c["variant"] for c in report["comparisons"]],
            compare_rows(report)))
    for path in images:
        data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
        parts.append("<p><img alt='%s' src='data:image/png;base64,%s'></p>"
                     % (html.escape(Path(path).stem), data))
    for v in variants:
        parts.append("<h2>%s</h2>" % html.escape(v["label"]))
        parts.append(_html_table("Win rate by seat, %s" % plural(v["games"], "game"),
                                 ["seat", "bot", "wins", "rate", "95% interval"], seat_rows(v)))
        parts.append(_html_table("Game length and scores", ["per game"] + list(LENGTH_COLUMNS),
                                 length_rows(v)))
        parts.append(_html_table("How games end", ["end", "games", "rate", "95% interval"],
                                 end_rows(v)))
        parts.append(_html_table("Move kinds", ["kind", "per game", "games using it",
                                                "by the winner"], kind_rows(v)))
        parts.append("<p>Options in full: <code>%s</code></p>" % html.escape(
            json.dumps(report["options_in_full"][variants.index(v)], sort_keys=True)))
    run = report["run"]
    parts.append("<p>Played by %s in %.1f s (%s games/s this session). Games file: %s.</p>"
                 % (html.escape(str(run["runner"])), run["seconds"],
                    run["games_per_second"], html.escape(report["games_file"])))
    parts.append("</body></html>\n")
    path = Path(out) / "report.html"
    path.write_text("".join(parts), encoding="utf-8")
    return path
