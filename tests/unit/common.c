/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' fixture (see common.h): console capture, the one panic
 * hook, the machine builder and heap snapshots. Compiled once and linked
 * into every unit test binary; it holds no test of its own.
 *
 * The machine is built the way common/boot.c builds it, from a short
 * config instead of firmware; every build starts from scratch (new RAM
 * arena, bootinfo, NUMA, bootmem, frame table, heap), so a test never sees
 * the previous test's machine.
 */
#include "common.h"

#include <arch/cpu.h>
#include <arch/irq.h>
#include <keel/bad_lattice.h>
#include <keel/boot.h>
#include <keel/cachemaint.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/trace.h>

/* ---- setup / teardown ---------------------------------------------------- */

int test_setup(void **state)
{
	(void)state;
	test_quiet_begin();
	return 0;
}

/*
 * Runs after every test, also after one whose assertion failed half-way:
 * so it puts back each piece of global state a test may change (cmocka
 * leaves a failed test at its assertion), and a failure cannot fail the
 * next test. The boot CPU's interrupts back off, its timer cancelled, no
 * fault armed, no observer or test hook, heap misuse strict as built,
 * the default log level and trace mode.
 */
int test_teardown(void **state)
{
	(void)state;
	arch_irq_disable();
	arch_timer_cancel();
	inject_arm(NULL, 0);
	sandbox_set_cache_observer(NULL);
	sandbox_set_scrub_observer(NULL);
	sandbox_set_idle_wait(0);
	stress_test_corrupt_hook = NULL;
	heap_strict = IS_ENABLED(CONFIG_DEBUG);
	printk_set_level(LOG_INFO);
	trace_set_mode(TRACE_MODE_SUMMARY);
	test_quiet_end();
	sandbox_set_panic_hook(NULL);
	return 0;
}

/* ---- console ------------------------------------------------------------- */

void test_quiet_begin(void)
{
	sandbox_console_clear();
	sandbox_console_capture(true, true);
}

void test_quiet_end(void)
{
	sandbox_console_capture(false, false);
}

bool test_console_contains(const char *s)
{
	return strstr(sandbox_console_buffer(), s) != NULL;
}

unsigned int test_console_count(const char *s)
{
	unsigned int n = 0;

	for (const char *p = sandbox_console_buffer(); (p = strstr(p, s)); p++)
		n++;
	return n;
}

unsigned int test_console_warnings(void)
{
	const char *p = sandbox_console_buffer();
	unsigned int n = 0;

	while ((p = strstr(p, "keel: warning: ")) != NULL) {
		n++;
		p++;
	}
	return n;
}

unsigned int test_console_lines(void)
{
	unsigned int n = 0;

	for (const char *p = sandbox_console_buffer(); *p; p++)
		n += *p == '\n';
	return n;
}

bool test_has_reserved(const struct bootinfo *bi, uint64_t s, uint64_t e,
		       const char *name)
{
	for (unsigned int i = 0; i < bi->reserved.count; i++)
		if (pa_val(bi->reserved.regions[i].start) == s &&
		    pa_val(bi->reserved.regions[i].end) == e &&
		    !strcmp(bi->reserved.regions[i].name, name))
			return true;
	return false;
}

/* ---- panics -------------------------------------------------------------- */

jmp_buf test_panic_jmp;
volatile bool test_panic_expected;

void test_panic_hook(const char *msg)
{
	if (test_panic_expected)
		longjmp(test_panic_jmp, 1);
	sandbox_set_panic_hook(NULL);
	fail_msg("unexpected panic: %s", msg);
}

void test_check_panic_msg(const char *what, const char *substr)
{
	const char *msg = sandbox_last_panic();

	if (substr && !strstr(msg, substr))
		fail_msg("%s panicked with \"%s\", expected \"%s\"", what, msg,
			 substr);
}

/* ---- a small machine ----------------------------------------------------- */

struct bootinfo test_bi;
struct keel_options opts;

/* Node @node's RAM starts where the nodes before it end. */
static paddr_t node_start(const struct test_machine_cfg *cfg, unsigned int node)
{
	uint64_t s = TEST_RAM_BASE;

	for (unsigned int n = 0; n < node; n++)
		s += cfg->node[n].ram_bytes;
	return pa(s);
}

/*
 * Per-node layout: RAM (whole or in pieces) and CPUs; the first CPU is the
 * boot CPU, every CPU its own core. Return: the top of RAM.
 */
