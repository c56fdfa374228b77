"""Files holding a live game's seed are private (0600 in 0700 folders), whatever the umask;
keygen's files get their modes explicitly and never go through a symbolic link
(vora_host.private_files, docs/secrets.md)."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from vora_host import private_files
from vora_host.log import live
from vora_host.log.records import new_record, write_record
from vora_host.log.store import CannotWrite, GameLog, default_db_path
from vora_host.maker import bundle as bundles
from vora_host.maker import signing
from vora_host.play import saved

from maker_support import small_bundle

ROOT = Path(__file__).resolve().parent.parent
UMASKS = [0o022, 0o000]


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture(params=UMASKS, ids=["umask022", "umask000"])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def start_a_game(log, seed=12345678901234567890):
    return log.start_game(game="boars", players=2, seed=seed, options={}, source="terminal")


# ---------------------------------------------------------------- the game log

def test_a_new_log_its_wal_and_shm_and_the_folders_vora_makes_are_private(tmp_path, umask):
    path = tmp_path / "made" / "by" / "vora" / "games.sqlite3"
    log = GameLog(path)
    try:
        start_a_game(log)
        # SQLite made the -wal and -shm itself while the log is open: the main file's modes.
        files = [path, Path(str(path) + "-wal"), Path(str(path) + "-shm")]
        assert all(f.exists() for f in files)
        assert [oct(mode(f)) for f in files] == [oct(0o600)] * 3
    finally:
        log.close()
    assert [oct(mode(d)) for d in (tmp_path / "made", tmp_path / "made" / "by", path.parent)] \
        == [oct(0o700)] * 3
    assert mode(tmp_path) == 0o700  # pytest's own folder, untouched


def test_an_existing_0644_log_is_tightened_to_0600_and_the_message_says_so(tmp_path, capsys):
    path = tmp_path / "games.sqlite3"
    GameLog(path).close()
    os.chmod(path, 0o644)
    capsys.readouterr()
    log = GameLog(path)
    said = capsys.readouterr().err
    log.close()
    assert mode(path) == 0o600
    assert said.count("\n") == 1, said
    assert "the game log %s" % path in said and "mode 0644" in said and "now 0600" in said
    GameLog(path).close()  # once: a private log is opened without a word
    assert capsys.readouterr().err == ""


def test_the_log_commands_tighten_an_old_log_and_say_so_on_stderr(tmp_path):
    path = tmp_path / "games.sqlite3"
    log = GameLog(path)
    start_a_game(log)
    log.close()
    os.chmod(path, 0o644)
    done = subprocess.run([sys.executable, "-m", "vora_host", "games", "list", "--db", str(path)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env=dict(os.environ, COLUMNS="200", NO_COLOR="1"))
    assert done.returncode == 0, done.stderr
    assert "%s was open to other accounts on this PC (mode 0644): it is now 0600" % path \
        in done.stderr
    assert mode(path) == 0o600


def test_vora_s_own_data_folder_is_tightened_a_folder_the_user_chose_is_not(tmp_path, monkeypatch,
                                                                           capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    own = default_db_path()
    assert own.parent == tmp_path / "data" / "vora"
    own.parent.mkdir(parents=True, mode=0o755)
    os.chmod(own.parent, 0o755)
    GameLog(own).close()
    assert mode(own.parent) == 0o700 and mode(own) == 0o600
    assert "vora's data folder %s was open to other accounts on this PC (mode 0755)" \
        % own.parent in capsys.readouterr().err
    chosen = tmp_path / "shared"
    chosen.mkdir()
    os.chmod(chosen, 0o755)
    GameLog(chosen / "games.sqlite3").close()
    assert mode(chosen) == 0o755 and mode(chosen / "games.sqlite3") == 0o600


def test_a_journal_left_beside_an_old_log_is_tightened_too(tmp_path):
    path = tmp_path / "games.sqlite3"
    keep = GameLog(path)  # open: its -wal and -shm stay
    start_a_game(keep)
    for suffix in ("", "-wal", "-shm"):
        os.chmod(str(path) + suffix, 0o644)
    GameLog(path).close()
    assert [mode(str(path) + s) for s in ("", "-wal", "-shm")] == [0o600] * 3
    keep.close()


def test_a_log_that_is_a_symbolic_link_to_nothing_is_refused_not_created(tmp_path):
    target = tmp_path / "elsewhere.sqlite3"
    path = tmp_path / "games.sqlite3"
    path.symlink_to(target)
    with pytest.raises(CannotWrite, match="symbolic link to .*elsewhere.sqlite3.*does not exist"):
        GameLog(path)
    assert not target.exists()


# ---------------------------------------------------------------- beside the log

def test_the_seat_notes_are_private_and_an_old_one_is_tightened(tmp_path, umask, capsys):
    db = tmp_path / "games.sqlite3"
    saved.note_seats(db, 3, [object(), object()])
    note = Path(str(db) + ".seats.json")
    assert mode(note) == 0o600
    assert saved.seats_noted(db, 3, 2) == ["human", "human"]
    os.chmod(note, 0o644)
    capsys.readouterr()
    assert saved.seats_noted(db, 3, 2) == ["human", "human"]
    assert mode(note) == 0o600 and "mode 0644" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]


def test_the_seat_notes_of_a_postgresql_log_go_private_into_vora_s_data_folder(
        tmp_path, monkeypatch, umask):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = "postgresql://vora:secret@db.example/vora"
    saved.note_seats(url, 1, [object(), object()])
    folder = tmp_path / "data" / "vora"
    [note] = list(folder.iterdir())
    assert note.name.endswith(".seats.json") and mode(note) == 0o600
    assert mode(folder) == 0o700 and mode(tmp_path / "data") == 0o700


def test_a_record_is_private_whatever_the_umask_and_replaces_a_link(tmp_path, umask):
    path = tmp_path / "game.json"
    elsewhere = tmp_path / "elsewhere.json"
    path.symlink_to(elsewhere)
    write_record(path, new_record(2, 99, {}, game="boars"))
    assert not path.is_symlink() and not elsewhere.exists()
    assert mode(path) == 0o600 and json.loads(path.read_text())["seed"] == 99
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_vora_play_leaves_its_log_note_and_record_private_at_umask_000(tmp_path):
    """A hidden game stopped before its end: the log, the seat notes and --record all hold
    its seed, which nobody else on the PC may read."""
    db = tmp_path / "log" / "games.sqlite3"
    record = tmp_path / "boars.json"
    done = subprocess.run(
        [sys.executable, "-m", "vora_host", "play", "boars", "--typed", "--db", str(db),
         "--record", str(record)],
        input="", capture_output=True, text=True, timeout=120, cwd=ROOT,
        env=dict(os.environ, COLUMNS="200", NO_COLOR="1"), preexec_fn=lambda: os.umask(0))
    assert done.returncode == 0, done.stderr
    assert json.loads(record.read_text())["result"]["over"] is False
    assert {p.name: oct(mode(p)) for p in (db.parent, db, Path(str(db) + ".seats.json"),
                                           record)} \
        == {"log": oct(0o700), "games.sqlite3": oct(0o600),
            "games.sqlite3.seats.json": oct(0o600), "boars.json": oct(0o600)}


def test_a_rescued_game_is_private(tmp_path, monkeypatch, umask):
    monkeypatch.setattr(live.tempfile, "gettempdir", lambda: str(tmp_path))
    message = live.save_rescue('{"seed": 1}', "the log", "the disk is full")
    [saved_file] = list(tmp_path.iterdir())
    assert str(saved_file) in message and mode(saved_file) == 0o600


def test_a_private_file_is_never_made_through_a_symbolic_link(tmp_path):
    link = tmp_path / "file"
    link.symlink_to(tmp_path / "target")
    with pytest.raises(FileExistsError):
        private_files.create(link)
    assert not (tmp_path / "target").exists()


# ---------------------------------------------------------------- vora keygen

def test_keygen_sets_each_file_s_mode_whatever_the_umask(tmp_path, monkeypatch, umask):
    trusted = tmp_path / "config" / "vora" / "trusted-keys"
    monkeypatch.setenv(signing.TRUSTED_ENV, str(trusted))
    key = tmp_path / "ada.key"
    public, line = signing.new_key(key, "ada")
    signing.add_trusted(public, line)
    assert {p.name: oct(mode(p)) for p in (key, Path(str(key) + ".pub"), trusted)} \
        == {"ada.key": oct(0o600), "ada.key.pub": oct(0o644), "trusted-keys": oct(0o644)}
    assert mode(trusted.parent) == 0o700


def test_keygen_refuses_a_dangling_symbolic_link_at_its_pub_file(tmp_path, monkeypatch):
    monkeypatch.setenv(signing.TRUSTED_ENV, str(tmp_path / "trusted-keys"))
    key = tmp_path / "ada.key"
    target = tmp_path / "somewhere-else"
    Path(str(key) + ".pub").symlink_to(target)
    with pytest.raises(signing.SigningError, match="ada.key.pub exists already.*symbolic link"):
        signing.new_key(key, "ada")
    assert not target.exists() and not key.exists()


def test_keygen_refuses_a_dangling_symbolic_link_at_the_trusted_keys_file(tmp_path, monkeypatch):
    trusted = tmp_path / "trusted-keys"
    target = tmp_path / "somewhere-else"
    trusted.symlink_to(target)
    monkeypatch.setenv(signing.TRUSTED_ENV, str(trusted))
    public, line = signing.new_key(tmp_path / "ada.key", "ada")
    with pytest.raises(signing.SigningError, match="symbolic link to .*somewhere-else"):
        signing.add_trusted(public, line)
    assert not target.exists()


def test_a_trusted_keys_file_others_may_change_is_made_theirs_no_more(tmp_path, monkeypatch,
                                                                       capsys):
    trusted = tmp_path / "trusted-keys"
    monkeypatch.setenv(signing.TRUSTED_ENV, str(trusted))
    public, line = signing.new_key(tmp_path / "ada.key", "ada")
    signing.add_trusted(public, line)
    os.chmod(trusted, 0o666)  # as an older keygen left it at umask 000
    capsys.readouterr()
    keys, _ = signing.trusted_keys()
    assert public in keys and mode(trusted) == 0o644
    said = capsys.readouterr().err
    assert "the trusted-keys file %s was writable by other accounts" % trusted in said
    assert "mode 0666" in said


# ---------------------------------------------------------------- what docs/secrets.md says

def test_a_signed_bundle_with_its_signature_cut_off_is_an_unsigned_one(tmp_path):
    """docs/secrets.md: --allow-unsigned installs such a bundle; without it, it is refused."""
    key = tmp_path / "ada.key"
    signing.new_key(key, "ada")
    plain = small_bundle("0.2.0")  # shared by the tests: signed as a copy
    signed = bundles.sign_bundle(bundles.make_bundle(list(plain.files), "rp2", (6, 3), "armv6m",
                                                     "0.2.0"), key)
    data = bundles.to_bytes(signed)
    cut = tmp_path / "cut.vbundle"
    cut.write_bytes(data[:-bundles.SIGNATURE_BLOCK])
    read = bundles.read_bundle(cut)
    assert read.signer is None and read.id == signed.id  # the same firmware, nobody's name
    trusted = {signed.signer: "ada"}
    with pytest.raises(signing.SigningError, match="is not signed"):
        signing.check_trust(read, str(cut), trusted, tmp_path / "trusted-keys")
    verdict, words = signing.check_trust(read, str(cut), trusted, tmp_path / "trusted-keys",
                                         allow_unsigned=True)
    assert verdict == "warning" and "not signed" in words
