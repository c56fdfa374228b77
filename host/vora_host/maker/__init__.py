"""The makers' tools: putting the firmware on a board and keeping it healthy.

    bundle   the firmware as the board takes it: .mpy modules compiled for the board's
             MicroPython, a manifest with versions, board kind and hashes; bundle files
    flash    `vora flash`: first install on a board with stock MicroPython, through mpremote
    update   `vora update`: a new version over the framed link while the game runs,
             resumable, staged, verified, switched, confirmed (or reverted) by the board
    doctor   `vora doctor`: versions, memory, and a guided test of every pixel and key
    link     the serial connection these commands share (pyserial and the link client)

docs/makers.md is the guide; the board's side is firmware/vora_fw/boot.py (the boot path),
update.py and doctor.py.
"""
