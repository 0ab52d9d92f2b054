# SPDX-License-Identifier: MIT
"""Tests of the scripts and of scripts/keel/ on real sandbox boots.

Usage, from the top directory:
  python3 -m tests.scripts_test [KEEL_BINARY]   (default build/sandbox/keel)

keel.boot runs a boot and reads it: a captured real log gives its report
and no problems, its exit status is compared, a timeout and a log without
a report are clear failures, a crash names its signal, the QEMU commands
it builds are what scripts/qemu.sh and qemu-arm64.sh parse.

Checks report.py's expansion of the compact tables and report_bytes on
hand-written reports. Boots the sandbox on tests/data/sandbox-2node.fw with
trace=full, converts the log with scripts/trace2perfetto.py and checks the Chrome trace-event JSON against
the report of the same boot: every CPU that scrubbed has a named track,
every B has a matching E on its track, the scrub-unit slices of a node add
up to that node's scrub.per_node bytes and each CPU has as many units as
scrub.per_cpu says. A second boot with tiny scrub units overflows the trace
buffers and must still convert; with the default trace=summary it must
not overflow, and each worker gets one summed slice of its bytes.
plot-boot.py must write a PNG and an SVG.
keeltrace.py is also fed hand-written traces in every accepted form, and
the JSON checker is shown a broken trace it must reject. The QEMU wrappers
must answer --help with their usage on stdout and exit status 0. The checker of
scripts/fuzz-maps.py is shown one real boot of a hostile map (it must
pass), then copies of its log with one invariant broken each (a reserved
byte free, a page lost, a panic, a clobbered canary, a wrong node, a crash,
a hang): it must flag every one; its generator must be repeatable.

Prints one line per failed check, then "scripts-test: N passed, M failed";
the exit status is non-zero on failure. Needs /usr/bin/python3 with
matplotlib (Debian's python3-matplotlib).
"""

import json
import os
import re
import subprocess
import sys
import tempfile

from scripts.keel import boot, keeltrace, report, schema
from scripts.keel import fuzzmaps as fuzz_maps
from scripts.keel.bench import fmt_ns
from scripts.keel.boot import TOP

SCRIPTS = os.path.join(TOP, "scripts")

PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
FW = os.path.join(TOP, "tests", "data", "sandbox-2node.fw")
TIMEOUT = int(os.environ.get("SCRIPTS_TEST_TIMEOUT", "300"))

passed = 0
failed = 0


def check(name, failures):
    """Count one check; @failures is a list of strings (empty = pass)."""
    global passed, failed
    if failures:
        failed += 1
        for f in failures:
            print(f"scripts-test: FAIL {name}: {f}")
    else:
        passed += 1


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=TIMEOUT, **kw)


def sandbox_boot(keel, out, *args):
    """Run the sandbox, its log in @out. Return: (rc, log text)."""
    b = boot.sandbox(keel, FW, args, timeout=TIMEOUT, log_path=out)
    return b.status, b.log


# ---- the Chrome trace-event checker ---------------------------------------

def check_chrome(doc, rep, complete=True):
    """Structural checks of a trace2perfetto document against @rep.

    @complete: the trace did not overflow, so byte sums must match.
    Return: list of failure strings.
    """
    out = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"),
                                                   list):
        return ["no traceEvents list"]
    evs = doc["traceEvents"]
    names = {}
    open_by_tid = {}
    units = {}  # tid -> count
    node_bytes = {}
    last_ts = {}
    for i, e in enumerate(evs):
        ph = e.get("ph")
        if ph not in ("B", "E", "X", "i", "I", "C", "M"):
            out.append(f"event {i}: unknown ph {ph!r}")
            continue
        if e.get("pid") != 0:
            out.append(f"event {i}: pid {e.get('pid')!r}, expected 0")
        if ph == "M":
            if e.get("name") == "thread_name":
                names[e.get("tid")] = e.get("args", {}).get("name")
            continue
        ts = e.get("ts")
        if isinstance(ts, bool) or not isinstance(ts, (int, float)):
            out.append(f"event {i}: ts {ts!r} is not a number")
            continue
        if not isinstance(e.get("name"), str):
            out.append(f"event {i}: no name")
        if ph in ("B", "E", "X", "i", "I") and "tid" not in e:
            out.append(f"event {i}: {ph} without tid")
        tid = e.get("tid")
        if ph in ("B", "E"):
            if ts < last_ts.get(tid, 0):
                out.append(f"event {i}: tid {tid} goes back in time")
            last_ts[tid] = ts
        if ph == "B":
            open_by_tid.setdefault(tid, []).append(e)
            if e["name"].startswith("scrub_unit"):
                args = e.get("args") or {}
                if not isinstance(args.get("node"), int) or \
                        not isinstance(args.get("bytes"), int):
                    out.append(f"event {i}: scrub unit without node/bytes")
                    continue
                units[tid] = units.get(tid, 0) + 1
                node_bytes[args["node"]] = node_bytes.get(args["node"], 0) \
                    + args["bytes"]
        elif ph == "E":
            stack = open_by_tid.get(tid) or []
            if not stack:
                out.append(f"event {i}: E {e.get('name')!r} on tid {tid} "
                           "without a B")
            elif stack[-1]["name"] != e.get("name"):
                out.append(f"event {i}: E {e.get('name')!r} closes "
                           f"B {stack[-1]['name']!r} on tid {tid}")
                stack.pop()
            else:
                b = stack.pop()
                if ts < b["ts"]:
                    out.append(f"event {i}: E before its B")
    for tid, stack in open_by_tid.items():
        for b in stack:
            out.append(f"B {b['name']!r} on tid {tid} has no E")
    for tid in set(units) | set(last_ts):
        if tid not in names:
            out.append(f"tid {tid} has events but no thread_name")

    scrub = rep["scrub"]
    for p in scrub["per_cpu"]:
        if not p["bytes"]:
            continue
        if p["cpu"] not in names:
            out.append(f"cpu {p['cpu']} scrubbed {p['bytes']} bytes but "
                       "has no track")
        if not units.get(p["cpu"]):
            out.append(f"cpu {p['cpu']} scrubbed but has no scrub_unit "
                       "slice")
        elif complete and "units" in p and units[p["cpu"]] != p["units"]:
            out.append(f"cpu {p['cpu']}: {units[p['cpu']]} unit slices, "
                       f"report says {p['units']}")
    if complete:
        for p in scrub["per_node"]:
            got = node_bytes.get(p["node"], 0)
            if got != p["bytes"]:
                out.append(f"node {p['node']}: scrub-unit slices add up to "
                           f"{got} bytes, report says {p['bytes']}")
    return out


