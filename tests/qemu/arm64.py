# SPDX-License-Identifier: MIT
"""arm64 QEMU boot matrix for keel (called by `make ARCH=arm64 qemu-test`).

Each case is a fresh QEMU virt boot through scripts/qemu-arm64.sh with a
timeout (scripts/keel/boot.py), the serial log saved to LOGDIR/<case>.log,
and the report checked with keel.report (check_report) plus a few arm64
facts (el, loader, named reservations) and the case's own checks. Cases
run one at a time (never two QEMUs at once).

Every case boots with audit=full (heap_check plus, after a scrub, the
free-page zero sampling; the default audit is covered by the sandbox
cases); audit.problems must be 0 everywhere. Fault injection
(docs/cmdline.md), stress=5 racing the idle scrub and bench=on have cases
of their own, as on x86_64.

Usage, from the top directory:
  python3 -m tests.qemu.arm64 [--image build/arm64/Image] [--logs DIR]
                              [--only NAME,...] [--list] [--scale]
Prints one line per case and a final "qemu-test arm64: N passed, M failed";
exit status 1 when any case failed.
"""

import argparse
import os
import sys
import tempfile

from scripts.keel import boot
from scripts.keel.boot import TOP

from .arm64_cases import CASES, SCALE_CASES
from . import memcheck
from .arm64_machine import audit_checked
from .liveupdate_checks import same_build


def arm64_checks(c, rep, log):
    out = []
    if rep.get("arch") != "arm64":
        out.append(f"arch {rep.get('arch')!r}, expected 'arm64'")
    if rep.get("el") != c["el"]:
        out.append(f"el {rep.get('el')}, expected {c['el']}")
    if rep.get("loader") != c["loader"]:
        out.append(f"loader {rep.get('loader')!r}, expected {c['loader']!r}")
    if rep.get("boot") != c["boot"]:
        out.append(f"boot {rep.get('boot')!r}, expected {c['boot']!r}")
    t = rep.get("timer", {})
    if t.get("source") != "cntvct" or t.get("calibrated_by") != "cntfrq":
        out.append(f"timer {t}, expected cntvct/cntfrq")
    res = rep.get("memmap", {}).get("reserved", [])
    names = [r[2] for r in res if len(r) >= 3]
    for want in c["named"]:
        if want not in names:
            out.append(f"no {want!r} reservation in memmap.reserved")
    for name, start, end in c["reserved"]:
        got = [r for r in res if len(r) >= 3 and r[2] == name]
        if not got:
            out.append(f"reservation {name!r} missing (have {names})")
            continue
        if start is not None and (got[0][0] > start or got[0][1] < end):
            out.append(f"reservation {name!r} is [{got[0][0]:#x}, "
                       f"{got[0][1]:#x}), expected [{start:#x}, {end:#x})")
        # Not in the heap: report.check_report's audit balance
        # (free + allocated + reserved == RAM, 0 lost) covers it.
    if "exception:" in log:
        out.append("an exception was reported")
    for want in c["log_has"]:
        if want not in log:
            out.append(f"log lacks {want!r}")
    out += audit_checked(rep, log)
    if c["audit"] is None and "audit=full" in rep["cmdline"].split():
        out.append("expected the default (basic) audit")
    for check in c["checks"]:
        out += check(rep, log)
    return out


def run_case(c, image, logdir):
    log_path = os.path.join(logdir, c["name"] + ".log")
    after = f"after={c['after']}" if c["after"] else ""
    append = f"{after} {c['append']}".strip()
    mem = []
    with tempfile.TemporaryDirectory(prefix="keel-arm64-") as work:
        extra = c["setup"](work, c["args"]) if c["setup"] else []
        if c.get("setup_image"):  # a setup that needs the image's path
            extra = c["setup_image"](work, c["args"], image)
        # A setup may also give QEMU's own arguments: (script args, QEMU's).
        extra, qemu_extra = extra if isinstance(extra, tuple) else (extra, [])
        # A live update: the image is its own next image (the initrd).
        if c.get("initrd_self"):
            extra += ["--initrd", image]
        elif c.get("initrd_of"):  # fn(image, workdir) -> the initrd's path
            extra += ["--initrd", c["initrd_of"](image, work)]
        args = [*c["args"], *extra]
        if c.get("live"):  # a watched boot (arm64_efi_lu_cases.py)
            b, mem = c["live"](
                lambda x: boot.arm64_cmd(image, args, append, c["timeout"],
                                         qemu_extra + x),
                c["timeout"], log_path, work, image)
        elif c["loaded"]:
            loaded = c["loaded"](work)
            b, mem = memcheck.boot_and_compare(
                lambda x: boot.arm64_cmd(image, args, append, c["timeout"],
                                         memcheck.loader_args(loaded) + x),
                c["timeout"], log_path, work, loaded)
        else:
            cmd = boot.arm64_cmd(image, args, append, c["timeout"],
                                 qemu_extra)
            b = boot.qemu(cmd, c["timeout"], log_path)
    fails = b.problems(0, c["expect"]) + mem
    if b.report is not None:
        fails += arm64_checks(c, b.report, b.log)
        if (c.get("initrd_self") or c.get("initrd_of")) and \
                b.report.get("liveupdate", {}).get("state") == "taken":
            fails += same_build(b.report, os.path.join(
                os.path.dirname(image), "keel.elf"))
    return fails, b.elapsed, log_path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--image", default=os.path.join(TOP, "build/arm64/Image"))
    ap.add_argument("--logs", default=os.path.join(TOP, "build/arm64/qemu-logs"))
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scale", action="store_true",
                    help="the big-machine cases (make check-scale) instead")
    args = ap.parse_args()
    cases = SCALE_CASES if args.scale else CASES
    if args.list:
        for c in cases:
            print(c["name"])
        return 0
    if args.only:
        want = set(args.only.split(","))
        cases = [c for c in cases if c["name"] in want]
    os.makedirs(args.logs, exist_ok=True)
    passed = failed = 0
    for c in cases:
        fails, secs, log_path = run_case(c, os.path.abspath(args.image),
                                         args.logs)
        if fails:
            failed += 1
            print(f"  FAIL  {c['name']} ({secs:.1f} s, log {log_path})")
            for f in fails:
                print(f"        {f}")
        else:
            passed += 1
            print(f"  PASS  {c['name']} ({secs:.1f} s)")
        sys.stdout.flush()
    what = "check-scale" if args.scale else "qemu-test"
    print(f"{what} arm64: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
