# SPDX-License-Identifier: MIT
"""The boot trace of a keel report, as slices a picture can be drawn from.

Shared by trace2perfetto.py and plot-boot.py. The KEEL-REPORT line is found
and parsed by report.py (imported, never re-parsed here); this module only
interprets its "trace" array (DESIGN section 7).

Accepted forms of one trace event (every form keel has printed or may print):

    {"name", "cpu", "ns"}                       the DESIGN minimum
    + "kind": "begin" | "end" | "mark"          what report.c prints today
              (also "B" | "E" | "I" | "i" and the enum values 1 | 2 | 0)
    + "arg0", "arg1"                            node and bytes of a scrub unit
                                                (absent means 0)

Overflow (events of a CPU were dropped because its buffer was full), in any
of these forms: a top-level "trace_overflow" that is a bool (some CPU, which
one unknown), a list of CPU ids, or a {cpu: bool} object; a top-level
"trace_overflow_cpus" list; or "trace_overflow": true in an entry of "cpus".

Without "kind", a name seen an even number of times on a CPU is read as
alternating begin/end, anything else as a mark.

Summed scrub units (trace=summary, keel's default): the trace has no
"scrub_unit" events; the report's "trace_summary" gives, per node, the
first unit start, and "scrub.per_cpu" each worker's node, bytes, units and
busy ns. Each worker then gets one slice "scrub_unit" flagged "summary",
from its node's first unit start for its busy time: where the CPU spent
its scrub time is placed approximately, the bytes are exact. Boot the
kernel with trace=full for one slice per unit.

Slices are paired per CPU with a stack (a begin is closed by the next end of
the same name on the same CPU, innermost first). A begin with no end - the
buffer overflowed, or the phase was still open at the report - becomes a
slice to the last timestamp of the trace, flagged "open".
"""

from . import report

SCRUB_UNIT = "scrub_unit"

# Boot phases in boot order (common/boot.c); nested ones are drawn inside.
PHASES = ("bootmem", "frametable", "smp", "smp_boot", "heap_init", "scrub",
          "scrub_boot", "bench", "audit")
TOP_PHASES = ("bootmem", "frametable", "smp", "heap_init", "scrub", "bench",
              "audit")

_KINDS = {"begin": "B", "b": "B", "1": "B",
          "end": "E", "e": "E", "2": "E",
          "mark": "I", "i": "I", "instant": "I", "0": "I"}


class TraceError(Exception):
    """The trace of a report cannot be interpreted."""


def _kind(raw):
    if raw is None:
        return None
    if isinstance(raw, bool):
        raise TraceError(f"trace kind {raw!r} is not a kind")
    key = str(raw).strip().lower()
    if key not in _KINDS:
        raise TraceError(f"unknown trace kind {raw!r}")
    return _KINDS[key]


def _num(ev, key, default=0):
    v = ev.get(key, default)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TraceError(f"trace event {ev!r:.80}: {key} is not a number")
    return v


def events(rep):
    """The trace of @rep as a list of normalised events.

    Each is a dict name, cpu, ns, kind ("B", "E" or "I"), arg0, arg1, in
    report order (per CPU that order is chronological).
    Return: the list (empty when the report has no trace).
    """
    raw = rep.get("trace") or []
    if not isinstance(raw, list):
        raise TraceError("trace is not a list")
    out = []
    for ev in raw:
        if not isinstance(ev, dict):
            raise TraceError(f"trace event {ev!r:.80} is not an object")
        name = ev.get("name")
        if not isinstance(name, str):
            raise TraceError(f"trace event {ev!r:.80} has no name")
        out.append({"name": name, "cpu": int(_num(ev, "cpu")),
                    "ns": _num(ev, "ns"), "kind": _kind(ev.get("kind")),
                    "arg0": _num(ev, "arg0"), "arg1": _num(ev, "arg1")})
    _infer_kinds(out)
    return out


def _infer_kinds(evs):
    counts = {}
    for ev in evs:
        if ev["kind"] is None:
            key = (ev["cpu"], ev["name"])
            counts[key] = counts.get(key, 0) + 1
    seen = {}
    for ev in evs:
        if ev["kind"] is not None:
            continue
        key = (ev["cpu"], ev["name"])
        if counts[key] % 2:
            ev["kind"] = "I"
            continue
        n = seen.get(key, 0)
        seen[key] = n + 1
        ev["kind"] = "B" if n % 2 == 0 else "E"


