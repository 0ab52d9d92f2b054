# SPDX-License-Identifier: MIT
"""tests/scripts_test.py's checks of what scripts/keel/report.py takes
and refuses: a real report whose fields are set by hand, a boot whose
option keel refused."""

import json
import os

from scripts.keel import report

from .scripts_base import PYTHON, SCRIPTS, check, run, sandbox_boot


def corrected_checks(rep, text):
    """report.py's bad_memory corrected counts: a page taken out at
    ce_offline=2 after 2 errors passes; after 1, or one taken out at
    ce_offline=0, or more pages than errors, is refused."""
    def problems(cmdline, errors, pages, offlined):
        r = json.loads(json.dumps(rep))
        r["cmdline"] = cmdline
        r["bad_memory"].update(corrected_errors=errors,
                               corrected_pages=pages,
                               corrected_offlined=offlined)
        return [p for p in report.check_parsed(r, text, {})
                if "corrected" in p]
    check("report.py takes 2 corrected errors at ce_offline=2",
          problems("keel ce_offline=2", 2, 1, 1))
    check("report.py takes 16 by default",
          [] if problems("keel", 15, 1, 1) and
          not problems("keel", 16, 1, 1) else ["15 taken or 16 refused"])
    got = [problems("keel ce_offline=2", 1, 1, 1),
           problems("keel ce_offline=0", 5, 1, 1),
           problems("keel", 3, 4, 0)]
    check("report.py refuses corrected counts that cannot be",
          [] if all(got) else [f"{got}"])


def stress_refused_test(keel, tmp):
    """A good boot whose stress= value keel refused (it warns and runs no
    stress) passes report.py: it reads the report, not the command line."""
    log = os.path.join(tmp, "stress-refused.log")
    rc, text = sandbox_boot(keel, log, "stress=1x", "bootscrub=off")
    r = run([PYTHON, os.path.join(SCRIPTS, "report.py"), log])
    check("report.py: refused stress=1x is a good boot",
          [] if rc == 0 and r.returncode == 0 else
          [f"keel rc {rc}, report.py: {r.stdout.strip()}"])
