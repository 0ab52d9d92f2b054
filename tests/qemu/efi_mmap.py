# SPDX-License-Identifier: MIT
"""The UEFI memory map a watched arm64 EFI boot really used, read from
guest memory and parsed here (issue 36's Tests: every runtime and ACPI
region read back after a live update), never from keel's parser or report.

Under GRUB's `linux` / `xen_hypervisor` and U-Boot's `bootefi` the first
image is a UEFI application: no loader hands it a map (U-Boot passes no
/chosen linux,uefi-mmap-*, GRUB's DT holds none); its EFI stub calls
GetMemoryMap() into its own buffer, the array `efi_mmap` in .bss, and
ExitBootServices() accepts that map's key. The firmware wrote those bytes;
keel only reads them. So once the first image is past ExitBootServices()
(held at its first console write, arm64_efi_lu_cases.py) the test reads,
with QMP `pmemsave`:
  - the arm64 Image header at the ImageBase the stub printed, which must
    be the Image file's (the base is right);
  - `efi_boot`'s last two fields, mmap_size and desc_size (GetMemoryMap's
    MemoryMapSize and DescriptorSize, stored as returned), and
    `efi_desc_ver`, at the addresses keel.elf's symbol table gives them
    (ImageBase + the symbol's value: the Image is linked at 0);
  - that many bytes of `efi_mmap`, parsed as EFI_MEMORY_DESCRIPTORs
    (UEFI 2.10 section 7.2: Type, PhysicalStart, VirtualStart,
    NumberOfPages, Attribute).
Every sanity rule (sizes, version, page alignment, the system table's
signature and its page inside a runtime region) is a problem when broken:
a renamed symbol or a reordered struct fails the case, it cannot pass on
an empty list."""

import re
import struct

from . import memcheck
from .liveupdate_checks import elf_symbol

# EFI_MEMORY_TYPE values keel must never write, named as GRUB's lsefimmap
# names them.
FW_TYPES = {5: "RT-code", 6: "RT-data", 9: "ACPI-rec", 10: "ACPI-nvs"}
RESERVED, MEMORY_WB = 0, 0x8  # EfiReservedMemoryType, EFI_MEMORY_WB
MAX_TYPE = 15  # EfiUnacceptedMemoryType; OEM/OS types are >= 0x70000000
SYSTEM_TABLE_SIG = b"IBI SYST"
PAGE = 0x1000


def parse(raw, desc_size):
    """EFI_MEMORY_DESCRIPTORs of @raw, @desc_size apart: [(type, start,
    pages, attribute)]."""
    return [struct.unpack_from("<I4xQ8xQQ", raw, o)
            for o in range(0, len(raw) - desc_size + 1, desc_size)]


def _symbols(elf):
    with open(elf, "rb") as f:
        data = f.read()
    syms = {n: elf_symbol(data, n.encode())
            for n in ("efi_mmap", "efi_boot", "efi_desc_ver")}
    return syms, [f"{elf}: no symbol {n}" for n, v in syms.items() if not v]


def firmware_map(read, elf, image, base):
    """The map the first image's stub got from GetMemoryMap(), read
    through @read(addr, size) -> bytes. @elf: keel.elf; @image: the Image
    file the firmware loaded; @base: its ImageBase. Return: (descriptors,
    the map's bytes, problems)."""
    syms, out = _symbols(elf)
    if out:
        return [], b"", out
    with open(image, "rb") as f:
        head = f.read(64)
    # The arm64 Image header (64 bytes: "ARMd", the PE offset, keel's
    # need): PE loaders copy the headers, EDK2's rewrites the PE
    # optional header's ImageBase, U-Boot's zeroes past the section table.
    if read(base, 64) != head[:64]:
        return [], b"", [f"no copy of {image}'s 64-byte Image header at "
                    f"ImageBase {base:#x}"]
    boot, boot_size = syms["efi_boot"]
    mmap_size, desc_size = struct.unpack(
        "<QQ", read(base + boot + boot_size - 16, 16))
    ver, = struct.unpack("<I", read(base + syms["efi_desc_ver"][0], 4))
    room = syms["efi_mmap"][1]
    if not (40 <= desc_size <= 1024 and desc_size % 8 == 0) or ver != 1 \
            or not mmap_size or mmap_size % desc_size or mmap_size > room:
        return [], b"", [f"efi_boot says a map of {mmap_size} bytes in "
                    f"descriptors of {desc_size}, version {ver} ({room} "
                    f"bytes of room): not a GetMemoryMap() result"]
    raw = read(base + syms["efi_mmap"][0], mmap_size)
    descs = parse(raw, desc_size)
    for t, start, pages, _ in descs:
        if t > MAX_TYPE or start % PAGE or not pages:
            out.append(f"descriptor type {t} at {start:#x}, {pages} pages: "
                       f"not a UEFI memory descriptor")
    return descs, raw, out


