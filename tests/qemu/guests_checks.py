# SPDX-License-Identifier: MIT
"""Checks of the report's `guests` table (guests=on, DESIGN §14) against
what a case asked, shared by the arm64, x86_64 and sandbox matrices.

The expected numbers come from the case: the domains it asked (sizes
rounded up to 4 KiB, so pages = bytes / 4096), which domain's guest was
made to fault one page past its end (inject=guest-past-end:N: its
fault_ipa must be its bytes), the rounds, the CPUs that may run each
guest (those of its build node: its own node, or for a memory-only node
the nearest with CPUs). keel.report.check_guests() has already held the
rows to the report's own rules (rows_left_out, blackout_max_ns, ...).
Each check takes (report, log) and returns a list of problems (and says
so, `wants_log`, for the x86_64 matrix)."""

import re

from .domains_checks import PAGE
from .fill_pattern import FILL_WORD


def _rows(rep):
    return {g["domain"]: g for g in rep.get("guests", [])}


def _node_cpus(rep):
    out = {}
    for c in rep["cpus"]:
        if c["online"]:
            out.setdefault(c["node"], set()).add(c["id"])
    return out


def _guest_problems(g, d, faulted, node_cpus):
    tag = f"guest of domain {d['id']}"
    out = []
    pages = d["bytes"] // PAGE
    if g["pages_walked"] != pages:
        out.append(f"{tag}: walked {g['pages_walked']} of {pages} pages")
    if g["bad_words"] or g["first_bad_ipa"] is not None:
        out.append(f"{tag}: {g['bad_words']} bad words, the first at "
                   f"{g['first_bad_ipa']}")
    if d["id"] in faulted:
        if g["exit_reason"] != "stage2-fault" or \
                g["fault_ipa"] != d["bytes"]:
            out.append(f"{tag}: {g['exit_reason']} at {g['fault_ipa']}, "
                       f"expected a stage-2 fault at {d['bytes']:#x}")
    elif g["exit_reason"] != "done" or g["stage2_faults"]:
        out.append(f"{tag}: {g['exit_reason']}, {g['stage2_faults']} "
                   "stage-2 faults, expected done without any")
    elif g["blackout_ns"] <= 0:
        out.append(f"{tag}: done with blackout_ns {g['blackout_ns']}")
    mine = node_cpus.get(d["node"])
    if mine and g["cpu"] not in mine:
        out.append(f"{tag}: ran on CPU {g['cpu']}, not one of node "
                   f"{d['node']}'s {sorted(mine)}")
    return out


def guests_ran(count, faulted=(), rounds=1, shared=True, local=True):
    """Every built domain (report=full: all rows) had a guest that walked
    all its pages, read nothing but zero and looped (blackout > 0), or
    for the ids in @faulted stopped at a stage-2 fault one page past its
    end; @count guests in the last of @rounds rounds; @shared: some CPU ran
    several, so one of them was entered more than twice (its slices
    ended on the timer); @local: each on a CPU of its domain's node."""
    def check(rep, log):
        info = rep.get("guests_info")
        if info is None:
            return ["no guests_info in the report"]
        out = []
        if info["unsupported"] is not None:
            return [f"guests unsupported: {info['unsupported']}"]
        if info["count"] != count or len(rep["guests"]) != count:
            out.append(f"{info['count']} guests, {len(rep['guests'])} rows, "
                       f"expected {count}")
        if info["rounds"] != rounds or info["problems"] or info["bad_words"]:
            out.append(f"guests_info rounds {info['rounds']} (expected "
                       f"{rounds}), problems {info['problems']}, bad_words "
                       f"{info['bad_words']}")
        rows = _rows(rep)
        node_cpus = _node_cpus(rep) if local else {}
        for d in rep.get("domains", []):
            if d["fail_reason"] is not None:
                continue
            if d["id"] not in rows:
                out.append(f"domain {d['id']}: no guest row")
                continue
            out += _guest_problems(rows[d["id"]], d, set(faulted), node_cpus)
        if shared and not any(g["runs"] > 2 for g in rows.values()):
            out.append("no guest was entered more than twice: no slice "
                       "ended on the timer")
        walked = sum(d["bytes"] for d in rep.get("domains", [])
                     if d["fail_reason"] is None)
        if info["walk_bytes"] != walked:
            out.append(f"guests_info.walk_bytes {info['walk_bytes']}, the "
                       f"domains hold {walked}")
        for f in faulted:
            if not re.search(rf"guest {f}: stage-2 fault at IPA 0x[0-9a-f]+, "
                             r"one page past its range", log):
                out.append(f"no line for guest {f}'s stage-2 fault")
        return out
    check.wants_log = True
    return check


def guests_summarised(count, rows_at_most):
    """The compact report: @count guests, at most @rows_at_most rows, the
    rest counted in rows_left_out, every guest done."""
    def check(rep, log):
        info = rep.get("guests_info")
        if info is None:
            return ["no guests_info in the report"]
        out = []
        if info["count"] != count or len(rep["guests"]) > rows_at_most:
            out.append(f"{info['count']} guests in {len(rep['guests'])} "
                       f"rows, expected {count} in at most {rows_at_most}")
        if info["problems"] or info["bad_words"]:
            out.append(f"guests_info.problems {info['problems']}")
        return out
    check.wants_log = True
    return check


