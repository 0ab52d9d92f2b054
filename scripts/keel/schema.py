# SPDX-License-Identifier: MIT
"""The KEEL-REPORT schema, written once: report_schema.json beside this file.

Each entry of report_schema.json is one row of the key table of
docs/report-format.md: "keys" (paths: "heap.chunks", "cpus[].id" for a
table column), "type" (int, number, string, bool, list, object, table,
"int or null", "string or null"), "meaning" (the doc text; "{columns}" and
"{fields}" stand for the entry's "columns" / "fields", the key -> type
maps of a table's rows and of an object), and "optional" (present only on
some boots: `el` on arm64, `stress` with stress=N). Everything else is in
every report.

Three users agree through it:
  - check(report) (used by report.check_parsed(), so by every test boot):
    every key the report has is documented, every key not optional is
    there, every value has its type: common/report/report.c cannot print a key
    the schema lacks nor drop one it has;
  - doc_table() renders the key table; docs/report-format.md holds it
    between the markers below, and `python3 -m scripts.keel.schema --doc`
    rewrites it (tests/scripts_test.py fails when the two differ);
  - nothing else lists report keys.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_JSON = os.path.join(HERE, "report_schema.json")
DOC = os.path.join(HERE, "..", "..", "docs", "report-format.md")
BEGIN = "<!-- report keys: generated from scripts/keel/report_schema.json -->"
END = "<!-- end of report keys -->"

with open(SCHEMA_JSON) as _f:
    ENTRIES = json.load(_f)


def _types():
    """{path: (type, optional)} for every documented key, parents too."""
    out = {}
    for e in ENTRIES:
        opt = e.get("optional", False)
        for k in e["keys"]:
            path = k[:-2] if k.endswith("[]") else k
            out[path] = (e["type"], opt)
            for col, t in e.get("columns", {}).items():
                out[f"{path}[].{col}"] = (t, opt)
            for f, t in e.get("fields", {}).items():
                out[f"{path}.{f}"] = (t, opt)
    for path in list(out):
        parts = path.split(".")
        for i in range(1, len(parts)):
            parent = ".".join(parts[:i])
            if parent.endswith("[]"):
                continue
            out.setdefault(parent, ("object", out[path][1]))
    return out


TYPES = _types()


def type_ok(value, kind):
    """Does @value have the schema type @kind?"""
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "table":  # expanded: a list of objects
        return isinstance(value, list) and all(isinstance(r, dict)
                                               for r in value)
    if kind.endswith(" or null"):
        return value is None or type_ok(value, kind[:-len(" or null")])
    raise ValueError(f"unknown schema type {kind!r}")


def _walk(value, path, out):
    """Every (path, value) of an expanded report: "a.b", "t[].col"."""
    if isinstance(value, dict):
        for k, v in value.items():
            p = f"{path}.{k}" if path else k
            out.append((p, v))
            _walk(v, p, out)
    elif (isinstance(value, list) and value
          and all(isinstance(r, dict) for r in value)
          and TYPES.get(path, ("",))[0] == "table"):
        for row in value:
            for k, v in row.items():
                p = f"{path}[].{k}"
                out.append((p, v))
                _walk(v, p, out)


def check(rep):
    """Problems of an expanded report against the schema: undocumented
    keys, missing keys, values of the wrong type. Return: a list."""
    out = []
    seen = set()
    pairs = []
    _walk(rep, "", pairs)
    for path, value in pairs:
        seen.add(path)
        if path not in TYPES:
            out.append(f"key {path} is not in the report schema "
                       "(scripts/keel/report_schema.json)")
        elif not type_ok(value, TYPES[path][0]):
            out.append(f"{path}: expected {TYPES[path][0]}, got "
                       f"{value!r:.40}")
    for path, (kind, optional) in TYPES.items():
        if optional or path in seen:
            continue
        if "[]." in path:
            table = path.rsplit("[].", 1)[0]
            if not _table_rows(rep, table):
                continue  # no rows: no columns to see
        out.append(f"missing key {path}")
    return out


def _table_rows(rep, table):
    """The rows of the (expanded) table at @table, [] when none."""
    value = rep
    for part in table.split("."):
        if part.endswith("[]"):
            return []  # a table inside a table: none in the schema
        if not isinstance(value, dict) or part not in value:
            return []
        value = value[part]
    return value if isinstance(value, list) else []


def _render_keys(keys):
    first = keys[0]
    rest = []
    base = first.rsplit(".", 1)[0] if "." in first else None
    for k in keys[1:]:
        if base and k.startswith(base + "."):
            rest.append("." + k[len(base) + 1:])
        else:
            rest.append(k)
    return ", ".join(f"`{k}`" for k in [first] + rest)


def _brace(names):
    return "`{" + ", ".join(names) + "}`"


def doc_table():
    """The key table of docs/report-format.md, as markdown lines."""
    lines = ["| key | type | meaning |", "|---|---|---|"]
    for e in ENTRIES:
        meaning = e["meaning"]
        meaning = meaning.replace("{columns}",
                                  _brace(e.get("columns", {})))
        meaning = meaning.replace("{fields}", _brace(e.get("fields", {})))
        lines.append(f"| {_render_keys(e['keys'])} | {e['type']} | "
                     f"{meaning} |")
    return lines


def doc_current(text):
    """The generated block of @text (docs/report-format.md), or None."""
    if BEGIN not in text or END not in text:
        return None
    body = text.split(BEGIN, 1)[1].split(END, 1)[0]
    return [ln for ln in body.strip("\n").splitlines()]


def write_doc(path=DOC):
    """Rewrite the generated block of @path. Return: True if it changed."""
    with open(path) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: no {BEGIN!r} ... {END!r} block")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = head + BEGIN + "\n" + "\n".join(doc_table()) + "\n" + END + tail
    if new != text:
        with open(path, "w") as f:
            f.write(new)
    return new != text


def main(argv):
    if argv[1:] == ["--doc"]:
        changed = write_doc()
        print(f"{os.path.relpath(DOC)}: {'rewritten' if changed else 'up to date'}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
