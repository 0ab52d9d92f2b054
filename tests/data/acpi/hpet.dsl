/* SPDX-License-Identifier: MIT */
/* HPET at 0xFED00000. */
[0004]                          Signature : "HPET"
[0004]                       Table Length : 00000000
[0001]                           Revision : 01
[0001]                           Checksum : 00
[0006]                             Oem ID : "KEEL  "
[0008]                       Oem Table ID : "KEELTEST"
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0004]                  Hardware Block ID : 8086A201
[0012]               Timer Block Register : [Generic Address Structure]
[0001]                           Space ID : 00 [SystemMemory]
[0001]                          Bit Width : 00
[0001]                         Bit Offset : 00
[0001]               Encoded Access Width : 00 [Undefined/Legacy]
[0008]                            Address : 00000000FED00000
[0001]                    Sequence Number : 00
[0002]                Minimum Clock Ticks : 0000
[0001]              Flags (decoded below) : 00
                          4K Page Protect : 0
                         64K Page Protect : 0
