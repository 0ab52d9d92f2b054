/* SPDX-License-Identifier: MIT */
/*
 * The sandbox arch: keel as a Linux process. This is the only file of keel
 * that includes libc (besides canary.c, an opt-in test observer).
 *
 * What it owns:
 *  - the RAM arena: one MAP_NORESERVE mapping of [0, top) so that physical
 *    address pa lives at arena + pa and only touched pages cost host memory;
 *  - CPUs: each secondary is a pthread pinned round-robin to the host CPUs,
 *    its logical id in a __thread variable (the main thread is CPU 0);
 *  - time: CLOCK_MONOTONIC_RAW in ns (hz = 1e9);
 *  - cache maintenance: nothing to do on a coherent host, so it is counted
 *    (ops, bytes) and reported to an optional observer, which is what the
 *    unit tests check. arch_dcache_coherent() says false on purpose so that
 *    the maintenance paths of common/ run here;
 *  - the console (stdout, optionally captured for tests) and the panic hook.
 *
 * Threads of a previous boot (unit tests boot several machines in one
 * process) are cancelled when a new arena is mapped (their per-CPU state
 * lived in the old one) or their logical CPU is started again: the
 * secondary loop spins in arch_cpu_relax(), which is a cancellation point.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <arch/cache.h>
#include <arch/console.h>
#include <arch/cpu.h>
#include <arch/mm.h>
#include <arch/scrub.h>
#include <arch/smp.h>
#include <asm/sandbox.h>
#include <keel/boot.h>
#include <keel/bootinfo.h>
#include <keel/bug.h>
#include <keel/cmdline_copy.h>
#include <keel/cpumask.h>
#include <keel/acpi.h>
#include <keel/fdt.h>
#include <keel/fwdesc.h>

const char arch_name[] = "sandbox";
uint64_t arch_entry_ticks;

/* ---- RAM arena ----------------------------------------------------------- */

static void retire_all_cpus(void);

static unsigned char *arena;
static uint64_t arena_top;

/**
 * sandbox_ram_init() - map a fresh arena covering [0, @top).
 * @top: highest physical address + 1 (rounded up to a page).
 *
 * Return: 0, or -ENOMEM when the host refuses the mapping.
 */
