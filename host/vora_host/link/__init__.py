"""The link to a board and the mirror: finding the board (`ports`), the protocol logic
that follows it and logs its games (`client`), the live mirror (`mirror`), and `vora mirror`
and `vora repl` on the command line (`cli`)."""
