/* SPDX-License-Identifier: MIT */
/*
 * bootinfo_sanitise(), which turns whatever the firmware said (through
 * the adders of boot/bootinfo.c) into the shape the rest of keel relies
 * on:
 *
 *  - RAM: page-aligned (trimmed inwards), clamped to paddr_bits, non-empty,
 *    sorted by start, non-overlapping, adjacent ranges of one node merged;
 *    where RAM of two nodes overlaps the lower node id keeps it.
 *  - reserved: page-aligned outwards, non-empty, otherwise as given
 *    (overlaps allowed: "reserved wins" is applied by bootmem).
 *  - node ids < node_count <= MAX_NUMNODES, node_count >= 1; distance
 *    matrix valid for [0, node_count)^2: 10 on the diagonal, 11..255
 *    elsewhere (asymmetric allowed, 255 = unreachable); one bad entry is
 *    mended, more mean 10/20 (include/keel/bootinfo.h, "Node distances").
 *  - the image (reserved as IMAGE_NAME, "kernel") lies in RAM:
 *    where the firmware's map keeps any of it, one `keel: error:` line
 *    names the image and the firmware's range (the loader has already
 *    written there: nothing to mend, but never silent).
 *  - CPUs: 1 <= cpu_count, hwids unique, exactly one boot_cpu, which is
 *    usable and sits at index 0 (logical CPU 0 is the boot CPU).
 *
 * Every fix prints one warning and counts in bi->fixups. Rounding a
 * reserved range outwards is routine (loader structures sit at arbitrary
 * addresses) and only logged at debug level.
 *
 * RAM is sorted, merged and resolved in its own table (ram_resolve()):
 * O(n log n), and no second table, so whatever RAM the early pool held
 * when the firmware listed it stays; none is dropped here.
 *
 * No lock: runs once on the boot CPU. The sweep's state (one slot per
 * node) is static to keep it off small boot stacks.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/range_table.h>
#include <keel/string.h>

#include "boot_priv.h"

static uint32_t fix_node(struct bootinfo *bi, uint32_t node, const char *what,
			 uint64_t id)
{
	if (node < MAX_NUMNODES)
		return node;
	if (node == NUMA_NO_NODE)
		fix_warn(bi, "%s %#llx has no node, using node 0", what,
			 U64(id));
	else
		fix_warn(bi, "%s %#llx: node %u >= %u, using node 0", what,
			 U64(id), node, (unsigned int)MAX_NUMNODES);
	return 0;
}

/* Clamp, trim to pages and drop empty RAM ranges, compacting the table. */
static void ram_trim(struct bootinfo *bi, uint64_t limit)
{
	unsigned int out = 0;

	for (unsigned int i = 0; i < bi->ram.count; i++) {
		struct region r = bi->ram.regions[i];
		uint64_t s = pa_val(r.start), e = pa_val(r.end);
		uint64_t ns, ne;

		r.node = fix_node(bi, r.node, "ram at", s);
		if (s >= limit) {
			fix_warn(bi,
				 "ram [%#llx, %#llx) above the %u-bit address "
				 "limit, dropped",
				 U64(s), U64(e), bi->paddr_bits);
			bi->dropped_ram++;
			continue;
		}
		if (e > limit) {
			fix_warn(bi,
				 "ram [%#llx, %#llx) above the %u-bit address "
				 "limit, clamped",
				 U64(s), U64(e), bi->paddr_bits);
			e = limit;
		}
		ns = s > PAGE_MASK ? e : ALIGN_UP(s, PAGE_SIZE);
		ne = ALIGN_DOWN(e, PAGE_SIZE);
		if (ns >= ne) {
			fix_warn(bi,
				 "ram [%#llx, %#llx) holds no whole page, "
				 "dropped",
				 U64(s), U64(pa_val(r.end)));
			bi->dropped_ram++;
			continue;
		}
		/*
		 * Not a fault of the map: a PC BIOS ends low RAM where the
		 * EBDA starts (0x9fc00), so an info line, not a warning.
		 */
		if (ns != s || ne != e)
			pr_info("bootinfo: ram [%#llx, %#llx) trimmed to pages "
				"[%#llx, %#llx)\n",
				U64(s), U64(e), U64(ns), U64(ne));
		r.start = pa(ns);
		r.end = pa(ne);
		bi->ram.regions[out++] = r;
	}
	bi->ram.count = out;
}

