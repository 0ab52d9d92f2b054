/* SPDX-License-Identifier: MIT */
/*
 * common/smp/smp.c: cpu_table layout, bring-up of sandbox pthread CPUs, work
 * dispatch, and the fault injections that leave a CPU out.
 */
#include "common.h"

#include <keel/atomic.h>
#include <unistd.h>

static unsigned int hits[NR_CPUS];
static unsigned int wrong_id;

static void count_hit(void *arg)
{
	unsigned int cpu = arch_cpu_id();

	/* arg is the table itself: proves it reached the CPU intact. */
	if (arg != hits || cpu >= NR_CPUS)
		atomic_fetch_add(&wrong_id, 1);
	else
		atomic_fetch_add(&hits[cpu], 1);
}

static void reset_hits(void)
{
	memset(hits, 0, sizeof(hits));
	wrong_id = 0;
}

/* 2 nodes x 2 CPUs, 32 MiB each. */
static unsigned int boot4(const char *cmdline, unsigned int timeout_ms)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 2,
		.node = {{32ull << 20, 2}, {32ull << 20, 2}},
		.cmdline = cmdline,
		.ap_timeout_ms = timeout_ms,
	};

	return test_machine_boot(&cfg);
}

static void test_run_on_reaches_each_once(void **state)
{
	cpumask_t all, some;

	(void)state;
	assert_int_equal(boot4(NULL, 0), 4);
	assert_int_equal(smp_online_count(), 4);
	assert_int_equal(cpu_count, 4);
	for (unsigned int i = 0; i < 4; i++) {
		assert_true(cpu_table[i].online);
		assert_null(cpu_table[i].fail_reason);
		assert_int_equal(cpu_table[i].hwid, i);
		assert_int_equal(cpu_table[i].node, i / 2);
	}

	smp_online_mask(&all);
	assert_int_equal(cpumask_weight(&all), 4);
	reset_hits();
	smp_run_on(&all, count_hit, hits);
	for (unsigned int i = 0; i < NR_CPUS; i++)
		assert_int_equal(hits[i], i < 4 ? 1 : 0);
	assert_int_equal(wrong_id, 0);

	/* Again, many times: the mailbox sequence keeps working. */
	reset_hits();
	for (unsigned int k = 0; k < 50; k++)
		smp_run_on(&all, count_hit, hits);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(hits[i], 50);

	/* A subset without the caller: post, then wait. */
	cpumask_clear(&some);
	cpumask_set(&some, 1);
	cpumask_set(&some, 3);
	reset_hits();
	smp_post(&some, count_hit, hits);
	smp_wait(&some);
	assert_int_equal(hits[0], 0);
	assert_int_equal(hits[1], 1);
	assert_int_equal(hits[2], 0);
	assert_int_equal(hits[3], 1);
}

static uint32_t release_flag;

static void block_until_released(void *arg)
{
	(void)arg;
	while (!atomic_load_acquire(&release_flag))
		usleep(100);
}

/*
 * smp_wait_until() (issue 36: a live update's freeze waits for nothing
 * without a bound): a CPU whose work does not end is named when the
 * deadline passes, the others are idle, and once it ends the wait is true.
 */
static void test_wait_until_names_the_busy_cpu(void **state)
{
	cpumask_t some, all;
	unsigned int busy = 0;
	uint64_t t0;

	(void)state;
	assert_int_equal(boot4(NULL, 0), 4);
	cpumask_clear(&some);
	cpumask_set(&some, 2);
	smp_online_mask(&all);
	atomic_store_release(&release_flag, 0);
	smp_post(&some, block_until_released, NULL);
	t0 = arch_ticks();
	assert_false(smp_wait_until(&all, t0 + arch_ticks_hz() / 20, &busy));
	assert_true(arch_ticks() - t0 >= arch_ticks_hz() / 20);
	assert_int_equal(busy, 2);
	assert_false(smp_cpu_idle(2));
	assert_true(smp_cpu_idle(1));
	assert_true(smp_cpu_idle(3));
	atomic_store_release(&release_flag, 1);
	assert_true(smp_wait_until(&all, arch_ticks() + 60 * arch_ticks_hz(),
				   &busy));
	assert_int_equal(busy, NR_CPUS);
	assert_true(smp_cpu_idle(2));
}

