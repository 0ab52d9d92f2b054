# SPDX-License-Identifier: MIT
"""The flow's domain set (common/boot.c) is not in keel's image: arm64's
image_size must stay under 2 MiB (arch/arm64/keel.lds). Its storage, about
192 KiB, is a bootmem reservation named "domain set", asked only by a
boot with domains to hold: domain= words, dom0less nodes, or a taken
handover, whose restore fills the set even when the handover has no
domain (the new image then has no domain= word of its own). A boot
without domains reserves nothing for it and reports as before.

Quiet on this 2-core host: 0.1-0.6 s a boot (the update: two);
firmware.TIMEOUT (120 s) is far above.
"""

FW = "sandbox-liveupdate.fw"
NAME = "domain set"
SET_MAX = 256 << 10  # bytes: DOMAIN_MAX domains are about 192 KiB


def _set_rows(rep):
    return [(r[0], r[1]) for r in rep["memmap"].get("reserved", [])
            if len(r) >= 3 and r[2] == NAME]


def check_set(claimed):
    """One reservation named NAME (@claimed), under SET_MAX; else none."""
    def check(rep, log):
        rows = _set_rows(rep)
        if not claimed:
            return [f"{NAME!r} reserved {rows} on a boot without domains"] \
                if rows else []
        if len(rows) != 1 or not 0 < rows[0][1] - rows[0][0] <= SET_MAX:
            return [f"{NAME!r} reservations {rows}, expected one of at "
                    f"most {SET_MAX} bytes"]
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
    ]
