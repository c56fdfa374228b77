"""The makers' commands of `vora`: flash, update, doctor, keygen, release (registered by
vora_host.cli)."""

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from vora_host.argtypes import seconds

COMMANDS = ("flash", "update", "doctor", "keygen", "release")


def add_parsers(sub):
    flash = sub.add_parser(
        "flash", help="install the firmware on a board with stock MicroPython (first install)",
        description="Install the Vora firmware on a board running stock MicroPython, through "
                    "its REPL (mpremote): check the board's MicroPython and kind, compile the "
                    "firmware for it, copy it with a progress bar, check every file's hash on "
                    "the board, reset it and wait for the firmware's hello. A board that cannot "
                    "take it (another kind, an old MicroPython, a full filesystem) is left as it "
                    "was. Also the way back from safe mode (hold a corner key at power-up). "
                    "The saved game is kept. docs/makers.md is the guide.")
    add_port_arguments(flash)
    flash.add_argument("--pinmap", type=Path, default=None, metavar="FILE",
                       help="the board's pin map: a file, or one shipped with vora by name "
                            "(rp2-pico, rp2-pico2 or esp32-s3; hardware/pinmap-*.json); "
                            "default: rp2-pico2 for a board that says it has an RP2350, "
                            "else rp2-pico")
    flash.add_argument("--no-progress", action="store_true", help="no progress bar")
    flash.add_argument("--romfs", action="store_true",
                       help="put the firmware's code in the board's ROMFS partition "
                            "(MicroPython 1.25+ built with ROMFS): it runs in place from "
                            "flash and saves RAM; a board without one is told so and gets "
                            "the files as usual")

    update = sub.add_parser(
        "update", help="update the board's firmware over the link, while the game runs",
        description="Send a new firmware version to a board running Vora firmware: in chunks "
                    "(resumed after a disconnect), staged beside the running version, checked "
                    "hash by hash, switched at once; the board restarts into it and confirms "
                    "it, or goes back to the previous version at its next start. The saved game "
                    "is kept. Without --from, the firmware this vora carries is compiled for the "
                    "board. docs/makers.md is the guide.")
    add_port_arguments(update)
    update.add_argument("--from", dest="source", type=Path, default=None, metavar="FILE",
                        help="send this bundle file (written with --bundle) instead of building one")
    update.add_argument("--bundle", type=Path, default=None, metavar="FILE",
                        help="only write the bundle to FILE, for updating many boards (no board "
                             "needed)")
    update.add_argument("--board-kind", default="rp2", choices=("rp2", "esp32"),
                        help="with --bundle: the kind of board (default rp2)")
    update.add_argument("--sign", type=Path, default=None, metavar="KEYFILE",
                        help="with --bundle: sign it with this private key (vora keygen)")
    update.add_argument("--trust", type=Path, action="append", default=[], metavar="PUBFILE",
                        help="with --from: also trust the keys in this file (a maker's .pub "
                             "file); your trusted-keys file is always read")
    update.add_argument("--allow-unsigned", action="store_true",
                        help="with --from: install a bundle file that is not signed")
    update.add_argument("--allow-downgrade", action="store_true",
                        help="install a version older than the board's")
    update.add_argument("--wait", type=seconds, default=60.0, metavar="SECONDS",
                        help="how long to wait for a board that went away mid-transfer "
                             "(default 60)")
    update.add_argument("--no-progress", action="store_true", help="no progress bar")

    release = sub.add_parser(
        "release", help="build the firmware for a release: a bundle file and a folder for "
                        "mpremote",
        description="Build the firmware this vora carries, once, in the two forms makers "
                    "install it from: a bundle file (vora update --from FILE) and a folder "
                    "with the files vora flash puts on a board with stock MicroPython, with "
                    "INSTALL.txt: the one mpremote command that installs them, for makers "
                    "without vora. No board needed. docs/makers.md, \"A release\".")
    release.add_argument("--out", type=Path, default=Path("."), metavar="DIR",
                         help="where to write them (default: here)")
    release.add_argument("--board-kind", default="rp2", choices=("rp2", "esp32"),
                         help="the kind of board (default rp2, the Raspberry Pi Pico)")
    release.add_argument("--sign", type=Path, default=None, metavar="KEYFILE",
                         help="sign the bundle file with this private key (vora keygen)")

    keygen = sub.add_parser(
        "keygen", help="make a key for signing firmware bundles (vora update --sign)",
        description="Make an Ed25519 key pair for signing the bundles you share: KEYFILE (the "
                    "private key: keep it, readable by you only) and KEYFILE.pub (give it to "
                    "the people who install your bundles: vora update --trust KEYFILE.pub). "
                    "Your own public key is added to your trusted-keys file. docs/makers.md, "
                    "\"Signed bundles\".")
    keygen.add_argument("keyfile", type=Path, metavar="KEYFILE",
                        help="where to write the private key (KEYFILE.pub beside it)")
    keygen.add_argument("--name", default=None,
                        help="a one-word name for the key (default: the file's name)")

    doctor = sub.add_parser(
        "doctor", help="check a board: versions, memory, every pixel and every key",
        description="Find the board and print its firmware, protocol and MicroPython versions "
                    "and free memory, then a guided test on the board: every pixel in each "
                    "colour (with the brightness cap and the estimated current), and every key "
                    "pressed once (missing, stuck and ghosting keys are listed). Results as a "
                    "table, and as JSON with --json.")
    add_port_arguments(doctor)
    doctor.add_argument("--json", dest="json_file", default=None, metavar="FILE",
                        help="also write the results as JSON to FILE ('-': standard output, "
                             "instead of the table)")
    doctor.add_argument("--info", action="store_true",
                        help="only the versions and memory: no guided test")
    doctor.add_argument("--colour-s", type=seconds, default=None, metavar="SECONDS",
                        help="show each colour this long instead of waiting for Enter")
    doctor.add_argument("--keys-s", type=seconds, default=60.0, metavar="SECONDS",
                        help="time for pressing every key (default 60; Enter ends it early)")


