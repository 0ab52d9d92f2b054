/* SPDX-License-Identifier: MIT */
/*
 * VMSAv8-64 stage-2 descriptors, 4 KiB granule, 48-bit output addresses
 * (no FEAT_LPA2), as pure functions (include/keel/p2m_format.h).
 *
 * References, Arm Architecture Reference Manual for A-profile (DDI 0487,
 * J.a): D8.3 "Translation table descriptor formats" (table, block and page
 * descriptors; a level-0 block and a level-3 "block" are reserved),
 * D8.5 "Memory region attributes" / "Stage 2 memory type and Cacheability
 * attributes when FEAT_S2FWB is disabled" (MemAttr[3:0]), D8.4 "Stage 2
 * data access permissions" (S2AP), D8.2 "Translation table walk" and
 * "Concatenated translation tables" (initial level, up to 16 root tables),
 * D17.2 "VTCR_EL2" and "VTTBR_EL2".
 *
 * Leaf attributes, the same for blocks and pages:
 *   MemAttr[5:2] = 0b1111  Normal, Outer and Inner Write-Back Cacheable
 *   S2AP[7:6]    = 0b11    read/write
 *   SH[9:8]      = 0b11    Inner Shareable
 *   AF[10]       = 1       no Access flag fault on first use
 *   XN[54:53]    = 0b00    executable at EL1 and EL0
 * so a block is OA | 0x7fd and a page OA | 0x7ff; a table is OA | 0x3.
 *
 * Geometry: the fewest levels, with up to 16 concatenated root tables, but
 * never starting below level 1 so that 1 GiB blocks always exist: IPA
 * widths 32..43 start at level 1 with 2^(ipa - 39) root pages (at least
 * one), 44..48 at level 0 with one. 40 bits (KVM's default) is level 1
 * with 2 pages.
 */
#include <keel/p2m_format.h>

#define S2_VALID      (1ULL << 0)
#define S2_TABLE      (1ULL << 1) /* table at levels 0-2, page at level 3 */
#define S2_MEMATTR_WB (0xfULL << 2)
#define S2_S2AP_RW    (3ULL << 6)
#define S2_SH_INNER   (3ULL << 8)
#define S2_AF	      (1ULL << 10)
#define S2_LEAF_ATTR  (S2_MEMATTR_WB | S2_S2AP_RW | S2_SH_INNER | S2_AF)
#define S2_OA_MASK    0x0000fffffffff000ULL /* OA[47:12] */

/* VTCR_EL2 fields. */
#define VTCR_T0SZ(x)	((uint64_t)(x) << 0)
#define VTCR_SL0(x)	((uint64_t)(x) << 6)
#define VTCR_IRGN0_WBWA (1ULL << 8)
#define VTCR_ORGN0_WBWA (1ULL << 10)
#define VTCR_SH0_INNER	(3ULL << 12)
#define VTCR_TG0_4K	(0ULL << 14)
#define VTCR_PS(x)	((uint64_t)(x) << 16)
#define VTCR_RES1	(1ULL << 31)

/**
 * vmsa_s2_geometry() - initial lookup level and root size.
 * @ipa_bits: 32..48
 * @start_level: 0 or 1
 * @root_order: concatenated root tables = 2^@root_order (0..4)
 */
void vmsa_s2_geometry(unsigned int ipa_bits, unsigned int *start_level,
		      unsigned int *root_order)
{
	if (ipa_bits > 43) {
		*start_level = 0;
		*root_order = 0;
	} else {
		*start_level = 1;
		*root_order = ipa_bits > 39 ? ipa_bits - 39 : 0;
	}
}

/**
 * vmsa_s2_table() - a table descriptor.
 * @next: the next level's table (4 KiB aligned)
 *
 * Return: the descriptor (stage 2 has no hierarchical attributes).
 */
uint64_t vmsa_s2_table(paddr_t next)
{
	return (pa_val(next) & S2_OA_MASK) | S2_TABLE | S2_VALID;
}

/**
 * vmsa_s2_leaf() - a block (levels 1, 2) or page (level 3) descriptor.
 * @out: output address, aligned to the level's size
 * @level: 1..3
 *
 * Return: the descriptor, 0 (invalid) for a level without leaves.
 */
