# SPDX-License-Identifier: MIT
"""Per-case checks of the sandbox tests about the machine, the scrub, the
heap and the reserved regions: each takes the parsed report and the log and
returns a list of failures (empty: passed)."""

import os
import re

from ..qemu import checks
from . import firmware
from .checks_report import RESERVED_ROWS_MAX
from .firmware import PAGE

# ---- per-case extra checks (take the parsed report, return failures) ----

def check_memonly_helpers(fw):
    """A node without CPUs is scrubbed by the nearest node with CPUs.

    Nearest in the helper -> node direction: the smallest
    distance[helper][node], the cost of the helper's CPUs writing the node's
    memory (the matrix may be asymmetric); 255 (unreachable) last, ties to
    the lowest id. DESIGN section 5 lets workers that finished their own
    node help CPU-less nodes too, so other CPUs may appear; what must hold
    is that the node is attributed to its nearest node (helper_of) and that
    CPUs of that node took part.
    """
    def check(rep, log):
        out = []
        node_cpus = fw.node_cpus()
        dist = fw.distance()
        with_cpus = [n for n, c in node_cpus.items() if c]
        for node, cpus in node_cpus.items():
            if cpus or not fw.node_mem().get(node):
                continue
            nearest = min(with_cpus, key=lambda m: (dist[m][node], m))
            entry = next((p for p in rep["scrub"]["per_node"]
                          if p["node"] == node), None)
            if entry is None:
                out.append(f"no scrub.per_node entry for node {node}")
                continue
            if entry.get("helper_of") != nearest:
                out.append(f"memory-only node {node}: helper_of "
                           f"{entry.get('helper_of')}, expected nearest "
                           f"node {nearest}")
            if not set(entry["cpus"]) & set(node_cpus[nearest]):
                out.append(f"memory-only node {node} scrubbed by CPUs "
                           f"{entry['cpus']}, none of nearest node "
                           f"{nearest} {node_cpus[nearest]}")
        return out
    return check


def check_no_warnings(rep, log):
    """A valid description (asymmetric distances included) warns nothing."""
    found = re.findall(r"keel: warning: .*", log)
    return [f"unexpected warning: {w}" for w in found[:3]]


def build_max_numnodes():
    """CONFIG_MAX_NUMNODES of the binary under test."""
    conf = os.path.join(os.path.dirname(firmware.BINARY), "include", "generated",
                        "autoconf.h")
    with open(conf, encoding="utf-8") as f:
        m = re.search(r"#define CONFIG_MAX_NUMNODES (\d+)", f.read())
    return int(m.group(1))


def check_fold(fw):
    """More nodes than MAX_NUMNODES: the extra ones fold, said once."""
    def check(rep, log):
        out = []
        max_nodes = build_max_numnodes()
        nmap = fw.node_map(max_nodes)
        ids = sorted(nmap)
        folded = len(ids) - min(len(ids), max_nodes)
        mem = {}
        for s, e, n in fw.ram:
            mem[nmap[n]] = mem.get(nmap[n], 0) + e - s
        line = (f"keel: warning: fwdesc: {len(ids)} proximity domains, "
                f"{min(len(ids), max_nodes)} kept (MAX_NUMNODES={max_nodes})"
                f", {folded} folded into their nearest node")
        if log.count(line) != 1:
            out.append(f"expected once: {line!r}")
        if rep.get("dropped_nodes") != folded:
            out.append(f"dropped_nodes {rep.get('dropped_nodes')}, "
                       f"expected {folded}")
        got = {n["id"]: n["mem_bytes"] for n in rep["nodes"]}
        if got != {n: mem.get(n, 0) for n in range(max(nmap.values()) + 1)}:
            out.append(f"node memory {got}, expected {mem}")
        for i, (_, node) in enumerate(fw.cpus):
            c = next(c for c in rep["cpus"] if c["id"] == i)
            if c["node"] != nmap[node]:
                out.append(f"cpu {i} on node {c['node']}, expected "
                           f"{nmap[node]} (firmware node {node})")
        for (a, b), v in fw.dist.items():
            if a in nmap and b in nmap and nmap[a] == a and nmap[b] == b:
                row = next(n for n in rep["nodes"] if n["id"] == a)
                if row["distance"][b] != v:
                    out.append(f"distance {a} {b} = {row['distance'][b]}, "
                               f"expected {v}")
        return out
    return check


