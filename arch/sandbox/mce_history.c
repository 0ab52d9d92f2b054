// SPDX-License-Identifier: MIT
/*
 * The host's runtime history (arch_ras_boot(), include/arch/ras.h): the
 * firmware description's `mce START END` lines (boot/fwdesc.c) name pages
 * that machine checks took out of service while this host ran, before
 * this boot. A cold boot takes them out once the heap is open, as the
 * machine checks did: heap_offline(), broken, from a machine check, so
 * the heap's bad list has them and a live update's handover carries them
 * (source mce). A boot with a handover ignores the lines: what the last
 * image took out reaches it through the handover, which is the point (a
 * host that has run for years carries its bad pages that way; its
 * firmware names few). The same lines may stand in a file of their own,
 * `--mce-history=HFILE`, which a live update does not pass on to its new
 * image (the benchmark's realistic source, scripts/bench-ras.py: the new
 * image reads only the machine's description, not 100,000 lines of the
 * last one's past). Ranges wait in host memory; at most
 * HISTORY_PAGES_MAX pages are offlined, past it one warning.
 */
#include <arch/ras.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/fwdesc.h>
#include <keel/heap.h>
#include <keel/printk.h>

#include "sandbox_priv.h"

#define HISTORY_PAGES_MAX (1ULL << 22)

struct hist_range {
	uint64_t start, end; /* bytes, whole pages after the rounding */
};

static struct hist_range *hist;
static size_t hist_count, hist_cap;
static bool hist_lost, hist_ignore;

/* fwdesc's on_mce: [start, end) rounded out to pages, kept for later. */
void sandbox_mce_history_add(void *arg, bool ram, uint64_t start, uint64_t end)
{
	(void)arg;
	(void)ram;
	if (hist_count == hist_cap) {
		size_t cap = hist_cap ? hist_cap * 2 : 1024;
		struct hist_range *n = os_realloc(hist, cap * sizeof(*n));

		if (!n) {
			hist_lost = true;
			return;
		}
		hist = n;
		hist_cap = cap;
	}
	hist[hist_count].start = start & ~(uint64_t)(PAGE_SIZE - 1);
	hist[hist_count].end =
		end > UINT64_MAX - (PAGE_SIZE - 1)
			? UINT64_MAX & ~(uint64_t)(PAGE_SIZE - 1)
			: (end + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
	hist_count++;
}

/*
 * This boot came with a handover: the history is the handover's; the
 * description's @lines mce lines were only counted (fwdesc's mce_skip).
 */
void sandbox_mce_history_ignore(unsigned int lines)
{
	hist_ignore = true;
	hist_count = lines;
}

int sandbox_mce_history_read(const char *path, bool handover)
{
	static struct bootinfo scratch; /* what other lines would describe */
	struct fwdesc_files files = {.on_mce = sandbox_mce_history_add};
	size_t len;
	char *buf = sandbox_map_file(path, &len);

	if (!buf) {
		os_eprintf("keel: error: cannot read --mce-history %s: %s\n",
			   path, os_errstr());
		return -1;
	}
	bootinfo_init(&scratch, BOOT_SANDBOX);
	files.mce_skip = handover;
	fwdesc_parse_files(&scratch, buf, len, &files);
	sandbox_unmap_file(buf, len);
	if (handover && files.mce_skipped)
		sandbox_mce_history_ignore(files.mce_skipped);
	if (scratch.ram.count || scratch.reserved.count || scratch.cpu_count ||
	    files.acpidump[0] || files.dtb[0])
		pr_warn("sandbox: --mce-history %s: only its mce lines are "
			"read, the others ignored\n",
			path);
	return 0;
}

void arch_ras_boot(void)
{
	uint64_t done = 0, refused = 0, seen = 0;

	if (hist_lost)
		pr_warn("sandbox: mce lines: no host memory for all of them, "
			"some not offlined\n");
	if (!hist_count)
		return;
	if (hist_ignore) {
		pr_info("sandbox: %zu mce lines not replayed: this boot came "
			"with a handover, which carries what the last image "
			"took out\n",
			hist_count);
		return;
	}
	for (size_t i = 0; i < hist_count; i++) {
		for (uint64_t a = hist[i].start; a < hist[i].end;
		     a += PAGE_SIZE) {
			if (seen++ == HISTORY_PAGES_MAX)
				pr_warn("sandbox: mce lines name more than "
					"%llu pages, the rest not offlined\n",
					(unsigned long long)HISTORY_PAGES_MAX);
			if (seen > HISTORY_PAGES_MAX)
				break;
			if (heap_offline(
				    paddr_to_pfn(pa(a)),
				    (enum heap_bad_reason)(HEAP_BAD_BROKEN |
							   HEAP_BAD_FROM_MCE)))
				refused++;
			else
				done++;
		}
	}
	pr_info("sandbox: the host's machine-check history: %llu pages "
		"offlined, %llu refused\n",
		(unsigned long long)done, (unsigned long long)refused);
}
