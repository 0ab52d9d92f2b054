/* SPDX-License-Identifier: MIT */
/*
 * p2m_selftest=on (include/keel/p2m.h): the stage-2 tables of the arch's
 * format checked three ways on tables of 1 GiB, 2 MiB and 4 KiB leaves:
 * the software walk must list exactly the leaves mapped, the software
 * translation and, where the arch can ask its MMU (arm64 at EL2: AT
 * S12E1R), the hardware translation must give the expected machine
 * address (or a fault) on sampled IPAs. The machine addresses are
 * scratch frames below 4 GiB that nothing ever reads or writes: only the
 * translation is under test. Owns the "p2m" object of the report.
 *
 * Runs on the boot CPU once, from common/boot.c: no lock.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/json.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/p2m_selftest.h>
#include <keel/printk.h>

#define ST_MAPS 15

struct st_map {
	uint64_t gpa, pa;
	unsigned int order;
};

struct st_walk {
	const struct st_map *maps;
	unsigned int seen, bad;
};

static struct p2m_selftest_result st;

/* The mappings, in gpa order, for an IPA space of 2^@ipa_bits (>= 32). */
static void st_layout(struct st_map *m, unsigned int ipa_bits)
{
	uint64_t top = 1ULL << ipa_bits;
	unsigned int n = 0;

	m[n++] = (struct st_map){0, 0xfffff000ULL, 0};
	for (uint64_t i = 1; i < 8; i++) /* reversed: catches index mix-ups */
		m[n++] = (struct st_map){i << 12,
					 0x10000000ULL + ((8 - i) << 12), 0};
	for (uint64_t j = 0; j < 3; j++)
		m[n++] = (struct st_map){(1 + j) << 21,
					 0xc0000000ULL + ((2 - j) << 21), 9};
	m[n++] = (struct st_map){1ULL << 30, 2ULL << 30, 18};
	m[n++] = (struct st_map){2ULL << 30, 1ULL << 30, 18};
	/* The last entries of the root, concatenated or not. */
	m[n++] = (struct st_map){top - (4ULL << 20), 0x200000ULL, 9};
	m[n++] = (struct st_map){top - PAGE_SIZE, 0x1000ULL, 0};
}

static int st_walk_fn(uint64_t gpa, paddr_t pa, unsigned int order, void *arg)
{
	struct st_walk *w = arg;
	const struct st_map *m = &w->maps[w->seen];

	if (w->seen >= ST_MAPS || m->gpa != gpa || m->pa != pa_val(pa) ||
	    m->order != order)
		w->bad++;
	w->seen++;
	return 0;
}

/* Expected answer for @gpa: 0 and *@pa, or -ENOENT. */
static int st_expect(const struct st_map *m, uint64_t gpa, uint64_t *pa)
{
	for (unsigned int i = 0; i < ST_MAPS; i++) {
		uint64_t size = PAGE_SIZE << m[i].order;

		if (gpa >= m[i].gpa && gpa - m[i].gpa < size) {
			*pa = m[i].pa + (gpa - m[i].gpa);
			return 0;
		}
	}
	return -ENOENT;
}

/* One sampled IPA through the software and (if it can) hardware walks. */
static bool st_sample(struct p2m *p, const struct st_map *m, uint64_t gpa,
		      bool *hw)
{
	uint64_t want = 0;
	int exp = st_expect(m, gpa, &want), rc;
	paddr_t got = INVALID_PADDR;
	bool ok;

	st.samples++;
	rc = p2m_translate(p, gpa, &got, NULL);
	ok = rc == exp && (rc || pa_val(got) == want);
	if (!ok)
		pr_err("p2m: selftest: ipa %#llx: software %d %#llx, expected "
		       "%d %#llx\n",
		       (unsigned long long)gpa, rc,
		       (unsigned long long)pa_val(got), exp,
		       (unsigned long long)want);
	if (!*hw)
		return ok;
	rc = p2m_hw_translate(p, gpa, &got);
	if (rc == -EOPNOTSUPP) {
		*hw = false;
		return ok;
	}
	st.hw_checked++;
	if (rc != exp || (!rc && pa_val(got) != want)) {
		pr_err("p2m: selftest: ipa %#llx: MMU %d %#llx, expected %d "
		       "%#llx\n",
		       (unsigned long long)gpa, rc,
		       (unsigned long long)pa_val(got), exp,
		       (unsigned long long)want);
		ok = false;
	}
	return ok;
}

