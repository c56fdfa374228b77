"""The import graph points one way (issue 42).

The code lives in rooms: the rules, the firmware, the host's packages, the benchmarks and the
tools. LEVELS below puts them in order, bottom first, and says why each room sits where it
does; docs/architecture.md shows the same order to readers. Two rules hold:

- a room imports only rooms on lower levels, and itself (rooms on the same level do not
  import each other);
- within a room, no circle between files.

Every import statement of every file is read, those inside functions too (an import put off
until a function runs is still a dependency): a scan finds them outside strings and
comments, and Python's parser (ast) reads each. Each break is named with the file, the line
and the two rooms. Imports made from a computed name (importlib.import_module, __import__)
are not seen: vora_host.games.host_game loads a game's package that way, inside its own
room.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Where each import name's files are: (folder in the repository, the name it is imported as).
TREES = (("shared_rules", "shared_rules"), ("firmware/vora_fw", "vora_fw"),
         ("host/vora_host", "vora_host"), ("bench", "bench"), ("tools", "tools"))

# Folders of scripts, run as `python bench/x.py`: their files import each other by bare
# name (the script's folder is first on sys.path).
SCRIPT_FOLDERS = ("bench", "tools")

# The rooms, bottom first: {room: why it sits on this level}. A room of the host is a
# package or a module directly in vora_host/.
LEVELS = (
    {"shared_rules": "the rules and the link's codec, the same on the board and the PC: "
                     "pure modules that import nothing of ours but each other"},
    {"vora_fw": "the board's firmware on MicroPython: it runs the rules; the host reads its "
                "files (the layout, the updater, the boot path) to simulate, bundle and "
                "flash it, so it sits under the whole host"},
    {"vora_host": "the package itself: its version, nothing else"},
    {"vora_host.words": "plural and the lists of words every message uses",
     "vora_host.private_files": "files that hold a player's secrets, written 0600",
     "vora_host.argtypes": "the command line's value checks, from the rules' option specs",
     "vora_host.resources": "the files read at run time that live outside the packages",
     "vora_host.versions": "this vora's, its firmware's and the protocol's versions",
     "vora_host.howto": "each game's how-to-play text, by the rules' registry",
     "vora_host.openspiel_adapter": "the rules as OpenSpiel games, for its algorithms",
     "vora_host.pools": "ending a pool of worker processes (the lab's and the review's)",
     "vora_host.hang_up": "the terminal closing stops a program as Ctrl-C does",
     "vora_host.wakeable": "a sleep something else ends early (the virtual board's pace, "
                           "the mirror's follower)",
     "vora_host.ansi": "rich renderables as ANSI lines for the virtual board's screen and "
                       "the mirror, each text drawn once a width"},
    {"vora_host.games": "each game's place on the host: its terminal view, its 7x7 mapping "
                        "and the seats' colours, its own bots (on games.bot.Bot); it needs "
                        "only the rules and words, and every room above draws through it"},
    {"vora_host.bots": "the generic bots, the levels and hints, and the registry that "
                       "gathers each game's own bots (vora_host.games.<module>.BOTS): "
                       "above the games it gathers"},
    {"vora_host.log": "the game log: stores, replays and shows any game through the rules "
                      "and the games' views; it knows nothing of who plays or how"},
    {"vora_host.link": "the serial link to a board and the mirror: it follows the board's "
                       "game, logs it (log) and names the board's bot levels (bots); what "
                       "plays beside the mirror is handed to it from above",
     "vora_host.review": "reviews of finished games: the bots' search over a logged game, "
                         "kept in the log (the log keeps them, the bots search them)"},
    {"vora_host.table": "a game being played, the referee: the state, the seats, the log's "
                        "writes, the hints; every way of playing is its client, so play, "
                        "the board over the link and the browser seats meet here"},
    {"vora_host.play": "the ways of playing on the PC: the typed terminal, the board as "
                       "screen and keypad over the link, the PC's bots beside a board: "
                       "clients of the table"},
    {"vora_host.web": "the web mirror and the browser seats: pages of logged games, and "
                      "seats of a table; it shows moves in play's order",
     "vora_host.virtual": "the virtual board: the firmware behind a pty, drawn beside the "
                          "mirror or the game that play runs on it",
     "vora_host.remote": "a seat of a table on another computer's vora serve, played from "
                         "here through the seat API (vora play --join)"},
    {"vora_host.maker": "the makers' tools over the link: bundle, flash, update, doctor",
     "vora_host.lab": "the balance lab: many games between bots, and their report"},
    {"vora_host.cli": "the vora command: each command wires the rooms below together"},
    {"vora_host.__main__": "python -m vora_host runs the command"},
    {"bench": "benchmarks: they drive any room, the command line included",
     "tools": "the project's tools (the board's files, screenshots): they drive the rooms "
              "below as a user would"},
)

# Imports within a room left out of the circle check on purpose, each with its reason; an
# import listed here that is gone fails (so that the list never holds more than it must).
ALLOWED_BACK = {
    ("shared_rules.vora", "shared_rules.vora_position"):
        "on the board vora.py loads its position notation (some 3 KB of heap) only when a "
        "position is first written or read (VoraState.position, from_position, new_game's "
        "position=), and the notation builds a VoraState from vora's names",
    ("shared_rules.vora", "shared_rules.vora_tables"):
        "on CPython vora.py takes its move tables (about 40 KB, never on the board) at its "
        "end, built from vora's names. Untying either pair means a third module, below "
        "both, for what they share: every board would hold it (some 500 bytes of heap for "
        "a module of a few names, measured on the Unix port) or vora.py would grow with "
        "the notation's assembly, on a heap whose budget is not met already",
}


def modules(trees=TREES, root=ROOT):
    """{import name: path} of every .py file under the trees."""
    out = {}
    for folder, name in trees:
        base = root / folder
        for path in sorted(base.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(base).with_suffix("")
            parts = [name] + list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def room_of(module):
    """The room a module belongs to: its top package, or vora_host's package or module."""
    parts = module.split(".")
    if parts[0] == "vora_host" and len(parts) > 1:
        return "vora_host." + parts[1]
    return parts[0]


