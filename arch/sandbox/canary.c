/* SPDX-License-Identifier: MIT */
/*
 * The reserved-page canary: a test observer of the sandbox, opt-in with
 * KEEL_SANDBOX_CANARY=1 in the environment (scripts/fuzz-maps.py sets it).
 *
 * Before keel runs, every page of the firmware description's `reserved`
 * lines that lies inside one of its `ram` lines gets a pattern that depends
 * only on the page's address. When the process ends (PASS, FAIL or panic:
 * all of them leave through exit()), every such page is compared with the
 * pattern and one line is printed:
 *
 *   sandbox: canary: N reserved pages intact, M clobbered
 *
 * A clobbered page was scrubbed, handed out or written by keel although the
 * firmware reserved it; then the exit status becomes 1 whatever the
 * verdict was. The first few clobbered pages are named on their own lines.
 *
 * The ranges come from the parser itself (boot/fwdesc.c calls
 * sandbox_canary_observe() for every ram and reserved line it reads)
 * rather than from the bootinfo: the bootinfo tables are bounded and what
 * they drop is exactly what must still be checked; and a second reader of
 * the text could disagree with the parser (it once stopped at a NUL byte).
 *
 * KEEL_SANDBOX_CANARY_BADRAM=ADDR,MASK adds the RAM pages a badram=
 * pattern names (page by page: the pattern as keel keeps a dense one, a
 * lattice, whose pages the heap takes out at its handoff), so that a
 * test sees the scrub and the allocations never write one.
 *
 * It runs on the main thread only, while the description is parsed,
 * before keel starts and from the exit handler; the host is reached
 * through <asm/os.h>.
 */
#include <arch/mm.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/compiler.h>
#include <keel/string.h>

#define CANARY_ENV "KEEL_SANDBOX_CANARY"
/* Host memory bound: at most this many canary pages (1 GiB). */
#define CANARY_MAX_PAGES     (1ull << 18)
#define CANARY_NAMED_CLOBBER 4

struct canary_range {
	uint64_t start, end; /* page aligned, [start, end) */
};

static struct canary_range *canary;
static size_t canary_count;
static uint64_t canary_pages;
static bool canary_capped;
/* The description's ram and reserved lines, from the parser's observer. */
static struct canary_range *seen_ram, *seen_rsv;
static size_t seen_ram_count, seen_rsv_count;

static uint64_t canary_word(uint64_t pa)
{
	return (pa * 0x9e3779b97f4a7c15ull) ^ 0x6b65656c63616e79ull;
}

/* Append [s, e) to the array @*v of @*n. Return: false when out of memory. */
static bool range_push(struct canary_range **v, size_t *n, uint64_t s,
		       uint64_t e)
{
	struct canary_range *nv = os_realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return false;
	*v = nv;
	(*v)[(*n)++] = (struct canary_range){s, e};
	return true;
}

