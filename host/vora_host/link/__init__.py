"""The link to a board and the mirror: finding the board (`ports`), the protocol logic
that follows it and logs its games (`client`), and the live mirror (`mirror`)."""
