"""The Vora Board firmware (MicroPython). Board-specific code lives only in hal_*.py."""

VERSION = "0.1.0"


def intern_names(modules):
    """Import the vora_fw `modules` and let them go, so that their names are interned now.

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
    vora_fw = sys.modules["vora_fw"]
    for name in modules:
        if "vora_fw." + name in sys.modules:
            continue  # its names are in, and whoever imported it may be using it
        try:
            __import__("vora_fw." + name)
        except MemoryError:
            pass
        sys.modules.pop("vora_fw." + name, None)
        if name in vora_fw.__dict__:
            delattr(vora_fw, name)
    gc.collect()