static int cmp_range(const void *a, const void *b)
{
	const struct canary_range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Sort and merge so that every page is written and counted once. */
static void canary_merge(void)
{
	size_t out = 0;

	sort(canary, canary_count, sizeof(*canary), cmp_range);
	for (size_t i = 0; i < canary_count; i++) {
		if (out && canary[i].start <= canary[out - 1].end) {
			if (canary[i].end > canary[out - 1].end)
				canary[out - 1].end = canary[i].end;
			continue;
		}
		canary[out++] = canary[i];
	}
	canary_count = out;
}

static void canary_add(uint64_t s, uint64_t e)
{
	if (s < e)
		range_push(&canary, &canary_count, s, e);
}

/*
 * Collect reserved pages inside RAM: @rsv and @ram are the parsed lines
 * (ram page-trimmed inwards, reserved widened outwards, as sanitise does).
 */
static void canary_collect(const struct canary_range *ram, size_t nram,
			   const struct canary_range *rsv, size_t nrsv,
			   uint64_t top)
{
	for (size_t i = 0; i < nrsv; i++) {
		for (size_t j = 0; j < nram; j++) {
			uint64_t s = rsv[i].start > ram[j].start ? rsv[i].start
								 : ram[j].start;
			uint64_t e = rsv[i].end < ram[j].end ? rsv[i].end
							     : ram[j].end;

			if (e > top)
				e = top;
			canary_add(s, e);
		}
	}
	canary_merge();
}

static void canary_check(void)
{
	uint64_t intact = 0, clobbered = 0;

	for (size_t i = 0; i < canary_count; i++) {
		for (uint64_t p = canary[i].start; p < canary[i].end;
		     p += PAGE_SIZE) {
			const uint64_t *w = arch_phys_to_virt(pa(p));
			bool ok = true;

			for (size_t k = 0; k < PAGE_SIZE / 8; k++) {
				if (w[k] != canary_word(p + k * 8)) {
					ok = false;
					break;
				}
			}
			if (ok) {
				intact++;
				continue;
			}
			if (clobbered++ < CANARY_NAMED_CLOBBER)
				os_printf(
					"sandbox: canary: reserved page %#llx "
					"clobbered\n",
					(unsigned long long)p);
		}
	}
	os_printf("sandbox: canary: %llu reserved pages intact, %llu "
		  "clobbered%s\n",
		  (unsigned long long)intact, (unsigned long long)clobbered,
		  canary_capped ? " (capped)" : "");
	if (clobbered)
		os_exit_now(1);
}

/* Write the pattern into every canary page, at most CANARY_MAX_PAGES. */
static void canary_fill(void)
{
	for (size_t i = 0; i < canary_count; i++) {
		uint64_t pages = (canary[i].end - canary[i].start) / PAGE_SIZE;

		if (canary_pages + pages > CANARY_MAX_PAGES) {
			canary_capped = true;
			pages = CANARY_MAX_PAGES - canary_pages;
			canary[i].end = canary[i].start + pages * PAGE_SIZE;
			canary_count = i + 1;
		}
		canary_pages += pages;
		for (uint64_t p = canary[i].start; p < canary[i].end; p += 8)
			*(uint64_t *)arch_phys_to_virt(pa(p)) = canary_word(p);
	}
}

/** sandbox_canary_enabled() - KEEL_SANDBOX_CANARY=1 is set. */
bool sandbox_canary_enabled(void)
{
	const char *env = os_getenv(CANARY_ENV);

	return env && !strcmp(env, "1");
}

/**
 * sandbox_canary_observe() - the parser's fwdesc_range_fn: one `ram` line
 * (trimmed inwards to pages) or `reserved` line (widened outwards, as
 * sanitise does) as boot/fwdesc.c read it.
 * @arg: unused
 * @ram: a ram line, else a reserved line
 * @s: START as written
 * @e: END as written
 */
void sandbox_canary_observe(void *arg, bool ram, uint64_t s, uint64_t e)
{
	(void)arg;
	if (ram) {
		if (s > PAGE_MASK)
			return;
		s = ALIGN_UP(s, PAGE_SIZE);
		e = ALIGN_DOWN(e, PAGE_SIZE);
	} else {
		s = ALIGN_DOWN(s, PAGE_SIZE);
		e = e > PAGE_MASK ? PAGE_MASK : ALIGN_UP(e, PAGE_SIZE);
	}
	if (s >= e)
		return;
	/* Out of host memory: fewer canaries, never a wrong one. */
	if (ram)
		range_push(&seen_ram, &seen_ram_count, s, e);
	else
		range_push(&seen_rsv, &seen_rsv_count, s, e);
}

/*
 * KEEL_SANDBOX_CANARY_BADRAM=ADDR,MASK: the pages of RAM (@ram, @nram
 * ranges, below @top) that badram=ADDR,MASK names, as canary ranges.
 */
static void canary_badram(const struct canary_range *ram, size_t nram,
			  uint64_t top)
{
	const char *env = os_getenv(CANARY_ENV "_BADRAM"), *comma;
	uint64_t addr, mask;

	if (!env || !(comma = strchr(env, ',')) ||
	    parse_u64(env, (size_t)(comma - env), &addr) ||
	    parse_u64(comma + 1, strlen(comma + 1), &mask))
		return;
	mask &= PAGE_MASK;
	for (size_t j = 0; j < nram; j++)
		for (uint64_t p = ram[j].start; p < ram[j].end && p < top;
		     p += PAGE_SIZE)
			if ((p & mask) == (addr & mask))
				canary_add(p, p + PAGE_SIZE);
}

/**
 * sandbox_canary_arm() - with KEEL_SANDBOX_CANARY=1, fill the firmware's
 * reserved RAM pages (as sandbox_canary_observe() saw them) with the
 * pattern and check them at exit.
 * @top: end of the arena (canaries above it cannot exist)
 */
void sandbox_canary_arm(uint64_t top)
{
	if (!sandbox_canary_enabled())
		return;
	canary_badram(seen_ram, seen_ram_count, top);
	canary_collect(seen_ram, seen_ram_count, seen_rsv, seen_rsv_count, top);
	os_free(seen_ram);
	os_free(seen_rsv);
	seen_ram = seen_rsv = NULL;
	seen_ram_count = seen_rsv_count = 0;
	canary_fill();
	os_atexit(canary_check);
}
