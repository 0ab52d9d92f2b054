#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Memory that fails (issue 38), markdown and JSON: the `ras` part of
`make bench`.

Usage: bench-ras.py SANDBOX_KEEL [--offline-bin build/bench/heap_offline]
                    [--quick] [--runs N] [--lu-blocks] [--lu-rows KEYS]
                    [--work DIR]
                    [--md FILE] [--json FILE] [--timeout S]

1. Offline in a free chunk: tests/bench/heap_offline (a host linking the
   optimised sandbox build's libkeel.a) offlines a middle page of a free
   chunk of order 0, 9 and 18 (1 GiB), REPS times each, and prints the
   median ns per offline (the clock's own cost taken off), the page
   entries written (heap_stats()'s offline_writes) and, for scale, the
   time to read every page entry of the chunk once (what Xen's rescan
   reads). Run --runs times, each a fresh process; per order the median
   over the runs, and order 18 / order 0 the median of the ratios run by
   run. Target: order 18 <= 20x order 0.
2. Handoff with bad pages: a sandbox machine of 1 TiB (2 nodes of 512 GiB,
   sparse arena, `bootscrub=off`) with 0, 1,000 and 100,000 scattered bad
   pages from the firmware description's `bad START END` lines (one page
   each, random.Random(38): the 100,000 are those of the sandbox case
   bad-100k-1tib). heap.init_ns (the heap's handoff), heap.chunks and the
   host page faults of the boot (getrusage of the children), --runs boots
   of each, the three machines alternating; medians and their ratios to
   none. Targets: 1,000 <= 2x none; beyond, O(bad pages): the cost per
   added bad page stated, 1,000 -> 100,000 against 0 -> 1,000. Beside
   it, the same handoff without host page faults: a 4 GiB machine, the
   arena prefaulted (`--prefault`), with 0 and 1,000 bad pages.
3. A live update with bad pages: the 1 TiB machine with no bad page, with
   the 100,000 bad pages of 2. as the firmware's `bad` lines (every image
   reads them itself), and with 100,000 that reach the new image only
   through the handover: the host's runtime history, the description's
   `mce` lines, which the old image offlines as machine checks once its
   heap is open and the new image ignores (arch/sandbox/mce_history.c;
   random.Random(38) pages outside the top 4 GiB of each node, where
   keel's own tables lie and heap_offline() refuses). `liveupdate=1` and
   two domains of 1 GiB (one a node), `bootscrub=off domains_trust=on
   cachemaint=none` as the `liveupdate` part; liveupdate.downtime_ns and
   its phases (and without the sandbox's relocate, an exec), medians of
   --runs updates each (at least 9, --quick 5: one downtime of the row
   without bad pages spans 1.9 to 3.7 ms on a quiet 2-core host, most of
   it the exec), alternating (--lu-blocks: each row's back to back: a
   row without bad pages right after one with them runs slower, the host
   still busy with the 2 GB that boot touched; --lu-rows none,handover:
   those rows alone). Target: 100,000 <= 1.5x none, for each source.

--runs: default 5 (--quick: 3, and 2000 offlines per order instead of
20000). Every boot must pass with the bad pages counted
(bad_memory.pages) and, for the updates, 0 mismatches; a boot that does
not is an error of the part, not a row. The verdicts are computed here
from this run's numbers; nothing is typed in.
"""

import itertools
import os
import random
import re
import resource
import statistics
import subprocess
import sys

from keel import boot
from keel.bench import fmt_ns, host_info, parse, parser, write_outputs
from keel.boot import TOP

PAGE = 4096
GIB = 1 << 30
TIB = 1 << 40
OFFLINE_BIN = os.path.join(TOP, "build", "bench", "heap_offline")
OFFLINE_ROW = re.compile(r"^\| (\d+) \| (\d+) \| (\d+) \| [\d.]+ \| (\d+) \|$")
ORDERS = (0, 9, 18)
BAD_COUNTS = (0, 1000, 100000)
# The live update's rows: (key, bad pages, the description's line).
LU_ROWS = (("none", 0, "bad"), ("firmware", 100000, "bad"),
           ("handover", 100000, "mce"))
LU_NAMES = {"none": "none", "firmware": "firmware `bad` lines",
            "handover": "runtime (`mce`), through the handover"}
PRE_COUNTS = (0, 1000)
WORDS = ["bootscrub=off"]
LU_WORDS = ["bootscrub=off", "domains_trust=on", "cachemaint=none",
            "liveupdate=1", "domain=1G@0", "domain=1G@1"]
SEED = 38
# Boot phases of the (last) image, from its trace: where the time goes.
# heap_init is the handoff (a live update's new image: its first step, in
# the downtime), heap_rest the second step after the restore (absent on
# a boot without domains to restore).
PHASES = ("bootmem", "frametable", "heap_init", "heap_rest")


def med(xs):
    return statistics.median(xs) if xs else None


def offline_runs(exe, runs, reps, timeout):
    """Each run: {order: (entries, ns, rescan_ns)} of one fresh process."""
    out = []
    for _ in range(runs):
        res = subprocess.run([exe, str(reps)], capture_output=True,
                             text=True, timeout=timeout, check=False)
        rows = {}
        for line in res.stdout.splitlines():
            m = OFFLINE_ROW.match(line.strip())
            if m:
                rows[int(m.group(1))] = tuple(map(int, m.groups()[1:]))
        if res.returncode or sorted(rows) != list(ORDERS):
            raise SystemExit(f"bench-ras: {exe} {reps} failed "
                             f"({res.returncode}): {res.stdout.strip()} "
                             f"{res.stderr.strip()}")
        out.append(rows)
    return out


def offline_summary(runs):
    per = {}
    for k in ORDERS:
        per[k] = {"entries": med([r[k][0] for r in runs]),
                  "ns": med([r[k][1] for r in runs]),
                  "rescan_ns": med([r[k][2] for r in runs]),
                  "ns_runs": [r[k][1] for r in runs]}
    ratios = [r[18][1] / max(r[0][1], 1) for r in runs]
    return {"orders": per, "ratio_18_0": med(ratios),
            "ratio_runs": ratios}


# The machines: RAM bytes and the firmware description's lines.
MACHINES = {
    "1t": (TIB, ["ram 0 512G node=0", "ram 512G 1T node=1",
                 "cpu 0 node=0", "cpu 1 node=1"]),
    "4g": (4 * GIB, ["ram 0 4G node=0", "cpu 0 node=0"]),
}


# Pages an `mce` line may name: each node's RAM but its top 4 GiB (the
# frame table and keel's other tables, which heap_offline() refuses).
MCE_SPANS = ((1, (508 << 30) // PAGE), ((512 << 30) // PAGE,
                                        (1020 << 30) // PAGE))


def write_fw(path, machine, bad, kind="bad"):
    """@machine with @bad scattered single bad pages (seed SEED), as
    `bad` lines (the firmware's) in @path, or as `mce` lines (a runtime
    history) in @path + ".mce", a file of its own that only the first
    image reads (the sandbox's --mce-history=).
    Return: the sandbox options that boot it."""
    ram, lines = MACHINES[machine]
    if kind == "mce":
        pool = [range(a, b) for a, b in MCE_SPANS]
        n = sum(len(r) for r in pool)
        idx = random.Random(SEED).sample(range(n), bad)
        pfns = sorted(pool[0][i] if i < len(pool[0])
                      else pool[1][i - len(pool[0])] for i in idx)
    else:
        pfns = sorted(random.Random(SEED).sample(range(1, ram // PAGE),
                                                 bad)) if bad else []
    with open(path, "w", encoding="utf-8") as f:
        f.write("# generated by scripts/bench-ras.py\n")
        f.write("\n".join(lines) + "\n")
        if kind != "mce":
            for p in pfns:
                f.write(f"bad {p * PAGE:#x} {(p + 1) * PAGE:#x}\n")
    if kind != "mce":
        return []
    with open(path + ".mce", "w", encoding="utf-8") as f:
        f.write("# generated by scripts/bench-ras.py\n")
        for p in pfns:
            f.write(f"mce {p * PAGE:#x} {(p + 1) * PAGE:#x}\n")
    return [f"--mce-history={path}.mce"]


def phase_ns(rep, name):
    """ns between the trace's begin and end of @name (the last image's
    boot phases: bootmem, frametable, heap_init), or None."""
    # keel.report gives a table's rows as dicts.
    at = {r["kind"]: r["ns"] for r in rep.get("trace") or []
          if r.get("name") == name}
    if "begin" in at and "end" in at:
        return at["end"] - at["begin"]
    return None


def one_boot(keel, fw, words, bad, timeout, opts=()):
    """One sandbox boot; its report's numbers and the host page faults."""
    f0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    b = boot.sandbox(keel, fw, words, opts=opts, timeout=timeout)
    faults = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - f0
    rep = b.report
    why = b.problems(0, {})
    if not why and rep["bad_memory"]["pages"] != bad:
        why = [f"bad_memory.pages {rep['bad_memory']['pages']}, want {bad}"]
    lu = (rep or {}).get("liveupdate") or {}
    if not why and "liveupdate=1" in words and \
            (lu.get("state") != "taken" or lu.get("mismatches") or
             lu.get("domains_restored") != 2):
        why = [f"liveupdate state {lu.get('state')}, restored "
               f"{lu.get('domains_restored')}, mismatches "
               f"{lu.get('mismatches')}"]
    if why:
        raise SystemExit(f"bench-ras: {' '.join(b.cmd)}: {why[0]}")
    row = {"init_ns": rep["heap"]["init_ns"], "chunks": rep["heap"]["chunks"],
           "faults": faults, "wall_s": round(b.elapsed, 3),
           "frametable_pieces": rep["bootmem"]["frametable_pieces"]}
    for p in PHASES:
        row[p + "_ns"] = phase_ns(rep, p)
    if "liveupdate=1" in words:
        row.update(downtime_ns=lu["downtime_ns"], phases=lu["phases"],
                   extents=lu["extents"], handover_bytes=lu["handover_bytes"])
    return row


def boots(keel, work, counts, words, args, machine="1t", opts=()):
    """--runs boots of @machine with each bad-page count of @counts,
    alternating: {count: [row]}."""
    fws = {}
    for n in counts:
        fws[n] = os.path.join(work, f"ras-{machine}-{n}.fw")
        write_fw(fws[n], machine, n)
    out = {n: [] for n in counts}
    for _ in range(args.runs):
        for n in counts:
            out[n].append(one_boot(keel, fws[n], words, n, args.timeout,
                                   opts))
    return out


def lu_boots(keel, work, args):
    """lu_runs() updates of each of LU_ROWS, alternating: {key: [row]}."""
    fws, opts = {}, {}
    for key, n, kind in LU_ROWS:
        fws[key] = os.path.join(work, f"ras-lu-{key}.fw")
        opts[key] = write_fw(fws[key], "1t", n, kind)
    out = {key: [] for key, _, _ in LU_ROWS}
    if args.lu_blocks:  # each row's updates back to back
        for key, n, _ in LU_ROWS:
            for _ in range(lu_runs(args)):
                out[key].append(one_boot(keel, fws[key], LU_WORDS, n,
                                         args.timeout, opts[key]))
        return out
    # Each round the rows in another order, every order in turn: an
    # update right after a boot that touched GBs (the firmware row's) runs
    # slower, so that no row always comes after the same one.
    orders = list(itertools.permutations(LU_ROWS))
    for i in range(lu_runs(args)):
        for key, n, _ in orders[i % len(orders)]:
            out[key].append(one_boot(keel, fws[key], LU_WORDS, n,
                                     args.timeout, opts[key]))
    return out


def lu_runs(args):
    """Updates a row: --runs, at least 9 (--quick: 5). A downtime is a few
    ms of which the sandbox's exec is half, and its spread from run to
    run (1.9 to 3.7 ms without bad pages) is the size of the difference
    measured: a median of 5 moves the verdict either way."""
    return max(args.runs, 5 if args.quick else 9)


def phases_med(rs):
    out = {}
    for p in PHASES:
        v = [r[p + "_ns"] for r in rs if r[p + "_ns"] is not None]
        out[p + "_ns"] = med(v)
    return out


def handoff_summary(rows):
    s = {}
    for n, rs in rows.items():
        s[n] = {k: med([r[k] for r in rs])
                for k in ("init_ns", "chunks", "faults", "wall_s",
                          "frametable_pieces")}
        s[n].update(phases_med(rs))
        s[n]["init_ns_runs"] = [r["init_ns"] for r in rs]
    base = s[0]["init_ns"]
    for n in rows:
        s[n]["ratio"] = s[n]["init_ns"] / base
    return s


def lu_summary(rows):
    s = {}
    for n, rs in rows.items():
        s[n] = {k: med([r[k] for r in rs])
                for k in ("downtime_ns", "init_ns", "chunks", "faults",
                          "extents", "handover_bytes", "frametable_pieces")}
        s[n].update(phases_med(rs))
        s[n]["downtime_ns_runs"] = [r["downtime_ns"] for r in rs]
        s[n]["downtime_ns_min"] = min(s[n]["downtime_ns_runs"])
        s[n]["phases"] = {p: med([r["phases"][p] for r in rs])
                          for p in rs[0]["phases"]}
    for key, _, _ in LU_ROWS:
        s[key]["ratio"] = s[key]["downtime_ns"] / s["none"]["downtime_ns"]
        s[key]["ratio_min"] = s[key]["downtime_ns_min"] / \
            s["none"]["downtime_ns_min"]
        s[key]["ratio_less_relocate"] = less_relocate(s[key]) / \
            less_relocate(s["none"])
    return s


def less_relocate(r):
    """The downtime without its relocate phase: in the sandbox an exec
    (the old process's address space is held by a helper and torn down
    after the verify, docs/liveupdate.md; what is left is the new program
    loaded), where hardware copies the image."""
    return r["downtime_ns"] - r["phases"]["relocate"]


def per_added(s, a, b, key):
    """ns of @key per bad page added between the machines @a and @b."""
    return (s[b][key] - s[a][key]) / (b - a)


def targets(off, ho, pre, lu):
    """(target, measured, met) of the numbers of this part."""
    o = off["orders"]
    t = [("offline: order 18 <= 20x order 0",
          f"{off['ratio_18_0']:.1f}x ({fmt_ns(o[0]['ns'])} -> "
          f"{fmt_ns(o[18]['ns'])}; {o[0]['entries']:.0f} -> "
          f"{o[18]['entries']:.0f} page entries written)",
          off["ratio_18_0"] <= 20)]
    r = ho[1000]["ratio"]
    t.append(("handoff: 1,000 bad pages <= 2x none (1 TiB)",
              f"{r:.1f}x ({fmt_ns(ho[0]['init_ns'])} -> "
              f"{fmt_ns(ho[1000]['init_ns'])}; chunks "
              f"{ho[0]['chunks']:.0f} -> {ho[1000]['chunks']:.0f}: a "
              "node's free ranges across bad pages are handed as one span, "
              "a chunk straddling a bad page is deferred (recorded, no "
              "head written, split when first needed: "
              "common/mm/heap_defer.c), "
              f"{fmt_ns(per_added(ho, 0, 1000, 'init_ns'))} per bad page "
              "(4 GiB prefaulted: "
              f"{fmt_ns(pre[0]['init_ns'])} -> "
              f"{fmt_ns(pre[1000]['init_ns'])}))",
              r <= 2))
    lo = per_added(ho, 0, 1000, "init_ns")
    hi = per_added(ho, 1000, 100000, "init_ns")
    # O(bad pages): the cost of a bad page does not grow with their
    # number; 1.5x of slack for the host's noise and page faults.
    t.append(("handoff: O(bad pages) beyond 1,000 (ns per added bad page "
              "1,000 -> 100,000 <= 1.5x that of 0 -> 1,000)",
              f"{fmt_ns(hi)} per bad page (0 -> 1,000: {fmt_ns(lo)}; "
              f"{per_added(ho, 1000, 100000, 'chunks'):.1f} chunks and "
              f"{per_added(ho, 1000, 100000, 'faults'):.1f} host page "
              "faults per bad page)", hi <= 1.5 * lo))
    z = lu["none"]
    for key, _, _ in LU_ROWS[1:]:
        r = lu[key]
        t.append((f"live update: downtime with 100,000 bad pages "
                  f"({LU_NAMES[key]}) <= 1.5x none",
                  f"{r['ratio']:.2f}x ({fmt_ns(z['downtime_ns'])} -> "
                  f"{fmt_ns(r['downtime_ns'])}; less the sandbox's "
                  f"relocate, its exec: {r['ratio_less_relocate']:.2f}x, "
                  f"{fmt_ns(less_relocate(z))} -> "
                  f"{fmt_ns(less_relocate(r))}; the fastest update of "
                  f"each row: {r['ratio_min']:.2f}x, "
                  f"{fmt_ns(z['downtime_ns_min'])} -> "
                  f"{fmt_ns(r['downtime_ns_min'])})", r["ratio"] <= 1.5))
    return t


def md_offline(off, args, reps):
    """The offline section."""
    o = off["orders"]
    out = ["## Offline of a page in a free chunk", "",
           f"`build/bench/heap_offline {reps}` (tests/bench/heap_offline.c, "
           "a host linking the optimised sandbox build's libkeel.a), "
           f"{args.runs} runs, each a fresh process: the median ns of "
           f"{reps} offlines of a middle page of one free chunk (brought "
           "back whole by heap_online() after each, untimed), the clock's "
           "cost taken off; the median over the runs. Rescan: one read of "
           "each of the chunk's page entries, what Xen's offline_page() "
           "walks, for scale.", "",
           "| free chunk order | page entries written | ns/offline | "
           "x order 0 | rescan of its entries |", "|---|---|---|---|---|"]
    for k in ORDERS:
        out.append(f"| {k} | {o[k]['entries']:.0f} | {o[k]['ns']:.0f} | "
                   f"{o[k]['ns'] / max(o[0]['ns'], 1):.1f} | "
                   f"{fmt_ns(o[k]['rescan_ns'])} |")
    return out + ["", "Order 18 / order 0, the median of the ratios run by "
                  f"run: {off['ratio_18_0']:.1f}x (runs: "
                  + ", ".join(f"{x:.1f}" for x in off["ratio_runs"]) + ")."]


def md_handoff(ho, pre, args):
    """The handoff sections: 1 TiB sparse, then 4 GiB prefaulted."""
    out = ["## Heap handoff with bad pages (1 TiB sandbox)", "",
           "2 nodes of 512 GiB, 2 CPUs, `bootscrub=off`, the bad pages "
           "from the firmware description's `bad` lines (one page each, "
           "scattered at random over the whole TiB, seed 38). "
           f"{args.runs} boots per row, the rows alternating; medians. The "
           "arena is sparse: every chunk head the handoff writes in a "
           "frame-table page not yet touched is a host page fault "
           "(counted: minor faults of the whole boot), a cost hardware "
           "does not have. The handoff writes one head per ordinary "
           "chunk; a chunk straddling a bad page is deferred (recorded, "
           "split when first needed, common/mm/heap_defer.c), so most "
           "of the faults counted are the later walks of free memory "
           "(the audit settles every deferred chunk), not heap.init_ns.",
           "",
           "| bad pages | heap.init_ns | x none | heap.chunks | host page "
           "faults | boot wall | bootmem phase | frame table phase "
           "(pieces) | all runs (heap.init_ns) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for n in BAD_COUNTS:
        h = ho[n]
        out.append(f"| {n:,} | {fmt_ns(h['init_ns'])} | {h['ratio']:.1f} | "
                   f"{h['chunks']:.0f} | {h['faults']:.0f} | "
                   f"{h['wall_s']:.2f} s | {fmt_ns(h['bootmem_ns'])} | "
                   f"{fmt_ns(h['frametable_ns'])} "
                   f"({h['frametable_pieces']:.0f}) | "
                   + ", ".join(fmt_ns(x) for x in h["init_ns_runs"]) + " |")
    out += ["", "Per bad page added: 0 -> 1,000: "
            f"{fmt_ns(per_added(ho, 0, 1000, 'init_ns'))}, "
            f"{per_added(ho, 0, 1000, 'chunks'):.1f} chunks, "
            f"{per_added(ho, 0, 1000, 'faults'):.1f} page faults; "
            "1,000 -> 100,000: "
            f"{fmt_ns(per_added(ho, 1000, 100000, 'init_ns'))}, "
            f"{per_added(ho, 1000, 100000, 'chunks'):.1f} chunks, "
            f"{per_added(ho, 1000, 100000, 'faults'):.1f} page faults. "
            "Per chunk at 100,000: "
            f"{fmt_ns(ho[100000]['init_ns'] / ho[100000]['chunks'])}.", "",
            "The same without host page faults: 4 GiB in one node, the "
            "arena prefaulted (`--prefault`), 0 and 1,000 bad pages (seed "
            f"38), {args.runs} boots each, medians:", "",
            "| bad pages | heap.init_ns | x none | heap.chunks | per chunk "
            "| host page faults |", "|---|---|---|---|---|---|"]
    for n in PRE_COUNTS:
        h = pre[n]
        out.append(f"| {n:,} | {fmt_ns(h['init_ns'])} | {h['ratio']:.1f} | "
                   f"{h['chunks']:.0f} | "
                   f"{fmt_ns(h['init_ns'] / h['chunks'])} | "
                   f"{h['faults']:.0f} |")
    return out


def lu_intro(args):
    """The live-update section's first paragraph: what ran, how."""
    return (f"`{' '.join(LU_WORDS)}` on the 1 TiB machine above: with no "
            "bad page; with the 100,000 of the handoff as the firmware's "
            "`bad` lines (a firmware map naming that many is not "
            "realistic), which the old image carries in the handover's "
            "bad-page records and leaves out of the description it passes "
            "the new one (arch/sandbox/fw_condense.c, docs/liveupdate.md), "
            "random pages over the whole TiB, the top 4 GiB of each node "
            "too, where the new image's frame table goes; and with 100,000 "
            "that "
            "reach the new image only through the handover's bad-page "
            "records, as a host that has run for years carries the pages "
            "its machine checks took out: `mce` lines in a file of their "
            "own (the sandbox's `--mce-history=`, arch/sandbox/"
            "mce_history.c), offlined by the first image as machine checks "
            "once its heap is open; the new image is not given the file "
            "(random pages, seed 38, outside the top 4 GiB of each node, "
            "where keel's own tables lie). "
            "liveupdate.downtime_ns (the old image's freeze to the new "
            "image's domains restored) and its phases; "
            f"{lu_runs(args)} updates per row, "
            + ("each row's back to back (--lu-blocks)"
               if args.lu_blocks else
               "alternating, each round in another order of the rows")
            + ("" if len(LU_ROWS) == 3 else
               f", the rows {', '.join(k for k, _, _ in LU_ROWS)} only "
               "(--lu-rows)")
            + "; medians. "
            "The new image hands the heap its free RAM in two steps "
            "(docs/liveupdate.md): the first 64 MiB in the downtime "
            "(trace heap_init), the rest once the domains are restored "
            "(trace heap_rest); heap.init_ns is both. "
            "In the sandbox, relocate is an exec: the new program loaded; "
            "the old process's address space (one page-table entry per arena "
            "page its boot touched), a cost hardware, where relocate copies "
            "the image, does not have, is held by a helper task across the "
            "exec and torn down after the new image's verify, out of the "
            "downtime (docs/liveupdate.md). "
            "On this 2-core host an update falls in one of two modes, "
            "whatever its row and its place in the order (seen 2026-12: "
            "1.6 to 2.2 ms and 3.5 to 6 ms without bad pages): which mode "
            "a row's middle run falls in moves its median by up to 2x, so "
            "the targets also give the fastest update of each row, the "
            "work that nothing else lengthened; the verdict stays on the "
            "medians.")


def md_liveupdate(lu, args):
    """The live-update section."""
    out = ["## Live update with bad pages (1 TiB sandbox)", "",
           lu_intro(args), ""]
    names = list(lu["none"]["phases"])
    out += ["| bad pages | source | downtime | x none | " + " | ".join(names) +
            " | downtime less relocate | new image's bootmem phase | its "
            "frame table phase (pieces) | its heap handoff: first step | "
            "second step | heap.init_ns | extents | handover bytes | "
            "all runs (downtime) |",
            "|---|---|---|---|" + "---|" * (len(names) + 9)]
    for key, n, _ in LU_ROWS:
        r = lu[key]
        out.append(f"| {n:,} | {LU_NAMES[key]} | "
                   f"{fmt_ns(r['downtime_ns'])} | {r['ratio']:.2f} | "
                   + " | ".join(fmt_ns(r["phases"][p]) for p in names) +
                   f" | {fmt_ns(less_relocate(r))} | "
                   f"{fmt_ns(r['bootmem_ns'])} | "
                   f"{fmt_ns(r['frametable_ns'])} "
                   f"({r['frametable_pieces']:.0f}) | "
                   f"{fmt_ns(r['heap_init_ns'])} | "
                   f"{fmt_ns(r['heap_rest_ns'])} | "
                   f"{fmt_ns(r['init_ns'])} | {r['extents']:.0f} | "
                   f"{r['handover_bytes']:.0f} | "
                   + ", ".join(fmt_ns(x) for x in r["downtime_ns_runs"])
                   + " |")
    return out + lu_breakdown(lu)


def lu_breakdown(lu):
    """One paragraph a row: where the new image's entry_to_heap goes."""
    out = []
    for key, n, _ in LU_ROWS:
        r = lu[key]
        e = r["phases"].get("entry_to_heap")
        parts = [r["bootmem_ns"], r["frametable_ns"], r["heap_init_ns"]]
        if e is None or None in parts:
            continue
        out += ["", f"{n:,} bad pages ({LU_NAMES[key]}): entry_to_heap "
                f"{fmt_ns(e)}, of which the new image's bootmem phase {fmt_ns(parts[0])}, its "
                f"frame table phase {fmt_ns(parts[1])} and its heap "
                f"handoff's first step {fmt_ns(parts[2])} "
                f"({sum(parts) / e:.0%}; the rest is the firmware "
                "description and the handover read and the CPUs started); "
                "downtime less "
                f"entry_to_heap: {fmt_ns(r['downtime_ns'] - e)}."]
    return out


def markdown(off, ho, pre, lu, args, reps):
    out = ["# Memory that fails (issue 38)", "",
           f"`scripts/bench-ras.py{' --quick' if args.quick else ''}`; "
           "alone: `make bench BENCH_PARTS=ras` (markdown in "
           "build/bench/ras.md).", ""]
    out += md_offline(off, args, reps) + [""]
    out += md_handoff(ho, pre, args) + [""]
    out += md_liveupdate(lu, args)
    out += ["", "Targets of issue 38 that this part decides:", "",
            "| target | measured | verdict |", "|---|---|---|"]
    for name, val, ok in targets(off, ho, pre, lu):
        out.append(f"| {name} | {val} | {'met' if ok else 'missed'} |")
    return out


def main(argv=None):
    ap = parser(__doc__, timeout=300)
    ap.add_argument("keel")
    ap.add_argument("--offline-bin", default=OFFLINE_BIN)
    ap.add_argument("--lu-blocks", action="store_true",
                    help="each live-update row's updates back to back, "
                    "not alternating")
    ap.add_argument("--lu-rows", default="none,firmware,handover",
                    help="the live-update rows to run, of none, firmware "
                    "and handover (none always)")
    ap.add_argument("--work", default=os.path.join(TOP, "build",
                                                   "bench-ras"))
    args = parse(ap, argv)
    global LU_ROWS
    keys = set(args.lu_rows.split(",")) | {"none"}
    if not keys <= set(LU_NAMES):
        ap.error(f"--lu-rows: {args.lu_rows}: rows are none, firmware, "
                 "handover")
    LU_ROWS = tuple(r for r in LU_ROWS if r[0] in keys)
    given = argv if argv is not None else sys.argv[1:]
    if not any(a.startswith("--runs") for a in given):
        args.runs = 3 if args.quick else 5
    args.runs = max(args.runs, 3)  # medians of at least 3 runs
    os.makedirs(args.work, exist_ok=True)
    host = host_info()
    reps = 2000 if args.quick else 20000
    off = offline_summary(offline_runs(args.offline_bin, args.runs, reps,
                                       args.timeout))
    ho = handoff_summary(boots(args.keel, args.work, BAD_COUNTS, WORDS,
                               args))
    # The same handoff without host page faults: 4 GiB, prefaulted.
    pre = handoff_summary(boots(args.keel, args.work, PRE_COUNTS, WORDS,
                                args, "4g", ["--prefault"]))
    lu = lu_summary(lu_boots(args.keel, args.work, args))
    out = markdown(off, ho, pre, lu, args, reps)
    results = {"host": host, "quick": args.quick,
               "command": "make bench BENCH_PARTS=ras"
               + (" BENCH_QUICK=1" if args.quick else ""),
               "load_end": round(os.getloadavg()[0], 2), "offline": off,
               "handoff": {str(k): v for k, v in ho.items()},
               "handoff_4g_prefaulted": {str(k): v for k, v in pre.items()},
               "liveupdate": {str(k): v for k, v in lu.items()},
               "targets": [{"target": n, "measured": v, "met": ok}
                           for n, v, ok in targets(off, ho, pre, lu)]}
    write_outputs(args, out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
