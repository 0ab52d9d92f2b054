# SPDX-License-Identifier: MIT
"""Time the host took from this machine (issue 28 §8).

When this machine is itself a VM, its host can stop all of its vCPUs at
once: a latency boot then shows a sample as late as the stop was long,
although keel had interrupts on, and nothing inside the VM ran meanwhile.
Two ways to see it from inside:

  - steal_ms(): the "steal" time of /proc/stat (all CPUs), which a KVM
    guest's kernel counts while its vCPUs are runnable but not run by the
    host; scripts/keel/rtpin.py takes it around every latency boot;
  - silent_windows(): the windows in which no CPU of the machine recorded
    any event, from the timestamps of a system-wide `perf record` of
    frequent events (scheduler switches, user page faults): with tens of
    thousands of them a second, a window of tens of milliseconds without
    one is a stop of the whole VM, not a descheduled thread.
    scripts/host-freezes.py prints them.
"""

USER_HZ = 100  # /proc/stat's unit; Linux exports it as 100 everywhere


def steal_ms(stat="/proc/stat"):
    """The steal time of all CPUs so far, in ms (None when unknown)."""
    try:
        with open(stat) as f:
            for line in f:
                fields = line.split()
                if fields and fields[0] == "cpu" and len(fields) > 8:
                    return int(fields[8]) * 1000 // USER_HZ
    except OSError:
        pass
    return None


def silent_windows(times, min_s=0.010):
    """[(start, end)] of each gap longer than @min_s seconds between
    consecutive timestamps of @times (seconds, any order)."""
    ts = sorted(times)
    return [(a, b) for a, b in zip(ts, ts[1:]) if b - a > min_s]


def period_phase_ms(t, period_ms=100):
    """Where time @t (seconds) falls in a period of @period_ms, in ms: stops
    that all end at one phase come from a periodic cause (a CPU quota's
    period), not from chance."""
    return (t * 1000.0) % period_ms
