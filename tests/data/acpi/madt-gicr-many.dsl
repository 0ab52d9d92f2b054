/* SPDX-License-Identifier: MIT */
/*
 * An arm64 MADT with one GICC, a GICD v3 and 18 GICR regions (1 MiB
 * apart, 0x20000 bytes each): more than ACPI_MAX_GICR (16).
 */
[0004]                          Signature : "APIC"
[0004]                       Table Length : 00000000
[0001]                           Revision : 05
[0001]                           Checksum : 00
[0006]                             Oem ID : "KEEL  "
[0008]                       Oem Table ID : "KEELTEST"
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0004]                 Local Apic Address : 00000000
[0004]              Flags (decoded below) : 00000000
                      PC-AT Compatibility : 0

[0001]                      Subtable Type : 0C [Generic Interrupt Distributor]
[0001]                             Length : 18
[0002]                           Reserved : 0000
[0004]              Local GIC Hardware ID : 00000000
[0008]                       Base Address : 0000000008000000
[0004]                     Interrupt Base : 00000000
[0001]                            Version : 03
[0003]                           Reserved : 000000

[0001]                      Subtable Type : 0B [Generic Interrupt Controller]
[0001]                             Length : 50
[0002]                           Reserved : 0000
[0004]               CPU Interface Number : 00000000
[0004]                      Processor UID : 00000000
[0004]              Flags (decoded below) : 00000001
                        Processor Enabled : 1
       Performance Interrupt Trigger Mode : 0
       Virtual GIC Interrupt Trigger Mode : 0
[0004]           Parking Protocol Version : 00000000
[0004]              Performance Interrupt : 00000017
[0008]                     Parked Address : 0000000000000000
[0008]                       Base Address : 0000000008010000
[0008]           Virtual GIC Base Address : 0000000000000000
[0008]        Hypervisor GIC Base Address : 0000000000000000
[0004]              Virtual GIC Interrupt : 00000000
[0008]         Redistributor Base Address : 0000000000000000
[0008]                          ARM MPIDR : 0000000000000000
[0001]                   Efficiency Class : 00
[0001]                           Reserved : 00
[0002]             SPE Overflow Interrupt : 0000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010000000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010100000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010200000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010300000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010400000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010500000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010600000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010700000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010800000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010900000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010A00000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010B00000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010C00000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010D00000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010E00000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000010F00000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000011000000
[0004]                             Length : 00020000

[0001]                      Subtable Type : 0E [Generic Interrupt Redistributor]
[0001]                             Length : 10
[0002]                           Reserved : 0000
[0008]                       Base Address : 0000000011100000
[0004]                             Length : 00020000

