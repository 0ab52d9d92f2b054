# SPDX-License-Identifier: MIT
"""The pieces of the x86_64 QEMU matrix (tests/qemu/x86_64.py): a case,
a machine (a QEMU configuration and every expectation derived from it, as
that file's docstring says) and the checks the cases run on the report."""

import os
import re
import subprocess

from scripts.keel import boot, report
from scripts.keel.boot import TOP

MKISO = os.path.join(TOP, "scripts", "mkiso.sh")
EXIT_PASS = 33   # isa-debug-exit: (0x10 << 1) | 1
EXIT_FAIL = 35   # (0x11 << 1) | 1
EXIT_POWEROFF = 0  # ACPI S5 (after=poweroff, or exit without the device)
EXIT_HALT = boot.TIMEOUT_STATUS  # scripts/qemu.sh --timeout: keel halted
ISO_CMDLINE = "after=exit bootscrub=on audit=full"
M = 1 << 20
G = 1 << 30
SEABIOS_TOL = 1 * M
OVMF_TOL = 16 * M
# Timeouts are a safety net (a passing case exits QEMU at once), never a
# measurement: at least 5x the case's time on this 2-core host. Measured
# (2026-12, one run of the whole matrix while other builds loaded the
# host, load average 5 to 880): 0.3-7 s for -kernel boots, 3-17 s for the
# GRUB and OVMF ones, 27 s for smp-240-smt-2node. 120 s covers them all
# 7x. The two cases that must end in a halt (HALT_TIMEOUT) reach it in
# 0.7 s and then wait out their timeout: 15 s is 20x that, and 5x on a
# CI VM 4x slower.
TIMEOUT = 120
HALT_TIMEOUT = 15


def ram_expect(mem, tol):
    """report.py expectation: ram_bytes in [mem - tol, mem]."""
    return {"ram": mem - tol // 2, "ram_tolerance": tol // 2}


class Case:
    def __init__(self, name, qemu_args, mem, append="", timeout=TIMEOUT,
                 iso=False, tol=SEABIOS_TOL, expect=None, checks=(),
                 no_report_log=None, exit_status=EXIT_PASS,
                 iso_cmdline=None, debug_exit=True, console=None,
                 qemu_tail=(), live=None):
        self.name = name
        # A watched boot: fn(cmd_for, timeout, log_path) -> (Boot,
        # problems), cmd_for(extra QEMU args) -> the command,
        # for a case that acts on the running guest (QMP).
        self.live = live
        # "com1" / "com2": QEMU gets a second serial port (COM2, a file);
        # the report must be on that port's log and not on the other.
        self.console = console
        # Extra QEMU arguments (after scripts/qemu.sh's --).
        self.qemu_tail = list(qemu_tail)
        # EXIT_HALT: the boot must end in a halt, which the timeout ends.
        self.exit_status = exit_status
        # The ISO's grub.cfg command line (None: the matrix's usual one).
        self.iso_cmdline = iso_cmdline
        # False: QEMU runs without -device isa-debug-exit.
        self.debug_exit = debug_exit
        # A boot that must stop before any report, printing this line
        # (and then halt: the timeout ends it).
        self.no_report_log = no_report_log
        self.qemu_args = qemu_args
        self.mem = mem
        self.append = append
        self.timeout = timeout
        self.iso = iso
        self.expect = dict(ram_expect(mem, tol))
        self.expect.update(expect or {})
        self.checks = checks


def above_4g(rep):
    ranges = rep["memmap"]["ranges"]
    if not any(r[1] > 4 * G for r in ranges):
        return ["no RAM above 4 GiB in memmap.ranges"]
    return []


def low_ram_ends_at(limit):
    def check(rep):
        low = [r for r in rep["memmap"]["ranges"] if r[0] < 4 * G]
        top = max(r[1] for r in low)
        if top > limit or top < limit - 1 * M:
            return [f"RAM below 4 GiB ends at {top:#x}, expected just "
                    f"below {limit:#x} (PCI hole)"]
        return []
    return check


def log_contains(text):
    def check(rep, log):
        return [] if text in log else [f"log lacks {text!r}"]
    check.wants_log = True
    return check


# A second build with a small CPU cap, for firmware that describes more.
NR_CPUS_SMALL = 64


def small_cap_elf(elf):
    """build/x86_64-nr64/keel.elf next to @elf's build directory."""
    out = os.path.dirname(os.path.abspath(elf)) + f"-nr{NR_CPUS_SMALL}"
    return os.path.join(out, "keel.elf")


def build_small_cap(elf):
    """make O=<small_cap_elf dir> with the defconfig and NR_CPUS_SMALL."""
    out = os.path.dirname(small_cap_elf(elf))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(TOP, "arch", "x86_64", "configs",
                           "x86_64_defconfig")) as f:
        cfg = re.sub(r"^CONFIG_NR_CPUS=.*$",
                     f"CONFIG_NR_CPUS={NR_CPUS_SMALL}", f.read(), flags=re.M)
    path = os.path.join(out, ".config")
    old = open(path).read() if os.path.exists(path) else None
    if old is None or f"CONFIG_NR_CPUS={NR_CPUS_SMALL}\n" not in old:
        with open(path, "w") as f:
            f.write(cfg)
    subprocess.run(["make", "-s", "-C", TOP, "ARCH=x86_64", f"O={out}"],
                   check=True, stdout=subprocess.DEVNULL)


