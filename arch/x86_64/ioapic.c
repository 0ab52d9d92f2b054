/* SPDX-License-Identifier: MIT */
/*
 * The I/O APICs the MADT names. keel takes no device interrupt, but a
 * firmware may leave redirection entries unmasked, and a level-triggered
 * line that stays asserted would interrupt a CPU after every EOI, for
 * ever. So at boot, before any CPU turns interrupts on (x86_entry()),
 * ioapic_init() masks every entry of every I/O APIC and counts the ones
 * the firmware had left unmasked (irq.ioapic_unmasked). An I/O APIC whose
 * address keel cannot map uncached (below 2 MiB or above 4 GiB, in RAM,
 * not 16-byte aligned) or whose version register reads all-ones (nothing
 * answers there) is warned about and skipped.
 *
 * A stray interrupt's handler (irq.c) calls ioapic_mask_vector(): every
 * unmasked entry that delivers that vector is masked before the EOI, so
 * the line cannot fire again, whatever its trigger mode.
 *
 * inject=ioapic-unmask (docs/cmdline.md) makes the RTC's line (ISA IRQ 8,
 * a source that really fires: QEMU's RTC holds it asserted until register
 * C is read, which keel never does) a stuck level-triggered interrupt on
 * X86_INJECT_VEC, in class 15 with the wake-up vector, routed to the boot
 * CPU: first as a firmware would leave it, unmasked before ioapic_init()
 * masks it (delivered once, taken once interrupts go on), then again
 * before the scrub (arch_irq_inject_line()), which the handler must mask.
 *
 * Lock: ioapic_lock around each register access (IOREGSEL selects the
 * register that IOWIN then reads or writes, one pair for every CPU),
 * always taken with interrupts off: the handlers run with them off, every
 * other caller masks them first.
 */
#include <arch/cpu.h>
#include <arch/irq.h>
#include <asm/x86.h>
#include <keel/acpi.h>
#include <keel/bootinfo.h>
#include <keel/errno.h>
#include <keel/latency.h>
#include <keel/printk.h>
#include <keel/spinlock.h>

#define IOREGSEL      0x00
#define IOWIN	      0x10
#define IOAPIC_WINDOW 0x20 /* bytes mapped: IOREGSEL .. IOWIN */
#define IOAPIC_VER    0x01
#define IOAPIC_RTE(n) (0x10 + 2 * (n))

/* Redirection entry, low dword. */
#define RTE_VECTOR	  0xffu
#define RTE_DELIVERY	  (7u << 8) /* 0 fixed, 1 lowest priority */
#define RTE_REMOTE_IRR	  (1u << 14)
#define RTE_LEVEL	  (1u << 15)
#define RTE_MASKED	  (1u << 16)

#define RTC_ISA_IRQ	  8
#define RTC_INDEX	  0x70
#define RTC_DATA	  0x71
#define RTC_NMI_OFF	  0x80 /* index bit 7: keep NMIs off meanwhile */
#define RTC_REG_A	  0x0a
#define RTC_REG_B	  0x0b
#define RTC_REG_C	  0x0c
#define RTC_RATE_1024HZ	  6
#define RTC_PIE		  0x40
#define INJECT_TIMEOUT_US 100000 /* the RTC fires every 976 us */

struct ioapic {
	volatile uint32_t *regs;
	uint32_t gsi_base;
	uint16_t entries;
	uint8_t id;
};

static struct ioapic ioapics[ACPI_MAX_IOAPICS];
static unsigned int ioapic_count;
static spinlock_t ioapic_lock = SPINLOCK_INIT;
/* inject=ioapic-unmask: the RTC's entry (ioapic NULL: none). */
static struct {
	struct ioapic *io;
	unsigned int entry;
	volatile unsigned int masked; /* by ioapic_mask_vector() */
} inj;

/* Caller holds ioapic_lock (or is the boot CPU before interrupts). */
static uint32_t io_read(const struct ioapic *io, uint32_t reg)
{
	io->regs[IOREGSEL / 4] = reg;
	return io->regs[IOWIN / 4];
}

static void io_write(const struct ioapic *io, uint32_t reg, uint32_t v)
{
	io->regs[IOREGSEL / 4] = reg;
	io->regs[IOWIN / 4] = v;
}

static bool in_ram(const struct bootinfo *bi, uint64_t pa, uint64_t len)
{
	for (unsigned int i = 0; i < bi->ram.count; i++)
		if (pa < pa_val(bi->ram.regions[i].end) &&
		    pa + len > pa_val(bi->ram.regions[i].start))
			return true;
	return false;
}

