# SPDX-License-Identifier: MIT
"""The compact tables of a KEEL-REPORT (is_table) and the report's shape
(shape_bytes): its size with every measured value at a fixed width, so that
a size budget follows the report's structure, not the host's speed.
scripts/keel/report.py re-exports both."""

import json


def is_table(value):
    """A compact table: {"columns": [names], "rows": [[values], ...]}."""
    return (isinstance(value, dict) and set(value) == {"columns", "rows"}
            and isinstance(value["columns"], list)
            and isinstance(value["rows"], list))


# ---- the report's shape: its size without the digits of timings --------
#
# How many digits a time or a rate has depends on how fast the host ran,
# and which CPUs helped a node's scrub on who got there first. A size
# budget must not: shape_bytes() counts the report with every such value
# written at one fixed width, and every other value (ids, addresses, byte
# counts of the machine) as printed. It follows the report's structure
# (how many values per CPU, per node, in all) and not the host's speed.

# The fixed widths: a time in ns of a sub-second phase (9 digits), a rate
# "12.345", a per-CPU share of the scrub (8 digits of bytes, 2 of units),
# a raw tick count (12 digits).
SHAPE_NS = "9" * 9
SHAPE_RATE = "99.999"
SHAPE_TICKS = "9" * 12
_SHAPE = {("scrub.per_cpu", "bytes"): "9" * 8,
          ("scrub.per_cpu", "units"): "99",
          ("scrub.calibration", "bytes"): "9" * 8,
          ("trace", "arg0"): SHAPE_TICKS, ("trace", "arg1"): SHAPE_TICKS,
          ("", "report_bytes"): "99999"}


def _widest(path, key, value):
    """The fixed-width text of @value at @path/@key, or None when it is
    printed as it is (not measured)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if key == "gbps":
        return SHAPE_RATE
    if (path, key) in _SHAPE:
        return _SHAPE[(path, key)]
    if key.endswith("ns"):
        return SHAPE_NS
    return None


def _shape(value, path, key, ctx):
    """Compact JSON text of @value, measured values at their fixed width
    (see shape_bytes())."""
    wide = _widest(path, key, value)
    if wide is not None:
        return wide
    if key == "primitive" and isinstance(value, str):
        return json.dumps("x" * ctx["primitive"], ensure_ascii=False)
    if path == "scrub.per_node" and key == "cpus":
        # Who helped is a race: count the node's own CPUs.
        own = ctx["node_cpus"].get(ctx["row"].get("node"), [])
        return json.dumps(own, separators=(",", ":"))
    if is_table(value):
        cols, rows = value["columns"], value["rows"]
        sub = f"{path}.{key}" if path else key
        out = []
        for row in rows:
            ctx["row"] = dict(zip(cols, row))
            out.append("[" + ",".join(_shape(v, sub, c, ctx)
                                      for c, v in zip(cols, row)) + "]")
        return ('{"columns":' + json.dumps(cols, separators=(",", ":"))
                + ',"rows":[' + ",".join(out) + "]}")
    if isinstance(value, dict):
        sub = f"{path}.{key}" if key else path
        sub = sub.lstrip(".")
        return "{" + ",".join(json.dumps(k) + ":" + _shape(v, sub, k, ctx)
                              for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_shape(v, path, key, ctx) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def shape_bytes(raw):
    """Bytes of the KEEL-REPORT JSON @raw (parsed with find_report(raw=True))
    with every measured value at a fixed width: times (keys ending in
    "ns"), rates ("gbps"), the per-CPU scrub split, raw ticks; the chosen
    primitive's name as long as the longest candidate's; a node's
    scrubbing CPUs counted as its own CPUs. Two boots of one machine and
    command line have the same shape_bytes() whatever the host's speed.
    """
    nodes = raw.get("nodes") if isinstance(raw, dict) else None
    node_cpus = {}
    if is_table(nodes) and "cpus" in nodes["columns"]:
        for row in nodes["rows"]:
            r = dict(zip(nodes["columns"], row))
            node_cpus[r.get("id")] = r["cpus"]
    calib = raw.get("scrub", {}).get("calibration")
    names = [r[0] for r in calib["rows"]] if is_table(calib) else []
    ctx = {"node_cpus": node_cpus, "row": {},
           "primitive": max((len(n) for n in names), default=9)}
    return len(_shape(raw, "", "", ctx).encode("utf-8"))
