"""What thinks in a thread while the board's link is served: a bot's move, a hint.

A board drops a PC that is silent for about 2 s, and the hard level may think that long:
the game loop (vora_host.play.board) and the PC's bots beside a board
(vora_host.play.board_play) ask here and look again at each tick. Split from
vora_host.play.board (issue 42) because both loops use it.
"""

import threading

THINK_WAIT_S = 0.005  # how long a tick waits for a bot that may answer at once


class BotThinking:
    """One bot's choice computed in a daemon thread (quitting never waits for it)."""

    def __init__(self, agent, state, player, asked):
        self.player = player
        self.asked = asked  # the position it was asked about
        self.move = None
        self.error = None
        self.done = threading.Event()
        thread = threading.Thread(target=self._run, args=(agent, state), daemon=True,
                                  name="bot P%d" % player)
        thread.start()

    def _run(self, agent, state):
        try:
            self.move = agent.choose(state)
        except BaseException as exc:  # raised again in the loop that plays the move
            self.error = exc
        finally:
            self.done.set()


class HintThinking:
    """One hint asked of the table (Table.hint: it logs and says it) in a daemon thread:
    the hard level may think up to about 2 s, and the link must be served meanwhile."""

    def __init__(self, table, player, number, asked):
        self.player = player
        self.asked = asked  # the position it was asked about
        self.hint = None
        self.error = None
        self.done = threading.Event()
        thread = threading.Thread(target=self._run, args=(table, player, number),
                                  daemon=True, name="hint P%d" % player)
        thread.start()

    def _run(self, table, player, number):
        try:
            self.hint = table.hint(player, number)
        except BaseException as exc:  # said (a refusal) or raised again by the board loop
            self.error = exc
        finally:
            self.done.set()
