/* SPDX-License-Identifier: MIT */
/*
 * arm64 C entry (from head.S, MMU off, on the boot stack): console, MMU,
 * firmware tables, reservations, timer, then keel_main().
 *
 * Two ways in: a Linux-Image boot (QEMU -kernel, U-Boot booti) with x0 =
 * DTB, everything from the DT; or the EFI stub (efi.c, efi_boot.booted),
 * where RAM comes from the UEFI memory map and CPUs/NUMA/PSCI/console from
 * the firmware's DT, or from ACPI (MADT, SRAT, SLIT, FADT, SPCR) when
 * there is no DT or acpi=force is given (acpi=off: DT only). A DT entry
 * whose /chosen describes a UEFI boot (linux,uefi-*: a live update's next
 * image, efi_from_dt()) takes the EFI path too, with the map named there.
 * Under ACPI the loader's /chosen is still read (modules, initrd, the
 * handover, the command line).
 *
 * The command line comes first (UEFI's LoadOptions, else the DT's
 * /chosen/bootargs): the options are parsed once from it before any
 * firmware table is read, and read from boot_opts from then on.
 *
 * Order matters: the DT is only parsed once the MMU maps RAM as Normal
 * memory (libfdt does unaligned and exclusive-free byte accesses that
 * Device memory would fault or slow down), and the full RAM map is built
 * from the DT afterwards in one batch with one TLB invalidate.
 */
#include <arch/cpu.h>
#include <arch/mm.h>
#include <asm/arm64.h>
#include <asm/ras.h>
#include <keel/acpi.h>
#include <keel/boot.h>
#include <keel/bootinfo.h>
#include <keel/compiler.h>
#include <keel/console_spec.h>
#include <keel/errno.h>
#include <keel/fdt.h>
#include <keel/fwboot.h>
#include <keel/liveupdate.h>
#include <keel/options.h>
#include <keel/printk.h>
#include <keel/string.h>

#define DTB_MAX_SIZE (2u << 20) /* booting.rst: the DTB is at most 2 MiB */
#define FDT_MAGIC_BE 0xd00dfeedu

int arm64_el;

static struct bootinfo boot_info;
static struct dt_arch_info dt_info;
/* The boot's options, parsed once (options_parse()); read, never copied. */
static struct keel_options boot_opts;

/* Stack protector for Debian's libfdt.a (built with -fstack-protector). */
uintptr_t __stack_chk_guard = 0x4b45454c2d534b47ULL;
__noreturn void __stack_chk_fail(void);

/**
 * __stack_chk_fail() - a libfdt stack canary was overwritten.
 */
void __stack_chk_fail(void)
{
	panic("stack protector: stack corrupted in libfdt");
}

static uint32_t be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/*
 * The DT cpu reg holds only the affinity fields; whether Aff0 counts
 * threads (MPIDR.MT) is known from our own MPIDR. Assume a homogeneous
 * system and redo the topology with it. A DT cpu-map (dt_info.cpu_map)
 * says more than MPIDR and is kept; ACPI boots use MPIDR (PPTT is not
 * read).
 */
static void apply_mt_bit(struct bootinfo *bi)
{
	bool mt = read_sysreg(mpidr_el1) & MPIDR_MT;

	pr_info("arm64: CPU topology from %s\n",
		dt_info.cpu_map ? "the DT cpu-map"
		: mt		? "MPIDR (MT: Aff0 = thread, Aff1 = core)"
				: "MPIDR (Aff0 = core)");
	if (dt_info.cpu_map || !mt)
		return;
	for (unsigned int i = 0; i < bi->cpu_count; i++) {
		struct bi_cpu *c = &bi->cpus[i];

		dt_mpidr_topology(c->hwid | MPIDR_MT, &c->package, &c->core,
				  &c->thread);
	}
}

