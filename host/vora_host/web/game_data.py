"""What the web mirror may show of a logged game, built from the log's public API alone
(`GameLog.games`, `GameLog.game`, `verify.replay_steps`, `formats`), so that it works on
whatever backend the log has.

Hidden information (docs/secrets.md). A game of Boars or Tossing Tiger that may still go
on (status playing or interrupted: `formats.full_record_allowed` says no) is shown as a
spectator sees it, as `vora games show` does by default: no seed, no digests, each move
as the rules revealed it to the others (`formats.public_move_text`), every position
drawn for viewer None (the terminal view's `render`, the board's `frame` and
`key_marks`, all drawn from `state.view(None)`), scores only once the position is over.
Once the game can no longer go on (over, abandoned) everything may be seen: the seed, the
moves as played, the digests, and any player's own view (`viewer`). Games without hidden
information are always shown whole.

A position is replayed from the record, never read from anywhere else, and every move's
logged digest is compared with the replay's on the way (in public mode only whether they
match is said, not the digests). Replays are cached per game (a live game's new moves
extend its replay), with a copy of the state every CHECKPOINT moves, so stepping through
a long game costs at most CHECKPOINT moves of replay per position; drawn positions are
cached too, so many spectators of a game cost one drawing. Within drawings, the Texts
rich lays out are kept by everything their layout depends on (TextSegments), so the
board's grid of a position is laid out once for both seats' panels and the game page.
"""

import functools
import io
import json
import re
import threading
from collections import OrderedDict

from rich.cells import cell_len
from rich.console import Console, Group
from rich.text import Text

from shared_rules import games
from shared_rules.errors import BadPosition, IllegalMove

from vora_host import games as host_games
from vora_host.ansi import text_key
from vora_host.log import formats
from vora_host.log.cli_views import game_view
from vora_host.log.records import game_title
from vora_host.log.verify import player_label, record_of

__all__ = ["BadRequest", "NotFound", "Forbidden", "parse_game_id", "parse_move_number", "parse_viewer",
           "is_public", "summary", "summaries", "parse_limit", "Replay", "ReplayCache", "position",
           "game_page_data", "PANEL_WIDTH", "CHECKPOINT", "review_refusal", "review_data",
           "REVIEW_MOVE_KEYS", "TextSegments", "TEXT_SEGMENTS", "render_html",
           "render_html_and_text", "render_text"]

PANEL_WIDTH = 100  # columns of the terminal drawing beside the board
CHECKPOINT = 16  # a copy of the replayed state every this many moves
MAX_ID_DIGITS = 18
MAX_LIST = 100000  # games in one answer of /api/games at most
_ID_RE = re.compile(r"[0-9]{1,%d}" % MAX_ID_DIGITS)
_NUMBER_RE = re.compile(r"[0-9]{1,7}")


class BadRequest(ValueError):
    """A request the server cannot make sense of (HTTP 400), in words."""


class NotFound(LookupError):
    """Something the request names that is not there (HTTP 404), in words."""


class Forbidden(PermissionError):
    """Something that may not be shown now (HTTP 403): a secret of a game still going on."""


def _shown(text, limit=40):
    text = str(text)
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


def parse_game_id(text):
    """A game id from a URL: ASCII digits, from 1 (as `vora games` reads them)."""
    if not _ID_RE.fullmatch(text or ""):
        raise BadRequest("%s is not a game id (a whole number from 1, as 'vora games list' "
                         "shows them)" % _shown(text))
    gid = int(text)
    if gid < 1:
        raise BadRequest("game ids start at 1, not %s" % _shown(text))
    return gid


def parse_move_number(text):
    """A position's move number from a URL: digits (0 is the start), or "latest"."""
    if text == "latest":
        return None
    if not _NUMBER_RE.fullmatch(text or ""):
        raise BadRequest("%s is not a move number (0 for the start, 1 after the first move, "
                         "..., or 'latest')" % _shown(text))
    return int(text)