def perfetto(log, out_json):
    r = run([PYTHON, os.path.join(SCRIPTS, "trace2perfetto.py"), log,
             "-o", out_json])
    if r.returncode:
        return None, r
    with open(out_json, encoding="utf-8") as f:
        return json.load(f), r


def picture_ok(path, kind):
    """Return: failures for a PNG or SVG at @path."""
    if not os.path.exists(path):
        return [f"{path} not written"]
    size = os.path.getsize(path)
    if size < 4096:
        return [f"{path} is only {size} bytes"]
    with open(path, "rb") as f:
        head = f.read(512)
    if kind == "png" and not head.startswith(b"\x89PNG\r\n\x1a\n"):
        return [f"{path} is not a PNG"]
    if kind == "svg" and b"<svg" not in head:
        return [f"{path} is not an SVG"]
    return []


# ---- hand-written traces ----------------------------------------------------

def _rep(trace, **extra):
    rep = {"cpus": [{"id": 0, "node": 0}, {"id": 1, "node": 1}],
           "trace": trace, "report_ns": 1000,
           "scrub": {"per_node": [], "per_cpu": []}}
    rep.update(extra)
    return rep


def synthetic_tests():
    # DESIGN minimum: no kind. Pairs of a name alternate begin/end.
    b = keeltrace.Boot(_rep([
        {"name": "entry", "cpu": 0, "ns": 1},
        {"name": "heap_init", "cpu": 0, "ns": 10},
        {"name": "heap_init", "cpu": 0, "ns": 30},
        {"name": "report", "cpu": 0, "ns": 900}]))
    got = [(s["name"], s["start"], s["end"]) for s in b.slices]
    check("minimal form: pairs become slices",
          [] if got == [("heap_init", 10, 30)] else [f"slices {got}"])
    check("minimal form: odd names are marks",
          [] if [m["name"] for m in b.marks] == ["entry", "report"]
          else [f"marks {b.marks}"])

    # Every spelling of the kinds, nesting, args.
    b = keeltrace.Boot(_rep([
        {"name": "scrub", "cpu": 0, "ns": 100, "kind": "B"},
        {"name": "scrub_unit", "cpu": 1, "ns": 110, "kind": 1,
         "arg0": 1, "arg1": 4096},
        {"name": "scrub_unit", "cpu": 0, "ns": 120, "kind": "begin",
         "arg1": 8192},
        {"name": "scrub_unit", "cpu": 0, "ns": 130, "kind": "end",
         "arg1": 8192},
        {"name": "scrub_unit", "cpu": 1, "ns": 140, "kind": 2,
         "arg0": 1, "arg1": 4096},
        {"name": "scrub", "cpu": 0, "ns": 150, "kind": "E"},
        {"name": "x", "cpu": 0, "ns": 160, "kind": "I"}]))
    units = sorted((u["cpu"], u["arg0"], u["arg1"], u["depth"])
                   for u in b.scrub_units())
    check("kinds: units with node/bytes (arg0 absent = node 0)",
          [] if units == [(0, 0, 8192, 1), (1, 1, 4096, 0)]
          else [f"units {units}"])
    check("kinds: phase depth 0",
          [] if b.phase("scrub")["depth"] == 0 else ["scrub not at depth 0"])

    # A begin whose end was dropped: open, ends at the report.
    b = keeltrace.Boot(_rep([
        {"name": "scrub_unit", "cpu": 1, "ns": 500, "kind": "begin",
         "arg0": 1, "arg1": 4096}], trace_overflow=True,
        scrub={"per_node": [], "per_cpu": [{"cpu": 1, "bytes": 8192,
                                            "ns": 10}]}))
    u = b.scrub_units()
    check("open slice ends at report_ns",
          [] if len(u) == 1 and u[0]["open"] and u[0]["end"] == 1000
          else [f"units {u}"])
    check("overflow bool: the CPU is found from the byte counts",
          [] if b.overflow == {1} and not b.overflow_unknown
          else [f"overflow {b.overflow} unknown {b.overflow_unknown}"])

    for extra, want in (({"trace_overflow": [1]}, {1}),
                        ({"trace_overflow_cpus": [0, 1]}, {0, 1}),
                        ({"trace_overflow": {"0": True, "1": False}}, {0}),
                        ({"cpus": [{"id": 0, "trace_overflow": True}]}, {0}),
                        ({"trace_overflow": False}, set())):
        got, _ = keeltrace.overflowed_cpus(_rep([], **extra))
        check(f"overflow form {extra}",
              [] if got == want else [f"got {got}, want {want}"])

    try:
        keeltrace.Boot(_rep([{"name": "a", "cpu": 0, "ns": 1,
                              "kind": "sideways"}]))
        check("bad kind is rejected", ["accepted"])
    except keeltrace.TraceError:
        check("bad kind is rejected", [])

    # The checker itself must be able to fail.
    rep = {"scrub": {"per_cpu": [{"cpu": 0, "bytes": 4096, "units": 1}],
                     "per_node": [{"node": 0, "bytes": 4096}]}}
    good = {"traceEvents": [
        {"ph": "M", "pid": 0, "tid": 0, "name": "thread_name",
         "args": {"name": "cpu 0"}},
        {"ph": "B", "pid": 0, "tid": 0, "ts": 1, "name": "scrub_unit node 0",
         "args": {"node": 0, "bytes": 4096}},
        {"ph": "E", "pid": 0, "tid": 0, "ts": 2, "name": "scrub_unit node 0"}]}
    check("checker accepts a good trace", check_chrome(good, rep))
    bad = json.loads(json.dumps(good))
    del bad["traceEvents"][2]
    check("checker rejects a B without E",
          [] if check_chrome(bad, rep) else ["not rejected"])
    bad = json.loads(json.dumps(good))
    bad["traceEvents"][1]["args"]["bytes"] = 8192
    check("checker rejects wrong node bytes",
          [] if check_chrome(bad, rep) else ["not rejected"])
    bad = json.loads(json.dumps(good))
    del bad["traceEvents"][0]
    check("checker rejects a track without a name",
          [] if check_chrome(bad, rep) else ["not rejected"])


