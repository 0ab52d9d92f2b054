/* SPDX-License-Identifier: MIT */
/* DSDT without \_S5: the parser warns and falls back to SLP_TYP 0. */
DefinitionBlock ("", "DSDT", 2, "KEEL  ", "KEELTEST", 1)
{
    Name (_S4, Package (0x04) { 0x06, 0x06, Zero, Zero })
}