def parse_viewer(text, players):
    """Whose view to draw: None (a spectator: "", "spectator") or a player number."""
    if text in (None, "", "spectator"):
        return None
    if not _NUMBER_RE.fullmatch(text) or int(text) >= players:
        raise BadRequest("viewer %s is neither 'spectator' nor a player of this game (0 to "
                         "%d)" % (_shown(text), players - 1))
    return int(text)


def is_public(info):
    """Whether the game is shown as a spectator sees it (its secrets kept)."""
    return not formats.full_record_allowed(info)


# ---------------------------------------------------------------- the list

def summary(info):
    """A game of `GameLog.games()` (or `game()`) as the list may show it: its seed (a
    string of digits), the scores of a hidden game in progress and the notes of a game
    needing attention (they may quote moves) only when the game is shown whole."""
    public = is_public(info)
    result = info["result"]
    if result and public and not result.get("over"):
        result = {"over": False, "end": result.get("end")}
    return {
        "id": info["id"], "game": info["game"], "title": game_title(info["game"]),
        "players": info["players"], "status": info["status"],
        "live": info["status"] == "playing", "moves": info["move_count"],
        "taken_back": info["taken_back"], "started_at": info["started_at"],
        "ended_at": info["ended_at"], "source": info["source"],
        "imported": info["imported_at"] is not None, "result": result,
        # A string: Boars' and Tossing Tiger's seeds go to 2**64 - 1, which a browser's
        # JSON numbers (doubles) would round (12424427912528688913 read as ...690000).
        "seed": None if public or info["seed"] is None else str(info["seed"]),
        "public": public,
        "attention": bool(info.get("attention")),
        "attention_notes": None if public or not info.get("attention")
        else info["attention"].split("\n"),
    }


def parse_limit(text):
    """How many games the list shows besides the live ones: digits, 1 to MAX_LIST."""
    if text is None:
        return None
    if not _NUMBER_RE.fullmatch(text) or not 1 <= int(text) <= MAX_LIST:
        raise BadRequest("limit %s is not a number of games from 1 to %d"
                         % (_shown(text), MAX_LIST))
    return int(text)


def summaries(log, limit=None):
    """(games, complete): the games of the log as the list shows them, live ones first
    (all of them), then the newest others (at most `limit` of them); complete says
    whether every game is there."""
    if limit is None:
        rows = [summary(info) for info in log.games()]
        complete = True
    else:
        live = log.games(status="playing")
        others = [g for g in log.games(limit=limit + len(live) + 1)
                  if g["status"] != "playing"]
        complete = len(others) <= limit
        rows = [summary(info) for info in live + others[:limit]]
    rows.sort(key=lambda s: (not s["live"], -s["id"]))
    return rows, complete


# ---------------------------------------------------------------- replay

def _setup_key(info):
    return json.dumps([info["game"], info["players"], info["seed"], info["options"]],
                      sort_keys=True)


def _live_moves(info):
    return [(m["move"], m["digest"]) for m in info["moves"]]