def overflowed_cpus(rep):
    """CPUs whose trace buffer overflowed.

    Return: (set of CPU ids, unknown) where unknown is True when the report
    only says that some CPU overflowed, not which.
    """
    cpus = set()
    unknown = False
    flag = rep.get("trace_overflow")
    if isinstance(flag, bool):
        unknown = flag
    elif isinstance(flag, list):
        cpus.update(int(c) for c in flag)
    elif isinstance(flag, dict):
        cpus.update(int(c) for c, v in flag.items() if v)
    lst = rep.get("trace_overflow_cpus")
    if isinstance(lst, list):
        cpus.update(int(c) for c in lst)
    for c in rep.get("cpus") or []:
        if isinstance(c, dict) and c.get("trace_overflow") is True:
            cpus.add(int(c.get("id", -1)))
    if cpus:
        unknown = False
    return cpus, unknown


def slices(evs, end_ns=None):
    """Pair begin/end events into slices.

    @end_ns: where slices without an end stop (default: the last event).

    Return: (slices, marks). A slice is a dict name, cpu, start, end (ns),
    depth (0 = outermost on its CPU), arg0, arg1, open (no end was
    recorded). Marks are the "I" events. Both are sorted by start time.
    """
    end_of_trace = max((e["ns"] for e in evs), default=0)
    if end_ns is not None:
        end_of_trace = max(end_of_trace, end_ns)
    stacks = {}
    out = []
    marks = []
    for ev in evs:
        stack = stacks.setdefault(ev["cpu"], [])
        if ev["kind"] == "I":
            marks.append(ev)
        elif ev["kind"] == "B":
            stack.append(ev)
        else:
            for i in range(len(stack) - 1, -1, -1):
                if stack[i]["name"] == ev["name"]:
                    b = stack.pop(i)
                    del stack[i:]
                    out.append(_slice(b, ev["ns"], 0, False))
                    break
            # an end without a begin: its begin was never recorded; skip
    for stack in stacks.values():
        for depth, b in enumerate(stack):
            out.append(_slice(b, end_of_trace, depth, True))
    out.sort(key=lambda s: (s["start"], s["depth"]))
    marks.sort(key=lambda m: m["ns"])
    return out, marks


def _slice(b, end, depth, is_open):
    return {"name": b["name"], "cpu": b["cpu"], "start": b["ns"],
            "end": max(end, b["ns"]), "depth": depth, "arg0": b["arg0"],
            "arg1": b["arg1"], "open": is_open}


def summary_slices(rep, evs):
    """One slice per scrub worker from the summed units (see above), or []
    when the trace has the units themselves or the report no summary."""
    if any(e["name"] == SCRUB_UNIT for e in evs):
        return []
    rows = rep.get("trace_summary")
    per_cpu = (rep.get("scrub") or {}).get("per_cpu")
    if not isinstance(rows, list) or not isinstance(per_cpu, list):
        return []
    first = {r.get("node"): r.get("first_ns", 0) for r in rows
             if isinstance(r, dict) and r.get("name") == SCRUB_UNIT}
    out = []
    for p in per_cpu:
        if not isinstance(p, dict) or not p.get("bytes"):
            continue
        node = p.get("node", 0)
        start = first.get(node)
        if start is None:
            start = min(first.values(), default=0)
        s = {"name": SCRUB_UNIT, "cpu": int(p.get("cpu", 0)),
             "start": start, "end": start + max(p.get("ns", 0), 0),
             "depth": 0, "arg0": node, "arg1": p["bytes"], "open": False,
             "summary": True, "units": p.get("units")}
        out.append(s)
    return out


def _fix_depths(sl):
    """Depth = how many slices of the same CPU enclose this one."""
    by_cpu = {}
    for s in sl:
        by_cpu.setdefault(s["cpu"], []).append(s)
    for lst in by_cpu.values():
        lst.sort(key=lambda s: (s["start"], -s["end"]))
        open_ends = []
        for s in lst:
            while open_ends and open_ends[-1] <= s["start"] and \
                    open_ends[-1] < s["end"]:
                open_ends.pop()
            s["depth"] = len(open_ends)
            open_ends.append(s["end"])


