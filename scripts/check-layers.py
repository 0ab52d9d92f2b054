#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Calls go one way: arch -> boot -> common -> lib, and inside common/ and
boot/ from room to room only down (DESIGN §1, §2).

Reads the defined and undefined symbols (nm) of the objects one build
links and draws the object graph: an edge A -> B when A takes a symbol B
defines. Then it fails, naming the edge (caller object, symbol, callee
object), on:

  - a call up a layer: each object has the layer of its directory (arch/,
    boot/, common/, common/lib/); the arch_* hooks are declared in
    include/arch/ to be called from anywhere;
  - a call from a room of common/ to one above it or beside it: the rooms
    are the folders of common/, ranked bottom to top as ROOMS says (a file
    directly in common/ is the flow, on top); rooms of equal rank may not
    call each other, so the calls between rooms form a DAG;
  - a cycle between rooms (the rooms of each cycle, then its edges), which
    the rank rule already refuses edge by edge;
  - a cycle of boot/ objects: the firmware readers call down too, the
    table walkers below the table parsers;
  - a source of a room that includes another room's header (a quoted
    #include reaching into another folder of common/, directly or through
    its own room's headers): a room's private header is its own, the
    others read it through its public header in include/keel/;
  - an include that goes up: every include/keel/*.h names the room that
    owns it in its first comment line ("Owner: mm."; boot/'s headers that
    common/ reads as data say "Owner: boot (data: ...)."), and a source of
    a room (or its private header) may include only the headers of its own
    room, of the rooms below it, and boot/'s data headers. A header that
    names no owner, or a docs/design.md "Who owns each header" row that
    says another owner than the header, is a problem too;
  - a data header of boot/ that includes a header of a room (or an arch
    hook header): every room reads it, so it holds data and includes only
    lib's headers and boot/'s other data headers;
  - a function declared in a header of one room and defined in another
    (include/keel/X.h: its owner room; include/arch/*.h: arch/), found
    by the symbols of the objects that define them.

    scripts/check-layers.py BUILD_DIR [BUILD_DIR...]   (e.g. build/x86_64)
    scripts/check-layers.py --measure BUILD_DIR [SYMBOL]

--measure prints what issue 29 counts, for one build: the largest set of
common/ objects that all reach each other, and what linking SYMBOL
(default heap_alloc) pulls in (objects outside arch/, their source lines).

Each BUILD_DIR must hold the objects listed in its objs.txt, which
`make ARCH=... objs-list` writes.
"""
import collections
import os
import re
import subprocess
import sys

RANK = {"arch": 0, "boot": 1, "common": 2, "lib": 3}

# The rooms of common/, bottom first: a room may call only rooms of a
# lower rank (and itself). Rooms of one rank are peers that never call
# each other.
ROOMS = {"lib": 0, "mm": 1, "smp": 2, "scrub": 3, "domain": 4,
         "irq": 5, "selftest": 5, "liveupdate": 5, "guest": 5, "report": 6,
         "flow": 7}


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


def room(rel):
    """The room of a common/ object: its folder, or the flow."""
    parts = rel.split("/")
    if parts[0] != "common":
        return None
    return parts[1] if len(parts) > 2 else "flow"


def symbols(obj):
    """(defined, undefined) symbol names of one object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRWVC":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def graph(build):
    """{caller_rel: {(callee_rel, symbol)}} of one build directory, and
    {symbol: defining object}."""
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
    edges = {rel: set() for rel in needs}
    for rel, undefined in needs.items():
        for s in undefined:
            callee = owner.get(s)
            if callee is not None and callee != rel:
                edges[rel].add((callee, s))
    return edges, owner


def upward_calls(edges):
    """[(caller, symbol, callee)]: calls up a layer."""
    bad = []
    for rel in sorted(edges):
        for callee, s in sorted(edges[rel]):
            if s.startswith("arch_"):
                continue
            if RANK[layer(callee)] < RANK[layer(rel)]:
                bad.append((rel, s, callee))
    return bad


def room_calls(edges):
    """[(caller, symbol, callee, why)]: calls between rooms of common/
    that do not go down."""
    bad = []
    for rel in sorted(edges):
        a = room(rel)
        if a is None:
            continue
        for callee, s in sorted(edges[rel]):
            b = room(callee)
            if b is None or a == b:
                continue
            if a not in ROOMS or b not in ROOMS:
                bad.append((rel, s, callee,
                            f"room {a if a not in ROOMS else b} has no rank"))
            elif ROOMS[b] >= ROOMS[a]:
                kind = "beside" if ROOMS[b] == ROOMS[a] else "above"
                bad.append((rel, s, callee,
                            f"{a} calls {b}, {kind} it"))
    return bad


def sccs(nodes, succ):
    """Strongly connected components (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            n, it = work[-1]
            advanced = False
            for m in it:
                if m not in index:
                    index[m] = low[m] = counter
                    counter += 1
                    stack.append(m)
                    on.add(m)
                    work.append((m, iter(succ(m))))
                    advanced = True
                    break
                if m in on:
                    low[n] = min(low[n], index[m])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[n])
            if low[n] == index[n]:
                comp = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    comp.append(m)
                    if m == n:
                        break
                out.append(sorted(comp))
    return out


def room_cycles(edges):
    """[(rooms, [(caller, symbol, callee)])]: cycles between rooms."""
    rg = collections.defaultdict(set)
    for rel, outs in edges.items():
        a = room(rel)
        for callee, _ in outs:
            b = room(callee)
            if a and b and a != b:
                rg[a].add(b)
    rooms = sorted({room(r) for r in edges if room(r)})
    cycles = []
    for comp in sccs(rooms, lambda n: sorted(rg[n])):
        if len(comp) < 2:
            continue
        inside = set(comp)
        why = [(rel, s, callee) for rel in sorted(edges)
               for callee, s in sorted(edges[rel])
               if room(rel) in inside and room(callee) in inside
               and room(rel) != room(callee)]
        cycles.append((comp, why))
    return cycles


def object_cycles(edges, prefix):
    """Cycles of objects under @prefix (each a sorted list)."""
    nodes = sorted(r for r in edges if r.startswith(prefix))
    return [c for c in sccs(nodes, lambda n: sorted(
        {m for m, _ in edges[n] if m.startswith(prefix)})) if len(c) > 1]


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_source(build, rel):
    """The text of source @rel: next to the objects (a test's tree), else
    from the top of the tree; None when neither exists."""
    for path in (os.path.join(build, rel), rel):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            continue
    return None


def private_includes(build, edges):
    """[(source, header, room)]: a common/ source that includes, itself or
    through the headers of its own room it includes, a header of another
    room of common/."""
    bad = []
    for rel in sorted(edges):
        mine = room(rel)
        if mine is None:
            continue
        src = rel[:-2] if rel.endswith(".o") else rel
        seen, todo = {src}, [src]
        while todo:
            text = read_source(build, todo.pop())
            for inc in INCLUDE.findall(text or ""):
                hdr = os.path.normpath(os.path.join(os.path.dirname(src),
                                                    inc))
                if hdr in seen:
                    continue
                seen.add(hdr)
                other = room(hdr)
                if other is not None and other != mine:
                    bad.append((src, hdr, other))
                elif other == mine:
                    todo.append(hdr)
    return bad


OWNER = re.compile(r"^(?:/\*| \*) Owner: (\w+)( \(data[^)]*\))?\.", re.M)
KEEL_INCLUDE = re.compile(r"^\s*#\s*include\s*<keel/(\w+\.h)>", re.M)
DOC_ROW = re.compile(r"^\|\s*`(\w+\.h)`\s*\|\s*(\w+)( \(data\))?\s*\|", re.M)


def tree_top(build):
    """The tree a build's sources are in: beside the objects (a test's
    tree) when it has include/keel/, else the current directory."""
    return build if os.path.isdir(os.path.join(build, "include", "keel")) \
        else "."


def header_owners(top):
    """{header: (owner, data) or None}: what the first comment line of
    each include/keel/*.h under @top says (None: no owner line)."""
    d = os.path.join(top, "include", "keel")
    out = {}
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if not name.endswith(".h"):
            continue
        with open(os.path.join(d, name), encoding="utf-8",
                  errors="replace") as f:
            head = "".join(f.readline() for _ in range(3))
        m = OWNER.search(head)
        out[name] = (m.group(1), bool(m.group(2))) if m else None
    return out


def owner_problems(top, owners):
    """Headers without a known owner; design.md rows that disagree."""
    out = []
    for name, o in owners.items():
        if o is None or (o[0] not in ROOMS and o[0] != "boot"):
            out.append(f"include/keel/{name} names no owner room in its "
                       "first comment line (\"Owner: ROOM.\")")
    doc = os.path.join(top, "docs", "design.md")
    if not os.path.exists(doc):
        return out
    with open(doc, encoding="utf-8") as f:
        rows = {m.group(1): (m.group(2), bool(m.group(3)))
                for m in DOC_ROW.finditer(f.read())}
    for name, o in owners.items():
        if o is not None and rows.get(name) != o:
            said = rows.get(name)
            out.append(f"docs/design.md's header table says {name} is "
                       f"{said[0] if said else 'nobody'}'s, the header "
                       f"says {o[0]}'s" +
                       (" (data)" if o[1] != (said or o)[1] else ""))
    return out


def data_header_problems(top, owners):
    """boot/'s data headers are read by every room, so they are data
    only: each may include lib's headers and boot/'s other data headers,
    never a room's (options.h pulled 33 headers into its readers so)."""
    out = []
    for name, o in sorted(owners.items()):
        if o is None or o != ("boot", True):
            continue
        with open(os.path.join(top, "include", "keel", name),
                  encoding="utf-8", errors="replace") as f:
            text = f.read()
        for inc in KEEL_INCLUDE.findall(text):
            io = owners.get(inc)
            if io is None or io[0] == "lib" or io == ("boot", True):
                continue
            out.append(f"include/keel/{name} is boot/'s data but includes "
                       f"<keel/{inc}>, room {io[0]}'s header: keep the "
                       "value here or in a lib header")
        for inc in re.findall(r"^\s*#\s*include\s*<arch/(\w+\.h)>", text,
                              re.M):
            out.append(f"include/keel/{name} is boot/'s data but includes "
                       f"<arch/{inc}>, an arch hook header")
    return out


DECL = re.compile(r"(?:^|;)\s*(?:extern\s+)?(?:const\s+)?"
                  r"(?:(?:unsigned|signed|struct|enum|union)\s+)?\w+"
                  r"[\s*]+(?:const\s+)?\**\s*(\w+)\s*[(\[]")


def declared(text):
    """The functions and arrays a header declares at file scope: comments,
    preprocessor lines and every {...} body (inline functions, structs)
    left out."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)
    top, depth = [], 0
    for ch in text:
        if ch == "{":
            depth += 1
            if depth == 1:
                top.append(";")
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            top.append(ch)
    return {m.group(1) for m in DECL.finditer("".join(top))
            if m.group(1) not in ("return", "typedef")}


def misplaced_declarations(top, owner, owners):
    """[(header, symbol, object)]: a function (or array) a header declares
    and an object of this build defines in another room than the header's
    owner: include/keel/X.h's owner room (boot: boot/), include/arch/*.h:
    arch/. The arch_* hooks are left out of include/keel/ (keel/hooks.h
    restates them for a host)."""
    bad = []
    for sub in ("keel", "arch"):
        d = os.path.join(top, "include", sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not name.endswith(".h"):
                continue
            with open(os.path.join(d, name), encoding="utf-8",
                      errors="replace") as f:
                names = declared(f.read())
            o = owners.get(name) if sub == "keel" else ("arch", False)
            if o is None:
                continue
            for sym in sorted(names):
                rel = owner.get(sym)
                if rel is None or (sub == "keel" and
                                   sym.startswith("arch_")):
                    continue
                where = room(rel) or layer(rel)
                if where != o[0]:
                    bad.append((f"include/{sub}/{name}", sym, rel))
    return bad


def upward_includes(build, edges, owners):
    """[(source, header, owner, why)]: a source of a common/ room (or a
    private header of its room it includes) that includes the public
    header of a room above or beside it, or one of boot/'s that is not
    data."""
    bad = []
    for rel in sorted(edges):
        mine = room(rel)
        if mine is None or mine not in ROOMS:
            continue
        src = rel[:-2] if rel.endswith(".o") else rel
        seen, todo = {src}, [src]
        while todo:
            text = read_source(build, todo.pop()) or ""
            for inc in INCLUDE.findall(text):
                hdr = os.path.normpath(os.path.join(os.path.dirname(src),
                                                    inc))
                if hdr not in seen and room(hdr) == mine:
                    seen.add(hdr)
                    todo.append(hdr)
            for name in KEEL_INCLUDE.findall(text):
                o = owners.get(name)
                if o is None:
                    continue
                if o[0] == "boot" and not o[1]:
                    bad.append((src, name, "boot", "boot/'s, not data"))
                elif o[0] in ROOMS and o[0] != mine and \
                        ROOMS[o[0]] >= ROOMS[mine]:
                    kind = "beside" if ROOMS[o[0]] == ROOMS[mine] \
                        else "above"
                    bad.append((src, name, o[0], f"{kind} {mine}"))
    return bad


def closure(edges, start):
    """(objects, hooks): what linking @start's object pulls in outside
    arch/, and the arch_* symbols it needs. The hooks are what a host
    provides (docs/embedding.md): the walk stops at them, as a hypervisor
    that links the heap sees it."""
    seen, todo, hooks = {start}, [start], set()
    while todo:
        for m, sym in edges[todo.pop()]:
            if m.startswith("arch/"):
                hooks.add(sym)
            elif m not in seen:
                seen.add(m)
                todo.append(m)
    return seen, hooks


def heap_escapes(edges, owner):
    """The objects outside lib and mm that linking heap_alloc() pulls in
    (libkeel-heap.a must stand alone), as (object, path) pairs."""
    start = owner.get("heap_alloc")
    if start is None:
        return []
    seen, _ = closure(edges, start)
    par = {start: None}
    todo = [start]
    while todo:
        n = todo.pop(0)
        for m, sym in edges[n]:
            if m in seen and m not in par:
                par[m] = (n, sym)
                todo.append(m)
    out = []
    for rel in sorted(seen):
        if room(rel) in ("lib", "mm"):
            continue
        path, n = [], rel
        while par[n]:
            prev, sym = par[n]
            path.append(f"{sym}()")
            n = prev
        out.append((rel, " <- ".join(path)))
    return out


def check(build):
    """Every problem of one build, one line each."""
    edges, owner = graph(build)
    out = []
    for rel, path in heap_escapes(edges, owner):
        out.append(f"linking heap_alloc() pulls in {rel} (room "
                   f"{room(rel)}), through {path}")
    for caller, sym, callee in upward_calls(edges):
        out.append(f"{caller} ({layer(caller)}) calls {sym}() of {callee} "
                   f"({layer(callee)})")
    for comp, why in room_cycles(edges):
        out.append(f"rooms in a cycle: {' <-> '.join(comp)}; edges: " +
                   ", ".join(f"{a} -> {s}() of {b}" for a, s, b in why[:8]) +
                   (f" and {len(why) - 8} more" if len(why) > 8 else ""))
    for caller, sym, callee, why in room_calls(edges):
        out.append(f"{caller} calls {sym}() of {callee}: {why}")
    for comp in object_cycles(edges, "boot/"):
        out.append(f"boot/ objects in a cycle: {', '.join(comp)}")
    for src, hdr, other in private_includes(build, edges):
        out.append(f"{src} includes {hdr}, a header of room {other}: "
                   f"read it through include/keel/")
    owners = header_owners(tree_top(build))
    out += owner_problems(tree_top(build), owners)
    out += data_header_problems(tree_top(build), owners)
    for hdr, sym, rel in misplaced_declarations(tree_top(build), owner,
                                                owners):
        out.append(f"{hdr} declares {sym}(), which {rel} defines: declare "
                   f"it in a header of room {room(rel) or layer(rel)}")
    for src, name, o, why in upward_includes(build, edges, owners):
        out.append(f"{src} includes <keel/{name}>, room {o}'s header "
                   f"({why})")
    return out


def source_lines(build, rel):
    src = rel[:-2] if rel.endswith(".o") else rel
    try:
        with open(src, encoding="utf-8", errors="replace") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def data_symbols(build):
    """{global data symbol: defining source} outside arch/."""
    with open(os.path.join(build, "objs.txt")) as f:
        objs = f.read().split()
    out = {}
    for obj in objs:
        rel = os.path.relpath(obj, build)[:-2]
        if layer(rel) in (None, "arch"):
            continue
        nm = subprocess.run(["nm", obj], capture_output=True, text=True,
                            check=True).stdout
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "DBC":
                out[parts[2]] = rel
    return out


def multi_writer_globals(build):
    """{global: [files]} for the globals more than one source file writes.

    A heuristic over the text: an assignment (=, op=), ++/-- or a memset
    of the name, alone or through members and subscripts. A pointer to it
    handed to a function that writes is not seen."""
    data = data_symbols(build)
    texts = {}
    for rel in set(data.values()) | {r[:-2] for r in graph(build)[0]}:
        if rel.endswith(".c") and layer(rel) not in (None, "arch"):
            with open(rel, encoding="utf-8", errors="replace") as f:
                texts[rel] = f.read()
    found = {}
    for name in data:
        n = re.escape(name)
        tail = r"\b(\s*(\.|->)\s*\w+|\s*\[[^\]]*\])*\s*"
        pat = re.compile(
            rf"(?<![\w.>]){n}{tail}(([-+*/|&^]|<<|>>)?=(?!=)|\+\+|--)"
            rf"|(\+\+|--)\s*{n}\b|memset\(\s*&?\s*{n}\b")
        writers = sorted(f for f, t in texts.items() if pat.search(t))
        if len(writers) > 1:
            found[name] = writers
    return found


