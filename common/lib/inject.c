// SPDX-License-Identifier: MIT
/*
 * Fault injection (include/keel/inject.h): the one place that knows the
 * inject= words and which faults are armed. The command line hands the
 * parsed words to inject_arm(); the fault points ask inject_has() and
 * inject_get(). Lock: none (armed once, before any other CPU runs).
 */
#include <keel/compiler.h>
#include <keel/inject.h>
#include <keel/string.h>

/*
 * Rows: kind, word, what its ":N" is, the largest count (INJECT_ARG_COUNT
 * only). tests/sandbox/inject_cases.py reads this table to make a boot of
 * every kind with every class of ":N".
 */
const struct inject_kind_desc inject_kinds[] = {
	{INJECT_AP_TIMEOUT, "ap-timeout", INJECT_ARG_CPU, 0},
	{INJECT_CPU_ON_FAIL, "cpu-on-fail", INJECT_ARG_CPU, 0},
	{INJECT_NODE_CPUS_FAIL, "node-cpus-fail", INJECT_ARG_NODE, 0},
	{INJECT_SCRUB_STOP, "scrub-stop", INJECT_ARG_CPU, 0},
	{INJECT_BAD_MAP, "bad-map", INJECT_ARG_NONE, 0},
	/*
	 * Acted on by the arch before keel_main() (firmware_faults[]: x86_64's
	 * ACPI accessor hands the parser a copy with one byte flipped; arm64:
	 * the same for ACPI, and a DT copy with an asymmetric
	 * distance-matrix); where the boot reads no such table,
	 * fwboot_finish() says so.
	 */
	{INJECT_BAD_SRAT, "bad-srat", INJECT_ARG_NONE, 0},
	{INJECT_BAD_SLIT, "bad-slit", INJECT_ARG_NONE, 0},
	{INJECT_BAD_DT_DISTANCE, "bad-dt-distance", INJECT_ARG_NONE, 0},
	{INJECT_IRQ_UNEXPECTED, "irq-unexpected", INJECT_ARG_COUNT,
	 INJECT_STRAY_MAX},
	/*
	 * x86_64 acts on it twice: before it masks the I/O APICs (setup.c,
	 * from the options' INJECT_FW_IOAPIC_UNMASK) and at its fault point
	 * before the scrub.
	 */
	{INJECT_IOAPIC_UNMASK, "ioapic-unmask", INJECT_ARG_NONE, 0},
	/* Acted on by arm64 as it maps RAM (setup.c map_ram()). */
	{INJECT_PT_POOL_SHORT, "pt-pool-short", INJECT_ARG_NONE, 0},
	/* Acted on by the guest room; without guests=on the flow warns. */
	{INJECT_GUEST_PAST_END, "guest-past-end", INJECT_ARG_DOMAIN, 0},
	{INJECT_GUEST_PREEMPT_WALK, "guest-preempt-walk", INJECT_ARG_DOMAIN, 0},
	{INJECT_VCPU_STOP_SLOW, "vcpu-stop-slow", INJECT_ARG_DOMAIN, 0},
	{INJECT_VCPU_STOP_STUCK, "vcpu-stop-stuck", INJECT_ARG_DOMAIN, 0},
	{INJECT_VCPU_EXIT_SLOW, "vcpu-exit-slow", INJECT_ARG_DOMAIN, 0},
	/* Acted on by the live update's stop (liveupdate.c lu_cpu_stop()). */
	{INJECT_CPU_STOP_LATE, "cpu-stop-late", INJECT_ARG_CPU, 0},
	{INJECT_CPU_FREEZE_LATE, "cpu-freeze-late", INJECT_ARG_CPU, 0},
	/*
	 * The live update's handover (liveupdate=N): the old image writes
	 * it, then corrupts it so; the new image must refuse it
	 * (docs/liveupdate.md). Without liveupdate=, a warning.
	 */
	{INJECT_HO_CHECKSUM, "handover-checksum", INJECT_ARG_NONE, 0},
	{INJECT_HO_OVERLAP, "handover-overlap", INJECT_ARG_NONE, 0},
	{INJECT_HO_OUTSIDE, "handover-outside", INJECT_ARG_NONE, 0},
	{INJECT_HO_ROOT, "handover-root", INJECT_ARG_NONE, 0},
	{INJECT_HO_TRUNCATE, "handover-truncate", INJECT_ARG_NONE, 0},
	{INJECT_HO_VERSION, "handover-version", INJECT_ARG_NONE, 0},
	{INJECT_HO_MISALIGN, "handover-misalign", INJECT_ARG_NONE, 0},
	{INJECT_HO_SELF, "handover-self-overlap", INJECT_ARG_NONE, 0},
	{INJECT_HO_IMAGE, "handover-image", INJECT_ARG_NONE, 0},
	{INJECT_HO_EXTENT, "handover-extent", INJECT_ARG_NONE, 0},
	/*
	 * Not a fault: the handover goes in pieces of 4 KiB (version 7)
	 * even when one block would hold it (common/liveupdate/lu_alloc.c),
	 * so that every machine's update tests the pieces' path.
	 */
	{INJECT_HO_PIECES, "handover-pieces", INJECT_ARG_NONE, 0},
	/*
	 * Acted on by the flow once the heap is open, before the scrub
	 * (common/boot.c): heap_offline() of the page as broken.
	 */
	{INJECT_POISON, "poison", INJECT_ARG_PFN, 0},
	/*
	 * arm64 maps an unassigned page (a gap of the DT) as Device with the
	 * RAM (INJECT_FW_SEA) and the flow has it read once the heap is open
	 * (arch_ras_raise_sea()): the decode error comes back as a real
	 * synchronous external abort, fatal. Elsewhere: warned, nothing done.
	 */
	{INJECT_SEA, "sea", INJECT_ARG_NONE, 0},
	/*
	 * Acted on by the flow once the domains are built and checked,
	 * before the guests run (common/domain/domain_poison.c): the page
	 * at the middle of domain N's guest memory, heap_offline_owned().
	 */
	{INJECT_POISON_DOMAIN, "poison-domain", INJECT_ARG_DOMAIN, 0},
	/* The same point, page frame N wherever it is: heap_offline(). */
	{INJECT_POISON_LATE, "poison-late", INJECT_ARG_PFN, 0},
	/*
	 * Acted on by a live update's new image as it restores the domains
	 * of the handover (common/domain/domain_restore.c): domain N's
	 * restore fails before it takes any of its memory.
	 */
	{INJECT_RESTORE_FAIL, "restore-fail", INJECT_ARG_DOMAIN, 0},
	/*
	 * Acted on by a live update's old image between the records it
	 * writes aside and its freeze (common/liveupdate/lu_bad.c): page
	 * frame N goes bad, heap_offline().
	 */
	{INJECT_POISON_FREEZE, "poison-freeze", INJECT_ARG_PFN, 0},
	/*
	 * Acted on by the flow with inject=poison (common/boot_ras.c): the
	 * arch logs a corrected memory error in page frame N, found by the
	 * poll before the next drain (the sandbox); elsewhere warned.
	 */
	{INJECT_CE, "ce", INJECT_ARG_PFN, 0},
	/*
	 * Acted on with inject=poison-freeze (common/liveupdate/lu_bad.c):
	 * page frame N queued as a machine check queues it, for the freeze
	 * to take (lu_put_bad()).
	 */
	{INJECT_MCE_FREEZE, "mce-freeze", INJECT_ARG_PFN, 0},
	{INJECT_NONE, NULL, INJECT_ARG_NONE, 0},
};

