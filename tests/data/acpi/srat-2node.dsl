/* SPDX-License-Identifier: MIT */
/*
 * 2 nodes like QEMU -numa: APIC 0,1 -> PXM 0; APIC 2,3,4,5 -> PXM 1.
 * Memory: PXM 0 [0, 0xA0000) and [0x100000, 0x20000000); PXM 1
 * [0x20000000, 0x40000000) and hot-pluggable [0x100000000, 0x140000000);
 * QEMU's disabled all-zero entry at the end.
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

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10

[0001]            Proximity Domain Low(8) : 00
[0001]                            Apic ID : 00
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10

[0001]            Proximity Domain Low(8) : 00
[0001]                            Apic ID : 01
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10

[0001]            Proximity Domain Low(8) : 01
[0001]                            Apic ID : 02
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10

[0001]            Proximity Domain Low(8) : 01
[0001]                            Apic ID : 03
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10

[0001]            Proximity Domain Low(8) : 01
[0001]                            Apic ID : 04
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 00 [Processor Local APIC/SAPIC Affinity]
[0001]                             Length : 10

[0001]            Proximity Domain Low(8) : 01
[0001]                            Apic ID : 05
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
[0001]                    Local Sapic EID : 00
[0003]          Proximity Domain High(24) : 000000
[0004]                       Clock Domain : 00000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28

[0004]                   Proximity Domain : 00000000
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000000000000
[0008]                     Address Length : 00000000000A0000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000001
                                  Enabled : 1
                            Hot Pluggable : 0
                             Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28

[0004]                   Proximity Domain : 00000000
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000000100000
[0008]                     Address Length : 000000001FF00000
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
[0008]                       Base Address : 0000000020000000
[0008]                     Address Length : 0000000020000000
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
[0008]                       Base Address : 0000000100000000
[0008]                     Address Length : 0000000040000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000003
                                  Enabled : 1
                            Hot Pluggable : 1
                             Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

[0001]                      Subtable Type : 01 [Memory Affinity]
[0001]                             Length : 28

[0004]                   Proximity Domain : 00000000
[0002]                          Reserved1 : 0000
[0008]                       Base Address : 0000000000000000
[0008]                     Address Length : 0000000000000000
[0004]                          Reserved2 : 00000000
[0004]              Flags (decoded below) : 00000000
                                  Enabled : 0
                            Hot Pluggable : 0
                             Non-Volatile : 0
[0008]                          Reserved3 : 0000000000000000

