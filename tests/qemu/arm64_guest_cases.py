# SPDX-License-Identifier: MIT
"""The arm64 cases of guests that run in their domains (guests=on, issue
31; tests/qemu/guests_checks.py), part of tests/qemu/arm64.py's matrix.

The machine: QEMU virt at EL2 with a GICv3, 2 nodes of 512 MiB with one
CPU each. Measured one at a time on this 2-core host: quiet, 0.8 s
(guests-el2-2node), 4.5 s (guests-dirty-rebuild-el2: 2 rounds of 960 MiB
zeroed, walked), 1.9 s (guests-dirty-trusted-el2, guests-64-el2), under
1 s for the others; with other builds loading the host, up to 9 s
(guests-dirty-rebuild-el2). The matrix's TIMEOUT (120 s) is over 10x
each."""

from .arm64_machine import M, case
from .dom0less_cases import (STATIC_BASE, STATIC_SIZE, loaded_at,
                             make_xen_static)
from .domains_checks import Ask, domains_built
from .fill_pattern import fill_args
from .guests_checks import (freeze_failed, guests_ran, guests_resumed,
                            guests_saw_fill, guests_summarised,
                            guests_unsupported, preempted_before_loop)
from .liveupdate_checks import in_4k_pieces, updated

EL2_2NODE = ["--el2", "--gic", "3", "--smp", "2", "--numa", "2",
             "--mem", "1G"]
EL2_2NODE_EXPECT = {"cpus": 2, "online": 2, "nodes": 2,
                    "node_mem": {0: 512 * M, 1: 512 * M}}

