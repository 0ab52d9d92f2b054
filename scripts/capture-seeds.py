#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Capture real firmware inputs from QEMU as libFuzzer seeds.

Maintainer tool (make check does not run it); the seeds it writes are
committed in tests/fuzz/corpus/<target>/. One QEMU at a time, each under
`timeout` (scripts/qemu.sh --timeout / scripts/qemu-arm64.sh).

  scripts/capture-seeds.py [--only acpi,mb1,mb2,dtb,text] [--keep DIR]

acpi  x86_64: boots build/x86_64/keel.elf (multiboot1, after=halt) for
      several -machine/-smp/-numa configurations with a QMP socket, waits
      for "KEEL: PASS|FAIL" on the serial console, takes the RSDP address
      from keel's "ACPI RSDP at" line (or scans 0xE0000-0xFFFFF when keel
      prints none), and pmemsaves the RSDP, RSDT/XSDT, every table, the
      DSDT and the FACS. Writes acpi_tree/qemu-* (the tables relocated into
      one small image, see tests/fuzz/acpi_tree_fuzz.c), acpi_rsdp/qemu-*
      (the real 512 bytes around the RSDP) and one seed per distinct table
      for the per-table targets; bootinfo/qemu-* from keel's report of
      the same boot (RAM, reservations, CPUs, distances as adder calls).
mb1   the multiboot1 information from QEMU -kernel (address from keel's
      "info at" line): info block, memory map, command line, loader name,
      relocated into one image (tests/fuzz/multiboot_fuzz.c).
mb2   the multiboot2 information block from GRUB ISO boots under SeaBIOS
      and OVMF (build/seeds/keel-halt.iso, after=halt): total_size bytes.
dtb   arm64 QEMU virt DTBs (-M virt,dumpdtb=FILE) for several -smp/-numa
      configurations, virtualization=on and gic-version=3.
