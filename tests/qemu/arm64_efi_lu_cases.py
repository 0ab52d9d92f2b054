# SPDX-License-Identifier: MIT
"""Issue 36 sections 2, 3 and 5: arm64 through the loaders users boot with
under UEFI (GRUB `linux` + `initrd` with ACPI and with a DT, GRUB
`xen_hypervisor` + `xen_module` with ACPI, U-Boot `bootefi`), live updates
included, with the machine's memory read back through QMP.

Each boot is watched (keel.boot.Live) with QMP and QEMU's gdbstub: once
the EFI stub says it is leaving boot services, a write watchpoint on the
PL011's data register holds the first image at its first console write
after ExitBootServices() (the flush at arm64_start()'s console_use(), pc
checked inside keel's image): the firmware no longer writes its memory,
and keel has allocated, scrubbed and updated nothing yet. These are then
read with `pmemsave`:
  - every runtime code and data, ACPI reclaim and ACPI NVS region (and
    each reserved one in write-back memory) of the UEFI memory map the
    first image's stub got from GetMemoryMap() (the map
    ExitBootServices() accepted), its raw descriptors read from guest
    memory and parsed here (tests/qemu/efi_mmap.py); the list must not be
    empty and must hold the EFI system table, and under GRUB must cover
    each such row GRUB's `lsefimmap` printed before keel ran;
  - the loader's DT and every module the loader placed: the initrd and
    the multiboot,module nodes of the loader's /chosen, read from the DTB
    the EFI stub logged, parsed here (each must hold the file the loader
    was given).
Then QEMU runs on to keel's verdict (after=halt), is stopped again, and
every range must read back the same bytes; the map the last image read
from its /chosen must be the firmware's, byte for byte. The last image's
report must show the generation asked for and the command line the first
was given.
`uboot-bootefi-rt-poked` proves the read-back can fail: one byte of a
runtime region is changed through QEMU's gdbstub, and it must be found.

Expected values come from the files, the firmware's map and the loader's
DT, never from keel's report."""

import os
import random
import re
import struct
import time

from scripts.keel import boot

from . import efi_mmap, memcheck
from .arm64_machine import M, _patched_dtb, case
from .dom0less_cases import no_warnings

# The EFI stub's last line through UEFI's ConOut, before its final
# GetMemoryMap() and ExitBootServices().
LEAVING = (r"keel: efi: \d+ memory descriptors of (\d+) bytes, leaving "
           r"boot services\r*\n")
# QEMU virt's PL011 data register. After that line the first write to it
# is keel's console flush (arm64_start(): console_use()): boot services
# are gone, the map was read, nothing is allocated, scrubbed or updated.
UART_DR = 0x09000000
ENTRY = r"^keel: arm64: entered at EL"
# GRUB's lsefimmap rows of firmware memory keel must never write.
LSEFIMMAP = re.compile(r"^\r?(RT-code|RT-data|ACPI-rec|ACPI-nvs)\s+"
                       r"([0-9a-f]{16})-([0-9a-f]{16})\s", re.M)
# Quiet: 8-13 s for two updates under GRUB, 2-4 s under U-Boot (the map
# read back included); up to 25 s and 16 s measured with the host loaded
# by other builds. 150 s is 6x the loaded 25 s.
TIMEOUT = 150
FDT_BEGIN, FDT_END_NODE, FDT_PROP, FDT_NOP, FDT_END = 1, 2, 3, 4, 9