# ---- the compact report form -------------------------------------------------

def _log(obj):
    text = json.dumps(obj, separators=(",", ":"))
    return f"keel: hello\nKEEL-REPORT {text}\nKEEL: PASS\n"


def compact_tests():
    """report.py expands {columns, rows} tables anywhere in the report into
    the lists of objects older keels printed, and checks report_bytes."""
    compact = {
        "cpus": {"columns": ["id", "hwid", "online", "fail_reason"],
                 "rows": [[0, 0, True, None], [1, 257, False, "timeout"]]},
        "nodes": {"columns": ["id", "ranges", "cpus"],
                  "rows": [[0, [[0, 4096], [8192, 12288]], [0, 1]]]},
        "scrub": {"mode": "on",
                  "per_cpu": {"columns": ["cpu", "bytes", "gbps"],
                              "rows": [[0, 4096, 1.5]]},
                  "per_node": {"columns": ["node", "cpus", "helper_of"],
                               "rows": []}},
        "memmap": {"reserved": [[0, 4096, "bios"]],
                   "columns": ["not", "a", "table"]},
    }
    expanded = {
        "cpus": [{"id": 0, "hwid": 0, "online": True, "fail_reason": None},
                 {"id": 1, "hwid": 257, "online": False,
                  "fail_reason": "timeout"}],
        "nodes": [{"id": 0, "ranges": [[0, 4096], [8192, 12288]],
                   "cpus": [0, 1]}],
        "scrub": {"mode": "on", "per_cpu": [{"cpu": 0, "bytes": 4096,
                                             "gbps": 1.5}],
                  "per_node": []},
        "memmap": {"reserved": [[0, 4096, "bios"]],
                   "columns": ["not", "a", "table"]},
    }
    got = report.find_report(_log(compact))
    check("compact: tables expand to lists of objects",
          [] if got == expanded else [f"got {got}"])
    check("compact: raw=True keeps the tables",
          [] if report.find_report(_log(compact), raw=True) == compact
          else ["raw report changed"])
    check("compact: the old form is left alone",
          [] if report.find_report(_log(expanded)) == expanded
          else ["list form changed"])
    bad = json.loads(json.dumps(compact))
    bad["cpus"]["rows"][1].pop()
    try:
        report.find_report(_log(bad))
        check("compact: a short row is rejected", ["accepted"])
    except report.ReportError as e:
        check("compact: a short row is rejected",
              [] if "cpus.rows[1]" in str(e) else [f"message {e}"])

    # report_bytes: the length of the JSON text, itself included.
    doc = {"schema": 1, "report_bytes": 0}
    for _ in range(3):
        doc["report_bytes"] = len(json.dumps(doc, separators=(",", ":")))
    text = _log(doc)
    out = []
    report._report_size(report.find_report(text), text, out)
    check("report_bytes: the right length passes", out)
    doc["report_bytes"] += 1
    text = _log(doc)
    out = []
    report._report_size(report.find_report(text), text, out)
    check("report_bytes: a wrong length fails",
          [] if out else ["not detected"])
    out = []
    report._expectations(
        {"cpus": [], "nodes": [], "result": "pass"}, text,
        {"max_report_bytes": 10}, out)
    check("max_report_bytes: a longer line fails",
          [] if any("more than 10" in f for f in out) else [f"got {out}"])

    # Summed scrub units become one slice per worker.
    rep = _rep([{"name": "scrub", "cpu": 0, "ns": 100, "kind": "begin"},
                {"name": "scrub", "cpu": 0, "ns": 900, "kind": "end"}],
               trace_summary=[{"name": "scrub_unit", "node": 1, "count": 3,
                               "bytes": 12288, "first_ns": 200,
                               "last_ns": 700, "busy_ns": 400}],
               scrub={"per_node": [{"node": 1, "bytes": 12288}],
                      "per_cpu": [{"cpu": 1, "node": 1, "bytes": 12288,
                                   "ns": 300, "units": 3},
                                  {"cpu": 0, "node": 0, "bytes": 0,
                                   "ns": 0, "units": 0}]})
    b = keeltrace.Boot(rep)
    got = [(u["cpu"], u["arg0"], u["arg1"], u["start"], u["end"],
            u.get("summary")) for u in b.scrub_units()]
    check("summary: one slice per worker that scrubbed",
          [] if got == [(1, 1, 12288, 200, 500, True)] else [f"got {got}"])
    check("summary: the CPU is not taken for an overflow",
          [] if not b.incomplete_cpus() else [f"{b.incomplete_cpus()}"])


