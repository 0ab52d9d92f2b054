# SPDX-License-Identifier: MIT
"""The generator of issue 28 section 4's class: every dom0less property
keel reads (memory, cpus, xen,static-mem and its cells, the kernel
module's reg and its cells, the node's name) with a wrong length, value
or type, names of every length around the 63-byte limit and with every
byte class. Each case is one node of a DT written by tests/sandbox/
fdtgen.py (dtc cannot write control bytes in names), booted in the
sandbox's DT replay, batches of at most BATCH domains.

The oracle reads the log and the report, never keel's code: a case passes
when it takes effect (its row, vCPUs, static memory, kernel or
reservation is what the DT says) or when a `keel: warning:` line names
its node (escaped as include/keel/escape.h says) and the word. `must`
tightens it where only one is right: "warn" (nothing sensible can take
effect), "effect" (well-formed: no warning about it), "both" (a value
taken after a fix, e.g. rounded up to 4 KiB). Every human line keel
prints must be plain ASCII, and no two rows share a name."""

import re

from .fdtgen import Node, cells, string

KIB = 1024
BATCH = 56
LINES = 15  # with domain=4K: at most 16 domains, one human line each
SLOT = 0x70000000  # static ranges: one 1 MiB slot per case from here
MODS = 0x60000000  # modules: one 1 MiB slot per case from here


def shown(raw):
    """@raw as keel prints a name: printable ASCII as is, a backslash as
    \\\\, every other byte as \\xNN."""
    out = []
    for b in raw:
        if b == 0x5c:
            out.append("\\\\")
        elif 0x20 <= b < 0x7f:
            out.append(chr(b))
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def json_name(raw):
    """@raw as the report's JSON gives it back: well-formed UTF-8 as
    text, every other byte as the code point of its value."""
    s = raw.decode("utf-8", errors="surrogateescape")
    return "".join(chr(ord(c) - 0xdc00) if 0xdc80 <= ord(c) <= 0xdcff
                   else c for c in s)


class Gen:
    """One case: a node of /chosen, the word its warning must name, what
    must happen (@must), and @effect(rep) -> list of problems."""

    def __init__(self, name, props, word, must, effect=None, children=(),
                 warn_name=None, line=False):
        self.raw = name.encode() if isinstance(name, str) else name
        self.node = Node(self.raw, props, children)
        self.word = word
        self.must = must
        self.effect = effect  # also checked on a "warn" case when given
        self.warn_name = warn_name or self.raw  # the node a warning names
        self.line = line  # its `keel: domain N NAME:` line must show it


def dom_props(kib=4, extra=()):
    return [("compatible", string("xen,domain")),
            ("memory", cells(0, kib))] + list(extra)


def row(rep, raw):
    rows = [d for d in rep.get("domains", []) if d["name"] == json_name(raw)]
    return rows[0] if len(rows) == 1 else None


def has_row(**cols):
    """The case's row exists with @cols (a callable: the row is checked)."""
    def check(rep, raw):
        d = row(rep, raw)
        if d is None:
            return [f"no single row named {json_name(raw)!r}"]
        return [f"{k} = {d.get(k)!r}, expected {v!r}"
                for k, v in cols.items() if d.get(k) != v]
    return check


def reserved(name, s, e):
    """memmap.reserved holds [s, e) under @name."""
    def check(rep, raw):
        ok = any(r[2] == name and r[0] <= s and r[1] >= e
                 for r in rep["memmap"]["reserved"])
        return [] if ok else [f"[{s:#x}, {e:#x}) not reserved as {name!r}"]
    return check


def all_of(*checks):
    def check(rep, raw):
        return [p for c in checks for p in c(rep, raw)]
    return check