/* The MADT's I/O APIC @a mapped and answering, or a warning. */
static bool ioapic_add(const struct bootinfo *bi, const struct acpi_ioapic *a)
{
	struct ioapic *io = &ioapics[ioapic_count];
	uint32_t ver;

	if ((a->base & 15) || in_ram(bi, a->base, IOAPIC_WINDOW) ||
	    !(io->regs = mm_map_uc(a->base, IOAPIC_WINDOW))) {
		pr_warn("x86_64: I/O APIC ID %u at %#llx: not an MMIO address "
			"keel can map (RAM, unaligned, below 2 MiB or above "
			"4 GiB), its entries left as they are\n",
			a->id, (unsigned long long)a->base);
		return false;
	}
	ver = io_read(io, IOAPIC_VER);
	if (ver == 0xffffffffu) {
		pr_warn("x86_64: I/O APIC ID %u at %#llx: version register "
			"reads %#x (nothing there), skipped\n",
			a->id, (unsigned long long)a->base, ver);
		return false;
	}
	io->gsi_base = a->gsi_base;
	io->entries = (uint16_t)(((ver >> 16) & 0xff) + 1);
	io->id = a->id;
	ioapic_count++;
	pr_debug("x86_64: I/O APIC ID %u at %#llx, version %#x, GSI %u-%u\n",
		 io->id, (unsigned long long)a->base, ver & 0xff, io->gsi_base,
		 io->gsi_base + io->entries - 1);
	return true;
}

/* Mask every entry of @io. Return: how many were unmasked. */
static unsigned int ioapic_mask_entries(const struct ioapic *io)
{
	unsigned int unmasked = 0;

	for (unsigned int n = 0; n < io->entries; n++) {
		uint32_t lo = io_read(io, IOAPIC_RTE(n));

		if (!(lo & RTE_MASKED)) {
			unmasked++;
			io_write(io, IOAPIC_RTE(n), lo | RTE_MASKED);
		}
	}
	return unmasked;
}

/*
 * The RTC's entry as a stuck level-triggered line has it: unmasked,
 * level, active high, fixed, to this CPU (physical destination).
 */
static void inject_program(void)
{
	/* Edge first: an I/O APIC clears a stale Remote IRR there. */
	io_write(inj.io, IOAPIC_RTE(inj.entry), X86_INJECT_VEC | RTE_MASKED);
	io_write(inj.io, IOAPIC_RTE(inj.entry) + 1, x86_apic_id() << 24);
	io_write(inj.io, IOAPIC_RTE(inj.entry), X86_INJECT_VEC | RTE_LEVEL);
}

/* The TSC value @us microseconds from now (1 GHz before calibration). */
static uint64_t tsc_after_us(uint64_t us)
{
	return rdtsc() + (tsc_hz ? tsc_hz : 1000000000ULL) / 1000000 * us;
}

static void rtc_write(uint8_t reg, uint8_t v)
{
	outb(RTC_INDEX, RTC_NMI_OFF | reg);
	outb(RTC_DATA, v);
}

static uint8_t rtc_read(uint8_t reg)
{
	outb(RTC_INDEX, RTC_NMI_OFF | reg);
	return inb(RTC_DATA);
}

/* RTC periodic interrupts at 1024 Hz on or off (off: line low again). */
static void rtc_periodic(bool on)
{
	uint8_t b = rtc_read(RTC_REG_B);

	if (on)
		rtc_write(RTC_REG_A,
			  (rtc_read(RTC_REG_A) & 0xf0) | RTC_RATE_1024HZ);
	rtc_write(RTC_REG_B, on ? b | RTC_PIE : b & ~RTC_PIE);
	rtc_read(RTC_REG_C);
}

/* The RTC's GSI on one of the I/O APICs, for inject=ioapic-unmask. */
static bool inject_route(void)
{
	uint16_t flags;
	uint32_t gsi = x86_acpi
			       ? acpi_isa_irq_gsi(x86_acpi, RTC_ISA_IRQ, &flags)
			       : RTC_ISA_IRQ;

	for (unsigned int i = 0; i < ioapic_count; i++) {
		if (gsi >= ioapics[i].gsi_base &&
		    gsi - ioapics[i].gsi_base < ioapics[i].entries) {
			inj.io = &ioapics[i];
			inj.entry = gsi - ioapics[i].gsi_base;
			return true;
		}
	}
	pr_warn("inject=ioapic-unmask: no I/O APIC serves GSI %u (the RTC), "
		"nothing injected\n",
		gsi);
	return false;
}

