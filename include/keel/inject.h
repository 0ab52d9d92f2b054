/* SPDX-License-Identifier: MIT */
/*
 * Fault injection (inject= on the command line, docs/cmdline.md): named
 * fault points that the subsystems ask about. The command line parses the
 * words (inject_parse()), keel_main() arms them once (inject_arm()), and
 * the code at each fault point asks inject_has()/inject_get(); nothing
 * else reads the list. The arch acts on the firmware-table faults before
 * keel_main() from its early options (options_inject_has(), fwboot.c).
 *
 * Lock: none; armed by the boot CPU before any other CPU runs, read-only
 * afterwards.
 */
#ifndef KEEL_INJECT_H
#define KEEL_INJECT_H

#include <keel/enum_names.h>
#include <keel/types.h>

#define INJECT_MAX 8

/* The fault points. */
enum inject_kind {
	INJECT_NONE = 0,
	INJECT_AP_TIMEOUT,	/* ap-timeout:N: CPU N never checks in */
	INJECT_CPU_ON_FAIL,	/* cpu-on-fail:N: starting CPU N fails */
	INJECT_NODE_CPUS_FAIL,	/* node-cpus-fail:N: no CPU of node N starts */
	INJECT_SCRUB_STOP,	/* scrub-stop:N: scrub worker N quits */
	INJECT_BAD_MAP,		/* bad-map: the map claims the kernel is RAM */
	INJECT_BAD_SRAT,	/* bad-srat: the arch corrupts the SRAT read */
	INJECT_BAD_SLIT,	/* bad-slit: the arch corrupts the SLIT read */
	INJECT_BAD_DT_DISTANCE, /* bad-dt-distance: the DT distance-matrix */
	INJECT_IRQ_UNEXPECTED,	/* irq-unexpected:N: N stray interrupts */
	INJECT_IOAPIC_UNMASK,	/* ioapic-unmask: a stuck level line unmasked */
};

struct inject {
	enum inject_kind kind;
	uint64_t arg;
};

/* The inject= words (one table: parse and print). */
extern const struct enum_name inject_names[];

/*
 * inject_parse(): one inject= value, "KIND" or "KIND:N" (the CPU and node
 * faults need N). Return: 0 and *@out, or -EINVAL.
 */
int inject_parse(const char *val, size_t len, struct inject *out);

/* Arm the @count faults of @list (keel_main(), once the options are parsed). */
void inject_arm(const struct inject *list, unsigned int count);

/* Is fault point @kind armed with argument @arg? */
bool inject_has(enum inject_kind kind, uint64_t arg);
/* Armed with any argument: the first in *@arg (may be NULL). */
bool inject_get(enum inject_kind kind, uint64_t *arg);
/* Call @fn with each armed argument of @kind, in command-line order. */
void inject_for_each(enum inject_kind kind, void (*fn)(uint64_t arg, void *ctx),
		     void *ctx);
/* Is @kind with @arg in @list (the arch's early, unarmed options)? */
bool inject_list_has(const struct inject *list, unsigned int count,
		     enum inject_kind kind, uint64_t arg);

/* The inject= word of @kind, for warnings. */
const char *inject_name(enum inject_kind kind);

#endif
