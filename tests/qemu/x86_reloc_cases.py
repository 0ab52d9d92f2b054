# SPDX-License-Identifier: MIT
"""keel.elf where its link address is not free (issue 36 §4): GRUB's
`multiboot2` honours the image's relocatable tag (head.S, type 10) and
puts it wherever its map is free; head.S applies the relocations.

GRUB's `cutmem 1M 8M` runs before `multiboot2` (scripts/mkiso.sh --pre).
Under UEFI GRUB turns the cut into EFI unusable memory, which its
relocator avoids and which its multiboot2 map passes as bad memory (type
5): the image is loaded at 8 MiB or above. (A bigger cut, 1M..64M, is
only partly applied under OVMF with 128 MiB: GRUB cannot free its own
pages in it.) Under BIOS GRUB's relocator reads the firmware's e820, not
cutmem's overlay, which only the map GRUB passes shows as a hole.

- reloc-grub-uefi-cut: 2 CPUs (the AP trampoline enters the relocated
  image), PASS, no lost page, keel says where it runs (one "image at"
  line, relocated, page aligned, at or above the cut's end, GRUB's tag 21
  saying the same), its "kernel" reservation and the report's `image`
  are that range, and every byte of RAM in the cut is bad memory: the RAM
  keel may use is the machine's less the cut.
- reloc-liveupdate-grub-uefi-cut: the relocated image updates into
  keel.elf (module 0), which runs where the old one ran (liveupdate.c's
  place_image()): generation 1, the domain restored, the modules and the
  firmware's memory intact (x86_efi_lu_cases' checks).
- reloc-guests-liveupdate2-grub-uefi-cut: liveupdate=2 with 2 SVM guests
  held in their loops, 3 CPUs: three images, each at the first one's
  place, the guests resumed by each (guests_resumed()).
- reloc-liveupdate-not-relocatable: the update of the second case with a
  next image whose multiboot2 header has no relocatable tag: the old
  image refuses before the freeze, names why, and fails its boot; one
  image entered.
- reloc-grub-bios-cut: under BIOS GRUB loads keel at 1 MiB all the same;
  keel boots on and says so in one error line naming its image and the
  range the map does not call RAM.

Quiet on this 2-core host: 2-15 s each (OVMF, GRUB and one to three keel
boots); TIMEOUT (300 s) is over 20x."""

import os
import re
import struct
import subprocess
import time

from scripts.keel import boot

from .guests_checks import guests_resumed
from .liveupdate_checks import updated
from .x86_efi_lu_cases import ENTRY, WORDS, EfiLuCase, _data_module
from .x86_machine import EXIT_FAIL, EXIT_PASS, MKISO, M

TIMEOUT = 300
CUT = (1 * M, 8 * M)
PRE = f"cutmem {CUT[0] >> 20}M {CUT[1] >> 20}M"
LINK = 0x100000  # KERNEL_LOAD_PA
IMAGE = (r"^keel: x86_64: image at (0x[0-9a-f]+)\.\.(0x[0-9a-f]+) "
         r"\(linked at (0x[0-9a-f]+)\.\.(0x[0-9a-f]+)(; relocated by its "
         r"loader)?\)\r?$")
TAG21 = r"^keel: multiboot2: the loader put the image at (0x[0-9a-f]+) "


def _mkiso(args):
    subprocess.run([MKISO, "--pre", PRE] + args, check=True,
                   stdout=subprocess.DEVNULL)


def _images(log):
    """[(start, end, link_start, link_end, relocated)] per image entered."""
    return [(int(a, 16), int(b, 16), int(c, 16), int(d, 16), bool(r))
            for a, b, c, d, r in re.findall(IMAGE, log, re.M)]


