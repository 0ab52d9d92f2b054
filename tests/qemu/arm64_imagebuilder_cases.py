# SPDX-License-Identifier: MIT
"""keel booted the way Xen's ImageBuilder (scripts/uboot-script-gen, what
dom0less users run to write their U-Boot script) lays out its files
(issue 36 §5): U-Boot (booti) with keel's Image, one boot module and the
DTB at the addresses ImageBuilder computes from the real file sizes, the
command line in /chosen/xen,xen-bootargs and the module as a /chosen node,
written by U-Boot's `fdt` commands as ImageBuilder's script writes them.

ImageBuilder's rule (read in its script): the script itself at RAM start +
2 MiB (at least 12 MiB), then each file at the previous address rounded up
to 2 MiB past it: the kernel (keel) 2 MiB after the script, then the dom0
kernel (our module), then the DTB. So the Image header's image_size must
stay within keel's file size rounded up to 2 MiB (arch/arm64/keel.lds
asserts image_size <= 2 MiB); with the image_size of the images before
(0x615000) the module and the DTB fall inside keel and U-Boot refuses to
boot. QEMU's generic loader places the files where U-Boot's load commands
would have."""

import os
import struct
import subprocess

from scripts.keel import boot

from .arm64_machine import TIMEOUT, case

M = 1 << 20
RAM_START = 0x40000000  # QEMU virt
STEP = 2 * M  # ImageBuilder's offset
# image_size of this tree's Image before issue 36 §5 was fixed (nm:
# _kernel_size): the case must not pass with it.
OLD_IMAGE_SIZE = 0x615000
XEN_CMD = "after=poweroff audit=full"
ARGS = ["--uboot", "--smp", "2", "--mem", "256M"]
MODULE_BYTES = 300 * 1024 + 123  # not a page multiple, as a real file

# The addresses of the last setup, for the checks (one case at a time).
_layout = {}


def _next(addr, size):
    """ImageBuilder's next load address after a file of @size at @addr."""
    return (addr + size + STEP - 1) & ~(STEP - 1)


def layout(image_size_file, module_size):
    """(keel, module, dtb) load addresses for these file sizes."""
    script = max(RAM_START + STEP, 12 * M)
    keel = script + STEP
    module = _next(keel, image_size_file)
    return keel, module, _next(module, module_size)


def _header_image_size(path):
    """The arm64 Image header's image_size (offset 16, little endian)."""
    with open(path, "rb") as f:
        head = f.read(64)
    if head[56:60] != b"ARM\x64":
        raise RuntimeError(f"{path}: no arm64 Image header")
    return struct.unpack_from("<Q", head, 16)[0]


def _setup(work, qemu_args, image):
    dtb = os.path.join(work, "virt.dtb")
    subprocess.run([boot.QEMU_ARM64_SH, *qemu_args, "--dumpdtb", dtb,
                    "--timeout", str(TIMEOUT),
                    "--log", os.path.join(work, "dump.log")], check=False)
    module = os.path.join(work, "dom0.bin")
    with open(module, "wb") as f:
        f.write(bytes((i * 7 + 3) & 0xFF for i in range(MODULE_BYTES)))
    keel, mod, fdt = layout(os.path.getsize(image), MODULE_BYTES)
    _layout.update(keel=keel, module=mod, dtb=fdt,
                   image_size=_header_image_size(image),
                   dtb_size=os.path.getsize(dtb))
    # ImageBuilder's /chosen edits, by U-Boot's fdt (its sourced script
    # writes \#address-cells; in an environment's bootcmd, quotes do it).
    cmds = [
        f"fdt addr {fdt:#x}",
        "fdt resize 1024",
        'fdt set /chosen "#address-cells" <0x2>',
        'fdt set /chosen "#size-cells" <0x2>',
        f'fdt set /chosen xen,xen-bootargs "{XEN_CMD}"',
        "fdt mknod /chosen dom0",
        'fdt set /chosen/dom0 compatible "xen,linux-zimage" '
        '"xen,multiboot-module"',
        f"fdt set /chosen/dom0 reg <0x0 {mod:#x} 0x0 {MODULE_BYTES:#x}>",
        f"booti {keel:#x} - {fdt:#x}",
        # booti returns only when U-Boot refuses ("FDT image overlaps OS
        # image"): end the run there rather than at the timeout.
        "poweroff",
    ]
    loads = [(keel, image), (mod, module), (fdt, dtb)]
    qemu = [a for addr, path in loads
            for a in ("-device",
                      f"loader,file={path},addr={addr:#x},force-raw=on")]
    return ["--uboot-bootcmd", "; ".join(cmds)], qemu


def _laid_out(rep, log):
    """The layout is ImageBuilder's and fits this image; with the old
    image_size it would not have (so the case can fail)."""
    out = []
    k, m, d = _layout["keel"], _layout["module"], _layout["dtb"]
    if m < k + _layout["image_size"] or d < k + _layout["image_size"]:
        out.append(f"image_size {_layout['image_size']:#x}: the module at "
                   f"{m:#x} or the DTB at {d:#x} is inside keel at {k:#x}")
    if d >= k + OLD_IMAGE_SIZE:
        out.append(f"the DTB at {d:#x} would clear the old image_size too: "
                   "this case does not test it")
    res = rep.get("memmap", {}).get("reserved", [])
    got = [r for r in res if len(r) >= 3 and r[2] == "module:kernel"]
    if not got or got[0][0] > m or got[0][1] < m + MODULE_BYTES:
        out.append(f"module [{m:#x}, {m + MODULE_BYTES:#x}) not reserved "
                   f"as module:kernel (have {got})")
    if rep.get("cmdline") != XEN_CMD:
        out.append(f"cmdline {rep.get('cmdline')!r}, expected {XEN_CMD!r} "
                   "(xen,xen-bootargs)")
    return out


_ib = case("uboot-imagebuilder", ARGS, {"cpus": 2, "online": 2},
           loader="u-boot", checks=[_laid_out])
_ib["setup_image"] = _setup
CASES = [_ib]
