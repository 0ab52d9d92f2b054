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
 * Runs on the boot CPU before the build; no lock.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/string.h>

#include <keel/numa.h>

#include "domain_priv.h"

struct domain domains[DOMAIN_MAX];
unsigned int domains_count, domains_dropped;
const unsigned int domain_extent_order[DOMAIN_EXTENT_KINDS] = {18, 9, 0};

/**
 * domain_spec_parse() - SIZE[@NODE] over exactly [val, val+len).
 * Return: 0 or -EINVAL.
 */
int domain_spec_parse(const char *val, size_t len, struct domain_spec *out,
		      bool *rounded)
{
	const char *at = memchr(val, '@', len);
	size_t slen = at ? (size_t)(at - val) : len;
	uint64_t bytes, node;

	memset(out, 0, sizeof(*out));
	*rounded = false;
	if (parse_size(val, slen, &bytes) || !bytes)
		return -EINVAL;
	if (bytes > DOMAIN_BYTES_MAX)
		return -EINVAL;
	out->bytes = ALIGN_UP(bytes, PAGE_SIZE);
	*rounded = out->bytes != bytes;
	out->node = DOMAIN_ANY_NODE;
	if (at) {
		if (parse_u64(at + 1, len - slen - 1, &node) ||
		    node > DOMAIN_NODE_ID_MAX)
			return -EINVAL;
		out->node = (int)node;
	}
	return 0;
}

/**
 * domain_opt_add() - one domain= value into @o (see keel/domain.h).
 * Return: warnings printed, or -EINVAL.
 */
int domain_opt_add(struct keel_options *o, const char *val, size_t len,
		   bool quiet)
{
	struct domain_spec s;
	bool rounded;
	int warned = 0;

	if (domain_spec_parse(val, len, &s, &rounded))
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
		if (!quiet)
			pr_warn("cmdline: domain=%.*s is not a multiple of "
				"4K, rounded up to %llu bytes\n",
				(int)len, val, (unsigned long long)s.bytes);
		warned++;
	}
	snprintf(s.name, sizeof(s.name), "domain%u", o->domain_count);
	o->domain[o->domain_count++] = s;
	return warned;
}

/**
 * domains_setup() - the command line's domains, then the DT's.
 * Return: number of domains.
 */
unsigned int domains_setup(const struct keel_options *o,
			   const struct bootinfo *bi)
{
	unsigned int n = 0, dropped = o->domains_dropped + bi->dropped_domains;

	memset(domains, 0, sizeof(domains));
	domains_problems = 0;
	domains_zero_sampled = domains_hw_checked = 0;
	domains_before.taken = domains_after.taken = false;
	domains_build_ticks = 0;
	for (unsigned int i = 0; i < o->domain_count && n < DOMAIN_MAX; i++)
		domains[n++].spec = o->domain[i];
	for (unsigned int i = 0; i < bi->domain_count; i++) {
		struct domain_spec *s;

		if (n >= DOMAIN_MAX) {
			dropped++;
			continue;
		}
		s = &domains[n++].spec;
		s->bytes = ALIGN_UP(bi->domains[i].bytes, PAGE_SIZE);
		s->node = DOMAIN_ANY_NODE;
		s->cpus = bi->domains[i].cpus;
		strlcpy(s->name, bi->domains[i].name, sizeof(s->name));
	}
	if (dropped > o->domains_dropped + bi->dropped_domains)
		pr_warn("domains: more than %u (command line and DT): %u "
			"dropped\n",
			DOMAIN_MAX, dropped);
	for (unsigned int i = 0; i < n; i++)
		domains[i].id = (uint16_t)(i + 1);
	domains_count = n;
	domains_dropped = dropped;
	return n;
}

/**
 * domain_pick_node() - the node of a domain: @asked when it is a node
 * (< @nodes), else the one with the most @budget pages (ties to the
 * lowest id). An @asked that names no node gets a warning.
 * Return: a node id below @nodes (0 when @nodes is 0).
 */
uint32_t domain_pick_node(int asked, const uint64_t *budget, unsigned int nodes,
			  const char *name)
{
	uint32_t best = 0;

	if (asked >= 0 && (unsigned int)asked < nodes)
		return (uint32_t)asked;
	for (uint32_t n = 1; n < nodes; n++)
		if (budget[n] > budget[best])
			best = n;
	if (asked >= 0)
		pr_warn("domains: %s asks for node %d, there are %u nodes: "
			"using node %u (most free memory)\n",
			name, asked, nodes, best);
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

/**
 * domain_plan() - node and budget check of every domain, in order.
 * @free: free pages per node (consumed: what a domain takes is removed).
 * @nodes: node count. A domain whose pages and table pages exceed the sum
 * of @free fails here (plan_fail()).
 */
void domain_plan(uint64_t *free, unsigned int nodes)
{
	for (unsigned int i = 0; i < domains_count; i++) {
		struct domain *d = &domains[i];
		uint64_t tables = domain_table_pages_max(d->spec.bytes);
		uint64_t want = (d->spec.bytes >> PAGE_SHIFT) + tables;
		uint32_t order[MAX_NUMNODES];
		uint64_t total = 0;
		unsigned int cnt;

		d->node = domain_pick_node(d->spec.node, free, nodes,
					   d->spec.name);
		cnt = numa_fallback_order(d->node, order);
		for (unsigned int n = 0; n < nodes; n++)
			total += free[n];
		if (want > total) {
			plan_fail(d, tables, total);
			continue;
		}
		/* Local first, then the others by distance (the heap's order). */
		for (unsigned int k = 0; k < cnt && want; k++) {
			uint32_t n = order[k];
			uint64_t take = want < free[n] ? want : free[n];

			free[n] -= take;
			want -= take;
		}
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
