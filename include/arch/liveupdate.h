/* SPDX-License-Identifier: MIT */
/*
 * Arch hooks of a live update (DESIGN §13, docs/liveupdate.md). The
 * arch-neutral part (common/liveupdate/) decides when, writes the
 * handover and stops the CPUs through these; the arch knows how a CPU
 * stops for the next image, where that image is and how its loader would
 * enter it.
 *
 *   x86_64   arch/x86_64/liveupdate.c, lu_stub.S: the first multiboot
 *            module, relocated over this image in 32-bit protected mode,
 *            entered with the loader's magic and information;
 *   arm64    arch/arm64/liveupdate.c, lu_stub.S: the initrd, entered with
 *            x0 = a copy of the DTB grown by /chosen/keel,handover;
 *   sandbox  arch/sandbox/liveupdate.c: exec() of a keel binary with the
 *            RAM arena's memfd and the handover's address in argv.
 */
#ifndef ARCH_LIVEUPDATE_H
#define ARCH_LIVEUPDATE_H

#include <keel/types.h>

/* This image's build id (its link-time build-id note, 8 bytes), 0: none. */
uint64_t arch_lu_build_id(void);

/*
 * The first 8 bytes of the NT_GNU_BUILD_ID note in [@p, @end) (what
 * `ld --build-id` writes and the linker script keeps), most significant
 * first as readelf prints them. Return: 0 when there is none.
 */
static inline uint64_t arch_lu_note_build_id(const uint8_t *p,
					     const uint8_t *end)
{
	uint32_t namesz, descsz, type;
	uint64_t id = 0;

	if (end - p < 16 + 8)
		return 0;
	__builtin_memcpy(&namesz, p, 4);
	__builtin_memcpy(&descsz, p + 4, 4);
	__builtin_memcpy(&type, p + 8, 4);
	if (namesz != 4 || type != 3 || descsz < 8 ||
	    (uint64_t)(end - p) < 16 + (uint64_t)descsz)
		return 0;
	for (int i = 0; i < 8; i++)
		id = id << 8 | p[16 + i];
	return id;
}

/*
 * On a secondary told to stop for the update: end the way the next image
 * restarts it (x86_64: local APIC timer off, interrupts off, HLT forever,
 * for INIT/SIPI; arm64: its timers off, PSCI CPU_OFF, for CPU_ON; the
 * sandbox: the host thread ends). Never returns.
 */
__attribute__((noreturn)) void arch_lu_cpu_stop(void);

/*
 * Whether CPU @cpu (firmware id @hwid) has stopped as the next image needs
 * it (arm64: PSCI AFFINITY_INFO says off; the sandbox: its thread ended;
 * x86_64: true once it said so: it halts with interrupts off).
 */
bool arch_lu_cpu_stopped(unsigned int cpu, uint64_t hwid);

/* What the arch needs of memory for the jump. */
struct arch_lu_needs {
	uint64_t scratch_bytes; /* the stub and its data, page multiple */
	unsigned int max_bits;	/* scratch and handover below 2^bits, 0: any */
};

/* The update, as common/liveupdate/ prepares it. */
struct arch_lu_jump {
	paddr_t handover;	 /* page aligned */
	uint64_t handover_bytes; /* what the new image is told it holds */
	paddr_t scratch;	 /* scratch_bytes of keel's own memory */
	struct region image;	 /* the new image, as its loader left it */
};

void arch_lu_needs(struct arch_lu_needs *n);

/*
 * arch_lu_verified() - in the new image, once the update is over (its
 * domains read back, or none to read): what the arch kept of the old
 * image until then may go. The sandbox: the old process's address space,
 * held across the exec() so that its teardown is not in the downtime.
 * Hardware: nothing.
 */
void arch_lu_verified(void);

/*
 * arch_lu_prepare() - everything that may fail, before any CPU stops:
 * check the new image (its header, that it fits where this one runs),
 * write the stub and the loader's data (arm64: the grown DTB) into the
 * scratch memory. @why (at least 128 bytes) says why not.
 * Return: 0, or a negative errno with @why filled.
 */
int arch_lu_prepare(const struct arch_lu_jump *j, char *why, size_t why_len);

/*
 * arch_lu_jump() - on the boot CPU, every other CPU stopped, the handover
 * written: interrupts off, relocate the new image over this one and enter
 * it as its loader would. Never returns.
 */
__attribute__((noreturn)) void arch_lu_jump(const struct arch_lu_jump *j);

#endif
