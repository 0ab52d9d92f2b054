/* SPDX-License-Identifier: MIT */
/*
 * Owner: liveupdate.
 * Live update (DESIGN §13, docs/liveupdate.md), the arch-neutral room
 * common/liveupdate/: liveupdate=N hands this image's domains to a new
 * keel image N times in a row (A to B, B to C, ...), each a fresh program
 * sharing only RAM and the handover (include/keel/handover.h).
 *
 * The flow calls, in order: liveupdate_boot() once the options are known
 * (what the firmware's handover was: taken, refused, discarded, none),
 * liveupdate_heap_ready() when the heap opened, liveupdate_restored()
 * once the domain room restored the handover's domains (domains_restore():
 * the downtime ends there), liveupdate_verify() once the boot scrub ran
 * (the preserved bytes read back), and liveupdate_run() after the domains
 * are built: the next update, which returns only when it could not happen.
 *
 * Files: liveupdate.c (the flow of one update, the new image's numbers),
 * lu_fill.c (the pattern that proves the memory survived, which pages),
 * lu_verify.c (its read-back on the domains' nodes' CPUs),
 * handover_write.c (the writer). The report reads liveupdate_info().
 *
 * Runs on the boot CPU only (liveupdate_verify() posts work to the
 * others); liveupdate_run() stops every other CPU.
 */
#ifndef KEEL_LIVEUPDATE_H
#define KEEL_LIVEUPDATE_H

#include <keel/handover.h>
#include <keel/types.h>

struct bootinfo;

/* The numbers the report shows (`liveupdate`), final image's. */
struct liveupdate_info {
	enum handover_state state; /* what this image found */
	uint64_t generation;	   /* 0: cold boot, 1, 2, ... */
	uint64_t build, from_build;
	uint64_t handover_bytes;
	unsigned int preserved_ranges;
	uint64_t preserved_bytes;
	unsigned int domains; /* in the handover */
	uint64_t extents;
	/* Phases of the last jump, ns: the old image's stamps, then ours. */
	uint64_t freeze_ns, handover_write_ns, relocate_ns, entry_to_heap_ns;
	uint64_t restore_ns;  /* the heap open to the domains restored */
	uint64_t verify_ns;   /* the pattern read back (after the downtime) */
	uint64_t downtime_ns; /* the old freeze to our domains restored */
	unsigned int domains_restored, domains_failed;
	bool timed; /* the phases are known (a taken handover) */
	uint64_t verified_words, mismatches;
	uint32_t asked;		  /* liveupdate=N */
	uint32_t freeze_bound_ms; /* lu_freeze_ms=: the freeze's deadline */
	const char *fail;	  /* why the boot fails, NULL: it does not */
	/* The handover taken (its bad-page records), NULL: none. */
	const struct bi_handover *taken;
};

const struct liveupdate_info *liveupdate_info(void);

struct keel_options;

/* What the handover of @bi was; @o's liveupdate=N asked for more. */
void liveupdate_boot(const struct bootinfo *bi, const struct keel_options *o);
/* A refused handover: the boot stops before the heap (fail closed). */
bool liveupdate_refused(void);
/* The domains came with the handover: domain= is not built again. */
bool liveupdate_has_domains(void);
/*
 * liveupdate_frametable_hint() - before frametable_init(): the frame
 * table placement of @bi's handover, when taken, to frametable_hint().
 */
void liveupdate_frametable_hint(const struct bootinfo *bi);
/* The heap opened at @ticks (arch_ticks()): the restore starts there. */
void liveupdate_heap_ready(uint64_t ticks);
/*
 * The handover's domains restored (domains_restore()) at @ticks: the
 * downtime ends there; @restored and @failed for the report.
 */
void liveupdate_restored(uint64_t ticks, unsigned int restored,
			 unsigned int failed);
/*
 * Write out the console lines held through the downtime (console_hold()),
 * with their byte count: the flow calls it once the restored guests run
 * again, so that a slow UART does not stand between them and the restore.
 */
void liveupdate_console_release(void);
/*
 * Read back the pattern the first image wrote into the preserved domains
 * (the pages @o's domain_fill= says), on their nodes' CPUs.
 */
void liveupdate_verify(const struct bootinfo *bi, const struct keel_options *o);
/*
 * liveupdate_run() - the next update, when this image's generation is
 * below liveupdate=N: never returns then, unless it cannot happen (no
 * new image, no memory): a warning, and liveupdate_info()->fail says why.
 * @ds: the domains it hands over (NULL: none).
 */
