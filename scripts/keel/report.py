# SPDX-License-Identifier: MIT
"""Parse and check a keel boot log (DESIGN section 7).

A keel boot prints human lines, exactly one line "KEEL-REPORT {json}" and a
verdict line "KEEL: PASS" or "KEEL: FAIL <reason>". This module finds the
JSON (expanding its compact tables back into lists of objects, so callers
never see the difference: find_report()), checks that it has every
required key with the right type, that the page audit balances, that the
numbers agree with each other (report_bytes is the length of the JSON
text), and that they match what the caller expected from the machine it
booted.

Library use (the QEMU and sandbox tests do this):

    from keel import report        # scripts; the tests: scripts.keel
    failures = report.check_report(log_text, {"cpus": 4, "nodes": 2})
    # [] when everything holds, else one human-readable string per problem

Command line (scripts/report.py runs main()):

    report.py LOG [--expect-cpus N] [--expect-online N] [--expect-nodes N]
              [--expect-node-mem 0:512M,1:512M] [--mem-tolerance BYTES]
              [--expect-distance "10,20;20,10"] [--expect-ram BYTES]
              [--ram-tolerance BYTES] [--expect-cmdline STR]
              [--expect-boot PROTO] [--expect-scrubbed] [--expect-fail]
              [--max-report-bytes SIZE] [--json]

Exit status 0 and one "report.py: OK (...)" line when every check holds,
else one line per failed check and exit status 1 (2 for usage errors).
"""

import argparse
import json
import re
import sys

from . import schema
from .report_guests import check_guests
# The compact tables, and the report's size without the digits of timings.
from .report_shape import (SHAPE_NS, SHAPE_RATE, SHAPE_TICKS, is_table,
                           shape_bytes)

PAGE_SIZE = 4096

# common/boot.c boot_verdict(): domain= asked, no bootmem for the set.
NO_DOMAIN_SET = "domains: no room for the domain set"

BOOT_PROTOCOLS = ("multiboot1", "multiboot2", "dt", "efi", "sandbox")

# heap.mode: how the heap took over the free memory (heap_init=).
HEAP_MODES = ("lazy", "chunked", "pagewise")

# smp.start: how the secondary CPUs were started (smp_start=).
SMP_START_MODES = ("parallel", "serial")

_SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


class ReportError(Exception):
    """The log holds no usable report (none, several, or bad JSON)."""


def parse_size(text):
    """'512M' -> 536870912; decimal or 0x-hex with an optional K/M/G/T."""
    t = text.strip()
    mult = _SUFFIX.get(t[-1:].upper(), 1)
    return int(t[:-1] if mult > 1 else t, 0) * mult