int sandbox_ram_init(uint64_t top)
{
	void *p;

	retire_all_cpus();
	sandbox_ram_fini();
	top = (top + PAGE_SIZE - 1) & PAGE_MASK;
	if (!top)
		top = PAGE_SIZE;
	p = mmap(NULL, top, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	arena = p;
	arena_top = top;
	return 0;
}

/**
 * sandbox_ram_fini() - unmap the arena (no-op when there is none).
 */
void sandbox_ram_fini(void)
{
	if (arena)
		munmap(arena, arena_top);
	arena = NULL;
	arena_top = 0;
}

/**
 * sandbox_ram_prefault() - fault [start, end) of the arena in now, with
 * huge pages where the host gives them, so that a later scrub measures its
 * stores and not the host's first-touch page faults (`--prefault`).
 * @start: physical start
 * @end: physical end (clipped to the arena)
 *
 * Return: 0, or -ENOMEM when the host cannot back the range.
 */
static int sandbox_ram_prefault(uint64_t start, uint64_t end)
{
	unsigned char *p;
	size_t len;

	start &= ~((2ull << 20) - 1);
	end = MIN(end, arena_top);
	if (!arena || start >= end)
		return 0;
	p = arena + start;
	len = end - start;
	madvise(p, len, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
	if (!madvise(p, len, MADV_POPULATE_WRITE))
		return 0;
	if (errno == ENOMEM || errno == EFAULT)
		return -ENOMEM;
#endif
	/* Older hosts: one write per page does the same. */
	for (size_t off = 0; off < len; off += PAGE_SIZE)
		((volatile unsigned char *)p)[off] = 0;
	return 0;
}

/**
 * arch_phys_to_virt() - the arena address of @p.
 * @p: physical address in [0, top] (top itself for end-of-range math).
 *
 * Return: the virtual address.
 */
void *arch_phys_to_virt(paddr_t p)
{
	DEBUG_CHECK(arena && pa_val(p) <= arena_top);
	return arena + pa_val(p);
}

/**
 * arch_virt_to_phys() - inverse of arch_phys_to_virt().
 * @va: an address inside the arena.
 *
 * Return: the physical address.
 */
paddr_t arch_virt_to_phys(const void *va)
{
	const unsigned char *c = va;

	DEBUG_CHECK(arena && c >= arena && c <= arena + arena_top);
	return pa((uint64_t)(c - arena));
}

static bool in_arena(const void *va, size_t len)
{
	const unsigned char *c = va;

	return arena && c >= arena && c <= arena + arena_top &&
	       len <= (size_t)(arena + arena_top - c);
}

/* ---- CPU, time ----------------------------------------------------------- */

static __thread unsigned int this_cpu;
static __thread unsigned int relax_count;
static __thread uint64_t spin_start, spin_last;

/* A gap this long between relax batches starts a new spin. */
#define SPIN_GAP_NS 100000ull
/* After spinning this long, a thread sleeps between polls. */
#define SPIN_SLEEP_AFTER_NS 2000000ull
/* Sleep 1/SPIN_SLEEP_SHARE of the time waited so far, within these. */
#define SPIN_SLEEP_MIN_NS 200000ull
#define SPIN_SLEEP_MAX_NS 20000000ull
#define SPIN_SLEEP_SHARE  8

/**
 * arch_cpu_id() - logical id of the calling thread's CPU.
 *
 * Return: 0 for the main thread, the started id for secondaries.
 */
unsigned int arch_cpu_id(void)
{
	return this_cpu;
}

/*
 * The common part of both hints: a pause instruction per call, and every
 * 64th call a cancellation point that gives the host CPU away. The host may
 * have fewer cores than the sandbox has CPUs, and a spinning thread must
 * not starve the one it waits for: until a spin has lasted 2 ms it yields;
 * after that it sleeps. Short waits (locks, a quick smp_run_on) keep their
 * latency.
 */
static void relax(bool idle, uint64_t max_ns)
{
	uint64_t now;

#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
	if ((++relax_count & 63) != 0)
		return;
	pthread_testcancel();
	now = arch_ticks();
	if (now - spin_last > SPIN_GAP_NS)
		spin_start = now;
	spin_last = now;
	if (now - spin_start > SPIN_SLEEP_AFTER_NS) {
		uint64_t ns = idle ? (now - spin_start) / SPIN_SLEEP_SHARE : 0;
		struct timespec ts = {0,
				      (long)MIN(MIN(MAX(ns, SPIN_SLEEP_MIN_NS),
						    SPIN_SLEEP_MAX_NS),
						max_ns)};

		nanosleep(&ts, NULL);
		spin_last = arch_ticks();
	} else {
		sched_yield();
	}
}

/**
 * arch_cpu_relax() - spin-wait hint: after 2 ms of spinning, 200 us sleeps.
 *
 * Back-to-back waits (the boot CPU starting one CPU after another) look
 * like one long spin here, so the sleep stays short.
 */
void arch_cpu_relax(void)
{
	relax(false, SPIN_SLEEP_MAX_NS);
}

/**
 * arch_cpu_idle_wait() - one wait of a CPU with nothing to do.
 * @max_us: the longest sleep.
 *
 * After 2 ms it sleeps 1/8 of the time waited so far, from 200 us up to
 * 20 ms and at most @max_us: a thousand parked CPUs then cost the host
 * some 100 wake-ups per CPU per second, not a busy core each, and a CPU
 * that gets work after waiting t answers within t/8.
 */
void arch_cpu_idle_wait(uint32_t max_us)
{
	relax(true, (uint64_t)max_us * 1000);
}

/**
 * arch_ticks() - CLOCK_MONOTONIC_RAW in ns.
 *
 * Return: the current time in ticks (ns).
 */
uint64_t arch_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * arch_ticks_hz() - the tick rate.
 *
 * Return: 1e9 (ticks are ns).
 */
uint64_t arch_ticks_hz(void)
{
	return 1000000000ull;
}

/**
 * sandbox_host_cpus() - host CPUs this process may run on.
 *
 * Return: at least 1.
 */
unsigned int sandbox_host_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

/* ---- console ------------------------------------------------------------- */

static pthread_mutex_t console_lock = PTHREAD_MUTEX_INITIALIZER;
static bool capture_on, capture_quiet;
static char *capture_buf;
static size_t capture_len, capture_cap;

static void capture_append(const char *s, size_t len)
{
	if (capture_len + len + 1 > capture_cap) {
		size_t cap = capture_cap ? capture_cap : 4096;
		char *nb;

		while (capture_len + len + 1 > cap)
			cap *= 2;
		nb = realloc(capture_buf, cap);
		if (!nb)
			return; /* drop output rather than fail a test */
		capture_buf = nb;
		capture_cap = cap;
	}
	memcpy(capture_buf + capture_len, s, len);
	capture_len += len;
	capture_buf[capture_len] = '\0';
}

/**
 * arch_console_write() - stdout (and the capture buffer when enabled).
 * @s: bytes
 * @len: count
 */
void arch_console_write(const char *s, size_t len)
{
	int old;

	/* write() is a cancellation point: never die holding the lock. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&console_lock);
	if (capture_on)
		capture_append(s, len);
	if (!capture_on || !capture_quiet) {
		while (len) {
			ssize_t n = write(1, s, len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			s += n;
			len -= (size_t)n;
		}
	}
	pthread_mutex_unlock(&console_lock);
	pthread_setcancelstate(old, NULL);
}

/**
 * sandbox_console_capture() - start/stop appending console output to a buffer.
 * @enable: capture on/off (the buffer is kept until cleared)
 * @quiet: while capturing, do not also print
 */
void sandbox_console_capture(bool enable, bool quiet)
{
	pthread_mutex_lock(&console_lock);
	capture_on = enable;
	capture_quiet = quiet;
	pthread_mutex_unlock(&console_lock);
}

/**
 * sandbox_console_buffer() - what was captured so far.
 *
 * Return: a NUL-terminated string (empty when nothing was captured).
 */
const char *sandbox_console_buffer(void)
{
	return capture_buf ? capture_buf : "";
}

/**
 * sandbox_console_clear() - empty the capture buffer.
 */
void sandbox_console_clear(void)
{
	pthread_mutex_lock(&console_lock);
	capture_len = 0;
	if (capture_buf)
		capture_buf[0] = '\0';
	pthread_mutex_unlock(&console_lock);
}

/* ---- stopping, panics ---------------------------------------------------- */

static void (*panic_hook)(const char *msg);
/* Tests longjmp out of the hook: only legal on the thread that set it. */
static pthread_t panic_hook_thread;
static char last_panic[512];

/**
 * arch_stop() - end the process: 0 after PASS, 1 otherwise.
 * @how: ignored (a process can only exit)
 * @pass: the verdict
 */
void arch_stop(enum after_action how, bool pass)
{
	(void)how;
	fflush(stdout);
	exit(pass ? 0 : 1);
}

/**
 * sandbox_set_panic_hook() - let tests catch panics (hook must not return).
 * @hook: NULL to restore exit(1); only panics on the calling thread reach it
 */
void sandbox_set_panic_hook(void (*hook)(const char *msg))
{
	panic_hook_thread = pthread_self();
	panic_hook = hook;
}

/**
 * sandbox_last_panic() - the message of the last panic.
 *
 * Return: a string, empty when there was none.
 */
const char *sandbox_last_panic(void)
{
	return last_panic;
}

/**
 * arch_panic() - after panic() printed @msg: call the test hook or exit(1).
 * @msg: the message without the "keel: panic: " prefix
 *
 * A panic on another thread (a secondary CPU) cannot be caught by a test:
 * it ends the process, so the failure is still seen.
 */
void arch_panic(const char *msg)
{
	void (*hook)(const char *) = panic_hook;

	snprintf(last_panic, sizeof(last_panic), "%s", msg ? msg : "");
	if (hook && pthread_equal(panic_hook_thread, pthread_self())) {
		hook(last_panic);
		/* A hook that returns broke its contract: still stop. */
	}
	fflush(stdout);
	exit(1);
}

/* ---- cache maintenance (counted) ----------------------------------------- */

static struct sandbox_cache_counters cc;
static void (*cache_observer)(paddr_t start, uint64_t len, bool invalidate);

static void observe(void *va, size_t len, bool invalidate)
{
	void (*fn)(paddr_t, uint64_t, bool) = cache_observer;

	if (fn)
		fn(in_arena(va, len) ? arch_virt_to_phys(va) : INVALID_PADDR,
		   len, invalidate);
}

/**
 * arch_clean_dcache_range() - counted clean to PoC.
 * @va: start
 * @len: bytes
 */
void arch_clean_dcache_range(void *va, size_t len)
{
	__atomic_fetch_add(&cc.clean_ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cc.clean_bytes, len, __ATOMIC_RELAXED);
	observe(va, len, false);
}

/**
 * arch_clean_inval_dcache_range() - counted clean + invalidate to PoC.
 * @va: start
 * @len: bytes
 */
void arch_clean_inval_dcache_range(void *va, size_t len)
{
	__atomic_fetch_add(&cc.clean_inval_ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cc.clean_inval_bytes, len, __ATOMIC_RELAXED);
	observe(va, len, true);
}

/**
 * arch_inval_icache_all() - counted I-cache invalidate.
 */
void arch_inval_icache_all(void)
{
	__atomic_fetch_add(&cc.icache_invals, 1, __ATOMIC_RELAXED);
}

/**
 * arch_dcache_coherent() - the sandbox pretends not to be coherent.
 *
 * Return: false, so that common/ exercises (and counts) maintenance.
 */
bool arch_dcache_coherent(void)
{
	return false;
}

/**
 * arch_dcache_line_size() - the line size maintenance is batched by.
 *
 * Return: 64.
 */
unsigned int arch_dcache_line_size(void)
{
	return 64;
}

/**
 * sandbox_cache_counters() - snapshot of the maintenance counters.
 * @out: filled
 */
void sandbox_cache_counters(struct sandbox_cache_counters *out)
{
	out->clean_ops = __atomic_load_n(&cc.clean_ops, __ATOMIC_RELAXED);
	out->clean_bytes = __atomic_load_n(&cc.clean_bytes, __ATOMIC_RELAXED);
	out->clean_inval_ops =
		__atomic_load_n(&cc.clean_inval_ops, __ATOMIC_RELAXED);
	out->clean_inval_bytes =
		__atomic_load_n(&cc.clean_inval_bytes, __ATOMIC_RELAXED);
	out->icache_invals =
		__atomic_load_n(&cc.icache_invals, __ATOMIC_RELAXED);
	out->scrub_clean_ops =
		__atomic_load_n(&cc.scrub_clean_ops, __ATOMIC_RELAXED);
	out->scrub_clean_bytes =
		__atomic_load_n(&cc.scrub_clean_bytes, __ATOMIC_RELAXED);
}

/**
 * sandbox_cache_counters_reset() - zero every counter.
 */
void sandbox_cache_counters_reset(void)
{
	__atomic_store_n(&cc.clean_ops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.clean_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.clean_inval_ops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.clean_inval_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.icache_invals, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.scrub_clean_ops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cc.scrub_clean_bytes, 0, __ATOMIC_RELAXED);
}

/**
 * sandbox_set_cache_observer() - per-range callback for tests.
 * @fn: called with the physical range (INVALID_PADDR outside the arena)
 */
void sandbox_set_cache_observer(void (*fn)(paddr_t start, uint64_t len,
					   bool invalidate))
{
	cache_observer = fn;
}

/* ---- scrub primitive ----------------------------------------------------- */

/*
 * The host's ways of zeroing, chosen by the boot-time calibration
 * (common/scrub.c) like on hardware. On x86 hosts: a 16-byte streaming-store
 * loop (the default: glibc's memset only switches to non-temporal stores
 * above a fraction of the LLC, so for the units a scrub mostly sees it is
 * about twice as fast), 8-byte movnti, 32-byte vmovntdq when the host has
 * AVX, rep stosb, memset. Elsewhere memset only.
 */
typedef void (*zero_fn)(void *va, size_t len);

#if defined(__x86_64__)
#include <immintrin.h>

static void zero_movntdq(void *va, size_t len)
{
	__m128i zero = _mm_setzero_si128();
	char *p = va;

	for (size_t i = 0; i < len; i += 64) {
		_mm_stream_si128((__m128i *)(p + i), zero);
		_mm_stream_si128((__m128i *)(p + i + 16), zero);
		_mm_stream_si128((__m128i *)(p + i + 32), zero);
		_mm_stream_si128((__m128i *)(p + i + 48), zero);
	}
	/* Streaming stores are weakly ordered: publish them before return. */
	_mm_sfence();
}

static void zero_movnti(void *va, size_t len)
{
	long long *p = va;

	for (size_t i = 0; i < len / 8; i += 4) {
		_mm_stream_si64(p + i, 0);
		_mm_stream_si64(p + i + 1, 0);
		_mm_stream_si64(p + i + 2, 0);
		_mm_stream_si64(p + i + 3, 0);
	}
	_mm_sfence();
}

__attribute__((target("avx"))) static void zero_vmovntdq(void *va, size_t len)
{
	__m256i zero = _mm256_setzero_si256();
	char *p = va;

	for (size_t i = 0; i < len; i += 64) {
		_mm256_stream_si256((__m256i *)(p + i), zero);
		_mm256_stream_si256((__m256i *)(p + i + 32), zero);
	}
	_mm_sfence();
	_mm256_zeroupper();
}

static void zero_rep_stosb(void *va, size_t len)
{
	__asm__ __volatile__("rep stosb"
			     : "+D"(va), "+c"(len)
			     : "a"(0)
			     : "memory");
}
#endif

static void zero_memset(void *va, size_t len)
{
	memset(va, 0, len);
}

static struct {
	const char *name;
	zero_fn fn;
} scrub_prims[ARCH_SCRUB_MAX_PRIMITIVES];
static unsigned int scrub_prim_count;
static unsigned int scrub_prim_cur;

static void add_prim(const char *name, zero_fn fn)
{
	if (scrub_prim_count < ARCH_SCRUB_MAX_PRIMITIVES) {
		scrub_prims[scrub_prim_count].name = name;
		scrub_prims[scrub_prim_count].fn = fn;
		scrub_prim_count++;
	}
}

static void scrub_prims_probe(void)
{
	if (scrub_prim_count)
		return;
#if defined(__x86_64__)
	add_prim("movntdq", zero_movntdq);
	add_prim("movnti", zero_movnti);
	if (__builtin_cpu_supports("avx"))
		add_prim("vmovntdq", zero_vmovntdq);
	add_prim("rep stosb", zero_rep_stosb);
#endif
	add_prim("memset", zero_memset);
}

static void scrub_stream(void *va, size_t len)
{
	scrub_prims_probe();
	scrub_prims[scrub_prim_cur].fn(va, len);
}

/*
 * The first touch of an arena page is what the host pays for in a sandbox
 * scrub; 2 MiB pages make it about twice as cheap. Only ranges about to be
 * written whole get them: the rest of the arena (frame table, sparse RAM)
 * must keep costing 4 KiB per touched page. Hosts without THP refuse the
 * advice, which is harmless.
 */
static void scrub_prepare(void *va, size_t len)
{
	if (len >= (2u << 20))
		madvise(va, len, MADV_HUGEPAGE);
}

static void (*scrub_observer)(paddr_t start, uint64_t len, bool clean);

/**
 * sandbox_set_scrub_observer() - per-range callback for tests.
 * @fn: called with the physical range after it was zeroed
 */
void sandbox_set_scrub_observer(void (*fn)(paddr_t start, uint64_t len,
					   bool clean))
{
	scrub_observer = fn;
}

static void observe_scrub(void *va, size_t len, bool clean)
{
	void (*fn)(paddr_t, uint64_t, bool) = scrub_observer;

	if (fn && in_arena(va, len))
		fn(arch_virt_to_phys(va), len, clean);
}

/**
 * arch_scrub_range() - zero [va, va+len) with streaming stores.
 * @va: page aligned
 * @len: page multiple
 */
void arch_scrub_range(void *va, size_t len)
{
	scrub_prepare(va, len);
	scrub_stream(va, len);
	observe_scrub(va, len, false);
}

/**
 * arch_scrub_clean_range() - zero and (count one) clean to PoC.
 * @va: page aligned
 * @len: page multiple
 *
 * Return: true (the range is clean to PoC).
 */
bool arch_scrub_clean_range(void *va, size_t len)
{
	scrub_prepare(va, len);
	scrub_stream(va, len);
	observe_scrub(va, len, true);
	__atomic_fetch_add(&cc.scrub_clean_ops, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cc.scrub_clean_bytes, len, __ATOMIC_RELAXED);
	return true;
}

/**
 * arch_scrub_init() - list the host's primitives (the first is the default).
 */
void arch_scrub_init(void)
{
	scrub_prims_probe();
	scrub_prim_cur = 0;
}

/**
 * arch_scrub_candidates() - the host's primitives, the default first.
 * @names: out: their names
 * @max: room in @names
 *
 * Return: how many were stored (at least 1 when @max is).
 */
unsigned int arch_scrub_candidates(const char **names, unsigned int max)
{
	unsigned int n;

	scrub_prims_probe();
	n = MIN(scrub_prim_count, max);
	for (unsigned int i = 0; i < n; i++)
		names[i] = scrub_prims[i].name;
	return n;
}

/**
 * arch_scrub_probe() - zero [va, va+len) with candidate @idx, as
 * arch_scrub_clean_range() would (the clean is not counted: the
 * calibration is no scrub, and the scrub zeroes the range again).
 * @idx: index into arch_scrub_candidates()
 * @va: page aligned
 * @len: page multiple
 */
void arch_scrub_probe(unsigned int idx, void *va, size_t len)
{
	scrub_prims_probe();
	if (idx >= scrub_prim_count)
		idx = 0;
	scrub_prepare(va, len);
	scrub_prims[idx].fn(va, len);
}

/**
 * arch_scrub_select() - use candidate @idx from now on.
 * @idx: index into arch_scrub_candidates(); out of range keeps the default
 */
void arch_scrub_select(unsigned int idx)
{
	scrub_prims_probe();
	scrub_prim_cur = idx < scrub_prim_count ? idx : 0;
}

/**
 * arch_scrub_primitive() - name for the report.
 *
 * Return: the selected primitive ("movntdq", "memset", ...).
 */
const char *arch_scrub_primitive(void)
{
	scrub_prims_probe();
	return scrub_prims[scrub_prim_cur].name;
}

/* ---- SMP: CPUs are pthreads ---------------------------------------------- */

struct sandbox_cpu {
	pthread_t thread;
	bool started;
	volatile bool exited; /* set by the cancellation cleanup */
};

/*
 * Thread slots, allocated 64 at a time as CPUs are started (never moved:
 * a running thread holds a pointer to its slot), so a 4096-CPU build costs
 * a table of 64 pointers, not 4096 slots.
 */
#define CPU_SLOTS_PER_CHUNK 64
static struct sandbox_cpu
	*sandbox_cpu_chunk[(NR_CPUS + CPU_SLOTS_PER_CHUNK - 1) /
			   CPU_SLOTS_PER_CHUNK];

/* Return: the slot of @cpu (< NR_CPUS), or NULL when @alloc is false or
 * memory is short. */
static struct sandbox_cpu *cpu_slot(unsigned int cpu, bool alloc)
{
	struct sandbox_cpu **chunk =
		&sandbox_cpu_chunk[cpu / CPU_SLOTS_PER_CHUNK];

	if (!*chunk && alloc)
		*chunk = calloc(CPU_SLOTS_PER_CHUNK, sizeof(**chunk));
	return *chunk ? &(*chunk)[cpu % CPU_SLOTS_PER_CHUNK] : NULL;
}

/**
 * arch_smp_prepare() - nothing to prepare for pthreads.
 *
 * Return: 0.
 */
int arch_smp_prepare(void)
{
	return 0;
}

static void cpu_thread_exit(void *arg)
{
	struct sandbox_cpu *sc = arg;

	__atomic_store_n(&sc->exited, true, __ATOMIC_RELEASE);
}

static void *cpu_thread(void *arg)
{
	unsigned int cpu = (unsigned int)(uintptr_t)arg;
	struct sandbox_cpu *const slot = cpu_slot(cpu, false);

	this_cpu = cpu;
	pthread_cleanup_push(cpu_thread_exit, slot);
	smp_secondary_main(cpu);
	pthread_cleanup_pop(1);
	return NULL;
}

/*
 * Retire the thread of an earlier boot that still serves logical @cpu. It
 * is idle (parked or polling its mailbox), so it holds no lock when the
 * cancellation reaches it in arch_cpu_relax().
 */
static void retire_cpu(unsigned int cpu)
{
	struct sandbox_cpu *sc = cpu_slot(cpu, false);

	if (!sc || !sc->started)
		return;
	pthread_cancel(sc->thread);
	while (!__atomic_load_n(&sc->exited, __ATOMIC_ACQUIRE))
		sched_yield();
	sc->started = false;
}

/*
 * Before a new arena replaces the old one (the next boot of a unit test):
 * the threads of the last boot poll per-CPU state that lives in the arena.
 */
static void retire_all_cpus(void)
{
	for (unsigned int cpu = 1; cpu < NR_CPUS; cpu++)
		retire_cpu(cpu);
}

/**
 * arch_cpu_start() - start logical CPU @cpu as a detached pthread.
 * @cpu: logical id (also the pinning slot, round-robin on host CPUs)
 * @hwid: unused on the sandbox
 * @stack_top: unused: pthreads bring their own stack
 *
 * Return: 0, or -errno when the thread cannot be created.
 */
int arch_cpu_start(unsigned int cpu, uint64_t hwid, uintptr_t stack_top)
{
	struct sandbox_cpu *sc;
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	(void)hwid;
	(void)stack_top;
	if (cpu == 0 || cpu >= NR_CPUS)
		return -EINVAL;
	sc = cpu_slot(cpu, true);
	if (!sc)
		return -ENOMEM;
	retire_cpu(cpu);

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sc->exited = false;
	err = pthread_create(&sc->thread, &attr, cpu_thread,
			     (void *)(uintptr_t)cpu);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	sc->started = true;

	/* Pinning is a performance hint; a restricted host may refuse it. */
	CPU_ZERO(&set);
	CPU_SET(cpu % sandbox_host_cpus(), &set);
	pthread_setaffinity_np(sc->thread, sizeof(set), &set);
	return 0;
}

/* ---- files and main ------------------------------------------------------ */

/**
 * sandbox_read_file() - read a whole file into a malloc'ed buffer.
 * @path: file name
 * @len: out: its size (the buffer has one more byte, a NUL)
 *
 * Return: the buffer, or NULL (errno set).
 */
char *sandbox_read_file(const char *path, size_t *len)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break; /* file shrank: keep what we have */
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

static struct bootinfo sandbox_bi;

/*
 * argv[first..] joined by spaces into bi->cmdline the way every loader's
 * line is copied (cmdline_copy_bootinfo()): a line too long loses whole
 * words, with one counted warning. Return: -ENOMEM when the host has no
 * memory for the joined line.
 */
static int join_cmdline(struct bootinfo *bi, int argc, char **argv, int first)
{
	size_t len = 0, used = 0;
	char *line;

	for (int i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	line = malloc(len + 1);
	if (!line)
		return -ENOMEM;
	for (int i = first; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (used)
			line[used++] = ' ';
		memcpy(line + used, argv[i], n);
		used += n;
	}
	line[used] = '\0';
	cmdline_copy_bootinfo(bi, line, used, NULL, "sandbox: command line");
	free(line);
	return 0;
}

static int usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--prefault] FILE [keel command line words...]\n"
		"  FILE: sandbox firmware description "
		"(ram/reserved/cpu/distance/acpidump/dtb lines)\n"
		"  --prefault: fault the RAM in (huge pages where the host "
		"gives them) before the boot\n",
		prog);
	return 2;
}

/* ---- firmware replay (acpidump / dtb lines) ------------------------------ */

/*
 * @file as the description at @desc names it: relative paths start in the
 * description's folder. Return: a malloc'ed path, or NULL.
 */
static char *replay_path(const char *desc, const char *file)
{
	const char *slash = strrchr(desc, '/');
	int dir = slash ? (int)(slash - desc) : 0;
	char *out;

	if (file[0] == '/' || !slash)
		return strdup(file);
	if (asprintf(&out, "%.*s/%s", dir, desc, file) < 0)
		return NULL;
	return out;
}

/* Read @file for a replay line; NULL after an error on stderr. */
static char *replay_read(const char *desc, const char *file, const char *what,
			 size_t *len)
{
	char *path = replay_path(desc, file), *buf = NULL;

	if (path)
		buf = sandbox_read_file(path, len);
	if (!buf)
		fprintf(stderr, "keel: error: cannot read %s file %s: %s\n",
			what, path ? path : file, strerror(errno));
	free(path);
	return buf;
}

/*
 * The `acpidump` and `dtb` lines of @desc: the machine's tables parsed by
 * boot/ as on hardware, into @bi (which keeps no pointer into the files,
 * so both are freed here). Return: 0, or 2 (usage error, said on stderr).
 */
static int replay_firmware(struct bootinfo *bi, const char *desc,
			   const struct fwdesc_files *files)
{
	size_t len;
	char *text;

	if (files->acpidump[0]) {
		uint8_t *tables;
		size_t size;

		text = replay_read(desc, files->acpidump, "acpidump", &len);
		if (!text)
			return 2;
		size = len / 3 + 16;
		tables = malloc(size);
		if (!tables) {
			free(text);
			return 2;
		}
		acpi_replay(bi, text, len, tables, size);
		free(tables);
		free(text);
	}
	if (files->dtb[0]) {
		struct dt_arch_info ai;
		unsigned int r0 = bi->reserved_count;

		if (files->acpidump[0]) {
			fprintf(stderr,
				"keel: error: acpidump and dtb in one "
				"description: a machine boots with one\n");
			return 2;
		}
		text = replay_read(desc, files->dtb, "dtb", &len);
		if (!text)
			return 2;
		dt_parse(text, len, pa(0), bi, &ai);
		/* The blob lives in this process, not in the machine's RAM. */
		for (unsigned int i = r0; i < bi->reserved_count; i++) {
			if (strcmp(bi->reserved[i].name, "dtb"))
				continue;
			memmove(&bi->reserved[i], &bi->reserved[i + 1],
				(bi->reserved_count - i - 1) *
					sizeof(bi->reserved[0]));
			bi->reserved_count--;
			break;
		}
		free(text);
	}
	return 0;
}

/**
 * main() - `keel [--prefault] FILE [command line words...]`: boot the
 * sandbox.
 * @argc: argument count
 * @argv: FILE is the firmware description (DESIGN §3)
 *
 * Weak, because unit tests and libFuzzer bring their own main().
 *
 * Return: does not return on success (keel_main stops the process);
 * 2 on usage errors or when FILE cannot be read or RAM cannot be mapped.
 */
__attribute__((weak)) int main(int argc, char **argv)
{
	static struct fwdesc_files files;
	struct bootinfo *bi = &sandbox_bi;
	uint64_t top = 0, limit;
	bool have_boot = false, prefault = false;
	size_t len;
	char *buf;

	arch_entry_ticks = arch_ticks();
	if (argc < 2)
		return usage(argc > 0 ? argv[0] : "keel");
	if (!strcmp(argv[1], "--prefault")) {
		prefault = true;
		argv++;
		argc--;
	}
	if (argc < 2)
		return usage(argv[0]);
	buf = sandbox_read_file(argv[1], &len);
	if (!buf) {
		fprintf(stderr,
			"keel: error: cannot read firmware description %s: "
			"%s\n",
			argv[1], strerror(errno));
		return 2;
	}

	bootinfo_init(bi, BOOT_SANDBOX);
	fwdesc_parse_files(bi, buf, len, &files);
	free(buf);
	if (replay_firmware(bi, argv[1], &files))
		return 2;
	if (join_cmdline(bi, argc, argv, 2)) {
		fprintf(stderr,
			"keel: error: no memory for the command line\n");
		return 2;
	}
	snprintf(bi->loader, sizeof(bi->loader), "sandbox");
	bi->timer_source = "clock_monotonic_raw";
	bi->timer_calibrated_by = "os";
	bi->timer_hz = arch_ticks_hz();
	bi->el = -1;
	bi->paddr_bits = 48;

	for (unsigned int i = 0; i < bi->cpu_count; i++)
		have_boot |= bi->cpus[i].boot_cpu;
	if (!have_boot && bi->cpu_count)
		bi->cpus[0].boot_cpu = true;

	/* The arena covers every RAM byte sanitise can keep (48 bits). */
	limit = 1ull << bi->paddr_bits;
	for (unsigned int i = 0; i < bi->ram_count; i++) {
		uint64_t e = pa_val(bi->ram[i].end);

		if (e > limit)
			e = limit;
		if (e > top)
			top = e;
	}
	if (sandbox_ram_init(top)) {
		fprintf(stderr,
			"keel: error: cannot map %llu bytes of sandbox RAM\n",
			(unsigned long long)top);
		return 2;
	}
	for (unsigned int i = 0; prefault && i < bi->ram_count; i++) {
		if (sandbox_ram_prefault(pa_val(bi->ram[i].start),
					 pa_val(bi->ram[i].end))) {
			fprintf(stderr, "keel: error: --prefault: the host "
					"cannot back the RAM\n");
			return 2;
		}
	}
	sandbox_canary_arm(argv[1], top);
	keel_main(bi);
}
