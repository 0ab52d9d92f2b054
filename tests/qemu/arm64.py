# SPDX-License-Identifier: MIT
"""arm64 QEMU boot matrix for keel (called by `make ARCH=arm64 qemu-test`).

Each case is a fresh QEMU virt boot through scripts/qemu-arm64.sh with a
timeout (scripts/keel/boot.py), the serial log saved to LOGDIR/<case>.log,
and the report checked with keel.report (check_report) plus a few arm64
facts (el, loader, named reservations) and the case's own checks. Cases
run one at a time (never two QEMUs at once).

Every case boots with audit=full (heap_check plus, after a scrub, the
free-page zero sampling; the default audit is covered by the sandbox
cases); audit.problems must be 0 everywhere. Fault injection
(docs/cmdline.md), stress=5 racing the idle scrub and bench=on have cases
of their own, as on x86_64.

Usage, from the top directory:
  python3 -m tests.qemu.arm64 [--image build/arm64/Image] [--logs DIR]
                              [--only NAME,...] [--list] [--scale]
Prints one line per case and a final "qemu-test arm64: N passed, M failed";
exit status 1 when any case failed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

from scripts.keel import boot, report
from scripts.keel.boot import TOP

from .domains_checks import Ask, domains_built, warned_once
from .checks import (cpu_failed, every_node_scrubbed, json_is,
                     kernel_still_reserved, latency_unsupported,
                     latency_whole, scrub_calibrated, scrubbers_are,
                     stress_ok_everywhere, warning_lines_at_most)
from .smp_checks import one_timeout, own_hwids, start_mode

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
         log_has=(), checks=(), audit="full"):
    """@checks: callables (report, log) -> list of problems. @audit: "full"
    adds audit=full to the command line, None keeps the default."""
    if audit == "full":
        append = f"audit=full {append}".strip()
    return dict(name=name, args=args, expect=expect or {}, el=el,
                loader=loader, after=after, append=append,
                reserved=list(reserved), setup=setup, boot=boot,
                named=named, timeout=timeout, log_has=list(log_has),
                checks=list(checks), audit=audit)


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


def _patched_dtb(workdir, qemu_args, node):
    """Dump QEMU's DT for @qemu_args and merge @node (DTS text) into /."""
    dtb = os.path.join(workdir, "virt.dtb")
    subprocess.run([boot.QEMU_ARM64_SH, *qemu_args, "--dumpdtb", dtb,
                    "--timeout", str(TIMEOUT),
                    "--log", os.path.join(workdir, "dump.log")], check=False)
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", dtb],
                         check=True, capture_output=True, text=True).stdout
    # A second root block: dtc merges it into the first.
    dts += "\n/ {\n" + node + "};\n"
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


