# SPDX-License-Identifier: MIT
"""The hostile-map fuzzer's view of a .fw file (scripts/keel/fuzzmaps.py):
the limits of the build and of boot/fwdesc.c, a parser that accepts what
fwdesc.c accepts, and the interval arithmetic the oracle is written in."""

import re

PAGE = 4096
MIB = 1 << 20
GIB = 1 << 30
PADDR_BITS = 46  # CONFIG_SANDBOX_PADDR_BITS's default (arch/sandbox/Kconfig)
NODE_ID_MAX = 0xfffe  # fwdesc.c: a larger node= is refused with its line
DEAD_CPU_TIMEOUT_MS = 250  # ap_timeout_ms of the dead-cpus cases
SMOKE_CASES = 300  # make fuzz-maps-smoke: cases 0..299 (tests/tests.mk)
NUMA_NO_NODE = None
SECTION_PAGES = 1 << 15  # FT_SECTION_PAGES, include/keel/frametable.h
PAGE_INFO_BYTES = 32  # struct page_info
SMP_STACK = 64 * 1024  # SMP_STACK_SIZE, include/keel/smp.h
PERCPU_STATE_BYTES = 4096  # common/smp/smp.c
ALLOC_NAMES = ("frametable", "cpu stack")  # bootmem allocations' names
NAMES = ("bios", "acpi", "acpi-nvs", "smbios", "fw", "pci-window", "mmio",
         "tpm-log", "efi-rt", "vpd", "persistent-mem", "crashkernel")


# ---- parsing a .fw (as boot/fwdesc.c accepts it) -------------------------

LINE_MAX = 256  # FWDESC_LINE_MAX: a longer line is skipped
TOKENS_MAX = 8  # FWDESC_TOKENS: a line with more fields is skipped
_NUMBER = re.compile(r"(0[xX][0-9a-fA-F]+|[0-9]+)([KMGTkmgt]?)\Z")
_BLANKS = re.compile(r"[ \t\r\v\f]+")  # fwdesc.c's is_blank()


def _num(t, top=(1 << 64) - 1):
    """parse_size() of common/lib/lib.c: ValueError where it fails."""
    m = _NUMBER.match(t)
    if not m:
        raise ValueError(t)
    digits = m.group(1)
    v = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 10)
    if v > (1 << 64) - 1:
        raise ValueError(t)
    v <<= 10 * " KMGT".index(m.group(2).upper() or " ")
    if v > top:
        raise ValueError(t)
    return v


def _attrs(toks, names):
    """key=value fields as fwdesc.c's parse_attrs() takes them: node at
    most NODE_ID_MAX, the others 32 bits. ValueError: the line is
    skipped."""
    out = {}
    for t in toks:
        k, eq, v = t.partition("=")
        if not eq or k not in names:
            raise ValueError(t)
        out[k] = _num(v, NODE_ID_MAX if k == "node" else 0xffffffff)
    return out


def _is_text(name):
    return all(ord(c) >= 0x20 and ord(c) != 0x7f for c in name)


def _parse_line(fw, tok):
    """One line's fields into @fw, as fwdesc.c's parse_line() does."""
    kw, n = tok[0], len(tok)
    if kw == "ram" and n >= 3:
        s, e = _num(tok[1]), _num(tok[2])
        node = _attrs(tok[3:], ("node",)).get("node")
        if e > s:
            fw["ram"].append((s, e, node))
    elif kw == "reserved" and 3 <= n <= 4:
        s, e = _num(tok[1]), _num(tok[2])
        name = tok[3] if n == 4 and _is_text(tok[3]) else "firmware"
        if e > s:
            fw["reserved"].append((s, e, name))
    elif kw == "cpu" and n >= 2:
        hwid = _num(tok[1])
        node = _attrs(tok[2:], ("node", "package", "core",
                                "thread")).get("node")
        fw["cpus"].append((hwid, node))
    elif kw == "distance" and n == 4:
        a, b = _num(tok[1], NODE_ID_MAX), _num(tok[2], NODE_ID_MAX)
        v = _num(tok[3], 255)
        if 0 < v <= 255:
            fw["distance"].append((a, b, v))


def parse_fw(text):
    """Return dict(ram, reserved, cpus, distance, cmdline) of @text, read
    as boot/fwdesc.c reads it (characters are bytes: latin-1).

    Every byte counts, a NUL too (it is part of its line, never the end
    of the text); lines fwdesc.c skips (too long, too many fields, bad
    numbers or attributes, node ids past 0xfffe, END <= START) are
    skipped here too.
    """
    fw = {"ram": [], "reserved": [], "cpus": [], "distance": [],
          "cmdline": ["bootscrub=on"]}
    for ln in text.split("\n"):
        m = re.match(r"#\s*cmdline:\s*(.*)", ln)
        if m:
            fw["cmdline"] = m.group(1).split()
            continue
        if len(ln) > LINE_MAX:
            continue
        tok = [t for t in _BLANKS.split(ln.split("#", 1)[0]) if t]
        if not tok or len(tok) > TOKENS_MAX:
            continue
        try:
            _parse_line(fw, tok)
        except ValueError:
            continue
    return fw


# ---- interval helpers ----------------------------------------------------

def merge(ranges):
    """Sorted union of [s, e) pairs."""
    out = []
    for s, e in sorted(r[:2] for r in ranges):
        if s >= e:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [tuple(r) for r in out]


def intersect(a, b):
    """Intersection of two merged range lists."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def subtract(a, b):
    """Merged ranges of @a minus merged ranges of @b."""
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append((cur, bs))
            cur = max(cur, be)
        if cur < e:
            out.append((cur, e))
    return out


def total(ranges):
    return sum(e - s for s, e in ranges)
