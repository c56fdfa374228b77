"""What a game's host place offers the rest of the host: its terminal view.

Every game package `vora_host.games.<module>` exposes `VIEW`, an instance of a subclass
of `TerminalView`, and the terminal game, the replay, the mirror and the log's `show`
draw the game only through it. The defaults here suit any game; a game overrides what it
can say better (its board, its help text, what a move changed, why the game ended).

Hidden information: `render()` and every other method that shows a position get the full
state and the viewer, and must show only what `state.view(viewer)` holds (a spectator is
viewer None). `seen(state, viewer)` gives that dict; views of hidden-information games
draw from it alone, and their tests prove that two states differing in secrets the
viewer cannot know draw the same.
"""

from rich.markup import escape
from rich.table import Table
from rich.text import Text

__all__ = ["TerminalView"]


class TerminalView:
    """The defaults every game's terminal view builds on."""

    #: How to enter moves, in rich markup, shown by `?` in the terminal game.
    help_text = ("Type a move's [bold]#number[/bold] from the list (#5), or the move in "
                 "the game's notation.")

    #: The notation on one screen, for `vora rules GAME` (defaults to the help text).
    notation_summary = None

    def __init__(self, rules):
        self.rules = rules
        if self.notation_summary is None:
            self.notation_summary = self.help_text

    # ---- what a viewer may see

    def seen(self, state, viewer):
        """What `viewer` may know of `state` (state.view), the only source for drawing."""
        return state.view(viewer)

    def palette_for(self, console):
        """A game's colours for `console` (None when the game has no palette)."""
        return None

    # ---- the position

    def seat_label(self, state, player, who=None):
        """'P1' or, with `who` (e.g. 'you', 'search'), 'P1 (search)'."""
        text = "P%d" % player
        return "%s (%s)" % (text, who) if who else text

    def render(self, state, viewer=None, who=None, history=(), width=None, palette=None):
        """The position as `viewer` sees it, as a rich renderable."""
        raise NotImplementedError

    def prompt(self, state):
        """What the player to act is asked to do, after 'P1 to ...' ('move')."""
        return "move"

    def summary(self, state, viewer=None, who=None):
        """The scores and what `viewer` may see of their own hidden things (a hand, a bag,
        dice being made), in a few short lines that fold well in a narrow panel, as rich
        Text. The typed prompt prints it above the turn line and the screen beside the
        board draws it before the game's picture, so that both stay in sight at 80x24
        however tall the picture or the list of moves. A game whose scores or standing
        depend on secrets draws it from `seen(state, viewer)` alone; this default, each
        player's score, suits a game without them."""
        who = who or {}
        return Text("Scores: " + ", ".join(
            "%s %s" % (self.seat_label(state, p, who.get(p)), score)
            for p, score in enumerate(state.scores())))

    def step_help(self, state):
        """Help for the step the game is in, as rich markup: a short summary of the game's
        rules, then how this step is played on the board's keys and typed. Shown by `?`
        in the terminal game and on the board's screen; it says nothing a spectator could
        not see (only the step, never a hand or a bag). A game overrides it."""
        return "[bold]%s[/bold]\n%s" % (escape(self.rules.TITLE), self.help_text)

    def move_text(self, before, player, move, viewer=None):
        """A move as `viewer` may see it: the move itself, unless the game hides
        information and the viewer is not the player who made it; then the rules'
        `public_move(state_before, move, viewer)` says what the others learn."""
        if not self.rules.HIDDEN_INFORMATION or (viewer is not None and viewer == player):
            return move
        public = getattr(self.rules, "public_move", None)
        return public(before, move, viewer) if public else "(a move kept secret)"

    def describe(self, before, after, viewer=None):
        """What the last move changed, in a few words ('' if nothing to add)."""
        return ""

    def compact_family(self, family, items):
        """A short text standing for a whole family of moves in the move list (Vora's
        pushes from all 20 edges), or None to list them."""
        return None

    # ---- the end

    def end_reason(self, state):
        """Why the game ended, in words."""
        reason = state.end_reason()
        return "the game is over (%s)" % (reason or "no reason recorded")

    def result_lines(self, state):
        """The winner or a draw, as a list of strings."""
        w = state.winner()
        if w is None:
            return ["A draw."]
        return ["P%d wins." % w]

    def scores_table(self, state, who=None, palette=None):
        """Each player's score, as a rich table."""
        who = who or {}
        table = Table(show_edge=False, box=None, padding=(0, 2))
        table.add_column("player", no_wrap=True)
        table.add_column("score", justify="right", no_wrap=True)
        for p, score in enumerate(state.scores()):
            table.add_row(escape(self.seat_label(state, p, who.get(p))), str(score))
        return table

    def title(self, state):
        """The game's name with its player count, for headings."""
        return Text("%s, %d players" % (self.rules.TITLE, len(state.scores())))


# ---------------------------------------------------------------- on the board

