"""Heap each of the board's modules takes when imported, in import order (a module's own
imports not yet loaded count to it), under MicroPython; run with the firmware from ROMFS
(tests/mp_scripts/board_romfs.py) it is what stays in RAM of code run in place:

    .venv/bin/python -c "import sys; sys.path.insert(0, 'tests'); from mpy import *;
    t, i = romfs_tree('/tmp/mh', [REPO_ROOT / 'bench/mp_module_heap.py']);
    print(run_unix_micropython('board_romfs', t, [i, 'mp_module_heap'], heap=400 << 10).stdout)"

(VORA_MICROPYTHON_UNIX=... for another build of the Unix port, docs/benchmarks.md.)
"""

import gc

MODULES = ["shared_rules.prng", "shared_rules.errors", "shared_rules.vora", "shared_rules.checks",
           "shared_rules.games",
           "shared_rules.wire", "shared_rules.session", "vora_fw.layout", "vora_fw.pixels",
           "vora_fw.keyscan", "vora_fw.movelog", "vora_fw.store", "vora_fw.vora_ui_frames",
           "vora_fw.vora_ui_keys", "vora_fw.vora_ui",
           "vora_fw.bot", "vora_fw.link", "vora_fw.app", "vora_fw.start", "vora_fw.maker",
           "vora_fw.hal_sim", "vora_fw.update", "vora_fw.doctor", "vora_fw.vora_ui_restore"]


def allocated():
    gc.collect()
    return gc.mem_alloc()


first = last = allocated()
for name in MODULES:
    __import__(name)
    now = allocated()
    print("%-22s %6d" % (name, now - last))
    last = now
print("all %d modules %6d" % (len(MODULES), last - first))
