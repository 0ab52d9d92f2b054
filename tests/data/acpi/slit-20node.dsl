/* SPDX-License-Identifier: MIT */
/*
 * 20 localities for srat-20node, asymmetric: distance[i][j] = 20 +
 * 2 * |i - j|, plus 1 when i > j; the diagonal 10. The folded domains'
 * own rows say where they go (MAX_NUMNODES=16 keeps PXMs 0-15):
 *   PXM 16 -> node 3  (distance[16][3] = 11)
 *   PXM 17 -> node 9  (distance[17][9] = 12)
 *   PXM 18 -> node 0  (its row is all 255, unreachable: the lowest node)
 *   PXM 19 -> node 7  (distance[19][5] = distance[19][7] = 13, a tie
 *                      broken by the reverse: distance[7][19] = 14 <
 *                      distance[5][19] = 30)
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

[0008]                         Localities : 0000000000000014
[0020]                       Locality   0 : 0A 16 18 1A 1C 1E 20 22 24 26 28 2A 2C 2E 30 32 34 36 38 3A
[0020]                       Locality   1 : 17 0A 16 18 1A 1C 1E 20 22 24 26 28 2A 2C 2E 30 32 34 36 38
[0020]                       Locality   2 : 19 17 0A 16 18 1A 1C 1E 20 22 24 26 28 2A 2C 2E 30 32 34 36
[0020]                       Locality   3 : 1B 19 17 0A 16 18 1A 1C 1E 20 22 24 26 28 2A 2C 2E 30 32 34
[0020]                       Locality   4 : 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22 24 26 28 2A 2C 2E 30 32
[0020]                       Locality   5 : 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22 24 26 28 2A 2C 2E 1E
[0020]                       Locality   6 : 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22 24 26 28 2A 2C 2E
[0020]                       Locality   7 : 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22 24 26 28 2A 0E
[0020]                       Locality   8 : 25 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22 24 26 28 2A
[0020]                       Locality   9 : 27 25 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22 24 26 28
[0020]                       Locality  10 : 29 27 25 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22 24 26
[0020]                       Locality  11 : 2B 29 27 25 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22 24
[0020]                       Locality  12 : 2D 2B 29 27 25 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20 22
[0020]                       Locality  13 : 2F 2D 2B 29 27 25 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E 20
[0020]                       Locality  14 : 31 2F 2D 2B 29 27 25 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C 1E
[0020]                       Locality  15 : 33 31 2F 2D 2B 29 27 25 23 21 1F 1D 1B 19 17 0A 16 18 1A 1C
[0020]                       Locality  16 : 35 33 31 0B 2D 2B 29 27 25 23 21 1F 1D 1B 19 17 0A 16 18 1A
[0020]                       Locality  17 : 37 35 33 31 2F 2D 2B 29 27 0C 23 21 1F 1D 1B 19 17 0A 16 18
[0020]                       Locality  18 : FF FF FF FF FF FF FF FF FF FF FF FF FF FF FF FF FF FF 0A FF
[0020]                       Locality  19 : 3B 39 37 35 33 0D 2F 0D 2B 29 27 25 23 21 1F 1D 1B 19 17 0A