def _memory_cases():
    out = [Gen(f"m-len{n}", [("compatible", string("xen,domain")),
                             ("memory", bytes(range(1, n + 1)))],
               "memory", "warn")
           for n in (0, 1, 2, 3, 5, 6, 7, 9, 12, 16)]
    out += [
        Gen("m-len4", [("compatible", string("xen,domain")),
                       ("memory", cells(16))], "memory", "effect",
            has_row(bytes=16 * KIB)),
        Gen("m-len8", dom_props(20), "memory", "effect",
            has_row(bytes=20 * KIB)),
        Gen("m-zero", dom_props(0), "memory", "warn"),
        Gen("m-1k", dom_props(1), "memory", "both", has_row(bytes=4096)),
        Gen("m-5k", dom_props(5), "memory", "both", has_row(bytes=8192)),
        Gen("m-1pib", [("compatible", string("xen,domain")),
                       ("memory", cells(0x100, 0))], "memory", "effect",
            has_row(bytes=1 << 50)),
        Gen("m-over-1pib", [("compatible", string("xen,domain")),
                            ("memory", cells(0x100, 1))], "memory", "warn"),
        Gen("m-none", [("compatible", string("xen,domain"))], "memory",
            "warn"),
        # A string where a number belongs: a DT is untyped, 4 bytes are
        # a one-cell number (0x61626300 KiB): far too big, but asked.
        Gen("m-string", [("compatible", string("xen,domain")),
                         ("memory", b"abc\0")], "memory", "either",
            has_row(bytes=0x61626300 * KIB)),
    ]
    return out


def _cpus_cases():
    out = [Gen(f"c-len{n}", dom_props(extra=[("cpus", bytes(n))]), "cpus",
               "warn") for n in (0, 1, 2, 3, 5, 8)]
    out += [Gen(f"c-{v}", dom_props(extra=[("cpus", cells(v))]), "cpus",
                "warn") for v in (0, 4097, 0xffffffff)]
    out += [Gen(f"c-{v}", dom_props(extra=[("cpus", cells(v))]), "cpus",
                "effect", has_row(vcpus=v)) for v in (1, 4096)]
    out += [Gen("c-none", dom_props(), "cpus", "effect",
                has_row(vcpus=None)),
            Gen("c-string", dom_props(extra=[("cpus", b"ab\0")]), "cpus",
                "warn")]
    return out


def _name_cases():
    out = [Gen(b"n" + b"x" * (n - 1), dom_props(), "name", "effect",
               has_row(bytes=4096)) for n in (1, 31, 32, 62, 63)]
    out += [Gen(b"N" + b"y" * (n - 1), dom_props(), "name", "warn")
            for n in (64, 65, 100, 255)]
    # Two nodes of one name (libfdt allows it), and the name of the
    # command line's domain=4K: one row each, the later node warned.
    out += [Gen("dup", dom_props(), "name", "either", has_row(bytes=4096)),
            Gen("dup", dom_props(8), "name", "warn"),
            Gen("domain0", dom_props(8), "name", "warn",
                has_row(bytes=4096))]
    return out


def _byte_class_cases():
    """A name with each byte class: kept whole in the row, escaped in its
    human line and in the warning its `cpus = <0>` draws."""
    classes = list(range(1, 0x20)) + [0x7f, 0x80, 0x9f, 0xa0, 0xc3, 0xff]
    classes += [ord(c) for c in "\\\"' @,;#$%&*+-.:<=>?[]^_`{|}~"]
    return [Gen(b"b" + bytes([b]) + b"-%02x" % b,
                dom_props(extra=[("cpus", cells(0))]), "name", "effect",
                has_row(bytes=4096), line=True) for b in classes]


def _static(i, *pairs, kib=None, cells_=(), extra=()):
    """A static domain in slot @i: @pairs (offset in the slot, size)."""
    base = SLOT + i * 0x100000
    kib = kib if kib is not None else sum(n for _, n in pairs) // KIB
    props = dom_props(kib, list(cells_) + list(extra))
    props.append(("xen,static-mem",
                  cells(*[v for o, n in pairs for v in (base + o, n)])))
    return props, base