# ---- fuzz-maps.py: the checker must fail on bad boots -------------------

# Two nodes, an unaligned reservation inside node 1's RAM, one reservation
# across the end of node 0's RAM and one in the hole above all RAM.
FUZZ_FW = """# cmdline: bootscrub=on
ram       0x0        0x1000000  node=0
ram       0x1000000  0x2000800  node=1
reserved  0x0        0x100000   bios
reserved  0xfff000   0x1001000  edge
reserved  0x1800123  0x1800456  acpi
reserved  0x8000000  0x8001000  hole
cpu 0 node=0
cpu 1 node=1
"""
FUZZ_CFG = {"max_numnodes": 16, "nr_cpus": 64}


def _with_report(log, edit):
    """@log with its KEEL-REPORT JSON passed through @edit(rep)."""
    out = []
    for ln in log.splitlines():
        if ln.startswith("KEEL-REPORT "):
            # Edited in the expanded form (lists of objects), which
            # report.py reads as well as the tables keel prints.
            rep = report.expand_tables(json.loads(ln[len("KEEL-REPORT "):]))
            rep.pop("report_bytes", None)  # the edit changes the length
            edit(rep)
            ln = "KEEL-REPORT " + json.dumps(rep)
        out.append(ln)
    return "\n".join(out) + "\n"


def _free_reserved_byte(rep):
    # Cut the page holding 0x1800123 (firmware "acpi") out of the table.
    regions = []
    for s, e, name in rep["memmap"]["reserved"]:
        if s <= 0x1800000 < e:
            if s < 0x1800000:
                regions.append([s, 0x1800000, name])
            if 0x1801000 < e:
                regions.append([0x1801000, e, name])
        else:
            regions.append([s, e, name])
    rep["memmap"]["reserved"] = regions


def _lose_page(rep):
    rep["audit"]["lost_pages"] = 1
    rep["audit"]["free_pages"] -= 1
    rep["heap"]["free_pages"] -= 1
    rep["heap"]["per_node"][0]["free_pages"] -= 1


def _move_ram(rep):
    for r in rep["memmap"]["ranges"]:
        r[2] = 0


def _flags(name, text, log, rc=0, hung=False, want="", cfg=FUZZ_CFG):
    probs = fuzz_maps.check(text, log, rc, hung, cfg)
    hit = [p for p in probs if want in p]
    check(f"fuzz-maps flags {name}", [] if hit else
          [f"not flagged (problems: {probs})"])


def fuzz_maps_synthetic():
    a = fuzz_maps.generate(7, 3)
    check("fuzz-maps: a case is repeatable",
          [] if a == fuzz_maps.generate(7, 3) else ["two texts for 7/3"])
    check("fuzz-maps: cases differ",
          [] if a != fuzz_maps.generate(7, 4) else ["7/3 == 7/4"])
    o = fuzz_maps.oracle(FUZZ_FW, FUZZ_CFG)
    # 256 bios pages + 1 edge page below 16M and 1 above + 1 acpi page.
    check("fuzz-maps oracle: reserved RAM pages",
          [] if o["canary_pages"] == 259 else [f"{o['canary_pages']}"])
    # No RAM page at all: the only acceptable end is FAIL no usable RAM.
    noram = "ram 0x100 0x200 node=0\ncpu 0\ncpu 1\n"
    panic = ("keel: panic: bootmem: cannot allocate 65536 bytes (align "
             "0x1000) on node 0 for cpu stack\nKEEL: FAIL panic: bootmem: "
             "cannot allocate 65536 bytes\nsandbox: canary: 0 reserved "
             "pages intact, 0 clobbered\n")
    _flags("a panic on a map without RAM", noram, panic, rc=1,
           want="panic:")
    # A map whose free RAM cannot hold a CPU stack may panic, clearly.
    tight = "ram 0 0x10000 node=0\nreserved 0 0xc000\ncpu 0\ncpu 1\n"
    probs = fuzz_maps.check(tight, panic.replace("0 reserved", "12 reserved"),
                            1, False, FUZZ_CFG)
    check("fuzz-maps accepts a clear panic on a tight map",
          [f"{probs}"] if probs else [])


def fuzz_maps_rules():
    """The oracle reads a .fw as boot/fwdesc.c does (issue 20): a NUL is
    part of its line, node ids past 0xfffe and numbers past 2^64 refuse
    their line, RAM past 2^paddr_bits is dropped or clamped; the dead
    CPUs of inject=ap-timeout are known."""
    text = ("# cmdline: bootscrub=on inject=ap-timeout:1 "
            "inject=ap-timeout:9\n"
            "ram 0 16M node=0 # \0\nram 16M 32M\0 node=0\n"
            "reserved 1M 2M a\0b\nram 32M 48M node=0xffff\n"
            "ram 0x3fffff000000 0x400001000000 node=0\n"
            "ram 0x1000000000000 0x1000001000000 node=0\n"
            "reserved 0 0x10000000000000000\ncpu 0\ncpu 1\ncpu 2\n")
    o = fuzz_maps.oracle(text, dict(FUZZ_CFG, paddr_bits=46))
    want = [(0, 16 << 20), (0x3fffff000000, 0x400000000000)]
    check("fuzz-maps oracle: RAM as fwdesc.c reads it",
          [] if o["ram"] == want else [f"{o['ram']}"])
    check("fuzz-maps oracle: a reserved name that is not text",
          [] if o["fw"]["reserved"] == [(1 << 20, 2 << 20, "firmware")]
          else [f"{o['fw']['reserved']}"])
    check("fuzz-maps oracle: dead CPUs",
          [] if o["dead"] == {1} else [f"{o['dead']}"])
    check("fuzz-maps: odd bytes survive a case's text",
          [] if any("odd-bytes" in fuzz_maps.generate(1, i).split("\n")[0]
                    for i in range(200)) else ["no odd-bytes case"])