def dropped_cpus_warned_once(described, held):
    """Exactly one warning line about CPUs past the cap, with the counts."""
    want = (f"firmware describes {described} CPUs, this build holds {held} "
            f"(CONFIG_NR_CPUS): {described - held} dropped")

    def check(rep, log):
        lines = [l for l in log.splitlines()
                 if "warning" in l and "CPU" in l and "dropped" in l]
        out = []
        if len(lines) != 1 or want not in lines[0]:
            out.append(f"want one warning {want!r}, got {lines}")
        if rep["dropped_cpus"] != described - held:
            out.append(f"dropped_cpus {rep['dropped_cpus']}, expected "
                       f"{described - held}")
        return out
    check.wants_log = True
    return check


ACPI_DATA = os.path.join(TOP, "tests", "data", "acpi")


def warnings_about(text, count):
    """Exactly @count warning lines mentioning @text."""
    def check(rep, log):
        lines = [l for l in log.splitlines()
                 if "warning:" in l and text in l]
        if len(lines) != count:
            return [f"{len(lines)} warnings about {text!r}, expected "
                    f"{count}: {lines}"]
        return []
    check.wants_log = True
    return check


def loader_is(prefix):
    def check(rep):
        if not rep["loader"].startswith(prefix):
            return [f"loader {rep['loader']!r}, expected {prefix!r}..."]
        return []
    return check


def warned(rep):
    if rep.get("warnings", 0) < 1:
        return ["no warning reported for a malformed command line"]
    return []


def mem_limited(limit):
    """The heap holds the RAM below mem= less what is reserved below it:
    the low MiB, the image (about 5 MiB with its bss, and the 2 MiB of room
    for a bigger next image), the loader's information and the frame
    table: under 12 MiB in all."""
    def check(rep):
        got = rep["heap"]["total_pages"] * 4096
        if got > limit or got < limit - 12 * M:
            return [f"heap holds {got} bytes with mem={limit}, expected "
                    f"a little under {limit}"]
        return []
    return check


def reserved_named(name):
    def check(rep):
        if not any(r[2] == name for r in rep["memmap"].get("reserved", [])):
            return [f"no {name!r} reservation in memmap.reserved"]
        return []
    return check


def _order(n):
    b = 0
    while (1 << b) < n:
        b += 1
    return b


audit_checked = report.check_audit_log


def bench_rows_every_node(modes):
    def check(rep):
        out = []
        rows = rep["bench"]
        for n in rep["nodes"]:
            if not n["mem_bytes"]:
                continue
            got = {r["mode"] for r in rows if r["node"] == n["id"]}
            if not got:
                out.append(f"no bench rows for node {n['id']}")
        for r in rows:
            if r["count"] <= 0 or r["ns_avg"] <= 0:
                out.append(f"bench row {r}: nothing measured")
        if rep["cachemaint"]["mode"] not in modes:
            out.append(f"cachemaint.mode {rep['cachemaint']['mode']!r}, "
                       f"expected one of {modes}")
        return out
    return check


def clflush_really_flushes(rep):
    """cachemaint=clflush: allocating dirty blocks costs maintenance, clean
    (clean_poc) ones none. The bench counts in sinks of its own, not the
    boot's cachemaint counters, so its rows are what shows it."""
    rows = [r for r in rep["bench"] if r["mode"] == "clflush"]
    out = []
    if not any(r["dirty"] and r["maint_ns"] > 0 for r in rows):
        out.append("cachemaint=clflush: no dirty bench row did maintenance")
    for r in rows:
        if not r["dirty"] and r["maint_ns"] != 0:
            out.append(f"clean_poc row did maintenance: {r}")
    return out

