"""Checks of the reference-hardware data in hardware/ (pin maps, layout, Wokwi diagram).

The firmware reads these files at run time, so they must be consistent with each
other and with the board they describe.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    tomllib = None

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"
PINMAPS = {
    "rp2-pico": HARDWARE / "pinmap-rp2-pico.json",
    "rp2-pico2": HARDWARE / "pinmap-rp2-pico2.json",
    "esp32-s3": HARDWARE / "pinmap-esp32-s3.json",
}
WIDTH = HEIGHT = 7
ALL_CELLS = {(x, y) for x in range(WIDTH) for y in range(HEIGHT)}
FILES = "abcde"

# GPIOs a pin map must never use for the matrix or the pixels.
FORBIDDEN = {
    # Pico: GP23 SMPS mode, GP24 VBUS sense, GP25 LED, GP29 VSYS sense; the Pico 2 the same
    # (pico-sdk's boards/pico2.h: PICO_SMPS_MODE_PIN 23, PICO_VBUS_PIN 24, LED 25,
    # PICO_VSYS_PIN 29).
    "rp2-pico": {23, 24, 25, 29},
    "rp2-pico2": {23, 24, 25, 29},
    # ESP32-S3-DevKitC-1: strapping 0/3/45/46, USB 19/20, flash and PSRAM 26..37,
    # UART0 console 43/44, on-board RGB LED 38 (v1.1) and 48 (v1.0).
    "esp32-s3": {0, 3, 45, 46, 19, 20, 43, 44, 38, 48} | set(range(26, 38)),
}
# The Pico 2's RP2350A has the RP2040's 30 GPIOs (the RP2350B's 48 are not on a Pico 2).
VALID_GPIOS = {"rp2-pico": set(range(0, 30)), "rp2-pico2": set(range(0, 30)),
               "esp32-s3": set(range(0, 49)) - {22, 23, 24, 25}}


def load(path: Path) -> dict:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def layout() -> dict:
    return load(HARDWARE / "layout.json")


@pytest.fixture(scope="module")
def pico() -> dict:
    return load(PINMAPS["rp2-pico"])


@pytest.fixture(scope="module")
def diagram() -> dict:
    return load(HARDWARE / "wokwi" / "diagram.json")


# ---------------------------------------------------------------- pin maps


@pytest.mark.parametrize("board", sorted(PINMAPS))
def test_pinmap_matrix_pins(board: str) -> None:
    pm = load(PINMAPS[board])
    rows, cols = pm["row_pins"], pm["col_pins"]
    assert pm["frame_size"] == [WIDTH, HEIGHT]
    assert len(rows) == HEIGHT and len(set(rows)) == HEIGHT
    assert len(cols) == WIDTH and len(set(cols)) == WIDTH
    used = rows + cols + [pm["pixel_pin"]]
    assert all(isinstance(p, int) and not isinstance(p, bool) for p in used)
    assert len(set(used)) == len(used), "a GPIO is used twice (rows, columns, pixel data)"
    assert set(used) <= VALID_GPIOS[board]
    assert not set(used) & FORBIDDEN[board], set(used) & FORBIDDEN[board]
    reserved = {r["pin"] for r in pm["reserved_pins"]}
    assert FORBIDDEN[board] <= reserved, "every forbidden GPIO is listed with its use"
    assert not set(used) & reserved
    free = set(pm["free_pins"])
    assert not free & set(used) and not free & reserved and free <= VALID_GPIOS[board]
    assert pm["diode_direction"] in ("col2row", "row2col")


@pytest.mark.parametrize("board", sorted(PINMAPS))
def test_pinmap_settings(board: str) -> None:
    pm = load(PINMAPS[board])
    assert pm["pixel_count"] == WIDTH * HEIGHT
    assert pm["color_order"] == "GRB"
    assert 0 < pm["brightness_cap"] <= 255
    assert pm["rotation"] in (0, 90, 180, 270)
    assert 1 <= pm["scan_period_ms"] <= 20
    assert pm["debounce_ms"] >= pm["scan_period_ms"]


@pytest.mark.parametrize("board", sorted(PINMAPS))
def test_pixel_order_is_a_serpentine_over_the_frame(board: str) -> None:
    order = [tuple(c) for c in load(PINMAPS[board])["pixel_order"]]
    assert len(order) == WIDTH * HEIGHT
    assert set(order) == ALL_CELLS, "every frame cell exactly once"
    assert order[0] == (0, 0), "the chain starts at the south-west corner"
    for (x0, y0), (x1, y1) in zip(order, order[1:]):
        assert abs(x1 - x0) + abs(y1 - y0) == 1, f"{(x0, y0)} -> {(x1, y1)} are not neighbours"


def test_all_boards_share_the_frame_data() -> None:
    a, *others = (load(p) for p in PINMAPS.values())
    for b in others:
        for key in ("frame_size", "pixel_order", "pixel_count", "color_order",
                    "diode_direction"):
            assert a[key] == b[key], key


def test_the_pico_2_map_is_the_picos_but_for_the_board() -> None:
    # The Pico 2 is pin-compatible: same header, same GPIO numbers, same on-board pins.
    # A maker rewires nothing; the map only names the board (it reaches the PC in the hello).
    pico, pico2 = load(PINMAPS["rp2-pico"]), load(PINMAPS["rp2-pico2"])
    assert set(pico) == set(pico2)
    assert {k for k in pico if pico[k] != pico2[k]} == {"about", "board"}
    assert pico2["board"] == "Raspberry Pi Pico 2 (RP2350)" and pico2["port"] == "rp2"
    # Its inputs are pulled up, never down (RP2350-E9): hardware/README.md says why.
    assert "RP2350-E9" in pico2["about"]
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert "RP2350-E9" in readme and "pinmap-rp2-pico2.json" in readme


@pytest.mark.parametrize("board", sorted(PINMAPS))
def test_current_budget_fits_usb(board: str) -> None:
    pm = load(PINMAPS[board])
    count = pm["pixel_count"]
    per_channel = pm["ma_per_channel_full"]
    assert 15 <= per_channel <= 20
    # Full white on every pixel would draw about 2.9 A: far beyond USB.
    full_white_ma = count * 3 * per_channel
    assert full_white_ma > 2500
    # Allowed sum of all 8-bit channel values over the whole chain.
    cap = pm["current_budget_ma"] * 255 // per_channel
    assert pm["max_channel_sum"] == cap
    assert cap * per_channel / 255 <= pm["current_budget_ma"]
    total_ma = (pm["current_budget_ma"] + count * pm["idle_ma_per_pixel"]
                + pm["controller_ma"] + pm["level_shifter_ma"])
    assert pm["supply_ma"] == 500
    assert total_ma < 500, total_ma
    # Scale factor for full white stays below 1 and is what the firmware applies.
    full_white_sum = count * 3 * 255
    assert 0 < cap / full_white_sum < 0.15


# ------------------------------------------------------------------ layout


def test_layout_keys(layout: dict) -> None:
    keys = layout["keys"]
    assert len(keys) == 49
    assert len({k["name"] for k in keys}) == 49
    assert {(k["x"], k["y"]) for k in keys} == ALL_CELLS
    by_role: dict[str, set[str]] = {}
    for k in keys:
        by_role.setdefault(k["role"], set()).add(k["name"])
    assert set(by_role) == {"meadow", "edge", "corner"}
    assert by_role["meadow"] == {f + str(r) for f in FILES for r in range(1, 6)}
    assert by_role["edge"] == ({s + f for s in "SN" for f in FILES}
                               | {s + str(r) for s in "WE" for r in range(1, 6)})
    assert by_role["corner"] == {"cS", "cW", "cN", "cE"}


def test_layout_coordinates(layout: dict) -> None:
    at = {k["name"]: (k["x"], k["y"]) for k in layout["keys"]}
    assert at["a1"] == (1, 1) and at["e5"] == (5, 5) and at["c3"] == (3, 3)
    for i, f in enumerate(FILES, start=1):
        assert at["S" + f] == (i, 0) and at["N" + f] == (i, 6)
        assert at[f + "1"] == (i, 1)
    for r in range(1, 6):
        assert at[f"W{r}"] == (0, r) and at[f"E{r}"] == (6, r)
    assert at["cS"] == (0, 0) and at["cW"] == (0, 6)
    assert at["cN"] == (6, 6) and at["cE"] == (6, 0)
    for k in layout["keys"]:
        if k["role"] == "corner":
            assert k["name"] == "c" + k["seat"]


def test_the_firmwares_key_names_are_the_layouts(layout: dict) -> None:
    """vora_fw.layout writes its 49 names out (cheaper on the board's heap than building
    them): each is the layout's name of the key at k = y * 7 + x, and the meadow's cells
    are shared_rules.vora's, key by key."""
    from shared_rules import vora
    from vora_fw import layout as fw_layout

    by_index = {k["y"] * 7 + k["x"]: k["name"] for k in layout["keys"]}
    assert fw_layout.KEY_NAMES == tuple(by_index[k] for k in range(49))
    for k, name in enumerate(fw_layout.KEY_NAMES):
        assert fw_layout.key_index(name) == k
        cell = fw_layout.key_cell(k)
        assert (cell >= 0) == (name in vora.CELL_NAMES)
        if cell >= 0:
            assert vora.CELL_NAMES[cell] == name and fw_layout.meadow_key(cell) == k
    for seat, corner in fw_layout.CORNER_OF_SEAT.items():
        assert fw_layout.KEY_NAMES[corner] == "c" + seat
    with pytest.raises(KeyError):
        fw_layout.key_index("f6")


