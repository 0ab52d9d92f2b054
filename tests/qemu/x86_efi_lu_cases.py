# SPDX-License-Identifier: MIT
"""A live update through GRUB under UEFI (OVMF), the loaders users boot
with (issue 36): GRUB's `multiboot`/`module` (multiboot1) and
`multiboot2`/`module2`, keel.elf as module 0 (its own next image) and a
data module of random bytes as module 1, `liveupdate=1` with a domain.

Each case boots with after=halt and a QMP socket. When the first image
prints its entry line the guest is stopped and RAM below the top of -m is
saved (pmemsave), then it runs on; after the last image's verdict it is
stopped again and read back. The checks: generation 1 and the domain
restored (liveupdate_checks.updated()), the command line the last image
read is the one grub.cfg gave, every module the loader's information
lists (read from guest RAM) holds its file's bytes, and
every range the firmware keeps (every hole in the report's RAM between
1 MiB and the top of -m: OVMF's ACPI NVS, ACPI tables, EFI runtime code
and data) reads back the bytes it held when keel was entered; no
`keel: error:` line (keel's image must not overlap the firmware's map,
issue 36 §4); and a page badpage= names and one inject=poison takes out
of the first image's heap are both out of service in the last image
(the second carried by the handover).

Quiet on this 2-core host: 10-13 s each (OVMF, GRUB, two keel boots
and two 128 MiB dumps; measured beside other helpers' builds); TIMEOUT
(300 s) is over 20x."""

import os
import re
import struct
import subprocess
import time

from scripts.keel import boot

from .liveupdate_checks import updated
from .memcheck import Qmp
from .x86_machine import MKISO, M

TIMEOUT = 300
MEM = 128 * M
# A page the operator names (every image reads it again) and one that goes
# bad in the first image's heap (the handover carries it): the last image
# has both out of service, from their sources.
BADPAGE, POISON = 0x4000, 0x4100
WORDS = ("after=halt audit=full bootscrub=on liveupdate=1 domain=16M "
         f"badpage={BADPAGE:#x} inject=poison:{POISON:#x}")
ENTRY = r"^keel: x86_64 entry, magic"


def _data_module(path):
    """64 KiB + 123 bytes of random data (an odd size: a module need not
    end on a page). Return: @path."""
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(os.urandom(64 * 1024 + 123))
    return path


def _loader_modules(log, mem):
    """[(start, end)] of the modules, as the loader's information says,
    read from guest RAM @mem at the address keel printed at entry (the
    last image's: the same information, passed on)."""
    m = re.findall(r"^keel: x86_64 entry, magic (0x[0-9a-f]+), info at "
                   r"(0x[0-9a-f]+)", log, re.M)
    if not m:
        return []
    magic, info = (int(v, 16) for v in m[-1])
    if magic == 0x2BADB002:  # multiboot1: mods_count, mods_addr
        count, addr = struct.unpack_from("<II", mem, info + 20)
        return [struct.unpack_from("<II", mem, addr + 16 * i)
                for i in range(min(count, 16))]
    out, off = [], info + 8  # multiboot2: tags after total_size, reserved
    total, = struct.unpack_from("<I", mem, info)
    while off + 8 <= info + total:
        ttype, size = struct.unpack_from("<II", mem, off)
        if ttype == 0 or size < 8:
            break
        if ttype == 3:
            out.append(struct.unpack_from("<II", mem, off + 8))
        off += (size + 7) & ~7
    return out


def _modules_intact(log, files, mem):
    """The loader's modules (its information, read from @mem) are @files,
    in order, each reading back byte for byte."""
    mods = _loader_modules(log, mem)
    if len(mods) != len(files):
        return [f"the loader's information lists {len(mods)} modules, "
                f"expected {len(files)}"]
    out = []
    for (start, end), path in zip(mods, files):
        with open(path, "rb") as f:
            want = f.read()
        if end - start != len(want) or mem[start:end] != want:
            out.append(f"module [{start:#x}, {end:#x}) "
                       f"({os.path.basename(path)}, {len(want)} bytes) "
                       "differs from its file")
    return out


def _firmware_ranges(rep, top):
    """What the firmware keeps in [1 MiB, @top): the holes between the
    report's RAM ranges (the report lists reserved ranges inside RAM
    only; ACPI NVS, ACPI reclaimable and EFI runtime memory are not RAM).
    Below 1 MiB lie the VGA window and option ROMs: left out."""
    out, p = [], M
    for s, e, _ in sorted(rep["memmap"]["ranges"]):
        if s > p:
            out.append((p, min(s, top)))
        p = max(p, e)
    if p < top:
        out.append((p, top))
    return [(s, e) for s, e in out if s < e]


def _firmware_intact(rep, before, after):
    """Every firmware range below the top of RAM read back as it was when
    keel was entered. Return: (problems, bytes compared)."""
    out, n = [], 0
    for s, e in _firmware_ranges(rep, len(after)):
        n += e - s
        if before[s:e] != after[s:e]:
            diff = next(i for i in range(s, e) if before[i] != after[i])
            out.append(f"firmware range [{s:#x}, {e:#x}) changed from "
                       f"{diff:#x} across keel's boot and update")
    if not n:
        out.append("no firmware range in the report to compare")
    return out, n


def _image_span(elf):
    """[first, last) byte of memory the loader fills for @elf: its PT_LOAD
    segments, file and bss (what GRUB writes and zeroes)."""
    with open(elf, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    spans = []
    for i in range(phnum):
        ptype, _, _, _, paddr, _, memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + i * phentsize)
        if ptype == 1:
            spans.append((paddr, paddr + memsz))
    return min(s for s, _ in spans), max(e for _, e in spans)


