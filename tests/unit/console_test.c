/* SPDX-License-Identifier: MIT */
/*
 * The console choice: console= (common/lib/console_spec.c, and its one
 * warning through cmdline.c), the ACPI SPCR (acpi_spcr_console() on real
 * firmware tables from tests/data/acpi/spcr-real.txt) and the shared 16550
 * programming (common/lib/uart8250.c) against a fake register file.
 */
#include <stdlib.h>

#include "common.h"

#include <keel/acpi.h>
#include <keel/console_spec.h>
#include <keel/uart8250.h>

static int parse(const char *s, struct console_spec *cs)
{
	return console_spec_parse(s, strlen(s), cs);
}

static void expect(const char *s, enum console_kind kind, uint64_t addr,
		   uint32_t baud, uint8_t shift)
{
	struct console_spec cs;

	if (parse(s, &cs) != 0)
		fail_msg("console=%s rejected", s);
	if (cs.kind != kind || cs.addr != addr || cs.baud != baud ||
	    cs.reg_shift != shift)
		fail_msg("console=%s: kind %d addr %#llx baud %u shift %u", s,
			 cs.kind, (unsigned long long)cs.addr, cs.baud,
			 cs.reg_shift);
}

static void test_spellings(void **state)
{
	/* The PC COM ports every BIOS names: 0x3f8 0x2f8 0x3e8 0x2e8. */
	expect("com1", CONSOLE_8250_IO, 0x3f8, 0, 0);
	expect("com2", CONSOLE_8250_IO, 0x2f8, 0, 0);
	expect("com3,9600", CONSOLE_8250_IO, 0x3e8, 9600, 0);
	expect("com4,115200n8", CONSOLE_8250_IO, 0x2e8, 115200, 0);
	/* Linux earlycon spellings. */
	expect("uart8250,io,0x2f8", CONSOLE_8250_IO, 0x2f8, 0, 0);
	expect("uart8250,io,760,57600", CONSOLE_8250_IO, 760, 57600, 0);
	expect("uart,io,0x3f8", CONSOLE_8250_IO, 0x3f8, 0, 0);
	expect("uart8250,mmio,0xfedc9000", CONSOLE_8250_MMIO, 0xfedc9000, 0, 0);
	expect("uart8250,mmio32,0x1c28000,115200", CONSOLE_8250_MMIO, 0x1c28000,
	       115200, 2);
	expect("pl011,0x9000000", CONSOLE_PL011, 0x9000000, 0, 0);
	expect("pl011,mmio,0x9000000", CONSOLE_PL011, 0x9000000, 0, 0);
	expect("pl011,mmio32,0x9000000,1500000", CONSOLE_PL011, 0x9000000,
	       1500000, 0);
}

static void test_malformed(void **state)
{
	static const struct {
		const char *s;
		int err;
	} bad[] = {
		{"", -EINVAL},
		{"com0", -EINVAL},
		{"com5", -EINVAL},
		{"COM1", -EINVAL},
		{"com1,", -EINVAL},
		{"com1,fast", -EINVAL},
		{"com1,0x1c200", -EINVAL},
		{"com1,115200n7", -EINVAL},
		{"com1,115200,n8", -EINVAL},
		{"com1,49", -ERANGE},
		{"com1,230400", -ERANGE}, /* past the 1.8432 MHz divisor 1 */
		{"ttyS0", -EINVAL},
		{"uart8250", -EINVAL},
		{"uart8250,io", -EINVAL},
		{"uart8250,io,", -EINVAL},
		{"uart8250,pio,0x3f8", -EINVAL},
		{"uart8250,io,0", -ERANGE},
		{"uart8250,io,0x10000", -ERANGE},
		{"uart8250,io,0xfff9", -ERANGE},
		{"uart8250,io,0x3f8,115200,8", -EINVAL},
		{"uart8250,mmio32,0x1c28002", -ERANGE},
		{"uart8250,mmio,0x1ffffffffffffffff", -ERANGE},
		{"uart8250,mmio,-1", -EINVAL},
		{"pl011", -EINVAL},
		{"pl011,mmio", -EINVAL},
		{"pl011,0x9000001", -ERANGE},
		{"pl011,0x9000000,4000001", -ERANGE},
		{",,,,", -EINVAL},
		{"com1,,", -EINVAL},
	};
	struct console_spec cs = {CONSOLE_PL011, 0x1234, 7, 1};

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		int got = parse(bad[i].s, &cs);

		if (got != bad[i].err)
			fail_msg("console=%s: %d, expected %d", bad[i].s, got,
				 bad[i].err);
		/* A rejected value leaves the result alone. */
		assert_int_equal(cs.kind, CONSOLE_PL011);
		assert_int_equal(cs.addr, 0x1234);
	}
	/* Exactly [s, s+len): the bytes after len are not read. */
	assert_int_equal(console_spec_parse("com2xyz", 4, &cs), 0);
	assert_int_equal(cs.addr, 0x2f8);
	assert_int_equal(console_spec_parse(NULL, 4, &cs), -EINVAL);
}

