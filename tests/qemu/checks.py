# SPDX-License-Identifier: MIT
"""Checks on a KEEL-REPORT and its serial log, shared by the QEMU boot
matrices (tests/qemu/x86_64.py, tests/qemu/arm64.py). Each check takes
(report, log) and returns a list of problems; `wants_log` tells the x86_64
runner, whose own checks take only the report, to pass the log."""

import re


def _log_aware(check):
    check.wants_log = True
    return check


def json_is(path, want):
    """rep[path...] == want, path a tuple of keys/indexes."""
    def check(rep, log):
        v = rep
        for k in path:
            v = v[k]
        if v != want:
            return [f"{'.'.join(map(str, path))} = {v!r}, expected "
                    f"{want!r}"]
        return []
    return _log_aware(check)


def cpu_failed(cpu, text):
    """CPU @cpu is offline and its fail_reason contains @text."""
    def check(rep, log):
        c = next((c for c in rep["cpus"] if c["id"] == cpu), None)
        if c is None or c["online"]:
            return [f"cpu {cpu} online or missing"]
        if text not in (c.get("fail_reason") or ""):
            return [f"cpu {cpu} fail_reason {c.get('fail_reason')!r}, "
                    f"expected {text!r}"]
        return []
    return _log_aware(check)


@_log_aware
def kernel_still_reserved(rep, log):
    """inject=bad-map: the kernel range the bogus entry claimed is still
    reserved, no RAM range of the bogus node touches it, nothing is lost,
    and both the injection and the sanitiser warned."""
    m = re.search(r"inject=bad-map: firmware map claims \[(0x[0-9a-f]+), "
                  r"(0x[0-9a-f]+)\) \(kernel\) is RAM on node (\d+)", log)
    if not m:
        return ["log lacks the inject=bad-map line"]
    start, end = int(m.group(1), 16), int(m.group(2), 16)
    bogus = int(m.group(3))
    out = []
    kern = [r for r in rep["memmap"]["reserved"] if r[2] == "kernel"]
    if not any(r[0] <= start and r[1] >= end for r in kern):
        out.append(f"kernel [{start:#x}, {end:#x}) not reserved: {kern}")
    for n in rep["nodes"]:
        if n["id"] != bogus:
            continue
        for a, b in n["ranges"]:
            if a < end and b > start:
                out.append(f"node {bogus} RAM [{a:#x}, {b:#x}) overlaps "
                           "the kernel")
    if rep["audit"]["lost_pages"]:
        out.append(f"audit.lost_pages {rep['audit']['lost_pages']}")
    if rep["warnings"] < 2:
        out.append(f"{rep['warnings']} warnings, expected the injection's "
                   "and the sanitiser's")
    return out


@_log_aware
def stress_ok_everywhere(rep, log):
    """stress=N: ok, no corruption, every online CPU did operations, and
    with bootscrub=idle the background scrub finished."""
    st = rep.get("stress")
    if not st:
        return ["no stress object in the report"]
    out = []
    if not st["ok"] or st["corruptions"] or st["heap_problems"]:
        out.append(f"stress ok {st['ok']}, corruptions {st['corruptions']},"
                   f" heap_problems {st['heap_problems']}")
    ran = {p["cpu"]: p["ops"] for p in st["per_cpu"]}
    for c in rep["cpus"]:
        if c["online"] and ran.get(c["id"], 0) <= 0:
            out.append(f"stress: cpu {c['id']} did no operations")
    if rep["scrub"]["mode"] == "idle" and not rep["scrub"]["all_clean_ns"]:
        out.append("idle scrub never finished")
    return out


def scrubbers_are(n):
    """Exactly @n CPUs scrub (one per core unless scrub_smt=on)."""
    def check(rep, log):
        got = sum(1 for c in rep["cpus"] if c["scrubber"])
        if got != n:
            return [f"{got} scrubbers, expected {n}"]
        return []
    return _log_aware(check)


