/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * The 16550 register logic, shared by the arches' consoles: x86_64 reaches
 * the registers through I/O ports or MMIO, arm64 through MMIO; only the
 * accessors differ, so they are function pointers and the programming
 * (divisor, 8n1, FIFO) and the polled transmit live once, here. Polled,
 * no interrupts. Lock: none; the caller (printk's console lock, or the
 * boot CPU before SMP) serialises.
 */
#ifndef KEEL_UART8250_H
#define KEEL_UART8250_H

#include <keel/types.h>

struct uart8250 {
	uintptr_t base; /* I/O port, or the registers' virtual address */
	unsigned int reg_shift; /* register i at base + (i << reg_shift) */
	uint8_t (*in)(const struct uart8250 *u, unsigned int reg);
	void (*out)(const struct uart8250 *u, unsigned int reg, uint8_t v);
};

/* The PC UART clock 1.8432 MHz / 16: divisor = UART8250_BASE_BAUD / baud. */
#define UART8250_BASE_BAUD 115200u

/*
 * uart8250_init(): no interrupts; when @baud is not 0 also the divisor for
 * @baud (rounded to the nearest, at least 1), 8n1, FIFOs on and cleared,
 * DTR/RTS. @baud 0 keeps what the firmware programmed.
 */
void uart8250_init(const struct uart8250 *u, uint32_t baud);

/* uart8250_putc(): send one byte after a bounded wait for THR empty. */
void uart8250_putc(const struct uart8250 *u, char c);

/* Accessors for memory-mapped registers: byte wide, or 32-bit wide when
 * reg_shift is 2 (the "mmio32" layout). */
uint8_t uart8250_mmio_in(const struct uart8250 *u, unsigned int reg);
void uart8250_mmio_out(const struct uart8250 *u, unsigned int reg, uint8_t v);

#endif
