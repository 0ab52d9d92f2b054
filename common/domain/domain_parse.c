/* SPDX-License-Identifier: MIT */
/*
 * Domains, step 1: what is asked (`domain=SIZE[@NODE]` words, arm64
 * dom0less nodes from bootinfo) and the plan made of it before anything
 * is allocated: the node of each domain and its share of free memory.
 *
 * The plan is a budget, per node, of the heap's free pages minus what
 * earlier domains were given: an unpinned domain goes to the node with
 * the most budget left (ties to the lowest id), a domain larger than all
 * budgets together fails on its own, by name, before it touches the
 * heap, so the others are built. Extents may still come from another
 * node at build time (the heap's fallback by distance): those are the
 * domain's remote bytes.
 *
 * Names: a domain= word's is domainN; a dom0less domain keeps its DT node's
 * name whole, and a name another domain has is refused (skipped with a
 * warning), so no two rows show one name. Sizes follow one rule for both
 * (domain_page_round(), one warning: domain_warn_rounded()).
 *
 * Runs on the boot CPU before the build; no lock.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/escape.h>
#include <keel/heap_boot.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/string.h>

#include <keel/heap.h>
#include <keel/numa.h>
#include <keel/scrub.h>

#include "domain_priv.h"

/*
 * @NODE: any number is a node id (one that is not a node of this machine
 * is warned and falls back when the plan is made, domain_pick_node());
 * one past INT64_MAX reads as INT64_MAX, which is no node either.
 */
static int parse_node(const char *s, size_t len, int64_t *node)
{
	uint64_t v;
	int ret = parse_u64(s, len, &v);

	if (ret == -ERANGE) {
		/* Digits alone: a number too large for 64 bits. */
		for (size_t i = 0; i < len; i++)
			if (s[i] < '0' || s[i] > '9')
				return -EINVAL;
		v = UINT64_MAX;
	} else if (ret) {
		return ret;
	}
	*node = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	return 0;
}

/**
 * domain_spec_parse() - SIZE[@NODE] over exactly [val, val+len).
 * @why: out, on -EINVAL: why the word is refused (for the warning)
 * Return: 0 or -EINVAL.
 */
int domain_spec_parse(const char *val, size_t len, struct domain_spec *out,
		      bool *rounded, const char **why)
{
	const char *at = memchr(val, '@', len);
	size_t slen = at ? (size_t)(at - val) : len;
	uint64_t bytes;
	int ret;

	memset(out, 0, sizeof(*out));
	*rounded = false;
	ret = parse_size(val, slen, &bytes);
	if (ret) {
		*why = ret == -ERANGE ? "SIZE does not fit in 64 bits"
				      : "SIZE is not a number (K/M/G/T)";
		return -EINVAL;
	}
	if (!bytes) {
		*why = "a zero-size domain";
		return -EINVAL;
	}
	if (bytes > DOMAIN_BYTES_MAX) {
		*why = "SIZE is over 1 PiB, the largest domain";
		return -EINVAL;
	}
	out->bytes = domain_page_round(bytes);
	*rounded = out->bytes != bytes;
	out->node = DOMAIN_ANY_NODE;
	if (at && parse_node(at + 1, len - slen - 1, &out->node)) {
		*why = "NODE is not a number";
		return -EINVAL;
	}
	return 0;
}

/**
 * domain_opt_add() - one domain= value into @o (see keel/domain.h).
 * Return: warnings printed, or -EINVAL (*@why says why).
 */
int domain_opt_add(struct keel_options *o, const char *val, size_t len,
		   bool quiet, const char **why)
{
	struct domain_spec s;
	bool rounded;
	int warned = 0;

	if (domain_spec_parse(val, len, &s, &rounded, why))
		return -EINVAL;
	if (o->domain_count >= DOMAIN_MAX) {
		if (!o->domains_dropped++) {
			if (!quiet)
				pr_warn("cmdline: more than %u domains: "
					"domain=%.*s and later ones ignored "
					"(counted)\n",
					DOMAIN_MAX, (int)len, val);
			return 1;
		}
		return 0;
	}
	if (rounded) {
		char what[DOMAIN_WHAT_MAX];

		snprintf(what, sizeof(what), "domain=%.*s", (int)len, val);
		if (!quiet)
			domain_warn_rounded("cmdline", what, s.bytes);
		warned++;
	}
	snprintf(s.name, sizeof(s.name), "domain%u", o->domain_count);
	o->domain[o->domain_count++] = s;
	return warned;
}

