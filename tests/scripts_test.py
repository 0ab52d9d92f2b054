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
scripts/check-size.py must name a 61-line Python method and C test function
and pass them at 60 lines. keel.hostfreeze is shown timestamps with known
gaps and a made-up /proc/stat. The parts live in tests/scripts_base.py (the
count), scripts_trace.py (traces, compact reports) and scripts_fuzz.py.

Prints one line per failed check, then "scripts-test: N passed, M failed";
the exit status is non-zero on failure. Needs /usr/bin/python3 with
matplotlib (Debian's python3-matplotlib).
"""

import ast
import importlib.util
import json
import os
import sys
import tempfile

from scripts.keel import boot, hostfreeze, report, schema
from scripts.keel.bench import fmt_ns
from scripts.keel.report_guests import check_guests
from scripts.keel.boot import TOP

from . import scripts_base
from .scripts_base import (FW, PYTHON, SCRIPTS, TIMEOUT, check, run,
                           sandbox_boot)
from .scripts_report import corrected_checks, stress_refused_test
from .scripts_fuzz import (fuzz_maps_largest_left, fuzz_maps_real,
                           fuzz_maps_rules, fuzz_maps_synthetic)
from .scripts_trace import (check_chrome, compact_tests, perfetto,
                            picture_ok, synthetic_tests)


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


def import_rule_test():
    """The scripts import `keel` by Python's own rules (scripts/keel/
    __init__.py): none edits sys.path, and each bench script finds the
    package when run from elsewhere."""
    out = []
    for name in sorted(os.listdir(SCRIPTS)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(SCRIPTS, name), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr == "path" and
                    isinstance(node.value, ast.Name) and
                    node.value.id == "sys"):
                out.append(f"scripts/{name}:{node.lineno} uses sys.path")
    for name in ("bench-domains.py", "bench-latency.py", "bench-smp.py"):
        r = run([PYTHON, os.path.join(SCRIPTS, name), "--help"], cwd="/")
        if r.returncode != 0:
            out.append(f"{name} --help from /: {r.stderr.strip()[-200:]}")
    check("scripts import keel without sys.path edits", out)


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
    corrected_checks(rep, text)

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
    # report=full: the histograms (latency.hist) are not in the compact one.
    rc, text = sandbox_boot(keel, log, "latency=on", "bootscrub=off",
                            "report=full")
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
        del row["bytes"]
    got = schema.check(bad)
    check("schema: missing keys are refused",
          [] if sorted(got) == ["missing key audit.lost_pages",
                                "missing key scrub.per_cpu[].bytes"]
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


def guests_tests():
    """keel.report_guests: a consistent guests table passes; each rule
    broken alone fails."""
    def rep(**change):
        row = {"domain": 1, "cpu": 0, "pages_walked": 256, "bad_words": 0,
               "first_bad_ipa": None, "stage2_faults": 0, "fault_ipa": None,
               "blackout_ns": 5, "runs": 3, "exit_reason": "done",
               "walk_ns": 1, "pages_skipped": 0}
        row.update(change.pop("row", {}))
        info = {"unsupported": None, "count": 1, "rows_left_out": 0,
                "blackout_max_ns": 5, "problems": 0, "bad_words": 0,
                "pages_skipped": 0, "walk_bytes": 256 * 4096,
                "walk_ns": 2}
        info.update(change)
        return {"guests": [row], "guests_info": info, "result": "pass",
                "domains": [{"id": 1, "bytes": 256 * 4096}]}

    def problems(r):
        out = []
        check_guests(r, out)
        return out
    check("guests: consistent rows pass", problems(rep()))
    # A bad page skipped (issue 38 §4): walked + skipped = the domain's.
    check("guests: a skipped bad page passes",
          problems(rep(row={"pages_walked": 255, "pages_skipped": 1},
                       pages_skipped=1)))
    # A round resumed from a handover: the walk was the last image's.
    check("guests: a resumed round's walk untimed passes",
          problems(rep(row={"walk_ns": 0}, walk_ns=0)))
    bad = [rep(row={"pages_walked": 255}), rep(row={"bad_words": 2}),
           rep(row={"stage2_faults": 1, "fault_ipa": 4096}),
           rep(row={"exit_reason": "gone"}), rep(row={"runs": 0}),
           rep(rows_left_out=1), rep(blackout_max_ns=4),
           rep(problems=1), rep(unsupported="no SVM"),
           rep(row={"pages_skipped": 1}, pages_skipped=1),
           rep(row={"pages_walked": 255, "pages_skipped": 1}),
           rep(pages_skipped=1), rep(walk_ns=0)]
    check("guests: each broken rule fails",
          [f"{b} passed" for b in bad if not problems(b)])


def hostfreeze_tests(tmp):
    """keel.hostfreeze: the windows without any event (unsorted input, the
    threshold exclusive), their phase in a 100 ms period, the steal field
    of a /proc/stat (jiffies of USER_HZ 100, in ms; None without one)."""
    times = [10.0001, 10.0, 10.0002, 10.0352, 10.0353, 10.100, 10.1101]
    got = hostfreeze.silent_windows(times, 0.010)
    want = [(10.0002, 10.0352), (10.0353, 10.1), (10.1, 10.1101)]
    check("hostfreeze: silent windows",
          [] if got == want else [f"{got} != {want}"])
    phase = hostfreeze.period_phase_ms(1964.619988)
    check("hostfreeze: phase in a 100 ms period",
          [] if abs(phase - 19.988) < 1e-3 else [f"{phase}"])
    stat = os.path.join(tmp, "stat")
    with open(stat, "w") as f:
        f.write("cpu  40103 58800 40837 63085 562 0 251 3348 0 0\n"
                "cpu0 1 2 3 4 5 6 7 8 0 0\n")
    miss = os.path.join(tmp, "nostat")
    with open(miss, "w") as f:
        f.write("cpu  1 2 3\n")
    got = (hostfreeze.steal_ms(stat), hostfreeze.steal_ms(miss),
           hostfreeze.steal_ms(os.path.join(tmp, "absent")))
    check("hostfreeze: steal_ms", [] if got == (33480, None, None)
          else [f"{got}"])


def layers_tree(d, srcs):
    """Write @srcs ({path: text}) under @d, compile each .c into an object,
    list them in objs.txt as the Makefile's objs-list does, and run
    scripts/check-layers.py on @d. Return: its CompletedProcess."""
    objs = []
    for rel, text in srcs.items():
        os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
            f.write(text)
        if rel.endswith(".c"):
            obj = os.path.join(d, rel + ".o")
            run(["gcc", "-c", "-I", os.path.join(d, "include"), "-o", obj,
                 os.path.join(d, rel)])
            objs.append(obj)
    with open(os.path.join(d, "objs.txt"), "w", encoding="utf-8") as f:
        f.write(" ".join(objs))
    return run([sys.executable, os.path.join(TOP, "scripts",
                                             "check-layers.py"), d])


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
        return layers_tree(d, srcs)
    up = build("common")
    down = build("arch")
    out = []
    if up.returncode != 1 or "calls boot_parse() of boot/parse.c.o" \
            not in up.stdout:
        out.append(f"common -> boot not refused: {up.stdout!r}")
    if down.returncode != 0:
        out.append(f"arch -> boot, arch -> lib refused: {down.stdout!r}")
    check("check-layers names an upward call", out)


def layers_includer(tmp):
    """A builder of check-layers trees for the include rules: four headers
    (lib, report, boot data, boot), @extra files, and common/mm/m.c that
    includes @inc."""
    hdr = {"include/keel/low.h": "/* SPDX-License-Identifier: MIT */\n"
                                 "/*\n * Owner: lib.\n */\n",
           "include/keel/top.h": "/* SPDX-License-Identifier: MIT */\n"
                                 "/*\n * Owner: report.\n */\n",
           "include/keel/bi.h": "/* SPDX-License-Identifier: MIT */\n"
                                "/* Owner: boot (data: read). */\n",
           "include/keel/fw.h": "/* SPDX-License-Identifier: MIT */\n"
                                "/*\n * Owner: boot.\n */\n"}

    def build(name, extra, inc):
        src = "".join(f"#include {i}\n" for i in inc) + "int m(void);\n"
        return layers_tree(os.path.join(tmp, f"inc-{name}"),
                           {**hdr, **extra, "common/mm/m.c": src})
    return build


def include_rule_test(tmp):
    """scripts/check-layers.py reads each include/keel header's owner from
    its first comment line and names a room's source that includes a
    header of a room above it (also through its private header), or one of
    boot/'s that is not data; a header with no owner; a docs/design.md row
    that names another owner. It passes includes that go down."""
    build = layers_includer(tmp)
    priv = {"common/mm/mm_priv.h": "#include <keel/top.h>\n"}
    runs = {
        "down": (build("down", {}, ["<keel/low.h>", "<keel/bi.h>"]), 0,
                 None),
        "up": (build("up", {}, ["<keel/top.h>"]), 1,
               "common/mm/m.c includes <keel/top.h>, room report's header "
               "(above mm)"),
        "nested": (build("nested", priv, ['"mm_priv.h"']), 1,
                   "includes <keel/top.h>, room report's header"),
        "boot": (build("boot", {}, ["<keel/fw.h>"]), 1,
                 "<keel/fw.h>, room boot's header (boot/'s, not data)"),
        "no-owner": (build("no-owner", {"include/keel/x.h": "/* x */\n"},
                           []), 1, "include/keel/x.h names no owner"),
        "doc": (build("doc", {"docs/design.md":
                              "| `low.h` | lib | |\n| `top.h` | lib | |\n"
                              "| `bi.h` | boot (data) | |\n"
                              "| `fw.h` | boot | |\n"}, []), 1,
                "header table says top.h is lib's, the header says "
                "report's"),
    }
    out = []
    for name, (r, rc, want) in runs.items():
        if r.returncode != rc or (want and want not in r.stdout):
            out.append(f"{name}: rc {r.returncode}: {r.stdout!r}")
    check("check-layers names an include up a room", out)


def header_rule_test(tmp):
    """scripts/check-layers.py names a data header of boot/ that includes
    a room's header, and a header that declares a function another room
    defines (static inline bodies and the header's own room's are fine)."""
    build = layers_includer(tmp)
    runs = {
        "data": (build("data", {"include/keel/bd.h":
                                "/* SPDX-License-Identifier: MIT */\n"
                                "/* Owner: boot (data: read). */\n"
                                "#include <keel/low.h>\n"
                                "#include <keel/top.h>\n"}, []), 1,
                 "include/keel/bd.h is boot/'s data but includes "
                 "<keel/top.h>, room report's header"),
        "decl": (build("decl", {"include/keel/ld.h":
                                "/* SPDX-License-Identifier: MIT */\n"
                                "/* Owner: lib. */\n"
                                "static inline int in(void) { return 0; }\n"
                                "int lib_fn(int a);\nint rep_fn(void);\n",
                                "common/lib/l.c": "int lib_fn(int a) "
                                                  "{ return a; }\n",
                                "common/report/r.c": "int rep_fn(void) "
                                                     "{ return 0; }\n"},
                       []), 1,
                 "include/keel/ld.h declares rep_fn(), which "
                 "common/report/r.c.o defines"),
    }
    out = []
    for name, (r, rc, want) in runs.items():
        if r.returncode != rc or (want and want not in r.stdout):
            out.append(f"{name}: rc {r.returncode}: {r.stdout!r}")
    check("check-layers names a header's misplaced include or declaration",
          out)


def check_paths_test(tmp):
    """scripts/check-paths.py names a comment's or a doc's path that is
    not in the tree (a file from before the rooms), and passes the ones
    that are, patterns and include forms too."""
    spec = importlib.util.spec_from_file_location(
        "check_paths", os.path.join(TOP, "scripts", "check-paths.py"))
    cp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cp)
    files = {"common/lib/heap.c": "/* common/lib/heap.c, arch/<a>/x.mk */\n"
                                  "int x; /* common/heap.c */\n",
             "include/arch/cpu.h": "/* <arch/cpu.h>, common/lib/*.c */\n",
             "arch/x86/x.mk": "# tests/{a,b}.py, tests/c.py\n",
             "tests/a.py": "", "tests/b.py": "",
             "docs/d.md": "See `common/lib/heap.c` and `boot/gone.c`.\n"}
    for rel, text in files.items():
        os.makedirs(os.path.join(tmp, "paths", os.path.dirname(rel)),
                    exist_ok=True)
        with open(os.path.join(tmp, "paths", rel), "w",
                  encoding="utf-8") as f:
            f.write(text)
    got = cp.problems(sorted(files), os.path.join(tmp, "paths"))
    want = ["arch/x86/x.mk:1: tests/c.py", "common/lib/heap.c:2: common/heap.c",
            "docs/d.md:1: boot/gone.c"]
    check("check-paths names the paths not in the tree",
          [] if got == want else [f"{got}"])


def heap_alone_test(tmp):
    """scripts/check-layers.py names an object outside lib and mm that
    linking heap_alloc() pulls in, and passes the heap that reaches the
    report only through an arch hook's object (the host's)."""
    def build(name, heap_calls):
        d = os.path.join(tmp, f"heap-{name}")
        srcs = {"common/lib/util.c": "int lib_util(void) { return 2; }",
                "common/report/r.c": "int report_x(void) { return 3; }",
                "arch/a/irq.c": "int report_x(void);\n"
                                "int arch_irq(void) { return report_x(); }",
                "common/mm/heap.c": f"int {heap_calls}(void);\n"
                                    f"int heap_alloc(void) "
                                    f"{{ return {heap_calls}(); }}"}
        return layers_tree(d, srcs)
    out = []
    for name, calls, want in (("report", "report_x", 1),
                              ("lib", "lib_util", 0), ("hook", "arch_irq", 0)):
        r = build(name, calls)
        named = "heap_alloc() pulls in common/report/r.c.o" in r.stdout
        if r.returncode != want or named != bool(want):
            out.append(f"heap -> {name}: rc {r.returncode}: {r.stdout!r}")
    check("check-layers: the heap links alone", out)


def private_header_test(tmp):
    """scripts/check-layers.py names a room's source that includes another
    room's private header (also through a header of its own room), and
    passes a room that includes only its own."""
    def build(name, srcs):
        return layers_tree(os.path.join(tmp, f"private-{name}"), srcs)
    base = {"common/domain/domain_priv.h": "#define DOMAIN_PRIV 1\n",
            "common/domain/d.c": '#include "domain_priv.h"\n'
                                 "int d(void) { return DOMAIN_PRIV; }\n"}
    own = build("own", base)
    direct = build("direct", {**base, "common/report/r.c":
                              '#include "../domain/domain_priv.h"\n'
                              "int r(void) { return DOMAIN_PRIV; }\n"})
    nested = build("nested", {**base, "common/report/report_priv.h":
                              '#include "../domain/domain_priv.h"\n',
                              "common/report/r.c":
                              '#include "report_priv.h"\n'
                              "int r(void) { return DOMAIN_PRIV; }\n"})
    out = []
    if own.returncode != 0:
        out.append(f"a room's own private header refused: {own.stdout!r}")
    want = "common/report/r.c includes common/domain/domain_priv.h"
    for name, r in (("direct", direct), ("nested", nested)):
        if r.returncode != 1 or want not in r.stdout:
            out.append(f"{name} include not named: {r.stdout!r}")
    check("check-layers names another room's private header", out)


def size_rule_test(tmp):
    """scripts/check-size.py names an over-long Python function (a method
    too) and an over-long C test function, and passes them at 60 lines."""
    def py(n):
        body = "".join(f"        x += {i}\n" for i in range(n - 2))
        return f"class K:\n    def meth(self):\n        x = 0\n{body}" \
            "        return x\n"

    def c(n):
        body = "".join(f"\tx += {i};\n" for i in range(n - 1))
        return f"static int test_long(void)\n{{\n\tint x = 0;\n{body}}}\n"

    out = []
    for lines, want in ((61, 1), (60, 0)):
        paths = [os.path.join(tmp, f"size{lines}.py"),
                 os.path.join(tmp, f"size{lines}_test.c")]
        for path, text in zip(paths, (py(lines), c(lines))):
            with open(path, "w") as f:
                f.write(text)
        r = run([PYTHON, os.path.join(SCRIPTS, "check-size.py"), *paths])
        named = [ln for ln in r.stdout.splitlines()
                 if f"has {lines} lines" in ln]
        if want and (r.returncode != 1 or len(named) != 2 or
                     "K.meth()" not in named[0] or
                     "test_long()" not in named[1]):
            out.append(f"{lines} lines not reported: {r.stdout!r}")
        if not want and (r.returncode != 0 or named):
            out.append(f"{lines} lines reported: {r.stdout!r}")
    check("check-size: long Python and C test functions", out)


def main():
    keel = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(TOP, "build", "sandbox", "keel")
    synthetic_tests()
    compact_tests()
    shape_tests()
    stopped_tests()
    guests_tests()
    usage_tests()
    import_rule_test()
    fuzz_maps_synthetic()
    fuzz_maps_rules()
    fuzz_maps_largest_left()
    with tempfile.TemporaryDirectory(prefix="keel-scripts-") as tmp:
        boot_fake_tests(tmp)
        hostfreeze_tests(tmp)
        layers_test(tmp)
        private_header_test(tmp)
        include_rule_test(tmp)
        header_rule_test(tmp)
        check_paths_test(tmp)
        heap_alone_test(tmp)
        size_rule_test(tmp)
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
    print(f"scripts-test: {scripts_base.passed} passed, "
          f"{scripts_base.failed} failed")
    return 1 if scripts_base.failed else 0


if __name__ == "__main__":
    sys.exit(main())