def check_local_scrub(fw):
    """Every node with CPUs and memory is scrubbed by its own CPUs.

    Remote CPUs may also appear: DESIGN section 5 lets a worker that finished
    its own node help the node with the most work left.
    """
    def check(rep, log):
        out = []
        node_cpus = fw.node_cpus()
        for p in rep["scrub"]["per_node"]:
            mine = node_cpus.get(p["node"], [])
            if mine and p["bytes"] and not set(p["cpus"]) & set(mine):
                out.append(f"node {p['node']} scrubbed only by remote CPUs "
                           f"{p['cpus']} (its own: {mine})")
            if p["bytes"] and p.get("helper_of") is not None and mine:
                out.append(f"node {p['node']} has CPUs but helper_of is "
                           f"{p['helper_of']}")
        return out
    return check


def check_all_scrubbed_by_many(count):
    """At least @count CPUs did scrub work (parked threads were woken)."""
    def check(rep, log):
        busy = [p for p in rep["scrub"]["per_cpu"] if p["bytes"]]
        if len(busy) < count:
            return [f"only {len(busy)} CPUs scrubbed, expected >= {count}"]
        return []
    return check


def check_cpuonly(fw):
    def check(rep, log):
        out = []
        for node, cpus in fw.node_cpus().items():
            if fw.node_mem().get(node):
                continue
            heap = next((p for p in rep["heap"]["per_node"]
                         if p["node"] == node), None)
            if heap and heap["free_pages"]:
                out.append(f"CPU-only node {node} has "
                           f"{heap['free_pages']} free pages")
            rep_cpus = next(n["cpus"] for n in rep["nodes"]
                            if n["id"] == node)
            if sorted(rep_cpus) != sorted(cpus):
                out.append(f"node {node} CPUs {rep_cpus}, expected {cpus}")
        return out
    return check


def check_offline(cpu):
    def check(rep, log):
        c = next((c for c in rep["cpus"] if c["id"] == cpu), None)
        if c is None:
            return [f"cpu {cpu} missing from the report"]
        if c["online"]:
            return [f"cpu {cpu} online despite inject=ap-timeout:{cpu}"]
        return []
    return check


def check_unscrubbed(rep, log):
    out = []
    if rep["scrub"]["bytes"]:
        out.append(f"bootscrub=off but {rep['scrub']['bytes']} bytes scrubbed")
    return out


def check_mem_limit(limit):
    def check(rep, log):
        a = rep["audit"]
        usable = (a["free_pages"] + a["allocated_pages"]) * PAGE
        if usable > limit:
            return [f"mem={limit >> 20}M but {usable >> 20} MiB in the heap"]
        names = [r[2] for r in rep["memmap"].get("reserved", [])]
        if not any("mem=" in n for n in names):
            return [f"no reserved region named mem= (have {names})"]
        return []
    return check


def check_fw_reserved_kept(fw):
    """Every page the firmware reserved inside RAM is reserved in the
    report (bootmem's table), so it was neither free nor scrubbed."""
    def check(rep, log):
        regions = sorted((r[0], r[1]) for r in rep["memmap"]["reserved"])
        out = []
        for s, e, name in fw.reserved:
            s, e = s & ~(PAGE - 1), (e + PAGE - 1) & ~(PAGE - 1)
            if not any(rs < e and s < re for rs, re, _ in fw.ram):
                continue
            covered = any(rs <= s and e <= re for rs, re in regions)
            if not covered:
                out.append(f"firmware reserved {name} [{s:#x}, {e:#x}) "
                           "is not reserved in the report")
        return out
    return check


def check_mem_ignored(rep, log):
    """A mem= too small to boot is refused with a warning naming it, and
    the heap keeps all of the RAM."""
    out = []
    if not re.search(r"keel: warning: mem=\S+ .*mem= ignored", log):
        out.append("no warning saying mem= is ignored")
    if any("mem=" in r[2] for r in rep["memmap"]["reserved"]):
        out.append("a mem= region exists although mem= was refused")
    return out