uint64_t vmsa_s2_leaf(paddr_t out, unsigned int level)
{
	uint64_t oa = pa_val(out) & S2_OA_MASK &
		      ~((1ULL << p2m_level_shift(level)) - 1);

	if (level < 1 || level > P2M_LEAF_LEVEL)
		return 0;
	if (level == P2M_LEAF_LEVEL)
		return oa | S2_LEAF_ATTR | S2_TABLE | S2_VALID;
	return oa | S2_LEAF_ATTR | S2_VALID;
}

/**
 * vmsa_s2_decode() - what a descriptor is.
 * @pte: the descriptor
 * @level: 0..3
 * @out: the table or output address it holds (set for TABLE and LEAF)
 *
 * Return: its kind; a level-0 block or a level-3 descriptor with bit 1
 * clear is reserved (BAD).
 */
enum p2m_pte_kind vmsa_s2_decode(uint64_t pte, unsigned int level, paddr_t *out)
{
	if (!(pte & S2_VALID))
		return P2M_PTE_NONE;
	if (level > P2M_LEAF_LEVEL)
		return P2M_PTE_BAD;
	if (level == P2M_LEAF_LEVEL) {
		if (!(pte & S2_TABLE))
			return P2M_PTE_BAD;
		*out = pa(pte & S2_OA_MASK);
		return P2M_PTE_LEAF;
	}
	if (pte & S2_TABLE) {
		*out = pa(pte & S2_OA_MASK);
		return P2M_PTE_TABLE;
	}
	if (level == 0)
		return P2M_PTE_BAD;
	*out = pa(pte & S2_OA_MASK & ~((1ULL << p2m_level_shift(level)) - 1));
	return P2M_PTE_LEAF;
}

/* ID_AA64MMFR0_EL1.PARange / VTCR_EL2.PS encoding of @bits (rounded down). */
static unsigned int pa_size_code(unsigned int bits)
{
	static const unsigned char widths[] = {32, 36, 40, 42, 44, 48};
	unsigned int code = 0;

	for (unsigned int i = 0; i < sizeof(widths); i++)
		if (bits >= widths[i])
			code = i;
	return code;
}

/**
 * vmsa_s2_vtcr() - VTCR_EL2 for a stage-2 table.
 * @ipa_bits: input address width (T0SZ = 64 - @ipa_bits)
 * @start_level: 0..2 (SL0 with TG0 = 4 KiB: 2 - level)
 * @pa_bits: output address width (PS)
 *
 * Table walks are Inner Shareable, Write-Back Write-Allocate cacheable, so
 * the walker sees the builder's plain stores without cache maintenance.
 * Return: the register value (8-bit VMID, no hardware A/D updates).
 */
uint64_t vmsa_s2_vtcr(unsigned int ipa_bits, unsigned int start_level,
		      unsigned int pa_bits)
{
	return VTCR_RES1 | VTCR_PS(pa_size_code(pa_bits)) | VTCR_TG0_4K |
	       VTCR_SH0_INNER | VTCR_ORGN0_WBWA | VTCR_IRGN0_WBWA |
	       VTCR_SL0(2 - start_level) | VTCR_T0SZ(64 - ipa_bits);
}

/**
 * vmsa_s2_vttbr() - VTTBR_EL2.
 * @root: the root table (aligned to the size of the concatenated root)
 * @vmid: VMID[55:48] (8 bits used)
 *
 * Return: the register value (CnP = 0).
 */
uint64_t vmsa_s2_vttbr(paddr_t root, uint16_t vmid)
{
	return ((uint64_t)(vmid & 0xff) << 48) | (pa_val(root) & S2_OA_MASK);
}

const struct p2m_format p2m_format_vmsa_s2 = {
	.name = "vmsav8-64-s2",
	.oa_bits = 48,
	.min_ipa_bits = 32,
	.max_ipa_bits = 48,
	.geometry = vmsa_s2_geometry,
	.table = vmsa_s2_table,
	.leaf = vmsa_s2_leaf,
	.decode = vmsa_s2_decode,
	.write_bits = 2ULL << 6, /* S2AP[1]: S2AP 0b01 is read-only */
};
