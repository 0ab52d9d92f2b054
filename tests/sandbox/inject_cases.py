# SPDX-License-Identifier: MIT
"""Every inject= kind with every class of ":N", one sandbox boot each.

The kinds and what each one's ":N" is come from the declaration itself,
the inject_kinds[] table of common/lib/inject.c (a kind added there gets its
cases here, and fails until EFFECTS says what it does). From the declared
class follows what the boot must show, and the check reads the log:

- a word the class refuses (":N" on a kind that takes none, a missing
  ":N", a count of 0): one `cmdline: inject=WORD: ..., ignored` warning
  and none of the kind's effect;
- a count over the kind's limit: `cmdline: inject=WORD: count over MAX,
  clamped to MAX`, then as a kept word with MAX;
- a kept word: its effect in the log or the report, or a warning that
  names the word (`inject=WORD: ..., nothing injected`), never neither.

The machine is tests/data/sandbox-16cpu-8node.fw (8 nodes of 64 MiB, 2
CPUs each), so "many" (3) names a CPU and a node that exist and "over
the limit" (2^40) neither. Quiet on this 2-core host (2026-12): 0.01-0.3
s a boot, 0.1 s more for each of the 4 that wait for a dead CPU; about
5 s for all 45. The timeout is firmware.TIMEOUT (120 s a boot).
"""

import os
import re

from scripts.keel.boot import TOP

FW = "sandbox-16cpu-8node.fw"
# A dead CPU costs one ap_timeout_ms (the sandbox starts a CPU's clock
# when the host first runs its thread, so a busy host kills no live one).
BASE = ["bootscrub=off", "ap_timeout_ms=100"]
# scrub-stop acts on boot scrub workers: 1 MiB units, 512 of them.
SCRUB = ["bootscrub=on", "bootscrub_chunk=1M", "ap_timeout_ms=100"]

CLASSES = ("absent", "0", "1", "many", "over")


def declared_kinds():
    """[(name, arg class, max)] from inject_kinds[] in common/lib/inject.c."""
    with open(os.path.join(TOP, "common", "lib", "inject.c"), encoding="utf-8") as f:
        src = f.read()
    with open(os.path.join(TOP, "include", "keel", "inject.h"),
              encoding="utf-8") as f:
        defines = dict(re.findall(r"#define\s+(\w+)\s+(\d+)", f.read()))
    table = src[src.index("inject_kinds[] = {"):]
    table = table[:table.index("};")]
    rows = re.findall(r'\{INJECT_\w+,\s*"([\w-]+)",\s*INJECT_ARG_(\w+),'
                      r'\s*(\w+)\s*\}', table)
    if len(rows) != len(re.findall(r"\{INJECT_\w+,\s*\"", table)):
        raise ValueError("common/lib/inject.c: an inject_kinds[] row this "
                         "test cannot read ({KIND, \"word\", "
                         "INJECT_ARG_X, MAX})")
    return [(name, arg, int(defines.get(top, top))) for name, arg, top in rows]


def n_of(arg, top, cls):
    """The N written for @cls (None: no ":N")."""
    if cls == "absent":
        return None
    if cls == "over":
        return top + 1 if arg == "COUNT" else 1 << 40
    return {"0": 0, "1": 1, "many": 3}[cls]


def verdict(arg, cls):
    """What the declared class says of @cls: refused, kept or clamped."""
    if arg == "NONE":
        return "kept" if cls == "absent" else "refused"
    if cls == "absent" or (arg == "COUNT" and cls == "0"):
        return "refused"
    return "clamped" if arg == "COUNT" and cls == "over" else "kept"


def _node_cpus_failed(rep, n):
    """Some CPU of node @n but the boot CPU was left out."""
    return any(c["node"] == n and c["id"] != 0 and not c["online"]
               for c in rep["cpus"])


def _line(pattern):
    return lambda rep, log, n: re.search(pattern.format(n=n), log, re.M)


# What each kind does when it takes effect, seen in the log or report.
EFFECTS = {
    "ap-timeout": _line(r"cpu {n} \(hwid [^)]*\): did not check in"),
    "cpu-on-fail": _line(r"cpu {n} \(hwid [^)]*\): CPU_ON refused "
                         r"\(injected\)"),
    "node-cpus-fail": lambda rep, log, n: _node_cpus_failed(rep, n),
    "scrub-stop": _line(r"scrub: cpu {n} stopped \(injected\)"),
    "bad-map": _line(r"inject=bad-map: firmware map claims \["),
    "bad-srat": _line(r"acpi: inject: SRAT at"),
    "bad-slit": _line(r"acpi: inject: SLIT at"),
    "bad-dt-distance": _line(r"inject: DT distance-matrix entry"),
    "irq-unexpected": lambda rep, log, n: rep["irq"]["unexpected"] > 0,
    "ioapic-unmask": lambda rep, log, n: rep["irq"]["ioapic_unmasked"] > 0,
    # arm64 only (QEMU case uefi-pt-pool-short); elsewhere a warning.
    "pt-pool-short": _line(r"arm64 mm: the page-table pool is short: "),
    "guest-past-end": lambda rep, log, n: any(
        g["domain"] == n and g["stage2_faults"]
        for g in rep.get("guests", [])),
}
# The live update's handover faults act only with liveupdate= (their
# boots are tests/sandbox/liveupdate_cases.py): the new image refuses.
EFFECTS.update({k: _line(r"^keel: error: handover: ") for k in (
    "handover-checksum", "handover-overlap", "handover-outside",
    "handover-root", "handover-truncate", "handover-version",
    "handover-misalign", "handover-self-overlap", "handover-image",
    "handover-extent")})
