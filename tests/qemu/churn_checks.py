# SPDX-License-Identifier: MIT
"""Checks of the report's `churn` object (churn=N, issue 37 §6), shared by
the sandbox case (tests/sandbox/churn_cases.py) and the QEMU cases
(tests/qemu/x86_cases.py, arm64_cases.py). Each compares the object with
the machine the report describes (its CPUs, its nodes' RAM) and with the
audit, never with numbers keel printed elsewhere about the churn.
No assertion on timing digits: only orderings (p50 <= p99)."""

from .checks import _log_aware

PAGE = 4096
MAX_FREE_ORDER = 31  # include/keel/heap.h


def _frag(ch, rep):
    """Shares in [0, 1], the largest free order possible on this machine."""
    out = []
    for k in ("free_2m_share_start", "free_2m_share_end"):
        if not 0 <= ch[k] <= 1:
            out.append(f"churn.{k} = {ch[k]}, not in [0, 1]")
    node_pages = max((n["mem_bytes"] // PAGE for n in rep["nodes"]),
                     default=0)
    top = min(MAX_FREE_ORDER, max(node_pages.bit_length() - 1, 0))
    for k in ("largest_free_order_start", "largest_free_order_end"):
        order = ch[k]
        if not 0 <= order <= top:
            out.append(f"churn.{k} = {order}, not in [0, {top}] (the "
                       f"largest node has {node_pages} pages)")
        elif (1 << order) > ch["free_pages_after"]:
            out.append(f"churn.{k} = {order}: 2^{order} pages > "
                       f"{ch['free_pages_after']} free")
    # Some share in chunks of 2 MiB and up: one of them is that large.
    if ch["free_2m_share_end"] > 0 and ch["largest_free_order_end"] < 9:
        out.append(f"churn.free_2m_share_end {ch['free_2m_share_end']} "
                   f"but largest_free_order_end "
                   f"{ch['largest_free_order_end']}")
    return out


def _per_cpu(ch, rep):
    """One row and one rate per online CPU, each with operations."""
    out = []
    online = sorted(c["id"] for c in rep["cpus"] if c["online"])
    rates = ch["ops_per_s"]
    if len(rates) != len(online) or not all(r > 0 for r in rates):
        out.append(f"churn.ops_per_s {rates}: expected {len(online)} "
                   "rates > 0, one per online CPU")
    if "per_cpu" not in ch:
        # Only the compact report of more than 64 CPUs leaves them out.
        if len(online) <= 64 or "report=full" in (rep.get("cmdline") or ""):
            out.append("churn.per_cpu missing")
        return out
    rows = {r["cpu"]: r for r in ch["per_cpu"]}
    if sorted(rows) != online:
        out.append(f"churn.per_cpu CPUs {sorted(rows)}, online {online}")
    for cpu in online:
        if rows.get(cpu, {}).get("ops", 0) <= 0:
            out.append(f"churn: cpu {cpu} did no operations")
    for k in ("ops", "allocs", "frees", "domains", "node_locks",
              "domain_node_locks"):
        total = sum(r[k] for r in ch["per_cpu"])
        if total != ch[k]:
            out.append(f"churn.{k} = {ch[k]}, per_cpu[] sums to {total}")
    if ch["ops"] != ch["allocs"] + ch["frees"] + 2 * ch["domains"]:
        out.append(f"churn.ops {ch['ops']} != allocs + frees + 2 x "
                   "domains")
    return out


def _audit(ch, rep):
    """Nothing lost: the churn's count exact, the audit (full) clean."""
    out = []
    a = rep["audit"]
    if ch["free_pages_after"] != ch["free_pages_before"]:
        out.append(f"churn: {ch['free_pages_before']} free pages before, "
                   f"{ch['free_pages_after']} after")
    if a["lost_pages"] != 0 or not a["ok"] or a.get("problems") != 0:
        out.append(f"audit: lost {a['lost_pages']}, ok {a['ok']}, "
                   f"problems {a.get('problems')} (audit=full expected)")
    if "domain=" not in (rep.get("cmdline") or "") and \
            a["free_pages"] != ch["free_pages_after"]:
        out.append(f"audit.free_pages {a['free_pages']} != churn."
                   f"free_pages_after {ch['free_pages_after']}")
    return out


@_log_aware
def churn_ok_everywhere(rep, log):
    """churn=N with audit=full: ok, every online CPU churned, the counts
    add up, nothing lost, fragmentation within what the machine allows."""
    ch = rep.get("churn")
    if not ch:
        return ["no churn object in the report"]
    out = []
    if not ch["ok"] or ch["fail_reason"] is not None or \
            ch["heap_problems"] or ch["domain_problems"]:
        out.append(f"churn ok {ch['ok']} ({ch['fail_reason']}), heap "
                   f"problems {ch['heap_problems']}, domain problems "
                   f"{ch['domain_problems']}")
    if ch["ops"] <= 0 or ch["domains"] <= 0:
        out.append(f"churn: {ch['ops']} ops, {ch['domains']} domains")
    if ch["p50_ns"] > ch["p99_ns"] or \
            ch["domain_p50_ns"] > ch["domain_p99_ns"]:
        out.append(f"churn: p50 above p99 ({ch['p50_ns']}/{ch['p99_ns']},"
                   f" domains {ch['domain_p50_ns']}/"
                   f"{ch['domain_p99_ns']})")
    if ch["ops"] and abs(ch["lock_per_op"] -
                         ch["node_locks"] / ch["ops"]) > 0.0015:
        out.append(f"churn.lock_per_op {ch['lock_per_op']} != node_locks"
                   f" / ops = {ch['node_locks'] / ch['ops']:.4f}")
    blocks = ch["allocs"] + ch["frees"]
    if not 0 <= ch["domain_node_locks"] <= ch["node_locks"]:
        out.append(f"churn.domain_node_locks {ch['domain_node_locks']} "
                   f"not in [0, node_locks {ch['node_locks']}]")
    elif blocks and abs(ch["block_lock_per_op"] -
                        (ch["node_locks"] - ch["domain_node_locks"]) /
                        blocks) > 0.0015:
        out.append(f"churn.block_lock_per_op {ch['block_lock_per_op']} "
                   "!= (node_locks - domain_node_locks) / (allocs + "
                   "frees)")
    if "keel: churn: " not in log:
        out.append("no 'keel: churn:' line")
    return out + _per_cpu(ch, rep) + _frag(ch, rep) + _audit(ch, rep)
