# SPDX-License-Identifier: MIT
"""Checks of the parallel CPU start (issue 24), shared by the x86_64, arm64
and sandbox cases. Each takes (report, log) and returns a list of problems.
"""


def _phase_ns(rep, name):
    """Length of the trace phase @name (begin..end on the boot CPU), ns."""
    ts = {}
    for ev in rep.get("trace", []):
        if ev.get("name") == name and ev.get("kind") in ("begin", "end"):
            ts.setdefault(ev["kind"], ev["ns"])
    if "begin" not in ts or "end" not in ts:
        return None
    return ts["end"] - ts["begin"]


def own_hwids(count):
    """@count CPUs online, and every secondary read, from its own hardware
    at check-in, the APIC ID / MPIDR of the row its per-CPU data gave it
    (cpus[].hwid_seen, report=full): no CPU took another's per-CPU data."""
    def check(rep, log):
        out = []
        rows = [c for c in rep["cpus"] if c["online"] and c["id"] != 0]
        if len(rows) != count - 1:
            out.append(f"{len(rows)} secondaries online, expected "
                       f"{count - 1}")
        for c in rows:
            seen = c.get("hwid_seen")
            if seen is None:
                out.append(f"cpu {c['id']}: no hwid_seen (report=full?)")
            elif seen != c["hwid"]:
                out.append(f"cpu {c['id']}: runs on hwid {seen:#x}, its "
                           f"per-CPU data is hwid {c['hwid']:#x}")
        if rep["smp"]["hwid_mismatches"] != 0:
            out.append(f"smp.hwid_mismatches {rep['smp']['hwid_mismatches']}")
        return out
    check.wants_log = True
    return check


def start_mode(mode):
    """smp.start is @mode, and the bring-up time is the last check-in."""
    def check(rep, log):
        out = []
        smp = rep["smp"]
        if smp["start"] != mode:
            out.append(f"smp.start {smp['start']!r}, expected {mode!r}")
        ups = [c["up_ns"] for c in rep["cpus"]
               if c["online"] and c["id"] != 0 and "up_ns" in c]
        if None in ups or not ups:
            out.append("an online secondary without up_ns (report=full?)")
        elif max(ups) != smp["bringup_ns"]:
            out.append(f"smp.bringup_ns {smp['bringup_ns']} is not the "
                       f"last check-in {max(ups)}")
        return out
    check.wants_log = True
    return check


def one_timeout(timeout_ms, dead):
    """The CPUs of @dead (logical ids; a callable (report) -> ids also
    does) missed the check-in, and all of them together cost one
    ap_timeout_ms: the smp_boot phase lasts at least one timeout and less
    than two (N timeouts one after another would be N times as long)."""
    def check(rep, log):
        out = []
        ids = dead(rep) if callable(dead) else dead
        for cpu in ids:
            c = next((c for c in rep["cpus"] if c["id"] == cpu), None)
            if c is None or c["online"] or \
                    "did not check in" not in (c["fail_reason"] or ""):
                out.append(f"cpu {cpu} is not reported as missing its "
                           f"check-in: {c}")
        ns = _phase_ns(rep, "smp_boot")
        if ns is None:
            return out + ["no smp_boot phase in the trace"]
        if ns < timeout_ms * 1e6:
            out.append(f"smp_boot took {ns / 1e6:.0f} ms, less than the "
                       f"{timeout_ms} ms timeout: the dead CPUs were not "
                       "waited for")
        if ns >= 2 * timeout_ms * 1e6:
            out.append(f"{len(ids)} dead CPUs made smp_boot take "
                       f"{ns / 1e6:.0f} ms: more than one {timeout_ms} ms "
                       "timeout")
        return out
    check.wants_log = True
    return check
