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
  ends in FAIL naming the address.
- mce-domain-page: a page inside a built domain's extent, while its guest
  runs (guests=on guest_run_ms=3000 holds it for 3 s): the address is read
  from the boot's own debug line naming where the domain's IPA 0 is
  (common/domain/domain_big.c), and the error goes to CPU 0, which runs no
  guest (the domain is on node 1, whose CPU runs its vCPU). The drain after
  the domains takes the page out of service inside the extent: the
  bad_memory row names it, source mce, and bad_memory.held_pages says the
  domain still holds it (audit.bad_pages counts it once freed).
- mce-action-required / mce-pcc: RIPV set, but a bank says AR (the
  interrupted instruction consumed the error) or PCC (the processor's
  context is corrupt): FAIL naming why and the address, as mce-fatal.
- mce-broadcast: `mce -b` on 4 CPUs: CPU 0's page taken out, the 3 other
  CPUs' errors that name no page said in one line with their count.
- mce-guest-cpu / -no-ripv / -action-required / -pcc: the error goes to
  CPU 1 while it runs its guest (the machine stopped while QEMU shows the
  guest's CR4 on it): the host takes it (arch/x86_64/guest.c); the guest
  runs on, or stops alone (no RIPV, AR), or the boot stops (PCC).
- mce-liveupdate-freeze: liveupdate=1, CPU 1 answering the freeze 300 ms
  late (inject=cpu-freeze-late:1); the error goes to it once the old
  image says the freeze comes: the freeze takes the queue before it
  writes the bad-page records, so the new image has the page from the
  handover, source mce.
- mce-liveupdate-frametable: the same, the error's page (OWN_ADDR) one of
  keel's own: node 0's frame table, [0x3f800000, 0x40000000) on this
  machine in both images. The old image cannot take it out (not the
  heap's) and says it names it bad to the next image; the new image (its
  frame table there again otherwise) has it as `bad handover mce`, no
  `frametable` on it, the rest of node 0's table placed around it.
- mce-bank0-core2 / mce-bank0-nehalem: the Intel SDM's rule that software
  must not modify IA32_MC0_CTL on P6-family and Core CPUs before
  DisplayFamily_DisplayModel 06_1AH: under `-cpu core2duo` (family 6,
  model 0xf) the banks line says bank 0's control is left to the
  platform, under `-cpu Nehalem` (model 0x1a) it does not.
- mce-corrected-offline: ce_offline=2 and two corrected memory errors
  (MCi_STATUS.UC clear: QEMU only logs them in the bank, no #MC) on one
  page, in CPU 0's bank 1 and CPU 1's bank 2 (QEMU keeps one error a
  bank): the poll each CPU runs before the drain after the stress finds
  both, and the second takes the page out of service as soft: one
  bad_memory row of source mce, corrected_errors 2, audit=full exact.
- mce-corrected-counted: one corrected error, ce_offline=2: counted
  (corrected_errors 1, corrected_pages 1), nothing out of service.
- mce-corrected-beside-uc: a corrected error in CPU 0's bank 2 on page A,
  then an uncorrected one in its bank 1 on page B: the #MC reads both
  banks; B is broken, A only counted (the handler before corrected errors
  were told apart took A out as broken too: two pages).
- guests-skip-bad-page: inject=poison-domain:1 offlines the page in the
  middle of the 64 MiB domain once it is built, before its guest runs;
  the guest's walk skips it (the skip list in its image) and says so:
  pages_walked 16383, pages_skipped 1, no problem.
- guests-skip-bad-page-liveupdate-svm: the same, then liveupdate=1 holding
  the guest: the new image marks the page again in the restored extent
  (issue 38 §5), resumes the guest and judges its walk whole (16383 + the
  1 of its list; without the mark the new list is empty: FAIL)."""

import os
import re
import tempfile
import time

from . import memcheck
from scripts.keel import boot
from .x86_machine import EXIT_FAIL, M, Case, Machine, log_contains, smp_case

# VAL | UC | EN | MISCV | ADDRV | S, MCA code 0x009f (memory controller:
# generic read, channel unspecified).
STATUS_MEM_UC = 0xbd0000000000009f
STATUS_NO_ADDR = 0xb90000000000009f  # ADDRV clear
# VAL | EN | MISCV | ADDRV, UC clear: a corrected memory-controller read
# error, which QEMU logs in the bank without raising a #MC.
STATUS_MEM_CE = 0x9c0000000000009f
MCG_RIPV_MCIP = 0x5
# The Intel SDM's SRAR data load: S and AR set, MCA code 0x0134 (cache
# hierarchy, data read); MCG_STATUS RIPV | EIPV | MCIP. The interrupted
# instruction consumed the error: its context may not go on, RIPV or not.
STATUS_SRAR = 0xbd80000000000134
MCG_RIPV_EIPV_MCIP = 0x7
# What QEMU's `mce -b` gives every other CPU: VAL | UC, no address.
STATUS_BCAST = 0xa000000000000000
# PCC: the processor's own context is corrupt (S clear, AR clear).
STATUS_PCC = 0xbe0000000000009f
MCG_MCIP = 0x4
PAGE_ADDR = 0x50000000 + 0x1234  # 1.25 GiB: free when the stress starts
CE_ADDR = 0x48000000 + 0x567  # 1.125 GiB: free too
# The handoff's line (common/boot.c phase_heap()), before stress= begins.
WHEN = r"heap: \d+ free ranges handed over"


def _hmp(qmp, line):
    """The monitor's reply to @line ("" when it has none to give), as a
    list of problems: a refusal. QEMU may end before it replies (an `mce`
    keel does not survive stops the machine at once): the socket closes,
    which is no problem of its own; the log and the exit status say how
    the boot ended."""
    try:
        r = qmp.cmd("human-monitor-command", **{"command-line": line})
    except (OSError, RuntimeError):
        return []
    return [f"QEMU refused {line!r}: {r.strip()}"] if r.strip() else []


def _cont(qmp):
    """`cont`, QEMU perhaps gone already (as _hmp())."""
    try:
        qmp.cmd("cont")
    except (OSError, RuntimeError):
        pass


def _inject(status, mcg, addr, broadcast=False, when=WHEN, cpu=0):
    """A live hook: once the log matches @when (the heap is up), `mce CPU
    1 STATUS MCG ADDR 0` on CPU @cpu's bank 1 (`mce -b`: and, as QEMU
    does, an uncorrected error with no address in bank 1 of every other
    CPU), then the boot runs on to its verdict."""
    def live(cmd_for, timeout, log_path):
        def act(qmp):
            return _hmp(qmp, f"mce {'-b ' if broadcast else ''}{cpu} 1 "
                        f"{status:#x} {mcg:#x} {addr:#x} 0")
        with tempfile.TemporaryDirectory(prefix="keel-mce-") as work:
            return memcheck.watched_boot(cmd_for, timeout, log_path, work,
                                         act, when=when, at_verdict=False)
    return live


def _offlined(page, source):
    """The report names @page as taken out by @source: one bad_memory row,
    by_source, and audit.bad_pages (withheld once the stress freed it)."""
    def check(rep):
        out = []
        bad = rep["bad_memory"]
        row = [page * 4096, page * 4096 + 4096, 1, source]
        ranges = bad.get("ranges", [])  # absent with no page out
        if row not in [list(r) for r in ranges]:
            out.append(f"bad_memory.ranges {ranges} lacks {row}")
        if bad["pages"] != 1 or \
                bad.get("by_source", {}).get(source) != 1 or \
                rep["audit"].get("bad_pages") != 1:
            out.append(f"bad_memory.pages {bad['pages']}, by_source "
                       f"{bad.get('by_source')}, audit.bad_pages "
                       f"{rep['audit'].get('bad_pages')}: want 1 {source}")
        return out
    return check


def _inject_lines(lines):
    """A live hook: once the heap is up, each `mce CPU BANK STATUS MCG ADDR
    MISC` of @lines in turn, then the boot runs on to its verdict."""
    def live(cmd_for, timeout, log_path):
        def act(qmp):
            out = []
            for line in lines:
                out += _hmp(qmp, line)
            return out
        with tempfile.TemporaryDirectory(prefix="keel-mce-") as work:
            return memcheck.watched_boot(cmd_for, timeout, log_path, work,
                                         act, when=WHEN, at_verdict=False)
    return live


def _mce_line(cpu, bank, status, mcg, addr):
    return f"mce {cpu} {bank} {status:#x} {mcg:#x} {addr:#x} 0"


def _corrected(errors, pages, offlined):
    """bad_memory's corrected counts are (@errors, @pages, @offlined)."""
    def check(rep):
        bad = rep["bad_memory"]
        got = tuple(bad.get(k) for k in ("corrected_errors",
                                          "corrected_pages",
                                          "corrected_offlined"))
        if got != (errors, pages, offlined):
            return [f"bad_memory corrected_errors, corrected_pages, "
                    f"corrected_offlined {got}: want "
                    f"{(errors, pages, offlined)}"]
        return []
    return check


def _nothing_out(rep):
    """No page out of service."""
    bad = rep["bad_memory"]
    if bad["pages"] or rep["audit"].get("bad_pages"):
        return [f"bad_memory.pages {bad['pages']}, audit.bad_pages "
                f"{rep['audit'].get('bad_pages')}: want 0"]
    return []


# The domain's extent, named by the build (loglevel=3), and the line
# printed once its build is checked, right before its guest starts.
DOMAIN_AT = re.compile(r"domains: domain 1: IPA 0 at host (0x[0-9a-f]+), "
                       r"an extent of 2\^(\d+) pages")
GUESTS_START = r"domains: checked, "
IN_DOMAIN = 0x500123  # 5 MiB and a bit into the 64 MiB domain


def _inject_domain(status, mcg, found, cpu=0):
    """A live hook: once the domain is built and checked (its guest then
    runs for 3 s), `mce CPU 1 STATUS MCG ADDR 0` with ADDR a page inside
    the domain's first extent, as the log named it; the address in
    @found["addr"] for the checks."""
    def live(cmd_for, timeout, log_path):
        with tempfile.TemporaryDirectory(prefix="keel-mce-") as work:
            sock = os.path.join(work, "qmp.sock")
            t0 = time.monotonic()
            live = boot.Live(cmd_for(["-qmp",
                                      f"unix:{sock},server=on,wait=off"]),
                             timeout)
            out = []
            try:
                out += _act_in_domain(live, sock, timeout, status, mcg, found,
                                      cpu)
                if not live.wait_for(r"KEEL: (PASS|FAIL)", timeout):
                    out.append("no KEEL: verdict before the timeout")
            finally:
                live.stop(10)
            live.out += live.proc.stdout.read() or b""
            with open(log_path, "w", encoding="utf-8",
                      errors="replace") as f:
                f.write(live.log)
            st = live.proc.returncode
            b = boot.Boot(live.cmd, st, live.log, time.monotonic() - t0,
                          timeout,
                          st is None or st == boot.TIMEOUT_STATUS, log_path)
            return b, out
    return live


def _act_in_domain(live, sock, timeout, status, mcg, found, cpu):
    if not live.wait_for(GUESTS_START, timeout):
        return [f"the log never matched {GUESTS_START!r}"]
    m = DOMAIN_AT.search(live.log)
    if not m or (4096 << int(m.group(2))) <= IN_DOMAIN:
        return ["no 'domains: domain 1: IPA 0 at host' line naming an "
                "extent larger than the offset"]
    found["addr"] = int(m.group(1), 16) + IN_DOMAIN
    qmp = memcheck.Qmp(sock)
    out = [] if cpu == 0 or _pause_in_guest(qmp, cpu, timeout) else \
        [f"CPU {cpu} never showed the guest's CR4 {GUEST_CR4:#x}"]
    out += _hmp(qmp, f"mce {cpu} 1 {status:#x} {mcg:#x} "
                f"{found['addr']:#x} 0")
    if cpu:
        _cont(qmp)
    qmp.close()
    return out


# The guest's CR4 (PAE | MCE: arch/x86_64/guest.c), which QEMU shows as
# the CPU's own while it runs the guest; keel's is wider (PGE, OSFXSR...).
# MCE is left out of the match: a guest without it is still seen.
GUEST_CR4 = 0x60
CR4_MCE = 0x40
CR4_OF = re.compile(r"CR4=([0-9a-f]+)")


def _pause_in_guest(qmp, cpu, timeout):
    """Stop the machine at a moment CPU @cpu runs its guest (its CR4, as
    `info registers -a` shows it, is the guest's), so that the `mce` that
    follows is taken inside the guest when `cont` lets it run: a `mce`
    sent while it runs could land in the host's few microseconds around
    each exit (the host's #MC without RIPV then ends the boot). Stopped
    elsewhere: `cont`, 20 ms, again. The vCPU runs 4 s, nearly all of it
    in its guest. Return: whether it stopped there."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            qmp.cmd("stop")
            regs = qmp.cmd("human-monitor-command",
                           **{"command-line": "info registers -a"})
        except (OSError, RuntimeError):
            return False  # QEMU is gone
        part = regs.split(f"CPU#{cpu}")[1:2]
        m = CR4_OF.search(part[0]) if part else None
        if m and int(m.group(1), 16) | CR4_MCE == GUEST_CR4:
            return True
        _cont(qmp)
        time.sleep(0.02)
    return False


def _domain_page_out(found, status=STATUS_MEM_UC):
    """The page @found names: offlined by the drain after the domains
    (one log line), one bad_memory row of source mce, and its domain's
    row says bad_pages 1."""
    def check(rep, log):
        if "addr" not in found:
            return ["no address was injected"]
        page = found["addr"] >> 12
        want = (f"mce: memory error in page {page:#x} (status "
                f"{status:#x}): taken out of service (0)")
        out = [] if want in log else [f"log lacks {want!r}"]
        bad, row = rep["bad_memory"], [page * 4096, page * 4096 + 4096, 1,
                                       "mce"]
        if row not in [list(r) for r in bad.get("ranges", [])]:
            out.append(f"bad_memory.ranges {bad.get('ranges')} lacks {row}")
        # Still in the domain's extent (the domain is not destroyed): the
        # domain's page, held, in audit.allocated_pages and not bad_pages.
        got = (bad["pages"], bad.get("by_source", {}).get("mce"),
               bad.get("held_pages"), rep["audit"].get("bad_pages"))
        if got != (1, 1, 1, 0):
            out.append("bad_memory.pages, by_source.mce, held_pages, "
                       f"audit.bad_pages {got}: want (1, 1, 1, 0)")
        # The domain's own row names it.
        rows = [d.get("bad_pages") for d in rep.get("domains", [])]
        if sorted(rows) != [0] * (len(rows) - 1) + [1]:
            out.append(f"domains[].bad_pages {rows}: want one domain "
                       "with 1")
        return out
    check.wants_log = True
    return check


def _said_once(text):
    """@text is a line of the log exactly once, and no other line says
    `names no memory page` (a run said line by line)."""
    def check(rep, log):
        lines = log.splitlines()
        n = sum(1 for x in lines if x == "keel: warning: " + text)
        others = [x for x in lines if "names no memory page" in x
                  and x != "keel: warning: " + text]
        out = [] if n == 1 else [f"{n} lines {text!r}: want 1"]
        if others and "names no memory page" in text:
            out.append(f"{len(others)} other lines of errors naming no "
                       f"page, the first {others[0]!r}")
        return out
    check.wants_log = True
    return check


def _guest_ended(reason):
    """The one guest's row ends as @reason."""
    def check(rep):
        got = [g["exit_reason"] for g in rep.get("guests", [])]
        return [] if got == [reason] else \
            [f"guests[].exit_reason {got}: want [{reason!r}]"]
    return check


def skipped_bad_page(domain_bytes, domain_id=1):
    """Issue 38 §4: inject=poison-domain:ID offlined the page in the middle
    of the domain (IPA bytes / 2) before its guest ran; the guest's walk
    never touched it and said so: its row walked every page but that one
    and skipped 1, guests_info.pages_skipped 1, no problem, the domain's
    row still says bad_pages 1 (the leaf is left mapped: the domain's
    table and the restore's proof of it stay as they were). Shared with
    the arm64 case (tests/qemu/arm64_ras_cases.py)."""
    ipa = domain_bytes // 2

    def check(rep, log):
        out = []
        want = (f"guest {domain_id}: its walk skips 1 bad pages of its "
                f"range, the first at IPA {ipa:#x}")
        if want not in log:
            out.append(f"log lacks {want!r}")
        rows = [g for g in rep.get("guests", [])
                if g["domain"] == domain_id]
        got = [(g["pages_walked"], g.get("pages_skipped"), g["exit_reason"],
                g["bad_words"]) for g in rows]
        if got != [(domain_bytes // 4096 - 1, 1, "done", 0)]:
            out.append(f"guests[] of domain {domain_id}: (pages_walked, "
                       f"pages_skipped, exit_reason, bad_words) {got}: "
                       f"want [({domain_bytes // 4096 - 1}, 1, 'done', 0)]")
        info = rep.get("guests_info") or {}
        if info.get("pages_skipped") != 1 or info.get("problems") != 0:
            out.append(f"guests_info.pages_skipped "
                       f"{info.get('pages_skipped')}, problems "
                       f"{info.get('problems')}: want 1, 0")
        bad = [d.get("bad_pages") for d in rep.get("domains", [])
               if d["id"] == domain_id]
        if bad != [1]:
            out.append(f"domains[{domain_id}].bad_pages {bad}: want [1]")
        return out
    check.wants_log = True
    return check


def handed_over(rep, log):
    """liveupdate=1's last image: the page came in the handover, was
    marked again in the restored extent (under its first source,
    injection: inject=poison-domain:, carried as such by a version 5
    handover), one update, the guest resumed. Shared with
    tests/qemu/arm64_ras_cases.py."""
    out = []
    if "domains: domain0: 1 pages of its extents came bad in the handover" \
            not in log:
        out.append("the restore did not mark the page again")
    bad = rep["bad_memory"]
    if bad["pages"] != 1 or bad.get("by_source", {}).get("injection") != 1 \
            or bad.get("handover_pages") != 1:
        out.append(f"bad_memory {bad}: want 1 page, source injection, "
                   "carried by the handover")
    if rep["liveupdate"].get("generation") != 1 or \
            rep["liveupdate"].get("guests_resumed") != 1:
        out.append(f"liveupdate {rep['liveupdate']}: want generation 1, "
                   "1 guest resumed")
    return out


handed_over.wants_log = True


def _first_seen(page, threshold):
    """The line of @page's first corrected error."""
    return log_contains(f"mce: corrected memory error in page {page:#x} "
                        f"(status {STATUS_MEM_CE:#x}): counted, taken out "
                        f"of service at {threshold} (ce_offline=)")


def _corrected_cases(m, base, kern):
    """The mce-corrected-* cases (module docstring): corrected errors,
    polled, counted against ce_offline=. 4-6 s each here, as
    mce-free-page; 60 s is the safety net."""
    page = PAGE_ADDR >> 12
    two = [_mce_line(0, 1, STATUS_MEM_CE, 0, PAGE_ADDR),
           _mce_line(1, 2, STATUS_MEM_CE, 0, PAGE_ADDR + 8)]
    beside = [_mce_line(0, 2, STATUS_MEM_CE, 0, CE_ADDR),
              _mce_line(0, 1, STATUS_MEM_UC, MCG_RIPV_MCIP, PAGE_ADDR)]
    return [
        smp_case("mce-corrected-offline", m, base + " ce_offline=2", kern,
                 timeout=60, live=_inject_lines(two),
                 checks=[_first_seen(page, 2),
                         log_contains(f"mce: page {page:#x} had 2 corrected "
                                      "errors (ce_offline=2): taken out of "
                                      "service (soft) (0)"),
                         _offlined(page, "mce"), _corrected(2, 1, 1)]),
        smp_case("mce-corrected-counted", m, base + " ce_offline=2", kern,
                 timeout=60, live=_inject_lines(two[:1]),
                 checks=[_first_seen(page, 2), _nothing_out,
                         _corrected(1, 1, 0)]),
        smp_case("mce-corrected-beside-uc", m, base, kern, timeout=60,
                 live=_inject_lines(beside),
                 checks=[_first_seen(CE_ADDR >> 12, 16),
                         _offlined(page, "mce"), _corrected(1, 1, 0)]),
    ]


def ras_cases(elf):
    """Appended to x86_cases.build_cases(). Each boots in 4-6 s here
    (stress=3 is most of it); 60 s timeouts are safety nets (10x)."""
    kern = ["--kernel", elf]
    base = "after=exit audit=full bootscrub=off stress=3"
    m = Machine("2", numa=[1024 * M] * 2)
    page = PAGE_ADDR >> 12
    found = {}
    return [
        smp_case("mce-free-page", m, base, kern, timeout=60,
                 live=_inject(STATUS_MEM_UC, MCG_RIPV_MCIP, PAGE_ADDR),
                 checks=[log_contains(f"mce: memory error in page {page:#x} "
                                 f"(status {STATUS_MEM_UC:#x}): taken out "
                                 "of service (0)"),
                         _offlined(page, "mce")]),
        # About 4 s here (the guest's 3 s of it); 60 s is the safety net.
        smp_case("mce-domain-page", m,
                 "after=exit audit=full bootscrub=off loglevel=3 "
                 "domain=64M@1 guests=on guest_run_ms=3000", kern,
                 timeout=60,
                 live=_inject_domain(STATUS_MEM_UC, MCG_RIPV_MCIP, found),
                 checks=[_domain_page_out(found)]),
        # About 1 s each here; 60 s is the safety net.
        smp_case("mce-bank0-core2", m, "bootscrub=off", kern, timeout=60,
                 qemu_tail=["-cpu", "core2duo"],
                 checks=[log_contains("machine checks: 10 banks on, "
                                      "IA32_MC0_CTL left to the platform "
                                      "(Intel family 0x6 model 0xf)")]),
        smp_case("mce-bank0-nehalem", m, "bootscrub=off", kern, timeout=60,
                 qemu_tail=["-cpu", "Nehalem"],
                 checks=[log_contains("machine checks: 10 banks on (Intel "
                                      "family 0x6 model 0x1a)")]),
        # Issue 38 §4: a bad page in the domain before its guest runs is
        # skipped by the walk. About 2 s here; 60 s is the safety net.
        smp_case("guests-skip-bad-page", m,
                 "after=exit audit=full bootscrub=off domain=64M@1 "
                 "guests=on guest_run_ms=200 inject=poison-domain:1", kern,
                 timeout=60, checks=[skipped_bad_page(64 << 20)]),
        # Issue 38 §4 + §5: the same, then liveupdate=1 holding the guest
        # (keel.elf its own next image): the new image marks the page
        # again in the restored extent and judges the resumed guest whole
        # (8191 + 1: fails without the mark). About 3 s; 60 s safety net.
        smp_case("guests-skip-bad-page-liveupdate-svm", m,
                 "after=exit audit=full bootscrub=off domain=64M@1 "
                 "guests=on liveupdate=1 inject=poison-domain:1", kern,
                 timeout=60, qemu_tail=["-initrd", elf],
                 checks=[skipped_bad_page(64 << 20), handed_over]),
    ] + _no_page_cases(m, base, kern) + _fatal_cases(m, base, kern) + \
        _guest_cpu_cases(m, kern) + _corrected_cases(m, base, kern) + \
        _freeze_cases(m, kern, elf)


def _guest_cpu_cases(m, kern):
    """A machine check on the CPU that runs a guest (arch/x86_64/guest.c)."""
    found_g, found_n, found_a = {}, {}, {}
    guest_words = ("after=exit audit=full bootscrub=off loglevel=3 "
                   "domain=64M@1 guests=on guest_run_ms=4000")
    return [
        # The same page, the error to CPU 1 while its guest runs (the
        # machine stopped while QEMU shows the guest's CR4 on it): the host
        # takes it (arch/x86_64/guest.c), the guest runs on and ends
        # done. Before, QEMU shut the machine down (the guest lacked
        # CR4.MCE), and with it, the #MC went to the guest's missing IDT:
        # the guest stopped on a #GP and the page stayed in service.
        # About 5 s here; 60 s is the safety net.
        smp_case("mce-guest-cpu", m, guest_words, kern, timeout=60,
                 live=_inject_domain(STATUS_MEM_UC, MCG_RIPV_MCIP,
                                     found_g, cpu=1),
                 checks=[_domain_page_out(found_g),
                         log_contains("x86_64: cpu 1: a machine check "
                                      "while its guest ran"),
                         log_contains("the guest runs on"),
                         _guest_ended("done")]),
        # RIPV clear inside the guest: the guest's context is lost, not
        # the host's: the vCPU stops (a trap, syndrome 0x52, so the boot
        # fails on the guests' problem) and the rest of the boot, the
        # audit and the report go on. About 5 s; 60 s safety net.
        Case("mce-guest-no-ripv", kern + m.qemu_args(), m.mem, guest_words,
             timeout=60, exit_status=EXIT_FAIL, expect={"fail": True},
             live=_inject_domain(STATUS_MEM_UC, MCG_MCIP, found_n, cpu=1),
             checks=[_domain_page_out(found_n),
                     log_contains("the guest cannot go on (no RIPV): "
                                  "stopped"),
                     log_contains("guest 1: stopped: trap (syndrome 0x52)"),
                     log_contains("KEEL: FAIL guests: problems"),
                     _guest_ended("trap")]),
        # PCC inside the guest: the CPU itself may not go on, so the
        # boot stops as in the host, before any report.
        Case("mce-guest-pcc", kern + m.qemu_args(), m.mem, guest_words,
             timeout=60, exit_status=EXIT_FAIL,
             live=_inject_domain(STATUS_PCC, MCG_RIPV_MCIP, {}, cpu=1),
             no_report_log=("KEEL: FAIL machine check while a guest ran on "
                            "CPU 1: this CPU cannot go on (processor "
                            "context corrupt, PCC), memory error at ")),
        # AR with RIPV inside the guest: the guest consumed the error, so
        # it may not go on either; its vCPU stops, the host goes on.
        Case("mce-guest-action-required", kern + m.qemu_args(), m.mem,
             guest_words, timeout=60, exit_status=EXIT_FAIL,
             expect={"fail": True},
             live=_inject_domain(STATUS_SRAR, MCG_RIPV_EIPV_MCIP, found_a,
                                 cpu=1),
             checks=[_domain_page_out(found_a, STATUS_SRAR),
                     log_contains("the guest cannot go on (action "
                                  "required, AR/TCC): stopped"),
                     log_contains("KEEL: FAIL guests: problems"),
                     _guest_ended("trap")]),
    ]


def _fatal_cases(m, base, kern):
    """A machine check the interrupted host code may not survive: stopped
    as a failed boot, why and the address named. About 1 s each; 60 s is
    the safety net."""
    def fatal(name, status, mcg, why):
        return Case(name, kern + m.qemu_args(), m.mem, base, timeout=60,
                    exit_status=EXIT_FAIL,
                    live=_inject(status, mcg, PAGE_ADDR),
                    no_report_log=("KEEL: FAIL machine check the "
                                   "interrupted code cannot survive "
                                   f"({why}), memory error at "
                                   f"{PAGE_ADDR:#x}"))
    return [
        fatal("mce-fatal", STATUS_MEM_UC, MCG_MCIP, "no RIPV"),
        # With RIPV, still stopped: AR (the keel code that consumed the
        # error would run it again) and PCC (nothing on the CPU may go
        # on).
        fatal("mce-action-required", STATUS_SRAR, MCG_RIPV_EIPV_MCIP,
              "action required, AR/TCC"),
        fatal("mce-pcc", STATUS_PCC, MCG_RIPV_MCIP,
              "processor context corrupt, PCC"),
    ]


def _no_page_cases(m, base, kern):
    """Machine checks whose errors name no page: said, nothing taken out
    (but CPU 0's page of the broadcast)."""
    page = PAGE_ADDR >> 12
    return [
        smp_case("mce-no-address", m, base, kern, timeout=60,
                 live=_inject(STATUS_NO_ADDR, MCG_RIPV_MCIP, PAGE_ADDR),
                 checks=[log_contains("mce: an error that names no memory "
                                      f"page (status {STATUS_NO_ADDR:#x})")]),
        # `mce -b` on 4 CPUs: CPU 0's page taken out, and the 3 others'
        # errors that name no page (QEMU gives each VAL | UC, RIPV)
        # said in one line, not 3. About 4 s; 60 s is the safety net.
        smp_case("mce-broadcast", Machine("4", numa=[1024 * M] * 2), base,
                 kern, timeout=60,
                 live=_inject(STATUS_MEM_UC, MCG_RIPV_MCIP, PAGE_ADDR,
                              broadcast=True),
                 checks=[_offlined(page, "mce"),
                         _said_once("mce: an error that names no memory "
                                    f"page (status {STATUS_BCAST:#x}), 3 "
                                    "times: nothing taken out of service"),
                         _said_once(f"mce: memory error in page {page:#x} "
                                    f"(status {STATUS_MEM_UC:#x}): taken "
                                    "out of service (0)")]),
    ]


# The old image's line right before its freeze (common/liveupdate/).
LU_FREEZING = r"liveupdate: generation 0 -> 1: "


def _handed_over_mce(page):
    """The last image (generation 1) has @page out of service from the
    handover, under its first source, mce: the old image took it out in
    its freeze."""
    def check(rep):
        out = _offlined(page, "mce")(rep)
        bad, lu = rep["bad_memory"], rep["liveupdate"]
        if bad.get("handover_pages") != 1 or lu.get("generation") != 1:
            out.append(f"bad_memory.handover_pages "
                       f"{bad.get('handover_pages')}, liveupdate."
                       f"generation {lu.get('generation')}: want 1, 1")
        return out
    return check


# Node 0's frame table, the old image's and the new one's (see the top).
OWN_ADDR = 0x3fc00000 + 0x234


def _carried_not_heap(page):
    """The old image kept @page (keel's own) in use and named it; the last
    image (generation 1) reserves it as `bad handover mce`, nothing else
    of its own on it."""
    said = (f"mce: memory error in page {page:#x} (status "
            f"{STATUS_MEM_UC:#x}): not the heap's (keel's own or reserved): "
            "kept in use, and named bad to a live update's next image (-1)")

    def check(rep, log):
        out = [] if said in log else [f"log lacks {said!r}"]
        bad, lu = rep["bad_memory"], rep["liveupdate"]
        names = [n for s, e, n in rep["memmap"]["reserved"]
                 if s <= page * 4096 < e]
        if names != ["bad handover mce"]:
            out.append(f"page {page:#x} reserved as {names}: want "
                       "['bad handover mce']")
        if bad.get("by_source", {}).get("mce") != 1 or \
                bad.get("handover_pages") != 1 or lu.get("generation") != 1:
            out.append(f"bad_memory.by_source {bad.get('by_source')}, "
                       f"handover_pages {bad.get('handover_pages')}, "
                       f"liveupdate.generation {lu.get('generation')}: want "
                       "mce 1, 1, 1")
        return out
    check.wants_log = True
    return check


def _freeze_cases(m, kern, elf):
    """A machine check after the flow's last drain, in a live update's
    freeze: CPU 1 answers the freeze 300 ms late (inject=cpu-freeze-late),
    and the `mce` goes to it once the old image says the freeze comes.
    The freeze takes the queue before it writes the bad-page records, so
    the new image (keel.elf again) has the page from the handover; before,
    nothing took it out in the old image and the new one handed it out.
    About 3 s here; 60 s is the safety net."""
    return [smp_case(name, m,
                     "after=exit audit=full bootscrub=off domain=64M@1 "
                     "liveupdate=1 inject=cpu-freeze-late:1", kern,
                     timeout=60, qemu_tail=["-initrd", elf],
                     live=_inject(STATUS_MEM_UC, MCG_RIPV_MCIP, addr,
                                  when=LU_FREEZING, cpu=1),
                     checks=[check(addr >> 12)])
            for name, addr, check in (
                ("mce-liveupdate-freeze", PAGE_ADDR, _handed_over_mce),
                ("mce-liveupdate-frametable", OWN_ADDR, _carried_not_heap))]