def _relocated(rep, log, images):
    """Each of @images keel entered says it runs relocated, above the cut,
    page aligned; GRUB's tag 21 says the same base; the report's "kernel"
    reservation is the last image's range."""
    out, seen = [], _images(log)
    if len(seen) != images:
        return [f"{len(seen)} 'image at' lines, expected {images}"]
    for s, e, ls, le, moved in seen:
        if not moved or ls != LINK or e - s != le - ls:
            out.append(f"image [{s:#x}, {e:#x}) linked at [{ls:#x}, "
                       f"{le:#x}): not said relocated")
        if s < CUT[1] or s & 0xfff:
            out.append(f"image at {s:#x}: inside the cut [{CUT[0]:#x}, "
                       f"{CUT[1]:#x}) or not page aligned")
    bases = {int(b, 16) for b in re.findall(TAG21, log, re.M)}
    if bases != {seen[0][0]}:
        out.append(f"tag 21 says {sorted(map(hex, bases))}, keel runs at "
                   f"{seen[0][0]:#x}")
    kernel = [(s, e) for s, e, n in rep["memmap"]["reserved"]
              if n == "kernel"]
    if kernel != [seen[-1][:2]]:
        out.append(f"'kernel' reservations {kernel}, the image runs at "
                   f"{seen[-1][:2]}")
    want = {"start": seen[-1][0], "end": seen[-1][1], "linked_at": LINK}
    if rep.get("image") != want:
        out.append(f"report image {rep.get('image')}, expected {want}")
    return out


def _cut_is_bad(rep):
    """Every byte of RAM in the cut is bad memory, and it is all of the
    bad memory: usable RAM is the machine's less the cut."""
    ram_in_cut = sum(max(0, min(e, CUT[1]) - max(s, CUT[0]))
                     for s, e, _ in rep["memmap"]["ranges"])
    bad = rep["audit"]["bad_pages"] * 4096
    if ram_in_cut != CUT[1] - CUT[0] or bad != ram_in_cut:
        return [f"{ram_in_cut:#x} bytes of RAM in the cut, {bad:#x} bad: "
                f"expected {CUT[1] - CUT[0]:#x} both"]
    return []


class RelocBootCase:
    """reloc-grub-uefi-cut (the matrix runs run())."""

    iso = False
    qemu_args = ()
    words = "after=exit audit=full"
    cpus = 2
    images = 1
    modules = False

    def __init__(self, name, elf):
        self.name = name
        self.elf = elf

    def checks(self, rep, log):
        return _cut_is_bad(rep)

    def run(self, logdir):
        iso = os.path.join(logdir, f"{self.name}.iso")
        mods = ["--module", self.elf] if self.modules else []
        _mkiso(mods + [self.elf, iso, self.words])
        cmd = boot.x86_64_cmd(["--iso", iso, "--uefi", "--mem", "256M",
                               "--smp", str(self.cpus)], None, TIMEOUT)
        log_path = os.path.join(logdir, self.name + ".log")
        t0 = time.monotonic()
        b = boot.qemu(cmd, TIMEOUT, log_path)
        rep = b.report
        out = b.problems(EXIT_PASS, {})
        if rep is None:
            return out or ["no report"], time.monotonic() - t0, log_path, rep
        if rep["audit"]["lost_pages"] or not rep["audit"]["ok"]:
            out.append(f"audit {rep['audit']}")
        if sum(c["online"] for c in rep["cpus"]) != self.cpus:
            out.append(f"not all {self.cpus} CPUs online")
        out += _relocated(rep, b.log, self.images) + self.checks(rep, b.log)
        errors = re.findall(r"^keel: error: .*$", b.log, re.M)
        if errors:
            out.append(f"error lines: {errors}")
        return out, time.monotonic() - t0, log_path, rep


class RelocGuestsLuCase(RelocBootCase):
    """reloc-guests-liveupdate2-grub-uefi-cut: 2 guests held in their
    loops through two updates, each image copied where the relocated first
    one runs."""

    words = ("after=exit report=full liveupdate=2 guests=on domain=16M "
             "domain=16M")
    cpus = 3
    images = 3
    modules = True

    def checks(self, rep, log):
        return updated(self.elf, 2, 2, ENTRY)(rep, log) + \
            guests_resumed(2, generation=2)(rep, log)


class RelocBiosCase(RelocBootCase):
    """reloc-grub-bios-cut: GRUB's BIOS relocator does not see the cut."""

    cpus = 1

    def run(self, logdir):
        iso = os.path.join(logdir, f"{self.name}.iso")
        _mkiso([self.elf, iso, self.words])
        cmd = boot.x86_64_cmd(["--iso", iso, "--mem", "256M"], None,
                              TIMEOUT)
        log_path = os.path.join(logdir, self.name + ".log")
        t0 = time.monotonic()
        b = boot.qemu(cmd, TIMEOUT, log_path)
        out = b.problems(EXIT_PASS, {})
        seen = _images(b.log)
        if len(seen) != 1 or seen[0][0] != LINK or seen[0][4]:
            out.append(f"images {seen}: expected one, at {LINK:#x}")
        errors = re.findall(r"^keel: error: .*$", b.log, re.M)
        want = (rf"keel: error: the image \[{LINK:#x}, 0x[0-9a-f]+\) "
                rf"\(kernel\) covers \[{LINK:#x}, 0x[0-9a-f]+\), which the "
                r"firmware's map does not call RAM")
        if len(errors) != 1 or not re.match(want, errors[0]):
            out.append(f"error lines {errors}, expected one like {want!r}")
        return out, time.monotonic() - t0, log_path, b.report


