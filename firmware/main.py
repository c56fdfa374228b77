"""Vora Board firmware entry point (copied to the board as /main.py by `vora flash`).

Everything happens in vora_boot (firmware/vora_fw/boot.py, installed beside this file as
/vora_boot.mpy): it reads the pin map, starts safe mode when a corner key is held at
power-up (the application does not run and the REPL stays free for mpremote), otherwise
picks the version slot to boot from the boot record (test a new version, confirm it or go
back to the previous one) and runs the game from it. `vora update` never replaces this
file or vora_boot, so a bad update cannot break the way back.
"""

try:
    import vora_boot
except ImportError:  # run from the repository (tests): the same module, by its package name
    from vora_fw import boot as vora_boot

if __name__ == "__main__":  # MicroPython runs /main.py as __main__ at boot
    vora_boot.main()
