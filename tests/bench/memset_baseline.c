/* SPDX-License-Identifier: MIT */
/*
 * Scrub baseline for `make bench` (DESIGN §9): how fast one host thread
 * zeroes memory with plain streaming stores, measured in the same run as
 * the sandbox scrub so the ratio means something.
 *
 * Usage: memset_baseline MIB [PASSES]
 * Prints one JSON object: GB/s (1e9 bytes/s) of the best pass for
 *   nt_fresh      non-temporal 16-byte stores into a fresh mmap (page
 *                 faults included: what the sandbox scrub pays, as its RAM
 *                 arena is a fresh MAP_NORESERVE mapping; huge pages asked
 *                 for with MADV_HUGEPAGE, as the sandbox scrub does)
 *   memset_fresh  memset() into a fresh mmap
 *   nt_warm / memset_warm   the same into memory already faulted in
 *
 * A host tool, not kernel code: it uses libc and SSE2 intrinsics.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nt_zero(void *p, size_t len)
{
#ifdef __SSE2__
	__m128i z = _mm_setzero_si128();
	__m128i *q = p;

	for (size_t i = 0; i < len / 16; i += 4) {
		_mm_stream_si128(q + i, z);
		_mm_stream_si128(q + i + 1, z);
		_mm_stream_si128(q + i + 2, z);
		_mm_stream_si128(q + i + 3, z);
	}
	_mm_sfence();
#else
	memset(p, 0, len);
	__asm__ __volatile__("" : : "r"(p) : "memory");
#endif
}

static void plain_zero(void *p, size_t len)
{
	memset(p, 0, len);
	/* Keep the compiler from dropping a store to memory never read. */
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

static void *fresh(size_t len)
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

/* Best GB/s of @passes runs of @fn, each on a fresh or a reused mapping. */
static double measure(void (*fn)(void *, size_t), size_t len, int passes,
		      int warm)
{
	double best = 0;
	void *p = warm ? fresh(len) : NULL;

	if (warm)
		plain_zero(p, len);
	for (int i = 0; i < passes; i++) {
		double t0, t1, rate;

		if (!warm)
			p = fresh(len);
		t0 = now_s();
		fn(p, len);
		t1 = now_s();
		rate = len / (t1 - t0) / 1e9;
		if (rate > best)
			best = rate;
		if (!warm)
			munmap(p, len);
	}
	if (warm)
		munmap(p, len);
	return best;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 1024;
	int passes = argc > 2 ? atoi(argv[2]) : 3;
	size_t len = mib << 20;

	if (!mib || passes < 1) {
		fprintf(stderr, "usage: %s MIB [PASSES]\n", argv[0]);
		return 2;
	}
	printf("{\"bytes\": %zu, \"nt_fresh\": %.3f, \"memset_fresh\": %.3f, "
	       "\"nt_warm\": %.3f, \"memset_warm\": %.3f}\n",
	       len, measure(nt_zero, len, passes, 0),
	       measure(plain_zero, len, passes, 0),
	       measure(nt_zero, len, passes, 1),
	       measure(plain_zero, len, passes, 1));
	return 0;
}
