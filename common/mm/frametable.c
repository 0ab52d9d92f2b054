/* SPDX-License-Identifier: MIT */
/*
 * The frame table: struct page_info storage for every RAM page.
 *
 * Physical memory is cut into sections of FT_SECTION_PAGES pages. The
 * section table follows RAM, not the highest address (issue 37 §4): it
 * holds only the sections that contain RAM below the highest RAM pfn kept
 * (mem= hides the rest), in pfn order, and beside them a table of runs
 * (maximal series of consecutive present sections, at most one per RAM
 * range), found by a binary search: O(log runs), one comparison on a
 * machine whose RAM is one run. Both are one bootmem piece, sized by the
 * RAM ranges, so a host whose RAM sits at any physical address (pa == va
 * at 2^46) pays what it would pay at 1 GiB. Each section gives the window
 * [lo, hi) of page indexes that have storage (the lowest to the highest
 * RAM page of the section), so holes at the edges of a section cost
 * nothing and pfn_to_page_or_null() tells them apart.
 *
 * A section belongs to the node of its lowest RAM page. Its storage is
 * taken from bootmem in the largest piece the node's free memory allows,
 * trying in turn:
 *
 *   1. one node-local allocation for every section of the node, laid out in
 *      ascending pfn order (so the entries of consecutive full sections are
 *      contiguous);
 *   2. one allocation per section;
 *   3. one allocation per block of FT_BLOCK_PAGES pages that holds RAM, with
 *      a small table of block pointers for the section.
 *
 * Level 3 only needs 16 KiB pieces, so a node whose RAM is many small
 * ranges (a fragmented but valid map) still gets its frame table. RAM
 * whose entries find no room at all (a map with almost no free RAM) is
 * reserved as "no frametable", with one warning: it never reaches the heap,
 * the audit still accounts for it, and the boot goes on (or ends in FAIL
 * when no RAM is left for the heap); it never panics.
 * Entries are contiguous within a block whatever the level, which is what
 * pfn_to_page_next() relies on.
 *
 * The storage is NOT zeroed: DESIGN §4's invariant says an entry is only
 * read when it is the head of a free chunk or of an allocated block,
 * and the heap writes an entry before it becomes either. Zeroing 1 TiB worth
 * of entries (8 GiB) would cost more than the whole lazy handoff.
 *
 * Frame table memory is reserved in bootmem ("frametable"), so
 * frametable_init() must run before heap_handoff().
 *
 * Lock: none; written once at boot, read-only afterwards.
 */
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/frametable.h>
#include <keel/printk.h>
#include <keel/string.h>

#define FT_BLOCKS (FT_SECTION_PAGES / FT_BLOCK_PAGES)

struct ft_section {
	struct page_info *base;	   /* entry of page index lo, or NULL */
	struct page_info **blocks; /* level 3: per-block storage, or NULL */
	uint32_t lo, hi;	   /* page indexes with storage: [lo, hi) */
	uint32_t node;		   /* owner (node of the lowest RAM page) */
};

/*
 * A run: the present sections numbered first, first + 1, ..., at
 * sections[index], sections[index + 1], ... up to the next run's index.
 */
struct ft_run {
	uint64_t first; /* its first section's number */
	uint64_t index; /* that section's index in sections[] */
};

static struct ft_section *sections; /* the present ones, in pfn order */
static uint64_t section_count;
static struct ft_run *runs;
static uint64_t run_count;
static uint64_t first_number; /* runs[0].first: one run needs no search */
static uint64_t ft_bytes;
static unsigned int ft_pieces;

/*
 * Where the table lies (frametable_placement()), and where the last
 * image's lay (frametable_hint(), one boot's use): the section table
 * (node FRAMETABLE_SECTIONS) and each node's entries in one piece.
 */
static struct frametable_piece placed[MAX_NUMNODES + 1],
	hints[MAX_NUMNODES + 1];
static unsigned int placed_count, hint_count;

static void note_placed(paddr_t p, uint64_t bytes, uint32_t node)
{
	if (placed_count < ARRAY_SIZE(placed))
		placed[placed_count++] = (struct frametable_piece){
			pa_val(p), pa_val(p) + ALIGN_UP(bytes, PAGE_SIZE), node,
			0};
}

/* The physical address of the last piece ft_alloc*() gave (no lookup). */
static paddr_t ft_last_pa;

