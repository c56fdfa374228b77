"""Vora on the board: the frames. What the 49 keys show, drawn from VoraUI's state.

The overlay (what the selection adds to each key: candidates, the previewed move, the
corner that confirms) is worked out once per key press (`_refresh`) and kept in a byte per
key, so that drawing a frame, 30 times a second, allocates nothing (`render`). The modes of
the application and its special keys are defined here, the lowest of the UI's files
(vora_fw.vora_ui_keys and vora_fw.vora_ui import them; nothing here imports those). A mixin
of VoraUI (vora_fw.vora_ui): its methods read the application's fields, set in
VoraUI.__init__.
"""

try:
    from micropython import const
except ImportError:
    def const(x):  # type: ignore[misc]
        return x

try:
    from typing import Any  # noqa: F401  (annotations for mypy only)
except ImportError:
    pass

from shared_rules import vora
from vora_fw import layout, palette
from vora_fw.clock import ticks_diff

MODE_SETUP = const(0)
MODE_PLAY = const(1)
MODE_MENU = const(2)
MODE_OVER = const(3)
MODE_UNDO = const(4)  # a takeback was asked for: waiting for every person to agree

CENTRE_KEY = const(24)  # c3
MENU_BACK_KEY = const(17)  # c2: green, back to the game
MENU_END_KEY = const(31)  # c4: red, end the game
MENU_UNDO_KEY = const(24)  # c3: amber, take back the last move

# Names with a leading underscore are constants of this file only: MicroPython puts them in
# the code and keeps no name for them in the heap.
_REFUSE_MS = const(450)
_ANIM_MS = const(350)  # a cube that changed fades in from white over this time
_SWEEP_MS = const(45)  # a push sweeps along its line, one cell after the other
_FALL_DELAY_MS = const(260)  # then the cubes that fell or were refilled
_SCROLL_MS = const(160)  # one column of scrolling text
_BOT_FLASH_MS = const(180)  # a setup corner's flash (on, then off) for each level step
_BOT_FLASH_CYCLE_MS = const(1800)  # the flashes repeat this often
_SAVE_FLASH_MS = const(150)  # while saving fails, the edges flash red this long ...
_SAVE_FLASH_EVERY_MS = const(2000)  # ... this often

# What the selection adds to a key (VoraUI.overlay holds one per key).
_OV_NONE = const(0)
_OV_CANDIDATE = const(1)  # may be chosen next: blinks white
_OV_SELECTED = const(2)  # chosen and waiting for its target
_OV_STRONG = const(3)  # the line group previewed for collecting
_OV_PREVIEW = const(4)  # cells the previewed move changes: flash white
_OV_EDGE_OPTION = const(5)  # an edge (or corner) that may be chosen: blinks in the cube's colour
_OV_EDGE_CHOSEN = const(6)  # the edge of the previewed push
_OV_CONFIRM = const(7)  # the corner that confirms: blinks in the seat's colour
_OV_PASS = const(8)  # the corner that confirms a pass: blinks red

# 3x5 digits for the scores; each glyph is 3 columns, bit 0 the top row.
_FONT = {
    "0": (0x1F, 0x11, 0x1F), "1": (0x12, 0x1F, 0x10), "2": (0x1D, 0x15, 0x17),
    "3": (0x15, 0x15, 0x1F), "4": (0x07, 0x04, 0x1F), "5": (0x17, 0x15, 0x1D),
    "6": (0x1F, 0x15, 0x1D), "7": (0x01, 0x01, 0x1F), "8": (0x1F, 0x15, 0x1F),
    "9": (0x17, 0x15, 0x1F), "-": (0x04, 0x04, 0x04), " ": (0, 0, 0),
}


def ability_kind(t):
    # The move kind of a cube that acts from its cell towards another (mole, duck), or -1.
    return vora.MOVE_MOLE if t == vora.MOLE else vora.MOVE_DUCK if t == vora.DUCK else -1