def warning_lines_at_most(n):
    """At most @n lines of the serial log say "warning" (keel's and
    QEMU's): a big machine must not flood the console."""
    def check(rep, log):
        lines = [l for l in log.splitlines() if "warning" in l]
        if len(lines) > n:
            return [f"{len(lines)} warning lines, expected at most {n}: "
                    f"{lines[:3]}..."]
        return []
    return _log_aware(check)


@_log_aware
def every_node_scrubbed(rep, log):
    """Each node with memory was scrubbed whole, its own CPUs among the
    scrubbers (others may help once their node is done)."""
    out = []
    per = {p["node"]: p for p in rep["scrub"]["per_node"]}
    for n in rep["nodes"]:
        if not n["mem_bytes"]:
            continue
        p = per.get(n["id"])
        if p is None or not p["bytes"] or p["bytes"] != n["free_bytes"]:
            out.append(f"node {n['id']}: scrubbed "
                       f"{p and p['bytes']} of {n['free_bytes']} bytes")
            continue
        if n["cpus"] and not set(p["cpus"]) & set(n["cpus"]):
            out.append(f"node {n['id']} scrubbed by CPUs {p['cpus']}, "
                       "none of its own")
    return out


def scrub_calibrated(forced=None):
    """scrub.calibration lists >= 1 primitive; scrub.primitive is the
    fastest of them ("measured"), or @forced ("forced"), which must be one
    of them."""
    def check(rep, log):
        s = rep["scrub"]
        cal = s.get("calibration") or []
        if not cal:
            return ["scrub.calibration is empty"]
        names = [c["primitive"] for c in cal]
        if forced is not None:
            out = []
            if s["primitive"] != forced or s.get("primitive_by") != "forced":
                out.append(f"scrub.primitive {s['primitive']!r} by "
                           f"{s.get('primitive_by')!r}, expected {forced!r}"
                           " forced")
            if forced not in names:
                out.append(f"{forced!r} not in scrub.calibration {names}")
            return out
        rate = {c["primitive"]: c["bytes"] / max(c["ns"], 1) for c in cal}
        best = max(rate.values())
        if s.get("primitive_by") != "measured":
            return [f"scrub.primitive_by {s.get('primitive_by')!r}, "
                    "expected 'measured'"]
        # ns are rounded from ticks: allow a rounding step between equals.
        if rate.get(s["primitive"], 0) < best * 0.999:
            return [f"scrub.primitive {s['primitive']!r} is not the "
                    f"fastest of {rate}"]
        return []
    return _log_aware(check)


LATENCY_PHASES = [("idle", None), ("build-remote", "deferred"),
                  ("build-remote", "eager"), ("build-local", "deferred"),
                  ("build-local", "eager")]


def latency_whole(timer, load="local+remote-probe-domains"):
    """latency=on: the probe ran on @timer; every phase is there, in order,
    with >= 1000 samples over >= 100 ms and (build phases) a named
    interrupts-off site and at least one real domain built (build-remote:
    on the other CPU); latency.load is @load (no domain= words: the
    probe's own domains); the eager build-local spike is above the deferred
    one (one 1 GiB block zeroed, and on arm64 cleaned page by page, inside
    the heap lock, against none of that)."""
    def check(rep, log):
        lat = rep.get("latency")
        if not lat or lat.get("unsupported"):
            return [f"no probe: {lat and lat.get('unsupported')}"]
        out = []
        if lat["timer"] != timer:
            out.append(f"latency.timer {lat['timer']!r}, expected {timer!r}")
        rows = {}
        for (name, mode), p in zip(LATENCY_PHASES, lat["phases"]):
            if p["phase"] != name or (mode == "eager") != \
                    (p["cachemaint"] == "eager"):
                out.append(f"phase {p['phase']} {p['cachemaint']}, "
                           f"expected {name} {mode}")
            if p["samples"] < 1000 or p["ns"] < 100 * 1000 * 1000:
                out.append(f"{p['phase']} {p['cachemaint']}: {p['samples']}"
                           f" samples in {p['ns']} ns")
            if name != "idle" and not p["irqsoff_site"]:
                out.append(f"{p['phase']} {p['cachemaint']}: no "
                           "irqsoff_site")
            if name != "idle" and p["builds"] < 1:
                out.append(f"{p['phase']} {p['cachemaint']}: no domain "
                           "built")
            rows[(name, mode)] = p
        if lat["load"] != load:
            out.append(f"latency.load {lat['load']!r}, expected {load!r}")
        if len(lat["phases"]) != len(LATENCY_PHASES):
            out.append(f"{len(lat['phases'])} phases, expected "
                       f"{len(LATENCY_PHASES)}")
        eager = rows.get(("build-local", "eager"))
        deferred = rows.get(("build-local", "deferred"))
        if eager and deferred and eager["max_ns"] <= deferred["max_ns"]:
            out.append(f"build-local eager max {eager['max_ns']} ns not "
                       f"above deferred max {deferred['max_ns']} ns")
        if eager and eager["irqsoff_site"] != "heap_alloc_owned":
            out.append(f"eager irqsoff_site {eager['irqsoff_site']!r}, "
                       "expected heap_alloc_owned")
        return out
    return _log_aware(check)


