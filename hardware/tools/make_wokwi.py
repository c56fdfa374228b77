#!/usr/bin/env python3
"""Generate the Wokwi simulator diagram of the Vora Board from the hardware data.

Reads   hardware/pinmap-rp2-pico.json  (row/column GPIOs, pixel data GPIO)
        hardware/layout.json           (the 49 keys, their names and frame x, y)
Writes  hardware/wokwi/diagram.json

What the diagram holds:
  * a Raspberry Pi Pico running MicroPython ("wokwi-pi-pico");
  * 49 push buttons ("wokwi-pushbutton", id "k_<key>", labelled with the key
    name) laid out like the board seen from above, North at the top;
  * 49 diodes ("chip-diode", id "d_<key>"): Wokwi has no built-in diode, so
    this is the custom chip in hardware/wokwi/chips/ (pins "A" and "C");
  * one 7x7 NeoPixel matrix ("wokwi-neopixel-matrix") on the pixel data GPIO.

Matrix wiring, for every key (x, y), diode direction col2row:
    col_pins[x] -- button 1.l/1.r ... button 2.l/2.r -- diode A ->|- diode C -- row_pins[y]
The firmware drives one row pin LOW at a time and reads the column pins with
pull-ups; a pressed key reads LOW on its column.

Pixels: the NeoPixel matrix part numbers its pixels row by row from its top-left
corner, alternating direction ("matrixLayout": "serpentine"). The board's chain
(pixel_order in the pin map) runs column by column from the south-west corner,
alternating direction. Both are the same snake, turned by a quarter turn, so the
part is rotated by 270 degrees to show the frame with North at the top, and the
firmware uses the very same pixel_order in the simulator and on the real board.

Usage:
    python hardware/tools/make_wokwi.py          # rewrite hardware/wokwi/diagram.json
    python hardware/tools/make_wokwi.py --check  # exit 1 if diagram.json is out of date
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HARDWARE = Path(__file__).resolve().parent.parent
PINMAP = HARDWARE / "pinmap-rp2-pico.json"
LAYOUT = HARDWARE / "layout.json"
DIAGRAM = HARDWARE / "wokwi" / "diagram.json"

# MicroPython build that wokwi.com boots on the Pico (ignored by Wokwi for VS
# Code, which boots the firmware named in wokwi.toml).
MICROPYTHON_ENV = "micropython-20241129-v1.24.1"

# Screen layout of the key grid, in Wokwi pixels.
PITCH_X = 170      # distance between two key columns
PITCH_Y = 100      # distance between two key rows
DIODE_DX = 85      # diode to the right of its button
DIODE_DY = 12
PICO_LEFT = 7 * PITCH_X + 90
PICO_TOP = 240
MATRIX_LEFT = -330
MATRIX_TOP = 220

BUTTON_COLOR = {"meadow": "green", "edge": "blue", "corner": "red"}
COLUMN_WIRE = "green"
ROW_WIRE = "blue"


def load_json(path: Path) -> dict:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def build_diagram(pinmap: dict, layout: dict) -> dict:
    """Return the Wokwi diagram (a dict ready for json) for this pin map and layout."""
    width, height = pinmap["frame_size"]
    rows, cols = pinmap["row_pins"], pinmap["col_pins"]
    if pinmap["diode_direction"] != "col2row":
        raise ValueError("the diagram is drawn for col2row diodes")
    name_at = {(k["x"], k["y"]): k["name"] for k in layout["keys"]}
    role_at = {(k["x"], k["y"]): k["role"] for k in layout["keys"]}

    parts: list[dict] = [
        {
            "type": "wokwi-pi-pico",
            "id": "pico",
            "top": PICO_TOP,
            "left": PICO_LEFT,
            "attrs": {"env": MICROPYTHON_ENV},
        },
        {
            "type": "wokwi-neopixel-matrix",
            "id": "pixels",
            "top": MATRIX_TOP,
            "left": MATRIX_LEFT,
            "rotate": 270,
            "attrs": {
                "rows": str(height),
                "cols": str(width),
                "matrixLayout": "serpentine",
                "pixelate": "circle",
            },
        },
    ]
    connections: list[list] = []

    for y in range(height - 1, -1, -1):          # north row first, like the board
        for x in range(width):
            name = name_at[(x, y)]
            left = x * PITCH_X
            top = (height - 1 - y) * PITCH_Y
            parts.append({
                "type": "wokwi-pushbutton",
                "id": f"k_{name}",
                "top": top,
                "left": left,
                "attrs": {"color": BUTTON_COLOR[role_at[(x, y)]], "label": name},
            })
            parts.append({
                "type": "chip-diode",
                "id": f"d_{name}",
                "top": top + DIODE_DY,
                "left": left + DIODE_DX,
                "attrs": {},
            })
            # switch -> diode anode
            connections.append([f"k_{name}:2.r", f"d_{name}:A", "gray", []])

    # Columns: chain the 1.l contacts of one column, bottom key to the Pico.
    bottom_lane = height * PITCH_Y + 60
    for x in range(width):
        for y in range(height - 1, 0, -1):
            upper, lower = name_at[(x, y)], name_at[(x, y - 1)]
            connections.append(
                [f"k_{upper}:1.l", f"k_{lower}:1.l", COLUMN_WIRE, ["h-12", "*", "h-12"]])
        down = bottom_lane + 10 * x - ((height - 1) * PITCH_Y + 13)
        connections.append(
            [f"k_{name_at[(x, 0)]}:1.l", f"pico:GP{cols[x]}", COLUMN_WIRE,
             ["h-12", f"v{down}"]])

    # Rows: chain the diode cathodes of one row, east end to the Pico.
    for y in range(height):
        for x in range(width - 1):
            here, east = name_at[(x, y)], name_at[(x + 1, y)]
            connections.append(
                [f"d_{here}:C", f"d_{east}:C", ROW_WIRE, ["v24", "*", "v24"]])
        connections.append(
            [f"d_{name_at[(width - 1, y)]}:C", f"pico:GP{rows[y]}", ROW_WIRE, ["v24"]])

    # Pixels: data straight from the GPIO (the real board has a 74AHCT125 level
    # shifter, a series resistor and a 1000 uF capacitor here, which a digital
    # simulator does not need) and 5 V from VBUS.
    connections += [
        [f"pico:GP{pinmap['pixel_pin']}", "pixels:DIN", "gold", []],
        ["pico:VBUS", "pixels:VCC", "red", []],
        ["pico:GND.8", "pixels:GND", "black", []],
    ]

    return {
        "version": 1,
        "author": "Vora Board (generated by hardware/tools/make_wokwi.py)",
        "editor": "wokwi",
        "parts": parts,
        "connections": connections,
        "dependencies": {},
    }


def render(diagram: dict) -> str:
    """JSON text with one part and one connection per line (small, readable diffs)."""
    head = {k: v for k, v in diagram.items() if k not in ("parts", "connections", "dependencies")}
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    lines.append('  "parts": [')
    lines.append(",\n".join("    " + json.dumps(p) for p in diagram["parts"]))
    lines.append("  ],")
    lines.append('  "connections": [')
    lines.append(",\n".join("    " + json.dumps(c) for c in diagram["connections"]))
    lines.append("  ],")
    lines.append(f'  "dependencies": {json.dumps(diagram["dependencies"])}')
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == diagram
    return text


def main(argv: list[str]) -> int:
    text = render(build_diagram(load_json(PINMAP), load_json(LAYOUT)))
    if "--check" in argv:
        current = DIAGRAM.read_text(encoding="utf-8") if DIAGRAM.exists() else ""
        if current != text:
            print(f"{DIAGRAM} is out of date: run python hardware/tools/make_wokwi.py",
                  file=sys.stderr)
            return 1
        print(f"{DIAGRAM} is up to date")
        return 0
    DIAGRAM.write_text(text, encoding="utf-8")
    print(f"wrote {DIAGRAM}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
