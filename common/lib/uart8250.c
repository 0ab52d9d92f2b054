/* SPDX-License-Identifier: MIT */
/*
 * 16550 programming and polled output over the accessors in struct
 * uart8250 (keel/uart8250.h). The registers (offsets in units of
 * 1 << reg_shift): THR/DLL 0, IER/DLM 1, FCR 2, LCR 3, MCR 4, LSR 5.
 */
#include <arch/cpu.h>
#include <keel/uart8250.h>

#define UART_THR      0
#define UART_IER      1
#define UART_DLL      0
#define UART_DLM      1
#define UART_FCR      2
#define UART_LCR      3
#define UART_MCR      4
#define UART_LSR      5
#define UART_LSR_THRE 0x20
#define UART_LCR_DLAB 0x80
#define UART_LCR_8N1  0x03
#define UART_FCR_ON   0xc7 /* enable, clear both, trigger 14 */
#define UART_MCR_ON   0x03 /* DTR, RTS */

/* Bounded: a missing UART reads 0xff (THRE set) anyway. */
#define UART_SPIN_MAX 100000

/**
 * uart8250_init() - see keel/uart8250.h.
 * @u: the UART.
 * @baud: rate to program, or 0 to keep the firmware's.
 */
void uart8250_init(const struct uart8250 *u, uint32_t baud)
{
	uint32_t div;

	u->out(u, UART_IER, 0);
	if (!baud)
		return;
	div = (UART8250_BASE_BAUD + baud / 2) / baud;
	if (!div)
		div = 1;
	if (div > 0xffff)
		div = 0xffff;
	u->out(u, UART_LCR, UART_LCR_DLAB);
	u->out(u, UART_DLL, (uint8_t)div);
	u->out(u, UART_DLM, (uint8_t)(div >> 8));
	u->out(u, UART_LCR, UART_LCR_8N1);
	u->out(u, UART_FCR, UART_FCR_ON);
	u->out(u, UART_MCR, UART_MCR_ON);
}

/**
 * uart8250_putc() - send @c once the transmitter holds nothing (bounded).
 * @u: the UART.
 * @c: the byte.
 */
void uart8250_putc(const struct uart8250 *u, char c)
{
	for (unsigned int i = 0; i < UART_SPIN_MAX; i++) {
		if (u->in(u, UART_LSR) & UART_LSR_THRE)
			break;
		arch_cpu_relax();
	}
	u->out(u, UART_THR, (uint8_t)c);
}

/**
 * uart8250_mmio_in() - read register @reg of a memory-mapped 16550.
 * @u: the UART (base is a virtual address mapped uncached / Device).
 * @reg: register number.
 *
 * Return: its value.
 */
uint8_t uart8250_mmio_in(const struct uart8250 *u, unsigned int reg)
{
	uintptr_t a = u->base + ((uintptr_t)reg << u->reg_shift);

	if (u->reg_shift == 2)
		return (uint8_t) * (volatile uint32_t *)a;
	return *(volatile uint8_t *)a;
}

/**
 * uart8250_mmio_out() - write register @reg of a memory-mapped 16550.
 * @u: the UART.
 * @reg: register number.
 * @v: value.
 */
void uart8250_mmio_out(const struct uart8250 *u, unsigned int reg, uint8_t v)
{
	uintptr_t a = u->base + ((uintptr_t)reg << u->reg_shift);

	if (u->reg_shift == 2)
		*(volatile uint32_t *)a = v;
	else
		*(volatile uint8_t *)a = v;
}
