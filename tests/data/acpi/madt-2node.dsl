/* SPDX-License-Identifier: MIT */
/*
 * x86 MADT, 2 nodes: local APIC IDs 0-3 enabled (ACPI ids 0-3), APIC ID 4
 * disabled but online-capable (hot-plug slot), APIC ID 5 disabled with flags 0
 * (QEMU's maxcpus slots); an I/O APIC and a 6-byte NMI entry to skip.
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

[0004]                 Local Apic Address : FEE00000
[0004]              Flags (decoded below) : 00000001
                      PC-AT Compatibility : 1

[0001]                      Subtable Type : 00 [Processor Local APIC]
[0001]                             Length : 08
[0001]                       Processor ID : 00
[0001]                      Local Apic ID : 00
[0004]              Flags (decoded below) : 00000001
                        Processor Enabled : 1
                   Runtime Online Capable : 0

[0001]                      Subtable Type : 00 [Processor Local APIC]
[0001]                             Length : 08
[0001]                       Processor ID : 01
[0001]                      Local Apic ID : 01
[0004]              Flags (decoded below) : 00000001
                        Processor Enabled : 1
                   Runtime Online Capable : 0

[0001]                      Subtable Type : 00 [Processor Local APIC]
[0001]                             Length : 08
[0001]                       Processor ID : 02
[0001]                      Local Apic ID : 02
[0004]              Flags (decoded below) : 00000001
                        Processor Enabled : 1
                   Runtime Online Capable : 0

[0001]                      Subtable Type : 00 [Processor Local APIC]
[0001]                             Length : 08
[0001]                       Processor ID : 03
[0001]                      Local Apic ID : 03
[0004]              Flags (decoded below) : 00000001
                        Processor Enabled : 1
                   Runtime Online Capable : 0

[0001]                      Subtable Type : 00 [Processor Local APIC]
[0001]                             Length : 08
[0001]                       Processor ID : 04
[0001]                      Local Apic ID : 04
[0004]              Flags (decoded below) : 00000002
                        Processor Enabled : 0
                   Runtime Online Capable : 1

[0001]                      Subtable Type : 00 [Processor Local APIC]
[0001]                             Length : 08
[0001]                       Processor ID : 05
[0001]                      Local Apic ID : 05
[0004]              Flags (decoded below) : 00000000
                        Processor Enabled : 0
                   Runtime Online Capable : 0

[0001]                      Subtable Type : 01 [I/O APIC]
[0001]                             Length : 0C
[0001]                        I/O Apic ID : 00
[0001]                           Reserved : 00
[0004]                            Address : FEC00000
[0004]                          Interrupt : 00000000

[0001]                      Subtable Type : 04 [Local APIC NMI]
[0001]                             Length : 06
[0001]                       Processor ID : FF
[0002]              Flags (decoded below) : 0005
                                 Polarity : 1
                             Trigger Mode : 1
[0001]               Interrupt Input LINT : 01

