# SPDX-License-Identifier: MIT
"""The x86_64 QEMU boot matrix (make ARCH=x86_64 qemu-test).

Run from the top directory: python3 -m tests.qemu.x86_64 --elf ELF --logs
DIR [--only NAME,...] [--list] [--scale].

Each case is one fresh QEMU boot through scripts/qemu.sh with after=exit
and a timeout (scripts/keel/boot.py); the serial log is saved under --logs
and checked with keel.report (check_report) plus the case's own checks on
the JSON.
The after-* cases leave after= out (or the isa-debug-exit device, or the
CPUID hypervisor bit) and check how the boot ends: exit status 33 from the
debug-exit port, 0 from the ACPI power-off fallback, or a halt (timeout).

Expected RAM is derived from the QEMU configuration, not from what keel
prints: the firmware map holds -m bytes minus what the firmware keeps
(SeaBIOS: the 384 KiB legacy hole 0xa0000-0x100000, the EBDA page
0x9fc00 and 128 KiB at the top of low RAM; keel drops the partial page
below the EBDA), so for SeaBIOS boots ram_bytes must lie in [m - 1 MiB, m].
OVMF keeps several MiB for itself (runtime services, ACPI NVS, its
page tables): UEFI boots get [m - 16 MiB, m]. Where QEMU splits RAM around
the PCI hole (pc: 3 GiB once -m >= 3.5 GiB; q35: 2 GiB once -m > 2.75 GiB)
the case also checks that RAM exists above 4 GiB.

SMP and NUMA cases (class Machine) derive every expectation from the QEMU
configuration they pass: CPUs, their APIC IDs and topology (QEMU 7.2's
-smp rules for pc: missing values prefer cores; APIC ID = socket, core,
thread fields of ceil(log2) bits), the node of each CPU (socket i on the
node --cpu-nodes gives it, else node i), node sizes (per-node tolerance
as above), distances (20 unless --dist), which CPUs scrub (one thread per
core unless scrub_smt=on), and who scrubs a memory-only node (the nearest
node with CPUs, ties to the lowest id).
"""

import argparse
import os
import re
import shlex
import subprocess
import sys

from scripts.keel import boot, report
from scripts.keel.boot import TOP
from scripts.keel.report import HEAP_MODES

