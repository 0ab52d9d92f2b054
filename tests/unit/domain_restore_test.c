/* SPDX-License-Identifier: MIT */
/*
 * Domains restored from a live update's handover
 * (common/domain/domain_restore.c): a p2m written by hand in the arch's
 * format into preserved memory, described as boot/handover.c describes a
 * taken handover's domain, then domains_restore(). A good one comes back
 * as owned extents (one cut at a node boundary) that audit=full and the
 * domain checks accept, its contents untouched; a leaf outside its
 * extents, a table page outside its table pages, or an extent the heap
 * refuses fail the domain alone, with nothing adopted and nothing
 * written.
 */
#include <unistd.h>

#include "common.h"
#include <arch/p2m.h>
#include <keel/audit.h>
#include <keel/domain.h>
#include <keel/handover.h>
#include <keel/heap.h>
#include <keel/heap_check.h>
#include <keel/liveupdate.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>

#include "../../common/domain/domain_priv.h"
#include "../../common/report/report_priv.h"

static struct domain_set ds;

#define KiB (1ULL << 10)
/* Node 0 is [16 MiB, 80 MiB), node 1 [80 MiB, 144 MiB) (TEST_RAM_BASE). */
#define A_PA	  (32 * MiB) /* guest [0, 6 MiB): 3 leaves of 2 MiB */
#define A_SIZE	  (6 * MiB)
#define C_PA	  (78 * MiB) /* guest [6 MiB, 10 MiB): across the nodes */
#define C_SIZE	  (4 * MiB)
#define C_GPA	  A_SIZE
#define B_PA	  (96 * MiB) /* guest [10 MiB, 10 MiB + 8 KiB): 4 KiB leaves */
#define B_SIZE	  (8 * KiB)
#define B_GPA	  (C_GPA + C_SIZE)
#define T_PA	  (40 * MiB) /* the table pages */
#define T_MAX	  (64 * KiB)
#define FREE_PA	  (50 * MiB) /* heap memory */
#define DOM_BYTES (A_SIZE + B_SIZE + C_SIZE)

static const struct test_rsv preserved[] = {
	{A_PA, A_PA + A_SIZE, "preserved"},
	{T_PA, T_PA + T_MAX, "preserved"},
	{C_PA, C_PA + C_SIZE, "preserved"},
	{B_PA, B_PA + B_SIZE, "preserved"},
};

static const struct p2m_format *fmt;
static unsigned int start_level, root_order, ipa_bits;
static uint64_t next_table;
static uint8_t rec[sizeof(struct handover_domain) +
		   sizeof(struct handover_range) +
		   4 * sizeof(struct handover_extent)];
static uint8_t rec2[sizeof(rec)];

static uint64_t *table(uint64_t p)
{
	return phys_to_virt(pa(p));
}

static uint64_t index_at(uint64_t gpa, unsigned int level)
{
	uint64_t n = level == start_level ? 512ull << root_order : 512;

	return (gpa >> p2m_level_shift(level)) & (n - 1);
}

/* The entry of the leaf at @leaf for guest @gpa under @root, tables added. */
static uint64_t *leaf_entry_at(uint64_t root, uint64_t gpa, unsigned int leaf)
{
	uint64_t t = root;
	paddr_t out;

	for (unsigned int l = start_level; l < leaf; l++) {
		uint64_t *e = &table(t)[index_at(gpa, l)];

		if (fmt->decode(*e, l, &out) != P2M_PTE_TABLE) {
			assert_true(next_table + PAGE_SIZE <= T_PA + T_MAX);
			memset(table(next_table), 0, PAGE_SIZE);
			*e = fmt->table(pa(next_table));
			out = pa(next_table);
			next_table += PAGE_SIZE;
		}
		t = pa_val(out);
	}
	return &table(t)[index_at(gpa, leaf)];
}

static uint64_t *leaf_entry(uint64_t gpa, unsigned int leaf)
{
	return leaf_entry_at(T_PA, gpa, leaf);
}

/* Map guest @gpa to @p with one leaf at @leaf. */
static void map(uint64_t gpa, uint64_t p, unsigned int leaf)
{
	*leaf_entry(gpa, leaf) = fmt->leaf(pa(p), leaf);
}