def firmware_ranges(descs):
    """[(what, addr, size)] of each runtime code/data, ACPI reclaim and
    ACPI NVS descriptor, and of each EfiReservedMemoryType one that is
    write-back memory (not MMIO: reading a device could change it)."""
    return [(f"firmware {FW_TYPES[t]}", s, n * PAGE)
            for t, s, n, _ in descs if t in FW_TYPES] + [
        ("firmware reserved", s, n * PAGE)
        for t, s, n, attr in descs if t == RESERVED and attr & MEMORY_WB]


def check_system_table(read, ranges, addr):
    """The system table at @addr has its signature and its page lies in
    one of @ranges (runtime data: RT-code under U-Boot, whose table is in
    its runtime section). Return: problems."""
    if read(addr, 8) != SYSTEM_TABLE_SIG:
        return [f"no EFI system table signature at {addr:#x}"]
    if not any(s <= addr and addr + 8 <= s + n
               for w, s, n in ranges if w != "firmware reserved"):
        return [f"the EFI system table at {addr:#x} is in no runtime or "
                f"ACPI region of the firmware's map"]
    return []


def covered(rows, ranges):
    """Each (what, addr, size) of @rows (GRUB's lsefimmap) inside one
    range of @ranges of the same kind. Return: problems."""
    return [f"{w} [{a:#x}, +{n:#x}) of lsefimmap is in no {w} of the map "
            f"the stub got" for w, a, n in rows
            if not any(w == w2 and a2 <= a and a + n <= a2 + n2
                       for w2, a2, n2 in ranges)]


class Gdb:
    """QEMU's gdbstub on a Unix socket: stop the guest at a write to an
    address (the first image's first UART byte after ExitBootServices) and
    change one byte of guest-physical memory (the proof that a read-back
    can fail; QEMU's Qqemu.PhyMemMode:1 makes `M` take physical
    addresses). QEMU stops the guest when the debugger connects and lets
    it run on when it detaches."""

    def __init__(self, path, wait=10):
        self.sock = memcheck.unix_socket(path, wait)
        self.buf = b""

    def cmd(self, packet, secs=30):
        """Send @packet (str); return the stub's reply (str), waiting at
        most @secs for it (socket.timeout, an OSError, past that). Stop
        replies (T.., S..: QEMU sends one when the debugger connects) are
        skipped, but for `c`, whose reply is the watchpoint's stop."""
        body = packet.encode()
        self.sock.settimeout(secs)
        self.sock.sendall(b"$%s#%02x" % (body, sum(body) & 0xff))
        while True:
            m = re.search(rb"\$([^#]*)#[0-9a-fA-F]{2}", self.buf)
            if m:
                self.buf = self.buf[m.end():]
                self.sock.sendall(b"+")
                r = m.group(1).decode("latin-1")
                if r[:1] not in ("T", "S") or \
                        (packet == "c" and "watch:" in r):
                    return r
                continue
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError(f"gdbstub closed after {packet!r}")
            self.buf += chunk

    def run_to_write(self, addr, size, secs):
        """Let the guest run until it writes [@addr, +@size) (a virtual
        address: VA == PA under UEFI and keel), then hold it there.
        Return: problems."""
        if self.cmd(f"Z2,{addr:x},{size:x}") != "OK":
            return [f"gdbstub: no write watchpoint at {addr:#x}"]
        stop = self.cmd("c", secs)
        self.cmd(f"z2,{addr:x},{size:x}")
        return [] if "watch:" in stop else [
            f"gdbstub: the guest stopped with {stop!r}, not at the "
            f"watchpoint at {addr:#x}"]

    def pc(self):
        """The stopped CPU's pc (aarch64 `g` packet: x0-x30, sp, pc)."""
        regs = bytes.fromhex(self.cmd("g")[:33 * 16])
        return int.from_bytes(regs[32 * 8:33 * 8], "little")

    def poke(self, addr, value):
        """Write the byte @value at guest-physical @addr. Return:
        problems."""
        out = []
        for p in ("Qqemu.PhyMemMode:1", f"M{addr:x},1:{value:02x}"):
            r = self.cmd(p)
            if r != "OK":
                out.append(f"gdbstub {p!r}: {r!r}")
        return out

    def detach(self):
        """Detach (the guest runs on) and close."""
        try:
            self.cmd("D")
        finally:
            self.sock.close()