/* The boot CPU runs, whatever its entry says; not listed: added. */
static void mark_boot_cpu(struct bootinfo *bi)
{
	struct bi_cpu me = {
		.hwid = read_sysreg(mpidr_el1) & MPIDR_HWID_MASK,
		.node = NUMA_NO_NODE,
	};
	int i;

	dt_mpidr_topology(me.hwid, &me.package, &me.core, &me.thread);
	i = fwboot_boot_cpu(bi, &me, MPIDR_HWID_MASK, "dt", "MPIDR");
	if (i >= 0)
		bi->cpus[i].usable = true;
}

/* Map [pa, pa + len) as Normal memory on demand for the ACPI parsers. */
static const void *acpi_map(uint64_t p, size_t len, void *ctx)
{
	(void)ctx;
	if (!len || p + len < p || p + len > (1ULL << mm_pa_bits()))
		return NULL;
	mm_map_normal(pa(ALIGN_DOWN(p, PAGE_SIZE)),
		      pa(ALIGN_UP(p + len, PAGE_SIZE)));
	mm_commit();
	return (const void *)(uintptr_t)p;
}

/* after= as the options say: how a panic stops (arch_panic()). */
enum after_action arm64_early_after = AFTER_DEFAULT;

/* An SPCR's 16550 (acpi_tables()), a console candidate. */
static struct console_spec spcr_8250;

static bool dtb_valid(uint64_t dtb)
{
	return dtb && IS_ALIGNED(dtb, 8) &&
	       be32((const void *)(uintptr_t)dtb) == FDT_MAGIC_BE;
}

/* The bytes of the DTB at @dtb that keel reads: its totalsize, <= 2 MiB. */
static size_t dtb_len(uint64_t dtb)
{
	return MIN((size_t)be32((const uint8_t *)(uintptr_t)dtb + 4),
		   (size_t)DTB_MAX_SIZE);
}

/*
 * The options, parsed once from @bi's command line (the loader's, put
 * there first) before any firmware table is read: the readers take acpi=,
 * console= and the firmware faults of inject= from boot_opts; after= is
 * kept for a panic before keel_main().
 */
static void parse_options(const struct bootinfo *bi)
{
	options_parse(&boot_opts, bi->cmdline, sizeof(bi->cmdline));
	arm64_early_after = boot_opts.after;
}

static int parse_dtb(struct bootinfo *bi, uint64_t dtb)
{
	size_t dt_len;
	int err;

	if (!dtb_valid(dtb)) {
		pr_warn("dt: no device tree at %#llx (bad address or "
			"magic)\n",
			(unsigned long long)dtb);
		return -EINVAL;
	}
	dt_len = dtb_len(dtb);
	if (dt_len < be32((const uint8_t *)(uintptr_t)dtb + 4))
		pr_warn("dt: totalsize %u exceeds the 2 MiB boot "
			"protocol limit, reading only 2 MiB\n",
			be32((const uint8_t *)(uintptr_t)dtb + 4));
	err = dt_parse((const void *)(uintptr_t)dtb, dt_len, pa(dtb), bi,
		       &dt_info);
	if (err || !(boot_opts.fw_inject & INJECT_FW_BAD_DT_DIST))
		return err;
	/* Injected, or one warning saying why not. */
	fwboot_inject_done(INJECT_FW_BAD_DT_DIST);
	if (dt_parse_bad_distance((const void *)(uintptr_t)dtb,
				  dt_info.totalsize, pa(dtb), bi,
				  &dt_info) < 0) {
		bootinfo_init(bi, bi->protocol);
		return dt_parse((const void *)(uintptr_t)dtb, dt_len, pa(dtb),
				bi, &dt_info);
	}
	return 0;
}

static void boot_dt(struct bootinfo *bi, uint64_t dtb)
{
	bootinfo_init(bi, BOOT_DT);
	/* A DT boot's command line is in the blob itself. */
	if (dtb_valid(dtb))
		dt_read_cmdline((const void *)(uintptr_t)dtb, dtb_len(dtb), bi);
	parse_options(bi);
	if (parse_dtb(bi, dtb) || !bi->ram.count)
		panic("arm64: no usable device tree memory map (DTB at %#llx)",
		      (unsigned long long)dtb);
}

