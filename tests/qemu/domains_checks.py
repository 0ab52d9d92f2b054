# SPDX-License-Identifier: MIT
"""Checks of the report's `domains` table against what a case asked
(domain= words, dom0less nodes), shared by the sandbox and QEMU matrices.

The expected numbers are computed here from the sizes asked, never read
back from keel: bytes rounded up to 4 KiB; extents of a domain built from
the largest blocks, whole GiBs then whole 2 MiBs then pages (when the node
has such blocks free: `exact_extents`); the node of a pinned domain; the
named reason of a domain too big. Each check takes (report, log) and
returns a list of problems."""

PAGE = 4096
MIB = 1 << 20
GIB = 1 << 30


def expected_extents(size):
    """(1 GiB, 2 MiB, 4 KiB) extents of @size built from the largest."""
    g, rest = divmod(size, GIB)
    m, rest = divmod(rest, 2 * MIB)
    return g, m, rest // PAGE


class Ask:
    """One domain asked: @size bytes, pinned to @node (None: any),
    @fails: it must fail for want of memory, @name: its expected name."""

    def __init__(self, size, node=None, fails=False, name=None,
                 big=False):
        self.size = size
        self.node = node
        self.fails = fails
        self.name = name
        # big: the node has free aligned chunks for every extent, so the
        # heap extents are the fewest: one per power of two of the size.
        self.big = big

    def word(self):
        return f"domain={self.size}" + \
            (f"@{self.node}" if self.node is not None else "")


