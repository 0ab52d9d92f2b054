/* SPDX-License-Identifier: MIT */
/*
 * arm64 MMU: one identity map (VA == PA) shared by every CPU, 4 KiB
 * granule, 48-bit input addresses (4 levels, starting at level 0).
 *
 * What it owns: the page-table pool (.pgtables, after .bss, reserved as
 * "page tables" by setup.c) and the translation registers of the EL keel
 * runs at (TTBR0/TCR/MAIR/SCTLR of EL2, or of EL1 with TTBR1 walks off).
 *
 * Two phases:
 *  1. mm_early_init(), MMU off: map the image and the DTB as Normal WB
 *     (exactly: their GiB may hold no-map firmware memory, or no RAM)
 *     plus the early UART as Device-nGnRE, invalidate the image range from the caches (lines
 *     may be stale: everything so far was written with the MMU off) and
 *     turn MMU and caches on. The DT can then be parsed from Normal memory.
 *  2. mm_map_normal()/mm_map_device() for all RAM and the DT's UART, then
 *     mm_commit(): one DSB and one TLB invalidate for the whole batch.
 *
 * Mappings use the largest block the alignment allows: 1 GiB (level 1),
 * 2 MiB (level 2), else 4 KiB pages (level 3), so RAM edges that are not
 * 2 MiB aligned are mapped exactly and never beyond.
 *
 * Invariants: entries are only ever added (invalid -> valid), never
 * changed, so no break-before-make is needed and secondaries can share the
 * tables. A request already covered by a block of the same kind is a
 * no-op; one that conflicts with an existing block (Device inside Normal)
 * is refused with a warning. No lock: only the boot CPU maps, before SMP.
 */
#include <arch/mm.h>
#include <asm/arm64.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/printk.h>

#define PT_ENTRIES 512
/*
 * Part of keel's image (image_size, arch/arm64/keel.lds: at most 2 MiB for
 * ImageBuilder): a QEMU virt boot uses under 10 pages (the root, one level-1
 * table, level-2/3 tables for the UART, the GIC and RAM edges not 2 MiB
 * aligned); each such RAM edge beyond costs at most two.
 */
#define PT_POOL_PAGES  32

#define DESC_VALID     (1ULL << 0)
#define DESC_TABLE     (1ULL << 1) /* level 0-2: table; level 3: page */
#define DESC_ATTR(i)   ((uint64_t)(i) << 2)
#define DESC_AP1       (1ULL << 6) /* RES1 in the EL2 (non-VHE) regime */
#define DESC_SH_INNER  (3ULL << 8)
#define DESC_AF	       (1ULL << 10)
#define DESC_PXN       (1ULL << 53)
#define DESC_XN	       (1ULL << 54)
#define DESC_ADDR_MASK 0x0000fffffffff000ULL

/* MAIR indices */
#define ATTR_DEVICE 0 /* Device-nGnRE */
#define ATTR_NORMAL 1 /* Normal, inner/outer WB RA WA */
#define MAIR_VALUE \
	((0x04ULL << (8 * ATTR_DEVICE)) | (0xffULL << (8 * ATTR_NORMAL)))

#define VA_BITS 48

struct arm64_mmu_cfg arm64_mmu_cfg;

static uint64_t pt_pool[PT_POOL_PAGES][PT_ENTRIES]
	__attribute__((section(".pgtables"), aligned(4096)));
static unsigned int pt_used;
static uint64_t *pt_root;
static unsigned int pa_bits = 48;

static uint64_t *pt_alloc(void)
{
	uint64_t *t;

	if (pt_used >= PT_POOL_PAGES)
		panic("arm64 mm: page-table pool exhausted (%u pages)",
		      PT_POOL_PAGES);
	t = pt_pool[pt_used++];
	for (unsigned int i = 0; i < PT_ENTRIES; i++)
		t[i] = 0;
	return t;
}

static unsigned int level_shift(unsigned int level)
{
	return 39 - 9 * level;
}

static uint64_t leaf_attrs(bool device)
{
	uint64_t a = DESC_AF;

	if (device)
		a |= DESC_ATTR(ATTR_DEVICE) | DESC_XN | DESC_PXN;
	else
		a |= DESC_ATTR(ATTR_NORMAL) | DESC_SH_INNER;
	if (arm64_el == 2)
		a |= DESC_AP1;
	return a;
}