def fuzz_maps_real(keel, tmp):
    path = os.path.join(tmp, "hostile.fw")
    with open(path, "w") as f:
        f.write(FUZZ_FW)
    log, rc, hung = fuzz_maps.run_map(keel, path, FUZZ_FW, TIMEOUT)
    good = fuzz_maps.check(FUZZ_FW, log, rc, hung, FUZZ_CFG)
    check("fuzz-maps passes a good boot", good)
    if good or "KEEL-REPORT" not in log:
        return
    _flags("a reserved byte that is free", FUZZ_FW,
           _with_report(log, _free_reserved_byte),
           want="firmware-reserved RAM not reserved")
    _flags("lost_pages 1", FUZZ_FW, _with_report(log, _lose_page),
           want="lost_pages")
    _flags("a panic", FUZZ_FW, log.replace(
        "KEEL: PASS", "keel: panic: heap_free: pfn 0x10: double free\n"
        "KEEL: FAIL panic: heap_free: pfn 0x10: double free"), rc=1,
        want="panic:")
    _flags("a clobbered canary", FUZZ_FW,
           re.sub(r"canary: (\d+) reserved pages intact, 0 clobbered",
                  lambda m: f"canary: {int(m.group(1)) - 1} reserved pages "
                  "intact, 1 clobbered", log), rc=1, want="clobbered")
    _flags("RAM on the wrong node", FUZZ_FW, _with_report(log, _move_ram),
           want="on node 0, firmware says 1")
    _flags("a crash", FUZZ_FW, log, rc=-11, want="signal 11")
    _flags("a hang", FUZZ_FW, log.split("KEEL-REPORT")[0], rc=-9,
           hung=True, want="hang")
    _flags("a missing verdict", FUZZ_FW, log.replace("KEEL: PASS", ""),
           want="verdict")


# ---- keel.boot -------------------------------------------------------------

def _fake(tmp, name, body):
    """An executable shell script @name in @tmp that runs @body: a stand-in
    for keel whose ending the test chooses."""
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


def boot_fake_tests(tmp):
    """Endings that are not a pass, on stand-ins (no keel needed)."""
    hang = _fake(tmp, "hang", "echo started; exec sleep 60")
    b = boot.sandbox(hang, FW, timeout=1)
    want = ["timed out after 1 s", "no KEEL-REPORT line in the log"]
    check("boot: a timeout is a clear failure",
          ([] if b.timed_out and b.status is None and b.problems() == want
           and b.elapsed < 30 and "started" in b.log
           else [f"status {b.status}, {b.elapsed:.1f} s, {b.problems()}, "
                 f"log {b.log!r}"]))

    nothing = _fake(tmp, "noreport", "echo 'keel: hello'; echo 'KEEL: PASS'")
    b = boot.sandbox(nothing, FW, timeout=30)
    check("boot: a missing report is a failure",
          [] if (b.status == 0 and b.report is None
                 and b.report_error == "no KEEL-REPORT line in the log"
                 and b.problems() == [b.report_error])
          else [f"report {b.report}, error {b.report_error!r}, "
                f"problems {b.problems()}"])

    crash = _fake(tmp, "crash", "echo 'keel: hello'; kill -SEGV $$")
    b = boot.sandbox(crash, FW, timeout=30)
    check("boot: a crash names its signal",
          [] if b.status_text() == "killed by SIGSEGV" and not b.timed_out
          else [f"status {b.status}: {b.status_text()!r}"])

    # timeout(1)'s 124 from a QEMU script: a timeout, unless the case
    # expects the halt that the timeout ends (x86_64's no-device cases).
    halt = _fake(tmp, "halt", "echo 'keel: halting'; exit 124")
    b = boot.qemu([halt], timeout=5)
    got = (b.timed_out, b.problems(0)[:1], b.problems(124)[:1])
    want = (True, ["timed out after 5 s"], ["no KEEL-REPORT line in the log"])
    check("boot: QEMU status 124 is its timeout",
          [] if got == want else [f"{got} != {want}"])

    # The arguments reach the scripts in the form they parse.
    kernel = _fake(tmp, "kernel", "")
    r = run(boot.x86_64_cmd(["--dry-run", "--kernel", kernel, "--mem",
                             "128M"], "after=exit audit=full", 17,
                            ["-no-reboot"]))
    want = ["timeout", " 17 ", "-m 128", "-append after=exit\\ audit=full",
            "-no-reboot"]
    check("boot: x86_64_cmd as qemu.sh reads it",
          [f"{w!r} not in {r.stdout!r}" for w in want if w not in r.stdout]
          + ([r.stderr] if r.returncode else []))
    r = run(boot.arm64_cmd(kernel, ["--dry-run", "--smp", "2"],
                           "after=poweroff", 17, ["-no-reboot"]))
    want = ["-smp 2", f"-kernel {kernel}", "-append after=poweroff",
            "-no-reboot"]
    check("boot: arm64_cmd as qemu-arm64.sh reads it",
          [f"{w!r} not in {r.stdout!r}" for w in want if w not in r.stdout]
          + ([r.stderr] if r.returncode else []))

    want = {None: "-", 812: "812 ns", 35200: "35.2 us", 4.37e6: "4.37 ms",
            1.25e9: "1.25 s"}
    got = {ns: fmt_ns(ns) for ns in want}
    check("fmt_ns", [] if got == want else [f"{got} != {want}"])


