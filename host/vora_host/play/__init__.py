"""Playing on the PC: the terminal game loop, humans and bots around one state (`terminal`)."""
