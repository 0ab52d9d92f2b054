# SPDX-License-Identifier: MIT
"""Run each live-update case with guests N times and count what happened
(issue 36 §0; `make stress-liveupdate`, not part of `make check`).

    python3 -m tests.qemu.stress_liveupdate [--runs N]
        [--arch x86_64|arm64|all] [--only NAME,...] [--timeout S]
        [--hogs K] [--logs DIR]       (from the top directory)

Each run is one case of the QEMU matrix (tests/qemu/x86_64.py or
tests/qemu/arm64.py), booted fresh, checked by the matrix's own checks.
A run is a pass, a fail (the case's checks said why) or a hang (QEMU's
timeout ended it with no verdict on the console). --timeout replaces the
matrix's 120 s: the cases take 1-8 s quiet on a 2-core host, up to 25 s
beside other builds, so 60 s is still over 5x the worst seen. --hogs
starts K busy loops beside QEMU (a loaded host is where the races showed).
The log of every run that did not pass is kept under --logs, named by
case and run. Exit status: 0 when every run passed.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from scripts.keel.boot import TOP

from . import arm64 as arm64_matrix
from . import x86_64 as x86_matrix
from .arm64_cases import CASES as ARM64_CASES
from .x86_cases import build_cases

# The live-update cases whose guests run across the update.
X86 = ["guests-liveupdate-svm", "guests-liveupdate2-svm",
       "guests-liveupdate2-svm-pieces"]
ARM64 = ["guests-liveupdate-el2", "guests-liveupdate2-el2",
         "guests-liveupdate-1node-el2", "guests-liveupdate2-el2-pieces"]


def hung(log_path):
    """A run with no verdict line on its console: QEMU's timeout ended it."""
    try:
        with open(log_path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return True
    return "KEEL: PASS" not in text and "KEEL: FAIL" not in text


def x86_runner(names, elf, logs, timeout):
    cases = {c.name: c for c in build_cases(elf, os.path.join(logs, "mem"))}
    os.makedirs(os.path.join(logs, "mem"), exist_ok=True)

    def run(name):
        case = cases[name]
        case.timeout = timeout
        problems, _, log_path, _ = x86_matrix.run_case(case, {}, logs)
        return problems, log_path
    return {n: run for n in names if n in cases}


def arm64_runner(names, image, logs, timeout):
    cases = {c["name"]: c for c in ARM64_CASES}

    def run(name):
        c = dict(cases[name])
        c["timeout"] = timeout
        fails, _, log_path = arm64_matrix.run_case(c, image, logs)
        return fails, log_path
    return {n: run for n in names if n in cases}


def start_hogs(k):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"])
            for _ in range(k)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--arch", default="all",
                    choices=["x86_64", "arm64", "all"])
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--hogs", type=int, default=0)
    ap.add_argument("--elf", default=os.path.join(TOP, "build/x86_64/"
                                                  "keel.elf"))
    ap.add_argument("--image", default=os.path.join(TOP, "build/arm64/"
                                                    "Image"))
    ap.add_argument("--logs", default=os.path.join(TOP, "build/stress-lu"))
    args = ap.parse_args()
    want = set(args.only.split(",")) if args.only else None
    os.makedirs(args.logs, exist_ok=True)
    work = tempfile.mkdtemp(prefix="keel-stress-", dir=args.logs)
    runners = {}
    if args.arch in ("x86_64", "all"):
        runners.update(x86_runner([n for n in X86 if not want or n in want],
                                  args.elf, work, args.timeout))
    if args.arch in ("arm64", "all"):
        runners.update(arm64_runner(
            [n for n in ARM64 if not want or n in want],
            os.path.abspath(args.image), work, args.timeout))
    if not runners:
        print("stress-liveupdate: no case to run")
        return 2
    hogs = start_hogs(args.hogs)
    tally = {n: {"pass": 0, "fail": 0, "hang": 0} for n in runners}
    try:
        for i in range(1, args.runs + 1):
            for name, run in runners.items():
                problems, log_path = run(name)
                what = ("hang" if hung(log_path) else "fail") \
                    if problems else "pass"
                tally[name][what] += 1
                if what != "pass":
                    kept = os.path.join(args.logs, f"{name}.{i}.{what}.log")
                    shutil.copy(log_path, kept)
                    print(f"  {what.upper():5} {name} run {i}: {kept}")
                    for p in problems[:5]:
                        print(f"        {p}")
                sys.stdout.flush()
            done = sum(t["pass"] for t in tally.values())
            print(f"  run {i} of {args.runs}: {done} of "
                  f"{i * len(runners)} boots passed so far")
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        shutil.rmtree(work, ignore_errors=True)
    bad = 0
    for name, t in tally.items():
        bad += t["fail"] + t["hang"]
        print(f"stress-liveupdate: {name}: {args.runs} runs, {t['pass']} "
              f"passed, {t['fail']} failed, {t['hang']} hung")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
