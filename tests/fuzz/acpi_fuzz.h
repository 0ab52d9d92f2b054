/* SPDX-License-Identifier: MIT */
/*
 * Shared by the ACPI libFuzzer targets (tests/fuzz/acpi_*_fuzz.c): the
 * invariants boot/acpi/acpi_*.c promises about struct acpi_info whatever
 * the input, checked after every parse; a broken one traps.
 */
#ifndef ACPI_FUZZ_H
#define ACPI_FUZZ_H

#include <keel/acpi.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void acpi_fuzz_check(const struct acpi_info *ai)
{
	unsigned int i, a, b, usable = 0, boots = 0;

	FUZZ_CHECK(ai->cpu_count <= ACPI_MAX_CPUS);
	FUZZ_CHECK(ai->node_count >= 1 && ai->node_count <= MAX_NUMNODES);
	FUZZ_CHECK(ai->memblk_count <= ACPI_MAX_MEMBLKS);
	FUZZ_CHECK(ai->table_count <= ACPI_MAX_TABLES);
	FUZZ_CHECK(ai->ioapic_count <= ACPI_MAX_IOAPICS);
	for (i = 0; i < ai->ioapic_count; i++) {
		FUZZ_CHECK(ai->ioapic[i].base != 0);
		for (a = 0; a < i; a++)
			FUZZ_CHECK(ai->ioapic[a].base != ai->ioapic[i].base);
	}
	for (i = 0; i < ACPI_ISA_IRQS; i++)
		FUZZ_CHECK(ai->isa_irq[i].present ||
			   (!ai->isa_irq[i].gsi && !ai->isa_irq[i].flags));
	for (i = 0; i < ai->cpu_count; i++) {
		const struct acpi_cpu *c = &ai->cpus[i];

		FUZZ_CHECK(c->node < MAX_NUMNODES && ai->node_used[c->node]);
		FUZZ_CHECK(!(c->usable && c->online_capable));
		usable += c->usable;
		boots += c->boot_cpu;
		for (a = 0; a < i; a++)
			FUZZ_CHECK(ai->cpus[a].hwid != c->hwid);
	}
	FUZZ_CHECK(usable == ai->cpu_usable_count);
	FUZZ_CHECK(boots <= 1 && boots == ai->boot_cpu_found);
	for (i = 0; i < ai->memblk_count; i++) {
		const struct region *m = &ai->memblk[i];

		FUZZ_CHECK(ai->numa_valid);
		FUZZ_CHECK(pa_val(m->start) < pa_val(m->end));
		FUZZ_CHECK(m->node < ai->node_count && ai->node_used[m->node]);
		if (i)
			FUZZ_CHECK(pa_val(ai->memblk[i - 1].end) <=
				   pa_val(m->start));
	}
	if (!ai->numa_valid)
		FUZZ_CHECK(ai->node_count == 1 && !ai->have_distance);
	for (a = 0; a < MAX_NUMNODES; a++) {
		if (ai->node_used[a])
			FUZZ_CHECK(a < ai->node_count);
		for (b = 0; b < MAX_NUMNODES; b++) {
			if (!ai->node_used[a] || !ai->node_used[b])
				continue;
			/* Asymmetric allowed (ACPI SLIT semantics). */
			FUZZ_CHECK(a == b ? ai->distance[a][b] == 10
					  : ai->distance[a][b] > 10);
		}
	}
	FUZZ_CHECK(ai->pm_timer_bits == 24 || ai->pm_timer_bits == 32);
	/* 0xffffffff is NUMA_NO_NODE: never a firmware node (issue 20). */
	for (i = 0; i < ai->nodemap.count; i++)
		FUZZ_CHECK(ai->nodemap.fw[i] != NODE_FW_ID_NONE);
}

/*
 * A few CPUs as a MADT would have left them, so that SRAT CPU entries
 * have something to resolve against: local APIC 0-3 (UID = id) and GICC
 * MPIDR 0x100-0x103 (UIDs 0-3).
 */
static inline void acpi_fuzz_cpus(struct acpi_info *ai)
{
	unsigned int i;

	for (i = 0; i < 8; i++) {
		struct acpi_cpu *c = &ai->cpus[ai->cpu_count++];

		c->kind = i < 4 ? ACPI_CPU_LAPIC : ACPI_CPU_GICC;
		c->hwid = i < 4 ? i : 0x100 + i - 4;
		c->acpi_uid = i & 3;
		c->usable = true;
		ai->cpu_usable_count++;
	}
}

#endif
