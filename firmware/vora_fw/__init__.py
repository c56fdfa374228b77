"""The Vora Board firmware (MicroPython). Board-specific code lives only in hal_*.py."""

VERSION = "0.1.0"


def intern_names(modules):
    """Import the vora_fw `modules` and let them go, so that their names are interned now
    (a name with a dot is a whole module name: "shared_rules.vora_check").

    MicroPython interns every name a module brings, for good, in a pool that grows by
    doubling: six pools hold 1,260 names, and the seventh is one block of 1,280 entries,
    about 9 KB on a 32-bit port. Made at the start (or when the link is made), that block
    is found; made when a module loaded on demand first came in, after a game had cut the
    heap into pieces, it was not: every message of an update was refused, the board's bot
    never moved ("memory allocation failed, allocating 1280 bytes": docs/benchmarks.md,
    "The update's names", "Memory on a stock Pico"). The modules' code itself goes back to
    the heap: only their names stay. Best effort: a heap too full just now leaves the
    import to the first use, as before."""
    import sys
    if sys.implementation.name != "micropython":
        return  # CPython has no such pool; and a second copy of a module would confuse
    import gc
    for name in modules:
        full = name if "." in name else "vora_fw." + name
        if full in sys.modules:
            continue  # its names are in, and whoever imported it may be using it
        had = list(sys.modules)
        try:
            __import__(full)
        except MemoryError:
            pass
        # It goes, and so do the modules it brought in (vora_ui_restore brings saved_game:
        # kept, it held 2.5 KB for good).
        for module in list(sys.modules):
            if module not in had:
                sys.modules.pop(module)
                package, _, leaf = module.rpartition(".")
                if package in sys.modules and leaf in sys.modules[package].__dict__:
                    delattr(sys.modules[package], leaf)
    gc.collect()
