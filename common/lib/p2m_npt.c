/* SPDX-License-Identifier: MIT */
/*
 * AMD nested page tables (NPT, "nested paging" of SVM), 4-level, as pure
 * functions (include/keel/p2m_format.h). What an x86 hypervisor writes on
 * AMD EPYC servers, where EPT does not exist.
 *
 * Reference: AMD64 Architecture Programmer's Manual Vol. 2 (24593, rev.
 * 3.40): 15.25 "Nested Paging" (the nested table has the format of a
 * long-mode page table; nested walks are user-level accesses, so every
 * level needs U/S = 1; N_CR3 in the VMCB at 0B0h), 5.3.3 "4-Kbyte Page
 * Translation" and 5.3.4 "2-Mbyte Page Translation" with the figures of
 * the PML4E, PDPE, PDE and PTE formats, 5.3.5 "1-Gbyte Page Translation"
 * (PDPE.PS = 1), 5.4.1 "Field Definitions" (PS is reserved, must be zero,
 * in a PML4E; bit 12 of a 2 MiB or 1 GiB leaf is PAT and bits 20:13 /
 * 29:13 are reserved, must be zero), 7.8 "Memory-Type Attributes" (PAT =
 * PCD = PWT = 0 selects PAT entry 0, write-back after reset).
 *
 *   bit 0   P        present
 *   bit 1   R/W      writable (the read-only leaf clears it)
 *   bit 2   U/S      user: set at every level (nested walks are user)
 *   bits 4:3 PCD PWT 0: write-back through PAT entry 0
 *   bit 5   A        set here, so the walker never writes keel's tables
 *   bit 6   D        leaves: set here for the same reason
 *   bit 7   PS       1 in a PDPE (1 GiB) or PDE (2 MiB) leaf; MBZ in a
 *                    PML4E; PAT in a PTE
 *   bits 51:12       the next table, or the page (51:30, 51:21 for 1 GiB,
 *                    2 MiB)
 *   bit 63  NX       0: executable
 * so a table entry is addr | 0x27, a 4 KiB page addr | 0x67 and a 2 MiB
 * or 1 GiB page addr | 0xe7.
 */
#include <keel/p2m_format.h>

#define NPT_P	      (1ULL << 0)
#define NPT_RW	      (1ULL << 1)
#define NPT_US	      (1ULL << 2)
#define NPT_A	      (1ULL << 5)
#define NPT_D	      (1ULL << 6)
#define NPT_PS	      (1ULL << 7)
#define NPT_TABLE     (NPT_P | NPT_RW | NPT_US | NPT_A)
#define NPT_LEAF      (NPT_TABLE | NPT_D)
#define NPT_ADDR_MASK 0x000ffffffffff000ULL /* bits 51:12 */

/**
 * npt_geometry() - always 4 levels, one root page (the PML4 table).
 * @ipa_bits: 32..48 (only limits the addresses the builder accepts)
 * @start_level: 0
 * @root_order: 0
 */
void npt_geometry(unsigned int ipa_bits, unsigned int *start_level,
		  unsigned int *root_order)
{
	*start_level = 0;
	*root_order = 0;
}

/**
 * npt_table() - an entry referencing the next table.
 * @next: its address (4 KiB aligned)
 *
 * Return: the entry: present, writable, user, accessed (the leaves decide).
 */
uint64_t npt_table(paddr_t next)
{
	return (pa_val(next) & NPT_ADDR_MASK) | NPT_TABLE;
}

/**
 * npt_leaf() - an entry mapping a 1 GiB (level 1), 2 MiB (2) or 4 KiB (3) page.
 * @out: the page's address, aligned to its size
 * @level: 1..3
 *
 * Return: the entry (write-back, accessed and dirty), or 0 (not present)
 * for a level without pages.
 */
uint64_t npt_leaf(paddr_t out, unsigned int level)
{
	uint64_t addr = pa_val(out) & NPT_ADDR_MASK &
			~((1ULL << p2m_level_shift(level)) - 1);

	if (level < 1 || level > P2M_LEAF_LEVEL)
		return 0;
	if (level == P2M_LEAF_LEVEL)
		return addr | NPT_LEAF;
	return addr | NPT_PS | NPT_LEAF;
}

/**
 * npt_decode() - what an entry is.
 * @pte: the entry
 * @level: 0..3
 * @out: the table or page address it holds (set for TABLE and LEAF)
 *
 * Return: its kind; BAD for an entry the walk faults on whatever the
 * access: U/S clear, PS in a PML4E, a large leaf with a reserved bit
 * (between bit 13 and its size) set.
 */
enum p2m_pte_kind npt_decode(uint64_t pte, unsigned int level, paddr_t *out)
{
	uint64_t size_mask;

	if (!(pte & NPT_P))
		return P2M_PTE_NONE;
	if (!(pte & NPT_US) || level > P2M_LEAF_LEVEL)
		return P2M_PTE_BAD;
	if (level == P2M_LEAF_LEVEL) {
		*out = pa(pte & NPT_ADDR_MASK);
		return P2M_PTE_LEAF;
	}
	if (!(pte & NPT_PS)) {
		*out = pa(pte & NPT_ADDR_MASK);
		return P2M_PTE_TABLE;
	}
	if (level == 0)
		return P2M_PTE_BAD;
	size_mask = (1ULL << p2m_level_shift(level)) - 1;
	/* Bit 12 is PAT; bits 13 up to the page's size are reserved. */
	if (pte & size_mask & NPT_ADDR_MASK & ~(1ULL << 12))
		return P2M_PTE_BAD;
	*out = pa(pte & NPT_ADDR_MASK & ~size_mask);
	return P2M_PTE_LEAF;
}

/**
 * npt_ncr3() - the VMCB's N_CR3 for a table.
 * @root: the PML4 table
 *
 * Return: its address (PWT = PCD = 0: the walk is write-back).
 */
uint64_t npt_ncr3(paddr_t root)
{
	return pa_val(root) & NPT_ADDR_MASK;
}

const struct p2m_format p2m_format_npt = {
	.name = "npt",
	.oa_bits = 52,
	.min_ipa_bits = 32,
	.max_ipa_bits = 48,
	.geometry = npt_geometry,
	.table = npt_table,
	.leaf = npt_leaf,
	.decode = npt_decode,
	.write_bits = NPT_RW,
};