/*
 * @bytes for @node (FRAMETABLE_SECTIONS: the section table) where the
 * last image's lay, when a hint names the same size there and bootmem
 * has it free; accounted as ft_alloc() does. NULL otherwise.
 */
static void *ft_alloc_hinted(uint64_t bytes, uint32_t node, uint32_t ram_node)
{
	bytes = ALIGN_UP(bytes, PAGE_SIZE);
	for (unsigned int i = 0; i < hint_count; i++) {
		paddr_t p;

		if (hints[i].node != node ||
		    hints[i].end - hints[i].start != bytes)
			continue;
		p = bootmem_alloc_at(pa(hints[i].start), bytes, ram_node,
				     "frametable");
		if (pa_val(p) == pa_val(INVALID_PADDR))
			return NULL;
		ft_bytes += bytes;
		ft_pieces++;
		ft_last_pa = p;
		return phys_to_virt(p);
	}
	return NULL;
}
static uint64_t ft_left_out; /* bytes of RAM reserved as "no frametable" */

/*
 * RAM in pfns [s, e) gets no entries: reserve it (only the RAM in it, the
 * holes between stay outside bootmem's tables) so it never reaches the
 * heap. One warning for the boot.
 */
static void leave_out(uint64_t s, uint64_t e)
{
	const struct region *ram;
	unsigned int count;

	if (!ft_left_out)
		pr_warn("frametable: no free RAM left for the page entries of "
			"[%#llx, %#llx): that RAM is reserved (\"no "
			"frametable\"), not used\n",
			(unsigned long long)pa_val(pfn_to_paddr(pfn(s))),
			(unsigned long long)pa_val(pfn_to_paddr(pfn(e))));
	ram = bootmem_ram_regions(&count);
	for (unsigned int i = 0; i < count; i++) {
		uint64_t rs = MAX(pfn_val(paddr_to_pfn(ram[i].start)), s);
		uint64_t re = MIN(pfn_val(paddr_to_pfn(ram[i].end)), e);

		if (rs >= re)
			continue;
		ft_left_out += (re - rs) << PAGE_SHIFT;
		bootmem_reserve(pfn_to_paddr(pfn(rs)), (re - rs) << PAGE_SHIFT,
				"no frametable");
	}
}

/* Lowest / highest RAM page of section @sec below @top_pfn, and its node. */
static bool section_ram_window(uint64_t sec, const struct region *ram,
			       unsigned int ram_count, uint64_t top_pfn,
			       unsigned int *cursor, uint32_t *lo, uint32_t *hi,
			       uint32_t *node)
{
	uint64_t s0 = sec << FT_SECTION_SHIFT, s1 = s0 + FT_SECTION_PAGES;
	bool found = false;
	unsigned int i;

	s1 = MIN(s1, top_pfn);
	/* RAM regions are sorted: resume from where the last section was. */
	while (*cursor < ram_count &&
	       pfn_val(paddr_to_pfn(ram[*cursor].end)) <= s0)
		(*cursor)++;
	for (i = *cursor; i < ram_count; i++) {
		uint64_t rs = pfn_val(paddr_to_pfn(ram[i].start));
		uint64_t re = pfn_val(paddr_to_pfn(ram[i].end));

		if (rs >= s1)
			break;
		if (!found) {
			*lo = (uint32_t)(MAX(rs, s0) - s0);
			*node = ram[i].node;
			found = true;
		}
		*hi = (uint32_t)(MIN(re, s1) - s0);
	}
	return found;
}

/* One bootmem piece for the frame table, accounted. NULL when none fits. */
static void *ft_alloc(uint64_t bytes, uint32_t node)
{
	paddr_t p = bootmem_alloc_try(bytes, PAGE_SIZE, node, "frametable");

	if (pa_val(p) == pa_val(INVALID_PADDR))
		return NULL;
	ft_bytes += ALIGN_UP(bytes, PAGE_SIZE);
	ft_pieces++;
	ft_last_pa = p;
	return phys_to_virt(p);
}

static uint64_t section_entries(const struct ft_section *fs)
{
	return fs->hi - fs->lo;
}

