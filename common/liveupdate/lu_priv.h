/* SPDX-License-Identifier: MIT */
/*
 * What the files of common/liveupdate/ share (include/keel/liveupdate.h
 * is the room's public side).
 */
#ifndef COMMON_LU_PRIV_H
#define COMMON_LU_PRIV_H

#include <keel/cpumask.h>
#include <keel/liveupdate.h>
#include <keel/types.h>

struct bootinfo;

/*
 * lu_bad.c: the bad-page records into @w: every page the heap took out of
 * service and every range of @in's records (the handover this image took,
 * NULL: none), each under its first source. See the top of lu_bad.c.
 */
void lu_write_bad(struct ho_writer *w, const struct bi_handover *in);
/*
 * lu_stage_bad(): before the freeze, the bad-page records written into
 * the handover @buf (@cap bytes) as its first records, with the heap's
 * bad version they show and their CRC; lu_put_bad(): in the freeze, as
 * the first records of @w, those left in place when the version has not
 * moved since (no walk of the heap's bad pages, no sort, no copy and no
 * CRC of them in the downtime), else written again; lu_unstage_bad():
 * forgotten (an update that does not happen). lu_bad.c.
 */
void lu_stage_bad(uint8_t *buf, uint64_t cap, const struct bi_handover *in);
/*
 * Room the handover keeps for pages that go bad between its sizing and
 * the freeze (a machine check meanwhile): a record for each source and
 * 256 ranges. Before, one such page failed the update (the handover did
 * not fit).
 */
#define LU_BAD_SLACK_BYTES                                                \
	((HANDOVER_BAD_UNKNOWN + 1) * sizeof(struct handover_preserved) + \
	 256 * sizeof(struct handover_range))
void lu_put_bad(struct ho_writer *w, const struct bi_handover *in);
void lu_unstage_bad(void);
/*
 * inject=poison-freeze:N: page frame N goes bad now (lu_run(), between
 * lu_stage_bad() and the freeze); lu_poison_freeze_unused(): said once
 * when no update came that far in a cold boot (an image @handed a
 * handover had its word acted on by the image before it).
 */
struct keel_options;
void lu_poison_freeze(const struct keel_options *o);
void lu_poison_freeze_unused(bool handed);

/*
 * lu_fill.c: which pages of a domain carry the pattern: by default its
 * first and last page; domain_fill=on (@every_extent) the first and last
 * of every extent and one page per @window bytes of guest space.
 */
struct lu_sample {
	bool every_extent;
	uint64_t window;
	/*
	 * The handover this image took (NULL: none): a page its bad records
	 * name is skipped too, held by the heap or not (a domain whose
	 * restore failed keeps its memory reserved, out of the heap).
	 */
	const struct bi_handover *handed;
};
void lu_extent_pages(const struct lu_sample *s, uint16_t id, uint64_t gpa,
		     uint64_t host, uint64_t pages, bool first, bool last,
		     void (*fn)(uint16_t id, paddr_t p, void *arg), void *arg);
/* Callbacks of lu_extent_pages(): @arg a uint64_t page count / a tally. */
void lu_fill_cb(uint16_t id, paddr_t p, void *arg);
struct lu_tally {
	uint64_t words, bad;
};
void lu_check_cb(uint16_t id, paddr_t p, void *arg);

/*
 * lu_verify.c: every sampled word of the handover's domains @h read back,
 * on the CPUs of each domain's node in parallel (the boot CPU for a node
 * without one online). Adds to *@words and *@bad.
 * Return: the CPUs that read at least one page.
 */
unsigned int lu_verify_domains(const struct bi_handover *h,
			       const struct lu_sample *s, uint64_t *words,
			       uint64_t *bad);

/* liveupdate.c: the domains this image built and hands over. */
struct domain_set;
unsigned int lu_built_domains(const struct domain_set *ds);
/*
 * lu_domains.c: every domain into @w, @in's records when a handover was
 * taken (NULL: the built domains of @ds); the vCPU records of @vc after.
 */
struct bi_handover;
void lu_write_domains(struct ho_writer *w, const struct domain_set *ds,
		      const struct bi_handover *in);
void lu_write_vcpus(struct ho_writer *w, const struct lu_vcpus *vc);
/*
 * lu_alloc.c: can the next image's reserved table hold a handover of
 * @ho_bytes with @ranges table ranges and extents and @carried bad ranges
 * in one piece of boot memory? Return: 0, or -E2BIG with @why (a
 * badram= pattern's gaps too narrow).
 */
int lu_tables_fit(const struct bootinfo *bi, uint64_t ranges, uint64_t carried,
		  uint64_t ho_bytes, char *why, size_t n);