from .domains_checks import Ask, domains_built
from .smp_checks import one_timeout, own_hwids, start_mode
from .checks import (cpu_failed, every_node_scrubbed, idle_wakes_only,
                     json_is, kernel_still_reserved, latency_whole,
                     scrub_calibrated, scrubbers_are, stress_ok_everywhere)

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
                 qemu_tail=()):
        self.name = name
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
    def check(rep):
        got = rep["heap"]["total_pages"] * 4096
        if got > limit or got < limit - 8 * M:
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
    (clean_poc) ones none. The bench restores cachemaint's own counters,
    so its rows are what shows it."""
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


def p2m_selftest_ept(rep):
    """p2m_selftest=on: EPT tables built and checked in software (keel
    never enters VMX, so no sample can be checked by the CPU)."""
    st = rep.get("p2m", {}).get("selftest")
    if st is None:
        return ["no p2m.selftest in the report"]
    out = []
    if st.get("format") != "ept":
        out.append(f"p2m.selftest.format {st.get('format')!r}, expected 'ept'")
    if st.get("ok") is not True:
        out.append("p2m.selftest.ok is not true")
    if st.get("samples", 0) < 1 or st.get("hw_checked") != 0:
        out.append(f"p2m.selftest samples {st.get('samples')}, hw_checked "
                   f"{st.get('hw_checked')}: expected > 0 and 0")
    return out


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


def build_cases(elf, memdir):
    kern = ["--kernel", elf]
    # audit=full everywhere (heap_check + the free-page zero sampling); the
    # default (basic) audit is covered by the sandbox end-to-end cases.
    base = "after=exit audit=full"
    boot1 = {"boot": "multiboot1", "online": 1}
    boot2 = {"boot": "multiboot2", "online": 1}
    return [
        Case("mb1-pc-128M", kern + ["--mem", "128M"], 128 * M,
             base + " bootscrub=on", expect=dict(boot1, scrubbed=True,
                                                  cmdline="after=exit"),
             checks=[loader_is("qemu"),
                     log_contains("direct map at 0xffff800000000000")]),
        Case("mb1-pc-3.5G", kern + ["--mem", "3584M"], 3584 * M,
             base + " bootscrub=off", expect=boot1,
             checks=[above_4g, low_ram_ends_at(3 * G)]),
        Case("mb1-pc-6G", kern + ["--mem", "6G"], 6 * G,
             base + " bootscrub=off", expect=boot1,
             checks=[above_4g]),
        Case("mb1-pc-6G-2M-pages", kern + ["--mem", "6G", "--cpu", "qemu64"],
             6 * G, base + " bootscrub=off", expect=boot1,
             checks=[above_4g, log_contains("with 2 MiB pages")]),
        # 48 GiB with 2 MiB pages outgrows the 32-page bss pool: the rest
        # of the tables come from RAM ("page tables"). Sparse file-backed
        # memory: only touched pages cost host memory and disk.
        Case("mb1-pc-48G-pt-overflow",
             kern + ["--cpu", "qemu64", "--numa", "1x48G",
                     "--file-backed", memdir],
             48 * G, base + " bootscrub=off", expect=boot1,
             checks=[above_4g, reserved_named("page tables")]),
        Case("mb1-q35-256M", kern + ["--machine", "q35", "--mem", "256M"],
             256 * M, base + " bootscrub=on",
             expect=dict(boot1, scrubbed=True)),
        Case("mb1-q35-3.5G", kern + ["--machine", "q35", "--mem", "3584M"],
             3584 * M, base + " bootscrub=off", expect=boot1,
             checks=[above_4g, low_ram_ends_at(2 * G)]),
        Case("mb2-grub-bios", ["--mem", "256M"], 256 * M, iso=True,
             expect=dict(boot2, scrubbed=True, cmdline="after=exit"),
             checks=[loader_is("GRUB")]),
        Case("mb2-grub-uefi", ["--uefi", "--mem", "256M"], 256 * M,
             iso=True, tol=OVMF_TOL,
             expect=dict(boot2, scrubbed=True), checks=[loader_is("GRUB")]),
        Case("cmdline-malformed", kern + ["--mem", "128M"], 128 * M,
             base + ' bootscrub=sideways heap_init= =5 "unterminated x=\x01',
             expect=dict(boot1, cmdline="bootscrub=sideways"),
             checks=[warned, log_contains("keel: warning:")]),
        Case("mem-limit", kern + ["--mem", "512M"], 512 * M,
             base + " bootscrub=off mem=128M", expect=boot1,
             checks=[mem_limited(128 * M)]),
        # Kept whole past the old 1 KiB limit (docs/cmdline.md).
        Case("cmdline-long-mem", kern + ["--mem", "512M"], 512 * M,
             long_cmdline(elf, base, 128 * M),
             expect=dict(boot1, cmdline="mem=128M after=exit"),
             checks=[mem_limited(128 * M)]),
        Case("poweroff-acpi-s5", kern + ["--mem", "128M"], 128 * M,
             "after=poweroff audit=full bootscrub=off", exit_status=0,
             expect=boot1,
             checks=[log_contains("S5 found")]),
        Case("no-long-mode", kern + ["--mem", "64M", "--cpu", "qemu32"],
             64 * M, base, timeout=HALT_TIMEOUT,
             no_report_log="keel: error: this CPU has no long mode"),
    ] + after_cases(kern) + smp_cases(kern, base, memdir) + \
        domain_cases(kern, base) + console_cases(kern) + [
        Case(f"heap-{mode}", kern + ["--mem", "256M"], 256 * M,
             f"{base} bootscrub=off heap_init={mode}", expect=boot1,
             checks=[log_contains(f"({mode})")])
        for mode in HEAP_MODES
    ]


def after_cases(kern):
    """How a boot ends (docs/booting.md "How a boot ends"). Without after=,
    keel exits QEMU by itself: status 33 through isa-debug-exit; without
    that device after=exit powers off (ACPI S5, status 0); on what is not
    QEMU (no CPUID hypervisor bit) the default is a halt. Each must end
    well inside its timeout with KEEL: PASS."""
    mb1 = {"boot": "multiboot1", "online": 1}
    said = log_contains("QEMU (fw_cfg signature \"QEMU\"): after= "
                        "defaults to exit")
    return [
        Case("after-default-mb1", kern + ["--mem", "128M"], 128 * M,
             "audit=full bootscrub=on",
             expect=dict(mb1, scrubbed=True), checks=[said]),
        Case("after-default-grub", ["--mem", "256M"], 256 * M, iso=True,
             iso_cmdline="audit=full bootscrub=on",
             expect={"boot": "multiboot2", "online": 1, "scrubbed": True},
             checks=[said, loader_is("GRUB")]),
        Case("after-exit-no-device", kern + ["--mem", "128M"], 128 * M,
             "after=exit audit=full bootscrub=off",
             debug_exit=False, exit_status=EXIT_POWEROFF, expect=mb1),
        Case("after-default-no-device-q35",
             kern + ["--machine", "q35", "--mem", "128M"], 128 * M,
             "audit=full bootscrub=off", debug_exit=False,
             exit_status=EXIT_POWEROFF, expect=mb1, checks=[said]),
        Case("after-default-not-qemu",
             kern + ["--mem", "128M", "--cpu", "max,hypervisor=off"],
             128 * M, "audit=full bootscrub=off", timeout=HALT_TIMEOUT,
             exit_status=EXIT_HALT, expect=mb1,
             checks=[log_contains("not QEMU: after= defaults to halt")]),
    ]


def domain_cases(kern, base):
    """Guests' memory (DESIGN section 11) on 2 nodes, node 1 memory-only:
    one domain anywhere, one pinned to the memory-only node (built by node
    0's CPUs), one too big; then bootscrub=off (the build zeroes, audit=full
    reads leaves for zero) and the destroy round trip."""
    m = Machine("2", numa=[384 * M, 256 * M], cpu_nodes=[0, 0])
    asks = [Ask(64 * M + 12 * 1024), Ask(96 * M, 1), Ask(2 * G, fails=True)]
    words = " ".join(a.word() for a in asks)
    return [
        smp_case("domains-2node-memonly", m, f"{base} {words}", kern,
                 {"scrubbed": True},
                 checks=[domains_built(asks, zero_sampled=True,
                                       local=[1])]),
        smp_case("domains-bootscrub-off", m,
                 f"{base} bootscrub=off {words}", kern,
                 checks=[domains_built(asks, zero_sampled=True)]),
        smp_case("domains-destroy", m,
                 f"{base} domains_destroy=on {words}", kern,
                 {"scrubbed": True},
                 checks=[domains_built(asks, destroyed=True)]),
    ]


def smp_cases(kern, base, memdir):
    """SMP, topology and ACPI NUMA (SRAT/SLIT/MADT) cases."""
    on = base + " bootscrub=on"
    sc = {"scrubbed": True}
    return [
        smp_case("smp-1", Machine("1", mem=128 * M), on, kern, sc),
        smp_case("smp-2", Machine("2", mem=128 * M), on, kern, sc,
                 checks=[skew_reported,
                         log_contains("local APIC xAPIC at 0xfee00000")]),
        # loglevel=3: the per-CPU skew lines skew_bounded reads are debug.
        smp_case("smp-4-sockets", Machine("4,sockets=2,cores=2",
                                          mem=256 * M), on + " loglevel=3",
                 kern, sc, checks=[skew_bounded]),
        # 3 cores per socket: 2 core bits, APIC IDs 0-2 and 4-6 (gaps).
        smp_case("smp-6-apic-gaps", Machine("6,sockets=2,cores=3",
                                            numa=[128 * M] * 2),
                 on, kern, sc),
        smp_case("smp-q35-numa", Machine("2", numa=[128 * M] * 2), on,
                 kern, sc, extra=["--machine", "q35"]),
        smp_case("smp-4-smt", Machine("4,threads=2", mem=128 * M), on,
                 kern, sc),
        # Every primitive -cpu max offers is timed; the fastest is used,
        # or the one scrub_primitive= names.
        smp_case("scrub-calibrated", Machine("2", mem=256 * M), on, kern,
                 sc, checks=[scrub_calibrated()]),
        smp_case("scrub-primitive-forced", Machine("2", mem=256 * M),
                 on + " scrub_primitive=movntdq", kern, sc,
                 checks=[scrub_calibrated("movntdq")]),
        smp_case("smp-4-smt-scrub", Machine("4,threads=2", mem=128 * M,
                                            smt_scrub=True),
                 on + " scrub_smt=on", kern, sc),
        smp_case("smp-hotplug-slots", Machine("2,maxcpus=4", mem=128 * M),
                 on, kern, sc),
        smp_case("numa-2node-dist", Machine("4", numa=[256 * M] * 2,
                                            dist={(0, 1): 17}),
                 on, kern, sc),
        smp_case("numa-3node-memonly",
                 Machine("2", numa=[256 * M, 256 * M, 128 * M],
                         cpu_nodes=[0, 1],
                         dist={(0, 1): 20, (0, 2): 30, (1, 2): 15}),
                 on, kern, sc),
        smp_case("numa-cpu-only-node", Machine("4", numa=[256 * M, 0]),
                 on, kern, sc),
        smp_case("numa-unequal", Machine("2", numa=[384 * M, 128 * M]),
                 on, kern, sc),
        # -m 5G on pc: RAM below 4 GiB ends at 3 GiB, so node 1 (2G-5G)
        # is [2G, 3G) plus [4G, 6G): split around the PCI hole.
        smp_case("numa-5G-above-4G", Machine("2", numa=[2 * G, 3 * G]),
                 base + " bootscrub=off", kern,
                 checks=[above_4g, low_ram_ends_at(3 * G)]),
        # Issue 13: 8 TiB of sparse file-backed RAM in 2 nodes. The
        # handoff writes one head per free chunk, and free chunks reach
        # 8 TiB, so this is a few dozen heads, not 8192 (one per GiB).
        smp_case("numa-8T-sparse", Machine("2", numa=[4 << 40] * 2),
                 base + " bootscrub=off", kern,
                 checks=[few_chunks(200)],
                 extra=["--cpu", "max,phys-bits=46", "--file-backed",
                        memdir], timeout=120),
        smp_case("inject-ap-timeout", Machine("4", mem=128 * M,
                                              silent=[2]),
                 on + " inject=ap-timeout:2 ap_timeout_ms=200", kern, sc,
                 checks=[log_contains("did not check in")]),
        # Every CPU at once (issue 24): 64 vCPUs, each CPU's APIC ID read
        # at check-in matches the per-CPU data it took; QEMU's -cpu max
        # (AuthenticAMD) needs no INIT delay. About 6 s on a quiet host
        # with the scrub; the timeout is 120 s.
        smp_case("smp-64-parallel", Machine("64", mem=256 * M),
                 on + " report=full", kern, sc, timeout=120,
                 checks=[own_hwids(64), start_mode("parallel"),
                         log_contains("INIT delay 0 us")]),
        smp_case("smp-8-serial", Machine("8", mem=128 * M),
                 base + " bootscrub=off report=full smp_start=serial", kern,
                 checks=[own_hwids(8), start_mode("serial"),
                         log_contains("INIT delay 10000 us "
                                      "(smp_start=serial)")]),
        # Four dead CPUs cost one ap_timeout_ms (3 s), not four (about
        # 3.5 s on a quiet host; the timeout is 60 s).
        smp_case("inject-ap-timeout-4", Machine("8", mem=128 * M,
                                                silent=[2, 4, 6, 7]),
                 base + " bootscrub=off ap_timeout_ms=3000 "
                 "inject=ap-timeout:2 inject=ap-timeout:4 "
                 "inject=ap-timeout:6 inject=ap-timeout:7", kern,
                 timeout=60, checks=[one_timeout(3000, [2, 4, 6, 7])]),
        # GRUB multiboot2: the RSDP comes from tag 14 (BIOS) / 15 (UEFI).
        iso_case("mb2-grub-bios-smp-numa",
                 Machine("4", numa=[128 * M] * 2, dist={(0, 1): 21}), []),
        iso_case("mb2-grub-uefi-smp-numa",
                 Machine("2", numa=[128 * M] * 2, tol=OVMF_TOL),
                 ["--uefi"]),
        # Fault injection (docs/cmdline.md). The SIPI is never sent.
        smp_case("inject-cpu-on-fail", Machine("4", mem=128 * M,
                                               silent=[2]),
                 on + " inject=cpu-on-fail:2", kern, sc,
                 checks=[cpu_failed(2, "(injected)")]),
        # Node 1's CPUs never check in: node 1 is scrubbed by node 0's.
        smp_case("inject-node-cpus-fail",
                 Machine("4", numa=[256 * M] * 2, silent=[2, 3]),
                 on + " inject=node-cpus-fail:1 ap_timeout_ms=200", kern,
                 sc, checks=[json_is(("scrub", "per_node", 1, "helper_of"),
                                     0),
                             cpu_failed(3, "did not check in")]),
        smp_case("inject-scrub-stop", Machine("4", numa=[256 * M] * 2),
                 on + " inject=scrub-stop:1 bootscrub_chunk=16M", kern, sc,
                 checks=[json_is(("scrub", "stopped_cpu"), 1),
                         log_contains("scrub: cpu 1 stopped (injected)")]),
        smp_case("inject-bad-map", Machine("2", numa=[128 * M] * 2),
                 on + " inject=bad-map", kern, sc,
                 checks=[kernel_still_reserved]),
        # A corrupted SRAT: one node, every CPU on it, 10/20 irrelevant.
        Case("inject-bad-srat",
             kern + ["--smp", "2", "--numa", "2x128M", "--dist", "0-1=17"],
             256 * M, on + " inject=bad-srat",
             expect=dict(boot="multiboot1", online=2, cpus=2, nodes=1,
                         scrubbed=True, distance=[[10]]),
             checks=[log_contains("ACPI SRAT at"),
                     log_contains("bad checksum, ignored")]),
        # A corrupted SLIT: the nodes stay, distances fall back to 10/20.
        smp_case("inject-bad-slit", Machine("2", numa=[128 * M] * 2),
                 on + " inject=bad-slit", kern, sc,
                 extra=["--dist", "0-1=17"],
                 checks=[log_contains("ACPI SLIT at"),
                         log_contains("bad checksum, ignored")]),
        # stress=5 racing the idle scrub on 4 CPUs, 2 nodes, 1 GiB.
        smp_case("stress-idle", Machine("4", numa=[512 * M] * 2),
                 base + " bootscrub=idle stress=5", kern, sc,
                 checks=[stress_ok_everywhere]),
        # bench=on: rows for every node, the audit unchanged (balance).
        smp_case("bench", Machine("2", numa=[128 * M] * 2),
                 on + " bench=on", kern, sc,
                 checks=[bench_rows_every_node(("none",))]),
        smp_case("bench-clflush", Machine("2", numa=[128 * M] * 2),
                 on + " bench=on cachemaint=clflush", kern, sc,
                 checks=[bench_rows_every_node(("clflush",)),
                         clflush_really_flushes,
                         log_contains("cachemaint=clflush cleans with")]),
        # latency=on (issue 23): 3 GiB so that a free 1 GiB block exists
        # ([1G, 2G)); bootscrub=off leaves it dirty, so the eager baseline
        # zeroes it inside the heap lock. About 7 s on a quiet 2-core host
        # (the eager build alone 0.5-3 s of TCG zeroing); timeout 180 s.
        Case("latency-on", kern + ["--smp", "2", "--mem", "3G"], 3 * G,
             base + " bootscrub=off latency=on",
             expect=dict(boot="multiboot1", online=2, cpus=2),
             checks=[latency_whole("apic-oneshot")], timeout=180),
        # Without latency=on: the secondaries' idle halts are the only
        # interrupts (counted in irq.idle_wakes), irq.count stays 0.
        smp_case("irq-idle-wakes-only", Machine("2", numa=[128 * M] * 2),
                 on, kern, sc, checks=[idle_wakes_only(1)]),
        # Issue 22 section 6: EPT tables of 1G/2M/4K leaves, walked and
        # translated in software, destroyed (the audit balances).
        smp_case("p2m-selftest", Machine("2", numa=[128 * M] * 2),
                 on + " p2m_selftest=on", kern, sc,
                 checks=[p2m_selftest_ept]),
        # 96 vCPUs, a build that holds 64: 32 dropped, one warning, the
        # 64 kept all online. bootscrub=off. About 3 s since parked CPUs
        # halt (40-67 s when they spun: 96 vCPUs on 2 host cores).
        Case("nr-cpus-64-smp-96",
             ["--kernel", small_cap_elf(kern[1]), "--smp", "96",
              "--mem", "128M"],
             128 * M, base + " bootscrub=off",
             expect=dict(boot="multiboot1", cpus=NR_CPUS_SMALL,
                         online=NR_CPUS_SMALL, nodes=1),
             checks=[dropped_cpus_warned_once(96, NR_CPUS_SMALL)],
             timeout=120),
        # Issue 13's machine in make check: QEMU 7.2's pc takes 240 vCPUs
        # under TCG; without x2APIC (TCG has none) APIC IDs stay below
        # 255: 2 sockets x 60 cores x 2 threads reach 1 << 7 | 59 << 1 | 1
        # = 247. 8.8 s on a quiet 2-core host since parked CPUs halt,
        # 22-27 s loaded; 427 s when they spun (the timeout catches that).
        big_case("smp-240-smt-2node", "240,sockets=2,cores=60,threads=2",
                 [512 * M] * 2, kern, on, timeout=300),
        # acpi=off: one node, the boot CPU only, whatever QEMU has.
        Case("acpi-off", kern + ["--smp", "2", "--numa", "2x128M"],
             256 * M, on + " acpi=off",
             expect=dict(boot="multiboot1", online=1, scrubbed=True, cpus=1,
                         nodes=1),
             checks=[log_contains("acpi=off")]),
    ]


def console_cases(kern):
    """console= and the ACPI SPCR choosing the serial port (docs/booting.md,
    "The console"). COM2 is QEMU's second -serial (a file), COM1 stays
    stdio; 0x2f8 is COM2 on every PC."""
    con = "after=exit audit=full"
    one = {"boot": "multiboot1", "online": 1}
    return [
        Case("console-com2", kern + ["--mem", "128M"], 128 * M,
             con + " console=com2", expect=one, console="com2",
             checks=[log_contains("console: 8250 I/O port at 0x2f8, baud "
                                  "115200 (console=com2)"),
                     warnings_about("console", 0)]),
        Case("console-uart8250-io", kern + ["--mem", "128M"], 128 * M,
             con + " console=uart8250,io,0x2f8,57600n8", expect=one,
             console="com2",
             checks=[log_contains("console: 8250 I/O port at 0x2f8, baud "
                                  "57600 (console=uart8250,io,0x2f8,"
                                  "57600n8)")]),
        # A bad console= value: one warning, the build's COM1 stays.
        Case("console-bad", kern + ["--mem", "128M"], 128 * M,
             con + " console=com9", expect=one, console="com1",
             checks=[warnings_about('console="com9"', 1)]),
        # A real SPCR (tests/data/acpi/spcr-real.txt): HP DL360 G7's, with
        # its register block at COM2 (I/O 0x2f8), interface type 1, baud
        # byte 3 = 9600. Without console= it picks the console...
        Case("console-spcr-com2", kern + ["--mem", "128M"], 128 * M, con,
             expect=one, console="com2",
             qemu_tail=["-acpitable", f"file={ACPI_DATA}/"
                        "spcr-hp-dl360g7-com2.bin"],
             checks=[log_contains("console: 8250 I/O port at 0x2f8, baud "
                                  "9600 (ACPI SPCR)"),
                     warnings_about("SPCR", 0)]),
        # ...and console= wins over it.
        Case("console-spcr-cmdline-wins", kern + ["--mem", "128M"],
             128 * M, con + " console=com1", expect=one, console="com1",
             qemu_tail=["-acpitable", f"file={ACPI_DATA}/"
                        "spcr-hp-dl360g7-com2.bin"]),
        # Dell R820's real SPCR with redirection off (address 0): an info
        # line, no warning, COM1 stays.
        Case("console-spcr-address0", kern + ["--mem", "128M"], 128 * M,
             con, expect=one, console="com1",
             qemu_tail=["-acpitable", f"file={ACPI_DATA}/"
                        "spcr-dell-r820.bin"],
             checks=[log_contains("ACPI SPCR: base address 0 (no console "
                                  "redirection), ignored"),
                     warnings_about("SPCR", 0)]),
    ]


def big_case(name, smp, numa, kern, append, timeout):
    """A big machine: every CPU online, one scrubber per core (SMT
    siblings do not scrub by default), each node's CPUs by APIC ID
    (Machine.check), every node scrubbed, no CPU dropped."""
    m = Machine(smp, numa=numa)
    cores = {(c[1], c[2]) for c in m.cpus}
    return smp_case(name, m, append, kern, {"scrubbed": True},
                    checks=[scrubbers_are(len(cores)), every_node_scrubbed,
                            json_is(("dropped_cpus",), 0)],
                    timeout=timeout)


def scale_cases(elf):
    """make check-scale: the largest machines (docs/benchmarks.md, "Big
    machines under QEMU"). The 240-CPU machine is in make check too (it
    takes 9-22 s); here it runs with 4 nodes of 60 CPUs as well."""
    on = "after=exit audit=full bootscrub=on"
    return [big_case("smp-240-smt-4node", "240,sockets=4,cores=30,threads=2",
                     [256 * M] * 4, ["--kernel", elf], on, timeout=300)]


def without_debug_exit(args):
    """scripts/qemu.sh @args as the QEMU command it would run, minus its
    -device isa-debug-exit (always added there)."""
    out = subprocess.run(args + ["--dry-run"], check=True, text=True,
                         capture_output=True).stdout
    cmd = shlex.split(out)
    i = next(i for i, a in enumerate(cmd)
             if a == "-device" and cmd[i + 1].startswith("isa-debug-exit"))
    return cmd[:i] + cmd[i + 2:]


def run_case(case, isos, logdir):
    args = case.qemu_args
    if case.iso:
        iso = isos[case.iso_cmdline or ISO_CMDLINE]
        args = ["--iso", iso] + case.qemu_args
    com2_path = os.path.join(logdir, case.name + ".com2.log")
    extra = list(case.qemu_tail)
    if case.console:
        if os.path.exists(com2_path):
            os.unlink(com2_path)
        extra = ["-serial", f"file:{com2_path}"] + extra
    cmd = boot.x86_64_cmd(args, None if case.iso else case.append or None,
                          case.timeout, extra)
    if not case.debug_exit:
        cmd = without_debug_exit(cmd)
    log_path = os.path.join(logdir, case.name + ".log")
    b = boot.qemu(cmd, case.timeout, log_path)
    if "--file-backed" in case.qemu_args:
        memdir = case.qemu_args[case.qemu_args.index("--file-backed") + 1]
        for f in os.listdir(memdir):
            os.unlink(os.path.join(memdir, f))
    text = b.log
    problems = []
    if case.console:
        com2 = ""
        if os.path.exists(com2_path):
            with open(com2_path, "rb") as f:
                com2 = f.read().decode("utf-8", "replace")
        text, other = (com2, text) if case.console == "com2" else (text,
                                                                   com2)
        if "KEEL-REPORT" in other:
            problems.append(f"the report is on the port other than "
                            f"{case.console}")
        b.log = text  # the report is read from the chosen port
    if case.no_report_log is not None:
        if case.no_report_log not in text:
            problems.append(f"log lacks {case.no_report_log!r}")
        if "KEEL-REPORT" in text:
            problems.append("a report was printed")
        if b.status != EXIT_HALT:
            problems.append(f"QEMU {b.status_text()}, expected a halt "
                            "(timeout)")
        return problems, b.elapsed, log_path, None
    problems += b.problems(case.exit_status, case.expect)
    rep = b.report
    if rep is not None:
        problems += audit_checked(rep, text)
        for check in case.checks:
            if getattr(check, "wants_log", False):
                problems += check(rep, text)
            else:
                problems += check(rep)
    return problems, b.elapsed, log_path, rep


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elf", default=os.path.join(TOP, "build", "x86_64",
                                                  "keel.elf"))
    ap.add_argument("--logs", default=os.path.join(TOP, "build", "x86_64",
                                                   "qemu-logs"))
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--list", action="store_true",
                    help="print the case names and exit")
    ap.add_argument("--scale", action="store_true",
                    help="the big-machine cases (make check-scale) instead")
    args = ap.parse_args()
    memdir = os.path.join(args.logs, "mem")
    if args.scale:
        cases = scale_cases(args.elf)
    else:
        cases = build_cases(args.elf, memdir)
    if args.list:
        for c in cases:
            print(c.name)
        return 0
    os.makedirs(memdir, exist_ok=True)
    if args.only:
        names = set(args.only.split(","))
        cases = [c for c in cases if c.name in names]

    if any(small_cap_elf(args.elf) in c.qemu_args for c in cases):
        build_small_cap(args.elf)

    isos = {}
    for line in sorted({c.iso_cmdline or ISO_CMDLINE
                        for c in cases if c.iso}):
        iso = os.path.join(args.logs, f"qemu-test-{len(isos)}.iso")
        subprocess.run([MKISO, args.elf, iso, line], check=True,
                       stdout=subprocess.DEVNULL)
        isos[line] = iso

    passed = failed = 0
    reps = {}
    for case in cases:
        problems, secs, log_path, rep = run_case(case, isos, args.logs)
        reps[case.name] = rep
        if problems:
            failed += 1
            print(f"  FAIL    {case.name} ({secs:.1f} s, log {log_path})")
            for p in problems:
                print(f"          {p}")
        else:
            passed += 1
            print(f"  PASS    {case.name} ({secs:.1f} s)")

    # heap_init modes: the same machine must account identically.
    modes = [reps.get(f"heap-{m}") for m in HEAP_MODES]
    if all(modes):
        keys = lambda r: (r["heap"]["total_pages"], r["heap"]["free_pages"],
                          r["audit"]["ram_pages"], r["audit"]["free_pages"],
                          r["audit"]["reserved_pages"],
                          r["audit"]["lost_pages"])
        got = [keys(r) for r in modes]
        if len(set(got)) == 1:
            passed += 1
            print("  PASS    heap-modes-agree")
        else:
            failed += 1
            print("  FAIL    heap-modes-agree")
            print(f"          (total, free, ram, audit free, reserved, lost)"
                  f" lazy/chunked/pagewise: {got}")

    what = "check-scale" if args.scale else "qemu-test"
    print(f"{what} x86_64: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