def add_port_arguments(parser):
    """--port DEVICE, as in vora play, mirror and repl; the device alone (vora flash
    /dev/ttyACM0) is kept as a shorter spelling of the same."""
    parser.add_argument("--port", default=None, metavar="DEVICE",
                        help="the board's serial device (/dev/ttyACM0, COM3, 'sim' for the "
                             "virtual board; default: the board found on USB); also "
                             "accepted alone, without --port")
    parser.add_argument("port_alone", nargs="?", default=None, metavar="DEVICE",
                        help=argparse.SUPPRESS)


def port_of(args):
    """The device of --port or of the positional alias; ValueError when both name two."""
    alone = getattr(args, "port_alone", None)
    if alone is not None and args.port is not None and alone != args.port:
        raise ValueError("the board's device is given twice (%s and --port %s): give it "
                         "once, with --port" % (alone, args.port))
    return args.port if args.port is not None else alone


def _device(args, console):
    from vora_host.link import ports
    try:
        return ports.choose_port(port_of(args), must_exist=True)
    except ValueError as exc:
        console.print("[red]vora %s: %s[/red]" % (args.command, escape(str(exc))))
        return None
    except ports.NoBoard as exc:
        console.print("[red]vora %s: %s[/red]" % (args.command, escape(str(exc))))
        return None


def run(args, console):
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.command == "keygen":
        return _keygen(args, err)
    if args.command == "release":
        return _release(args, err)
    if args.command == "update" and args.bundle is not None:
        return _write_bundle(args, err)
    if args.command == "update" and args.sign is not None:
        err.print("[red]vora update: --sign signs a bundle file: it goes with --bundle FILE "
                  "(a bundle built for the board at hand needs no signature)[/red]")
        return 2
    bundle = None
    if args.command == "update" and args.source is not None:
        bundle = _read_trusted_bundle(args, err)  # before looking for a board
        if bundle is None:
            return 1
    device = _device(args, err)
    if device is None:
        return 1
    from vora_host.link import portlock
    try:
        # The port is this command's from start to end: flash and update open it more
        # than once (and mpremote in between), and no other program may slip in.
        with portlock.hold(device):
            if args.command == "flash":
                return _flash(args, device, err)
            if args.command == "update":
                return _update(args, device, err, bundle)
            from vora_host.maker import doctor
            return doctor.main(args, device, console, err)
    except portlock.PortBusy as exc:
        err.print("[red]vora %s: %s[/red]" % (args.command, escape(str(exc))))
        return 1


