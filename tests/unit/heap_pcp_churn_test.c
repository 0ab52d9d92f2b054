// SPDX-License-Identifier: MIT
/*
 * The per-CPU caches' batch sizes and bounds (issue 37 target: at most one
 * node-lock acquisition per 16 operations of the churn): the churn of
 * tests/bench/heap_runtime.c (random orders 0..10, up to 64 blocks held,
 * allocation or free at random, HEAP_ANY_NODE) on its machine (2 nodes of
 * 256 MiB, 4 CPUs), as its CPU 1, with its seed, after its order 0 and
 * order 9 workloads left their blocks in the caches of CPUs 1 to 3. One
 * thread: the count is the caches' policy alone, the same at every run. The caches before took
 * 0.087 node locks per operation here (the big orders one block at a
 * time, an eighth of the heap in all caches).
 */
#include "common.h"

/* arch/sandbox/cpu.c: what arch_cpu_id() returns on this thread. */
void sandbox_set_cpu_id(unsigned int cpu, uint64_t hwid);
/* common/mm/heap_pcp.c: node locks the caches took for @order. */
uint64_t heap_pcp_locks(unsigned int order);

static const struct test_machine_cfg bench_machine = {
	.nodes = 2,
	.node = {{256 * MiB, 2, 0}, {256 * MiB, 2, 0}},
};

#define OPS  400000u
#define HELD 64u

static uint64_t node_locks(void)
{
	struct heap_stats st;
	uint64_t sum = 0;

	for (uint32_t n = 0; n < heap_node_count(); n++) {
		assert_int_equal(heap_stats(n, 0, &st), 0);
		sum += st.locks;
	}
	return sum;
}

/* As CPU @cpu: allocate @n blocks of @order, then free them (a burst). */
static void burst(unsigned int cpu, unsigned int order, unsigned int n)
{
	struct page_info *pg[16];

	sandbox_set_cpu_id(cpu, cpu);
	for (unsigned int i = 0; i < n; i++) {
		pg[i] = heap_alloc(order, HEAP_ANY_NODE, 0, HEAP_NO_SCRUB,
				   NULL);
		assert_non_null(pg[i]);
	}
	while (n--)
		assert_int_equal(heap_free(pg[n], order, HEAP_FREE_ZEROED), 0);
}

static void test_churn_one_lock_per_16(void **state)
{
	struct page_info *pg[HELD];
	unsigned int ord[HELD], n = 0, self = arch_cpu_id();
	uint64_t x = 0x9e3779b97f4a7c15ull * 2, locks, locks0, ops0 = 0;
	uint64_t total;

	(void)state;
	test_machine_boot(&bench_machine);
	/* The benchmark's CPUs (each cache's share of the heap is by them). */
	heap_set_cpu_node(1, 0);
	heap_set_cpu_node(2, 0);
	heap_set_cpu_node(3, 1);
	heap_set_cpu_caches(true);
	/* The benchmark's workloads before its churn, on its CPUs. */
	for (unsigned int cpu = 1; cpu <= 3; cpu++) {
		burst(cpu, 0, 16);
		burst(cpu, 9, 2);
	}
	sandbox_set_cpu_id(1, 1);
	total = heap_stats_all(0).free_pages;
	locks = node_locks();
	locks0 = heap_pcp_locks(0);
	for (unsigned int op = 0; op < OPS; op++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (n < HELD && (n == 0 || (x & 1))) {
			ord[n] = (unsigned int)((x >> 8) % 11);
			pg[n] = heap_alloc(ord[n], HEAP_ANY_NODE, 0,
					   HEAP_NO_SCRUB, NULL);
			assert_non_null(pg[n]);
			ops0 += !ord[n++];
		} else {
			unsigned int i = (unsigned int)((x >> 16) % n);

			assert_int_equal(
				heap_free(pg[i], ord[i], HEAP_FREE_ZEROED), 0);
			ops0 += !ord[i];
			n--;
			pg[i] = pg[n];
			ord[i] = ord[n];
		}
	}
	locks = node_locks() - locks;
	locks0 = heap_pcp_locks(0) - locks0;
	while (n--)
		assert_int_equal(heap_free(pg[n], ord[n], HEAP_FREE_ZEROED), 0);
	sandbox_set_cpu_id(self, self);
	print_message("churn: %.4f node locks/op, order 0: %.4f\n",
		      (double)locks / OPS, (double)locks0 / (double)ops0);
	assert_true(locks * 16 <= OPS);
	assert_true(locks0 * 16 <= ops0);
	assert_int_equal(heap_stats_all(0).free_pages, total);
	test_heap_check_clean();
	heap_set_cpu_caches(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_churn_one_lock_per_16,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
