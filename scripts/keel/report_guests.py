# SPDX-License-Identifier: MIT
"""The checks of the guests' keys (guests=on, DESIGN §14), for
keel.report: the `guests` rows against the `domains` rows they ran in
and against `guests_info`, whatever the machine; what a test expects of a
particular boot (how many guests, which one faulted) is its own check.

check_guests(rep, out) appends a problem string to @out for each thing
that does not hold:
  - the two keys come together; unsupported: no row, nothing run;
  - each row: a known exit_reason; first_bad_ipa given iff bad_words;
    fault_ipa given iff stage2_faults (at most 1, and then the vCPU ended
    with stage2-fault); a vCPU that ran was entered; one that walked
    walked its domain's bytes but the bad pages it skipped (the domain's
    row, when printed);
  - guests_info: rows_left_out = count - rows; the largest blackout of
    the rows at most blackout_max_ns (equal when every row is printed);
    pages_skipped the rows' sum (when every row is printed);
  - a passing boot has no problems and no bad words.
"""

PAGE_SIZE = 4096
EXITS = ("done", "stage2-fault", "trap", "guest-exception", "failed",
         "not-run", "held")


def _row(g, domains, out):
    name = f"guests[domain {g['domain']}]"
    if g["exit_reason"] not in EXITS:
        out.append(f"{name}: exit_reason {g['exit_reason']!r}")
    if (g["first_bad_ipa"] is None) != (g["bad_words"] == 0):
        out.append(f"{name}: bad_words {g['bad_words']} but first_bad_ipa "
                   f"{g['first_bad_ipa']}")
    if g["stage2_faults"] not in (0, 1) or \
            (g["fault_ipa"] is None) != (g["stage2_faults"] == 0):
        out.append(f"{name}: stage2_faults {g['stage2_faults']}, fault_ipa "
                   f"{g['fault_ipa']}")
    if (g["stage2_faults"] == 1) != (g["exit_reason"] == "stage2-fault"):
        out.append(f"{name}: stage2_faults {g['stage2_faults']} with "
                   f"exit_reason {g['exit_reason']!r}")
    ran = g["exit_reason"] not in ("failed", "not-run")
    if ran and g["runs"] < 1:
        out.append(f"{name}: ended {g['exit_reason']!r} but never entered")
    d = domains.get(g["domain"])
    walked = g["exit_reason"] in ("done", "stage2-fault")
    # The pages its skip list named (bad, issue 38 §4) are not walked.
    if walked and d is not None and \
            (g["pages_walked"] + g.get("pages_skipped", 0)) * PAGE_SIZE != \
            d["bytes"]:
        out.append(f"{name}: walked {g['pages_walked']} pages and skipped "
                   f"{g.get('pages_skipped', 0)} of a domain of {d['bytes']} "
                   "bytes")


def check_guests(rep, out):
    """The guests' keys of report @rep (see the module comment)."""
    if ("guests" in rep) != ("guests_info" in rep):
        out.append("guests and guests_info must come together")
        return
    if "guests" not in rep:
        return
    rows, info = rep["guests"], rep["guests_info"]
    if info["unsupported"] is not None and (rows or info["count"]):
        out.append(f"guests unsupported ({info['unsupported']}) but "
                   f"{info['count']} ran")
    if info["rows_left_out"] != info["count"] - len(rows):
        out.append(f"guests_info.rows_left_out {info['rows_left_out']}, "
                   f"but {info['count']} guests and {len(rows)} rows")
    domains = {d["id"]: d for d in rep.get("domains", [])}
    for g in rows:
        _row(g, domains, out)
    worst = max((g["blackout_ns"] for g in rows), default=0)
    if worst > info["blackout_max_ns"] or \
            (not info["rows_left_out"] and worst != info["blackout_max_ns"]):
        out.append(f"guests_info.blackout_max_ns {info['blackout_max_ns']}, "
                   f"the rows' largest {worst}")
    skipped = sum(g.get("pages_skipped", 0) for g in rows)
    said = info.get("pages_skipped", 0)
    if skipped > said or (not info["rows_left_out"] and skipped != said):
        out.append(f"guests_info.pages_skipped {said}, the rows' sum "
                   f"{skipped}")
    # A walk this image timed (a row's walk_ns) and counted (walk_bytes)
    # has a round time; a resumed round's walk was the image before's.
    if info.get("walk_bytes") and info.get("walk_ns") == 0 and \
            any(g.get("walk_ns") for g in rows):
        out.append(f"guests_info.walk_ns 0 for {info['walk_bytes']} bytes "
                   "walked in this image")
    if rep["result"] == "pass" and (info["problems"] or info["bad_words"]):
        out.append(f"a passing boot with guests_info.problems "
                   f"{info['problems']}, bad_words {info['bad_words']}")
