#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Rewrite calls of the heap API before issue 37 section 3 (keel/heap.h cut
to the runtime API on one screen) into today's, in place:

  heap_alloc(o, n, b, f)              -> heap_alloc(o, n, b, f, NULL)
  heap_alloc_maint(o, n, b, f, cm)    -> heap_alloc(o, n, b, f, cm)
  heap_alloc_owned(o, n, f, w, i)     -> heap_alloc_owned(o, n, f, w, i, NULL)
  heap_alloc_owned_maint(..., cm)     -> heap_alloc_owned(..., cm)
  heap_free(pg, o, true/false)        -> heap_free(pg, o, HEAP_FREE_DIRTY/_ZEROED)
  heap_free_clean_poc(pg, o)          -> heap_free(pg, o, HEAP_FREE_CLEAN_POC)
  heap_node_stats(n, &st)             -> heap_stats(n, 0, &st)
  struct heap_node_stats              -> struct heap_stats
  heap_free_pages() and the other all-node counters
                                      -> heap_stats_all(0).free_pages, ...
  heap_owned_pages(w)                 -> heap_stats_all(w).owned_pages

and adds the include each moved call now needs (keel/heap_check.h for
heap_stats_all(), keel/heap_boot.h for the caches, CPU nodes, node count
and adoption, keel/cachemaint.h for heap_set_cachemaint()/heap_cachemaint()).
For a branch written against the old API:

    scripts/heap-api-migrate.py FILE...
"""
import re
import sys

COUNTERS = {
    "heap_free_pages": "free_pages",
    "heap_total_pages": "total_pages",
    "heap_allocated_pages": "allocated_pages",
    "heap_dirty_pages": "dirty_pages",
    "heap_adopted_pages": "adopted_pages",
    "heap_bad_node_count": "bad_node",
}
NEEDS = {
    "keel/heap_check.h": r"\bheap_stats_all\(",
    "keel/heap_boot.h": r"\bheap_(drain_caches|drain_cpu_cache|set_cpu_caches|"
    r"set_cpu_node|cpu_node|node_count|adopt_owned|release_owned)\(",
    "keel/cachemaint.h": r"\bheap_(set_)?cachemaint\(",
}


def args_end(s, i):
    """Index of the ')' closing the '(' at s[i], and the top-level commas."""
    depth, commas, j = 0, [], i
    while j < len(s):
        c = s[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return j, commas
        elif c == "," and depth == 1:
            commas.append(j)
        elif c in "\"'":
            q = c
            j += 1
            while s[j] != q:
                j += 2 if s[j] == "\\" else 1
        j += 1
    raise ValueError("unbalanced call at %d" % i)


def calls(s, name):
    """(start of name, index of '(') of each call of name, last first."""
    found = [(m.start(), m.end() - 1)
             for m in re.finditer(r"\b%s\s*\(" % name, s)]
    return reversed(found)


def add_null(s, name, nargs):
    for _, p in calls(s, name):
        end, commas = args_end(s, p)
        if len(commas) == nargs - 1:
            s = s[:end] + ", NULL" + s[end:]
    return s


def rename(s, old, new):
    return re.sub(r"\b%s\s*\(" % old, new + "(", s)


def migrate(s, path=""):
    s = add_null(s, "heap_alloc", 4)
    s = add_null(s, "heap_alloc_owned", 5)
    s = rename(s, "heap_alloc_maint", "heap_alloc")
    s = rename(s, "heap_alloc_owned_maint", "heap_alloc_owned")
    for _, p in calls(s, "heap_free"):
        end, commas = args_end(s, p)
        if len(commas) == 2:
            arg = s[commas[1] + 1:end].strip()
            how = {"true": "HEAP_FREE_DIRTY",
                   "false": "HEAP_FREE_ZEROED"}.get(arg)
            if how:
                s = s[:commas[1] + 1] + " " + how + s[end:]
    for st, p in calls(s, "heap_free_clean_poc"):
        end, commas = args_end(s, p)
        if len(commas) != 1:
            continue
        s = (s[:st] + "heap_free(" + s[p + 1:end] + ", HEAP_FREE_CLEAN_POC" +
             s[end:])
    for st, p in calls(s, "heap_node_stats"):
        end, commas = args_end(s, p)
        if len(commas) == 1:
            s = (s[:st] + "heap_stats(" + s[p + 1:commas[0]] + ", 0," +
                 s[commas[0] + 1:])
    s = re.sub(r"\bstruct heap_node_stats\b", "struct heap_stats", s)
    for old, field in COUNTERS.items():
        s = re.sub(r"\b%s\s*\(\s*\)" % old, "heap_stats_all(0).%s" % field, s)
    for st, p in calls(s, "heap_owned_pages"):
        end, _ = args_end(s, p)
        if not s[p + 1:end].strip():
            continue
        s = (s[:st] + "heap_stats_all(" + s[p + 1:end] + ").owned_pages" +
             s[end + 1:])
    return add_includes(s, path)


def add_includes(s, path):
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", s, flags=re.S)
    for header, pattern in NEEDS.items():
        if (not re.search(pattern, code) or "<%s>" % header in s or
                path.endswith(header)):
            continue
        incs = list(re.finditer(r"^#include <keel/[^>]+>\n", s, re.M))
        if not incs:
            continue
        # Keep a sorted block sorted where it is.
        at = incs[-1].end()
        for m in incs:
            if m.group(0) > "#include <%s>\n" % header:
                at = m.start()
                break
        s = s[:at] + "#include <%s>\n" % header + s[at:]
    return s


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            old = f.read()
        new = migrate(old, path)
        if new != old:
            with open(path, "w") as f:
                f.write(new)
            print("migrated", path)


if __name__ == "__main__":
    main()
