/* SPDX-License-Identifier: MIT */
/*
 * The scrub candidates and the selected one (include/keel/scrub_prims.h):
 * the bookkeeping every arch used to rewrite, over the arch's const table
 * of primitives (include/arch/scrub.h). Also arch_scrub_range() and
 * arch_scrub_clean_range(), which only dispatch to the selected one.
 */
#include <keel/atomic.h>
#include <keel/compiler.h>
#include <keel/scrub_prims.h>

static const struct arch_scrub_prim *table;
static uint8_t cand[ARCH_SCRUB_MAX_PRIMITIVES]; /* indexes into table */
static unsigned int cand_count;
static unsigned int selected; /* index into cand (atomic) */

/**
 * scrub_prims_probe() - list the arch's primitives this CPU can run, in
 * the arch's order, and select the first (the default).
 */
void scrub_prims_probe(void)
{
	unsigned int n = arch_scrub_prims(&table), count = 0;

	n = MIN(n, (unsigned int)ARCH_SCRUB_MAX_PRIMITIVES);
	for (unsigned int i = 0; i < n; i++)
		if (!table[i].available || table[i].available())
			cand[count++] = (uint8_t)i;
	/* The arch promises one; without it, its first is still the best bet. */
	if (!count)
		cand[count++] = 0;
	atomic_store_release(&selected, 0);
	atomic_store_release(&cand_count, count);
}

static unsigned int count_probed(void)
{
	unsigned int n = atomic_load_acquire(&cand_count);

	if (!n) {
		scrub_prims_probe();
		n = cand_count;
	}
	return n;
}

static const struct arch_scrub_prim *prim(unsigned int idx)
{
	unsigned int n = count_probed();

	return &table[cand[idx < n ? idx : 0]];
}

/** scrub_prims_count() - Return: how many candidates (at least 1). */
unsigned int scrub_prims_count(void)
{
	return count_probed();
}

/**
 * scrub_prims_name() - name of candidate @idx.
 * Return: the name; the default's when @idx is out of range.
 */
const char *scrub_prims_name(unsigned int idx)
{
	return prim(idx)->name;
}

/** scrub_prims_select() - use candidate @idx (out of range: the default). */
void scrub_prims_select(unsigned int idx)
{
	atomic_store_release(&selected, idx < count_probed() ? idx : 0);
}

/** scrub_prims_selected() - Return: the candidate in use. */
unsigned int scrub_prims_selected(void)
{
	count_probed();
	return atomic_load_acquire(&selected);
}

/** scrub_prims_current_name() - Return: the name of the one in use. */
const char *scrub_prims_current_name(void)
{
	return scrub_prims_name(scrub_prims_selected());
}

/**
 * scrub_prims_zero() - zero a range with candidate @idx.
 * @idx: the candidate (out of range: the default)
 * @va: page aligned
 * @len: page multiple
 * @clean: also clean it to PoC (struct arch_scrub_prim.zero_clean)
 */
void scrub_prims_zero(unsigned int idx, void *va, size_t len, bool clean)
{
	const struct arch_scrub_prim *p = prim(idx);

	if (clean)
		p->zero_clean(va, len);
	else
		p->zero(va, len);
}

/**
 * arch_scrub_range() - zero [va, va+len) with the selected primitive.
 * @va: page aligned
 * @len: page multiple
 */
void arch_scrub_range(void *va, size_t len)
{
	scrub_prims_zero(scrub_prims_selected(), va, len, false);
}

/**
 * arch_scrub_clean_range() - zero and clean to PoC with the selected one.
 * @va: page aligned
 * @len: page multiple
 * Return: true (the range is clean to PoC).
 */
bool arch_scrub_clean_range(void *va, size_t len)
{
	scrub_prims_zero(scrub_prims_selected(), va, len, true);
	return true;
}