def _fdt_nodes(blob):
    """A flattened DT's nodes: {path: {property: bytes}}."""
    _, total, off_struct, off_strings = struct.unpack(">IIII", blob[:16])
    nodes, path, o = {}, [], off_struct
    while o + 4 <= total:
        tag = struct.unpack(">I", blob[o:o + 4])[0]
        o += 4
        if tag == FDT_BEGIN:
            end = blob.index(b"\0", o)
            name = blob[o:end].decode("latin-1")
            path.append(name)
            nodes["/" + "/".join(p for p in path if p)] = {}
            o = (end + 4) & ~3
        elif tag == FDT_END_NODE:
            path.pop()
        elif tag == FDT_PROP:
            size, name_off = struct.unpack(">II", blob[o:o + 8])
            name = blob[off_strings + name_off:
                        blob.index(b"\0", off_strings + name_off)]
            nodes["/" + "/".join(p for p in path if p)][
                name.decode("latin-1")] = blob[o + 8:o + 8 + size]
            o = (o + 8 + size + 3) & ~3
        elif tag == FDT_END:
            break
        elif tag != FDT_NOP:
            raise ValueError(f"FDT tag {tag:#x} at {o - 4:#x}")
    return nodes


def _cells(data, n):
    """@n big-endian 32-bit cells of @data as one number."""
    v = 0
    for i in range(n):
        v = v << 32 | struct.unpack(">I", data[4 * i:4 * i + 4])[0]
    return v


