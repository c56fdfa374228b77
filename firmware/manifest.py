# The Vora Board firmware frozen into a MicroPython build: its modules become part of the
# firmware image and run from flash, like ROMFS (vora flash --romfs), on any MicroPython
# version the firmware supports. docs/makers.md ("A frozen firmware") gives the steps:
#
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=<this checkout>/firmware/manifest.py
#
# MicroPython's build reads this file (its manifest syntax: include, package, module);
# relative paths are from this folder. tests/test_frozen_manifest.py checks that it names
# every module a version slot holds (vora_host.maker.bundle.sources), and nothing else.

# The port's own frozen modules (asyncio, which the firmware's app needs, and the rest).
include("$(PORT_DIR)/boards/manifest.py")

# The firmware: every module of vora_fw, boot.py included (/main.py falls back to
# vora_fw.boot when /vora_boot.mpy is not on the filesystem).
package(
    "vora_fw",
    files=(
        "__init__.py",
        "app.py",
        "boot.py",
        "bot.py",
        "clock.py",
        "doctor.py",
        "hal_circuitpython.py",
        "hal_rp2.py",
        "hal_sim.py",
        "keysample.py",
        "keyscan.py",
        "layout.py",
        "link.py",
        "maker.py",
        "maker_mode.py",
        "movelog.py",
        "palette.py",
        "pixels.py",
        "saved_game.py",
        "start.py",
        "store.py",
        "update.py",
        "vora_ui.py",
        "vora_ui_frames.py",
        "vora_ui_keys.py",
        "vora_ui_restore.py",
    ),
    base_path=".",
)

# What the board needs of the rules (vora_host.maker.bundle.BOARD_RULES); the other games'
# rules run on the PC.
package(
    "shared_rules",
    files=(
        "__init__.py",
        "checks.py",
        "errors.py",
        "games.py",
        "prng.py",
        "session.py",
        "vora.py",
        "vora_meadow.py",
        "vora_position.py",
        "wire.py",
    ),
    base_path="..",
)
