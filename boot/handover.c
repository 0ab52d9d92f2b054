/* SPDX-License-Identifier: MIT */
/*
 * The live-update handover reader (include/keel/handover.h, DESIGN §13,
 * docs/liveupdate.md): the new image's view of what the old one left. It
 * is firmware input like a memory map, read in fwboot_finish() after the
 * sanitiser and before bootmem allocates its first byte.
 *
 * Fail closed: a handover that is truncated, fails its checksum, has an
 * unknown version, or whose ranges overlap one another, firmware-reserved
 * memory or the new image, lie outside RAM or are misaligned, whose
 * extents or table pages lie outside the preserved ranges, or whose p2m
 * root lies outside its table pages, is refused as a whole: one error
 * naming the field and value, and every byte of RAM reserved ("handover
 * refused"), so that nothing is zeroed, scrubbed or handed out; keel_main()
 * then stops before the heap with the same reason. Nothing is trusted in
 * part: the checks all pass before anything is reserved.
 *
 * The parse reads the bytes only through memcpy() into local copies, so
 * any alignment and any length is safe; every offset is checked against
 * the size before it is used. Costs: O(size) for the checksum, O(R log P)
 * for the R reserved ranges (left in their order: bootmem names a byte by
 * the first range covering it), O(log P) per extent and table range for
 * the P preserved ranges.
 *
 * Runs on the boot CPU before anything else: no lock.
 */
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "boot_priv.h"
#include "handover_bad.h"
#include "handover_priv.h"

/* What one parse walks: the buffer, and the bootinfo it is checked against. */
struct ho_ctx {
	struct bootinfo *bi;
	struct bi_handover *h;
	struct handover_view v; /* its bytes: v.head as given, then pieces */
	uint64_t len;		/* bytes readable at v.head */
	uint64_t size; /* the header's, checked against what was given */
	uint64_t pa;
	uint64_t pres; /* the preserved ranges' offset, 0: none */
	unsigned int pres_count;
	uint32_t version;	    /* the header's */
	uint64_t written;	    /* the header's written_ticks */
	struct ho_bad_pres bad_pre; /* walked with the checksum */
};

static __printf(2, 3) int refuse(struct ho_ctx *c, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	n = (size_t)snprintf(c->h->why, sizeof(c->h->why), "handover: ");
	va_start(ap, fmt);
	vsnprintf(c->h->why + n, sizeof(c->h->why) - n, fmt, ap);
	va_end(ap);
	c->h->state = HANDOVER_REFUSED;
	return -EINVAL;
}

static struct handover_range pres_at(const struct ho_ctx *c, unsigned int i)
{
	struct handover_range r;

	handover_view_read(&c->v, c->pres + (uint64_t)i * sizeof(r), &r,
			   sizeof(r));
	return r;
}

