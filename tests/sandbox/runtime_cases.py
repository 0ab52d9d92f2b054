# SPDX-License-Identifier: MIT
"""Issue 37's sandbox case: bench=on's `bench: runtime` lines
(common/selftest/bench_runtime.c), which the `runtime` part of make
bench reads for its QEMU column. Each of the three workloads (order 0,
order 9, churn 0..10) must print one line of exactly 16384 operations
with no failed allocation and p50 <= p99 <= a tenth of a second (no
timing digits asserted beyond sanity), and the boot must still pass with
audit=full: the bench gives every block back, and no dirty page is left
behind the boot scrub (its sample buffer was once freed dirty, which
failed the boot: "scrub incomplete"). About 0.5 s quiet; the default
sandbox timeout is far above 5x that.
"""

import re

WORKLOADS = ("order 0", "order 9", "churn 0..10")
LINE = re.compile(r"bench: runtime: (.+?): (\d+) ops, ticks p50 (\d+) "
                  r"p99 (\d+) mean (\d+), ns p50 (\d+) p99 (\d+) mean "
                  r"(\d+), node locks per 1000 ops (\d+), failed (\d+)")


def check_runtime_lines(rep, log):
    del rep
    out = []
    rows = {m.group(1): [int(x) for x in m.groups()[1:]]
            for m in LINE.finditer(log)}
    if sorted(rows) != sorted(WORKLOADS):
        return [f"bench: runtime lines for {sorted(rows)}, expected "
                f"{sorted(WORKLOADS)}"]
    for w, (ops, _, _, _, p50, p99, _, _, failed) in rows.items():
        if ops != 16384 or failed:
            out.append(f"{w}: {ops} ops, {failed} failed")
        if not p50 <= p99 <= 100_000_000:
            out.append(f"{w}: p50 {p50} ns, p99 {p99} ns")
    return out


def check_audit_ok(rep, log):
    del log
    audit = rep.get("audit") or {}
    heap = rep.get("heap") or {}
    out = []
    if not audit.get("ok") or audit.get("lost_pages"):
        out.append(f"audit {audit}")
    if heap.get("dirty_pages"):
        out.append(f"{heap.get('dirty_pages')} dirty pages after the bench")
    return out


def runtime_cases(case):
    return [case("bench-runtime-lines", "sandbox-2node.fw",
                 ["bench=on", "audit=full"],
                 [check_runtime_lines, check_audit_ok], {"scrubbed": True})]
