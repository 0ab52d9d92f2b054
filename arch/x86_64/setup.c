/* SPDX-License-Identifier: MIT */
/*
 * x86_64 C entry: x86_entry(magic, info) is called by head.S on the boot
 * stack, in long mode, with the first 4 GiB identity mapped. In order:
 * console, IDT, the multiboot information (magic decides mb1 or mb2; the
 * parsers copy what keel keeps into bootinfo), the options (parsed once,
 * from the loader's command line there), the reservations, the boot
 * CPU's per-CPU data, the direct map, the ACPI tables (CPUs, NUMA nodes,
 * distances, PM timer, S5), the CPU topology, the TSC, every I/O APIC
 * entry masked (ioapic.c), then keel_main() never to return.
 *
 * Reservations made here (docs/booting.md):
 *   [0, 1 MiB)        "low 1M bios/trampoline": IVT, BDA, EBDA, option
 *                     ROMs, QEMU's multiboot info (0x9000-0x9fff) and the
 *                     SMP trampoline page at TRAMP_PA (0x8000).
 *   [_start, _end)    "kernel": image, bss, boot stack, page-table pool,
 *                     where the loader put it: KERNEL_LOAD_PA (1 MiB) under
 *                     multiboot1, anywhere GRUB's multiboot2 found free
 *                     (head.S's relocatable tag; print_image() says where).
 *   [_end, + 2 MiB)   "image room" (LU_ROOM_NAME), a cold boot with
 *                     liveupdate=: kept free of domains for a bigger next
 *                     image (common/liveupdate/lu_room.c); RAM only, never
 *                     part of the image its loader zeroes.
 *   loader info, modules: added by the parsers.
 *   "page tables":    mm.c, only when the static pool is too small.
 */
#include <arch/cpu.h>
#include <asm/x86.h>
#include <keel/acpi.h>
#include <keel/boot.h>
#include <keel/bootinfo.h>
#include <keel/errno.h>
#include <keel/fwboot.h>
#include <keel/liveupdate.h>
#include <keel/multiboot.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/string.h>

#define SZ_1M	    (1ULL << 20)
#define IDENT_LIMIT ((uint64_t)IDENT_MAP_GIB << 30)

static struct bootinfo boot_info;
/* The boot's options, parsed once (options_parse()); read, never copied. */
static struct keel_options boot_opts;
static struct acpi_info acpi_info;
const struct acpi_info *x86_acpi;

/* Multiboot1 accessor: the identity map, page 0 excluded (not mapped). */
static const void *mb1_read(uint64_t p, size_t len, void *ctx)
{
	if (p < PAGE_SIZE || p >= IDENT_LIMIT || len > IDENT_LIMIT - p)
		return NULL;
	return (const void *)(uintptr_t)p;
}

/*
 * ACPI accessor: the identity map below 4 GiB, except page 0 (the BDA's
 * EBDA pointer) and anything above, which only the direct map reaches.
 */
static const void *acpi_map(uint64_t p, size_t len, void *ctx)
{
	uint64_t va = DIRECT_MAP_BASE + p;

	if (p >= PAGE_SIZE && p < IDENT_LIMIT && len <= IDENT_LIMIT - p)
		return (const void *)(uintptr_t)p;
	if (p < (1ULL << DIRECT_MAP_BITS) && len < (1ULL << DIRECT_MAP_BITS) &&
	    mm_direct_mapped(va, len))
		return (const void *)(uintptr_t)va;
	return NULL;
}

static void print_acpi(const struct acpi_info *ai)
{
	unsigned int hotplug = 0;

	for (unsigned int i = 0; i < ai->cpu_count; i++)
		hotplug += !ai->cpus[i].usable && ai->cpus[i].online_capable;
	pr_info("x86_64: ACPI RSDP at %#llx (%s), PM timer %#llx, S5 %s, "
		"HPET %#llx\n",
		(unsigned long long)pa_val(ai->rsdp), ai->oem_id,
		(unsigned long long)ai->pm_timer.address,
		ai->s5_found ? "found" : "not found",
		(unsigned long long)ai->hpet_base);
	pr_info("x86_64: MADT %s: %u CPUs enabled (started), %u not "
		"(hot-plug slots, %u online-capable); SRAT %s, %u nodes; "
		"SLIT %s\n",
		ai->tables & ACPI_T_MADT ? "found" : "missing",
		ai->cpu_usable_count, ai->cpu_count - ai->cpu_usable_count,
		hotplug, ai->numa_valid ? "valid" : "absent or invalid",
		ai->node_count, ai->have_distance ? "valid" : "absent (10/20)");
}