/* Map [start, end) (4 KiB aligned) in @table at @level. */
static void map_level(uint64_t *table, unsigned int level, uint64_t start,
		      uint64_t end, bool device)
{
	uint64_t size = 1ULL << level_shift(level);

	while (start < end) {
		uint64_t idx = (start >> level_shift(level)) & (PT_ENTRIES - 1);
		uint64_t next = ALIGN_DOWN(start, size) + size;
		uint64_t e = table[idx];

		if (next > end || next == 0)
			next = end;
		/* Whole aligned block: a block (levels 1, 2) or a page (3). */
		if (level >= 1 && IS_ALIGNED(start, size) &&
		    next - start == size && !(e & DESC_VALID)) {
			table[idx] = start | leaf_attrs(device) | DESC_VALID |
				     (level == 3 ? DESC_TABLE : 0);
		} else if (level < 3 &&
			   (!(e & DESC_VALID) || (e & DESC_TABLE))) {
			uint64_t *sub;

			if (!(e & DESC_VALID)) {
				sub = pt_alloc();
				table[idx] = (uint64_t)(uintptr_t)sub |
					     DESC_TABLE | DESC_VALID;
			} else {
				sub = (uint64_t *)(uintptr_t)(e &
							      DESC_ADDR_MASK);
			}
			map_level(sub, level + 1, start, next, device);
		} else if ((e & DESC_VALID) &&
			   ((e & DESC_ATTR(7)) !=
			    DESC_ATTR(device ? ATTR_DEVICE : ATTR_NORMAL))) {
			pr_warn("arm64 mm: [%#llx, %#llx) already mapped with "
				"other attributes\n",
				(unsigned long long)start,
				(unsigned long long)next);
		}
		start = next;
	}
}

static void map_range(uint64_t start, uint64_t end, bool device)
{
	start = ALIGN_DOWN(start, PAGE_SIZE);
	end = ALIGN_UP(end, PAGE_SIZE);
	if (end > (1ULL << VA_BITS))
		end = 1ULL << VA_BITS;
	if (start >= end)
		return;
	map_level(pt_root, 0, start, end, device);
}

/* The TCR value for our EL: T0SZ 16, WBWA inner-shareable walks, 4K. */
static uint64_t tcr_value(unsigned int parange)
{
	uint64_t tcr =
		(64 - VA_BITS) | (1ULL << 8) | (1ULL << 10) | (3ULL << 12);

	if (arm64_el == 2)
		return tcr | ((uint64_t)parange << 16) | (1ULL << 23) |
		       (1ULL << 31);
	/* TTBR1 walks off (EPD1); TG1 = 4K keeps the field valid. */
	return tcr | (1ULL << 23) | (2ULL << 30) | ((uint64_t)parange << 32);
}

static const unsigned int parange_bits[] = {32, 36, 40, 42, 44, 48, 52};

/**
 * mm_pa_bits() - physical address bits the CPU decodes (ID_AA64MMFR0_EL1).
 * Return: 32..52.
 */
unsigned int mm_pa_bits(void)
{
	return pa_bits;
}

/**
 * mm_pgtable_bytes_used() - bytes of the page-table pool in use.
 * Return: bytes.
 */
uint64_t mm_pgtable_bytes_used(void)
{
	return (uint64_t)pt_used * PAGE_SIZE;
}

static void dcache_inval_poc(uint64_t start, uint64_t end)
{
	uint64_t line = 4ULL << ((read_sysreg(ctr_el0) >> 16) & 0xf);

	for (uint64_t a = ALIGN_DOWN(start, line); a < end; a += line)
		__asm__ __volatile__("dc ivac, %0" ::"r"(a) : "memory");
	dsb(sy);
}

/*
 * Load arm64_mmu_cfg's MAIR, TCR and TTBR0 at our EL, invalidate its TLB,
 * then turn the MMU and caches on (the SCTLR kept in arm64_mmu_cfg).
 */
static void mmu_enable(void)
{
	uint64_t sctlr;

	if (arm64_el == 2) {
		write_sysreg(arm64_mmu_cfg.mair, mair_el2);
		write_sysreg(arm64_mmu_cfg.tcr, tcr_el2);
		write_sysreg(arm64_mmu_cfg.ttbr, ttbr0_el2);
		isb();
		__asm__ __volatile__("tlbi alle2" ::: "memory");
		dsb(nsh);
		isb();
		sctlr = read_sysreg(sctlr_el2);
	} else {
		write_sysreg(arm64_mmu_cfg.mair, mair_el1);
		write_sysreg(arm64_mmu_cfg.tcr, tcr_el1);
		write_sysreg(arm64_mmu_cfg.ttbr, ttbr0_el1);
		isb();
		__asm__ __volatile__("tlbi vmalle1" ::: "memory");
		dsb(nsh);
		isb();
		sctlr = read_sysreg(sctlr_el1);
	}
	/* Alignment checks stay off (A = 0) once memory is Normal. */
	sctlr |= SCTLR_M | SCTLR_C | SCTLR_I | SCTLR_SA;
	arm64_mmu_cfg.sctlr = sctlr;
	if (arm64_el == 2)
		write_sysreg(sctlr, sctlr_el2);
	else
		write_sysreg(sctlr, sctlr_el1);
	isb();
	__asm__ __volatile__("ic iallu" ::: "memory");
	dsb(nsh);
	isb();
}

/*
 * The DTB's bytes to map before the DT is parsed: its header's totalsize
 * (read with the MMU off: an aligned load), at least a page, at most the
 * boot protocol's 2 MiB. Nothing past it: the same GiB may hold no-map
 * firmware memory or no RAM at all.
 */