/* Map the layout, check refusals and the walk. Return: problems found. */
static unsigned int st_build(struct p2m *p, const struct st_map *m)
{
	struct st_walk w = {m, 0, 0};
	unsigned int bad = 0;

	for (unsigned int i = 0; i < ST_MAPS; i++)
		if (p2m_map(p, m[i].gpa, pa(m[i].pa), m[i].order))
			bad++;
	/* Inside a 1 GiB block, misaligned, past the top: all refused. */
	if (p2m_map(p, (1ULL << 30) + (4ULL << 20), pa(0), 0) != -EINVAL ||
	    p2m_map(p, 1ULL << 21, pa(0x1000), 9) != -EINVAL ||
	    p2m_map(p, 1ULL << p->ipa_bits, pa(0), 0) != -EINVAL)
		bad++;
	p2m_commit(p);
	if (p2m_walk(p, st_walk_fn, &w) || w.seen != ST_MAPS || w.bad)
		bad++;
	return bad;
}

/*
 * One table of 2^@ipa_bits (0: the arch's maximum) built, sampled and
 * destroyed. Return: problems found, or a negative errno from p2m_init().
 */
static int st_one(int node, unsigned int ipa_bits, bool *hw)
{
	struct st_map m[ST_MAPS];
	unsigned int bad;
	struct p2m p;
	int err;

	err = p2m_init(&p, node, ipa_bits);
	if (err) {
		pr_err("p2m: selftest: p2m_init(%u bits): %d\n", ipa_bits, err);
		return err;
	}
	if (!st.tables++)
		st.ipa_bits = p.ipa_bits;
	st_layout(m, p.ipa_bits);
	bad = st_build(&p, m);
	st.table_pages += p2m_table_pages(&p);
	for (unsigned int i = 0; i < ST_MAPS; i++) {
		uint64_t size = PAGE_SIZE << m[i].order;

		bad += !st_sample(&p, m, m[i].gpa, hw);
		bad += !st_sample(&p, m, m[i].gpa + size / 2 + 0x128, hw);
		bad += !st_sample(&p, m, m[i].gpa + size - 8, hw);
	}
	/* Holes: a 4 KiB, a 2 MiB and a 1 GiB one, near the top, the top. */
	bad += !st_sample(&p, m, 0x8000, hw);
	bad += !st_sample(&p, m, 0x800000, hw);
	bad += !st_sample(&p, m, 0xc0001000ULL, hw);
	bad += !st_sample(&p, m, (1ULL << p.ipa_bits) - (2ULL << 20) + 16, hw);
	bad += !st_sample(&p, m, 1ULL << p.ipa_bits, hw);
	p2m_destroy(&p);
	if (p2m_table_pages(&p))
		bad++;
	return (int)bad;
}

/**
 * p2m_selftest() - build, check and destroy tables (include/keel/p2m.h).
 * @node: node of the table pages (-1: any)
 *
 * Three IPA widths, each only when below the arch's maximum and distinct:
 * the maximum (arm64 QEMU "max": 48 bits, root at level 0), 40 bits (two
 * concatenated root tables at level 1, KVM's default) and 32 bits (level 1
 * root with four entries), so the MMU checks every root geometry.
 *
 * Return: 0, a negative errno from p2m_init(), -EIO (a check failed).
 */
int p2m_selftest(int node)
{
	static const unsigned int widths[] = {0, 40, 32};
	unsigned int last = 0, bad = 0;
	bool hw = true;
	int err = 0;

	st.ran = true;
	st.format = p2m_format_name();
	for (unsigned int i = 0; i < ARRAY_SIZE(widths) && !err; i++) {
		if (i && (widths[i] >= last || widths[i] > st.ipa_bits))
			continue;
		err = st_one(node, widths[i], &hw);
		if (err > 0) {
			bad += (unsigned int)err;
			err = 0;
		}
		last = i ? widths[i] : st.ipa_bits;
	}
	st.ok = !bad && !err;
	pr_info("p2m: selftest %s, %u tables (%u-bit IPA and below), %llu "
		"table pages, %llu samples, %llu checked by the MMU: %s\n",
		st.format, st.tables, st.ipa_bits,
		(unsigned long long)st.table_pages,
		(unsigned long long)st.samples,
		(unsigned long long)st.hw_checked, st.ok ? "ok" : "FAILED");
	if (err)
		return err;
	return st.ok ? 0 : -EIO;
}

/** p2m_selftest_result() - Return: what the last p2m_selftest() found. */
const struct p2m_selftest_result *p2m_selftest_result(void)
{
	return &st;
}
