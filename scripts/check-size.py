#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Keep every room small: no C or Python file over MAX_FILE_LINES lines, no
function over MAX_FUNC_LINES lines of body, outside the parsers listed below.

Usage: scripts/check-size.py [FILE.c|FILE.py ...]   (default: the tracked C
files of arch/, boot/, common/ and tests/, and every tracked Python file).
Prints one line per offender and exits 1 when there is one; `make check`
runs it.

A function is what kernel style writes: a line at column 0 that opens an
argument list, its body from a "{" alone at column 0 to the next "}" alone
at column 0. Parsers (a switch over the fields of one firmware record, a
format string walker) read best in one piece; PARSERS names them, with
a reason for any entry that is not a parser.

A Python function or method is measured with the ast module: end_lineno -
lineno of its def (nested functions count in their parent and on their own).
"""

import ast
import os
import re
import subprocess
import sys

MAX_FILE_LINES = 800
MAX_FUNC_LINES = 60

# file: functions allowed to be long (parsers and formatters).
PARSERS = {
    "boot/acpi/acpi_madt.c": {"acpi_parse_madt"},
    "boot/acpi/acpi_fadt.c": {"acpi_parse_fadt"},
    "boot/fdt/fdt.c": {"dt_parse"},
    "boot/multiboot2.c": {"mb2_tag"},
    "boot/uefi.c": {"uefi_mmap_to_bootinfo"},
    "boot/cmdline.c": {"opt_store", "cmdline_parse"},
    "common/lib/console_spec.c": {"console_spec_parse"},
    "common/lib/libc.c": {"vsnprintf"},
}

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HEAD = re.compile(r"^[A-Za-z_][^;]*\(")


def functions(lines):
    """(name, body lines) of each function in @lines."""
    out = []
    i = 0
    while i < len(lines):
        if HEAD.match(lines[i]) and not lines[i].startswith("#"):
            j = i
            while j < len(lines) and j - i < 8 and lines[j] != "{" and \
                    not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and lines[j] == "{":
                k = j + 1
                while k < len(lines) and lines[k] != "}":
                    k += 1
                name = re.findall(r"(\w+)\s*\(", " ".join(lines[i:j]))
                out.append((name[0] if name else lines[i][:30], k - j - 1))
                i = k
        i += 1
    return out


def py_functions(text, rel):
    """(qualified name, lines) of each def in the Python source @text."""
    try:
        tree = ast.parse(text, filename=rel)
    except SyntaxError as e:
        return [(f"<syntax error line {e.lineno}>", MAX_FUNC_LINES + 1)]
    out = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out.append((name, child.end_lineno - child.lineno))
                name += "."
            elif isinstance(child, ast.ClassDef):
                name = prefix + child.name + "."
            walk(child, name)

    walk(tree, "")
    return out


def check(path):
    rel = os.path.relpath(path, TOP)
    with open(path, errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    out = []
    if len(lines) > MAX_FILE_LINES:
        out.append(f"{rel}: {len(lines)} lines (at most {MAX_FILE_LINES})")
    allowed = PARSERS.get(rel, set())
    if path.endswith(".py"):
        funcs = py_functions(text, rel)
    else:
        funcs = functions(lines)
    for name, n in funcs:
        if n > MAX_FUNC_LINES and name not in allowed:
            out.append(f"{rel}: {name}() has {n} lines "
                       f"(at most {MAX_FUNC_LINES})")
    return out


C_TOPS = ("arch", "boot", "common", "tests")


def wanted(name):
    if name.endswith(".py"):
        return True
    return name.endswith(".c") and name.split("/")[0] in C_TOPS


def tracked():
    try:
        names = subprocess.run(["git", "ls-files"], cwd=TOP,
                               capture_output=True, text=True,
                               check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        names = [os.path.relpath(os.path.join(d, f), TOP)
                 for d, _s, fs in os.walk(TOP) for f in fs]
        names = [n for n in names if not n.startswith((".", "build"))]
    return [os.path.join(TOP, n) for n in names if wanted(n)]


def main(argv):
    files = argv[1:] or tracked()
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p)
    print(f"check-size: {len(files)} files, {len(problems)} over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