/* Does one of @s's domains [0, @n) have @name? */
static bool name_taken(const struct domain_set *s, const char *name,
		       unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(s->d[i].name, name))
			return true;
	return false;
}

/*
 * The DT's domains after @n of the command line's. A name already taken
 * (a node named like domain0, two nodes of one name) is never shown twice:
 * the later domain is skipped with a warning and counted in *@dup.
 * Return: the domain count.
 */
static unsigned int setup_dt(struct domain_set *s, const struct bootinfo *bi,
			     unsigned int n, unsigned int *over,
			     unsigned int *dup)
{
	for (unsigned int i = 0; i < bi->domain_count; i++) {
		const struct bi_domain *b = &bi->domains[i];
		char shown[ESCAPE_SIZE(DOMAIN_NAME_MAX - 1)];

		if (n >= domain_set_cap(s)) {
			(*over)++;
			continue;
		}
		if (name_taken(s, b->name, n)) {
			pr_warn("domains: dom0less %s: another domain has "
				"this name, skipped (counted as dropped)\n",
				escape_bytes(shown, sizeof(shown), b->name,
					     strlen(b->name)));
			(*dup)++;
			continue;
		}
		s->d[n].ctx = &s->ctx;
		domain_from_dt(&s->d[n++], b, bi);
	}
	return n;
}

/**
 * domains_setup() - @s emptied, then the command line's domains, then the
 * DT's.
 * Return: number of domains.
 */
unsigned int domains_setup(struct domain_set *s, const struct keel_options *o,
			   const struct bootinfo *bi)
{
	unsigned int n = 0, over = 0, dup = 0, cap = domain_set_cap(s);

	memset(s, 0, domain_set_bytes(cap));
	s->cap = cap;
	domain_ctx_init(&s->ctx, o, &s->stats.problems);
	for (unsigned int i = 0; i < o->domain_count; i++) {
		if (n >= cap) {
			over++;
			continue;
		}
		s->d[n].spec = o->domain[i];
		s->d[n].ctx = &s->ctx;
		domain_set_name(&s->d[n++], o->domain[i].name);
	}
	n = setup_dt(s, bi, n, &over, &dup);
	if (over)
		pr_warn("domains: more than %u (command line and DT): %u "
			"dropped\n",
			cap, o->domains_dropped + bi->dropped_domains + over);
	for (unsigned int i = 0; i < n; i++)
		s->d[i].id = (uint16_t)(i + 1);
	s->stats.count = n;
	s->stats.dropped =
		o->domains_dropped + bi->dropped_domains + over + dup;
	return n;
}

/**
 * domain_pick_node() - the node of a domain: @asked when it is a node
 * (< @nodes), else the one with the most @budget pages (ties to the
 * lowest id). An @asked that names no node gets a warning naming the
 * domain @name (none when @name is NULL: domain_plan_nodes()).
 * Return: a node id below @nodes (0 when @nodes is 0).
 */
uint32_t domain_pick_node(int64_t asked, const uint64_t *budget,
			  unsigned int nodes, const char *name)
{
	uint32_t best = 0;

	if (asked >= 0 && (uint64_t)asked < nodes)
		return (uint32_t)asked;
	for (uint32_t n = 1; n < nodes; n++)
		if (budget[n] > budget[best])
			best = n;
	if (asked >= 0 && name)
		pr_warn("domains: %s asks for node %lld, there are %u nodes: "
			"using node %u (most free memory)\n",
			name, (long long)asked, nodes, best);
	return best;
}

/*
 * The reason of a domain the plan cannot place: "out of memory: 2 GiB
 * asked + 40 KiB of tables, 1.98 GiB free". What it needs rounded up,
 * what is free rounded down: the line never makes it look as if it fit.
 */
static void plan_fail(struct domain *d, uint64_t table_pages,
		      uint64_t free_pages)
{
	char a[FORMAT_BYTES_LEN], t[FORMAT_BYTES_LEN], f[FORMAT_BYTES_LEN];

	format_bytes(a, sizeof(a), d->spec.bytes, FORMAT_UP);
	format_bytes(t, sizeof(t), table_pages << PAGE_SHIFT, FORMAT_UP);
	format_bytes(f, sizeof(f), free_pages << PAGE_SHIFT, FORMAT_DOWN);
	snprintf(d->fail_reason, sizeof(d->fail_reason),
		 "out of memory: %s asked + %s of tables, %s free", a, t, f);
	d->failed = true;
}

