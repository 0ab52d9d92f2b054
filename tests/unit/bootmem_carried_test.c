// SPDX-License-Identifier: MIT
/*
 * common/mm/bootmem_carried.c: a live update's carried bad ranges read in
 * place beside bootmem's reserved table until they join it. Checked page
 * by page against a model of the machine (RAM and its node, the table's
 * regions, the carried ranges), before and after the join:
 * - the free ranges are RAM minus the table minus the carried ranges;
 * - bootmem_gap_bad() of every gap between free ranges: bad pages only
 *   (a region of the table of another name over a carried page: false);
 * - bootmem_node_free_at_least() against the model's longest free run;
 * - allocations and a series land where the model's top-down walk puts
 *   them, never on a carried page;
 * - the join: every page named by the table's region where one holds it,
 *   else by its carried record; sorted, disjoint, nothing merged away.
 * The carried ranges lie over list ranges, inside them, across a node
 * boundary and at the edges of RAM. And a store filled by the downtime's
 * allocations grows at bootmem_close(), so that the join still fits.
 */
#include <stdlib.h>

#include "bootmem_model.h"
#include "common.h"
#include <keel/badmem.h>
#include <keel/handover.h>

#include "../../common/mm/bootmem_priv.h"

#define PG    4096ULL
#define TOP   (256 * MiB)
#define PAGES (TOP / PG)
#define N_REC 900

/* Node 0, then node 1 touching it, a hole, node 1 again. */
static const struct test_ram ram[] = {
	{16 * MiB, 96 * MiB, 0},
	{96 * MiB, 160 * MiB, 1},
	{192 * MiB, 256 * MiB, 1},
};
static const char *const list_names[] = {"firmware", "preserved",
					 "bad firmware"};

static struct handover_range rec[2][N_REC];
static unsigned int rec_n[2];
static uint64_t rec_pages;
static struct test_rsv list[64];

/* The model: per page, its node (-1: no RAM), its carried record (-1). */
static int8_t node_of[PAGES], carried_of[PAGES];
/* The table's name per page (NULL: none), read from the table itself. */
static const char *table_at[PAGES];

static void give_carried(struct bootinfo *bi)
{
	struct bi_handover *h = &bi->handover;

	h->bad_recs = 2;
	h->bad_count = rec_n[0] + rec_n[1];
	h->bad_pages = rec_pages;
	for (unsigned int j = 0; j < 2; j++) {
		h->bad[j].view = (struct handover_view){
			.head = (const uint8_t *)rec[j],
			.size = rec_n[j] * sizeof(struct handover_range)};
		h->bad[j].ranges = 0;
		h->bad[j].count = rec_n[j];
		h->bad[j].source =
			j ? HANDOVER_BAD_INJECTION : HANDOVER_BAD_MCE;
	}
	bi->carried = true;
	bi->carried_at = 0;
}

/* Carried ranges of 1-4 pages in RAM, apart; some on purpose. */
static void make_machine(uint32_t x)
{
	memset(node_of, -1, sizeof(node_of));
	memset(carried_of, -1, sizeof(carried_of));
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		for (uint64_t p = ram[i].start / PG; p < ram[i].end / PG; p++)
			node_of[p] = (int8_t)ram[i].node;
	rec_n[0] = rec_n[1] = 0;
	rec_pages = 0;
	for (uint64_t p = 16 * MiB / PG; p < PAGES;
	     p += 1 + model_rnd(&x) % 60) {
		uint64_t len = 1 + (model_rnd(&x) % 6 ? 0 : model_rnd(&x) % 4);
		unsigned int j = model_rnd(&x) % 2;

		if (p == 16 * MiB / PG + 3)
			p = 96 * MiB / PG - 1, len = 2; /* across the nodes */
		/* The top 8 MiB clear: room for bootmem's store to grow. */
		if (p + len > PAGES - 8 * MiB / PG || rec_n[j] == N_REC)
			break;
		if (node_of[p] < 0 || node_of[p + len - 1] < 0)
			continue;
		rec[j][rec_n[j]++] =
			(struct handover_range){p * PG, (p + len) * PG};
		for (uint64_t q = p; q < p + len; q++)
			carried_of[q] = (int8_t)j;
		rec_pages += len;
		p += len;
	}
	/* The list: over carried pages, inside and around them, elsewhere. */
	for (unsigned int i = 0; i < ARRAY_SIZE(list); i++) {
		uint64_t p =
			16 * MiB / PG + model_rnd(&x) % (PAGES - 16 * MiB / PG);
		uint64_t len = 1 + model_rnd(&x) % (i % 4 ? 3 : 40);

		if (i < 8 && rec_n[i % 2] > i) /* on a carried range's start */
			p = rec[i % 2][i * 7 % rec_n[i % 2]].start / PG;
		list[i] = (struct test_rsv){p * PG, MIN(p + len, PAGES) * PG,
					    list_names[model_rnd(&x) % 3]};
	}
	/* Inside carried ranges of 3 pages or more, their middle page. */
	for (unsigned int i = 0, k = 8; i < rec_n[0] && k < 16; i++) {
		uint64_t s = rec[0][i].start, e = rec[0][i].end;

		if (e - s < 3 * PG)
			continue;
		list[k] = (struct test_rsv){s + PG, s + 2 * PG,
					    list_names[k % 2 ? 2 : 0]};
		k++;
	}
}

