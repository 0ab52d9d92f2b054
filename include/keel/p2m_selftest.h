/* SPDX-License-Identifier: MIT */
/*
 * Owner: selftest.
 * p2m_selftest=on (common/selftest/p2m_selftest.c): the domain room's
 * stage-2 tables (keel/p2m.h) built, checked against the MMU where the
 * arch can, and destroyed; its result for the report.
 */
#ifndef KEEL_P2M_SELFTEST_H
#define KEEL_P2M_SELFTEST_H

#include <keel/types.h>

/*
 * p2m_selftest() - p2m_selftest=on: a table with 1 GiB, 2 MiB and 4 KiB
 * mappings of scratch frames (never written) on @node; the walk, the
 * software translation and, where the arch can, the MMU's agree on
 * sampled IPAs; then destroyed. Prints one "p2m:" line, keeps the result
 * for the report (p2m.selftest).
 * Return: 0 when everything agreed, else a negative errno.
 */
int p2m_selftest(int node);

/* What p2m_selftest() found (ran false until it runs), for the report. */
struct p2m_selftest_result {
	bool ran, ok;
	const char *format;
	unsigned int ipa_bits, tables;
	uint64_t samples, hw_checked, table_pages;
};
const struct p2m_selftest_result *p2m_selftest_result(void);

#endif
