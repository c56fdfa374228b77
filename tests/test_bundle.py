"""Firmware bundles (host/vora_host/maker/bundle.py) and the makers' wire messages: a bundle
file round-trips, anything else (damaged, truncated, foreign, not ours, random bytes) is
refused with BundleError and nothing else, and a bundle is checked against the board it is
for before anything is sent."""

import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared_rules import wire, wire_host
from vora_fw import maker, update
from vora_host.maker import bundle as bundles
from vora_host.maker import signing

import bundle_mutation
from maker_support import full_bundle, small_bundle

PICO = {"fw": "0.1.0", "port": "rp2", "mpy": "6.3", "micropython": "1.24.1"}


def test_a_bundle_is_deterministic_and_round_trips(tmp_path):
    b = full_bundle("0.1.0")
    again = bundles.make_bundle(list(b.files), "rp2", tuple(b.manifest["mpy"]), "armv6m", "0.1.0")
    assert again.manifest_bytes == b.manifest_bytes and again.id == b.id
    path = tmp_path / "fw.vbundle"
    bundles.write_bundle(b, path)
    read = bundles.read_bundle(path)
    assert read.id == b.id and read.files == b.files and read.version == "0.1.0"
    assert read.size == len(b.manifest_bytes) + sum(len(d) for _, d in b.files)
    names = [n for n, _ in b.files]
    assert "vora_fw/start.mpy" in names and "shared_rules/vora.mpy" in names
    assert "vora_fw/boot.mpy" not in names  # the boot path lives at the root of the board
    assert all(d[:2] == b"M\x06" for _, d in b.files)  # .mpy v6


def test_the_version_of_a_bundle_is_the_version_its_code_reports():
    b = small_bundle("0.2.0")
    assert b.version == "0.2.0"
    init = dict(b.files)["vora_fw/__init__.mpy"]
    assert b"0.2.0" in init


def _file_bytes(b):
    return bytearray(bundles.to_bytes(b))


def _damaged(kind):
    b = small_bundle("0.2.0")
    data = _file_bytes(b)
    head = len(bundles.MAGIC) + 4 + len(b.manifest_bytes)
    if kind == "magic":
        return bytes(b"ZIP" + data[3:])
    if kind == "flip":
        data[head + 10] ^= 1
        return bytes(data)
    if kind == "truncated":
        return bytes(data[:-100])
    if kind == "truncated-manifest":
        return bytes(data[:len(bundles.MAGIC) + 10])
    if kind == "trailing":
        return bytes(data + b"more")
    if kind == "huge-manifest":
        return bundles.MAGIC + struct.pack(">I", 10 ** 6) + b"{}"
    if kind == "old-format":
        return bytes(bundles.OLD_MAGIC + data[len(bundles.MAGIC):])
    if kind == "not-canonical":  # the same fields, spaced out: not the bytes that were built
        mb = json.dumps(json.loads(b.manifest_bytes), indent=1).encode()
        return (bundles.MAGIC + struct.pack(">I", len(mb)) + mb
                + b"".join(d for _, d in b.files))
    if kind == "manifest-json":
        return bundles.MAGIC + struct.pack(">I", 4) + b"{{{{"
    if kind in ("foreign", "format", "whole"):
        m = json.loads(b.manifest_bytes)
        m.update({"foreign": {"board": "nintendo"}, "format": {"format": "tar"},
                  "whole": {"bundle": "0" * 64}}[kind])
        if kind == "foreign":  # built that way: its bundle hash matches
            m["bundle"] = bundles.seal_of(m).hex()
        mb = bundles.canonical_json(m)
        return bundles.MAGIC + struct.pack(">I", len(mb)) + mb + b"".join(d for _, d in b.files)
    raise AssertionError(kind)