/* The first preserved range ending above @s (binary search), or count. */
static unsigned int pres_first_above(const struct ho_ctx *c, uint64_t s)
{
	unsigned int lo = 0, hi = c->pres_count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (pres_at(c, mid).end <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Does one preserved range hold all of [s, e)? The ranges are sorted and
 * disjoint (check_pres_range()), so only the first ending above @s can.
 */
static bool in_preserved(const struct ho_ctx *c, uint64_t s, uint64_t e)
{
	unsigned int i = pres_first_above(c, s);

	return i < c->pres_count && pres_at(c, i).start <= s &&
	       e <= pres_at(c, i).end;
}

/* ---- the header -------------------------------------------------------- */

static int check_header(struct ho_ctx *c, const struct handover_header *hd)
{
	if (hd->magic != HANDOVER_MAGIC)
		return refuse(c, "magic %#llx is not \"KEELHOV1\"",
			      U64(hd->magic));
	if (hd->version < HANDOVER_VERSION_MIN ||
	    hd->version > HANDOVER_VERSION)
		return refuse(c,
			      "version %u unknown (this image reads %u to "
			      "%u)",
			      hd->version, HANDOVER_VERSION_MIN,
			      HANDOVER_VERSION);
	if (hd->header_bytes != HANDOVER_HEADER_BYTES)
		return refuse(c, "header_bytes %u (version %u has %u)",
			      hd->header_bytes, hd->version,
			      HANDOVER_HEADER_BYTES);
	if (hd->size < HANDOVER_HEADER_BYTES || hd->size > HANDOVER_MAX_BYTES)
		return refuse(c, "size %llu out of [%u, %llu]", U64(hd->size),
			      HANDOVER_HEADER_BYTES, U64(HANDOVER_MAX_BYTES));
	c->size = hd->size;
	c->version = hd->version;
	c->written = hd->written_ticks;
	c->v.size = hd->size;
	return 0;
}

/* After the pieces: the checksum over them all, then the other fields. */
static int check_sum(struct ho_ctx *c, const struct handover_header *hd)
{
	uint32_t sum = handover_checksum_checked(
		&c->v, hd->record_count, hd->version, &c->bi->ram, &c->bad_pre);

	if (sum != hd->checksum)
		return refuse(c, "checksum %#x, the bytes give %#x",
			      hd->checksum, sum);
	if (hd->flags)
		return refuse(c, "flags %#llx unknown in version %u",
			      U64(hd->flags), hd->version);
	if (!hd->generation)
		return refuse(c, "generation 0 (the first new image is 1)");
	return 0;
}

/* ---- records ----------------------------------------------------------- */

/* Record @i at *@off: its head, within the size. */
static int rec_head(struct ho_ctx *c, unsigned int i, uint64_t off,
		    struct handover_rec *rec)
{
	if (off + sizeof(*rec) > c->size)
		return refuse(c,
			      "record %u at offset %llu truncated (size "
			      "%llu)",
			      i, U64(off), U64(c->size));
	handover_view_read(&c->v, off, rec, sizeof(*rec));
	if (rec->bytes < sizeof(*rec) || rec->bytes % 8 ||
	    rec->bytes > c->size - off)
		return refuse(c,
			      "record %u bytes %u at offset %llu (size %llu)",
			      i, rec->bytes, U64(off), U64(c->size));
	return 0;
}

/* One preserved range @i: aligned, after the last, RAM, off the handover. */
static int check_pres_range(struct ho_ctx *c, unsigned int i)
{
	struct handover_range r = pres_at(c, i);
	uint64_t hole;

	if (!IS_ALIGNED(r.start, PAGE_SIZE) || !IS_ALIGNED(r.end, PAGE_SIZE))
		return refuse(c,
			      "preserved[%u] [%#llx, %#llx) not page "
			      "aligned",
			      i, U64(r.start), U64(r.end));
	if (r.start >= r.end)
		return refuse(c,
			      "preserved[%u] [%#llx, %#llx) empty or "
			      "inverted",
			      i, U64(r.start), U64(r.end));
	if (i && r.start < pres_at(c, i - 1).end)
		return refuse(c,
			      "preserved[%u] [%#llx, %#llx) overlaps or "
			      "precedes preserved[%u] (sorted, disjoint "
			      "ranges)",
			      i, U64(r.start), U64(r.end), i - 1);
	hole = ho_first_not_ram(c->bi, r.start, r.end);
	if (hole != r.end)
		return refuse(c,
			      "preserved[%u] [%#llx, %#llx) lies outside "
			      "RAM at %#llx",
			      i, U64(r.start), U64(r.end), U64(hole));
	if (ho_on_handover(&c->v, c->pa, r.start, r.end))
		return refuse(c,
			      "preserved[%u] [%#llx, %#llx) overlaps the "
			      "handover itself at %#llx",
			      i, U64(r.start), U64(r.end), U64(c->pa));
	return 0;
}

/*
 * No preserved range on a reserved one (static-mem aside): each reserved
 * range looked up in the sorted preserved ranges, O(R log P), the
 * reserved table left in its order. The lowest preserved range hit by the
 * first such reserved range is named.
 */
static int check_pres_reserved(struct ho_ctx *c)
{
	for (unsigned int k = 0; k < c->bi->reserved.count; k++) {
		const struct region *rv = &c->bi->reserved.regions[k];
		unsigned int i = pres_first_above(c, pa_val(rv->start));
		struct handover_range r;

		if (i >= c->pres_count)
			continue;
		r = pres_at(c, i);
		if (r.start >= pa_val(rv->end) ||
		    !strncmp(rv->name, STATIC_MEM_NAME, sizeof(rv->name)))
			continue;
		return refuse(c,
			      "preserved[%u] [%#llx, %#llx) overlaps %s "
			      "[%#llx, %#llx) (%.*s)",
			      i, U64(r.start), U64(r.end), ho_reserved_what(rv),
			      U64(pa_val(rv->start)), U64(pa_val(rv->end)),
			      (int)sizeof(rv->name), rv->name);
	}
	return 0;
}

static int parse_preserved(struct ho_ctx *c, unsigned int i, uint64_t off,
			   const struct handover_rec *rec)
{
	struct handover_preserved p;

	if (c->pres)
		return refuse(c, "record %u: a second preserved record", i);
	if (rec->bytes < sizeof(p))
		return refuse(c, "record %u: preserved record of %u bytes", i,
			      rec->bytes);
	handover_view_read(&c->v, off, &p, sizeof(p));
	if ((uint64_t)p.count * sizeof(struct handover_range) !=
	    rec->bytes - sizeof(p))
		return refuse(c,
			      "preserved count %u does not fill its %u "
			      "bytes",
			      p.count, rec->bytes);
	c->pres = off + sizeof(p);
	c->pres_count = p.count;
	for (unsigned int k = 0; k < p.count; k++) {
		int err = check_pres_range(c, k);

		if (err)
			return err;
		c->h->preserved_bytes +=
			pres_at(c, k).end - pres_at(c, k).start;
	}
	return check_pres_reserved(c);
}

/* ---- bad pages (version 4 on: boot/handover_bad.c) ------------------ */

static int parse_bad(struct ho_ctx *c, unsigned int i, uint64_t off,
		     const struct handover_rec *rec)
{
	char why[160];

	if (c->version < 4 && rec->type == HANDOVER_REC_BAD)
		return refuse(c,
			      "record %u: type %u (bad pages) not in version "
			      "%u",
			      i, rec->type, c->version);
	if (handover_bad_parse_pre(c->h, &c->bi->ram, &c->v, off, rec->bytes,
				   c->version, why, sizeof(why),
				   handover_bad_pre_at(&c->bad_pre, off)))
		return refuse(c, "record %u: %s", i, why);
	return 0;
}

/* ---- domains ----------------------------------------------------------- */

/* The record's name, NUL-terminated within its 64 bytes, for errors. */
static const char *dom_name(const struct handover_domain *d)
{
	return memchr(d->name, 0, sizeof(d->name)) ? d->name : "?";
}

/* Its fixed part: sizes add up, id, name, origin, node, format. */
static int check_dom_fixed(struct ho_ctx *c, unsigned int n,
			   const struct handover_domain *d, uint32_t bytes)
{
	uint64_t need =
		sizeof(*d) +
		(uint64_t)d->table_count * sizeof(struct handover_range) +
		(uint64_t)d->extent_count * sizeof(struct handover_extent) +
		d->kernel_bytes;

	if ((d->kernel_bytes || d->vcpus) && c->version < 3)
		return refuse(
			c,
			"domains[%u]: vcpus %u, kernel_bytes %u in version "
			"%u (reserved: 0)",
			n, d->vcpus, d->kernel_bytes, c->version);
	if (d->kernel_bytes && d->kernel_bytes != HANDOVER_NAME_MAX)
		return refuse(c, "domains[%u]: kernel_bytes %u (0 or %u)", n,
			      d->kernel_bytes, HANDOVER_NAME_MAX);
	if (need != bytes)
		return refuse(c,
			      "domains[%u]: record of %u bytes does not hold "
			      "its %u table ranges, %u extents and %u bytes of "
			      "kernel name",
			      n, bytes, d->table_count, d->extent_count,
			      d->kernel_bytes);
	if (d->vcpus > HANDOVER_DOMAIN_VCPUS_MAX || d->reserved)
		return refuse(c,
			      "domains[%u]: vcpus %u (at most %u), reserved "
			      "%#llx (0)",
			      n, d->vcpus, HANDOVER_DOMAIN_VCPUS_MAX,
			      U64(d->reserved));
	if (!memchr(d->name, 0, sizeof(d->name)))
		return refuse(c, "domains[%u]: name not NUL-terminated", n);
	if (!d->id)
		return refuse(c, "domains[%u] (%s): id 0", n, d->name);
	for (unsigned int k = 0; k < c->h->domain_count; k++)
		if (c->h->domains[k].id == d->id)
			return refuse(c, "domains[%u] (%s): id %u given twice",
				      n, d->name, d->id);
	if (d->origin > 1)
		return refuse(c, "domains[%u] (%s): origin %u unknown", n,
			      d->name, d->origin);
	if (d->node >= c->bi->node_count)
		return refuse(c,
			      "domains[%u] (%s): node %u (the machine has %u)",
			      n, d->name, d->node, c->bi->node_count);
	if (d->p2m_format > HANDOVER_P2M_NPT)
		return refuse(c, "domains[%u] (%s): p2m_format %u unknown", n,
			      d->name, d->p2m_format);
	return 0;
}

/* Table ranges in preserved memory, the root inside them. */
static int check_dom_tables(struct ho_ctx *c, unsigned int n,
			    const struct handover_domain *d, uint64_t arr)
{
	uint64_t root = d->p2m_root;
	uint64_t root_end = root + (PAGE_SIZE << (d->p2m_root_order & 31));
	bool root_in = false;

	for (uint32_t k = 0; k < d->table_count; k++) {
		struct handover_range r;

		handover_view_read(&c->v, arr + (uint64_t)k * sizeof(r), &r,
				   sizeof(r));
		if (!IS_ALIGNED(r.start, PAGE_SIZE) ||
		    !IS_ALIGNED(r.end, PAGE_SIZE) || r.start >= r.end ||
		    !in_preserved(c, r.start, r.end))
			return refuse(c,
				      "domains[%u] (%s): tables[%u] [%#llx, "
				      "%#llx) not whole pages of the preserved "
				      "ranges",
				      n, dom_name(d), k, U64(r.start),
				      U64(r.end));
		root_in |=
			r.start <= root && root < root_end && root_end <= r.end;
	}
	if (d->p2m_format == HANDOVER_P2M_NONE && !d->table_count && !root)
		return 0;
	if (!IS_ALIGNED(root, PAGE_SIZE) || !root_in || d->p2m_root_order > 4)
		return refuse(c,
			      "domains[%u] (%s): p2m_root %#llx (order %u) "
			      "outside its table pages",
			      n, dom_name(d), U64(root), d->p2m_root_order);
	return 0;
}

/* Extents: whole pages, inside the preserved ranges, adding up to bytes. */
static int check_dom_extents(struct ho_ctx *c, unsigned int n,
			     const struct handover_domain *d, uint64_t arr)
{
	uint64_t sum = 0;

	for (uint32_t k = 0; k < d->extent_count; k++) {
		struct handover_extent x;
		uint64_t end;

		handover_view_read(&c->v, arr + (uint64_t)k * sizeof(x), &x,
				   sizeof(x));
		end = x.pa + (x.pages << PAGE_SHIFT);
		if (!IS_ALIGNED(x.pa | x.gpa, PAGE_SIZE) || !x.pages ||
		    x.pages >> (64 - PAGE_SHIFT) || end <= x.pa)
			return refuse(c,
				      "domains[%u] (%s): extent[%u] gpa %#llx "
				      "pa %#llx pages %llu malformed",
				      n, dom_name(d), k, U64(x.gpa), U64(x.pa),
				      U64(x.pages));
		if (!in_preserved(c, x.pa, end))
			return refuse(c,
				      "domains[%u] (%s): extent[%u] [%#llx, "
				      "%#llx) outside the preserved ranges",
				      n, dom_name(d), k, U64(x.pa), U64(end));
		sum += x.pages << PAGE_SHIFT;
	}
	if (sum != d->bytes)
		return refuse(c,
			      "domains[%u] (%s): bytes %llu, its extents hold "
			      "%llu",
			      n, dom_name(d), U64(d->bytes), U64(sum));
	return 0;
}

static int parse_domain(struct ho_ctx *c, uint64_t off,
			const struct handover_rec *rec)
{
	unsigned int n = c->h->domain_count;
	struct bi_handover_domain *bd;
	struct handover_domain d;
	char kernel[HANDOVER_NAME_MAX];
	uint64_t arr;
	int err;

	if (rec->bytes < sizeof(d))
		return refuse(c, "domains[%u]: record of %u bytes", n,
			      rec->bytes);
	if (n >= BI_HANDOVER_DOMAINS)
		return refuse(c, "domains[%u]: more than %u domains", n,
			      BI_HANDOVER_DOMAINS);
	handover_view_read(&c->v, off, &d, sizeof(d));
	arr = off + sizeof(d);
	err = check_dom_fixed(c, n, &d, rec->bytes);
	if (!err)
		err = check_dom_tables(c, n, &d, arr);
	if (!err)
		err = check_dom_extents(
			c, n, &d,
			arr + (uint64_t)d.table_count *
					sizeof(struct handover_range));
	/* kernel_bytes is 0 or the name's size (check_dom_fixed()). */
	if (!err && d.kernel_bytes)
		handover_view_read(&c->v, off + rec->bytes - d.kernel_bytes,
				   kernel, sizeof(kernel));
	if (!err && d.kernel_bytes && !memchr(kernel, 0, sizeof(kernel)))
		err = refuse(c,
			     "domains[%u] (%s): kernel name not "
			     "NUL-terminated",
			     n, dom_name(&d));
	if (err)
		return err;
	bd = &c->h->domains[c->h->domain_count++];
	bd->id = d.id;
	bd->origin = d.origin;
	bd->node = d.node;
	memcpy(bd->name, d.name, sizeof(bd->name));
	bd->bytes = d.bytes;
	bd->root = pa(d.p2m_root);
	bd->table_count = d.table_count;
	bd->extent_count = d.extent_count;
	bd->vcpus = d.vcpus;
	memset(bd->kernel, 0, sizeof(bd->kernel));
	if (d.kernel_bytes)
		memcpy(bd->kernel, kernel, sizeof(bd->kernel) - 1);
	bd->view = c->v;
	bd->rec = off;
	bd->rec_bytes = rec->bytes;
	c->h->extent_count += d.extent_count;
	return 0;
}

/* ---- vCPUs (version 2) -------------------------------------------------- */

static const struct bi_handover_domain *dom_known(const struct ho_ctx *c,
						  uint16_t id)
{
	for (unsigned int k = 0; k < c->h->domain_count; k++)
		if (c->h->domains[k].id == id)
			return &c->h->domains[k];
	return NULL;
}

/* The fields of vCPU record @n against this machine and the domains. */
static int check_vcpu(struct ho_ctx *c, unsigned int n,
		      const struct handover_vcpu *v, uint32_t bytes,
		      const uint8_t *state)
{
	char why[BI_HANDOVER_WHY_MAX];

	if (v->state_bytes > HANDOVER_VCPU_STATE_MAX ||
	    bytes != sizeof(*v) + ALIGN_UP((uint64_t)v->state_bytes, 8))
		return refuse(c,
			      "vcpus[%u]: state_bytes %u truncated or "
			      "padded wrong in a record of %u bytes",
			      n, v->state_bytes, bytes);
	if (v->flags)
		return refuse(c, "vcpus[%u]: flags %#x unknown", n, v->flags);
	if (!dom_known(c, v->domain))
		return refuse(c, "vcpus[%u]: domain %u is no domain record", n,
			      v->domain);
	for (unsigned int k = 0; k < c->h->vcpu_count; k++)
		if (c->h->vcpus[k].domain == v->domain)
			return refuse(c, "vcpus[%u]: domain %u given twice", n,
				      v->domain);
	if (v->cpu >= c->bi->cpu_count)
		return refuse(c, "vcpus[%u]: cpu %u does not exist (%u CPUs)",
			      n, v->cpu, c->bi->cpu_count);
	if (c->h->vcpu_arch == HANDOVER_VCPU_NONE)
		return refuse(c,
			      "vcpus[%u]: arch %u, but this image runs no "
			      "guests (it resumes no vCPU)",
			      n, v->arch);
	if (v->arch != c->h->vcpu_arch)
		return refuse(c, "vcpus[%u]: arch %u, this image's is %u", n,
			      v->arch, c->h->vcpu_arch);
	if (v->state_bytes != c->h->vcpu_state_bytes)
		return refuse(c, "vcpus[%u]: state_bytes %u, arch %u has %u", n,
			      v->state_bytes, v->arch, c->h->vcpu_state_bytes);
	if (c->written && v->stop_ticks > c->written)
		return refuse(c,
			      "vcpus[%u]: stop_ticks %llu after the records "
			      "were written (written_ticks %llu)",
			      n, U64(v->stop_ticks), U64(c->written));
	if (handover_vcpu_check(v, state, dom_known(c, v->domain), why,
				sizeof(why)))
		return refuse(c, "vcpus[%u] (domain %u): %s", n, v->domain,
			      why);
	return 0;
}

static int parse_vcpu(struct ho_ctx *c, unsigned int i, uint64_t off,
		      const struct handover_rec *rec)
{
	unsigned int n = c->h->vcpu_count;
	struct bi_handover_vcpu *bv;
	struct handover_vcpu v;
	const uint8_t *state = NULL;
	uint64_t run = 0;
	int err;

	if (c->version < 2)
		return refuse(c,
			      "record %u: type %u (vCPU state) not in "
			      "version %u",
			      i, rec->type, c->version);
	if (rec->bytes < sizeof(v))
		return refuse(c, "vcpus[%u]: record of %u bytes truncated", n,
			      rec->bytes);
	if (n >= BI_HANDOVER_VCPUS)
		return refuse(c, "vcpus[%u]: more than %u vCPUs", n,
			      BI_HANDOVER_VCPUS);
	handover_view_read(&c->v, off, &v, sizeof(v));
	/* Read in place by the resume: the writer keeps it in one piece. */
	if (rec->bytes > sizeof(v))
		state = handover_view_at(&c->v, off + sizeof(v), &run);
	if (run < rec->bytes - sizeof(v))
		return refuse(c,
			      "vcpus[%u]: its record at offset %llu spans "
			      "two pieces",
			      n, U64(off));
	err = check_vcpu(c, n, &v, rec->bytes, state);
	if (err)
		return err;
	bv = &c->h->vcpus[c->h->vcpu_count++];
	bv->domain = v.domain;
	bv->arch = v.arch;
	bv->cpu = v.cpu;
	bv->stop_ticks = v.stop_ticks;
	bv->pages_walked = v.pages_walked;
	bv->bad_words = v.bad_words;
	bv->state = state;
	bv->state_bytes = v.state_bytes;
	return 0;
}

/*
 * Walk the records three times: the preserved ranges first (the domains
 * are checked against them), then the domains, then the vCPUs (each names
 * a domain). @pass 0, 1 or 2.
 */
static int walk_records(struct ho_ctx *c, const struct handover_header *hd,
			int pass)
{
	uint64_t off = HANDOVER_HEADER_BYTES;
	struct handover_rec rec;

	for (unsigned int i = 0; i < hd->record_count; i++, off += rec.bytes) {
		int err = rec_head(c, i, off, &rec);

		if (err)
			return err;
		if (rec.type == HANDOVER_REC_PRESERVED)
			err = pass ? 0 : parse_preserved(c, i, off, &rec);
		else if (rec.type == HANDOVER_REC_BAD ||
			 rec.type == HANDOVER_REC_BAD_PACKED)
			err = pass ? 0 : parse_bad(c, i, off, &rec);
		else if (rec.type == HANDOVER_REC_DOMAIN)
			err = pass == 1 ? parse_domain(c, off, &rec) : 0;
		else if (rec.type == HANDOVER_REC_VCPU)
			err = pass == 2 ? parse_vcpu(c, i, off, &rec) : 0;
		else if (rec.type == HANDOVER_REC_PIECES)
			err = c->v.count && !i ? 0
					       : refuse(c,
							"record %u: a pieces "
							"record not first, or "
							"with no pieces",
							i);
		else if (rec.type == HANDOVER_REC_FT_PLACE && !pass)
			handover_ft_parse(c->h, i, off, rec.bytes);
		else if (!(rec.type & HANDOVER_REC_OPTIONAL))
			err = refuse(c, "record %u: type %#x unknown", i,
				     rec.type);
		if (err)
			return err;
	}
	if (off != c->size)
		return refuse(c, "%llu bytes after the last of %u records",
			      U64(c->size - off), hd->record_count);
	return 0;
}

int handover_parse(struct bootinfo *bi, const void *buf, uint64_t len,
		   paddr_t buf_pa)
{
	struct bi_handover *h = &bi->handover;
	struct handover_header hd;
	struct ho_ctx c = {
		.bi = bi,
		.h = h,
		.v = {.head = buf, .delta = (uintptr_t)buf - pa_val(buf_pa)},
		.len = len,
		.pa = pa_val(buf_pa),
	};
	char why[160];
	int err;

	h->state = HANDOVER_NONE;
	h->why[0] = '\0';
	h->preserved = 0;
	h->preserved_count = 0;
	h->preserved_bytes = 0;
	h->domain_count = 0;
	h->extent_count = 0;
	h->vcpu_count = 0;
	h->bad_recs = h->bad_count = h->bad_unknown = 0;
	h->bad_pages = 0;
	h->ft_pieces = 0;
	h->ft_count = 0;
	if (!buf || len < HANDOVER_HEADER_BYTES)
		return refuse(&c,
			      "truncated: %llu bytes given, the header has "
			      "%u",
			      U64(len), HANDOVER_HEADER_BYTES);
	memcpy(&hd, buf, sizeof(hd));
	err = check_header(&c, &hd);
	if (!err && ho_pieces_check(bi, &hd, len, c.pa, &c.v, why, sizeof(why)))
		err = refuse(&c, "%s", why);
	h->view = c.v; /* the records' readers (handover_ft.c) */
	if (!err)
		err = check_sum(&c, &hd);
	if (!err)
		err = walk_records(&c, &hd, 0);
	if (!err && hd.record_count && !c.pres)
		err = refuse(&c, "no preserved record");
	if (!err && handover_bad_apart(h, why, sizeof(why)))
		err = refuse(&c, "%s", why);
	if (!err)
		err = walk_records(&c, &hd, 1);
	if (!err)
		err = walk_records(&c, &hd, 2);
	if (err)
		return err;
	h->hdr = hd;
	h->view = c.v;
	h->preserved = c.pres;
	h->preserved_count = c.pres_count;
	h->state = HANDOVER_TAKEN;
	return 0;
}

/* ---- into bootinfo ----------------------------------------------------- */

/**
 * handover_locate() - the arch found a handover at @bi->handover.pa and
 * .size (registers, a DT property): @va is where this image reads it,
 * kept only when the range lies in one RAM range of @bi (RAM the arch
 * maps), so that nothing else is ever read; otherwise the reader refuses
 * it as unreadable (handover_apply()).
 */
void handover_locate(struct bootinfo *bi, const void *va)
{
	struct bi_handover *h = &bi->handover;
	uint64_t s = pa_val(h->pa), e = s + h->size;

	h->va = NULL;
	for (unsigned int i = 0; i < bi->ram.count && e > s; i++)
		if (pa_val(bi->ram.regions[i].start) <= s &&
		    e <= pa_val(bi->ram.regions[i].end))
			h->va = va;
	/* The downtime has begun: hold the lines (liveupdate.c releases). */
	console_hold();
}

/* Refused: every byte of RAM reserved, so nothing is zeroed or handed out. */
static void reserve_all_ram(struct bootinfo *bi)
{
	if (!bi->ram.count)
		return;
	bootinfo_add_reserved(bi, bi->ram.regions[0].start,
			      bi->ram.regions[bi->ram.count - 1].end,
			      "handover refused");
}

void handover_apply(struct bootinfo *bi, bool discard)
{
	struct bi_handover *h = &bi->handover;
	int err;

	if (!pa_val(h->pa) && !h->size) {
		h->state = HANDOVER_NONE;
		return;
	}
	if (h->va) {
		err = handover_parse(bi, h->va, h->size, h->pa);
	} else {
		snprintf(h->why, sizeof(h->why),
			 "handover: address %#llx size "
			 "%llu not in memory this image can read",
			 U64(pa_val(h->pa)), U64(h->size));
		h->state = HANDOVER_REFUSED;
		err = -EINVAL;
	}
	if (discard) {
		pr_warn("handover=discard: the handover at %#llx (%llu "
			"bytes%s%s) "
			"is discarded: a fresh boot that scrubs all RAM, "
			"%llu MiB of preserved memory included\n",
			U64(pa_val(h->pa)), U64(h->size), err ? ", " : "",
			err ? h->why : "", U64(h->preserved_bytes >> 20));
		h->state = HANDOVER_DISCARDED;
		return;
	}
	if (err) {
		pr_err("%s\n", h->why);
		reserve_all_ram(bi);
		return;
	}
	for (unsigned int i = 0; i < h->preserved_count; i++) {
		struct handover_range r = handover_preserved_range(h, i);

		bootinfo_add_reserved(bi, pa(r.start), pa(r.end), "preserved");
	}
	/* After the preserved ranges: a domain keeps its own bad pages. */
	handover_bad_reserve(bi);
	ho_reserve_self(bi);
	pr_info("handover: generation %llu from build %016llx: %u preserved "
		"ranges (%llu MiB), %u domains, %llu extents, %llu bad pages, "
		"%llu bytes in %u piece%s\n",
		U64(h->hdr.generation), U64(h->hdr.build), h->preserved_count,
		U64(h->preserved_bytes >> 20), h->domain_count,
		U64(h->extent_count), U64(h->bad_pages), U64(h->hdr.size),
		MAX(h->view.count, 1u), h->view.count > 1 ? "s" : "");
}
