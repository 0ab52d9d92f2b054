// SPDX-License-Identifier: MIT
/*
 * arch/arm64/ras_decode.c on the host: which syndromes are memory errors
 * and which page each names (the ESR values are built here from the Arm
 * ARM's field layout: EC [31:26], IL [25], ISS.FnV [10], DFSC/IFSC [5:0];
 * SError ISS.IDS [24], AET [12:10]), and inject=sea's pick of a page no
 * DT window, RAM or reserved range covers, on a DT built here.
 */
#include "common.h"

#include "../../arch/arm64/ras_decode.c"

#define IL (1ULL << 25)

static uint64_t esr(unsigned int ec, uint64_t iss)
{
	return ((uint64_t)ec << 26) | IL | iss;
}

static struct arm64_mem_error decode_ok(uint64_t e, uint64_t far)
{
	struct arm64_mem_error me;

	memset(&me, 0xa5, sizeof(me));
	assert_true(arm64_ras_decode(e, far, &me));
	return me;
}

static void test_sea_names_far(void **state)
{
	struct arm64_mem_error me = decode_ok(esr(0x25, 0x10), 0x8021000);

	(void)state;
	assert_int_equal(me.pa, 0x8021000);
	assert_string_equal(me.what, "synchronous external abort");
	assert_non_null(strstr(me.detail, "data abort, FSC 0x10"));
	/* An instruction fetch, from a lower EL: the same page rule. */
	me = decode_ok(esr(0x20, 0x10), 0x40001000);
	assert_int_equal(me.pa, 0x40001000);
	assert_non_null(strstr(me.detail, "instruction abort"));
	/* Parity/ECC, not on a walk: FAR's page too. */
	me = decode_ok(esr(0x24, 0x18), 0x40002000);
	assert_int_equal(me.pa, 0x40002000);
	assert_string_equal(me.what, "synchronous parity or ECC error");
}

static void test_no_page(void **state)
{
	static const unsigned int walks[] = {0x13, 0x14, 0x15, 0x16, 0x17,
					     0x1b, 0x1c, 0x1d, 0x1e, 0x1f};
	struct arm64_mem_error me;

	(void)state;
	/* FnV: FAR is not valid. */
	me = decode_ok(esr(0x25, 0x10 | (1u << 10)), 0x1234000);
	assert_int_equal(me.pa, BAD_QUEUE_NO_ADDR);
	assert_non_null(strstr(me.detail, "not valid (FnV)"));
	/* On a walk FAR is the address translated, not the failed entry. */
	for (unsigned int i = 0; i < ARRAY_SIZE(walks); i++) {
		me = decode_ok(esr(0x25, walks[i]), 0x1234000);
		assert_int_equal(me.pa, BAD_QUEUE_NO_ADDR);
		assert_non_null(strstr(me.detail, "translation table walk"));
	}
}

static void test_serror(void **state)
{
	struct arm64_mem_error me;

	(void)state;
	/* AET 1 (unrecoverable), DFSC 0x11 (asynchronous SError). */
	me = decode_ok(esr(0x2f, (1u << 10) | 0x11), 0xdead000);
	assert_string_equal(me.what, "SError");
	assert_int_equal(me.pa, BAD_QUEUE_NO_ADDR);
	assert_string_equal(me.detail,
			    "SError: AET 1, unrecoverable (UEU); DFSC 0x11");
	me = decode_ok(esr(0x2f, (6u << 10) | 0x11), 0);
	assert_non_null(strstr(me.detail, "AET 6, corrected (CE)"));
	/* IDS: ISS[23:0] is the implementation's own, AET not read. */
	me = decode_ok(esr(0x2f, (1u << 24) | (1u << 10) | 0x1234), 0);
	assert_string_equal(me.detail, "SError: implementation defined "
				       "syndrome 0x1634 (IDS set)");
}