def check_frametable_split(rep, log):
    """A fragmented node's frame table takes more than one piece."""
    if rep["bootmem"]["frametable_pieces"] <= 2:
        return [f"frametable_pieces {rep['bootmem']['frametable_pieces']}"
                ", expected one per section"]
    return []


def check_scrubbers(smt):
    """Scrub workers: one per core, or every thread with scrub_smt=on."""
    def check(rep, log):
        out = []
        for c in rep["cpus"]:
            want = c["online"] and (smt or not c["smt_sibling"])
            if c["scrubber"] != want:
                out.append(f"cpu {c['id']} (thread {c['thread']}) scrubber "
                           f"{c['scrubber']}, expected {want}")
        if rep["scrub"]["workers"] != sum(c["scrubber"] for c in rep["cpus"]):
            out.append(f"scrub.workers {rep['scrub']['workers']} != "
                       "number of cpus[].scrubber")
        return out
    return check


def check_unit_bytes(unit):
    def check(rep, log):
        if rep["scrub"].get("unit_bytes") != unit:
            return [f"scrub.unit_bytes {rep['scrub'].get('unit_bytes')}, "
                    f"expected {unit}"]
        return []
    return check


def check_calibrated(forced=None):
    """scrub.calibration: every primitive timed, the fastest (or @forced)
    used; the checks shared with the QEMU matrices."""
    return checks.scrub_calibrated(forced)


def check_idle_reported(rep, log):
    """Every scrub worker has idle_ns, within the scrub's wall time."""
    out = []
    for c in rep["scrub"]["per_cpu"]:
        if not 0 <= c.get("idle_ns", -1) <= rep["scrub"]["ns"]:
            out.append(f"scrub.per_cpu[{c['cpu']}].idle_ns "
                       f"{c.get('idle_ns')} not in [0, scrub.ns]")
    return out


def check_bench(rep, log):
    """bench=on: rows for every node with memory, the heap left intact."""
    bench = rep.get("bench")
    if not isinstance(bench, list) or not bench:
        return [f"bench=on but bench is {bench!r}"]
    out = []
    nodes = {r["node"] for r in bench}
    for n in rep["nodes"]:
        if n["mem_bytes"] and n["id"] not in nodes:
            out.append(f"no bench row for node {n['id']}")
    for mode in ("eager",):
        if not any(r["mode"] == mode for r in bench):
            out.append(f"no bench row in mode {mode}")
    return out


def check_audit_full(rep, log):
    if rep["audit"].get("problems") != 0:
        return [f"audit=full found {rep['audit'].get('problems')} problems"]
    return []


def check_warned(rep, log):
    if not re.search(r"keel: warning: ", log):
        return ["no 'keel: warning:' line for a malformed description"]
    return []


def check_trace_summary(full):
    """Scrub units: summed per node in trace_summary, whose bytes are the
    node's scrubbed bytes; in trace[] one begin/end pair each only with
    trace=full (then adding up to the same bytes)."""
    def check(rep, log):
        out = []
        if not isinstance(rep.get("trace_summary"), list):
            return ["no trace_summary list"]
        want_mode = "full" if full else "summary"
        if rep.get("trace_mode") != want_mode:
            out.append(f"trace_mode {rep.get('trace_mode')!r}, expected "
                       f"{want_mode!r}")
        scrubbed = {p["node"]: p["bytes"] for p in rep["scrub"]["per_node"]
                    if p["bytes"]}
        summed = {r["node"]: r["bytes"] for r in rep["trace_summary"]
                  if r["name"] == "scrub_unit"}
        if summed != scrubbed:
            out.append(f"trace_summary bytes per node {summed} != "
                       f"scrub.per_node bytes {scrubbed}")
        units = sum(p["units"] for p in rep["scrub"]["per_cpu"])
        count = sum(r["count"] for r in rep["trace_summary"])
        if count != units:
            out.append(f"trace_summary counts {count} units, scrub.per_cpu "
                       f"{units}")
        ends = {}
        for e in rep["trace"]:
            if e["name"] == "scrub_unit" and e["kind"] == "end":
                ends[e["arg0"]] = ends.get(e["arg0"], 0) + e["arg1"]
        if not full and ends:
            out.append(f"{len(ends)} nodes have scrub_unit events in trace[] "
                       "without trace=full")
        if full and not rep.get("trace_overflow") and ends != scrubbed:
            out.append(f"trace=full: scrub_unit bytes per node {ends} != "
                       f"{scrubbed}")
        return out
    return check


