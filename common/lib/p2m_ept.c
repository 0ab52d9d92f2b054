/* SPDX-License-Identifier: MIT */
/*
 * Intel EPT paging-structure entries, 4-level, as pure functions
 * (include/keel/p2m_format.h).
 *
 * Reference: Intel SDM Vol. 3C, "EPT Translation Mechanism" (section 28.2.2
 * in the 2016-2021 editions, 29.3.2 since) with its tables "Format of an
 * EPT PML4 Entry", "... PDPTE that Maps a 1-GByte Page", "... PDE that
 * Maps a 2-MByte Page", "... PTE that Maps a 4-KByte Page" and the ones
 * that reference the next table; "Extended-Page-Table Pointer (EPTP)"
 * (section 24.6.11, table 24-8; 25.6.11 in newer editions); "EPT and
 * Memory Typing".
 *
 *   bits 2:0  R, W, X           all set (an entry is present iff any is;
 *                               W without R is a misconfiguration)
 *   bits 5:3  memory type       leaves only: 6 = write-back; reserved (0)
 *                               in entries that reference a table
 *   bit 7     page size         1 in a PDPTE (1 GiB) or PDE (2 MiB) leaf;
 *                               reserved in a PML4E, ignored in a PTE
 *   bits 51:12 address          of the next table or of the page (a
 *                               1 GiB / 2 MiB page uses bits 51:30 / 51:21)
 * so a table entry is addr | 0x7, a 4 KiB page addr | 0x37 and a 2 MiB or
 * 1 GiB page addr | 0xb7. The "ignore PAT" bit 6 stays 0: the guest's PAT
 * combines with WB as on bare metal.
 *
 * 1 GiB pages need IA32_VMX_EPT_VPID_CAP bit 17; keel never enters VMX
 * operation, so it cannot read that MSR: an embedding hypervisor maps a
 * 1 GiB extent with 2 MiB pages when the bit is clear.
 */
#include <keel/p2m_format.h>

#define EPT_RWX	      (7ULL << 0)
#define EPT_R	      (1ULL << 0)
#define EPT_W	      (1ULL << 1)
#define EPT_MT_WB     (6ULL << 3)
#define EPT_PAGE_SIZE (1ULL << 7)
#define EPT_ADDR_MASK 0x000ffffffffff000ULL /* bits 51:12 */

/* EPTP fields. */
#define EPTP_MT_WB	6ULL
#define EPTP_WALK_LEN_4 (3ULL << 3) /* page-walk length minus 1 */

/**
 * ept_geometry() - always 4 levels, one root page (the PML4 table).
 * @ipa_bits: 32..48 (only limits the addresses the builder accepts)
 * @start_level: 0
 * @root_order: 0
 */
void ept_geometry(unsigned int ipa_bits, unsigned int *start_level,
		  unsigned int *root_order)
{
	*start_level = 0;
	*root_order = 0;
}

/**
 * ept_table() - an entry referencing the next table.
 * @next: its address (4 KiB aligned)
 *
 * Return: the entry, full access (the leaves decide).
 */
uint64_t ept_table(paddr_t next)
{
	return (pa_val(next) & EPT_ADDR_MASK) | EPT_RWX;
}

/**
 * ept_leaf() - an entry mapping a 1 GiB (level 1), 2 MiB (2) or 4 KiB (3) page.
 * @out: the page's address, aligned to its size
 * @level: 1..3
 *
 * Return: the entry, or 0 (not present) for a level without pages.
 */
uint64_t ept_leaf(paddr_t out, unsigned int level)
{
	uint64_t addr = pa_val(out) & EPT_ADDR_MASK &
			~((1ULL << p2m_level_shift(level)) - 1);

	if (level < 1 || level > P2M_LEAF_LEVEL)
		return 0;
	if (level == P2M_LEAF_LEVEL)
		return addr | EPT_MT_WB | EPT_RWX;
	return addr | EPT_PAGE_SIZE | EPT_MT_WB | EPT_RWX;
}

/**
 * ept_decode() - what an entry is.
 * @pte: the entry
 * @level: 0..3
 * @out: the table or page address it holds (set for TABLE and LEAF)
 *
 * Return: its kind; write without read, or bit 7 in a PML4E, is BAD.
 */
enum p2m_pte_kind ept_decode(uint64_t pte, unsigned int level, paddr_t *out)
{
	if (!(pte & EPT_RWX))
		return P2M_PTE_NONE;
	if ((pte & (EPT_R | EPT_W)) == EPT_W || level > P2M_LEAF_LEVEL)
		return P2M_PTE_BAD;
	if (level == P2M_LEAF_LEVEL) {
		*out = pa(pte & EPT_ADDR_MASK);
		return P2M_PTE_LEAF;
	}
	if (!(pte & EPT_PAGE_SIZE)) {
		*out = pa(pte & EPT_ADDR_MASK);
		return P2M_PTE_TABLE;
	}
	if (level == 0)
		return P2M_PTE_BAD;
	*out = pa(pte & EPT_ADDR_MASK &
		  ~((1ULL << p2m_level_shift(level)) - 1));
	return P2M_PTE_LEAF;
}

/**
 * ept_eptp() - the EPT pointer of a table.
 * @root: the PML4 table
 *
 * Return: root | page-walk length 4 | write-back (accessed/dirty off).
 */
uint64_t ept_eptp(paddr_t root)
{
	return (pa_val(root) & EPT_ADDR_MASK) | EPTP_WALK_LEN_4 | EPTP_MT_WB;
}

const struct p2m_format p2m_format_ept = {
	.name = "ept",
	.oa_bits = 52,
	.min_ipa_bits = 32,
	.max_ipa_bits = 48,
	.geometry = ept_geometry,
	.table = ept_table,
	.leaf = ept_leaf,
	.decode = ept_decode,
	.write_bits = EPT_W,
};