/* Level 1: one piece for all of @node's sections. */
static bool store_node(uint32_t node, uint64_t entries)
{
	struct page_info *next;

	/*
	 * Where the last image's lay (a live update), when it is free; else
	 * asked before bootmem_alloc_try(), which finds nothing only after
	 * stepping over every gap of the node its own way, and 100,000 bad
	 * pages leave no range for a node's whole frame table (a millisecond
	 * of a live update's downtime).
	 */
	next = ft_alloc_hinted(entries * sizeof(struct page_info), node, node);
	if (!next && !bootmem_node_free_at_least(
			     node, entries * sizeof(struct page_info)))
		return false;
	if (!next)
		next = ft_alloc(entries * sizeof(struct page_info), node);
	if (!next)
		return false;
	note_placed(ft_last_pa, entries * sizeof(struct page_info), node);
	for (uint64_t sec = 0; sec < section_count; sec++) {
		struct ft_section *fs = &sections[sec];

		if (fs->node != node || !section_entries(fs))
			continue;
		fs->base = next;
		next += section_entries(fs);
	}
	return true;
}

/* Whether pages [s, e) (pfns) hold any RAM below @top_pfn. */
static bool has_ram(const struct region *ram, unsigned int ram_count,
		    uint64_t s, uint64_t e)
{
	for (unsigned int i = 0; i < ram_count; i++) {
		uint64_t rs = pfn_val(paddr_to_pfn(ram[i].start));
		uint64_t re = pfn_val(paddr_to_pfn(ram[i].end));

		if (rs < e && re > s)
			return true;
		if (rs >= e)
			break;
	}
	return false;
}

/* The number of sections[@i] (boot only): O(log runs). */
static uint64_t section_number(uint64_t i)
{
	uint64_t lo = 0, hi = run_count;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (runs[mid].index <= i)
			lo = mid;
		else
			hi = mid;
	}
	return runs[lo].first + (i - runs[lo].index);
}

/*
 * Level 3, first step: section @sec's table of block pointers, every one
 * NULL. None fits: its RAM is left out. Return: whether it has one.
 */
static bool store_block_table(uint64_t sec)
{
	struct ft_section *fs = &sections[sec];
	uint64_t s0 = section_number(sec) << FT_SECTION_SHIFT;

	fs->blocks = ft_alloc(FT_BLOCKS * sizeof(*fs->blocks), fs->node);
	if (!fs->blocks) {
		leave_out(s0 + fs->lo, s0 + fs->hi);
		fs->lo = fs->hi = 0;
		return false;
	}
	for (uint32_t b = 0; b < FT_BLOCKS; b++)
		fs->blocks[b] = NULL;
	return true;
}

/*
 * Level 3's walk: the next block that holds RAM and has no storage yet,
 * of a section of the node with a block table.
 */
struct block_walk {
	uint32_t node;
	uint64_t sec; /* section_count at the end */
	uint32_t b;
	const struct region *ram;
	unsigned int ram_count;
};

/* The first pfn of the walk's block. */
static uint64_t block_pfn(const struct block_walk *w)
{
	return (section_number(w->sec) << FT_SECTION_SHIFT) +
	       (uint64_t)w->b * FT_BLOCK_PAGES;
}

static void block_skip(struct block_walk *w)
{
	for (; w->sec < section_count; w->sec++, w->b = 0) {
		struct ft_section *fs = &sections[w->sec];
		uint32_t b1 = (fs->hi + FT_BLOCK_PAGES - 1) / FT_BLOCK_PAGES;

		if (fs->node != w->node || !fs->blocks || fs->base)
			continue;
		for (w->b = MAX(w->b, fs->lo / FT_BLOCK_PAGES); w->b < b1;
		     w->b++) {
			uint64_t bs = block_pfn(w);

			if (!fs->blocks[w->b] &&
			    has_ram(w->ram, w->ram_count, bs,
				    bs + FT_BLOCK_PAGES))
				return;
		}
	}
}

static void block_restart(struct block_walk *w)
{
	w->sec = 0;
	w->b = 0;
	block_skip(w);
}

static void block_next(struct block_walk *w)
{
	w->b++;
	block_skip(w);
}

static uint64_t block_size(void *arg)
{
	(void)arg;
	return FT_BLOCK_PAGES * sizeof(struct page_info);
}

static void block_placed(void *arg, paddr_t at)
{
	struct block_walk *w = arg;

	sections[w->sec].blocks[w->b] = phys_to_virt(at);
	ft_bytes += ALIGN_UP(block_size(w), PAGE_SIZE);
	ft_pieces++;
	block_next(w);
}

