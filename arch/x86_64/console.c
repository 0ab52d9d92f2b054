/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hook of <arch/console.h>: the serial console, a polled 16550
 * (register logic in common/lib/uart8250.c).
 * uart_init() runs first thing in x86_entry() on the build's port
 * (CONFIG_SERIAL_PORT, COM1 by default, CONFIG_SERIAL_BAUD 8n1), so every
 * C line can print; head.S programs the same UART only to report a missing
 * long mode. The console is then chosen at run time, once:
 *   1. console= on the command line (x86_console_cmdline(), once the
 *      direct map exists): an 8250 at an I/O port or, below 4 GiB, in
 *      memory space (mapped uncached by mm_map_uc()); a PL011 or an MMIO
 *      UART above 4 GiB is refused with one warning;
 *   2. else the ACPI SPCR (x86_console_firmware(), after the tables are
 *      read): the same kinds, the SPCR's baud rate ("as is" = keep);
 *   3. else the build's port stays.
 * Until that choice is made every byte is also kept in early_buf; a switch
 * to another UART replays it there first, so the chosen console has the
 * whole boot log (and the build's port has the lines up to the switch,
 * should a machine die before it).
 * Lock: none here; printk serialises callers of arch_console_write(); the
 * switch runs on the boot CPU before SMP.
 */
#include <arch/console.h>
#include <asm/x86.h>
#include <keel/acpi.h>
#include <keel/compiler.h>
#include <keel/config.h>
#include <keel/console_spec.h>
#include <keel/errno.h>
#include <keel/printk.h>
#include <keel/string.h>
#include <keel/uart8250.h>

#define EARLY_BYTES 8192u

static uint8_t pio_in(const struct uart8250 *u, unsigned int reg)
{
	return inb((uint16_t)(u->base + reg));
}

static void pio_out(const struct uart8250 *u, unsigned int reg, uint8_t v)
{
	outb((uint16_t)(u->base + reg), v);
}

static struct uart8250 con = {CONFIG_SERIAL_PORT, 0, pio_in, pio_out};
static bool chosen; /* console= or SPCR decided: stop recording */
static char early_buf[EARLY_BYTES];
static size_t early_len;
static bool early_lost;

/**
 * uart_init() - program the build's console UART: baud, 8n1, FIFO on.
 */
void uart_init(void)
{
	uart8250_init(&con, CONFIG_SERIAL_BAUD);
}

/**
 * uart_putc_raw() - send one byte, waiting (bounded) for the transmitter.
 * @c: the byte.
 */
void uart_putc_raw(char c)
{
	uart8250_putc(&con, c);
}

static void con_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart8250_putc(&con, '\r');
		uart8250_putc(&con, s[i]);
	}
}

/**
 * arch_console_write() - write @len bytes, "\n" sent as "\r\n".
 * @s: bytes.
 * @len: count.
 */
void arch_console_write(const char *s, size_t len)
{
	if (!chosen) {
		size_t n = MIN(len, EARLY_BYTES - early_len);

		memcpy(early_buf + early_len, s, n);
		early_len += n;
		early_lost |= n < len;
	}
	con_write(s, len);
}

/*
 * Switch to the UART @cs names (@why: "console=..." or "ACPI SPCR"). The
 * line saying so goes to the old console; the new one gets the early log.
 * Return: 0, or -EINVAL when it cannot be driven here (warned once).
 */
static int use(const struct console_spec *cs, uint32_t baud, const char *why)
{
	static const char lost[] = "[console: early output truncated]\n";
	struct uart8250 u = {(uintptr_t)cs->addr, cs->reg_shift, pio_in,
			     pio_out};

	if (cs->kind == CONSOLE_8250_MMIO) {
		void *va = mm_map_uc(cs->addr, 8u << cs->reg_shift);

		if (!va) {
			pr_warn("%s: 8250 MMIO at %#llx is not below 4 GiB, "
				"keeping the %s at %#lx\n",
				why, (unsigned long long)cs->addr,
				console_kind_name(CONSOLE_8250_IO),
				(unsigned long)con.base);
			return -EINVAL;
		}
		u.base = (uintptr_t)va;
		u.in = uart8250_mmio_in;
		u.out = uart8250_mmio_out;
	} else if (cs->kind != CONSOLE_8250_IO) {
		pr_warn("%s: a %s cannot be the console on x86_64, keeping "
			"the %s at %#lx\n",
			why, console_kind_name(cs->kind),
			console_kind_name(CONSOLE_8250_IO),
			(unsigned long)con.base);
		return -EINVAL;
	}
	pr_info("console: %s at %#llx%s, baud %u%s (%s)\n",
		console_kind_name(cs->kind), (unsigned long long)cs->addr,
		cs->reg_shift ? " (32-bit registers)" : "", baud,
		baud ? "" : " (as the firmware set it)", why);
	if (cs->kind == CONSOLE_8250_IO && u.base == con.base &&
	    baud == CONFIG_SERIAL_BAUD) {
		chosen = true; /* the UART uart_init() set up: nothing to do */
		return 0;
	}
	chosen = true;
	con = u;
	uart8250_init(&con, baud);
	con_write(early_buf, early_len);
	if (early_lost)
		con_write(lost, sizeof(lost) - 1);
	return 0;
}

/**
 * x86_console_cmdline() - use the console= choice, if any.
 * @cs: the options' console_spec (kind 0: console= not given or bad;
 *	the parse warned about a bad one).
 * @text: the console= value as given, for the log.
 */
void x86_console_cmdline(const struct console_spec *cs, const char *text)
{
	static char why[64];
	uint32_t baud = cs->baud;

	if (cs->kind == CONSOLE_DEFAULT)
		return;
	/* A PC COM port named without a rate gets the build's rate. */
	if (!baud && cs->kind == CONSOLE_8250_IO)
		baud = CONFIG_SERIAL_BAUD;
	snprintf(why, sizeof(why), "console=%s", text);
	if (!use(cs, baud, why))
		return;
	chosen = true; /* refused: the build's port it is, not the SPCR */
}

/**
 * x86_console_firmware() - without console=, use the ACPI SPCR's UART.
 * @ai: the parsed ACPI tables, or NULL (none, or acpi=off).
 */
void x86_console_firmware(const struct acpi_info *ai)
{
	struct console_spec cs;
	int ret;

	if (chosen || !ai) {
		chosen = true;
		return;
	}
	ret = acpi_spcr_console(ai, &cs);
	if (ret == -EINVAL)
		pr_warn("ACPI SPCR: interface type %#x in address space %u at "
			"%#llx is not a UART keel drives, keeping the %s at "
			"%#lx\n",
			ai->spcr_type, ai->spcr_reg.space_id,
			(unsigned long long)ai->spcr_reg.address,
			console_kind_name(CONSOLE_8250_IO),
			(unsigned long)con.base);
	if (!ret)
		use(&cs, cs.baud, "ACPI SPCR");
	chosen = true;
}
