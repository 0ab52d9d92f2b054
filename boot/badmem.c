/* SPDX-License-Identifier: MIT */
/*
 * Bad memory from the operator (include/keel/badmem.h): badpage= (Xen),
 * badram= (GRUB / Memtest86+) and memmap=SIZE$START (Linux), read from the
 * command line after bootinfo_sanitise() (RAM sorted, so that badram= can
 * be enumerated over it) and before bootmem exists: each bad range becomes
 * a "bad option" reservation of bootinfo, which bootmem keeps from the
 * heap like any other. No fixed table: the words are read where they lie
 * and bootinfo's reserved table grows; the command line's length is the
 * only limit. badram= is the one option that can name millions of pages:
 * a pattern of more than BADRAM_TABLE_RUNS runs in RAM is kept as a
 * pattern (struct bootinfo's @lattice, up to BOOTINFO_LATTICE_MAX of
 * them), which bootmem allocates around and the heap takes out at its
 * handoff (common/mm/bad_lattice.c); past those, its runs are bounded
 * (BADRAM_RUNS_MAX for the whole boot) and past the bound the rest of
 * each RAM range from the next match on is withheld whole, with one
 * warning: more memory out of service, never a bad page handed out.
 *
 * Parsers read only [s, s+len); every problem is one `cmdline: WORD:
 * reason` warning. No lock: the boot CPU, before SMP.
 */
#include <keel/badmem.h>
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/config.h>
#include <keel/errno.h>
#include <keel/escape.h>
#include <keel/lattice.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "boot_priv.h"

/* Runs badram= may add in one boot before it withholds whole spans. */
#define BADRAM_RUNS_MAX (64u * 1024)
/* The highest PFN a 64-bit address has (PFN ranges are clamped to it). */
#define PFN_LIMIT (~0ULL >> PAGE_SHIFT)

/* The next item of a comma-separated list: [*at, comma or end). */
static bool next_item(const char *s, size_t len, size_t *at, const char **item,
		      size_t *ilen)
{
	const char *c;

	if (*at > len)
		return false;
	*item = s + *at;
	c = memchr(*item, ',', len - *at);
	*ilen = c ? (size_t)(c - *item) : len - *at;
	*at += *ilen + 1;
	return true;
}

/* Record the first problem; keep parsing. */
static void problem(const char **why, const char *reason, int *ret)
{
	if (!*ret)
		*why = reason;
	*ret = -EINVAL;
}

/**
 * badmem_parse_badpage() - Xen's badpage= value; see badmem.h.
 *
 * Return: 0 or -EINVAL (*@why).
 */
int badmem_parse_badpage(const char *s, size_t len, badmem_fn fn, void *arg,
			 const char **why)
{
	const char *item;
	size_t at = 0, ilen;
	int ret = 0;

	while (next_item(s, len, &at, &item, &ilen)) {
		const char *dash = memchr(item, '-', ilen);
		uint64_t a, b;

		if (!ilen) {
			problem(why, "empty item", &ret);
			continue;
		}
		if (parse_u64(item, dash ? (size_t)(dash - item) : ilen, &a) ||
		    (dash && parse_u64(dash + 1,
				       ilen - (size_t)(dash + 1 - item), &b))) {
			problem(why, "not a PFN or PFN range A-B", &ret);
			continue;
		}
		if (!dash)
			b = a;
		if (b < a) {
			problem(why, "range ends below its start", &ret);
			continue;
		}
		if (b >= PFN_LIMIT) {
			problem(why, "PFN above the 64-bit address space",
				&ret);
			continue;
		}
		if (fn && !fn(arg, a << PAGE_SHIFT, (b + 1) << PAGE_SHIFT))
			break;
	}
	return ret;
}

