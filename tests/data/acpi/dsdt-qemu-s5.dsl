/* SPDX-License-Identifier: MIT */
/* DSDT with QEMU's \_S5 encoding: Package (0x04) { Zero, Zero, Zero, Zero }. */
DefinitionBlock ("", "DSDT", 1, "KEEL  ", "KEELTEST", 1)
{
    Name (_S5, Package (0x04) { Zero, Zero, Zero, Zero })
}