def load(path):
    """Read a boot log and interpret its trace.

    Return: a Boot.
    """
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        rep = report.find_report(text)
    except report.ReportError as e:
        raise TraceError(f"{path}: {e}") from e
    return Boot(rep, path)


class Boot:
    """One boot: the parsed report plus its trace as slices and marks."""

    def __init__(self, rep, path="-"):
        self.rep = rep
        self.path = path
        self.events = events(rep)
        # An open phase ended before the report at the latest.
        self.end_ns = max([e["ns"] for e in self.events] +
                          [rep.get("report_ns") or 0])
        self.slices, self.marks = slices(self.events, self.end_ns)
        summed = summary_slices(rep, self.events)
        self.summarised = bool(summed)
        if summed:
            self.slices = sorted(self.slices + summed,
                                 key=lambda s: (s["start"], s["depth"]))
        _fix_depths(self.slices)
        self.overflow, self.overflow_unknown = overflowed_cpus(rep)
        if self.overflow_unknown and self.incomplete_cpus():
            # The report only says "some CPU": the byte counts tell which.
            self.overflow = self.incomplete_cpus()
            self.overflow_unknown = False

    def cpu_ids(self):
        """Every CPU of the report plus any that appears in the trace."""
        ids = {c["id"] for c in self.rep.get("cpus") or []
               if isinstance(c, dict) and "id" in c}
        ids.update(e["cpu"] for e in self.events)
        return sorted(ids)

    def cpu_node(self, cpu):
        for c in self.rep.get("cpus") or []:
            if isinstance(c, dict) and c.get("id") == cpu:
                return c.get("node")
        return None

    def phase(self, name):
        """The first slice called @name (on any CPU), or None."""
        return next((s for s in self.slices if s["name"] == name), None)

    def arch_setup_ns(self):
        """How long the arch took before keel_main(): the trace's ns
        count from the kernel's entry (its first timer read: head.S,
        the sandbox's main()), and keel_main() records the `entry`
        mark (arg0: the raw entry ticks) when it starts. So the mark
        sits at the arch's setup time (on x86_64 under QEMU about 100 ms,
        the TSC calibration), not at 0. Return: ns, or None without it."""
        m = next((m for m in self.marks if m["name"] == "entry"), None)
        return m["ns"] if m else None

    def scrub_units(self):
        return [s for s in self.slices if s["name"] == SCRUB_UNIT]

    def incomplete_cpus(self):
        """CPUs whose traced scrub units do not add up to the bytes the
        report's scrub.per_cpu says they scrubbed (events were lost)."""
        traced = {}
        for u in self.scrub_units():
            if not u["open"]:
                traced[u["cpu"]] = traced.get(u["cpu"], 0) + u["arg1"]
        out = set()
        for p in (self.rep.get("scrub") or {}).get("per_cpu") or []:
            if traced.get(p.get("cpu"), 0) != p.get("bytes", 0):
                out.add(p.get("cpu"))
        return out

    def node_scrub(self):
        """{node: (bytes, ns, gbps)} from the report's scrub.per_node."""
        out = {}
        for p in (self.rep.get("scrub") or {}).get("per_node") or []:
            b, ns = p.get("bytes", 0), p.get("ns", 0)
            gbps = p.get("gbps")
            if gbps is None:
                gbps = b / ns if ns else 0.0
            out[p.get("node")] = (b, ns, float(gbps))
        return out

    def label(self):
        """Short name of the run: CPU count and command line."""
        cpus = self.rep.get("cpus") or []
        online = sum(1 for c in cpus if isinstance(c, dict)
                     and c.get("online", True))
        cmd = (self.rep.get("cmdline") or "").strip()
        heap = (self.rep.get("heap") or {}).get("mode")
        parts = [f"{online} CPU{'s' if online != 1 else ''}"]
        if heap and f"heap_init={heap}" not in cmd:
            parts.append(f"heap {heap}")
        parts.append(cmd if cmd else "default cmdline")
        return ", ".join(parts)