/* sort() order: by node, then by start. */
static int cmp_node_start(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (pa_val(x->start) > pa_val(y->start)) -
	       (pa_val(x->start) < pa_val(y->start));
}

/*
 * Overlaps are resolved in the table itself, never in a second one (that
 * halved what the early pool could hold: 2,000 RAM ranges on x86_64 and
 * arm64, 65,000 in the sandbox, were dropped): each node's RAM is merged
 * in place (ram_union_nodes()), then one sweep in address order gives
 * each stretch to the lowest node listing it (struct ram_sweep). A node
 * has at most one range open at any address, so the sweep keeps one slot
 * per node, not a table.
 */
struct ram_sweep {
	struct region *in;     /* sorted by start */
	struct region *out;    /* NULL: count the pieces only */
	unsigned int n, next;  /* inputs; the next to open */
	unsigned int out_max;  /* out[] below this is read (CHECK) */
	unsigned int count;    /* pieces so far */
	unsigned int joins;    /* touching pieces still to join */
	unsigned int joined;   /* pieces joined to another node's */
	uint64_t joined_bytes; /* their bytes */
	uint32_t last_node;
	uint64_t active; /* nodes with a range open */
	uint64_t piece_start, last_end;
	int winner; /* the lowest node open, -1: none */
	bool overlap, hidden;
	struct region open[MAX_NUMNODES]; /* each node's open range */
	unsigned int open_at[MAX_NUMNODES];
	bool won[MAX_NUMNODES]; /* its open range holds some RAM */
};

static struct ram_sweep sweep; /* off small boot stacks */

