/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the bytes are a program of bootinfo adder calls (any
 * parser could make them), then bootinfo_sanitise() must establish its
 * invariants, and a second sanitise must change nothing.
 */
#include <keel/string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct reader {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct reader *r, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes-- && r->left) {
		v = (v << 8) | *r->p++;
		r->left--;
	}
	return v;
}

/* Addresses: mostly small and page-ish so ranges collide, sometimes wild. */
static uint64_t take_addr(struct reader *r)
{
	uint8_t kind = (uint8_t)take(r, 1);

	switch (kind & 3) {
	case 0:
		return take(r, 1) << 12;
	case 1:
		return take(r, 2) << 20;
	case 2:
		return take(r, 2) << (kind >> 2);
	default:
		return take(r, 8);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi, again;
	struct reader r = {data, size};

	fuzz_console_quiet();
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	while (r.left) {
		uint8_t op = (uint8_t)take(&r, 1);
		uint64_t s, e;

		switch (op % 6) {
		case 0:
		case 1:
			s = take_addr(&r);
			e = s + take_addr(&r);
			bootinfo_add_ram(&bi, pa(s), pa(e),
					 op & 0x80 ? (uint32_t)take(&r, 4)
						   : (uint32_t)(op >> 3) % 6);
			break;
		case 2:
			s = take_addr(&r);
			bootinfo_add_reserved(&bi, pa(s), pa(s + take_addr(&r)),
					      "fuzz");
			break;
		case 3:
			bootinfo_add_cpu(&bi, take(&r, 1),
					 op & 0x80 ? NUMA_NO_NODE
						   : (uint32_t)take(&r, 1) % 20,
					 0, 0, 0, op & 0x40);
			if (bi.cpu_count && (op & 0x20))
				bi.cpus[bi.cpu_count - 1].boot_cpu = true;
			break;
		case 4:
			bootinfo_set_distance(&bi, (uint32_t)take(&r, 1) % 20,
					      (uint32_t)take(&r, 1) % 20,
					      (uint8_t)take(&r, 1));
			break;
		default:
			bi.paddr_bits = (unsigned int)take(&r, 1);
			break;
		}
	}
	bootinfo_sanitise(&bi);
	fuzz_check_bootinfo(&bi);

	memcpy(&again, &bi, sizeof(bi));
	bootinfo_sanitise(&again);
	FUZZ_CHECK(again.fixups == bi.fixups);
	FUZZ_CHECK(!memcmp(&again, &bi, sizeof(bi)));
	return 0;
}