/* A copy of @name kept for the model (the table's own is rewritten). */
static const char *keep_name(const char *name)
{
	static char kept[16][REGION_NAME_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kept) && kept[i][0]; i++)
		if (!strcmp(kept[i], name))
			return kept[i];
	assert_true(i < ARRAY_SIZE(kept));
	strlcpy(kept[i], name, sizeof(kept[i]));
	return kept[i];
}

/* The model's table side, from bootmem's table (not joined yet). */
static void read_table(void)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_table(&count);

	memset(table_at, 0, sizeof(table_at));
	for (unsigned int i = 0; i < count; i++)
		for (uint64_t p = pa_val(r[i].start) / PG;
		     p < pa_val(r[i].end) / PG && p < PAGES; p++)
			table_at[p] = keep_name(r[i].name);
}

static bool model_free(uint64_t p)
{
	return node_of[p] >= 0 && !table_at[p] && carried_of[p] < 0;
}

static const struct bootmem_model model = {ram, ARRAY_SIZE(ram), PAGES,
					   model_free};

/* The free ranges, walked, against the model; each gap's answer too. */
static void check_free(void)
{
	uint64_t idx, p = 0;
	paddr_t s, e;
	uint32_t node;

	for_each_free_range (idx, &s, &e, &node) {
		uint64_t a = pa_val(s) / PG, b = pa_val(e) / PG;

		for (; p < a; p++)
			if (model_free(p))
				fail_msg("page %#llx free, not walked",
					 (unsigned long long)(p * PG));
		for (; p < b; p++)
			if (!model_free(p) || node_of[p] != (int)node)
				fail_msg("page %#llx walked free on node %u",
					 (unsigned long long)(p * PG), node);
	}
	for (; p < PAGES; p++)
		assert_false(model_free(p));
}

/* Each gap between two free ranges: bad only, as the model says. */
static void check_gaps(void)
{
	uint64_t idx, prev = 0;
	paddr_t s, e;
	uint32_t node;
	unsigned int checked = 0, bad = 0;

	for_each_free_range (idx, &s, &e, &node) {
		uint64_t a = pa_val(s) / PG;
		bool want = prev && prev < a;

		for (uint64_t p = prev; want && p < a; p++)
			want = node_of[p] >= 0 &&
			       (table_at[p]
					? badmem_region_source(table_at[p]) >= 0
					: carried_of[p] >= 0);
		if (prev && prev < a) {
			if (bootmem_gap_bad(pa(prev * PG), s) != want)
				fail_msg("gap [%#llx, %#llx): want %d",
					 (unsigned long long)(prev * PG),
					 (unsigned long long)pa_val(s), want);
			checked++;
			bad += want;
		}
		prev = pa_val(e) / PG;
	}
	assert_true(checked > 500 && bad > 100 && bad < checked);
}

static void check_node_free(void)
{
	for (uint32_t n = 0; n < 2; n++) {
		uint64_t l = model_longest(&model, (int)n);

		assert_true(l > 2);
		assert_true(bootmem_node_free_at_least(n, l * PG));
		assert_false(bootmem_node_free_at_least(n, (l + 1) * PG));
		assert_true(bootmem_node_free_at_least(n, (l - 1) * PG - 1));
		assert_false(bootmem_node_free_at_least(n, 64 * MiB));
	}
}

static void check_allocs(uint32_t x)
{
	for (unsigned int i = 0; i < 40; i++) {
		uint32_t node = model_rnd(&x) % 2;
		uint64_t size = 1 + model_rnd(&x) % 8,
			 align = 1ULL << (model_rnd(&x) % 3);
		uint64_t want = model_fit(&model, node, size, align);
		paddr_t got = bootmem_alloc_try(size * PG, align * PG, node,
						"test alloc");

		assert_true(want != ~0ULL);
		if (pa_val(got) != want * PG)
			fail_msg("alloc %llu pages /%llu on node %u: %#llx, "
				 "want %#llx",
				 (unsigned long long)size,
				 (unsigned long long)align, node,
				 (unsigned long long)pa_val(got),
				 (unsigned long long)(want * PG));
		read_table();
	}
}

