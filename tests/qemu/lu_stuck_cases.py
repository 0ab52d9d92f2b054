# SPDX-License-Identifier: MIT
"""Issue 36 §0's last finding, small: a held vCPU whose CPU answers no
stop (inject=vcpu-stop-stuck:N), on x86_64 (SVM) and arm64 (EL2).

The live update's freeze fails naming it, the round runs on, and when no
update came guests_release() waits GUEST_RELEASE_MS (5 s) for the round
to stop, then gives up: the vCPU is "left running". The fault's CPU goes on
at once, just as the boot CPU moves on to the audit. Before the fix it
came back into keel's shared state under the audit: x86_64's
arch_guest_cpu_fini() gave its SVM host save page back to the heap while
audit=full walked it, or after (here: the report's heap.free_pages one
above the audit's; the 240-CPU run: "18 pages walked free that the free
lists did not hold"). Now a CPU the boot gave up on touches nothing
shared: it leaves the online set (cpus[C].online false, its fail_reason
saying why), what it holds stays allocated and counted, and the audit
balances.
"""

import re

from .guests_checks import freeze_named

# The CPU of guest 2 in both machines below (2 nodes, 2 CPUs each: guest
# 2's domain is on node 1, held on a CPU other than the boot CPU).
GUEST = 2


def left_running(entry_line):
    """The freeze failed naming guest GUEST, the release gave up on its
    CPU after its bound, that CPU is out of service, no image entered,
    and the audit balances (no concurrent free under its walks)."""
    def check(rep, log):
        out = freeze_named(rep, log, GUEST, entry_line)
        left = re.search(rf"^keel: warning: guests: guest {GUEST}'s vCPU "
                         r"\(CPU (\d+)\) did not stop in \d+ ms: left "
                         r"running", log, re.M)
        if not left:
            out.append("no 'guests: guest N's vCPU (CPU C) did not stop "
                       "...: left running' warning")
            return out
        cpu = int(left.group(1))
        row = next((c for c in rep["cpus"] if c["id"] == cpu), None)
        if row is None or row.get("online") or \
                "left running" not in (row.get("fail_reason") or ""):
            out.append(f"cpus[{cpu}] {row}: expected offline, its "
                       "fail_reason saying it was left running")
        audit = rep["audit"]
        if not audit["ok"] or audit["lost_pages"] or audit["problems"]:
            out.append(f"audit {audit}")
        for line in re.findall(r"^keel: (?:error: )?(?:audit: (?:blocks "
                               r"walked|free lists hold|-?\d+ pages lost)|"
                               r"heap_check: ).*$", log, re.M):
            out.append(f"audit said: {line}")
        # Nothing frees after the audit: the report's heap agrees with it.
        if rep["heap"]["free_pages"] != audit["free_pages"]:
            out.append(f"heap.free_pages {rep['heap']['free_pages']}, "
                       f"audit.free_pages {audit['free_pages']}: a page "
                       "was freed after the audit walked")
        return out
    check.wants_log = True
    return check


# Quiet (this 2-core host): about 9 s each, 6 s of it the two bounds
# waited on purpose (the freeze's 1 s, the release's 5 s); the matrices'
# TIMEOUT (120 s) is over 10x that.
APPEND = ("report=full liveupdate=1 guests=on domain=64M@0 domain=64M@1 "
          f"inject=vcpu-stop-stuck:{GUEST}")


def x86_cases(elf, base):
    """tests/qemu/x86_64.py's case (keel.elf its own next image)."""
    from .x86_machine import EXIT_FAIL, M, Case, Machine
    m = Machine("4", numa=[256 * M, 256 * M])
    return [Case("guests-liveupdate-stop-stuck-svm",
                 ["--kernel", elf] + m.qemu_args(), m.mem,
                 f"{base} {APPEND}",
                 # The stuck vCPU's CPU leaves the online set.
                 expect=dict(m.expect(), fail=True, online=3),
                 exit_status=EXIT_FAIL, qemu_tail=["-initrd", elf],
                 checks=[left_running(r"^keel: x86_64 entry, magic")])]


def arm64_cases():
    """tests/qemu/arm64.py's case (its Image its own next image)."""
    from .arm64_machine import case
    c = case("guests-liveupdate-stop-stuck-el2",
             ["--el2", "--gic", "3", "--smp", "4", "--numa", "2",
              "--mem", "512M"],
             {"cpus": 4, "online": 3, "nodes": 2, "fail": True}, el=2,
             append=APPEND,
             checks=[left_running(r"^keel: arm64: entered at EL")])
    c["initrd_self"] = True
    return [c]