def check_reserved_bounded(fw):
    """More reserved regions than the report lists: at most 64 rows, the
    true count in memmap.reserved_regions."""
    def check(rep, log):
        m = rep["memmap"]
        out = []
        if len(m["reserved"]) > RESERVED_ROWS_MAX:
            out.append(f"{len(m['reserved'])} memmap.reserved rows, at most "
                       f"{RESERVED_ROWS_MAX} expected")
        if m.get("reserved_regions", 0) < len(fw.reserved):
            out.append(f"memmap.reserved_regions {m.get('reserved_regions')}"
                       f" < {len(fw.reserved)} firmware reserved ranges")
        return out
    return check


def check_reserved_full(fw):
    """report=full: every region of bootmem's reserved table has its row."""
    def check(rep, log):
        m = rep["memmap"]
        if len(m["reserved"]) != m.get("reserved_regions"):
            return [f"report=full: {len(m['reserved'])} memmap.reserved rows"
                    f" for {m.get('reserved_regions')} regions"]
        if len(m["reserved"]) <= RESERVED_ROWS_MAX:
            return [f"only {len(m['reserved'])} regions: the case does not "
                    "exceed the default bound"]
        names = {r[2] for r in m["reserved"]}
        missing = [n for _s, _e, n in fw.reserved if n not in names]
        return [f"no row named {missing[:3]}"] if missing else []
    return check


def check_reserved_row(fw, name):
    """The firmware range called @name, alone of its name among many
    others, keeps a row of its own with its exact bounds when rows merge
    (boundaries between names are kept first)."""
    def check(rep, log):
        want = [[s, e, n] for s, e, n in fw.reserved if n == name]
        got = [r for r in rep["memmap"]["reserved"] if r[2] == name]
        if got != want:
            return [f"memmap.reserved rows named {name!r}: {got}, "
                    f"expected {want}"]
        return []
    return check


LATENCY_LOAD = "local+remote-probe-domains"
LATENCY_LOAD_CMDLINE = "local+remote-domain="
LATENCY_ROWS = [("idle", "deferred"), ("build-remote", "deferred"),
                ("build-remote", "eager"), ("build-local", "deferred"),
                ("build-local", "eager")]


def check_latency(cpu, period_ns, load=LATENCY_LOAD):
    """latency=on: probe CPU @cpu, period @period_ns, the five phases in
    order with their cachemaint modes, the samples and histograms whole,
    the probe's interrupts counted on its CPU only; every build phase
    built at least one real domain (build-remote: on the other CPUs),
    and the load is @load."""
    def check(rep, log):
        lat = rep.get("latency")
        if not lat:
            return ["no latency object"]
        out = []
        if (lat["probe_cpu"], lat["period_ns"]) != (cpu, period_ns):
            out.append(f"probe on CPU {lat['probe_cpu']} every "
                       f"{lat['period_ns']} ns, expected {cpu}, {period_ns}")
        if (lat["timer"], lat["load"]) != ("posix-timer", load):
            out.append(f"timer {lat['timer']}, load {lat['load']}")
        rows = [(p["phase"], p["cachemaint"]) for p in lat["phases"]]
        if rows != LATENCY_ROWS:
            out.append(f"phases {rows}, expected {LATENCY_ROWS}")
        for p in lat["phases"]:
            if p["samples"] < 1000 or p["ns"] < 100 * 1000 * 1000:
                out.append(f"{p['phase']}: {p['samples']} samples in "
                           f"{p['ns']} ns")
            if not p["min_ns"] <= p["p50_ns"] <= p["p99_ns"] <= p["max_ns"]:
                out.append(f"{p['phase']}: min/p50/p99/max out of order")
            if p["phase"] != "idle" and not p["irqsoff_site"]:
                out.append(f"{p['phase']}: no irqsoff_site")
            if p["phase"] != "idle" and p["builds"] < 1:
                out.append(f"{p['phase']} ({p['cachemaint']}): no domain "
                           "built")
        if load == LATENCY_LOAD and not \
                2 << 20 <= lat["remote_domain_bytes"] <= 1 << 30:
            out.append(f"remote_domain_bytes {lat['remote_domain_bytes']}")
        counts = dict(rep["irq"]["count"])
        total = sum(p["samples"] for p in lat["phases"])
        if list(counts) != [cpu] or counts[cpu] < total:
            out.append(f"irq.count {counts}: the probe CPU {cpu} should "
                       f"have taken at least {total}, the others none")
        return out
    return check


