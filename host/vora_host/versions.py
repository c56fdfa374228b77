"""What this vora is and carries: its own version, the firmware version that `vora flash`
and `vora update` install (the firmware sources shipped with it), and the link protocol.
`vora --version` prints them; `vora doctor` compares a board's with them (compare)."""

import vora_fw
from shared_rules import wire
from vora_fw import update as fw_update
from vora_host import __version__

__all__ = ["HOST", "FIRMWARE", "PROTOCOL", "describe", "compare"]

HOST = __version__
FIRMWARE = vora_fw.VERSION
PROTOCOL = (wire.PROTOCOL_VERSION, wire.PROTOCOL_MINOR)


def describe():
    """The text of `vora --version`."""
    return ("vora %s\nfirmware %s (what vora flash and vora update install)\n"
            "protocol %d.%d" % (HOST, FIRMWARE, PROTOCOL[0], PROTOCOL[1]))


def compare(board_firmware, board_protocol, board_minor=0):
    """A board's firmware and protocol against this vora's, in words:
    (ok, text). ok is False when they cannot talk or when this vora has newer firmware."""
    try:
        proto = int(board_protocol)
        minor = int(board_minor or 0)
    except (TypeError, ValueError):
        return False, "the board names no protocol version (%r): update its firmware " \
                      "(vora flash)" % (board_protocol,)
    if proto != PROTOCOL[0]:
        newer = "the board's" if proto > PROTOCOL[0] else "this vora's"
        return False, ("protocol %d on the board, %d.%d here: they cannot talk; %s is newer, "
                       "so %s" % (proto, PROTOCOL[0], PROTOCOL[1], newer,
                                  "update vora (pipx upgrade vora-board)" if proto > PROTOCOL[0]
                                  else "update the board (vora update, else vora flash)"))
    try:
        have = fw_update.parse_version(board_firmware, "the board's firmware")
        carried = fw_update.parse_version(FIRMWARE)
    except fw_update.UpdateError as exc:
        return False, "%s: update it (vora flash)" % exc.message
    if have < carried:
        return False, ("the board runs firmware %s, this vora installs %s: vora update "
                       "brings the board to it" % (board_firmware, FIRMWARE))
    if have > carried:
        return True, ("the board runs firmware %s, newer than this vora's %s (protocol %d.%d "
                      "here, %d.%d there: they talk)" % (board_firmware, FIRMWARE,
                                                         PROTOCOL[0], PROTOCOL[1], proto, minor))
    return True, "the same firmware (%s) and protocol (%d) as this vora" % (FIRMWARE, proto)