CASES = [
    case("el1-gic2-smp1", ["--smp", "1", "--mem", "256M"],
         {"cpus": 1, "online": 1, "nodes": 1, "ram": 256 * M}),
    case("el2-gic3-smp2", ["--el2", "--gic", "3", "--smp", "2", "--mem", "256M"],
         {"cpus": 2, "online": 2, "nodes": 1}, el=2),
    case("el1-gic3-smp4", ["--gic", "3", "--smp", "4", "--mem", "256M"],
         {"cpus": 4, "online": 4, "nodes": 1}, after="exit"),
    # dc zva, stnp q and stp are timed; the fastest is used, or the one
    # scrub_primitive= names.
    case("scrub-calibrated", ["--smp", "2", "--mem", "256M"],
         {"cpus": 2, "online": 2, "scrubbed": True},
         checks=[scrub_calibrated()]),
    case("scrub-primitive-forced", ["--smp", "2", "--mem", "256M"],
         {"cpus": 2, "online": 2, "scrubbed": True},
         append="scrub_primitive=stp", checks=[scrub_calibrated("stp")]),
    case("el2-gic2-smp4", ["--el2", "--smp", "4", "--mem", "256M"],
         {"cpus": 4, "online": 4}, el=2),
    # latency=on (issue 23) at both ELs: 3 GiB so that a free 1 GiB block
    # exists; bootscrub=off leaves it dirty, so the eager baseline zeroes
    # and cleans it page by page inside the heap lock. About 6 s each on a
    # quiet 2-core host; timeout 180 s. With a GICv2 there is no probe,
    # and the report says so.
    case("latency-el2-gic3", ["--el2", "--gic", "3", "--smp", "2",
                              "--mem", "3G"],
         {"cpus": 2, "online": 2}, el=2, append="bootscrub=off latency=on",
         checks=[latency_whole("cnthp-el2")], timeout=180),
    case("latency-el1-gic3", ["--gic", "3", "--smp", "2", "--mem", "3G"],
         {"cpus": 2, "online": 2}, append="bootscrub=off latency=on",
         checks=[latency_whole("cntv-el1")], timeout=180),
    case("latency-gic2-unsupported", ["--smp", "2", "--mem", "256M"],
         {"cpus": 2, "online": 2}, append="latency=on",
         log_has=("keel: warning: latency: no probe: no GICv3",),
         checks=[latency_unsupported("the probe needs GICv3")]),
    case("numa2-dist", ["--smp", "4", "--numa", "2", "--mem", "512M",
                        "--dist", "0-1=20"],
         {"cpus": 4, "online": 4, "nodes": 2,
          "node_mem": {0: 256 * M, 1: 256 * M},
          "distance": dist([(10, 20), (20, 10)]), "scrubbed": True}),
    case("numa3-memonly-cpuonly",
         ["--smp", "4", "--numa", "384M:0-1,128M:,0:2-3", "--mem", "512M",
          "--dist", "0-1=20,0-2=30,1-2=25"],
         {"cpus": 4, "online": 4, "nodes": 3,
          "node_mem": {0: 384 * M, 1: 128 * M, 2: 0},
          "distance": dist([(10, 20, 30), (20, 10, 25), (30, 25, 10)]),
          "scrubbed": True}),
    case("numa2-unequal-el2",
         ["--el2", "--gic", "3", "--smp", "2", "--numa", "384M:0,128M:1",
          "--mem", "512M"],
         {"cpus": 2, "online": 2, "nodes": 2,
          "node_mem": {0: 384 * M, 1: 128 * M}}, el=2),
    case("uboot", ["--uboot", "--smp", "2", "--mem", "256M"],
         {"cpus": 2, "online": 2, "cmdline": "after=poweroff"},
         loader="u-boot"),
    case("uboot-numa", ["--uboot", "--smp", "4", "--numa", "2", "--mem", "512M"],
         {"cpus": 4, "online": 4, "nodes": 2,
          "node_mem": {0: 256 * M, 1: 256 * M},
          "distance": dist([(10, 20), (20, 10)])}, loader="u-boot"),
    case("dt-reserved-memory", ["--smp", "2", "--mem", "512M"],
         {"cpus": 2, "online": 2},
         reserved=[("keeltest@%x" % RESERVED_BASE, RESERVED_BASE,
                    RESERVED_BASE + RESERVED_SIZE)],
         setup=make_reserved_dtb),
    case("initrd", ["--smp", "2", "--mem", "256M"], {"cpus": 2},
         reserved=[("initrd", None, None)], setup=make_initrd),
    case("cpu-on-fails", ["--smp", "2", "--mem", "256M"],
         {"cpus": 3, "online": 2}, setup=make_bogus_cpu_dtb),
    case("gicr-too-small", ["--gic", "3", "--smp", "4", "--mem", "256M"],
         {"cpus": 4, "online": 4}, setup=make_small_gicr_dtb,
         log_has=("gic: redistributor region 0x80a0000 has 0x1000 bytes, "
                  "less than a frame: ignored",),
         checks=[json_is(("warnings",), 1), no_wfi_idle]),
    case("cmdline-noscrub", ["--smp", "2", "--mem", "256M"],
         {"cpus": 2, "cmdline": "bootscrub=off"}, append="bootscrub=off"),
    # No after=: on QEMU virt the default is to power off, not to hang.
    case("after-default", ["--smp", "1", "--mem", "256M"], {"cpus": 1},
         after=None),
    # console= (docs/booting.md, "The console"): QEMU virt's one PL011 at
    # 0x09000000, named in the Linux earlycon spellings; baud rates are
    # accepted but a PL011's are not programmed (its clock is unknown).
    case("console-pl011", ["--smp", "1", "--mem", "256M"], {"cpus": 1},
         append="console=pl011,0x9000000",
         log_has=["console: PL011 at 0x9000000 (console=pl011,"
                  "0x9000000)"]),
    case("console-pl011-mmio32", ["--smp", "1", "--mem", "256M"],
         {"cpus": 1}, append="console=pl011,mmio32,0x09000000,115200n8",
         log_has=["console: PL011 at 0x9000000 (console=pl011,mmio32,"
                  "0x09000000,115200n8); 115200 baud not programmed"]),
    # No I/O ports on arm64, and a misaligned PL011: one warning each,
    # the DT's stdout-path PL011 stays.
    case("console-com1-refused", ["--smp", "1", "--mem", "256M"],
         {"cpus": 1}, append="console=com1",
         log_has=["warning: console=: an 8250 at I/O port 0x3f8 cannot be "
                  "the console on arm64",
                  "console: PL011 at 0x9000000 (DT stdout-path)"]),
    case("console-bad", ["--smp", "1", "--mem", "256M"], {"cpus": 1},
         append="console=pl011,0x9000001",
         log_has=['warning: cmdline: bad value console="pl011,0x9000001"',
                  "console: PL011 at 0x9000000 (DT stdout-path)"]),
    # Topology from the DT cpu-map (MPIDR says one cluster, no threads):
    # SMT siblings other than thread 0 do not scrub.
    case("cpu-map-smt", ["--smp", "8,sockets=2,cores=2,threads=2",
                         "--mem", "256M"],
         {"cpus": 8, "online": 8, "scrubbed": True}, append="bootscrub=on",
         log_has=["CPU topology from the DT cpu-map"],
         checks=[smp_topology("8,sockets=2,cores=2,threads=2")]),
    # Two clusters per socket, core leaves (no threads): core ids stay
    # unique within the package.
    case("cpu-map-clusters",
         ["--smp", "8,sockets=2,clusters=2,cores=2,threads=1",
          "--mem", "256M"],
         {"cpus": 8, "online": 8, "scrubbed": True}, append="bootscrub=on",
         log_has=["CPU topology from the DT cpu-map"],
         checks=[smp_topology("8,sockets=2,clusters=2,cores=2,threads=1")]),
]

