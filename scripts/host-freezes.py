#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Stops of the whole machine in a system-wide perf recording (issue 28 §8).

Usage: host-freezes.py PERF_DATA [--min-ms 10]

Record a latency boot (or anything) first, on every CPU, with events that
come tens of thousands of times a second on a busy machine:

  perf record -e sched:sched_switch -e exceptions:page_fault_user -a \\
      -o build/freeze.perf -- python3 scripts/bench-latency.py --arch x86_64
  scripts/host-freezes.py build/freeze.perf

Prints every window of at least --min-ms in which no CPU recorded an
event, where it ended in a 100 ms period, and the total: on a VM whose
host caps its CPU time, stops of 30-35 ms that all end at one phase of
the period (scripts/keel/hostfreeze.py says why that is the host).
"""

import argparse
import subprocess

from keel import hostfreeze


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("perf_data")
    ap.add_argument("--min-ms", type=float, default=10.0)
    args = ap.parse_args(argv)
    res = subprocess.run(["perf", "script", "-i", args.perf_data, "-F",
                          "time"], capture_output=True, text=True,
                         check=True)
    times = [float(x.strip().rstrip(":")) for x in res.stdout.split()
             if x.strip().rstrip(":")]
    if len(times) < 2:
        print("host-freezes: fewer than 2 events recorded")
        return 1
    wins = hostfreeze.silent_windows(times, args.min_ms / 1000.0)
    for a, b in wins:
        print(f"{(b - a) * 1000:7.2f} ms without any event, "
              f"{a:.6f} -> {b:.6f}, ends "
              f"{hostfreeze.period_phase_ms(b):5.1f} ms into a 100 ms "
              "period")
    total = sum(b - a for a, b in wins)
    span = max(times) - min(times)
    print(f"host-freezes: {len(times)} events in {span:.1f} s; "
          f"{len(wins)} windows of {args.min_ms:g} ms or more without one, "
          f"{total * 1000:.0f} ms in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