def _known(name, known):
    # The longest leading part of a dotted name that is one of our modules.
    parts = name.split(".")
    while parts:
        if ".".join(parts) in known:
            return ".".join(parts)
        parts.pop()
    return None


# Strings and comments, found so that an import written in a docstring or a comment is
# not taken for one: the scan below blanks them (keeping their newlines, so lines stay).
_NOT_CODE = re.compile(r'''
    (?=['"])
    (?: \'\'\'[^\'\\]*(?:(?:\\.|\'(?!\'\'))[^\'\\]*)*\'\'\'
      | """[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""
      | \'[^\'\\\n]*(?:\\.[^\'\\\n]*)*\'
      | "[^"\\\n]*(?:\\.[^"\\\n]*)*" )
  | \#[^\n]*
''', re.VERBOSE)
# An import statement in what is left: `import` is a keyword, so outside strings and comments
# it starts or ends one. Its text (parentheses and continued lines included) is then read
# by ast.
_STATEMENT = re.compile(r'''
    \bfrom[ \t]+\.*[\w.]*[ \t]+import[ \t]*(?:\([^)]*\)|(?:[^\n;\\]|\\\n)*)
  | \bimport[ \t]+(?:[^\n;\\]|\\\n)*
''', re.VERBOSE)


def import_statements(text):
    """[(line, ast.Import or ast.ImportFrom)] of every import statement of a module's text,
    those inside functions included. Reading the statements alone is some ten times faster
    than ast.parse of whole files (2 MB of them here), which keeps this test under two
    seconds; test_the_scan_finds_what_a_whole_ast_finds holds the two the same."""
    code = _NOT_CODE.sub(lambda m: " " + "\n" * m.group(0).count("\n"), text)
    out = []
    line, seen = 1, 0
    for m in _STATEMENT.finditer(code):
        line += code.count("\n", seen, m.start())
        seen = m.start()
        node = ast.parse(m.group(0).replace("\\\n", " ")).body[0]
        out.append((line, node))
    return out


_SCANNED = {}


def _statements_of(path):
    # Each file is scanned once per run (the tests below plant imports in copies of a few).
    stat = Path(path).stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _SCANNED:
        _SCANNED[key] = import_statements(Path(path).read_text(encoding="utf-8"))
    return _SCANNED[key]


def imports(module, path, known):
    """[(line, imported module)] of every import of one file that names one of `known`."""
    package = module if Path(path).name == "__init__.py" else module.rpartition(".")[0]
    scripts = module.split(".")[0] in SCRIPT_FOLDERS
    out = []

    def add(line, name):
        if scripts and name.split(".")[0] not in known:
            name = module.split(".")[0] + "." + name  # a sibling script by its bare name
        target = _known(name, known)
        if target is not None and target != module and (line, target) not in out:
            out.append((line, target))

    for line, node in _statements_of(path):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(line, alias.name)
            continue
        if node.level:
            base = package.split(".")
            base = base[:len(base) - node.level + 1]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module
        for alias in node.names:
            # `from package import submodule` takes the submodule; anything else is taken
            # from the module named.
            whole = (source + "." if source else "") + alias.name
            if scripts and source.split(".")[0] not in known:
                whole = module.split(".")[0] + "." + whole
            add(line, whole if whole in known else source)
    return out