def _static_cases():
    out = []
    p, b = _static(0, (0, 0x10000))
    out.append(Gen("s-good", p, "xen,static-mem", "effect",
                   all_of(has_row(origin="static", bytes=0x10000,
                                  fail_reason=None),
                          reserved("static-mem", b, b + 0x10000))))
    p, b = _static(1, (0, 0x8000), (0x20000, 0x8000))
    out.append(Gen("s-two", p, "xen,static-mem", "effect",
                   has_row(origin="static", bytes=0x10000,
                           fail_reason=None, extents_4k=16)))
    p, b = _static(2, (0, 0x10000), kib=128)
    out.append(Gen("s-total", p, "xen,static-mem", "warn",
                   reserved("static-mem", b, b + 0x10000)))
    p, b = _static(3, (0x800, 0x10000))
    out.append(Gen("s-unaligned", p, "xen,static-mem", "warn"))
    p, b = _static(4, (0, 0), (0x10000, 0x10000), kib=64)
    out.append(Gen("s-zero-pair", p, "xen,static-mem", "both",
                   has_row(origin="static", fail_reason=None)))
    p, b = _static(5, *[(k * 0x1000, 0x1000) for k in range(9)])
    out.append(Gen("s-nine", p, "xen,static-mem", "warn",
                   reserved("static-mem", b, b + 0x9000)))
    for n in (0, 4, 6, 12):
        base = SLOT + (6 + n) * 0x100000
        out.append(Gen(f"s-len{n}", dom_props(64, [
            ("xen,static-mem", cells(base, 0x10000, base)[:n])]),
            "xen,static-mem", "warn"))
    out.append(Gen("s-wraps", dom_props(8, [
        ("#xen,static-mem-address-cells", cells(2)),
        ("#xen,static-mem-size-cells", cells(2)),
        ("xen,static-mem", cells(0xffffffff, 0xfffff000, 0, 0x2000))]),
        "xen,static-mem", "warn"))
    out.append(Gen("s-outside", dom_props(64, [
        ("xen,static-mem", cells(0x90000000, 0x10000))]),
        "xen,static-mem", "warn"))
    p, b = _static(20, (0, 0x10000))
    out.append(Gen("s-overlap-a", p, "xen,static-mem", "warn"))
    p, _ = _static(20, (0x8000, 0x10000))
    out.append(Gen("s-overlap-b", p, "xen,static-mem", "warn"))
    p, b = _static(21, (0, 0x10000), cells_=[
        ("#xen,static-mem-address-cells", cells(1)),
        ("#xen,static-mem-size-cells", cells(1))])
    out.append(Gen("s-cells-4.16", p, "xen,static-mem", "effect",
                   has_row(origin="static", fail_reason=None)))
    for name, prop in (("s-cells-3", cells(3)), ("s-cells-len", b"\0\1"),
                       ("s-cells-0", cells(0))):
        p, _ = _static(22, (0, 0x10000), cells_=[
            ("#xen,static-mem-address-cells", prop),
            ("#xen,static-mem-size-cells", cells(1))])
        out.append(Gen(name, p, "xen,static-mem", "warn"))
    p, b = _static(23, (0, 0x10000))
    out.append(Gen("s-no-memory", [q for q in p if q[0] != "memory"],
                   "memory", "warn",
                   reserved("static-mem", b, b + 0x10000)))
    return out


def _module(name, reg, compat="multiboot,kernel\0multiboot,module"):
    props = [("compatible", compat.encode() + b"\0")]
    if reg is not None:
        props.append(("reg", reg))
    return Node(name, props)


def _kernel_cases():
    out = []

    def k(i, case, reg, must, effect=None, dom_extra=(), kids=None):
        node = f"mod-{case}"
        kids = kids or [_module(node, reg)]
        out.append(Gen(f"k-{case}", dom_props(4, list(dom_extra)), "reg",
                       must, effect, children=kids, warn_name=node.encode()))

    a = MODS
    k(0, "good", cells(a, 0x1000), "effect",
      all_of(has_row(kernel="mod-good"),
             reserved("module:kernel", a, a + 0x1000)))
    k(1, "noreg", None, "warn")
    k(2, "short", cells(a + 0x100000), "warn")
    k(3, "zero", cells(a + 0x200000, 0), "warn")
    k(4, "trailing", cells(a + 0x300000, 0x1000) + b"\1\2", "warn",
      reserved("module:kernel", a + 0x300000, a + 0x301000))
    k(5, "wraps", cells(0xffffffff, 0xfffff000, 0, 0x2000), "warn",
      dom_extra=[("#address-cells", cells(2)), ("#size-cells", cells(2))])
    # Outside RAM: nothing to keep from the heap (memmap.reserved lists
    # RAM only), the warning is all there is.
    k(6, "outside", cells(0x10000000, 0x1000), "warn")
    k(7, "sc0", cells(a + 0x700000), "warn",
      dom_extra=[("#size-cells", cells(0))])
    k(8, "ac3", cells(0, a + 0x800000, 0x1000), "warn",
      dom_extra=[("#address-cells", cells(3))])
    out.append(Gen("k-two", dom_props(4), "kernel", "both",
                   has_row(kernel="mod-two-a"),
                   children=[_module("mod-two-a", cells(a + 0x900000, 4096)),
                             _module("mod-two-b", cells(a + 0xa00000, 4096))]))
    out.append(Gen("k-cells-len", dom_props(4, [("#address-cells", b"\0\2")]),
                   "#address-cells", "warn",
                   children=[_module("mod-cells-len",
                                     cells(0, a + 0xb00000, 0x1000))]))
    return out