class Frames:
    """The frames and the overlay (mixed into VoraUI)."""

    # What drawing reads of the rest of VoraUI (annotations for mypy only: MicroPython
    # ignores them and nothing is stored).
    state: "Any"
    mode: int
    chosen_seats: str
    board_bots: str
    legal: "Any"
    sel_type: int
    sel_cell: int
    preview: "Any"
    view_farm: int
    view_for: str
    refused_key: int
    refused_at: int
    changed: int
    changed_at: int
    delay: bytearray
    scroll: "Any"
    winner_player: "Any"
    save_error: str
    memory_error: bool
    undo_wait: str
    overlay: bytearray
    view_cells: "Any"
    pick_rgb: "Any"
    now: int
    bot_level: "Any"  # VoraUI.bot_level(seat)
    _my_corner: "Any"  # vora_ui_keys.Keys._my_corner()

    # ---- farms on the meadow

    def farm_cells(self, player):
        """Type code shown on each meadow cell (or -1) while `player`'s farm is on view:
        laid out for the player who looks (the owner when peeking, else the active one)."""
        viewer = self.state.active if self.view_for != "peek" else player
        return farm_layout(self.state.farms[player], self.state.seats[viewer])

    # ---- output

    def _refresh(self):
        # What the selection adds to the meadow, worked out once per key press and kept in
        # a byte per key, so drawing a frame (30 times a second) allocates nothing.
        ov = self.overlay
        for k in range(49):
            ov[k] = _OV_NONE
        self.view_cells = None
        st = self.state
        if st is None or self.mode not in (MODE_PLAY, MODE_OVER):
            return
        if self.view_farm >= 0:
            self.view_cells = self.farm_cells(self.view_farm)
            return
        if self.mode == MODE_OVER:
            return
        for m in st.group_masks():
            lit = self.preview == "take " + vora.CELL_NAMES[vora.first_cell(m)]
            for c in range(25):
                if m >> c & 1:
                    ov[layout.meadow_key(c)] = _OV_STRONG if lit else _OV_CANDIDATE
        if self.preview is None:
            # Read from the moves' codes (kind and first word in code >> 5), which
            # allocates nothing.
            codes = self.legal.codes
            if st.phase == vora.PHASE_ACTION and self.sel_type >= 0:
                self.pick_rgb = palette.CUBE_RGB[self.sel_type]
                push = vora.MOVE_PUSH << 5 | self.sel_type
                crow = self.sel_type == vora.CROW
                for c in codes:
                    if c >> 5 == push:
                        ov[layout.edge_key(vora.EDGE_NAMES[c & 31])] = _OV_EDGE_OPTION
                    elif crow and c >> 10 == vora.MOVE_CROW:
                        ov[layout.meadow_key(c >> 5 & 31)] = _OV_CANDIDATE
            if self.sel_cell >= 0:
                head = ability_kind(st.grid[self.sel_cell]) << 5 | self.sel_cell
                ov[layout.meadow_key(self.sel_cell)] = _OV_SELECTED
                for c in codes:
                    if c >> 5 == head:
                        ov[layout.meadow_key(c & 31)] = _OV_CANDIDATE
            return
        words = self.preview.split(" ")
        verb = words[0]
        mine = self._my_corner()
        ov[mine] = _OV_PASS if verb == "pass" else _OV_CONFIRM
        if verb in ("push", "pig", "wolf"):
            e = vora.EDGE_NAMES.index(words[-1])
            t = vora.PIG if verb == "pig" else vora.WOLF if verb == "wolf" else self.sel_type
            self.pick_rgb = palette.CUBE_RGB[t]
            ov[layout.edge_key(words[-1])] = _OV_EDGE_CHOSEN
            for c in vora.EDGE_CELLS[e][:3 if verb == "pig" else 5]:
                ov[layout.meadow_key(c)] = _OV_PREVIEW
        elif verb == "steal":
            self.pick_rgb = palette.CUBE_RGB[vora.TYPES.index(words[2])]
            ov[layout.CORNER_OF_SEAT[st.seats[int(words[1])]]] = _OV_EDGE_OPTION
        elif verb == "water":
            for m in vora.water_groups(st.grid):
                if vora.first_cell(m) == vora.cell_index(words[1]):
                    for c in range(25):
                        if m >> c & 1:
                            ov[layout.meadow_key(c)] = _OV_PREVIEW
        elif verb != "take" and verb != "pass":
            for w in words[1:]:
                if w in vora.CELL_NAMES:
                    ov[layout.meadow_key(vora.cell_index(w))] = _OV_PREVIEW

    def render(self, frame, now):
        """Draw the whole board into `frame` (bytearray of 49 x RGB, key index order)."""
        self.now = now
        for i in range(147):
            frame[i] = 0
        if self.mode == MODE_SETUP:
            self._render_setup(frame, now)
        elif self.mode == MODE_MENU:
            self._render_menu(frame, now)
        elif self.mode == MODE_UNDO:
            self._render_undo(frame, now)
        elif self.mode == MODE_OVER:
            self._render_over(frame, now)
        else:
            self._render_play(frame, now)
        if 0 <= self.refused_key < 49:
            age = ticks_diff(now, self.refused_at)
            if 0 <= age < _REFUSE_MS:
                if (age // 110) % 2 == 0:
                    _put(frame, self.refused_key, palette.REFUSE, 256)
            else:
                self.refused_key = -1
        if self.memory_error and now % 500 < 250:
            # Out of memory: every edge key and the centre red, twice a second (the save
            # error flashes the free edges briefly every 2 s: this one cannot be missed).
            for k in range(49):
                if layout.is_edge(k) or k == CENTRE_KEY:
                    _put(frame, k, palette.STOP, 256)
        if self.save_error and now % _SAVE_FLASH_EVERY_MS < _SAVE_FLASH_MS:
            for k in range(49):  # saving fails: the free edge keys flash red together
                if layout.is_edge(k) and self.overlay[k] == _OV_NONE:
                    _put(frame, k, palette.STOP, 160)

    def _render_setup(self, frame, now):
        for seat in vora.SIDES:
            k = layout.CORNER_OF_SEAT[seat]
            if seat in self.board_bots:
                # The board's bot: the seat's colour, flashing once (easy), twice (normal)
                # or three times (hard) in every _BOT_FLASH_CYCLE_MS, so the level reads
                # without telling colours apart.
                t = now % _BOT_FLASH_CYCLE_MS
                lit = t // _BOT_FLASH_MS % 2 == 0 and t < _BOT_FLASH_MS * 2 * (
                    self.bot_level(seat) + 1)
                _put(frame, k, palette.SEAT_RGB[seat], 256 if lit else 48)
            elif seat in self.chosen_seats:
                _put(frame, k, palette.SEAT_RGB[seat], 256)
            else:
                _put(frame, k, palette.DIM, 256)
        n = len(self.chosen_seats)
        # The number of players as lit cells of rank 1, and the start key.
        for i in range(n):
            _put(frame, layout.meadow_key(i), palette.WHITE, 96)
        _put(frame, CENTRE_KEY, palette.GO if n >= 2 else palette.STOP, palette.pulse(now))

    def _render_menu(self, frame, now):
        self._render_meadow(frame, now, 40)
        _put(frame, MENU_BACK_KEY, palette.GO, 256)
        _put(frame, MENU_END_KEY, palette.STOP, palette.pulse(now))
        _put(frame, MENU_UNDO_KEY, palette.UNDO, 256)

    def _render_undo(self, frame, now):
        # The meadow dimmed; the corners whose agreement is awaited blink amber.
        self._render_meadow(frame, now, 40)
        _put(frame, MENU_UNDO_KEY, palette.UNDO, palette.pulse(now))
        for seat in self.undo_wait:
            _put(frame, layout.CORNER_OF_SEAT[seat], palette.UNDO,
                 256 if now % 500 < 330 else 48)

    def _render_farm(self, frame, now):
        cells = self.view_cells
        for c in range(25):
            t = cells[c]
            if t >= 0:
                _put(frame, layout.meadow_key(c), palette.CUBE_RGB[t],
                     palette.level(palette.CUBE_PATTERN[t], now))

    def _render_play(self, frame, now):
        st = self.state
        if self.view_cells is not None:
            self._render_farm(frame, now)
            self._render_corners(frame, now)
            seat = st.seats[self.view_farm]
            _put(frame, layout.CORNER_OF_SEAT[seat], palette.SEAT_RGB[seat], 256)
            return
        self._render_meadow(frame, now, 256)
        self._render_corners(frame, now)
        blink = now % 500 < 330
        ov = self.overlay
        seat_rgb = palette.SEAT_RGB[st.seats[st.active]]
        for k in range(49):
            o = ov[k]
            if o == _OV_NONE:
                continue
            if o == _OV_CANDIDATE:
                _mix_white(frame, k, 64 if blink else 12)
            elif o == _OV_SELECTED:
                _mix_white(frame, k, 128)
            elif o == _OV_STRONG:
                _mix_white(frame, k, 160)
            elif o == _OV_PREVIEW:
                _mix_white(frame, k, 150 if blink else 0)
            elif o == _OV_EDGE_OPTION:
                _put(frame, k, self.pick_rgb, 256 if blink else 48)
            elif o == _OV_EDGE_CHOSEN:
                _put(frame, k, self.pick_rgb, 256)
            elif o == _OV_CONFIRM:
                _put(frame, k, seat_rgb, 256 if blink else 48)
            elif o == _OV_PASS:
                _put(frame, k, palette.STOP, 256 if blink else 48)
        if self.changed:
            age = ticks_diff(now, self.changed_at)
            running = False
            for c in range(25):
                if self.changed >> c & 1:
                    a = age - self.delay[c] * 10
                    if a < _ANIM_MS:
                        running = True
                        # white until its turn comes, then fading to the cube's colour
                        _mix_white(frame, layout.meadow_key(c),
                                   200 if a < 0 else 200 - a * 200 // _ANIM_MS)
            if not running:
                self.changed = 0

    def _plan_animation(self, move):
        # A push sweeps from its edge along the line; the cells a move names (collected,
        # swapped, taken) flash first; what fell or was refilled follows.
        words = move.split(" ")
        delay = self.delay
        rest = _FALL_DELAY_MS // 10
        for c in range(25):
            delay[c] = rest
        if words[0] in ("push", "pig", "wolf"):
            cells = vora.EDGE_CELLS[vora.EDGE_NAMES.index(words[-1])]
            for k in range(5):
                delay[cells[k]] = k * _SWEEP_MS // 10
        else:
            for w in words[1:]:
                if w in vora.CELL_NAMES:
                    delay[vora.cell_index(w)] = 0

    def _render_meadow(self, frame, now, scale):
        g = self.state.grid if self.state is not None else ()
        for c in range(len(g)):
            t = g[c]
            if t >= 0:
                _put(frame, layout.meadow_key(c), palette.CUBE_RGB[t],
                     palette.level(palette.CUBE_PATTERN[t], now) * scale >> 8)

    def _render_corners(self, frame, now):
        st = self.state
        for p in range(st.players):
            seat = st.seats[p]
            k = layout.CORNER_OF_SEAT[seat]
            if p == st.active and st.phase != vora.PHASE_OVER:
                _put(frame, k, palette.SEAT_RGB[seat], palette.pulse(now))
            else:
                _put(frame, k, palette.SEAT_RGB[seat], 40)

    # ---- the end

    def _prepare_scores(self):
        # Scrolling text: for each player in turn, their score in their seat's colour. A
        # byte a column: its 5 bits, and the player above them (a list of (bits, seat)
        # pairs took 1.3 KB of the game's last step, the costliest on the heap: issue 40).
        cols = bytearray()
        scores = self.state.scores()
        for p in range(self.state.players):
            for ch in "%d " % scores[p]:
                for bits in _FONT[ch]:
                    cols.append(bits | p << 5)
                cols.append(p << 5)
        self.scroll = cols
        self.winner_player = self.state.winner()

    def _render_over(self, frame, now):
        st = self.state
        for p in range(st.players):
            seat = st.seats[p]
            level = palette.pulse(now, 600) if p == self.winner_player else 40
            _put(frame, layout.CORNER_OF_SEAT[seat], palette.SEAT_RGB[seat], level)
        if self.view_cells is not None:
            self._render_farm(frame, now)
            return
        cols = self.scroll
        n = len(cols)
        start = (now // _SCROLL_MS) % n
        for x in range(5):
            col = cols[(start + x) % n]
            rgb = palette.SEAT_RGB[st.seats[col >> 5]]
            for y in range(5):
                if col >> y & 1:
                    # bit 0 is the top row: rank 5
                    _put(frame, (5 - y) * 7 + x + 1, rgb, 256)


def farm_layout(counts, seat):
    """A farm on the meadow: the type code shown on each of the 25 cells, or -1.

    One light per cube, types in order, laid out in the reading order of the player seated
    at `seat`. More than 25 cubes: each type keeps at least one light and the rest are
    shared in proportion (the counts are then approximate; the PC shows exact ones).
    """
    total = sum(counts)
    shown = list(counts)
    if total > 25:
        kinds = sum(1 for n in counts if n)
        spare = 25 - kinds
        rest = total - kinds
        for t in range(vora.N_TYPES):
            if counts[t]:
                shown[t] = 1 + (counts[t] - 1) * spare // rest
    order = vora.VIEW[seat]
    out = [-1] * 25
    k = 0
    for t in range(vora.N_TYPES):
        for _ in range(shown[t]):
            out[order[k]] = t
            k += 1
    return out


def _put(frame, k, rgb, level):
    i = k * 3
    frame[i] = rgb[0] * level >> 8
    frame[i + 1] = rgb[1] * level >> 8
    frame[i + 2] = rgb[2] * level >> 8


def _mix_white(frame, k, amount):
    # Blend the key's colour towards white by amount/256: highlights keep the cube's hue.
    i = k * 3
    for j in range(i, i + 3):
        v = frame[j]
        frame[j] = v + ((255 - v) * amount >> 8)
