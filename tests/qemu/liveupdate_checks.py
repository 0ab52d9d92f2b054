# SPDX-License-Identifier: MIT
"""Checks of issue 30's live update boots under QEMU (docs/liveupdate.md),
shared by the x86_64 and arm64 matrices: the image is its own next image
(QEMU -initrd), so build and from_build must both be the build id the
linker wrote into keel.elf, read here from the file (the ELF's program
headers map the symbol __build_id_start to its bytes), never from keel's
output. The domains are the command line's: the first image writes 2
pages of 512 words into each, the last reads them all back."""

import re
import struct


def elf_symbol(data, want):
    """(st_value, st_size) of symbol @want (bytes) in the ELF64 file
    @data, or None."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    symtab = next((s for s in secs if s[1] == 2), None)  # SHT_SYMTAB
    if symtab is None:
        return None
    strtab = secs[symtab[6]]
    for off in range(symtab[4], symtab[4] + symtab[5], 24):
        name, _, _, _, value, size = struct.unpack_from("<IBBHQQ", data,
                                                        off)
        end = data.index(b"\0", strtab[4] + name)
        if data[strtab[4] + name:end] == want:
            return value, size
    return None


MB1_MAGIC = 0x1BADB002
NEED_MAGIC = 0x4b45454e  # include/keel/handover.h LU_NEED_MAGIC


def image_needing(elf, out, more=1 << 20):
    """Write to @out a copy of keel.elf @elf whose multiboot1 header says
    it needs @more bytes more than it does (a bigger next build; its
    bss_end_addr grown to match): what a live update's old image reads to
    decide whether the image fits. Return: @out."""
    with open(elf, "rb") as f:
        data = bytearray(f.read())
    for off in range(0, 0x3000, 4):
        magic, flags, check = struct.unpack_from("<III", data, off)
        if magic == MB1_MAGIC and (magic + flags + check) & 0xffffffff == 0:
            break
    else:
        raise ValueError(f"{elf}: no multiboot1 header")
    bss_end, = struct.unpack_from("<I", data, off + 24)
    marker, need = struct.unpack_from("<II", data, off + 32)
    if marker != NEED_MAGIC:
        raise ValueError(f"{elf}: no keel need after the multiboot1 header")
    need += more
    struct.pack_into("<I", data, off + 24, max(bss_end, need))
    struct.pack_into("<I", data, off + 36, need)
    with open(out, "wb") as f:
        f.write(data)
    return out


NEED_MAGIC64 = 0x4445454e4c45454b  # LU_NEED_MAGIC64, "KEELNEED"


def arm64_image_needing(image, out, more=1 << 20):
    """image_needing() for an arm64 Image: its header's res2 (0x20) says
    it needs @more bytes more than it does, image_size (0x10) grown to
    match. Return: @out."""
    with open(image, "rb") as f:
        data = bytearray(f.read())
    size, = struct.unpack_from("<Q", data, 0x10)
    need, magic = struct.unpack_from("<QQ", data, 0x20)
    if magic != NEED_MAGIC64:
        raise ValueError(f"{image}: no keel need in the Image header")
    need += more
    struct.pack_into("<Q", data, 0x10, max(size, need))
    struct.pack_into("<Q", data, 0x20, need)
    with open(out, "wb") as f:
        f.write(data)
    return out


def elf_build_id(elf):
    """16 hex digits: the first 8 bytes of the NT_GNU_BUILD_ID note at
    __build_id_start in the ELF64 file @elf (None: no such note)."""
    with open(elf, "rb") as f:
        data = f.read()
    addr = (elf_symbol(data, b"__build_id_start") or (None,))[0]
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        ptype, _, poff, vaddr, _, filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if ptype == 1 and addr is not None and \
                vaddr <= addr < vaddr + filesz:
            note = data[poff + addr - vaddr:][:36]
            namesz, descsz, ntype = struct.unpack_from("<III", note)
            if (namesz, ntype) == (4, 3) and note[12:16] == b"GNU\0":
                return note[16:24].hex()
    return None


def _entries(log, pattern):
    return len(re.findall(pattern, log, re.M))


def same_build(rep, elf):
    """build and from_build are both @elf's build id (the image is its
    own next image)."""
    lu, build = rep["liveupdate"], elf_build_id(elf)
    if build is None or lu["build"] != build or lu["from_build"] != build:
        return [f"build {lu['build']} / from_build {lu['from_build']}, "
                f"{elf}'s is {build}"]
    return []


def restored(rep, log, names, hw):
    """The domains @names restored (in order, ids 1..), none failed, none
    built again; @hw: the MMU translated sampled IPAs of their tables
    (arm64 at EL2: AT S12E1R on the restored p2m)."""
    lu, out = rep["liveupdate"], []
    if lu.get("domains_restored") != len(names) or lu.get("domains_failed"):
        out.append(f"domains_restored {lu.get('domains_restored')}, "
                   f"domains_failed {lu.get('domains_failed')}")
    rows = [(d["id"], d["name"], d["origin"], d["fail_reason"])
            for d in rep.get("domains") or []]
    want = [(i + 1, n, "handover", None) for i, n in enumerate(names)]
    if rows != want:
        out.append(f"domains rows {rows}, expected {want}")
    if hw and not rep["domains_info"]["hw_checked"]:
        out.append("no restored IPA translated by the MMU")
    if not re.search(rf"^keel: liveupdate: generation {lu['generation']}, "
                     rf"{len(names)} domains \(.*\) restored in [0-9.]+ "
                     r"ms downtime, 0 mismatches\r?$", log, re.M):
        out.append("no 'liveupdate: ... restored in ... downtime' line")
    return out


def updated(elf, gens, domains, entry_line, names=None, hw=False):
    """@gens updates, @domains domains read back whole, every image's own
    build id (@elf; None: the caller checks it with same_build());
    @entry_line: the line each image prints once at entry; the domains
    restored as restored() says (@names: domain0, domain1, ...)."""
    names = names or [f"domain{i}" for i in range(domains)]

    def check(rep, log):
        lu, out = rep["liveupdate"], []
        want = {"state": "taken", "asked": gens, "generation": gens,
                "domains": domains, "verified_words": domains * 2 * 512,
                "mismatches": 0}
        out += [f"liveupdate.{k} = {lu[k]!r}, expected {v!r}"
                for k, v in want.items() if lu[k] != v]
        if elf is not None:
            out += same_build(rep, elf)
        if _entries(log, entry_line) != gens + 1:
            out.append(f"{_entries(log, entry_line)} images entered, "
                       f"expected {gens + 1}")
        kept = sum(e - s for s, e, n in rep["memmap"]["reserved"]
                   if n == "preserved")
        if kept != lu["preserved_bytes"] or not kept:
            out.append(f"{kept} bytes reserved as preserved, the handover "
                       f"says {lu['preserved_bytes']}")
        offline = [c["id"] for c in rep["cpus"] if not c["online"]]
        if offline:
            out.append(f"CPUs {offline} not online in the new image")
        return out + restored(rep, log, names, hw)
    check.wants_log = True
    return check


def refused(pattern, entry_line):
    """The second image refused the handover, as @pattern names it, and
    stopped before any CPU or the heap."""
    def check(rep, log):
        out = []
        if not re.match(pattern, rep["fail_reason"] or ""):
            out.append(f"fail_reason {rep['fail_reason']!r} does not match "
                       f"{pattern!r}")
        errors = re.findall(r"^keel: error: handover: .*$", log, re.M)
        if len(errors) != 1:
            out.append(f"expected one handover error line, got {errors}")
        if rep["liveupdate"]["state"] != "refused":
            out.append(f"liveupdate.state {rep['liveupdate']['state']!r}")
        if rep["scrub"]["bytes"] or rep["heap"]["total_pages"]:
            out.append("memory scrubbed or given to the heap")
        if rep["audit"]["reserved_pages"] != rep["audit"]["ram_pages"]:
            out.append(f"audit {rep['audit']}: RAM not all reserved")
        if _entries(log, entry_line) != 2:
            out.append(f"{_entries(log, entry_line)} images entered, "
                       "expected 2")
        return out
    check.wants_log = True
    return check


def in_4k_pieces(generations):
    """inject=handover-pieces: each new image (generations 1 to
    @generations) took a handover in pieces of 4 KiB (version 7), as many
    as its bytes need, at least two: piece 0 where the arch passed it
    (x86_64 ECX/EDX, arm64 /chosen/keel,handover), the rest through its
    table; the vCPU records whole in one piece each."""
    def check(rep, log):
        lines = re.findall(r"keel: handover: generation (\d+) from build "
                           r"\S+ .* (\d+) bytes in (\d+) pieces?\r?\n", log)
        gens = [int(g) for g, _, _ in lines]
        if gens != list(range(1, generations + 1)):
            return [f"handover lines of generations {gens}, want 1 to "
                    f"{generations}"]
        out = []
        for g, size, n in lines:
            size, n = int(size), int(n)
            if n < 2 or not (n - 1) * 4096 < size <= n * 4096:
                out.append(f"generation {g}: {size} bytes in {n} pieces, "
                           "want pieces of 4 KiB")
        return out
    check.wants_log = True
    return check