/*
 * Level 3, second step: a piece for every block with RAM of @node's
 * sections that have a block table, in one walk of bootmem (a series, as
 * level 2's: a badram= lattice split 64 GiB into 33,281 such pieces, one
 * search of the node's gaps each); what the series left, one allocation
 * each, else that block's RAM left out.
 */
static void store_blocks(uint32_t node, const struct region *ram,
			 unsigned int ram_count)
{
	struct block_walk w = {
		.node = node, .ram = ram, .ram_count = ram_count};
	struct bootmem_series sr = {
		.node = node,
		.why = "frametable",
		.size_of = block_size,
		.placed = block_placed,
		.arg = &w,
	};

	for (block_restart(&w); w.sec < section_count; block_next(&w))
		sr.count++;
	if (!sr.count)
		return;
	block_restart(&w);
	bootmem_alloc_series(&sr);
	for (block_restart(&w); w.sec < section_count; block_next(&w)) {
		struct ft_section *fs = &sections[w.sec];
		uint64_t s0 = section_number(w.sec) << FT_SECTION_SHIFT;
		uint64_t bs = block_pfn(&w);

		fs->blocks[w.b] = ft_alloc(block_size(&w), node);
		if (!fs->blocks[w.b])
			leave_out(MAX(bs, s0 + fs->lo),
				  MIN(bs + FT_BLOCK_PAGES, s0 + fs->hi));
	}
}

/* Level 2's walk: the next section of the node that needs storage. */
struct series_walk {
	uint32_t node;
	uint64_t sec; /* its index in sections[], section_count at the end */
};

static void series_skip(struct series_walk *w)
{
	while (w->sec < section_count && (sections[w->sec].node != w->node ||
					  !section_entries(&sections[w->sec])))
		w->sec++;
}

static uint64_t series_size(void *arg)
{
	struct series_walk *w = arg;

	return section_entries(&sections[w->sec]) * sizeof(struct page_info);
}

static void series_placed(void *arg, paddr_t at)
{
	struct series_walk *w = arg;
	struct ft_section *fs = &sections[w->sec];

	fs->base = phys_to_virt(at);
	ft_bytes += ALIGN_UP(series_size(w), PAGE_SIZE);
	ft_pieces++;
	w->sec++;
	series_skip(w);
}

/*
 * Level 2 for all of @node's sections, one piece each, in one walk of
 * bootmem (bootmem_alloc_series(): thousands of pieces among 100,000
 * reserved ranges cost one walk, not a search and a table move each);
 * for the sections it found no room for, one allocation each, then
 * level 3.
 */
static void store_sections(uint32_t node, const struct region *ram,
			   unsigned int ram_count)
{
	struct series_walk w = {.node = node};
	struct bootmem_series sr = {
		.node = node,
		.why = "frametable",
		.size_of = series_size,
		.placed = series_placed,
		.arg = &w,
	};
	unsigned int split = 0;
	uint64_t failed = ~0ULL; /* the smallest piece found no room */

	for (uint64_t sec = 0; sec < section_count; sec++)
		if (sections[sec].node == node &&
		    section_entries(&sections[sec]))
			sr.count++;
	series_skip(&w);
	bootmem_alloc_series(&sr);
	/*
	 * What the series left (the node is full, or bootmem's table could
	 * not grow for it): a piece each as before, else level 3.
	 */
	for (uint64_t sec = w.sec; sec < section_count; sec++) {
		struct ft_section *fs = &sections[sec];

		uint64_t bytes = section_entries(fs) * sizeof(struct page_info);

		if (fs->node != node || !bytes)
			continue;
		/*
		 * Nothing frees in between: a size that found no room finds
		 * none again (a walk across a badram= lattice's every run).
		 */
		fs->base = bytes < failed ? ft_alloc(bytes, node) : NULL;
		if (fs->base)
			continue;
		failed = MIN(failed, bytes);
		store_block_table(sec);
		split++;
	}
	store_blocks(node, ram, ram_count);
	pr_info("frametable: node %u has no free piece for all its entries: "
		"%u pieces, %u sections in %u-page blocks\n",
		node, ft_pieces, split, (unsigned int)FT_BLOCK_PAGES);
}

/*
 * The present sections below @top_pfn (RAM sorted): counted in
 * @section_count and @run_count, and when runs[] is there, the runs
 * written. O(RAM ranges).
 */
