# SPDX-License-Identifier: MIT
"""lu_freeze_ms= (docs/cmdline.md): the live update's freeze bound, read
from the command line by every image of an update.

Each image that updates says its bound in its update line (`liveupdate:
generation G -> G+1: ..., freeze bound B ms`, printed from the value its
freeze's deadline is computed from) and the last image's report has it
(`liveupdate.freeze_bound_ms`). The checks want the bound asked in every
generation's line and in the report, and a clamped or malformed word
warned once by every image (each parses the same command line):

- liveupdate-freeze-bound: lu_freeze_ms=2500 through 2 updates;
- liveupdate-freeze-bound-default: no word: 1000;
- liveupdate-freeze-bound-clamped: lu_freeze_ms=99999: 60000, warned;
- liveupdate-freeze-bound-malformed: lu_freeze_ms=2s: warned, the
  earlier lu_freeze_ms=3000 of the same line kept.

Before the option existed: no such line, no key, `unknown option`
warnings.

The bound is the freeze's deadline, not only a number printed:
inject=cpu-freeze-late:1 holds CPU 1 LU_FREEZE_LATE_MS (300 ms) before it
answers the freeze (common/liveupdate/liveupdate.c lu_cpu_stop()), once:

- liveupdate-freeze-late-fails: lu_freeze_ms=100: the update fails naming
  CPU 1 and 100 ms (`freeze: 2 of 3 CPUs answered in 100 ms (CPU 1
  not)`; fewer than 2 when a loaded host's CPUs 2, 3 miss it too),
  generation stays 0, the audit (audit=full) exact, KEEL: FAIL
  with that reason; CPU 1, answering after the abort's own wait, goes
  back to its mailbox (the report after it, with no CPU lost);
- liveupdate-freeze-late-in-abort: lu_freeze_ms=200: CPU 1 answers in
  the abort's own wait (a bound more), still named with the count at the
  deadline;
- liveupdate-freeze-late-passes: lu_freeze_ms=3000: the same late answer
  is within the bound, the update succeeds (generation 1, 0 mismatches);
- liveupdate-freeze-late-boot-cpu, -offline: N the boot CPU (0), N not
  online (7: the machine has 4): the first image warns `not a CPU this
  live update freezes`, the new one `no live update freezes CPUs in this
  image`, as cpu-stop-late does; the update done.

300 ms is 3x the failing bound and 1/10 of the passing one, so a slow
host cannot flip either verdict: CPU 1 cannot answer before its 300 ms
(the wait is on the monotonic clock), so the 100 ms case fails however
fast the host; the 3000 ms case fails only if CPU 1's thread wakes more
than 2.7 s late (or the boot CPU posts the freeze 2.7 s after its
stamp), 9x the delay itself.
Without the delay (LU_FREEZE_LATE_MS 0) the 100 ms case's update is done
and its check fails.

Quiet on this 2-core host (2026-12): about 0.5 s a case (2 or 3 boots of
512 MiB), the late cases 0.3 s more; firmware.TIMEOUT (120 s) is a safety
net.
"""

import re

from tests.sandbox.liveupdate_cases import check_updated, update_failed

FW = "sandbox-liveupdate.fw"
DOMAINS = ["domain=64M@0", "domain=32M@1"]
LINE = (r"^keel: liveupdate: generation (\d+) -> \d+: .*, freeze bound "
        r"(\d+) ms$")


def check_bound(updates, bound, warning=None):
    """@updates updates, each image's line and the report saying @bound;
    @warning (a regex) warned once by every image, or no cmdline
    warning."""
    def check(rep, log):
        out, lu = [], rep["liveupdate"]
        if lu["generation"] != updates or lu["state"] != "taken":
            out.append(f"liveupdate {lu['state']} generation "
                       f"{lu['generation']}, expected taken {updates}")
        if lu.get("freeze_bound_ms") != bound:
            out.append(f"liveupdate.freeze_bound_ms "
                       f"{lu.get('freeze_bound_ms')!r}, expected {bound}")
        lines = re.findall(LINE, log, re.M)
        want = [(str(g), str(bound)) for g in range(updates)]
        if lines != want:
            out.append(f"update lines (generation, bound) {lines}, "
                       f"expected {want}")
        warned = re.findall(r"^keel: warning: cmdline: (.*)$", log, re.M)
        if warning is None:
            if warned:
                out.append(f"cmdline warnings {warned}")
        elif len(warned) != updates + 1 or \
                not all(re.fullmatch(warning, w) for w in warned):
            out.append(f"cmdline warnings {warned}: expected "
                       f"{updates + 1} (one an image) matching {warning!r}")
        return out
    return check


LATE = r"^keel: liveupdate: inject=cpu-freeze-late:1: CPU 1 answers the " \
    r"freeze 300 ms late$"
UNUSED = (r"^keel: warning: inject=cpu-freeze-late:{n}: not a CPU this live "
          r"update freezes \(the boot CPU, or not online\), nothing "
          r"injected$")