/* CPUs, NUMA, PSCI conduit and console from ACPI. Return: 0 or -ENOENT. */
static int acpi_tables(struct bootinfo *bi, struct acpi_info *ai)
{
	struct acpi_mem mem = {acpi_map, NULL};
	uint64_t me = read_sysreg(mpidr_el1) & MPIDR_HWID_MASK;

	/* Only the UEFI table: a hint of 0 would scan the PC BIOS areas. */
	if (!efi_boot.rsdp || fwboot_acpi(bi, &mem, pa(efi_boot.rsdp), me,
					  boot_opts.fw_inject, true, ai))
		return -ENOENT;
	dt_info_from_acpi(bi, ai, pl011_base(), &dt_info, &spcr_8250);
	return 0;
}

static struct acpi_info acpi_info_buf;

/*
 * ACPI describes the machine, but the loader's DT (GRUB's, U-Boot's, a
 * live update's copy) is still read for what a loader says in /chosen:
 * modules, initrd, the handover, the command line (as Xen reads it
 * whatever describes the hardware). Without it they would be scrubbed.
 */
static void loader_chosen(struct bootinfo *bi, uint64_t dtb)
{
	static struct dt_arch_info loader_dt;

	if (dtb_valid(dtb))
		dt_parse_loader((const void *)(uintptr_t)dtb, dtb_len(dtb),
				pa(dtb), bi, &loader_dt);
}

/*
 * Started through the EFI stub: RAM from the UEFI map; CPUs, nodes,
 * distances, PSCI and console from the DT the firmware gave, or from ACPI
 * when there is no DT, or with acpi=force. acpi=off: DT only.
 */
static void boot_efi(struct bootinfo *bi, uint64_t dtb)
{
	bool have_dt = dtb_valid(dtb);
	bool use_acpi = false;
	char how[48] = "the memory map from /chosen";
	enum acpi_mode mode;
	uint64_t reclaim;

	bootinfo_init(bi, BOOT_EFI);
	/* The loader's LoadOptions; without any, the DT's bootargs. */
	strlcpy(bi->cmdline, efi_boot.cmdline, sizeof(bi->cmdline));
	if (have_dt)
		dt_read_cmdline((const void *)(uintptr_t)dtb, dtb_len(dtb), bi);
	parse_options(bi);
	mode = boot_opts.acpi;
	/*
	 * GRUB installs a DT of its own (/chosen only) even when the
	 * firmware gave ACPI alone: a DT without CPUs does not count.
	 */
	if (have_dt && mode == ACPI_AUTO && efi_boot.rsdp &&
	    !dt_has_cpus((const void *)(uintptr_t)dtb, DTB_MAX_SIZE)) {
		pr_info("efi: the device tree describes no CPUs, using "
			"ACPI\n");
		have_dt = false;
	}
	if (mode != ACPI_OFF && (mode == ACPI_FORCE || !have_dt)) {
		use_acpi = !acpi_tables(bi, &acpi_info_buf);
		if (!use_acpi)
			pr_warn("acpi: no usable ACPI tables (RSDP %#llx)%s\n",
				(unsigned long long)efi_boot.rsdp,
				have_dt ? ", using the device tree" : "");
	}
	if (use_acpi)
		loader_chosen(bi, dtb);
	if (!use_acpi) {
		if (!have_dt)
			panic("arm64: UEFI gave neither a usable device tree "
			      "nor usable ACPI tables (acpi=%s)",
			      mode == ACPI_OFF ? "off" : "auto");
		if (parse_dtb(bi, dtb))
			panic("arm64: bad device tree at %#llx",
			      (unsigned long long)dtb);
		dt_ram_to_numa(bi, &acpi_info_buf);
		bi->acpi_rsdp = pa(efi_boot.rsdp);
	}
	reclaim = efi_fill_ram(bi);
	acpi_apply_numa(bi, &acpi_info_buf);
	if (!bi->ram.count)
		panic("arm64: the UEFI memory map has no RAM");
	/* A bad-dt-distance reparse put the DT's bootargs back. */
	if (efi_boot.cmdline[0])
		strlcpy(bi->cmdline, efi_boot.cmdline, sizeof(bi->cmdline));
	strlcpy(bi->loader, efi_boot.loader, sizeof(bi->loader));
	if (efi_boot.booted)
		snprintf(how, sizeof(how), "ExitBootServices after %u tries",
			 efi_boot.exit_tries);
	pr_info("efi: firmware \"%s\", topology from %s, %llu KiB ACPI "
		"reclaim kept reserved, %s\n",
		efi_boot.fw_vendor, use_acpi ? "ACPI" : "device tree",
		(unsigned long long)(reclaim >> 10), how);
}

