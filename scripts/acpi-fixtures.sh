#!/bin/sh
# SPDX-License-Identifier: MIT
# Compile the ACPI table fixtures tests/data/acpi/*.dsl with iasl (Debian
# acpica-tools) into OUT/*.aml (default build/sandbox-asan/tests/data/acpi).
# Only out-of-date tables are rebuilt; iasl's chatter goes to a log and is
# shown only when a compile fails.
#
#   scripts/acpi-fixtures.sh [OUT]      compile
#   scripts/acpi-fixtures.sh --seeds    compile, then (re)write the fuzz
#                                       seeds in tests/fuzz/corpus/acpi_*/
set -eu

SEEDS=0
if [ "${1:-}" = --seeds ]; then
	SEEDS=1
	shift
fi
SRC=tests/data/acpi
OUT=${1:-build/sandbox-asan/tests/data/acpi}

if ! command -v iasl >/dev/null 2>&1; then
	echo "acpi-fixtures: iasl not found (install acpica-tools)" >&2
	exit 1
fi
mkdir -p "$OUT"
for src in "$SRC"/*.dsl; do
	name=$(basename "$src" .dsl)
	aml="$OUT/$name.aml"
	[ "$aml" -nt "$src" ] && continue
	# iasl wants a .asl/.dsl name and writes <prefix>.aml
	if ! iasl -vs -p "$OUT/$name" "$src" >"$OUT/$name.log" 2>&1; then
		cat "$OUT/$name.log" >&2
		echo "acpi-fixtures: iasl failed on $src" >&2
		exit 1
	fi
	rm -f "$OUT/$name.log"
done

[ "$SEEDS" = 1 ] || exit 0

# Seeds: each table fixture for its table target, and whole small memory
# images (first 8 bytes: RSDP address; RSDP, XSDT, RSDT, tables, DSDT, all
# under 4 KiB) for acpi_tree.
C=tests/fuzz/corpus
for t in madt srat slit fadt hpet spcr; do mkdir -p "$C/acpi_$t"; done
mkdir -p "$C/acpi_tree" "$C/acpi_rsdp"
cp "$OUT"/madt-*.aml "$C/acpi_madt/"
cp "$OUT"/srat-*.aml "$C/acpi_srat/"
cp "$OUT"/slit-*.aml "$C/acpi_slit/"
cp "$OUT"/facp-*.aml "$OUT"/dsdt-*.aml "$C/acpi_fadt/"
cp "$OUT"/hpet.aml "$C/acpi_hpet/"
cp "$OUT"/spcr.aml "$C/acpi_spcr/"
/usr/bin/python3 - "$OUT" "$C" <<'PY'
import struct, sys
out, corpus = sys.argv[1], sys.argv[2]

def fix(t):
    t[9] = 0
    t[9] = (-sum(t)) & 0xff

def image(names, dsdt):
    img = bytearray(4096)
    tables, at = [], 0x200
    d_at = None
    if dsdt:
        d = open(f"{out}/{dsdt}.aml", "rb").read()
        d_at = 0x1000 - ((len(d) + 15) & ~15)
        img[d_at:d_at + len(d)] = d
    for n in names:
        t = bytearray(open(f"{out}/{n}.aml", "rb").read())
        if t[:4] == b"FACP" and d_at is not None:
            struct.pack_into("<I", t, 40, d_at)
            if len(t) >= 148:
                struct.pack_into("<Q", t, 140, d_at)
            fix(t)
        img[at:at + len(t)] = t
        tables.append(at)
        at = (at + len(t) + 15) & ~15
    assert d_at is None or at <= d_at, names
    x = bytearray(b"XSDT" + struct.pack("<I", 36 + 8 * len(tables)) +
                  bytes(28)) + b"".join(struct.pack("<Q", a) for a in tables)
    r = bytearray(b"RSDT" + struct.pack("<I", 36 + 4 * len(tables)) +
                  bytes(28)) + b"".join(struct.pack("<I", a) for a in tables)
    fix(x)
    fix(r)
    img[0x40:0x40 + len(x)] = x
    img[0x100:0x100 + len(r)] = r
    p = bytearray(b"RSD PTR " + bytes(1) + b"KEEL  " + bytes([2]) +
                  struct.pack("<IIQ", 0x100, 36, 0x40) + bytes(4))
    p[8] = (-sum(p[:20])) & 0xff
    p[32] = (-sum(p)) & 0xff
    img[0x10:0x10 + 36] = p
    struct.pack_into("<Q", img, 0, 0x10)
    return bytes(img[:max(at, d_at + 0x100 if d_at else at)])

seeds = {
    "x86-2node": (["madt-2node", "srat-2node", "slit-2node", "facp-x86",
                   "hpet"], "dsdt-qemu-s5"),
    "x2apic-3node": (["madt-x2apic", "srat-3node", "slit-3node"], None),
    "arm64": (["madt-gicc", "srat-gicc", "facp-arm", "spcr"],
              "dsdt-qemu-s5"),
}
for name, (tables, dsdt) in seeds.items():
    img = image(tables, dsdt)
    open(f"{corpus}/acpi_tree/{name}", "wb").write(img)
    # acpi_rsdp: the same RSDP at a 16-byte boundary of a BIOS-area image
    open(f"{corpus}/acpi_rsdp/{name}", "wb").write(bytes(0x30) +
                                                    img[0x10:0x10 + 36])
PY
