/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: whole forged handovers, as a stand-in new image
 * would find them (issue 36 section 7): the handover's bytes AND the
 * memory its records point at (the p2m table pages), then the whole
 * restore: handover_parse() and handover_apply() (boot/handover.c, the
 * vCPU checks of boot/handover_vcpu.c), bootmem, the frame table, the
 * heap, domains_restore() (the isolation check of
 * common/domain/domain_restore_check.c, the p2m walk, the adoption).
 *
 * The machine is tests/data/sandbox-liveupdate.fw's: RAM [0, 256M) on
 * node 0 and [1G, 1280M) on node 1, bios [0, 1M), kernel [1M, 3M),
 * acpi-tables [0xff00000, 0x10000000); 4 CPUs; this image resumes arm64
 * vCPUs (488-byte states), so vCPU records are read, not refused.
 *
 * The input: u64 the handover's physical address, the handover (its
 * header's size), then any number of {u64 pa, 4096 bytes}: pages written
 * into RAM before the boot (a p2m table page, say). The checksum is made
 * right, so the fuzzer reaches the records. Seeds: a real handover the
 * sandbox wrote (tests/fuzz/corpus/handover_whole/real-*, captured by a
 * stand-in new image, KEEL_LIVEUPDATE_IMAGE), and class-* forgeries of it
 * (tests/fuzz/mkseeds.py).
 *
 * What must hold, whatever the bytes (each a trap when broken): a taken
 * handover's vCPUs have an EL0t/EL1t/EL1h PSTATE without IL and a pc in
 * their domain's IPA space; a restored domain's extents overlap no table
 * range and no other range of any domain (checked pairwise here, the
 * oracle of the sort and sweep), and the heap says its id owns each of
 * them; a bad range (version 4 on) outside the preserved ranges is not heap
 * memory; the audit loses no page.
 */
#include <arch/mm.h>
#include <keel/audit.h>
#include <keel/bootmem.h>
#include <keel/domain.h>
#include <keel/frametable.h>
#include <keel/handover.h>
#include <keel/heap.h>
#include <keel/heap_boot.h>
#include <keel/numa.h>
#include <keel/options.h>

#include "fuzz_util.h"

#define MiB	 (1ull << 20)
#define G1	 (1ull << 30)
#define RAM_TOP	 (1280 * MiB)
#define PAGE_REC (8 + PAGE_SIZE)
/* The pairwise oracle's limit: beyond it only the restore's own check. */
#define ORACLE_MAX 512

static struct bootinfo bi;
static struct domain_set ds;
static struct keel_options opts;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void machine(void)
{
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(256 * MiB), 0);
	bootinfo_add_ram(&bi, pa(G1), pa(RAM_TOP), 1);
	bootinfo_add_reserved(&bi, pa(0), pa(MiB), "bios");
	bootinfo_add_reserved(&bi, pa(MiB), pa(3 * MiB), "kernel");
	bootinfo_add_reserved(&bi, pa(0xff00000), pa(0x10000000),
			      "acpi-tables");
	for (unsigned int c = 0; c < 4; c++)
		bootinfo_add_cpu(&bi, c, c / 2, c / 2, c % 2, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_set_distance(&bi, 0, 1, 20);
	bootinfo_set_distance(&bi, 1, 0, 20);
	bootinfo_sanitise(&bi);
	bi.handover.vcpu_arch = HANDOVER_VCPU_ARM64;
	bi.handover.vcpu_state_bytes = HANDOVER_ARM64_STATE_BYTES;
}

static bool in_ram(uint64_t p, uint64_t len)
{
	return (p < 256 * MiB && len <= 256 * MiB - p) ||
	       (p >= G1 && p < RAM_TOP && len <= RAM_TOP - p);
}

/* The pages of the input after the handover, into RAM (not keel's). */
static void write_pages(const uint8_t *p, size_t left)
{
	for (; left >= PAGE_REC; p += PAGE_REC, left -= PAGE_REC) {
		uint64_t at;

		memcpy(&at, p, sizeof(at));
		at &= ~(uint64_t)(PAGE_SIZE - 1);
		if (at >= 3 * MiB && in_ram(at, PAGE_SIZE))
			memcpy(phys_to_virt(pa(at)), p + 8, PAGE_SIZE);
	}
}

