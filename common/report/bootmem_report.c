/* SPDX-License-Identifier: MIT */
/*
 * The memory map's part of the boot report: the "memmap" object (the
 * firmware's RAM and bootmem's reserved table, cut to REPORT_RESERVED_MAX
 * rows unless report=full) and the "bootmem" object (allocations, the frame
 * table) of KEEL-REPORT, docs/report-format.md.
 *
 * Runs on the boot CPU at report time, every other CPU parked: no lock.
 */
#include <keel/bootinfo.h>
#include <keel/bootmem.h>
#include <keel/frametable.h>
#include <keel/json.h>
#include <keel/string.h>

#include "report_priv.h"

/* Rows printed for memmap.reserved at most (docs/report-format.md). */
#define REPORT_RESERVED_MAX 64

/*
 * How much the boundary between regions @i and @i + 1 is worth keeping: a
 * change of name first (so a few named regions - kernel, initrd, mem= -
 * survive among hundreds of firmware ones), then the width of the gap.
 */
static uint64_t reserved_gap(const struct region *r, unsigned int i)
{
	const uint64_t name_change = 1ull << 63;
	uint64_t gap = pa_val(r[i + 1].start) - pa_val(r[i].end);

	if (gap >= name_change)
		gap = name_change - 1;
	if (strncmp(r[i].name, r[i + 1].name, sizeof(r[i].name)))
		gap |= name_change;
	return gap;
}

/*
 * How many of the gaps between the @count regions of @r to keep as row
 * boundaries so that at most REPORT_RESERVED_MAX rows remain, and which:
 * every gap wider than *@thresh, then gaps equal to it, lowest address
 * first, up to *@ties of them. The widest gaps (reserved_gap()) are kept,
 * so the rows that merge are regions of one name, closest together first. Found by bisecting the width
 * instead of sorting: no scratch array.
 */
static void reserved_cuts(const struct region *r, unsigned int count,
			  uint64_t *thresh, unsigned int *ties)
{
	const unsigned int want = REPORT_RESERVED_MAX - 1;
	uint64_t lo = 0, hi = ~0ull; /* count(gap >= lo) >= want */
	unsigned int above = 0;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2 + 1;
		unsigned int n = 0;

		for (unsigned int i = 0; i + 1 < count; i++)
			n += reserved_gap(r, i) >= mid;
		if (n >= want)
			lo = mid;
		else
			hi = mid - 1;
	}
	for (unsigned int i = 0; i + 1 < count; i++)
		above += reserved_gap(r, i) > lo;
	*thresh = lo;
	*ties = want - above;
}

/*
 * memmap.reserved: bootmem's reserved table, one row per region; beyond
 * REPORT_RESERVED_MAX regions (real firmware can describe hundreds),
 * neighbours are merged into one row [first start, last end, name]: those
 * of one name first, closest together first; the name is kept when they
 * share it, else "merged". Every reserved
 * byte stays inside some row; memmap.reserved_regions has the true count.
 * report=full lists every region.
 */
static void json_reserved(struct jw *w)
{
	unsigned int count = 0, ties = 0;
	const struct region *r = bootmem_reserved_regions(&count);
	uint64_t thresh = ~0ull;
	unsigned int first = 0;

	bool bounded;

	if (!r)
		count = 0;
	bounded = !report_full() && count > REPORT_RESERVED_MAX;
	if (bounded)
		reserved_cuts(r, count, &thresh, &ties);
	jw_arr(w, "reserved");
	for (unsigned int i = 0; i < count; i++) {
		bool cut = i + 1 == count || !bounded;
		bool same = true;

		if (!cut) {
			uint64_t gap = reserved_gap(r, i);

			cut = gap > thresh || (gap == thresh && ties);
			if (gap == thresh && ties)
				ties--;
		}
		if (!cut)
			continue;
		for (unsigned int j = first + 1; j <= i; j++)
			same &= !strncmp(r[j].name, r[first].name,
					 sizeof(r[j].name));
		jw_arr(w, NULL);
		jw_u64(w, NULL, pa_val(r[first].start));
		jw_u64(w, NULL, pa_val(r[i].end));
		if (same)
			jw_strn(w, NULL, r[first].name, sizeof(r[first].name));
		else
			jw_str(w, NULL, "merged");
		jw_arr_end(w);
		first = i + 1;
	}
	jw_arr_end(w);
	jw_u64(w, "reserved_regions", count);
}

/**
 * bootmem_report_json() - the report's "memmap" and "bootmem" objects (keys memmap.*, bootmem.*).
 * @w: the report's writer.
 * @bi: the sanitised bootinfo of this boot.
 */
void bootmem_report_json(struct jw *w, const struct bootinfo *bi)
{
	/* The list's and a handover's carried ranges (kept, not walked). */
	uint64_t fw_reserved = bootinfo_reserved_bytes(bi), gap = 0;
	unsigned int ram_count;
	/*
	 * RAM from the table that owns it: bootmem's (bootinfo's, taken
	 * over); before bootmem has any, the firmware's list.
	 */
	const struct region *ram = bootmem_ram_regions(&ram_count);

	if (!ram_count) {
		ram = bi->ram.regions;
		ram_count = bi->ram.count;
	}

	jw_obj(w, "memmap");
	jw_u64(w, "ram_bytes", bootinfo_ram_bytes(bi));
	jw_u64(w, "reserved_bytes", bootmem_reserved_ram_bytes());
	jw_u64(w, "firmware_reserved_bytes", fw_reserved);
	jw_u64(w, "dropped_ram_bytes", bi->dropped_ram_bytes);
	jw_arr(w, "ranges");
	for (unsigned int i = 0; i < ram_count; i++) {
		jw_arr(w, NULL);
		jw_u64(w, NULL, pa_val(ram[i].start));
		jw_u64(w, NULL, pa_val(ram[i].end));
		jw_u64(w, NULL, ram[i].node);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	json_reserved(w);
	jw_obj_end(w);

	jw_obj(w, "bootmem");
	jw_u64(w, "allocated_bytes", bootmem_allocated_bytes());
	jw_u64(w, "allocations", bootmem_allocation_count());
	jw_u64(w, "frametable_bytes", frametable_bytes());
	jw_u64(w, "frametable_pieces", frametable_pieces());
	jw_u64(w, "frametable_left_out_bytes", frametable_left_out_bytes());
	jw_u64(w, "merged_regions", bootmem_merged_regions(&gap));
	jw_u64(w, "merged_gap_bytes", gap);
	jw_obj_end(w);
}
