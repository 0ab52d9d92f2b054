# SPDX-License-Identifier: MIT
"""churn=N (issue 37 §6): the runtime heap churned by every CPU, on the
2-node, 4-CPU machine (tests/data/sandbox-2node.fw), checked against the
machine and the audit (tests/qemu/churn_checks.py). churn=2 runs 2 s plus
the boot (about 6 s quiet on this 2-core host, 2026-12, most of it the
boot scrub); the timeout is firmware.TIMEOUT (120 s a boot), 20x that."""

from ..qemu.churn_checks import churn_ok_everywhere
from . import firmware
from .checks_fw import check_audit_full
from .checks_report import check_shape_limit, nr_cpus


def churn_cases(Case):
    """The churn cases, built with the runner's Case class."""
    return [
        # The boot scrub on: the domains' dirty memory is scrubbed back.
        Case("churn-2node", "sandbox-2node.fw", ["churn=2", "audit=full"],
             [churn_ok_everywhere, check_audit_full]),
        # bootscrub=off: nothing scrubbed, builds zero what they take.
        Case("churn-2node-noscrub", "sandbox-2node.fw",
             ["churn=1", "bootscrub=off", "audit=full"],
             [churn_ok_everywhere, check_audit_full]),
    ] + big_cases(Case)


def big_cases(Case):
    """256 CPUs in 8 nodes: the compact report keeps one rate a CPU, no
    per_cpu rows, no trace pair a CPU, and stays in its 32 KiB. About 2 s
    quiet; the timeout is firmware.TIMEOUT."""
    if nr_cpus(firmware.BINARY) < 256:
        return []
    return [Case("churn-256cpu", "sandbox-256cpu-8node.fw",
                 ["churn=1", "bootscrub=off", "audit=full"],
                 [churn_ok_everywhere, check_audit_full, check_shape_limit])]