def latency_unsupported(text):
    """latency=on without a probe: the report says why (@text in it)."""
    def check(rep, log):
        why = (rep.get("latency") or {}).get("unsupported") or ""
        if text not in why:
            return [f"latency.unsupported {why!r}, expected {text!r}"]
        return []
    return _log_aware(check)


def stray_irqs(lo, hi):
    """inject=irq-unexpected:N: from @lo to @hi interrupts counted in
    irq.unexpected (fewer than N: the arch bounds what keeps coming) and
    the boot went on with every CPU's interrupts on (report.py checks
    irq.on_cpus)."""
    def check(rep, log):
        n = rep["irq"]["unexpected"]
        if not lo <= n <= hi:
            return [f"irq.unexpected {n}, expected {lo} to {hi}"]
        return []
    return _log_aware(check)


def ioapic_masked(ioapics, entries, unmasked, stray_masked=0):
    """x86_64 (issue 28 §7): the MADT's @ioapics I/O APICs masked at boot,
    @entries redirection entries in all, @unmasked of which had been left
    unmasked, @stray_masked masked later by a stray's handler; no spurious
    interrupt (QEMU sends none)."""
    def check(rep, log):
        irq = rep["irq"]
        want = {"ioapics": ioapics, "ioapic_entries": entries,
                "ioapic_unmasked": unmasked,
                "ioapic_stray_masked": stray_masked, "spurious": 0}
        return [f"irq.{k} {irq.get(k)!r}, expected {v}"
                for k, v in want.items() if irq.get(k) != v]
    return _log_aware(check)


def idle_wakes_only(cpus):
    """No latency=on: no probe interrupt on any CPU, and no interrupt keel
    did not ask for; the only interrupts taken are the idle wake-ups
    (timer or wake IPI) of the @cpus CPUs (the secondaries' idle waits,
    the boot CPU's smp_wait()). How many depends on when the host ran
    them: a CPU kept busy until the report never halts, so zero is no
    failure, but wake-ups counted on more CPUs than there are, or a count
    without CPUs, are. Every CPU runs with interrupts on (irq.on_cpus)."""
    def check(rep, log):
        irq = rep["irq"]
        out = []
        if irq["count"]:
            out.append(f"irq.count {irq['count']}: timer interrupts "
                       "without latency=on")
        if irq["unexpected"]:
            out.append(f"irq.unexpected {irq['unexpected']}")
        if irq["idle_wake_cpus"] > cpus or \
                (irq["idle_wakes"] == 0) != (irq["idle_wake_cpus"] == 0):
            out.append(f"{irq['idle_wakes']} idle wake-ups on "
                       f"{irq['idle_wake_cpus']} CPUs, expected them on at "
                       f"most the {cpus} CPUs")
        if irq["on_cpus"] != cpus:
            out.append(f"irq.on_cpus {irq['on_cpus']}: expected all {cpus} "
                       "CPUs to run with interrupts on")
        return out
    return _log_aware(check)
