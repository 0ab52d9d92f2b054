/* SPDX-License-Identifier: MIT */
/*
 * The NUMA node set and its distance matrix, copied once from the
 * sanitised bootinfo by numa_init() on the boot CPU and read-only after
 * that (so no lock). Before numa_init() keel looks like one node.
 *
 * Invariants: 1 <= node_count <= MAX_NUMNODES; distance[a][a] == 10 and
 * distance[a][b] > 10 for a != b (bootinfo_sanitise guarantees it; an
 * unsanitised matrix is replaced by 10/20 here too). The matrix may be
 * asymmetric and 255 means unreachable: every query below names its
 * direction (include/keel/bootinfo.h, "Node distances").
 */
#include <keel/compiler.h>
#include <keel/numa.h>
#include <keel/printk.h>
#include <keel/heap.h>
#include <keel/json.h>

static unsigned int node_count = 1;
static uint8_t distance[MAX_NUMNODES][MAX_NUMNODES] = {
	[0] = {[0] = NODE_DISTANCE_LOCAL},
};

static bool matrix_valid(const uint8_t (*m)[MAX_NUMNODES], unsigned int n)
{
	for (unsigned int a = 0; a < n; a++) {
		for (unsigned int b = 0; b < n; b++) {
			uint8_t d = m[a][b];

			if (a == b ? d != NODE_DISTANCE_LOCAL
				   : d <= NODE_DISTANCE_LOCAL)
				return false;
		}
	}
	return true;
}

/**
 * numa_init() - take the node count and distances from @bi.
 */
void numa_init(const struct bootinfo *bi)
{
	numa_init_matrix(bi->node_count,
			 bi->have_distance
				 ? (const uint8_t(*)[MAX_NUMNODES])bi->distance
				 : NULL);
}

/**
 * numa_init_matrix() - the same from a count and a matrix (@m NULL: none
 * given), which is what a host has (make lib exports it as
 * keel_numa_init()).
 */
void numa_init_matrix(unsigned int count, const uint8_t (*m)[MAX_NUMNODES])
{
	unsigned int n = count;
	bool valid;

	if (n == 0 || n > MAX_NUMNODES) {
		pr_warn("numa: node_count %u out of range, using 1\n", n);
		n = 1;
	}
	valid = m && matrix_valid(m, n);
	for (unsigned int a = 0; a < MAX_NUMNODES; a++) {
		for (unsigned int b = 0; b < MAX_NUMNODES; b++) {
			uint8_t d = a == b ? NODE_DISTANCE_LOCAL
					   : NODE_DISTANCE_REMOTE;

			if (valid && a < n && b < n)
				d = m[a][b];
			distance[a][b] = d;
		}
	}
	node_count = n;
}

/**
 * numa_node_count() - nodes 0..count-1 exist.
 * Return: the count (>= 1).
 */
unsigned int numa_node_count(void)
{
	return node_count;
}

/**
 * node_distance() - SLIT-style distance between two nodes.
 * Return: 10 for a node to itself, > 10 otherwise; 255 for a bad node id.
 */
unsigned int node_distance(uint32_t a, uint32_t b)
{
	if (a >= node_count || b >= node_count)
		return 255;
	return distance[a][b];
}

/*
 * The candidate with the smallest distance @self -> candidate (@to_self
 * false) or candidate -> @self (@to_self true); @self first when it is a
 * candidate, ties to the lowest id. 255 sorts after every reachable node.
 */
static uint32_t nearest(uint32_t self, uint64_t candidates, bool to_self)
{
	uint32_t best = NUMA_NO_NODE;
	unsigned int best_d = ~0u;
	unsigned int limit = MIN(node_count, 64u);

	if (self < limit && (candidates >> self) & 1)
		return self;
	for (uint32_t n = 0; n < limit; n++) {
		unsigned int d = 0;

		if (!((candidates >> n) & 1))
			continue;
		if (self < node_count)
			d = to_self ? node_distance(n, self)
				    : node_distance(self, n);
		if (d < best_d) {
			best_d = d;
			best = n;
		}
	}
	return best;
}

/**
 * numa_nearest() - the candidate nearest as seen from @from: the smallest
 * distance[@from][c] (bit c of @candidates); @from itself when it is a
 * candidate, ties to the lowest id.
 * Return: the node, or NUMA_NO_NODE when no candidate exists.
 */
uint32_t numa_nearest(uint32_t from, uint64_t candidates)
{
	return nearest(from, candidates, false);
}

/**
 * numa_nearest_to() - the candidate nearest to @to as seen from the
 * candidate: the smallest distance[c][@to]. A memory-only node's scrub
 * helper is chosen this way, because the helper's CPUs write @to's memory.
 * Return: the node, or NUMA_NO_NODE when no candidate exists.
 */
uint32_t numa_nearest_to(uint32_t to, uint64_t candidates)
{
	return nearest(to, candidates, true);
}

/**
 * numa_fallback_order() - all nodes sorted by distance[@from][other]
 * (itself first, ties by id, unreachable ones last) into @order, which
 * holds MAX_NUMNODES: the order in which bootmem and the heap fall back
 * for an allocation on @from.
 * Return: the number of nodes written.
 */
unsigned int numa_fallback_order(uint32_t from, uint32_t *order)
{
	unsigned int n = node_count;

	for (unsigned int i = 0; i < n; i++)
		order[i] = i;
	if (from >= n)
		return n;
	/* Insertion sort: n <= 64, and it keeps ties in id order. */
	for (unsigned int i = 1; i < n; i++) {
		uint32_t v = order[i];
		unsigned int dv = v == from ? 0 : node_distance(from, v);
		unsigned int j = i;

		while (j > 0) {
			uint32_t u = order[j - 1];
			unsigned int du =
				u == from ? 0 : node_distance(from, u);

			if (du <= dv)
				break;
			order[j] = u;
			j--;
		}
		order[j] = v;
	}
	return n;
}
