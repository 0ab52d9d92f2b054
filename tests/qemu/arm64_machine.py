# SPDX-License-Identifier: MIT
"""The pieces of the arm64 QEMU matrix (tests/qemu/arm64.py): a case, the
expectations derived from a QEMU virt configuration, the checks the cases
run, and the device trees some cases patch."""

import os
import re
import subprocess

from scripts.keel import boot, report

from . import memcheck
from .checks import (every_node_scrubbed, json_is, scrubbers_are,
                     warning_lines_at_most)

M = 1 << 20
# Timeouts are a safety net (every case ends by powering off), never a
# measurement: at least 5x the case's time on this 2-core host. Measured
# (2026-12, one run of the whole matrix while other builds loaded the
# host, load average 5 to 880): 0.3-9 s for direct boots, 8-20 s for the
# UEFI and GRUB ones, 28 s for smp-256-4node. 120 s covers them all 6x.
TIMEOUT = 120


def case(name, args, expect=None, el=1, loader="qemu", after="poweroff",
         append="", reserved=(), setup=None, boot="dt",
         named=("kernel", "dtb", "page tables"), timeout=TIMEOUT,
         log_has=(), checks=(), audit="full", loaded=None):
    """@checks: callables (report, log) -> list of problems. @audit: "full"
    adds audit=full to the command line, None keeps the default.
    @loaded: fn(workdir) -> [(addr, file)] placed by QEMU's guest-loader
    and read back after the verdict (tests/qemu/memcheck.py)."""
    if audit == "full":
        append = f"audit=full {append}".strip()
    return dict(name=name, args=args, expect=expect or {}, el=el,
                loader=loader, after=after, append=append,
                reserved=list(reserved), setup=setup, boot=boot,
                named=named, timeout=timeout, log_has=list(log_has),
                checks=list(checks), audit=audit, loaded=loaded)


audit_checked = report.check_audit_log


def helper_scrubbed(node, helper):
    """Memory of @node (its CPUs failed) scrubbed by @helper's CPUs."""
    def check(rep, log):
        p = next(p for p in rep["scrub"]["per_node"] if p["node"] == node)
        out = []
        if p.get("helper_of") != helper:
            out.append(f"scrub.per_node[{node}].helper_of "
                       f"{p.get('helper_of')}, expected {helper}")
        mine = {c["id"] for c in rep["cpus"] if c["node"] == helper}
        if not p["cpus"] or not set(p["cpus"]) <= mine:
            out.append(f"node {node} scrubbed by CPUs {p['cpus']}, not "
                       f"node {helper}'s {sorted(mine)}")
        return out
    return check


def scrub_complete(rep, log):
    """Every free byte scrubbed (scrub.bytes = free bytes, none dirty)."""
    free = rep["heap"]["free_pages"] * 4096
    out = []
    if rep["scrub"]["bytes"] != free or rep["heap"]["dirty_pages"]:
        out.append(f"scrub.bytes {rep['scrub']['bytes']}, free {free}, "
                   f"dirty pages {rep['heap']['dirty_pages']}")
    return out



BENCH_LINE = re.compile(r"bench: node (\d+) order +(\d+) (\w+) +(clean|dirty): "
                        r"(\d+) allocs, .* maint (\d+) ns \((\d+) ops\)")

def bench_checked(rep, log):
    """bench=on (cachemaint deferred, arm64's default): rows for every node
    with memory; clean deferred rows do no maintenance at all (the blocks
    are clean_poc after the scrub); eager rows clean every page (ops =
    allocations x pages per block); dirty deferred rows one by-range op per
    block. The log's human rows (with op counts) match the JSON rows."""
    out = []
    if rep["cachemaint"]["mode"] != "deferred":
        out.append(f"cachemaint.mode {rep['cachemaint']['mode']!r}")
    rows = rep["bench"]
    lines = [m.groups() for m in BENCH_LINE.finditer(log)]
    if len(lines) != len(rows) or not rows:
        out.append(f"{len(lines)} bench log lines, {len(rows)} JSON rows")
    for n in rep["nodes"]:
        if n["mem_bytes"] and not any(r["node"] == n["id"] for r in rows):
            out.append(f"no bench rows for node {n['id']}")
    for node, order, mode, state, count, maint_ns, ops in lines:
        order, count, ops = int(order), int(count), int(ops)
        what = f"node {node} order {order} {mode} {state}"
        if mode == "deferred" and state == "clean" and \
                (ops or int(maint_ns)):
            out.append(f"{what}: {ops} ops, {maint_ns} ns (expected 0)")
        if mode == "eager" and ops != count << order:
            out.append(f"{what}: {ops} ops, expected {count << order}")
        if mode == "deferred" and state == "dirty" and ops != count:
            out.append(f"{what}: {ops} ops, expected {count}")
    for r in rows:
        if r["count"] <= 0 or r["ns_avg"] <= 0:
            out.append(f"bench row {r}: nothing measured")
    return out