static void map_run(uint64_t gpa, uint64_t p, uint64_t bytes, unsigned int leaf)
{
	uint64_t step = 1ull << p2m_level_shift(leaf);

	for (uint64_t o = 0; o < bytes; o += step)
		map(gpa + o, p + o, leaf);
}

static uint64_t pattern(uint64_t p)
{
	return p * 0x9e3779b97f4a7c15ull ^ 0x726573746f726564ull;
}

static void fill(uint64_t s, uint64_t e)
{
	for (uint64_t p = s; p < e; p += PAGE_SIZE)
		*table(p) = pattern(p);
}

static bool intact(uint64_t s, uint64_t e)
{
	for (uint64_t p = s; p < e; p += PAGE_SIZE)
		if (*table(p) != pattern(p))
			return false;
	return true;
}

static bool all_intact(void)
{
	return intact(A_PA, A_PA + A_SIZE) && intact(B_PA, B_PA + B_SIZE) &&
	       intact(C_PA, C_PA + C_SIZE);
}

/* Domain @i of the handover, its record in @buf, as the old image writes. */
static void describe_dom(unsigned int i, uint8_t *buf, uint16_t id,
			 const char *name, uint64_t root,
			 struct handover_range r,
			 const struct handover_extent *x, uint32_t nx)
{
	struct handover_domain d = {0};
	struct bi_handover *h = &test_bi.handover;
	uint32_t bytes = (uint32_t)(sizeof(d) + sizeof(r) + nx * sizeof(*x));
	uint64_t sum = 0;

	for (uint32_t k = 0; k < nx; k++)
		sum += x[k].pages << PAGE_SHIFT;
	d.head.type = HANDOVER_REC_DOMAIN;
	d.head.bytes = bytes;
	d.id = id;
	strcpy(d.name, name);
	d.bytes = sum;
	d.p2m_root = root;
	d.p2m_format = fmt == &p2m_format_vmsa_s2 ? HANDOVER_P2M_VMSA
		       : fmt == &p2m_format_ept	  ? HANDOVER_P2M_EPT
						  : HANDOVER_P2M_NPT;
	d.p2m_start_level = (uint8_t)start_level;
	d.p2m_root_order = (uint8_t)root_order;
	d.p2m_ipa_bits = (uint8_t)ipa_bits;
	d.table_count = 1;
	d.extent_count = nx;
	memcpy(buf, &d, sizeof(d));
	memcpy(buf + sizeof(d), &r, sizeof(r));
	memcpy(buf + sizeof(d) + sizeof(r), x, nx * sizeof(*x));
	h->state = HANDOVER_TAKEN;
	h->domain_count = MAX(h->domain_count, i + 1);
	h->domains[i] = (struct bi_handover_domain){
		.id = id,
		.node = 0,
		.bytes = sum,
		.root = pa(root),
		.table_count = 1,
		.extent_count = nx,
		.view = {.head = buf, .size = bytes},
		.rec = 0,
		.rec_bytes = bytes,
	};
	strcpy(h->domains[i].name, name);
}

/* The handover's domain record, as the old image writes it. */
static void describe(uint64_t b_pa)
{
	struct handover_extent x[3] = {
		{0, A_PA, A_SIZE >> PAGE_SHIFT},
		{C_GPA, C_PA, C_SIZE >> PAGE_SHIFT},
		{B_GPA, b_pa, B_SIZE >> PAGE_SHIFT},
	};

	describe_dom(0, rec, 1, "restored-one", T_PA,
		     (struct handover_range){T_PA, next_table}, x, 3);
}

/* The machine, the domain's memory filled, its table written. */
static void machine(void)
{
	struct test_machine_cfg cfg = {
		.nodes = 2,
		.node = {{64 * MiB, 2, 0}, {64 * MiB, 2, 0}},
		.rsv = preserved,
		.rsv_count = ARRAY_SIZE(preserved),
		.cmdline = "audit=full",
		.cachemaint = CACHEMAINT_DEFERRED,
	};

	assert_int_equal(test_machine_boot(&cfg), 4);
	fmt = arch_p2m_format();
	ipa_bits = MAX(fmt->min_ipa_bits, 32u);
	fmt->geometry(ipa_bits, &start_level, &root_order);
	memset(table(T_PA), 0, PAGE_SIZE << root_order);
	next_table = T_PA + (PAGE_SIZE << root_order);
	map_run(0, A_PA, A_SIZE, 2);
	map_run(C_GPA, C_PA, C_SIZE, 2);
	map_run(B_GPA, B_PA, B_SIZE, 3);
	fill(A_PA, A_PA + A_SIZE);
	fill(B_PA, B_PA + B_SIZE);
	fill(C_PA, C_PA + C_SIZE);
	describe(B_PA);
}

