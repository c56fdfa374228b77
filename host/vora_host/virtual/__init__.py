"""The virtual board: the unchanged firmware on the PC behind a pseudo-terminal (`board`)."""
