/* SPDX-License-Identifier: MIT */
/*
 * 2 nodes, remote distance 21.
 */
[0004]                          Signature : "SLIT"
[0004]                       Table Length : 00000000
[0001]                           Revision : 01
[0001]                           Checksum : 00
[0006]                             Oem ID : "KEEL  "
[0008]                       Oem Table ID : "KEELTEST"
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0008]                         Localities : 0000000000000002
[0002]                       Locality   0 : 0A 15
[0002]                       Locality   1 : 15 0A