/* SIZE$START with SIZE and START parsed; its pages, clamped. */
static int memmap_item(const char *item, size_t ilen, uint64_t *s, uint64_t *e,
		       const char **why)
{
	const char *sep = NULL;
	uint64_t size;

	for (size_t i = 0; i < ilen && !sep; i++)
		if (item[i] == '$' || item[i] == '@' || item[i] == '#' ||
		    item[i] == '!')
			sep = item + i;
	if (!sep || *sep != '$') {
		*why = "only SIZE$START (bad memory) is read, other memmap= "
		       "forms are ignored";
		return -EOPNOTSUPP;
	}
	if (parse_size(item, (size_t)(sep - item), &size) ||
	    parse_size(sep + 1, ilen - (size_t)(sep + 1 - item), s)) {
		*why = "not SIZE$START (numbers with K/M/G/T)";
		return -EINVAL;
	}
	if (!size) {
		*why = "SIZE is 0";
		return -EINVAL;
	}
	if (*s > ~0ULL - 2 * PAGE_SIZE + 1) {
		/* [s, e) cannot end past 2^64 - 4096 (PFN_LIMIT's page). */
		*why = "START in the last page of the 64-bit address space";
		return -EINVAL;
	}
	*e = *s + size;
	if (*e < *s || *e > ~0ULL - PAGE_SIZE)
		*e = ~0ULL - PAGE_SIZE + 1;
	*s = ALIGN_DOWN(*s, PAGE_SIZE);
	*e = ALIGN_UP(*e, PAGE_SIZE);
	return 0;
}

/**
 * badmem_parse_memmap() - Linux's memmap=SIZE$START; see badmem.h.
 *
 * Return: 0, -EINVAL or -EOPNOTSUPP (*@why; nothing of that item taken).
 */
int badmem_parse_memmap(const char *s, size_t len, badmem_fn fn, void *arg,
			const char **why)
{
	const char *item;
	size_t at = 0, ilen;
	int ret = 0;

	while (next_item(s, len, &at, &item, &ilen)) {
		const char *w = NULL;
		uint64_t bs, be;
		int err = memmap_item(item, ilen, &bs, &be, &w);

		if (err) {
			if (!ret)
				*why = w;
			ret = ret ? ret : err;
			continue;
		}
		if (fn && !fn(arg, bs, be))
			break;
	}
	return ret;
}

/* One ADDR or MASK of badram=. */
static bool badram_number(const char *item, size_t ilen, uint64_t *v)
{
	return ilen && !parse_u64(item, ilen, v);
}

/**
 * badmem_parse_badram() - the syntax of GRUB's badram=; see badmem.h.
 *
 * Return: 0 or -EINVAL (*@why).
 */
int badmem_parse_badram(const char *s, size_t len, const char **why)
{
	const char *item;
	size_t at = 0, ilen;
	unsigned int n = 0;
	uint64_t v;

	while (next_item(s, len, &at, &item, &ilen)) {
		if (!badram_number(item, ilen, &v)) {
			*why = "not ADDR,MASK pairs of numbers";
			return -EINVAL;
		}
		n++;
	}
	if (n % 2) {
		*why = "an ADDR without its MASK";
		return -EINVAL;
	}
	return 0;
}

/**
 * badmem_badram_runs() - the pages of [ram_s, ram_e) that ADDR, MASK names;
 * see badmem.h.
 *
 * Return: the runs given to @fn.
 */
uint64_t badmem_badram_runs(uint64_t addr, uint64_t mask, uint64_t ram_s,
			    uint64_t ram_e, uint64_t *budget, badmem_fn fn,
			    void *arg)
{
	/* In pages: a page matches when any of its addresses does. */
	uint64_t m = mask >> PAGE_SHIFT, v = (addr & mask) >> PAGE_SHIFT;
	uint64_t ps = ram_s >> PAGE_SHIFT, pe = ram_e >> PAGE_SHIFT, runs = 0;
	unsigned int k = m ? (unsigned int)__builtin_ctzll(m) : 64;
	uint64_t u, um = k < 64 ? m >> k : 0, uv = k < 64 ? v >> k : 0;
	uint64_t ue = k < 64 ? (pe - 1) >> k : 0;

	if (ps >= pe)
		return 0;
	if (k >= 64) {
		/* No mask bit at or above the page: every page matches. */
		fn(arg, ram_s, ram_e);
		return 1;
	}
	/* Runs of 2^k pages: the mask's clear low bits vary inside one. */
	for (u = ps >> k; lattice_next_match(u, um, uv, &u) && u <= ue; u++) {
		uint64_t rs = MAX(u << k, ps), re = MIN((u + 1) << k, pe);

		if (!*budget) {
			/* Past the bound: the rest of this RAM, whole. */
			fn(arg, rs << PAGE_SHIFT, pe << PAGE_SHIFT);
			return runs + 1;
		}
		(*budget)--;
		runs++;
		if (!fn(arg, rs << PAGE_SHIFT, re << PAGE_SHIFT) || re >= pe)
			break;
	}
	return runs;
}

/* --- the command line ---------------------------------------------------- */

