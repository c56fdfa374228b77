"""Vora Board, the PC side ("the host"): command line, terminal game, bots and rendering.

Later: the serial bridge to the board, the live mirror, the game log and firmware updates.
The rules themselves live in the `shared_rules` package, shared with the board's firmware.
"""

__version__ = "0.1.0"