static void walk_sections(const struct region *ram, unsigned int ram_count,
			  uint64_t top_pfn)
{
	uint64_t next = 0; /* the first section number not yet present */
	uint64_t n = 0, r = 0;

	for (unsigned int i = 0; i < ram_count; i++) {
		uint64_t s = pfn_val(paddr_to_pfn(ram[i].start));
		uint64_t e = MIN(pfn_val(paddr_to_pfn(ram[i].end)), top_pfn);
		uint64_t first, last;

		if (s >= e)
			continue;
		first = MAX(s >> FT_SECTION_SHIFT, next);
		last = (e - 1) >> FT_SECTION_SHIFT;
		if (first > last)
			continue;
		if (!n || first != next) {
			if (runs)
				runs[r] = (struct ft_run){first, n};
			r++;
		}
		n += last - first + 1;
		next = last + 1;
	}
	section_count = n;
	run_count = r;
}

/*
 * The section table for pfns below @top_pfn: the present sections and
 * their runs, one piece. When not even it fits, all RAM below @top_pfn is
 * left out. Return: false then, or when there is no RAM below @top_pfn.
 */
static bool alloc_section_table(const struct region *ram,
				unsigned int ram_count, uint64_t top_pfn)
{
	uint64_t bytes;
	bool hinted;
	paddr_t p;

	walk_sections(ram, ram_count, top_pfn);
	if (!section_count)
		return false; /* no RAM below @top_pfn */
	bytes = run_count * sizeof(*runs) + section_count * sizeof(*sections);
	runs = ft_alloc_hinted(bytes, FRAMETABLE_SECTIONS, BOOTMEM_ANY_NODE);
	hinted = runs;
	p = hinted ? ft_last_pa
		   : bootmem_alloc_try(bytes, PAGE_SIZE, BOOTMEM_ANY_NODE,
				       "frametable");
	if (pa_val(p) == pa_val(INVALID_PADDR)) {
		/* Not even the section table fits: no RAM gets entries. */
		for (unsigned int i = 0; i < ram_count; i++) {
			uint64_t s = pfn_val(paddr_to_pfn(ram[i].start));
			uint64_t e = pfn_val(paddr_to_pfn(ram[i].end));

			if (s < top_pfn)
				leave_out(s, MIN(e, top_pfn));
		}
		section_count = run_count = 0;
		return false;
	}
	runs = phys_to_virt(p);
	sections = (struct ft_section *)(runs + run_count);
	memset(sections, 0, section_count * sizeof(*sections));
	walk_sections(ram, ram_count, top_pfn);
	first_number = runs[0].first;
	if (!hinted) { /* ft_alloc_hinted() counted its own */
		ft_bytes += ALIGN_UP(bytes, PAGE_SIZE);
		ft_pieces++;
	}
	note_placed(p, bytes, FRAMETABLE_SECTIONS);
	return true;
}

/* Every section's RAM window and owner; entries per node in @node_entries. */
static void fill_windows(const struct region *ram, unsigned int ram_count,
			 uint64_t top_pfn, unsigned int node_count,
			 uint64_t node_entries[MAX_NUMNODES])
{
	unsigned int cursor = 0;

	for (uint64_t i = 0; i < section_count; i++) {
		struct ft_section *fs = &sections[i];
		uint32_t lo = 0, hi = 0, node = 0;

		if (!section_ram_window(section_number(i), ram, ram_count,
					top_pfn, &cursor, &lo, &hi, &node))
			continue;
		if (node >= node_count)
			node = 0;
		fs->lo = lo;
		fs->hi = hi;
		fs->node = node;
		node_entries[node] += hi - lo;
	}
}

/**
 * frametable_init() - section table plus the storage of every section.
 * @node_count: nodes 0..node_count-1 may own sections.
 */
