"""A game being played, held on the PC: the table (vora_host.table.table) and its seats.

The table is the referee: it holds the rules state, who sits where, the log's writes, the
turn and the requests (a takeback that waits for the other humans, a resignation, a claim
when a seat played from elsewhere has gone). Every
way of playing is a client of it: the terminal (vora_host.play.terminal), the LED board
(vora_host.play.board), a browser seat (vora_host.web.seats) and a bot. A client sends a
move in the game's own notation, with the move number it saw, and gets back the refusal
with its reason or nothing; it never sends state. Rooms: the table imports the rules, the
game views (vora_host.games), the bots and the log; play, link and web import the table.
"""

from vora_host.table.table import (CLAIM_AFTER, CLAIMS, Human, Refused, Table, TABLE_EVENTS,
                                   takeback_span)

__all__ = ["CLAIM_AFTER", "CLAIMS", "Human", "Refused", "Table", "TABLE_EVENTS",
           "takeback_span"]
