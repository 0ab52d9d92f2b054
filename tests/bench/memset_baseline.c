/* SPDX-License-Identifier: MIT */
/*
 * Scrub baselines for `make bench` (DESIGN §9): how fast this host zeroes
 * memory, measured in the same run as the sandbox scrub so that the ratio
 * means something.
 *
 * Usage: memset_baseline MIB [PASSES [THREADS]]
 * Prints one JSON object, GB/s (1e9 bytes/s) of the best pass:
 *   warm: memory already faulted in (what a prefaulted sandbox arena and
 *         real hardware give a scrub), for one thread ("1") and for
 *         THREADS threads ("all", default: the online CPUs), each thread
 *         zeroing its own MIB/THREADS slice at the same time:
 *           memset    glibc memset
 *           sse2_nt   16-byte non-temporal stores (movntdq)
 *           avx2_nt   32-byte non-temporal stores (vmovntdq; null when the
 *                     host has no AVX2)
 *         and best_1 / best_all, the best of them.
 *   nt_fresh / memset_fresh: one thread into a fresh mmap (page faults
 *         included, huge pages asked for: the sandbox without --prefault).
 *   fault_ns: the cost of one 4 KiB first-touch page fault (huge pages
 *         refused), ns: the host's price of each first touch.
 *
 * A host tool, not kernel code: it uses libc, pthreads and intrinsics.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

typedef void (*zero_fn)(void *, size_t);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void plain_zero(void *p, size_t len)
{
	memset(p, 0, len);
	/* Keep the compiler from dropping a store to memory never read. */
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

#if defined(__x86_64__)
static void sse2_nt(void *p, size_t len)
{
	__m128i z = _mm_setzero_si128();
	__m128i *q = p;

	for (size_t i = 0; i < len / 16; i += 4) {
		_mm_stream_si128(q + i, z);
		_mm_stream_si128(q + i + 1, z);
		_mm_stream_si128(q + i + 2, z);
		_mm_stream_si128(q + i + 3, z);
	}
	_mm_sfence();
}

__attribute__((target("avx2"))) static void avx2_nt(void *p, size_t len)
{
	__m256i z = _mm256_setzero_si256();
	__m256i *q = p;

	for (size_t i = 0; i < len / 32; i += 4) {
		_mm256_stream_si256(q + i, z);
		_mm256_stream_si256(q + i + 1, z);
		_mm256_stream_si256(q + i + 2, z);
		_mm256_stream_si256(q + i + 3, z);
	}
	_mm_sfence();
	_mm256_zeroupper();
}
#else
#define sse2_nt plain_zero
#define avx2_nt plain_zero
#endif

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	/* The sandbox asks for huge pages on the ranges it scrubs: same here. */
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

/* One thread, fresh mapping per pass: page faults included. */
static double fresh_rate(zero_fn fn, size_t len, int passes)
{
	double best = 0;

	for (int i = 0; i < passes; i++) {
		void *p = map(len);
		double t0 = now_s(), rate;

		fn(p, len);
		rate = len / (now_s() - t0) / 1e9;
		best = rate > best ? rate : best;
		munmap(p, len);
	}
	return best;
}

/*
 * The host's cost of one 4 KiB page fault on first touch (best of @passes
 * over @len of a fresh mapping, huge pages refused): what each first touch
 * of a sandbox arena page or of QEMU guest RAM costs that real hardware
 * does not pay. Return: ns per page.
 */
static double fault_ns(size_t len, int passes)
{
	double best = 0;

	for (int i = 0; i < passes; i++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double t0, ns;

		if (p == MAP_FAILED)
			return -1;
		madvise(p, len, MADV_NOHUGEPAGE);
		t0 = now_s();
		for (size_t off = 0; off < len; off += 4096)
			p[off] = 1;
		ns = (now_s() - t0) * 1e9 / (double)(len / 4096);
		best = !best || ns < best ? ns : best;
		munmap(p, len);
	}
	return best;
}

struct slice {
	zero_fn fn;
	char *p;
	size_t len;
	pthread_barrier_t *start;
};

static void *slice_run(void *arg)
{
	struct slice *s = arg;

	pthread_barrier_wait(s->start);
	s->fn(s->p, s->len);
	return NULL;
}

/* @threads threads zero @len of faulted-in memory at once: best GB/s. */
static double warm_rate(zero_fn fn, char *buf, size_t len, int threads,
			int passes)
{
	pthread_t tid[threads];
	struct slice sl[threads];
	pthread_barrier_t start;
	size_t per = (len / threads) & ~(size_t)4095;
	double best = 0;

	pthread_barrier_init(&start, NULL, threads + 1);
	for (int i = 0; i < passes; i++) {
		double t0, rate;

		for (int t = 0; t < threads; t++) {
			sl[t] = (struct slice){fn, buf + t * per, per, &start};
			pthread_create(&tid[t], NULL, slice_run, &sl[t]);
		}
		t0 = now_s();
		pthread_barrier_wait(&start);
		for (int t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
		rate = per * threads / (now_s() - t0) / 1e9;
		best = rate > best ? rate : best;
	}
	pthread_barrier_destroy(&start);
	return best;
}

static int have_avx2(void)
{
#if defined(__x86_64__)
	return __builtin_cpu_supports("avx2");
#else
	return 0;
#endif
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 1024;
	int passes = argc > 2 ? atoi(argv[2]) : 3;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int threads = argc > 3 ? atoi(argv[3]) : (int)(ncpu > 0 ? ncpu : 1);
	size_t len = mib << 20;
	static const char *const names[] = {"memset", "sse2_nt", "avx2_nt"};
	zero_fn fns[] = {plain_zero, sse2_nt, avx2_nt};
	double r[2][3], best[2] = {0, 0};
	char *buf;

	if (!mib || passes < 1 || threads < 1 || threads > 1024) {
		fprintf(stderr, "usage: %s MIB [PASSES [THREADS]]\n", argv[0]);
		return 2;
	}
	buf = map(len);
	plain_zero(buf, len); /* fault it in */
	for (int k = 0; k < 3; k++) {
		int n[2] = {1, threads};

		for (int j = 0; j < 2; j++) {
			r[j][k] = k == 2 && !have_avx2()
					  ? -1
					  : warm_rate(fns[k], buf, len, n[j],
						      passes);
			best[j] = r[j][k] > best[j] ? r[j][k] : best[j];
		}
	}
	munmap(buf, len);
	printf("{\"bytes\": %zu, \"threads\": %d", len, threads);
	for (int j = 0; j < 2; j++) {
		printf(", \"warm_%s\": {", j ? "all" : "1");
		for (int k = 0; k < 3; k++) {
			if (r[j][k] < 0)
				printf("%s\"%s\": null", k ? ", " : "",
				       names[k]);
			else
				printf("%s\"%s\": %.3f", k ? ", " : "",
				       names[k], r[j][k]);
		}
		printf("}");
	}
	printf(", \"best_1\": %.3f, \"best_all\": %.3f", best[0], best[1]);
	printf(", \"nt_fresh\": %.3f, \"memset_fresh\": %.3f",
	       fresh_rate(sse2_nt, len, passes),
	       fresh_rate(plain_zero, len, passes));
	printf(", \"fault_ns\": %.0f}\n", fault_ns(len, passes));
	return 0;
}