static unsigned int restore(unsigned int *failed)
{
	unsigned int n;

	test_quiet_begin();
	n = domains_restore(&ds, &test_bi, &opts, failed);
	test_quiet_end();
	return n;
}

static void audit_ok(void)
{
	struct audit_result a;

	test_quiet_begin();
	audit_run(&a, true);
	test_quiet_end();
	assert_true(a.ok);
	assert_int_equal(a.lost_pages, 0);
	assert_int_equal(a.owned_pages, heap_stats_all(0).owned_pages);
}

/*
 * The update's verdict after @restored of the handover's domains came
 * back, @failed not: NULL (a pass) only when every one did.
 */
static const char *update_verdict(unsigned int restored, unsigned int failed)
{
	test_quiet_begin();
	liveupdate_boot(&test_bi, &opts);
	liveupdate_restored(arch_ticks(), restored, failed);
	test_quiet_end();
	return liveupdate_fail_reason();
}

/* Nothing adopted, nothing written: the domain failed alone. */
static void failed_alone(const char *why)
{
	struct domain_view v;
	unsigned int failed;

	assert_int_equal(restore(&failed), 0);
	assert_int_equal(failed, 1);
	assert_true(domain_view(&ds, 0, &v));
	assert_true(v.failed && !v.built && !v.p2m);
	if (!strstr(v.fail_reason, why))
		fail_msg("fail_reason \"%s\" lacks \"%s\"", v.fail_reason, why);
	assert_int_equal(heap_stats_all(0).adopted_pages, 0);
	assert_int_equal(heap_stats_all(0).owned_pages, 0);
	assert_int_equal(heap_owner_of(paddr_to_pfn(pa(A_PA)), NULL, NULL),
			 HEAP_OWNER_NONE);
	assert_true(all_intact());
	audit_ok();
	/* A live update that lost a domain is a failed update. */
	assert_non_null(update_verdict(0, 1));
	test_quiet_begin();
	liveupdate_report_human(&ds);
	test_quiet_end();
	assert_true(test_console_contains("liveupdate: generation 0, 0 of 1 "
					  "domains restored ("));
	assert_non_null(strstr(update_verdict(0, 1),
			       "liveupdate: 1 of 1 domains of the handover "
			       "not restored"));
}

static void test_restored(void **state)
{
	struct domain_view v;
	unsigned int failed, problems;
	pfn_t head;

	(void)state;
	machine();
	assert_int_equal(restore(&failed), 1);
	assert_int_equal(failed, 0);
	assert_true(domain_view(&ds, 0, &v));
	assert_true(v.built && !v.failed && v.p2m);
	assert_int_equal(v.origin, DOMAIN_ORIGIN_HANDOVER);
	assert_string_equal(v.name, "restored-one");
	assert_int_equal(v.id, 1);
	assert_int_equal(v.bytes, DOM_BYTES);
	assert_int_equal(v.extents[1], 3 + 2); /* 2 MiB leaves of A and C */
	assert_int_equal(v.extents[2], 2);     /* 4 KiB leaves of B */
	assert_int_equal(v.remote_bytes, B_SIZE + 2 * MiB); /* B, C's half */
	assert_int_equal(v.table_pages, (next_table - T_PA) >> PAGE_SHIFT);
	assert_int_equal(heap_stats_all(1).owned_pages,
			 DOM_BYTES >> PAGE_SHIFT);
	assert_int_equal(
		heap_owner_of(paddr_to_pfn(pa(C_PA + 3 * MiB)), &head, NULL),
		1);
	assert_int_equal(pfn_val(head), (80 * MiB) >> PAGE_SHIFT);
	/* Table pages stay reserved: never the heap's. */
	assert_int_equal(heap_owner_of(paddr_to_pfn(pa(T_PA)), NULL, NULL),
			 HEAP_OWNER_NONE);
	test_quiet_begin();
	problems = domains_check(&ds, true);
	test_quiet_end();
	assert_int_equal(problems, 0);
	assert_true(all_intact());
	audit_ok();
	assert_null(update_verdict(1, 0));

	/* Destroy: back to reserved, contents untouched. */
	test_quiet_begin();
	domains_destroy_all(&ds);
	test_quiet_end();
	assert_int_equal(ds.stats.problems, 0);
	assert_int_equal(heap_stats_all(0).adopted_pages, 0);
	assert_int_equal(heap_owner_of(paddr_to_pfn(pa(A_PA)), NULL, NULL),
			 HEAP_OWNER_NONE);
	assert_true(all_intact());
	audit_ok();
}

