# SPDX-License-Identifier: MIT
"""Issue 38 §3 under QEMU arm64: a real synchronous external abort
through keel's exception path (arch/arm64/traps.c, ras.c).

inject=sea makes the arch map, as Device memory, a page that the DT
leaves to no device, and read it once the heap is open. QEMU's virt
machine answers a read that decodes to nothing with an external abort
(a data abort, DFSC 0x10, FAR the address): keel queues the page as
broken and ends the boot with one line
"KEEL: FAIL synchronous external abort (memory error) at ADDR", where
ADDR is the page it said it would read. The boot prints no report (the
abort is fatal), so these cases check the log themselves: the abort
came (QEMU's syndrome, not keel's word), at the address keel named,
which is not RAM, and nothing passed.

Issue 38 §4 and §5 with guests at EL2: guests-skip-bad-page-el2 (a bad
page in the domain before its guest runs: its walk skips it and says
so) and guests-skip-bad-page-liveupdate-el2 (the same, then liveupdate=1
holding the guest: the new image marks the page again in the restored
extent, and the resumed guest's walk, 8191 pages plus the 1 of its list,
is judged whole; without the restore's mark the new image's list would
be empty and the walk short: FAIL)."""

import re

from scripts.keel import boot

from .arm64_machine import case

RAM_BASE = 0x40000000  # QEMU virt's RAM starts at 1 GiB
# Each boot takes 2-4 s here; 60 s is a safety net (15x).
TIMEOUT = 60

READING = re.compile(r"^keel: inject=sea: reading (0x[0-9a-f]+), a page no "
                     r"device of the DT claims", re.M)
SYNDROME = re.compile(r"^keel: error: memory error on CPU \d+ at EL(\d): "
                      r"data abort, FSC 0x10, FAR (0x[0-9a-f]+), ESR "
                      r"(0x[0-9a-f]+)", re.M)


class _FatalBoot:
    """A boot that must end in the abort's FAIL line and no report: what
    tests/qemu/arm64.py run_case() asks of a boot (problems(), report,
    elapsed), the problems found here."""

    def __init__(self, b, out):
        self.report = None
        self.elapsed = b.elapsed
        self.log = b.log
        self._out = out

    def problems(self, exit_status=0, expect=None):
        return self._out


def _check_log(b, el):
    """Problems with the log of an inject=sea boot at EL@el."""
    if b.timed_out:
        return [b.status_text()]
    log, out = b.log, []
    m = READING.search(log)
    if not m:
        return ["no 'inject=sea: reading ADDR' line: nothing was read"]
    addr = int(m.group(1), 16)
    if addr % 4096 or addr >= RAM_BASE:
        out.append(f"inject=sea read {addr:#x}: not a page below RAM")
    s = SYNDROME.search(log)
    if not s:
        out.append("no data abort with FSC 0x10 (synchronous external "
                   "abort) decoded in the log")
    else:
        esr = int(s.group(3), 16)
        if int(s.group(2), 16) != addr or esr >> 26 != 0x25 or \
                esr & 0x3f != 0x10 or esr & (1 << 10) or \
                int(s.group(1)) != el:
            out.append(f"the abort {s.group(0)!r} is not a data abort at "
                       f"EL{el} with a valid FAR {addr:#x}")
    fails = re.findall(r"^KEEL: (?:FAIL|PASS)[^\r\n]*", log, re.M)
    want = f"KEEL: FAIL synchronous external abort (memory error) at {addr:#x}"
    if fails != [want]:
        out.append(f"verdict lines {fails}, want exactly [{want!r}]")
    if "KEEL-REPORT" in log:
        out.append("a report after a fatal abort")
    return out


def _fatal(el):
    def live(cmd_for, timeout, log_path, work, image):
        b = boot.qemu(cmd_for([]), timeout, log_path)
        return _FatalBoot(b, _check_log(b, el)), []
    return live


def _sea_case(name, args, el):
    c = case(name, args, {}, el=el, append="inject=sea bootscrub=off",
             timeout=TIMEOUT, audit=None)
    c["live"] = _fatal(el)
    return c


def _skip_case():
    """Issue 38 §4: a bad page in a domain before its guest runs
    (inject=poison-domain:1: the page at its middle) is skipped by the
    walk, which says so (the check is x86_64's, the same rule)."""
    from .x86_ras_cases import skipped_bad_page
    return case("guests-skip-bad-page-el2",
                ["--el2", "--gic", "3", "--smp", "2", "--mem", "512M"],
                {}, el=2, timeout=TIMEOUT,
                append="bootscrub=off domain=32M guests=on "
                       "guest_run_ms=200 inject=poison-domain:1",
                checks=[skipped_bad_page(32 << 20)])


def _skip_lu_case():
    """The same bad page, then a live update that holds the guest: the
    new image restores the domain, marks the page again and resumes the
    guest, which says it skipped it."""
    from .x86_ras_cases import handed_over, skipped_bad_page
    c = case("guests-skip-bad-page-liveupdate-el2",
             ["--el2", "--gic", "3", "--smp", "2", "--mem", "512M"],
             {"scrubbed": True}, el=2, timeout=TIMEOUT,
             append="domain=32M guests=on liveupdate=1 "
                    "inject=poison-domain:1",
             checks=[skipped_bad_page(32 << 20), handed_over])
    c["initrd_self"] = True
    return c


CASES = [
    # GICv2 at EL1: the page past the GICv2m MSI frame.
    _sea_case("sea-unassigned-el1", ["--smp", "2", "--mem", "256M"], 1),
    # GICv3 at EL2 (keel as a hypervisor): the page past the distributor.
    _sea_case("sea-unassigned-el2", ["--el2", "--gic", "3", "--smp", "2",
                                     "--mem", "256M"], 2),
    # The guests' walk skips a bad page of its domain (issue 38 §4).
    _skip_case(),
    _skip_lu_case(),
]