struct domain_set;
/*
 * The vCPUs an update carries (the flow's, from the guest room; NULL:
 * none): stop() runs once, right after the freeze stamp, and stops every
 * running vCPU by @deadline (arch_ticks()), or fails (-errno) with @why
 * naming the vCPU, its vCPUs running on; run_on() lets them run on after
 * a later step of the freeze failed; get() gives the @i-th one's record
 * (domain, arch, cpu, state_bytes, stop stamp, walk) and *@state, false
 * past the last (before the freeze: as many as the freeze can record).
 */
struct lu_vcpus {
	int (*stop)(void *arg, uint64_t deadline, char *why, size_t n);
	void (*run_on)(void *arg);
	bool (*get)(void *arg, unsigned int i, struct handover_vcpu *rec,
		    const void **state);
	void *arg;
};
void liveupdate_run(const struct bootinfo *bi, const struct keel_options *o,
		    const struct domain_set *ds, const struct lu_vcpus *vc);
/* Why the boot fails because of the handover or the update, or NULL. */
const char *liveupdate_fail_reason(void);

/*
 * lu_fill.c: the pattern that proves the memory survived (issue 30 §5):
 * every 8-byte word derived from (domain id, pfn, word).
 */
uint64_t liveupdate_pattern(uint16_t id, uint64_t pfn, unsigned int word);

/* ---- the writer (handover_write.c) ---------------------------------- */

/*
 * A handover being written into [buf, buf + cap); buf NULL: counting only
 * (ho_finish() then returns the bytes the writing needs at most). Or, when
 * no block of cap bytes was free, into pieces (ho_writer_pieces(), version
 * 7): buf is piece 0, the others where its pieces record says, cap their
 * sum; offsets go through the view v (v.count 0: one block, v.head buf).
 * The records go in this order: (pieces: the pieces record, written by
 * ho_writer_pieces()) the bad-page records (ho_bad_begin(), its
 * ranges, ho_bad_end(), a source at a time; or ho_bad_keep() of those
 * already in place), the domains (ho_domain_begin(), its tables, its
 * extents, ho_domain_end(); or ho_domain_copy() of a record read), the
 * vCPUs (ho_vcpu(); pieces: a pad record before one that would cross a
 * piece's end), then ho_preserved() computes the preserved ranges
 * from the domains, then ho_finish() writes the header and the checksum
 * (pieces: after a pad record when the last piece would be empty).
 */
struct ho_writer {
	uint8_t *buf;
	uint64_t cap, off;
	uint32_t records;
	uint64_t ranges_max; /* table ranges and extents written, all */
	uint64_t dom_off;    /* the open domain record */
	uint64_t bad_off;    /* the open bad-page record */
	uint32_t bad_source; /* its source, HANDOVER_BAD_* */
	struct handover_domain dom;
	bool overflow; /* cap was too small: nothing valid written */
	/*
	 * Bytes [known_off, known_off + known_len) already in place with
	 * their CRC (ho_bad_keep()): ho_finish() combines it, not reading
	 * them (one block only; pieces: read like the rest).
	 */
	uint64_t known_off, known_len;
	uint32_t known_crc;
	struct handover_view v; /* the offsets as memory (v.size = cap) */
	/*
	 * The vCPU records written (counted), their bytes in all and the
	 * largest: what pieces need more (a pad before each, at most its
	 * size) and at least (a piece holds the largest whole).
	 */
	uint64_t vcpu_bytes;
	uint32_t vcpu_max;
};

void ho_writer_init(struct ho_writer *w, void *buf, uint64_t cap);
/*
 * ho_writer_pieces() - a handover in @count (2 or more) pieces of
 * 2^@shift bytes (PAGE_SHIFT to HANDOVER_PIECE_SHIFT_MAX): piece 0 at
 * @head, piece k at @pa[k] + @delta (@pa[0] piece 0's address, ascending:
 * the reader's rule). Writes the pieces record at offset 128 (@pa may
 * point at its table in place, in piece 0); the other records follow.
 * The table must fit piece 0 (128 + 16 + 8 @count <= 2^@shift): else
 * overflow (ho_finish() returns 0).
 */
void ho_writer_pieces(struct ho_writer *w, void *head, uintptr_t delta,
		      unsigned int shift, uint32_t count, const uint64_t *pa);
