/* SPDX-License-Identifier: MIT */
/*
 * Issue 36 §7: a live update's handover with a million preserved ranges
 * (one domain of a million separate 4 KiB extents, written by the real
 * writer, common/liveupdate/handover_write.c) taken by the real reader
 * (boot/handover.c). Its preserved ranges go into bootinfo's reserved
 * list, which outgrows the early pool (some 170,000 ranges here, 4000 on
 * x86_64 and arm64) and merges its nearest neighbours. Each range past
 * the pool used to sort the whole list and merge one pair: 100,000 took
 * 4.8 s, 140,000 to a million did not finish in 900 s. Now a million is
 * taken in a few seconds under ASan; the alarm is a safety net, at least
 * 10x that. Every preserved page stays reserved.
 */
#include <stdlib.h>
#include <unistd.h>

#include "common.h"
#include <keel/handover.h>
#include <keel/liveupdate.h>

#include "../../common/liveupdate/lu_priv.h"

#define HO_PA	 0x20000000ull
#define G4	 0x100000000ull
#define EXTENTS	 1000000u
#define TABLE_PA 0x10000000ull

static struct bootinfo bi;

/* Extent i: guest page i, host page G4 + 2 i pages (a page apart). */
static uint64_t extent_pa(unsigned int i)
{
	return G4 + (uint64_t)i * 2 * PAGE_SIZE;
}

static void machine(void)
{
	bootinfo_early_pool_reset();
	bootinfo_init(&bi, BOOT_SANDBOX);
	bootinfo_add_ram(&bi, pa(0), pa(1ull << 30), 0);
	bootinfo_add_ram(&bi, pa(G4), pa(extent_pa(EXTENTS) + (1ull << 30)), 0);
	bootinfo_add_reserved(&bi, pa(0), pa(1 << 20), "bios");
	bootinfo_add_reserved(&bi, pa(1 << 20), pa(3 << 20), "kernel");
	bootinfo_add_cpu(&bi, 0, 0, 0, 0, 0, true);
	bi.cpus[0].boot_cpu = true;
	bootinfo_sanitise(&bi);
}

static uint64_t write_handover(uint8_t *b, uint64_t cap)
{
	struct handover_header hd = {0};
	struct handover_domain d;
	struct ho_writer w;

	memset(&d, 0, sizeof(d));
	d.id = 1;
	strcpy(d.name, "many");
	d.p2m_root = TABLE_PA;
	d.p2m_format = HANDOVER_P2M_VMSA;
	d.p2m_ipa_bits = 40;
	ho_writer_init(&w, b, cap);
	ho_domain_begin(&w, &d);
	ho_domain_table(&w, TABLE_PA, TABLE_PA + PAGE_SIZE);
	for (unsigned int i = 0; i < EXTENTS; i++)
		ho_domain_extent(&w, (uint64_t)i * PAGE_SIZE, extent_pa(i), 1);
	ho_domain_end(&w);
	ho_preserved(&w);
	hd.generation = 1;
	return ho_finish(&w, &hd);
}

/* Does the reserved list (sorted by start) cover [s, s + PAGE_SIZE)? */
static bool covered(unsigned int *at, uint64_t s)
{
	while (*at < bi.reserved.count &&
	       pa_val(bi.reserved.regions[*at].end) <= s)
		(*at)++;
	return *at < bi.reserved.count &&
	       pa_val(bi.reserved.regions[*at].start) <= s &&
	       s + PAGE_SIZE <= pa_val(bi.reserved.regions[*at].end);
}

static void test_million_preserved(void **state)
{
	const uint64_t cap = HANDOVER_MAX_BYTES;
	uint8_t *buf = aligned_alloc(PAGE_SIZE, cap);
	unsigned int at = 0;
	uint64_t size;

	(void)state;
	assert_non_null(buf);
	machine();
	size = write_handover(buf, cap);
	assert_true(size > 0);
	bi.handover.pa = pa(HO_PA);
	bi.handover.size = size;
	bi.handover.va = buf;
	alarm(120);
	test_quiet_begin();
	handover_apply(&bi, false);
	test_quiet_end();
	alarm(0);
	assert_int_equal(bi.handover.state, HANDOVER_TAKEN);
	assert_int_equal(bi.handover.preserved_count, EXTENTS + 1);
	assert_true(bi.merged_reserved > 0);
	assert_int_equal(bi.dropped_reserved, 0);
	range_table_sort(&bi.reserved);
	for (unsigned int i = 0; i < EXTENTS; i++)
		assert_true(covered(&at, extent_pa(i)));
	at = 0;
	assert_true(covered(&at, TABLE_PA));
	free(buf);
	bootinfo_early_pool_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_million_preserved,
						test_setup, test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