static uint64_t add_nodes(struct bootinfo *bi,
			  const struct test_machine_cfg *cfg)
{
	uint64_t top = TEST_RAM_BASE;
	unsigned int hwid = 0;

	for (unsigned int n = 0; n < cfg->nodes; n++) {
		const struct test_node_cfg *nc = &cfg->node[n];
		paddr_t start = node_start(cfg, n);

		if (nc->ram_bytes && nc->pieces > 1) {
			uint64_t part = nc->ram_bytes / nc->pieces;

			for (unsigned int k = 0; k < nc->pieces; k++)
				bootinfo_add_ram(
					bi, pa_add(start, k * part + PAGE_SIZE),
					pa_add(start,
					       (k + 1) * part - PAGE_SIZE),
					n);
		} else if (nc->ram_bytes) {
			bootinfo_add_ram(bi, start,
					 pa_add(start, nc->ram_bytes), n);
		}
		top = pa_val(start) + nc->ram_bytes;
		for (unsigned int c = 0; c < nc->cpus; c++, hwid++)
			bootinfo_add_cpu(bi, hwid, n, n, hwid, 0, true);
	}
	if (bi->cpu_count)
		bi->cpus[0].boot_cpu = true;
	return top;
}

/* Explicit ranges and one boot CPU on node 0. Return: the top of RAM. */
static uint64_t add_ranges(struct bootinfo *bi,
			   const struct test_machine_cfg *cfg)
{
	uint64_t top = 0;

	for (unsigned int i = 0; i < cfg->ram_count; i++) {
		bootinfo_add_ram(bi, pa(cfg->ram[i].start), pa(cfg->ram[i].end),
				 cfg->ram[i].node);
		if (cfg->ram[i].end > top)
			top = cfg->ram[i].end;
	}
	bootinfo_add_cpu(bi, 0, 0, 0, 0, 0, true);
	bi->cpus[0].boot_cpu = true;
	return top;
}

/* The test machine's cache maintenance policy (in a boot: the flow's). */
static struct cachemaint_stats test_maint_stats;
static struct cachemaint test_maint;

void test_set_cachemaint(enum cachemaint_mode mode)
{
	test_maint_stats = (struct cachemaint_stats){0};
	test_maint = cachemaint_policy(mode, &test_maint_stats);
	heap_set_cachemaint(&test_maint);
}

unsigned int test_machine_boot(const struct test_machine_cfg *cfg)
{
	struct bootinfo *bi = &test_bi;
	unsigned int online = 1;
	uint64_t top, idx;
	paddr_t s, e;
	uint32_t node;

	test_quiet_begin();
	options_defaults(&opts);
	if (cfg->cmdline)
		cmdline_parse(&opts, cfg->cmdline, strlen(cfg->cmdline));
	boot_apply_options(&opts);

	bootinfo_early_pool_reset(); /* one boot's bump allocator */
	bootinfo_init(bi, BOOT_SANDBOX);
	bi->paddr_bits = 48;
	top = cfg->ram ? add_ranges(bi, cfg) : add_nodes(bi, cfg);
	for (unsigned int i = 0; i < cfg->rsv_count; i++)
		bootinfo_add_reserved(bi, pa(cfg->rsv[i].start),
				      pa(cfg->rsv[i].end), cfg->rsv[i].name);
	for (unsigned int a = 0; a < MAX_NUMNODES; a++)
		for (unsigned int b = 0; b < MAX_NUMNODES; b++)
			if (cfg->distance[a][b])
				bootinfo_set_distance(bi, a, b,
						      cfg->distance[a][b]);
	bootinfo_sanitise(bi);
	assert_int_equal(sandbox_ram_init(top), 0);

	numa_init(bi);
	if (cfg->before_bootmem)
		cfg->before_bootmem(bi);
	bootmem_init();
	bootmem_init_from_bootinfo(bi);
	if (cfg->mem_limit)
		bootmem_limit(cfg->mem_limit, 0);
	if (cfg->bootmem_only)
		goto out;
	frametable_init(bi->node_count);
	if (!cfg->ram) {
		smp_init(bi);
		scrub_init_cpus();
		stress_init_cpus();
		online = smp_boot_cpus(cfg->ap_timeout_ms ? cfg->ap_timeout_ms
							  : 1000,
				       opts.smp_start);
	}
	heap_init(cfg->mode, bi->node_count,
		  (const uint8_t(*)[MAX_NUMNODES])bi->distance);
	test_set_cachemaint(cfg->cachemaint);
	if (cfg->fill) {
		for_each_free_range (idx, &s, &e, &node)
			memset(phys_to_virt(s), cfg->fill,
			       pa_val(e) - pa_val(s));
	}
	if (!cfg->no_handoff) {
		heap_handoff(cfg->dirty);
		bad_lattice_take(false); /* as common/boot.c: before any use */
	}
out:
	test_quiet_end();
	return online;
}