# Fault injection (docs/cmdline.md "Fault injection"): each boot reaches
# KEEL: PASS with the degradation in the log and the report. Parked CPUs
# spin; PSCI SYSTEM_OFF still ends QEMU. The refused CPU_ON of a CPU that
# does not exist is cpu-on-fails above (a real firmware refusal).
NUMA2 = ["--smp", "4", "--numa", "2", "--mem", "512M"]
NUMA2_EXPECT = {"cpus": 4, "nodes": 2, "node_mem": {0: 256 * M, 1: 256 * M},
                "scrubbed": True}
CASES += [
    case("inject-ap-timeout", ["--smp", "4", "--mem", "256M"],
         {"cpus": 4, "online": 3, "scrubbed": True},
         append="inject=ap-timeout:2 ap_timeout_ms=200",
         checks=[cpu_failed(2, "did not check in")],
         log_has=["cpu 2 (hwid 0x2): did not check in"]),
    # PSCI CPU_ON is never called for CPU 2 (common/smp.c).
    case("inject-cpu-on-fail", ["--smp", "4", "--mem", "256M"],
         {"cpus": 4, "online": 3, "scrubbed": True},
         append="inject=cpu-on-fail:2",
         checks=[cpu_failed(2, "CPU_ON refused (injected)")]),
    # Node 1's CPUs never check in: node 1 is scrubbed by node 0's.
    case("inject-node-cpus-fail", NUMA2, dict(NUMA2_EXPECT, online=2),
         append="inject=node-cpus-fail:1 ap_timeout_ms=200",
         checks=[cpu_failed(2, "did not check in"),
                 cpu_failed(3, "did not check in"),
                 helper_scrubbed(1, 0), scrub_complete]),
    case("inject-scrub-stop", NUMA2, dict(NUMA2_EXPECT, online=4),
         append="inject=scrub-stop:1 bootscrub_chunk=16M",
         checks=[json_is(("scrub", "stopped_cpu"), 1), scrub_complete],
         log_has=["scrub: cpu 1 stopped (injected)"]),
    case("inject-bad-map", ["--smp", "2", "--numa", "2", "--mem", "512M"],
         {"cpus": 2, "online": 2, "nodes": 2, "scrubbed": True},
         append="inject=bad-map", checks=[kernel_still_reserved]),
    # A forbidden remote distance (0->1 set to 10 in a copy of the DT):
    # one warning, that entry alone is skipped and takes 1->0 = 30.
    case("inject-bad-dt-distance",
         ["--smp", "2", "--numa", "2", "--mem", "512M", "--dist", "0-1=30"],
         {"cpus": 2, "online": 2, "nodes": 2,
          "node_mem": {0: 256 * M, 1: 256 * M},
          "distance": dist([(10, 30), (30, 10)]), "scrubbed": True},
         append="inject=bad-dt-distance",
         log_has=["inject: DT distance-matrix entry 0 1 changed from 30 "
                  "to 10", "distance-matrix entry 0 1 = 10: a remote "
                  "distance must be above 10, entry skipped"]),
    # stress=5 racing the idle scrub: 4 CPUs, 2 nodes.
    case("stress-idle", NUMA2, dict(NUMA2_EXPECT, online=4),
         append="bootscrub=idle stress=5",
         checks=[stress_ok_everywhere]),
    # bench=on: rows per node, the audit unchanged (report.py's balance).
    case("bench", ["--smp", "2", "--numa", "2", "--mem", "512M"],
         {"cpus": 2, "online": 2, "nodes": 2, "scrubbed": True},
         append="bench=on", checks=[bench_checked]),
]

