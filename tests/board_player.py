"""A player at the board, for tests: turns a move into the key presses of the player's
guide (docs/firmware.md, "Playing on the board"), looking only at what the board shows.

`press` is a function taking a key name; `ui` is the VoraUI to read the farm view from
(one light per cube, as drawn on the meadow) after the corner opened it.
"""

from shared_rules import vora
from vora_fw import layout


def corner_of(state, player):
    return "c" + state.seats[player]


def farm_key(ui, player, type_name):
    """The meadow key that shows a cube of `type_name` while `player`'s farm is on view."""
    t = vora.TYPES.index(type_name)
    cells = ui.farm_cells(player)
    return vora.CELL_NAMES[cells.index(t)]


def move_keys(ui, move):
    """The key names that play `move`, one at a time: each is worked out after the
    previous one was pressed, from what the board then shows. The last one confirms."""
    state = ui.state
    me = corner_of(state, state.active)
    words = move.split(" ")
    verb = words[0]
    if verb in ("push", "pig", "wolf", "crow"):
        type_name = words[1] if verb == "push" else verb
        yield me  # the farm on view
        assert ui.view_for == "pick", "the corner did not open the farm"
        yield farm_key(ui, state.active, type_name)
        target = words[-1]
        yield target
        if verb in ("pig", "wolf") and ui.preview != move:
            yield target  # the same edge again: the ability
    elif verb in ("mole", "duck"):
        yield words[1]
        yield words[2]
    elif verb in ("ladybug", "water", "take", "extra"):
        yield words[1]
    elif verb == "steal":
        yield corner_of(state, int(words[1]))
        yield farm_key(ui, int(words[1]), words[2])
    elif verb == "pass":
        yield me
    assert ui.preview == move, "the board previews %r, not %r" % (ui.preview, move)
    yield me  # confirm


def enter_move(ui, move, press):
    """Press the keys that play `move`, ending with the confirming corner."""
    for name in move_keys(ui, move):
        press(name)


def key_presser(ui, clock):
    """press(name): a press and release, 60 ms each, through ui.key()."""
    def press(name):
        k = layout.key_index(name)
        clock[0] += 60
        ui.key(k, True, clock[0])
        clock[0] += 60
        ui.key(k, False, clock[0])
        ui.tick(clock[0])
    return press
