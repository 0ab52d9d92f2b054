/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot (data: the sources' names, static inline, the report reads).
 * Bad memory at boot (issue 38 §1, DESIGN §16): RAM that failed, from the
 * firmware (e820 type 5, EfiUnusableMemory, the sandbox's `bad` lines, the
 * DT's /chosen/keel,bad-memory) and from the operator (badpage=, badram=,
 * memmap=SIZE$START). Each bad range is a reserved range of bootinfo named
 * after its source ("bad firmware", "bad option", ...): bootmem keeps it
 * from the heap as it keeps every reservation, before it allocates
 * anything, with no table limit (the tables grow); the heap is handed the
 * largest aligned chunks around it; the audit and the report recognise a
 * bad page by its reservation's name (badmem_region_source()).
 *
 * Firmware bad ranges are RAM too (they count in all RAM): the readers
 * add them as RAM and as a bad reservation (bootinfo_add_bad()).
 */
#ifndef KEEL_BADMEM_H
#define KEEL_BADMEM_H

#include <keel/types.h>

struct bootinfo;

enum badmem_source {
	BADMEM_FIRMWARE,
	BADMEM_OPTION,
	BADMEM_MCE,
	BADMEM_INJECTION,
	BADMEM_HANDOVER,
	BADMEM_SOURCES,
};

/* The reserved-range names: "bad " + the source's report key. */
#define BADMEM_NAME_PREFIX     "bad "
#define BADMEM_NAME_PREFIX_LEN 4

/* The report's key of @src ("firmware", "option", ...). */
static inline const char *badmem_source_key(enum badmem_source src)
{
	static const char *const keys[BADMEM_SOURCES] = {
		"firmware", "option", "mce", "injection", "handover",
	};

	return (unsigned int)src < BADMEM_SOURCES ? keys[src] : "unknown";
}

/* The reserved-range name of @src ("bad firmware", ...). */
static inline const char *badmem_region_name(enum badmem_source src)
{
	static const char *const names[BADMEM_SOURCES] = {
		"bad firmware",	 "bad option",	 "bad mce",
		"bad injection", "bad handover",
	};

	return (unsigned int)src < BADMEM_SOURCES ? names[src] : "bad firmware";
}

/*
 * The reserved-range name of a page of source @src that a live update's
 * handover carried (version 5 keeps the source: "bad handover mce", ...);
 * BADMEM_HANDOVER, a source not known: "bad handover", as version 4
 * named them all.
 */
static inline const char *badmem_carried_name(enum badmem_source src)
{
	static const char *const names[BADMEM_SOURCES] = {
		"bad handover firmware", "bad handover option",
		"bad handover mce",	 "bad handover injection",
		"bad handover",
	};

	return (unsigned int)src < BADMEM_SOURCES ? names[src] : "bad handover";
}

static inline bool badmem_name_is(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return !*a && !*b;
}

/* Is @name a range a handover carried (badmem_carried_name())? */
static inline bool badmem_region_carried(const char *name)
{
	for (int i = 0; i < BADMEM_SOURCES; i++)
		if (badmem_name_is(badmem_carried_name((enum badmem_source)i),
				   name))
			return true;
	return false;
}

/* @s past @prefix, or NULL when it does not start with it. */
static inline const char *badmem_after(const char *s, const char *prefix)
{
	while (*prefix && *s == *prefix) {
		s++;
		prefix++;
	}
	return *prefix ? NULL : s;
}

/*
 * The source a reserved range's @name says (a carried range's, "bad
 * handover KEY": where the page first went bad), or -1 when it is not
 * bad. Called once per reserved range (100,000 bad pages: the handover's
 * writer, the report): "bad " is checked once, then only the key whose
 * first letter matches (the keys' first letters differ) is compared.
 */
static inline int badmem_region_source(const char *name)
{
	const char *b = badmem_after(name, BADMEM_NAME_PREFIX), *c;

	if (!b)
		return -1;
	c = badmem_after(b, "handover ");
	if (c)
		b = c; /* "bad handover KEY": carried (version 5) */
	for (int i = 0; i < BADMEM_SOURCES; i++) {
		const char *a = badmem_source_key((enum badmem_source)i);

		if (*a == *b)
			return badmem_name_is(a, b) ? i : -1;
	}
	return -1;
}

/*
 * A parser's sink: the bad byte range [start, end) (whole pages; end may
 * be 2^64 - 4096 at most). Return: false to stop (the caller's bound).
 */
typedef bool (*badmem_fn)(void *arg, uint64_t start, uint64_t end);

/*
 * The values of the three options, each parsed from [s, s+len) alone
 * (no NUL needed), calling @fn for each bad range it names. A malformed
 * item is skipped and the others are taken (bad memory is withheld
 * rather than forgotten): *@why names the first problem.
 * Return: 0, or -EINVAL with *@why set (maybe after some calls of @fn).
 *
 * badpage=  Xen's: PFNs and inclusive PFN ranges A-B, comma-separated,
 *	     decimal or 0x-hex.
 * memmap=   Linux's SIZE$START (K/M/G/T suffixes), comma-separated; the
 *	     pages the bytes touch. Other forms (SIZE@START, SIZE#START,
 *	     SIZE!START, exactmap, a bare SIZE) are -EOPNOTSUPP, not applied.
 * badram=   GRUB's ADDR,MASK[,ADDR,MASK...] (Memtest86+): every page
 *	     holding an address x with (x & MASK) == (ADDR & MASK). Only the
 *	     syntax is checked here (@fn is not called): badmem_apply_cmdline()
 *	     enumerates the pages over RAM, or keeps a dense pattern.
 */
int badmem_parse_badpage(const char *s, size_t len, badmem_fn fn, void *arg,
			 const char **why);
int badmem_parse_memmap(const char *s, size_t len, badmem_fn fn, void *arg,
			const char **why);
int badmem_parse_badram(const char *s, size_t len, const char **why);

/*
 * The pages of RAM [ram_s, ram_e) (whole pages) that ADDR, MASK names, in
 * runs, ascending, O(runs + 1) (never O(pages): a run is as long as the
 * mask's clear low bits allow). At most *@budget runs: past it the rest of
 * the RAM from the next match on is given as one range (withheld whole,
 * never handed out) and *@budget is 0.
 * Return: the runs given.
 */
uint64_t badmem_badram_runs(uint64_t addr, uint64_t mask, uint64_t ram_s,
			    uint64_t ram_e, uint64_t *budget, badmem_fn fn,
			    void *arg);

/*
 * bootinfo_add_bad() - a firmware reader's bad range: RAM on @node (it
 * counts in all RAM; NUMA_NO_NODE where the reader labels nodes later)
 * when @is_ram, and a reservation named badmem_region_name(@src).
 * Return: 0 or bootinfo_add_reserved()'s error.
 */
int bootinfo_add_bad(struct bootinfo *bi, paddr_t start, paddr_t end,
		     enum badmem_source src, bool add_ram, uint32_t node);

/*
 * badmem_apply_cmdline() - every badpage=, badram= and memmap= word of
 * [s, s+len) (a NUL ends it) as "bad option" reservations of @bi, whose
 * RAM is sanitised (sorted); a badram= pattern of more than 256 runs in
 * RAM as a pattern instead (@bi's @lattice: include/keel/lattice.h), up
 * to BOOTINFO_LATTICE_MAX. Pages outside RAM are warned and ignored.
 * One `cmdline: WORD: reason` warning per problem word.
 * Return: the number of warnings.
 */
unsigned int badmem_apply_cmdline(struct bootinfo *bi, const char *s,
				  size_t len);

/*
 * badmem_boot() - fwboot_finish()'s step, after bootinfo_sanitise(): the
 * words of CONFIG_DEFAULT_CMDLINE and of @bi's command line applied, and
 * the firmware's bad ranges outside RAM warned about (one line).
 * Return: the number of warnings.
 */
unsigned int badmem_boot(struct bootinfo *bi);

#endif
