/* SPDX-License-Identifier: MIT */
/*
 * Owner: domain.
 * Stage-2 / EPT translation tables of a guest ("p2m": guest physical to
 * machine), in the arch's real format: arm64 VMSAv8-64 stage 2 (4 KiB
 * granule) or Intel EPT (4 levels). The builder and walker are
 * arch-neutral (common/domain/p2m.c); the descriptor encoders are pure
  * functions per format (include/keel/p2m_format.h); the arch picks the format
   * and does the barriers, TLB maintenance and MMU probes (include/arch/p2m.h).
 *
 * A p2m is owned by one builder at a time: no lock. p2m_map() only writes
 * entries; p2m_commit() publishes the whole table once. Table pages are
 * keel's own memory (anonymous heap blocks on the p2m's node).
 */
#ifndef KEEL_P2M_H
#define KEEL_P2M_H

#include <keel/types.h>

struct cachemaint;

struct jw;
struct p2m_format;

struct p2m {
	const struct p2m_format *fmt;
	paddr_t root;		  /* INVALID_PADDR before init, after destroy */
	uint64_t table_pages;	  /* root pages included */
	int node;		  /* where table pages come from (-1: any) */
	unsigned int ipa_bits;	  /* guest addresses lie below 2^ipa_bits */
	unsigned int pa_bits;	  /* output addresses lie below 2^pa_bits */
	unsigned int start_level; /* level of the root table (3 maps 4 KiB) */
	unsigned int root_order;  /* root = 2^root_order concatenated pages */
	uint16_t vmid;		  /* arm64 stage-2 TLB tag; unused by EPT */
	/* Table pages' maintenance policy (p2m_init_maint()); NULL: the heap's. */
	const struct cachemaint *maint;
};

/*
 * p2m_init() - an empty table: the root from the heap on @node (-1: any).
 * @ipa_bits 0 = the arch's maximum (arm64: ID_AA64MMFR0_EL1.PARange capped
 * at the 48 bits of 4-level 4 KiB-granule stage 2; x86 EPT: 48).
 * Return: 0, -ENOMEM, -EINVAL (@ipa_bits out of the format's range).
 */
int p2m_init(struct p2m *p, int node, unsigned int ipa_bits);
/* The same, table pages allocated and cleaned under @maint (a build's). */
int p2m_init_maint(struct p2m *p, int node, unsigned int ipa_bits,
		   const struct cachemaint *maint);
/* The same with an explicit format (tests build both on every arch). */
int p2m_init_format(struct p2m *p, int node, unsigned int ipa_bits,
		    const struct p2m_format *fmt);

/*
 * p2m_map() - map [gpa, gpa + 2^(12+order)) to @pa with one block or page
 * descriptor: @order 0, 9 or 18 (4 KiB, 2 MiB, 1 GiB). Writes entries only
 * (new table pages from the heap on the p2m's node, zeroed); no barrier,
 * no TLB maintenance.
 * Return: 0, -ENOMEM, -EINVAL (bad order, misaligned, out of range,
 * overlapping something already mapped).
 */
int p2m_map(struct p2m *p, uint64_t gpa, paddr_t pa, unsigned int order);

/*
 * p2m_map_run() - p2m_map() of @count consecutive leaves of @order, gpa and
 * pa advancing together; one walk per leaf table. On an error the leaves
 * before the failing one stay mapped. Return: as p2m_map().
 */
int p2m_map_run(struct p2m *p, uint64_t gpa, paddr_t pa, unsigned int order,
		uint64_t count);

/* One barrier and the TLB maintenance for the whole table (once per build). */
void p2m_commit(struct p2m *p);

/*
 * p2m_walk() - software walk: @fn for every leaf, in gpa order.
 * Return: 0, what @fn returned when non-zero (the walk stops), -EIO on a
 * descriptor the format reserves.
 */
int p2m_walk(const struct p2m *p,
	     int (*fn)(uint64_t gpa, paddr_t pa, unsigned int order, void *arg),
	     void *arg);

/*
 * p2m_translate() - software lookup of @gpa: *@pa its machine address,
 * *@order the order of the leaf holding it (either may be NULL).
 * Return: 0, -ENOENT (not mapped, or out of range), -EIO (reserved
 * descriptor).
 */
int p2m_translate(const struct p2m *p, uint64_t gpa, paddr_t *pa,
		  unsigned int *order);

/*
 * p2m_hw_translate() - ask the MMU (arm64 at EL2: VTTBR_EL2/VTCR_EL2 set to
 * this table, stage 1 off, AT S12E1R). Interrupts masked while it runs.
 * Return: 0 and *@pa, -ENOENT for a fault, -EOPNOTSUPP where the arch or
 * the exception level cannot (arm64 at EL1, x86_64 without VMX, sandbox).
 */
int p2m_hw_translate(struct p2m *p, uint64_t gpa, paddr_t *pa);

uint64_t p2m_table_pages(const struct p2m *p);

/* p2m_destroy() - free every table page to the heap (zeroed first). */
void p2m_destroy(struct p2m *p);

/* The arch's format: "vmsav8-64-s2" or "ept". */
const char *p2m_format_name(void);

#endif
