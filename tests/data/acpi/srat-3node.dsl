/* SPDX-License-Identifier: MIT */
/*
 * 3 nodes, node 2 memory-only: x2APIC 0,1 -> PXM 0; 0x100-0x102 -> PXM 1.
 * Memory: PXM 0 [0, 0x40000000), PXM 1 [0x40000000, 0x80000000), PXM 2
 * [0x100000000, 0x180000000). A disabled x2APIC entry with PXM 7 (ignored).
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

[0001]                      Subtable Type : 02 [Processor Local x2APIC Affinity]
[0001]                             Length : 18

[0002]                          Reserved1 : 0000
[0004]                   Proximity Domain : 00000000
[0004]                            Apic ID : 00000000
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000
[0004]                          Reserved2 : 00000000

[0001]                      Subtable Type : 02 [Processor Local x2APIC Affinity]
[0001]                             Length : 18

[0002]                          Reserved1 : 0000
[0004]                   Proximity Domain : 00000000
[0004]                            Apic ID : 00000001
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000
[0004]                          Reserved2 : 00000000

[0001]                      Subtable Type : 02 [Processor Local x2APIC Affinity]
[0001]                             Length : 18

[0002]                          Reserved1 : 0000
[0004]                   Proximity Domain : 00000001
[0004]                            Apic ID : 00000100
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000
[0004]                          Reserved2 : 00000000

[0001]                      Subtable Type : 02 [Processor Local x2APIC Affinity]
[0001]                             Length : 18

[0002]                          Reserved1 : 0000
[0004]                   Proximity Domain : 00000001
[0004]                            Apic ID : 00000101
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000
[0004]                          Reserved2 : 00000000

[0001]                      Subtable Type : 02 [Processor Local x2APIC Affinity]
[0001]                             Length : 18

[0002]                          Reserved1 : 0000
[0004]                   Proximity Domain : 00000001
[0004]                            Apic ID : 00000102
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0004]                       Clock Domain : 00000000
[0004]                          Reserved2 : 00000000

[0001]                      Subtable Type : 02 [Processor Local x2APIC Affinity]
[0001]                             Length : 18

[0002]                          Reserved1 : 0000
[0004]                   Proximity Domain : 00000007
[0004]                            Apic ID : 00000103
[0004]              Flags (decoded below) : 00000000
                                  Enabled : 0
[0004]                       Clock Domain : 00000000
[0004]                          Reserved2 : 00000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28

[0004]                   Proximity Domain : 00000000
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000000000000
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

[0004]                   Proximity Domain : 00000002
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000100000000
[0008]                     Address Length : 0000000080000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
                            Hot Pluggable : 0
                             Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