/*
 * The ACPI tables: the PM timer (TSC cross-check) and S5 (after=poweroff)
 * for the arch, the MADT CPUs (enabled ones are started; online-capable
 * hot-plug slots are only reported), the SRAT nodes of CPUs and RAM and
 * the SLIT distances for bootinfo. The RSDP comes from the multiboot2 tag
 * (14/15, already in bi->acpi_rsdp) else the EBDA/BIOS scan. Must run
 * after the firmware map's RAM is in @bi (acpi_apply_numa labels it).
 * Without usable tables (or with acpi=off): one node, the boot CPU only.
 * inject=bad-srat / bad-slit (@o's INJECT_FW_*): fwboot_acpi() parses
 * corrupted copies.
 */
static void acpi_setup(struct bootinfo *bi, uint32_t apic_id,
		       const struct keel_options *o)
{
	struct acpi_mem mem = {acpi_map, NULL};
	struct bi_cpu me = {.hwid = apic_id, .node = 0};
	int rc;

	if (o->acpi == ACPI_OFF) {
		pr_info("x86_64: acpi=off: ACPI tables not used (one node, "
			"boot CPU only)\n");
		goto boot_cpu_only;
	}
	rc = fwboot_acpi(bi, &mem, bi->acpi_rsdp, apic_id, o->fw_inject, false,
			 &acpi_info);
	/*
	 * multiboot1 carries no RSDP, and under UEFI no BIOS area holds one
	 * (GRUB `multiboot` under OVMF): say what is lost, and the cure.
	 */
	if (rc == -ENOENT)
		pr_warn("x86_64: no ACPI RSDP found (no multiboot2 tag 14/15, "
			"none in the BIOS areas; a multiboot1 boot under UEFI "
			"cannot pass one: use multiboot2): one node, the boot "
			"CPU only\n");
	if (rc)
		goto boot_cpu_only;
	x86_acpi = &acpi_info;
	print_acpi(&acpi_info);
	fwboot_boot_cpu(bi, &me, ~0ull, "ACPI MADT", "APIC ID");
	acpi_apply_numa(bi, &acpi_info);
	return;

boot_cpu_only:
	bi->acpi_rsdp = pa(0);
	fwboot_boot_cpu(bi, &me, ~0ull, NULL, NULL);
}

/*
 * Where the image runs and where it is linked, said and kept in @bi for
 * the report: they differ when GRUB's multiboot2 placed it elsewhere
 * (head.S applied the relocations). A
 * backtrace's addresses are running ones: subtract the difference to look
 * them up in keel.elf.
 */
static void print_image(struct bootinfo *bi)
{
	uint64_t s = (uintptr_t)_start, e = (uintptr_t)_end;

	bi->image_start = pa(s);
	bi->image_end = pa(e);
	bi->image_link = pa(KERNEL_LOAD_PA);

	pr_info("x86_64: image at %#llx..%#llx (linked at %#llx..%#llx%s)\n",
		(unsigned long long)s, (unsigned long long)e,
		(unsigned long long)KERNEL_LOAD_PA,
		(unsigned long long)(KERNEL_LOAD_PA + (e - s)),
		s == KERNEL_LOAD_PA ? "" : "; relocated by its loader");
}

static __noreturn void boot_fail(const char *why)
{
	pr_err("%s; stopping\n", why);
	console_printf("KEEL: FAIL %s\n", why);
	x86_fail_stop();
}

/*
 * The options, parsed once from the loader's command line before any
 * firmware table is read: setup reads acpi=, console= and the firmware
 * faults of inject= from @o as it goes (acpi=off leaves x86_acpi NULL: no
 * AP is started); after= is kept for a failure before keel_main()
 * (x86_fail_stop()), so that it still ends a QEMU test run.
 */
static void parse_options(struct keel_options *o, const struct bootinfo *bi)
{
	options_parse(o, bi->cmdline, sizeof(bi->cmdline));
	if (o->after != AFTER_DEFAULT)
		x86_early_after = o->after;
}

