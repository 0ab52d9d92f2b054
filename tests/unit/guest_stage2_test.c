/* SPDX-License-Identifier: MIT */
/*
 * A vCPU's stage 2 (common/guest/guest_stage2.c) on the sandbox heap, in
 * each format and root geometry: the domain's table with its own root and
 * the guest image mapped above it. The domain's table must not change by
 * one byte; every IPA of the domain must translate as in the domain's;
 * the image's pages map where guest_image_ipa() says, read-only but for
 * the pages asked; the domain's table does not map them, even where the
 * image's leaf table is a copy of one of the domain's; the IPA just
 * past the domain maps nothing (the guest's stage-2 fault test); a domain
 * that maps the image's IPA is refused; and every page taken comes back.
 */
#include "common.h"

#include <arch/mm.h>
#include <keel/guest.h>
#include <keel/heap.h>
#include <keel/heap_check.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>

#include "../../common/guest/guest_priv.h"

static const struct test_ram two_nodes[] = {
	{16 * MiB, 48 * MiB, 0},
	{48 * MiB, 80 * MiB, 1},
};

static void machine(void)
{
	struct test_machine_cfg c = {
		.ram = two_nodes,
		.ram_count = 2,
		.fill = 0xa5, /* garbage: every table page must be zeroed */
	};

	test_machine_boot(&c);
	heap_strict = true;
}

struct fmt_case {
	const struct p2m_format *fmt;
	unsigned int ipa_bits;
};

/* VMSA 48 (level-0 root), 40 (2 concatenated level-1 roots), 33; EPT, NPT. */
static const struct fmt_case fmts[] = {
	{&p2m_format_vmsa_s2, 48}, {&p2m_format_vmsa_s2, 40},
	{&p2m_format_vmsa_s2, 33}, {&p2m_format_ept, 48},
	{&p2m_format_npt, 48},	   {&p2m_format_npt, 40},
};

/* A page 8 below the image: in its leaf table. */
#define NEAR(image_ipa) ((image_ipa)-8 * PAGE_SIZE)

/* A "domain": 2 MiB at 0 and 4 KiB at 2 MiB, from scratch frames. */
#define DOM_BYTES (2 * MiB + PAGE_SIZE)

static void domain(struct p2m *p, const struct fmt_case *f)
{
	assert_int_equal(p2m_init_format(p, 0, f->ipa_bits, f->fmt), 0);
	assert_int_equal(p2m_map(p, 0, pa(20 * MiB), 9), 0);
	assert_int_equal(p2m_map(p, 2 * MiB, pa(30 * MiB), 0), 0);
}

static uint64_t leaf_pte(const struct guest_s2 *s, uint64_t ipa)
{
	return s->leaf_table[(ipa >> PAGE_SHIFT) % P2M_TABLE_ENTRIES];
}

