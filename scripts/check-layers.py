#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Calls go one way: arch -> boot -> common -> lib (DESIGN §1).

Reads the defined and undefined symbols (nm) of the objects one build
links, gives each object the layer of its directory (arch/, boot/,
common/, common/lib/) and fails on every call from a layer to a symbol
defined in a layer above it, naming the caller's object, the symbol and
the object defining it. The arch_* hooks are declared in include/arch/ to
be called from anywhere; smp_secondary_main and keel_main are the two
entries the arch calls down into, which is the allowed direction anyway.

    scripts/check-layers.py BUILD_DIR [BUILD_DIR...]   (e.g. build/x86_64)

Each BUILD_DIR must hold the objects listed in its objs.txt, which
`make ARCH=... objs-list` writes.
"""
import os
import subprocess
import sys

RANK = {"arch": 0, "boot": 1, "common": 2, "lib": 3}


def layer(rel):
    if rel.startswith("arch/"):
        return "arch"
    if rel.startswith("boot/"):
        return "boot"
    if rel.startswith("common/lib/"):
        return "lib"
    if rel.startswith("common/"):
        return "common"
    return None


def symbols(obj):
    """(defined, undefined) symbol names of one object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRWV":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def upward_calls(build):
    """[(caller_obj, symbol, callee_obj)] of one build directory."""
    with open(os.path.join(build, "objs.txt")) as f:
        objs = f.read().split()
    owner, needs = {}, {}
    for obj in objs:
        rel = os.path.relpath(obj, build)
        if layer(rel) is None:
            continue
        defined, undefined = symbols(obj)
        for s in defined:
            owner[s] = rel
        needs[rel] = undefined
    bad = []
    for rel, undefined in sorted(needs.items()):
        for s in sorted(undefined):
            callee = owner.get(s)
            if callee is None or s.startswith("arch_"):
                continue
            if RANK[layer(callee)] < RANK[layer(rel)]:
                bad.append((rel, s, callee))
    return bad


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    total = 0
    for build in argv[1:]:
        for caller, sym, callee in upward_calls(build):
            print(f"check-layers: {build}: {caller} ({layer(caller)}) "
                  f"calls {sym}() of {callee} ({layer(callee)})")
            total += 1
    print(f"check-layers: {len(argv) - 1} builds, {total} upward calls")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