/* The bytes of the pieces record of @count pieces (ho_writer_pieces()). */
#define HO_PIECES_REC_BYTES(count) \
	(sizeof(struct handover_preserved) + (uint64_t)(count)*8)
/*
 * A bad-page record (version 5: one a source, ascending): ho_bad_begin()
 * with its source (HANDOVER_BAD_*), any number of page ranges [start,
 * end) in any order, ho_bad_end() sorts them and joins those that touch;
 * no range: no record.
 */
void ho_bad_begin(struct ho_writer *w, uint32_t source);
/*
 * ho_bad_keep() - the bad-page records (@records of them, @len bytes) are
 * already in the buffer at the writer's offset, written there before
 * (lu_stage_bad(): the first records, in place before the freeze), their
 * bytes' crc32() @crc: the writer moves past them without a copy, and
 * ho_finish() checksums the handover around them (crc32_combine()).
 */
void ho_bad_keep(struct ho_writer *w, uint64_t len, uint32_t records,
		 uint32_t crc);
void ho_bad_range(struct ho_writer *w, uint64_t start, uint64_t end);
void ho_bad_end(struct ho_writer *w);
void ho_domain_begin(struct ho_writer *w, const struct handover_domain *d);
/*
 * The open domain's kernel module name (version 3), after its extents:
 * NULL or "" writes none. Its vCPU count is @d's vcpus at the begin.
 */
void ho_domain_kernel(struct ho_writer *w, const char *kernel);
/* A table range [start, end): merged with the last when it runs on. */
void ho_domain_table(struct ho_writer *w, uint64_t start, uint64_t end);
/* An extent: merged with the last when gpa and pa run on. Tables first. */
void ho_domain_extent(struct ho_writer *w, uint64_t gpa, uint64_t pa,
		      uint64_t pages);
void ho_domain_end(struct ho_writer *w);
/*
 * A whole domain record (struct handover_domain and its arrays) as read:
 * @bytes at offset @off of the handover @src (struct bi_handover_domain's
 * view, rec, rec_bytes).
 */
void ho_domain_copy(struct ho_writer *w, const struct handover_view *src,
		    uint64_t off, uint32_t bytes);
/* The frame table's placement (HANDOVER_REC_FT_PLACE): @n pieces, 0 none. */
void ho_ft_place(struct ho_writer *w, const struct handover_ft_piece *f,
		 uint32_t n);
/*
 * A vCPU record: @v's domain, arch, cpu, state_bytes and stop_ticks, then
 * @state (v->state_bytes bytes), padded. After the domains. In pieces,
 * never across a piece's end (the reader reads the state in place): a
 * pad record (HANDOVER_REC_PAD) first fills the piece when it would be.
 */
void ho_vcpu(struct ho_writer *w, const struct handover_vcpu *v,
	     const void *state);
/* The preserved record: every extent and table range, sorted, merged. */
void ho_preserved(struct ho_writer *w);
/*
 * ho_finish() - the header from @hd (magic, version, sizes, record count
 * and checksum are set here).
 * Return: the handover's size in bytes (counting: an upper bound), 0 on
 * overflow.
 */
uint64_t ho_finish(struct ho_writer *w, const struct handover_header *hd);

/*
 * lu_room.c: the room a bigger next image needs past this image's end,
 * found at update time (docs/liveupdate.md). liveupdate_run() says what
 * the update keeps (lu_room_begin()); the arch's image check asks
 * liveupdate_room() for [start, end): 0, or -EBUSY with @why naming what
 * is in the way (a reserved range, a domain's extent or tables, the
 * handover, the stub's scratch).
 */
/*
 * A cold boot asked for liveupdate=N keeps, in its own map (never in the
 * loader's view of the image: nothing is zeroed, nothing covers firmware
 * memory), the RAM right after its image free of domains: reserved under
 * this name, up to this many bytes, where the map says RAM (the arch's
 * setup.c). liveupdate_room() counts it as room.
 */
#define LU_ROOM_BYTES (2ULL << 20)
#define LU_ROOM_NAME  "image room"

struct domain_set;
void lu_room_begin(const struct domain_set *ds, paddr_t ho, uint64_t ho_bytes,
		   paddr_t scratch, uint64_t scratch_bytes);
int liveupdate_room(uint64_t start, uint64_t end, char *why, size_t n);

#endif