static uint64_t word(const uint8_t *s, size_t off)
{
	uint64_t w;

	memcpy(&w, s + off, sizeof(w));
	return w;
}

/* The vCPUs the reader kept: their PSTATE and pc as the format says. */
static void check_vcpus(const struct bi_handover *h)
{
	for (unsigned int v = 0; v < h->vcpu_count; v++) {
		const struct bi_handover_vcpu *bv = &h->vcpus[v];
		uint64_t psr = word(bv->state, HANDOVER_ARM64_PSTATE);
		uint64_t pc = word(bv->state, HANDOVER_ARM64_PC);
		uint64_t m = psr & 0x1f;

		FUZZ_CHECK(m == 0 || m == 4 || m == 5);
		FUZZ_CHECK(!(psr & (1ull << 20)) && !(pc & 3));
		for (unsigned int d = 0; d < h->domain_count; d++) {
			struct handover_domain rec;

			handover_view_read(&h->domains[d].view,
					   h->domains[d].rec, &rec,
					   sizeof(rec));
			if (h->domains[d].id == bv->domain)
				FUZZ_CHECK(rec.p2m_ipa_bits >= 64 ||
					   !(pc >> rec.p2m_ipa_bits));
		}
	}
}

/* Range @k of domain @d (tables first, then extents): [*s, *e). */
static void range_of(const struct bi_handover_domain *d, uint32_t k,
		     uint64_t *s, uint64_t *e)
{
	if (k < d->table_count) {
		struct handover_range r = handover_domain_tables(d, k);

		*s = r.start;
		*e = r.end;
	} else {
		struct handover_extent x =
			handover_domain_extent(d, k - d->table_count);

		*s = x.pa;
		*e = x.pa + (x.pages << PAGE_SHIFT);
	}
}

/* Does extent @x of restored domain @i overlap any other range? */
static void check_extent_alone(const struct bi_handover *h, unsigned int i,
			       uint32_t k)
{
	uint64_t s, e, s2, e2;

	range_of(&h->domains[i], k, &s, &e);
	for (unsigned int j = 0; j < h->domain_count; j++) {
		const struct bi_handover_domain *o = &h->domains[j];

		for (uint32_t n = 0; n < o->table_count + o->extent_count;
		     n++) {
			if (j == i && n == k)
				continue;
			range_of(o, n, &s2, &e2);
			FUZZ_CHECK(e <= s2 || e2 <= s);
		}
	}
}

/* Every restored domain: isolated (the oracle), its extents its own. */
static void check_restored(const struct bi_handover *h)
{
	struct domain_view v;
	uint64_t n = handover_span_count(h);

	for (unsigned int i = 0; domain_view(&ds, i, &v); i++) {
		const struct bi_handover_domain *d = &h->domains[i];

		if (!v.built)
			continue;
		for (uint32_t k = d->table_count;
		     n <= ORACLE_MAX && k < d->table_count + d->extent_count;
		     k++)
			check_extent_alone(h, i, k);
		for (uint32_t k = 0; k < d->extent_count; k++) {
			struct handover_extent x = handover_domain_extent(d, k);

			FUZZ_CHECK(heap_owner_of(paddr_to_pfn(pa(x.pa)), NULL,
						 NULL) == d->id);
		}
	}
}

/* The new image's boot up to the restore, then the checks. */
/*
 * Every page of a bad range (version 4 on, every record) that no
 * preserved range holds is not heap memory after the handoff: never
 * handed out (the first and last page of each range, up to ORACLE_MAX
 * ranges a record).
 */
static void check_bad_range(const struct bi_handover *h,
			    struct handover_range r)
{
	uint64_t ends[2] = {r.start, r.end - PAGE_SIZE};

	for (unsigned int k = 0; k < 2; k++) {
		bool kept = false;

		for (unsigned int j = 0; j < h->preserved_count; j++) {
			struct handover_range p =
				handover_preserved_range(h, j);

			kept |= p.start <= ends[k] && ends[k] < p.end;
		}
		if (!kept)
			FUZZ_CHECK(heap_owner_of(pfn(ends[k] >> PAGE_SHIFT),
						 NULL,
						 NULL) == HEAP_OWNER_NONE);
	}
}