def boot_real_tests(keel, tmp):
    """A real boot captured to a file gives its report and no problems;
    the same log with another exit status is that status's failure."""
    path = os.path.join(tmp, "captured.log")
    b = boot.sandbox(keel, FW, ["bootscrub=on"], timeout=TIMEOUT,
                     log_path=path)
    with open(path, encoding="utf-8", errors="replace") as f:
        saved = f.read()
    with open(FW, encoding="utf-8") as f:
        fw_cpus = sum(1 for ln in f if ln.split()[:1] == ["cpu"])
    out = b.problems(0, {"cpus": fw_cpus, "boot": "sandbox",
                         "cmdline": "bootscrub=on", "scrubbed": True})
    if saved != b.log:
        out.append(f"{path} holds {len(saved)} chars, the log {len(b.log)}")
    if b.report is None:
        out.append(f"no report: {b.report_error}")
    check("boot: a captured sandbox log and its report", out)
    if b.status != 0:
        return
    replay = _fake(tmp, "replay", f"cat '{path}'; exit 3")
    r = boot.sandbox(replay, FW, timeout=30)
    check("boot: another exit status is a failure",
          [] if r.problems(0) == ["exit status 3, expected 0"]
          and r.report == b.report else [str(r.problems(0))])


# ---- real boots -----------------------------------------------------------

def usage_tests():
    """--help is a request, not an error: usage on stdout, status 0."""
    for script, option in (("qemu.sh", "--kernel"),
                           ("qemu-arm64.sh", "--image")):
        for args in (["--help"], ["-h"]):
            r = run([os.path.join(SCRIPTS, script)] + args)
            out = []
            if r.returncode != 0:
                out.append(f"exit status {r.returncode}: {r.stderr.strip()}")
            if option not in r.stdout:
                out.append(f"stdout does not describe {option}")
            check(f"{script} {args[0]}", out)


def real_tests(keel, tmp):
    # trace=full: one slice per scrub unit, checked against the report.
    log = os.path.join(tmp, "2node.log")
    rc, text = sandbox_boot(keel, log, "trace=full")
    check("sandbox boot", [] if rc == 0 else [f"exit status {rc}"])
    try:
        rep = report.find_report(text)
    except report.ReportError as e:
        check("sandbox report", [str(e)])
        return
    check("sandbox report", report.check_parsed(rep, text, {}))

    doc, r = perfetto(log, os.path.join(tmp, "boot.json"))
    if doc is None:
        check("trace2perfetto.py", [f"exit {r.returncode}: {r.stderr}"])
        return
    overflow = rep.get("trace_overflow") not in (None, False, [], {})
    check("trace2perfetto.py: JSON vs report",
          check_chrome(doc, rep, complete=not overflow))
    workers = {p["cpu"] for p in rep["scrub"]["per_cpu"] if p["bytes"]}
    check("a real boot scrubs on several CPUs",
          [] if len(workers) >= 2 else [f"workers {workers}"])
    phases = {e["name"] for e in doc["traceEvents"]
              if e.get("ph") == "B" and e.get("tid") == 0}
    missing = {"bootmem", "smp", "heap_init", "scrub", "audit"} - phases
    check("phases are slices on cpu 0",
          [f"missing {sorted(missing)}"] if missing else [])

    summary_boot(keel, tmp)
    latency_boot(keel, tmp)

    # Tiny units on a small heap overflow the 512-event buffers.
    olog = os.path.join(tmp, "overflow.log")
    rc, text = sandbox_boot(keel, olog, "mem=256M", "bootscrub_chunk=64K",
                            "trace=full")
    orep = report.find_report(text) if rc == 0 else None
    doc, r = perfetto(olog, os.path.join(tmp, "overflow.json"))
    if doc is None or orep is None:
        check("overflowed trace converts", [f"rc {rc}, {r.stderr}"])
    else:
        check("overflowed trace converts", check_chrome(doc, orep, False))
        if orep.get("trace_overflow"):
            warned = "overflowed" in r.stderr
            flagged = any(e.get("name") == "trace overflow"
                          for e in doc["traceEvents"])
            check("overflow is reported", [] if warned and flagged else
                  [f"warned {warned}, flagged {flagged}"])

    svg = os.path.join(tmp, "boot.svg")
    png = os.path.join(tmp, "boot.png")
    r = run([PYTHON, os.path.join(SCRIPTS, "plot-boot.py"), log,
             "-o", svg, "-o", png])
    check("plot-boot.py one log", [r.stderr] if r.returncode else [])
    check("plot-boot.py PNG", picture_ok(png, "png"))
    check("plot-boot.py SVG", picture_ok(svg, "svg"))
    cmp_png = os.path.join(tmp, "compare.png")
    r = run([PYTHON, os.path.join(SCRIPTS, "plot-boot.py"), log, olog,
             "-o", cmp_png])
    check("plot-boot.py two logs", [r.stderr] if r.returncode else [])
    check("plot-boot.py comparison PNG", picture_ok(cmp_png, "png"))