def guests_unsupported(why):
    """No guest ran: guests_info.unsupported holds @why, no row, and the
    boot said so once."""
    def check(rep, log):
        info = rep.get("guests_info")
        if info is None:
            return ["no guests_info in the report"]
        out = []
        if why not in (info["unsupported"] or ""):
            out.append(f"guests_info.unsupported {info['unsupported']!r}, "
                       f"expected it to say {why!r}")
        if rep["guests"] or info["count"]:
            out.append(f"{info['count']} guests ran where none can")
        if log.count("warning: guests: cannot run here: ") != 1:
            out.append("not one 'guests: cannot run here' warning")
        return out
    check.wants_log = True
    return check


def guests_saw_fill(domains):
    """The negative control: memory a first stage filled with FILL_WORD,
    built without zeroing (bootscrub=off domains_trust=on), is read by the
    guests of the domain ids @domains: bad words, the first one's value
    FILL_WORD, and the boot fails naming it."""
    def check(rep, log):
        rows = _rows(rep)
        out = []
        for i in domains:
            g = rows.get(i)
            if g is None or not g["bad_words"] or g["first_bad_ipa"] is None:
                out.append(f"guest of domain {i} read no bad word: {g}")
                continue
            if not re.search(rf"guest {i}: \d+ words were not zero, the "
                             rf"first at IPA (0x[0-9a-f]+|0): "
                             rf"{FILL_WORD:#x} \(no guest's pattern\)", log):
                out.append(f"no warning naming guest {i}'s first bad word "
                           f"{FILL_WORD:#x}")
        if rep["fail_reason"] != "guests: a guest read words it did not " \
                "write":
            out.append(f"fail_reason {rep['fail_reason']!r}")
        return out
    check.wants_log = True
    return check


def _carried_by_every_image(log, count, generation):
    """The first image held @count vCPUs for its update and each of the
    @generation - 1 images between resumed them held for its own (so that
    every update's freeze stopped and recorded them). Return: the
    problems, and the longest pause of an image between (its scrub uses
    every CPU; keel stamps it after the vCPUs stopped and before they run
    again, so each guest's largest gap is at least that long)."""
    pauses = [int(us) * 1000 for us in
              re.findall(r"^keel: guests: \d+ vCPUs paused (\d+) us while",
                         log, re.M)]
    out = []
    if len(pauses) != generation - 1:
        out.append(f"{len(pauses)} pauses of the held guests, expected "
                   f"{generation - 1}")
    first = len(re.findall(rf"^keel: guests: {count} of {count} vCPUs "
                           r"left running in their loops for the live "
                           r"update", log, re.M))
    middle = len(re.findall(rf"^keel: guests: {count} of {count} vCPUs "
                            r"resumed from the handover, held for the "
                            r"live update", log, re.M))
    if first != 1 or middle != generation - 1:
        out.append(f"{first} images held the {count} guests and {middle} "
                   f"resumed them held, expected 1 and {generation - 1}")
    return out, max(pauses, default=0)


def _own_cpus(rows, doms, node_cpus, generation):
    """The last image resumes each guest on a CPU no other resumed guest
    has, while its node has CPUs enough (a shared CPU makes one guest's
    blackout include another's turn); an image between holds them off the
    boot CPU, so that is asked of a single update only."""
    if generation != 1:
        return []
    by_node = {}
    for did, g in rows.items():
        by_node.setdefault(doms[did]["node"], []).append(g["cpu"])
    out = []
    for node, cpus in sorted(by_node.items()):
        if len(cpus) <= len(node_cpus.get(node, ())) and \
                len(set(cpus)) != len(cpus):
            out.append(f"node {node}: resumed guests share CPUs {cpus} "
                       f"with {len(node_cpus.get(node, ()))} CPUs online")
    return out