class Replay:
    """A logged game's live moves replayed once: for each move the player who made it,
    its text as played and as a spectator saw it, whether the logged digest matches;
    copies of the state every CHECKPOINT moves. `problem` says why the replay stopped
    early (the game cannot be set up, an illegal move), `playable` how many moves
    replayed. A live game's new moves extend it (`extend`) instead of replaying all."""

    def __init__(self, info):
        self.setup = _setup_key(info)
        self.game = info["game"]
        self.logged = []  # [(move, digest)] of the live moves replayed (or tried)
        self.total = 0
        self.moves = []  # [{"number", "player", "move", "public", "digest_ok", "logged", "replayed"}]
        self.checkpoints = {}
        self.problem = None  # (kind, number or None, message, public message)
        self.playable = 0
        self._state = None  # the state after the last move replayed
        record, _ = record_of(info)
        try:
            self._module = games.load(self.game)
            self._state = games.start(record)
        except BadPosition as exc:
            self.problem = ("setup", None, "the game cannot be set up: %s" % exc,
                            "the game cannot be set up")
            return
        self.checkpoints[0] = self._state.clone()
        self._play(_live_moves(info))

    def fits(self, info):
        """Whether this replay is `info`'s, or its beginning (a live game moved on)."""
        logged = _live_moves(info)
        return self.setup == _setup_key(info) and len(logged) >= len(self.logged) \
            and logged[:len(self.logged)] == self.logged

    def extend(self, info):
        """Replay the moves `info` has beyond this replay's (fits(info) must hold)."""
        self._play(_live_moves(info)[len(self.logged):])

    def _play(self, logged):
        for move, digest in logged:
            self.logged.append((move, digest))
            self.total += 1
            k = self.total
            if self.problem is not None:
                continue  # nothing after a move that does not replay is played
            state = self._state
            player = state.to_act()
            # The public text needs the position before the move.
            before = state.clone() if self._module.HIDDEN_INFORMATION else state
            try:
                state.play(move)
            except IllegalMove as exc:
                self.problem = ("illegal", k, "move %d (%s): the logged move %r is illegal: %s"
                                % (k, player_label(player), move, exc.reason),
                                "move %d (%s) does not replay" % (k, player_label(player)))
                continue
            public = formats.public_move_text(self._module, before, move)
            replayed = state.digest()
            self.moves.append({"number": k, "player": player, "move": move, "public": public,
                               "digest_ok": digest == replayed, "logged": digest,
                               "replayed": replayed})
            self.playable = k
            if k % CHECKPOINT == 0:
                self.checkpoints[k] = state.clone()

    @property
    def setup_failed(self):
        return self.problem is not None and self.problem[0] == "setup"

    def state_at(self, n):
        """A fresh state after the first n moves (0 <= n <= playable)."""
        base = n - n % CHECKPOINT
        state = self.checkpoints[base].clone()
        for k in range(base, n):
            state.play(self.moves[k]["move"])
        return state


class ReplayCache:
    """The replays of the games asked for lately (a live game's extended move by move),
    and the positions drawn lately (many spectators of one game cost one drawing).

    The games being played are all kept (`live` at most): each new move of each is drawn
    for its spectators, and a replay let go is a replay from the first move again (with
    16 kept, a server of 50 tables replayed every game at every move, issue 39). The
    others (over, abandoned: pages travelling in time), `size` at most."""

    def __init__(self, size=16, positions=256, live=1024):
        self.size = size
        self.live_size = live
        self.positions_size = positions
        self._items = OrderedDict()  # id -> Replay, games not being played
        self._live = OrderedDict()  # id -> Replay, games being played
        self._positions = OrderedDict()
        self._lock = threading.Lock()

    def get(self, info):
        key = info["id"]
        playing = info["status"] == "playing"
        pool, other = (self._live, self._items) if playing else (self._items, self._live)
        with self._lock:
            replay = pool.get(key)
            if replay is None:
                replay = other.pop(key, None)  # the game started or stopped being played
            if replay is not None and replay.fits(info):
                if len(replay.logged) < info["move_count"]:
                    replay.extend(info)
                self._keep(pool, key, replay, playing)
                return replay
        replay = Replay(info)
        with self._lock:
            self._keep(pool, key, replay, playing)
        return replay

    def _keep(self, pool, key, replay, playing):
        pool[key] = replay
        pool.move_to_end(key)
        while len(pool) > (self.live_size if playing else self.size):
            pool.popitem(last=False)

    def position(self, info, n, viewer):
        """`position(info, replay, n, viewer)`, drawn once per game state and request."""
        replay = self.get(info)
        n = replay.playable if n is None else n
        key = (info["id"], replay.setup, tuple(replay.logged), info["status"], n, viewer)
        with self._lock:
            data = self._positions.get(key)
        if data is None:
            data = position(info, replay, n, viewer)
            with self._lock:
                self._positions[key] = data
                while len(self._positions) > self.positions_size:
                    self._positions.popitem(last=False)
        return data


# ---------------------------------------------------------------- drawing

def _hex(rgb):
    return _hex_of(tuple(rgb))


@functools.lru_cache(maxsize=4096)
def _hex_of(rgb):
    # (A board's few colours, asked for 49 times a drawing: each worked out once.)
    return "#%02x%02x%02x" % tuple(max(0, min(255, int(c))) for c in rgb)


def _ink(rgb):
    return _ink_of(tuple(rgb))