static void check_one(const struct fmt_case *f)
{
	uint64_t before = heap_stats_all(0).free_pages, image_ipa,
		 copy[2 * 512];
	struct guest_s2 s = {0};
	struct p2m dom;
	paddr_t out, a, b;

	domain(&dom, f);
	image_ipa = guest_image_ipa(&dom);
	/*
	 * A page of the domain in the image's own leaf table: the tables on
	 * the image's path are the domain's, so they must be copied.
	 */
	assert_int_equal(p2m_map(&dom, NEAR(image_ipa), pa(31 * MiB), 0), 0);
	/* Below 2^47 and the widths; the last pages of one leaf table. */
	assert_true(image_ipa + GUEST_IMAGE_PAGES * PAGE_SIZE <=
		    (1ULL << MIN(MIN(f->ipa_bits, dom.pa_bits), 47u)));
	assert_int_equal((image_ipa >> PAGE_SHIFT) % P2M_TABLE_ENTRIES,
			 P2M_TABLE_ENTRIES - GUEST_IMAGE_PAGES);
	memcpy(copy, phys_to_virt(dom.root), PAGE_SIZE << dom.root_order);

	assert_int_equal(guest_s2_build(&s, &dom, image_ipa), 0);
	guest_s2_map_image(&s, 1u << 2);
	assert_int_not_equal(pa_val(s.p2m.root), pa_val(dom.root));
	assert_int_equal(s.p2m.vmid, dom.vmid);
	/* The domain's root is what it was; its table maps no image. */
	assert_memory_equal(copy, phys_to_virt(dom.root),
			    PAGE_SIZE << dom.root_order);
	assert_int_equal(p2m_translate(&dom, image_ipa, &out, NULL), -ENOENT);
	/* Every domain IPA the same frame through both tables. */
	for (uint64_t ipa = 0; ipa < DOM_BYTES; ipa += 64 * KiB) {
		assert_int_equal(p2m_translate(&dom, ipa, &a, NULL), 0);
		assert_int_equal(p2m_translate(&s.p2m, ipa, &b, NULL), 0);
		assert_int_equal(pa_val(a), pa_val(b));
	}
	assert_int_equal(p2m_translate(&s.p2m, NEAR(image_ipa), &b, NULL), 0);
	assert_int_equal(pa_val(b), 31 * MiB);
	/* One page past the domain: nothing, in either. */
	assert_int_equal(p2m_translate(&s.p2m, DOM_BYTES, &out, NULL), -ENOENT);
	/* The image, page by page; only page 2 writable. */
	for (unsigned int i = 0; i < GUEST_IMAGE_PAGES; i++) {
		uint64_t ipa = image_ipa + i * PAGE_SIZE;
		uint64_t w = leaf_pte(&s, ipa) & f->fmt->write_bits;

		assert_int_equal(p2m_translate(&s.p2m, ipa, &out, NULL), 0);
		assert_int_equal(pa_val(out), pa_val(s.image) + i * PAGE_SIZE);
		assert_true(i == 2 ? w == f->fmt->write_bits : w == 0);
	}
	assert_int_equal(
		p2m_translate(&s.p2m, image_ipa - PAGE_SIZE, &out, NULL),
		-ENOENT);
	guest_s2_free(&s);
	p2m_destroy(&dom);
	assert_int_equal(heap_stats_all(0).free_pages, before);
}

static void test_every_format(void **state)
{
	(void)state;
	machine();
	for (unsigned int i = 0; i < ARRAY_SIZE(fmts); i++)
		check_one(&fmts[i]);
}

/* A domain that maps the image's IPA: refused, nothing kept. */
static void test_image_ipa_taken(void **state)
{
	uint64_t before, image_ipa;
	struct guest_s2 s = {0};
	struct p2m dom;

	(void)state;
	machine();
	before = heap_stats_all(0).free_pages;
	assert_int_equal(p2m_init_format(&dom, 0, 40, &p2m_format_vmsa_s2), 0);
	image_ipa = guest_image_ipa(&dom);
	assert_int_equal(p2m_map(&dom, image_ipa + PAGE_SIZE, pa(20 * MiB), 0),
			 0);
	assert_int_equal(guest_s2_build(&s, &dom, image_ipa), -EEXIST);
	assert_int_equal(s.own_count, 0);
	/* A 2 MiB block over it: refused on the way down. */
	p2m_destroy(&dom);
	assert_int_equal(p2m_init_format(&dom, 0, 40, &p2m_format_npt), 0);
	assert_int_equal(
		p2m_map(&dom, image_ipa & ~(2 * MiB - 1), pa(20 * MiB), 9), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(guest_s2_build(&s, &dom, image_ipa), -EEXIST);
	p2m_destroy(&dom);
	assert_int_equal(heap_stats_all(0).free_pages, before);
}

/* The pattern's seed holds the round and the domain; zero is never one. */
static void test_seed(void **state)
{
	(void)state;
	assert_int_equal(guest_seed(1, 1), 0x4a01000000000000ULL);
	assert_int_equal(guest_seed(64, 2), 0x4940000000000000ULL);
	for (unsigned int r = 1; r <= GUEST_ROUNDS_MAX; r++)
		for (uint16_t id = 1; id <= DOMAIN_MAX; id++)
			assert_int_not_equal(guest_seed(id, r) >> 48, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_format, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_image_ipa_taken,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_seed, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
