#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The x86_64 QEMU boot matrix (make ARCH=x86_64 qemu-test).

Each case is one fresh QEMU boot through scripts/qemu.sh with after=exit
and a timeout; the serial log is saved under --logs and checked with
scripts/report.py (check_report) plus the case's own checks on the JSON.

Expected RAM is derived from the QEMU configuration, not from what keel
prints: the firmware map holds -m bytes minus what the firmware keeps
(SeaBIOS: the 384 KiB legacy hole 0xa0000-0x100000, the EBDA page
0x9fc00 and 128 KiB at the top of low RAM; keel drops the partial page
below the EBDA), so for SeaBIOS boots ram_bytes must lie in [m - 1 MiB, m].
OVMF keeps several MiB for itself (runtime services, ACPI NVS, its
page tables): UEFI boots get [m - 16 MiB, m]. Where QEMU splits RAM around
the PCI hole (pc: 3 GiB once -m >= 3.5 GiB; q35: 2 GiB once -m > 2.75 GiB)
the case also checks that RAM exists above 4 GiB.

Secondary CPUs and the ACPI NUMA tables come in a later task: until then
every boot reports 1 CPU online and 1 node, whatever -smp / -numa say.
"""

import argparse
import os
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import report  # noqa: E402

QEMU_SH = os.path.join(TOP, "scripts", "qemu.sh")
MKISO = os.path.join(TOP, "scripts", "mkiso.sh")
EXIT_PASS = 33   # isa-debug-exit: (0x10 << 1) | 1
EXIT_FAIL = 35   # (0x11 << 1) | 1
M = 1 << 20
G = 1 << 30
SEABIOS_TOL = 1 * M
OVMF_TOL = 16 * M


def ram_expect(mem, tol):
    """report.py expectation: ram_bytes in [mem - tol, mem]."""
    return {"ram": mem - tol // 2, "ram_tolerance": tol // 2}


class Case:
    def __init__(self, name, qemu_args, mem, append="", timeout=30,
                 iso=False, tol=SEABIOS_TOL, expect=None, checks=(),
                 no_report_log=None, exit_status=EXIT_PASS):
        self.name = name
        self.exit_status = exit_status
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


def build_cases(elf, memdir):
    kern = ["--kernel", elf]
    base = "after=exit"
    boot1 = {"boot": "multiboot1", "online": 1}
    boot2 = {"boot": "multiboot2", "online": 1}
    return [
        Case("mb1-pc-128M", kern + ["--mem", "128M"], 128 * M,
             base + " bootscrub=on", expect=dict(boot1, scrubbed=True,
                                                  cmdline="after=exit"),
             checks=[loader_is("qemu"),
                     log_contains("direct map at 0xffff800000000000")]),
        Case("mb1-pc-1G-2node", kern + ["--smp", "4", "--numa", "2x512M"],
             1 * G, base + " bootscrub=on", expect=dict(boot1, scrubbed=True)),
        Case("mb1-pc-3.5G", kern + ["--mem", "3584M"], 3584 * M,
             base + " bootscrub=off", expect=boot1,
             checks=[above_4g, low_ram_ends_at(3 * G)]),
        Case("mb1-pc-6G", kern + ["--mem", "6G"], 6 * G,
             base + " bootscrub=off", expect=boot1, checks=[above_4g]),
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
             iso=True, timeout=60, tol=OVMF_TOL,
             expect=dict(boot2, scrubbed=True), checks=[loader_is("GRUB")]),
        Case("cmdline-malformed", kern + ["--mem", "128M"], 128 * M,
             base + ' bootscrub=sideways heap_init= =5 "unterminated x=\x01',
             expect=dict(boot1, cmdline="bootscrub=sideways"),
             checks=[warned, log_contains("keel: warning:")]),
        Case("mem-limit", kern + ["--mem", "512M"], 512 * M,
             base + " bootscrub=off mem=128M", expect=boot1,
             checks=[mem_limited(128 * M)]),
        Case("poweroff-acpi-s5", kern + ["--mem", "128M"], 128 * M,
             "after=poweroff bootscrub=off", exit_status=0, expect=boot1,
             checks=[log_contains("S5 found")]),
        Case("no-long-mode", kern + ["--mem", "64M", "--cpu", "qemu32"],
             64 * M, base, timeout=5,
             no_report_log="keel: error: this CPU has no long mode"),
    ] + [
        Case(f"heap-{mode}", kern + ["--mem", "256M"], 256 * M,
             f"{base} bootscrub=off heap_init={mode}", expect=boot1,
             checks=[log_contains(f"({mode})")])
        for mode in ("lazy", "chunked", "pagewise")
    ]


def run_case(case, iso, logdir):
    args = [QEMU_SH, "x86_64"] + case.qemu_args
    if case.iso:
        args = [QEMU_SH, "x86_64", "--iso", iso] + case.qemu_args
    elif case.append:
        args += ["--append", case.append]
    args += ["--timeout", str(case.timeout)]
    log_path = os.path.join(logdir, case.name + ".log")
    t0 = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.run(args, stdout=log, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL)
    secs = time.monotonic() - t0
    if "--file-backed" in case.qemu_args:
        memdir = case.qemu_args[case.qemu_args.index("--file-backed") + 1]
        for f in os.listdir(memdir):
            os.unlink(os.path.join(memdir, f))
    with open(log_path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    problems = []
    if case.no_report_log is not None:
        if case.no_report_log not in text:
            problems.append(f"log lacks {case.no_report_log!r}")
        if "KEEL-REPORT" in text:
            problems.append("a report was printed")
        if proc.returncode != 124:
            problems.append(f"QEMU exit status {proc.returncode}, "
                            "expected a halt (timeout)")
        return problems, secs, log_path, None
    if proc.returncode == 124:
        problems.append(f"timeout after {case.timeout} s")
    elif proc.returncode != case.exit_status:
        problems.append(f"QEMU exit status {proc.returncode}, expected "
                        f"{case.exit_status}")
    problems += report.check_report(text, case.expect)
    rep = None
    try:
        rep = report.find_report(text)
    except report.ReportError:
        pass
    if rep is not None:
        for check in case.checks:
            if getattr(check, "wants_log", False):
                problems += check(rep, text)
            else:
                problems += check(rep)
    return problems, secs, log_path, rep


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elf", required=True)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--only", help="comma-separated case names")
    args = ap.parse_args()
    os.makedirs(args.logs, exist_ok=True)
    memdir = os.path.join(args.logs, "mem")
    os.makedirs(memdir, exist_ok=True)
    cases = build_cases(args.elf, memdir)
    if args.only:
        names = set(args.only.split(","))
        cases = [c for c in cases if c.name in names]

    iso = None
    if any(c.iso for c in cases):
        iso = os.path.join(args.logs, "qemu-test.iso")
        subprocess.run([MKISO, args.elf, iso, "after=exit bootscrub=on"],
                       check=True, stdout=subprocess.DEVNULL)

    passed = failed = 0
    reps = {}
    for case in cases:
        problems, secs, log_path, rep = run_case(case, iso, args.logs)
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
    modes = [reps.get(f"heap-{m}") for m in ("lazy", "chunked", "pagewise")]
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

    print(f"qemu-test x86_64: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
