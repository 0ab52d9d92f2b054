# SPDX-License-Identifier: MIT
"""Seeds of the hostile classes for the libFuzzer targets (issue 20 §3).

Usage, from the top directory:
  python3 -m tests.fuzz.mkseeds [--check]

Writes tests/fuzz/corpus/<target>/class-<name> for the classes the random
bytes of libFuzzer seldom reach on their own: odd bytes in a description,
many adjacent and overlapping ranges (more than bootinfo's 512-entry
table) in every reader, huge node and CPU ids, addresses past the build's
limit, failed CPUs, non-volatile memory. The files are committed (the
corpus is read-only for the fuzzers); --check regenerates them in memory
and fails when a committed one differs or is missing, so they stay what
this script says. Device trees are compiled with dtc.
"""

import os
import struct
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CORPUS = os.path.join(TOP, "tests", "fuzz", "corpus")
MIB = 1 << 20
RUN = 600  # ranges per run: past bootinfo's 512 slots
LIMITS = (1 << 46, 1 << 48, 200 << 40, (1 << 64) - (1 << 21))


def _runs(adjacent=True, base=MIB, size=64 * 1024):
    """RUN ranges from @base, adjacent or each overlapping the next."""
    extra = 0 if adjacent else size // 2
    return [(base + i * size, base + (i + 1) * size + extra)
            for i in range(RUN)]


def _past_limit():
    """Ranges at and across the address limits keel knows."""
    out = [(0, 256 * MIB)]
    for lim in LIMITS:
        out.append((lim, lim + MIB))
        out.append((lim - MIB, lim + MIB))
    return out


# ---- fwdesc (.fw text, as bytes) ----------------------------------------

def fwdesc():
    cpu = b"cpu 0 node=0\ncpu 1 node=1\n"
    odd = (b"ram 0 128M node=0 # a\0b\n" + cpu +
           b"ram 128M 1G node=1\r\n\x01\x02\xff junk\n"
           b"reserved 1M 2M bi\0os\nreserved 4M 5M \x7f\n"
           b"\0\nram 1G 2G\0 node=0\ncpu 2\x1b node=0\n"
           b"reserved 2G 3G acpi # \xff\xfe\0\n")
    ids = (b"ram 0 64M node=0xfffe\nram 64M 128M node=0xffff\n"
           b"ram 128M 192M node=0xffffffff\nram 192M 256M node=4294967296\n"
           b"cpu 0 node=0xfffe\ncpu 0xffffffffffffffff node=0\n"
           b"cpu 0x8000000000000000 node=0xfff0 core=0xffffffff\n"
           b"cpu 5 node=0xffffffff\ndistance 0xfffe 0xfff0 20\n")

    def lines(ranges, node=0):
        return b"".join(b"ram %#x %#x node=%d\n" % (s, e, node)
                        for s, e in ranges)
    return {
        "class-odd-bytes": odd,
        "class-adjacent-ram": lines(_runs()) + cpu,
        "class-overlapping-ram": lines(_runs(False)) + cpu,
        "class-adjacent-reserved": lines([(0, 128 * MIB)]) + b"".join(
            b"reserved %#x %#x r\n" % r for r in _runs()) + cpu,
        "class-huge-ids": ids,
        "class-past-limit": lines(_past_limit()) + cpu +
        b"reserved 0xffffffffffff0000 0xffffffffffffffff top\n",
    }


# ---- device trees (dts text, compiled) ------------------------------------

def _dts(mem, cpus, extra=""):
    return ("/dts-v1/;\n/ {\n#address-cells = <2>; #size-cells = <2>;\n"
            "psci { compatible = \"arm,psci-1.0\"; method = \"hvc\"; };\n"
            f"{mem}cpus {{ #address-cells = <1>; #size-cells = <0>;\n"
            f"{cpus}}};\n{extra}}};\n")


def _cells(v):
    return f"{v >> 32:#x} {v & 0xffffffff:#x}"


def _cpu(i, props=""):
    return (f"cpu@{i:x} {{ device_type = \"cpu\"; reg = <{i:#x}>; "
            f"enable-method = \"psci\"; {props}}};\n")