/* The kinds acted on while the firmware is read (INJECT_FW_*). */
static const struct {
	enum inject_kind kind;
	unsigned int bit;
} firmware_faults[] = {
	{INJECT_BAD_SRAT, INJECT_FW_BAD_SRAT},
	{INJECT_BAD_SLIT, INJECT_FW_BAD_SLIT},
	{INJECT_BAD_DT_DISTANCE, INJECT_FW_BAD_DT_DIST},
	{INJECT_BAD_MAP, INJECT_FW_BAD_MAP},
	{INJECT_IOAPIC_UNMASK, INJECT_FW_IOAPIC_UNMASK},
	{INJECT_PT_POOL_SHORT, INJECT_FW_PT_SHORT},
	{INJECT_SEA, INJECT_FW_SEA},
};

static struct inject armed[INJECT_MAX];
static unsigned int armed_count;

static const struct inject_kind_desc *kind_by_name(const char *s, size_t len)
{
	for (const struct inject_kind_desc *d = inject_kinds; d->name; d++)
		if (strlen(d->name) == len && !memcmp(d->name, s, len))
			return d;
	return NULL;
}

/* What N names, for "needs :N (...)". */
static const char *arg_what(enum inject_arg arg)
{
	return arg == INJECT_ARG_CPU	  ? "a CPU id"
	       : arg == INJECT_ARG_NODE	  ? "a node id"
	       : arg == INJECT_ARG_DOMAIN ? "a domain id"
	       : arg == INJECT_ARG_PFN	  ? "a page frame number"
					  : "a count";
}

