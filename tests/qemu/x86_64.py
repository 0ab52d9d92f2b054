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
import shlex
import subprocess
import sys

from scripts.keel import boot
from scripts.keel.boot import TOP
from scripts.keel.report import HEAP_MODES

from .x86_cases import build_cases, scale_cases
from .x86_efi_lu_cases import efi_lu_cases
from .x86_machine import (EXIT_HALT, EXIT_PASS, ISO_CMDLINE, MKISO,
                          audit_checked,
                          build_small_cap, small_cap_elf)


def without_debug_exit(args):
    """scripts/qemu.sh @args as the QEMU command it would run, minus its
    -device isa-debug-exit (always added there)."""
    out = subprocess.run(args + ["--dry-run"], check=True, text=True,
                         capture_output=True).stdout
    cmd = shlex.split(out)
    i = next(i for i, a in enumerate(cmd)
             if a == "-device" and cmd[i + 1].startswith("isa-debug-exit"))
    return cmd[:i] + cmd[i + 2:]


def no_report_problems(case, b, text):
    """A boot that must stop before any report with case.no_report_log:
    in a halt (the timeout ends it) unless the case says how it ends."""
    out = []
    if case.no_report_log not in text:
        out.append(f"log lacks {case.no_report_log!r}")
    if "KEEL-REPORT" in text:
        out.append("a report was printed")
    if case.exit_status not in (EXIT_PASS, b.status) or \
            (case.exit_status == EXIT_PASS and b.status != EXIT_HALT):
        out.append(f"QEMU {b.status_text()}, expected "
                   + ("a halt (timeout)" if case.exit_status == EXIT_PASS
                      else str(case.exit_status)))
    return out


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

    def cmd_for(more):
        c = boot.x86_64_cmd(args, None if case.iso else case.append or None,
                            case.timeout, extra + more)
        return c if case.debug_exit else without_debug_exit(c)

    cmd = cmd_for([])
    log_path = os.path.join(logdir, case.name + ".log")
    problems = []
    if case.live:
        b, problems = case.live(cmd_for, case.timeout, log_path)
    else:
        b = boot.qemu(cmd, case.timeout, log_path)
    if "--file-backed" in case.qemu_args:
        memdir = case.qemu_args[case.qemu_args.index("--file-backed") + 1]
        for f in os.listdir(memdir):
            os.unlink(os.path.join(memdir, f))
    text = b.log
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
        return (problems + no_report_problems(case, b, text), b.elapsed,
                log_path, None)
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


def heap_modes_agree(reps):
    """heap_init modes: the same machine must account identically. Return:
    None when not every mode ran, else whether they agree (printed)."""
    modes = [reps.get(f"heap-{m}") for m in HEAP_MODES]
    if not all(modes):
        return None
    keys = lambda r: (r["heap"]["total_pages"], r["heap"]["free_pages"],
                      r["audit"]["ram_pages"], r["audit"]["free_pages"],
                      r["audit"]["reserved_pages"],
                      r["audit"]["lost_pages"])
    got = [keys(r) for r in modes]
    if len(set(got)) == 1:
        print("  PASS    heap-modes-agree")
        return True
    print("  FAIL    heap-modes-agree")
    print(f"          (total, free, ram, audit free, reserved, lost)"
          f" lazy/chunked/pagewise: {got}")
    return False


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
        cases = build_cases(args.elf, memdir) + efi_lu_cases(args.elf)
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
        problems, secs, log_path, rep = case.run(args.logs) \
            if hasattr(case, "run") else run_case(case, isos, args.logs)
        reps[case.name] = rep
        if problems:
            failed += 1
            print(f"  FAIL    {case.name} ({secs:.1f} s, log {log_path})")
            for p in problems:
                print(f"          {p}")
        else:
            passed += 1
            print(f"  PASS    {case.name} ({secs:.1f} s)")

    agree = heap_modes_agree(reps)
    if agree is not None:
        passed += agree
        failed += not agree

    what = "check-scale" if args.scale else "qemu-test"
    print(f"{what} x86_64: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
