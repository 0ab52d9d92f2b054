/* SPDX-License-Identifier: MIT */
/*
 * DSDT with \_S5 = { 5, 5, 0, 0 } (real chipsets use 5 or 7; QEMU uses
 * Zero). A method named _S5X and a string "_S5_" come first: the scanner
 * must only accept Name(_S5_, Package).
 */
DefinitionBlock ("", "DSDT", 2, "KEEL  ", "KEELTEST", 1)
{
    Name (STR0, "_S5_")
    Method (_S5X, 0) { Return (0) }
    Scope (\_SB) {
        Device (PCI0) {
            Name (_HID, EisaId ("PNP0A03"))
        }
    }
    Name (\_S5, Package (0x04) { 0x05, 0x05, Zero, Zero })
}