def expand_tables(value, path=""):
    """Turn every compact table inside @value into a list of dicts, one per
    row, keyed by the column names (docs/report-format.md, "Tables"), so
    that callers see the same shape whether keel printed tables or lists of
    objects. Raises ReportError on a row whose length differs from the
    number of columns.
    """
    if is_table(value):
        cols = value["columns"]
        out = []
        for i, row in enumerate(value["rows"]):
            if not isinstance(row, list) or len(row) != len(cols):
                raise ReportError(f"{path}.rows[{i}]: expected a list of "
                                  f"{len(cols)} values ({', '.join(map(str, cols))})")
            out.append({c: expand_tables(v, f"{path}[{i}].{c}")
                        for c, v in zip(cols, row)})
        return out
    if isinstance(value, dict):
        return {k: expand_tables(v, f"{path}.{k}" if path else k)
                for k, v in value.items()}
    if isinstance(value, list):
        return [expand_tables(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def report_text(log_text):
    """The JSON text of the single KEEL-REPORT line of @log_text, as printed.

    Raises ReportError when there is none or more than one.
    """
    lines = [ln for ln in log_text.splitlines() if "KEEL-REPORT " in ln]
    if not lines:
        raise ReportError("no KEEL-REPORT line in the log")
    if len(lines) > 1:
        raise ReportError(f"{len(lines)} KEEL-REPORT lines in the log "
                          "(expected exactly one)")
    return lines[0].split("KEEL-REPORT ", 1)[1].rstrip("\r\n")


def find_report(log_text, raw=False):
    """Return the parsed JSON of the single KEEL-REPORT line of @log_text.

    Compact tables are expanded into lists of objects (expand_tables())
    unless @raw. Raises ReportError when there is none, more than one, or
    bad JSON.
    """
    text = report_text(log_text).strip()
    try:
        rep = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"KEEL-REPORT is not valid JSON: {e}") from e
    if not isinstance(rep, dict):
        raise ReportError("KEEL-REPORT is not a JSON object")
    return rep if raw else expand_tables(rep)


def find_verdict(log_text):
    """('PASS', None), ('FAIL', reason) or (None, None) when no verdict."""
    for ln in log_text.splitlines():
        m = re.search(r"KEEL: (PASS|FAIL)\b ?(.*)", ln)
        if m:
            return m.group(1), (m.group(2).strip() or None)
    return None, None


def _parse_distance(text):
    return [[int(v) for v in row.split(",")] for row in text.split(";")]


def _report_size(rep, log_text, out):
    """report_bytes, when printed, is the length of the JSON text."""
    if "report_bytes" not in rep or "KEEL-REPORT " not in (log_text or ""):
        return
    try:
        got = len(report_text(log_text).encode("utf-8"))
    except ReportError:
        return
    if rep["report_bytes"] != got:
        out.append(f"report_bytes {rep['report_bytes']} != length of the "
                   f"KEEL-REPORT JSON {got}")


def _consistency(rep, out):
    """Checks that hold on every boot, whatever the machine."""
    if rep.get("schema") != 1:
        out.append(f"schema is {rep.get('schema')!r}, expected 1")
    if rep.get("boot") not in BOOT_PROTOCOLS:
        out.append(f"boot is {rep.get('boot')!r}, not one of "
                   f"{', '.join(BOOT_PROTOCOLS)}")
    if rep.get("arch") == "arm64" and "el" not in rep:
        out.append("missing key el (arm64)")
    # keel may refuse a stress= value (stress=1x): it then warns and runs
    # no stress, so only a warning-free report must have the object.
    if re.search(r"(^|\s)stress=[1-9]", rep.get("cmdline", "")) and \
            "stress" not in rep and rep.get("warnings") == 0:
        out.append("missing key stress (stress=N, no warning)")
    # After a live update the domains came with the handover (kept
    # reserved, not built again); a refused handover builds nothing; a
    # boot with no room for the domain set builds none, and fails so.
    lu_state = (rep.get("liveupdate") or {}).get("state")
    if re.search(r"(^|\s)domain=", rep.get("cmdline", "")) and \
            "domains" not in rep and lu_state not in ("taken", "refused") \
            and rep.get("fail_reason") != NO_DOMAIN_SET:
        out.append("missing key domains (domain=)")
    _stopped(rep.get("scrub"), out)
    _liveupdate(rep, out)
    _latency(rep, out)
    _smp_consistency(rep, out)


def _liveupdate(rep, out):
    """liveupdate: the state agrees with the generation, the phases add
    up to the downtime, a refused handover stopped the boot before the
    heap (docs/liveupdate.md)."""
    lu = rep.get("liveupdate")
    if not isinstance(lu, dict):
        return
    state, gen = lu.get("state"), lu.get("generation")
    if (state == "taken") != (isinstance(gen, int) and gen > 0):
        out.append(f"liveupdate.generation {gen} with state {state!r}")
    if state == "taken" and lu.get("from_build") is None:
        out.append("liveupdate.from_build is null after a handover")
    phases = dict(lu.get("phases") or {})
    phases.pop("verify", None)  # after the downtime
    down = lu.get("downtime_ns")
    # Each phase is converted to ns on its own: a few ns of rounding.
    if isinstance(down, int) and abs(sum(phases.values()) - down) > 8:
        out.append(f"liveupdate.phases add up to {sum(phases.values())} "
                   f"ns, downtime_ns is {down}")
    _restored(rep, lu, out)
    _freeze_bound(rep, lu, out)
    resumed = lu.get("guests_resumed", 0)
    if resumed and resumed > len(rep.get("guests") or []) and \
            not (rep.get("guests_info") or {}).get("rows_left_out"):
        out.append(f"liveupdate.guests_resumed {resumed} but "
                   f"{len(rep.get('guests') or [])} guests rows")
    if resumed and isinstance(down, int) and \
            lu.get("guests_stop_ns", 0) > down:
        out.append(f"liveupdate.guests_stop_ns {lu['guests_stop_ns']} "
                   f"above downtime_ns {down}")
    if lu.get("mismatches", 0) > lu.get("verified_words", 0):
        out.append("liveupdate.mismatches exceed verified_words")
    if state != "refused":
        return
    if not str(rep.get("fail_reason") or "").startswith("handover:"):
        out.append(f"refused handover but fail_reason "
                   f"{rep.get('fail_reason')!r}")
    if (rep.get("scrub") or {}).get("bytes") or \
            (rep.get("heap") or {}).get("total_pages"):
        out.append("refused handover but memory was scrubbed or handed "
                   "to the heap")


# lu_freeze_ms= (docs/cmdline.md): its range.
FREEZE_MS_MIN, FREEZE_MS_MAX = 10, 60000


def _freeze_bound(rep, lu, out):
    """liveupdate.freeze_bound_ms in range, and the last lu_freeze_ms=
    word of the command line when it is a decimal number (clamped into
    the range, as keel does; a malformed word, or one past 32 bits, keeps
    what came before)."""
    if "freeze_bound_ms" not in lu:
        return
    got = lu["freeze_bound_ms"]
    if not FREEZE_MS_MIN <= got <= FREEZE_MS_MAX:
        out.append(f"liveupdate.freeze_bound_ms {got} not in "
                   f"[{FREEZE_MS_MIN}, {FREEZE_MS_MAX}]")
    words = re.findall(r"(?:^|\s)lu_freeze_ms=(\S*)", rep.get("cmdline", ""))
    if not words or not words[-1].isdigit() or \
            int(words[-1]) > 0xffffffff:
        return
    want = min(max(int(words[-1]), FREEZE_MS_MIN), FREEZE_MS_MAX)
    if got != want:
        out.append(f"liveupdate.freeze_bound_ms {got}, the command line "
                   f"asks lu_freeze_ms={words[-1]} ({want})")


def _restored(rep, lu, out):
    """domains_restored + domains_failed are the handover's domains, each
    a `domains` row of origin handover (when the rows are all there)."""
    if "domains_restored" not in lu:
        return
    ok, bad = lu["domains_restored"], lu.get("domains_failed", 0)
    want = lu.get("domains", 0) if lu.get("state") == "taken" else 0
    if ok + bad != want:
        out.append(f"liveupdate.domains_restored {ok} + domains_failed "
                   f"{bad}, the handover held {want}")
    rows = rep.get("domains")
    if not isinstance(rows, list) or not want:
        return
    handed = [d for d in rows if isinstance(d, dict) and
              d.get("origin") == "handover"]
    if len(handed) != len(rows):
        out.append(f"{len(rows) - len(handed)} domains rows not of origin "
                   "handover after a handover")
    failed = sum(1 for d in handed if d.get("fail_reason"))
    if len(rows) == want and failed != bad:
        out.append(f"{failed} handover rows failed, domains_failed {bad}")


def _stopped(scrub, out):
    """scrub.stopped_cpu is the lowest of scrub.stopped_cpus, or null."""
    if not isinstance(scrub, dict) or "stopped_cpus" not in scrub:
        return
    cpus = scrub["stopped_cpus"]
    want = min(cpus) if cpus else None
    if cpus != sorted(set(cpus)):
        out.append(f"scrub.stopped_cpus {cpus} is not ascending")
    if scrub.get("stopped_cpu") != want:
        out.append(f"scrub.stopped_cpu {scrub.get('stopped_cpu')} is not "
                   f"the lowest of scrub.stopped_cpus {cpus}")


LATENCY_PHASES = ["idle", "build-remote", "build-remote", "build-local",
                  "build-local"]
LATENCY_MIN_SAMPLES = 1000


def _latency(rep, out):
    """latency=on: the object is there and every phase that ran is whole
    (the phases in order, each with its samples and an interrupts-off site
    when it built anything); without it, no probe interrupt was taken."""
    on = re.search(r"(^|\s)latency=(on|yes|1|true)(\s|$)",
                   rep.get("cmdline", ""))
    counts = dict(rep.get("irq", {}).get("count", []))
    if not on:
        if counts:
            out.append(f"irq.count {counts}: timer interrupts without "
                       "latency=on")
        return
    lat = rep.get("latency")
    if lat is None:
        out.append("missing key latency (latency=on)")
        return
    if lat.get("unsupported"):
        return
    phases = lat.get("phases", [])
    names = [p["phase"] for p in phases]
    if names != LATENCY_PHASES[:len(names)] and \
            names != [n for n in LATENCY_PHASES if n != "build-remote"]:
        out.append(f"latency.phases {names}: not the phases in order")
    for p in phases:
        if p["samples"] < LATENCY_MIN_SAMPLES:
            out.append(f"latency phase {p['phase']} ({p['cachemaint']}): "
                       f"{p['samples']} samples < {LATENCY_MIN_SAMPLES}")
        if p["phase"] != "idle" and not p["irqsoff_site"]:
            out.append(f"latency phase {p['phase']} ({p['cachemaint']}): "
                       "no interrupts-off region named")
    hist = lat.get("hist")  # null in the compact report (report=full)
    if hist is not None and len(hist) != len(phases):
        out.append("latency.hist: not one histogram per phase")
    for p, h in zip(phases, hist or []):
        if sum(c for _, c in h) != p["samples"]:
            out.append(f"latency phase {p['phase']}: histogram holds "
                       f"{sum(c for _, c in h)} samples, not {p['samples']}")
    if counts.get(lat["probe_cpu"], 0) < sum(p["samples"] for p in phases):
        out.append("irq.count of the probe CPU is below its samples")


def _smp_consistency(rep, out):
    """Every CPU took its own per-CPU data: the hardware id it read at
    check-in is the firmware's id of its row."""
    smp = rep.get("smp")
    if not isinstance(smp, dict):
        return
    if smp.get("start") not in SMP_START_MODES:
        out.append(f"smp.start is {smp.get('start')!r}, not one of "
                   f"{', '.join(SMP_START_MODES)}")
    if smp.get("hwid_mismatches"):
        out.append(f"smp.hwid_mismatches {smp['hwid_mismatches']}: CPUs "
                   "took another CPU's per-CPU data")
    irq, online = rep.get("irq"), rep.get("online_cpus")
    if isinstance(irq, dict) and irq.get("on_cpus", online) != online:
        out.append(f"irq.on_cpus {irq.get('on_cpus')} != online_cpus "
                   f"{online}: CPUs ran with interrupts masked")
    cpus = rep.get("cpus")
    for c in cpus if isinstance(cpus, list) else []:
        seen = c.get("hwid_seen") if isinstance(c, dict) else None
        if seen is not None and seen != c.get("hwid"):
            out.append(f"cpu {c.get('id')}: hwid_seen {seen} != hwid "
                       f"{c.get('hwid')}")


# ce_offline= (docs/cmdline.md): its default and its clamp.
CE_OFFLINE_DEFAULT, CE_OFFLINE_MAX = 16, 10000


def _corrected(rep, bad, out):
    """bad_memory's corrected errors: offlined <= pages <= errors, the
    pages offlined for them are mce pages, and each had ce_offline= of
    them (the last word of the command line when decimal, clamped as keel
    does; none offlined with ce_offline=0)."""
    if not isinstance(bad, dict) or "corrected_errors" not in bad:
        return
    errs, pages = bad["corrected_errors"], bad.get("corrected_pages", 0)
    off = bad.get("corrected_offlined", 0)
    if not off <= pages <= errs:
        out.append(f"bad_memory.corrected_offlined {off} <= corrected_pages "
                   f"{pages} <= corrected_errors {errs} does not hold")
    mce = (bad.get("by_source") or {}).get("mce")
    if mce is not None and off > mce:
        out.append(f"bad_memory.corrected_offlined {off} > by_source.mce "
                   f"{mce}")
    words = re.findall(r"(?:^|\s)ce_offline=(\S*)", rep.get("cmdline", ""))
    if words and (not words[-1].isdigit() or int(words[-1]) > 0xffffffff):
        return  # hex, or malformed (an earlier word kept): not checked
    limit = min(int(words[-1]), CE_OFFLINE_MAX) if words else \
        CE_OFFLINE_DEFAULT
    if limit == 0 and off:
        out.append(f"bad_memory.corrected_offlined {off} with ce_offline=0, "
                   "which takes no page out")
    elif errs < limit * off:
        out.append(f"bad_memory.corrected_errors {errs}, corrected_offlined "
                   f"{off}: ce_offline={limit} needs {limit} errors a page")


def _classes_add_up(rep, out):
    """free + allocated + reserved + bad = RAM pages (bad pages are a
    class of their own, issue 38), and bad_memory agrees with the audit
    (less the pages still held by a block)."""
    bad, audit = rep.get("bad_memory"), rep["audit"]
    accounted = (audit["free_pages"] + audit["allocated_pages"] +
                 audit["reserved_pages"] + audit.get("bad_pages", 0) +
                 audit.get("refused_pages", 0))
    if accounted != audit["ram_pages"]:
        out.append(f"audit: free {audit['free_pages']} + allocated "
                   f"{audit['allocated_pages']} + reserved "
                   f"{audit['reserved_pages']} + bad "
                   f"{audit.get('bad_pages', 0)} + refused "
                   f"{audit.get('refused_pages', 0)} = {accounted} != "
                   f"ram_pages {audit['ram_pages']}")
    # A page still held by a block or a domain's extent is that block's
    # (allocated) until freed: bad_memory counts it, the audit's class not.
    if bad is not None and \
            bad["pages"] - bad.get("held_pages", 0) != audit.get("bad_pages"):
        out.append(f"bad_memory.pages {bad['pages']} - held_pages "
                   f"{bad.get('held_pages', 0)} != audit.bad_pages "
                   f"{audit.get('bad_pages')}")
    _corrected(rep, bad, out)


def _balance(rep, out):
    """The books must balance on every passing boot."""
    audit = rep["audit"]
    heap = rep["heap"]
    if audit["lost_pages"] != 0:
        out.append(f"audit.lost_pages = {audit['lost_pages']} (must be 0)")
    if not audit["ok"]:
        out.append("audit.ok is false")
    _classes_add_up(rep, out)
    if heap["free_pages"] != audit["free_pages"]:
        out.append(f"heap.free_pages {heap['free_pages']} != "
                   f"audit.free_pages {audit['free_pages']} (walked)")
    node_mem = sum(n["mem_bytes"] for n in rep["nodes"])
    if node_mem != rep["memmap"]["ram_bytes"]:
        out.append(f"sum of nodes[].mem_bytes {node_mem} != "
                   f"memmap.ram_bytes {rep['memmap']['ram_bytes']}")
    per_node_free = sum(p["free_pages"] for p in heap["per_node"])
    if per_node_free != heap["free_pages"]:
        out.append(f"sum of heap.per_node[].free_pages {per_node_free} != "
                   f"heap.free_pages {heap['free_pages']}")
    ids = [c["id"] for c in rep["cpus"]]
    if len(set(ids)) != len(ids):
        out.append(f"duplicate cpu ids {ids}")
    if rep["result"] not in ("pass", "fail"):
        out.append(f"result is {rep['result']!r}")
    _domains(rep, out)

    scrub = rep["scrub"]
    if scrub["all_clean_ns"] and scrub["heap_ready_ns"] > scrub["all_clean_ns"]:
        out.append(f"scrub.heap_ready_ns {scrub['heap_ready_ns']} after "
                   f"all_clean_ns {scrub['all_clean_ns']}")
    cal = [c.get("primitive") for c in scrub.get("calibration") or []]
    if cal and scrub.get("primitive") not in cal:
        out.append(f"scrub.primitive {scrub.get('primitive')!r} is not in "
                   f"scrub.calibration {cal}")
    held = domains_held_bytes(rep)
    if scrub["mode"] == "on" and held:
        # Domains took memory after the scrub: only the total must match.
        free = sum(p["free_pages"] for p in heap["per_node"]) * PAGE_SIZE
        done = sum(p["bytes"] for p in scrub["per_node"])
        if done != free + held and not \
                (domains_rescrubbed(rep) and done > free + held):
            out.append(f"scrub bytes {done} != free bytes {free} + bytes "
                       f"the domains hold {held}")
    elif scrub["mode"] == "on":
        free = {p["node"]: p["free_pages"] * PAGE_SIZE
                for p in heap["per_node"]}
        # domains_destroy=on scrubs the destroyed domains again.
        again = domains_rescrubbed(rep)
        for p in scrub["per_node"]:
            want = free.get(p["node"], 0)
            if p["bytes"] != want and not (again and p["bytes"] > want):
                out.append(f"scrub.per_node[{p['node']}].bytes {p['bytes']} "
                           f"!= node {p['node']} free bytes {want}")


EXTENT_BYTES = {"extents_1g": 1 << 30, "extents_2m": 2 << 20,
                "extents_4k": PAGE_SIZE}


def _domain_row(d, out):
    """One row of the domains table: its sizes must add up."""
    name = f"domains[{d['id']}] {d['name']!r}"
    if d["bytes"] % PAGE_SIZE:
        out.append(f"{name}: bytes {d['bytes']} not a multiple of 4 KiB")
    if d.get("origin") == "static" and d["zero_ns"]:  # the user's data
        out.append(f"{name}: static but zeroed ({d['zero_ns']} ns)")
    built = sum(d[k] * v for k, v in EXTENT_BYTES.items())
    if d["fail_reason"] is None:
        if built != d["bytes"]:
            out.append(f"{name}: extents add up to {built} bytes, not "
                       f"{d['bytes']}")
        if d["remote_bytes"] > d["bytes"]:
            out.append(f"{name}: remote_bytes {d['remote_bytes']} > bytes")
        leaves = sum(d[k] for k in EXTENT_BYTES)
        if d["bytes"] and not 1 <= d["heap_extents"] <= leaves:
            out.append(f"{name}: {d['heap_extents']} heap extents for "
                       f"{leaves} leaves")
        if d["cpus"] < 1 or d["table_pages"] < 1:
            out.append(f"{name}: built by {d['cpus']} CPUs with "
                       f"{d['table_pages']} table pages")
    elif built:
        out.append(f"{name}: failed ({d['fail_reason']}) but reports "
                   f"{built} bytes of extents")


def _domains(rep, out):
    """Domains: rows add up, no check problem, destroy gave all back."""
    if "domains" not in rep:
        return
    for d in rep["domains"]:
        _domain_row(d, out)
    info = rep["domains_info"]
    if info["problems"]:
        out.append(f"domains_info.problems = {info['problems']}")
    before, after = info["before"], info["after"]
    if after is not None and before is not None:
        if after["free_pages"] != before["free_pages"]:
            out.append(f"after destroy {after['free_pages']} free pages, "
                       f"{before['free_pages']} before the build")
        if after["free_chunks"] > before["free_chunks"]:
            out.append(f"after destroy {after['free_chunks']} free chunks, "
                       f"more than the {before['free_chunks']} before")


def domains_rescrubbed(rep):
    """Did memory the domains phase gave back get scrubbed a second time
    (domains_destroy=on, or the bench=on builds): scrub bytes then exceed
    the free bytes."""
    if "domains" not in rep:
        return False
    info = rep["domains_info"]
    return info["after"] is not None or info.get("bench") is not None


def domains_held_bytes(rep):
    """Bytes domains still hold that the heap had (extents and tables, not
    static memory) at report time, from domains_info's summary (the
    compact report leaves rows out). Domains restored from a handover
    hold nothing the heap had: their memory was preserved, never free."""
    if "domains" not in rep or rep["domains_info"]["after"] is not None:
        return 0
    if (rep.get("liveupdate") or {}).get("state") == "taken":
        return 0
    info = rep["domains_info"]
    return (info["built_bytes"] - info.get("static_bytes", 0)
            + info["table_pages"] * PAGE_SIZE)


def _expectations(rep, log_text, exp, out):
    """The report against what the caller expected (@exp: expectations)."""
    _expect_machine(rep, exp, out)
    if exp.get("max_report_bytes") is not None and "KEEL-REPORT " in log_text:
        size = len(report_text(log_text).encode("utf-8"))
        if size > exp["max_report_bytes"]:
            out.append(f"KEEL-REPORT JSON is {size} bytes, more than "
                       f"{exp['max_report_bytes']}")
    if exp.get("boot") is not None and rep["boot"] != exp["boot"]:
        out.append(f"boot is {rep['boot']!r}, expected {exp['boot']!r}")
    if exp.get("scrubbed"):
        _expect_scrubbed(rep, out)
    _expect_verdict(rep, log_text, exp, out)


def _expect_machine(rep, exp, out):
    """CPUs, nodes, RAM, distances and the command line."""
    cpus = rep["cpus"]
    nodes = rep["nodes"]
    if exp.get("cpus") is not None and len(cpus) != exp["cpus"]:
        out.append(f"{len(cpus)} CPUs reported, expected {exp['cpus']}")
    if exp.get("online") is not None:
        online = sum(1 for c in cpus if c["online"])
        if online != exp["online"]:
            out.append(f"{online} CPUs online, expected {exp['online']}")
    if exp.get("nodes") is not None and len(nodes) != exp["nodes"]:
        out.append(f"{len(nodes)} nodes reported, expected {exp['nodes']}")
    tol = exp.get("mem_tolerance", 0)
    for node, want in sorted((exp.get("node_mem") or {}).items()):
        got = next((n["mem_bytes"] for n in nodes if n["id"] == node), None)
        if got is None:
            out.append(f"node {node} missing, expected {want} bytes")
        elif abs(got - want) > tol:
            out.append(f"node {node} has {got} bytes of RAM, expected "
                       f"{want} (tolerance {tol})")
    if exp.get("distance") is not None:
        got = [n["distance"] for n in sorted(nodes, key=lambda n: n["id"])]
        if got != exp["distance"]:
            out.append(f"distance matrix {got}, expected {exp['distance']}")
    if exp.get("ram") is not None:
        got = rep["memmap"]["ram_bytes"]
        rtol = exp.get("ram_tolerance", 0)
        if abs(got - exp["ram"]) > rtol:
            out.append(f"memmap.ram_bytes {got}, expected {exp['ram']} "
                       f"(tolerance {rtol})")
    if exp.get("cmdline") is not None and exp["cmdline"] not in rep["cmdline"]:
        out.append(f"cmdline {rep['cmdline']!r} does not contain "
                   f"{exp['cmdline']!r}")


def _expect_scrubbed(rep, out):
    """Every free byte scrubbed (expected: scrubbed)."""
    scrub = rep["scrub"]
    free_bytes = (rep["heap"]["free_pages"] * PAGE_SIZE +
                  domains_held_bytes(rep))
    if scrub["mode"] not in ("on", "idle"):
        out.append(f"scrub.mode is {scrub['mode']!r}, expected a scrub")
    if rep["heap"].get("dirty_pages", 0) != 0:
        out.append(f"heap.dirty_pages = {rep['heap']['dirty_pages']} "
                   "after the scrub")
    again = domains_rescrubbed(rep)
    if scrub["mode"] == "on" and scrub["bytes"] != free_bytes and \
            not (again and scrub["bytes"] > free_bytes):
        out.append(f"scrub.bytes {scrub['bytes']} != free bytes "
                   f"{free_bytes}")
    if scrub["mode"] == "idle" and not scrub["all_clean_ns"]:
        out.append("scrub.all_clean_ns is 0 in idle mode")


def _expect_verdict(rep, log_text, exp, out):
    """KEEL: PASS, or KEEL: FAIL when the caller expects a failure."""
    verdict, reason = find_verdict(log_text)
    if exp.get("fail"):
        if verdict != "FAIL" or rep["result"] != "fail":
            out.append(f"expected KEEL: FAIL, got {verdict} "
                       f"(result {rep['result']!r})")
    else:
        if verdict != "PASS":
            out.append(f"verdict is {verdict or 'missing'}"
                       f"{': ' + reason if reason else ''}, expected PASS")
        if rep["result"] != "pass":
            out.append(f"result is {rep['result']!r}, expected 'pass'")


def check_parsed(rep, log_text="", expectations=None):
    """Check an already parsed report. Return: list of failure strings."""
    out = []
    out += schema.check(rep)
    _consistency(rep, out)
    _report_size(rep, log_text, out)
    if out:
        return out  # the rest reads keys that may be missing
    check_guests(rep, out)
    expectations = expectations or {}
    if not expectations.get("fail"):
        _balance(rep, out)
    _expectations(rep, log_text, expectations, out)
    return out


def check_report(log_text, expectations=None):
    """Check the log of one keel boot.

    @expectations: dict with any of cpus, online, nodes, node_mem
    ({node: bytes}), mem_tolerance, distance ([[...], ...]), ram,
    ram_tolerance, cmdline, boot, scrubbed (bool), fail (bool),
    max_report_bytes (the JSON text of the KEEL-REPORT line at most).
    Return: a list of failure strings, empty when everything holds.
    """
    try:
        rep = find_report(log_text)
    except ReportError as e:
        return [str(e)]
    return check_parsed(rep, log_text, expectations)


def check_audit_log(rep, log_text):
    """The audit as the serial log shows it: heap_check found nothing; with
    audit=full after a scrub, the free-page zero sampling (debug builds)
    ran and found only zeros; without audit=full it did not run. Returns a
    list of problems."""
    out = []
    if rep["audit"].get("problems", 0) != 0:
        out.append(f"audit.problems = {rep['audit']['problems']}")
    if "audit=full" not in rep["cmdline"].split():
        if "sampled for zero" in log_text:
            out.append("zero sampling ran without audit=full")
        return out
    if rep["scrub"]["mode"] == "off" or rep["heap"]["free_pages"] == 0:
        return out
    m = re.search(r"audit: (\d+) free chunks sampled for zero, (\d+) not "
                  r"zero", log_text)
    if not m:
        out.append("audit=full: no zero-sampling line in the log")
    elif int(m.group(1)) == 0 or int(m.group(2)) != 0:
        out.append(f"audit=full: {m.group(0)!r}")
    return out


def summary(rep):
    """One-line description of a report for OK lines."""
    online = sum(1 for c in rep.get("cpus", []) if c.get("online"))
    heap = rep.get("heap", {})
    return (f"{rep.get('arch')}/{rep.get('boot')}, "
            f"{len(rep.get('nodes', []))} nodes, {online}/"
            f"{len(rep.get('cpus', []))} CPUs, "
            f"{rep.get('memmap', {}).get('ram_bytes', 0) >> 20} MiB RAM, "
            f"{heap.get('free_pages', 0)} pages free in "
            f"{heap.get('chunks', 0)} chunks, heap {heap.get('mode')} "
            f"{heap.get('init_ns', 0) / 1000:.1f} us, scrub "
            f"{rep.get('scrub', {}).get('mode')}, "
            f"audit lost {rep.get('audit', {}).get('lost_pages')}")


def expectations_from_args(args):
    exp = {"cpus": args.expect_cpus, "online": args.expect_online,
           "nodes": args.expect_nodes, "mem_tolerance": args.mem_tolerance,
           "ram": args.expect_ram, "ram_tolerance": args.ram_tolerance,
           "cmdline": args.expect_cmdline, "boot": args.expect_boot,
           "scrubbed": args.expect_scrubbed, "fail": args.expect_fail,
           "max_report_bytes": args.max_report_bytes}
    if args.expect_node_mem:
        exp["node_mem"] = {}
        for item in args.expect_node_mem.split(","):
            node, size = item.split(":", 1)
            exp["node_mem"][int(node)] = parse_size(size)
    if args.expect_distance:
        exp["distance"] = _parse_distance(args.expect_distance)
    return exp


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", help="serial log of one boot ('-' for stdin)")
    ap.add_argument("--expect-cpus", type=int)
    ap.add_argument("--expect-online", type=int)
    ap.add_argument("--expect-nodes", type=int)
    ap.add_argument("--expect-node-mem", metavar="N:SIZE,...")
    ap.add_argument("--mem-tolerance", type=parse_size, default=0)
    ap.add_argument("--expect-distance", metavar="'10,20;20,10'")
    ap.add_argument("--expect-ram", type=parse_size)
    ap.add_argument("--ram-tolerance", type=parse_size, default=0)
    ap.add_argument("--expect-cmdline")
    ap.add_argument("--expect-boot", choices=BOOT_PROTOCOLS)
    ap.add_argument("--expect-scrubbed", action="store_true")
    ap.add_argument("--expect-fail", action="store_true")
    ap.add_argument("--max-report-bytes", type=parse_size,
                    help="fail when the KEEL-REPORT JSON is longer")
    ap.add_argument("--json", action="store_true",
                    help="dump the parsed JSON to stdout")
    args = ap.parse_args(argv)
    try:
        exp = expectations_from_args(args)
    except ValueError as e:
        ap.error(f"bad expectation: {e}")

    if args.log == "-":
        text = sys.stdin.read()
    else:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            text = f.read()

    try:
        rep = find_report(text)
    except ReportError as e:
        print(f"report.py: {e}")
        return 1
    if args.json:
        json.dump(rep, sys.stdout, indent=2)
        print()
    failures = check_parsed(rep, text, exp)
    for f in failures:
        print(f"report.py: FAIL: {f}")
    if failures:
        return 1
    print(f"report.py: OK ({summary(rep)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