# 8 domains, 4 on each node: each node's CPU shares itself between 4.
EIGHT = [Ask(32 * M, i // 4) for i in range(8)]
# As much as the nodes hold (about 500 MiB free each): a second round must
# be built on the memory the first round's guests wrote.
FULL = [Ask(120 * M, i // 4) for i in range(8)]
ON_NODE1 = [Ask(64 * M, 1) for _ in range(4)]


def words(asks):
    return " ".join(a.word() for a in asks)


def static_not_run(rep, log):
    """domain0 (8 MiB, from the heap) walked by its guest; the static
    domU1 (the user's data) given none: not-run, nothing walked."""
    rows = {g["domain"]: g for g in rep.get("guests", [])}
    out = []
    if rows.get(1, {}).get("exit_reason") != "done" or \
            rows[1]["pages_walked"] != 8 * M // 4096:
        out.append(f"domain0's guest: {rows.get(1)}")
    if rows.get(2, {}).get("exit_reason") != "not-run" or \
            rows[2]["pages_walked"]:
        out.append(f"static domU1's guest: {rows.get(2)}")
    if "guest 2: not run: its memory is the user's (xen,static-mem)" \
            not in log:
        out.append("no line saying why domU1 has no guest")
    return out


def dirty_ram(workdir, qemu_args):
    """A first stage's leftovers: [0x50000000, 0x80000000), the top of
    node 0 and all of node 1, filled with FILL_WORD (not the kernel at
    0x40200000 nor the DTB at 0x48000000)."""
    return [], fill_args(workdir, 0x50000000, 0x80000000)


CASES = [
    # Every page of 8 domains walked through stage 2 by their guests, 4
    # sharing each CPU on the EL2 timer; domain 3's guest then touches one
    # page past its end: a stage-2 fault at exactly its size.
    case("guests-el2-2node", EL2_2NODE, EL2_2NODE_EXPECT, el=2,
         append=f"report=full guests=on inject=guest-past-end:3 "
                f"{words(EIGHT)}",
         checks=[domains_built(EIGHT, local=range(8)),
                 guests_ran(8, faulted=[3])]),
    # Dirty memory (bootscrub=off, RAM left full of a pattern), domains
    # destroyed after their guests wrote theirs, built again on it: no
    # word of either pattern reaches the second round's guests.
    case("guests-dirty-rebuild-el2", EL2_2NODE, EL2_2NODE_EXPECT, el=2,
         append=f"report=full bootscrub=off guests=on guest_rounds=2 "
                f"{words(FULL)}",
         setup=dirty_ram, log_has=["guests: round 2 of 2: 8 vCPUs"],
         checks=[domains_built(FULL, local=range(8)),
                 guests_ran(8, rounds=2)]),
    # The control: the same memory, built without zeroing (the heap told
    # it is clean, the build told to trust it): the guests read the
    # pattern, and the boot fails saying so. The default audit: the
    # domains' zero sampling of audit=full would see it first.
    case("guests-dirty-trusted-el2", EL2_2NODE,
         dict(EL2_2NODE_EXPECT, fail=True), el=2,
         append=f"report=full bootscrub=off domains_trust=on guests=on "
                f"{words(ON_NODE1)}", audit=None,
         setup=dirty_ram, checks=[guests_saw_fill([1, 2, 3, 4])]),
    # 64 domains on 2 CPUs: 32 guests share each; the compact report
    # keeps one row (the largest blackout) and counts the rest.
    case("guests-64-el2", EL2_2NODE, EL2_2NODE_EXPECT, el=2,
         append="guests=on guest_run_ms=5 " +
                " ".join(f"domain=4M@{i % 2}" for i in range(64)),
         checks=[guests_summarised(64, 3)]),
    # A static domain's memory is the user's (files at both ends of it,
    # read back after the verdict): its guest does not run, the other's
    # does.
    case("guests-static-mem", ["--el2", "--gic", "3", "--smp", "2",
                               "--mem", "1G"],
         {"cpus": 2, "online": 2, "scrubbed": True}, el=2, after="halt",
         setup=make_xen_static, append="report=full guests=on domain=8M",
         loaded=loaded_at((STATIC_BASE, M + 5),
                          (STATIC_BASE + STATIC_SIZE - M, M)),
         checks=[static_not_run]),
    case("guests-el1-unsupported", ["--gic", "3", "--smp", "2",
                                    "--mem", "256M"],
         {"cpus": 2, "online": 2}, append="guests=on domain=8M "
         "inject=guest-past-end:1",
         log_has=["warning: inject=guest-past-end:1: guests cannot run "
                  "here, nothing injected"],
         checks=[guests_unsupported("guests need EL2")]),
    case("guests-el2-gic2-unsupported", ["--el2", "--smp", "2",
                                         "--mem", "256M"],
         {"cpus": 2, "online": 2}, el=2, append="guests=on domain=8M",
         checks=[guests_unsupported("no GICv3")]),
]

# Issue 31 §4: guests across a live update. 2 nodes of 2 CPUs; the old
# image holds its 2 guests running in their loops on the CPUs other than
# the boot CPU, its freeze stops them, the handover carries their vCPUs,
# the new image (the initrd: this Image) resumes them on their nodes and
# runs them guest_run_ms=, right after the restore and before the boot
# scrub (their stage-2 copies and images given back dirty: the scrub
# counts every free byte). Quiet on this
# 2-core host: 1.7 s (two boots); the matrix's TIMEOUT (120 s) is over
# 60x.


def _lu_guests(name, gens):
    """guests=on liveupdate=@gens on 2 nodes of 2 CPUs, a domain on each:
    the last image resumes and judges both guests."""
    c = case(name, ["--el2", "--gic", "3", "--smp", "4", "--numa", "2",
                    "--mem", "1G"],
             {"cpus": 4, "online": 4, "nodes": 2, "scrubbed": True}, el=2,
             append=f"report=full liveupdate={gens} guests=on "
                    "domain=64M@0 domain=64M@1",
             checks=[updated(None, gens, 2, r"^keel: arm64: entered at EL"),
                     guests_resumed(2, generation=gens)])
    c["initrd_self"] = True
    return c


CASES.append(_lu_guests("guests-liveupdate-el2", 1))

# One node of 2 CPUs, 2 guests: the old image holds both on CPU 1 (not the
# boot CPU, which freezes); the new image spreads them over CPUs 0 and 1.
# Quiet: 1 s (two boots); TIMEOUT is over 100x.
_lu_1node = case("guests-liveupdate-1node-el2",
                 ["--el2", "--gic", "3", "--smp", "2", "--mem", "1G"],
                 {"cpus": 2, "online": 2, "nodes": 1, "scrubbed": True},
                 el=2, append="report=full liveupdate=1 guests=on "
                              "domain=64M domain=64M",
                 checks=[updated(None, 1, 2, r"^keel: arm64: entered at EL"),
                         guests_resumed(2)])
_lu_1node["initrd_self"] = True
CASES.append(_lu_1node)

# liveupdate=2 (three images): the middle image resumes the 2 guests right
# after its restore and holds them for its own update (paused only while
# its scrub and read-back use every CPU), so its freeze stops and records
# the same vCPUs and the last image resumes and judges them. Quiet on this
# 2-core host: 1.1 s (three boots; up to 5 s beside other builds); the
# matrix's TIMEOUT (120 s) is over 100x the quiet time.
CASES.append(_lu_guests("guests-liveupdate2-el2", 2))

# The same with the handover in 4 KiB pieces (version 7,
# inject=handover-pieces): piece 0 named by /chosen/keel,handover, the
# rest through its table, the vCPU records whole. Quiet: about 1.2 s.
_lu_pieces = _lu_guests("guests-liveupdate2-el2-pieces", 2)
_lu_pieces["append"] += " inject=handover-pieces"
_lu_pieces["checks"].append(in_4k_pieces(2))
CASES.append(_lu_pieces)

# Issue 36 §0: the CPU of guest 2's held vCPU answers the freeze 3 s late
# (inject=vcpu-stop-slow:2), past its 1 s bound: the update fails before
# any CPU stops (PSCI CPU_OFF would be for good), naming the vCPU, and the
# old image's guests run on, then are judged. Quiet: 5 s (the 3 s delay,
# one boot); TIMEOUT (120 s) is over 20x.
_stop_slow = case("guests-liveupdate-stop-slow-el2",
                  ["--el2", "--gic", "3", "--smp", "4", "--numa", "2",
                   "--mem", "1G"],
                  {"cpus": 4, "online": 4, "nodes": 2, "fail": True}, el=2,
                  append="report=full liveupdate=1 guests=on domain=64M@0 "
                         "domain=64M@1 inject=vcpu-stop-slow:2",
                  checks=[freeze_failed(2, 2, r"^keel: arm64: entered at EL")])
_stop_slow["initrd_self"] = True
CASES.append(_stop_slow)

# Issue 36 §1: a live update with acpi=off (the DT path whatever the
# firmware offers): every hook of the freeze and the jump works there too.
# Quiet: 2 s (two boots); TIMEOUT is over 50x.
_acpi_off = case("liveupdate-acpi-off-arm64", ["--smp", "2", "--mem", "1G"],
                 {"cpus": 2, "online": 2, "nodes": 1, "scrubbed": True},
                 append="acpi=off liveupdate=1 domain=64M",
                 checks=[updated(None, 1, 1, r"^keel: arm64: entered at EL")])
_acpi_off["initrd_self"] = True
CASES.append(_acpi_off)

# The race behind issue 36 §0's "1 of 2 vCPUs resumed", made certain:
# guest 2's slice ends right after its walk's hypercall (CNTHP already
# past), before its loop; keel must not count that as its loop, so the
# freeze records it only once it is there and the new image resumes both.
# Quiet: 2 s (two boots); TIMEOUT is over 50x.
_preempt = case("guests-liveupdate-preempt-walk-el2",
                ["--el2", "--gic", "3", "--smp", "4", "--numa", "2",
                 "--mem", "1G"],
                {"cpus": 4, "online": 4, "nodes": 2, "scrubbed": True}, el=2,
                append="report=full liveupdate=1 guests=on domain=64M@0 "
                       "domain=64M@1 inject=guest-preempt-walk:2",
                checks=[updated(None, 1, 2, r"^keel: arm64: entered at EL"),
                        guests_resumed(2), preempted_before_loop(2)])
_preempt["initrd_self"] = True
CASES.append(_preempt)
