# SPDX-License-Identifier: MIT
"""A first stage that leaves RAM dirty: QEMU's generic loader device
(`-device loader,file=F,addr=A,force-raw=on`) copies a file of one
repeated 64-bit word, FILL_WORD, over a range of guest RAM before the
firmware runs, as a previous boot would have left it. keel knows nothing
of it (no DT node, no reservation): with bootscrub=off the heap gets that
memory as it is, so what the domain build and the guests do with it is
the test (DESIGN §14, issue 31 §6)."""

import os
import struct

FILL_WORD = 0x5a5a_d1d1_0bad_f00d
CHUNK = 16 << 20  # bytes per loader device (one file, loaded many times)


def fill_args(workdir, start, end):
    """QEMU arguments that fill guest physical [@start, @end) (multiples
    of CHUNK) with FILL_WORD; the file lives in @workdir."""
    path = os.path.join(workdir, "fill.bin")
    os.makedirs(workdir, exist_ok=True)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", FILL_WORD) * (CHUNK // 8))
    out = []
    for a in range(start, end, CHUNK):
        out += ["-device", f"loader,file={path},addr={a:#x},force-raw=on"]
    return out