def smp_topology(smp, gic=2):
    """What keel must report for QEMU 7.2 virt's -smp @smp (N,sockets=S,
    clusters=C,cores=K,threads=T) from the DT cpu-map QEMU writes: CPU i
    is socket i // (C*K*T), cluster i // (K*T) % C, core i // T % K,
    thread i % T, with MPIDR Aff0 = i % n, Aff1 = i // n (n = 8 CPUs per
    affinity cluster with GICv2, 16 with GICv3). keel: package = socket,
    core = cluster * K + core (unique within the package), thread; with
    bootscrub=on only thread 0 of each core scrubs."""
    kv = dict(x.split("=") for x in smp.split(",")[1:])
    n = int(smp.split(",")[0])
    cl, k, t = (int(kv.get(x, 1)) for x in ("clusters", "cores", "threads"))
    per_aff1 = 8 if gic == 2 else 16

    def check(rep, log):
        out = []
        by_hwid = {c["hwid"]: c for c in rep["cpus"]}
        if len(rep["cpus"]) != n:
            out.append(f"{len(rep['cpus'])} CPUs, expected {n}")
        for i in range(n):
            hwid = (i // per_aff1) << 8 | i % per_aff1
            c = by_hwid.get(hwid)
            if c is None:
                out.append(f"no CPU with MPIDR {hwid:#x}")
                continue
            thread = i % t
            want = {"package": i // (cl * k * t),
                    "core": (i // (k * t)) % cl * k + (i // t) % k,
                    "thread": thread, "online": True,
                    "scrubber": thread == 0}
            for key, v in want.items():
                if c[key] != v:
                    out.append(f"CPU MPIDR {hwid:#x}: {key} = {c[key]}, "
                               f"expected {v}")
        return out
    return check


def dist(rows):
    return [list(r) for r in rows]


def nodes_split_evenly(n_cpus, n_nodes, gic=3):
    """qemu-arm64.sh --numa N: node k holds CPUs k*n/N .. (k+1)*n/N - 1,
    MPIDR Aff1 = i // 16, Aff0 = i % 16 with GICv3 (8 with GICv2)."""
    per_aff1 = 8 if gic == 2 else 16

    def check(rep, log):
        out = []
        hw = {c["id"]: c["hwid"] for c in rep["cpus"]}
        for node in rep["nodes"]:
            k = node["id"]
            want = sorted((i // per_aff1) << 8 | i % per_aff1
                          for i in range(k * n_cpus // n_nodes,
                                         (k + 1) * n_cpus // n_nodes))
            got = sorted(hw[i] for i in node["cpus"])
            if got != want:
                out.append(f"node {k}: MPIDRs {[hex(x) for x in got[:4]]}"
                           f"... ({len(got)}), expected "
                           f"{[hex(x) for x in want[:4]]}... ({len(want)})")
        return out
    return check


def big_case(name, n_cpus, n_nodes, mem_mib, timeout):
    """A big virt machine (GICv3: over 8 CPUs): every CPU online and
    scrubbing (no threads), each node's CPUs by MPIDR, every node scrubbed,
    no CPU dropped, at most 10 warning lines. Idle secondaries sleep in
    WFI until their virtual timer fires through the GICv3 (arch/arm64/
    gic.c); the log says so. A yielding CPU (WFE does not sleep under TCG)
    starves the others: without that a 160-CPU boot did not finish in
    300 s. ap_timeout_ms stays generous for a loaded host."""
    node_mem = mem_mib // n_nodes * M
    return case(name, ["--gic", "3", "--smp", str(n_cpus), "--numa",
                       str(n_nodes), "--mem", f"{mem_mib}M"],
                {"cpus": n_cpus, "online": n_cpus, "nodes": n_nodes,
                 "node_mem": {k: node_mem for k in range(n_nodes)},
                 "distance": [[10 if a == b else 20 for b in range(n_nodes)]
                              for a in range(n_nodes)],
                 "scrubbed": True},
                append="bootscrub=on ap_timeout_ms=60000", timeout=timeout,
                log_has=("idle CPUs sleep in WFI",),
                checks=[nodes_split_evenly(n_cpus, n_nodes),
                        scrubbers_are(n_cpus), every_node_scrubbed,
                        json_is(("dropped_cpus",), 0),
                        warning_lines_at_most(10)])


RESERVED_BASE = 0x4c000000  # inside the 256M..512M of RAM, page aligned
RESERVED_SIZE = 0x200000


def make_reserved_dtb(workdir, qemu_args):
    """QEMU's DT for @qemu_args plus a /reserved-memory child."""
    node = (
        "\treserved-memory {\n"
        "\t\t#address-cells = <2>;\n\t\t#size-cells = <2>;\n\t\tranges;\n"
        f"\t\tkeeltest@{RESERVED_BASE:x} {{\n"
        f"\t\t\treg = <0x0 {RESERVED_BASE:#x} 0x0 {RESERVED_SIZE:#x}>;\n"
        "\t\t\tno-map;\n\t\t};\n\t};\n")
    return _patched_dtb(workdir, qemu_args, node)


def nomap_unmapped(cmd_for, timeout, log_path, workdir, image):
    """A watched boot (arm64.py's "live" hook): after the verdict, the
    no-map child of make_reserved_dtb() is not in keel's page tables and
    the RAM pages either side of it are (QEMU's own translation)."""
    def act(qmp):
        out = []
        for addr, want in ((RESERVED_BASE - 0x1000, True),
                           (RESERVED_BASE, False),
                           (RESERVED_BASE + RESERVED_SIZE - 0x1000, False),
                           (RESERVED_BASE + RESERVED_SIZE, True)):
            if memcheck.mapped(qmp, addr) != want:
                out.append(f"{addr:#x} is {'not ' if want else ''}mapped "
                           f"after the boot (no-map [{RESERVED_BASE:#x}, "
                           f"{RESERVED_BASE + RESERVED_SIZE:#x}))")
        return out
    return memcheck.after_verdict(cmd_for, timeout, log_path, workdir, act)


def _patched_dtb(workdir, qemu_args, node, whole=False):
    """Dump QEMU's DT for @qemu_args and merge @node (DTS text) into /;
    @whole: @node is a whole root block (`/ { ... };`), merged as it is."""
    dtb = os.path.join(workdir, "virt.dtb")
    subprocess.run([boot.QEMU_ARM64_SH, *qemu_args, "--dumpdtb", dtb,
                    "--timeout", str(TIMEOUT),
                    "--log", os.path.join(workdir, "dump.log")], check=False)
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", dtb],
                         check=True, capture_output=True, text=True).stdout
    # A second root block: dtc merges it into the first.
    dts += "\n" + node if whole else "\n/ {\n" + node + "};\n"
    out = os.path.join(workdir, "virt-patched.dtb")
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", out, "-"],
                   input=dts, check=True, text=True)
    return ["--dtb", out]


def make_bogus_cpu_dtb(workdir, qemu_args):
    """QEMU's DT plus a CPU whose MPIDR does not exist: CPU_ON must fail."""
    return _patched_dtb(workdir, qemu_args,
                        "\tcpus {\n\t\tcpu@ff {\n"
                        "\t\t\tdevice_type = \"cpu\";\n"
                        "\t\t\treg = <0xff>;\n"
                        "\t\t\tenable-method = \"psci\";\n"
                        "\t\t};\n\t};\n")


def no_wfi_idle(rep, log):
    """Without a usable redistributor region no CPU may claim WFI idle."""
    return (["the log says idle CPUs sleep in WFI"]
            if "idle CPUs sleep in WFI" in log else [])


def make_small_gicr_dtb(workdir, qemu_args):
    """QEMU's DT with its one GICv3 redistributor region cut to 4 KiB,
    less than a frame: keel must ignore it (one warning) and idle by
    yielding, not read registers it did not map."""
    return _patched_dtb(workdir, qemu_args,
                        "\tintc@8000000 {\n"
                        "\t\treg = <0x0 0x8000000 0x0 0x10000>,\n"
                        "\t\t      <0x0 0x80a0000 0x0 0x1000>;\n"
                        "\t};\n")


def make_initrd(workdir, qemu_args):
    path = os.path.join(workdir, "initrd.img")
    with open(path, "wb") as f:
        f.write(os.urandom(3 * M + 12345))
    return ["--initrd", path]
