/* SPDX-License-Identifier: MIT */
/*
 * arch/sandbox: the RAM arena, console capture, the panic hook, the
 * counted cache maintenance, the scrub primitive and file reading.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "common.h"

#include <keel/scrub_prims.h>

#include <arch/cache.h>
#include <asm/os.h>
#include <arch/console.h>
#include <arch/scrub.h>

static void test_arena_maps_phys(void **state)
{
	unsigned char *va;

	(void)state;
	assert_int_equal(sandbox_ram_init(64ull << 20), 0);
	va = phys_to_virt(pa(0x123000));
	assert_int_equal(pa_val(virt_to_phys(va)), 0x123000);
	assert_ptr_equal(phys_to_virt(pa(0x124000)), va + 0x1000);
	/* Fresh anonymous memory reads zero and is writable. */
	assert_int_equal(va[17], 0);
	va[17] = 0x5a;
	assert_int_equal(*(unsigned char *)phys_to_virt(pa(0x123011)), 0x5a);

	/* A new arena replaces the old one (and is zero again). */
	assert_int_equal(sandbox_ram_init(32ull << 20), 0);
	assert_int_equal(*(unsigned char *)phys_to_virt(pa(0x123011)), 0);
}

static void test_arena_bounds_checked(void **state)
{
	(void)state;
	if (!IS_ENABLED(CONFIG_DEBUG))
		skip();
	assert_int_equal(sandbox_ram_init(16ull << 20), 0);
	/* The end address itself is fine (end-of-range arithmetic). */
	(void)phys_to_virt(pa(16ull << 20));
	TEST_EXPECT_PANIC((void)phys_to_virt(pa((16ull << 20) + 4096)),
			  "check failed");
	TEST_EXPECT_PANIC((void)virt_to_phys(&state), "check failed");
}

static void test_big_sparse_arena(void **state)
{
	unsigned char *va;

	(void)state;
	/* 1 TiB of address space costs nothing until touched. */
	assert_int_equal(sandbox_ram_init(1ull << 40), 0);
	va = phys_to_virt(pa((1ull << 40) - 4096));
	va[0] = 1;
	assert_int_equal(va[0], 1);
	assert_int_equal(sandbox_ram_init(16ull << 20), 0);
}

static void test_console_capture(void **state)
{
	(void)state;
	test_quiet_begin();
	arch_console_write("hello ", 6);
	console_puts("world\n");
	test_quiet_end();
	assert_string_equal(sandbox_console_buffer(), "hello world\n");
	sandbox_console_clear();
	assert_string_equal(sandbox_console_buffer(), "");
}

static void test_panic_hook_catches(void **state)
{
	(void)state;
	TEST_EXPECT_PANIC(panic("disk %d on fire", 3), "disk 3 on fire");
	assert_string_equal(sandbox_last_panic(), "disk 3 on fire");
	assert_true(test_console_contains("keel: panic: disk 3 on fire"));
}

static paddr_t seen_start;
static uint64_t seen_len;
static bool seen_inval;
static unsigned int seen_calls;

static void observer(paddr_t start, uint64_t len, bool invalidate)
{
	seen_start = start;
	seen_len = len;
	seen_inval = invalidate;
	seen_calls++;
}

static void test_cache_counters_and_observer(void **state)
{
	struct sandbox_cache_counters cc;

	(void)state;
	assert_int_equal(sandbox_ram_init(16ull << 20), 0);
	assert_false(arch_dcache_coherent());
	assert_int_equal(arch_dcache_line_size(), 64);
	sandbox_cache_counters_reset();
	sandbox_set_cache_observer(observer);

	arch_clean_dcache_range(phys_to_virt(pa(0x10000)), 8192);
	assert_int_equal(pa_val(seen_start), 0x10000);
	assert_int_equal(seen_len, 8192);
	assert_false(seen_inval);
	arch_clean_inval_dcache_range(phys_to_virt(pa(0x20000)), 4096);
	assert_int_equal(pa_val(seen_start), 0x20000);
	assert_true(seen_inval);
	arch_clean_inval_dcache_range(phys_to_virt(pa(0x30000)), 4096);
	arch_inval_icache_all();
	assert_int_equal(seen_calls, 3);

	sandbox_cache_counters(&cc);
	assert_int_equal(cc.clean_ops, 1);
	assert_int_equal(cc.clean_bytes, 8192);
	assert_int_equal(cc.clean_inval_ops, 2);
	assert_int_equal(cc.clean_inval_bytes, 8192);
	assert_int_equal(cc.icache_invals, 1);
	assert_int_equal(cc.scrub_clean_ops, 0);

	sandbox_set_cache_observer(NULL);
	arch_clean_dcache_range(phys_to_virt(pa(0x10000)), 4096);
	assert_int_equal(seen_calls, 3);
	sandbox_cache_counters_reset();
	sandbox_cache_counters(&cc);
	assert_int_equal(cc.clean_ops + cc.clean_inval_ops + cc.icache_invals,
			 0);
}

