"""Run a driver with the firmware's code in ROMFS, as `vora flash --romfs` installs it, on the
Unix port of MicroPython (tests/mpy.py romfs_tree and run_unix_micropython).

Usage (module on the path): board_romfs IMAGE DRIVER [ARGS...]: mounts the ROMFS image file
IMAGE at /rom, puts /rom on sys.path as a board does (after .frozen, before the folder with
the drivers and vora_boot, which holds no firmware package), then imports DRIVER with
sys.argv = [DRIVER, *ARGS].

The Unix port has no flash to run code from: the image is read into the heap, first and in
one piece (a bytearray, never freed, at the start of the heap, so it fragments nothing), and
the runner gives the heap exactly that much more (mpy.romfs_heapsize). "romfs_image_heap N"
says how many bytes of the heap the image takes; the rest is the firmware's, as a board's
heap would be.
"""

import gc
import os
import sys
import vfs

image_path = sys.argv[1]
driver = sys.argv[2]
gc.collect()
before = gc.mem_alloc()
image = bytearray(os.stat(image_path)[6])
with open(image_path, "rb") as f:
    f.readinto(image)
gc.collect()
print("romfs_image_heap", gc.mem_alloc() - before, "pool", gc.mem_alloc() + gc.mem_free())
vfs.mount(vfs.VfsRom(image), "/rom")
sys.path.insert(sys.path.index(".frozen") + 1, "/rom")
try:  # drivers in the image (mpy.romfs_tree(drivers_in_image=True)) run in place too
    os.stat("/rom/drivers")
    sys.path.insert(sys.path.index("/rom") + 1, "/rom/drivers")
except OSError:
    pass
del sys.argv[1:3]
sys.argv[0] = driver
__import__(driver)
if "vora_fw" in sys.modules:  # where the driver found the firmware
    print("firmware_from", sys.modules["vora_fw"].__file__,
          sys.modules["shared_rules.vora"].__file__)
