# SPDX-License-Identifier: MIT
"""The x86_64 cases of guests that run in their domains (guests=on,
issue 31 §3; tests/qemu/guests_checks.py), part of tests/qemu/x86_64.py's
matrix. QEMU 7.2's TCG with `-cpu max` has AMD SVM with nested paging
(CPUID 8000_0001h ECX bit 2, 8000_000Ah EDX bit 0), so the domains'
tables are NPT and the guests run under VMRUN; `-cpu max,svm=off` has no
SVM, and the report says so.

The machine: 2 nodes of 512 MiB, one CPU each. Measured one at a time on
this 2-core host: quiet, 0.8 s (guests-svm-2node), 3.4 s
(guests-svm-dirty-rebuild: 2 rounds of 840 MiB zeroed, walked), 1.6 s
(guests-svm-dirty-trusted), 1.8 s (guests-no-svm); loaded by other
builds, up to 6.2 s. The matrix's TIMEOUT is over 10x each."""

from .domains_checks import Ask, domains_built
from .fill_pattern import fill_args
from .guests_checks import (freeze_failed, guests_ran, guests_resumed,
                            guests_saw_fill, guests_unsupported,
                            preempted_before_loop)
from .liveupdate_checks import updated
from .x86_machine import (EXIT_FAIL, M, Case, Machine, p2m_selftest_format,
                          smp_case)

MACHINE = Machine("2", numa=[512 * M, 512 * M])
FOUR = [Ask(32 * M, i // 2) for i in range(4)]
# As much as the nodes hold (about 440 MiB free each): the second round
# is built on what the first round's guests wrote.
FULL = [Ask(105 * M, i // 4) for i in range(8)]
ON_NODE1 = [Ask(64 * M, 1) for _ in range(4)]
# Node 1, [512 MiB, 1 GiB), left full of a pattern by a "first stage".
DIRTY = (0x20000000, 0x40000000)


def words(asks):
    return " ".join(a.word() for a in asks)


# guests_ran()'s shared check wants some guest's loop cut by the slice
# timer (more than two entries): a 20 ms loop (the default) fits inside
# one of this host's 11-35 ms stalls (docs/benchmarks.md, "latency"), after
# which it ends in its first slice; 200 ms never does, and costs 0.2 s.
RUN = "guest_run_ms=200"


def guest_cases(kern, base, workdir):
    """The cases; @workdir holds the pattern file of the dirty ones."""
    dirty = fill_args(workdir, *DIRTY)
    return [
        smp_case("guests-svm-2node", MACHINE,
                 f"{base} report=full guests=on p2m_selftest=on {RUN} "
                 f"inject=guest-past-end:2 {words(FOUR)}", kern,
                 {"scrubbed": True},
                 checks=[domains_built(FOUR, local=range(4)),
                         guests_ran(4, faulted=[2]),
                         p2m_selftest_format("npt")]),
        smp_case("guests-svm-dirty-rebuild", MACHINE,
                 f"{base} report=full bootscrub=off guests=on {RUN} "
                 f"guest_rounds=2 {words(FULL)}", kern,
                 checks=[domains_built(FULL, local=range(8)),
                         guests_ran(8, rounds=2)], qemu_tail=dirty),
        # The control: the pattern read by guests whose memory nobody
        # zeroed; the default audit (audit=full's zero sampling of the
        # domains would see it first).
        smp_case("guests-svm-dirty-trusted", MACHINE,
                 "after=exit report=full bootscrub=off domains_trust=on "
                 f"guests=on {words(ON_NODE1)}", kern, {"fail": True},
                 checks=[guests_saw_fill([1, 2, 3, 4])], qemu_tail=dirty,
                 exit_status=EXIT_FAIL),
        smp_case("guests-no-svm", MACHINE,
                 f"{base} guests=on p2m_selftest=on {words(FOUR)}", kern,
                 {"scrubbed": True},
                 checks=[guests_unsupported("no AMD SVM"),
                         p2m_selftest_format("ept")],
                 extra=["--cpu", "max,svm=off"]),
    ]


def lu_fault_cases(elf, base):
    """Issue 36 §0 and §1: a live update whose freeze fails in a defined
    way, and one on a machine booted without ACPI. keel.elf is its own
    next image (-initrd)."""
    m = Machine("4", numa=[512 * M, 512 * M])
    entry = r"^keel: x86_64 entry, magic"
    initrd = ["-initrd", elf]
    return [
        # The CPU of guest 2's held vCPU answers the freeze 3 s late
        # (inject=vcpu-stop-slow:2), past its 1 s bound: the update fails
        # before any CPU stops, naming the vCPU, and the old image's
        # guests run on. Quiet: 6 s (the 3 s delay, one boot); TIMEOUT
        # (120 s) is over 15x. Before issue 36 the freeze waited for it
        # without a bound.
        Case("guests-liveupdate-stop-slow-svm",
             ["--kernel", elf] + m.qemu_args(), m.mem,
             f"{base} report=full liveupdate=1 domain=64M@0 domain=64M@1 "
             "guests=on inject=vcpu-stop-slow:2",
             expect=dict(m.expect(), fail=True), exit_status=EXIT_FAIL,
             qemu_tail=initrd, checks=[freeze_failed(2, 2, entry)]),
        # The race of issue 36 §0 made certain: guest 2's slice ends right
        # after its walk's hypercall, before its loop (a pc the next image
        # refuses); keel must not count it as in its loop, so the freeze
        # records it only once it is, and the new image resumes both.
        # (Counted as in its loop, as before issue 36, its CPU waits there
        # for the freeze and the new image resumes 1 of 2.) Quiet: 3 s
        # (two boots); TIMEOUT (120 s) is over 30x.
        Case("guests-liveupdate-preempt-walk-svm",
             ["--kernel", elf] + m.qemu_args(), m.mem,
             f"{base} report=full liveupdate=1 domain=64M@0 domain=64M@1 "
             "guests=on inject=guest-preempt-walk:2",
             expect=dict(m.expect(), scrubbed=True), qemu_tail=initrd,
             checks=[updated(elf, 1, 2, entry), guests_resumed(2),
                     preempted_before_loop(2)]),
        # acpi=off: no MADT, the boot CPU alone, yet its local APIC is
        # brought up, so the freeze's timer_off() finds it mapped (before
        # issue 36 a page fault after the freeze lost the domains). Quiet:
        # 3 s (two boots of 256 MiB); TIMEOUT is over 30x.
        Case("liveupdate-acpi-off", ["--kernel", elf, "--smp", "2",
                                     "--numa", "2x128M"], 256 * M,
             f"{base} acpi=off liveupdate=1 domain=64M",
             expect=dict(boot="multiboot1", online=1, scrubbed=True, cpus=1,
                         nodes=1),
             qemu_tail=initrd, checks=[updated(elf, 1, 1, entry)]),
    ]