/* Free pages of the @nodes nodes, summed. */
static uint64_t plan_total(const uint64_t *free, unsigned int nodes)
{
	uint64_t total = 0;

	for (unsigned int n = 0; n < nodes; n++)
		total += free[n];
	return total;
}

/*
 * @want pages of a domain on @node taken from @free: local first, then the
 * others by distance (the heap's order).
 */
static void plan_take(uint64_t *free, uint32_t node, uint64_t want)
{
	uint32_t order[MAX_NUMNODES];
	unsigned int cnt = numa_fallback_order(node, order);

	for (unsigned int k = 0; k < cnt && want; k++) {
		uint32_t n = order[k];
		uint64_t take = want < free[n] ? want : free[n];

		free[n] -= take;
		want -= take;
	}
}

/* Pages a domain of @bytes needs from the heap: memory and tables. */
static uint64_t plan_want(uint64_t bytes)
{
	return (bytes >> PAGE_SHIFT) + domain_table_pages_max(bytes);
}

/**
 * domain_plan() - node and budget check of every domain of @s, in order.
 * @free: free pages per node (consumed: what a domain takes is removed).
 * @nodes: node count. A domain whose pages and table pages exceed the sum
 * of @free fails here (plan_fail()).
 */
void domain_plan(struct domain_set *s, uint64_t *free, unsigned int nodes)
{
	for (unsigned int i = 0; i < s->stats.count; i++) {
		struct domain *d = &s->d[i];
		uint64_t want = plan_want(d->spec.bytes), total;

		if (d->failed) /* refused before the plan (a static domain) */
			continue;
		if (d->origin == DOMAIN_ORIGIN_STATIC)
			want = 0; /* its own ranges: only the table is heap's */
		else
			d->node = domain_pick_node(d->spec.node, free, nodes,
						   d->shown);
		total = plan_total(free, nodes);
		if (want > total) {
			plan_fail(d, domain_table_pages_max(d->spec.bytes),
				  total);
			continue;
		}
		plan_take(free, d->node, want);
	}
}

/**
 * domain_budget() - the plan's budget: the heap's free pages per node now.
 * @free: out, @nodes entries
 */
void domain_budget(uint64_t *free, unsigned int nodes)
{
	struct heap_stats st;

	for (unsigned int n = 0; n < nodes; n++)
		free[n] = heap_stats(n, 0, &st) ? 0 : st.free_pages;
}

/**
 * domain_plan_nodes() - domain_plan()'s nodes for the domain= specs
 * @spec[0, @count) on the heap as it is now (keel/domain.h), into @node.
 * A spec too large for the heap gets its node and takes nothing, as a
 * domain the plan fails takes nothing from the others.
 */
void domain_plan_nodes(const struct domain_spec *spec, unsigned int count,
		       uint32_t *node)
{
	unsigned int nodes = heap_node_count();
	uint64_t free[MAX_NUMNODES];

	domain_budget(free, nodes);
	for (unsigned int i = 0; i < count; i++) {
		uint64_t want = plan_want(spec[i].bytes);

		node[i] = domain_pick_node(spec[i].node, free, nodes, NULL);
		if (want <= plan_total(free, nodes))
			plan_take(free, node[i], want);
	}
}

/**
 * domain_table_pages_max() - an upper bound on the table pages of a
 * domain of @bytes built from the largest extents: the root, one table
 * per 512 GiB mapped by 1 GiB blocks, and for the 2 MiB and 4 KiB tail
 * one table each plus the one above it (two each when the tail crosses
 * a boundary).
 * Return: pages.
 */
uint64_t domain_table_pages_max(uint64_t bytes)
{
	return 1 + (bytes >> 39) + 1 + 2 * 4;
}

/**
 * domain_expected_extents() - the extents of each size a domain of @bytes
 * gets when no allocation fails: whole GiBs, then whole 2 MiBs, then pages.
 */
void domain_expected_extents(uint64_t bytes, uint64_t out[DOMAIN_EXTENT_KINDS])
{
	for (unsigned int k = 0; k < DOMAIN_EXTENT_KINDS; k++) {
		unsigned int shift = PAGE_SHIFT + domain_extent_order[k];

		out[k] = bytes >> shift;
		bytes &= (1ull << shift) - 1;
	}
}