KEYS = 49  # the 7x7 frame; key k = y * 7 + x, x west..east, y south..north (hardware/)
CORNERS = {"S": 0, "W": 42, "N": 48, "E": 6}
SEATS_BY_COUNT = {1: "S", 2: "SN", 3: "SWN", 4: "SWNE"}
OFF = (0, 0, 0)
WHITE = (255, 255, 255)
# Each seat's colour (its corner pulses in it; a game's pieces may wear it), here beside the
# seats so that every game's mapping and the key pad (vora_host.play.board_keys) share them.
SEAT_RGB = {"S": (0, 200, 255), "W": (255, 0, 200), "N": (255, 140, 0), "E": (140, 255, 0)}


def key_of(x, y):
    """Key index of column x (0 west .. 6 east) and row y (0 south .. 6 north)."""
    return y * 7 + x


def cell_key(name):
    """Key index of a chess-like cell name on the whole 7x7 ("a1" is the south-west
    corner key, "g7" the north-east one)."""
    return key_of(ord(name[0]) - 97, int(name[1:]) - 1)


class BoardMapping:
    """How a game the host runs shows on the board's 7x7 keys and reads them (terminal
    mode of the link). The generic key pad of vora_host.play.board_keys does the rest: it
    narrows the legal moves by the keys pressed, previews the one they name, cycles
    between moves that share the same keys when the last key is pressed again, and plays
    the preview when the player to act presses their corner (their confirm key).

    A game gives:
    - `key_path(state, move)`: the keys, in order, that name `move` (a tuple of key
      indices; e.g. Vorcept's "move d2 d4" is the two cells). Moves with no key of their
      own ("pass") use the player's corner key: pressed once it previews, again it plays.
      The preview's last key pressed again and held (HOLD_MS) plays it too; pressed
      again briefly, it shows the next move named by the same keys. The selection's
      first key pressed again cancels it, unless it goes on with the selection: do not
      start a path with the same key twice unless that is meant.
    - `frame(state, viewer, now)`: 49 (r, g, b) tuples, what each key shows, drawn from
      `state.view(viewer)` only.
    """

    def __init__(self, rules):
        self.rules = rules

    def confirm_keys(self, state, player):
        """The keys that play `player`'s preview: their corner (seats S, N for 2 players,
        S W N E for 4: the corner at their left hand); with more players than corners,
        any corner. A game that uses every key for itself returns () and its players
        confirm by pressing the preview's last key again and holding it."""
        seats = SEATS_BY_COUNT.get(len(state.scores()))
        if seats is None:
            return tuple(sorted(CORNERS.values()))
        return (CORNERS[seats[player]],)

    def key_path(self, state, move):
        raise NotImplementedError

    def frame(self, state, viewer, now):
        raise NotImplementedError

    def key_marks(self, state, viewer, pressed=()):
        """{key: a short word} saying what a key is now, for screens that draw the keys
        (the virtual board): pieces, sky objects, the choices of a selection."""
        return {}

    def legend(self, state):
        """[(rgb, words)]: what the colours the keys show mean, in those colours, for
        the line above the virtual board (each game its own)."""
        return []


# Keys for word-by-word entry: the move kinds on the top and bottom edges (west to east);
# each following word on the inner 5x5 in reading order (top-left first, row by row, as
# a page is read: b6..f6, b5..f5, down to b2..f2), then the west, east (north to south),
# top and bottom edges. With more choices than keys, the last key turns the page.
INNER_KEYS = tuple(key_of(x, y) for y in range(5, 0, -1) for x in range(1, 6))
KIND_KEYS = tuple(key_of(x, 6) for x in range(1, 6)) + tuple(key_of(x, 0) for x in range(1, 6))
CHOICE_KEYS = INNER_KEYS + tuple(key_of(0, y) for y in range(5, 0, -1)) + tuple(
    key_of(6, y) for y in range(5, 0, -1)) + KIND_KEYS


def word_keys_help(kind):
    """How a move starting with the word `kind` is entered on a WordKeys board, in words
    (for a game's step help)."""
    return ("the key of [bold]%s[/bold] among the kinds of move lit on b7..f7, then "
            "b1..f1 (those possible now, alphabetically), then each next word on the inner "
            "keys in reading order (b6..f6, b5..f5, down to b2..f2; the PC screen lists "
            "what each key chooses). Your corner plays the move shown, or press its last "
            "key again and hold it." % kind)


def word_order(word):
    """The sort key of the words a selection offers: natural order, numbers by value
    ("1", "2", ..., "10"; "rooster2" before "rooster10"; "2a" before "10a"), other text
    alphabetically, a number before a word; words that compare equal so ("01", "1") by
    their text."""
    out = []
    digits = ""
    text = ""
    for ch in word:
        if "0" <= ch <= "9":
            if text:
                out.append((1, 0, text))
                text = ""
            digits += ch
        else:
            if digits:
                out.append((0, int(digits), ""))
                digits = ""
            text += ch
    if digits:
        out.append((0, int(digits), ""))
    if text:
        out.append((1, 0, text))
    return tuple(out), word