/* boot/cmdline.c: one warning for a bad value, which keeps the previous one. */
static void test_cmdline_option(void **state)
{
	struct keel_options o;
	const char *good = "console=uart8250,io,0x2f8,115200";
	unsigned int w;

	options_defaults(&o);
	assert_int_equal(o.console_spec.kind, CONSOLE_DEFAULT);
	test_quiet_begin();
	w = cmdline_parse(&o, good, strlen(good));
	test_quiet_end();
	assert_int_equal(w, 0);
	assert_string_equal(o.console, "uart8250,io,0x2f8,115200");
	assert_int_equal(o.console_spec.kind, CONSOLE_8250_IO);
	assert_int_equal(o.console_spec.addr, 0x2f8);

	test_quiet_begin();
	w = cmdline_parse(&o, "console=com9", 12);
	assert_int_equal(test_console_warnings(), 1);
	assert_true(test_console_contains("console=\"com9\""));
	test_quiet_end();
	assert_int_equal(w, 1);
	assert_string_equal(o.console, "uart8250,io,0x2f8,115200");
	assert_int_equal(o.console_spec.addr, 0x2f8);

	/* The boot's one parse yields the spec the arches read. */
	test_quiet_begin();
	options_parse(&o, "console=pl011,0x9000000", 23);
	assert_int_equal(test_console_warnings(), 0);
	test_quiet_end();
	assert_int_equal(o.console_spec.kind, CONSOLE_PL011);
	assert_int_equal(o.console_spec.addr, 0x9000000);
}