static void test_scrub_primitive(void **state)
{
	struct sandbox_cache_counters cc;
	unsigned char *va;

	(void)state;
	assert_int_equal(sandbox_ram_init(16ull << 20), 0);
	va = phys_to_virt(pa(0x100000));
	memset(va - 4096, 0xAA, (4 << 20) + 8192);
	arch_scrub_init();
	assert_non_null(scrub_prims_current_name());

	arch_scrub_range(va, 2 << 20);
	sandbox_cache_counters_reset();
	assert_true(arch_scrub_clean_range(va + (2 << 20), 2 << 20));
	for (size_t i = 0; i < (4u << 20); i++)
		if (va[i])
			fail_msg("byte %zu not zero", i);
	/* Exactly the range: the neighbours keep their contents. */
	assert_int_equal(va[-1], 0xAA);
	assert_int_equal(va[4 << 20], 0xAA);
	sandbox_cache_counters(&cc);
	assert_int_equal(cc.scrub_clean_ops, 1);
	assert_int_equal(cc.scrub_clean_bytes, 2 << 20);
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/keel-sandbox-test-XXXXXX";
	size_t len = 0;
	char *buf;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "ram 0 1G node=0\n", 16), 16);
	close(fd);
	buf = sandbox_read_file(path, &len);
	unlink(path);
	assert_non_null(buf);
	assert_int_equal(len, 16);
	assert_string_equal(buf, "ram 0 1G node=0\n");
	free(buf);

	assert_null(sandbox_read_file("/nonexistent/keel.fw", &len));
	assert_null(sandbox_read_file("/tmp", &len));
}

/* A file of @n bytes of @c, mapped: its bytes, then a NUL. */
static void map_one(size_t n, char c)
{
	char path[] = "/tmp/keel-sandbox-test-XXXXXX";
	size_t len = 1;
	char *buf, *data = malloc(n + 1);
	int fd;

	assert_non_null(data);
	memset(data, c, n);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
	buf = sandbox_map_file(path, &len);
	unlink(path);
	assert_non_null(buf);
	assert_int_equal(len, n);
	assert_memory_equal(buf, data, n);
	assert_int_equal(buf[n], '\0');
	buf[0] = 'x'; /* private and writable, as a read buffer */
	sandbox_unmap_file(buf, len);
	free(data);
}

static void test_map_file(void **state)
{
	size_t len;

	(void)state;
	map_one(16, 'r');
	map_one(4096, 'p'); /* a whole page: the NUL is a page of its own */
	map_one(3 * 4096 + 1, 'q');
	map_one(0, 0);
	assert_null(sandbox_map_file("/nonexistent/keel.fw", &len));
	assert_int_equal(errno, ENOENT);
	assert_null(sandbox_map_file("/tmp", &len));
	assert_int_equal(errno, EISDIR);
}

/*
 * The mapping comes with its pages in place (MADV_POPULATE_READ): a live
 * update's new image reads the description in its downtime, and 3 MiB
 * read through faults took a fault every 16 pages. Read here a byte a
 * page of 4 MiB: at most a few faults (the stack, cmocka's), where a
 * mapping left to faults takes 64 or more. A host that refuses the
 * advice skips the test.
 */
/* A byte a page of @len at @p, summed: not instrumented (ASan's shadow of
 * @p would fault in as it is read). */