/*
 * lu_inject.c: inject=handover-* on the written handover [buf, buf +
 * size) (checksum recomputed after each but handover-checksum), one
 * block only: a handover in @pieces (2 or more) is left as written, with
 * a warning for each kind armed. Return: the size the new image is told
 * (8 short with handover-truncate).
 */
uint64_t lu_inject(uint8_t *buf, uint64_t size, uint32_t pieces,
		   const struct bootinfo *bi);
/* Without liveupdate=: one warning per handover-* word armed. */
void lu_inject_unused(void);

/*
 * inject=cpu-@what-late:N ("stop", "freeze"; liveupdate.c), N not a CPU
 * that @others (NULL: no live update) @what: one warning (an
 * inject_for_each() callback, @arg a struct lu_late).
 */
struct lu_late {
	const char *what;
	const cpumask_t *others;
};

void lu_warn_late_unused(uint64_t cpu, void *arg);

/*
 * lu_room.c: the handover in pieces (@v, after lu_room_begin(), which
 * named piece 0): every piece is kept from the next image too.
 */
void lu_room_pieces(const struct handover_view *v);

/* This image's frame table placement, the next image's hint (lu_ft.c). */
void lu_write_ft_place(struct ho_writer *w);

/*
 * lu_alloc.c: lu_order(), the order of the block lu_alloc() takes for
 * @bytes; lu_alloc(), 2^order pages for @bytes below 2^@max_bits (0: no
 * bound), an anonymous heap block (pa, or INVALID_PADDR); lu_largest(),
 * the largest block it could have had, in bytes (0: none).
 */
unsigned int lu_order(uint64_t bytes);
paddr_t lu_alloc(uint64_t bytes, unsigned int max_bits);
uint64_t lu_largest(unsigned int max_bits);

/*
 * lu_alloc_pieces() - a handover of @bytes (header and records, the
 * pieces record not counted) in pieces, when no one block held it:
 * blocks of the largest order left below 2^@max_bits, below order
 * @below (the one block's, which failed) and 2^HANDOVER_PIECE_SHIFT_MAX
 * bytes, each at least @min_piece bytes (the largest vCPU record), as
 * many as hold @bytes and the pieces record, which must fit piece 0;
 * too few of them: the next order down, and so on. The pieces'
 * addresses, ascending, are left where ho_writer_pieces() puts its table
 * in piece 0 (the lowest); every other byte is zeroed.
 * Return: 0 with @p's head (piece 0), shift, count; or -ENOMEM (@p: the
 * largest block, the last order tried, how many pieces of it were needed
 * and how many there were; largest 0: no block at all) or -E2BIG (the
 * table or a vCPU record does not fit a piece of the last order tried),
 * nothing kept either way.
 * lu_free_pieces(): every piece back (piece 0's table read first).
 * lu_pieces_table(): the table in piece 0 at @head.
 */
struct lu_pieces {
	paddr_t head;	      /* piece 0, INVALID_PADDR: failed */
	unsigned int largest; /* log2 of the largest block's bytes, 0: none */
	unsigned int shift;   /* log2 of a piece's bytes */
	uint32_t count;	      /* pieces needed */
	uint32_t taken;	      /* of those, there were */
};
int lu_alloc_pieces(uint64_t bytes, uint64_t min_piece, unsigned int max_bits,
		    unsigned int below, struct lu_pieces *p);
void lu_free_pieces(paddr_t head, unsigned int shift, uint32_t count);
const uint64_t *lu_pieces_table(paddr_t head);

/*
 * The handover's memory (lu_alloc.c), for liveupdate.c's lu_prepare():
 * lu_ho_take(), for @bytes (the counting pass @w's size and slack), one
 * block, or (none that size) pieces, with room for a pad before each of
 * @w's vCPU records and each piece at least the largest of them.
 * Return: 0, or -ENOMEM with @why (@n bytes) naming the largest free
 * block (and, pieces, how many of which size were needed and free).
 * lu_ho_free(): the block or every piece back. lu_ho_view(): the pieces
 * as the writer and lu_room.c read them. lu_ho_passed(): what the arch
 * passes on for a handover of @size: @size (one block), piece 0's bytes.
 */
struct lu_ho {
	paddr_t head;	    /* the block, or piece 0 (j->handover) */
	uint64_t cap;	    /* the records' room: the block's, all pieces' */
	unsigned int shift; /* pieces: log2 of a piece's bytes */
	uint32_t count;	    /* pieces; 0: one block */
};
int lu_ho_take(uint64_t bytes, const struct ho_writer *w, unsigned int max_bits,
	       struct lu_ho *ho, char *why, size_t n);
void lu_ho_free(const struct lu_ho *ho);
struct handover_view lu_ho_view(const struct lu_ho *ho);
uint64_t lu_ho_passed(const struct lu_ho *ho, uint64_t size);

#endif
