// SPDX-License-Identifier: MIT
/*
 * bootmem's load of a long reserved list (common/mm/bootmem.c,
 * append_above(), and bootmem_sort.c): a list of more ranges than the
 * static table, in address order (a firmware's 100,000 bad pages), in two
 * long sorted runs (firmware's and a handover's: merged as it loads), in
 * one run with strays (sorted aside) and in no order (sorted), with
 * overlaps, duplicates, neighbours that touch under one name or two,
 * unaligned bounds, ranges across a hole in RAM and outside it. Checked
 * page by page against the list itself: every page of RAM a range holds is
 * reserved under the name of a range that holds it, no other page is
 * reserved (but bootmem's own tables), the table is sorted, disjoint, and
 * touching neighbours differ in name, and no region was merged away.
 */
#include <stdlib.h>

#include "common.h"
#include "../../common/mm/bootmem_priv.h"

#define N_RSV 3000
#define PAGE  4096ULL

/* Two RAM ranges with a hole of 64 MiB between them. */
static const struct test_ram ram[] = {
	{16 * MiB, 80 * MiB, 0},
	{144 * MiB, 208 * MiB, 0},
};
static const char *const names[] = {"bad firmware", "bad handover mce",
				    "firmware", "acpi"};

static bool in_ram(uint64_t a)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(ram); i++)
		if (a >= ram[i].start && a < ram[i].end)
			return true;
	return false;
}

static uint32_t rnd(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

/* A range somewhere in [0, 224 MiB): mostly a page, some longer, some
 * unaligned, some outside RAM or across the hole. */
static struct test_rsv one(uint32_t *x)
{
	uint64_t a = (uint64_t)(rnd(x) % (224 * 256)) * PAGE;
	uint64_t len = rnd(x) % 8 ? PAGE : (rnd(x) % 64 + 1) * PAGE;

	if (!(rnd(x) % 16))
		a += rnd(x) % PAGE; /* unaligned: rounded outwards */
	if (!(rnd(x) % 64))
		a = 80 * MiB - 2 * PAGE; /* across the hole */
	return (struct test_rsv){a, a + len, names[rnd(x) % ARRAY_SIZE(names)]};
}

static int cmp_rsv(const void *a, const void *b)
{
	const struct test_rsv *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Which names hold page @p in @rsv: a mask of names[]. */
static unsigned int holders(const struct test_rsv *rsv, unsigned int n,
			    uint64_t p)
{
	unsigned int mask = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t s = rsv[i].start & ~(PAGE - 1);
		uint64_t e = (rsv[i].end + PAGE - 1) & ~(PAGE - 1);

		if (p >= s && p < e)
			for (unsigned int k = 0; k < ARRAY_SIZE(names); k++)
				if (rsv[i].name == names[k])
					mask |= 1u << k;
	}
	return mask;
}

static void check_pages(const struct test_rsv *rsv, unsigned int n)
{
	unsigned int count, j = 0;
	const struct region *r = bootmem_reserved_regions(&count);

	for (unsigned int i = 1; i < count; i++) {
		assert_true(pa_val(r[i - 1].end) <= pa_val(r[i].start));
		if (pa_val(r[i - 1].end) == pa_val(r[i].start))
			assert_true(strcmp(r[i - 1].name, r[i].name));
	}
	assert_int_equal(bootmem_merged_regions(NULL), 0);
	for (uint64_t p = 0; p < 224 * MiB; p += PAGE) {
		unsigned int want = in_ram(p) ? holders(rsv, n, p) : 0, k;

		while (j < count && pa_val(r[j].end) <= p)
			j++;
		if (j == count || pa_val(r[j].start) > p) {
			if (want)
				fail_msg("page %#llx: not reserved, held by "
					 "mask %#x",
					 (unsigned long long)p, want);
			continue;
		}
		if (!strcmp(r[j].name, "bootmem tables"))
			continue;
		for (k = 0; k < ARRAY_SIZE(names); k++)
			if (!strcmp(r[j].name, names[k]))
				break;
		if (k == ARRAY_SIZE(names) || !(want & (1u << k)))
			fail_msg("page %#llx: reserved as %s, held by mask %#x",
				 (unsigned long long)p, r[j].name, want);
	}
}

/*
 * The pieces of @rsv that overlap one of lower start (in RAM, whole
 * pages): what a load in address order must give to the general fill,
 * and all it may.
 */
static uint64_t overlaps(const struct test_rsv *rsv, unsigned int n)
{
	struct test_rsv *s = malloc(n * sizeof(*s));
	uint64_t last = 0, count = 0;

	memcpy(s, rsv, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_rsv); /* order among equal starts: moot */
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a = s[i].start & ~(PAGE - 1);
		uint64_t b = (s[i].end + PAGE - 1) & ~(PAGE - 1);

		for (unsigned int k = 0; k < ARRAY_SIZE(ram); k++) {
			uint64_t rs = MAX(a, ram[k].start);
			uint64_t re = MIN(b, ram[k].end);

			if (rs >= re)
				continue;
			count += rs < last;
			last = MAX(last, re);
		}
	}
	free(s);
	return count;
}