def check_log(text, count=1):
    """The log holds @text exactly @count times."""
    def check(rep, log):
        n = log.count(text)
        if n != count:
            return [f"{text!r} appears {n} times in the log, expected "
                    f"{count}"]
        return []
    return check


def check_stopped(injected):
    """inject=scrub-stop:N repeated: every worker that quit is listed in
    scrub.stopped_cpus with one warning each. The boot CPU (first in
    @injected) surely claims a unit; another may find none left on a busy
    host and then has not stopped: not listed, and one warning says so."""
    def check(rep, log):
        scrub = rep["scrub"]
        got = scrub.get("stopped_cpus")
        if got is None:
            return ["no scrub.stopped_cpus"]
        out = []
        if injected[0] not in got or not set(got) <= set(injected):
            out.append(f"scrub.stopped_cpus {got}, expected {injected[0]} "
                       f"and only some of {injected}")
        for c in injected:
            n = log.count(f"warning: scrub: cpu {c} stopped (injected)")
            if n != (1 if c in got else 0):
                out.append(f"cpu {c}: {n} stop warnings, listed: {c in got}")
            n = log.count(f"warning: inject=scrub-stop:{c}: cpu {c} found "
                          "no unit left to quit on, nothing injected")
            if n != (0 if c in got else 1):
                out.append(f"cpu {c}: {n} warnings that it did not stop, "
                           f"listed: {c in got}")
        if scrub["stopped_cpu"] != min(got or [None]):
            out.append(f"scrub.stopped_cpu {scrub['stopped_cpu']} is not "
                       f"min({got})")
        if rep["heap"]["dirty_pages"]:
            out.append(f"{rep['heap']['dirty_pages']} pages left dirty")
        return out
    return check


def check_percpu_per_node(fw, name="trace buffers"):
    """Per-CPU memory near its CPUs (issue 28 section 6), on a report=full
    boot: every CPU is traced (trace_cpus), no "no free RAM" warning, and
    each node with CPUs has exactly one @name reservation, inside its own
    RAM (the nodes of @fw all have room for their CPUs' share)."""
    def check(rep, log):
        out = []
        if "no free RAM" in log:
            out.append("a per-CPU allocation found no free RAM: " +
                       next(line for line in log.splitlines()
                            if "no free RAM" in line))
        if rep.get("trace_cpus") != len(fw.cpus):
            out.append(f"trace_cpus {rep.get('trace_cpus')}, expected "
                       f"every one of the {len(fw.cpus)} CPUs")
        kept = [(s, e) for s, e, n in rep["memmap"]["reserved"] if n == name]
        for node, cpus in fw.node_cpus().items():
            if not cpus:
                continue
            ram = [(s, e) for s, e, n in fw.ram if n == node]
            mine = [k for k in kept
                    if any(s <= k[0] and k[1] <= e for s, e in ram)]
            if len(mine) != 1:
                out.append(f"node {node}: {len(mine)} {name!r} "
                           "reservations in its RAM, expected 1")
        if len(kept) != len(fw.node_cpus()):
            out.append(f"{len(kept)} {name!r} reservations for "
                       f"{len(fw.node_cpus())} nodes with CPUs")
        return out
    return check
