/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * What one domain= word asks (a value type, nothing else): struct
 * keel_options keeps a list of them and the domain room (domain.h) plans
 * its domains from them; domain_opt_add() (common/domain/domain_parse.c)
 * parses the word.
 */
#ifndef KEEL_DOMAIN_SPEC_H
#define KEEL_DOMAIN_SPEC_H

#include <keel/types.h>

#define DOMAIN_MAX	     64 /* domain= words and dom0less nodes together */
#define DOMAIN_WORD_NAME_MAX 16 /* "domainN" of a domain= word */
#define DOMAIN_ANY_NODE	     (-1)

/* What was asked by one domain= word (kept small: options live on stacks). */
struct domain_spec {
	uint64_t bytes; /* rounded up to 4 KiB */
	int64_t node; /* as asked (maybe no node), DOMAIN_ANY_NODE: not pinned */
	char name[DOMAIN_WORD_NAME_MAX];
};

#endif