def _memnode(s, e, props=""):
    return (f"memory@{s:x} {{ device_type = \"memory\"; "
            f"reg = <{_cells(s)} {_cells(e - s)}>; {props}}};\n")


def fdt_sources():
    cpus2 = _cpu(0) + _cpu(1)
    banks = "".join(_memnode(s, e) for s, e in _runs(base=1 << 30))
    regs = " ".join(f"{_cells(s)} {_cells(e - s)}"
                    for s, e in _runs(False, base=1 << 30))
    one = (f"memory@40000000 {{ device_type = \"memory\"; "
           f"reg = <{regs}>; }};\n")
    nonode = (_memnode(1 << 30, 2 << 30, "numa-node-id = <0>;") +
              _memnode(2 << 30, 3 << 30, "numa-node-id = <0xffffffff>;"))
    nonode_cpus = (_cpu(0, "numa-node-id = <0>;") +
                   _cpu(1, "numa-node-id = <0xffffffff>;") +
                   _cpu(2, "numa-node-id = <0xfffe>;"))
    failed = _cpu(0) + "".join(
        _cpu(i, f"status = \"{('fail', 'fail-sss', 'disabled')[i % 3]}\";")
        for i in range(1, 64))
    past = "".join(_memnode(s, e) for s, e in _past_limit()[1:])
    # /chosen/bootargs, which dt_read_cmdline() copies before dt_parse():
    # longer than bootinfo's 4096 bytes (whole words dropped), and one
    # without its NUL, with a quote and control bytes.
    words = " ".join(f"w{i}=" + "x" * 40 for i in range(120))
    long_args = f"chosen {{ bootargs = \"{words} loglevel=3\"; }};\n"
    odd_args = "chosen { bootargs = [6c 6f 67 3d 22 01 ff 20 61]; };\n"
    return {
        "class-1000-banks": _dts(banks, cpus2),
        "class-1000-reg": _dts(one, cpus2),
        "class-no-node-id": _dts(nonode, nonode_cpus),
        "class-failed-cpus": _dts(_memnode(1 << 30, 2 << 30), failed),
        "class-past-limit": _dts(_memnode(1 << 30, 2 << 30) + past, cpus2),
        "class-long-bootargs": _dts(_memnode(1 << 30, 2 << 30), cpus2,
                                    long_args),
        "class-bootargs-no-nul": _dts(_memnode(1 << 30, 2 << 30), cpus2,
                                      odd_args),
    }


def fdt():
    out = {}
    for name, src in fdt_sources().items():
        out[name + ".dtb"] = subprocess.run(
            ["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", "-", "-"],
            input=src.encode(), stdout=subprocess.PIPE, check=True).stdout
    return out


# ---- memory maps: multiboot2, multiboot1, UEFI ----------------------------

def _maps():
    """Each class as a list of (start, end, usable)."""
    return {
        "class-adjacent": [(s, e, True) for s, e in _runs()],
        "class-overlapping": [(s, e, True) for s, e in _runs(False)] +
        [(2 * MIB, 3 * MIB, False)],
        "class-past-limit": [(s, e, True) for s, e in _past_limit()],
    }


def multiboot2():
    out = {}
    for name, ranges in _maps().items():
        ents = b"".join(struct.pack("<QQII", s, e - s, 1 if ok else 2, 0)
                        for s, e, ok in ranges)
        tag = struct.pack("<IIII", 6, 16 + len(ents), 24, 0) + ents
        tag += b"\0" * (-len(tag) % 8)
        body = tag + struct.pack("<II", 0, 8)
        out[name] = struct.pack("<II", 8 + len(body), 0) + body
    return out


def multiboot1():
    out = {}
    for name, ranges in _maps().items():
        ents = b"".join(struct.pack("<IQQI", 20, s, e - s, 1 if ok else 2)
                        for s, e, ok in ranges)
        info = bytearray(0x100)
        struct.pack_into("<I", info, 0, 1 << 6)  # flags: mmap
        struct.pack_into("<II", info, 44, len(ents), 0x200)
        img = bytearray(struct.pack("<I", 0x100)) + b"\0" * 0xfc + info
        out[name] = bytes(img) + ents
    return out