__attribute__((no_sanitize_address)) static char sum_pages(const char *p,
							   size_t len)
{
	char sum = 0;

	for (size_t i = 0; i < len; i += 4096)
		sum += *(const volatile char *)(p + i);
	return sum;
}

static void test_map_file_populated(void **state)
{
	enum { BYTES = 4 << 20 };
	char path[] = "/tmp/keel-sandbox-test-XXXXXX";
	char *data = calloc(1, BYTES), *buf;
	struct rusage before, after;
	volatile char sum = 0;
	size_t len;
	int fd;

	(void)state;
	assert_non_null(data);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, BYTES), BYTES);
	free(data);
	buf = mmap(NULL, BYTES, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(buf != MAP_FAILED);
	if (madvise(buf, BYTES, MADV_POPULATE_READ)) {
		munmap(buf, BYTES);
		close(fd);
		unlink(path);
		skip();
	}
	munmap(buf, BYTES);
	close(fd);
	buf = sandbox_map_file(path, &len);
	unlink(path);
	assert_non_null(buf);
	getrusage(RUSAGE_SELF, &before);
	sum = sum_pages(buf, len);
	getrusage(RUSAGE_SELF, &after);
	sandbox_unmap_file(buf, len);
	assert_int_equal(sum, 0);
	if (after.ru_minflt - before.ru_minflt > 8)
		fail_msg("%ld faults reading 4 MiB mapped",
			 after.ru_minflt - before.ru_minflt);
}

/* Whether @pid, a child, ended within 10 s (quiet: microseconds). */
static bool child_ended(pid_t pid)
{
	for (int i = 0; i < 10000; i++) {
		struct timespec ms = {0, 1000000};

		if (waitpid(pid, NULL, WNOHANG) == pid)
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

/*
 * A live update's hold (os_lu_hold()): the helper lives while the write
 * end the variable names is open, ends when the new image lets it go
 * (this process plays both images), and the variable is read once; a
 * stale variable naming something that is no pipe's write end closes
 * nothing.
 */
static void test_lu_hold(void **state)
{
	int fd, pid, file = open("/dev/null", O_WRONLY);
	const char *v;
	char stale[32];

	(void)state;
	assert_true(file >= 0);
	snprintf(stale, sizeof(stale), "%d:%d", file, (int)getpid());
	setenv("KEEL_LU_HOLD", stale, 1);
	os_lu_hold_release();
	assert_null(getenv("KEEL_LU_HOLD"));
	assert_true(fcntl(file, F_GETFD) >= 0); /* not closed */
	close(file);

	assert_int_equal(os_lu_hold(), 0);
	v = getenv("KEEL_LU_HOLD");
	assert_non_null(v);
	assert_int_equal(sscanf(v, "%d:%d", &fd, &pid), 2);
	assert_true(fcntl(fd, F_GETFD) >= 0);
	assert_false(fcntl(fd, F_GETFD) & FD_CLOEXEC); /* the exec keeps it */
	usleep(20000);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), 0); /* still holding */
	os_lu_hold_release();
	assert_null(getenv("KEEL_LU_HOLD"));
	assert_true(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
	assert_true(child_ended(pid));
	os_lu_hold_reap(); /* reaped above: nothing left to wait for */
}

static void test_time_and_ids(void **state)
{
	uint64_t a = arch_ticks(), b;

	(void)state;
	arch_cpu_relax();
	b = arch_ticks();
	assert_true(b >= a);
	assert_int_equal(arch_ticks_hz(), 1000000000ull);
	assert_int_equal(arch_cpu_id(), 0);
	assert_string_equal(arch_name, "sandbox");
	assert_true(sandbox_host_cpus() >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_arena_maps_phys,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_arena_bounds_checked,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_big_sparse_arena,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_console_capture,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_panic_hook_catches,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(
			test_cache_counters_and_observer, test_setup,
			test_teardown),
		cmocka_unit_test_setup_teardown(test_scrub_primitive,
						test_setup, test_teardown),
		cmocka_unit_test(test_map_file),
		cmocka_unit_test(test_map_file_populated),
		cmocka_unit_test(test_lu_hold),
		cmocka_unit_test_setup_teardown(test_read_file, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_time_and_ids, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