# UEFI (QEMU_EFI.fd) boots: the firmware keeps some RAM (runtime services,
# ACPI tables), so node 0 and the total are checked with a tolerance; node
# 1 (0x60000000-0x80000000) holds no firmware data. QEMU's UEFI gives ACPI
# only, or the DT only with virt,acpi=off (--no-acpi): acpi=force and
# acpi=off must find the same topology. 1G: UEFI zeroes what it allocates.
EFI_NUMA = ["--smp", "4", "--numa", "2", "--mem", "1G", "--dist", "0-1=30"]
EFI_EXPECT = {"cpus": 4, "online": 4, "nodes": 2,
              "node_mem": {0: 512 * M, 1: 512 * M}, "mem_tolerance": 16 * M,
              "ram": 1024 * M, "ram_tolerance": 16 * M,
              "distance": dist([(10, 30), (30, 10)]), "scrubbed": True}
EFI_TIMEOUT = TIMEOUT  # the slowest measured: 19.5 s (uefi-inject-bad-srat)


def efi_case(name, args, acpi, loader, named):
    exp = dict(EFI_EXPECT, cmdline=f"acpi={acpi}")
    src = "ACPI" if acpi == "force" else "device tree"
    return case(name, args + EFI_NUMA, exp, loader=loader, boot="efi",
                append=f"acpi={acpi}", named=named, timeout=EFI_TIMEOUT,
                log_has=[f"topology from {src}"])