static void test_ap_timeout_left_out(void **state)
{
	cpumask_t all;

	(void)state;
	assert_int_equal(boot4("inject=ap-timeout:2", 300), 3);
	assert_false(cpu_table[2].online);
	assert_true(cpu_table[2].present);
	assert_non_null(cpu_table[2].fail_reason);
	assert_true(test_console_contains("cpu 2 (hwid 0x2)"));

	/* Broadcasting to "everything" reaches only the online ones. */
	smp_online_mask(&all);
	assert_false(cpumask_test(&all, 2));
	cpumask_set(&all, 2);
	reset_hits();
	smp_run_on(&all, count_hit, hits);
	assert_int_equal(hits[0], 1);
	assert_int_equal(hits[1], 1);
	assert_int_equal(hits[2], 0);
	assert_int_equal(hits[3], 1);
}

/*
 * Fifteen dead CPUs of a parallel start cost one ap_timeout_ms together,
 * not fifteen; smp_start=serial waits for each in turn (which shows the
 * bound can fail). The two are 15x apart, and the checks keep an order
 * of magnitude between them: parallel under 10 timeouts (1 s), serial at
 * least 15 (1.5 s). The host can only make a boot longer, and a quiet one
 * takes about 110 ms in parallel, so the parallel bound fails only on
 * 900 ms of delays, not on a preempted thread or two.
 */
static void test_dead_cpus_share_one_timeout(void **state)
{
	struct test_machine_cfg cfg = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 2,
		.node = {{32ull << 20, 8}, {32ull << 20, 8}},
		.cmdline = "inject=node-cpus-fail:0 inject=node-cpus-fail:1",
		.ap_timeout_ms = 100,
	};
	uint64_t t0;

	(void)state;
	t0 = arch_ticks();
	assert_int_equal(test_machine_boot(&cfg), 1);
	assert_true(arch_ticks() - t0 >= 100 * 1000000ull);
	assert_true(arch_ticks() - t0 < 10 * 100 * 1000000ull);

	cfg.cmdline = "inject=node-cpus-fail:0 inject=node-cpus-fail:1 "
		      "smp_start=serial";
	t0 = arch_ticks();
	assert_int_equal(test_machine_boot(&cfg), 1);
	assert_true(arch_ticks() - t0 >= 15 * 100 * 1000000ull);
}

/*
 * Work posted to an idle CPU starts at once: the poster wakes it (a futex
 * on the sandbox). Here the CPUs' safety net is 60 s
 * (sandbox_set_idle_wait()), so without the wake-up smp_run_on() would
 * take a minute; the bound, 1 s, is far from that and far above the few
 * ms a quiet host takes, so host delays cannot decide the outcome.
 */
static void test_post_wakes_idle_cpu(void **state)
{
	cpumask_t all;
	uint64_t t0;

	(void)state;
	assert_int_equal(boot4(NULL, 1000), 4);
	sandbox_set_idle_wait(60 * 1000000000ull);
	sleep(2); /* every wait begun before it (<= 1 s) has ended */
	smp_online_mask(&all);
	reset_hits();
	t0 = arch_ticks();
	smp_run_on(&all, count_hit, hits);
	assert_true(arch_ticks() - t0 < 1000 * 1000000ull);
	for (unsigned int c = 0; c < 4; c++)
		assert_int_equal(hits[c], 1);
}

static void test_cpu_on_fail(void **state)
{
	(void)state;
	assert_int_equal(boot4("inject=cpu-on-fail:1", 300), 3);
	assert_false(cpu_table[1].online);
	assert_string_equal(cpu_table[1].fail_reason,
			    "CPU_ON refused (injected)");
	assert_true(cpu_table[3].online);
}