/*
 * The console: console= (a PL011 or a 16550 in memory space), else the
 * firmware's (DT stdout-path PL011, ACPI SPCR PL011 / SBSA / 16550), else
 * CONFIG_SERIAL_PL011_BASE (kind CONSOLE_DEFAULT). @why: for the log.
 */
static struct console_spec console_pick(const char **why)
{
	static char given[sizeof(boot_opts.console) + 8];
	const struct console_spec *cmd = &boot_opts.console_spec;
	struct console_spec cs = {CONSOLE_DEFAULT, 0, 0, 0};

	if (cmd->kind == CONSOLE_PL011 || cmd->kind == CONSOLE_8250_MMIO) {
		snprintf(given, sizeof(given), "console=%s", boot_opts.console);
		*why = given;
		return *cmd;
	}
	if (cmd->kind == CONSOLE_8250_IO)
		pr_warn("console=: an 8250 at I/O port %#llx cannot be the "
			"console on arm64 (no I/O ports), using the "
			"firmware's console\n",
			(unsigned long long)cmd->addr);
	*why = dt_info.uart_path[0] ? "DT stdout-path" : "ACPI SPCR";
	if (dt_info.uart_is_pl011 && pa_val(dt_info.uart_base)) {
		cs.kind = CONSOLE_PL011;
		cs.addr = pa_val(dt_info.uart_base);
	} else if (spcr_8250.kind == CONSOLE_8250_MMIO) {
		cs = spcr_8250;
	} else if (dt_info.uart_path[0]) {
		pr_warn("dt: stdout-path \"%s\" is not a PL011, keeping "
			"%#llx\n",
			dt_info.uart_path,
			(unsigned long long)pa_val(pl011_base()));
	}
	return cs;
}

/* Switch to @cs (mapped Device already) and flush what was held. */
static void console_use(const struct console_spec *cs, const char *why)
{
	if (cs->kind == CONSOLE_PL011) {
		pl011_set_base(pa(cs->addr));
		if (cs->baud)
			pr_info("console: PL011 at %#llx (%s); %u baud not "
				"programmed: the PL011's clock is not known, "
				"the firmware's rate stays\n",
				(unsigned long long)cs->addr, why, cs->baud);
		else
			pr_info("console: PL011 at %#llx (%s)\n",
				(unsigned long long)cs->addr, why);
	} else if (cs->kind == CONSOLE_8250_MMIO) {
		pl011_set_8250(pa(cs->addr), cs->reg_shift, cs->baud);
		pr_info("console: 8250 MMIO at %#llx%s, baud %u%s (%s)\n",
			(unsigned long long)cs->addr,
			cs->reg_shift ? " (32-bit registers)" : "", cs->baud,
			cs->baud ? "" : " (as the firmware set it)", why);
	}
	pl011_release();
}

/*
 * On a cold boot with liveupdate=, the RAM after the image kept free of
 * domains for a bigger next image (keel's own reservation, not part of
 * image_size: common/liveupdate/lu_room.c), around the bad pages and
 * loader data there: after fwboot_finish(), when all are known.
 */