@pytest.mark.parametrize("kind, words", [
    ("magic", "not a Vora Board firmware bundle"),
    ("flip", "does not match its SHA-256"),
    ("truncated", "truncated"),
    ("truncated-manifest", "truncated"),
    ("trailing", "after the last file"),
    ("huge-manifest", "at most"),
    ("manifest-json", "not JSON"),
    ("foreign", "nintendo"),
    ("format", "not a Vora Board firmware bundle"),
    ("whole", "does not match its bundle hash: it is damaged"),
    ("old-format", "format 1, written by an older vora"),
    ("not-canonical", "not written the way vora writes it"),
])
def test_damaged_and_foreign_bundle_files_are_refused_with_the_reason(tmp_path, kind, words):
    path = tmp_path / "b.vbundle"
    path.write_bytes(_damaged(kind))
    with pytest.raises(bundles.BundleError) as err:
        bundles.read_bundle(path)
    assert words in str(err.value) and str(path) in str(err.value)


def test_missing_and_oversized_files_are_refused(tmp_path):
    with pytest.raises(bundles.BundleError, match="cannot read"):
        bundles.read_bundle(tmp_path / "none.vbundle")
    big = tmp_path / "big.vbundle"
    with open(big, "wb") as f:
        f.truncate(bundles.MAX_BUNDLE + 1)
    with pytest.raises(bundles.BundleError, match="not a Vora bundle"):
        bundles.read_bundle(big)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=3000))
def test_random_bytes_are_refused_with_bundle_error_only(data):
    for candidate in (data, bundles.MAGIC + data):
        with pytest.raises(bundles.BundleError):
            bundles.parse_bundle(candidate)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_mutated_bundle_is_refused_or_exactly_the_bundle(data):
    good = bytes(_file_bytes(small_bundle("0.2.0")))
    raw = bytearray(good)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        i = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if op == "flip" and raw:
            raw[i] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del raw[i:i + data.draw(st.integers(1, 50))]
        else:
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=8))
    try:
        b = bundles.parse_bundle(bytes(raw))
    except bundles.BundleError as exc:
        assert str(exc)
        return
    # Accepted only when the mutations undid each other: then it is the bundle itself.
    assert bundles.to_bytes(b) == good


@pytest.mark.parametrize("text, at, bit", [
    (b"vora_fw/doctor.mpy", 13, 0x08),  # doctor.mpy becomes doctoz.mpy, a valid module name
    (b'"firmware":"0.2.0"', 14, 0x01),  # version 0.2.0 becomes 0.3.0
    (b'"arch":"armv6m"', 13, 0x02),  # armv6m becomes armv4m
])
def test_one_flipped_bit_in_a_manifest_name_or_version_is_refused(tmp_path, text, at, bit):
    data = _file_bytes(full_bundle("0.2.0"))
    data[bytes(data).index(text) + at] ^= bit
    path = tmp_path / "flipped.vbundle"
    path.write_bytes(bytes(data))
    with pytest.raises(bundles.BundleError) as err:
        bundles.read_bundle(path)
    assert str(path) in str(err.value) and "damaged" in str(err.value)


def test_a_bundle_is_checked_against_the_board_before_sending():
    b = small_bundle("0.2.0")
    bundles.check_for_board(b, PICO)
    with pytest.raises(bundles.BundleError, match="for rp2 boards, the board here is esp32"):
        bundles.check_for_board(b, dict(PICO, port="esp32"))
    with pytest.raises(bundles.BundleError, match=r"\.mpy v6\.3"):
        bundles.check_for_board(b, dict(PICO, mpy="6.1"))
    old = small_bundle("0.0.9")
    with pytest.raises(bundles.BundleError, match="--allow-downgrade"):
        bundles.check_for_board(old, PICO)
    bundles.check_for_board(old, PICO, allow_downgrade=True)


def test_unknown_board_kinds_are_refused():
    with pytest.raises(bundles.BundleError, match="unknown board kind"):
        bundles.build(board="amiga")