class Machine:
    """A QEMU -smp/-numa configuration and what keel must report for it."""

    def __init__(self, smp="1", numa=None, cpu_nodes=None, dist=None,
                 mem=None, smt_scrub=False, silent=(), tol=SEABIOS_TOL):
        self.smp = smp
        self.numa = numa              # list of node sizes in bytes, or None
        self.cpu_nodes = cpu_nodes    # node of socket i
        self.dist = dist or {}        # {(a, b): value}
        self.smt_scrub = smt_scrub
        self.silent = set(silent)     # cpu indexes that must not come up
        self.tol = tol
        self.mem = sum(numa) if numa else mem
        kv = dict(x.split("=") for x in smp.split(",")[1:])
        n = int(smp.split(",")[0])
        maxcpus = int(kv.get("maxcpus", n))
        threads = int(kv.get("threads", 1))
        if numa and "sockets" not in kv:
            sockets = len(cpu_nodes) if cpu_nodes else len(numa)
        else:
            sockets = int(kv.get("sockets", 1))
        cores = int(kv.get("cores", maxcpus // (sockets * threads)))
        tb, cb = _order(threads), _order(cores)
        self.cpus = []  # (apic id, socket, core, thread, node, enabled)
        for i in range(maxcpus):
            sock, core = i // (cores * threads), (i // threads) % cores
            thr = i % threads
            node = 0
            if numa:
                node = cpu_nodes[sock] if cpu_nodes else sock
            apic = (sock << (cb + tb)) | (core << tb) | thr
            self.cpus.append((apic, sock, core, thr, node, i < n))

    def qemu_args(self):
        args = ["--smp", self.smp]
        if not self.numa:
            return args + ["--mem", f"{self.mem >> 20}M"]
        args += ["--numa", ",".join(f"{m >> 20}M" for m in self.numa)]
        if self.cpu_nodes:
            args += ["--cpu-nodes", ",".join(map(str, self.cpu_nodes))]
        if self.dist:
            args += ["--dist", ",".join(f"{a}-{b}={v}" for (a, b), v
                                        in self.dist.items())]
        return args

    def distance(self, a, b):
        if a == b:
            return 10
        return self.dist.get((a, b), self.dist.get((b, a), 20))

    def expect(self):
        online = sum(1 for i, c in enumerate(self.cpus)
                     if c[5] and i not in self.silent)
        exp = {"cpus": len(self.cpus), "online": online}
        if self.numa:
            n = len(self.numa)
            exp["nodes"] = n
            exp["node_mem"] = dict(enumerate(self.numa))
            exp["mem_tolerance"] = self.tol
            exp["distance"] = [[self.distance(a, b) for b in range(n)]
                               for a in range(n)]
        else:
            exp["nodes"] = 1
        return exp

    def check(self, rep):
        out = []
        by_hwid = {c["hwid"]: c for c in rep["cpus"]}
        # The first online thread of each core scrubs (all with smt).
        first = {}
        for i, (apic, sock, core, thr, node, en) in enumerate(self.cpus):
            if en and i not in self.silent:
                key = (node, sock, core)
                first[key] = min(first.get(key, thr), thr)
        for i, (apic, sock, core, thr, node, en) in enumerate(self.cpus):
            c = by_hwid.get(apic)
            if c is None:
                out.append(f"no CPU with APIC ID {apic} in the report")
                continue
            up = en and i not in self.silent
            want = {"node": node if self.numa else 0, "package": sock,
                    "core": core, "thread": thr, "online": up}
            if rep["scrub"]["mode"] == "on":
                want["scrubber"] = up and (
                    self.smt_scrub or first[(node, sock, core)] == thr)
            for k, v in want.items():
                if c[k] != v:
                    out.append(f"CPU APIC ID {apic}: {k} = {c[k]}, "
                               f"expected {v}")
            if not up and not c.get("fail_reason"):
                out.append(f"CPU APIC ID {apic} is offline with no "
                           "fail_reason")
        if not self.numa:
            return out
        hw = {c["id"]: c["hwid"] for c in rep["cpus"]}
        with_cpus = sorted({c[4] for i, c in enumerate(self.cpus)
                            if c[5] and i not in self.silent})
        for node in rep["nodes"]:
            want = sorted(c[0] for c in self.cpus if c[4] == node["id"])
            got = sorted(hw[i] for i in node["cpus"])
            if got != want:
                out.append(f"node {node['id']} CPUs (APIC IDs) {got}, "
                           f"expected {want}")
        if rep["scrub"]["mode"] != "on":
            return out
        for p in rep["scrub"]["per_node"]:
            n = p["node"]
            if n in with_cpus or not self.numa[n]:
                continue
            near = min(with_cpus, key=lambda m: (self.distance(n, m), m))
            if p.get("helper_of") != near:
                out.append(f"memory-only node {n}: helper_of "
                           f"{p.get('helper_of')}, expected {near}")
            helpers = {c["id"] for c in rep["cpus"] if c["node"] == near}
            if not helpers & set(p["cpus"]):
                out.append(f"memory-only node {n} scrubbed by CPUs "
                           f"{p['cpus']}, none of node {near}")
        return out


def few_chunks(limit):
    """The lazy handoff made at most @limit free chunks (O(ranges))."""
    def check(rep):
        if rep["heap"]["chunks"] > limit:
            return [f"heap.chunks {rep['heap']['chunks']} > {limit}"]
        return []
    return check


def p2m_selftest_format(fmt):
    """p2m_selftest=on: tables of @fmt (`npt` where the CPU has SVM with
    nested paging, as QEMU's -cpu max does; else `ept`) built and checked
    in software (no sample can be checked by the CPU outside a guest)."""
    def check(rep):
        st = rep.get("p2m", {}).get("selftest")
        if st is None:
            return ["no p2m.selftest in the report"]
        out = []
        if st.get("format") != fmt:
            out.append(f"p2m.selftest.format {st.get('format')!r}, "
                       f"expected {fmt!r}")
        if st.get("ok") is not True:
            out.append("p2m.selftest.ok is not true")
        if st.get("samples", 0) < 1 or st.get("hw_checked") != 0:
            out.append(f"p2m.selftest samples {st.get('samples')}, "
                       f"hw_checked {st.get('hw_checked')}: expected > 0 "
                       "and 0")
        return out
    return check


def smp_case(name, m, append, kern, expect=None, checks=(), extra=(),
             **kw):
    exp = dict(m.expect(), boot="multiboot1")
    exp.update(expect or {})
    return Case(name, kern + m.qemu_args() + list(extra), m.mem, append,
                tol=m.tol, expect=exp, checks=[m.check] + list(checks),
                **kw)


def skew_bounded(rep, log):
    """Every online secondary printed its skew, within its +- bound: TCG
    gives all vCPUs one clock, so the true skew is 0."""
    out = []
    got = {}
    for line in log.splitlines():
        m = re.search(r"smp: cpu (\d+) timer skew (-?\d+) ns "
                      r"\(\+-(\d+) ns\)", line)
        if m:
            got[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    for c in rep["cpus"]:
        if c["id"] == 0 or not c["online"]:
            continue
        if c["id"] not in got:
            out.append(f"no skew line for cpu {c['id']}")
            continue
        skew, bound = got[c["id"]]
        if abs(skew) > bound + 1000:
            out.append(f"cpu {c['id']}: skew {skew} ns outside its "
                       f"+-{bound} ns bound")
        if skew != c["tsc_skew_ns"]:
            out.append(f"cpu {c['id']}: log skew {skew} != report "
                       f"{c['tsc_skew_ns']}")
    return out


skew_bounded.wants_log = True


def iso_case(name, m, args, **kw):
    exp = dict(m.expect(), boot="multiboot2", scrubbed=True)
    return Case(name, args + m.qemu_args(), m.mem, iso=True, tol=m.tol,
                expect=exp, checks=[m.check, loader_is("GRUB")], **kw)


def skew_reported(rep):
    if not all("tsc_skew_ns" in c for c in rep["cpus"]):
        return ["cpus[].tsc_skew_ns missing"]
    return []


def long_cmdline(elf, base, limit):
    """A command line on which mem=LIMIT straddles byte 1023 (the old
    1 KiB bootinfo limit cut it to "mem=12" and the boot panicked).

    QEMU's multiboot command line is the kernel path, a space, then
    -append; one loglevel= word with leading zeros (still LOG_INFO, 2) pads
    it so that the mem= word starts at byte 1020.
    """
    head = f"{elf} {base} bootscrub=off loglevel="
    word = f"mem={limit >> 20}M"
    # head, zeros, "2", " ", word: the word starts at byte 1020.
    zeros = 1020 - len(head) - 2
    line = f"{base} bootscrub=off loglevel={'0' * zeros}2 {word} after=exit"
    start = len(elf) + 1 + line.index(word)
    assert start < 1023 < start + len(word) - 1, start
    return line
