"""The screen beside the virtual board, cut into pages when it does not fit.

Beside an 80x24 board the panel is some 26 columns by 14 rows. The first page keeps what a
player needs now (the turn and what to do, the last event, their scores and secrets, what
the keys choose) and cuts the rest; its last row then says so, and Tab (or `more` typed)
turns to the next pages, which show the turn again and then everything in the order
drawn, so that nothing cut is out of reach. A help text is paged too (`?` again or Tab),
each page ending at the end of a sentence where one is near, and nothing cut off.
"""

import re

__all__ = ["book", "fit_rows", "pages", "MORE"]

# What each key chooses, while a move is chosen key by key: its first rows count as much
# as the scores and secrets, its others less (Boars' 25 draws take 10 rows at 26 columns).
FIRST_ROWS = {"keys": (3, 1)}
MORE = "%s: more (%d/%d)"
LAST = "%s: page 1 (%d/%d)"
_SGR = re.compile("\x1b\\[[0-9;]*m")
_SENTENCE_END = (".", ":", ";", ")", "!", "?")


def _kept(parts, priorities, height):
    # How many first lines of each part fit in `height` rows, by priority.
    room = max(0, height)
    kept = [0] * len(parts)
    for i in sorted(range(len(parts)), key=lambda i: priorities[i]):
        kept[i] = min(len(parts[i]), room)
        room -= kept[i]
    return kept


def fit_rows(parts, priorities, height=None):
    """The lines of `parts` (lists of lines, in the order drawn) in at most `height`
    rows: the parts of lowest priority number get their rows first; a part that does not
    fit whole keeps its first lines."""
    if height is None:
        return [line for lines in parts for line in lines]
    kept = _kept(parts, priorities, height)
    return [line for i, lines in enumerate(parts) for line in lines[:kept[i]]]


def ends_sentence(line):
    """True when a line (ANSI colours allowed) ends a sentence or a clause."""
    text = _SGR.sub("", line).rstrip()
    return not text or text.endswith(_SENTENCE_END)


def pages(head, body, height, first=None, sentences=False, key="Tab"):
    """The pages of a panel `height` rows high, each a list of lines whose last says which
    page it is: `head` (the turn) atop every page, then `body` in windows. `first`, when
    given, is the first page's own lines (the most needed parts, fitted by priority),
    and the body's windows follow it. `sentences`: a page ends after the last line that
    ends a sentence, when there is one past the page's first third (else the page is full
    and its mark says the text goes on). `key`: the key the mark names. One page,
    unmarked, when everything fits."""
    if height is None or first is None and len(head) + len(body) <= height:
        return [head + body]
    head = head[:max(0, height - 2)]  # at least a row of body and the mark
    room = max(1, height - len(head) - 1)
    out = [first[:height - 1]] if first is not None else []
    i = 0
    while i < len(body):
        end = min(len(body), i + room)
        if sentences and end < len(body):
            for j in range(end, i + room // 3, -1):
                if ends_sentence(body[j - 1]):
                    end = j
                    break
        out.append(head + body[i:end])
        i = end
    n = len(out)
    return [page + ["\x1b[2m%s\x1b[0m" % ((MORE if k + 1 < n else LAST) % (key, k + 1, n))]
            for k, page in enumerate(out)]


def book(named, height):
    """The pages of the panel from its parts, [(name, priority, lines)] in the order drawn
    (vora_host.play.board_session.BoardGameCompanion): the game's picture holds the summary too,
    so the summary is drawn only when all does not fit, on the first page; a help (a part
    named "help") is paged under the turn and the last event, at the ends of sentences."""
    if height is None:
        return [[line for name, _, lines in named if name != "summary" for line in lines]]
    head = [line for name, _, lines in named if name == "turn" for line in lines]
    if any(name == "help" for name, _, _ in named):
        head += [line for name, _, lines in named if name in ("log", "event")
                 for line in lines]
        body = [line for name, _, lines in named if name == "help" for line in lines]
        return pages(head, body, height, sentences=True, key="? or Tab")
    whole = [lines for name, _, lines in named if name != "summary"]
    if sum(len(lines) for lines in whole) <= height:
        return [[line for lines in whole for line in lines]]
    # A part's first rows may count more than the rest (FIRST_ROWS): then it is fitted
    # as two pieces, one after the other.
    pieces = []  # (index of the part, priority, lines)
    for i, (name, priority, lines) in enumerate(named):
        rows, better = FIRST_ROWS.get(name, (0, priority))
        if rows and len(lines) > rows:
            pieces += [(i, better, lines[:rows]), (i, priority, lines[rows:])]
        else:
            pieces.append((i, better, lines))
    kept = _kept([lines for _, _, lines in pieces], [p for _, p, _ in pieces], height - 1)
    first = [line for (_, _, lines), n in zip(pieces, kept) for line in lines[:n]]
    # The next pages: every part the first cut, whole.
    cut = set(i for (i, _, lines), n in zip(pieces, kept) if n < len(lines))
    body = [line for i, (name, _, lines) in enumerate(named)
            if i in cut and name not in ("turn", "summary") for line in lines]
    return pages(head, body, height, first=first)