static void check_bad(const struct bi_handover *h)
{
	for (unsigned int j = 0; j < h->bad_recs; j++)
		for (unsigned int i = 0; i < h->bad[j].count && i < ORACLE_MAX;
		     i++)
			check_bad_range(h, handover_bad_range(&h->bad[j], i));
}

static void boot_and_restore(void)
{
	struct audit_result a;
	unsigned int failed;

	numa_init(&bi);
	bootmem_init();
	bootmem_init_from_bootinfo(&bi);
	frametable_init(bi.node_count);
	heap_init(HEAP_INIT_LAZY, bi.node_count,
		  (const uint8_t(*)[MAX_NUMNODES])bi.distance);
	heap_handoff(false);
	check_bad(&bi.handover);
	domains_restore(&ds, &bi, &opts, &failed);
	check_restored(&bi.handover);
	audit_run(&a, false);
	FUZZ_CHECK(!a.lost_pages);
}

/*
 * The checksum the handover at @ho (physical @at) needs: over its one
 * block, or (version 7 in pieces: the pieces record's addresses, each in
 * RAM, the rest of the handover's bytes whatever RAM holds there) over
 * its pieces; 0 when a piece lies outside RAM (the reader refuses).
 */
static uint32_t pieces_checksum(uint8_t *ho, uint64_t at,
				const struct handover_header *hd)
{
	struct handover_header z = *hd;
	struct handover_view v = {.head = ho, .size = hd->size};

	z.checksum = 0;
	memcpy(ho, &z, sizeof(z));
	if (hd->version < 7 || hd->piece_count < 2)
		return handover_checksum(ho, hd->size);
	if (hd->piece_shift < PAGE_SHIFT || hd->piece_shift > 28 ||
	    hd->size > (uint64_t)hd->piece_count << hd->piece_shift ||
	    144 + hd->piece_count * 8ull > hd->size ||
	    144 + hd->piece_count * 8ull > 1ull << hd->piece_shift)
		return 0;
	v.shift = hd->piece_shift;
	v.count = hd->piece_count;
	v.table_off = 144;
	v.delta = (uintptr_t)ho - at;
	for (uint32_t k = 0; k < v.count; k++) {
		uint64_t p;

		memcpy(&p, ho + 144 + k * 8ull, sizeof(p));
		if (!in_ram(p, 1ull << v.shift))
			return 0;
	}
	return handover_view_checksum(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ram;
	struct handover_header hd;
	uint64_t at;
	uint8_t *ho;

	fuzz_console_quiet();
	if (!ram) {
		FUZZ_CHECK(!sandbox_ram_init(RAM_TOP));
		options_defaults(&opts);
		ram = true;
	}
	if (size < 8 + sizeof(hd))
		return 0;
	memcpy(&at, data, sizeof(at));
	memcpy(&hd, data + 8, sizeof(hd));
	if (!IS_ALIGNED(at, PAGE_SIZE) || at < 3 * MiB ||
	    hd.size < sizeof(hd) || hd.size > size - 8 || !in_ram(at, hd.size))
		return 0;
	machine();
	write_pages(data + 8 + hd.size, size - 8 - hd.size);
	ho = phys_to_virt(pa(at));
	memcpy(ho, data + 8, hd.size);
	hd.checksum = pieces_checksum(ho, at, &hd);
	memcpy(ho, &hd, sizeof(hd));
	/* handover_locate()'s result (in RAM), without its console hold. */
	bi.handover.pa = pa(at);
	bi.handover.size = hd.piece_count >= 2 && hd.piece_shift < 32
				   ? MIN(hd.size, 1ull << hd.piece_shift)
				   : hd.size;
	bi.handover.va = ho;
	handover_apply(&bi, false);
	if (bi.handover.state != HANDOVER_TAKEN)
		return 0;
	check_vcpus(&bi.handover);
	boot_and_restore();
	return 0;
}