def graph(paths):
    """{module: [(line, imported module)]} for {module: path}."""
    known = set(paths)
    return {m: imports(m, p, known) for m, p in paths.items()}


def circles(edges):
    """The groups of two or more modules that import each other round (Tarjan's strongly
    connected components), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # Iterative depth-first search: deep chains must not hit Python's recursion limit.
        work = [(v, iter(sorted({t for _, t in edges[v]})))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted({t for _, t in edges[child]}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    group.append(w)
                    if w == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def _rel(path):
    # A path as the messages give it: from the repository's root when it is in it.
    path = Path(path)
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _where(path, line):
    return "%s:%d" % (_rel(path), line)


def problems(paths, levels=LEVELS, allowed=ALLOWED_BACK):
    """What breaks the rules, one sentence each: rooms not in the order, upward (or
    sideways) imports between rooms, circles between files."""
    level = {}
    for n, rooms in enumerate(levels):
        for room in rooms:
            level[room] = n
    edges = graph(paths)
    out = []
    for room in sorted({room_of(m) for m in paths} - set(level)):
        out.append("room %s (%s) has no place in the order: add it to LEVELS in "
                   "tests/test_import_graph.py, saying why it sits there, and to "
                   "docs/architecture.md" % (room, ", ".join(
                       _rel(paths[m]) for m in sorted(paths) if room_of(m) == room)))
    for module in sorted(edges):
        here = room_of(module)
        for line, target in edges[module]:
            there = room_of(target)
            if here == there or here not in level or there not in level:
                continue
            if level[there] >= level[here]:
                out.append("%s imports %s: room %s (level %d) imports room %s (level %d), "
                           "%s" % (_where(paths[module], line), target, here, level[here],
                                   there, level[there], "on the same level"
                                   if level[there] == level[here] else "above it"))
    for (module, target) in sorted(allowed):
        if module in edges and all(t != target for _, t in edges[module]):
            out.append("%s no longer imports %s: take the pair out of ALLOWED_BACK in "
                       "tests/test_import_graph.py" % (module, target))
    edges = {m: [(line, t) for line, t in e if (m, t) not in allowed]
             for m, e in edges.items()}
    for group in circles(edges):
        inside = set(group)
        links = ["%s imports %s" % (_where(paths[m], line), t)
                 for m in group for line, t in edges[m] if t in inside]
        out.append("a circle between files: %s (%s)" % (" <-> ".join(group),
                                                       "; ".join(links)))
    return out


# ---------------------------------------------------------------- the tests


def test_every_room_imports_only_rooms_below_it_and_no_files_import_each_other_round():
    found = problems(modules())
    assert not found, "\n".join(found)


def _level(room):
    return next(n for n, rooms in enumerate(LEVELS) if room in rooms)


def _planted(tmp_path, module, rel, line):
    """The real tree with `rel`'s file copied into tmp_path and `line` added at its end."""
    paths = modules()
    copy = tmp_path / rel
    copy.parent.mkdir(parents=True, exist_ok=True)
    text = (ROOT / rel).read_text(encoding="utf-8")
    copy.write_text(text + "\n" + line + "\n", encoding="utf-8")
    paths[module] = copy
    return paths, len((text + "\n").splitlines()) + 1, str(copy)


def test_an_upward_import_planted_in_a_real_file_is_named_with_its_line_and_rooms(tmp_path):
    # The games sit under play: games/base.py taking the key pad from play/board_keys.py is
    # the kind of import that tied five files in a circle before issue 42.
    paths, line, copy = _planted(tmp_path, "vora_host.games.base", "host/vora_host/games/base.py",
                                 "from vora_host.play.board_keys import KeyPad  # noqa")
    found = problems(paths)
    assert any(p.startswith("%s:%d imports vora_host.play.board_keys: room vora_host.games "
                            "(level %d) imports room vora_host.play (level %d), above it"
                            % (copy, line, _level("vora_host.games"), _level("vora_host.play")))
               for p in found), found
    # It closes a circle too: play/board_keys.py imports games/base.py.
    assert any(p.startswith("a circle between files: ") and "vora_host.games.base" in p
               and "vora_host.play.board_keys" in p for p in found), found