def _write_bundle(args, console):
    from vora_host.maker import bundle as bundles
    from vora_host.maker.update import write_bundle_file
    try:
        b = write_bundle_file(args.bundle, board=args.board_kind, sign=args.sign)
    except bundles.BundleError as exc:
        console.print("[red]vora update: %s[/red]" % escape(str(exc)))
        return 1
    if b.signer is not None:
        from vora_host.maker import signing
        how = ("vora update --from %s --port DEVICE (signed with key %s: people who install it trust "
               "%s.pub, with --trust)" % (escape(str(args.bundle)),
                                          signing.fingerprint(b.signer), escape(str(args.sign))))
    else:
        how = "vora update --from %s --allow-unsigned --port DEVICE (not signed: see --sign)" % escape(
            str(args.bundle))
    console.print("Wrote %s: %s. Install it on each board with: %s"
                  % (escape(str(args.bundle)), b.describe(), how))
    return 0


def _release(args, console):
    from vora_host.maker import bundle as bundles
    from vora_host.maker.release import write_release
    try:
        b, bundle_file, folder = write_release(args.out, board=args.board_kind, sign=args.sign)
    except bundles.BundleError as exc:
        console.print("[red]vora release: %s[/red]" % escape(str(exc)))
        return 1
    console.print("Firmware %s: %s\n  %s  (vora update --from, %s)\n  %s/  (the board's "
                  "files for mpremote alone: %s/INSTALL.txt)"
                  % (b.version, b.describe(), escape(str(bundle_file)),
                     "signed" if b.signer is not None else "not signed",
                     escape(str(folder)), escape(str(folder))))
    return 0


def _keygen(args, console):
    from vora_host.maker import signing
    try:
        public, line = signing.new_key(args.keyfile, args.name)
        trusted = signing.add_trusted(public, line)
    except signing.SigningError as exc:
        console.print("[red]vora keygen: %s[/red]" % escape(str(exc)))
        return 1
    console.print("Wrote the private key %s (keep it: readable by you only) and the public key "
                  "%s.pub:\n  %s\nAdded to your trusted keys (%s). Sign with: vora update "
                  "--bundle FILE --sign %s" % (escape(str(args.keyfile)), escape(str(args.keyfile)),
                                               escape(line), escape(str(trusted)),
                                               escape(str(args.keyfile))))
    return 0


def _read_trusted_bundle(args, console):
    """The bundle file of --from, whole and from a trusted maker (or --allow-unsigned);
    None after saying why not."""
    from vora_host.maker import bundle as bundles
    from vora_host.maker import signing
    try:
        bundle = bundles.read_bundle(args.source)
        trusted, path = signing.trusted_keys(args.trust)
        verdict, words = signing.check_trust(bundle, args.source, trusted, path,
                                             args.allow_unsigned)
    except (bundles.BundleError, signing.SigningError) as exc:
        console.print("[red]vora update: %s[/red]" % escape(str(exc)))
        return None
    console.print(("[yellow]vora update: %s[/yellow]" if verdict == "warning" else "%s")
                  % escape(words))
    return bundle


def _flash(args, device, console):
    from vora_host import resources
    from vora_host.maker.flash import Flasher, FlashFailed
    # No --pinmap: the shipped one for what the board says it is (flash.pinmap_for).
    pinmap = resources.pinmap_file(args.pinmap) if args.pinmap is not None else None
    flasher = Flasher(device, pinmap, console=console, progress=not args.no_progress,
                      romfs=args.romfs)
    try:
        result = flasher.run()
    except FlashFailed as exc:
        console.print("[red]vora flash: %s[/red]" % escape(str(exc)))
        return 1
    console.print("Done in %.1f s: %d files, %d bytes." % (result["seconds"], result["files"],
                                                          result["bytes"]))
    if result["romfs"] is not None:
        console.print("The code runs from the board's ROMFS partition (a %d-byte image)."
                      % result["romfs"])
    return 0


def _update(args, device, console, bundle=None):
    from vora_host.maker.update import Updater, UpdateFailed
    up = Updater(device, console=console, allow_downgrade=args.allow_downgrade,
                 wait_s=args.wait, progress=not args.no_progress)
    try:
        result = up.run(bundle)
    except UpdateFailed as exc:
        console.print("[red]vora update: %s[/red]" % escape(str(exc)))
        return 1
    console.print("Done in %.1f s: %d bytes sent%s." % (
        result["seconds"], result["sent"],
        ", resumed %d time(s)" % len(result["resumed"]) if result["resumed"] else ""))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: vora flash | vora update | vora doctor | vora keygen")