static uint64_t early_dtb_bytes(uint64_t dtb)
{
	const volatile uint32_t *h = (const volatile uint32_t *)(uintptr_t)dtb;
	uint64_t size;

	if (!dtb || !IS_ALIGNED(dtb, 8))
		return 0;
	size = __builtin_bswap32(h[1]);
	return MIN(MAX(size, (uint64_t)PAGE_SIZE), 2ULL << 20);
}

/**
 * mm_early_init() - build the first map and turn the MMU and caches on.
 * @image_start: physical start of the image (_head).
 * @image_end: physical end of the image including .bss and page tables.
 * @dtb: physical address of the DTB (0 when none).
 *
 * Runs with the MMU off: plain aligned writes only.
 */
void mm_early_init(paddr_t image_start, paddr_t image_end, paddr_t dtb)
{
	uint64_t mmfr0 = read_sysreg(id_aa64mmfr0_el1);
	unsigned int parange = mmfr0 & 0xf;

	if (parange >= ARRAY_SIZE(parange_bits))
		parange = ARRAY_SIZE(parange_bits) - 1;
	pa_bits = parange_bits[parange];
	/* 52-bit output needs FEAT_LPA2 descriptors; we use 48-bit ones. */
	if (parange > 5)
		parange = 5;

	pt_root = pt_alloc();
	map_range(pa_val(image_start), pa_val(image_end), false);
	map_range(pa_val(dtb), pa_val(dtb) + early_dtb_bytes(pa_val(dtb)),
		  false);
	map_range(CONFIG_SERIAL_PL011_BASE,
		  CONFIG_SERIAL_PL011_BASE + PAGE_SIZE, true);

	arm64_mmu_cfg.mair = MAIR_VALUE;
	arm64_mmu_cfg.tcr = tcr_value(parange);
	arm64_mmu_cfg.ttbr = (uint64_t)(uintptr_t)pt_root;

	/*
	 * Lines of the image (tables, .data, .bss, stack) may be stale in
	 * the caches from before we were loaded; memory is right.
	 */
	dcache_inval_poc(pa_val(image_start), pa_val(image_end));

	mmu_enable();
}

/**
 * mm_map_normal() - identity-map [start, end) as Normal write-back memory.
 * @start: first byte.
 * @end: one past the last byte.
 *
 * Takes effect at the next mm_commit().
 */
void mm_map_normal(paddr_t start, paddr_t end)
{
	map_range(pa_val(start), pa_val(end), false);
}

/*
 * Pages RAM's mapping leaves in the pool for what is mapped after it (the
 * console, the GIC, the EFI runtime and loader pages): up to two tables
 * per edge and one per new 1 GiB or 512 GiB region, a few maps.
 */
#define PT_KEEP_PAGES 8

/**
 * mm_map_ram() - identity-map RAM [start, end) as Normal memory, as much
 * of it as the page-table pool allows: whole with room to spare; else its
 * 2 MiB-aligned interior (no level-3 table), else its 1 GiB-aligned one
 * (no level-2 table). A firmware map with many RAM edges off 2 MiB (each
 * costs up to two pages) would otherwise exhaust the pool, a panic.
 * @start: first byte.
 * @end: one past the last byte.
 * @short_pool: as if the pool were that short (inject=pt-pool-short).
 * @out: the part mapped (empty when none).
 */
void mm_map_ram(paddr_t start, paddr_t end, bool short_pool, struct region *out)
{
	uint64_t s = pa_val(start), e = pa_val(end);
	unsigned int left =
		short_pool ? PT_KEEP_PAGES + 2 : PT_POOL_PAGES - pt_used;

	if (left < PT_KEEP_PAGES + 4) {
		uint64_t step =
			left >= PT_KEEP_PAGES + 2 ? 2ULL << 20 : 1ULL << 30;

		s = ALIGN_UP(s, step);
		e = ALIGN_DOWN(e, step);
	}
	*out = region_of(pa(s), pa(s < e ? e : s));
	if (s < e)
		map_range(s, e, false);
}

/**
 * mm_map_device() - identity-map [start, start + size) as Device-nGnRE.
 * @start: first byte.
 * @size: bytes.
 */
void mm_map_device(paddr_t start, uint64_t size)
{
	map_range(pa_val(start), pa_val(start) + size, true);
}

/**
 * mm_commit() - make the entries added since the last commit visible: one
 * DSB for all the table writes, one TLB invalidate.
 */
void mm_commit(void)
{
	dsb(ishst);
	if (arm64_el == 2)
		__asm__ __volatile__("tlbi alle2is" ::: "memory");
	else
		__asm__ __volatile__("tlbi vmalle1is" ::: "memory");
	dsb(ish);
	isb();
}

/**
 * arch_phys_to_virt() - the direct map is the identity.
 * @p: physical address.
 * Return: the same address as a pointer.
 */
void *arch_phys_to_virt(paddr_t p)
{
	return (void *)(uintptr_t)pa_val(p);
}

/**
 * arch_virt_to_phys() - inverse of arch_phys_to_virt().
 * @va: virtual address.
 * Return: the same address as a paddr_t.
 */
paddr_t arch_virt_to_phys(const void *va)
{
	return pa((uint64_t)(uintptr_t)va);
}
