# SPDX-License-Identifier: MIT
"""A live update after churn restores exactly (issue 37, Tests;
tests/qemu/lu_churn_checks.py): liveupdate=2 on the live-update machine
(tests/data/sandbox-liveupdate.fw, 2 nodes, 4 CPUs), every image churning
for 1 s with the per-CPU caches on before it hands its 2 domains over;
the middle image churns with the restored domains in place. Quiet on
this 2-core host: about 5 s (three boots, three churns of 1 s);
firmware.TIMEOUT (120 s) is over 20x that."""

from ..qemu.churn_checks import churn_ok_everywhere
from ..qemu.lu_churn_checks import restored_exactly
from .checks_fw import check_audit_full

FW = "sandbox-liveupdate.fw"
DOMAINS = ["domain=64M@0", "domain=32M@1"]


def lu_churn_cases(Case):
    """The cases, built with the runner's Case class."""
    return [
        Case("liveupdate-after-churn", FW,
             ["churn=1", "liveupdate=2", "audit=full"] + DOMAINS,
             [restored_exactly(DOMAINS, 2), churn_ok_everywhere,
              check_audit_full], {"scrubbed": True}),
    ]