static void test_not_memory(void **state)
{
	/* Translation and permission faults, alignment, tag check. */
	static const unsigned int fscs[] = {0x04, 0x07, 0x0f, 0x21, 0x11, 0x00};
	struct arm64_mem_error me;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(fscs); i++) {
		assert_false(arm64_ras_decode(esr(0x25, fscs[i]), 0x1000, &me));
		assert_false(arm64_ras_decode(esr(0x21, fscs[i]), 0x1000, &me));
	}
	/* An SVC, an HVC, a BRK, unknown: whatever their ISS holds. */
	assert_false(arm64_ras_decode(esr(0x15, 0x10), 0, &me));
	assert_false(arm64_ras_decode(esr(0x16, 0x10), 0, &me));
	assert_false(arm64_ras_decode(esr(0x3c, 0x10), 0, &me));
	assert_false(arm64_ras_decode(esr(0x00, 0x10), 0, &me));
}

static void prop_cells(void *fdt, const char *name, const uint32_t *v,
		       unsigned int n)
{
	uint32_t be[8];

	for (unsigned int i = 0; i < n; i++)
		be[i] = __builtin_bswap32(v[i]);
	assert_int_equal(fdt_property(fdt, name, be, (int)(n * 4)), 0);
}

/* A node with a 2+2-cell reg [base, base + size). */
static void node_reg(void *fdt, const char *name, uint64_t base, uint64_t size)
{
	const uint32_t reg[4] = {(uint32_t)(base >> 32), (uint32_t)base,
				 (uint32_t)(size >> 32), (uint32_t)size};

	assert_int_equal(fdt_begin_node(fdt, name), 0);
	prop_cells(fdt, "reg", reg, 4);
	assert_int_equal(fdt_end_node(fdt), 0);
}

/*
 * Windows: a [0x1000, 0x2000), b [0x2000, 0x4000), c [0x10000, 0x10800),
 * a bus whose ranges map its 0 to [0x11000, 0x12000), its child's reg
 * (bus addresses) [0, 0x100); a node of the bus's child with a huge reg
 * in 1+1 cells (not read as 2+2).
 */
static void *make_dt(void)
{
	static uint8_t buf[4096];
	const uint32_t two = 2, one = 1;
	const uint32_t ranges[4] = {0, 0, 0x11000, 0x1000};
	const uint32_t child[2] = {0, 0x100};

	assert_int_equal(fdt_create(buf, sizeof(buf)), 0);
	assert_int_equal(fdt_finish_reservemap(buf), 0);
	assert_int_equal(fdt_begin_node(buf, ""), 0);
	prop_cells(buf, "#address-cells", &two, 1);
	prop_cells(buf, "#size-cells", &two, 1);
	node_reg(buf, "a@1000", 0x1000, 0x1000);
	node_reg(buf, "b@2000", 0x2000, 0x2000);
	node_reg(buf, "c@10000", 0x10000, 0x800);
	assert_int_equal(fdt_begin_node(buf, "bus@11000"), 0);
	prop_cells(buf, "#address-cells", &one, 1);
	prop_cells(buf, "#size-cells", &one, 1);
	prop_cells(buf, "ranges", ranges, 4);
	assert_int_equal(fdt_begin_node(buf, "dev@0"), 0);
	prop_cells(buf, "reg", child, 2);
	assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_finish(buf), 0);
	assert_int_equal(fdt_check_header(buf), 0);
	return buf;
}

static void test_pick_page(void **state)
{
	static struct bootinfo info;
	void *fdt = make_dt();

	(void)state;
	bootinfo_init(&info, BOOT_DT);
	/* Past a: b covers 0x2000. Past b: 0x4000, nothing covers it. */
	assert_int_equal(arm64_ras_pick_page(fdt, &info), 0x4000);
	/* RAM there: past c (0x11000) the bus's window; past it 0x12000. */
	assert_int_equal(bootinfo_add_ram(&info, pa(0x4000), pa(0x8000), 0), 0);
	assert_int_equal(arm64_ras_pick_page(fdt, &info), 0x12000);
	/*
	 * A reserved range over that too: past the bus's child (bus
	 * addresses, taken as they are) 0x1000, which a covers. RAM's end is
	 * no window: nothing is left.
	 */
	assert_int_equal(
		bootinfo_add_reserved(&info, pa(0x12000), pa(0x13000), "test"),
		0);
	assert_int_equal(arm64_ras_pick_page(fdt, &info), BAD_QUEUE_NO_ADDR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sea_names_far),
		cmocka_unit_test(test_no_page),
		cmocka_unit_test(test_serror),
		cmocka_unit_test(test_not_memory),
		cmocka_unit_test(test_pick_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