/* A leaf to a frame that is no extent of the domain (free heap memory). */
static void test_leaf_outside(void **state)
{
	(void)state;
	machine();
	map(2 * MiB, FREE_PA, 2);
	failed_alone("a leaf outside its extents");
}

/* A leaf of an extent at another guest address than the extent says. */
static void test_leaf_moved(void **state)
{
	(void)state;
	machine();
	map(0, A_PA + 2 * MiB, 2); /* guest 0 -> the extent's second leaf */
	failed_alone("a leaf outside its extents");
}

/*
 * A descriptor the format reserves at the leaf level (found by asking the
 * format, so each arch's encoding is covered): the reason names the
 * descriptor, its guest address and its level, not "guest A -> B".
 */
static void test_reserved_descriptor(void **state)
{
	uint64_t bad = 0;
	paddr_t out;

	(void)state;
	machine();
	for (uint64_t v = 1; v < 1u << 12 && !bad; v++)
		if (fmt->decode(v, 3, &out) == P2M_PTE_BAD)
			bad = v;
	assert_true(bad);
	*leaf_entry(B_GPA, 3) = bad;
	failed_alone("a descriptor the format reserves (0x");
}

/* A table descriptor to a page that is not one of its table pages. */
static void test_table_outside(void **state)
{
	uint64_t *root;

	(void)state;
	machine();
	root = table(T_PA);
	root[index_at(0, start_level)] = fmt->table(pa(FREE_PA));
	failed_alone("a table page not among its preserved table pages");
}

/* Leaves that do not map all of the domain's bytes. */
static void test_not_all_mapped(void **state)
{
	(void)state;
	machine();
	*leaf_entry(B_GPA, 3) = 0; /* B's first page unmapped */
	failed_alone("the leaves do not map its bytes: 10489856 bytes "
		     "mapped, its extents hold 10493952");
}

/*
 * A record's geometry out of range: its reason names the fields and
 * values, never as a "guest A -> B" pair of addresses.
 */
static void test_record_reasons(void **state)
{
	struct handover_domain *d = (void *)rec;

	(void)state;
	machine();
	d->p2m_ipa_bits = 200;
	failed_alone("p2m_ipa_bits 200 outside ");
	machine();
	d->p2m_start_level = (uint8_t)(start_level + 1);
	failed_alone("p2m start level");
	machine();
	map_run(B_GPA, FREE_PA, B_SIZE, 3);
	describe(FREE_PA);
	failed_alone("the heap refused extent[2] at 0x3200000: outside RAM, "
		     "or not RAM of its node reserved for a domain");
}

/* An extent the heap refuses (it is free memory): the others released. */
static void test_adopt_refused(void **state)
{
	(void)state;
	machine();
	map_run(B_GPA, FREE_PA, B_SIZE, 3);
	describe(FREE_PA);
	failed_alone("the heap refused extent[2]");
}

/*
 * Issue 36: a forged p2m whose entries alias one table per level (every
 * entry of the root to one table, every entry of that to one more, down
 * to an empty leaf table) with 534 GiB claimed as table pages. The walk
 * was bounded only by the pages claimed: 512^3 tables of 512 entries, for
 * minutes. A table over guest memory no extent maps is refused, so the
 * walk stops after the few tables a 10 MiB domain needs. Quiet: well
 * under a second; the alarm is a safety net (60 s) that turns the old
 * walk's hang into a failure.
 */
