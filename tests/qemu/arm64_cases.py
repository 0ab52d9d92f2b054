# SPDX-License-Identifier: MIT
"""The cases of the arm64 QEMU matrix (tests/qemu/arm64.py), in the order
they run (CASES), and the check-scale machine (SCALE_CASES)."""

import os
import re

from .arm64_machine import (M, RESERVED_BASE, RESERVED_SIZE, TIMEOUT,
                            _patched_dtb, bench_checked, big_case, case, dist,
                            helper_scrubbed, make_bogus_cpu_dtb, make_initrd,
                            make_reserved_dtb, make_small_gicr_dtb,
                            nomap_unmapped,
                            no_wfi_idle, scrub_complete, smp_topology)
from .checks import (cpu_failed, json_is, kernel_still_reserved,
                     latency_unsupported, latency_whole, scrub_calibrated,
                     stray_irqs, stress_ok_everywhere)
from .arm64_guest_cases import CASES as GUEST_CASES
from .arm64_badmem_cases import CASES as BADMEM_CASES
from .dom0less_cases import CASES as DOM0LESS_CASES
from .arm64_efi_lu_cases import CASES as EFI_LU_CASES
from .arm64_imagebuilder_cases import CASES as IMAGEBUILDER_CASES
from .arm64_poison_cases import CASES as POISON_CASES
from .arm64_ras_cases import CASES as RAS_CASES
from .domains_checks import Ask, domains_built, warned_once
from .liveupdate_checks import arm64_image_needing, refused, updated
from .smp_checks import one_timeout, own_hwids, start_mode

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
    # The no-map child is reserved and left out of the page tables.
    dict(case("dt-reserved-memory", ["--smp", "2", "--mem", "512M"],
              {"cpus": 2, "online": 2}, after="halt",
              reserved=[("keeltest@%x" % RESERVED_BASE, RESERVED_BASE,
                         RESERVED_BASE + RESERVED_SIZE)],
              setup=make_reserved_dtb,
              log_has=("arm64 mm: 1 no-map range of the DT left out of "
                       "the RAM mapping",)),
         live=nomap_unmapped),
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
    # PSCI CPU_ON is never called for CPU 2 (common/smp/smp.c).
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
    # 50 SGI 2s to the boot CPU (GICv3): the first is taken, counted and
    # turned off at its redistributor, so the others never come (without
    # that, all 50 were taken).
    case("inject-irq-unexpected", ["--smp", "2", "--mem", "256M",
                                   "--gic", "3"],
         {"cpus": 2, "online": 2, "scrubbed": True},
         append="inject=irq-unexpected:50", checks=[stray_irqs(1, 1)]),
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
    # The page-table pool is small (image_size <= 2 MiB for ImageBuilder):
    # a firmware map with more RAM edges off 2 MiB than it holds maps their
    # 2 MiB-aligned interiors and reserves the rest "unmapped" (it was a
    # panic). inject=pt-pool-short maps UEFI's RAM as if the pool were
    # that short: OVMF's runtime regions cut RAM off 2 MiB.
    case("uefi-pt-pool-short", ["--uefi", "--smp", "2", "--mem", "1G"],
         {"cpus": 2, "online": 2, "nodes": 1, "ram": 1024 * M,
          "ram_tolerance": 16 * M}, loader="uefi", boot="efi",
         append="acpi=force inject=pt-pool-short",
         named=("kernel", "page tables", "unmapped"), timeout=EFI_TIMEOUT,
         log_has=["arm64 mm: the page-table pool is short: "]),
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

# Issue 28: boot modules and Xen's dom0less examples, their bytes read
# back after the verdict (tests/qemu/dom0less_cases.py).
CASES += DOM0LESS_CASES

# Issue 31: guests that run in their domains (tests/qemu/arm64_guest_cases.py).
CASES += GUEST_CASES
CASES += BADMEM_CASES

# Issue 36: live updates through GRUB and U-Boot under UEFI, the firmware's
# memory and the loader's modules read back (tests/qemu/arm64_efi_lu_cases.py).
CASES += EFI_LU_CASES
CASES += IMAGEBUILDER_CASES  # U-Boot at ImageBuilder's addresses
CASES += POISON_CASES  # inject=poison: (issue 38 §3)
CASES += RAS_CASES  # inject=sea: a real synchronous external abort

