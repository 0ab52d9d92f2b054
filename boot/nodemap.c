/* SPDX-License-Identifier: MIT */
/*
 * Firmware node ids -> keel node ids: which MAX_NUMNODES domains keel keeps,
 * the keel id each gets and where the others fold. The policy is written once, in
 * include/keel/nodemap.h, and used by boot/acpi/acpi_numa.c (SRAT),
 * boot/fdt/fdt.c (numa-node-id) and boot/fwdesc.c (node=).
 *
 * Invariants: fw[0..count) is sorted ascending without repeats; after
 * nodemap_finalise() every node[i] < MAX_NUMNODES, the first
 * MIN(count, MAX_NUMNODES) entries are the kept ids with node[i] == i,
 * and the others hold the keel id they were folded into.
 * No lock: used by one parser on the boot CPU.
 */
#include <keel/compiler.h>
#include <keel/nodemap.h>
#include <keel/printk.h>
#include <keel/string.h>

/**
 * nodemap_init() - an empty map whose warnings start with @what.
 */
void nodemap_init(struct nodemap *m, const char *what)
{
	memset(m, 0, sizeof(*m));
	m->what = what;
}

/* Index of the first entry >= @fw (count when none). */
static unsigned int lower_bound(const struct nodemap *m, uint32_t fw)
{
	unsigned int lo = 0, hi = m->count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (m->fw[mid] < fw)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int find(const struct nodemap *m, uint32_t fw)
{
	unsigned int i = lower_bound(m, fw);

	return i < m->count && m->fw[i] == fw ? (int)i : -1;
}

/**
 * nodemap_add() - record firmware id @fw. A full table forgets its highest
 * id (one that would be folded anyway) to make room for a lower one.
 */
void nodemap_add(struct nodemap *m, uint32_t fw)
{
	unsigned int i = lower_bound(m, fw);

	if (i < m->count && m->fw[i] == fw)
		return;
	m->final = false;
	if (m->count == NODEMAP_MAX_IDS) {
		m->forgotten++;
		if (i == m->count)
			return;
		m->count--;
	}
	memmove(&m->fw[i + 1], &m->fw[i], (m->count - i) * sizeof(m->fw[0]));
	m->fw[i] = fw;
	m->count++;
}

/* A distance usable to rank kept nodes, else "infinitely far". */
static unsigned int rank(nodemap_distance_fn dist, const void *ctx, uint32_t a,
			 uint32_t b)
{
	unsigned int d = dist ? dist(ctx, a, b) : 0;

	return d > NODE_DISTANCE_LOCAL && d < NODE_DISTANCE_UNREACHABLE ? d
									: ~0u;
}

/* The kept node nearest to folded entry @i (see nodemap.h). */
static uint32_t nearest_kept(const struct nodemap *m, unsigned int i,
			     unsigned int keep, nodemap_distance_fn dist,
			     const void *ctx)
{
	uint32_t best = m->fallback;
	unsigned int best_d = ~0u, best_r = ~0u;

	for (unsigned int k = 0; k < keep; k++) {
		unsigned int d = rank(dist, ctx, m->fw[i], m->fw[k]);
		unsigned int r = rank(dist, ctx, m->fw[k], m->fw[i]);

		if (d == ~0u)
			continue;
		if (d < best_d || (d == best_d && r < best_r) ||
		    (d == best_d && r == best_r && m->node[k] < best)) {
			best = m->node[k];
			best_d = d;
			best_r = r;
		}
	}
	return best;
}

/**
 * nodemap_finalise() - keep the lowest MAX_NUMNODES ids as keel nodes 0..,
 * in id order; fold the rest into their nearest kept node, warn once
 * about the fold.
 * @m: the map.
 * @dist: the firmware's distances by firmware id, or NULL.
 * @ctx: passed to @dist.
 *
 * Return: the number of ids folded (including forgotten ones).
 */
unsigned int nodemap_finalise(struct nodemap *m, nodemap_distance_fn dist,
			      const void *ctx)
{
	unsigned int keep = MIN(m->count, (unsigned int)MAX_NUMNODES);
	bool renumbered = false;

	for (unsigned int i = 0; i < keep; i++) {
		m->node[i] = i;
		renumbered |= m->fw[i] != i;
	}
	if (renumbered)
		pr_info("%s: firmware node ids %u..%u are keel nodes 0..%u "
			"(the report's nodes[].fw_id)\n",
			m->what, m->fw[0], m->fw[keep - 1], keep - 1);
	m->fallback = 0;
	for (unsigned int i = keep; i < m->count; i++)
		m->node[i] = nearest_kept(m, i, keep, dist, ctx);
	m->folded = m->count - keep + m->forgotten;
	m->final = true;
	if (m->folded)
		pr_warn("%s: %u proximity domains, %u kept (MAX_NUMNODES=%u), "
			"%u folded into their nearest node\n",
			m->what, m->count + m->forgotten, keep,
			(unsigned int)MAX_NUMNODES, m->folded);
	return m->folded;
}

/** nodemap_has() - Return: true when @fw was added (and not forgotten). */
bool nodemap_has(const struct nodemap *m, uint32_t fw)
{
	return find(m, fw) >= 0;
}

/**
 * nodemap_node() - the keel node of firmware id @fw.
 * Return: it, or the lowest kept node for an id never added.
 */
uint32_t nodemap_node(const struct nodemap *m, uint32_t fw)
{
	int i = find(m, fw);

	return i >= 0 && m->final ? m->node[i] : m->fallback;
}

/** nodemap_kept() - Return: true when @fw is a kept id. */
bool nodemap_kept(const struct nodemap *m, uint32_t fw)
{
	int i = find(m, fw);

	return i >= 0 && m->final && (unsigned int)i < MAX_NUMNODES;
}

/**
 * nodemap_fw_id() - the kept firmware id that became keel node @node.
 * Return: true and *@fw, or false when none did.
 */
bool nodemap_fw_id(const struct nodemap *m, uint32_t node, uint32_t *fw)
{
	unsigned int keep = MIN(m->count, (unsigned int)MAX_NUMNODES);

	for (unsigned int i = 0; m->final && i < keep; i++) {
		if (m->node[i] == node) {
			*fw = m->fw[i];
			return true;
		}
	}
	return false;
}

/**
 * nodemap_export_fw_ids() - the kept firmware ids into @bi->node_fw_id[].
 */
void nodemap_export_fw_ids(const struct nodemap *m, struct bootinfo *bi)
{
	for (uint32_t n = 0; n < MAX_NUMNODES; n++) {
		uint32_t fw;

		if (nodemap_fw_id(m, n, &fw))
			bi->node_fw_id[n] = fw;
	}
}
