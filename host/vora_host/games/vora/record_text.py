"""Vora's options in the game log's text format (vora_host.log.formats): the box as the
position notation writes it, a letter and a count per cube type (P12C12W12M12D12L12S12A12G12,
"-" for an empty box), as exports have always carried it. Every other option of Vora uses
the generic text of its kind."""

import re

from shared_rules import vora

__all__ = ["OPTION_TEXT", "box_text", "box_from_text"]


def box_text(box):
    """A box of cubes {type: count} as P12C12... ("-" if empty)."""
    text = "".join("%s%d" % (vora.LETTERS[t], box[name])
                   for t, name in enumerate(vora.TYPES) if box.get(name))
    return text or "-"


# ASCII digits: \d (and int()) would take other scripts' digits too.
_BOX_RE = re.compile(r"(?:[%s][0-9]{1,3}){1,%d}" % (vora.LETTERS, len(vora.TYPES)))


def box_from_text(text):
    """The box of box_text(); ValueError with a clear message otherwise."""
    box = dict((t, 0) for t in vora.TYPES)
    seen = []
    if text == "-":
        return box
    if not _BOX_RE.fullmatch(text):
        raise ValueError("the box is a letter and a count per cube type, in the order %s, "
                         "e.g. P12C12W12M12D12L12S12A12G12; not %r"
                         % (vora.LETTERS, text[:60]))
    for letter, count in re.findall(r"([A-Z])([0-9]+)", text):
        name = vora.TYPES[vora.LETTERS.index(letter)]
        if letter in seen:
            raise ValueError("the box names %s twice" % letter)
        seen.append(letter)
        box[name] = int(count)
    return box


OPTION_TEXT = {"box": (box_text, box_from_text)}
