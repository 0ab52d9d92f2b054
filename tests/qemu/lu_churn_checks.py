# SPDX-License-Identifier: MIT
"""A live update after churn restores exactly (issue 37, Tests), shared by
the sandbox case (tests/sandbox/lu_churn_cases.py) and the QEMU case
(tests/qemu/x86_lu_churn_cases.py): every image churned (churn=N, its
blocks and its own domains on every CPU, the per-CPU caches on) before it
built or restored the domain= domains and handed them over. The expected
sizes come from the command line, never from keel's output."""

import re

PAGE = 4096
HANDOVER = re.compile(r"^keel: handover: generation (\d+) from build "
                      r"[0-9a-f]+: \d+ preserved ranges \([^)]*\), "
                      r"(\d+) domains, (\d+) extents, (\d+) bad pages", re.M)


def domain_args(words):
    """[(name, bytes, node)] of the domain=SIZE@NODE words, in order."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    out = []
    for w in words:
        m = re.fullmatch(r"domain=(\d+)([KMG])@(\d+)", w)
        if m:
            out.append((f"domain{len(out)}", int(m[1]) * units[m[2]],
                        int(m[3])))
    return out


def _rows(rep, want):
    """Each restored row is its domain= word's, whole: same bytes, same
    node, none failed, no page offlined; ids 1.. in order."""
    out = []
    rows = rep.get("domains") or []
    got = [(d["id"], d["name"], d["node"], d["bytes"], d["origin"],
            d["fail_reason"], d["bad_pages"]) for d in rows]
    exp = [(i + 1, n, node, size, "handover", None, 0)
           for i, (n, size, node) in enumerate(want)]
    if got != exp:
        out.append(f"domain rows (id, name, node, bytes, origin, fail, "
                   f"bad) {got}, expected {exp}")
    return out


def _books(rep, want):
    """The old images handed over the domains and their tables, nothing
    of the churn: preserved = domains + p2m table pages; the new image's
    audit (full) owns exactly the domains' pages, loses none."""
    out = []
    lu, a = rep["liveupdate"], rep["audit"]
    total = sum(size for _, size, _ in want)
    tables = rep["domains_info"]["table_pages"]
    if lu["preserved_bytes"] != total + tables * PAGE:
        out.append(f"liveupdate.preserved_bytes {lu['preserved_bytes']}, "
                   f"the domains hold {total} + {tables} table pages")
    if a["owned_pages"] * PAGE != total:
        out.append(f"audit.owned_pages {a['owned_pages']}, the domains "
                   f"hold {total // PAGE} pages (a churn domain left?)")
    if a["lost_pages"] or not a["ok"] or a.get("problems") != 0:
        out.append(f"audit lost {a['lost_pages']}, ok {a['ok']}, problems "
                   f"{a.get('problems')} (audit=full expected)")
    return out


def restored_exactly(words, gens):
    """@gens updates, each after a churn, of the domains @words names: the
    handover of every old image says those domains and one extent set, the
    new image restored each whole, read back every word, churned again
    with them in place, and its books balance."""
    want = domain_args(words)

    def check(rep, log):
        lu, out = rep["liveupdate"], []
        exp = {"state": "taken", "generation": gens, "domains": len(want),
               "domains_restored": len(want), "domains_failed": 0,
               "mismatches": 0}
        out += [f"liveupdate.{k} = {lu.get(k)!r}, expected {v!r}"
                for k, v in exp.items() if lu.get(k) != v]
        if not lu.get("verified_words"):
            out.append("liveupdate.verified_words 0: nothing read back")
        said = HANDOVER.findall(log)
        if [int(g) for g, _, _, _ in said] != list(range(1, gens + 1)):
            out.append(f"handover lines of generations "
                       f"{[g for g, _, _, _ in said]}, expected 1..{gens}")
        if any(int(d) != len(want) or int(b) for _, d, _, b in said):
            out.append(f"handovers (generation, domains, extents, bad) "
                       f"{said}: expected {len(want)} domains, 0 bad")
        if len({e for _, _, e, _ in said}) > 1:
            out.append(f"handovers carried different extent counts {said}")
        churns = re.findall(r"^keel: churn: (\d+) ops", log, re.M)
        if not churns or int(churns[-1]) <= 0:
            out.append("the last image did not churn")
        return out + _rows(rep, want) + _books(rep, want)
    check.wants_log = True
    return check
