// SPDX-License-Identifier: MIT
/*
 * The pure half of arm64's memory errors (arch/arm64/ras.c says what they
 * are): the syndrome decode of the exception path, and inject=sea's pick
 * of a page that the DT leaves to no device. No register, no mapping, no
 * lock: tests/unit/arm64_ras_test.c compiles this file on the host.
 */
#include <keel/bad_queue.h>
#include <keel/string.h>

#include "../../boot/fdt/fdt_priv.h"
#include "include/asm/ras.h"

#define EC_IABT_LOWER 0x20
#define EC_IABT	      0x21
#define EC_DABT_LOWER 0x24
#define EC_DABT	      0x25
#define EC_SERROR     0x2f

#define ISS_FNV	      (1ULL << 10)
#define ISS_FSC	      0x3fULL
#define SERROR_IDS    (1ULL << 24)
#define SERROR_AET(e) (((e) >> 10) & 7)
#define SERROR_ISS(e) ((e)&0xffffffULL)
#define DT_MAX_DEPTH  32

static const char *const aet_names[8] = {
	"uncontainable (UC)", "unrecoverable (UEU)", "restartable (UEO)",
	"recoverable (UER)",  "reserved AET 4",	     "reserved AET 5",
	"corrected (CE)",     "reserved AET 7",
};

/* The abort's fault status: a memory error? @walk: on a table walk. */
static bool fsc_memory_error(unsigned int fsc, bool *walk)
{
	*walk = (fsc >= 0x13 && fsc <= 0x17) || (fsc >= 0x1b && fsc <= 0x1f);
	return fsc == 0x10 || fsc == 0x18 || *walk;
}

/**
 * arm64_ras_decode() - is the exception with syndrome @esr a memory error?
 * @esr: ESR_ELx.
 * @far: FAR_ELx.
 * @me: filled when it is: the page's address (BAD_QUEUE_NO_ADDR: none),
 *	what it was, and a line of detail (no newline).
 * Return: true for a memory error.
 */
bool arm64_ras_decode(uint64_t esr, uint64_t far, struct arm64_mem_error *me)
{
	unsigned int ec = (unsigned int)(esr >> 26) & 0x3f;
	unsigned int fsc = (unsigned int)(esr & ISS_FSC);
	bool walk;

	me->pa = BAD_QUEUE_NO_ADDR;
	if (ec == EC_SERROR) {
		me->what = "SError";
		if (esr & SERROR_IDS)
			snprintf(me->detail, sizeof(me->detail),
				 "SError: implementation defined syndrome "
				 "%#llx (IDS set)",
				 (unsigned long long)SERROR_ISS(esr));
		else
			snprintf(me->detail, sizeof(me->detail),
				 "SError: AET %u, %s; DFSC %#x",
				 (unsigned int)SERROR_AET(esr),
				 aet_names[SERROR_AET(esr)], fsc);
		return true;
	}
	if (ec != EC_DABT && ec != EC_DABT_LOWER && ec != EC_IABT &&
	    ec != EC_IABT_LOWER)
		return false;
	if (!fsc_memory_error(fsc, &walk))
		return false;
	me->what = fsc == 0x10 || (fsc >= 0x13 && fsc <= 0x17)
			   ? "synchronous external abort"
			   : "synchronous parity or ECC error";
	if (!walk && !(esr & ISS_FNV))
		me->pa = far; /* keel's map is the identity: VA == PA */
	snprintf(me->detail, sizeof(me->detail),
		 "%s abort, FSC %#x%s, FAR %#llx%s",
		 ec == EC_IABT || ec == EC_IABT_LOWER ? "instruction" : "data",
		 fsc, walk ? " (on a translation table walk)" : "",
		 (unsigned long long)far,
		 (esr & ISS_FNV) ? " not valid (FnV)" : "");
	return true;
}

static uint64_t read_cells(const fdt32_t *p, int n)
{
	uint64_t v = 0;

	/* Wider than 64 bits (a PCI address): its low two cells. */
	for (int i = n > 2 ? n - 2 : 0; i < n; i++)
		v = (v << 32) | fdt32_to_cpu(p[i]);
	return v;
}

