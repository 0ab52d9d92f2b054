# SPDX-License-Identifier: MIT
"""Issue 36 §0: a live update that fails before any CPU stops for good
gives back the memory it took for the handover (and the stub's, on the
arches that have one). Before, those pages stayed allocated for the rest
of the boot: the x86_64 case guests-liveupdate-stop-slow-svm ended with
2 pages more allocated than the same boot without liveupdate= (the
handover and the stub), the sandbox with 1 (the handover).

The update here fails in the arch's preparation: the next image
(KEEL_LIVEUPDATE_IMAGE) is not executable. The check boots the same
machine without liveupdate= and compares the audit's allocated pages:
equal, as both boots then hold the same domains and nothing else. Quiet
on this 2-core host: 0.3 s a boot; firmware.TIMEOUT (120 s) is far
above.
"""

import re

from . import firmware

FW = "sandbox-liveupdate.fw"
DOMAINS = ["domain=64M@0", "domain=32M@1"]
NOT_AN_IMAGE = "/dev/null/keel"


def check_given_back(rep, log):
    out = []
    why = rep.get("fail_reason") or ""
    if not re.match(r"liveupdate: the new image .* is not executable", why):
        out.append(f"fail_reason {why!r}: expected the update refused "
                   "for its image")
    cold = firmware.run_keel(firmware.BINARY, FW,
                             ["audit=full"] + DOMAINS).report
    if cold is None:
        return out + ["the boot without liveupdate= gave no report"]
    got, want = rep["audit"]["allocated_pages"], \
        cold["audit"]["allocated_pages"]
    if got != want:
        out.append(f"audit.allocated_pages {got} after the failed update, "
                   f"{want} without liveupdate=: the handover's pages "
                   "were not given back")
    return out


def lu_give_back_cases(case_class):
    return [case_class("liveupdate-fail-gives-back", FW,
                       ["liveupdate=1", "audit=full"] + DOMAINS,
                       [check_given_back], {"fail": True}, derive=False,
                       env={"KEEL_LIVEUPDATE_IMAGE": NOT_AN_IMAGE})]
