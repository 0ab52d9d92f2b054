#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The heap at runtime (issue 37), markdown and JSON: the `runtime` part
of `make bench`.

Usage: bench-runtime.py [--bin build/bench/heap_runtime] [--quick]
                        [--qemu x86_64,arm64]
                        [--runs N] [--md FILE] [--json FILE] [--timeout S]
                        [--no-busy]

Runs tests/bench/heap_runtime (a Linux host linking libkeel-heap.a, with
its own lock hook, and an in-tree reference allocator: one free list per
order behind one global lock, compiled only into the benchmark):

1. `heap_runtime run RUNS OPS`: order 0, order 9 and a churn of orders
   0..10; 1 thread, 2 threads on one node, 2 threads on two nodes; keel
   and the reference alternating (keel, reference, keel, ...) in one
   process. Per cell: the median over the runs of the thread CPU time per
   operation, of p50 and p99 per operation (cycle counter, timer cost
   taken off), of node-lock acquisitions per operation (counted in the
   host's lock hook), and the median of keel/reference taken run by run.
2. `heap_runtime open MIB`, 4 GiB and 64 GiB alternating, each in a fresh
   process, 4x --runs times, cold (the region never touched) and
   prefaulted (`--prefault`: the pages a first, untimed, open of that
   size touched, `--touched`, are touched before the open): the cost of
   opening the heap (median) and the median of 64 GiB/4 GiB pair by
   pair, each kind. The 64 GiB target is judged prefaulted (host page
   faults are not keel's cost: DESIGN §9); cold is shown beside it.
3. A busy host: the churn again, with 2 `yes` processes spinning beside
   it (more runnable threads than the 2 cores of this host), once with the
   host's pthread mutex and once with a ticket lock as keel's arches give
   (HOST_LOCK=ticket): keel and the reference, 1 thread and 2 threads on one
   node. The hogs are killed after each run.
4. Under QEMU x86_64 and arm64 (1 vCPU, 512 MiB, TCG), --runs boots each
   with bench=on: the `bench: runtime` lines (common/selftest/
   bench_runtime.c), ticks and ns per operation of keel on the boot CPU,
   medians over the boots (a platform whose image is not built is left
   out; --qemu "" leaves both out).

--runs: at least 3 (default 5; --quick: 3 runs of 100000 operations per
thread instead of 400000). Then the targets of issue 37 that these
numbers decide, each with its verdict computed here. Nothing is typed in.
"""

import json
import os
import re
import statistics
import subprocess
import sys

from keel import boot
from keel.bench import host_info, parse, parser, write_outputs
from keel.boot import TOP

BIN = os.path.join(TOP, "build", "bench", "heap_runtime")
OPEN_MIB = (4096, 65536)
WORKLOADS = ("order 0", "order 9", "churn 0..10")
PLACEMENTS = ("1 thread", "2 threads, one node", "2 threads, two nodes")
IMAGES = {"x86_64": os.path.join(TOP, "build", "x86_64", "keel.elf"),
          "arm64": os.path.join(TOP, "build", "arm64", "Image")}
# common/selftest/bench_runtime.c's line, one per workload.
RT_LINE = re.compile(r"bench: runtime: (.+?): (\d+) ops, ticks p50 (\d+) "
                     r"p99 (\d+) mean (\d+), ns p50 (\d+) p99 (\d+) mean "
                     r"(\d+), node locks per 1000 ops (\d+), failed (\d+)")
RT_KEYS = ("ops", "ticks_p50", "ticks_p99", "ticks_mean", "ns_p50", "ns_p99",
           "ns_mean", "locks_per_1000", "failed")
QEMU_APPEND = "bench=on"


def med(xs):
    return statistics.median(xs) if xs else None


def run_cells(exe, runs, ops, timeout, extra=(), env=None):
    """Every cell of `heap_runtime run`: {(alloc, workload, placement): row}."""
    cmd = [exe, "run", str(runs), str(ops)] + list(extra)
    res = subprocess.run(cmd, capture_output=True, text=True,
                         timeout=timeout, check=False, env=env)
    if res.returncode:
        raise SystemExit(f"bench-runtime: {' '.join(cmd)} failed "
                         f"({res.returncode}): {res.stderr.strip()}")
    lines = [json.loads(x) for x in res.stdout.splitlines() if x.strip()]
    meta, cells = lines[0], {}
    for c in lines[1:]:
        cells[(c["alloc"], c["workload"], c["placement"])] = c
    return meta, cells, " ".join(["build/bench/heap_runtime"] + cmd[1:])


HOGS = 2
BUSY_LOCKS = ("mutex", "ticket")


def busy_runs(exe, runs, ops, timeout):
    """The churn with HOGS `yes` processes beside it, per host lock:
    {lock: {(alloc, placement): median CPU ns/op, node locks/op}}."""
    out = {}
    for lock in BUSY_LOCKS:
        hogs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL)
                for _ in range(HOGS)]
        try:
            env = dict(os.environ, HOST_LOCK=lock)
            meta, cells, _ = run_cells(exe, runs, ops, timeout, ["churn"],
                                       env)
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        if meta.get("lock") != lock:
            raise SystemExit(f"bench-runtime: asked for a {lock} lock, "
                             f"the host used {meta.get('lock')}")
        out[lock] = {(a, p): {"cpu_ns": med(c["cpu_ns"]),
                              "max_cpu_ns": max(c["cpu_ns"]),
                              "node_locks": med(c["node_locks_per_op"]),
                              "ref_locks": med(c["ref_locks_per_op"])}
                     for (a, _, p), c in cells.items()}
    return out


def busy_table(busy, out):
    out += ["| host lock | allocator | 1 thread ns/op (CPU) | 2 threads, one "
            "node ns/op (CPU) | slowest run of 2 | 2 threads / 1 thread | "
            "locks/op (node or global) |", "|---|---|---|---|---|---|---|"]
    for lock, cells in busy.items():
        for a in ("keel", "reference"):
            one = cells[(a, "1 thread")]
            two = cells[(a, "2 threads, one node")]
            locks = two["node_locks"] if a == "keel" else two["ref_locks"]
            out.append(f"| {lock} | {a} | {ns(one['cpu_ns'])} | "
                       f"{ns(two['cpu_ns'])} | {ns(two['max_cpu_ns'])} | "
                       f"{two['cpu_ns'] / one['cpu_ns']:.2f}x | "
                       f"{locks:.3f} |")


def starve_runs(exe, runs, ops, timeout):
    """`heap_runtime starve`: the churn alone and beside a full node,
    medians over the rounds."""
    cmd = [exe, "starve", str(runs), str(ops)]
    res = subprocess.run(cmd, capture_output=True, text=True,
                         timeout=timeout, check=False)
    if res.returncode:
        raise SystemExit(f"bench-runtime: {' '.join(cmd)} failed "
                         f"({res.returncode}): {res.stderr.strip()}")
    rounds = [json.loads(x) for x in res.stdout.splitlines() if x.strip()]
    out = {"command": " ".join(["build/bench/heap_runtime"] + cmd[1:])}
    for half in ("alone", "beside_full_node"):
        out[half] = {k: med([r[half][k] for r in rounds])
                     for k in ("cpu_ns", "node_locks_per_op", "refused",
                               "ns_per_refusal", "failed")}
    a, b = out["alone"], out["beside_full_node"]
    out["cpu_ratio"] = med([r["beside_full_node"]["cpu_ns"]
                            / r["alone"]["cpu_ns"] for r in rounds])
    out["locks_ratio"] = b["node_locks_per_op"] / a["node_locks_per_op"]
    return out


def starve_part(st, out):
    """A node under sustained exhaustion beside the churn."""
    a, b = st["alone"], st["beside_full_node"]
    out += ["", f"A node that is full (`{st['command']}`): node 1 filled, "
            "the churn on a CPU of node 0 alone, then beside a CPU of "
            "node 1 asking node 1 for a page in a loop (`HEAP_EXACT_NODE`,"
            " every ask refused); medians of the rounds. A refused "
            "allocation drains only the caches of the nodes it tried, "
            "where their free memory could hold the block, and reads no "
            "line another CPU writes at each operation:", "",
            "| churn on node 0 | ns/op (CPU) | node locks/op | refusals "
            "beside | ns per refusal |", "|---|---|---|---|---|",
            f"| alone | {ns(a['cpu_ns'])} | {a['node_locks_per_op']:.4f} "
            "| - | - |",
            f"| beside the full node | {ns(b['cpu_ns'])} | "
            f"{b['node_locks_per_op']:.4f} | {b['refused']:.0f} | "
            f"{ns(b['ns_per_refusal'])} |", "",
            f"Beside / alone: {st['cpu_ratio']:.2f}x CPU time (the two "
            "threads share the host's cores), "
            f"{st['locks_ratio']:.2f}x node locks."]


def open_one(exe, mib, timeout, extra=()):
    res = subprocess.run([exe, "open", str(mib), *extra],
                         capture_output=True, text=True,
                         timeout=timeout, check=False)
    if res.returncode:
        raise SystemExit(f"bench-runtime: open {mib} failed: "
                         f"{res.stderr.strip()}")
    return json.loads(res.stdout)


def open_runs(exe, runs, timeout):
    """`heap_runtime open MIB`, the sizes alternating, fresh processes:
    cold (the region never touched), then prefaulted (the pages the
    first, untimed, open of that size touched are touched first).
    Return: {mib: {"cold": [...], "prefaulted": [...]}}."""
    out = {m: {"cold": [], "prefaulted": []} for m in OPEN_MIB}
    work = os.path.join(TOP, "build", "bench")
    os.makedirs(work, exist_ok=True)
    touched = {m: os.path.join(work, f"open-{m}.touched") for m in OPEN_MIB}
    for mib in OPEN_MIB:
        open_one(exe, mib, timeout, ["--touched", touched[mib]])
    for _ in range(runs):
        for mib in OPEN_MIB:
            out[mib]["cold"].append(open_one(exe, mib, timeout))
            out[mib]["prefaulted"].append(
                open_one(exe, mib, timeout, ["--prefault", touched[mib]]))
    return out


def qemu_boot(arch, image, timeout):
    """One bench=on boot, 1 CPU, 512 MiB. Return: {workload: {key: n}}."""
    if arch == "arm64":
        cmd = boot.arm64_cmd(image, ["--mem", "512M"],
                             "after=poweroff " + QEMU_APPEND, timeout)
    else:
        cmd = boot.x86_64_cmd(["--kernel", image, "--mem", "512M"],
                              "after=exit " + QEMU_APPEND, timeout)
    b = boot.qemu(cmd, timeout)
    rows = {m.group(1): dict(zip(RT_KEYS, map(int, m.groups()[1:])))
            for m in RT_LINE.finditer(b.log)}
    rep = b.report or {}
    if b.timed_out or rep.get("result") != "pass" or \
            sorted(rows) != sorted(WORKLOADS):
        raise SystemExit(f"bench-runtime: {arch} bench=on boot failed "
                         f"(status {b.status}, result {rep.get('result')}, "
                         f"{len(rows)} runtime lines)")
    return rows


def qemu_runs(runs, timeout, images):
    """Medians over @runs boots per arch: {arch: {workload: {key: n}}}."""
    out = {}
    for arch, image in images.items():
        if not os.path.exists(image):
            continue
        boots = [qemu_boot(arch, image, timeout) for _ in range(runs)]
        out[arch] = {w: {k: med([b[w][k] for b in boots]) for k in RT_KEYS}
                     for w in WORKLOADS}
    return out


def qemu_table(qemu, out):
    out += ["| platform | workload | ticks p50 | ticks p99 | ticks mean | "
            "ns p50 | ns p99 | ns mean | node locks/op |",
            "|---|---|---|---|---|---|---|---|---|"]
    for arch, rows in qemu.items():
        for w, r in rows.items():
            out.append(f"| QEMU {arch} | {w} | {r['ticks_p50']:.0f} | "
                       f"{r['ticks_p99']:.0f} | {r['ticks_mean']:.0f} | "
                       f"{r['ns_p50']:.0f} | {r['ns_p99']:.0f} | "
                       f"{r['ns_mean']:.0f} | "
                       f"{r['locks_per_1000'] / 1000:.3f} |")


def summary(cells):
    """Medians per cell and keel/reference run by run."""
    rows = []
    for w in WORKLOADS:
        for p in PLACEMENTS:
            k, r = cells[("keel", w, p)], cells[("reference", w, p)]
            ratios = [a / b for a, b in zip(k["cpu_ns"], r["cpu_ns"]) if b]
            row = {"workload": w, "placement": p, "ratio": med(ratios),
                   "failed": k["failed"] + r["failed"]}
            for who, c in (("keel", k), ("ref", r)):
                for key in ("cpu_ns", "p50_ns", "p99_ns"):
                    row[f"{who}_{key}"] = med(c[key])
            row["keel_node_locks"] = med(k["node_locks_per_op"])
            row["keel_order0_locks"] = med(k.get("order0_locks_per_op",
                                                 [0]))
            row["ref_locks"] = med(r["ref_locks_per_op"])
            rows.append(row)
    return rows


def open_summary(opens):
    """Per size and kind (cold, prefaulted) the medians; 64 GiB / 4 GiB
    of CPU time, the median of the ratios pair by pair, per kind."""
    out = {"per_size": {}, "ratio_64g_4g": {}}
    for kind in ("cold", "prefaulted"):
        for m, v in opens.items():
            out["per_size"].setdefault(str(m), {})[kind] = {
                k: med([o[k] for o in v[kind]])
                for k in ("cpu_ns", "wall_ns", "faults")}
        big, small = (opens[m][kind] for m in (OPEN_MIB[1], OPEN_MIB[0]))
        out["ratio_64g_4g"][kind] = med([b["cpu_ns"] / s["cpu_ns"]
                                         for b, s in zip(big, small)])
    return out


def ns(v):
    return "-" if v is None else f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def runtime_table(rows, out):
    out += ["| workload | threads | keel ns/op (CPU) | keel p50 | keel p99 |"
            " keel node locks/op | reference ns/op (CPU) | reference p50 |"
            " reference p99 | keel / reference |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['workload']} | {r['placement']} | "
                   f"{ns(r['keel_cpu_ns'])} | {ns(r['keel_p50_ns'])} | "
                   f"{ns(r['keel_p99_ns'])} | {r['keel_node_locks']:.3f} | "
                   f"{ns(r['ref_cpu_ns'])} | {ns(r['ref_p50_ns'])} | "
                   f"{ns(r['ref_p99_ns'])} | {r['ratio']:.2f} |")


def row_of(rows, w, p):
    return next(r for r in rows if r["workload"] == w and r["placement"] == p)


def targets(rows, op, busy):
    """(target, measured, verdict) of the numbers this part measures."""
    one = row_of(rows, "order 0", "1 thread")
    nine = row_of(rows, "order 9", "1 thread")
    churn = row_of(rows, "churn 0..10", "1 thread")
    small = op["per_size"][str(OPEN_MIB[0])]["cold"]["cpu_ns"]
    t = [("order 0 p99 <= 100 ns", f"{ns(one['keel_p99_ns'])} ns",
          one["keel_p99_ns"] <= 100),
         ("order 9 p99 <= 300 ns", f"{ns(nine['keel_p99_ns'])} ns",
          nine["keel_p99_ns"] <= 300)]
    for w in WORKLOADS:
        two = row_of(rows, w, "2 threads, one node")["keel_cpu_ns"]
        solo = row_of(rows, w, "1 thread")["keel_cpu_ns"]
        t.append((f"{w}: 2 threads on one node <= 2x one thread",
                  f"{two / solo:.2f}x", two <= 2 * solo))
    if "mutex" in busy:
        b = busy["mutex"]
        two = b[("keel", "2 threads, one node")]["cpu_ns"]
        solo = b[("keel", "1 thread")]["cpu_ns"]
        t.append((f"churn 0..10: 2 threads on one node of a busy host "
                  f"({HOGS} hogs, the host's mutex) <= 2x one thread",
                  f"{two / solo:.2f}x", two <= 2 * solo))
    t.append(("churn: <= 1 node lock per 16 order-0 operations (0.0625)",
              f"{churn['keel_order0_locks']:.4f}",
              churn["keel_order0_locks"] <= 1 / 16))
    t.append(("churn: <= 1 node lock per 16 operations of every order "
              "(0.0625)", f"{churn['keel_node_locks']:.3f}",
              churn["keel_node_locks"] <= 1 / 16))
    t.append(("open 4 GiB in a fresh process <= 1 ms",
              f"{small / 1e6:.3f} ms", small <= 1e6))
    r = op["ratio_64g_4g"]
    t.append(("open 64 GiB <= 1.2x 4 GiB (the region's pages prefaulted: "
              "keel's cost, not the host's page faults)",
              f"{r['prefaulted']:.2f}x (cold: {r['cold']:.2f}x)",
              r["prefaulted"] <= 1.2))
    return t


def busy_part(rows, busy, args, out):
    """The churn's order-0 node locks, then the busy host's table."""
    churn = row_of(rows, "churn 0..10", "1 thread")
    out += ["", "In the churn (1 thread), the order-0 operations alone took "
            f"{churn['keel_order0_locks']:.4f} node locks each (counted "
            "around each of them in the host's lock hook)."]
    if not busy:
        return
    out += ["", f"A busy host: the churn again ({args.busy_ops} "
            f"operations per thread, median of {args.runs} runs) with "
            f"{HOGS} `yes` processes spinning beside it (more runnable "
            "threads than cores), once with the host's pthread mutex, "
            "once with a ticket lock as keel's arches give (take a "
            "ticket, spin with `pause` until it is served; "
            "`HOST_LOCK=ticket`), for every lock the heap takes (node "
            "and per-CPU cache) and the reference's global lock:", ""]
    busy_table(busy, out)


def open_part(op, out):
    """The cost of opening the heap, cold and prefaulted."""
    out += ["", "Opening the heap (`keel_numa_init()` to `heap_handoff()` "
            "and the CPU caches on), one node, each in a fresh process: "
            "cold, in a region never touched (`MAP_NORESERVE`: every page "
            "the open writes first is a host page fault, what a host "
            "pays), and prefaulted, the same region with the pages that "
            "an untimed first open of that size touched (`--touched`, "
            "then `--prefault`) touched before it (keel's own cost: the "
            "host page faults, which hardware does not have, left out). "
            "Medians; 64 GiB / 4 GiB is the median of the ratios run by "
            "run:", "",
            "| RAM | cold: CPU time | wall | host page faults | prefaulted: "
            "CPU time | wall | host page faults |",
            "|---|---|---|---|---|---|---|"]
    for m, v in op["per_size"].items():
        c, p = v["cold"], v["prefaulted"]
        out.append(f"| {int(m) >> 10} GiB | {c['cpu_ns'] / 1000:.1f} us | "
                   f"{c['wall_ns'] / 1000:.1f} us | {c['faults']:.0f} | "
                   f"{p['cpu_ns'] / 1000:.1f} us | "
                   f"{p['wall_ns'] / 1000:.1f} us | {p['faults']:.0f} |")
    r = op["ratio_64g_4g"]
    out += ["", f"64 GiB / 4 GiB: {r['cold']:.2f}x cold, "
            f"{r['prefaulted']:.2f}x prefaulted. The cold difference is "
            "host page faults: a 64 GiB region at 1 GiB is cut into more "
            "maximal aligned chunks near its edges, and each chunk head "
            "of order 7 and up lies in a frame-table page of its own."]


def markdown(meta, rows, op, qemu, busy, starve, cmd, args):
    out = ["# The heap at runtime (issue 37)", "",
           f"`scripts/bench-runtime.py{' --quick' if args.quick else ''}` "
           f"ran `{cmd}`, then `build/bench/heap_runtime open MIB` for "
           f"{' and '.join(str(m) for m in OPEN_MIB)} MiB alternating, "
           f"{4 * args.runs} times each, each in a fresh process. Alone: "
           f"`make bench-runtime` (markdown in build/bench/runtime.md).",
           "",
           f"A host linking `libkeel-heap.a` with its own lock (a pthread "
           f"mutex, acquisitions counted in its hook) against the in-tree "
           f"reference (a buddy allocator: one free list per order behind "
           f"one global lock, the same host lock), in the same process, "
           f"runs alternating. {meta['nodes']} nodes of "
           f"{meta['node_bytes'] >> 20} MiB, prefaulted; "
           f"{meta['ops']} operations per thread per run (an operation: "
           f"one allocation or one free, `HEAP_NO_SCRUB`, clean frees), "
           f"median of {meta['rounds']} runs. ns/op (CPU): thread CPU time "
           f"over the run per operation (the host is shared); p50 and p99: "
           f"each operation timed by the cycle counter "
           f"({meta['ns_per_cycle']:.3f} ns per cycle, the timer's own "
           f"{meta['timer_cost_cycles']} cycles taken off), in a second "
           f"pass; keel / reference: CPU ns/op, the median of the ratios "
           f"run by run. Two threads on two nodes: CPUs on node 0 and 1, "
           f"`HEAP_ANY_NODE` (each its CPU's node); the reference has one "
           f"pool and one lock whatever the nodes.", ""]
    if meta.get("node_lock_inits") != meta["nodes"]:
        out += [f"**heap_init() made {meta.get('node_lock_inits')} locks for "
                f"{meta['nodes']} nodes: the node locks per operation below "
                "count every one of them.**", ""]
    runtime_table(rows, out)
    busy_part(rows, busy, args, out)
    starve_part(starve, out)
    open_part(op, out)
    if qemu:
        out += ["", "Under QEMU (TCG, `-m 512M`, 1 vCPU), keel alone (the "
                "reference is compiled only into the host benchmark): the "
                "`bench: runtime` lines of a `" + QEMU_APPEND + "` boot "
                "(common/selftest/bench_runtime.c): 16384 operations per "
                "workload on the boot CPU after the boot scrub, each timed "
                "by `arch_ticks()` (x86_64: the TSC; arm64: CNTVCT_EL0, "
                "62.5 MHz under QEMU, so 16 ns a tick), the same "
                "workloads in one thread, with the per-CPU caches as keel's "
                f"boot leaves them; median of {args.runs} boots. TCG runs "
                "every guest instruction through its translator: compare "
                "rows with each other, not with the host's.", ""]
        qemu_table(qemu, out)
    out += ["", "Targets of issue 37 that this part decides:", "",
            "| target | measured | verdict |", "|---|---|---|"]
    for name, val, ok in targets(rows, op, busy):
        out.append(f"| {name} | {val} | {'met' if ok else 'missed'} |")
    return out


def main(argv=None):
    ap = parser(__doc__)
    ap.add_argument("--bin", default=BIN)
    ap.add_argument("--no-busy", action="store_true",
                    help="leave out the busy-host runs")
    ap.add_argument("--qemu", default="x86_64,arm64",
                    help="the QEMU platforms whose image is built "
                    "(comma list; empty: none)")
    args = parse(ap, argv)
    given = argv if argv is not None else sys.argv[1:]
    if not any(a.startswith("--runs") for a in given):
        args.runs = 3 if args.quick else 5
    args.runs = max(args.runs, 3)  # medians of at least 3 runs
    host = host_info()
    ops = 100000 if args.quick else 400000
    meta, cells, cmd = run_cells(args.bin, args.runs, ops, args.timeout)
    rows = summary(cells)
    # Opening is cheap (a fresh process, well under a second): 4x the
    # runs, so that a few host page faults more or less move the median
    # less.
    op = open_summary(open_runs(args.bin, 4 * args.runs, args.timeout))
    # Long enough runs that the hogs preempt the threads inside them.
    args.busy_ops = 200000 if args.quick else 1000000
    busy = {} if args.no_busy else busy_runs(args.bin, args.runs,
                                             args.busy_ops, args.timeout)
    images = {a: p for a, p in IMAGES.items() if a in args.qemu.split(",")}
    qemu = qemu_runs(args.runs, args.timeout, images)
    starve = starve_runs(args.bin, args.runs, ops, args.timeout)
    out = markdown(meta, rows, op, qemu, busy, starve, cmd, args)
    results = {"host": host, "quick": args.quick,
               "command": "make bench BENCH_PARTS=runtime"
               + (" BENCH_QUICK=1" if args.quick else ""),
               "load_end": round(os.getloadavg()[0], 2), "meta": meta,
               "cells": list(cells.values()), "rows": rows, "open": op,
               "qemu": qemu, "starve": starve,
               "busy": {lock: [dict(alloc=a, placement=p, **v)
                               for (a, p), v in cells.items()]
                        for lock, cells in busy.items()},
               "targets": [{"target": n, "measured": v, "met": ok}
                           for n, v, ok in targets(rows, op, busy)]}
    out += ([""] + subprocess.run([sys.executable, os.path.join(TOP, "scripts", "bench-aging.py"), "--json", os.path.join(TOP, "build", "bench", "aging", "aging.json")] + ["--quick"] * args.quick, capture_output=True, text=True, check=True, timeout=7200).stdout.splitlines())  # aging (issue 37): scripts/bench-aging.py
    write_outputs(args, out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
