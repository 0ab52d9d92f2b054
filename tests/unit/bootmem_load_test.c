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
#include <keel/handover.h>

#include "../../common/mm/bootmem_priv.h"

#define N_RSV 3000
#define PAGE  4096ULL

/* Two RAM ranges with a hole of 64 MiB between them. */
static const struct test_ram ram[] = {
	{16 * MiB, 80 * MiB, 0},
	{144 * MiB, 208 * MiB, 0},
};
static const char *const names[] = {"bad firmware", "bad handover mce",
				    "firmware", "acpi",
				    "bad handover injection"};

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
	return (struct test_rsv){a, a + len, names[rnd(x) % 4]};
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

/*
 * bootmem's presized table (more ranges than the static table) is at the
 * highest page-aligned place in RAM that no range of @rsv holds: found
 * against a map of every page.
 */
static void check_table_highest(const struct test_rsv *rsv, unsigned int n)
{
	enum { PAGES = 224 * MiB / PAGE };
	static bool busy[PAGES];
	unsigned int count, i;
	const struct region *tab = bootmem_reserved_regions(&count);
	uint64_t at = pa_val(virt_to_phys(tab)), pages = 0, p, run = 0;

	for (i = 0; i < count; i++)
		if (pa_val(tab[i].start) == at)
			break;
	assert_true(i < count);
	assert_string_equal(tab[i].name, "bootmem tables");
	pages = (pa_val(tab[i].end) - at) / PAGE;
	for (p = 0; p < PAGES; p++)
		busy[p] = !in_ram(p * PAGE);
	for (i = 0; i < n; i++)
		for (p = rsv[i].start / PAGE;
		     p < (rsv[i].end + PAGE - 1) / PAGE && p < PAGES; p++)
			busy[p] = true;
	/* From the top down: the first run of free pages long enough. */
	for (p = PAGES; p-- > 0;) {
		run = busy[p] ? 0 : run + 1;
		if (run == pages)
			break;
	}
	assert_true(run == pages);
	if (p * PAGE != at)
		fail_msg("bootmem's table at %#llx, %llu pages: the highest "
			 "place clear of the list is %#llx",
			 (unsigned long long)at, (unsigned long long)pages,
			 (unsigned long long)(p * PAGE));
}

/*
 * Two long sorted runs of ranges apart (a firmware's bad pages, then
 * another list's), each run's ends rising: bootmem's table placed by a
 * look near the top, a binary search a run (fit_near_top()), at the place
 * the walk beside the list would find, the highest clear of it.
 */
static void test_runs_apart_table(void **state)
{
	struct test_rsv *rsv = calloc(N_RSV * 2, sizeof(*rsv));
	unsigned int n = 0, first;
	uint32_t x = 11;
	uint64_t p;

	(void)state;
	for (p = 1; p < 224 * MiB / PAGE; p += 1 + rnd(&x) % 24) {
		uint64_t len = 1 + (rnd(&x) % 8 ? 0 : rnd(&x) % 3);

		if (!(rnd(&x) % 100))
			p += 100 + rnd(&x) % 500; /* room for a table */
		rsv[n++] =
			(struct test_rsv){p * PAGE, (p + len) * PAGE, names[0]};
		p += len;
	}
	first = n;
	assert_true(first > BOOTMEM_STATIC_REGIONS && first < N_RSV * 2 - 400);
	for (p = 3; n < first + 400; p += 40 + rnd(&x) % 60)
		rsv[n++] = (struct test_rsv){p * PAGE + 100, p * PAGE + 200,
					     names[3]};
	load(rsv, n);
	check_table_highest(rsv, n);
	free(rsv);
}

/*
 * A live update's carried bad ranges, read in place from the handover's
 * records (struct bootinfo's @carried): two records (mce, injection) of
 * sorted ranges apart, N_CARRIED in all, beside a list of 600 ranges that
 * alone would load in its own order. The list loads in address order,
 * the carried ranges stay in their records until they join the table
 * (bootmem_carried.c): every page reserved under a name that holds it,
 * only the list's overlaps filled; where a list range and a carried one
 * hold a page, the list's names it, whatever their order (its first range
 * given before the carried ones, its last after them: @carried_at);
 * bootmem's presized table on no carried page (bm_fit_outside_list()
 * reads them too).
 */
#define N_CARRIED 1500
static struct handover_range carried[2][N_CARRIED];
static unsigned int carried_n[2];
static uint64_t carried_pages;

static void give_carried(struct bootinfo *bi)
{
	struct bi_handover *h = &bi->handover;

	h->bad_recs = 2;
	h->bad_count = carried_n[0] + carried_n[1];
	h->bad_pages = carried_pages;
	for (unsigned int j = 0; j < 2; j++) {
		h->bad[j].view = (struct handover_view){
			.head = (const uint8_t *)carried[j],
			.size = carried_n[j] * sizeof(struct handover_range)};
		h->bad[j].ranges = 0;
		h->bad[j].count = carried_n[j];
		h->bad[j].source =
			j ? HANDOVER_BAD_INJECTION : HANDOVER_BAD_MCE;
	}
	bi->carried = true;
	bi->carried_at = bi->reserved.count - 1; /* the last given after */
}

/*
 * Pages of RAM in ranges of 1-3 pages, each record's apart, from 24 MiB to
 * the top: too close for the presized table (a gap of 50 pages), which
 * fits only in [16, 24) MiB.
 */