def loader_modules(blob):
    """The ranges the loader's /chosen names: [(what, addr, size)] for the
    initrd and each multiboot,module reg entry."""
    nodes = _fdt_nodes(blob)
    chosen = nodes.get("/chosen", {})
    out = []
    if "linux,initrd-start" in chosen:
        s = _cells(chosen["linux,initrd-start"],
                   len(chosen["linux,initrd-start"]) // 4)
        e = _cells(chosen["linux,initrd-end"],
                   len(chosen["linux,initrd-end"]) // 4)
        out.append(("initrd", s, e - s))
    root = nodes.get("/", {})
    ac = _cells(chosen.get("#address-cells",
                           root.get("#address-cells", b"\0\0\0\2")), 1)
    sc = _cells(chosen.get("#size-cells",
                           root.get("#size-cells", b"\0\0\0\1")), 1)
    for path, props in nodes.items():
        if not path.startswith("/chosen/") or \
                b"multiboot,module" not in props.get("compatible", b""):
            continue
        reg = props.get("reg", b"")
        step = 4 * (ac + sc)
        for i in range(0, len(reg) - step + 1, step):
            out.append((path, _cells(reg[i:], ac),
                        _cells(reg[i + 4 * ac:], sc)))
    return out


def _read(qmp, workdir, addr, size):
    dump = os.path.join(workdir, "pmemsave.bin")
    qmp.cmd("pmemsave", val=addr, size=size, filename=dump)
    with open(dump, "rb") as f:
        return f.read()


def _ranges(qmp, log, workdir, files, image):
    """What the first stop reads: (ranges, the firmware's map, problems)."""
    m = re.search(r"keel: efi: image at (0x[0-9a-f]+), system table "
                  r"(0x[0-9a-f]+), .*, DTB (0x[0-9a-f]+|0)", log)
    if not m or not int(m.group(3), 16):
        return [], b"", ["no image, system table or DTB in the EFI stub's "
                          "line"]

    def read(addr, size):
        return _read(qmp, workdir, addr, size)
    descs, raw, out = efi_mmap.firmware_map(
        read, os.path.join(os.path.dirname(image), "keel.elf"), image,
        int(m.group(1), 16))
    said = re.search(LEAVING, log)
    if descs and said and len(raw) != len(descs) * int(said.group(1)):
        out.append(f"efi_boot's descriptor size {len(raw) // len(descs)} "
                   f"is not the {said.group(1)} bytes the stub printed")
    ranges = efi_mmap.firmware_ranges(descs)
    if not ranges:
        out.append(f"no runtime or ACPI region in the firmware's map of "
                   f"{len(descs)} descriptors")
    out += efi_mmap.check_system_table(read, ranges, int(m.group(2), 16))
    # GRUB's lsefimmap, printed before keel ran: the same firmware's map.
    grub = [(f"firmware {kind}", int(s, 16), int(e, 16) + 1 - int(s, 16))
            for kind, s, e in LSEFIMMAP.findall(log)]
    out += efi_mmap.covered(grub, ranges)
    # The loader's DT (ACPI reclaim memory under GRUB's ACPI boot and
    # U-Boot's bootefi, so also read as part of its region).
    dtb = int(m.group(3), 16)
    total = struct.unpack(">II", read(dtb, 8))[1]
    ranges.append(("the loader's DT", dtb, total))
    mods = loader_modules(read(dtb, total))
    want = {}
    for path in files:
        with open(path, "rb") as f:
            want[os.path.basename(path)] = f.read()
    for what, addr, size in mods:
        got = read(addr, size)
        name = next((n for n, b in want.items() if b == got), None)
        if name is None:
            out.append(f"{what} [{addr:#x}, +{size:#x}) holds none of the "
                       f"files the loader was given")
        ranges.append((f"{what} ({name})", addr, size))
    if len(mods) != len(files):
        out.append(f"the loader's /chosen names {len(mods)} modules, "
                   f"{len(files)} files were given")
    return ranges, raw, out


def _compare(qmp, workdir, ranges, before):
    out = []
    for (what, addr, size), old in zip(ranges, before):
        new = _read(qmp, workdir, addr, size)
        if new != old:
            at = next(i for i, (a, b) in enumerate(zip(old, new)) if a != b)
            out.append(f"{what} [{addr:#x}, +{size:#x}) changed from byte "
                       f"{at:#x} ({old[at:at + 8].hex()} -> "
                       f"{new[at:at + 8].hex()})")
    return out


def watched(files, grub_map=True, poke=False):
    """The boot of a case (arm64.py's "live" hook): fn(cmd_for, timeout,
    log_path, workdir, image) -> (Boot, problems). @files: fn(workdir,
    image) -> the files the loader places (their bytes are looked for);
    @grub_map: GRUB printed the firmware's map (lsefimmap); @poke: change
    one byte of a runtime region through QEMU's gdbstub once it was read,
    and expect the read-back to name exactly that byte."""
    def run(cmd_for, timeout, log_path, workdir, image):
        sock = os.path.join(workdir, "qmp.sock")
        gdb = os.path.join(workdir, "gdb.sock")
        cmd = cmd_for(["-qmp", f"unix:{sock},server=on,wait=off",
                       "-chardev", f"socket,id=kgdb,path={gdb},server=on,"
                       "wait=off", "-gdb", "chardev:kgdb"])
        t0 = time.monotonic()
        live = boot.Live(cmd, timeout)
        out = []
        try:
            out += _watch(live, (sock, gdb), workdir, image,
                          files(workdir, image), grub_map, poke)
        finally:
            live.stop(10)
        live.out += live.proc.stdout.read() or b""
        with open(log_path, "w", encoding="utf-8", errors="replace") as f:
            f.write(live.log)
        st = live.proc.returncode
        b = boot.Boot(cmd, st, live.log, time.monotonic() - t0, timeout,
                      st is None or st == boot.TIMEOUT_STATUS, log_path)
        return b, out
    return run


def _poke(gdb, ranges, before):
    """One byte of the last runtime region that holds a non-zero byte,
    inverted: (the problem the read-back must report, problems)."""
    rt = [(r, b) for r, b in zip(ranges, before)
          if r[0].startswith("firmware RT-") and any(b)]
    if not rt:
        return None, ["no non-zero runtime region to poke"]
    (what, addr, size), old = rt[-1]
    at = max(i for i, v in enumerate(old) if v)
    want = f"{what} [{addr:#x}, +{size:#x}) changed from byte {at:#x} "
    try:
        return want, gdb.poke(addr + at, old[at] ^ 0xff)
    except (OSError, RuntimeError) as e:
        return None, [f"no poke through QEMU's gdbstub: {e}"]


def _passed_on(qmp, workdir, log, raw):
    """The map the last image read from its /chosen (the address its
    `described by /chosen` line gives, in its reserved DTB copy) is the
    firmware's, byte for byte. Return: problems."""
    m = re.findall(r"a UEFI boot described by /chosen: (\d+) memory "
                   r"descriptors of (\d+) bytes at (0x[0-9a-f]+)", log)
    if not m or not raw:
        return []  # no update (generation() counts the lines)
    n, size, at = int(m[-1][0]), int(m[-1][1]), int(m[-1][2], 16)
    if _read(qmp, workdir, at, n * size) != raw:
        return [f"the last image's /chosen map ({n} descriptors of {size} "
                f"bytes at {at:#x}) is not the map the firmware gave the "
                f"first ({len(raw)} bytes)"]
    return []


def _first_stop(live, path, image):
    """Hold the first image at its first UART write after it left boot
    services: its console flush in arm64_start(), before it allocates,
    scrubs or updates anything. Return: (Gdb or None, problems)."""
    found = live.wait_for(LEAVING, live.timeout)
    m = re.search(r"keel: efi: image at (0x[0-9a-f]+),", live.log)
    if not found or not m:
        return None, ["the EFI stub never said where it was loaded and "
                      "that it was leaving boot services"]
    with open(image, "rb") as f:
        size = struct.unpack_from("<Q", f.read(0x18), 0x10)[0]
    base = int(m.group(1), 16)
    try:
        gdb = efi_mmap.Gdb(path)
        out = gdb.run_to_write(UART_DR, 4, live.timeout)
        pc = gdb.pc()
    except (OSError, RuntimeError) as e:
        return None, [f"QEMU's gdbstub: {e}"]
    if not out and not base <= pc < base + size:
        out.append(f"the first UART write after ExitBootServices() is at "
                   f"pc {pc:#x}, outside keel's image [{base:#x}, "
                   f"+{size:#x})")
    return gdb, out


def _watch(live, socks, workdir, image, files, grub_map, poke):
    try:
        qmp = memcheck.Qmp(socks[0])
    except (OSError, RuntimeError) as e:
        return [f"QEMU's QMP socket: {e}"]  # this case fails, not the run
    gdb, out = _first_stop(live, socks[1], image)
    held = not out
    if held:
        ranges, raw, more = _ranges(qmp, live.log, workdir, files, image)
        out += more
        if grub_map and not LSEFIMMAP.search(live.log):
            out.append("no firmware runtime/ACPI region in GRUB's lsefimmap")
        before = [_read(qmp, workdir, a, n) for _, a, n in ranges]
        if not any(any(b) for (w, _, _), b in zip(ranges, before)
                   if w.startswith("firmware")):
            out.append("the firmware regions are all zero: nothing to prove")
        poked = None
        if poke:
            poked, problems = _poke(gdb, ranges, before)
            out += problems
    if gdb:
        try:
            gdb.detach()
        except (OSError, RuntimeError) as e:
            out.append(f"QEMU's gdbstub did not let the guest go: {e}")
    if held:
        out += _after(live, qmp, workdir, ranges, before, poked, raw)
    try:
        qmp.cmd("quit")
    except (OSError, RuntimeError):
        pass  # QEMU may close the socket as it quits
    qmp.close()
    return out


def _after(live, qmp, workdir, ranges, before, poked, raw):
    """Run on to the last image's verdict, stop, read back. Return:
    problems."""
    qmp.cmd("cont")  # the detached gdbstub let it run already
    if not live.wait_for(r"KEEL: (PASS|FAIL)", live.timeout):
        return ["no KEEL: verdict before the timeout"]
    try:
        qmp.cmd("stop")
        changed = _compare(qmp, workdir, ranges, before)
        if poked:
            seen = [c for c in changed if c.startswith(poked)]
            changed = [c for c in changed if c not in seen] + (
                [] if seen else [f"the poke ({poked}) was not seen"])
        return changed + _passed_on(qmp, workdir, live.log, raw)
    except (OSError, RuntimeError) as e:
        return [f"QEMU ended before its memory was read back ({e}): the "
                f"last image powered off (after=halt lost)"]


def generation(n, topology):
    """The last image is generation @n (taken), n + 1 images were entered,
    each after the first from /chosen's UEFI description, and the last
    took its topology from @topology ("ACPI" or "device tree")."""
    def check(rep, log):
        lu = rep.get("liveupdate", {})
        out = []
        if n and (lu.get("state"), lu.get("generation")) != ("taken", n):
            out.append(f"liveupdate state {lu.get('state')!r} generation "
                       f"{lu.get('generation')}, expected taken {n}")
        if len(re.findall(ENTRY, log, re.M)) != n + 1:
            out.append(f"{len(re.findall(ENTRY, log, re.M))} images "
                       f"entered, expected {n + 1}")
        described = log.count("a UEFI boot described by /chosen")
        if described != n:
            out.append(f"{described} images booted from /chosen's UEFI "
                       f"description, expected {n}")
        # The DTB copy is packed: copies of copies do not grow by the
        # room each update gives them (16 KiB: QEMU's DT, the map and
        # the properties, page-rounded; 32 KiB at generation 2 unpacked).
        dtb = [r[1] - r[0] for r in rep["memmap"]["reserved"]
               if r[2] == "dtb"]
        if n and (not dtb or max(dtb) > 16 << 10):
            out.append(f"the last image's dtb reservations {dtb}: the "
                       f"copy grew")
        last = log.rsplit("keel: arm64: entered at EL", 1)[-1]
        if f"topology from {topology}" not in last:
            out.append(f"the last image's topology is not from {topology}")
        return out
    return check


def modules_reserved(n):
    """At least @n reservations named module:* (the bytes are compared
    by the watch)."""
    def check(rep, log):
        got = [r for r in rep["memmap"]["reserved"]
               if str(r[2]).startswith("module")]
        return [] if len(got) >= n else [
            f"{len(got)} module reservations, expected {n}"]
    return check


def _module_files(workdir, image):
    out = []
    for i, size in enumerate((M + 12345, 3 * M + 7)):
        path = os.path.join(workdir, f"mod{i}.bin")
        with open(path, "wb") as f:
            f.write(random.Random(36 + i).randbytes(size))
        out.append(path)
    return out


def _grub_modules(workdir, qemu_args):
    return [a for p in _module_files(workdir, None)
            for a in ("--grub-module", p)]


def _uboot_module(workdir, qemu_args):
    """QEMU's guest-loader puts a file at 0x4c000000 and names it in the
    DT U-Boot hands on to the EFI application."""
    path = _module_files(workdir, None)[0]
    return [], ["-device", f"guest-loader,addr=0x4c000000,kernel={path}"]


# U-Boot's fw_cfg load, the initrd named in /chosen (`fdt chosen` takes a
# start and a size and writes start + size - 1: one byte added), then the
# Image as an EFI application on that DT; the Image is also the initrd,
# so ${filesize} (the initrd's) is its size too.
UBOOT_BOOTEFI = ("qfw load 0x40400000 0x48000000 && "
                 "setexpr rdsz ${filesize} + 1 && "
                 "fdt addr ${fdtcontroladdr} && fdt resize 8192 && "
                 "fdt chosen 0x48000000 ${rdsz} && "
                 "bootefi 0x40400000:${filesize} ${fdtcontroladdr}")
LU2 = "liveupdate=2 domain=64M domain_fill=on"
GRUB_MAP = ["--grub-cmd", "lsefimmap"]


def _efi_lu(name, args, topology, loader, files, setup=None, grub_map=True,
            poke=False):
    append = f"audit=full {LU2}"
    c = case(name, args, {"cpus": 2, "online": 2, "scrubbed": True,
                          "cmdline": f"after=halt {append}"},
             loader=loader, boot="efi", after="halt", append=LU2,
             setup=setup, named=("kernel", "page tables", "handover"),
             timeout=TIMEOUT,
             checks=[generation(2, topology), no_warnings])
    c["initrd_self"] = True
    c["live"] = watched(lambda work, image: [image] + files(work, image),
                        grub_map, poke)
    return c


CASES = [
    # GRUB linux + initrd, QEMU_EFI's default (ACPI; GRUB's DT holds only
    # /chosen): before the fix the new image booted on that bare DT and
    # panicked with no memory map.
    _efi_lu("grub-acpi-liveupdate2",
            ["--grub", *GRUB_MAP, "--smp", "2", "--mem", "1G"], "ACPI",
            "grub", lambda w, i: []),
    # The same on the firmware's DT (virt,acpi=off): before the fix the new
    # image took all of /memory for RAM and zeroed the runtime regions.
    _efi_lu("grub-dt-liveupdate2",
            ["--grub", *GRUB_MAP, "--no-acpi", "--smp", "2", "--mem", "1G"],
            "device tree", "grub", lambda w, i: []),
    # U-Boot bootefi on its DT, a guest-loader module beside the initrd.
    _efi_lu("uboot-bootefi-liveupdate2",
            ["--uboot-bootcmd", UBOOT_BOOTEFI, "--smp", "2", "--mem", "1G"],
            "device tree", "uefi",
            lambda w, i: [os.path.join(w, "mod0.bin")],
            setup=_uboot_module, grub_map=False),
    # The proof that the read-back above can fail: the same boot with one
    # byte of a runtime region inverted through QEMU's gdbstub after it
    # was read; the case passes only if that byte, and no other, is found
    # changed.
    _efi_lu("uboot-bootefi-rt-poked",
            ["--uboot-bootcmd", UBOOT_BOOTEFI, "--smp", "2", "--mem", "1G"],
            "device tree", "uefi",
            lambda w, i: [os.path.join(w, "mod0.bin")],
            setup=_uboot_module, grub_map=False, poke=True),
]

# GRUB's xen_hypervisor + xen_module under ACPI: before the fix the
# modules were not reserved and the boot scrub zeroed them (PASS, 0
# warnings). No update (xen_hypervisor passes no initrd).
_xen = case("grub-xen-modules-acpi",
            ["--grub", *GRUB_MAP, "--grub-loader", "xen", "--smp", "2",
             "--mem", "1G"],
            {"cpus": 2, "online": 2, "scrubbed": True,
             "cmdline": "after=halt audit=full bootscrub=on"},
            loader="uefi", boot="efi", after="halt", append="bootscrub=on",
            setup=_grub_modules, named=("kernel", "page tables"),
            timeout=TIMEOUT,
            checks=[generation(0, "ACPI"), no_warnings,
                    modules_reserved(2)])
_xen["live"] = watched(_module_files)
CASES.append(_xen)

# Issue 36 section 5: ImageBuilder's XEN_CMD is /chosen/xen,xen-bootargs,
# read before the bootargs QEMU writes from -append (Xen's precedence);
# before the fix keel read the bootargs (bootscrub=off, no domain).
XEN_CMD = "after=poweroff audit=full domain=8M"


def _xen_bootargs_dtb(workdir, qemu_args):
    return _patched_dtb(workdir, qemu_args,
                        f'\tchosen {{\n\t\txen,xen-bootargs = "{XEN_CMD}";'
                        "\n\t};\n")


def _one_domain(rep, log):
    rows = rep.get("domains", [])
    return [] if len(rows) == 1 and rows[0]["bytes"] == 8 * M else [
        f"domains {rows}, expected one of 8 MiB (domain=8M)"]


CASES.append(case("dt-xen-bootargs", ["--smp", "1", "--mem", "256M"],
                  {"cpus": 1, "cmdline": XEN_CMD, "scrubbed": True},
                  append="bootscrub=off", setup=_xen_bootargs_dtb,
                  checks=[_one_domain, no_warnings]))