def test_an_import_between_rooms_on_one_level_and_an_import_inside_a_function_count(tmp_path):
    paths, line, copy = _planted(tmp_path, "vora_host.web.app", "host/vora_host/web/app.py",
                                 "def _later():\n    from vora_host.virtual import board")
    found = problems(paths)
    assert _level("vora_host.web") == _level("vora_host.virtual")
    assert ["%s:%d imports vora_host.virtual.board: room vora_host.web (level %d) imports "
            "room vora_host.virtual (level %d), on the same level"
            % (copy, line + 1, _level("vora_host.web"), _level("vora_host.web"))] == found


def test_a_circle_inside_a_room_is_named_with_its_files_and_lines(tmp_path):
    paths, line, copy = _planted(tmp_path, "shared_rules.prng", "shared_rules/prng.py",
                                 "from shared_rules import vora  # noqa")
    found = problems(paths)
    circle = [p for p in found if p.startswith("a circle between files: ")]
    assert len(circle) == 1 and "shared_rules.prng <-> shared_rules.vora" in circle[0], found
    assert "%s:%d imports shared_rules.vora" % (copy, line) in circle[0]
    assert "shared_rules/vora.py:" in circle[0] and "imports shared_rules.prng" in circle[0]


def test_a_new_room_must_be_given_its_place(tmp_path):
    paths = modules()
    stray = tmp_path / "host/vora_host/hints.py"
    stray.parent.mkdir(parents=True)
    stray.write_text("from vora_host import words\n", encoding="utf-8")
    paths["vora_host.hints"] = stray
    found = problems(paths)
    assert len(found) == 1 and found[0].startswith(
        "room vora_host.hints (%s) has no place in the order" % stray), found


TRICKY = '''"""A docstring that shows an import:

    from shared_rules import vora
"""
import os, json as j  # import sys
x = "import re"; import gc
y = \'from a import b\' if x else r"\\\\" + "\\"" + \'\'\'
import fake
\'\'\'
if x: import math


def f():
    from . import (one,  # from two import three
                   four as five)
    from .. import six
    from .seven.eight import \\
        nine
    return f"{x!r} import {y}"
'''


@pytest.mark.parametrize("rel", ["<tricky>", "bench/mp_module_heap.py", "shared_rules/vora.py",
                                 "firmware/vora_fw/start.py", "tools"])
def test_the_scan_finds_what_a_whole_ast_finds(rel):
    if rel == "<tricky>":
        text = TRICKY
    elif (ROOT / rel).is_dir():  # the files of a folder, one after the other
        text = "\n".join(p.read_text(encoding="utf-8")
                         for p in sorted((ROOT / rel).glob("*.py")))
    else:
        text = (ROOT / rel).read_text(encoding="utf-8")

    def seen(pairs):
        return sorted((line, type(n).__name__, getattr(n, "module", None),
                       getattr(n, "level", 0), [(a.name, a.asname) for a in n.names])
                      for line, n in pairs)
    whole = [(n.lineno, n) for n in ast.walk(ast.parse(text))
             if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert seen(import_statements(text)) == seen(whole)
    assert whole  # every one of them has imports to find


@pytest.mark.parametrize("source, expected", [
    ("from . import sibling", ["pkg.sibling"]),
    ("from .sibling import name", ["pkg.sibling"]),
    ("from .. import top", ["top"]),
    ("import pkg.sibling as s", ["pkg.sibling"]),
    ("from pkg import name_in_init", ["pkg"]),
    ("import os, json", []),
])
def test_the_walk_reads_each_kind_of_import(tmp_path, source, expected):
    (tmp_path / "top.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg/sibling.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg/me.py").write_text(source + "\n", encoding="utf-8")
    known = {"top", "pkg", "pkg.sibling", "pkg.me"}
    assert [t for _, t in imports("pkg.me", tmp_path / "pkg/me.py", known)] == expected


def test_docs_architecture_shows_the_rooms_in_this_order():
    text = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    text = text.split("\n## The rooms, bottom first\n", 1)[1].split("\n## ", 1)[0]
    where = []
    for rooms in LEVELS:
        for room in rooms:
            shown = "`%s`" % room
            assert shown in text, "docs/architecture.md does not name the room %s" % room
            where.append((text.index(shown), room))
    assert [r for _, r in sorted(where)] == [r for rooms in LEVELS for r in rooms]
