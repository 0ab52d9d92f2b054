/* SPDX-License-Identifier: MIT */
/*
 * The queries of fault injection (inject=, docs/cmdline.md): is a fault
 * asked for, with which argument. The words are parsed by cmdline.c into
 * struct keel_options; these only read them (moved out of cmdline.c to
 * keep it under 600 lines). No lock: the options are written once, by
 * the boot CPU, before any other CPU runs.
 */
#include <keel/options.h>

/**
 * options_inject_has() - is fault @kind injected with argument @arg in @o?
 * Return: true when an inject= word asked for it.
 */
bool options_inject_has(const struct keel_options *o, enum inject_kind kind,
			uint64_t arg)
{
	for (unsigned int i = 0; i < o->inject_count && i < INJECT_MAX; i++)
		if (o->inject[i].kind == kind && o->inject[i].arg == arg)
			return true;
	return false;
}

/**
 * inject_has() - is fault @kind injected with argument @arg (global opts)?
 * Return: true when an inject= word asked for it.
 */
bool inject_has(enum inject_kind kind, uint64_t arg)
{
	return options_inject_has(&opts, kind, arg);
}

/**
 * inject_get() - the argument of the first inject= word of @kind.
 * Return: true and *@arg set when there is one, false otherwise.
 */
bool inject_get(enum inject_kind kind, uint64_t *arg)
{
	for (unsigned int i = 0; i < opts.inject_count && i < INJECT_MAX; i++) {
		if (opts.inject[i].kind == kind) {
			if (arg)
				*arg = opts.inject[i].arg;
			return true;
		}
	}
	return false;
}