@functools.lru_cache(maxsize=4096)
def _ink_of(rgb):
    # Black or white letters, whichever reads better on the key's colour.
    r, g, b = rgb
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def _style_colours(style):
    # "bold #000000 on #cc79a7" -> ("#000000", "#cc79a7")
    words = style.split()
    fg = next((w for w in words[:words.index("on")] if w.startswith("#")), "#ffffff") \
        if "on" in words else "#ffffff"
    bg = words[words.index("on") + 1] if "on" in words else "#202020"
    return fg, bg


def _vora_board(state):
    from shared_rules import vora
    from vora_host.games.vora import view as vora_view
    from vora_host.games.base import SEAT_RGB
    rows = []
    for row in vora_view.frame_keys(state):
        out = []
        for key in row:
            if key.kind == "cube":
                fg, bg = _style_colours(vora_view.CUBE_STYLES[key.cube])
                label = "[%s]" % key.label if key.mark else key.label
                out.append({"bg": bg, "fg": fg, "label": label, "name": key.name,
                            "mark": key.mark})
            elif key.kind == "gap":
                out.append({"bg": "#101010", "fg": "#777777", "label": "\u00b7",
                            "name": key.name, "mark": False})
            elif key.kind == "edge":
                out.append({"bg": "#1c2a30", "fg": "#7fb8c8", "label": key.label,
                            "name": key.name, "mark": False})
            elif key.player is not None:
                rgb = SEAT_RGB[state.seats[key.player]]
                out.append({"bg": _hex(rgb), "fg": _ink(rgb), "label": key.label, "name": "",
                            "mark": key.mark})
            else:
                out.append({"bg": "#000000", "fg": "#ffffff", "label": "", "name": "",
                            "mark": False})
        rows.append(out)
    legend = []
    for t, name in enumerate(vora.TYPES):
        fg, bg = _style_colours(vora_view.CUBE_STYLES[t])
        legend.append({"bg": bg, "fg": fg, "text": "%s %s" % (vora.LETTERS[t], name)})
    legend.append({"bg": "#101010", "fg": "#ffffff",
                   "text": "[X]: a cube the player to act may collect"})
    return rows, legend


def _mapped_board(mapping, state, viewer):
    frame = mapping.frame(state, viewer, 0)
    marks = mapping.key_marks(state, viewer, ())
    rows = []
    for y in range(6, -1, -1):  # the north edge on top, as the board lies before South
        out = []
        for x in range(7):
            k = y * 7 + x
            rgb = frame[k]
            out.append({"bg": _hex(rgb), "fg": _ink(rgb), "label": marks.get(k, ""),
                        "name": "%s%d" % ("abcdefg"[x], y + 1), "mark": False})
        rows.append(out)
    legend = [{"bg": _hex(rgb), "fg": _ink(rgb), "text": words}
              for rgb, words in mapping.legend(state)]
    return rows, legend


def board_of(name, state, viewer):
    """(rows, legend): the 7x7 keys north to south, each {bg, fg, label, name, mark}, as
    the board shows them to `viewer`, and the game's legend of the colours."""
    if name == "vora":
        return _vora_board(state)
    try:
        mapping = getattr(host_games.host_game(name), "BOARD", None)
    except ImportError:
        mapping = None  # a game of the registry whose host package is not written yet
    if mapping is None:
        return [], []
    return _mapped_board(mapping, state, viewer)