def gen_cases():
    """Every case, in batches of at most BATCH domain nodes; the byte
    classes in batches of LINES, so that each domain gets its line."""
    every = (_memory_cases() + _cpus_cases() + _name_cases() +
             _static_cases() + _kernel_cases())
    names = _byte_class_cases()
    return ([every[i:i + BATCH] for i in range(0, len(every), BATCH)] +
            [names[i:i + LINES] for i in range(0, len(names), LINES)])


def warned(log, raw, word):
    """A `keel: warning:` line names node @raw (as keel shows it; a name
    longer than a domain's may be cut: its first 120 characters) and
    @word."""
    text = shown(raw)
    rx = re.compile(r"(?:^| )" + (re.escape(text) + r"[/: ]"
                                  if len(raw) < 64 else re.escape(text[:120])))
    return any("keel: warning:" in ln and word in ln and rx.search(ln)
               for ln in log.splitlines())


def judge(case, rep, log):
    """Why @case is not right by the rule above, [] when it is."""
    w = warned(log, case.warn_name, case.word)
    eff = case.effect(rep, case.raw) if case.effect else ["no effect"]
    out = []
    if case.must in ("warn", "both") and not w:
        out.append(f"no warning naming it and {case.word!r}")
    if case.must == "effect" and w:
        out.append(f"warned about ({case.word!r}), but well-formed")
    if case.must in ("effect", "both") or (case.must == "warn" and
                                           case.effect):
        out += eff
    if case.must == "either" and eff and not w:
        out.append(f"neither took effect ({eff[0]}) nor warned")
    if case.line and not re.search(r"^keel: domain \d+ " +
                                   re.escape(shown(case.raw)) + ": ", log,
                                   re.M):
        out.append("no `keel: domain N NAME:` line showing it escaped")
    return [f"{shown(case.raw)[:40]}: {p}" for p in out]


def batch_checks(rep, log):
    """What holds whatever the cases: every human line plain ASCII, no
    two rows with one name."""
    out = [f"a human line holds a raw byte: {ln[:60]!r}"
           for ln in log.splitlines()
           if ln.startswith("keel:") and
           (not ln.isascii() or any(c < " " and c != "\t" for c in ln))]
    names = [d["name"] for d in rep.get("domains", [])]
    out += [f"two rows named {n!r}" for n in set(names)
            if names.count(n) > 1]
    return out


def batch_root(batch):
    """The machine of a batch: 1 GiB of RAM at 0x40000000, one CPU, the
    cases under a /chosen of 1+1 cells, and the module a static case
    overlaps."""
    mem = Node("memory@40000000", [("device_type", string("memory")),
                                   ("reg", cells(0, 0x40000000, 0,
                                                 0x40000000))])
    cpus = Node("cpus", [("#address-cells", cells(1)),
                         ("#size-cells", cells(0))],
                [Node("cpu@0", [("device_type", string("cpu")),
                                ("reg", cells(0))])])
    chosen = Node("chosen", [("#address-cells", cells(1)),
                             ("#size-cells", cells(1))],
                  [c.node for c in batch])
    return Node(b"", [("#address-cells", cells(2)),
                      ("#size-cells", cells(2))], [mem, cpus, chosen])
