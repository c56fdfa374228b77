"""Files the commands read at run time that are not Python modules of the packages: the
reference pin maps and layout (hardware/), the board's /main.py (firmware/), the virtual
board's REPL runner (tools/) and the pinned WebAssembly MicroPython (package.json).

They live where makers and developers look for them, in the repository; building the
package (setup.py) copies each into vora_host/shipped/, so an installed `vora` (pipx, pip,
no checkout) reads them with importlib.resources. In a checkout the repository's own file
is read, so an edit there counts at once. The firmware's and the rules' sources are
modules of vora_fw and shared_rules: they are found through those packages (firmware_dirs).

This module is also read by setup.py when the package is built: only the standard library.
"""

from pathlib import Path

__all__ = ["SHIPPED", "MissingResource", "path", "read_bytes", "firmware_dirs", "checkout",
           "pinmap_file"]

#: Name in vora_host/shipped/ -> the file in the repository it is a copy of.
SHIPPED = {
    "pinmap-rp2-pico.json": "hardware/pinmap-rp2-pico.json",
    "pinmap-rp2-pico2.json": "hardware/pinmap-rp2-pico2.json",
    "pinmap-esp32-s3.json": "hardware/pinmap-esp32-s3.json",
    "layout.json": "hardware/layout.json",
    "main.py": "firmware/main.py",
    "mpy_repl.mjs": "tools/mpy_repl.mjs",
    "mpy_repl_prelude.py": "tools/mpy_repl_prelude.py",
    "package.json": "package.json",
}

SHIPPED_DIR = "shipped"
_CHECKOUT = Path(__file__).resolve().parents[2]  # host/vora_host/ of a checkout


class MissingResource(OSError):
    """A shipped file that is in neither the installed package nor a checkout."""


def checkout():
    """The repository this package runs from (an editable install, ./dev), else None."""
    return _CHECKOUT if (_CHECKOUT / "pyproject.toml").is_file() \
        and (_CHECKOUT / "host" / "vora_host").is_dir() else None


def path(name):
    """A file path of the shipped file `name` (a key of SHIPPED): the installed package's
    copy, else the checkout's file. MissingResource names both places otherwise."""
    if name not in SHIPPED:
        raise KeyError("%r is not a file vora ships (resources.SHIPPED)" % (name,))
    here = Path(__file__).parent
    if here.is_dir():
        # The package is a folder (installed from a wheel, or a checkout): what
        # importlib.resources would find is in it, without loading that machinery (some
        # 5 ms, zipfile's module among it) at every virtual board's start.
        packaged = here / SHIPPED_DIR / name
    else:
        from importlib import resources as _resources
        packaged = _resources.files(__package__).joinpath(SHIPPED_DIR).joinpath(name)
    if packaged.is_file():
        # Installed from a wheel: a plain folder (node and mpy-cross need a real path).
        return Path(str(packaged))
    root = checkout()
    if root is not None and (root / SHIPPED[name]).is_file():
        return root / SHIPPED[name]
    raise MissingResource(
        "vora's file %s is missing: the installed package has no %s/%s and there is no "
        "checkout around it with %s (reinstall: pipx reinstall vora-board)"
        % (name, SHIPPED_DIR, name, SHIPPED[name]))


def pinmap_file(given):
    """The pin map file of a --pinmap value: that file when it exists, else the shipped pin
    map it names ("esp32-s3", "pinmap-esp32-s3.json", "hardware/pinmap-esp32-s3.json": an
    installed vora has no hardware/ folder), else the path as given (its caller says it
    does not exist)."""
    given = Path(given)
    if given.exists():
        return given
    name = given.name if given.name.startswith("pinmap-") else "pinmap-%s" % given.name
    if not name.endswith(".json"):
        name += ".json"
    if name in SHIPPED:
        try:
            return path(name)
        except MissingResource:
            pass
    return given


def read_bytes(name):
    return path(name).read_bytes()


def firmware_dirs():
    """The folders of the firmware's and the board rules' sources, as installed:
    {"shared_rules": folder, "vora_fw": folder} (a checkout's shared_rules/ and
    firmware/vora_fw/ when run from one)."""
    import shared_rules
    import vora_fw
    return {"shared_rules": Path(shared_rules.__file__).resolve().parent,
            "vora_fw": Path(vora_fw.__file__).resolve().parent}