def test_versions_compare_as_numbers():
    assert update.parse_version("0.10.0") > update.parse_version("0.9.9")
    for bad in ("1.2", "1.2.3.4", "a.b.c", "1..2", 12, None, "1.2.-3"):
        with pytest.raises(update.UpdateError):
            update.parse_version(bad)


# ---------------------------------------------------------------- the wire messages

def test_update_payloads_round_trip_and_refuse_what_is_malformed():
    digest = bytes(range(32))
    p = wire_host.pack_upd_offer(3000, digest, allow_downgrade=True)
    assert len(p) == 37 and maker.unpack_upd_offer(p) == (3000, digest, True)
    assert maker.unpack_upd_offer(wire_host.pack_upd_offer(1, digest)) == (1, digest, False)
    for bad in (p[:-1], b"\x02" + p[1:], b"\x00" + b"\x00" * 4 + digest):
        with pytest.raises(wire.BadPayload):
            maker.unpack_upd_offer(bad)
    with pytest.raises(wire.BadPayload):
        wire_host.pack_upd_offer(0, digest)
    with pytest.raises(wire.BadPayload):
        wire_host.pack_upd_offer(10, b"short")
    d = wire_host.pack_upd_data(3, 70000, b"x" * wire_host.UPD_CHUNK)
    assert len(d) == wire.MAX_PAYLOAD
    f, o, data = maker.unpack_upd_data(d)
    assert (f, o, bytes(data)) == (3, 70000, b"x" * wire_host.UPD_CHUNK)
    for args in ((0, 0, b""), (0, 0, b"x" * (wire_host.UPD_CHUNK + 1)), (256, 0, b"x"),
                 (0, -1, b"x")):
        with pytest.raises(wire.BadPayload):
            wire_host.pack_upd_data(*args)
    with pytest.raises(wire.BadPayload):
        maker.unpack_upd_data(b"\x00\x00\x00\x00\x00")
    assert maker.unpack_upd_commit(wire_host.pack_upd_commit(digest)) == digest
    with pytest.raises(wire.BadPayload):
        maker.unpack_upd_commit(digest + b"x")
    assert maker.check_empty("UPD_QUERY", b"") == b""
    with pytest.raises(wire.BadPayload):
        maker.check_empty("UPD_QUERY", b"x")


def test_the_makers_types_are_in_their_range_and_framed_like_any_other():
    mine = [wire.UPD_OFFER, wire.UPD_DATA, wire.UPD_QUERY, wire.UPD_STATUS, wire.UPD_COMMIT,
            wire.UPD_ABORT, wire.UPD_RESET, wire.DIAG_REQ, wire.DIAG]
    assert all(0x40 <= t <= 0x5F for t in mine) and len(set(mine)) == len(mine)
    frame = wire.encode_frame(wire.UPD_DATA, 9, 4, wire_host.pack_upd_data(1, 0, b"\x00\x03" * 300))
    assert wire_host.decode_frame(frame)[:3] == (wire.UPD_DATA, 9, 4)
    assert wire.type_name(wire.DIAG) == "DIAG" and wire.PROTOCOL_MINOR >= 1


# ---------------------------------------------------------------- the mutation campaign

def test_no_bundle_with_a_few_flipped_bits_is_taken_by_the_pc_or_the_board():
    # The campaign's harness takes the undamaged bundle (so its zero means something)...
    pc, (board, confirmed) = bundle_mutation.control()
    assert pc and board and confirmed
    # ...and none of 300 copies with 1 to 4 bits flipped (bench/bench_bundle_mutation.py
    # runs 20,000; docs/benchmarks.md).
    r = bundle_mutation.campaign(300, seed=1)
    assert r["accepted"] == {"anywhere": 0, "manifest": 0}, r
    assert r["tried"]["manifest"] > 100 and r["pc_refused"] == 300
    assert r["board_refused"].get("hash", 0) > 100  # the bundle hash and the files' hashes


# ---------------------------------------------------------------- signed bundles

