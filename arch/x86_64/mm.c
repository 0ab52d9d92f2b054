/* SPDX-License-Identifier: MIT */
/*
 * x86_64 memory layout and the direct map.
 *
 * Layout (the simplest one that is robust with both multiboot loaders):
 *   - The kernel is linked at KERNEL_LOAD_PA (1 MiB) and runs identity
 *     mapped wherever its loader put it (GRUB's multiboot2 may relocate
 *     it: head.S); an image symbol's address is its physical address.
 *     Loaders hand over physical addresses and 32-bit pointers, which
 *     head.S and the multiboot parsers use as they are.
 *   - head.S identity maps [0, 4 GiB) (2 MiB pages; page 0 unmapped so
 *     NULL faults). This covers the image, its bss, the boot stack and every
 *     multiboot structure (32-bit addresses by definition).
 *   - The direct map: every RAM range of the firmware map at
 *     DIRECT_MAP_BASE + pa (0xffff800000000000, PML4 slots 256..383, so pa
 *     < 2^DIRECT_MAP_BITS = 64 TiB; setup.c clamps paddr_bits to that).
 *     arch_phys_to_virt(pa) = DIRECT_MAP_BASE + pa; common/ reaches RAM only
 *     through it. The kernel image is part of RAM, so it is mapped high too.
 *
 * The direct map is built before keel_main(), from the bootinfo RAM ranges
 * (mapping is idempotent, so overlaps and disorder are harmless), with
 * 1 GiB pages when CPUID 0x80000001 EDX bit 26 (pdpe1gb)
 * says so, else 2 MiB pages, each RAM range rounded out to the page size.
 * Rounding may map a hole next to RAM as write-back; the MTRRs keep MMIO
 * holes uncached, and nothing dereferences those addresses.
 *
 * Page-table pages come from a static pool in .bss (part of the "kernel"
 * reservation): PT_POOL_PAGES pages map 1 PiB with 1 GiB pages, or about
 * PT_POOL_PAGES - 1 GiB of RAM with 2 MiB pages. mm_init_direct_map()
 * maps what the pool covers, early; when a machine needs more, the rest
 * waits for mm_map_rest(), after fwboot_finish(): the count still missing
 * is taken from a free RAM range below 4 GiB (identity mapped, so the
 * tables can be written before the direct map exists), clear of every
 * reservation, bad page and preserved range the boot knows by then, and
 * added to bootinfo as the "page tables" reservation.
 *
 * MMIO (the local APIC, the HPET): mm_map_uc() marks the identity-mapped
 * 2 MiB pages covering a device below 4 GiB uncached (PCD|PWT: UC whatever
 * the MTRRs and the PAT say). The 2 MiB pages holding the local APIC
 * (0xfee00000) and the HPET (0xfed00000) hold only MMIO on PC platforms.
 *
 * Lock: none; runs on the boot CPU before the secondaries start (they
 * share these tables read-only).
 */
#include <arch/mm.h>
#include <asm/x86.h>
#include <keel/bootinfo.h>
#include <keel/printk.h>
#include <keel/string.h>

#define PTE_P		 0x1ULL
#define PTE_RW		 0x2ULL
#define PTE_PWT		 0x8ULL
#define PTE_PCD		 0x10ULL
#define PTE_PS		 0x80ULL
#define PTE_ADDR	 0x000ffffffffff000ULL
#define PT_POOL_PAGES	 32
#define SZ_1M		 (1ULL << 20)
#define SZ_2M		 (1ULL << 21)
#define SZ_1G		 (1ULL << 30)
#define SZ_4G		 (1ULL << 32)
#define DIRECT_MAP_LIMIT (1ULL << DIRECT_MAP_BITS)
#define IDENT_MAP_LIMIT	 ((uint64_t)IDENT_MAP_GIB << 30)

static uint64_t pt_pool[PT_POOL_PAGES][512] __aligned(4096);
static unsigned int pt_pool_used;
static uint64_t pt_extra_pa, pt_extra_pages, pt_extra_used;
static bool direct_map_gb;

/* A table page; NULL before the extra pages are placed (mm_map_rest()). */
static uint64_t *pt_alloc(void)
{
	uint64_t *page;

	if (pt_pool_used < PT_POOL_PAGES)
		return pt_pool[pt_pool_used++];
	if (!pt_extra_pa)
		return NULL;
	if (pt_extra_used >= pt_extra_pages) {
		/* The count below is an upper bound, so this is a bug. */
		pr_err("mm: out of page-table pages\n");
		cpu_halt_forever();
	}
	page = (uint64_t *)(uintptr_t)(pt_extra_pa +
				       pt_extra_used++ * PAGE_SIZE);
	memset(page, 0, PAGE_SIZE);
	return page;
}

/* The next-level table behind @entry, created when absent; NULL: none. */
static uint64_t *pt_next(uint64_t *entry)
{
	if (!(*entry & PTE_P)) {
		uint64_t *t = pt_alloc();

		if (!t)
			return NULL;
		*entry = (uint64_t)(uintptr_t)t | PTE_P | PTE_RW;
	}
	/* Tables live below 4 GiB, identity mapped. */
	return (uint64_t *)(uintptr_t)(*entry & PTE_ADDR);
}