/* ---- heap snapshots ------------------------------------------------------ */

struct snap_ctx {
	struct test_snap *s;
	uint8_t flags_mask;
};

static void snap_chunk(struct page_info *head, unsigned int order,
		       unsigned int zone, void *arg)
{
	const struct snap_ctx *ctx = arg;
	struct test_snap *s = ctx->s;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->c = realloc(s->c, s->cap * sizeof(*s->c));
		assert_non_null(s->c);
	}
	s->c[s->n].pfn = head->pfn;
	s->c[s->n].order = (uint8_t)order;
	s->c[s->n].node = head->node;
	s->c[s->n].first_dirty = head->first_dirty;
	s->c[s->n].flags = head->flags & ctx->flags_mask;
	s->n++;
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct test_chunk *x = a, *y = b;

	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

struct test_snap test_heap_snapshot_flags(uint8_t flags_mask)
{
	struct test_snap s = {0};
	struct snap_ctx ctx = {&s, flags_mask};

	for (unsigned int n = 0; n < heap_node_count(); n++)
		heap_for_each_free(n, snap_chunk, &ctx);
	if (s.n)
		qsort(s.c, s.n, sizeof(*s.c), chunk_cmp);
	return s;
}

struct test_snap test_heap_snapshot(void)
{
	return test_heap_snapshot_flags(0xff);
}

void test_snap_equal(const struct test_snap *a, const struct test_snap *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct test_chunk *x = &a->c[i], *y = &b->c[i];

		if (x->pfn != y->pfn || x->order != y->order ||
		    x->node != y->node || x->first_dirty != y->first_dirty ||
		    x->flags != y->flags)
			fail_msg("chunk %zu: pfn %#llx o%u n%u fd%u f%#x, now "
				 "pfn %#llx o%u n%u fd%u f%#x",
				 i, (unsigned long long)x->pfn, x->order,
				 x->node, x->first_dirty, x->flags,
				 (unsigned long long)y->pfn, y->order, y->node,
				 y->first_dirty, y->flags);
	}
}

void test_heap_check_clean(void)
{
	unsigned int bad;

	test_quiet_begin();
	bad = heap_check();
	test_quiet_end();
	if (bad)
		fail_msg("heap_check: %u problems:\n%s", bad,
			 sandbox_console_buffer());
}

const struct heap_stats *test_node_stats(uint32_t n)
{
	static struct heap_stats st;

	assert_int_equal(heap_stats(n, 0, &st), 0);
	return &st;
}

/* ---- bootinfo copies ----------------------------------------------------- */

static void copy_table(struct range_table *dst, const struct range_table *src,
		       struct region *src_store, struct region *dst_store)
{
	*dst = *src;
	if (src->regions == src_store) {
		dst->regions = dst_store;
		return;
	}
	dst->regions = calloc(src->cap, sizeof(struct region));
	assert_non_null(dst->regions);
	memcpy(dst->regions, src->regions, src->count * sizeof(struct region));
}

/** test_bootinfo_copy() - @src into @dst, tables not shared. */
void test_bootinfo_copy(struct bootinfo *dst, const struct bootinfo *src)
{
	struct bootinfo *s = (struct bootinfo *)src;

	memcpy(dst, src, sizeof(*dst));
	copy_table(&dst->ram, &src->ram, s->ram_store, dst->ram_store);
	copy_table(&dst->reserved, &src->reserved, s->reserved_store,
		   dst->reserved_store);
}

void test_two_node_heap(void)
{
	static const struct test_ram two_nodes[] = {
		{0, 64 << 20, 0},
		{64 << 20, 128 << 20, 1},
	};
	struct test_machine_cfg c = {
		.ram = two_nodes,
		.ram_count = 2,
		.mode = HEAP_INIT_LAZY,
	};

	test_machine_boot(&c);
	heap_strict = true;
	heap_set_cpu_node(arch_cpu_id(), 0);
}
