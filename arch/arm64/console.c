/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hook of <arch/console.h>: the PL011 console behind
 * arch_console_write() (or a 16550 in memory space, see below).
 *
 * Until the DT is read we write to CONFIG_SERIAL_PL011_BASE (QEMU virt:
 * 0x09000000); setup.c then switches to the UART /chosen/stdout-path names
 * when it is a PL011. The firmware (or QEMU) has programmed baud rate and
 * line control already; we only poll the FIFO-full flag and write. Works
 * with the MMU off (Device memory either way) and on (Device-nGnRE map).
 *
 * Booted through UEFI, output first goes to the firmware's ConOut (efi.c's
 * hook); between ExitBootServices() and the moment setup.c knows the UART
 * (DT stdout-path or ACPI SPCR) it is held in a small buffer, so a server
 * whose UART is not at CONFIG_SERIAL_PL011_BASE never sees a write to a
 * guessed address; pl011_set_base() or pl011_release() flushes it.
 *
 * setup.c may instead pick a 16550 in memory space (console=uart8250,mmio
 * or an SPCR naming one): pl011_set_8250() then sends the bytes through
 * common/lib/uart8250.c's register logic.
 *
 * Lock: none here; printk serialises whole lines with its console lock.
 */
#include <arch/console.h>
#include <asm/arm64.h>
#include <keel/compiler.h>
#include <keel/string.h>
#include <keel/uart8250.h>

#define UART_DR	     0x00
#define UART_FR	     0x18
#define UART_FR_TXFF (1u << 5)
#define SPIN_LIMIT   1000000u

#define HOLD_BYTES   8192u

static uintptr_t uart_base = CONFIG_SERIAL_PL011_BASE;
/* Set by pl011_set_8250(): the console is that 16550, not a PL011. */
static struct uart8250 con_8250;
static bool use_8250;
static void (*con_hook)(const char *s, size_t len);
static bool holding;
static char hold_buf[HOLD_BYTES];
static size_t hold_len;
static bool hold_lost;

static void pl011_putc(char c)
{
	volatile uint32_t *fr = (volatile uint32_t *)(uart_base + UART_FR);
	volatile uint32_t *dr = (volatile uint32_t *)(uart_base + UART_DR);

	/* Bounded: a wedged UART must not hang the boot. */
	for (unsigned int i = 0; i < SPIN_LIMIT && (*fr & UART_FR_TXFF); i++)
		;
	*dr = (uint8_t)c;
}

/**
 * arch_console_write() - write @len bytes, "\n" as "\r\n".
 * @s: bytes.
 * @len: count.
 */
void arch_console_write(const char *s, size_t len)
{
	if (con_hook) {
		con_hook(s, len);
		return;
	}
	if (holding) {
		size_t n = MIN(len, HOLD_BYTES - hold_len);

		memcpy(hold_buf + hold_len, s, n);
		hold_len += n;
		hold_lost |= n < len;
		return;
	}
	for (size_t i = 0; i < len; i++) {
		if (use_8250) {
			if (s[i] == '\n')
				uart8250_putc(&con_8250, '\r');
			uart8250_putc(&con_8250, s[i]);
			continue;
		}
		if (s[i] == '\n')
			pl011_putc('\r');
		pl011_putc(s[i]);
	}
}

/**
 * pl011_set_base() - switch the console to the PL011 at @base (mapped).
 * @base: physical (== virtual) address of the UART registers.
 */
void pl011_set_base(paddr_t base)
{
	uart_base = (uintptr_t)pa_val(base);
	use_8250 = false;
	pl011_release();
}

/**
 * pl011_set_8250() - switch the console to the 16550 at @base (mapped
 * Device), programmed for @baud (0: as the firmware left it).
 * @base: physical (== virtual) address of its registers.
 * @reg_shift: register i at @base + (i << @reg_shift); 2 = 32-bit access.
 * @baud: rate, assuming the PC clock 1.8432 MHz (as Linux's earlycon does).
 */
void pl011_set_8250(paddr_t base, unsigned int reg_shift, uint32_t baud)
{
	con_8250.base = (uintptr_t)pa_val(base);
	con_8250.reg_shift = reg_shift;
	con_8250.in = uart8250_mmio_in;
	con_8250.out = uart8250_mmio_out;
	uart8250_init(&con_8250, baud);
	use_8250 = true;
	pl011_release();
}

/**
 * pl011_set_hook() - send console output to @fn instead (UEFI ConOut).
 * @fn: writer, or NULL to write to the UART (or the hold buffer) again.
 */
void pl011_set_hook(void (*fn)(const char *s, size_t len))
{
	con_hook = fn;
}

/**
 * pl011_hold() - keep console output in memory until the UART is known.
 */
void pl011_hold(void)
{
	holding = true;
}

/**
 * pl011_release() - write what was held to the current UART, stop holding.
 */
void pl011_release(void)
{
	static const char lost[] = "[console: early output truncated]\n";

	if (!holding)
		return;
	holding = false;
	arch_console_write(hold_buf, hold_len);
	if (hold_lost)
		arch_console_write(lost, sizeof(lost) - 1);
	hold_len = 0;
}

/**
 * pl011_base() - the UART in use.
 * Return: its physical address.
 */
paddr_t pl011_base(void)
{
	return pa(uart_base);
}
