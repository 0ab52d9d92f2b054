# SPDX-License-Identifier: MIT
"""Issue 38 §3's x86_64 QEMU cases: a machine check injected with QEMU's
monitor command `mce` (HMP, through QMP) while keel runs its stress=
phase. keel's #MC handler (arch/x86_64/mce.c) reads the bank, queues the
page and returns (MCG_STATUS.RIPV set); the page is taken out of service
at the next safe point, and the boot ends in PASS.

- mce-free-page: an uncorrected memory-controller read error (MCA code
  0x009f) at an address in the middle of the 2nd GiB, which the heap
  holds free in a 1 GiB chunk when the stress starts: heap_offline()
  takes the page out of service (or withholds it from the stress's block
  that holds it) and audit=full stays exact.
- mce-no-address: a valid error with no address (ADDRV clear): logged,
  nothing offlined, the boot goes on.
- mce-fatal: RIPV clear: the interrupted context cannot go on, so the boot
  ends in FAIL naming the address."""

import os
import tempfile

from . import memcheck
from .x86_machine import EXIT_FAIL, M, Case, Machine, log_contains, smp_case

# VAL | UC | EN | MISCV | ADDRV | S, MCA code 0x009f (memory controller:
# generic read, channel unspecified).
STATUS_MEM_UC = 0xbd0000000000009f
STATUS_NO_ADDR = 0xb90000000000009f  # ADDRV clear
MCG_RIPV_MCIP = 0x5
MCG_MCIP = 0x4
PAGE_ADDR = 0x50000000 + 0x1234  # 1.25 GiB: free when the stress starts
# The handoff's line (common/boot.c phase_heap()), before stress= begins.
WHEN = r"heap: \d+ free ranges handed over"


def _inject(status, mcg, addr):
    """A live hook: once the heap is up, `mce 0 1 STATUS MCG ADDR 0` on
    CPU 0's bank 1, then the boot runs on to its verdict."""
    def live(cmd_for, timeout, log_path):
        def act(qmp):
            line = f"mce 0 1 {status:#x} {mcg:#x} {addr:#x} 0"
            r = qmp.cmd("human-monitor-command",
                        **{"command-line": line})
            return [f"QEMU refused {line!r}: {r.strip()}"] if r.strip() \
                else []
        with tempfile.TemporaryDirectory(prefix="keel-mce-") as work:
            return memcheck.watched_boot(cmd_for, timeout, log_path, work,
                                         act, when=WHEN, at_verdict=False)
    return live


def _offlined(page, source):
    """The report names @page as taken out by @source: one bad_memory row,
    by_source, and audit.bad_pages (withheld once the stress freed it)."""
    def check(rep):
        out = []
        bad = rep["bad_memory"]
        row = [page * 4096, page * 4096 + 4096, 1, source]
        if row not in [list(r) for r in bad["ranges"]]:
            out.append(f"bad_memory.ranges {bad['ranges']} lacks {row}")
        if bad["pages"] != 1 or bad["by_source"].get(source) != 1 or \
                rep["audit"].get("bad_pages") != 1:
            out.append(f"bad_memory.pages {bad['pages']}, by_source "
                       f"{bad['by_source']}, audit.bad_pages "
                       f"{rep['audit'].get('bad_pages')}: want 1 {source}")
        return out
    return check


def ras_cases(elf):
    """Appended to x86_cases.build_cases(). Each boots in 4-6 s here
    (stress=3 is most of it); 60 s timeouts are safety nets (10x)."""
    kern = ["--kernel", elf]
    base = "after=exit audit=full bootscrub=off stress=3"
    m = Machine("2", numa=[1024 * M] * 2)
    page = PAGE_ADDR >> 12
    return [
        smp_case("mce-free-page", m, base, kern, timeout=60,
                 live=_inject(STATUS_MEM_UC, MCG_RIPV_MCIP, PAGE_ADDR),
                 checks=[log_contains(f"mce: memory error in page {page:#x} "
                                 f"(status {STATUS_MEM_UC:#x}): taken out "
                                 "of service (0)"),
                         _offlined(page, "mce")]),
        smp_case("mce-no-address", m, base, kern, timeout=60,
                 live=_inject(STATUS_NO_ADDR, MCG_RIPV_MCIP, PAGE_ADDR),
                 checks=[log_contains("mce: an error that names no memory page "
                                 f"(status {STATUS_NO_ADDR:#x})")]),
        # RIPV clear: stopped as a failed boot, the address named.
        Case("mce-fatal", kern + m.qemu_args(), m.mem,
             base, timeout=60,
             exit_status=EXIT_FAIL,
             live=_inject(STATUS_MEM_UC, MCG_MCIP, PAGE_ADDR),
             no_report_log=("KEEL: FAIL machine check the interrupted code "
                            "cannot survive (no RIPV), memory error at "
                            f"{PAGE_ADDR:#x}")),
    ]