/* sort() order: by start, then by node (the lowest opens first). */
static int cmp_start_node(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (pa_val(x->start) != pa_val(y->start))
		return pa_val(x->start) < pa_val(y->start) ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/*
 * Each node's RAM, sorted and merged where it overlaps or touches (one
 * warning for each range listed again), in place: never more entries.
 */
static void ram_union_nodes(struct bootinfo *bi)
{
	struct region *a = bi->ram.regions;
	unsigned int out = 0;

	sort(a, bi->ram.count, sizeof(*a), cmp_node_start);
	for (unsigned int i = 0; i < bi->ram.count; i++) {
		struct region *p = out ? &a[out - 1] : NULL;
		uint64_t s = pa_val(a[i].start), e = pa_val(a[i].end);

		if (!p || p->node != a[i].node || pa_val(p->end) < s) {
			a[out++] = a[i];
			continue;
		}
		if (pa_val(p->end) > s)
			fix_warn(bi,
				 "ram [%#llx, %#llx) listed twice on node %u, "
				 "merged",
				 U64(s), U64(MIN(e, pa_val(p->end))), p->node);
		p->end = pa(MAX(e, pa_val(p->end)));
	}
	bi->ram.count = out;
}

/*
 * The piece [s, e) of @owner's RAM: counted, written when there is out.
 * With joins to make (the table at its limit), each piece touching the
 * last is joined to it, until none are left to make; one of the last's
 * node always is (only a join makes one: bootmem takes no such pair).
 */
static void sweep_emit(struct ram_sweep *w, uint64_t s, uint64_t e,
		       const struct region *owner)
{
	bool same = w->count && w->last_node == owner->node;

	if (w->count && w->last_end == s && (w->joins || same)) {
		/* RAM touching RAM: the join covers no hole. */
		if (w->joins)
			w->joins--;
		if (!same) {
			w->joined++;
			w->joined_bytes += e - s;
		}
		w->last_end = e;
		if (w->out)
			w->out[w->count - 1].end = pa(e);
		return;
	}
	if (w->out) {
		/* Never over an input not read yet (see ram_resolve()). */
		CHECK(w->count < w->out_max + w->next);
		w->out[w->count] = *owner;
		w->out[w->count].start = pa(s);
		w->out[w->count].end = pa(e);
	}
	w->count++;
	w->last_end = e;
	w->last_node = owner->node;
}

/* Open the next input; two nodes claiming RAM: one warning per sanitise. */
static void sweep_open(struct bootinfo *bi, struct ram_sweep *w, uint64_t p)
{
	const struct region *r = &w->in[w->next];
	uint32_t n = r->node;
	uint64_t others = w->active & ~(1ULL << n);

	w->open[n] = *r;
	w->open_at[n] = w->next++;
	w->won[n] = false;
	w->active |= 1ULL << n;
	if (!others)
		return;
	if (!w->overlap && !w->out) {
		uint32_t o = (uint32_t)ffs64(others) - 1;
		uint64_t oe = MIN(pa_val(w->open[o].end), pa_val(r->end));

		fix_warn(bi,
			 "ram [%#llx, %#llx) claimed by nodes %u and %u, "
			 "node %u keeps it",
			 U64(p), U64(oe), MIN(o, n), MAX(o, n), MIN(o, n));
	}
	w->overlap = true;
}

/*
 * Close the ranges ending at @p; one that never held the lowest node's
 * place is hidden by lower nodes: marked empty, to be dropped unseen.
 */
static void sweep_close(struct ram_sweep *w, uint64_t p)
{
	for (uint64_t a = w->active; a; a &= a - 1) {
		uint32_t n = (uint32_t)ffs64(a) - 1;

		if (pa_val(w->open[n].end) != p)
			continue;
		w->active &= ~(1ULL << n);
		if (!w->won[n] && !w->out) {
			struct region *in = &w->in[w->open_at[n]];

			in->end = in->start;
			w->hidden = true;
		}
	}
}

/* The lowest open node owns what follows @p: a new piece when it changes. */
static void sweep_owner(struct ram_sweep *w, uint64_t p)
{
	int now = w->active ? ffs64(w->active) - 1 : -1;

	if (now == w->winner)
		return;
	if (w->winner >= 0 && p > w->piece_start)
		sweep_emit(w, w->piece_start, p, &w->open[w->winner]);
	w->winner = now;
	w->piece_start = p;
}

/* One sweep over w->in (see struct ram_sweep); the pieces in w->count. */
static void ram_sweep_run(struct bootinfo *bi, struct ram_sweep *w)
{
	for (;;) {
		uint64_t ns = w->next < w->n ? pa_val(w->in[w->next].start)
					     : UINT64_MAX;
		uint64_t ne = UINT64_MAX, p;

		for (uint64_t a = w->active; a; a &= a - 1)
			ne = MIN(ne, pa_val(w->open[ffs64(a) - 1].end));
		if (ns == UINT64_MAX && ne == UINT64_MAX)
			break;
		p = MIN(ns, ne);
		if (w->winner >= 0 && p > w->piece_start)
			w->won[w->winner] = true;
		if (ne <= ns)
			sweep_close(w, p);
		else
			sweep_open(bi, w, p);
		sweep_owner(w, p);
	}
}

static void sweep_start(struct ram_sweep *w, struct region *in, unsigned int n,
			struct region *out, unsigned int joins)
{
	memset(w, 0, sizeof(*w));
	w->in = in;
	w->n = n;
	w->out = out;
	w->out_max = (unsigned int)(in - out);
	w->joins = joins;
	w->winner = -1;
}

/* Drop the inputs the first sweep found hidden by lower nodes. */
static void ram_drop_hidden(struct range_table *t)
{
	unsigned int out = 0;

	for (unsigned int i = 0; i < t->count; i++)
		if (pa_val(t->regions[i].end) > pa_val(t->regions[i].start))
			t->regions[out++] = t->regions[i];
	t->count = out;
}

/*
 * Room for @need regions in the RAM table: doubled, else exactly @need
 * (the early pool may hold that when it cannot hold a doubling), else all
 * the pool has left.
 */
static void ram_make_room(struct range_table *t, unsigned int need)
{
	unsigned int cap;

	while (t->cap < need && range_table_double(t))
		;
	cap = MIN(need, t->max);
	if (t->cap < cap && t->grow)
		range_table_move(t, t->grow(t, cap), cap);
	if (t->cap < cap)
		bootinfo_grow_rest(t);
}

/*
 * Sort, merge and resolve overlaps in the table (struct ram_sweep): a
 * first sweep counts the pieces, warns and marks the ranges lower nodes
 * hide; where nodes overlap, a second one writes the pieces from the
 * table's start while reading the m inputs moved to its top. A piece
 * always lies in one input already read, and each input gives at least
 * one, so with @cap >= pieces the writes never pass the reads (CHECK()ed
 * in sweep_emit()). Only when the table cannot hold the pieces (the early
 * pool is spent, or its limit) are pieces joined to the RAM of another
 * node they touch (never across a hole; counted on the first piece's
 * node): no RAM is dropped here.
 */
static void ram_resolve(struct bootinfo *bi)
{
	struct range_table *t = &bi->ram;
	struct ram_sweep *w = &sweep;
	unsigned int m, need, joins = 0;

	ram_union_nodes(bi);
	sort(t->regions, t->count, sizeof(t->regions[0]), cmp_start_node);
	t->unsorted = false;
	sweep_start(w, t->regions, t->count, NULL, 0);
	ram_sweep_run(bi, w);
	if (!w->overlap)
		return;
	if (w->hidden)
		ram_drop_hidden(t);
	m = t->count;
	need = w->count;
	ram_make_room(t, need);
	if (need > t->cap)
		joins = need - t->cap;
	memmove(&t->regions[t->cap - m], t->regions, m * sizeof(t->regions[0]));
	sweep_start(w, &t->regions[t->cap - m], m, t->regions, joins);
	ram_sweep_run(bi, w);
	t->count = w->count;
	if (joins)
		fix_warn(bi,
			 "RAM of several nodes overlaps: resolved it takes %u "
			 "ranges, the RAM table holds %u (%s): %u pieces "
			 "joined to RAM of another node they touch (%#llx "
			 "bytes counted on that node), none dropped",
			 need, t->cap,
			 t->cap >= t->max ? "its limit"
					  : "the early pool is full",
			 w->joined, U64(w->joined_bytes));
}

/*
 * Each reserved range page-aligned outwards, the empty ones dropped. A
 * range already in shape is only read (100,000 bad pages: no copy of
 * each, no write).
 */
static void reserved_trim(struct bootinfo *bi)
{
	unsigned int out = 0;
	uint64_t bytes = 0;

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		struct region *r = &bi->reserved.regions[i];
		uint64_t s = pa_val(r->start), e = pa_val(r->end);
		uint64_t ns = ALIGN_DOWN(s, PAGE_SIZE);
		uint64_t ne =
			e > PAGE_MASK ? PAGE_MASK : ALIGN_UP(e, PAGE_SIZE);

		if (r->name[sizeof(r->name) - 1])
			r->name[sizeof(r->name) - 1] = '\0';
		if (e <= s) {
			fix_warn(bi,
				 "reserved %s [%#llx, %#llx) is empty, dropped",
				 r->name, U64(s), U64(e));
			bi->dropped_reserved++;
			continue;
		}
		if (ns >= ne) {
			/* Inside the last page of the address space: no RAM
			 * can be there (RAM ends at PAGE_MASK at most). */
			pr_debug("bootinfo: reserved %s [%#llx, %#llx) beyond "
				 "RAM, dropped\n",
				 r->name, U64(s), U64(e));
			continue;
		}
		if (ns != s || ne != e) {
			pr_debug("bootinfo: reserved %s [%#llx, %#llx) rounded "
				 "to pages\n",
				 r->name, U64(s), U64(e));
			r->start = pa(ns);
			r->end = pa(ne);
		}
		if (out != i)
			bi->reserved.regions[out] = *r;
		out++;
		bytes += pa_val(r->end) - pa_val(r->start);
	}
	bi->reserved.count = out;
	bi->reserved_bytes = bytes;
	bi->reserved_bytes_known = true;
}

