/* SPDX-License-Identifier: MIT */
/* libFuzzer target: console_spec_parse() on arbitrary bytes. */
#include <keel/compiler.h>
#include <keel/console_spec.h>
#include <keel/errno.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_spec cs = {CONSOLE_DEFAULT, 0, 0, 0};
	int ret = console_spec_parse((const char *)data, size, &cs);

	if (ret) {
		/* Refused: one of the two errors, the result untouched. */
		FUZZ_CHECK(ret == -EINVAL || ret == -ERANGE);
		FUZZ_CHECK(cs.kind == CONSOLE_DEFAULT && !cs.addr && !cs.baud);
		return 0;
	}
	/* Accepted: a UART keel can name, at an address it can reach. */
	FUZZ_CHECK(cs.kind == CONSOLE_8250_IO || cs.kind == CONSOLE_8250_MMIO ||
		   cs.kind == CONSOLE_PL011);
	FUZZ_CHECK(cs.addr != 0);
	FUZZ_CHECK(cs.kind != CONSOLE_8250_IO || cs.addr <= 0xfff8);
	FUZZ_CHECK(cs.reg_shift == 0 || cs.reg_shift == 2);
	FUZZ_CHECK(cs.kind == CONSOLE_8250_MMIO || cs.reg_shift == 0);
	FUZZ_CHECK(IS_ALIGNED(cs.addr, 1u << cs.reg_shift));
	FUZZ_CHECK(cs.baud == 0 || cs.baud >= CONSOLE_BAUD_MIN);
	FUZZ_CHECK(cs.kind == CONSOLE_PL011 ? cs.baud <= CONSOLE_PL011_BAUD_MAX
					    : cs.baud <= CONSOLE_8250_BAUD_MAX);
	return 0;
}
