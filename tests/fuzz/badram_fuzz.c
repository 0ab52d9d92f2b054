/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: GRUB's badram= (badmem_parse_badram()) on arbitrary
 * bytes, and badmem_badram_runs() on ADDR, MASK and a RAM range taken
 * from the first 24 bytes: the runs are ascending, whole pages, inside
 * the range, never more than the budget plus the one withheld span, and
 * (for a range of at most 4096 pages) exactly the pages whose addresses
 * match, checked page by page; and the same pattern as a lattice
 * (include/keel/lattice.h, how a dense one is kept): at every page of the
 * range, the run after it and the run below it agree with those pages.
 */
#include <keel/badmem.h>
#include <keel/errno.h>
#include <keel/lattice.h>
#include <keel/string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ORACLE_PAGES 4096

struct walk {
	uint64_t s, e, last, runs;
	uint8_t seen[ORACLE_PAGES];
};

static bool check_run(void *arg, uint64_t s, uint64_t e)
{
	struct walk *w = arg;

	FUZZ_CHECK(s < e && s >= w->last && s >= w->s && e <= w->e);
	FUZZ_CHECK(IS_ALIGNED(s, PAGE_SIZE) && IS_ALIGNED(e, PAGE_SIZE));
	if (w->e - w->s <= ORACLE_PAGES * PAGE_SIZE)
		for (uint64_t p = s; p < e; p += PAGE_SIZE)
			w->seen[(p - w->s) / PAGE_SIZE] = 1;
	w->last = e;
	w->runs++;
	return true;
}

static uint64_t take(const uint8_t *d)
{
	uint64_t v;

	memcpy(&v, d, sizeof(v));
	return v;
}

/*
 * The lattice of ADDR, MASK against the pages seen, page by page, from the
 * last down (@next: the first page seen at or above the one looked at).
 */
static void check_lattice(const struct walk *w, uint64_t addr, uint64_t mask)
{
	struct lattice l = lattice_of_badram(addr, mask);
	uint64_t first = w->s / PAGE_SIZE, n = (w->e - w->s) / PAGE_SIZE;
	uint64_t next = n;

	for (uint64_t i = n; i--;) {
		uint64_t p = first + i, rs, re;
		bool after = lattice_run_after(&l, p, &rs, &re);

		next = w->seen[i] ? i : next;
		FUZZ_CHECK((after && rs <= p) == !!w->seen[i]);
		/* Not in a run: the next run starts at the next page seen. */
		if (!w->seen[i] && next < n)
			FUZZ_CHECK(after && rs == first + next);
		if (!w->seen[i] && next == n)
			FUZZ_CHECK(!after || rs >= first + n);
		if (lattice_run_below(&l, p, &rs, &re))
			FUZZ_CHECK(rs <= p && (p < re) == !!w->seen[i]);
		else
			FUZZ_CHECK(!w->seen[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct walk w;
	const char *why = NULL;
	uint64_t addr, mask, budget;
	int ret;

	fuzz_console_quiet();
	ret = badmem_parse_badram((const char *)data, size, &why);
	FUZZ_CHECK(ret == 0 || (ret == -EINVAL && why && *why));
	if (size < 24)
		return 0;
	addr = take(data);
	mask = take(data + 8);
	memset(&w, 0, sizeof(w));
	w.s = take(data + 16) & 0xffffffffff000ULL;
	w.e = w.s +
	      (uint64_t)(data[size - 1] + 1) * (size > 24 ? 16 : 1) * PAGE_SIZE;
	budget = size > 25 ? data[size - 2] : ~0ULL;
	badmem_badram_runs(addr, mask, w.s, w.e, &budget, check_run, &w);
	if (budget == 0 || w.e - w.s > ORACLE_PAGES * PAGE_SIZE)
		return 0;
	for (uint64_t i = 0; i < (w.e - w.s) / PAGE_SIZE; i++) {
		uint64_t m = mask & ~(uint64_t)(PAGE_SIZE - 1);
		bool want = ((w.s + i * PAGE_SIZE) & m) == (addr & m);

		FUZZ_CHECK(w.seen[i] == want);
	}
	check_lattice(&w, addr, mask);
	return 0;
}
