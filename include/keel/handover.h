/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot (data: common/ reads it).
 * The live-update handover (DESIGN §13, docs/liveupdate.md): what an old
 * keel image leaves in RAM for the new one, byte by byte, and what the new
 * image's reader (boot/handover.c) makes of it in struct bootinfo.
 *
 * Format, version 7 (version 1 had no vCPU records, version 2 no domain
 * vCPU count or kernel name, version 3 no bad pages, version 4 no source
 * of a bad page, version 5 no packed bad pages, version 6 no pieces; a
 * reader takes all seven), little-endian, every field naturally aligned:
 *
 *   header (128 bytes, struct handover_header)
 *   records, back to back, each a multiple of 8 bytes:
 *     {u32 type, u32 bytes} then the type's payload
 *
 * Those bytes, [0, size), are the handover's offsets. Up to version 6,
 * and in version 7 when piece_count is 0, they lie in one block of
 * memory. Version 7 may spread them over piece_count (2 or more) blocks
 * of 2^piece_shift bytes each (a machine whose free memory is in small
 * pieces, a badram= pattern's: HANDOVER_REC_PIECES); offset x then lies
 * in piece x >> piece_shift. A record may span two pieces, except a vCPU
 * record (its state is read in place): the writer puts a pad record
 * (HANDOVER_REC_PAD) before one that would.
 *
 * The checksum is the CRC-32 of zlib (IEEE 802.3) over the whole
 * handover, offsets [0, size), with the checksum field read as zero. A record
 * type with HANDOVER_REC_OPTIONAL set may be skipped by a reader that does
 * not know it; any other unknown type is refused (fail closed: a record a
 * reader skips must never hold memory it would give away).
 *
 * The writer is common/liveupdate/handover_write.c, the reader
 * boot/handover.c; nothing else reads the bytes, except the accessors
 * below for the records the reader kept.
 */
#ifndef KEEL_HANDOVER_H
#define KEEL_HANDOVER_H

#include <keel/string.h>
#include <keel/types.h>

#define HANDOVER_MAGIC	      0x31564f484c45454bULL /* "KEELHOV1" */
#define HANDOVER_VERSION      7 /* written; 1 to 6 are read too */
#define HANDOVER_VERSION_MIN  1
#define HANDOVER_HEADER_BYTES 128
/* The largest handover a reader accepts (room for ~2.7 M extents). */
#define HANDOVER_MAX_BYTES (64ULL << 20)

struct handover_header {
	uint64_t magic;		/* 0: HANDOVER_MAGIC */
	uint32_t version;	/* 8: HANDOVER_VERSION */
	uint32_t header_bytes;	/* 12: HANDOVER_HEADER_BYTES */
	uint64_t size;		/* 16: header and records, bytes */
	uint32_t checksum;	/* 24: CRC-32 of [0, size), this field 0 */
	uint32_t record_count;	/* 28 */
	uint64_t generation;	/* 32: the reader's: the writer's + 1 */
	uint64_t build;		/* 40: the writer's build id */
	uint64_t from_build;	/* 48: what the writer came from, 0: cold */
	uint64_t ticks_hz;	/* 56: the writer's arch_ticks() rate */
	uint64_t freeze_ticks;	/* 64: the freeze began (downtime's start) */
	uint64_t frozen_ticks;	/* 72: every other CPU stopped */
	uint64_t written_ticks; /* 80: records written; relocation next */
	uint64_t flags;		/* 88: 0 in versions 1 to 7 */
	uint32_t piece_shift;	/* 96: version 7: log2 of a piece's bytes */
	uint32_t piece_count;	/* 100: version 7: 0 one block, else 2.. */
	uint64_t reserved[3];	/* 104: 0 */
};

/* Record types. */
#define HANDOVER_REC_PRESERVED	1u /* the ranges the new image must keep */
#define HANDOVER_REC_DOMAIN	2u /* one domain: extents, p2m tables */
#define HANDOVER_REC_VCPU	3u /* a guest's vCPU (version 2 on) */
#define HANDOVER_REC_BAD	4u /* pages out of service (version 4 on) */
#define HANDOVER_REC_BAD_PACKED 5u /* the same, 8-byte ranges (version 6) */
#define HANDOVER_REC_PIECES	7u /* where the pieces lie (version 7) */
#define HANDOVER_REC_OPTIONAL	0x80000000u /* may be skipped if unknown */
/* where the writer's frame table lay (optional; written from version 6) */
#define HANDOVER_REC_FT_PLACE (HANDOVER_REC_OPTIONAL | 6u)
/* nothing: fills a piece's end before a vCPU record (version 7) */
#define HANDOVER_REC_PAD (HANDOVER_REC_OPTIONAL | 8u)

/*
 * HANDOVER_REC_PIECES (version 7, piece_count 2 or more; none else): the
 * first record, at offset 128, wholly inside piece 0: {head, u32 count,
 * u32 0} (struct handover_preserved's layout), then count u64s: each
 * piece's physical address, aligned to its 2^piece_shift bytes. count is
 * the header's piece_count; piece 0 is where the arch said the handover
 * lies (x86_64 ECX, arm64 /chosen/keel,handover, the sandbox's
 * --handover=), and the length the arch passes is piece 0's: 2^piece_shift.
 * Pieces 0 to count - 2 hold 2^piece_shift bytes of offsets each, the last
 * the rest (1 to 2^piece_shift). piece_shift is PAGE_SHIFT at least,
 * HANDOVER_PIECE_SHIFT_MAX at most; every piece lies in RAM, apart from
 * the others, and is reserved as "handover".
 */
#define HANDOVER_PIECE_SHIFT_MAX 30

struct handover_rec {
	uint32_t type;
	uint32_t bytes; /* this head included, a multiple of 8 */
};

/* [start, end), page aligned. */
struct handover_range {
	uint64_t start, end;
};

/*
 * HANDOVER_REC_PRESERVED: {head, u32 count, u32 0}, then count ranges,
 * sorted, disjoint, page aligned: every extent and table page of every
 * domain lies in one of them.
 */
struct handover_preserved {
	struct handover_rec head;
	uint32_t count;
	uint32_t pad;
};

/*
 * HANDOVER_REC_BAD (version 4 on): {head, u32 count, u32 source} (the
 * layout of struct handover_preserved, its pad the source), then count
 * ranges, sorted, disjoint and not touching, page aligned, in RAM: pages
 * the writer's heap took out of service (heap_offline(): a machine check,
 * inject=poison) and those it was handed as bad by the image before it.
 * The reader reserves each as bad after the preserved ranges (a bad page
 * inside a domain's extent stays that domain's). Pages the firmware's map
 * or the command line call bad are not in it: every image reads those
 * itself.
 *
 * Version 4: at most one record; source (bytes 12..15) not read: every
 * range's source is unknown (HANDOVER_BAD_UNKNOWN).
 * Version 5: at most one record per source, in ascending source order
 * (HANDOVER_BAD_RECS_MAX at most); a page where it first went bad keeps
 * that source across every later update. The ranges of all the records
 * together are disjoint (those of two records may touch). A source above
 * HANDOVER_BAD_UNKNOWN is a warning, its ranges still reserved as bad,
 * of unknown source.
 *
 * HANDOVER_REC_BAD_PACKED (version 6 on): the same head and rules, then
 * count 8-byte entries (half the bytes a live update's downtime reads),
 * each a u64: bits 0..39 the first page frame number (start >> 12),
 * bits 40..63 the page count minus 1 (1 to 2^24 pages). The rules above
 * hold across both types together: one record a source, ascending, a
 * source in one of them only. The writer packs a record when every range
 * fits, else writes HANDOVER_REC_BAD (a range of more than 2^24 pages,
 * or at or above 2^52).
 */
#define HANDOVER_BAD_FIRMWARE  0 /* the firmware's map said so */
#define HANDOVER_BAD_OPTION    1 /* the operator (badpage=, the host's API) */
#define HANDOVER_BAD_MCE       2 /* a machine check / external abort */
#define HANDOVER_BAD_INJECTION 3 /* inject=poison* (tests) */
#define HANDOVER_BAD_UNKNOWN   4 /* a version 4 record's: "handover" */
#define HANDOVER_BAD_RECS_MAX  8

/* A packed bad range's fields (HANDOVER_REC_BAD_PACKED). */
#define HANDOVER_PACKED_PFN_BITS   40
#define HANDOVER_PACKED_PAGES_BITS 24
#define HANDOVER_PACKED_PFN_MASK   ((1ULL << HANDOVER_PACKED_PFN_BITS) - 1)
#define HANDOVER_PACKED_PAGES_MAX  (1ULL << HANDOVER_PACKED_PAGES_BITS)
#define HANDOVER_PACKED_PAGE_SHIFT 12 /* 4 KiB pages, whatever PAGE_SIZE */

/* Packed entry @v as a range [start, end). */
static inline struct handover_range handover_unpack(uint64_t v)
{
	uint64_t s = (v & HANDOVER_PACKED_PFN_MASK)
		     << HANDOVER_PACKED_PAGE_SHIFT;

	return (struct handover_range){
		s, s + (((v >> HANDOVER_PACKED_PFN_BITS) + 1)
			<< HANDOVER_PACKED_PAGE_SHIFT)};
}

/*
 * HANDOVER_REC_FT_PLACE (optional: a reader that does not know it skips
 * it): {head, u32 count, u32 0} (struct handover_preserved's layout),
 * then count pieces: where the writer's frame table lay, each
 * [start, end) page aligned, holding all the page entries of node @node,
 * or (@node HANDOVER_FT_SECTIONS) the section table. At most one piece a
 * node and one section table, HANDOVER_FT_PIECES_MAX in all. A hint, not
 * a reservation: the reader puts the same storage at the same place when
 * it is the same size and free in its own bootmem (the writer's tables
 * are nobody else's, and a page of them that went bad is in the
 * bad-page records), else where it would have anyway. The reader skips
 * a malformed record with one warning; it never refuses the handover
 * for it.
 */
struct handover_ft_piece {
	uint64_t start, end;
	uint32_t node, pad;
};
#define HANDOVER_FT_SECTIONS   0xffffffffu
#define HANDOVER_FT_PIECES_MAX 65u /* CONFIG_MAX_NUMNODES at most + 1 */

/* One guest extent: gpa and pa page aligned, mapped 1:1 for pages. */
struct handover_extent {
	uint64_t gpa, pa, pages;
};

/* p2m formats (struct handover_domain.p2m_format). */
#define HANDOVER_P2M_NONE 0
#define HANDOVER_P2M_VMSA 1 /* arm64 VMSAv8-64 stage 2 */
#define HANDOVER_P2M_EPT  2 /* x86_64 EPT */
#define HANDOVER_P2M_NPT  3 /* x86_64 AMD nested page tables */

#define HANDOVER_NAME_MAX 64

/*
 * HANDOVER_REC_DOMAIN: this 128-byte part, then table_count ranges of p2m
 * table pages (struct handover_range), then extent_count extents (struct
 * handover_extent), then (version 3) kernel_bytes bytes: its kernel
 * module's name, NUL-terminated, zero padded (kernel_bytes 0 or
 * HANDOVER_NAME_MAX). The root lies in the table ranges. Versions 1 and
 * 2 wrote vcpus and kernel_bytes as 0 (reserved).
 */
struct handover_domain {
	struct handover_rec head;     /* 0 */
	uint16_t id;		      /* 8: heap owner id, 1.. */
	uint16_t origin;	      /* 10: enum domain_origin */
	uint32_t node;		      /* 12 */
	char name[HANDOVER_NAME_MAX]; /* 16: NUL-terminated */
	uint64_t bytes;		      /* 80: the sum of the extents */
	uint64_t p2m_root;	      /* 88: physical address of the root */
	uint8_t p2m_format;	      /* 96: HANDOVER_P2M_* */
	uint8_t p2m_start_level;      /* 97 */
	uint8_t p2m_root_order;	      /* 98: root = 2^order pages */
	uint8_t p2m_ipa_bits;	      /* 99 */
	uint16_t p2m_vmid;	      /* 100 */
	uint16_t pad;		      /* 102: 0 */
	uint32_t table_count;	      /* 104 */
	uint32_t extent_count;	      /* 108 */
	uint32_t vcpus;		      /* 112: the DT's cpus, 0: not given */
	uint32_t kernel_bytes;	      /* 116: 0 or HANDOVER_NAME_MAX */
	uint64_t reserved;	      /* 120: 0 */
};

/* The largest vCPU count a domain record may say. */
#define HANDOVER_DOMAIN_VCPUS_MAX 65536

/* vCPU state tags (struct handover_vcpu.arch): whose layout the bytes are. */
#define HANDOVER_VCPU_NONE  0 /* this image runs no guests (sandbox) */
#define HANDOVER_VCPU_ARM64 1 /* struct arm64_vcpu, arch/arm64/guest.c */
#define HANDOVER_VCPU_SVM   2 /* struct x86_vcpu, arch/x86_64/guest.c */

/*
 * The words of a state block the reader checks (boot/handover_vcpu.c),
 * by byte offset: arm64's pc (ELR_EL2) and PSTATE (SPSR_EL2); x86_64
 * SVM's rip and rflags. The rest is the guest's own.
 */
#define HANDOVER_ARM64_STATE_BYTES 488
#define HANDOVER_ARM64_PC	   248
#define HANDOVER_ARM64_PSTATE	   256
#define HANDOVER_SVM_STATE_BYTES   160
#define HANDOVER_SVM_RIP	   128
#define HANDOVER_SVM_RFLAGS	   152

/* The largest state block a reader accepts. */
#define HANDOVER_VCPU_STATE_MAX 4096

/*
 * HANDOVER_REC_VCPU (version 2): a guest's vCPU stopped by the freeze:
 * this 48-byte part, then state_bytes bytes of the arch's state (its
 * layout the arch tag's), zero padded to a multiple of 8. At most one per
 * domain; the domain's record comes first.
 */
struct handover_vcpu {
	struct handover_rec head; /* 0: bytes = 48 + state_bytes, padded */
	uint16_t domain;	  /* 8: the id of a domain record */
	uint16_t arch;		  /* 10: HANDOVER_VCPU_* */
	uint32_t cpu;		  /* 12: the CPU index that ran it */
	uint32_t state_bytes;	  /* 16 */
	uint32_t flags;		  /* 20: 0 */
	uint64_t stop_ticks;	  /* 24: its last exit (the writer's clock) */
	uint64_t pages_walked;	  /* 32: what its walk reported */
	uint64_t bad_words;	  /* 40: words its walk found wrong */
};

_Static_assert(sizeof(struct handover_vcpu) == 48, "vCPU record layout");
_Static_assert(sizeof(struct handover_header) == HANDOVER_HEADER_BYTES,
	       "handover header layout");
_Static_assert(sizeof(struct handover_domain) == 128, "domain record layout");
_Static_assert(sizeof(struct handover_preserved) == 16, "preserved layout");

/*
 * The handover's offsets as memory (writer and reader both): piece 0 at
 * @head, the others where the pieces record says, each piece's address
 * + @delta where this image reads it (the arch maps RAM at one offset).
 * @count 0 or 1: all of [0, size) at @head.
 */
struct handover_view {
	const uint8_t *head;
	uint64_t size;
	uintptr_t delta;
	uint64_t table_off; /* the pieces' addresses, in piece 0 */
	uint32_t shift, count;
};

/*
 * Where offset @off lies (off < size), and in *@run how many bytes from
 * there are in the same piece (up to the size).
 */
static inline const uint8_t *handover_view_at(const struct handover_view *v,
					      uint64_t off, uint64_t *run)
{
	uint64_t pa, in;

	if (v->count <= 1) {
		*run = v->size - off;
		return v->head + off;
	}
	memcpy(&pa, v->head + v->table_off + (off >> v->shift) * sizeof(pa),
	       sizeof(pa));
	in = off & ((1ULL << v->shift) - 1);
	*run = (1ULL << v->shift) - in;
	if (*run > v->size - off)
		*run = v->size - off;
	return (const uint8_t *)(uintptr_t)(pa + v->delta + in);
}

/* @n bytes at offset @off (within the size) into @dst, across pieces. */
static inline void handover_view_read(const struct handover_view *v,
				      uint64_t off, void *dst, size_t n)
{
	uint8_t *d = dst;

	if (v->count <= 1) {
		memcpy(dst, v->head + off, n);
		return;
	}
	while (n) {
		uint64_t run;
		const uint8_t *p = handover_view_at(v, off, &run);
		size_t k = run < n ? (size_t)run : n;

		memcpy(d, p, k);
		d += k;
		off += k;
		n -= k;
	}
}

/* The CRC-32 of offsets [@off, @off + @n), continuing @crc. */
static inline uint32_t handover_view_crc(const struct handover_view *v,
					 uint32_t crc, uint64_t off, uint64_t n)
{
	while (n) {
		uint64_t run;
		const uint8_t *p = handover_view_at(v, off, &run);
		uint64_t k = run < n ? run : n;

		crc = crc32(crc, p, (size_t)k);
		off += k;
		n -= k;
	}
	return crc;
}

/* ---- what the reader keeps (struct bootinfo.handover) ----------------- */

enum handover_state {
	HANDOVER_NONE = 0,  /* no handover: a cold boot */
	HANDOVER_TAKEN,	    /* valid: its ranges reserved, domains listed */
	HANDOVER_REFUSED,   /* invalid: the boot stops before the heap */
	HANDOVER_DISCARDED, /* handover=discard: a fresh boot */
};

#define BI_HANDOVER_DOMAINS 64
#define BI_HANDOVER_VCPUS   BI_HANDOVER_DOMAINS
#define BI_HANDOVER_WHY_MAX 160

/* A domain of the handover: its record stays in the (reserved) handover. */
struct bi_handover_domain {
	uint16_t id, origin;
	uint32_t node;
	char name[HANDOVER_NAME_MAX];
	uint64_t bytes;
	paddr_t root;
	uint32_t table_count, extent_count;
	uint32_t vcpus;			/* the DT's cpus, 0: not given */
	char kernel[HANDOVER_NAME_MAX]; /* its kernel module, "": none */
	struct handover_view view;	/* the handover it lies in */
	uint64_t rec;			/* the whole record's offset */
	uint32_t rec_bytes;
};

/* A vCPU of the handover: its state stays in the (reserved) handover. */
struct bi_handover_vcpu {
	uint16_t domain, arch;
	uint32_t cpu;
	uint64_t stop_ticks, pages_walked, bad_words;
	const uint8_t *state; /* state_bytes long (in one piece) */
	uint32_t state_bytes;
};

struct bi_handover {
	/* Where the last image left it (the arch fills these; 0: none). */
	paddr_t pa;
	uint64_t size;
	const void *va; /* the bytes, readable [va, va + size) */
	/*
	 * This image's vCPU state (the arch fills these beside pa, from
	 * <arch/guest.h>): its tag and size; HANDOVER_VCPU_NONE: it runs
	 * no guests, and refuses any vCPU record.
	 */
	uint16_t vcpu_arch;
	uint32_t vcpu_state_bytes;
	/* The image a live update enters: first multiboot module, initrd. */
	struct region image;

	/* What boot/handover.c made of it. */
	enum handover_state state;
	char why[BI_HANDOVER_WHY_MAX]; /* REFUSED: "handover: ..." */
	struct handover_header hdr;    /* TAKEN: a copy */
	struct handover_view view;     /* TAKEN: its bytes */
	uint64_t preserved;	       /* TAKEN: the ranges' offset */
	unsigned int preserved_count;
	uint64_t preserved_bytes;
	struct bi_handover_domain domains[BI_HANDOVER_DOMAINS];
	unsigned int domain_count;
	uint64_t extent_count; /* all domains */
	struct bi_handover_vcpu vcpus[BI_HANDOVER_VCPUS];
	unsigned int vcpu_count;
	/* TAKEN: the bad-page records, in the order read (ascending source) */
	struct bi_handover_bad {
		struct handover_view view; /* the handover they lie in */
		uint64_t ranges;	   /* count of them, their offset */
		unsigned int count;
		uint32_t source; /* as written (version 4: UNKNOWN) */
		bool packed;	 /* 8-byte entries (HANDOVER_REC_BAD_PACKED) */
	} bad[HANDOVER_BAD_RECS_MAX];
	unsigned int bad_recs;
	unsigned int bad_count;	    /* ranges, all records */
	unsigned int bad_unknown;   /* records of a source above UNKNOWN */
	uint32_t bad_unknown_first; /* the first such source */
	uint64_t bad_pages;
	/* TAKEN: the frame table's placement (HANDOVER_REC_FT_PLACE) */
	uint64_t ft_pieces; /* ft_count struct handover_ft_piece, offset */
	unsigned int ft_count;
};

/* Range @i of the preserved record (i < preserved_count). */
static inline struct handover_range
handover_preserved_range(const struct bi_handover *h, unsigned int i)
{
	struct handover_range r;

	handover_view_read(&h->view, h->preserved + (uint64_t)i * sizeof(r), &r,
			   sizeof(r));
	return r;
}

/* Piece @i of the frame table's placement (i < ft_count). */
static inline struct handover_ft_piece
handover_ft_piece(const struct bi_handover *h, unsigned int i)
{
	struct handover_ft_piece f;

	handover_view_read(&h->view, h->ft_pieces + (uint64_t)i * sizeof(f), &f,
			   sizeof(f));
	return f;
}

/* Bad range @i of bad-page record @b (i < b->count), either entry size. */
static inline struct handover_range
handover_bad_range(const struct bi_handover_bad *b, unsigned int i)
{
	struct handover_range r;
	uint64_t v;

	if (b->packed) {
		handover_view_read(&b->view,
				   b->ranges + (uint64_t)i * sizeof(v), &v,
				   sizeof(v));
		return handover_unpack(v);
	}
	handover_view_read(&b->view, b->ranges + (uint64_t)i * sizeof(r), &r,
			   sizeof(r));
	return r;
}

/*
 * The first range of record @b (sorted and apart: boot/handover_bad.c
 * checked them) that ends above @pa (@by_end), or else that starts at or
 * above it; b->count when none. A binary search.
 */
static inline unsigned int handover_bad_bound(const struct bi_handover_bad *b,
					      uint64_t pa, bool by_end)
{
	unsigned int lo = 0, hi = b->count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		struct handover_range r = handover_bad_range(b, mid);

		if (by_end ? r.end <= pa : r.start < pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The source of record @b's pages: HANDOVER_BAD_*, an unknown one UNKNOWN. */
static inline uint32_t handover_bad_source(const struct bi_handover_bad *b)
{
	return b->source > HANDOVER_BAD_UNKNOWN ? HANDOVER_BAD_UNKNOWN
						: b->source;
}

/* Extent @i (< extent_count) of domain @d of the handover. */
static inline struct handover_extent
handover_domain_extent(const struct bi_handover_domain *d, uint32_t i)
{
	struct handover_extent e;

	handover_view_read(&d->view,
			   d->rec + sizeof(struct handover_domain) +
				   (uint64_t)d->table_count *
					   sizeof(struct handover_range) +
				   (uint64_t)i * sizeof(e),
			   &e, sizeof(e));
	return e;
}

/* Table range @i (< table_count) of domain @d of the handover. */
static inline struct handover_range
handover_domain_tables(const struct bi_handover_domain *d, uint32_t i)
{
	struct handover_range r;

	handover_view_read(&d->view,
			   d->rec + sizeof(struct handover_domain) +
				   (uint64_t)i * sizeof(r),
			   &r, sizeof(r));
	return r;
}

/*
 * handover_checksum() - the CRC-32 of [@buf, @buf + @size), the header's
 * checksum field (bytes 24..27) read as zero (writer and reader both).
 */
static inline uint32_t handover_checksum(const void *buf, uint64_t size)
{
	static const uint8_t zero[4];
	const size_t at = __builtin_offsetof(struct handover_header, checksum);
	const uint8_t *b = buf;
	uint32_t crc;

	if (size < at + sizeof(zero))
		return crc32(0, b, size);
	crc = crc32(0, b, at);
	crc = crc32(crc, zero, sizeof(zero));
	return crc32(crc, b + at + sizeof(zero), size - at - sizeof(zero));
}

/*
 * handover_view_checksum() - handover_checksum() of the handover @v, its
 * offsets [0, v->size) in order, one block or pieces (the header, at
 * least its 128 bytes, lies in piece 0). A size shorter than the header
 * (never valid; a fuzzer's) is summed in piece 0 alone, not read past it.
 */
static inline uint32_t handover_view_checksum(const struct handover_view *v)
{
	uint32_t crc;

	if (v->size < HANDOVER_HEADER_BYTES)
		return handover_checksum(v->head, v->size);
	crc = handover_checksum(v->head, HANDOVER_HEADER_BYTES);

	return handover_view_crc(v, crc, HANDOVER_HEADER_BYTES,
				 v->size - HANDOVER_HEADER_BYTES);
}

/*
 * The new image, as its loader would read it (boot/handover_image.c):
 * its file from file_off goes to [load, load_end), zeroed to mem_end,
 * entered at entry. arm64: addresses relative to the 2 MiB aligned base.
 * need_end: where a keel image really ends (older images kept a room for
 * a bigger next image inside their loader-visible end; since issue 36
 * need_end == mem_end) (its header's keel need: the multiboot1
 * header followed by LU_NEED_MAGIC and need_end; the arm64 Image's res3
 * LU_NEED_MAGIC64 and res2 the size); mem_end for any other image.
 */
struct lu_image {
	uint64_t file_off, load, load_end, mem_end, need_end, entry;
};
#define LU_NEED_MAGIC	0x4b45454eu	      /* "NEEK" */
#define LU_NEED_MAGIC64 0x4445454e4c45454bull /* "KEELNEED" */
/* Return: 0, or -EINVAL with @why (@n bytes) saying why not. */
int lu_image_multiboot1(const void *buf, uint64_t len, struct lu_image *img,
			char *why, size_t n);
int lu_image_arm64(const void *buf, uint64_t len, struct lu_image *img,
		   char *why, size_t n);

/*
 * boot/fdt/fdt_handover.c (DT builds): a copy of the DTB grown by
 * /chosen/keel,handover = <pa size> (two 64-bit values), and that value
 * set again in place. Return: 0 or -EINVAL.
 */
int dt_handover_copy(const void *dtb, size_t max, void *out, size_t out_len,
		     uint64_t pa, uint64_t size);
int dt_handover_set(void *out, uint64_t pa, uint64_t size);
/*
 * dt_used_bytes(): the bytes of the DTB at @dtb (@max readable) a copy
 * needs, its free space left out (fdt_open_into() packs as it copies).
 * Return: at most its totalsize; 0: not a DTB.
 */
size_t dt_used_bytes(const void *dtb, size_t max);

struct bootinfo;

/*
 * handover_parse() - validate the handover [@buf, @buf + @len) that lies
 * at physical @buf_pa against @bi (sanitised: RAM sorted, reserved ranges
 * as the firmware and loaders gave them), and describe it in
 * @bi->handover (state TAKEN). Pure: reads only [@buf, @buf + @len) and
 * @bi, writes only @bi->handover.
 * Return: 0, or -EINVAL with @bi->handover.why ("handover: FIELD VALUE
 * ...") and state REFUSED; nothing reserved either way.
 */
int handover_parse(struct bootinfo *bi, const void *buf, uint64_t len,
		   paddr_t buf_pa);

/*
 * handover_bad_parse() (boot/handover_bad.c): the bad-page record of
 * @bytes at @rec in a handover of @version, checked as firmware input
 * against the RAM of @ram (sorted) and the records before it, kept in
 * @h->bad[] (its ranges stay in the handover); counts @h->bad_pages.
 * Return: 0, or -EINVAL with the first problem in @why (n bytes).
 * handover_bad_apart(): the ranges of all the records disjoint (after the
 * last record; O(ranges x records)). Return: as handover_bad_parse().
 */
struct range_table;
int handover_bad_parse(struct bi_handover *h, const struct range_table *ram,
		       const uint8_t *rec, uint32_t bytes, uint32_t version,
		       char *why, size_t n);
int handover_bad_apart(const struct bi_handover *h, char *why, size_t n);
/*
 * handover_bad_reserve(): the bad ranges reserved where they lie, not
 * copied: struct bootinfo's @carried says bootmem reads them from the
 * records, each as a reservation named after its source as carried
 * (badmem_carried_name()); one warning for records of a source it does
 * not know.
 */
struct bootinfo;
void handover_bad_reserve(struct bootinfo *bi);

/*
 * handover_vcpu_check() (boot/handover_vcpu.c): the words of vCPU record
 * @v's state a resume loads (mode, flags, pc inside domain @d), as
 * firmware input. Return: 0, or -EINVAL with @why.
 */
int handover_vcpu_check(const struct handover_vcpu *v, const uint8_t *state,
			const struct bi_handover_domain *d, char *why,
			size_t n);

/* handover_locate() - keep @va for the handover the arch found when in RAM. */
void handover_locate(struct bootinfo *bi, const void *va);

/*
 * handover_apply() - fwboot_finish(), after the sanitiser: the handover
 * the arch found (@bi->handover.pa, .size, .va) parsed; TAKEN: its
 * preserved ranges reserved ("preserved") and the handover itself
 * ("handover"); REFUSED: one error, and all RAM reserved ("handover
 * refused") so that nothing is zeroed or handed out; @discard
 * (handover=discard): one warning, nothing reserved, a fresh boot.
 */
void handover_apply(struct bootinfo *bi, bool discard);

#endif