static void keep_image_room(struct bootinfo *bi)
{
	if (boot_opts.liveupdate && !bi->handover.size)
		bootinfo_add_room(bi, virt_to_phys(_end),
				  pa_add(virt_to_phys(_end), LU_ROOM_BYTES),
				  LU_ROOM_NAME);
}

/* The image and its page-table pool. */
static void reserve_image(struct bootinfo *bi, paddr_t image_start)
{
	bootinfo_add_reserved(bi, image_start, virt_to_phys(__pgtables_start),
			      "kernel");
	bootinfo_add_reserved(bi, virt_to_phys(__pgtables_start),
			      virt_to_phys(__pgtables_end), "page tables");
}

/*
 * The DT's no-map ranges, sorted and page-aligned outward: the RAM
 * mapping leaves holes there (a speculative access into firmware's
 * secure memory may raise an SError on real machines).
 */
static unsigned int nomap_sorted(struct region *out)
{
	unsigned int n = dt_info.nomap_count;

	for (unsigned int i = 0; i < n; i++) {
		struct region r = dt_info.nomap[i];
		unsigned int j = i;

		r = region_of(pa(ALIGN_DOWN(pa_val(r.start), PAGE_SIZE)),
			      pa(ALIGN_UP(pa_val(r.end), PAGE_SIZE)));
		for (; j && pa_val(out[j - 1].start) > pa_val(r.start); j--)
			out[j] = out[j - 1];
		out[j] = r;
	}
	return n;
}

/*
 * Map [s, e) of RAM; what the page-table pool cannot map is reserved as
 * "unmapped". Return: the bytes left unmapped.
 */
static uint64_t map_piece(struct bootinfo *bi, paddr_t s, paddr_t e,
			  bool short_pool)
{
	struct region m;

	mm_map_ram(s, e, short_pool, &m);
	if (pa_val(m.start) > pa_val(s))
		bootinfo_add_reserved(bi, s, m.start, "unmapped");
	if (pa_val(m.end) < pa_val(e))
		bootinfo_add_reserved(bi, m.end, e, "unmapped");
	return (pa_val(e) - pa_val(s)) - (pa_val(m.end) - pa_val(m.start));
}

/*
 * Every RAM range mapped, less the DT's no-map ranges; the parts the
 * page-table pool could not map (mm_map_ram()) reserved as "unmapped",
 * one warning, so no allocator ever hands out a byte the MMU does not
 * map.
 */
static void map_ram(struct bootinfo *bi)
{
	static struct region holes[DT_MAX_NOMAP];
	unsigned int count = bi->ram.count, edges = 0, nh, left = 0;
	bool short_pool = boot_opts.fw_inject & INJECT_FW_PT_SHORT;
	uint64_t bytes = 0;

	if (short_pool)
		fwboot_inject_done(INJECT_FW_PT_SHORT);
	nh = nomap_sorted(holes);
	for (unsigned int i = 0; i < count; i++) {
		struct region r = bi->ram.regions[i];
		paddr_t at = r.start;
		uint64_t miss = 0;

		for (unsigned int h = 0; h < nh; h++) {
			if (pa_val(holes[h].end) <= pa_val(at) ||
			    pa_val(holes[h].start) >= pa_val(r.end))
				continue;
			if (pa_val(holes[h].start) > pa_val(at))
				miss += map_piece(bi, at, holes[h].start,
						  short_pool);
			at = pa(MAX(pa_val(at), pa_val(holes[h].end)));
			left++;
		}
		if (pa_val(at) < pa_val(r.end))
			miss += map_piece(bi, at, r.end, short_pool);
		bytes += miss;
		edges += miss != 0;
	}
	/*
	 * The live update's next image (the initrd), read at the update:
	 * a loader may leave it outside the RAM of its map (U-Boot's
	 * bootefi does), and no block around the image maps it any more.
	 */
	if (pa_val(bi->handover.image.end) > pa_val(bi->handover.image.start))
		mm_map_normal(bi->handover.image.start, bi->handover.image.end);
	if (left)
		pr_info("arm64 mm: %u no-map range%s of the DT left out of "
			"the RAM mapping\n",
			left, left == 1 ? "" : "s");
	if (edges)
		pr_warn("arm64 mm: the page-table pool is short: %u RAM ranges "
			"mapped only in part, %llu KiB reserved as unmapped\n",
			edges, (unsigned long long)(bytes >> 10));
}