def latency_boot(keel, tmp):
    """latency=on: report.py accepts the report and refuses it with a
    phase short of samples, a histogram that does not add up, or a probe
    interrupt on a boot without latency=on; plot-boot.py adds the
    latency panel (a taller picture than the same boot without it)."""
    log = os.path.join(tmp, "latency.log")
    rc, text = sandbox_boot(keel, log, "latency=on", "bootscrub=off")
    try:
        rep = report.find_report(text)
    except report.ReportError as e:
        check("latency boot", [f"rc {rc}: {e}"])
        return
    check("latency boot", report.check_parsed(rep, text, {}))
    bad = json.loads(json.dumps(rep))
    bad["latency"]["phases"][1]["samples"] = 999
    bad["latency"]["hist"][2] = []
    got = report.check_parsed(bad, text, {})
    check("report.py refuses a short phase and a histogram off",
          [] if any("999 samples" in g for g in got) and
          any("histogram holds" in g for g in got) else [f"{got}"])
    bad = json.loads(json.dumps(rep))
    bad["cmdline"] = ""
    got = report.check_parsed(bad, text, {})
    check("report.py refuses probe interrupts without latency=on",
          [] if any("without latency=on" in g for g in got) else [f"{got}"])
    png = os.path.join(tmp, "latency.png")
    r = run([PYTHON, os.path.join(SCRIPTS, "plot-boot.py"), log, "-o", png])
    check("plot-boot.py latency", [r.stderr] if r.returncode else [])
    check("plot-boot.py latency PNG", picture_ok(png, "png"))
    plain = os.path.join(tmp, "plain.png")
    run([PYTHON, os.path.join(SCRIPTS, "plot-boot.py"),
         os.path.join(tmp, "summary.log"), "-o", plain])
    check("plot-boot.py latency panel", [] if png_height(png) >
          png_height(plain) else ["no taller than without latency=on"])