struct apply {
	struct bootinfo *bi;
	uint64_t pages, outside; /* pages named; of those, not RAM */
	uint64_t budget;	 /* badram= runs left */
	bool withheld;		 /* badram= hit its bound */
};

/* Pages of [s, e) not in @bi's (sorted) RAM. */
static uint64_t pages_outside_ram(const struct bootinfo *bi, uint64_t s,
				  uint64_t e)
{
	uint64_t in = 0;
	unsigned int i = range_table_first_ending_above(&bi->ram, pa(s));

	for (; i < bi->ram.count; i++) {
		const struct region *r = &bi->ram.regions[i];
		uint64_t rs = MAX(s, pa_val(r->start));
		uint64_t re = MIN(e, pa_val(r->end));

		if (pa_val(r->start) >= e)
			break;
		if (re > rs)
			in += re - rs;
	}
	return (e - s - in) >> PAGE_SHIFT;
}

/*
 * pages_outside_ram() for ranges that come in address order (the
 * firmware's 100,000 bad pages): the RAM range to start from is found by
 * walking on from @*at, where the last range (@*last) left it, one merge
 * walk beside RAM; a range below the last searches again.
 */
static uint64_t pages_outside_ram_walk(const struct bootinfo *bi,
				       unsigned int *at, uint64_t *last,
				       uint64_t s, uint64_t e)
{
	const struct range_table *ram = &bi->ram;
	uint64_t in = 0;
	unsigned int i = *at;

	if (s < *last)
		i = range_table_first_ending_above(ram, pa(s));
	while (i < ram->count && pa_val(ram->regions[i].end) <= s)
		i++;
	*at = i;
	*last = s;
	for (; i < ram->count && pa_val(ram->regions[i].start) < e; i++) {
		uint64_t rs = MAX(s, pa_val(ram->regions[i].start));
		uint64_t re = MIN(e, pa_val(ram->regions[i].end));

		if (re > rs)
			in += re - rs;
	}
	return (e - s - in) >> PAGE_SHIFT;
}

static bool add_option_range(void *arg, uint64_t s, uint64_t e)
{
	struct apply *ap = arg;

	ap->pages += (e - s) >> PAGE_SHIFT;
	ap->outside += pages_outside_ram(ap->bi, s, e);
	bootinfo_add_reserved(ap->bi, pa(s), pa(e),
			      badmem_region_name(BADMEM_OPTION));
	return true;
}

/*
 * A badram= pattern that names more runs of pages in RAM than this is kept
 * as a pattern (struct bootinfo's @lattice), not as reservations: a
 * failing column names a page in every few KiB, and bootmem's reserved
 * table, 48 bytes a range, must lie in one piece of good RAM.
 */
#define BADRAM_TABLE_RUNS 256

static bool count_run(void *arg, uint64_t s, uint64_t e)
{
	uint64_t *n = arg;

	(void)s;
	(void)e;
	return ++*n <= BADRAM_TABLE_RUNS;
}

/* Does ADDR, MASK name more than BADRAM_TABLE_RUNS runs of @bi's RAM? */
static bool badram_dense(const struct bootinfo *bi, uint64_t addr,
			 uint64_t mask)
{
	uint64_t n = 0, budget = ~0ULL;

	for (unsigned int i = 0; i < bi->ram.count; i++) {
		badmem_badram_runs(addr, mask, pa_val(bi->ram.regions[i].start),
				   pa_val(bi->ram.regions[i].end), &budget,
				   count_run, &n);
		if (n > BADRAM_TABLE_RUNS)
			return true;
	}
	return false;
}

/* badram=: each ADDR,MASK pair over every RAM range. */
static void apply_badram(struct apply *ap, const char *s, size_t len)
{
	const char *a, *m;
	size_t at = 0, alen, mlen;
	uint64_t addr, mask;

	while (next_item(s, len, &at, &a, &alen) &&
	       next_item(s, len, &at, &m, &mlen)) {
		if (!badram_number(a, alen, &addr) ||
		    !badram_number(m, mlen, &mask))
			return;
		if (ap->bi->lattice_count < BOOTINFO_LATTICE_MAX &&
		    badram_dense(ap->bi, addr, mask)) {
			ap->bi->lattice[ap->bi->lattice_count++] =
				lattice_of_badram(addr, mask);
			pr_info("cmdline: badram=%#llx,%#llx: more than %u "
				"runs of pages, kept as a pattern: the heap "
				"takes them out at its handoff\n",
				U64(addr), U64(mask), BADRAM_TABLE_RUNS);
			continue;
		}
		for (unsigned int i = 0; i < ap->bi->ram.count; i++) {
			const struct region *r = &ap->bi->ram.regions[i];

			badmem_badram_runs(addr, mask, pa_val(r->start),
					   pa_val(r->end), &ap->budget,
					   add_option_range, ap);
		}
	}
	if (!ap->budget && !ap->withheld) {
		ap->withheld = true;
		pr_warn("cmdline: badram=%.*s: names more than %u runs of "
			"pages: past them each RAM range is withheld whole "
			"from its next match on\n",
			(int)MIN(len, (size_t)64), s, BADRAM_RUNS_MAX);
	}
}

