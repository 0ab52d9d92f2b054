#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the U-Boot environment image for QEMU virt's second flash bank:
#   uboot.sh OUT [BOOTCMD]
# 64 MiB of 0xFF; the first 0x40000 bytes are U-Boot's (non-redundant)
# environment: a little-endian CRC32 of the remaining 0x3fffc bytes, then
# key=value\0 ... \0\0 (the rest stays 0xFF). Debian's qemu_arm64 U-Boot
# reads it at flash offset 0x4000000, the start of bank 1. Needed for NUMA
# boots: U-Boot sees only the first DT memory node and its default boot
# hangs; this bootcmd loads the -kernel/-initrd images from fw_cfg and boots
# them with booti on the DT QEMU gave U-Boot.
set -euo pipefail
out=${1:?usage: uboot.sh OUT [BOOTCMD]}
bootcmd=${2:-'qfw load 0x40400000 0x48000000 && booti 0x40400000 - ${fdtcontroladdr}'}
mkdir -p "$(dirname "$out")"
/usr/bin/python3 - "$out" "$bootcmd" <<'PY'
import sys, zlib
out, bootcmd = sys.argv[1], sys.argv[2]
ENV_SIZE = 0x40000
BANK = 64 << 20
env = {
    "bootdelay": "0",
    "fdt_high": "0xffffffffffffffff",
    "initrd_high": "0xffffffffffffffff",
    "bootcmd": bootcmd,
}
data = b"".join(f"{k}={v}".encode() + b"\0" for k, v in env.items()) + b"\0"
data = data.ljust(ENV_SIZE - 4, b"\xff")
crc = zlib.crc32(data) & 0xffffffff
img = crc.to_bytes(4, "little") + data
img = img.ljust(BANK, b"\xff")
tmp = out + ".tmp"
with open(tmp, "wb") as f:
    f.write(img)
import os
os.replace(tmp, out)
PY