def png_height(path):
    """The height in the IHDR chunk of a PNG, 0 when unreadable."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return 0
    return int.from_bytes(head[20:24], "big") if len(head) == 24 else 0


def summary_boot(keel, tmp):
    """The default trace=summary: tiny units no longer fill the buffers,
    the units are summed per node, and the scripts draw one slice per
    worker whose bytes are its scrub.per_cpu bytes."""
    log = os.path.join(tmp, "summary.log")
    rc, text = sandbox_boot(keel, log, "mem=256M", "bootscrub_chunk=64K")
    try:
        rep = report.find_report(text)
    except report.ReportError as e:
        check("summary boot", [f"rc {rc}: {e}"])
        return
    check("summary boot", report.check_parsed(rep, text, {}))
    check("summary: tiny units do not overflow the trace",
          [] if rep.get("trace_overflow") is False
          else [f"trace_overflow {rep.get('trace_overflow')!r}"])
    nodes = {r["node"]: r["bytes"] for r in rep.get("trace_summary", [])}
    want = {p["node"]: p["bytes"] for p in rep["scrub"]["per_node"]
            if p["bytes"]}
    check("summary: trace_summary bytes = scrub.per_node bytes",
          [] if nodes == want else [f"{nodes} != {want}"])
    doc, r = perfetto(log, os.path.join(tmp, "summary.json"))
    if doc is None:
        check("trace2perfetto.py summary", [f"exit {r.returncode}: "
                                            f"{r.stderr}"])
        return
    check("trace2perfetto.py summary: JSON vs report",
          check_chrome(doc, rep, complete=False))
    got = {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "B" and e["name"].endswith("(summed)"):
            got[e["tid"]] = got.get(e["tid"], 0) + e["args"]["bytes"]
    want = {p["cpu"]: p["bytes"] for p in rep["scrub"]["per_cpu"]
            if p["bytes"]}
    check("trace2perfetto.py summary: one slice per worker, its bytes",
          [] if got == want else [f"{got} != {want}"])
    png = os.path.join(tmp, "summary.png")
    r = run([PYTHON, os.path.join(SCRIPTS, "plot-boot.py"), log, "-o", png])
    check("plot-boot.py summary", [r.stderr] if r.returncode else [])
    check("plot-boot.py summary PNG", picture_ok(png, "png"))


# ---- the report schema (scripts/keel/report_schema.json) ---------------------

def schema_tests(keel, tmp):
    """docs/report-format.md's key table is the one the schema renders; a
    real report passes the schema, and the same report with an
    undocumented key, without a required key or with a value of the wrong
    type does not."""
    with open(schema.DOC) as f:
        current = schema.doc_current(f.read())
    check("docs/report-format.md key table is generated from the schema",
          [] if current == schema.doc_table() else
          ["docs/report-format.md differs from the schema: run "
           "python3 -m scripts.keel.schema --doc"])
    b = boot.sandbox(keel, FW, ["stress=1", "bench=on"], timeout=TIMEOUT,
                     log_path=os.path.join(tmp, "schema.log"))
    rep = b.report
    if rep is None:
        check("schema: a real report", [b.report_error or "no report"])
        return
    check("schema: a real report (stress, bench) has every key",
          schema.check(rep))
    bad = json.loads(json.dumps(rep))
    bad["heap"]["made_up_ns"] = 1
    got = schema.check(bad)
    check("schema: an undocumented key is refused",
          [] if any("heap.made_up_ns is not in the report schema" in p
                    for p in got) else [f"not refused: {got}"])
    bad = json.loads(json.dumps(rep))
    del bad["audit"]["lost_pages"]
    for row in bad["scrub"]["per_cpu"]:
        del row["idle_ns"]
    got = schema.check(bad)
    check("schema: missing keys are refused",
          [] if sorted(got) == ["missing key audit.lost_pages",
                                "missing key scrub.per_cpu[].idle_ns"]
          else [f"got {got}"])
    bad = json.loads(json.dumps(rep))
    bad["nodes"][0]["fw_id"] = "zero"
    got = schema.check(bad)
    check("schema: a value of the wrong type is refused",
          [] if any(p.startswith("nodes[].fw_id: expected int or null")
                    for p in got) else [f"got {got}"])
    del rep["stress"]
    check("schema: stress is optional", schema.check(rep))


def shape_tests():
    """report.shape_bytes(): two reports that differ only in measured
    digits and in who helped a node's scrub have one shape; one more CPU
    row makes it bigger."""
    def rep(ns, helpers, gbps, cpus=2):
        return {
            "cpus": {"columns": ["id", "tsc_skew_ns"],
                     "rows": [[c, ns // 7] for c in range(cpus)]},
            "nodes": {"columns": ["id", "cpus"],
                      "rows": [[0, list(range(cpus))]]},
            "scrub": {"ns": ns, "gbps": gbps, "primitive": "stp",
                      "calibration": {"columns": ["primitive", "bytes"],
                                      "rows": [["stp", 8], ["dc zva", 9]]},
                      "per_node": {"columns": ["node", "cpus", "ns"],
                                   "rows": [[0, helpers, ns]]},
                      "per_cpu": {"columns": ["cpu", "bytes", "units"],
                                  "rows": [[0, ns, 3], [1, 7, 100]]}},
            "trace": {"columns": ["name", "arg0"], "rows": [["entry", ns]]},
            "report_bytes": ns % 100000}
    fast = report.shape_bytes(rep(1234, [0], 1.5))
    slow = report.shape_bytes(rep(98765432101, [0, 1, 5, 6], 123.456))
    check("shape_bytes: timings' digits and helpers do not count",
          [] if fast == slow else [f"{fast} != {slow}"])
    more = report.shape_bytes(rep(1234, [0], 1.5, cpus=3))
    check("shape_bytes: one more CPU row counts",
          [] if more > fast else [f"{more} <= {fast}"])


def stopped_tests():
    """scrub.stopped_cpu must be the lowest of scrub.stopped_cpus (null
    when none), the list ascending."""
    def problems(scrub):
        out = []
        report._stopped(scrub, out)
        return out
    check("stopped_cpus: consistent",
          problems({"stopped_cpu": 1, "stopped_cpus": [1, 3]})
          + problems({"stopped_cpu": None, "stopped_cpus": []}))
    bad = [{"stopped_cpu": 3, "stopped_cpus": [1, 3]},
           {"stopped_cpu": None, "stopped_cpus": [2]},
           {"stopped_cpu": 1, "stopped_cpus": [3, 1]}]
    check("stopped_cpus: inconsistent ones fail",
          [f"{b} passed" for b in bad if not problems(b)])


def layers_test(tmp):
    """scripts/check-layers.py names a call from common/ up into boot/ and
    passes the same objects once the call goes down (common/ -> lib)."""
    def build(caller_dir):
        d = os.path.join(tmp, f"layers-{caller_dir.replace('/', '-')}")
        srcs = {"boot/parse.c": "int boot_parse(void) { return 1; }",
                "common/lib/util.c": "int lib_util(void) { return 2; }",
                f"{caller_dir}/user.c":
                    "int boot_parse(void); int lib_util(void);\n"
                    "int user(void) { return boot_parse() + lib_util(); }"}
        objs = []
        for rel, text in srcs.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)
            obj = os.path.join(d, rel + ".o")
            run(["gcc", "-c", "-o", obj, os.path.join(d, rel)])
            objs.append(obj)
        with open(os.path.join(d, "objs.txt"), "w", encoding="utf-8") as f:
            f.write(" ".join(objs))
        return run([sys.executable, os.path.join(TOP, "scripts",
                                                 "check-layers.py"), d])
    up = build("common")
    down = build("arch")
    out = []
    if up.returncode != 1 or "calls boot_parse() of boot/parse.c.o" \
            not in up.stdout:
        out.append(f"common -> boot not refused: {up.stdout!r}")
    if down.returncode != 0:
        out.append(f"arch -> boot, arch -> lib refused: {down.stdout!r}")
    check("check-layers names an upward call", out)


def stress_refused_test(keel, tmp):
    """A good boot whose stress= value keel refused (it warns and runs no
    stress) passes report.py: it reads the report, not the command line."""
    log = os.path.join(tmp, "stress-refused.log")
    rc, text = sandbox_boot(keel, log, "stress=1x", "bootscrub=off")
    r = run([PYTHON, os.path.join(SCRIPTS, "report.py"), log])
    check("report.py: refused stress=1x is a good boot",
          [] if rc == 0 and r.returncode == 0 else
          [f"keel rc {rc}, report.py: {r.stdout.strip()}"])


def main():
    keel = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(TOP, "build", "sandbox", "keel")
    synthetic_tests()
    compact_tests()
    shape_tests()
    stopped_tests()
    usage_tests()
    fuzz_maps_synthetic()
    fuzz_maps_rules()
    with tempfile.TemporaryDirectory(prefix="keel-scripts-") as tmp:
        boot_fake_tests(tmp)
        layers_test(tmp)
    if not os.access(keel, os.X_OK):
        check("keel binary", [f"{keel} is not built (make ARCH=sandbox)"])
    else:
        keep = os.environ.get("SCRIPTS_TEST_KEEP")
        if keep:
            os.makedirs(keep, exist_ok=True)
            boot_real_tests(keel, keep)
            schema_tests(keel, keep)
            real_tests(keel, keep)
            stress_refused_test(keel, keep)
            fuzz_maps_real(keel, keep)
        else:
            with tempfile.TemporaryDirectory(prefix="keel-scripts-") as tmp:
                boot_real_tests(keel, tmp)
                schema_tests(keel, tmp)
                real_tests(keel, tmp)
                stress_refused_test(keel, tmp)
                fuzz_maps_real(keel, tmp)
    print(f"scripts-test: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
