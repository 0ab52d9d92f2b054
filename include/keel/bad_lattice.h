/* SPDX-License-Identifier: MIT */
/*
 * Owner: mm.
 * The pages of bootmem's lattices (badram= patterns too dense for a
 * table, struct bootinfo's @lattice) taken out of service by the heap
 * (common/mm/bad_lattice.c).
 */
#ifndef KEEL_BAD_LATTICE_H
#define KEEL_BAD_LATTICE_H

#include <keel/types.h>

/*
 * bad_lattice_take(): every page of bootmem's lattices that the heap
 * holds goes out of service (heap_offline(): broken, the operator's):
 * right after each step of the handoff, before anything is allocated
 * from what it handed over. @again: a later step's (a live update's
 * heap_handoff_rest(), after the restore): the pages the heap already
 * has out are skipped, a look each; the first step's has none out. A
 * page the heap does not hold (keel's image, a reservation, RAM a later
 * step hands over) is left where it is: a reservation's are counted bad
 * by the report (badmem_report_count()). O(lattice pages in the heap x
 * MAX_FREE_ORDER). The boot CPU, the heap quiescent.
 * Return: the pages taken out.
 */
uint64_t bad_lattice_take(bool again);

#endif
