#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Convert the boot trace of a keel log to Chrome trace-event JSON.

Usage: trace2perfetto.py LOG [-o boot.json]

The output opens in https://ui.perfetto.dev and chrome://tracing: process 0
is the keel boot, thread N is CPU N ("cpu N (node M)"). Boot phases are
slices on the CPU that ran them (nested: smp_boot inside smp, scrub_boot
inside scrub); every scrub unit is a slice "scrub_unit node M" on the worker
CPU that scrubbed it, with node and bytes in its args. With keel's default
trace=summary the units were only summed: each worker gets one slice
"scrub_unit node M (summed)" of its busy time, from its node's first unit
(args: summary, units), see keeltrace.py. Marks are instant
events; the report's heap_ready_ns and all_clean_ns are global instants; a
counter track per node shows the bytes scrubbed so far. A CPU whose trace
buffer overflowed gets a "trace overflow" instant after its last event.

Slices are B/E pairs, emitted per CPU in recording order and then stably
sorted by time, so that an end always precedes a begin at the same stamp.
Timestamps are microseconds (the format's unit) with ns precision.
"""

import argparse
import json
import sys

from keel import keeltrace

PID = 0


def _us(ns):
    return ns / 1000.0


def _slice_name(s):
    if s["name"] == keeltrace.SCRUB_UNIT:
        extra = " (summed)" if s.get("summary") else ""
        return f"scrub_unit node {s['arg0']}{extra}"
    return s["name"]


def _slice_args(s):
    if s["name"] == keeltrace.SCRUB_UNIT:
        args = {"node": s["arg0"], "bytes": s["arg1"],
                "MiB": round(s["arg1"] / (1 << 20), 3)}
        dur = s["end"] - s["start"]
        if dur > 0:
            args["GB/s"] = round(s["arg1"] / dur, 3)
        if s.get("summary"):
            # trace=summary: the CPU's units summed, placed at its node's
            # first unit (keeltrace.summary_slices()).
            args.update(summary=True, units=s.get("units"))
    else:
        args = {"dur_us": round(_us(s["end"] - s["start"]), 3)}
        if s["arg0"] or s["arg1"]:
            args.update(arg0=s["arg0"], arg1=s["arg1"])
    if s["open"]:
        args["open"] = True
    return args


def _meta(boot):
    rep = boot.rep
    out = [{"ph": "M", "pid": PID, "name": "process_name",
            "args": {"name": f"keel {rep.get('arch', '?')}: "
                             f"{boot.label()}"}}]
    for cpu in boot.cpu_ids():
        node = boot.cpu_node(cpu)
        name = f"cpu {cpu}" + (f" (node {node})" if node is not None
                               else "")
        out.append({"ph": "M", "pid": PID, "tid": cpu, "name": "thread_name",
                    "args": {"name": name}})
        out.append({"ph": "M", "pid": PID, "tid": cpu,
                    "name": "thread_sort_index", "args": {"sort_index": cpu}})
    return out


def _slice_events(boot):
    """B/E pairs, per CPU in nesting order (outer begins first)."""
    out = []
    by_cpu = {}
    for s in boot.slices:
        by_cpu.setdefault(s["cpu"], []).append(s)
    for cpu, lst in sorted(by_cpu.items()):
        # Rebuild one properly nested B/E stream for this CPU.
        pending = []  # ends not yet emitted, innermost last
        for s in sorted(lst, key=lambda s: (s["start"], s["depth"])):
            while pending and pending[-1]["end"] <= s["start"]:
                out.append(_end(pending.pop()))
            out.append({"ph": "B", "pid": PID, "tid": cpu,
                        "ts": _us(s["start"]), "name": _slice_name(s),
                        "cat": "scrub" if s["name"] ==
                        keeltrace.SCRUB_UNIT else "phase",
                        "args": _slice_args(s)})
            pending.append(s)
        while pending:
            out.append(_end(pending.pop()))
    return out


def _end(s):
    return {"ph": "E", "pid": PID, "tid": s["cpu"], "ts": _us(s["end"]),
            "name": _slice_name(s)}


def _instant_events(boot):
    out = []
    for m in boot.marks:
        args = {}
        if m["arg0"] or m["arg1"]:
            args = {"arg0": m["arg0"], "arg1": m["arg1"]}
        out.append({"ph": "i", "s": "t", "pid": PID, "tid": m["cpu"],
                    "ts": _us(m["ns"]), "name": m["name"], "cat": "mark",
                    "args": args})
    scrub = boot.rep.get("scrub") or {}
    for key, name in (("heap_ready_ns", "heap ready"),
                      ("all_clean_ns", "all clean")):
        if scrub.get(key):
            out.append({"ph": "i", "s": "g", "pid": PID, "tid": 0,
                        "ts": _us(scrub[key]), "name": name,
                        "cat": "scrub", "args": {key: scrub[key]}})
    for cpu in sorted(boot.overflow):
        last = max((e["ns"] for e in boot.events if e["cpu"] == cpu),
                   default=boot.end_ns)
        out.append({"ph": "i", "s": "t", "pid": PID, "tid": cpu,
                    "ts": _us(last), "name": "trace overflow",
                    "cat": "trace", "args": {"events_dropped": True}})
    return out


def _counter_events(boot):
    """Cumulative bytes scrubbed per node, stepped at each unit's end."""
    out = []
    done = {}
    for s in sorted(boot.scrub_units(), key=lambda s: s["end"]):
        node = s["arg0"]
        done[node] = done.get(node, 0) + s["arg1"]
        out.append({"ph": "C", "pid": PID, "ts": _us(s["end"]),
                    "name": f"scrubbed node {node}",
                    "args": {"MiB": round(done[node] / (1 << 20), 3)}})
    return out


def convert(boot):
    """The Chrome trace-event document of @boot (a keeltrace.Boot).

    Return: a dict ready for json.dump.
    """
    timed = _slice_events(boot) + _instant_events(boot) + \
        _counter_events(boot)
    timed.sort(key=lambda e: e["ts"])  # stable: keeps E before B
    rep = boot.rep
    other = {"arch": rep.get("arch"), "boot": rep.get("boot"),
             "cmdline": rep.get("cmdline"), "log": boot.path,
             "trace_overflow": bool(boot.overflow or boot.overflow_unknown)}
    return {"traceEvents": _meta(boot) + timed, "displayTimeUnit": "ns",
            "otherData": other}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", help="serial log of one keel boot")
    ap.add_argument("-o", "--output", help="write here (default stdout)")
    args = ap.parse_args(argv)
    try:
        boot = keeltrace.load(args.log)
        doc = convert(boot)
    except (OSError, keeltrace.TraceError) as e:
        print(f"trace2perfetto.py: {e}", file=sys.stderr)
        return 1
    if boot.overflow_unknown or boot.overflow:
        which = ", ".join(str(c) for c in sorted(boot.overflow)) or "some"
        print(f"trace2perfetto.py: warning: trace buffer of CPU {which} "
              "overflowed; later events were dropped", file=sys.stderr)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
    else:
        json.dump(doc, sys.stdout, separators=(",", ":"))
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