def guests_resumed(count, generation=1):
    """guests=on liveupdate=@generation (issue 31 §4): the @count guests
    the first image left running in their loops were stopped by its
    freeze, carried in the handover, resumed by each image between and
    held running for its own update, whose freeze stopped and recorded
    them again, and resumed here: each row done, its whole domain
    walked (in the old image), 0 bad words, on a CPU of its domain's node;
    and its blackout, the largest gap of its loop, spans the update: at
    least downtime_ns minus guests_stop_ns, the time the guests still ran
    after the freeze stamp (its last counter read before its vCPU stopped
    is no later than its stop; its first after resume no earlier than the
    domains restored, where the downtime ends). A guest that did not
    measure across the update (a fresh loop, a lost register) sees only
    slice-sized gaps, far below the downtime: this fails. downtime_ns
    and guests_stop_ns are the last update's; the largest gap is the
    largest the guest saw in all the updates and the pauses of the images
    between, so it is at least each pause too (a gap lost on the way
    fails)."""
    def check(rep, log):
        lu = rep["liveupdate"]
        out, pause = _carried_by_every_image(log, count, generation)
        if lu.get("generation") != generation:
            out.append(f"liveupdate.generation {lu.get('generation')}, "
                       f"expected {generation}")
        rows, doms = _rows(rep), {d["id"]: d for d in rep["domains"]}
        node_cpus = _node_cpus(rep)
        if lu.get("guests_resumed") != count or \
                lu.get("guests_not_resumed") is not None:
            out.append(f"liveupdate.guests_resumed "
                       f"{lu.get('guests_resumed')}, not_resumed "
                       f"{lu.get('guests_not_resumed')!r}, expected "
                       f"{count}")
        down, stop = lu.get("downtime_ns"), lu.get("guests_stop_ns")
        if not isinstance(down, int) or not isinstance(stop, int) or \
                stop > down:
            return out + [f"downtime_ns {down!r}, guests_stop_ns {stop!r}"]
        if len(rows) != count:
            out.append(f"{len(rows)} guests rows, expected {count}")
        for did, g in sorted(rows.items()):
            out += _guest_problems(g, doms[did], (), node_cpus)
            if g["blackout_ns"] < down - stop:
                out.append(f"guest of domain {did}: blackout_ns "
                           f"{g['blackout_ns']} below downtime_ns {down} "
                           f"- guests_stop_ns {stop}")
            if g["blackout_ns"] < pause:
                out.append(f"guest of domain {did}: blackout_ns "
                           f"{g['blackout_ns']} below the {pause} ns an "
                           "image between paused it: its largest gap was "
                           "not carried")
        out += _own_cpus(rows, doms, node_cpus, generation)
        want = rf"^keel: liveupdate: {count} guests resumed, blackout max " \
            r"\d+\.\d ms \(downtime \d+\.\d ms\)"
        if not re.search(want, log, re.M):
            out.append("no 'liveupdate: N guests resumed, blackout max' "
                       "line")
        return out
    check.wants_log = True
    return check



def freeze_named(rep, log, domain, entry_line):
    """The old image's verdict names domain @domain's vCPU as the one
    that did not stop for the freeze, and no new image was entered
    (@entry_line: the line each image prints once at entry)."""
    out = []
    why = rep.get("fail_reason") or ""
    want = rf"^liveupdate: freeze: guest {domain}'s vCPU \(CPU \d+\) " \
        r"did not stop in \d+ ms: the update is not done"
    if not re.search(want, why):
        out.append(f"fail_reason {why!r}, expected {want!r}")
    if rep["liveupdate"].get("generation") != 0:
        out.append(f"liveupdate.generation "
                   f"{rep['liveupdate'].get('generation')}, expected 0")
    entered = len(re.findall(entry_line, log, re.M))
    if entered != 1:
        out.append(f"{entered} images entered, expected 1")
    return out


def freeze_failed(domain, count, entry_line):
    """inject=vcpu-stop-slow:@domain with guests=on liveupdate=1 (issue 36
    §0): the CPU of domain @domain's held vCPU answers the freeze 3 s
    late, past its 1 s bound. The defined failure: the old image names
    that vCPU in its verdict (`liveupdate: freeze: guest N's vCPU (CPU C)
    did not stop in ... ms`), no new image is entered, the @count held
    vCPUs run on ('the live update failed: N held vCPUs run on'), then
    are stopped in their loops and judged by keel (exit_reason `held`):
    every page walked, 0 bad words, none lost; the domains are still this
    image's."""
    def check(rep, log):
        out = freeze_named(rep, log, domain, entry_line)
        if not re.search(rf"^keel: guests: the live update failed: {count} "
                         r"held vCPUs run on\r?$", log, re.M):
            out.append("no 'guests: the live update failed: N held vCPUs "
                       "run on' line")
        rows, doms = _rows(rep), {d["id"]: d for d in rep["domains"]}
        if len(rows) != count or len(doms) != count:
            out.append(f"{len(rows)} guests rows, {len(doms)} domains, "
                       f"expected {count}")
        for did, g in sorted(rows.items()):
            pages = doms[did]["bytes"] // 4096
            if g["pages_walked"] != pages or g["bad_words"] or \
                    g["stage2_faults"] or not g["runs"] or \
                    g["exit_reason"] != "held":
                out.append(f"guest of domain {did}: {g}")
        if rep["guests_info"]["problems"]:
            out.append(f"{rep['guests_info']['problems']} guest problems")
        return out
    check.wants_log = True
    return check


def preempted_before_loop(domain):
    """inject=guest-preempt-walk:@domain (issue 36 §0): a slice of that
    guest ended after its walk's hypercall and before its loop, said in
    one line of the first image (so the case tests what it claims)."""
    def check(rep, log):
        want = rf"^keel: guest {domain}: inject=guest-preempt-walk: a " \
            r"slice ended at pc 0x[0-9a-f]+, after its walk and before " \
            r"its loop\r?$"
        return [] if re.search(want, log, re.M) else [
            "no 'inject=guest-preempt-walk: a slice ended ... before its "
            "loop' line"]
    check.wants_log = True
    return check
