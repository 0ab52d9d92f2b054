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
warnings. No case here asks the freeze to fail: no injection delays a
CPU's answer to the freeze in the sandbox (cpu-stop-late acts after it,
vcpu-stop-slow needs guests), and a tiny bound with host threads would
fail only sometimes. Quiet on this 2-core host (2026-12): about 0.5 s a
case (2 or 3 boots of 512 MiB); firmware.TIMEOUT (120 s) is a safety
net.
"""

import re

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
    ]
