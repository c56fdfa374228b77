"""Building the package: everything is in pyproject.toml, except one step that it cannot say.

The files the commands read at run time that live outside the packages (the pin maps in
hardware/, firmware/main.py, the REPL runner in tools/, package.json) are copied into
vora_host/shipped/ of the build, so that an installed `vora` has them (vora_host/resources.py
lists them and reads them). A checkout (editable install, ./dev) reads the originals.
"""

import runpy
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class build_py_with_shipped(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's files
        listed = runpy.run_path(str(HERE / "host" / "vora_host" / "resources.py"))
        target = Path(self.build_lib) / "vora_host" / listed["SHIPPED_DIR"]
        target.mkdir(parents=True, exist_ok=True)
        for name, source in listed["SHIPPED"].items():
            src = HERE / source
            if not src.is_file():
                raise SystemExit("cannot build vora-board: %s is missing (the sdist's "
                                 "MANIFEST.in must list it)" % source)
            shutil.copyfile(src, target / name)


setup(cmdclass={"build_py": build_py_with_shipped})