/*
 * The image ("kernel", the arch's reservation of itself) over memory the
 * firmware keeps: its loader zeroed or wrote it (issue 36 §4: GRUB under
 * OVMF over ACPI NVS at 8 MiB). Nothing can be undone now; say it, naming
 * both ranges, instead of reserving around it without a word: one line
 * per firmware range, at most IMAGE_ERR_MAX lines (then a count), once
 * per image range (sanitise is idempotent: a second call says nothing).
 */
#define IMAGE_ERR_MAX 8

struct image_errs {
	unsigned int left, more;
};

static struct region image_said; /* the image range last reported */

static void image_gap_error(const struct bootinfo *bi, const struct region *r,
			    uint64_t gs, uint64_t ge, struct image_errs *n)
{
	bool named = false;

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *f = &bi->reserved.regions[i];

		if (f == r || pa_val(f->start) >= ge || gs >= pa_val(f->end) ||
		    !strcmp(f->name, r->name))
			continue;
		named = true;
		if (!n->left) {
			n->more++;
			continue;
		}
		n->left--;
		pr_err("the image [%#llx, %#llx) (%s) overlaps the firmware's "
		       "%s [%#llx, %#llx): the loader wrote over it; load keel "
		       "where the firmware map is free\n",
		       U64(pa_val(r->start)), U64(pa_val(r->end)), r->name,
		       f->name, U64(pa_val(f->start)), U64(pa_val(f->end)));
	}
	if (named)
		return;
	if (!n->left) {
		n->more++;
		return;
	}
	n->left--;
	pr_err("the image [%#llx, %#llx) (%s) covers [%#llx, %#llx), which the "
	       "firmware's map does not call RAM\n",
	       U64(pa_val(r->start)), U64(pa_val(r->end)), r->name, U64(gs),
	       U64(ge));
}

