/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Which serial port is the console: the console= spelling of the command
 * line (docs/cmdline.md), parsed by console_spec_parse(), or the ACPI SPCR
 * (acpi_spcr_console() in keel/acpi.h). One arch-neutral result; the arch
 * then drives that UART (x86_64: 8250 I/O or MMIO; arm64: PL011 or 8250
 * MMIO) or says why it cannot.
 */
#ifndef KEEL_CONSOLE_SPEC_H
#define KEEL_CONSOLE_SPEC_H

#include <keel/types.h>

enum console_kind {
	CONSOLE_DEFAULT = 0, /* nothing chosen: firmware's, then the build's */
	CONSOLE_8250_IO,     /* 16550 at an I/O port (x86 only) */
	CONSOLE_8250_MMIO,   /* 16550 in memory space, 1 << reg_shift stride */
	CONSOLE_PL011,	     /* ARM PL011 (or SBSA generic UART) */
};

/* Highest 8250 baud rate: the PC clock 1.8432 MHz / 16, divisor 1. */
#define CONSOLE_8250_BAUD_MAX  115200u
#define CONSOLE_BAUD_MIN       50u
#define CONSOLE_PL011_BAUD_MAX 4000000u

struct console_spec {
	enum console_kind kind;
	uint64_t addr;	   /* I/O port or physical address */
	uint32_t baud;	   /* 0: not given (keep the firmware's setting) */
	uint8_t reg_shift; /* 8250 MMIO: register i at addr + (i << shift) */
};

/*
 * console_spec_parse(): one console= value over exactly [s, s+len):
 *   com1 | com2 | com3 | com4 [,BAUD]
 *   uart8250,io,PORT[,BAUD]     uart8250,mmio,ADDR[,BAUD]
 *   uart8250,mmio32,ADDR[,BAUD] (32-bit registers: reg_shift 2)
 *   pl011,ADDR[,BAUD]  pl011,mmio,ADDR[,BAUD]  pl011,mmio32,ADDR[,BAUD]
 * ("uart" is taken for "uart8250", as Linux's earlycon does). BAUD is
 * decimal, optionally followed by "n8" (the only framing keel drives).
 * Return: 0 with *@out filled, -EINVAL (not this grammar: unknown kind,
 * junk, missing address) or -ERANGE (address 0 / too large / misaligned,
 * baud out of range); *@out is then untouched.
 */
int console_spec_parse(const char *s, size_t len, struct console_spec *out);

/* "8250 I/O port", "8250 MMIO", "PL011" or "default". */
const char *console_kind_name(enum console_kind kind);

#endif