# The issue-13 machine: 256 CPUs in 4 nodes (about 7 s on a quiet host,
# 28 s measured with the host loaded by other builds): 300 s is over 10x.
CASES += [big_case("smp-256-4node", 256, 4, 2048, timeout=300)]

# Every CPU at once (issue 24). 64 vCPUs under TCG take a few seconds on a
# quiet host (2.2 s measured with the boot scrub); the timeout is 120 s.
# Each CPU's MPIDR, read at check-in, matches the per-CPU data it took.
CASES += [
    case("smp-64-parallel", ["--gic", "3", "--smp", "64", "--mem", "512M"],
         {"cpus": 64, "online": 64},
         append="report=full bootscrub=off ap_timeout_ms=30000",
         timeout=120, checks=[own_hwids(64), start_mode("parallel")]),
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

# Live update (issue 30, docs/liveupdate.md) at EL2 on 2 nodes: the Image
# is its own next image (the initrd), entered with the DTB grown by
# /chosen/keel,handover; every CPU is started again (PSCI CPU_OFF, then
# CPU_ON). Beside the two domain= domains a dom0less DT domain whose name
# is no domainN: the new image restores all three with their ids and
# names (the DT's domain is not built again), and the MMU (AT S12E1R)
# translates sampled IPAs of the restored tables. Then one fault class: a
# preserved range moved over the initrd, which the new image refuses
# before any CPU or the heap. Quiet on this 2-core host: 4-6 s each (two
# boots); the timeout is 120 s.
LU_ENTRY = r"^keel: arm64: entered at EL"
LU_WORDS = "liveupdate=1 domain=64M@0 domain=64M@1"
LU_ARGS = ["--el2", "--gic", "3", "--smp", "4", "--numa", "2", "--mem", "1G"]
LU_DT_DOMAIN = "guest-kept-across-update"


def make_lu_dt_domain(workdir, qemu_args):
    """QEMU's DT and one dom0less domain of 16 MiB, no kernel module."""
    return _patched_dtb(workdir, qemu_args,
                        "\tchosen {\n"
                        f"\t\t{LU_DT_DOMAIN} {{\n"
                        "\t\t\tcompatible = \"xen,domain\";\n"
                        "\t\t\t#address-cells = <0x2>;\n"
                        "\t\t\t#size-cells = <0x1>;\n"
                        "\t\t\tmemory = <0 16384>;\n"
                        "\t\t\tcpus = <1>;\n"
                        "\t\t};\n\t};\n")


_lu_ok = case("liveupdate-1-el2-2node", LU_ARGS,
              {"cpus": 4, "online": 4, "nodes": 2, "scrubbed": True}, el=2,
              append=LU_WORDS, setup=make_lu_dt_domain,
              checks=[updated(None, 1, 3, LU_ENTRY,
                              names=["domain0", "domain1", LU_DT_DOMAIN],
                              hw=True)])
_lu_bad = case("liveupdate-refused-overlap", LU_ARGS, {"fail": True}, el=2,
               append=LU_WORDS + " inject=handover-overlap", named=(),
               checks=[refused(r"handover: preserved\[0\] .* overlaps "
                               r"firmware-reserved .*\(initrd\)", LU_ENTRY)])
# The update at scale: 256 vCPUs in 4 nodes, each stopped by the freeze
# (PSCI CPU_OFF) and started again by the new image (CPU_ON, all at once).
# Quiet: 11 s (two boots of 256 vCPU threads on 2 host cores; 28 s with
# another QEMU beside it); 300 s is over 10x the loaded time. The freeze
# gets 10 s (lu_freeze_ms=) as the check-in gets 60: each of 255 vCPU
# threads must run to answer it, and on a loaded host one may not for
# over the default 1 s (the sandbox's 384 threads did,
# liveupdate-384cpu-6t).
_lu_big = case("liveupdate-256-4node",
               ["--el2", "--gic", "3", "--smp", "256", "--numa", "4",
                "--mem", "2G"],
               {"cpus": 256, "online": 256, "nodes": 4, "scrubbed": True},
               el=2,
               append=LU_WORDS + " ap_timeout_ms=60000 lu_freeze_ms=10000",
               checks=[updated(None, 1, 2, LU_ENTRY)], timeout=300)
_lu_ok["initrd_self"] = _lu_bad["initrd_self"] = True
_lu_big["initrd_self"] = True
CASES += [_lu_ok, _lu_bad, _lu_big]


def _too_big_refused(rep, log):
    """The old image refused the new one before any CPU stopped: its own
    boot fails naming what lies in the memory past its end, one image
    entered."""
    out = []
    why = rep.get("fail_reason") or ""
    if not re.match(r"liveupdate: no room for the new image's \[0x[0-9a-f]+, "
                    r"0x[0-9a-f]+\): ", why):
        out.append(f"fail_reason {why!r}")
    if len(re.findall(LU_ENTRY, log, re.M)) != 1:
        out.append("another image was entered")
    return out


_too_big_refused.wants_log = True


def _bad_page_named(rep, log):
    """The refusal names the bad page, which the report counts."""
    why = rep.get("fail_reason") or ""
    if "reserved bad option [0x40400000, 0x40401000) is there" not in why \
            or rep["bad_memory"]["pages"] != 1:
        return [f"fail_reason {why!r}, bad_memory {rep['bad_memory']}"]
    return []

# A bigger next build: its Image header needs 1 MiB more than this image.
# No room is kept past image_size (issue 36 §5); the old image finds it at
# update time (common/liveupdate/lu_room.c): free heap memory past its end
# under QEMU -kernel: taken. One that needs 256 MiB more runs into the
# initrd (QEMU puts it 128 MiB into RAM), a domain or the end of RAM:
# refused by the old image. Quiet: 1 s each.
_lu_bigger = case("liveupdate-bigger-image", LU_ARGS,
                  {"cpus": 4, "online": 4, "nodes": 2, "scrubbed": True},
                  el=2, append=LU_WORDS,
                  checks=[updated(None, 1, 2, LU_ENTRY)])
_lu_bigger["initrd_of"] = lambda image, work: arm64_image_needing(
    image, os.path.join(work, "bigger.Image"))
_lu_past = case("liveupdate-image-no-room", LU_ARGS, {"fail": True}, el=2,
                append=LU_WORDS, named=(), checks=[_too_big_refused])
_lu_past["initrd_of"] = lambda image, work: arm64_image_needing(
    image, os.path.join(work, "no-room.Image"), 256 << 20)
# The same bigger build with badpage= naming a page of the room past the
# image (QEMU -kernel: the image ends at 0x403d7000): the room was reserved
# whole and named the bad page's bytes, so the update wrote the next image
# over it. Now the old image refuses, naming the bad page. Quiet: 1 s.
_lu_bad_room = case("liveupdate-bigger-image-bad-room", LU_ARGS,
                    {"fail": True}, el=2,
                    append=LU_WORDS + " badpage=0x40400", named=(),
                    checks=[_too_big_refused, _bad_page_named])
_lu_bad_room["initrd_of"] = _lu_bigger["initrd_of"]
CASES += [_lu_bigger, _lu_past, _lu_bad_room]

# make check-scale: the largest machine QEMU virt builds (512 CPUs, the
# GICv3 redistributor space of virt; 40-76 s on this 2-core host, loaded;
# bring-up growth to 256 vCPUs: docs/benchmarks.md, part smp).
SCALE_CASES = [big_case("smp-512-8node", 512, 8, 4096, timeout=1800)]

# Issue 37 §6 (tests/qemu/churn_checks.py): churn=2 on 2 CPUs and 2 nodes
# of 128 MiB. The churn itself is 2 s of the boot; the case's timeout is
# the matrix default (TIMEOUT).
from .churn_checks import churn_ok_everywhere  # noqa: E402

CASES += [
    case("churn", ["--smp", "2", "--numa", "2", "--mem", "256M"],
         {"cpus": 2, "online": 2, "nodes": 2,
          "node_mem": {0: 128 * M, 1: 128 * M}, "scrubbed": True},
         append="churn=2", checks=[churn_ok_everywhere]),
]

# Issue 36 §0: a held vCPU left running (tests/qemu/lu_stuck_cases.py).
from .lu_stuck_cases import arm64_cases  # noqa: E402
CASES += arm64_cases()