def seat_rgb(players, player):
    """The colour of `player`'s seat (its corner), as the key pad pulses it (SEAT_RGB):
    with 2 players S cyan and N amber, with 3 S W N, with 4 S W N E; white with more
    players than corners."""
    seats = SEATS_BY_COUNT.get(players)
    return SEAT_RGB[seats[player]] if seats else WHITE


def _paged(region, k):
    # The keys that choose the k-th choice: the page key (the region's last) once per
    # page to turn, then the choice's key on its page.
    per_page = len(region) - 1
    return (region[-1],) * (k // per_page) + (region[k % per_page],)


class WordKeys(BoardMapping):
    """A mapping for games whose moves are best chosen word by word (card and dice games):
    the first word (the move's kind) on an edge key (KIND_KEYS), then each following word
    on the choice keys (CHOICE_KEYS: the inner 5x5 in reading order first), in the
    natural order of the choices left (`word_order`: numbers by value, so the n-th of the
    choices 1..25 is the n-th inner key). The PC screen names what each key chooses
    (`key_labels`); the game's own frame shows its state, and the choices glow when a
    selection is under way."""

    _index_cache = None  # (the legal moves, their index) of the last position asked

    def _index(self, state):
        # {prefix (a tuple of words): the words that may follow it, in word_order} of the
        # legal moves, made once for a list of moves: every key path and key label reads
        # it. Made again for each word of each move, a Boars screen with some hundreds of
        # buys cost O(moves squared). (The mapping is shared by every table and thread:
        # the cache is one tuple, replaced whole.)
        moves = tuple(state.legal_moves())
        cached = self._index_cache
        if cached is not None and cached[0] == moves:
            return cached[1]
        following = {}
        for move in moves:
            words = tuple(move.split(" "))
            for i in range(len(words)):
                following.setdefault(words[:i], set()).add(words[i])
        index = dict((prefix, sorted(next_words, key=word_order))
                     for prefix, next_words in following.items())
        self._index_cache = (moves, index)
        return index

    def _choices(self, state, prefix):
        return list(self._index(state).get(tuple(prefix), ()))

    def kinds(self, state):
        """The kinds of move legal now in the order of KIND_KEYS (the first on b7)."""
        return self._choices(state, [])

    def _keyed_words(self, state, move, index=None):
        # [(key, what it chooses)] along the move: a word, or "more..." for a page turn.
        # `index`: the position's _index, when the caller has it already.
        if index is None:
            index = self._index(state)
        words = move.split(" ")
        out = []
        for i in range(len(words)):
            choices = index.get(tuple(words[:i]), ())
            region = KIND_KEYS if i == 0 else CHOICE_KEYS
            k = choices.index(words[i])
            keys = _paged(region, k) if len(choices) > len(region) else (region[k],)
            out += [(key, "more...") for key in keys[:-1]] + [(keys[-1], words[i])]
        return out

    def key_path(self, state, move):
        return tuple(k for k, _ in self._keyed_words(state, move))

    def key_marks(self, state, viewer, pressed=()):
        # The choices name what the player to act holds: with secrets, only for their eyes.
        hidden = getattr(self.rules, "HIDDEN_INFORMATION", False)
        if state.to_act() != viewer and (viewer is not None or hidden):
            return {}
        return dict((k, self.short_label(w)) for k, w in self.key_labels(state, pressed).items())

    #: Words too long for a key of the virtual board (6 characters), shortened readably.
    SHORT_WORDS = {}

    def short_label(self, word):
        """`word` in at most 6 characters, for a key of the virtual board's screen."""
        word = self.SHORT_WORDS.get(word, word)
        return word if len(word) <= 6 else word[:5] + "."

    def word_text(self, state, before, word):
        """`word` in words for the PC screen, `before` the words chosen before it
        (['fight'] for the player of `fight 1 2`): 'P1', '2 dice'. The word itself
        unless a game says better."""
        return word

    def key_texts(self, state, pressed):
        """{key: what it chooses now, in words} given the keys pressed so far."""
        n = len(pressed)
        out = {}
        index = self._index(state)
        for move in state.legal_moves():
            keyed = self._keyed_words(state, move, index)
            if len(keyed) > n and [k for k, _ in keyed[:n]] == list(pressed):
                key, word = keyed[n]
                if word == "more...":
                    out[key] = word
                else:
                    before = [w for _, w in keyed[:n] if w != "more..."]
                    out[key] = self.word_text(state, before, word)
        return out

    def key_labels(self, state, pressed):
        """{key: the word it chooses now} given the keys pressed so far."""
        n = len(pressed)
        labels = {}
        index = self._index(state)
        for move in state.legal_moves():
            keyed = self._keyed_words(state, move, index)
            if len(keyed) > n and [k for k, _ in keyed[:n]] == list(pressed):
                labels[keyed[n][0]] = keyed[n][1]
        return labels