static void make_carried(uint32_t *x, unsigned int max)
{
	carried_n[0] = carried_n[1] = 0;
	carried_pages = 0;
	for (uint64_t p = 24 * MiB; p < 208 * MiB && carried_n[1] < max;
	     p += (1 + rnd(x) % 20) * PAGE) {
		uint64_t len = (rnd(x) % 8 ? 1 : 1 + rnd(x) % 3) * PAGE;
		unsigned int j = rnd(x) % 2;

		if (in_ram(p) && in_ram(p + len - PAGE) && carried_n[j] < max) {
			carried[j][carried_n[j]++] =
				(struct handover_range){p, p + len};
			carried_pages += len / PAGE;
		}
		p += len;
	}
}

/* The name bootmem's table gives page @p. */
static const char *name_at(uint64_t p)
{
	unsigned int count;
	const struct region *r = bootmem_reserved_regions(&count);

	for (unsigned int i = 0; i < count; i++)
		if (pa_val(r[i].start) <= p && p < pa_val(r[i].end))
			return r[i].name;
	return NULL;
}

/* List range @i moved off [s, e) (a page of RAM no carried range holds). */
static void keep_off(struct test_rsv *rsv, unsigned int i, uint64_t s,
		     uint64_t e)
{
	if ((rsv[i].start & ~(PAGE - 1)) < e && s < rsv[i].end)
		rsv[i] = (struct test_rsv){16 * MiB, 16 * MiB + 1, "acpi"};
}

/* bootmem's table, [@at, + @bytes), is on no carried page. */
static void table_off_carried(uint64_t at, uint64_t bytes)
{
	for (unsigned int j = 0; j < 2; j++)
		for (unsigned int i = 0; i < carried_n[j]; i++)
			if (carried[j][i].start < at + bytes &&
			    at < carried[j][i].end)
				fail_msg(
					"bootmem's table at %#llx on carried "
					"[%#llx, %#llx)",
					(unsigned long long)at,
					(unsigned long long)carried[j][i].start,
					(unsigned long long)carried[j][i].end);
}

static void carried_case(unsigned int n_list, unsigned int max)
{
	struct test_rsv *rsv = calloc(n_list + 2 * N_CARRIED, sizeof(*rsv));
	struct handover_range t0, t1;
	unsigned int n = n_list, count;
	const struct region *tab;
	uint32_t x = 4;
	struct test_machine_cfg c = {
		.ram = ram,
		.ram_count = ARRAY_SIZE(ram),
		.rsv = rsv,
		.rsv_count = n_list,
		.bootmem_only = true,
		.before_bootmem = give_carried,
	};

	make_carried(&x, max);
	assert_true(carried_n[0] > max / 2 && carried_n[1] > max / 2);
	t0 = carried[0][5];
	t1 = carried[1][7];
	for (unsigned int i = 0; i < n_list; i++) {
		rsv[i] = one(&x);
		keep_off(rsv, i, t0.start, t0.end);
		keep_off(rsv, i, t1.start, t1.end);
	}
	/* Three sorted runs: merged as they load, the list's order kept. */
	qsort(rsv + 1, n_list - 2, sizeof(*rsv), cmp_rsv);
	rsv[0] = (struct test_rsv){t0.start, t0.start + PAGE, "firmware"};
	rsv[n_list - 1] = (struct test_rsv){t1.start, t1.start + PAGE, "acpi"};
	test_machine_boot(&c);
	assert_false(test_bi.reserved.count > n_list); /* none copied in */
	/* The expectation: the list, then the carried ranges. */
	for (unsigned int j = 0; j < 2; j++)
		for (unsigned int i = 0; i < carried_n[j]; i++)
			rsv[n++] = (struct test_rsv){carried[j][i].start,
						     carried[j][i].end,
						     names[j ? 4 : 1]};
	/* Not joined yet: the table holds the list only, read beside them. */
	bootmem_reserved_table(&count);
	assert_true(count <= n_list + 1); /* + its own store's region */
	check_pages(rsv, n);
	/* More than the static table: the list loaded in address order
	 * (the carried ranges join later, never through the fill). */
	if (n > BOOTMEM_STATIC_REGIONS)
		assert_int_equal(bootmem_load_filled(), overlaps(rsv, n_list));
	/* Where the list and a carried range meet, the list names them. */
	assert_string_equal(name_at(t0.start), "firmware");
	assert_string_equal(name_at(t1.start), "acpi");
	tab = bootmem_reserved_regions(&count);
	if (n <= BOOTMEM_STATIC_REGIONS) { /* on its static store */
		free(rsv);
		return;
	}
	table_off_carried(pa_val(virt_to_phys(tab)), count * sizeof(*tab));
	free(rsv);
}

/* A list of 600: bootmem's table placed by a walk beside it all. */
static void test_carried(void **state)
{
	(void)state;
	carried_case(600, N_CARRIED);
}

/* A list of 40: placed by a look near the top (fit_near_top()). */
static void test_carried_short_list(void **state)
{
	(void)state;
	carried_case(40, N_CARRIED);
}

/*
 * 40 and some 300: fewer than the static table, the list loaded in its
 * own order, the carried ones beside it all the same (the same names).
 */
static void test_carried_few(void **state)
{
	(void)state;
	carried_case(40, 150);
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
		cmocka_unit_test_setup_teardown(test_runs_apart_table,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_carried, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_carried_short_list,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_carried_few, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