/* What a DT window [s, e) (a reg entry, a ranges parent window) does. */
typedef void dt_window_fn(uint64_t s, uint64_t e, void *arg);

/*
 * One property of @node: entries of @skip cells, then @ac address cells
 * and @sc size cells. Entries past the property's length are not read.
 */
static void prop_windows(const void *fdt, int node, const char *name, int skip,
			 int ac, int sc, dt_window_fn *fn, void *arg)
{
	int len, step = skip + ac + sc;
	const fdt32_t *p = fdt_getprop(fdt, node, name, &len);

	if (!p || len <= 0 || ac < 1 || ac > 4 || sc < 1 || sc > 2 || skip > 4)
		return;
	for (int at = 0; (at + step) * 4 <= len; at += step) {
		uint64_t s = read_cells(p + at + skip, ac);
		uint64_t size = read_cells(p + at + skip + ac, sc);

		if (size)
			fn(s, s + size > s ? s + size : ~0ULL, arg);
	}
}

/* Each reg entry and ranges parent window of the DT, at face value. */
static void for_each_window(const void *fdt, dt_window_fn *fn, void *arg)
{
	int ac[DT_MAX_DEPTH], sc[DT_MAX_DEPTH], depth = 0;

	for (int node = 0; node >= 0 && depth >= 0;
	     node = fdt_next_node(fdt, node, &depth)) {
		if (depth >= DT_MAX_DEPTH)
			continue;
		ac[depth] = fdt_address_cells(fdt, node);
		sc[depth] = fdt_size_cells(fdt, node);
		if (ac[depth] < 0)
			ac[depth] = 2;
		if (sc[depth] < 0)
			sc[depth] = 1;
		if (depth == 0)
			continue;
		prop_windows(fdt, node, "reg", 0, ac[depth - 1], sc[depth - 1],
			     fn, arg);
		prop_windows(fdt, node, "ranges", ac[depth], ac[depth - 1],
			     sc[depth], fn, arg);
	}
}

struct sea_pick {
	const void *fdt;
	const struct bootinfo *bi;
	uint64_t probe, best;
	bool covered;
};

static void covers(uint64_t s, uint64_t e, void *arg)
{
	struct sea_pick *k = arg;

	if (k->probe < e && k->probe + PAGE_SIZE > s)
		k->covered = true;
}

static bool table_covers(const struct range_table *t, uint64_t p)
{
	for (unsigned int i = 0; i < t->count; i++)
		if (p < pa_val(t->regions[i].end) &&
		    p + PAGE_SIZE > pa_val(t->regions[i].start))
			return true;
	return false;
}

/* The page right past a window: the lowest such page nothing covers. */
static void try_after(uint64_t s, uint64_t e, void *arg)
{
	struct sea_pick *k = arg;
	uint64_t p = ALIGN_UP(e, PAGE_SIZE);

	(void)s;
	if (p < e || p >= SEA_PA_LIMIT || p >= k->best)
		return;
	k->probe = p;
	k->covered = false;
	for_each_window(k->fdt, covers, k);
	if (!k->covered && !table_covers(&k->bi->ram, p) &&
	    !table_covers(&k->bi->reserved, p))
		k->best = p;
}

/**
 * arm64_ras_pick_page() - the lowest page past the end of a DT reg or
 * ranges window that no window, no RAM and no reserved range of @bi
 * covers, below SEA_PA_LIMIT.
 * @fdt: a DT whose header was checked.
 * @bi: the RAM and reserved ranges read so far.
 * Return: its address, or BAD_QUEUE_NO_ADDR when there is none.
 */
uint64_t arm64_ras_pick_page(const void *fdt, const struct bootinfo *bi)
{
	struct sea_pick k = {.fdt = fdt, .bi = bi, .best = BAD_QUEUE_NO_ADDR};

	for_each_window(fdt, try_after, &k);
	return k.best;
}
