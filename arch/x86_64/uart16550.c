/* SPDX-License-Identifier: MIT */
/*
 * The serial console: a polled 16550 at CONFIG_SERIAL_PORT (COM1 by
 * default), CONFIG_SERIAL_BAUD 8n1, no interrupts, no FIFO state kept.
 * head.S programs the same UART only to report a missing long mode;
 * uart_init() runs first thing in x86_entry(), so every C line can print.
 * Lock: none here; printk serialises callers of arch_console_write().
 */
#include <arch/console.h>
#include <asm/x86.h>
#include <keel/config.h>

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

/* Bounded wait: a missing UART reads 0xff (THRE set) anyway. */
#define UART_SPIN_MAX 100000

static uint16_t uart_port = CONFIG_SERIAL_PORT;

/**
 * uart_init() - program the console UART: baud, 8n1, FIFO on.
 */
void uart_init(void)
{
	uint16_t div = 115200 / CONFIG_SERIAL_BAUD;

	outb(uart_port + UART_IER, 0);
	outb(uart_port + UART_LCR, UART_LCR_DLAB);
	outb(uart_port + UART_DLL, div & 0xff);
	outb(uart_port + UART_DLM, div >> 8);
	outb(uart_port + UART_LCR, 0x03);
	outb(uart_port + UART_FCR, 0xc7);
	outb(uart_port + UART_MCR, 0x03);
}

/**
 * uart_putc_raw() - send one byte, waiting (bounded) for the transmitter.
 */
void uart_putc_raw(char c)
{
	for (unsigned int i = 0; i < UART_SPIN_MAX; i++) {
		if (inb(uart_port + UART_LSR) & UART_LSR_THRE)
			break;
		__asm__ __volatile__("pause");
	}
	outb(uart_port + UART_THR, (uint8_t)c);
}

/**
 * arch_console_write() - write @len bytes, "\n" sent as "\r\n".
 */
void arch_console_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart_putc_raw('\r');
		uart_putc_raw(s[i]);
	}
}