/* A series of 3-page pieces on node 1, against the model's gaps. */
#define SERIES 60
static uint64_t series_at[SERIES];

static uint64_t piece_size(void *arg)
{
	(void)arg;
	return 3 * PG;
}

static void piece_placed(void *arg, paddr_t at)
{
	unsigned int *n = arg;

	series_at[(*n)++] = pa_val(at);
}

static void check_series(void)
{
	unsigned int n = 0, k = 0;
	struct bootmem_series sr = {.node = 1,
				    .count = SERIES,
				    .why = "test series",
				    .size_of = piece_size,
				    .placed = piece_placed,
				    .arg = &n};

	assert_int_equal(bootmem_alloc_series(&sr), SERIES);
	for (unsigned int i = ARRAY_SIZE(ram); i-- && k < SERIES;) {
		uint64_t rs = ram[i].start / PG, top = ram[i].end / PG;

		if (ram[i].node != 1)
			continue;
		while (top > rs && k < SERIES) {
			uint64_t gs;

			while (top > rs && !model_free(top - 1))
				top--;
			for (gs = top; gs > rs && model_free(gs - 1);)
				gs--;
			for (; top - gs >= 3 && k < SERIES; top -= 3)
				assert_int_equal(series_at[k++],
						 (top - 3) * PG);
			top = gs;
		}
	}
	assert_int_equal(k, SERIES);
	read_table();
}

/* After the join: each page named by the table, else by its record. */
static void check_join(void)
{
	static const char *want_at[PAGES];
	unsigned int count, j = 0;
	const struct region *r;

	memcpy(want_at, table_at, sizeof(want_at));
	for (uint64_t p = 0; p < PAGES; p++)
		if (!want_at[p] && carried_of[p] >= 0)
			want_at[p] = badmem_carried_name(
				carried_of[p] ? BADMEM_INJECTION : BADMEM_MCE);
	r = bootmem_reserved_regions(&count);
	for (unsigned int i = 1; i < count; i++) {
		assert_true(pa_val(r[i - 1].end) <= pa_val(r[i].start));
		if (pa_val(r[i - 1].end) == pa_val(r[i].start))
			assert_true(strcmp(r[i - 1].name, r[i].name));
	}
	assert_int_equal(bootmem_merged_regions(NULL), 0);
	for (uint64_t p = 0; p < PAGES; p++) {
		while (j < count && pa_val(r[j].end) <= p * PG)
			j++;
		if (j == count || pa_val(r[j].start) > p * PG) {
			if (want_at[p] && node_of[p] >= 0)
				fail_msg("page %#llx: not reserved, want %s",
					 (unsigned long long)(p * PG),
					 want_at[p]);
			continue;
		}
		if (!want_at[p] || strcmp(r[j].name, want_at[p]))
			fail_msg("page %#llx: %s, want %s",
				 (unsigned long long)(p * PG), r[j].name,
				 want_at[p] ? want_at[p] : "free");
	}
}

/* The machine of @seed booted as far as bootmem, the records given. */
static void boot_machine(uint32_t seed)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.rsv = list,
		.rsv_count = ARRAY_SIZE(list),
		.bootmem_only = true,
		.before_bootmem = give_carried,
	};

	make_machine(seed);
	test_machine_boot(&c);
}

static void test_carried_beside(void **state)
{
	uint32_t seed = 38;
	unsigned int count;

	(void)state;
	boot_machine(seed);
	assert_non_null(bm_carried); /* read beside, not loaded */
	bootmem_reserved_table(&count);
	assert_true(count < ARRAY_SIZE(list) + 2);
	read_table();
	check_free();
	check_gaps();
	check_node_free();
	check_allocs(seed);
	check_series();
	check_free();
	check_join();
	assert_null(bm_carried);
	check_free(); /* the same free ranges and answers after */
	check_gaps();
	check_node_free();
}

/*
 * The downtime's allocations fill the store sized at the start: closing
 * bootmem grows it first (after, nothing can), and the join still writes
 * every range in place, nothing merged away.
 */
static void test_carried_room(void **state)
{
	static const char *const two[] = {"alloc a", "alloc b"};
	unsigned int cap0;

	(void)state;
	boot_machine(7);
	cap0 = bm_rsv.cap;
	/*
	 * Touching regions of two names, one region each, until the store
	 * has fewer free slots than carried ranges.
	 */
	for (unsigned int i = 0;
	     bm_rsv.cap - bm_rsv.count + 16 > rec_n[0] + rec_n[1]; i++)
		assert_true(pa_val(bootmem_alloc_try(PG, PG, i % 2,
						     two[i / 2 % 2])) !=
			    pa_val(INVALID_PADDR));
	bootmem_close();
	assert_true(bm_rsv.cap > cap0);
	read_table(); /* the new store too */
	check_join();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_carried_beside, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_carried_room, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