class TextSegments:
    """The segments rich drew lately for Text objects in a drawing's groups, by everything
    that decides them, so that a Text drawn again (the board's grid in both seats' panels
    of a position, a game's legend in every panel) is not laid out again (issue 39: rich's
    layout of Text was most of a drawing's cost, docs/benchmarks.md).

    A Text's segments are a function of its characters, spans, style, justify, overflow,
    no_wrap, end and tab size, and of the options it is drawn with (the width, justify,
    overflow, no_wrap) and the console's tab size and theme (the default theme in every
    console of this module): all of them are the key (the width only where a line does
    not fit in it, or the Text is justified), so a hit gives exactly the segments
    drawing it would give (tests/test_web.py compares every panel byte for byte with
    rich's own drawing), and what one viewer is shown can be served to another only
    where the very same text is drawn for both. `drawn` counts the Texts laid out,
    `reused` those taken from here."""

    def __init__(self, size=256):
        self.size = size
        self._items = OrderedDict()
        self._lock = threading.Lock()
        self.drawn = 0
        self.reused = 0

    def segments(self, text, console, options):
        plain = text.plain
        width = options.max_width
        if (text.justify or options.justify or "default") == "default" \
                and "\t" not in plain and max(map(cell_len, plain.split("\n"))) <= width:
            # Every line fits and none is justified: rich neither breaks, crops nor pads
            # any of them, and the width changes nothing (the game page's 100 columns
            # take what a seat's 72 drew).
            width = None
        key = text_key(text) + (console.tab_size, width, options.justify, options.overflow,
                                options.no_wrap)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                self.reused += 1
                return found
        found = tuple(console.render(text, options))
        with self._lock:
            self.drawn += 1
            self._items[key] = found
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return found


TEXT_SEGMENTS = TextSegments()


class _KeptText:
    """A Text of a drawing's group, drawn through TEXT_SEGMENTS."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __rich_console__(self, console, options):
        return TEXT_SEGMENTS.segments(self.text, console, options)


def _kept(renderable):
    # The Texts of a drawing's groups (a Group draws each of its renderables with the
    # options it was given, so nothing else changes) are drawn through TEXT_SEGMENTS;
    # everything else (tables, panels, a Text printed alone, which print() joins with its
    # end) is drawn by rich as it is.
    if type(renderable) is not Group:
        return renderable
    return Group(*[_KeptText(r) if type(r) is Text else _kept(r)
                   for r in renderable.renderables], fit=renderable.fit)


def _printed(renderable, width, colours):
    if colours:
        console = Console(record=True, width=width, file=io.StringIO(),
                          color_system="truecolor", force_terminal=True, legacy_windows=False)
    else:
        console = Console(record=True, width=width, file=io.StringIO(), color_system=None,
                          force_terminal=False, legacy_windows=False)
    console.print(_kept(renderable) if width >= 1 else renderable)
    return console


def render_html(renderable, width=PANEL_WIDTH):
    """A rich renderable as HTML (spans with inline colours, text escaped), exactly as a
    true-colour terminal of `width` columns draws it."""
    console = _printed(renderable, width, True)
    return console.export_html(inline_styles=True, code_format="{code}")


def render_html_and_text(renderable, width=PANEL_WIDTH):
    """render_html() and render_text() of the same drawing, drawn once: (html, text)."""
    console = _printed(renderable, width, True)
    text = console.export_text(clear=False, styles=False)
    return console.export_html(inline_styles=True, code_format="{code}"), text


def render_text(renderable, width=PANEL_WIDTH):
    """The same drawing as plain text (no colours, no escape sequences): for a client that
    prints it in a terminal (vora play --join), where text from the network must not
    carry a terminal's control sequences."""
    return _printed(renderable, width, False).export_text(styles=False)


# ---------------------------------------------------------------- a position