CASES += [
    efi_case("uefi-acpi", ["--uefi"], "force", "uefi",
             ("kernel", "page tables")),
    efi_case("uefi-dt", ["--uefi", "--no-acpi"], "off", "uefi",
             ("kernel", "dtb", "page tables")),
    # No arguments: the firmware starts EFI/BOOT/BOOTAA64.EFI itself (no
    # shell); at EL2 the FADT names SMC; after= defaults to power off on
    # QEMU's ACPI tables (OEM "BOCHS") as on its DT.
    case("uefi-el2-gic3", ["--uefi", "--el2", "--gic", "3", "--smp", "2",
                           "--mem", "1G"],
         {"cpus": 2, "online": 2, "nodes": 1, "ram": 1024 * M,
          "ram_tolerance": 16 * M}, el=2, loader="uefi", boot="efi",
         after=None, named=("kernel", "page tables"), timeout=EFI_TIMEOUT),
    # GRUB adds a /chosen-only DT of its own: acpi=force ignores it.
    efi_case("grub-acpi", ["--grub"], "force", "grub",
             ("kernel", "page tables")),
    # GRUB's copy of the DT lives in ACPI reclaim memory, outside RAM, so
    # its "dtb" reservation is not in memmap.reserved (which lists RAM).
    efi_case("grub-dt", ["--grub", "--no-acpi"], "off", "grub",
             ("kernel", "page tables")),
    # acpi=force on firmware without ACPI: one warning, the DT is used.
    case("grub-acpi-missing", ["--grub", "--no-acpi", "--smp", "2",
                               "--mem", "1G"],
         {"cpus": 2, "online": 2, "nodes": 1, "cmdline": "acpi=force"},
         loader="grub", boot="efi", append="acpi=force",
         named=("kernel", "page tables"), timeout=EFI_TIMEOUT,
         log_has=["warning: acpi: no usable ACPI tables (RSDP 0), using "
                  "the device tree", "topology from device tree"]),
    # No acpi=: GRUB's CPU-less DT must not win over the firmware's ACPI.
    case("grub-auto", ["--grub", "--smp", "2", "--mem", "1G"],
         {"cpus": 2, "online": 2, "nodes": 1, "ram": 1024 * M,
          "ram_tolerance": 16 * M}, loader="grub", boot="efi",
         named=("kernel", "page tables"), timeout=EFI_TIMEOUT,
         log_has=["describes no CPUs, using ACPI", "topology from ACPI"]),
    # inject=bad-srat / bad-slit on an ACPI boot: the arch's ACPI accessor
    # hands the parser a corrupted copy (as on x86_64).
    case("uefi-inject-bad-srat", ["--uefi"] + EFI_NUMA,
         {"cpus": 4, "online": 4, "nodes": 1, "distance": [[10]],
          "scrubbed": True, "ram": 1024 * M, "ram_tolerance": 16 * M},
         loader="uefi", boot="efi", append="acpi=force inject=bad-srat",
         named=("kernel", "page tables"), timeout=EFI_TIMEOUT,
         log_has=["acpi: inject: SRAT at", "bad checksum, ignored"]),
    case("uefi-inject-bad-slit", ["--uefi"] + EFI_NUMA,
         dict(EFI_EXPECT, distance=dist([(10, 20), (20, 10)])),
         loader="uefi", boot="efi", append="acpi=force inject=bad-slit",
         named=("kernel", "page tables"), timeout=EFI_TIMEOUT,
         log_has=["acpi: inject: SLIT at", "bad checksum, ignored"]),
    # GRUB's xen_hypervisor loader starts the same EFI entry; it passes no
    # BOOT_IMAGE= word, so keel only knows UEFI started it.
    case("grub-xen", ["--grub", "--grub-loader", "xen", "--smp", "2",
                      "--mem", "1G"],
         {"cpus": 2, "online": 2, "nodes": 1, "ram": 1024 * M,
          "ram_tolerance": 16 * M, "cmdline": "bootscrub=off"},
         loader="uefi", boot="efi", append="bootscrub=off",
         named=("kernel", "page tables"), timeout=EFI_TIMEOUT),
]