def uefi():
    out = {}
    for name, ranges in _maps().items():
        descs = b"".join(struct.pack("<IIQQQQ", 7 if ok else 0, 0, s, 0,
                                     (e - s) // 4096, 0xf) +
                         b"\0" * 8 for s, e, ok in ranges)
        out[name] = bytes([48 // 8]) + descs
    return out


# ---- ACPI SRAT ---------------------------------------------------------------

def _table(sig, body, rev=3):
    hdr = struct.pack("<4sIBB6s8sI4sI", sig, 36 + len(body), rev, 0,
                      b"KEEL  ", b"FUZZSEED", 1, b"KEEL", 1)
    t = bytearray(hdr + body)
    t[9] = (-sum(t)) & 0xff
    return bytes(t)


def _srat_mem(pxm, s, e, flags=1):
    return struct.pack("<BBIHQQIIQ", 1, 40, pxm, 0, s, e - s, 0, flags, 0)


def _srat_lapic(pxm, apic):
    return struct.pack("<BBBBIB3sI", 0, 16, pxm & 0xff, apic, 1,
                       0, ((pxm >> 8) & 0xffffff).to_bytes(3, "little"), 0)


def acpi_srat():
    head = struct.pack("<IQ", 1, 0)
    cpus = b"".join(_srat_lapic(i & 1, i) for i in range(4))
    nvm = (_srat_mem(0, 0, 1 << 30) + _srat_mem(0, 1 << 30, 2 << 30, 5) +
           _srat_mem(1, 4 << 30, 6 << 30, 7) + _srat_mem(1, 6 << 30, 8 << 30))
    nonode = (_srat_lapic(0, 0) + _srat_lapic(0xffffffff, 1) +
              _srat_mem(0, 0, 4 << 30) +
              _srat_mem(0xffffffff, 4 << 30, 8 << 30))
    runs = b"".join(_srat_mem(i % 2, s, e) for i, (s, e) in
                    enumerate(_runs(size=8 * MIB)[:200]))
    over = b"".join(_srat_mem(i % 2, s, e) for i, (s, e) in
                    enumerate(_runs(False, size=8 * MIB)[:20]))
    past = b"".join(_srat_mem(0, s, e) for s, e in _past_limit())
    return {
        "class-nonvolatile": _table(b"SRAT", head + cpus + nvm),
        "class-no-node-id": _table(b"SRAT", head + nonode),
        "class-adjacent": _table(b"SRAT", head + cpus + runs),
        "class-overlapping": _table(b"SRAT", head + cpus + over),
        "class-past-limit": _table(b"SRAT", head + cpus + past),
    }


# ---- ACPI MADT: I/O APICs and ISA overrides ---------------------------------

def _madt_ioapic(ioid, base, gsi, length=12):
    return struct.pack("<BBBBII", 1, length, ioid, 0, base, gsi)[:length]


def _madt_override(bus, irq, gsi, flags=0, length=10):
    return struct.pack("<BBBBIH", 2, length, bus, irq, gsi, flags)[:length]


def acpi_madt():
    """I/O APICs and overrides (issue 28): more I/O APICs than the table
    holds, address 0, one listed twice, entries cut short; overrides of
    other buses, IRQs past ISA's, one IRQ twice."""
    head = struct.pack("<II", 0xfee00000, 1) + \
        struct.pack("<BBBBI", 0, 8, 0, 0, 1)
    many = b"".join(_madt_ioapic(i & 0xff, 0xfec00000 + i * 0x1000, i * 24)
                    for i in range(70))
    odd = (_madt_ioapic(0, 0, 0) + _madt_ioapic(1, 0xfec00000, 0) +
           _madt_ioapic(2, 0xfec00000, 24) + _madt_ioapic(3, 0xffffffff,
                                                          0xfffffff0) +
           _madt_ioapic(4, 0xfec01000, 48, length=11) +
           _madt_override(0, 0, 2) + _madt_override(0, 0, 7, 0xf) +
           _madt_override(1, 4, 20) + _madt_override(0, 16, 16) +
           _madt_override(0, 0xff, 0xffffffff, 0xffff) +
           _madt_override(0, 8, 8, length=9))
    return {
        "class-many-ioapics": _table(b"APIC", head + many, rev=5),
        "class-odd-ioapics": _table(b"APIC", head + odd, rev=5),
    }


def _acpidump_text(tables):
    """Tables in acpidump's print layout (what `sudo acpidump` writes)."""
    out = []
    for sig, data in tables:
        out.append(f"{sig} @ 0x0000000000000000")
        for off in range(0, len(data), 16):
            row = data[off:off + 16]
            hx = " ".join(f"{b:02X}" for b in row)
            asc = "".join(chr(b) if 0x20 <= b < 0x7f else "." for b in row)
            out.append(f"    {off:04X}: {hx:<47}  {asc}")
        out.append("")
    return ("\n".join(out) + "\n").encode()


def acpidump():
    """The replay path (acpi_replay(): RAM from the SRAT without ram
    lines): non-volatile memory, domain 0xffffffff, many ranges; and a
    NUL between tables, which must not end the text."""
    srat = acpi_srat()
    madt = _table(b"APIC", struct.pack("<II", 0xfee00000, 1) + b"".join(
        struct.pack("<BBBBI", 0, 8, i, i, 1) for i in range(4)))
    out = {}
    for name in ("class-nonvolatile", "class-no-node-id", "class-adjacent"):
        out[name + ".txt"] = _acpidump_text([("APIC", madt),
                                             ("SRAT", srat[name])])
    nul = _acpidump_text([("APIC", madt)]) + b"\0 a NUL line\n" + \
        _acpidump_text([("SRAT", srat["class-nonvolatile"])])
    out["class-nul-byte.txt"] = nul
    return out


def dom0less():
    """The DTs of issue 28's section 4 generator (tests/sandbox/
    dom0less_gen.py): every dom0less property wrong, names of every
    length and byte class."""
    from tests.sandbox import dom0less_gen, fdtgen

    return {f"class-gen-{i}.dtb": fdtgen.fdt(dom0less_gen.batch_root(b))
            for i, b in enumerate(dom0less_gen.gen_cases())}


# ---- the live-update handover (docs/liveupdate.md, versions 1 and 2) ----

HO_PA = 0x20000000  # where tests/fuzz/handover_fuzz.c says it lies


def _ho_domain(did, name, node, root, tables, extents, origin=0):
    """One domain record: 128 bytes, table ranges, extents."""
    body = b"".join(struct.pack("<QQ", s, e) for s, e in tables) + \
        b"".join(struct.pack("<QQQ", g, p, n) for g, p, n in extents)
    fixed = struct.pack("<IIHHI64sQQBBBBHHIIQQ", 2, 128 + len(body), did,
                        origin, node, name.encode(), sum(n for *_, n in
                                                         extents) * 4096,
                        root, 1, 0, 0, 40, 0, 0, len(tables),
                        len(extents), 0, 0)
    return fixed + body


def _ho(records, preserved, extra=b"", version=1, gen=1):
    """A handover: header, @records, the preserved record, @extra; the
    CRC-32 (zlib) over it all with the checksum field zero."""
    import zlib

    pres = struct.pack("<IIII", 1, 16 + 16 * len(preserved),
                       len(preserved), 0) + \
        b"".join(struct.pack("<QQ", s, e) for s, e in preserved)
    body = b"".join(records) + pres + extra
    count = len(records) + 1 + (1 if extra else 0)
    size = 128 + len(body)

    def head(crc):
        return struct.pack("<QIIQIIQQQQQQQQ32x", 0x31564f484c45454b,
                           version, 128, size, crc, count, gen,
                           0x1122334455667788, 0, 1000000000, 1, 2, 3, 0)
    crc = zlib.crc32(head(0) + body)
    return head(crc) + body


def _ho_bad(ranges, source=0):
    """A bad-page record (version 4): the preserved record's layout; in
    version 5 its last word is the pages' source (0 firmware, 1 option,
    2 mce, 3 injection, 4 handover: not known)."""
    return struct.pack("<IIII", 4, 16 + 16 * len(ranges), len(ranges),
                       source) + \
        b"".join(struct.pack("<QQ", s, e) for s, e in ranges)


def _ho_bad_packed(ranges, source=0):
    """A packed bad-page record (type 5, version 6): the same head, then
    a u64 a range: bits 0..39 start >> 12, bits 40..63 pages - 1."""
    return struct.pack("<IIII", 5, 16 + 8 * len(ranges), len(ranges),
                       source) + \
        b"".join(struct.pack("<Q", s >> 12 | ((e - s) // 4096 - 1) << 40)
                 for s, e in ranges)


def _ho_ft_place():
    """The frame table's placement (optional type 0x80000006): the
    section table and nodes 0 and 1, 24 bytes a piece."""
    g4 = 1 << 32
    pieces = ((0x3fec0000, 0x3fec1000, 0xffffffff),
              (0x3fe00000, 0x3fec0000, 0),
              (g4 + (1 << 30) - 0x800000, g4 + (1 << 30), 1))
    return struct.pack("<IIII", 0x80000006, 16 + 24 * len(pieces),
                       len(pieces), 0) + \
        b"".join(struct.pack("<QQII", s, e, n, 0) for s, e, n in pieces)


AR_PA = 0x40000000  # handover_fuzz.c's pieces' machine: RAM [AR_PA, + 1M)


def _ho_pieces(records, preserved, shift=12, gap=1):
    """A version 7 handover in pieces of 2^@shift bytes (docs/liveupdate.md,
    "Pieces"), as the pieces' machine's RAM holds it from AR_PA: piece k
    at AR_PA + k (1 + @gap) 2^@shift, the pieces record after the header,
    the CRC-32 over the offsets in order."""
    import zlib

    piece = 1 << shift
    pres = struct.pack("<IIII", 1, 16 + 16 * len(preserved),
                       len(preserved), 0) + \
        b"".join(struct.pack("<QQ", s, e) for s, e in preserved)
    rest = b"".join(records) + pres
    n = 2
    while -(-(128 + 16 + 8 * n + len(rest)) // piece) != n:
        n = -(-(128 + 16 + 8 * n + len(rest)) // piece)
    addrs = [AR_PA + k * (1 + gap) * piece for k in range(n)]
    body = struct.pack("<IIII", 7, 16 + 8 * n, n, 0) + \
        b"".join(struct.pack("<Q", a) for a in addrs) + rest
    size = 128 + len(body)

    def head(crc):
        return struct.pack("<QIIQIIQQQQQQQQII24x", 0x31564f484c45454b, 7,
                           128, size, crc, len(records) + 2, 1,
                           0x1122334455667788, 0, 1000000000, 1, 2, 3, 0,
                           shift, n)
    flat = head(zlib.crc32(head(0) + body)) + body
    image = bytearray(addrs[-1] - AR_PA + piece)
    for k, a in enumerate(addrs):
        chunk = flat[k * piece:(k + 1) * piece]
        image[a - AR_PA:a - AR_PA + len(chunk)] = chunk
    return bytes(image[:addrs[-1] - AR_PA + len(flat) - (n - 1) * piece])


def handover_pieces():
    """Version 7 in pieces on the pieces' machine: a domain of 100
    one-page extents, every other page, so that its record runs from
    piece 0 into piece 1 (an extent cut in two)."""
    base = AR_PA + 0x20000
    ext = [(i * 4096, base + 0x2000 + i * 8192, 1) for i in range(100)]
    d = _ho_domain(1, "alpha", 0, base, [(base, base + 0x1000)], ext)
    pres = [(base, base + 0x1000)] + [(p, p + 4096) for _, p, _ in ext]
    return {"class-pieces": _ho_pieces([d], pres)}


def handover():
    """Valid handovers of the fuzz target's machine (RAM [0, 1G) node 0,
    [4G, 5G) node 1, bios and kernel reserved below 3M) and the classes
    random bytes seldom build: many extents, optional records, vCPUs."""
    g4 = 1 << 32
    a = _ho_domain(1, "alpha", 0, 0x10000000, [(0x10000000, 0x10003000)],
                   [(0, 0x10200000, 1024), (4 * MIB, 0x11000000, 1)])
    b = _ho_domain(2, "beta", 1, 0x3ff00000, [(0x3ff00000, 0x3ff01000)],
                   [(0, g4, 1 << 18)])
    pres = [(0x10000000, 0x10003000), (0x10200000, 0x10600000),
            (0x11000000, 0x11001000), (0x3ff00000, 0x3ff01000),
            (g4, g4 + (1 << 30))]
    many = _ho_domain(3, "many", 0, 0x12000000, [(0x12000000, 0x12001000)],
                      [(i * 8192, 0x12100000 + i * 8192, 1)
                       for i in range(RUN)])
    many_pres = [(0x12000000, 0x12001000)] + \
        [(0x12100000 + i * 8192, 0x12101000 + i * 8192) for i in range(RUN)]
    optional = struct.pack("<II", 0x80000009, 16) + b"\xab" * 8
    vcpu = struct.pack("<II", 3, 16) + b"\0" * 8
    # A version 2 vCPU record of alpha: 48 bytes, then arm64's 488-byte
    # state (tag 1, the fuzz target machine's), cpu 0, stopped at tick 2
    # (before written_ticks 3): bytes 0, 1, 2... but pc 0x800 (in alpha's
    # IPA space, offset 248) and PSTATE EL1h, DAIF masked (offset 256).
    st = bytearray(i & 0xff for i in range(488))
    st[248:264] = struct.pack("<QQ", 0x800, 0x3c5)
    vcpu2 = struct.pack("<IIHHIIIQQQ", 3, 48 + 488, 1, 1, 0, 488, 0, 2,
                        1024, 0) + bytes(st)
    valid = _ho([a, b], pres)
    return {
        "class-two-domains": valid,
        "class-no-domain": _ho([], []),
        "class-many-extents": _ho([many], many_pres),
        "class-optional-record": _ho([a, b], pres, optional),
        "class-vcpu-record": _ho([a, b], pres, vcpu),
        "class-version-2": _ho([a, b], pres, version=2),
        "class-vcpu-v2": _ho([a, b], pres, vcpu2, version=2),
        "class-truncated": valid[:len(valid) - 40],
        # Version 4's bad-page record: two ranges, one in beta's memory.
        "class-bad-pages-v4": _ho([a, b], pres, _ho_bad(
            [(0x20001000, 0x20003000), (g4 + 0x5000, g4 + 0x6000)]),
            version=4),
        # Version 5: a record a source, ascending (mce, injection, and 9,
        # a source no reader knows: a warning, still bad), touching
        # across records, one range in alpha's extent.
        "class-bad-pages-v5": _ho([a, b, _ho_bad(
            [(0x20001000, 0x20003000), (g4 + 0x5000, g4 + 0x6000)], 2),
            _ho_bad([(0x10201000, 0x10202000), (0x20003000, 0x20004000)], 3),
            _ho_bad([(0x20010000, 0x20011000)], 9)], pres, version=5),
        # Version 6: the same, mce and 9 packed, injection in 16 bytes.
        "class-bad-pages-v6": _ho([a, b, _ho_bad_packed(
            [(0x20001000, 0x20003000), (g4 + 0x5000, g4 + 0x6000)], 2),
            _ho_bad([(0x10201000, 0x10202000), (0x20003000, 0x20004000)], 3),
            _ho_bad_packed([(0x20010000, 0x20011000)], 9)], pres, version=6),
        "class-ft-place": _ho([a, b, _ho_ft_place()], pres, version=6),
        # New images' headers (boot/handover_image.c reads the same input).
        "class-mb1-image": bytes(8) + struct.pack(
            "<IIiIIIII", 0x1BADB002, 0x10003, -(0x1BADB002 + 0x10003),
            0x100008, 0x100000, 0x100400, 0x200000, 0x100040) + bytes(992),
        "class-arm64-image": bytes(8) + struct.pack("<QQ", 0, 0x10000) +
        bytes(0x38 - 24) + b"ARM\x64" + bytes(968),
    }


def _ho_records(ho):
    """The records of handover bytes @ho, to its end: [(offset, type,
    bytes)]."""
    out, off = [], 128
    while off + 8 <= len(ho):
        typ, n = struct.unpack_from("<II", ho, off)
        out.append((off, typ, n))
        off += max(n, 8)
    return out


def _ho_whole(pa, ho, pages):
    """A handover_whole input: u64 pa, the handover (size and record
    count set from its bytes; the target makes the checksum), pages."""
    ho = bytearray(ho)
    struct.pack_into("<Q", ho, 16, len(ho))
    struct.pack_into("<I", ho, 28, len(_ho_records(bytes(ho))))
    return struct.pack("<Q", pa) + bytes(ho) + pages


def handover_whole():
    """Forgeries of the real handover the sandbox wrote (corpus
    handover_whole/real-2-domains: 2 domains of tests/data/
    sandbox-liveupdate.fw, their p2m table pages after it): a vCPU record
    of domain 1 (arm64, EL1h, pc 0x800), the same in EL2h, domain 2's
    memory moved onto domain 1's p2m root, domain 1's own memory grown
    onto its own root (issue 36 section 7's classes)."""
    with open(os.path.join(CORPUS, "handover_whole", "real-2-domains"),
              "rb") as f:
        real = f.read()
    pa = struct.unpack_from("<Q", real, 0)[0]
    size = struct.unpack_from("<Q", real, 8 + 16)[0]
    ho, pages = real[8:8 + size], real[8 + size:]
    doms = [(o, n) for o, t, n in _ho_records(ho) if t == 2]
    root1 = struct.unpack_from("<Q", ho, doms[0][0] + 88)[0]

    def vcpu(pstate):
        st = bytearray(488)
        st[248:264] = struct.pack("<QQ", 0x800, pstate)
        return struct.pack("<IIHHIIIQQQ", 3, 48 + 488, 1, 1, 0, 488, 0, 0,
                           0, 0) + bytes(st)

    def version4(b, v=4):
        b = bytearray(b)
        struct.pack_into("<I", b, 8, v)
        return bytes(b)

    def one_page_extent(dom, at):
        """Domain @dom's first extent made one page at @at, bytes 4096."""
        b = bytearray(ho)
        off = doms[dom][0]
        tc = struct.unpack_from("<I", b, off + 104)[0]
        x = off + 128 + 16 * tc
        struct.pack_into("<QQ", b, x + 8, at, 1)
        struct.pack_into("<Q", b, off + 80, 4096)
        return bytes(b)

    return {
        "class-vcpu-el1h": _ho_whole(pa, ho + vcpu(0x3c5), pages),
        "class-vcpu-el2h": _ho_whole(pa, ho + vcpu(0x3c9), pages),
        "class-maps-other-root": _ho_whole(pa, one_page_extent(1, root1),
                                           pages),
        "class-maps-own-root": _ho_whole(pa, one_page_extent(0, root1),
                                         pages),
        # Version 4 with a bad-page record: a free page and a run.
        "class-bad-pages-v4": _ho_whole(pa, version4(
            ho + _ho_bad([(0x8000000, 0x8001000),
                          (0x8100000, 0x8104000)])), pages),
        # Version 5: the same pages under two sources (mce, injection).
        "class-bad-pages-v5": _ho_whole(pa, version4(
            ho + _ho_bad([(0x8000000, 0x8001000)], 2) +
            _ho_bad([(0x8100000, 0x8104000)], 3), 5), pages),
        # Version 6: the same, mce packed, injection packed.
        "class-bad-pages-v6": _ho_whole(pa, version4(
            ho + _ho_bad_packed([(0x8000000, 0x8001000)], 2) +
            _ho_bad_packed([(0x8100000, 0x8104000)], 3), 6), pages),
    }


TARGETS = {"handover": lambda: {**handover(), **handover_pieces()}, "handover_whole": handover_whole, "fwdesc": fwdesc, "fdt": fdt, "multiboot2": multiboot2,
           "multiboot": multiboot1, "uefi": uefi, "acpi_srat": acpi_srat,
           "acpi_madt": acpi_madt, "acpidump": acpidump, "dom0less": dom0less}


def main(argv):
    check = "--check" in argv
    bad = 0
    for target, make in TARGETS.items():
        for name, data in make().items():
            path = os.path.join(CORPUS, target, name)
            if check:
                try:
                    with open(path, "rb") as f:
                        same = f.read() == data
                except OSError:
                    same = False
                if not same:
                    print(f"mkseeds: {path} is stale or missing")
                    bad += 1
                continue
            with open(path, "wb") as f:
                f.write(data)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
