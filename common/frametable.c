/* SPDX-License-Identifier: MIT */
/*
 * The frame table: struct page_info storage for every RAM page.
 *
 * Physical memory is cut into sections of FT_SECTION_PAGES pages. A section
 * table, sized by the highest RAM pfn and allocated from bootmem, gives for
 * each section the storage of its entries and the window [lo, hi) of page
 * indexes that have storage (the lowest to the highest RAM page of the
 * section), so holes at the edges of a section cost nothing and
 * pfn_to_page_or_null() tells them apart.
 *
 * Each node gets ONE node-local bootmem allocation holding the entries of
 * every section whose lowest RAM page is on that node (a section shared by
 * two nodes belongs to the node of its lowest RAM page). Within it, sections
 * are laid out in ascending pfn order, so the entries of a block that lies in
 * consecutive full sections of one node are contiguous.
 *
 * The storage is NOT zeroed: DESIGN §4's invariant says an entry is only
 * read when it is the head of a free chunk or lies in an allocated block,
 * and the heap writes an entry before it becomes either. Zeroing 1 TiB worth
 * of entries (8 GiB) would cost more than the whole lazy handoff.
 *
 * Frame table memory is reserved in bootmem ("frametable"), so
 * frametable_init() must run before bootmem_handoff().
 *
 * Lock: none; written once at boot, read-only afterwards.
 */
#include <arch/mm.h>
#include <keel/bootmem.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/frametable.h>
#include <keel/printk.h>

struct ft_section {
	struct page_info *base; /* entry of page index lo */
	uint32_t lo, hi;	/* page indexes with storage: [lo, hi) */
};

static struct ft_section *sections;
static uint64_t section_count;
static uint64_t ft_bytes;

/* Lowest / highest RAM page of section @sec, and the node of the lowest. */
static bool section_ram_window(uint64_t sec, const struct bootmem_region *ram,
			       unsigned int ram_count, unsigned int *cursor,
			       uint32_t *lo, uint32_t *hi, uint32_t *node)
{
	uint64_t s0 = sec << FT_SECTION_SHIFT, s1 = s0 + FT_SECTION_PAGES;
	bool found = false;
	unsigned int i;

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

/**
 * frametable_init() - section table plus one storage allocation per node.
 * @node_count: nodes 0..node_count-1 may own sections.
 */
void frametable_init(unsigned int node_count)
{
	const struct bootmem_region *ram;
	unsigned int ram_count, cursor, n;
	uint64_t node_entries[MAX_NUMNODES] = {0};
	struct page_info *node_next[MAX_NUMNODES];
	uint64_t max_pfn, sec;
	paddr_t p;

	ram = bootmem_ram_regions(&ram_count);
	sections = NULL;
	section_count = 0;
	ft_bytes = 0;
	if (!ram_count)
		return;
	if (node_count > MAX_NUMNODES)
		node_count = MAX_NUMNODES;

	max_pfn = pfn_val(paddr_to_pfn(ram[ram_count - 1].end));
	section_count = (max_pfn + FT_SECTION_PAGES - 1) >> FT_SECTION_SHIFT;
	p = bootmem_alloc(section_count * sizeof(*sections), PAGE_SIZE,
			  BOOTMEM_ANY_NODE, "frametable");
	sections = phys_to_virt(p);
	ft_bytes += ALIGN_UP(section_count * sizeof(*sections), PAGE_SIZE);

	/* Pass 1: windows and owners; count entries per node. */
	cursor = 0;
	for (sec = 0; sec < section_count; sec++) {
		struct ft_section *fs = &sections[sec];
		uint32_t lo = 0, hi = 0, node = 0;

		fs->base = NULL;
		fs->lo = fs->hi = 0;
		if (!section_ram_window(sec, ram, ram_count, &cursor, &lo, &hi,
					&node))
			continue;
		if (node >= node_count)
			node = 0;
		fs->lo = lo;
		fs->hi = hi;
		/* Owner parked in base until pass 2 hands out storage. */
		fs->base = (struct page_info *)(uintptr_t)(node + 1);
		node_entries[node] += hi - lo;
	}

	/* One node-local allocation per node. */
	for (n = 0; n < node_count; n++) {
		uint64_t bytes = node_entries[n] * sizeof(struct page_info);

		node_next[n] = NULL;
		if (!bytes)
			continue;
		p = bootmem_alloc(bytes, PAGE_SIZE, n, "frametable");
		node_next[n] = phys_to_virt(p);
		ft_bytes += ALIGN_UP(bytes, PAGE_SIZE);
	}

	/* Pass 2: sections take consecutive storage of their node. */
	for (sec = 0; sec < section_count; sec++) {
		struct ft_section *fs = &sections[sec];
		unsigned int owner;

		if (!fs->base)
			continue;
		owner = (unsigned int)((uintptr_t)fs->base - 1);
		fs->base = node_next[owner];
		node_next[owner] += fs->hi - fs->lo;
	}
}

/**
 * pfn_to_page_or_null() - the entry of @p.
 *
 * Return: the entry, or NULL when @p has no frame table storage.
 */
struct page_info *pfn_to_page_or_null(pfn_t p)
{
	uint64_t v = pfn_val(p), sec = v >> FT_SECTION_SHIFT;
	uint32_t idx = (uint32_t)(v & (FT_SECTION_PAGES - 1));
	const struct ft_section *fs;

	if (sec >= section_count)
		return NULL;
	fs = &sections[sec];
	if (idx < fs->lo || idx >= fs->hi)
		return NULL;
	return fs->base + (idx - fs->lo);
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