def position(info, replay, n=None, viewer=None):
    """Everything the game page draws of the position after move `n` (None: the latest
    that replays) of the game `info` (GameLog.game), seen by `viewer` (None: a
    spectator; a player only once the game may be shown whole)."""
    public = is_public(info)
    if viewer is not None and public:
        raise Forbidden("game %d is still %s: a player's own view of a %s game is shown only "
                        "once the game is over or abandoned" % (info["id"], info["status"],
                                                                game_title(info["game"])))
    if replay.setup_failed:
        raise NotFound("game %d cannot be drawn: %s" % (
            info["id"], replay.problem[3] if public else replay.problem[2]))
    if n is None:
        n = replay.playable
    if n > replay.total:
        raise NotFound("game %d has %d move%s: its positions are 0 to %d, not %d"
                       % (info["id"], replay.total, "" if replay.total == 1 else "s",
                          replay.total, n))
    if n > replay.playable:
        raise NotFound("game %d: move %d cannot be drawn, %s" % (
            info["id"], n, replay.problem[3] if public else replay.problem[2]))
    state = replay.state_at(n)
    view = game_view(info["game"])
    shown = [(m["player"], m["public"] if public else m["move"])
             for m in replay.moves[:n] if m["player"] is not None]
    rows, legend = board_of(info["game"], state, viewer)
    over = state.is_over()
    scores_shown = over or not public
    players = len(state.scores())
    data = {
        "id": info["id"], "game": info["game"], "title": game_title(info["game"]),
        "number": n, "total": replay.total, "playable": replay.playable,
        "status": info["status"], "public": public, "viewer": viewer,
        "seats": [view.seat_label(state, p) for p in range(players)],
        "to_act": state.to_act(), "prompt": None if over else view.prompt(state),
        "over": over, "scores": state.scores() if scores_shown else None,
        "end": view.end_reason(state) if over else None,
        "result_lines": view.result_lines(state) if over else None,
        "board": rows, "legend": legend,
        "panel_html": render_html(view.render(state, viewer, {}, shown, width=PANEL_WIDTH,
                                              palette=_palette(view)), PANEL_WIDTH),
        "move": None, "digest": None, "problem": None,
    }
    if n > 0:
        m = replay.moves[n - 1]
        data["move"] = {"number": n, "player": m["player"],
                        "text": m["public"] if public else m["move"]}
        data["digest"] = {"ok": m["digest_ok"]}
        if not public:
            data["digest"].update(logged=m["logged"], replayed=m["replayed"])
    if replay.problem is not None:
        data["problem"] = replay.problem[3] if public else replay.problem[2]
    return data


def _palette(view):
    return view.palette_for(Console(color_system="truecolor", force_terminal=True,
                                    file=io.StringIO()))


def game_page_data(info, replay):
    """The game as its page needs it once: its summary, the moves (as a spectator saw
    them in public mode), the digests' agreement, the seed when it may be shown."""
    public = is_public(info)
    data = summary(info)
    data["options"] = info["options"]
    data["moves_list"] = [{"number": m["number"], "player": m["player"],
                           "text": m["public"] if public else m["move"],
                           "digest_ok": m["digest_ok"]} for m in replay.moves]
    data["playable"] = replay.playable
    data["all_digests_ok"] = replay.problem is None and all(m["digest_ok"]
                                                            for m in replay.moves)
    data["problem"] = None if replay.problem is None else (
        replay.problem[3] if public else replay.problem[2])
    # A player's own view differs from a spectator's only where information is hidden.
    data["viewers"] = list(range(info["players"])) \
        if formats.hides_information(info["game"]) and not public else []
    return data


# ---------------------------------------------------------------- a review

REVIEW_MOVE_KEYS = ("number", "player", "move", "before", "after", "best", "best_chance",
                    "mark", "hint")


def review_refusal(info):
    """Why the game `info` may have no review shown now (it may go on), or None."""
    if info["status"] not in formats.STILL_OPEN:
        return None
    gid = info["id"]
    return ("no review during a game: game %d %s; once it is over, 'vora games review %d' "
            "computes one" % (gid, "is still playing" if info["status"] == "playing"
                              else "was interrupted and may go on", gid))


def review_data(info, review):
    """A finished game's review (GameLog.review, which checked every field) as the page
    may show it: the fields the review's format names and nothing else the dict may
    hold (a seed least of all), with `title`, `players`, `total` (the game's moves) and
    `hidden_information` for the page. Forbidden while the game may go on: a hidden
    game's review knows every hand."""
    refusal = review_refusal(info)
    if refusal is not None:
        raise Forbidden(refusal)
    return {"format": review["format"], "version": review["version"], "game_id": info["id"],
            "game": info["game"], "title": game_title(info["game"]),
            "players": info["players"], "total": len(info["moves"]),
            "hidden_information": formats.hides_information(info["game"]),
            "budget": review["budget"], "complete": review["complete"],
            "knows_secrets": review["knows_secrets"],
            "thresholds": dict(review["thresholds"]),
            "moves": [dict((key, m[key]) for key in REVIEW_MOVE_KEYS)
                      for m in review["moves"]]}