/* One badpage= / memmap= / badram= word. Return: warnings printed. */
static unsigned int apply_word(struct apply *ap, const char *key, size_t klen,
			       const char *val, size_t vlen)
{
	const char *why = "", *esc;
	char buf[96];
	int err = 0;

	ap->pages = ap->outside = 0;
	if (klen == 7 && !memcmp(key, "badpage", 7)) {
		err = badmem_parse_badpage(val, vlen, add_option_range, ap,
					   &why);
	} else if (klen == 6 && !memcmp(key, "memmap", 6)) {
		err = badmem_parse_memmap(val, vlen, add_option_range, ap,
					  &why);
	} else if (klen == 6 && !memcmp(key, "badram", 6)) {
		err = badmem_parse_badram(val, vlen, &why);
		if (!err)
			apply_badram(ap, val, vlen);
	} else {
		return 0;
	}
	esc = escape_bytes(buf, sizeof(buf), key, (size_t)(val + vlen - key));
	if (err) {
		pr_warn("cmdline: %s: %s%s\n", esc, why,
			ap->pages ? " (the well-formed items taken)" : "");
		return 1;
	}
	if (ap->outside) {
		pr_warn("cmdline: %s: %llu of its %llu pages are not RAM, "
			"ignored\n",
			esc, U64(ap->outside), U64(ap->pages));
		return 1;
	}
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/**
 * badmem_apply_cmdline() - the bad-memory words of [s, s+len); see
 * badmem.h.
 *
 * Return: the number of warnings printed.
 */
unsigned int badmem_apply_cmdline(struct bootinfo *bi, const char *s,
				  size_t len)
{
	struct apply ap = {.bi = bi, .budget = BADRAM_RUNS_MAX};
	unsigned int warnings = 0;
	size_t i = 0;

	if (!s)
		return 0;
	len = strnlen(s, len);
	while (i < len) {
		size_t k, klen, v, vlen;

		while (i < len && is_blank(s[i]))
			i++;
		for (k = i; i < len && !is_blank(s[i]) && s[i] != '='; i++)
			;
		klen = i - k;
		if (i >= len || s[i] != '=') {
			continue;
		}
		v = ++i;
		if (i < len && s[i] == '"') {
			const char *q = memchr(s + i + 1, '"', len - i - 1);

			v = i + 1;
			i = q ? (size_t)(q - s) : len;
			vlen = i - v;
			i += i < len;
		} else {
			while (i < len && !is_blank(s[i]))
				i++;
			vlen = i - v;
		}
		warnings += apply_word(&ap, s + k, klen, s + v, vlen);
	}
	return warnings;
}

/*
 * Firmware bad ranges (sandbox `bad` lines, the DT property) name RAM that
 * a ram line or /memory gives; pages outside it are ignored (bootmem keeps
 * only RAM), with one warning for the boot. Return: warnings.
 */
static unsigned int check_firmware(struct bootinfo *bi)
{
	uint64_t outside = 0, first_s = 0, first_e = 0, last = 0;
	unsigned int at = 0;

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];
		uint64_t s = ALIGN_DOWN(pa_val(r->start), PAGE_SIZE);
		uint64_t e = ALIGN_UP(pa_val(r->end), PAGE_SIZE);
		uint64_t n;

		/* Bounds before the name: 100,000 bad ranges, all in RAM. */
		if (e <= s)
			continue;
		n = pages_outside_ram_walk(bi, &at, &last, s, e);
		if (!n || badmem_region_source(r->name) != BADMEM_FIRMWARE)
			continue;
		if (!outside) {
			first_s = s;
			first_e = e;
		}
		outside += n;
	}
	if (!outside)
		return 0;
	pr_warn("firmware: %llu bad pages are not RAM, ignored (the first in "
		"[%#llx, %#llx))\n",
		U64(outside), U64(first_s), U64(first_e));
	return 1;
}

