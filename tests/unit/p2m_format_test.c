/* SPDX-License-Identifier: MIT */
/*
 * The stage-2 descriptor formats (common/lib/p2m_vmsa.c, p2m_ept.c,
 * p2m_npt.c): each against values computed by hand from the Arm ARM, the
 * Intel SDM and the AMD APM (the arithmetic is in the comments). Pure
 * functions: no heap, no machine.
 */
#include "common.h"

#include <keel/p2m.h>
#include <keel/p2m_format.h>

/* ---- VMSAv8-64 stage 2 descriptors -------------------------------------- */

static void test_vmsa_encode(void **state)
{
	/* Table: OA | bit1 (table) | bit0 (valid). */
	assert_int_equal(vmsa_s2_table(pa(0x40001000)), 0x40001003ULL);
	/*
	 * Leaf attributes: MemAttr 0b1111 << 2 = 0x3c, S2AP 0b11 << 6 = 0xc0,
	 * SH 0b11 << 8 = 0x300, AF 1 << 10 = 0x400: 0x7fc. Block + valid:
	 * 0x7fd; page (bit 1 set at level 3): 0x7ff.
	 */
	assert_int_equal(vmsa_s2_leaf(pa(0x40200000), 2), 0x402007fdULL);
	assert_int_equal(vmsa_s2_leaf(pa(0x80000000), 1), 0x800007fdULL);
	assert_int_equal(vmsa_s2_leaf(pa(0x12345000), 3), 0x123457ffULL);
	assert_int_equal(vmsa_s2_leaf(pa(0xfffffffff000ULL), 3),
			 0x0000fffffffff7ffULL);
	/* No level-0 blocks with a 4 KiB granule and 48-bit OAs. */
	assert_int_equal(vmsa_s2_leaf(pa(0), 0), 0);
}

