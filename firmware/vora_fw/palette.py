"""Colours and light patterns of the board.

Cube colours follow the hue families of the Okabe-Ito palette (distinct for the common
colour-vision deficiencies) as far as an RGB LED allows, and every pair that stays close for
someone (red ladybug / green grass for red-green blindness, violet crow / blue water for
blue-yellow blindness, pink pig / orange mole) is told apart by a pattern as well: the
ladybug blinks, the crow breathes slowly, the pig is steady and bright while the mole is
steady and half as bright. docs/firmware.md has the table.
"""

try:
    from micropython import const
except ImportError:
    def const(x):  # type: ignore[misc]
        return x

STEADY = const(0)
BLINK = const(1)  # 600 ms on, 300 ms off
BREATHE = const(2)  # brightness rises and falls over 1.6 s

# Index = cube type code of shared_rules.vora: pig crow wolf mole duck ladybug sheep water grass
CUBE_RGB = (
    (255, 40, 110),  # pig: pink
    (120, 0, 255),  # crow: violet
    (50, 50, 60),  # wolf: dim grey
    (150, 60, 0),  # mole: brown (dim orange)
    (255, 200, 0),  # duck: yellow
    (255, 0, 0),  # ladybug: red
    (230, 230, 230),  # sheep: white
    (0, 80, 255),  # water: blue
    (0, 190, 40),  # grass: green
)
CUBE_PATTERN = (STEADY, BREATHE, STEADY, STEADY, STEADY, BLINK, STEADY, STEADY, STEADY)

SEAT_RGB = {
    "S": (0, 200, 255),  # cyan
    "W": (255, 0, 200),  # magenta
    "N": (255, 140, 0),  # amber
    "E": (140, 255, 0),  # lime
}

OFF = (0, 0, 0)
WHITE = (255, 255, 255)
DIM = (24, 24, 24)
GO = (0, 255, 0)
STOP = (255, 0, 0)
REFUSE = (255, 0, 0)
UNDO = (255, 120, 0)  # amber: the menu's takeback key, and the corners asked to agree


def level(pattern, now):
    """Brightness 0..256 of a pattern at tick `now` (ms)."""
    if pattern == BLINK:
        return 256 if now % 900 < 600 else 0
    if pattern == BREATHE:
        t = now % 1600
        t = t if t < 800 else 1600 - t
        return 96 + t * 160 // 800
    return 256


def pulse(now, period=1000):
    """A triangle wave 64..256 for things that call for attention (whose turn it is)."""
    t = now % period
    half = period // 2
    t = t if t < half else period - t
    return 64 + t * 192 // half