static void test_node_cpus_fail(void **state)
{
	(void)state;
	assert_int_equal(boot4("inject=node-cpus-fail:1", 300), 2);
	assert_true(cpu_table[0].online && cpu_table[1].online);
	assert_false(cpu_table[2].online || cpu_table[3].online);
	/* The boot CPU is never failed, even when its node is named. */
	assert_int_equal(boot4("inject=node-cpus-fail:0", 300), 3);
	assert_true(cpu_table[0].online);
	assert_false(cpu_table[1].online);
}

static unsigned int count_in_console(const char *s)
{
	const char *p = sandbox_console_buffer();
	unsigned int n = 0;

	while ((p = strstr(p, s)) != NULL) {
		n++;
		p++;
	}
	return n;
}

/* An inject= word that would do nothing says so, once each. */
static void test_inject_meaningless_warned(void **state)
{
	struct test_machine_cfg memonly = {
		.dirty = true, /* as booted: bootscrub on */
		.nodes = 2,
		.node = {{32ull << 20, 2}, {32ull << 20, 0}},
		.cmdline = "inject=node-cpus-fail:1",
	};

	(void)state;
	/* 2 nodes x 2 CPUs: CPU 0 is the boot CPU, none is 999, no node 9. */
	assert_int_equal(boot4("inject=ap-timeout:0 inject=ap-timeout:999 "
			       "inject=cpu-on-fail:0 inject=node-cpus-fail:9 "
			       "inject=scrub-stop:99",
			       300),
			 4);
	assert_int_equal(count_in_console("nothing injected"), 5);
	assert_int_equal(test_console_warnings(), 5);
	assert_true(test_console_contains("inject=ap-timeout:0: CPU 0 is the "
					  "boot CPU"));
	assert_true(test_console_contains("inject=ap-timeout:999: CPU 999 "
					  "does not exist"));
	assert_true(test_console_contains("inject=cpu-on-fail:0: CPU 0"));
	assert_true(test_console_contains("inject=node-cpus-fail:9: node 9 "
					  "does not exist"));
	assert_true(test_console_contains("inject=scrub-stop:99: CPU 99"));

	/* A node with memory and no CPU: nothing to fail. */
	assert_int_equal(test_machine_boot(&memonly), 2);
	assert_true(test_console_contains("inject=node-cpus-fail:1: node 1 "
					  "has no CPU to start"));

	/* Meaningful ones stay quiet. */
	assert_int_equal(boot4("inject=ap-timeout:3 inject=cpu-on-fail:1 "
			       "inject=node-cpus-fail:0 inject=scrub-stop:2",
			       300),
			 2);
	assert_int_equal(count_in_console("nothing injected"), 0);
}

/* Is [p, p + len) inside RAM of @node in the machine's bootinfo? */
static bool on_node(const void *p, size_t len, uint32_t node)
{
	uint64_t a = pa_val(virt_to_phys(p));

	for (unsigned int i = 0; i < test_bi.ram.count; i++)
		if (test_bi.ram.regions[i].node == node &&
		    pa_val(test_bi.ram.regions[i].start) <= a &&
		    a + len <= pa_val(test_bi.ram.regions[i].end))
			return true;
	return false;
}

/*
 * Per-CPU objects near their CPUs (smp_percpu_alloc_local()): each of a
 * node's CPUs has its own zeroed, cache-line-aligned object in one piece
 * on that node; node 1 has CPUs and no RAM, so its piece is on node 2,
 * the nearest; a piece no node can hold leaves its CPUs without one.
 */