/* Each stretch of the image @r that no RAM range covers: image_gap_error(). */
static void image_check(const struct bootinfo *bi, const struct region *r)
{
	struct image_errs n = {IMAGE_ERR_MAX, 0};
	uint64_t p = pa_val(r->start), e = pa_val(r->end);

	if (pa_val(image_said.start) == p && pa_val(image_said.end) == e)
		return;
	for (unsigned int i = 0; i < bi->ram.count && p < e; i++) {
		uint64_t rs = pa_val(bi->ram.regions[i].start);
		uint64_t re = pa_val(bi->ram.regions[i].end);

		if (re <= p)
			continue;
		if (rs > p)
			image_gap_error(bi, r, p, MIN(rs, e), &n);
		p = MAX(p, re);
	}
	if (p < e)
		image_gap_error(bi, r, p, e, &n);
	if (n.left < IMAGE_ERR_MAX || n.more)
		image_said = *r;
	if (n.more)
		pr_err("the image [%#llx, %#llx) (%s) overlaps %u more "
		       "firmware "
		       "ranges\n",
		       U64(pa_val(r->start)), U64(pa_val(r->end)), r->name,
		       n.more);
}

/*
 * Every range the arch reserved as its image ("kernel"): image_check().
 * One look per reserved range (100,000 bad pages): the first byte first.
 */