def check_late_fails(bound):
    """CPU 1's late answer fails the update with a @bound ms bound (under
    300): named, no new image, the audit exact, the verdict the freeze's
    reason."""
    def check(rep, log):
        lu = rep["liveupdate"]
        # [0-2] of 3: CPUs 2 and 3 answer in microseconds, but a loaded
        # host's thread may miss the bound too; CPU 1, the first late, is
        # named.
        out = update_failed(rep, log, rf"liveupdate: freeze: [0-2] of 3 "
                            rf"CPUs answered in {bound} ms \(CPU 1 not\)$")
        if lu["asked"] != 1:
            out.append(f"liveupdate.asked {lu['asked']}: expected 1")
        if lu.get("freeze_bound_ms") != bound:
            out.append(f"liveupdate.freeze_bound_ms "
                       f"{lu.get('freeze_bound_ms')}")
        if len(re.findall(LATE, log, re.M)) != 1:
            out.append("the injection's line not printed once")
        a = rep["audit"]
        if a["lost_pages"] or a["problems"] or not a["ok"]:
            out.append(f"audit {a}: not exact after the failed freeze")
        online = [c["id"] for c in rep["cpus"] if c.get("online")]
        if online != [0, 1, 2, 3]:
            out.append(f"CPUs online {online}, expected [0, 1, 2, 3]: "
                       "none lost")
        return out
    return check


def check_late_passes(rep, log):
    """The same late answer within a 3000 ms bound: the line seen in the
    first image, no warning of the freeze."""
    out = []
    if len(re.findall(LATE, log, re.M)) != 1:
        out.append("the injection's line not printed once (the first image)")
    if re.search(r"^keel: warning: liveupdate: freeze", log, re.M):
        out.append("a freeze warning with a 3000 ms bound")
    return out


def check_unused(n):
    """inject=cpu-freeze-late:@n names no CPU the freeze waits for: the
    first image says so, the new one (which updates no further) that no
    live update freezes CPUs in it; the update done."""
    def check(rep, log):
        out = []
        nope = (rf"^keel: warning: inject=cpu-freeze-late:{n}: no live "
                r"update freezes CPUs in this image, nothing injected$")
        for pat in (UNUSED.format(n=n), nope):
            if len(re.findall(pat, log, re.M)) != 1:
                out.append(f"not one line matching {pat!r}")
        if re.search(r"inject=cpu-freeze-late:\d+: CPU", log):
            out.append("the injection acted")
        return out
    return check


def lu_freeze_cases(case_class):
    return [
        case_class("liveupdate-freeze-bound", FW,
                   ["liveupdate=2", "lu_freeze_ms=2500"] + DOMAINS,
                   [check_bound(2, 2500)], {"scrubbed": True}),
        case_class("liveupdate-freeze-bound-default", FW,
                   ["liveupdate=1"] + DOMAINS,
                   [check_bound(1, 1000)], {"scrubbed": True}),
        case_class("liveupdate-freeze-bound-clamped", FW,
                   ["liveupdate=1", "lu_freeze_ms=99999"] + DOMAINS,
                   [check_bound(1, 60000,
                                r"lu_freeze_ms=99999 is not 10 to 60000, "
                                r"using 60000")],
                   {"scrubbed": True}),
        case_class("liveupdate-freeze-bound-malformed", FW,
                   ["liveupdate=1", "lu_freeze_ms=3000", "lu_freeze_ms=2s"]
                   + DOMAINS,
                   [check_bound(1, 3000,
                                r'bad value lu_freeze_ms="2s", keeping the '
                                r'previous value')],
                   {"scrubbed": True}),
        case_class("liveupdate-freeze-late-fails", FW,
                   ["liveupdate=1", "lu_freeze_ms=100", "audit=full",
                    "inject=cpu-freeze-late:1"] + DOMAINS,
                   [check_late_fails(100)], {"fail": True}, derive=False),
        # CPU 1 answers during the abort's own wait (200 to 400 ms): still
        # the one named, with the count at the deadline (it was "3 of 3
        # ... (CPU 4096 not)", the first CPU not back, none).
        case_class("liveupdate-freeze-late-in-abort", FW,
                   ["liveupdate=1", "lu_freeze_ms=200", "audit=full",
                    "inject=cpu-freeze-late:1"] + DOMAINS,
                   [check_late_fails(200)], {"fail": True}, derive=False),
        case_class("liveupdate-freeze-late-passes", FW,
                   ["liveupdate=1", "lu_freeze_ms=3000", "audit=full",
                    "inject=cpu-freeze-late:1"] + DOMAINS,
                   [check_updated(1), check_bound(1, 3000),
                    check_late_passes], {"scrubbed": True}),
        case_class("liveupdate-freeze-late-boot-cpu", FW,
                   ["liveupdate=1", "inject=cpu-freeze-late:0"] + DOMAINS,
                   [check_updated(1), check_unused(0)], {"scrubbed": True}),
        case_class("liveupdate-freeze-late-offline", FW,
                   ["liveupdate=1", "inject=cpu-freeze-late:7"] + DOMAINS,
                   [check_updated(1), check_unused(7)], {"scrubbed": True}),
    ]
