"""Playing a seat of a table on another computer (issue 39, "Remote play"): the seat API's
client (seat_client) and `vora play --join URL` in this terminal (join). The table there
is the referee; this computer shows the seat's view, sends its moves, and logs the game
as the table's record shows it.

A room beside the web's: it speaks the web's seat API over HTTP and imports nothing of
the server; it uses play's way of reading a typed move and the log.
"""