static int parse_multiboot2(struct bootinfo *bi, uint32_t info_pa)
{
	uint32_t total;

	if (info_pa < PAGE_SIZE || info_pa > IDENT_LIMIT - 8)
		boot_fail("multiboot2 information pointer is invalid");
	if (info_pa & 7)
		pr_warn("multiboot2: information at %#x is not 8-byte "
			"aligned\n",
			info_pa);
	total = *(const volatile uint32_t *)(uintptr_t)info_pa;
	if (total > MULTIBOOT2_INFO_MAX) {
		pr_warn("multiboot2: total_size %u exceeds %u; reading only "
			"that much\n",
			total, MULTIBOOT2_INFO_MAX);
		total = MULTIBOOT2_INFO_MAX;
	}
	if (total > IDENT_LIMIT - info_pa)
		total = (uint32_t)(IDENT_LIMIT - info_pa);
	return multiboot2_parse(bi, (const void *)(uintptr_t)info_pa, total,
				info_pa);
}

static unsigned int paddr_bits(void)
{
	unsigned int bits = 0;

	if (cpuid(0x80000000, 0).eax >= 0x80000008)
		bits = cpuid(0x80000008, 0).eax & 0xff;
	/* The direct map covers 2^DIRECT_MAP_BITS; sanitise clamps RAM to it. */
	return fwboot_paddr_bits(bits, DIRECT_MAP_BITS);
}

/*
 * What waits for every claim on RAM (the firmware's, the command line's
 * bad pages, a handover's) to be read: the room for a bigger next image
 * (kept by keel, not by its loader) around the bad pages and loader data
 * there; the direct map past the static pool, its tables clear of every
 * claim; whether the SMP trampoline page may be written.
 */
static void after_claims(struct bootinfo *bi, const struct keel_options *o)
{
	if (o->liveupdate && !x86_lu_started())
		bootinfo_add_room(bi, pa((uintptr_t)_end),
				  pa((uintptr_t)_end + LU_ROOM_BYTES),
				  LU_ROOM_NAME);
	mm_map_rest(bi);
	x86_tramp_check(bi);
}

/**
 * x86_entry() - C entry from head.S.
 * @magic: EAX from the loader.
 * @info_pa: EBX from the loader (physical address of the boot information).
 */
void x86_entry(uint32_t magic, uint32_t info_pa)
{
	struct bootinfo *bi = &boot_info;
	const struct keel_options *o = &boot_opts;
	int rc;

	/* arch_cpu_id() (printk's console lock) reads GS: first thing. */
	x86_percpu_init(NULL, 0, x86_apic_id());
	uart_init();
	traps_init();
	console_puts("\n");
	/* Started by a live update: the downtime's lines held (printk.c). */
	if (x86_lu_started())
		console_hold();
	pr_info("x86_64 entry, magic %#x, info at %#x\n", magic, info_pa);

	if (magic == MULTIBOOT1_BOOTLOADER_MAGIC) {
		bootinfo_init(bi, BOOT_MULTIBOOT1);
		rc = multiboot1_parse(bi, info_pa, mb1_read, NULL);
	} else if (magic == MULTIBOOT2_BOOTLOADER_MAGIC) {
		bootinfo_init(bi, BOOT_MULTIBOOT2);
		rc = parse_multiboot2(bi, info_pa);
	} else {
		pr_err("boot magic %#x is neither multiboot1 (%#x) nor "
		       "multiboot2 (%#x)\n",
		       magic, MULTIBOOT1_BOOTLOADER_MAGIC,
		       MULTIBOOT2_BOOTLOADER_MAGIC);
		boot_fail("not started by a multiboot loader");
	}
	print_image(bi);
	x86_mce_describe();
	parse_options(&boot_opts, bi);
	if (rc)
		boot_fail("the loader gave no usable memory map");

	bootinfo_add_reserved(bi, pa(0), pa(SZ_1M), X86_LOW_1M_NAME);
	bootinfo_add_reserved(bi, pa((uintptr_t)_start), pa((uintptr_t)_end),
			      "kernel");
	bi->paddr_bits = paddr_bits();
	bi->el = -1;

	mm_init_direct_map(bi);
	x86_console_cmdline(&o->console_spec, o->console);
	acpi_setup(bi, x86_apic_id(), o);
	x86_console_firmware(x86_acpi);
	x86_topology_fill(bi);
	tsc_init(bi);
	/* inject=ioapic-unmask: the RTC's line on before the masking. */
	ioapic_init(bi, o->fw_inject & INJECT_FW_IOAPIC_UNMASK);
	x86_qemu_init();
	x86_lu_found(bi, magic, info_pa);
	fwboot_finish(bi, o);
	after_claims(bi, o);
	keel_main(bi, o);
}