def range_structs():
    """[(name, file)] of the struct types with a start and an end member
    (or a *_RANGE_HEAD) in the tracked sources of boot/, common/ and
    include/: comments and parameter lists stripped, braces counted."""
    files = subprocess.run(["git", "ls-files", "*.c", "*.h"],
                           capture_output=True, text=True).stdout.split()
    found = []
    for rel in files:
        if not rel.startswith(("common/", "boot/", "include/")):
            continue
        with open(rel, encoding="utf-8", errors="replace") as f:
            text = re.sub(r"/\*.*?\*/|//[^\n]*", "", f.read(), flags=re.S)
        for m in re.finditer(r"\bstruct\s+(\w+)\s*\{", text):
            i, depth = m.end(), 1
            while i < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            body = text[m.end():i]
            while re.search(r"\([^()]*\)", body):  # parameter lists
                body = re.sub(r"\([^()]*\)", "", body)
            if re.search(r"_RANGE_HEAD\b", body) or (
                    re.search(r"[\s,*]start\s*[,;]", body)
                    and re.search(r"[\s,*]end\s*[,;]", body)):
                found.append((m.group(1), rel))
    return found


def measure(build, symbol):
    edges, owner = graph(build)
    common = sorted(r for r in edges if r.startswith("common/"))
    comps = sccs(common, lambda n: sorted(
        {m for m, _ in edges[n] if m.startswith("common/")}))
    big = max(comps, key=len) if comps else []
    print(f"largest set of common/ objects that all reach each other: "
          f"{len(big)}")
    if len(big) > 1:
        print("  " + " ".join(big))
    start = owner.get(symbol)
    if start is None:
        print(f"{symbol}: not defined in {build}")
        return 1
    seen, hooks = closure(edges, start)
    mine = sorted(seen)
    lines = sum(source_lines(build, r) for r in mine)
    print(f"linking {symbol}() pulls in {len(mine)} objects outside arch/ "
          f"({lines} source lines), rooms: "
          f"{' '.join(sorted({room(r) for r in mine}))}")
    print("  " + " ".join(r[:-2] for r in mine))
    print(f"  and {len(hooks)} arch hooks: {' '.join(sorted(hooks))}")
    # For comparison: the walk through this build's arch objects, which
    # keep unrelated code beside a hook (the timer handler beside
    # arch_irq_save, the whole setup beside arch_cpu_relax).
    seen, todo = {start}, [start]
    while todo:
        for m, _ in edges[todo.pop()]:
            if m not in seen:
                seen.add(m)
                todo.append(m)
    through = [r for r in seen if not r.startswith("arch/")]
    print(f"  (through this build's arch/ objects: {len(through)} objects, "
          f"{sum(source_lines(build, r) for r in through)} lines)")
    flat = [r for r in common if room(r) == "flow"]
    print(f".c files directly in common/: {len(flat)}")
    structs = range_structs()
    print(f"[start, end) struct types: {len(structs)}")
    for name, rel in structs:
        print(f"  struct {name}: {rel}")
    multi = multi_writer_globals(build)
    print(f"globals written from more than one file: {len(multi)}")
    for name, files in sorted(multi.items()):
        print(f"  {name}: {' '.join(files)}")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "--measure":
        return measure(argv[2], argv[3] if len(argv) > 3 else "heap_alloc")
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    total = 0
    for build in argv[1:]:
        for line in check(build):
            print(f"check-layers: {build}: {line}")
            total += 1
    print(f"check-layers: {len(argv) - 1} builds, {total} problems")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