def _signed(tmp_path, version="0.2.0", name="ada"):
    key = tmp_path / ("%s.key" % name)
    signing.new_key(key, name)
    b = bundles.make_bundle(list(small_bundle(version).files), "rp2", (6, 3), "armv6m", version)
    return bundles.sign_bundle(b, key), key


def test_a_signed_bundle_round_trips_and_names_its_trusted_maker(tmp_path):
    b, key = _signed(tmp_path)
    path = tmp_path / "fw.vbundle"
    bundles.write_bundle(b, path)
    read = bundles.read_bundle(path)
    assert read.signer == b.signer and read.id == b.id
    trusted = signing.read_keys(str(key) + ".pub")
    verdict, words = signing.check_trust(read, path, trusted, tmp_path / "trusted-keys")
    assert verdict == "ok" and "signed by ada" in words and str(path) in words
    assert oct(key.stat().st_mode & 0o777) == "0o600"


def test_a_bundle_changed_after_signing_is_refused_naming_the_bundle(tmp_path):
    b, _ = _signed(tmp_path)
    other = small_bundle("0.3.0")  # a whole, valid bundle under the first one's signature
    forged = bundles.Bundle(other.manifest, other.manifest_bytes, other.files,
                            b.signer, b.signature)
    path = tmp_path / "forged.vbundle"
    path.write_bytes(bundles.to_bytes(forged))
    with pytest.raises(bundles.BundleError) as err:
        bundles.read_bundle(path)
    assert str(path) in str(err.value) and "signature does not verify" in str(err.value)
    data = bytearray(bundles.to_bytes(b))
    data[-1] ^= 0x01  # the signature itself damaged
    path.write_bytes(bytes(data))
    with pytest.raises(bundles.BundleError, match="signature does not verify"):
        bundles.read_bundle(path)


def test_unsigned_and_untrusted_bundles_need_the_users_word(tmp_path):
    b, _ = _signed(tmp_path, name="stranger")
    unsigned = small_bundle("0.2.0")
    where = tmp_path / "trusted-keys"
    with pytest.raises(signing.SigningError) as err:
        signing.check_trust(b, "fw.vbundle", {}, where)
    assert "fw.vbundle is signed by key vora-ed25519 " + b.signer.hex() in str(err.value)
    assert "--trust" in str(err.value)
    with pytest.raises(signing.SigningError, match="fw.vbundle is not signed.*--allow-unsigned"):
        signing.check_trust(unsigned, "fw.vbundle", {b.signer: "stranger"}, where)
    verdict, words = signing.check_trust(unsigned, "fw.vbundle", {}, where, allow_unsigned=True)
    assert verdict == "warning" and "not signed" in words


def test_key_files_are_checked_and_never_overwritten(tmp_path):
    _, key = _signed(tmp_path)
    with pytest.raises(signing.SigningError, match="exists already"):
        signing.new_key(key)
    bad = tmp_path / "bad.pub"
    bad.write_text("# a comment\nssh-ed25519 AAAA me\n")
    with pytest.raises(signing.SigningError, match="bad.pub line 2"):
        signing.read_keys(bad)
    (tmp_path / "not-a-key").write_text("hello")
    with pytest.raises(bundles.BundleError, match="not a private key"):
        bundles.sign_bundle(small_bundle("0.2.0"), tmp_path / "not-a-key")


