/* SPDX-License-Identifier: MIT */
/*
 * The page audit (DESIGN §7): every page of RAM in bootmem's RAM table is
 * free, allocated, or reserved for a named reason; lost_pages must be 0.
 *
 * Free pages are counted by walking every node's free lists, never taken
 * from the heap counters, so that a counter bug and a list bug both show:
 * the walk is compared with heap_free_pages(). RAM dropped by mem= stays in
 * bootmem's RAM table as a reserved region named "mem=", so it is accounted
 * as reserved, not lost.
 *
 * Runs on the boot CPU once the heap is quiet (boot scrub done or idle
 * scrubbing finished). heap_for_each_free() takes each node lock in turn.
 */
#include <keel/bootmem.h>
#include <keel/heap.h>
#include <keel/printk.h>
#include <keel/report.h>

static void audit_count_chunk(struct page_info *head, unsigned int order,
			      unsigned int zone, void *arg)
{
	uint64_t *free_pages = arg;

	(void)head, (void)zone;
	*free_pages += 1ULL << order;
}

/**
 * audit_run() - account for every RAM page.
 * @out: the result.
 * @full: also run heap_check() (audit=full).
 *
 * Return: nothing; @out->ok says whether the books balance.
 */
void audit_run(struct audit_result *out, bool full)
{
	const struct bootmem_region *ram;
	unsigned int count, nodes = heap_node_count();
	uint64_t walked = 0, counted;

	out->ram_pages = 0;
	ram = bootmem_ram_regions(&count);
	for (unsigned int i = 0; ram && i < count; i++)
		out->ram_pages +=
			(pa_val(ram[i].end) - pa_val(ram[i].start)) / PAGE_SIZE;

	for (unsigned int n = 0; n < nodes; n++)
		heap_for_each_free(n, audit_count_chunk, &walked);
	counted = heap_free_pages();

	out->free_pages = walked;
	out->allocated_pages = heap_allocated_pages();
	out->reserved_pages = bootmem_reserved_ram_bytes() / PAGE_SIZE;
	out->lost_pages = (int64_t)(out->ram_pages - out->free_pages -
				    out->allocated_pages - out->reserved_pages);
	out->problems = full ? heap_check() : 0;

	if (walked != counted) {
		pr_err("audit: free lists hold %llu pages, counters say %llu\n",
		       (unsigned long long)walked, (unsigned long long)counted);
		out->problems++;
	}
	if (out->lost_pages)
		pr_err("audit: %lld pages lost (ram %llu, free %llu, allocated "
		       "%llu, reserved %llu)\n",
		       (long long)out->lost_pages,
		       (unsigned long long)out->ram_pages,
		       (unsigned long long)out->free_pages,
		       (unsigned long long)out->allocated_pages,
		       (unsigned long long)out->reserved_pages);
	out->ok = out->lost_pages == 0 && out->problems == 0;
}