def p2m_selftest_ok(hw_min):
    """p2m.selftest ran in the vmsav8-64-s2 format with ok true and at least
    @hw_min samples checked by the MMU (AT S12E1R at EL2; 0 at EL1)."""
    def check(rep, log):
        st = rep.get("p2m", {}).get("selftest")
        if st is None:
            return ["no p2m.selftest in the report"]
        out = []
        if st.get("format") != "vmsav8-64-s2":
            out.append(f"p2m.selftest.format {st.get('format')!r}")
        if st.get("ok") is not True:
            out.append("p2m.selftest.ok is not true")
        if st.get("samples", 0) < 1:
            out.append("p2m.selftest.samples is 0")
        if hw_min and st.get("hw_checked", 0) < hw_min:
            out.append(f"p2m.selftest.hw_checked {st.get('hw_checked')}, "
                       f"expected >= {hw_min}")
        if not hw_min and st.get("hw_checked") != 0:
            out.append("p2m.selftest.hw_checked > 0 below EL2")
        return out
    return check


# Issue 22 section 6: the stage-2 table checked against the MMU's own walk
# (AT S12E1R at EL2, every sample), and at EL1 in software only.
CASES += [
    case("p2m-selftest-el2", ["--el2", "--smp", "2", "--mem", "256M"],
         {"cpus": 2, "online": 2, "nodes": 1}, el=2,
         append="p2m_selftest=on", checks=[p2m_selftest_ok(40)]),
    case("p2m-selftest-el1", ["--smp", "1", "--mem", "256M"],
         {"cpus": 1, "online": 1, "nodes": 1},
         append="p2m_selftest=on", checks=[p2m_selftest_ok(0)]),
]


# Issue 22: guests' memory. 2 nodes, node 1 memory-only; one domain
# anywhere, one pinned to node 1 (built by node 0's CPUs), one too big. At
# EL2 the MMU translates sampled IPAs of every domain (AT S12E1R).
DOMAIN_ASKS = [Ask(64 * M + 12 * 1024), Ask(96 * M, 1),
               Ask(2 << 30, fails=True)]
DOMAIN_WORDS = " ".join(a.word() for a in DOMAIN_ASKS)
DOMAIN_MACHINE = ["--el2", "--gic", "3", "--smp", "2", "--numa",
                  "384M:0-1,256M:", "--mem", "640M"]
# Xen's dom0less binding as users write it (BOOT-FACTS), merged into
# QEMU's own DT: two domains, one node without memory (skipped, warned).
DOM0LESS = (
    "\tchosen {\n"
    "\t\tdomU1 {\n\t\t\tcompatible = \"xen,domain\";\n"
    "\t\t\t#address-cells = <1>;\n\t\t\t#size-cells = <1>;\n"
    "\t\t\tmemory = <0 0x10000>;\n\t\t\tcpus = <2>;\n"
    "\t\t\tmodule@4a000000 {\n"
    "\t\t\t\tcompatible = \"multiboot,kernel\", \"multiboot,module\";\n"
    "\t\t\t\treg = <0x4a000000 0x1000>;\n\t\t\t};\n\t\t};\n"
    "\t\trtos {\n\t\t\tcompatible = \"xen,domain\";\n"
    "\t\t\tmemory = <0 0x2004>;\n\t\t};\n"
    "\t\tbroken {\n\t\t\tcompatible = \"xen,domain\";\n"
    "\t\t\tcpus = <1>;\n\t\t};\n"
    "\t};\n")


