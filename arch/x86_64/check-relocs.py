#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check keel.elf's load-time relocations (arch/x86_64/keel.lds keeps them
in the image between __rela_start and __rela_end; head.S applies them):
every one must be R_X86_64_RELATIVE, the only type head.S knows, and lie
inside the loaded image. Run by arch.mk after the link.

    check-relocs.py KEEL_ELF NM
"""

import struct
import subprocess
import sys

R_X86_64_RELATIVE = 8
RELA_SIZE = 24


def symbols(elf, nm):
    out = subprocess.run([nm, elf], check=True, capture_output=True,
                         text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    return syms


def file_offset(data, va):
    """The file offset of @va in its PT_LOAD, or None."""
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        ptype, _, off, vaddr, _, filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if ptype == 1 and vaddr <= va < vaddr + filesz:
            return off + va - vaddr
    return None


def main():
    elf, nm = sys.argv[1], sys.argv[2]
    with open(elf, "rb") as f:
        data = f.read()
    syms = symbols(elf, nm)
    start, end = syms["__rela_start"], syms["__rela_end"]
    lo, hi = syms["_start"], syms["_end"]
    if (end - start) % RELA_SIZE:
        sys.exit(f"{elf}: relocations [{start:#x}, {end:#x}) are not "
                 f"a whole number of {RELA_SIZE}-byte entries")
    base = file_offset(data, start)
    if base is None and end > start:
        sys.exit(f"{elf}: relocations at {start:#x} are not in the file")
    for i in range((end - start) // RELA_SIZE):
        where, info, _ = struct.unpack_from("<QQq", data, base + i * 24)
        if info & 0xffffffff != R_X86_64_RELATIVE:
            sys.exit(f"{elf}: relocation {i} at {where:#x} has type "
                     f"{info & 0xffffffff}; head.S applies only "
                     f"R_X86_64_RELATIVE ({R_X86_64_RELATIVE})")
        if not lo <= where <= hi - 8:
            sys.exit(f"{elf}: relocation {i} writes {where:#x}, outside "
                     f"the image [{lo:#x}, {hi:#x})")


if __name__ == "__main__":
    main()