/**
 * arm64_start() - the boot CPU's C entry.
 * @dtb: physical address of the DTB (x0 at entry; from the UEFI
 *	configuration table on the EFI path, 0 when none).
 * @entry_ticks: CNTVCT_EL0 read first thing in head.S.
 * @el: the exception level we run at (1 or 2).
 */
void arm64_start(uint64_t dtb, uint64_t entry_ticks, uint64_t el)
{
	struct bootinfo *bi = &boot_info;
	struct console_spec con;
	const char *why;
	paddr_t image_start = virt_to_phys(_head_start);
	paddr_t image_end = virt_to_phys(_end);

	arch_entry_ticks = efi_boot.booted ? efi_boot.entry_ticks : entry_ticks;
	arm64_el = (int)el;
	if (el == 2)
		write_sysreg(0, tpidr_el2);
	else
		write_sysreg(0, tpidr_el1);
	write_sysreg(0, tpidrro_el0); /* no idle wait before gic_init() */

	mm_early_init(image_start, image_end, pa(dtb));
	pr_info("arm64: entered at EL%d%s, image [%#llx, %#llx), DTB at "
		"%#llx\n",
		arm64_el, efi_boot.booted ? " from the EFI stub" : "",
		(unsigned long long)pa_val(image_start),
		(unsigned long long)pa_val(image_end), (unsigned long long)dtb);

	/* The EFI stub, or a UEFI boot a live update's /chosen describes. */
	if (efi_boot.booted ||
	    (dtb_valid(dtb) && efi_from_dt(dtb, dtb_len(dtb), bi)))
		boot_efi(bi, dtb);
	else
		boot_dt(bi, dtb);

	/* All RAM, and the console UART, in one batch. */
	con = console_pick(&why);
	map_ram(bi);
	if (con.kind != CONSOLE_DEFAULT &&
	    (con.kind != CONSOLE_PL011 || con.addr != pa_val(pl011_base())))
		mm_map_device(
			pa(ALIGN_DOWN(con.addr, PAGE_SIZE)),
			ALIGN_UP(con.addr + (8u << con.reg_shift), PAGE_SIZE) -
				ALIGN_DOWN(con.addr, PAGE_SIZE));
	gic_map(&dt_info);
	arm64_ras_prepare(bi, dtb, boot_opts.fw_inject & INJECT_FW_SEA);
	mm_commit();
	console_use(&con, why);

	reserve_image(bi, image_start);
	mark_boot_cpu(bi);
	apply_mt_bit(bi);

	timer_init(dt_info.timer_freq);
	gic_init();
	/* The boot CPU halts in smp_wait() too, when its GIC lets it. */
	write_sysreg(gic_cpu_init() ? 1 : 0, tpidrro_el0);
	psci_init(&dt_info);
	bi->el = arm64_el;
	bi->paddr_bits = fwboot_paddr_bits(mm_pa_bits(), 48);
	bi->timer_source = "cntvct";
	bi->timer_calibrated_by = dt_info.timer_freq ? "dt" : "cntfrq";
	bi->timer_hz = arch_ticks_hz();
	arm64_lu_found(bi, dtb); /* a live update's DTB and handover */
	fwboot_finish(bi, &boot_opts);
	keep_image_room(bi);
	keel_main(bi, &boot_opts);
}

/**
 * arm64_qemu_virt() - whether the firmware tables are QEMU virt's (its DT,
 * or its ACPI tables): arch_stop() then exits QEMU by default.
 * Return: true on QEMU virt.
 */
bool arm64_qemu_virt(void)
{
	return dt_info.qemu_virt;
}