def _image_clear(rep, elf):
    """The image the loader filled lies in RAM: no firmware range under it
    (issue 36 §4: a 2 MiB room past the bss took keel.elf over OVMF's ACPI
    NVS at 8 MiB, and GRUB zeroed it)."""
    s, e = _image_span(elf)
    return [f"keel.elf's image [{s:#x}, {e:#x}) covers the firmware's "
            f"[{fs:#x}, {fe:#x})"
            for fs, fe in _firmware_ranges(rep, 1 << 32) if fs < e and s < fe]


def _bad_carried(rep):
    """The operator's page and the one the first image's heap took out,
    both out of service in the last image, each under its source (a
    case that cuts memory with GRUB's cutmem has the firmware's too)."""
    bm, want = rep["bad_memory"], {BADPAGE, POISON}
    got = {p for r in bm.get("ranges", [])
           for p in range(r[0] >> 12, r[1] >> 12)}
    src = bm.get("by_source", {})
    if not want <= got or rep["audit"]["bad_pages"] != bm["pages"] or \
            src.get("option") != 1 or src.get("injection") != 1:
        return [f"bad_memory {bm}, audit.bad_pages "
                f"{rep['audit']['bad_pages']}: expected pages "
                f"{sorted(want)} among them, option 1 and injection 1"]
    return []


class EfiLuCase:
    """One GRUB-under-OVMF live update (the matrix runs run())."""

    iso = False
    qemu_args = ()

    def __init__(self, name, elf, multiboot1):
        self.name = name
        self.elf = elf
        self.multiboot1 = multiboot1

    def _iso(self, logdir, data):
        iso = os.path.join(logdir, f"{self.name}.iso")
        cmd = [MKISO] + (["--multiboot1"] if self.multiboot1 else []) + \
            ["--module", self.elf, "--module", data, self.elf, iso, WORDS]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return iso

    def _dump(self, qmp, path):
        qmp.cmd("pmemsave", val=0, size=MEM, filename=path)
        with open(path, "rb") as f:
            return f.read()

    def _boot(self, logdir, iso):
        """Boot, dump RAM at the first entry and after the verdict.
        Return: (Boot, problems, RAM at entry, RAM at the end)."""
        sock = os.path.join(logdir, f"{self.name}.qmp")
        dump = os.path.join(logdir, f"{self.name}.ram")
        cmd = boot.x86_64_cmd(["--iso", iso, "--uefi", "--mem", "128M"],
                              None, TIMEOUT,
                              ["-qmp", f"unix:{sock},server=on,wait=off"])
        t0 = time.monotonic()
        live = boot.Live(cmd, TIMEOUT)
        out, before, after = [], b"", b""
        try:
            if not live.wait_for("(?m)" + ENTRY, TIMEOUT):
                out.append("keel was not entered before the timeout")
            else:
                qmp = Qmp(sock)
                qmp.cmd("stop")
                before = self._dump(qmp, dump)
                qmp.cmd("cont")
                if not live.wait_for(r"KEEL: (PASS|FAIL)", TIMEOUT):
                    out.append("no KEEL: verdict before the timeout")
                qmp.cmd("stop")
                after = self._dump(qmp, dump)
                try:
                    qmp.cmd("quit")
                except (OSError, RuntimeError):
                    pass  # QEMU may close the socket as it quits
                qmp.close()
        finally:
            live.stop(10)
            for p in (dump, sock):
                if os.path.exists(p):
                    os.unlink(p)
        live.out += live.proc.stdout.read() or b""
        log_path = os.path.join(logdir, self.name + ".log")
        with open(log_path, "w", encoding="utf-8", errors="replace") as f:
            f.write(live.log)
        status = live.proc.returncode
        b = boot.Boot(cmd, status, live.log, time.monotonic() - t0, TIMEOUT,
                      False, log_path)
        return b, out, before, after

    def run(self, logdir):
        data = _data_module(os.path.join(logdir, "lu-data-module.bin"))
        b, out, before, after = self._boot(logdir, self._iso(logdir, data))
        rep = b.report
        if rep is None:
            return out + ["no report"], b.elapsed, b.log_path, None
        out += [p for p in b.problems(b.status, {}) if "status" not in p]
        out += updated(self.elf, 1, 1, ENTRY)(rep, b.log)
        if WORDS not in rep["cmdline"]:
            out.append(f"cmdline {rep['cmdline']!r} lacks {WORDS!r}")
        if rep["boot"] != ("multiboot1" if self.multiboot1 else "multiboot2"):
            out.append(f"boot {rep['boot']!r}")
        if self.multiboot1 and "keel: warning: x86_64: no ACPI RSDP " \
                "found" not in b.log:
            out.append("multiboot1 under UEFI: no warning that the RSDP "
                       "is missing")
        errors = re.findall(r"^keel: error: .*$", b.log, re.M)
        if errors:
            out.append(f"error lines: {errors}")
        out += _image_clear(rep, self.elf)
        out += _bad_carried(rep)
        if after:
            out += _modules_intact(b.log, [self.elf, data], after)
            fw, _ = _firmware_intact(rep, before, after)
            out += fw
        return out, b.elapsed, b.log_path, rep


def efi_lu_cases(elf):
    """The cases, for tests/qemu/x86_64.py's list."""
    return [EfiLuCase("liveupdate-grub-uefi-mb2", elf, False),
            EfiLuCase("liveupdate-grub-uefi-mb1", elf, True)]
