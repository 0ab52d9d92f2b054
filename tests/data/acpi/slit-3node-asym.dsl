/* SPDX-License-Identifier: MIT */
/*
 * 3 nodes, asymmetric (for srat-3node: node 2 has memory, no CPUs).
 * distance[1][2] = 15 < distance[0][2] = 40: node 1's CPUs are nearest to
 * node 2's memory, although node 2's own row says the opposite
 * (distance[2][0] = 12, distance[2][1] = 255, unreachable).
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

[0008]                         Localities : 0000000000000003
[0003]                       Locality   0 : 0A 14 28
[0003]                       Locality   1 : 15 0A 0F
[0003]                       Locality   2 : 0C FF 0A
