/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * The two stage-2 descriptor formats keel writes, as pure functions: no
 * memory access, no arch code, so the host unit tests check both against
 * values computed by hand from the specifications.
 *
 * Levels are numbered as both formats do with a 4 KiB granule: level 0
 * entries cover 512 GiB, level 1 1 GiB, level 2 2 MiB, level 3 4 KiB.
 * Leaves exist at levels 1 (1 GiB block / page), 2 (2 MiB) and 3 (4 KiB).
 *
 *   vmsav8-64-s2  common/lib/p2m_vmsa.c  Arm ARM (DDI 0487) stage 2
 *   ept           common/lib/p2m_ept.c   Intel SDM Vol. 3C, EPT
 *   npt           common/lib/p2m_npt.c   AMD64 APM Vol. 2, nested paging
 */
#ifndef KEEL_P2M_FORMAT_H
#define KEEL_P2M_FORMAT_H

#include <keel/types.h>

#define P2M_LEAF_LEVEL	  3   /* the level that maps 4 KiB */
#define P2M_TABLE_ENTRIES 512 /* 4 KiB table of 64-bit descriptors */

/* Bits of address one entry at @level covers: 39, 30, 21, 12. */
static inline unsigned int p2m_level_shift(unsigned int level)
{
	return PAGE_SHIFT + 9 * (P2M_LEAF_LEVEL - level);
}

enum p2m_pte_kind {
	P2M_PTE_NONE,  /* nothing mapped through it */
	P2M_PTE_TABLE, /* points to the next level's table */
	P2M_PTE_LEAF,  /* maps a block or page */
	P2M_PTE_BAD,   /* an encoding the format reserves at this level */
};

struct p2m_format {
	const char *name;
	unsigned int oa_bits; /* output address bits it holds */
	unsigned int min_ipa_bits, max_ipa_bits;
	/* Root level and size (2^*root_order pages) for @ipa_bits. */
	void (*geometry)(unsigned int ipa_bits, unsigned int *start_level,
			 unsigned int *root_order);
	uint64_t (*table)(paddr_t next);
	/* A leaf at @level 1..3 mapping @out (aligned to the level). */
	uint64_t (*leaf)(paddr_t out, unsigned int level);
	enum p2m_pte_kind (*decode)(uint64_t pte, unsigned int level,
				    paddr_t *out);
	/* The bits of a leaf that allow writes: cleared, it is read-only. */
	uint64_t write_bits;
};

extern const struct p2m_format p2m_format_vmsa_s2;
extern const struct p2m_format p2m_format_ept;
extern const struct p2m_format p2m_format_npt;

/* VMSAv8-64 stage 2, 4 KiB granule (common/lib/p2m_vmsa.c). */
void vmsa_s2_geometry(unsigned int ipa_bits, unsigned int *start_level,
		      unsigned int *root_order);
uint64_t vmsa_s2_table(paddr_t next);
uint64_t vmsa_s2_leaf(paddr_t out, unsigned int level);
enum p2m_pte_kind vmsa_s2_decode(uint64_t pte, unsigned int level,
				 paddr_t *out);
/* VTCR_EL2 for a table of @ipa_bits starting at @start_level, PS from @pa_bits. */
uint64_t vmsa_s2_vtcr(unsigned int ipa_bits, unsigned int start_level,
		      unsigned int pa_bits);
/* VTTBR_EL2: the root's address and the 8-bit VMID. */
uint64_t vmsa_s2_vttbr(paddr_t root, uint16_t vmid);

/* Intel EPT, 4-level (common/lib/p2m_ept.c). */
void ept_geometry(unsigned int ipa_bits, unsigned int *start_level,
		  unsigned int *root_order);
uint64_t ept_table(paddr_t next);
uint64_t ept_leaf(paddr_t out, unsigned int level);
enum p2m_pte_kind ept_decode(uint64_t pte, unsigned int level, paddr_t *out);
/* EPTP: write-back, page-walk length 4, no accessed/dirty flags. */
uint64_t ept_eptp(paddr_t root);

/* AMD nested page tables, 4-level (common/lib/p2m_npt.c). */
void npt_geometry(unsigned int ipa_bits, unsigned int *start_level,
		  unsigned int *root_order);
uint64_t npt_table(paddr_t next);
uint64_t npt_leaf(paddr_t out, unsigned int level);
enum p2m_pte_kind npt_decode(uint64_t pte, unsigned int level, paddr_t *out);
/* The VMCB's N_CR3: the root, write-back (PWT = PCD = 0). */
uint64_t npt_ncr3(paddr_t root);

#endif