static void load(struct test_rsv *rsv, unsigned int n)
{
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.rsv = rsv,
		.rsv_count = n,
		.bootmem_only = true,
	};

	test_machine_boot(&c);
	check_pages(rsv, n);
	/* Loaded in address order: the fill took the overlaps only. */
	assert_int_equal(bootmem_load_filled(), overlaps(rsv, n));
}

/* In address order: the append path nearly throughout. */
static void test_sorted(void **state)
{
	struct test_rsv *rsv = calloc(N_RSV, sizeof(*rsv));
	uint32_t x = 38;

	(void)state;
	for (unsigned int i = 0; i < N_RSV; i++)
		rsv[i] = one(&x);
	qsort(rsv, N_RSV, sizeof(*rsv), cmp_rsv);
	load(rsv, N_RSV);
	free(rsv);
}

/* Two long sorted runs (firmware's, then a handover's), overlapping. */
static void test_two_runs(void **state)
{
	struct test_rsv *rsv = calloc(N_RSV, sizeof(*rsv));
	uint32_t x = 7;

	(void)state;
	for (unsigned int i = 0; i < N_RSV; i++)
		rsv[i] = one(&x);
	qsort(rsv, N_RSV / 2, sizeof(*rsv), cmp_rsv);
	qsort(rsv + N_RSV / 2, N_RSV - N_RSV / 2, sizeof(*rsv), cmp_rsv);
	rsv[N_RSV - 1] = rsv[0]; /* a duplicate, last */
	load(rsv, N_RSV);
	free(rsv);
}

/*
 * One long run with 40 ranges out of order spread through it: more runs
 * than a merge reads (BM_RUNS_MAX), few enough for the sort aside.
 */
static void test_run_and_strays(void **state)
{
	struct test_rsv *rsv = calloc(N_RSV, sizeof(*rsv));
	uint32_t x = 99;

	(void)state;
	for (unsigned int i = 0; i < N_RSV; i++)
		rsv[i] = one(&x);
	qsort(rsv, N_RSV, sizeof(*rsv), cmp_rsv);
	for (unsigned int i = 0; i < 40; i++) {
		unsigned int at = rnd(&x) % N_RSV;

		rsv[at] = one(&x);
	}
	load(rsv, N_RSV);
	free(rsv);
}

/*
 * bm_runs_next() against a stable sort: runs of random lengths with many
 * equal starts across them (ties go to the earlier run, the list's
 * order), up to BM_RUNS_MAX runs; one more run is refused.
 */
static void test_runs_merge_order(void **state)
{
	enum { MAXN = 400 };
	static struct region r[MAXN];
	static unsigned int want[MAXN];
	uint32_t x = 5;

	(void)state;
	for (unsigned int round = 0; round < 200; round++) {
		struct range_table t = {.regions = r};
		unsigned int k = 1 + round % BM_RUNS_MAX, n = 0;
		struct bm_runs it;

		for (unsigned int j = 0; j < k; j++) {
			unsigned int len = 1 + rnd(&x) % 40;
			uint64_t a = rnd(&x) % 8;

			for (unsigned int i = 0; i < len && n < MAXN; i++) {
				a += rnd(&x) % 3; /* steps of 0: equal starts */
				r[n].start = pa(a * PAGE);
				r[n].end = pa(a * PAGE + PAGE);
				r[n].node = n; /* its place in the list */
				n++;
			}
			/* The next run starts below: a new run. */
			if (n < MAXN) {
				r[n].start = pa(0);
				r[n].end = pa(PAGE);
				r[n].node = n;
				n++;
			}
		}
		t.count = n;
		for (unsigned int i = 0; i < n; i++)
			want[i] = i;
		/* Stable insertion sort of the places by start. */
		for (unsigned int i = 1; i < n; i++) {
			unsigned int v = want[i], j = i;

			for (; j && pa_val(r[want[j - 1]].start) >
					    pa_val(r[v].start);
			     j--)
				want[j] = want[j - 1];
			want[j] = v;
		}
		if (!bm_runs_init(&it, &t)) {
			assert_true(it.k == BM_RUNS_MAX);
			continue;
		}
		for (unsigned int i = 0; i < n; i++) {
			const struct region *g = bm_runs_next(&it);

			assert_non_null(g);
			assert_int_equal(g->node, want[i]);
		}
		assert_null(bm_runs_next(&it));
	}
}

/* No order at all, and a few duplicates. */
static void test_unsorted(void **state)
{
	struct test_rsv *rsv = calloc(N_RSV, sizeof(*rsv));
	uint32_t x = 1;

	(void)state;
	for (unsigned int i = 0; i < N_RSV; i++)
		rsv[i] = i % 97 ? one(&x) : rsv[i / 2];
	load(rsv, N_RSV);
	free(rsv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sorted, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_two_runs, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_runs_merge_order,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_run_and_strays, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_unsorted, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