/*
 * The image on a page of a badram= pattern kept as a lattice (struct
 * bootinfo's @lattice): one error per image reservation and pattern,
 * naming the first such page. O(images x lattices).
 */
static void check_image_lattices(const struct bootinfo *bi)
{
	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *img = &bi->reserved.regions[i];
		uint64_t s = pa_val(img->start) >> PAGE_SHIFT, rs, re;

		if (img->name[0] != IMAGE_NAME[0] ||
		    strcmp(img->name, IMAGE_NAME))
			continue;
		for (unsigned int j = 0; j < bi->lattice_count; j++) {
			const struct lattice *l = &bi->lattice[j];

			if (!lattice_run_after(l, s, &rs, &re) ||
			    (rs << PAGE_SHIFT) >= pa_val(img->end))
				continue;
			pr_err("the image [%#llx, %#llx) lies on memory called "
			       "bad (badram= pattern %#llx,%#llx, page %#llx): "
			       "its loader wrote keel there; load keel where "
			       "memory is good\n",
			       U64(pa_val(img->start)), U64(pa_val(img->end)),
			       U64(l->value << PAGE_SHIFT),
			       U64(l->mask << PAGE_SHIFT),
			       U64(MAX(rs, s) << PAGE_SHIFT));
		}
	}
}

/* Errors about the image on bad memory before one line gives the count. */
#define IMAGE_BAD_ERR_MAX 8

/*
 * The image (the arch's IMAGE_NAME reservations) on memory the firmware or
 * the command line calls bad: its loader has already written keel there
 * and keel runs from it. Nothing to mend (the pages stay out of the heap
 * either way), but never silent: one `keel: error:` line per bad range,
 * naming both. O(images x reservations).
 */
static void check_image(const struct bootinfo *bi)
{
	unsigned int said = 0, more = 0;

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *img = &bi->reserved.regions[i];

		/* The first byte first: one look per reserved range. */
		if (img->name[0] != IMAGE_NAME[0] ||
		    strcmp(img->name, IMAGE_NAME))
			continue;
		for (unsigned int j = 0; j < bi->reserved.count; j++) {
			const struct region *b = &bi->reserved.regions[j];

			/* Bounds before the name: 100,000 bad ranges. */
			if (pa_val(b->start) >= pa_val(img->end) ||
			    pa_val(img->start) >= pa_val(b->end) ||
			    badmem_region_source(b->name) < 0)
				continue;
			if (said == IMAGE_BAD_ERR_MAX) {
				more++;
				continue;
			}
			said++;
			pr_err("the image [%#llx, %#llx) lies on memory called "
			       "bad (%s [%#llx, %#llx)): its loader wrote keel "
			       "there; load keel where memory is good\n",
			       U64(pa_val(img->start)), U64(pa_val(img->end)),
			       b->name, U64(pa_val(b->start)),
			       U64(pa_val(b->end)));
		}
	}
	if (more)
		pr_err("the image lies on %u more bad ranges\n", more);
	check_image_lattices(bi);
}

/**
 * badmem_boot() - the operator's bad memory (CONFIG_DEFAULT_CMDLINE, then
 * @bi's command line) into @bi's reservations, and the firmware's checked
 * against RAM; see badmem.h.
 *
 * Return: the number of warnings printed.
 */
unsigned int badmem_boot(struct bootinfo *bi)
{
	unsigned int w;

	w = badmem_apply_cmdline(bi, CONFIG_DEFAULT_CMDLINE,
				 sizeof(CONFIG_DEFAULT_CMDLINE));
	w += badmem_apply_cmdline(bi, bi->cmdline, sizeof(bi->cmdline));
	w += check_firmware(bi);
	check_image(bi);
	return w;
}

/**
 * bootinfo_add_bad() - a firmware reader's bad range; see badmem.h.
 *
 * Return: 0 or bootinfo_add_reserved()'s error.
 */
int bootinfo_add_bad(struct bootinfo *bi, paddr_t start, paddr_t end,
		     enum badmem_source src, bool add_ram, uint32_t node)
{
	if (add_ram && pa_val(end) > pa_val(start))
		bootinfo_add_ram(bi, start, end, node);
	return bootinfo_add_reserved(bi, start, end, badmem_region_name(src));
}