static void images_check(const struct bootinfo *bi)
{
	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const char *name = bi->reserved.regions[i].name;

		if (name[0] == IMAGE_NAME[0] && !strcmp(name, IMAGE_NAME))
			image_check(bi, &bi->reserved.regions[i]);
	}
}

/* Cap the table, give each CPU a node, drop repeated hwids (first stays). */
static void cpus_dedup(struct bootinfo *bi)
{
	unsigned int out = 0;

	if (bi->cpu_count > CONFIG_NR_CPUS)
		bi->cpu_count = CONFIG_NR_CPUS;
	/* One line for the whole table, never one per CPU, and only once. */
	if (bi->cpus_over_cap && !bi->cpus_over_cap_said) {
		bi->cpus_over_cap_said = true;
		fix_warn(bi,
			 "firmware describes %u CPUs, this build holds %u "
			 "(CONFIG_NR_CPUS): %u dropped",
			 (unsigned int)CONFIG_NR_CPUS + bi->cpus_over_cap,
			 (unsigned int)CONFIG_NR_CPUS, bi->cpus_over_cap);
	}
	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		struct bi_cpu c = bi->cpus[i];
		bool dup = false;

		c.node = fix_node(bi, c.node, "cpu hwid", c.hwid);
		for (unsigned int j = 0; j < out; j++) {
			if (bi->cpus[j].hwid != c.hwid)
				continue;
			dup = true;
			fix_warn(bi,
				 "cpu hwid %#llx listed twice, dropped the "
				 "second",
				 U64(c.hwid));
			bi->dropped_cpus++;
			/* The boot flag survives on the entry that stays. */
			if (c.boot_cpu)
				bi->cpus[j].boot_cpu = true;
			break;
		}
		if (!dup)
			bi->cpus[out++] = c;
	}
	bi->cpu_count = out;
}

/*
 * Exactly one boot CPU, usable, in cpus[0] (logical CPU 0): the first
 * marked, else the first listed; a CPU table left empty gets one.
 */
static void cpus_fix(struct bootinfo *bi)
{
	unsigned int boot = ~0u;

	cpus_dedup(bi);

	if (!bi->cpu_count) {
		fix_warn(bi, "no CPUs described, assuming one boot CPU (hwid "
			     "0, node 0)");
		bootinfo_add_cpu(bi, 0, 0, 0, 0, 0, true);
		bi->cpus[0].boot_cpu = true;
	}
	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		if (!bi->cpus[i].boot_cpu)
			continue;
		if (boot == ~0u) {
			boot = i;
			continue;
		}
		fix_warn(bi, "cpu hwid %#llx also marked as boot CPU, cleared",
			 U64(bi->cpus[i].hwid));
		bi->cpus[i].boot_cpu = false;
	}
	if (boot == ~0u) {
		fix_warn(bi, "no boot CPU marked, using the first (hwid %#llx)",
			 U64(bi->cpus[0].hwid));
		boot = 0;
		bi->cpus[0].boot_cpu = true;
	}
	if (!bi->cpus[boot].usable) {
		fix_warn(bi,
			 "boot CPU hwid %#llx marked unusable, it runs anyway",
			 U64(bi->cpus[boot].hwid));
		bi->cpus[boot].usable = true;
	}
	/* Logical CPU 0 is the boot CPU: rotate it to the front. */
	if (boot) {
		struct bi_cpu c = bi->cpus[boot];

		memmove(&bi->cpus[1], &bi->cpus[0], boot * sizeof(c));
		bi->cpus[0] = c;
	}
}

/*
 * Fill what was not given, then apply the policy of include/keel/bootinfo.h
 * ("Node distances"): asymmetric and unreachable (255) entries stay, one
 * bad entry is mended, two or more mean 10/20 for all nodes.
 */
