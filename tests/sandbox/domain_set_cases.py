# SPDX-License-Identifier: MIT
"""The flow's domain set (common/boot.c) is not in keel's image: arm64's
image_size must stay under 2 MiB (arch/arm64/keel.lds). Its storage, a
slot of about 3 KiB per domain the boot holds (192 KiB for all 64), is a
bootmem reservation named "domain set", asked only by a boot with
domains to hold: domain= words, dom0less nodes, or a taken handover,
whose restore fills the set even when the handover has no domain (the new
image then has no domain= word of its own). A boot without domains
reserves nothing for it and reports as before. On sandbox-frag128k.fw
(no free piece of 192 KiB) one domain's set fits and the domain is
built; 64 domains' set does not: no domain is built, and the boot fails
with its report, not a panic.

Quiet on this 2-core host: 0.1-0.6 s a boot (the update: two);
firmware.TIMEOUT (120 s) is far above.
"""

FW = "sandbox-liveupdate.fw"
NAME = "domain set"
SET_MAX = 256 << 10  # bytes: DOMAIN_MAX domains are about 192 KiB


def _set_rows(rep):
    return [(r[0], r[1]) for r in rep["memmap"].get("reserved", [])
            if len(r) >= 3 and r[2] == NAME]


def check_set(claimed, at_most=SET_MAX):
    """One reservation named NAME (@claimed), of at most @at_most bytes;
    else none."""
    def check(rep, log):
        rows = _set_rows(rep)
        if not claimed:
            return [f"{NAME!r} reserved {rows} on a boot without domains"] \
                if rows else []
        if len(rows) != 1 or not 0 < rows[0][1] - rows[0][0] <= at_most:
            return [f"{NAME!r} reservations {rows}, expected one of at "
                    f"most {at_most} bytes"]
        return []
    return check


def check_built(count):
    """@count domains built, none failed."""
    def check(rep, log):
        rows = rep.get("domains") or []
        built = [r for r in rows if r["fail_reason"] is None]
        if len(rows) != count or len(built) != count:
            return [f"domains {rows}: want {count} built"]
        return []
    return check


def check_empty_update(rep, log):
    """The update carried no domain; the new image restored none, failed
    none, and reports no domains table."""
    lu = rep["liveupdate"]
    want = {"state": "taken", "generation": 1, "domains": 0,
            "domains_restored": 0, "domains_failed": 0}
    out = [f"liveupdate.{k} = {lu.get(k)!r}, expected {v!r}"
           for k, v in want.items() if lu.get(k) != v]
    if rep.get("domains"):
        out.append(f"domains {rep['domains']}, expected none")
    return out


def check_no_room(rep, log):
    """No room for the set: one error, no set reserved, no domain, the
    boot failed on it with its report (before: a panic, no report)."""
    out = []
    said = "keel: error: domains: no 196808 bytes of bootmem for the " \
        "domain set: no domain is built"
    if log.count(said) != 1:
        out.append(f"{log.count(said)} lines {said!r}: want 1")
    if _set_rows(rep) or rep.get("domains"):
        out.append(f"{NAME!r} reserved {_set_rows(rep)}, domains "
                   f"{rep.get('domains')}: want neither")
    if rep["fail_reason"] != "domains: no room for the domain set":
        out.append(f"fail_reason {rep['fail_reason']!r}")
    return out


def domain_set_cases(case_class):
    return [
        case_class("domain-set-none", FW, ["audit=full"],
                   [check_set(False)], {"scrubbed": True}),
        case_class("domain-set-claimed", FW, ["audit=full", "domain=64M@0"],
                   [check_set(True)], {"scrubbed": True}),
        case_class("liveupdate-no-domains", FW, ["liveupdate=1",
                                                 "audit=full"],
                   [check_set(True), check_empty_update],
                   {"scrubbed": True}),
        case_class("domain-set-sized", "sandbox-frag128k.fw",
                   ["audit=full", "domain=1M@0"],
                   [check_set(True, at_most=8 << 10), check_built(1)]),
        case_class("domain-set-no-room", "sandbox-frag128k.fw",
                   ["audit=full"] + ["domain=1M@0"] * 64, [check_no_room],
                   {"fail": True}),
    ]
