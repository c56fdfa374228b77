"""The virtual board: the unchanged firmware on the PC behind a pseudo-terminal (`board`),
its serial port (`port`), its commands (`commands`), its terminal screen (`screen`), and
`vora sim`, which runs them together (`sim`), and its arguments (`cli`)."""
