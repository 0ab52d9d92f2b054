# SPDX-License-Identifier: MIT
"""tests/scripts_test.py, traces and reports without a boot: the Chrome
trace-event checker, hand-written traces fed to keeltrace.py, and the
compact report form report.py expands."""

import json
import os

from scripts.keel import keeltrace, report

from .scripts_base import PYTHON, SCRIPTS, check, run

# ---- the Chrome trace-event checker ---------------------------------------

def check_chrome(doc, rep, complete=True):
    """Structural checks of a trace2perfetto document against @rep.

    @complete: the trace did not overflow, so byte sums must match.
    Return: list of failure strings.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"),
                                                   list):
        return ["no traceEvents list"]
    t = Tracks()
    out = []
    for i, e in enumerate(doc["traceEvents"]):
        out += t.event(i, e)
    for tid, stack in t.open_by_tid.items():
        for b in stack:
            out.append(f"B {b['name']!r} on tid {tid} has no E")
    for tid in set(t.units) | set(t.last_ts):
        if tid not in t.names:
            out.append(f"tid {tid} has events but no thread_name")
    return out + t.against(rep, complete)


class Tracks:
    """What the events of a trace2perfetto document say, per track."""

    def __init__(self):
        self.names = {}
        self.open_by_tid = {}
        self.units = {}  # tid -> count
        self.node_bytes = {}
        self.last_ts = {}

    def event(self, i, e):
        """Take event @i. Return: its failures."""
        out = []
        ph = e.get("ph")
        if ph not in ("B", "E", "X", "i", "I", "C", "M"):
            return [f"event {i}: unknown ph {ph!r}"]
        if e.get("pid") != 0:
            out.append(f"event {i}: pid {e.get('pid')!r}, expected 0")
        if ph == "M":
            if e.get("name") == "thread_name":
                self.names[e.get("tid")] = e.get("args", {}).get("name")
            return out
        ts = e.get("ts")
        if isinstance(ts, bool) or not isinstance(ts, (int, float)):
            return out + [f"event {i}: ts {ts!r} is not a number"]
        if not isinstance(e.get("name"), str):
            out.append(f"event {i}: no name")
        if ph in ("B", "E", "X", "i", "I") and "tid" not in e:
            out.append(f"event {i}: {ph} without tid")
        tid = e.get("tid")
        if ph in ("B", "E"):
            if ts < self.last_ts.get(tid, 0):
                out.append(f"event {i}: tid {tid} goes back in time")
            self.last_ts[tid] = ts
        if ph == "B":
            out += self.begin(i, e, tid)
        elif ph == "E":
            out += self.end(i, e, tid, ts)
        return out

    def begin(self, i, e, tid):
        self.open_by_tid.setdefault(tid, []).append(e)
        if not e["name"].startswith("scrub_unit"):
            return []
        args = e.get("args") or {}
        if not isinstance(args.get("node"), int) or \
                not isinstance(args.get("bytes"), int):
            return [f"event {i}: scrub unit without node/bytes"]
        self.units[tid] = self.units.get(tid, 0) + 1
        self.node_bytes[args["node"]] = \
            self.node_bytes.get(args["node"], 0) + args["bytes"]
        return []

    def end(self, i, e, tid, ts):
        stack = self.open_by_tid.get(tid) or []
        if not stack:
            return [f"event {i}: E {e.get('name')!r} on tid {tid} "
                    "without a B"]
        if stack[-1]["name"] != e.get("name"):
            b = stack.pop()
            return [f"event {i}: E {e.get('name')!r} closes "
                    f"B {b['name']!r} on tid {tid}"]
        b = stack.pop()
        return [f"event {i}: E before its B"] if ts < b["ts"] else []

    def against(self, rep, complete):
        """Failures of the tracks against the report @rep."""
        out = []
        units, names = self.units, self.names
        scrub = rep["scrub"]
        for p in scrub["per_cpu"]:
            if not p["bytes"]:
                continue
            if p["cpu"] not in names:
                out.append(f"cpu {p['cpu']} scrubbed {p['bytes']} bytes "
                           "but has no track")
            if not units.get(p["cpu"]):
                out.append(f"cpu {p['cpu']} scrubbed but has no scrub_unit "
                           "slice")
            elif complete and "units" in p and \
                    units[p["cpu"]] != p["units"]:
                out.append(f"cpu {p['cpu']}: {units[p['cpu']]} unit "
                           f"slices, report says {p['units']}")
        if complete:
            for p in scrub["per_node"]:
                got = self.node_bytes.get(p["node"], 0)
                if got != p["bytes"]:
                    out.append(f"node {p['node']}: scrub-unit slices add up "
                               f"to {got} bytes, report says {p['bytes']}")
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
    minimal_form_tests()
    kinds_tests()
    overflow_tests()
    checker_tests()


def minimal_form_tests():
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
    # The trace counts from the kernel's entry; keel_main() marks `entry`
    # when it starts, so the mark's ns is the arch's setup time.
    check("arch setup: from entry to the entry mark",
          [] if b.arch_setup_ns() == 1 else [f"{b.arch_setup_ns()}"])
    check("arch setup: none without an entry mark",
          [] if keeltrace.Boot(_rep([])).arch_setup_ns() is None
          else ["an arch setup without an entry mark"])


def kinds_tests():
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


def overflow_tests():
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


def checker_tests():
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
    compact_table_tests()
    report_bytes_tests()
    summary_tests()


def compact_table_tests():
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


def report_bytes_tests():
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


def summary_tests():
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