static void test_tables_alias(void **state)
{
	uint64_t *t;
	uint64_t next;

	(void)state;
	machine();
	ipa_bits = MIN(fmt->max_ipa_bits, 48u);
	fmt->geometry(ipa_bits, &start_level, &root_order);
	next = T_PA + (PAGE_SIZE << root_order);
	/* Root, then one table per level, each entry to the next one. */
	for (unsigned int l = start_level; l < P2M_LEAF_LEVEL; l++) {
		uint64_t at = l == start_level ? T_PA : next - PAGE_SIZE;
		uint64_t n = l == start_level ? 512ull << root_order : 512;

		t = table(at);
		memset(table(next), 0, PAGE_SIZE);
		for (uint64_t i = 0; i < n; i++)
			t[i] = fmt->table(pa(next));
		next += PAGE_SIZE;
	}
	next_table = next;
	/*
	 * The claim: 534 GiB of table pages from T_PA, over no guest memory
	 * (one extent, below the tables), so the isolation check lets it by
	 * and the walk's own bound must stop it.
	 */
	describe_dom(0, rec, 1, "restored-one", T_PA,
		     (struct handover_range){T_PA, T_PA + 534 * GiB},
		     &(struct handover_extent){0, A_PA, A_SIZE >> PAGE_SHIFT},
		     1);
	alarm(60);
	failed_alone("a table over guest memory no extent maps");
	alarm(0);
}

/*
 * Guest isolation: both domains of the handover fail, nothing adopted,
 * the reason naming the overlap (today's walk alone restored them).
 */
static void all_refused(unsigned int domains, const char *why)
{
	struct domain_view v;
	unsigned int failed;

	assert_int_equal(restore(&failed), 0);
	assert_int_equal(failed, domains);
	for (unsigned int i = 0; i < domains; i++) {
		assert_true(domain_view(&ds, i, &v));
		assert_true(v.failed && !v.built && !v.p2m);
		assert_non_null(strstr(v.fail_reason, why));
	}
	assert_int_equal(heap_stats_all(0).adopted_pages, 0);
	assert_true(all_intact());
	audit_ok();
}

/* The domain's own memory holds its own p2m root: it could rewrite it. */
static void test_maps_own_root(void **state)
{
	struct handover_extent x[4] = {
		{0, A_PA, A_SIZE >> PAGE_SHIFT},
		{C_GPA, C_PA, C_SIZE >> PAGE_SHIFT},
		{B_GPA, B_PA, B_SIZE >> PAGE_SHIFT},
		{B_GPA + B_SIZE, T_PA, 1},
	};

	(void)state;
	machine();
	map(B_GPA + B_SIZE, T_PA, 3);
	describe_dom(0, rec, 1, "restored-one", T_PA,
		     (struct handover_range){T_PA, next_table}, x, 4);
	all_refused(1, "memory [0x2800000, 0x2801000) overlaps domains[0] "
		       "(restored-one) p2m table pages");
}

/* A second domain whose one page is the first domain's p2m root. */
static void test_maps_other_root(void **state)
{
	struct handover_extent x = {0, T_PA, 1};
	uint64_t root2;

	(void)state;
	machine();
	root2 = next_table;
	memset(table(root2), 0, PAGE_SIZE << root_order);
	next_table += PAGE_SIZE << root_order;
	*leaf_entry_at(root2, 0, 3) = fmt->leaf(pa(T_PA), 3);
	describe_dom(1, rec2, 2, "thief", root2,
		     (struct handover_range){root2, next_table}, &x, 1);
	all_refused(2, "overlaps domains[1] (thief) memory");
}

/*
 * domains_disjoint() at scale: two domains of 100k one-page extents each,
 * interleaved page by page, and 1000 table ranges each: disjoint, then
 * one extent of the second moved onto a table page of the first. A
 * pairwise check would take 10^10 steps; the sort and sweep take well
 * under a second (no timing asserted).
 */
#define MANY   100000u
#define MANY_T 1000u
#define M_BASE (1ull << 32)
#define M_TBL  (1ull << 36)

