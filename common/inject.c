// SPDX-License-Identifier: MIT
/*
 * Fault injection (include/keel/inject.h): the one place that knows the
 * inject= words and which faults are armed. The command line hands the
 * parsed words to inject_arm(); the fault points ask inject_has() and
 * inject_get(). Lock: none (armed once, before any other CPU runs).
 */
#include <keel/errno.h>
#include <keel/inject.h>
#include <keel/string.h>

const struct enum_name inject_names[] = {
	{INJECT_AP_TIMEOUT, "ap-timeout"},
	{INJECT_CPU_ON_FAIL, "cpu-on-fail"},
	{INJECT_NODE_CPUS_FAIL, "node-cpus-fail"},
	{INJECT_SCRUB_STOP, "scrub-stop"},
	{INJECT_BAD_MAP, "bad-map"},
	/*
	 * Acted on by the arch before keel_main() (x86_64: its ACPI accessor
	 * hands the parser a copy with one byte flipped; arm64: the same for
	 * ACPI, and a DT copy with an asymmetric distance-matrix); listed here
	 * so that the word is accepted and reported like the others.
	 */
	{INJECT_BAD_SRAT, "bad-srat"},
	{INJECT_BAD_SLIT, "bad-slit"},
	{INJECT_BAD_DT_DISTANCE, "bad-dt-distance"},
	{INJECT_IRQ_UNEXPECTED, "irq-unexpected"},
	/*
	 * x86_64 acts on it twice: before it masks the I/O APICs (setup.c,
	 * from its early options) and at its fault point before the scrub.
	 */
	{INJECT_IOAPIC_UNMASK, "ioapic-unmask"},
	ENUM_NAMES_END,
};

static struct inject armed[INJECT_MAX];
static unsigned int armed_count;

/* The faults that name a CPU or a node: their word needs ":N". */
static bool needs_arg(enum inject_kind kind)
{
	return kind == INJECT_AP_TIMEOUT || kind == INJECT_CPU_ON_FAIL ||
	       kind == INJECT_NODE_CPUS_FAIL || kind == INJECT_SCRUB_STOP ||
	       kind == INJECT_IRQ_UNEXPECTED;
}

int inject_parse(const char *val, size_t len, struct inject *out)
{
	const char *colon = memchr(val, ':', len);
	size_t klen = colon ? (size_t)(colon - val) : len;
	int kind;

	if (enum_parse(inject_names, val, klen, &kind))
		return -EINVAL;
	out->kind = (enum inject_kind)kind;
	out->arg = 0;
	if (colon)
		return parse_u64(colon + 1, len - klen - 1, &out->arg) ? -EINVAL
								       : 0;
	return needs_arg(out->kind) ? -EINVAL : 0;
}

void inject_arm(const struct inject *list, unsigned int count)
{
	armed_count = count < INJECT_MAX ? count : INJECT_MAX;
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
	return enum_name(inject_names, kind);
}