/*
 * inject=ioapic-unmask, before the entries are masked: the RTC's line
 * unmasked and firing, and delivered (its Remote IRR set) before keel
 * masks it, as a firmware that left it on would have it.
 */
static void inject_as_firmware(void)
{
	uint64_t end = tsc_after_us(INJECT_TIMEOUT_US);

	if (!inject_route())
		return;
	inject_program();
	rtc_periodic(true);
	while (!(io_read(inj.io, IOAPIC_RTE(inj.entry)) & RTE_REMOTE_IRR)) {
		if (rdtsc() >= end) {
			pr_warn("inject=ioapic-unmask: GSI %u did not fire in "
				"%u us\n",
				inj.io->gsi_base + inj.entry,
				INJECT_TIMEOUT_US);
			break;
		}
		arch_cpu_relax();
	}
}

/**
 * ioapic_init() - mask every redirection entry of the MADT's I/O APICs.
 * @bi: the firmware's RAM (an I/O APIC listed in RAM is not one)
 * @inject: inject=ioapic-unmask is on the command line
 *
 * Runs on the boot CPU with interrupts off, before any other CPU starts;
 * prints one line and gives the counts to the report.
 */
void ioapic_init(const struct bootinfo *bi, bool inject)
{
	unsigned int entries = 0, unmasked = 0;

	if (!x86_acpi)
		return;
	for (unsigned int i = 0; i < x86_acpi->ioapic_count; i++)
		ioapic_add(bi, &x86_acpi->ioapic[i]);
	if (inject)
		inject_as_firmware();
	for (unsigned int i = 0; i < ioapic_count; i++) {
		entries += ioapics[i].entries;
		unmasked += ioapic_mask_entries(&ioapics[i]);
	}
	irq_count_masked_at_boot(ioapic_count, entries, unmasked);
	pr_info("x86_64: %u I/O APIC%s: all %u redirection entries masked, "
		"%u of them had been left unmasked\n",
		ioapic_count, ioapic_count == 1 ? "" : "s", entries, unmasked);
}

/**
 * ioapic_mask_vector() - mask every unmasked entry that delivers @vec
 * (fixed or lowest-priority), from the handler of a stray interrupt.
 * @vec: the vector taken
 *
 * Call with interrupts off. Return: the entries masked.
 */
unsigned int ioapic_mask_vector(uint8_t vec)
{
	unsigned int masked = 0;

	spin_lock(&ioapic_lock);
	for (unsigned int i = 0; i < ioapic_count; i++) {
		const struct ioapic *io = &ioapics[i];

		for (unsigned int n = 0; n < io->entries; n++) {
			uint32_t lo = io_read(io, IOAPIC_RTE(n));

			if ((lo & RTE_MASKED) || (lo & RTE_VECTOR) != vec ||
			    (lo & RTE_DELIVERY) > (1u << 8))
				continue;
			io_write(io, IOAPIC_RTE(n), lo | RTE_MASKED);
			masked++;
			if (io == inj.io && n == inj.entry)
				inj.masked++;
		}
	}
	spin_unlock(&ioapic_lock);
	return masked;
}

/**
 * arch_irq_inject_line() - inject=ioapic-unmask before the scrub: the
 * RTC's entry unmasked again, its line still asserted; the stray handler
 * must mask it. Waits, interrupts on, until it has.
 *
 * Return: 0, -EOPNOTSUPP without an I/O APIC for the RTC, -ETIMEDOUT
 * when it was not masked within INJECT_TIMEOUT_US.
 */
int arch_irq_inject_line(void)
{
	unsigned int before = inj.masked;
	uint64_t end;
	irqflags_t f;

	if (!inj.io && (!ioapic_count || !inject_route()))
		return -EOPNOTSUPP;
	f = arch_irq_save();
	spin_lock(&ioapic_lock);
	inject_program();
	spin_unlock(&ioapic_lock);
	rtc_periodic(true);
	arch_irq_restore(f);
	end = tsc_after_us(INJECT_TIMEOUT_US);
	while (inj.masked == before && rdtsc() < end)
		arch_cpu_relax();
	rtc_periodic(false);
	return inj.masked == before ? -ETIMEDOUT : 0;
}