# Not a fault: with liveupdate= the handover goes in 4 KiB pieces
# (liveupdate_cases.py's liveupdate-pieces); without, a warning.
EFFECTS["handover-pieces"] = _line(r"handover at 0x[0-9a-f]+ \(at most \d+ "
                                   r"bytes, in \d+ pieces of 4 KiB\)")


def names_word(log, word):
    """A warning that names inject=@word."""
    return re.search(r"^keel: warning: (cmdline: |dt: )?inject=" +
                     re.escape(word) + r"[: ]", log, re.M)


def check_inject(name, arg, top, cls):
    n = n_of(arg, top, cls)
    word = name if n is None else f"{name}:{n}"
    how = verdict(arg, cls)

    def check(rep, log):
        effect = EFFECTS.get(name)
        if effect is None:
            return [f"inject={name}: no entry in EFFECTS "
                    "(tests/sandbox/inject_cases.py) says what it does"]
        said = re.escape(f"keel: warning: cmdline: inject={word}: ")
        kept = n
        if how == "refused":
            out = []
            if not re.search("^" + said + r".*, ignored$", log, re.M):
                out.append(f"inject={word} ({cls}): no warning naming it "
                           "as ignored")
            if effect(rep, log, 0 if n is None else n):
                out.append(f"inject={word} ({cls}) was refused but took "
                           "effect")
            return out
        if how == "clamped":
            if not re.search(f"^{said}count over {top}, clamped to {top}$",
                             log, re.M):
                return [f"inject={word}: no warning that it was clamped "
                        f"to {top}"]
            kept = top
        kept_word = name if kept is None else f"{name}:{kept}"
        if effect(rep, log, kept) or names_word(log, kept_word):
            return []
        return [f"inject={word} ({cls}): neither its effect nor a warning "
                "naming it: taken silently"]
    return check, word


def inject_cases(case_class):
    """One @case_class per kind and class of ":N"."""
    out = []
    for name, arg, top in declared_kinds():
        for cls in CLASSES:
            check, word = check_inject(name, arg, top, cls)
            opts = SCRUB if name == "scrub-stop" else BASE
            out.append(case_class(f"inject-{name}-{cls}", FW,
                                  opts + [f"inject={word}"], [check],
                                  {"online": None}))
    return out

# Issue 36 §0: vcpu-stop-slow acts only with guests=on and a live update
# that holds them (the QEMU cases guests-liveupdate-stop-slow-svm/-el2):
# the old image's freeze names the vCPU and the update fails.
EFFECTS["vcpu-stop-slow"] = _line(
    r"^keel: warning: liveupdate: freeze: guest \d+'s vCPU")
# cpu-stop-late acts only in a live update's stop (the sandbox case
# liveupdate-stop-late): the update fails naming the CPU.
EFFECTS["cpu-stop-late"] = _line(
    r"^keel: warning: liveupdate: freeze: \d+ of \d+ CPUs stopped in \d+ ms "
    r"\(CPU {n} not\)")
# cpu-freeze-late acts only in a live update's freeze (tests/sandbox/
# lu_freeze_cases.py): with a bound under its delay the update fails
# naming the CPU.
EFFECTS["cpu-freeze-late"] = _line(
    r"^keel: warning: liveupdate: freeze: \d+ of \d+ CPUs answered in \d+ "
    r"ms \(CPU {n} not\)")
EFFECTS["guest-preempt-walk"] = _line(
    r"^keel: guest \d+: inject=guest-preempt-walk: a slice ended")
# Issue 38 §3: poison:N offlines page frame N once the heap is open
# (heap_offline(), broken); a frame that is not the heap's is refused with
# a warning naming the word.
EFFECTS["poison"] = _line(
    r"^keel: inject=poison:{n}: pfn (0x[0-9a-f]+|0) offlined \(broken\)$")
# Issue 38, corrected errors: the sandbox's simulated bank, polled before
# the first drain, whatever the page (one error: counted, never taken out
# at the default ce_offline=16).
EFFECTS["ce"] = _line(
    r"^keel: warning: mce: corrected memory error in page (0x[0-9a-f]+|0) "
    r"\(status 0x9c0000000000009f\): counted")
# Issue 38 §3: sea is arm64's (the QEMU cases sea-unassigned-el1/-el2 in
# tests/qemu/arm64_ras_cases.py): a real abort ends that boot as FAIL. On
# the sandbox, the warning "inject=sea: not on this arch" is its check.
EFFECTS["sea"] = _line(
    r"^KEEL: FAIL synchronous external abort \(memory error\) at 0x")
# Issue 36 §0: vcpu-stop-stuck acts only with guests=on and a live update
# that holds them (the QEMU cases guests-liveupdate-stop-stuck-svm/-el2):
# the boot gives up on the CPU that did not stop.
EFFECTS["vcpu-stop-stuck"] = _line(
    r"^keel: warning: guests: guest \d+'s vCPU \(CPU \d+\) did not stop "
    r"in \d+ ms: left running")
# Issue 36 §0: vcpu-exit-slow acts only with guests=on and a live update
# that holds them (QEMU cases guests-liveupdate-exit-slow-svm/-el2): the
# boot gives up on the CPU still in its exit, which keeps what it holds.
EFFECTS["vcpu-exit-slow"] = _line(
    r"^keel: warning: guests: CPU \d+ was still in its exit from the held "
    r"round")