/*
 * The table pages mapping every RAM range of @bi (sorted, as sanitised)
 * still needs: a PDPT for each 512 GiB slot with none, and with 2 MiB
 * pages a PD for each GiB with none. Exact for sorted ranges (a shared
 * table is counted once); a step per GiB.
 */
static uint64_t pt_missing(const struct bootinfo *bi)
{
	uint64_t n = 0, last4 = ~0ULL, last3 = ~0ULL;

	for (unsigned int i = 0; i < bi->ram.count; i++) {
		uint64_t s = pa_val(bi->ram.regions[i].start);
		uint64_t e =
			MIN(pa_val(bi->ram.regions[i].end), DIRECT_MAP_LIMIT);

		for (uint64_t p = ALIGN_DOWN(s, SZ_1G); p < e; p += SZ_1G) {
			uint64_t va = DIRECT_MAP_BASE + p;
			uint64_t l4 = boot_pml4[(va >> 39) & 511];
			const uint64_t *pdpt =
				(const uint64_t *)(uintptr_t)(l4 & PTE_ADDR);

			if (!(l4 & PTE_P) && va >> 39 != last4) {
				n++;
				last4 = va >> 39;
			}
			if (direct_map_gb || va >> 30 == last3 ||
			    ((l4 & PTE_P) && (pdpt[(va >> 30) & 511] & PTE_P)))
				continue;
			n++;
			last3 = va >> 30;
		}
	}
	return n;
}

/*
 * Find @pages free pages of RAM in [1 MiB, 4 GiB), clear of every claim
 * the boot knows by now (bootinfo_claim(): reservations, the bad pages
 * of every source, a handover's preserved memory). Return: pa or 0.
 */
static uint64_t find_low_free(const struct bootinfo *bi, uint64_t pages)
{
	uint64_t size = pages * PAGE_SIZE;

	for (unsigned int i = 0; i < bi->ram.count; i++) {
		uint64_t s = MAX(pa_val(bi->ram.regions[i].start), SZ_1M);
		uint64_t e = MIN(pa_val(bi->ram.regions[i].end), SZ_4G);
		uint64_t skip;

		s = ALIGN_UP(s, PAGE_SIZE);
		while (s < e && e - s >= size) {
			if (!bootinfo_claim(bi, s, s + size, NULL, &skip))
				return s;
			s = ALIGN_UP(MAX(skip, s + PAGE_SIZE), PAGE_SIZE);
		}
	}
	return 0;
}

/* Map [s, e). Return: false when the table pages ran out (not yet placed). */
static bool map_range(uint64_t s, uint64_t e)
{
	uint64_t unit = direct_map_gb ? SZ_1G : SZ_2M;

	for (uint64_t p = ALIGN_DOWN(s, unit); p < e; p += unit) {
		uint64_t va = DIRECT_MAP_BASE + p;
		uint64_t *pdpt = pt_next(&boot_pml4[(va >> 39) & 511]);
		uint64_t *pd;

		if (!pdpt)
			return false;
		if (direct_map_gb) {
			pdpt[(va >> 30) & 511] = p | PTE_P | PTE_RW | PTE_PS;
			continue;
		}
		pd = pt_next(&pdpt[(va >> 30) & 511]);
		if (!pd)
			return false;
		pd[(va >> 21) & 511] = p | PTE_P | PTE_RW | PTE_PS;
	}
	return true;
}

/* Map every RAM range of @bi. Return: false when the table pages ran out. */
static bool map_all(const struct bootinfo *bi)
{
	static bool warned;

	for (unsigned int i = 0; i < bi->ram.count; i++) {
		uint64_t s = pa_val(bi->ram.regions[i].start);
		uint64_t e = pa_val(bi->ram.regions[i].end);

		if (e > DIRECT_MAP_LIMIT && !warned) {
			pr_warn("mm: RAM above %llu TiB is not mapped (range "
				"%#llx-%#llx)\n",
				(unsigned long long)(DIRECT_MAP_LIMIT >> 40),
				(unsigned long long)s, (unsigned long long)e);
			warned = true;
		}
		e = MIN(e, DIRECT_MAP_LIMIT);
		if (s < e && !map_range(s, e))
			return false;
	}
	return true;
}

static bool map_deferred;

static void map_said(void)
{
	write_cr3(read_cr3());
	pr_info("mm: direct map at %#llx with %s pages, %llu page-table "
		"pages\n",
		(unsigned long long)DIRECT_MAP_BASE,
		direct_map_gb ? "1 GiB" : "2 MiB",
		(unsigned long long)(pt_pool_used + pt_extra_used));
}

/**
 * mm_init_direct_map() - map the RAM ranges of @bi at DIRECT_MAP_BASE + pa,
 * as far as the static pool of table pages goes. A machine that needs
 * more (2 MiB pages past about 30 GiB) has the rest mapped by
 * mm_map_rest(), once every claim on RAM is known.
 */