def _row_problems(i, d, ask, exact_extents):
    out = []
    want = -(-ask.size // PAGE) * PAGE
    tag = f"domain {i + 1}"
    if d["id"] != i + 1:
        out.append(f"{tag}: id {d['id']}")
    if d["bytes"] != want:
        out.append(f"{tag}: bytes {d['bytes']}, asked {ask.size} -> {want}")
    if ask.name is not None and d["name"] != ask.name:
        out.append(f"{tag}: name {d['name']!r}, expected {ask.name!r}")
    if ask.node is not None and d["node"] != ask.node:
        out.append(f"{tag}: node {d['node']}, pinned to {ask.node}")
    if ask.fails:
        if not (d["fail_reason"] or "").startswith("out of memory: "):
            out.append(f"{tag}: fail_reason {d['fail_reason']!r}, "
                       "expected out of memory")
        return out
    if d["fail_reason"] is not None:
        return out + [f"{tag}: failed: {d['fail_reason']}"]
    got = (d["extents_1g"], d["extents_2m"], d["extents_4k"])
    if exact_extents and got != expected_extents(want):
        out.append(f"{tag}: extents {got}, expected "
                   f"{expected_extents(want)} for {want} bytes")
    if got[0] * GIB + got[1] * 2 * MIB + got[2] * PAGE != want:
        out.append(f"{tag}: extents {got} do not add up to {want}")
    if ask.big:
        # The fewest extents: one per power of two of its 2 MiB blocks,
        # then one per power of two of the 4 KiB pages below 2 MiB.
        heap = bin(want >> 21).count("1") + \
            bin((want >> 12) & 511).count("1")
        if d["heap_extents"] != heap:
            out.append(f"{tag}: {d['heap_extents']} heap extents, expected "
                       f"{heap} (one per power of two of its size)")
    elif "heap_extents" in d and d["heap_extents"] > sum(got):
        out.append(f"{tag}: {d['heap_extents']} heap extents for "
                   f"{sum(got)} leaves")
    if d["cpus"] < 1 or d["build_ns"] <= 0:
        out.append(f"{tag}: built by {d['cpus']} CPUs in "
                   f"{d['build_ns']} ns")
    return out


def domains_built(asks, exact_extents=True, zero_sampled=False,
                  destroyed=False, local=()):
    """The domains table is what @asks asked (in order). @zero_sampled:
    audit=full read leaves for zero; @destroyed: domains_destroy=on gave
    back every page in no more chunks; @local: indexes of domains that
    must have no remote bytes."""
    def check(rep, log):
        rows = rep.get("domains")
        if rows is None:
            return ["no domains table"]
        left = rep["domains_info"].get("rows_left_out", 0)
        if left:
            return [f"the compact report left {left} domains rows out: "
                    "boot with report=full to check every row"]
        if len(rows) != len(asks):
            return [f"{len(rows)} domains reported, {len(asks)} asked"]
        out = _summary_problems(rep["domains_info"], rows)
        for i, (d, ask) in enumerate(zip(rows, asks)):
            out += _row_problems(i, d, ask, exact_extents)
        for i in local:
            if rows[i]["remote_bytes"]:
                out.append(f"domain {i + 1}: {rows[i]['remote_bytes']} "
                           "remote bytes, expected all local")
        info = rep["domains_info"]
        if info["problems"]:
            out.append(f"domains_info.problems = {info['problems']}")
        if zero_sampled and info["zero_sampled"] < 1:
            out.append("audit=full but no domain leaf was read for zero")
        out += _destroy_problems(info, destroyed)
        return out
    check.wants_log = True
    return check


def _summary_problems(info, rows):
    """domains_info's summary against every row (report=full or few)."""
    built = [d for d in rows if d["fail_reason"] is None]
    want = {"built": len(built), "failed": len(rows) - len(built),
            "built_bytes": sum(d["bytes"] for d in built),
            "table_pages": sum(d["table_pages"] for d in built),
            "rows": len(rows), "rows_left_out": 0}
    return [f"domains_info.{k} {info.get(k)}, the rows say {v}"
            for k, v in want.items() if info.get(k) != v]


def domains_summarised(count, size, nodes):
    """The compact report of @count domains of @size bytes each, domain i
    pinned to node i % @nodes (some too many for the machine's memory): a
    few rows, and a summary that accounts for every domain asked."""
    def check(rep, log):
        info = rep.get("domains_info") or {}
        out = []
        rows = rep.get("domains", [])
        if len(rows) > 4 or info.get("rows") != len(rows) or \
                info.get("rows_left_out") != count - len(rows):
            out.append(f"{len(rows)} rows, domains_info.rows "
                       f"{info.get('rows')}, rows_left_out "
                       f"{info.get('rows_left_out')} for {count} domains")
        built, failed = info.get("built", 0), info.get("failed", 0)
        if built + failed != count or not built or not failed:
            out.append(f"{built} built + {failed} failed, {count} asked "
                       "(some of each expected)")
        if info.get("built_bytes") != built * size:
            out.append(f"built_bytes {info.get('built_bytes')}, expected "
                       f"{built} x {size}")
        per_node = {r["node"]: r["built"] + r["failed"]
                    for r in info.get("by_node", [])}
        want = {n: len(range(n, count, nodes)) for n in range(nodes)}
        if per_node != want:
            out.append(f"by_node counts {per_node}, pinned {want}")
        reasons = info.get("reasons", [])
        if [(r["reason"], r["count"]) for r in reasons] != \
                [("out of memory", failed)]:
            out.append(f"reasons {reasons}, expected {failed} out of memory")
        for d in rows:
            if d["bytes"] != size or d["node"] != (d["id"] - 1) % nodes:
                out.append(f"domain {d['id']}: {d['bytes']} bytes on node "
                           f"{d['node']}")
        return out
    return check


def bench_like_with_like(size, node, trusted=True):
    """bench=on's domain benchmark built the @size domain of @node twice
    on the same memory. Memory trusted clean (@trusted: scrubbed, or
    domains_trust=on, and scrubbed back) is zeroed by neither build and
    cleaned all by eager; deferred cleans only what is not known clean to
    PoC (none on a boot-scrubbed heap, but bench=on's allocation benchmark
    runs first and leaves some chunks clean without it). Untrusted memory
    (bootscrub=off alone) is zeroed and cleaned all by both."""
    def check(rep, log):
        b = (rep.get("domains_info") or {}).get("bench")
        if not b:
            return ["no domains_info.bench"]
        out = []
        if (b["bytes"], b["node"], b["ok"]) != (size, node, True):
            out.append(f"bench of {b['bytes']} bytes on node {b['node']}, "
                       f"ok {b['ok']}; expected {size} on {node}")
        got = (b["eager_zeroed_bytes"], b["eager_maint_bytes"],
               b["deferred_zeroed_bytes"], b["deferred_maint_bytes"])
        want = (0, size, 0, min(got[3], size)) if trusted else (size,) * 4
        if got != want:
            out.append(f"zeroed/cleaned eager {got[:2]}, deferred "
                       f"{got[2:]}; expected {want[:2]}, {want[2:]}")
        return out
    return check


def _destroy_problems(info, destroyed):
    before, after = info["before"], info["after"]
    if not destroyed:
        return [] if after is None else ["domains destroyed, not asked"]
    if after is None or before is None:
        return ["domains_destroy=on but no before/after figures"]
    out = []
    if after["free_pages"] != before["free_pages"]:
        out.append(f"after destroy {after['free_pages']} free pages, "
                   f"{before['free_pages']} before")
    if after["free_chunks"] > before["free_chunks"]:
        out.append(f"after destroy {after['free_chunks']} chunks, "
                   f"{before['free_chunks']} before")
    return out


def warned_once(text):
    """Exactly one `keel: warning:` line containing @text."""
    def check(rep, log):
        lines = [ln for ln in log.splitlines()
                 if "keel: warning:" in ln and text in ln]
        if len(lines) != 1:
            return [f"{len(lines)} warnings about {text!r}, expected 1"]
        return []
    check.wants_log = True
    return check


def human_lines_bounded(limit=16):
    """At most @limit `keel: domain N name:` lines, and the summary line
    (`keel: domains: N built ...`) once."""
    def check(rep, log):
        lines = [ln for ln in log.splitlines()
                 if ln.startswith("keel: domain ") and ": " in ln[13:]]
        summary = [ln for ln in log.splitlines()
                   if ln.startswith("keel: domains: ") and " built (" in ln]
        out = []
        if len(lines) > limit:
            out.append(f"{len(lines)} per-domain lines, at most {limit}")
        if len(summary) != 1:
            out.append(f"{len(summary)} summary lines, expected 1")
        return out
    check.wants_log = True
    return check
