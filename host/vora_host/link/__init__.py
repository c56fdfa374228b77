"""The link to a board and the mirror: finding the board (`ports`), the protocol logic
that follows it and logs its games (`client`, with its parts `following`: the game
followed, and `board_checks`: what the board sends, checked), the live mirror (`mirror`),
and `vora mirror` and `vora repl` on the command line (`cli`)."""
