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

And a CPU still inside its exit when the release's bound runs out
(inject=vcpu-exit-slow:N: it passed the gate, so the boot waited for it,
5 s at most): before the fix it went on afterwards and freed its SVM host
save page as the boot moved on (here: heap.free_pages 95798, the audit's
95797). Now the boot gives up on the exits too and names the CPU in one
line; the CPU, when it goes on, gives nothing back. The same fault in the
failed freeze: the stop withdrawn while that CPU was in its exit, it was
neither posted again (not idle) nor ran on, so its vCPU silently stopped
until the release, which then found every CPU idle (no "left running");
now it sees the stop withdrawn before it gives anything back and runs on.
"""

import re

from .guests_checks import freeze_named

# The CPU of guest 2 in both machines below (2 nodes, 2 CPUs each: guest
# 2's domain is on node 1, held on a CPU other than the boot CPU).
GUEST = 2


def _audit_balances(rep, log):
    """The audit balances and nothing was freed after it walked."""
    out = []
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


def _left_cpu(rep, log, out):
    """The CPU of the 'left running' warning naming guest GUEST, or None
    (said in @out)."""
    left = re.search(rf"^keel: warning: guests: guest {GUEST}'s vCPU "
                     r"\(CPU (\d+)\) did not stop in \d+ ms: left "
                     r"running", log, re.M)
    if not left:
        out.append("no 'guests: guest N's vCPU (CPU C) did not stop "
                   "...: left running' warning")
        return None
    return int(left.group(1))


def _offline(rep, cpu, reason):
    """cpus[@cpu] is out of the online set, its fail_reason holding
    @reason."""
    row = next((c for c in rep["cpus"] if c["id"] == cpu), None)
    if row is None or row.get("online") or \
            reason not in (row.get("fail_reason") or ""):
        return [f"cpus[{cpu}] {row}: expected offline, its fail_reason "
                f"saying {reason!r}"]
    return []


def left_running(entry_line):
    """The freeze failed naming guest GUEST, the release gave up on its
    CPU after its bound, that CPU is out of service, no image entered,
    and the audit balances (no concurrent free under its walks)."""
    def check(rep, log):
        out = freeze_named(rep, log, GUEST, entry_line)
        cpu = _left_cpu(rep, log, out)
        if cpu is None:
            return out
        return out + _offline(rep, cpu, "left running") + \
            _audit_balances(rep, log)
    check.wants_log = True
    return check


def exit_given_up(entry_line):
    """inject=vcpu-exit-slow:GUEST: the CPU of guest GUEST's vCPU stays in
    its exit (past the gate: the boot waits for it) until the boot gave
    up on it. The freeze fails naming it, the release names it left
    running, then one line names it still in its exit: it leaves the
    online set with what it holds (x86_64: its SVM host save page), which
    it never frees after that; the audit balances, and the report's heap
    agrees with it (before the fix the page went back to the heap as the
    boot moved on: under the audit, or after it)."""
    def check(rep, log):
        out = freeze_named(rep, log, GUEST, entry_line)
        cpu = _left_cpu(rep, log, out)
        if cpu is None:
            return out
        # The failed freeze withdrew the stop while it was in its exit:
        # it ran on (else it would have been back in its mailbox at the
        # release, which would have stopped nothing).
        if not re.search(r"^keel: guests: the live update failed: 2 held "
                         r"vCPUs run on\r?$", log, re.M):
            out.append("no 'the live update failed: 2 held vCPUs run on'")
        if re.search(r"still in its exit \d+ ms after the stop was "
                     r"withdrawn", log, re.M):
            out.append("it did not run on after the failed freeze")
        if not re.search(rf"^keel: warning: guests: CPU {cpu} was still "
                         r"in its exit from the held round \d+ ms after "
                         r"the boot gave up on it: what it holds for its "
                         r"guests stays allocated", log, re.M):
            out.append(f"no 'guests: CPU {cpu} was still in its exit "
                       "...' warning")
        return out + _offline(rep, cpu, "still in its exit") + \
            _audit_balances(rep, log)
    check.wants_log = True
    return check


# Quiet (this 2-core host): about 9 s each, 6 s of it the two bounds
# waited on purpose (the freeze's 1 s, the release's 5 s); the matrices'
# TIMEOUT (120 s) is over 10x that.
APPEND = ("report=full liveupdate=1 guests=on domain=64M@0 domain=64M@1 "
          f"inject=vcpu-stop-stuck:{GUEST}")
# Quiet (2026-12): 12.3 s (x86_64), 11.3 s (arm64), 11 s of it the three
# bounds waited on purpose (the freeze's 1 s, the release's 5 s, then 5 s
# for the exits in progress); TIMEOUT (120 s) is over 5x that.
EXIT_SLOW = ("report=full liveupdate=1 guests=on domain=64M@0 "
             f"domain=64M@1 inject=vcpu-exit-slow:{GUEST}")


def x86_cases(elf, base):
    """tests/qemu/x86_64.py's case (keel.elf its own next image)."""
    from .x86_machine import EXIT_FAIL, M, Case, Machine
    m = Machine("4", numa=[256 * M, 256 * M])
    entry = r"^keel: x86_64 entry, magic"
    return [Case(f"guests-liveupdate-{name}-svm",
                 ["--kernel", elf] + m.qemu_args(), m.mem,
                 f"{base} {append}",
                 # The stuck vCPU's CPU leaves the online set.
                 expect=dict(m.expect(), fail=True, online=3),
                 exit_status=EXIT_FAIL, qemu_tail=["-initrd", elf],
                 checks=[check(entry)])
            for name, append, check in
            (("stop-stuck", APPEND, left_running),
             ("exit-slow", EXIT_SLOW, exit_given_up))]


def arm64_cases():
    """tests/qemu/arm64.py's case (its Image its own next image)."""
    from .arm64_machine import case
    out = []
    for name, append, check in (("stop-stuck", APPEND, left_running),
                                ("exit-slow", EXIT_SLOW, exit_given_up)):
        c = case(f"guests-liveupdate-{name}-el2",
                 ["--el2", "--gic", "3", "--smp", "4", "--numa", "2",
                  "--mem", "512M"],
                 {"cpus": 4, "online": 3, "nodes": 2, "fail": True}, el=2,
                 append=append,
                 checks=[check(r"^keel: arm64: entered at EL")])
        c["initrd_self"] = True
        out.append(c)
    return out