def make_dom0less_dtb(workdir, qemu_args):
    """QEMU's DT plus /chosen xen,domain nodes (DOM0LESS)."""
    return _patched_dtb(workdir, qemu_args, DOM0LESS)


def hw_checked(rep, log):
    """At EL2 the MMU's translation was compared on some IPAs."""
    got = rep.get("domains_info", {}).get("hw_checked", 0)
    return [] if got > 0 else ["domains_info.hw_checked is 0 at EL2"]


CASES += [
    case("domains-2node-memonly-el2", DOMAIN_MACHINE,
         {"cpus": 2, "online": 2, "nodes": 2, "scrubbed": True}, el=2,
         append=DOMAIN_WORDS,
         checks=[domains_built(DOMAIN_ASKS, zero_sampled=True, local=[1]),
                 hw_checked]),
    case("domains-bootscrub-off", ["--smp", "2", "--numa", "2", "--mem",
                                   "512M"],
         {"cpus": 2, "online": 2, "nodes": 2},
         append="bootscrub=off domain=100M@0 domain=60M@1",
         checks=[domains_built([Ask(100 * M, 0), Ask(60 * M, 1)],
                               zero_sampled=True, local=[0, 1])]),
    case("domains-destroy", ["--smp", "2", "--numa", "2", "--mem", "512M"],
         {"cpus": 2, "online": 2, "nodes": 2, "scrubbed": True},
         append="domains_destroy=on domain=100M domain=60M@1",
         checks=[domains_built([Ask(100 * M), Ask(60 * M, 1)],
                               destroyed=True)]),
    case("domains-dom0less", ["--el2", "--smp", "2", "--mem", "512M"],
         {"cpus": 2, "online": 2, "nodes": 1}, el=2,
         setup=make_dom0less_dtb, append="domain=8M",
         checks=[domains_built([Ask(8 * M, name="domain0"),
                                Ask(0x10000 * 1024, name="domU1"),
                                Ask(0x2004 * 1024, name="rtos")],
                               zero_sampled=True),
                 hw_checked, warned_once("dom0less broken has no memory")]),
]

# The issue-13 machine: 256 CPUs in 4 nodes (about 7 s on a quiet host,
# 28 s measured with the host loaded by other builds): 300 s is over 10x.
CASES += [big_case("smp-256-4node", 256, 4, 2048, timeout=300)]

# Every CPU at once (issue 24). 64 vCPUs under TCG take a few seconds on a
# quiet host (2.2 s measured with the boot scrub); the timeout is 120 s.
# Each CPU's MPIDR, read at check-in, matches the per-CPU data it took.
CASES += [
    case("smp-64-parallel", ["--gic", "3", "--smp", "64", "--mem", "512M"],
         {"cpus": 64, "online": 64},
         append="report=full bootscrub=off", timeout=120,
         checks=[own_hwids(64), start_mode("parallel")]),
    case("smp-8-serial", ["--gic", "3", "--smp", "8", "--mem", "256M"],
         {"cpus": 8, "online": 8},
         append="report=full bootscrub=off smp_start=serial",
         checks=[own_hwids(8), start_mode("serial")]),
    # Four dead CPUs cost one ap_timeout_ms (3 s), not four (about 3.5 s
    # on a quiet host; the timeout is 60 s).
    case("inject-ap-timeout-4", ["--gic", "3", "--smp", "8", "--mem", "256M"],
         {"cpus": 8, "online": 4},
         append="bootscrub=off ap_timeout_ms=3000 inject=ap-timeout:2 "
                "inject=ap-timeout:4 inject=ap-timeout:6 "
                "inject=ap-timeout:7", timeout=60,
         checks=[one_timeout(3000, [2, 4, 6, 7])]),
]

