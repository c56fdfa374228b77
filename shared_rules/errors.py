"""Exceptions shared by every game module (one family, specific classes)."""


class RulesError(ValueError):
    """Base class of every error raised by a rules module."""


class IllegalMove(RulesError):
    """A move that cannot be played now. The state is left unchanged.

    `move` is the text that was refused, `reason` says why in words.
    """

    def __init__(self, move, reason):
        self.move = move
        self.reason = reason
        super().__init__("illegal move %r: %s" % (move, reason))


class BadPosition(RulesError):
    """A position text, JSON state or option that does not describe a valid game."""
