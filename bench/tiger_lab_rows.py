"""Markdown rows from `vora lab` reports (report.json): per variant, the share of games by
end reason and the length distribution in wars (turns).

    python bench/tiger_lab_rows.py LABEL DIR [LABEL DIR ...]

Used for the Tossing Tiger before/after table in docs/rules-decisions.md.
"""

import json
import os
import sys


def rows(label, folder):
    with open(os.path.join(folder, "report.json")) as f:
        report = json.load(f)
    spec = report["spec"]
    out = []
    for v in report["variants"]:
        ends = ", ".join("%s %.0f%%" % (e["reason"], 100 * e["rate"]) for e in v["ends"])
        t = v["turns"]
        edges, counts = v["turns_histogram"]
        one = counts[0] / float(sum(counts)) if counts and edges[:2] == [1, 2] else 0.0
        name = label if len(report["variants"]) == 1 else "%s %s" % (label, v["label"])
        out.append("| %s | %d | %s | %d | %s | %.1f | %g | %g | %d | %.0f%% |" % (
            name, spec["players"], ",".join(sorted(set(spec["bots"]))), t["n"], ends,
            t["mean"], t["median"], t["p95"], t["max"], 100 * one))
    return out


def main(argv):
    print("| run | players | bots | games | end reasons | wars mean | median | p95 | max "
          "| 1-war games |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, folder in zip(argv[0::2], argv[1::2]):
        for row in rows(label, folder):
            print(row)


if __name__ == "__main__":
    main(sys.argv[1:])
