/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the dom0less reader (boot/fdt/fdt_dom0less.c) and the
 * boot modules of /chosen (boot/fdt/fdt_modules.c), reached through dt_parse()
 * on arbitrary bytes (an exactly-sized copy, so ASan sees any read past
 * the length). Checks what the readers promise: at most
 * BOOTINFO_MAX_DOMAINS kept, each with a size in (0, 1 PiB], a multiple of
 * 1 KiB, a whole NUL-terminated name (never cut), vCPUs 0..4096, at most
 * BOOTINFO_DOMAIN_STATIC_MAX static ranges, each non-empty and reserved
 * as "static-mem" (fail closed: never handed to the heap), a kernel name
 * and a reason that are NUL-terminated. Seeds: tests/data/dom0less.dts
 * and Xen's examples (xen-*.dts) compiled into tests/fuzz/corpus/
 * dom0less/, and one DT of the section 4 generator
 * (tests/sandbox/dom0less_gen.py).
 */
#include <stdlib.h>

#include <keel/fdt.h>
#include <keel/string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Is @r in the reserved list as "static-mem" (unless the list merged)? */
static bool static_reserved(const struct bootinfo *b, const struct region *r)
{
	if (pa_val(r->end) <= pa_val(r->start))
		return false;
	if (b->merged_reserved)
		return true;
	for (unsigned int i = 0; i < b->reserved.count; i++)
		if (pa_val(b->reserved.regions[i].start) == pa_val(r->start) &&
		    pa_val(b->reserved.regions[i].end) == pa_val(r->end) &&
		    !strcmp(b->reserved.regions[i].name, "static-mem"))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bootinfo bi;
	static struct dt_arch_info ai;
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fuzz_console_quiet();
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_DT);
	dt_parse(copy, size, pa(0x40000000), &bi, &ai);
	FUZZ_CHECK(bi.domain_count <= BOOTINFO_MAX_DOMAINS);
	for (unsigned int i = 0; i < bi.domain_count; i++) {
		const struct bi_domain *d = &bi.domains[i];

		FUZZ_CHECK(d->bytes > 0 && d->bytes <= (1ull << 50));
		FUZZ_CHECK((d->bytes & 1023) == 0);
		FUZZ_CHECK(memchr(d->name, '\0', sizeof(d->name)) != NULL);
		FUZZ_CHECK(memchr(d->kernel, '\0', sizeof(d->kernel)) != NULL);
		FUZZ_CHECK(memchr(d->refused, '\0', sizeof(d->refused)) !=
			   NULL);
		FUZZ_CHECK(d->vcpus <= BOOTINFO_DOMAIN_VCPUS_MAX);
		FUZZ_CHECK(d->static_count <= BOOTINFO_DOMAIN_STATIC_MAX);
		FUZZ_CHECK(d->is_static || !d->static_count);
		for (unsigned int k = 0; k < d->static_count; k++)
			FUZZ_CHECK(static_reserved(&bi, &d->static_mem[k]));
	}
	if (bi.dropped_domains)
		FUZZ_CHECK(bi.domain_count == BOOTINFO_MAX_DOMAINS);
	free(copy);
	return 0;
}
