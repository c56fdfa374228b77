"""Vora on the board: what a key means. Key events to selections, previews and moves.

In each mode (setup, play, the menu, the game over) a key press either moves the selection
on (a cube picked from the farm, the edge that pushes it, the move previewed and confirmed
with the player's corner) or is refused with a reason code (R_...), which the PC says in
words (vora_host.games.vora.view.REFUSALS). The player's guide is the docstring of
vora_fw.vora_ui; the takeback's keys are in vora_fw.vora_ui_restore. A mixin of VoraUI
(vora_fw.vora_ui), below it: it imports vora_fw.vora_ui_frames and nothing of vora_ui.
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
from shared_rules.errors import RulesError
from vora_fw import layout
from vora_fw.vora_ui_frames import (CENTRE_KEY, MENU_BACK_KEY, MENU_END_KEY, MENU_UNDO_KEY,
                                    MODE_PLAY, MODE_SETUP, ability_kind)

_PEEK_MS = const(3000)  # another player's farm stays on view this long

# Why a key (or a request from the PC) was refused: refused_reason holds one of these; the
# PC says it in words (vora_host.games.vora.view.REFUSALS). Codes never change meaning.
R_SETUP_KEY = const(1)  # setup: only corners and c3 do something
R_FEW_SEATS = const(2)  # c3 with fewer than two seats
R_MENU_KEY = const(3)  # menu: c2, c3, c4 only
R_OVER_KEY = const(4)  # game over: c3 or a corner
R_NO_SEAT = const(5)  # a corner where nobody sits
R_RULES = const(6)  # the rules refused the move (refused_detail says why)
R_FARM_EMPTY = const(7)  # a cell with no cube of the farm on view
R_NO_STEAL = const(8)  # that cube cannot be stolen
R_NOT_IN_LINE = const(9)  # collect phase: not a cube of a line
R_NO_EXTRA = const(10)  # bonus phase: no extra cube there
R_CELL_NO_MOVE = const(11)  # action phase: that cube has no move of its own
R_EDGE_NOT_NOW = const(12)  # an edge outside the action phase
R_EDGE_NO_CUBE = const(13)  # an edge before a cube was picked from the farm
R_EDGE_BAD = const(14)  # the picked cube cannot go in there
R_BOT_TURN = const(15)  # a bot plays this seat now
R_WAIT = const(16)  # a move is being shown and plays in a moment
R_NOT_NOW = const(17)  # a request from the PC that does not fit the board's state
R_BUSY = const(18)  # a position while a game is in progress
R_BAD_POSITION = const(19)  # a position the rules refuse (refused_detail says why)
R_NO_TAKEBACK = const(20)  # no move of a person to take back
R_UNDO_CANCELLED = const(21)  # a key other than an agreeing corner: takeback cancelled
R_FARM_TARGET = const(22)  # a farm cube picked: the cell pressed takes none of it
R_SWAP_TARGET = const(23)  # a mole or duck picked: it cannot swap with that cube
NO_KEY = const(255)  # refused_key of a request that came from the PC, not a key


class Keys:
    """What each key does (mixed into VoraUI)."""

    # What the keys read and call of the rest of VoraUI (annotations for mypy only:
    # MicroPython ignores them and nothing is stored).
    state: "Any"
    mode: int
    seed_fn: "Any"
    store: "Any"
    chosen_seats: str
    menu_seat: str
    legal: "Any"
    auto_move: "Any"
    sel_type: int
    sel_cell: int
    sel_edge: int
    variants: "Any"
    variant: int
    preview: "Any"
    view_farm: int
    view_for: str
    view_until: int
    refuse: "Any"  # the methods of VoraUI and Frames these call
    play: "Any"
    new_game: "Any"
    _is_bot: "Any"
    _set_bot: "Any"
    _tell: "Any"
    _reset_selection: "Any"
    _leave_game: "Any"
    farm_cells: "Any"
    request_takeback: "Any"

    def _key_setup(self, k, now):
        seat = layout.SEAT_OF_CORNER.get(k)
        if seat is not None:
            if seat in self.chosen_seats:
                self.chosen_seats = self.chosen_seats.replace(seat, "")
                self._set_bot(seat, -1)
            else:
                self.chosen_seats += seat
        elif k == CENTRE_KEY and len(self.chosen_seats) >= 2:
            self.new_game(self.chosen_seats, self.seed_fn())
        else:
            self.refuse(k, now, R_FEW_SEATS if k == CENTRE_KEY else R_SETUP_KEY)

    def _key_menu(self, k, now):
        if k == MENU_BACK_KEY:
            self.mode = MODE_PLAY
        elif k == MENU_UNDO_KEY:
            self.request_takeback(self.menu_seat, now)
        elif k == MENU_END_KEY:
            self._tell("abandon", None)
            self._leave_game()
        else:
            self.refuse(k, now, R_MENU_KEY)

    def _key_over(self, k, now):
        seat = layout.SEAT_OF_CORNER.get(k)
        if k == CENTRE_KEY:
            self._leave_game()
        elif seat is not None and seat in self.state.seats:
            self._peek(self.state.seats.index(seat), now)
        else:
            self.refuse(k, now, R_OVER_KEY)

    def _my_corner(self):
        return layout.CORNER_OF_SEAT[self.state.seats[self.state.active]]

    def _peek(self, player, now):
        self.view_farm = player
        self.view_for = "peek"
        self.view_until = now + _PEEK_MS

    def _key_play(self, k, now):
        st = self.state
        mine = self._my_corner()
        seat = layout.SEAT_OF_CORNER.get(k)
        cell = layout.key_cell(k)
        if self.view_for == "peek":
            self.view_farm = -1
            self.view_for = ""
        if seat is not None and seat not in st.seats:
            self.refuse(k, now, R_NO_SEAT)
            return
        if self.auto_move is not None or self._is_bot(st.seats[st.active]):
            # A bot's turn, or a move being shown: corners still show farms (and a
            # person's held corner opens the menu); anything else waits.
            if seat is not None:
                self._peek(st.seats.index(seat), now)
            else:
                self.refuse(k, now, R_WAIT if self.auto_move is not None else R_BOT_TURN)
            return
        if k == mine:
            self._own_corner(now)
        elif seat is not None:
            p = st.seats.index(seat)
            steal = vora.MOVE_STEAL << 5 | p
            if st.phase == vora.PHASE_BONUS and any(c >> 5 == steal for c in self.legal.codes):
                self._reset_selection()
                self.view_farm = p
                self.view_for = "steal"
            else:
                self._peek(p, now)
        elif self.view_for in ("pick", "steal"):
            self._farm_pick(k, cell, now)
        elif cell >= 0:
            self._cell(k, cell, now)
        else:
            self._edge(k, now)

    def _own_corner(self, now):
        st = self.state
        if self.preview is not None:
            move = self.preview
            try:
                self.play(move, now)
            except RulesError as exc:
                self.refuse(self._my_corner(), now, R_RULES, str(exc))
            return
        if self.view_for == "pick":
            self._reset_selection()  # a second press closes the farm
        elif st.phase == vora.PHASE_ACTION:
            self._reset_selection()
            self.view_farm = st.active
            self.view_for = "pick"
        else:
            self._reset_selection()
            self.preview = "pass"

    def _farm_pick(self, k, cell, now):
        t = self.farm_cells(self.view_farm)[cell] if cell >= 0 else -1
        if t < 0:
            self.refuse(k, now, R_FARM_EMPTY)
            return
        if self.view_for == "steal":
            move = "steal %d %s" % (self.view_farm, vora.TYPES[t])
            if move in self.legal:
                self.preview = move
                self.view_farm = -1
                self.view_for = ""
            else:
                self.refuse(k, now, R_NO_STEAL)
            return
        self.view_farm = -1
        self.view_for = ""
        self.sel_type = t

    def _cell(self, k, cell, now):
        st = self.state
        name = vora.CELL_NAMES[cell]
        if st.phase == vora.PHASE_COLLECT:
            for first, cells in st.collectable_groups().items():
                if name in cells:
                    self._reset_selection()
                    self.preview = "take " + first
                    return
            self.refuse(k, now, R_NOT_IN_LINE)
            return
        if st.phase == vora.PHASE_BONUS:
            move = "extra " + name
            if move in self.legal:
                self._reset_selection()
                self.preview = move
            else:
                self.refuse(k, now, R_NO_EXTRA)
            return
        # The action phase.
        if self.sel_type == vora.CROW and ("crow " + name) in self.legal:
            self.sel_edge = -1
            self.preview = "crow " + name
            return
        if self.sel_cell >= 0:
            source = vora.CELL_NAMES[self.sel_cell]
            word = vora.TYPES[st.grid[self.sel_cell]]
            move = "%s %s %s" % (word, source, name)
            if move in self.legal:
                self.preview = move
                return
            if cell == self.sel_cell:
                self._reset_selection()
                return
        # A cube whose ability starts here; anything else is refused and the current
        # selection stays, so a stray press costs nothing.
        t = st.grid[cell]
        if t == vora.MOLE or t == vora.DUCK:
            head = ability_kind(t) << 5 | cell
            if any(c >> 5 == head for c in self.legal.codes):
                self._reset_selection()
                self.sel_cell = cell
                return
        elif t == vora.LADYBUG and ("ladybug " + name) in self.legal:
            self._reset_selection()
            self.preview = "ladybug " + name
            return
        elif t == vora.WATER:
            for m in vora.water_groups(st.grid):
                if m >> cell & 1:
                    self._reset_selection()
                    self.preview = "water " + vora.CELL_NAMES[vora.first_cell(m)]
                    return
        self.refuse(k, now, R_SWAP_TARGET if self.sel_cell >= 0 else
                    R_FARM_TARGET if self.sel_type >= 0 else R_CELL_NO_MOVE)

    def _edge(self, k, now):
        st = self.state
        edge = layout.KEY_NAMES[k]
        if st.phase != vora.PHASE_ACTION or self.sel_type < 0:
            self.refuse(k, now, R_EDGE_NOT_NOW if st.phase != vora.PHASE_ACTION
                        else R_EDGE_NO_CUBE)
            return
        if k == self.sel_edge and len(self.variants) > 1:
            self.variant = (self.variant + 1) % len(self.variants)
            self.preview = self.variants[self.variant]
            return
        t = vora.TYPES[self.sel_type]
        candidates = ["push %s %s" % (t, edge)]
        if self.sel_type == vora.PIG or self.sel_type == vora.WOLF:
            candidates.append("%s %s" % (t, edge))  # the ability on the same edge
        options = [m for m in candidates if m in self.legal]
        if not options:
            self.refuse(k, now, R_EDGE_BAD)
            return
        self.sel_edge = k
        self.variants = options
        self.variant = 0
        self.preview = options[0]