static void test_vmsa_decode(void **state)
{
	paddr_t out = INVALID_PADDR;

	assert_int_equal(vmsa_s2_decode(0, 2, &out), P2M_PTE_NONE);
	assert_int_equal(vmsa_s2_decode(0x402007fcULL, 2, &out), P2M_PTE_NONE);
	assert_int_equal(vmsa_s2_decode(0x40001003ULL, 0, &out), P2M_PTE_TABLE);
	assert_int_equal(pa_val(out), 0x40001000ULL);
	assert_int_equal(vmsa_s2_decode(0x402007fdULL, 2, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x40200000ULL);
	assert_int_equal(vmsa_s2_decode(0x800007fdULL, 1, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x80000000ULL);
	assert_int_equal(vmsa_s2_decode(0x123457ffULL, 3, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x12345000ULL);
	/* Upper attributes (XN bit 54) are not address bits. */
	assert_int_equal(vmsa_s2_decode((1ULL << 54) | 0x123457ffULL, 3, &out),
			 P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x12345000ULL);
	/* Reserved: a level-0 block, a level-3 descriptor with bit 1 clear. */
	assert_int_equal(vmsa_s2_decode(0x7fdULL, 0, &out), P2M_PTE_BAD);
	assert_int_equal(vmsa_s2_decode(0x123457fdULL, 3, &out), P2M_PTE_BAD);
	/* Round trips at every leaf level. */
	for (unsigned int l = 1; l <= 3; l++) {
		uint64_t a =
			0x0000ab8000000000ULL | (1ULL << p2m_level_shift(l));

		assert_int_equal(
			vmsa_s2_decode(vmsa_s2_leaf(pa(a), l), l, &out),
			P2M_PTE_LEAF);
		assert_int_equal(pa_val(out), a);
	}
}

static void test_vmsa_registers(void **state)
{
	unsigned int sl, ro;

	/*
	 * VTCR_EL2, 48-bit IPA from level 0: T0SZ 16 = 0x10, SL0 2 << 6 =
	 * 0x80, IRGN0 1 << 8, ORGN0 1 << 10 (0x500), SH0 3 << 12 = 0x3000,
	 * TG0 0, PS 5 (48 bits) << 16 = 0x50000, RES1 bit 31.
	 */
	assert_int_equal(vmsa_s2_vtcr(48, 0, 48), 0x80053590ULL);
	/* 40 bits from level 1: T0SZ 24 = 0x18, SL0 1 = 0x40, PS 2. */
	assert_int_equal(vmsa_s2_vtcr(40, 1, 40), 0x80023558ULL);
	/* 32 bits from level 1: T0SZ 32 = 0x20, SL0 1, PS 0. */
	assert_int_equal(vmsa_s2_vtcr(32, 1, 32), 0x80003560ULL);
	/* PS rounds down to an encoding: 44 -> 4, 46 -> 4. */
	assert_int_equal(vmsa_s2_vtcr(44, 0, 46), 0x80043594ULL);
	/* VTTBR_EL2: VMID[55:48], BADDR. */
	assert_int_equal(vmsa_s2_vttbr(pa(0x40000000), 5),
			 0x0005000040000000ULL);

	/* Geometry: (start level, root order) by IPA width. */
	static const unsigned int g[][3] = {
		{48, 0, 0}, {44, 0, 0}, {43, 1, 4}, {42, 1, 3},
		{40, 1, 1}, {39, 1, 0}, {36, 1, 0}, {32, 1, 0},
	};
	for (unsigned int i = 0; i < ARRAY_SIZE(g); i++) {
		vmsa_s2_geometry(g[i][0], &sl, &ro);
		assert_int_equal(sl, g[i][1]);
		assert_int_equal(ro, g[i][2]);
	}
}

/* ---- Intel EPT entries --------------------------------------------------- */

static void test_ept_encode(void **state)
{
	unsigned int sl, ro;

	/* Non-leaf: address | R W X (0x7). */
	assert_int_equal(ept_table(pa(0x1000)), 0x1007ULL);
	/* PTE: RWX 0x7 | memory type WB 6 << 3 = 0x30: 0x37. */
	assert_int_equal(ept_leaf(pa(0x5000), 3), 0x5037ULL);
	/* 2 MiB / 1 GiB page: + bit 7 (0x80): 0xb7. */
	assert_int_equal(ept_leaf(pa(0x200000), 2), 0x2000b7ULL);
	assert_int_equal(ept_leaf(pa(0x40000000), 1), 0x400000b7ULL);
	/* Addresses up to bit 51. */
	assert_int_equal(ept_leaf(pa(0xffffffffff000ULL), 3),
			 0xffffffffff037ULL);
	assert_int_equal(ept_leaf(pa(0), 0), 0);
	/* EPTP: WB 6 | (walk length 4 - 1) << 3 = 0x18: 0x1e. */
	assert_int_equal(ept_eptp(pa(0x123000)), 0x12301eULL);
	ept_geometry(40, &sl, &ro);
	assert_int_equal(sl, 0);
	assert_int_equal(ro, 0);
}

static void test_ept_decode(void **state)
{
	paddr_t out = INVALID_PADDR;

	assert_int_equal(ept_decode(0, 1, &out), P2M_PTE_NONE);
	/* Present iff any of bits 2:0. */
	assert_int_equal(ept_decode(0x5030ULL, 3, &out), P2M_PTE_NONE);
	assert_int_equal(ept_decode(0x1007ULL, 0, &out), P2M_PTE_TABLE);
	assert_int_equal(pa_val(out), 0x1000ULL);
	assert_int_equal(ept_decode(0x2000b7ULL, 2, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x200000ULL);
	assert_int_equal(ept_decode(0x400000b7ULL, 1, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x40000000ULL);
	/* Bit 7 is ignored in a PTE. */
	assert_int_equal(ept_decode(0x50b7ULL, 3, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x5000ULL);
	/* Reserved: bit 7 in a PML4E; write without read. */
	assert_int_equal(ept_decode(0x10b7ULL, 0, &out), P2M_PTE_BAD);
	assert_int_equal(ept_decode(0x1002ULL, 2, &out), P2M_PTE_BAD);
	for (unsigned int l = 1; l <= 3; l++) {
		uint64_t a =
			0x000f0c0000000000ULL | (1ULL << p2m_level_shift(l));

		assert_int_equal(ept_decode(ept_leaf(pa(a), l), l, &out),
				 P2M_PTE_LEAF);
		assert_int_equal(pa_val(out), a);
	}
}

/* ---- AMD nested page tables (APM Vol. 2, 15.25, 5.3, 5.4.1) ------------- */

static void test_npt_encode(void **state)
{
	unsigned int sl, ro;

	/* Non-leaf: address | P 1 | R/W 2 | U/S 4 | A 0x20 = 0x27. */
	assert_int_equal(npt_table(pa(0x1000)), 0x1027ULL);
	/* PTE: 0x27 | D 0x40 = 0x67 (PAT = PCD = PWT = 0: write-back). */
	assert_int_equal(npt_leaf(pa(0x5000), 3), 0x5067ULL);
	/* 2 MiB PDE / 1 GiB PDPE: + PS 0x80 = 0xe7. */
	assert_int_equal(npt_leaf(pa(0x200000), 2), 0x2000e7ULL);
	assert_int_equal(npt_leaf(pa(0x40000000), 1), 0x400000e7ULL);
	/* An unaligned address keeps only the level's bits. */
	assert_int_equal(npt_leaf(pa(0x40201000), 1), 0x400000e7ULL);
	/* Addresses up to bit 51. */
	assert_int_equal(npt_leaf(pa(0xffffffffff000ULL), 3),
			 0xffffffffff067ULL);
	assert_int_equal(npt_leaf(pa(0), 0), 0);
	assert_int_equal(npt_leaf(pa(0x1000), 4), 0);
	/* N_CR3: the PML4's address, PWT = PCD = 0. */
	assert_int_equal(npt_ncr3(pa(0x123000)), 0x123000ULL);
	/* Read-only: R/W (bit 1) is the write bit. */
	assert_int_equal(npt_leaf(pa(0x5000), 3) & ~p2m_format_npt.write_bits,
			 0x5065ULL);
	npt_geometry(40, &sl, &ro);
	assert_int_equal(sl, 0);
	assert_int_equal(ro, 0);
	assert_string_equal(p2m_format_npt.name, "npt");
}

static void test_npt_decode(void **state)
{
	paddr_t out = INVALID_PADDR;

	/* Not present: P clear, whatever else is set. */
	assert_int_equal(npt_decode(0, 1, &out), P2M_PTE_NONE);
	assert_int_equal(npt_decode(0x50e6ULL, 3, &out), P2M_PTE_NONE);
	assert_int_equal(npt_decode(0x1027ULL, 0, &out), P2M_PTE_TABLE);
	assert_int_equal(pa_val(out), 0x1000ULL);
	assert_int_equal(npt_decode(0x2000e7ULL, 2, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x200000ULL);
	assert_int_equal(npt_decode(0x400000e7ULL, 1, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x40000000ULL);
	/* Bit 7 of a PTE is PAT, not PS: still a 4 KiB page. */
	assert_int_equal(npt_decode(0x50e7ULL, 3, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x5000ULL);
	/* Bit 12 of a large leaf is PAT: the address is still 2 MiB. */
	assert_int_equal(npt_decode(0x2010e7ULL, 2, &out), P2M_PTE_LEAF);
	assert_int_equal(pa_val(out), 0x200000ULL);
	/* Reserved, must be zero: PS in a PML4E; bits 20:13 of a 2 MiB
	 * leaf, 29:13 of a 1 GiB leaf. */
	assert_int_equal(npt_decode(0x10a7ULL, 0, &out), P2M_PTE_BAD);
	assert_int_equal(npt_decode(0x2020e7ULL, 2, &out), P2M_PTE_BAD);
	assert_int_equal(npt_decode(0x400020e7ULL, 1, &out), P2M_PTE_BAD);
	assert_int_equal(npt_decode(0x600000e7ULL, 1, &out), P2M_PTE_BAD);
	/* U/S clear: a nested walk (a user access) faults on it. */
	assert_int_equal(npt_decode(0x1023ULL, 0, &out), P2M_PTE_BAD);
	assert_int_equal(npt_decode(0x5063ULL, 3, &out), P2M_PTE_BAD);
	assert_int_equal(npt_decode(0x5067ULL, 4, &out), P2M_PTE_BAD);
	for (unsigned int l = 1; l <= 3; l++) {
		uint64_t a =
			0x000f0c0000000000ULL | (1ULL << p2m_level_shift(l));

		assert_int_equal(npt_decode(npt_leaf(pa(a), l), l, &out),
				 P2M_PTE_LEAF);
		assert_int_equal(pa_val(out), a);
	}
}

/* The write bit of each format: cleared, the leaf stays a leaf. */
static void test_write_bits(void **state)
{
	const struct p2m_format *f[] = {&p2m_format_vmsa_s2, &p2m_format_ept,
					&p2m_format_npt};
	paddr_t out;

	/* S2AP 0b11 -> 0b01 (Arm ARM D8.4); EPT bit 1; NPT R/W. */
	assert_int_equal(p2m_format_vmsa_s2.write_bits, 0x80ULL);
	assert_int_equal(p2m_format_ept.write_bits, 0x2ULL);
	assert_int_equal(vmsa_s2_leaf(pa(0x12345000), 3) &
				 ~p2m_format_vmsa_s2.write_bits,
			 0x1234577fULL);
	for (unsigned int i = 0; i < 3; i++) {
		uint64_t ro = f[i]->leaf(pa(0x7000), 3) & ~f[i]->write_bits;

		assert_int_equal(f[i]->decode(ro, 3, &out), P2M_PTE_LEAF);
		assert_int_equal(pa_val(out), 0x7000ULL);
	}
}

/* ---- the builder on the sandbox heap ------------------------------------- */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vmsa_encode, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_vmsa_decode, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_vmsa_registers, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_ept_encode, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_ept_decode, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_npt_encode, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_npt_decode, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_write_bits, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
