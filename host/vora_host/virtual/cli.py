"""`vora sim` on the command line: its arguments, and the virtual board run with them
(vora_host.virtual.sim).

Apart from the top command line (vora_host.cli) as the log's, the lab's and the makers'
commands are: each room registers its own commands (add_parser) and runs them.
"""

from vora_host.argtypes import positive_int, seed as seed_arg

__all__ = ["add_parser", "cmd_sim"]


def add_parser(sub):
    """vora sim's arguments."""
    sim = sub.add_parser(
        "sim", help="the virtual board: the firmware on the PC, with a serial port",
        description="Run the board's firmware on the PC with simulated keys and lights. "
                    "The first line printed is the serial device (a pty) that serial "
                    "programs open like the board's USB port. At a terminal the board is "
                    "drawn in colour: type a key name and Enter (c3, Sc, cS), 'hold cS' "
                    "for the menu, move with the arrows and press with Space, or click a "
                    "key; q quits. Otherwise (or with --headless) it reads commands from "
                    "stdin, one per line: press KEY [ms], hold KEY [ms], wait MS, frame, "
                    "state, help, quit; each answers ok or error.")
    sim.add_argument("--save-dir", metavar="DIR", default=None,
                     help="where the board saves the game in progress (default "
                          "$XDG_DATA_HOME/vora/sim-save, i.e. ~/.local/share/vora/sim-save)")
    sim.add_argument("--fresh", action="store_true",
                     help="forget the saved game first: the board starts in setup")
    sim.add_argument("--seed", type=seed_arg, default=None,
                     help="seed of every game dealt (default: the board's clock)")
    sim.add_argument("--headless", action="store_true",
                     help="draw nothing; read commands from stdin (the default when the "
                          "output is not a terminal)")
    sim.add_argument("--script", metavar="FILE", default=None,
                     help="run the commands in FILE first, then go on as usual (end the "
                          "file with quit to stop there)")
    sim.add_argument("--pinmap", metavar="FILE", default=None,
                     help="another pin map: a file, or one shipped with vora by name "
                          "(default rp2-pico; rp2-pico2, esp32-s3)")
    sim.add_argument("--ghosting", action="store_true",
                     help="simulate a key matrix without diodes (ghost keys)")
    sim.add_argument("--flash", metavar="DIR", default=None,
                     help="the board's flash: boot from what is installed in DIR (empty: a "
                          "board with stock MicroPython, for vora flash); the save goes to "
                          "DIR/save (docs/makers.md)")
    sim.add_argument("--flash-size", type=positive_int, default=None, metavar="KB",
                     help="the flash's capacity in KB (default 848, a Raspberry Pi Pico's)")
    sim.add_argument("--romfs-size", type=positive_int, default=None, metavar="KB",
                     help="with --flash: a ROMFS partition of this size too, as MicroPython "
                          "1.25+ builds with ROMFS have (kept in DIR.romfs; vora flash --romfs)")


def cmd_sim(args):
    # Imported here: the firmware package is only needed by this command.
    from vora_host.virtual import sim
    return sim.run(save_dir=args.save_dir, fresh=args.fresh, seed=args.seed,
                   headless=args.headless, script=args.script, pinmap_file=args.pinmap,
                   ghosting=args.ghosting, flash_dir=args.flash,
                   flash_size=args.flash_size * 1024 if args.flash_size else None,
                   romfs_size=args.romfs_size * 1024 if args.romfs_size else 0)
