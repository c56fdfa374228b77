"""Vorcept on the board's 7x7 keys: one key per cell of the default 7x7 board.

Every key is a cell, so there is no corner to confirm with: a move is previewed by its
keys and played by pressing its last key again and holding it (under a second). A cell
key names what starts there (placing the Pylon, lava or a Host; the piece to move, then
its destination; a free cell beside your Host to summon; a short second press there shows
the next drone kind). A short second press on a previewed destination that is also a
summon cell goes on to the summons there (the generic key pad's cycle: the moves that
key names alone). The selection's first key pressed again cancels it (the generic key
pad). The Pylon's key previews `lava done` during the lava phase; your Host, then the
Pylon, previews `concede`. Lights: Blue's pieces cyan, Red's amber, the Hosts breathing,
Drone-1 dim, Drone-2 half, Drone-3 full; the piece that already acted blinks; lava dim
red; the Pylon white tinted with the colour of the player to act (whose turn it is: the
board has no corner to pulse); a cell where a piece was just removed flashes red until
the next action. docs/vorcept-notation.md, "On the board", has the table.
"""

from vora_host.games.base import BoardMapping, cell_key

__all__ = ["VorceptBoard"]

SIDE_RGB = ((0, 200, 255), (255, 140, 0))  # Blue as cyan, Red as amber (seat colours)
KIND_LEVEL = {"host": 256, "drone1": 70, "drone2": 140, "drone3": 256}
LAVA = (90, 10, 0)
PYLON = (200, 200, 200)
# The Pylon while a player is to act: half white, half their colour (the turn lamp).
PYLON_TURN = tuple(tuple((w + c) // 2 for w, c in zip(PYLON, rgb)) for rgb in SIDE_RGB)


def _scale(rgb, level):
    return tuple(c * level // 256 for c in rgb)


class VorceptBoard(BoardMapping):

    def check(self, state):
        """Only the default 7x7 board fits the keys: say so for other sizes."""
        if state.size != 7:
            raise ValueError("Vorcept on a %dx%d board does not fit the 7x7 keys: "
                             "play it in the terminal (--typed)" % (state.size, state.size))

    def confirm_keys(self, state, player):
        return ()  # every key is a cell: hold the preview's last key instead

    def key_path(self, state, move):
        words = move.split(" ")
        if words[0] in ("pylon", "lava", "host") and words[-1] != "done":
            return (cell_key(words[1]),)
        if words[0] == "move":
            return (cell_key(words[1]), cell_key(words[2]))
        if words[0] == "summon":
            return (cell_key(words[2]),)
        if move == "lava done":
            return (cell_key(state.pylon_cell()),)
        if move == "concede":
            # Your Host, then the Pylon (no piece ever moves there): the Host's own key
            # pressed again stays free to cancel its selection.
            return (cell_key(state.host_cell(state.to_act())), cell_key(state.pylon_cell()))
        raise ValueError("no keys for %r" % move)

    def legend(self, state):
        return [(SIDE_RGB[0], "Blue"), (SIDE_RGB[1], "Red"),
                (_scale(SIDE_RGB[0], 70), "Drone-1"), (_scale(SIDE_RGB[0], 140), "Drone-2"),
                (SIDE_RGB[0], "Drone-3/Host"), (PYLON_TURN[0], "Pylon: whose turn"),
                (LAVA, "lava"), ((120, 0, 0), "flash: removed")]

    def _seen(self, state, viewer):
        # The state as `viewer` sees it (nothing is hidden), read back from its view: a
        # JSON round trip with every field checked, ten times dearer than the state's
        # JSON text. The frame is asked for 50 times a second and the keys' marks with
        # each look of the virtual board's screen, mostly of one position: read once for
        # it. One position kept (a tuple, set whole: a server's threads share BOARD).
        key = (state.to_json(), viewer)
        kept = self._seen_kept
        if kept is not None and kept[0] == key:
            return kept[1]
        seen = self.rules.determinize(state.view(viewer), 0)
        self._seen_kept = (key, seen)
        return seen

    _seen_kept = None  # ((the state's JSON, viewer), what _seen read from them)

    def key_marks(self, state, viewer, pressed=()):
        seen = self._seen(state, viewer)
        marks = {}
        rows = seen.board_rows()  # (once: drawn for every seat's view of a server's table)
        for name in seen.cell_names():
            letter = rows[seen.size - int(name[1:])][ord(name[0]) - 97]
            if letter != ".":
                marks[cell_key(name)] = letter
        return marks

    def frame(self, state, viewer, now):
        seen = self._seen(state, viewer)
        out = [(0, 0, 0)] * 49
        acted = set(seen.acted_cells())
        blink = now % 600 < 400
        for name in seen.cell_names():
            what = seen.content(name)
            k = cell_key(name)
            if what == "lava":
                out[k] = LAVA
            elif what == "pylon":
                player = seen.to_act()
                out[k] = PYLON if player is None else PYLON_TURN[player]
            elif what != "empty":
                player, kind = what
                level = KIND_LEVEL[kind]
                if kind == "host":
                    t = now % 1600
                    level = 96 + (t if t < 800 else 1600 - t) * 160 // 800
                if name in acted and not blink:
                    level //= 4
                out[k] = _scale(SIDE_RGB[player], level)
        for cell, _, _ in seen.last_removed():
            if seen.content(cell) == "empty" and blink:
                out[cell_key(cell)] = (120, 0, 0)
        return out