void frametable_init(unsigned int node_count)
{
	const struct region *ram;
	unsigned int ram_count;
	uint64_t node_entries[MAX_NUMNODES];
	uint64_t top_pfn;

	ram = bootmem_ram_regions(&ram_count);
	sections = NULL;
	runs = NULL;
	section_count = run_count = first_number = 0;
	ft_bytes = 0;
	ft_pieces = 0;
	ft_left_out = 0;
	placed_count = 0;
	if (!ram_count) {
		hint_count = 0;
		return;
	}
	if (node_count > MAX_NUMNODES)
		node_count = MAX_NUMNODES;
	/* O(nodes present): only the entries of the nodes there are. */
	memset(node_entries, 0, node_count * sizeof(node_entries[0]));

	/* RAM that mem= hid never reaches the heap: no entries for it. */
	top_pfn = pfn_val(paddr_to_pfn(ram[ram_count - 1].end));
	top_pfn = MIN(top_pfn, pfn_val(paddr_to_pfn(bootmem_limit_top())));
	if (!alloc_section_table(ram, ram_count, top_pfn))
		return;

	fill_windows(ram, ram_count, top_pfn, node_count, node_entries);
	for (uint32_t n = 0; n < node_count; n++) {
		if (!node_entries[n] || store_node(n, node_entries[n]))
			continue;
		store_sections(n, ram, ram_count);
	}
	hint_count = 0; /* this boot's: the next table is placed afresh */
}

/**
 * frametable_hint() - where the last image's table lay (a live update's
 * handover), for the next frametable_init() only: each piece it names
 * (the section table, or a node's entries in one piece) goes to the same
 * place when it is the same size and bootmem has it free, so that the
 * table is where it was, warm, and in one piece a node where the bad
 * pages found since would cut it into thousands; else it is placed as
 * always. At most MAX_NUMNODES + 1 pieces are kept.
 */
void frametable_hint(const struct frametable_piece *h, unsigned int n)
{
	hint_count = MIN(n, (unsigned int)ARRAY_SIZE(hints));
	memcpy(hints, h, hint_count * sizeof(*h));
}

/**
 * frametable_placement() - where this table lies, for a live update's
 * handover: the section table and each node's entries stored in one
 * piece (a node stored in pieces is not named), at most @max into @out.
 * Return: how many.
 */
unsigned int frametable_placement(struct frametable_piece *out,
				  unsigned int max)
{
	unsigned int n = MIN(max, placed_count);

	memcpy(out, placed, n * sizeof(*out));
	return n;
}

/* The present section numbered @number, or NULL: O(log runs). */
static const struct ft_section *section_of(uint64_t number)
{
	uint64_t lo = 0, hi = run_count, i = number - first_number;

	/* One run (the common machine): below it, i wraps above the count. */
	if (likely(run_count == 1))
		return i < section_count ? &sections[i] : NULL;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (runs[mid].first <= number)
			lo = mid;
		else
			hi = mid;
	}
	if (!run_count || number < runs[lo].first)
		return NULL;
	i = runs[lo].index + (number - runs[lo].first);
	if (i >= (lo + 1 < run_count ? runs[lo + 1].index : section_count))
		return NULL;
	return &sections[i];
}

/**
 * pfn_to_page_or_null() - the entry of @p.
 *
 * Return: the entry, or NULL when @p has no frame table storage.
 */
struct page_info *pfn_to_page_or_null(pfn_t p)
{
	uint64_t v = pfn_val(p);
	uint32_t idx = (uint32_t)(v & (FT_SECTION_PAGES - 1));
	const struct ft_section *fs = section_of(v >> FT_SECTION_SHIFT);
	struct page_info *blk;

	if (!fs || idx < fs->lo || idx >= fs->hi)
		return NULL;
	if (likely(!fs->blocks))
		return fs->base + (idx - fs->lo);
	blk = fs->blocks[idx / FT_BLOCK_PAGES];
	return blk ? blk + idx % FT_BLOCK_PAGES : NULL;
}

/**
 * pfn_to_page() - the entry of a RAM pfn.
 *
 * Return: the entry (checked in debug builds).
 */
struct page_info *pfn_to_page(pfn_t p)
{
	struct page_info *pg = pfn_to_page_or_null(p);

	if (IS_ENABLED(CONFIG_DEBUG) && !pg)
		panic("frametable: pfn %#llx has no frame table entry",
		      (unsigned long long)pfn_val(p));
	return pg;
}

/** frametable_bytes() - Return: bytes of frame table storage (report). */
uint64_t frametable_bytes(void)
{
	return ft_bytes;
}

/**
 * frametable_left_out_bytes() - Return: RAM bytes reserved because their
 * entries found no free RAM ("no frametable").
 */
uint64_t frametable_left_out_bytes(void)
{
	return ft_left_out;
}

/** frametable_pieces() - Return: bootmem allocations the table took. */
unsigned int frametable_pieces(void)
{
	return ft_pieces;
}