/* Domain @d of @h: MANY_T table pages and MANY one-page extents. */
static void many_dom(struct bi_handover *h, unsigned int d, uint8_t *r,
		     size_t bytes)
{
	uint8_t *a = r + sizeof(struct handover_domain);

	for (uint32_t k = 0; k < MANY_T; k++) {
		struct handover_range t = {
			M_TBL + ((2ull * k + d) << PAGE_SHIFT),
			M_TBL + ((2ull * k + d + 1) << PAGE_SHIFT)};

		memcpy(a + k * sizeof(t), &t, sizeof(t));
	}
	a += MANY_T * sizeof(struct handover_range);
	for (uint32_t k = 0; k < MANY; k++) {
		struct handover_extent x = {
			(uint64_t)k << PAGE_SHIFT,
			M_BASE + ((2ull * k + d) << PAGE_SHIFT), 1};

		memcpy(a + k * sizeof(x), &x, sizeof(x));
	}
	h->domains[d] = (struct bi_handover_domain){
		.id = (uint16_t)(d + 1),
		.table_count = MANY_T,
		.extent_count = MANY,
		.view = {.head = r, .size = bytes},
		.rec = 0,
		.rec_bytes = (uint32_t)bytes,
	};
	snprintf(h->domains[d].name, sizeof(h->domains[d].name), "many%u", d);
}

/*
 * domains_disjoint() over runs of @per spans each, as many as @cap spans
 * need, each its own allocation (ASan catches a run overrun).
 */
static int disjoint_in(const struct bi_handover *h, uint64_t cap, uint64_t per,
		       char *why)
{
	uint32_t k = (uint32_t)((cap + per - 1) / per);
	struct handover_span **runs = calloc(k, sizeof(*runs));
	uint64_t *idx = calloc(3 * (uint64_t)k, sizeof(*idx));
	int err;

	assert_non_null(runs && idx);
	for (uint32_t r = 0; r < k; r++) {
		runs[r] = calloc(per, sizeof(**runs));
		assert_non_null(runs[r]);
	}
	err = domains_disjoint(h, runs, k, per, idx, why, 256);
	for (uint32_t r = 0; r < k; r++)
		free(runs[r]);
	free(runs);
	free(idx);
	return err;
}

static void test_disjoint_many(void **state)
{
	size_t bytes = sizeof(struct handover_domain) +
		       MANY_T * sizeof(struct handover_range) +
		       MANY * sizeof(struct handover_extent);
	uint64_t cap = 2 * (MANY + MANY_T);
	struct bi_handover *h = calloc(1, sizeof(*h));
	uint8_t *buf[2] = {calloc(1, bytes), calloc(1, bytes)};
	struct handover_extent x = {777ull << PAGE_SHIFT,
				    M_TBL + (10ull << PAGE_SHIFT), 1};
	char why[256];

	(void)state;
	assert_non_null(h && buf[0] && buf[1]);
	many_dom(h, 0, buf[0], bytes);
	many_dom(h, 1, buf[1], bytes);
	h->domain_count = 2;
	assert_int_equal(handover_span_count(h), cap);
	assert_int_equal(disjoint_in(h, cap, cap, why), 0);
	assert_int_equal(disjoint_in(h, cap - 1, cap - 1, why), -ENOMEM);
	/* In runs of 4 KiB, as on a heap in small pieces: the same. */
	assert_int_equal(disjoint_in(h, cap, 256, why), 0);
	assert_int_equal(disjoint_in(h, cap - 256, 256, why), -ENOMEM);
	/* Extent 777 of many1 onto table page 5 of many0. */
	memcpy(buf[1] + sizeof(struct handover_domain) +
		       MANY_T * sizeof(struct handover_range) + 777 * sizeof(x),
	       &x, sizeof(x));
	for (unsigned int per = 1; per <= 4096; per *= 4) {
		memset(why, 0, sizeof(why));
		assert_int_equal(disjoint_in(h, cap, per, why), -EINVAL);
		assert_non_null(strstr(why,
				       "domains[0] (many0) p2m table pages "
				       "[0x100000a000, 0x100000b000) "
				       "overlaps domains[1] (many1) "
				       "memory"));
	}
	free(buf[0]);
	free(buf[1]);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_restored, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_leaf_outside, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_leaf_moved, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_reserved_descriptor,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_table_outside, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_not_all_mapped, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_adopt_refused, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_tables_alias, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_maps_own_root, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_maps_other_root,
						test_setup, test_teardown),
		cmocka_unit_test(test_disjoint_many),
		cmocka_unit_test_setup_teardown(test_record_reasons, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