text  cmdline seeds from docs/cmdline.md, fwdesc seeds from
      tests/data/*.fw.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

from keel import boot

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(TOP, "tests", "fuzz", "corpus")
KEEL_ELF = os.path.join(TOP, "build", "x86_64", "keel.elf")
SEED_DIR = os.path.join(TOP, "build", "seeds")
HALT_ISO = os.path.join(SEED_DIR, "keel-halt.iso")
CMDLINE = "after=halt bootscrub=off"


def log(msg):
    print(f"capture: {msg}", file=sys.stderr, flush=True)


def write_seed(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    log(f"  {target}/{name} ({len(data)} bytes)")


class Qemu:
    """One QEMU via scripts/qemu.sh (keel.boot.Live) with a QMP socket."""

    def __init__(self, qemu_args, timeout=90):
        self.tmp = tempfile.mkdtemp(prefix="keel-seeds-")
        self.sock_path = os.path.join(self.tmp, "qmp.sock")
        qmp = ["-qmp", f"unix:{self.sock_path},server=on,wait=off"]
        own, extra = qemu_args, []
        if "--" in qemu_args:
            i = qemu_args.index("--")
            own, extra = qemu_args[:i], qemu_args[i + 1:]
        cmd = boot.x86_64_cmd(own, timeout=timeout, extra=extra + qmp)
        log("$ " + " ".join(cmd))
        self.live = boot.Live(cmd, timeout)
        self.qmp = None
        self.buf = b""

    def wait_for(self, pattern, secs):
        return self.live.wait_for(pattern, secs)

    def serial(self):
        return self.live.log

    def _cmd(self, execute, **arguments):
        msg = {"execute": execute}
        if arguments:
            msg["arguments"] = arguments
        self.qmp.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            while b"\n" not in self.buf:
                chunk = self.qmp.recv(65536)
                if not chunk:
                    raise RuntimeError("QMP closed")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            reply = json.loads(line)
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise RuntimeError(f"QMP {execute}: {reply['error']}")

    def connect(self):
        for _ in range(50):
            if os.path.exists(self.sock_path):
                break
            time.sleep(0.1)
        self.qmp = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.qmp.connect(self.sock_path)
        self.qmp.settimeout(30)
        while b"\n" not in self.buf:
            self.buf += self.qmp.recv(65536)
        self.buf = self.buf.split(b"\n", 1)[1]
        self._cmd("qmp_capabilities")
        self._cmd("stop")

    def read(self, addr, size):
        """Guest physical memory through QMP pmemsave."""
        path = os.path.join(self.tmp, "mem.bin")
        self._cmd("pmemsave", val=addr, size=size, filename=path)
        with open(path, "rb") as f:
            data = f.read()
        if len(data) != size:
            raise RuntimeError(f"pmemsave {addr:#x}+{size} gave {len(data)}")
        return data

    def close(self):
        try:
            if self.qmp:
                self._cmd("quit")
        except (OSError, RuntimeError):
            pass
        self.live.stop(10)
        shutil.rmtree(self.tmp, ignore_errors=True)


def boot_to_verdict(qemu_args, timeout=90):
    """Boot, wait for the verdict, stop the guest. Returns the Qemu."""
    q = Qemu(qemu_args, timeout)
    if not q.wait_for(r"KEEL: (PASS|FAIL)", timeout - 10):
        log("no KEEL: PASS/FAIL line; serial tail:\n" + q.serial()[-2000:])
        q.close()
        raise RuntimeError("boot did not finish")
    if "KEEL: FAIL" in q.serial():
        log("warning: keel reported FAIL (the firmware data is still real)")
    q.connect()
    return q


# ---------------------------------------------------------------- ACPI


def checksum_fix(t, off=9):
    t[off] = 0
    t[off] = (-sum(t)) & 0xFF


def find_rsdp(q):
    m = re.search(r"ACPI RSDP at (0x[0-9a-f]+)", q.serial())
    if m:
        return int(m.group(1), 16)
    bios = q.read(0xE0000, 0x20000)
    for off in range(0, len(bios) - 20, 16):
        cand = bios[off:off + 20]
        if cand[:8] == b"RSD PTR " and not sum(cand) & 0xFF:
            return 0xE0000 + off
    raise RuntimeError("no RSDP in 0xE0000-0xFFFFF")


def read_table(q, addr):
    hdr = q.read(addr, 36)
    length = struct.unpack_from("<I", hdr, 4)[0]
    if hdr[:4] == b"FACS":
        length = max(length, 64)
    if not 36 <= length <= 256 * 1024:
        raise RuntimeError(f"table {hdr[:4]!r} at {addr:#x}: length {length}")
    return q.read(addr, length)


def capture_acpi_tables(q):
    """Returns (rsdp bytes, rsdp window, [(sig, bytes)], dsdt, facs)."""
    rsdp_pa = find_rsdp(q)
    rsdp = q.read(rsdp_pa, 36)
    rev = rsdp[15]
    rsdp = rsdp[:36] if rev >= 2 else rsdp[:20]
    lo = max(0xE0000, (rsdp_pa - 0x100) & ~15)
    window = q.read(lo, min(0x200, 0x100000 - lo))
    xsdt_pa = struct.unpack_from("<Q", rsdp, 24)[0] if rev >= 2 else 0
    if xsdt_pa:
        root, esz = read_table(q, xsdt_pa), 8
    else:
        root, esz = read_table(q, struct.unpack_from("<I", rsdp, 16)[0]), 4
    tables = []
    for off in range(36, len(root) - esz + 1, esz):
        pa = int.from_bytes(root[off:off + esz], "little")
        tables.append(read_table(q, pa))
    dsdt = facs = None
    for t in tables:
        if t[:4] == b"FACP":
            d = struct.unpack_from("<I", t, 40)[0]
            f = struct.unpack_from("<I", t, 36)[0]
            if len(t) >= 148 and struct.unpack_from("<Q", t, 140)[0]:
                d = struct.unpack_from("<Q", t, 140)[0]
            if len(t) >= 140 and struct.unpack_from("<Q", t, 132)[0]:
                f = struct.unpack_from("<Q", t, 132)[0]
            dsdt = read_table(q, d) if d else None
            facs = read_table(q, f) if f else None
    return rsdp, window, root, tables, dsdt, facs


def acpi_tree_image(rsdp, root, tables, dsdt, facs):
    """Relocate the captured tables into one image: bytes 0-7 = RSDP
    address, RSDP at 0x10, root table, FACS, DSDT, the tables; every
    pointer and checksum rewritten (the FADT's 64-bit X_ pointers cleared,
    the 32-bit ones used), the contents otherwise untouched."""
    img = bytearray(0x10)
    struct.pack_into("<Q", img, 0, 0x10)

    def place(data):
        nonlocal img
        at = (len(img) + 15) & ~15
        img += bytes(at - len(img)) + data
        return at

    rsdp = bytearray(rsdp)
    place(bytes(len(rsdp)))
    esz = 8 if root[:4] == b"XSDT" else 4
    root = bytearray(root)
    root_at = place(bytes(root))
    facs_at = place(facs) if facs else 0
    dsdt_at = place(dsdt) if dsdt else 0
    for i, t in enumerate(tables):
        t = bytearray(t)
        if t[:4] == b"FACP":
            struct.pack_into("<I", t, 36, facs_at)
            struct.pack_into("<I", t, 40, dsdt_at)
            if len(t) >= 140:
                struct.pack_into("<Q", t, 132, 0)
            if len(t) >= 148:
                struct.pack_into("<Q", t, 140, 0)
            checksum_fix(t)
        at = place(bytes(t))
        root[36 + i * esz:36 + (i + 1) * esz] = at.to_bytes(esz, "little")
    checksum_fix(root)
    img[root_at:root_at + len(root)] = root
    if esz == 8:
        struct.pack_into("<Q", rsdp, 24, root_at)
        struct.pack_into("<I", rsdp, 16, 0)
    else:
        struct.pack_into("<I", rsdp, 16, root_at)
    rsdp[8] = 0
    rsdp[8] = (-sum(rsdp[:20])) & 0xFF
    if len(rsdp) >= 36:
        rsdp[32] = 0
        rsdp[32] = (-sum(rsdp)) & 0xFF
    img[0x10:0x10 + len(rsdp)] = rsdp
    return bytes(img)


# name -> scripts/qemu.sh options (all multiboot1 -kernel boots)
ACPI_CONFIGS = {
    "pc-1cpu": ["--machine", "pc", "--smp", "1", "--mem", "256M"],
    "pc-2node": ["--machine", "pc", "--smp", "2", "--numa", "2x128M"],
    "pc-2node-nodist": ["--machine", "pc", "--smp", "2", "--numa",
                        "2x128M", "--no-dist"],
    # 2 sockets x 2 cores possible, 2 present: hot-plug slots in the MADT
    # and SRAT (QEMU merges the second -smp into qemu.sh's).
    "pc-2node-hotplug": ["--machine", "pc", "--smp", "2", "--numa",
                         "2x128M", "--", "-smp",
                         "2,sockets=2,cores=2,threads=1,maxcpus=4"],
    "q35-1node": ["--machine", "q35", "--smp", "2", "--mem", "256M"],
    "q35-3node": ["--machine", "q35", "--smp", "3", "--numa", "3x128M"],
    "q35-3node-nodist": ["--machine", "q35", "--smp", "3", "--numa",
                         "3x128M", "--no-dist"],
    "q35-maxcpus": ["--machine", "q35", "--mem", "256M", "--smp", "2",
                    "--", "-smp", "2,maxcpus=4"],
}

# table signature -> per-table fuzz target
TABLE_TARGET = {b"APIC": "acpi_madt", b"SRAT": "acpi_srat",
                b"SLIT": "acpi_slit", b"FACP": "acpi_fadt",
                b"DSDT": "acpi_fadt", b"HPET": "acpi_hpet",
                b"SPCR": "acpi_spcr"}


def split_qemu_args(opts):
    """Move a `-- extra` tail after our own extra args."""
    if "--" in opts:
        i = opts.index("--")
        return opts[:i], opts[i + 1:]
    return opts, []


def bootinfo_program(report):
    """keel's report of a real boot (RAM ranges with nodes, reservations,
    CPUs, distances) as the adder-call program tests/fuzz/bootinfo_fuzz.c
    reads: op byte, then big-endian operands (address kind 3 = 8 bytes)."""
    prog = bytearray()

    def addr(v):
        return bytes([3]) + v.to_bytes(8, "big")

    for s, e, node in report["memmap"]["ranges"]:
        # add_ram: op % 6 in {0, 1}, node = (op >> 3) % 6, bit 7 clear
        op = next(o for o in range(8 * node, 8 * node + 8) if o % 6 < 2)
        prog += bytes([op]) + addr(s) + addr(e - s)
    for s, e, _name in report["memmap"]["reserved"]:
        prog += bytes([2]) + addr(s) + addr(e - s)
    for c in report["cpus"]:
        # add_cpu: op % 6 == 3; 0x40 usable, 0x20 boot CPU
        op = next(o for o in range(0x40, 0x80) if o % 6 == 3 and
                  bool(o & 0x20) == (c["id"] == 0))
        prog += bytes([op, c["hwid"] & 0xFF, c["node"]])
    for n in report["nodes"]:
        for m, d in enumerate(n["distance"]):
            if m != n["id"]:
                prog += bytes([4, n["id"], m, d])
    return bytes(prog)


def capture_acpi():
    seen = set()
    for name, opts in ACPI_CONFIGS.items():
        own, extra = split_qemu_args(opts)
        q = boot_to_verdict(own + ["--kernel", KEEL_ELF, "--append",
                                   CMDLINE, "--"] + extra)
        try:
            m = re.search(r"MADT [^\n]*", q.serial())
            log("  keel: " + (m.group(0) if m else "no MADT line"))
            rsdp, window, root, tables, dsdt, facs = capture_acpi_tables(q)
        finally:
            q.close()
        rep = q.live.report()
        if rep:
            write_seed("bootinfo", f"qemu-{name}", bootinfo_program(rep))
        write_seed("acpi_tree", f"qemu-{name}",
                   acpi_tree_image(rsdp, root, tables, dsdt, facs))
        write_seed("acpi_rsdp", f"qemu-{name}", window)
        for t in tables + ([dsdt] if dsdt else []):
            target = TABLE_TARGET.get(bytes(t[:4]))
            h = hashlib.sha1(t).hexdigest()
            if not target or h in seen:
                continue
            seen.add(h)
            sig = t[:4].decode().lower().replace("apic", "madt")
            write_seed(target, f"qemu-{name}-{sig}.aml", t)


# ------------------------------------------------------------ multiboot


def entry_info(q):
    m = re.search(r"entry, magic (0x[0-9a-f]+), info at (0x[0-9a-f]+)",
                  q.serial())
    if not m:
        raise RuntimeError("no 'info at' line on the serial console")
    return int(m.group(1), 16), int(m.group(2), 16)


def read_cstring(q, addr, limit=4096):
    data = b""
    while len(data) < limit:
        chunk = q.read(addr + len(data), 64)
        i = chunk.find(b"\0")
        if i >= 0:
            return data + chunk[:i + 1]
        data += chunk
    return data + b"\0"


def read_mb1_info(q):
    """The multiboot1 info keel was entered with, and what it points to:
    (info, mmap, cmdline, loader, mods, module strings)."""
    magic, info_pa = entry_info(q)
    assert magic == 0x2BADB002, hex(magic)
    info = bytearray(q.read(info_pa, 88))
    flags = struct.unpack_from("<I", info, 0)[0]
    mmap = cmdline = loader = b""
    if flags & (1 << 6):
        ln, addr = struct.unpack_from("<II", info, 44)
        mmap = q.read(addr, ln)
    if flags & (1 << 2):
        p = struct.unpack_from("<I", info, 16)[0]
        cmdline = read_cstring(q, p)
    if flags & (1 << 9):
        loader = read_cstring(q, struct.unpack_from("<I", info, 64)[0])
    mods, mod_strings = b"", []
    if flags & (1 << 3):
        count, addr = struct.unpack_from("<II", info, 20)
        mods = bytearray(q.read(addr, 16 * count)) if count else b""
        for i in range(count):
            p = struct.unpack_from("<I", mods, 16 * i + 8)[0]
            mod_strings.append(read_cstring(q, p) if p else b"")
    return info, mmap, cmdline, loader, mods, mod_strings


def relocate_mb1(info, mmap, cmdline, loader, mods, mod_strings):
    """Relocated: info pointer at 0, info at 0x10, then map, strings."""
    img = bytearray(0x10)
    struct.pack_into("<I", img, 0, 0x10)
    img += info
    def place(data):
        nonlocal img
        at = (len(img) + 7) & ~7
        img += bytes(at - len(img)) + data
        return at

    for data, ptr_off, len_off in ((mmap, 48, 44), (cmdline, 16, None),
                                   (loader, 64, None)):
        if not data:
            continue
        struct.pack_into("<I", img, 0x10 + ptr_off, place(data))
        if len_off is not None:
            struct.pack_into("<I", img, 0x10 + len_off, len(data))
    # modules: the list and its strings move, mod_start/mod_end (the
    # module contents, which the parser only reserves) stay real
    for i, string in enumerate(mod_strings):
        struct.pack_into("<I", mods, 16 * i + 8,
                         place(string) if string else 0)
    if mods:
        struct.pack_into("<I", img, 0x10 + 24, place(bytes(mods)))
    return bytes(img)


def capture_mb1():
    configs = {
        "qemu-pc-256M": ["--smp", "1", "--mem", "256M"],
        "qemu-q35-2node": ["--machine", "q35", "--smp", "2", "--numa",
                           "2x128M"],
        # two modules (QEMU -initrd "file args,file")
        "qemu-pc-modules": ["--smp", "1", "--mem", "128M", "--", "-initrd",
                            "tests/data/sandbox-1node.fw mod args,"
                            "tests/data/sandbox-2node.fw"],
    }
    for name, opts in configs.items():
        own, extra = split_qemu_args(opts)
        q = boot_to_verdict(own + ["--kernel", KEEL_ELF, "--append",
                                   CMDLINE + " loglevel=2", "--"] + extra)
        try:
            parts = read_mb1_info(q)
        finally:
            q.close()
        write_seed("multiboot", name, relocate_mb1(*parts))


def make_halt_iso():
    if os.path.exists(HALT_ISO) and \
            os.path.getmtime(HALT_ISO) >= os.path.getmtime(KEEL_ELF):
        return
    os.makedirs(SEED_DIR, exist_ok=True)
    subprocess.run([os.path.join(TOP, "scripts", "mkiso.sh"), KEEL_ELF,
                    HALT_ISO, CMDLINE], check=True)


def capture_mb2():
    make_halt_iso()
    configs = {
        "grub-bios-2node": ["--smp", "2", "--numa", "2x128M"],
        "grub-ovmf-q35": ["--uefi", "--machine", "q35", "--mem", "256M"],
    }
    for name, opts in configs.items():
        q = boot_to_verdict(opts + ["--iso", HALT_ISO], timeout=240)
        try:
            magic, info_pa = entry_info(q)
            assert magic == 0x36D76289, hex(magic)
            total = struct.unpack_from("<I", q.read(info_pa, 8))[0]
            block = q.read(info_pa, total)
        finally:
            q.close()
        write_seed("multiboot2", name, block)


# ------------------------------------------------------------------ DT

DTB_CONFIGS = {
    "virt-1cpu": ["--smp", "1", "--mem", "256M"],
    "virt-4cpu-2node": ["--smp", "4", "--mem", "512M", "--numa", "2"],
    "virt-3node-dist": ["--smp", "3", "--mem", "384M", "--numa", "3",
                        "--dist", "0-1=15,0-2=25,1-2=20"],
    "virt-memonly-node": ["--smp", "2", "--mem", "512M", "--numa",
                          "256M:0-1,256M:"],
    "virt-el2-gic3": ["--smp", "2", "--mem", "256M", "--el2", "--gic", "3"],
    "virt-gic3-2node": ["--smp", "2", "--mem", "256M", "--gic", "3",
                        "--numa", "2"],
}


def capture_dtb():
    os.makedirs(SEED_DIR, exist_ok=True)
    for name, opts in DTB_CONFIGS.items():
        raw = os.path.join(SEED_DIR, f"{name}.dtb")
        cmd = [os.path.join(TOP, "scripts", "qemu-arm64.sh"), "--timeout",
               "30", "--image", "/dev/null", "--dumpdtb", raw] + opts
        log("$ " + " ".join(cmd))
        subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL)
        # QEMU's blob has ~1 MiB of free space at the end; dtc writes the
        # same tree packed.
        packed = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dtb", raw],
                                check=True, capture_output=True).stdout
        write_seed("fdt", f"qemu-{name}.dtb", packed)


# ---------------------------------------------------------------- text


def capture_text():
    doc = open(os.path.join(TOP, "docs", "cmdline.md")).read()
    block = re.search(r"## Examples\n+```\n(.*?)```", doc, re.S).group(1)
    n = 0
    for line in block.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("keel:"):
            continue
        m = re.search(r'-append "(.*)"', line)
        if m:
            line = m.group(1)
        elif line.startswith("build/sandbox/keel "):
            line = line.split(None, 2)[2]
        n += 1
        write_seed("cmdline", f"doc-example-{n}", line.encode())
    # every row of the options table's example column
    for ex in re.findall(r"^\|[^|]*\|[^|]*\|[^|]*\| (.*) \|$", doc, re.M):
        words = " ".join(re.findall(r"`([^`]*)`", ex))
        if words:
            n += 1
            write_seed("cmdline", f"doc-example-{n}", words.encode())
    data = os.path.join(TOP, "tests", "data")
    for f in sorted(os.listdir(data)):
        if f.endswith(".fw"):
            with open(os.path.join(data, f), "rb") as fh:
                write_seed("fwdesc", f[:-3], fh.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="acpi,mb1,mb2,dtb,text")
    args = ap.parse_args()
    steps = {"acpi": capture_acpi, "mb1": capture_mb1, "mb2": capture_mb2,
             "dtb": capture_dtb, "text": capture_text}
    for s in args.only.split(","):
        if s not in steps:
            sys.exit(f"capture: unknown step {s}")
        if s in ("acpi", "mb1", "mb2") and not os.path.exists(KEEL_ELF):
            sys.exit(f"capture: {KEEL_ELF} missing: make ARCH=x86_64")
        log(f"step {s}")
        steps[s]()


if __name__ == "__main__":
    main()