static void distance_fix(struct bootinfo *bi)
{
	unsigned int n = bi->node_count, bad = 0, ba = 0, bb = 0;
	bool ok = bi->have_distance;

	/* 0 = not given: diagonal 10, else the valid reverse, else 20. */
	for (unsigned int a = 0; ok && a < n; a++) {
		for (unsigned int b = 0; b < n; b++) {
			uint8_t *d = &bi->distance[a][b];
			uint8_t rev = bi->distance[b][a];

			if (*d)
				continue;
			if (a == b)
				*d = NODE_DISTANCE_LOCAL;
			else if (rev && !bootinfo_distance_problem(b, a, rev))
				*d = rev;
			else
				*d = NODE_DISTANCE_REMOTE;
		}
	}
	for (unsigned int a = 0; ok && a < n; a++) {
		for (unsigned int b = 0; b < n; b++) {
			if (bootinfo_distance_problem(a, b,
						      bi->distance[a][b]) &&
			    !bad++) {
				ba = a;
				bb = b;
			}
		}
	}
	if (bad == 1) {
		/* The reverse is valid: only this entry is bad. */
		uint8_t *d = &bi->distance[ba][bb];
		uint8_t to =
			ba == bb ? NODE_DISTANCE_LOCAL : bi->distance[bb][ba];

		fix_warn(bi, "distance %u %u = %u: %s, using %u", ba, bb, *d,
			 bootinfo_distance_problem(ba, bb, *d), to);
		*d = to;
	} else if (bad) {
		fix_warn(
			bi,
			"distance %u %u = %u: %s (%u bad entries), using "
			"10/20 for all nodes",
			ba, bb, bi->distance[ba][bb],
			bootinfo_distance_problem(ba, bb, bi->distance[ba][bb]),
			bad);
		ok = false;
	}
	if (!ok)
		bi->have_distance = false;
	for (unsigned int a = 0; a < MAX_NUMNODES; a++)
		for (unsigned int b = 0; b < MAX_NUMNODES; b++)
			if (!ok || a >= n || b >= n)
				bi->distance[a][b] =
					a == b ? NODE_DISTANCE_LOCAL
					       : NODE_DISTANCE_REMOTE;
}

/**
 * bootinfo_sanitise() - make @bi consistent (see the top of this file and
 * include/keel/bootinfo.h). Idempotent: a second call changes nothing and
 * warns about nothing.
 */
void bootinfo_sanitise(struct bootinfo *bi)
{
	uint64_t limit;
	uint32_t top = 0;

	if (bi->paddr_bits < 32 || bi->paddr_bits > 64) {
		fix_warn(bi, "paddr_bits %u out of range, using %u",
			 bi->paddr_bits, BOOTINFO_PADDR_BITS_DEFAULT);
		bi->paddr_bits = BOOTINFO_PADDR_BITS_DEFAULT;
	}
	limit = bi->paddr_bits == 64 ? ~0ULL : 1ULL << bi->paddr_bits;
	if (bi->ram.count > bi->ram.cap)
		bi->ram.count = bi->ram.cap;
	if (bi->reserved.count && bi->reserved.count >= bi->reserved.cap)
		bi->reserved.count =
			bi->reserved.cap ? bi->reserved.cap - 1 : 0;
	bi->loader[sizeof(bi->loader) - 1] = '\0';
	bi->cmdline[sizeof(bi->cmdline) - 1] = '\0';

	ram_trim(bi, limit);
	ram_resolve(bi);
	reserved_trim(bi);
	images_check(bi);
	cpus_fix(bi);

	for (unsigned int i = 0; i < bi->ram.count; i++)
		top = MAX(top, bi->ram.regions[i].node);
	for (unsigned int i = 0; i < bi->cpu_count; i++)
		top = MAX(top, bi->cpus[i].node);
	bi->node_count = top + 1;
	distance_fix(bi);
}
