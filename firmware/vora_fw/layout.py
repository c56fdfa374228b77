"""The 7x7 key frame: key indices, names and roles (hardware/layout.json says the same).

Key index k = y * 7 + x, with x the column (0 west .. 6 east) and y the row (0 south ..
6 north), seen from above with North at the top. The meadow is x, y in 1..5: cell a1 is
(1, 1). Edge keys push the line beside them; each seated player owns the corner at their
left hand (South: south-west).
"""

try:
    from micropython import const
except ImportError:
    def const(x):  # type: ignore[misc]
        return x

SIZE = const(7)
KEYS = const(49)

CORNER_OF_SEAT = {"S": 0, "W": 42, "N": 48, "E": 6}  # (0,0), (0,6), (6,6), (6,0)
SEAT_OF_CORNER = {0: "S", 42: "W", 48: "N", 6: "E"}


def meadow_key(cell):
    """Key index of meadow cell 0..24 (rank * 5 + file, as in shared_rules.vora)."""
    return (cell // 5 + 1) * 7 + cell % 5 + 1


def key_cell(k):
    """Meadow cell 0..24 of key k, or -1 when k is an edge or corner key."""
    x, y = k % 7, k // 7
    if 1 <= x <= 5 and 1 <= y <= 5:
        return (y - 1) * 5 + x - 1
    return -1


def _edge_key(name):
    side, line = name[0], name[1]
    if side in "SN":
        x, y = "abcde".index(line) + 1, 0 if side == "S" else 6
    else:
        x, y = 0 if side == "W" else 6, int(line)
    return y * 7 + x


# Written out, not built at import: built at run time, the 49 names were 49 strings on the
# heap (32 bytes each on a Pico) and a dict to find them; written out they are names the
# .mpy file interns, found with index() (688 bytes less on the heap with a PC,
# docs/benchmarks.md). tests/test_hardware_data.py checks them against hardware/layout.json.
KEY_NAMES = (
    "cS", "Sa", "Sb", "Sc", "Sd", "Se", "cE",
    "W1", "a1", "b1", "c1", "d1", "e1", "E1",
    "W2", "a2", "b2", "c2", "d2", "e2", "E2",
    "W3", "a3", "b3", "c3", "d3", "e3", "E3",
    "W4", "a4", "b4", "c4", "d4", "e4", "E4",
    "W5", "a5", "b5", "c5", "d5", "e5", "E5",
    "cW", "Na", "Nb", "Nc", "Nd", "Ne", "cN",
)


def key_index(name):
    """Key index of a key name: a cell (c3), an edge (Sc, W3) or a corner (cS); KeyError
    for anything else."""
    try:
        return KEY_NAMES.index(name)
    except ValueError:
        raise KeyError(name)


def edge_key(edge_name):
    return _edge_key(edge_name)


def is_edge(k):
    return key_cell(k) < 0 and k not in SEAT_OF_CORNER