def test_vora_keygen_sign_and_trust_from_the_command_line(tmp_path, monkeypatch, capsys):
    from vora_host.cli import main
    monkeypatch.setenv(signing.TRUSTED_ENV, str(tmp_path / "trusted-keys"))
    key = tmp_path / "ada.key"
    assert main(["keygen", str(key), "--name", "ada"]) in (0, None)
    assert signing.read_keys(tmp_path / "trusted-keys") == signing.read_keys(str(key) + ".pub")
    assert main(["keygen", str(key)]) == 1  # not overwritten
    assert "exists already" in capsys.readouterr().err
    out = tmp_path / "fw.vbundle"
    assert main(["update", str(tmp_path / "no-board"), "--sign", str(key)]) == 2
    assert "goes with --bundle" in capsys.readouterr().err
    assert main(["update", "--bundle", str(out), "--sign", str(key)]) in (0, None)
    assert "signed with key" in capsys.readouterr().err
    assert bundles.read_bundle(out).signer == signing.read_keys(str(key) + ".pub").popitem()[0]
    # A trusted bundle goes on to look for the board (none here)...
    assert main(["update", str(tmp_path / "no-board"), "--from", str(out), "--wait", "0"]) == 1
    said = capsys.readouterr().err
    # (a device that is not there is said with the system's words, issue 38.12)
    assert "is signed by ada" in said and "No such file or directory" in said
    # ...one from an unknown maker, or unsigned, is refused before that, naming the file.
    monkeypatch.setenv(signing.TRUSTED_ENV, str(tmp_path / "nobody-trusted"))
    assert main(["update", str(tmp_path / "no-board"), "--from", str(out)]) == 1
    said = capsys.readouterr().err
    assert "not among your trusted keys" in said and "fw.vbundle" in said
    assert "No such file or directory" not in said  # refused before looking for a board
    assert main(["update", str(tmp_path / "no-board"), "--from", str(out),
                 "--trust", str(key) + ".pub"]) == 1
    assert "is signed by ada" in capsys.readouterr().err
    unsigned = tmp_path / "unsigned.vbundle"
    bundles.write_bundle(small_bundle("0.2.0"), unsigned)
    assert main(["update", str(tmp_path / "no-board"), "--from", str(unsigned)]) == 1
    said = capsys.readouterr().err
    assert "unsigned.vbundle is not signed" in said and "no Vora Board" not in said
    assert main(["update", str(tmp_path / "no-board"), "--from", str(unsigned),
                 "--allow-unsigned"]) == 1
    said = capsys.readouterr().err
    assert "--allow-unsigned" in said and "No such file or directory" in said


def test_an_old_board_refusing_the_new_format_is_told_to_use_vora_flash():
    from vora_host.maker.update import _refusal
    # What a board whose firmware reads bundle format 1 answers to this vora's bundles.
    said = _refusal({"state": "error", "code": "format",
                     "error": "bundle format version 2; this firmware reads version 1"})
    assert "bundle format version 2" in said and "vora flash" in said
    assert "vora flash" not in _refusal({"state": "error", "code": "format",
                                         "error": "the bundle has no vora_fw/start module"})


def test_the_boards_modules_carry_no_line_tables_and_tracebacks_name_the_function(tmp_path):
    # Issue 40: on a stock Pico the code sits on the heap, and the line tables were some
    # 3.7 KB of it. A traceback on the board names the file and the function; the line it
    # gives is 1 (MicroPython's number for "not known"), as docs/makers.md says.
    import subprocess
    from mpy import unix_micropython
    source = "x = 1\n\n\ndef f():\n    y = 2\n    raise ValueError('here %d' % y)\n"
    (tmp_path / "m.mpy").write_bytes(bundles.compile_source(source, "firmware/vora_fw/m.py"))
    with_lines = tmp_path / "with_lines.mpy"
    subprocess.run([bundles.mpy_cross(), "-o", str(with_lines), "-s",
                    "firmware/vora_fw/m.py", "-"], input=source.encode(), check=True)
    assert len((tmp_path / "m.mpy").read_bytes()) < len(with_lines.read_bytes())
    done = subprocess.run(
        [unix_micropython(), "-c", "import sys\nimport m\ntry:\n    m.f()\nexcept ValueError "
         "as e:\n    sys.print_exception(e)"], capture_output=True, text=True,
        cwd=str(tmp_path), timeout=60)
    assert 'File "firmware/vora_fw/m.py", line 1, in f' in done.stdout, done.stdout
    assert "ValueError: here 2" in done.stdout