void mm_init_direct_map(struct bootinfo *bi)
{
	direct_map_gb = cpuid(0x80000000, 0).eax >= 0x80000001 &&
			(cpuid(0x80000001, 0).edx & (1u << 26));
	map_deferred = !map_all(bi);
	if (!map_deferred)
		map_said();
	else
		write_cr3(read_cr3());
}

/**
 * mm_map_rest() - the rest of the direct map, after fwboot_finish(): its
 * table pages are placed in low RAM only now, clear of what the firmware,
 * the command line (badpage=, badram=, memmap=) and a live update's
 * handover (its preserved memory, its bad pages, itself) claim. Placed
 * before those were read, they could land on a page the operator called
 * bad or on a guest's memory. Adds the "page tables" reservation to @bi;
 * halts with a message when no low RAM can hold the tables, unless a
 * refused handover reserved all RAM (nothing maps past the pool then: the
 * boot stops before the heap).
 */
void mm_map_rest(struct bootinfo *bi)
{
	if (!map_deferred)
		return;
	pt_extra_pages = pt_missing(bi);
	pt_extra_pa = find_low_free(bi, pt_extra_pages);
	if (!pt_extra_pa && bi->handover.state == HANDOVER_REFUSED) {
		pr_warn("mm: no free RAM below 4 GiB for %llu page-table "
			"pages: the direct map stops where the static pool "
			"does\n",
			(unsigned long long)pt_extra_pages);
		return;
	}
	if (!pt_extra_pa) {
		pr_err("mm: no free RAM below 4 GiB for %llu page-table "
		       "pages; halting\n",
		       (unsigned long long)pt_extra_pages);
		cpu_halt_forever();
	}
	bootinfo_add_reserved(bi, pa(pt_extra_pa),
			      pa(pt_extra_pa + pt_extra_pages * PAGE_SIZE),
			      "page tables");
	map_deferred = !map_all(bi);
	map_said();
}

/**
 * mm_direct_mapped() - is [va, va+len) inside the direct map and present?
 * Used by the exception handler before it follows a frame pointer.
 * Return: true when every byte is mapped.
 */
bool mm_direct_mapped(uint64_t va, uint64_t len)
{
	for (uint64_t p = ALIGN_DOWN(va, PAGE_SIZE); p < va + len;
	     p += PAGE_SIZE) {
		uint64_t e;
		const uint64_t *t;

		if (p < DIRECT_MAP_BASE ||
		    p - DIRECT_MAP_BASE >= DIRECT_MAP_LIMIT)
			return false;
		e = boot_pml4[(p >> 39) & 511];
		if (!(e & PTE_P))
			return false;
		t = (const uint64_t *)(uintptr_t)(e & PTE_ADDR);
		e = t[(p >> 30) & 511];
		if (!(e & PTE_P))
			return false;
		if (e & PTE_PS)
			continue;
		t = (const uint64_t *)(uintptr_t)(e & PTE_ADDR);
		if (!(t[(p >> 21) & 511] & PTE_P))
			return false;
	}
	return true;
}

/**
 * arch_phys_to_virt() - the direct-map address of @p.
 * Return: DIRECT_MAP_BASE + pa.
 */
void *arch_phys_to_virt(paddr_t p)
{
	return (void *)(uintptr_t)(DIRECT_MAP_BASE + pa_val(p));
}

/**
 * arch_virt_to_phys() - inverse of arch_phys_to_virt(); identity-mapped
 * kernel addresses (image, bss, boot stack) are their own physical address.
 * Return: the physical address of @va.
 */
paddr_t arch_virt_to_phys(const void *va)
{
	uint64_t v = (uint64_t)(uintptr_t)va;

	return pa(v >= DIRECT_MAP_BASE ? v - DIRECT_MAP_BASE : v);
}

/**
 * mm_map_uc() - make the device at [pa, pa+len) below 4 GiB reachable
 * uncached through the identity map.
 * @pa: physical address of the registers
 * @len: their size
 * Return: the virtual address (== pa), or NULL when it is not below 4 GiB.
 */
void *mm_map_uc(uint64_t pa, uint64_t len)
{
	const uint64_t *pdpt;

	if (!len || pa < SZ_2M || pa >= IDENT_MAP_LIMIT ||
	    len > IDENT_MAP_LIMIT - pa)
		return NULL;
	pdpt = (const uint64_t *)(uintptr_t)(boot_pml4[0] & PTE_ADDR);
	for (uint64_t p = ALIGN_DOWN(pa, SZ_2M); p < pa + len; p += SZ_2M) {
		uint64_t *pd =
			(uint64_t *)(uintptr_t)(pdpt[p >> 30] & PTE_ADDR);

		pd[(p >> 21) & 511] |= PTE_PCD | PTE_PWT;
		__asm__ __volatile__("invlpg (%0)" : : "r"(p) : "memory");
	}
	return (void *)(uintptr_t)pa;
}
