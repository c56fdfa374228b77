"""Pure rule modules shared by the board's firmware and the PC host.

No I/O, no clock, no global randomness: every game keeps its PRNG in its state.
The Vora core (`vora`, `prng`, `errors`) runs unchanged on MicroPython and CPython.
"""