class RelocLuCase(EfiLuCase):
    """reloc-liveupdate-grub-uefi-cut: x86_efi_lu_cases' update, cut."""

    def __init__(self, name, elf):
        super().__init__(name, elf, False)

    def _iso(self, logdir, data):
        iso = os.path.join(logdir, f"{self.name}.iso")
        _mkiso(["--module", self.elf, "--module", data, self.elf, iso,
                WORDS])
        return iso

    def run(self, logdir):
        out, secs, log_path, rep = super().run(logdir)
        if rep is not None:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                out += _relocated(rep, f.read(), 2)
        return out, secs, log_path, rep


def not_relocatable(elf, out):
    """Write to @out a copy of keel.elf @elf whose multiboot2 header's
    relocatable tag (10) is an optional tag of an unknown type (the
    checksum covers only the header's first 16 bytes). Return: @out."""
    with open(elf, "rb") as f:
        data = bytearray(f.read())
    for off in range(0, 0x8000, 8):
        magic, arch, hlen, check = struct.unpack_from("<IIII", data, off)
        if magic == 0xE85250D6 and (magic + arch + hlen + check) \
                & 0xffffffff == 0:
            break
    else:
        raise ValueError(f"{elf}: no multiboot2 header")
    tag = off + 16
    while tag < off + hlen:
        ttype, flags, size = struct.unpack_from("<HHI", data, tag)
        if ttype == 10:
            struct.pack_into("<HH", data, tag, 0x7e7e, 1)
            with open(out, "wb") as f:
                f.write(data)
            return out
        if ttype == 0:
            break
        tag += (size + 7) & ~7
    raise ValueError(f"{elf}: no relocatable tag")


class RelocLuRefusedCase(RelocLuCase):
    """reloc-liveupdate-not-relocatable."""

    def run(self, logdir):
        data = _data_module(os.path.join(logdir, "lu-data-module.bin"))
        nxt = not_relocatable(self.elf, os.path.join(
            logdir, "keel-not-relocatable.elf"))
        iso = os.path.join(logdir, f"{self.name}.iso")
        _mkiso(["--module", nxt, "--module", data, self.elf, iso,
                WORDS.replace("after=halt", "after=exit")])
        cmd = boot.x86_64_cmd(["--iso", iso, "--uefi", "--mem", "128M"],
                              None, TIMEOUT)
        log_path = os.path.join(logdir, self.name + ".log")
        t0 = time.monotonic()
        b = boot.qemu(cmd, TIMEOUT, log_path)
        rep = b.report
        out = b.problems(EXIT_FAIL, {"fail": True})
        if rep is None:
            return out or ["no report"], time.monotonic() - t0, log_path, rep
        why = rep.get("fail_reason") or ""
        if not re.match(r"liveupdate: this image runs relocated, at "
                        r"0x[0-9a-f]+: the new image \(linked at 0x100000\) "
                        r"has no multiboot2 relocatable tag$", why):
            out.append(f"fail_reason {why!r}")
        if rep["liveupdate"]["generation"] != 0:
            out.append(f"liveupdate.generation "
                       f"{rep['liveupdate']['generation']}")
        if rep["audit"]["lost_pages"]:
            out.append(f"audit {rep['audit']}")
        out += _relocated(rep, b.log, 1)
        return out, time.monotonic() - t0, log_path, rep


def reloc_cases(elf):
    """The cases, for tests/qemu/x86_cases.py's list."""
    return [RelocBootCase("reloc-grub-uefi-cut", elf),
            RelocLuCase("reloc-liveupdate-grub-uefi-cut", elf),
            RelocGuestsLuCase("reloc-guests-liveupdate2-grub-uefi-cut", elf),
            RelocLuRefusedCase("reloc-liveupdate-not-relocatable", elf),
            RelocBiosCase("reloc-grub-bios-cut", elf)]
