"""docs/makers.md shows what `vora --version` prints and the protocol a board says (issue
38, docs: it showed protocol 1.1 while vora printed 2.1)."""

import re
from pathlib import Path

from shared_rules import wire
from vora_host import versions

DOC = (Path(__file__).resolve().parents[1] / "docs" / "makers.md").read_text(encoding="utf-8")
PROTOCOL = (wire.PROTOCOL_VERSION, wire.PROTOCOL_MINOR)


def test_the_version_block_is_what_vora_version_prints():
    assert "```\n%s\n```" % versions.describe() in DOC


def test_every_protocol_the_guide_shows_is_the_codes():
    said = [tuple(int(x) for x in m) for m in re.findall(r"\(protocol (\d+)\.(\d+)\)", DOC)]
    said += [tuple(int(x) for x in m)
             for m in re.findall(r'"protocol": \[(\d+), (\d+)\]', DOC)]
    assert said and set(said) == {PROTOCOL}, said