# make check-scale: the largest machine QEMU virt builds (512 CPUs, the
# GICv3 redistributor space of virt; docs/benchmarks.md "Big machines
# under QEMU").
SCALE_CASES = [big_case("smp-512-8node", 512, 8, 4096, timeout=1800)]


def arm64_checks(c, rep, log):
    out = []
    if rep.get("arch") != "arm64":
        out.append(f"arch {rep.get('arch')!r}, expected 'arm64'")
    if rep.get("el") != c["el"]:
        out.append(f"el {rep.get('el')}, expected {c['el']}")
    if rep.get("loader") != c["loader"]:
        out.append(f"loader {rep.get('loader')!r}, expected {c['loader']!r}")
    if rep.get("boot") != c["boot"]:
        out.append(f"boot {rep.get('boot')!r}, expected {c['boot']!r}")
    t = rep.get("timer", {})
    if t.get("source") != "cntvct" or t.get("calibrated_by") != "cntfrq":
        out.append(f"timer {t}, expected cntvct/cntfrq")
    res = rep.get("memmap", {}).get("reserved", [])
    names = [r[2] for r in res if len(r) >= 3]
    for want in c["named"]:
        if want not in names:
            out.append(f"no {want!r} reservation in memmap.reserved")
    for name, start, end in c["reserved"]:
        got = [r for r in res if len(r) >= 3 and r[2] == name]
        if not got:
            out.append(f"reservation {name!r} missing (have {names})")
            continue
        if start is not None and (got[0][0] > start or got[0][1] < end):
            out.append(f"reservation {name!r} is [{got[0][0]:#x}, "
                       f"{got[0][1]:#x}), expected [{start:#x}, {end:#x})")
        # Not in the heap: report.check_report's audit balance
        # (free + allocated + reserved == RAM, 0 lost) covers it.
    if "exception:" in log:
        out.append("an exception was reported")
    for want in c["log_has"]:
        if want not in log:
            out.append(f"log lacks {want!r}")
    out += audit_checked(rep, log)
    if c["audit"] is None and "audit=full" in rep["cmdline"].split():
        out.append("expected the default (basic) audit")
    for check in c["checks"]:
        out += check(rep, log)
    return out


def run_case(c, image, logdir):
    log_path = os.path.join(logdir, c["name"] + ".log")
    after = f"after={c['after']}" if c["after"] else ""
    append = f"{after} {c['append']}".strip()
    with tempfile.TemporaryDirectory(prefix="keel-arm64-") as work:
        extra = c["setup"](work, c["args"]) if c["setup"] else []
        cmd = boot.arm64_cmd(image, [*c["args"], *extra], append,
                             c["timeout"])
        b = boot.qemu(cmd, c["timeout"], log_path)
    fails = b.problems(0, c["expect"])
    if b.report is not None:
        fails += arm64_checks(c, b.report, b.log)
    return fails, b.elapsed, log_path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--image", default=os.path.join(TOP, "build/arm64/Image"))
    ap.add_argument("--logs", default=os.path.join(TOP, "build/arm64/qemu-logs"))
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scale", action="store_true",
                    help="the big-machine cases (make check-scale) instead")
    args = ap.parse_args()
    cases = SCALE_CASES if args.scale else CASES
    if args.list:
        for c in cases:
            print(c["name"])
        return 0
    if args.only:
        want = set(args.only.split(","))
        cases = [c for c in cases if c["name"] in want]
    os.makedirs(args.logs, exist_ok=True)
    passed = failed = 0
    for c in cases:
        fails, secs, log_path = run_case(c, os.path.abspath(args.image),
                                         args.logs)
        if fails:
            failed += 1
            print(f"  FAIL  {c['name']} ({secs:.1f} s, log {log_path})")
            for f in fails:
                print(f"        {f}")
        else:
            passed += 1
            print(f"  PASS  {c['name']} ({secs:.1f} s)")
        sys.stdout.flush()
    what = "check-scale" if args.scale else "qemu-test"
    print(f"{what} arm64: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
