"""The Vora Board firmware (MicroPython). Board-specific code lives only in hal_*.py."""

VERSION = "0.1.0"