def test_each_seat_owns_the_corner_at_its_left_hand(layout: dict) -> None:
    facing = {"S": (0, 1), "W": (1, 0), "N": (0, -1), "E": (-1, 0)}
    edge_centre = {"S": (3, 0), "W": (0, 3), "N": (3, 6), "E": (6, 3)}
    at = {k["name"]: (k["x"], k["y"]) for k in layout["keys"]}
    seats = {s["seat"]: s for s in layout["seats"]}
    assert set(seats) == set(facing)
    for seat, (fx, fy) in facing.items():
        left = (-fy, fx)  # a quarter turn anticlockwise from the facing direction
        cx, cy = edge_centre[seat]
        corner = (cx + 3 * left[0], cy + 3 * left[1])
        assert at["c" + seat] == corner == tuple(seats[seat]["corner_xy"])
        assert seats[seat]["corner"] == "c" + seat
        assert [at[n] for n in seats[seat]["edge"]] == sorted(
            at[n] for n in seats[seat]["edge"])  # listed along the edge, a..e or 1..5


# ------------------------------------------------------------------- Wokwi


class Nets:
    """Union-find over 'part:pin' names."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, a: str) -> str:
        self.parent.setdefault(a, a)
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def join(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def test_wokwi_parts(diagram: dict, layout: dict) -> None:
    types: dict[str, int] = {}
    for part in diagram["parts"]:
        types[part["type"]] = types.get(part["type"], 0) + 1
    assert types == {"wokwi-pi-pico": 1, "wokwi-neopixel-matrix": 1,
                     "wokwi-pushbutton": 49, "chip-diode": 49}
    ids = [p["id"] for p in diagram["parts"]]
    assert len(ids) == len(set(ids))
    names = {k["name"] for k in layout["keys"]}
    assert {p["id"] for p in diagram["parts"] if p["type"] == "wokwi-pushbutton"} == {
        "k_" + n for n in names}
    assert {p["id"] for p in diagram["parts"] if p["type"] == "chip-diode"} == {
        "d_" + n for n in names}
    matrix = next(p for p in diagram["parts"] if p["type"] == "wokwi-neopixel-matrix")
    assert matrix["attrs"]["rows"] == "7" and matrix["attrs"]["cols"] == "7"
    pico = next(p for p in diagram["parts"] if p["type"] == "wokwi-pi-pico")
    assert pico["attrs"]["env"].startswith("micropython-")


def test_wokwi_uses_exactly_the_pico_pins(diagram: dict, pico: dict) -> None:
    gpios = set()
    for a, b, *_ in diagram["connections"]:
        for end in (a, b):
            part, pin = end.split(":")
            if part == "pico" and pin.startswith("GP"):
                gpios.add(int(pin[2:]))
            elif part == "pico":
                assert pin in ("VBUS", "VSYS", "3V3") or pin.startswith("GND."), pin
    assert gpios == set(pico["row_pins"]) | set(pico["col_pins"]) | {pico["pixel_pin"]}


def test_wokwi_matrix_wiring(diagram: dict, pico: dict, layout: dict) -> None:
    nets = Nets()
    for a, b, *_ in diagram["connections"]:
        nets.join(a, b)
    for part in diagram["parts"]:  # contacts joined inside each push button
        if part["type"] == "wokwi-pushbutton":
            nets.join(f"{part['id']}:1.l", f"{part['id']}:1.r")
            nets.join(f"{part['id']}:2.l", f"{part['id']}:2.r")
    pin_nets = {}
    for gp in pico["row_pins"] + pico["col_pins"] + [pico["pixel_pin"]]:
        pin_nets[gp] = nets.find(f"pico:GP{gp}")
    assert len(set(pin_nets.values())) == len(pin_nets), "two GPIOs share a net"
    assert pico["diode_direction"] == "col2row"
    for k in layout["keys"]:
        n, x, y = k["name"], k["x"], k["y"]
        switch_in, switch_out = nets.find(f"k_{n}:1.l"), nets.find(f"k_{n}:2.l")
        assert switch_in == pin_nets[pico["col_pins"][x]], f"{n}: switch not on column {x}"
        assert switch_out == nets.find(f"d_{n}:A"), f"{n}: switch not on the diode anode"
        assert switch_out not in pin_nets.values(), f"{n}: anode side shorted to a GPIO"
        assert nets.find(f"d_{n}:C") == pin_nets[pico["row_pins"][y]], f"{n}: cathode not on row {y}"
    assert nets.find("pixels:DIN") == pin_nets[pico["pixel_pin"]]
    assert nets.find("pixels:VCC") == nets.find("pico:VBUS")
    assert nets.find("pixels:GND") == nets.find("pico:GND.8")


def test_wokwi_pixels_follow_the_pin_map_order(diagram: dict, pico: dict) -> None:
    """The matrix part (row-serpentine from its top-left, rotated 270 degrees) shows
    pixel i at frame cell pixel_order[i] with North at the top."""
    matrix = next(p for p in diagram["parts"] if p["type"] == "wokwi-neopixel-matrix")
    assert matrix["attrs"]["matrixLayout"] == "serpentine"
    assert matrix["rotate"] == 270
    n = 7
    for i, (x, y) in enumerate(pico["pixel_order"]):
        row, col = divmod(i, n)
        if row % 2:
            col = n - 1 - col
        # Unrotated the part shows (row, col) with row 0 at the top. Turning it by
        # 270 degrees clockwise (a quarter turn anticlockwise) moves (row, col) to
        # screen column = row, screen row from the top = n - 1 - col.
        screen_col, screen_row_from_top = row, n - 1 - col
        assert (screen_col, n - 1 - screen_row_from_top) == (x, y), i


def test_wokwi_diagram_is_generated_from_the_data(diagram: dict, pico: dict, layout: dict) -> None:
    spec = importlib.util.spec_from_file_location(
        "make_wokwi", HARDWARE / "tools" / "make_wokwi.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_wokwi"] = module
    spec.loader.exec_module(module)
    built = module.build_diagram(pico, layout)
    assert built == diagram
    text = (HARDWARE / "wokwi" / "diagram.json").read_text(encoding="utf-8")
    assert module.render(built) == text


def test_wokwi_diode_chip_definition() -> None:
    chip = load(HARDWARE / "wokwi" / "chips" / "diode.chip.json")
    assert chip["pins"] == ["A", "C"]
    source = (HARDWARE / "wokwi" / "chips" / "diode.chip.c").read_text(encoding="utf-8")
    assert 'pin_init("A"' in source and 'pin_init("C"' in source
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    with (HARDWARE / "wokwi" / "wokwi.toml").open("rb") as f:
        toml = tomllib.load(f)
    assert toml["chip"] == [{"name": "diode", "binary": "chips/diode.chip.wasm"}]
    assert toml["wokwi"]["firmware"].endswith(".uf2")
