/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * Firmware node ids -> keel node ids (boot/nodemap.c), one policy for every
 * firmware: ACPI SRAT proximity domains (x86_64 and arm64), DT
 * numa-node-id, sandbox node=.
 *
 *  - Keel keeps MAX_NUMNODES of them: the lowest firmware ids, whatever
 *    order the tables list them in (SRAT entry and DT node order carry no
 *    meaning, so the result must not depend on it).
 *  - The kept ids become keel nodes 0, 1, ... in increasing firmware-id
 *    order, so keel's nodes are dense: a server whose proximity domains
 *    are 1..4 has nodes 0..3, not an empty node 0 (the report's
 *    nodes[].fw_id gives the firmware's id back; one info line when any
 *    id changes). QEMU's -numa node ids 0..N-1 keep their numbers.
 *  - Every other id is folded into its nearest kept node: the smallest
 *    distance[folded][kept] (the folded domain's own row: where its CPUs
 *    and memory are closest), ties to the smaller distance[kept][folded],
 *    then to the lower keel id. Unknown (0), invalid (<= 10) and
 *    unreachable (255) distances count as infinitely far; when every kept
 *    node is that far (or no distances exist) the fold goes to the kept
 *    node with the lowest keel id (node 0 when it exists). The folded
 *    domain's own distances are dropped.
 *  - One warning for the whole fold, "<what>: N proximity domains, M kept
 *    (MAX_NUMNODES=M), K folded into their nearest node"; the caller
 *    counts it (its warning counter, bootinfo.dropped_nodes).
 *
 * Use: nodemap_init(), nodemap_add() every id the firmware uses,
 * nodemap_finalise() with a distance lookup, then nodemap_node() /
 * nodemap_kept() / nodemap_fw_id(). No lock, no allocation: a parser
 * keeps one (static: it is a few KiB) and runs on the boot CPU.
 */
#ifndef KEEL_NODEMAP_H
#define KEEL_NODEMAP_H

#include <keel/bootinfo.h>

/*
 * Distinct ids tracked. Beyond it the highest ids are forgotten (they would
 * be folded anyway) and fold into the lowest kept node.
 */
#define NODEMAP_MAX_IDS 256

/*
 * Distance from firmware id @a to firmware id @b as the firmware gives it,
 * 0 when unknown.
 */
typedef unsigned int (*nodemap_distance_fn)(const void *ctx, uint32_t a,
					    uint32_t b);

struct nodemap {
	const char *what;		/* warning prefix: "ACPI SRAT", "dt" */
	unsigned int count;		/* ids in fw[], sorted ascending */
	unsigned int forgotten;		/* ids evicted from a full table */
	uint32_t fw[NODEMAP_MAX_IDS];	/* firmware ids */
	uint32_t node[NODEMAP_MAX_IDS]; /* keel node of fw[i] (finalised) */
	uint32_t fallback;		/* lowest kept keel node */
	unsigned int folded;		/* ids folded (finalised) */
	bool final;
};

void nodemap_init(struct nodemap *m, const char *what);

/* nodemap_add(): record that the firmware uses id @fw (repeats are fine). */
void nodemap_add(struct nodemap *m, uint32_t fw);

/*
 * nodemap_finalise(): assign keel ids (see above); @dist may be NULL (no
 * distances: folds go to the lowest kept node).
 * Return: the number of ids folded (0: nothing lost, no warning printed).
 */
unsigned int nodemap_finalise(struct nodemap *m, nodemap_distance_fn dist,
			      const void *ctx);

/* nodemap_has(): was @fw added? */
bool nodemap_has(const struct nodemap *m, uint32_t fw);

/*
 * nodemap_node(): the keel node of firmware id @fw (finalised map).
 * Return: it; ids never added (or forgotten) map to the lowest kept node,
 * 0 when the map is empty.
 */
uint32_t nodemap_node(const struct nodemap *m, uint32_t fw);

/* nodemap_kept(): is @fw one of the kept ids (not folded, not unknown)? */
bool nodemap_kept(const struct nodemap *m, uint32_t fw);

/*
 * nodemap_fw_id(): the firmware id kept as keel node @node.
 * Return: true and *@fw, or false when no kept id became @node.
 */
bool nodemap_fw_id(const struct nodemap *m, uint32_t node, uint32_t *fw);

/*
 * nodemap_export_fw_ids(): bi->node_fw_id[n] = the firmware id kept as
 * node n, for every node the finalised map @m assigned.
 */
void nodemap_export_fw_ids(const struct nodemap *m, struct bootinfo *bi);

#endif
