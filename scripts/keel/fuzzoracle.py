# SPDX-License-Identifier: MIT
"""The oracle of the hostile-map fuzzer (scripts/keel/fuzzmaps.py): what
keel must report for a .fw text, computed from the text alone (the node
map policy of include/keel/nodemap.h, the RAM and reserved pages, which
maps are expected to be refused)."""

import re

from .fuzzfw import (PADDR_BITS, PAGE, PAGE_INFO_BYTES, SECTION_PAGES,
                     SMP_STACK, intersect, merge, parse_fw, subtract, total)

# ---- the oracle ----------------------------------------------------------

NODEMAP_MAX_IDS = 256  # include/keel/nodemap.h: firmware ids tracked


def _fw_distance(fw, a, b):
    """fwdesc.c's lookup: the last valid line a -> b, else the last b -> a."""
    d = rev = 0
    for x, y, v in fw["distance"]:
        if (x == y and v != 10) or (x != y and v <= 10):
            continue  # a line fwdesc.c skips
        if (x, y) == (a, b):
            d = v
        elif (x, y) == (b, a):
            rev = v
    return d or rev


def node_map(fw, maxn, nr):
    """{firmware node id: keel node id}, and the set of kept ids, by the
    policy of include/keel/nodemap.h: keep the lowest @maxn ids (of RAM
    lines and of the cpu lines the build holds) as keel nodes 0, 1, ... in
    id order; the rest go to the kept node nearest by distance[folded][kept], ties by
    distance[kept][folded] then lower keel id; with no usable distance, to
    the lowest kept keel id."""
    ids = {n for _s, _e, n in fw["ram"] if n is not None}
    ids |= {n for _h, n in fw["cpus"][:nr] if n is not None}
    ids = sorted(ids)
    tracked = ids[:NODEMAP_MAX_IDS]
    kept = tracked[:maxn]
    out = {f: i for i, f in enumerate(kept)}
    fallback = 0

    def rank(a, b):
        d = _fw_distance(fw, a, b)
        return d if 10 < d < 255 else None

    for f in ids[len(kept):]:
        best = None
        if f in tracked:
            for k in kept:
                d, r = rank(f, k), rank(k, f)
                if d is None:
                    continue
                key = (d, r if r is not None else 1 << 30, out[k])
                if best is None or key < best[0]:
                    best = (key, out[k])
        out[f] = best[1] if best else fallback
    return out, set(kept)


def _oracle_ram(fw, limit, mapped):
    """RAM lines trimmed inwards to pages and clamped below @limit (a range
    at or above it is dropped), cut into elementary pieces: ids are mapped
    first (fwdesc.c), then the lowest keel node claiming a piece keeps it
    (bootinfo_sanitise()). Return: (pieces, merged RAM)."""
    ram = []
    for s, e, n in fw["ram"]:
        e = min(e, limit)
        s2, e2 = -(-s // PAGE) * PAGE, e // PAGE * PAGE
        if s2 < e2:
            ram.append((s2, e2, 0 if n is None else n))
    points = sorted({p for s, e, _n in ram for p in (s, e)})
    pieces = []
    for s, e in zip(points, points[1:]):
        claim = {n for rs, re_, n in ram if rs <= s and re_ >= e}
        if not claim:
            continue
        ok = {min(mapped(n) for n in claim)}
        if pieces and pieces[-1][1] == s and pieces[-1][2:] == (ok, claim):
            pieces[-1] = (pieces[-1][0], e, ok, claim)
        else:
            pieces.append((s, e, ok, claim))
    return pieces, merge((p[0], p[1]) for p in pieces)


def _oracle_tight(ram_m, free, ncpus):
    """Do the boot's own allocations (section table, one frame table window
    per 128 MiB section, a stack per secondary CPU; each one contiguous and
    page aligned) not fit in the free RAM, packed first-fit decreasing?
    Only such a map may panic for lack of memory."""
    items = []
    if ram_m:
        max_pfn = ram_m[-1][1] // PAGE
        items.append(-(-max_pfn // SECTION_PAGES) * 16)
        windows = {}
        for s, e in ram_m:
            for sec in range(s // PAGE // SECTION_PAGES,
                             (e // PAGE - 1) // SECTION_PAGES + 1):
                lo = max(s // PAGE, sec * SECTION_PAGES)
                hi = min(e // PAGE, (sec + 1) * SECTION_PAGES)
                w = windows.get(sec)
                windows[sec] = (min(lo, w[0]), max(hi, w[1])) if w \
                    else (lo, hi)
        items += [(hi - lo) * PAGE_INFO_BYTES for lo, hi in windows.values()]
        items += [SMP_STACK] * (ncpus - 1)
    bins = sorted((e - s for s, e in free), reverse=True)
    for size in sorted((-(-i // PAGE) * PAGE for i in items), reverse=True):
        for k, room in enumerate(bins):
            if room >= size:
                bins[k] -= size
                break
        else:
            return True
    return False


def _oracle_dead(cmdline, ncpus):
    """Logical CPUs that inject=ap-timeout:N keeps from checking in (N in
    1..ncpus-1; others are refused with a warning)."""
    dead = set()
    for w in cmdline:
        m = re.fullmatch(r"inject=ap-timeout:(\d+)", w)
        if m and 1 <= int(m.group(1)) < ncpus:
            dead.add(int(m.group(1)))
    return dead


def oracle(text, cfg):
    """What a correct keel must report for the map @text."""
    fw = parse_fw(text)
    maxn, nr = cfg["max_numnodes"], cfg["nr_cpus"]
    limit = 1 << cfg.get("paddr_bits", PADDR_BITS)
    cpus, seen = [], set()
    for hwid, n in fw["cpus"][:nr]:
        if hwid not in seen:
            seen.add(hwid)
            cpus.append((hwid, 0 if n is None else n))
    if not cpus:
        cpus = [(0, 0)]  # sanitise assumes one boot CPU, hwid 0, node 0
    nmap, kept = node_map(fw, maxn, nr)
    folds = {f: {n} for f, n in nmap.items() if f not in kept}

    def mapped(n):
        return nmap.get(n, 0)

    def accept(n):
        return {mapped(n)}

    pieces, ram_m = _oracle_ram(fw, limit, mapped)
    rsv = []
    for s, e, _name in fw["reserved"]:
        s2 = s // PAGE * PAGE
        e2 = min(-(-e // PAGE) * PAGE, (1 << 64) - PAGE)
        if s2 < e2:
            rsv.append((s2, e2))
    rsv_m = merge(rsv)
    # The canary's pages: reserved x raw RAM lines (trimmed), below the
    # arena's top (arch/sandbox/main.c: lines starting below the limit).
    top = max((min(e, limit) for s, e, _n in fw["ram"] if s < limit),
              default=0)
    raw_ram = merge((-(-s // PAGE) * PAGE, min(e // PAGE * PAGE, top))
                    for s, e, _n in fw["ram"])
    free = subtract(ram_m, rsv_m)
    return {"fw": fw, "pieces": pieces, "ram": ram_m, "reserved": rsv_m,
            "free_bytes": total(free), "free": free,
            "must_reserve": intersect(ram_m, rsv_m),
            "canary_pages": total(intersect(raw_ram, rsv_m)) // PAGE,
            "no_ram": not ram_m, "tight": _oracle_tight(ram_m, free,
                                                         len(cpus)),
            "cpus": cpus, "dead": _oracle_dead(fw["cmdline"], len(cpus)),
            "folds": folds, "kept": kept, "accept": accept,
            "dropped_ram_expected": len(fw["ram"]) > 256}
