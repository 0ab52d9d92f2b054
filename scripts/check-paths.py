#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Every path of this tree a comment or a doc names exists.

Reads the comments of the tracked C, header, assembly, Python, make and
shell files and the whole text of README.md and docs/*.md, finds each
mention of a path that starts with a top folder of the tree (arch/,
boot/, common/, docs/, include/, scripts/, tests/) and ends in a file
name with an extension (`common/mm/heap.c`, `tests/qemu/*_cases.py`,
`arch/<arch>/arch.mk`: `*`, `<...>` and `{a,b}` match as the shell
would), and fails, one line each (file:line: path), on a mention that
names nothing in the tree: a file that moved into a room, or is gone.
A path under build/ (made by the build) is not a mention of the tree.

    scripts/check-paths.py            (from the top of the tree)

Files whose mentions cannot be fixed yet may be listed in
EXCEPT and skipped: clear the list once their mentions are fixed.
"""
import fnmatch
import io
import os
import re
import subprocess
import sys
import tokenize

TOPS = ("arch", "boot", "common", "docs", "include", "scripts", "tests")

# Files whose stale mentions are not yet fixed (none).
EXCEPT = []

# Mentions that are not of this tree: Xen's own docs, a path on a GRUB
# image, the examples of how to add a file.
NOT_OURS = ["docs/misc/arm/device-tree/booting.txt", "boot/grub/*",
            "scripts/foo.py", "tests/fuzz/foo_fuzz.c"]

PATH = re.compile(r"(?<![\w./<>*{}-])((?:\.\./)*(?:%s)/[\w./<>*{},-]*?"
                  r"\.[A-Za-z]\w*)(?![\w/])" % "|".join(TOPS))


def comments(rel, text):
    """[(line, text)] of the comments of one file (docs: every line)."""
    out = []
    if rel.endswith(".md"):
        return list(enumerate(text.splitlines(), 1))
    if rel.endswith((".c", ".h", ".S", ".lds", ".ld")):
        for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S):
            first = text.count("\n", 0, m.start()) + 1
            for i, line in enumerate(m.group(0).split("\n")):
                out.append((first + i, line))
        return out
    if rel.endswith(".py"):
        try:
            toks = tokenize.generate_tokens(io.StringIO(text).readline)
            return [(t.start[0], t.string) for t in toks
                    if t.type == tokenize.COMMENT]
        except (tokenize.TokenError, SyntaxError):
            pass
    for n, line in enumerate(text.splitlines(), 1):
        i = line.find("#")
        if i >= 0:
            out.append((n, line[i:]))
    return out


def expand(path):
    """The shell patterns @path stands for ({a,b} made two)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [re.sub(r"<[^<>]*>", "*", path)]
    return [q for alt in m.group(1).split(",")
            for q in expand(path[:m.start()] + alt + path[m.end():])]


def exists(files, dirs, base, path):
    """Does @path (from the top, or from @base's folder) name a tracked
    file, or match one as a pattern?"""
    for pat in expand(path):
        if any(fnmatch.fnmatch(pat, n) for n in NOT_OURS):
            return True
        # <arch/cpu.h>: a header named as it is included
        for cand in (pat, os.path.normpath(os.path.join(base, pat)),
                     "include/" + pat):
            if any(c in cand for c in "*?["):
                if fnmatch.filter(files, cand):
                    return True
            elif cand in files or cand in dirs:
                return True
    return False


def tracked():
    return subprocess.run(["git", "ls-files"], capture_output=True,
                          text=True, check=True).stdout.split()


def problems(files, top="."):
    """check-paths: lines for @files (paths under @top)."""
    dirs = {os.path.dirname(f) for f in files}
    exts = (".c", ".h", ".S", ".py", ".mk", ".sh", ".lds", ".ld")
    todo = [f for f in files if f.endswith(exts) or f == "Makefile" or
            f == "README.md" or (f.startswith("docs/") and
                                 f.endswith(".md"))]
    out = []
    for rel in sorted(todo):
        if any(fnmatch.fnmatch(rel, e) for e in EXCEPT):
            continue
        with open(os.path.join(top, rel), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        for n, line in comments(rel, text):
            for m in PATH.finditer(line):
                path = m.group(1).rstrip(".,")
                if not exists(files, dirs, os.path.dirname(rel), path):
                    out.append(f"{rel}:{n}: {path}")
    return out


def main(argv):
    out = problems(tracked())
    for line in out:
        print(f"check-paths: {line}")
    print(f"check-paths: {len(out)} mentions of paths not in the tree")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
