/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Progress of a long phase on the console (the boot scrub of a 12 TiB
 * server, a guest build of terabytes): the CPU that drives the phase calls
 * progress_update() as work completes, and a line is printed only once the
 * phase has run PROGRESS_FIRST_S, then at most every PROGRESS_PERIOD_S and
 * at most PROGRESS_MAX_LINES times per phase, spread over the phase's
 * estimated length. A short phase prints nothing. The report is unchanged.
 *
 * Line: "keel: scrub: 42% done, 512 GiB of 1219 GiB, 12.3 GB/s, about 55 s
 * left".
 *
 * Lock: none; one struct progress is updated by one CPU.
 */
#ifndef KEEL_PROGRESS_H
#define KEEL_PROGRESS_H

#include <keel/types.h>

#define PROGRESS_FIRST_S   5
#define PROGRESS_PERIOD_S  5
#define PROGRESS_MAX_LINES 10

struct progress {
	const char *what; /* the phase, as in the other human lines */
	uint64_t total;	  /* bytes the phase will do */
	uint64_t start;	  /* ticks */
	uint64_t next;	  /* ticks: no line before this */
	unsigned int lines;
};

/* Start @p: @total bytes of @what from now. */
void progress_begin(struct progress *p, const char *what, uint64_t total);

/* @done bytes so far: print a line when one is due. */
void progress_update(struct progress *p, uint64_t done);

/*
 * progress_update() at tick @now (tests drive the clock). Return: true
 * when a line was printed.
 */
bool progress_update_at(struct progress *p, uint64_t done, uint64_t now);

#endif