static size_t read_file(const char *path, uint8_t *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		fail_msg("cannot open %s", path);
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

/* HP DL360 G7's SPCR with its register block at COM2 (spcr-real.txt). */
static void test_spcr_real_com2(void **state)
{
	uint8_t t[128];
	size_t n = read_file("tests/data/acpi/spcr-hp-dl360g7-com2.bin", t,
			     sizeof(t));
	struct acpi_info ai;
	struct console_spec cs;

	acpi_info_reset(&ai);
	assert_int_equal(n, 80);
	assert_int_equal(acpi_parse_spcr(t, n, &ai), 0);
	assert_int_equal(acpi_spcr_console(&ai, &cs), 0);
	assert_int_equal(cs.kind, CONSOLE_8250_IO); /* type 1, SystemIO */
	assert_int_equal(cs.addr, 0x2f8);
	assert_int_equal(cs.baud, 9600); /* baud byte 3 */
	assert_int_equal(cs.reg_shift, 0);
}

/* Dell R820 with redirection off: address 0, one info line, no warning. */
static void test_spcr_real_address0(void **state)
{
	uint8_t t[128];
	size_t n =
		read_file("tests/data/acpi/spcr-dell-r820.bin", t, sizeof(t));
	struct acpi_info ai;
	struct console_spec cs;

	acpi_info_reset(&ai);
	test_quiet_begin();
	assert_int_not_equal(acpi_parse_spcr(t, n, &ai), 0);
	assert_int_equal(test_console_warnings(), 0);
	assert_true(test_console_contains("no console redirection"));
	test_quiet_end();
	assert_int_equal(ai.warnings, 0);
	assert_int_equal(acpi_spcr_console(&ai, &cs), -ENOENT);
	assert_int_equal(cs.kind, CONSOLE_DEFAULT);
}

static void spcr_as(uint8_t type, uint8_t space, uint8_t access, uint64_t a,
		    struct acpi_info *ai)
{
	acpi_info_reset(ai);
	ai->tables |= ACPI_T_SPCR;
	ai->spcr_type = type;
	ai->spcr_reg.space_id = space;
	ai->spcr_reg.access_size = access;
	ai->spcr_reg.bit_width = access == 3 ? 32 : 8;
	ai->spcr_reg.address = a;
}

static void test_spcr_kinds(void **state)
{
	struct acpi_info ai;
	struct console_spec cs;

	spcr_as(ACPI_SPCR_16550, ACPI_GAS_MEMORY, 3, 0xfe215040, &ai);
	assert_int_equal(acpi_spcr_console(&ai, &cs), 0);
	assert_int_equal(cs.kind, CONSOLE_8250_MMIO);
	assert_int_equal(cs.reg_shift, 2); /* 32-bit access width */
	spcr_as(ACPI_SPCR_16550_GAS, ACPI_GAS_MEMORY, 1, 0x3000000, &ai);
	assert_int_equal(acpi_spcr_console(&ai, &cs), 0);
	assert_int_equal(cs.kind, CONSOLE_8250_MMIO);
	assert_int_equal(cs.reg_shift, 0);
	spcr_as(ACPI_SPCR_SBSA, ACPI_GAS_MEMORY, 3, 0x9000000, &ai);
	assert_int_equal(acpi_spcr_console(&ai, &cs), 0);
	assert_int_equal(cs.kind, CONSOLE_PL011);
	spcr_as(ACPI_SPCR_SBSA32, ACPI_GAS_MEMORY, 3, 0x9000000, &ai);
	assert_int_equal(acpi_spcr_console(&ai, &cs), 0);
	assert_int_equal(cs.kind, CONSOLE_PL011);
	/* A PL011 in I/O space, an unknown type: not drivable. */
	spcr_as(ACPI_SPCR_PL011, ACPI_GAS_IO, 1, 0x3f8, &ai);
	assert_int_equal(acpi_spcr_console(&ai, &cs), -EINVAL);
	spcr_as(0x10, ACPI_GAS_MEMORY, 1, 0x1000, &ai);
	assert_int_equal(acpi_spcr_console(&ai, &cs), -EINVAL);
	assert_int_equal(cs.addr, 0x1000);
	acpi_info_reset(&ai);
	assert_int_equal(acpi_spcr_console(&ai, &cs), -ENOENT);
}

/* A fake 16550: a register file and a log of writes. */
static uint8_t regs[8];
static uint8_t wlog[32][2];
static unsigned int wcount;

static uint8_t fake_in(const struct uart8250 *u, unsigned int reg)
{
	return reg == 5 ? 0x60 : regs[reg & 7]; /* LSR: THR empty */
}

static void fake_out(const struct uart8250 *u, unsigned int reg, uint8_t v)
{
	regs[reg & 7] = v;
	if (wcount < ARRAY_SIZE(wlog)) {
		wlog[wcount][0] = (uint8_t)reg;
		wlog[wcount][1] = v;
	}
	wcount++;
}

static unsigned int divisor_after(uint32_t baud)
{
	struct uart8250 u = {0, 0, fake_in, fake_out};
	unsigned int dll = 0, dlm = 0;
	bool dlab = false;

	wcount = 0;
	uart8250_init(&u, baud);
	for (unsigned int i = 0; i < wcount && i < ARRAY_SIZE(wlog); i++) {
		if (wlog[i][0] == 3)
			dlab = wlog[i][1] & 0x80;
		else if (dlab && wlog[i][0] == 0)
			dll = wlog[i][1];
		else if (dlab && wlog[i][0] == 1)
			dlm = wlog[i][1];
	}
	return dlm << 8 | dll;
}

static void test_uart8250(void **state)
{
	struct uart8250 u = {0, 0, fake_in, fake_out};

	/* 1.8432 MHz / 16 / baud. */
	assert_int_equal(divisor_after(115200), 1);
	assert_int_equal(divisor_after(57600), 2);
	assert_int_equal(divisor_after(9600), 12);
	assert_int_equal(divisor_after(50), 2304);
	/* 8n1 with DLAB cleared last. */
	assert_int_equal(regs[3], 0x03);
	/* Baud 0 ("as is"): interrupts off, nothing else touched. */
	wcount = 0;
	uart8250_init(&u, 0);
	assert_int_equal(wcount, 1);
	assert_int_equal(wlog[0][0], 1);
	assert_int_equal(wlog[0][1], 0);
	wcount = 0;
	uart8250_putc(&u, 'k');
	assert_int_equal(wcount, 1);
	assert_int_equal(wlog[0][0], 0);
	assert_int_equal(wlog[0][1], 'k');
}

/* The MMIO accessors: byte stride, and 32-bit registers 4 bytes apart. */
static void test_uart8250_mmio(void **state)
{
	uint32_t win[8] = {0};
	uint8_t bytes[8] = {0};
	struct uart8250 u32 = {(uintptr_t)win, 2, uart8250_mmio_in,
			       uart8250_mmio_out};
	struct uart8250 u8 = {(uintptr_t)bytes, 0, uart8250_mmio_in,
			      uart8250_mmio_out};

	uart8250_mmio_out(&u32, 3, 0x83);
	assert_int_equal(win[3], 0x83);
	win[5] = 0x60;
	assert_int_equal(uart8250_mmio_in(&u32, 5), 0x60);
	uart8250_mmio_out(&u8, 3, 0x83);
	assert_int_equal(bytes[3], 0x83);
	bytes[5] = 0x20;
	assert_int_equal(uart8250_mmio_in(&u8, 5), 0x20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_spellings, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_malformed, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_cmdline_option, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_spcr_real_com2, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_spcr_real_address0,
						test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_spcr_kinds, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_uart8250, test_setup,
						test_teardown),
		cmocka_unit_test_setup_teardown(test_uart8250_mmio, test_setup,
						test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