/*
 * The kind's rule for [n, n+nlen) (@has_n: a ":" was given). Return: the
 * verdict, @why filled when it is not INJECT_OK.
 */
static enum inject_verdict check_arg(const struct inject_kind_desc *d,
				     bool has_n, const char *n, size_t nlen,
				     uint64_t *arg, char *why)
{
	*arg = 0;
	if (d->arg == INJECT_ARG_NONE) {
		if (!has_n)
			return INJECT_OK;
		snprintf(why, INJECT_WHY_SIZE, "%s takes no :N", d->name);
		return INJECT_REFUSED;
	}
	if (!has_n) {
		snprintf(why, INJECT_WHY_SIZE, "%s needs :N (%s)", d->name,
			 arg_what(d->arg));
		return INJECT_REFUSED;
	}
	if (parse_u64(n, nlen, arg)) {
		snprintf(why, INJECT_WHY_SIZE,
			 "N is not a decimal or 0x number (%s)",
			 arg_what(d->arg));
		return INJECT_REFUSED;
	}
	if (d->arg != INJECT_ARG_COUNT)
		return INJECT_OK;
	if (!*arg) {
		snprintf(why, INJECT_WHY_SIZE, "a count of 0 injects nothing");
		return INJECT_REFUSED;
	}
	if (*arg <= d->max)
		return INJECT_OK;
	snprintf(why, INJECT_WHY_SIZE, "count over %llu, clamped to %llu",
		 (unsigned long long)d->max, (unsigned long long)d->max);
	*arg = d->max;
	return INJECT_CLAMPED;
}

enum inject_verdict inject_parse(const char *val, size_t len,
				 struct inject *out, char *why)
{
	const char *colon = memchr(val, ':', len);
	size_t klen = colon ? (size_t)(colon - val) : len;
	const struct inject_kind_desc *d = kind_by_name(val, klen);

	why[0] = '\0';
	if (!d) {
		snprintf(why, INJECT_WHY_SIZE, "no such kind");
		return INJECT_REFUSED;
	}
	out->kind = d->kind;
	return check_arg(d, colon != NULL, colon ? colon + 1 : NULL,
			 colon ? len - klen - 1 : 0, &out->arg, why);
}

unsigned int inject_firmware_faults(const struct inject *list,
				    unsigned int count)
{
	unsigned int bits = 0;

	for (unsigned int i = 0; i < count && i < INJECT_MAX; i++)
		for (unsigned int k = 0; k < ARRAY_SIZE(firmware_faults); k++)
			if (list[i].kind == firmware_faults[k].kind)
				bits |= firmware_faults[k].bit;
	return bits;
}

void inject_arm(const struct inject *list, unsigned int count)
{
	armed_count = !list ? 0 : count < INJECT_MAX ? count : INJECT_MAX;
	if (armed_count)
		memcpy(armed, list, armed_count * sizeof(armed[0]));
}

bool inject_list_has(const struct inject *list, unsigned int count,
		     enum inject_kind kind, uint64_t arg)
{
	for (unsigned int i = 0; i < count && i < INJECT_MAX; i++)
		if (list[i].kind == kind && list[i].arg == arg)
			return true;
	return false;
}

bool inject_has(enum inject_kind kind, uint64_t arg)
{
	return inject_list_has(armed, armed_count, kind, arg);
}

bool inject_get(enum inject_kind kind, uint64_t *arg)
{
	for (unsigned int i = 0; i < armed_count; i++) {
		if (armed[i].kind == kind) {
			if (arg)
				*arg = armed[i].arg;
			return true;
		}
	}
	return false;
}

void inject_for_each(enum inject_kind kind, void (*fn)(uint64_t arg, void *ctx),
		     void *ctx)
{
	for (unsigned int i = 0; i < armed_count; i++)
		if (armed[i].kind == kind)
			fn(armed[i].arg, ctx);
}

const char *inject_name(enum inject_kind kind)
{
	for (const struct inject_kind_desc *d = inject_kinds; d->name; d++)
		if (d->kind == kind)
			return d->name;
	return "unknown";
}