static void test_percpu_local(void **state)
{
	struct test_machine_cfg cfg = {
		.nodes = 3,
		.node = {{32ull << 20, 2}, {0, 2}, {32ull << 20, 3}},
		.distance = {{10, 30, 20}, {30, 10, 15}, {20, 15, 10}},
		.no_handoff = true,
	};
	static const uint32_t home[] = {0, 0, 2, 2, 2, 2, 2};
	struct smp_percpu pc;
	uint8_t *p;

	(void)state;
	assert_int_equal(test_machine_boot(&cfg), 7);
	assert_int_equal(smp_percpu_alloc_local(&pc, 100, "test per-cpu"), 0);
	assert_int_equal(pc.size, SMP_PERCPU_ALIGN);
	for (unsigned int c = 0; c < cpu_count; c++) {
		p = smp_percpu_ptr(&pc, c);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % SMP_PERCPU_ALIGN, 0);
		assert_true(on_node(p, pc.size, home[c]));
		for (unsigned int i = 0; i < 100; i++)
			assert_int_equal(p[i], 0);
		memset(p, 0xff, pc.size); /* overlaps would show below */
	}
	for (unsigned int c = 0; c < cpu_count; c++)
		for (unsigned int o = c + 1; o < cpu_count; o++)
			assert_ptr_not_equal(smp_percpu_ptr(&pc, c),
					     smp_percpu_ptr(&pc, o));

	/* 16 MiB a CPU: no node holds 2 or 3 of them. */
	assert_int_equal(smp_percpu_alloc_local(&pc, 16ull << 20, "too big"),
			 7);
	for (unsigned int c = 0; c < cpu_count; c++)
		assert_null(smp_percpu_ptr(&pc, c));
}

/* A fresh arena and bootmem with 32 MiB of RAM, for smp_init() alone. */
static void fresh_bootmem(void)
{
	assert_int_equal(sandbox_ram_init(TEST_RAM_BASE + (32ull << 20)), 0);
	bootmem_init();
	assert_int_equal(bootmem_add(pa(TEST_RAM_BASE), 32ull << 20, 0), 0);
}

static void test_table_order_and_smt(void **state)
{
	struct bootinfo *bi = &test_bi;

	(void)state;
	fresh_bootmem();
	bootinfo_init(bi, BOOT_SANDBOX);
	/* hwid, node, package, core, thread, usable */
	bootinfo_add_cpu(bi, 10, 0, 0, 0, 0, true);
	bootinfo_add_cpu(bi, 11, 0, 0, 0, 1, true);  /* sibling of 10 */
	bootinfo_add_cpu(bi, 12, 1, 1, 0, 0, false); /* hot-plug slot */
	bootinfo_add_cpu(bi, 13, 1, 1, 0, 0, true);  /* the boot CPU */
	bootinfo_add_cpu(bi, 14, 1, 1, 1, 0, true);
	bi->cpus[3].boot_cpu = true;
	smp_init(bi);

	assert_int_equal(cpu_count, 5);
	assert_int_equal(cpu_table[0].hwid, 13);
	assert_true(cpu_table[0].online);
	assert_int_equal(cpu_table[1].hwid, 10);
	assert_int_equal(cpu_table[2].hwid, 11);
	assert_int_equal(cpu_table[3].hwid, 14);
	assert_int_equal(cpu_table[4].hwid, 12);
	assert_false(cpu_table[4].present);
	assert_string_equal(cpu_table[4].fail_reason,
			    "disabled in firmware (hot-plug slot)");
	assert_false(cpu_table[1].smt_sibling);
	assert_true(cpu_table[2].smt_sibling);
	assert_false(cpu_table[3].smt_sibling);
	assert_false(cpu_table[0].smt_sibling);
	for (unsigned int i = 1; i < 5; i++)
		assert_false(cpu_table[i].online);
	assert_int_equal(smp_online_count(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_on_reaches_each_once,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_wait_until_names_the_busy_cpu, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_ap_timeout_left_out,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_dead_cpus_share_one_timeout, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_percpu_local, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_post_wakes_idle_cpu,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cpu_on_fail, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_node_cpus_fail, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_inject_meaningless_warned,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_table_order_and_smt,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
