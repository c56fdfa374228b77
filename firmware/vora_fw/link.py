"""The serial link endpoint of the board (a line stub until the framed protocol lands).

It writes one text line per game event to the serial stream so a PC can follow the game:
    VORA hello <firmware version> vora
    VORA new <seats> <digest>
    VORA resume <seats> <moves played> <digest>   (a saved game resumed at power-up)
    VORA move <number> <move> <digest>
    VORA over <scores, comma separated> <winner or ->
Nothing is read back yet; the host parses these lines as data only.
"""

try:
    from typing import Any  # noqa: F401  (type comments only)
except ImportError:
    pass

from vora_fw import VERSION


class LineLink:
    def __init__(self, write):
        self.write = write  # a function taking bytes: the USB serial port, or a pty
        self.ui = None  # type: Any

    def attach(self, ui):
        self.ui = ui
        self._line("hello %s vora" % VERSION)

    def poll(self, now):
        pass

    def game_event(self, event, state, detail):
        if event == "new":
            self._line("new %s %s" % (state.seats, state.digest()))
        elif event == "move":
            self._line("move %d %s %s" % (self.ui.moves_played, detail, state.digest()))
        elif event == "over":
            w = state.winner()
            self._line("over %s %s" % (",".join(str(s) for s in state.scores()),
                                       "-" if w is None else w))
        elif event == "resume":
            self._line("resume %s %d %s" % (state.seats, self.ui.moves_played, state.digest()))
        elif event == "abandon":
            self._line("abandon")

    def _line(self, text):
        self.write(("VORA " + text + "\n").encode())
