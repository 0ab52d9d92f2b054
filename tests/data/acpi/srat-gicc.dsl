/* SPDX-License-Identifier: MIT */
/*
 * arm64: GICC UIDs 0,1 -> PXM 0; UIDs 2,3,4 -> PXM 1. Memory: PXM 0
 * [0x40000000, 0x80000000), PXM 1 [0x80000000, 0xC0000000).
 */
[0004]                          Signature : "SRAT"
[0004]                       Table Length : 00000000
[0001]                           Revision : 03
[0001]                           Checksum : 00
[0006]                             Oem ID : "KEEL  "
[0008]                       Oem Table ID : "KEELTEST"
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0004]                     Table Revision : 00000001
[0008]                           Reserved : 0000000000000000

[0001]                      Subtable Type : 03 [GICC Affinity]
[0001]                             Length : 12

[0004]                   Proximity Domain : 00000000
[0004]                 Acpi Processor UID : 00000000
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 03 [GICC Affinity]
[0001]                             Length : 12

[0004]                   Proximity Domain : 00000000
[0004]                 Acpi Processor UID : 00000001
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 03 [GICC Affinity]
[0001]                             Length : 12

[0004]                   Proximity Domain : 00000001
[0004]                 Acpi Processor UID : 00000002
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 03 [GICC Affinity]
[0001]                             Length : 12

[0004]                   Proximity Domain : 00000001
[0004]                 Acpi Processor UID : 00000003
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 03 [GICC Affinity]
[0001]                             Length : 12

[0004]                   Proximity Domain : 00000001
[0004]                 Acpi Processor UID : 00000004
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28

[0004]                   Proximity Domain : 00000000
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000040000000
[0008]                     Address Length : 0000000040000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
                            Hot Pluggable : 0
                             Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28

[0004]                   Proximity Domain : 00000001
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000080000000
[0008]                     Address Length : 0000000040000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
                            Hot Pluggable : 0
                             Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

