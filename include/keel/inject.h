/* SPDX-License-Identifier: MIT */
/*
 * Owner: lib.
 * Fault injection (inject= on the command line, docs/cmdline.md): named
 * fault points that the subsystems ask about. The command line parses the
 * words (inject_parse()), keel_main() arms them once (inject_arm()), and
 * the code at each fault point asks inject_has()/inject_get(); nothing
 * else reads the list. The faults the arch and boot/ act on while they
 * read the firmware, before keel_main() arms the list, are data of the
 * parsed options: inject_firmware_faults() gives their INJECT_FW_* bits
 * (keel_options.fw_inject).
 *
 * Lock: none; armed by the boot CPU before any other CPU runs, read-only
 * afterwards.
 */
#ifndef KEEL_INJECT_H
#define KEEL_INJECT_H

#include <keel/types.h>

#define INJECT_MAX 8
/* irq-unexpected:N: at most this many strays (more is clamped, warned). */
#define INJECT_STRAY_MAX 1000

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
	INJECT_PT_POOL_SHORT,	/* pt-pool-short: arm64 maps RAM as with a
				   page-table pool near its end */
	INJECT_GUEST_PAST_END,	/* guest-past-end:N: domain N's guest reads
				   one page past its range (guests=on) */
	INJECT_GUEST_PREEMPT_WALK, /* guest-preempt-walk:N: domain N's slice
				      ends right after its walk's hypercall */
	INJECT_VCPU_STOP_SLOW,	   /* vcpu-stop-slow:N: the CPU of domain N's
				   held vCPU answers a live update's freeze
				   3 freeze bounds late */
	INJECT_VCPU_STOP_STUCK,	   /* vcpu-stop-stuck:N: it answers no stop
				      of the held round until the boot CPU
				      gives up on it */
	INJECT_VCPU_EXIT_SLOW,	   /* vcpu-exit-slow:N: its CPU stays in its
				      exit from the held round (gate passed)
				      until the stop is withdrawn or the boot
				      CPU gives up on it */
	INJECT_CPU_STOP_LATE,	   /* cpu-stop-late:N: CPU N stops for a live
				      update's next image past its bound */
	INJECT_CPU_FREEZE_LATE,	   /* cpu-freeze-late:N: CPU N answers a live
				      update's freeze 300 ms late, once */
	/* A live update's handover, corrupted by the old image (liveupdate=) */
	INJECT_HO_CHECKSUM, /* handover-checksum: a byte flipped after it */
	INJECT_HO_OVERLAP,  /* handover-overlap: a range over reserved RAM */
	INJECT_HO_OUTSIDE,  /* handover-outside: a range past RAM's end */
	INJECT_HO_ROOT,	    /* handover-root: a p2m root off its tables */
	INJECT_HO_TRUNCATE, /* handover-truncate: passed on 8 bytes short */
	INJECT_HO_VERSION,  /* handover-version: an unknown version */
	INJECT_HO_MISALIGN, /* handover-misalign: a range off a page */
	INJECT_HO_SELF,	    /* handover-self-overlap: two ranges overlap */
	INJECT_HO_IMAGE,    /* handover-image: a range over the new image */
	INJECT_HO_EXTENT,   /* handover-extent: an extent off the ranges */
	INJECT_HO_PIECES,   /* handover-pieces: written in 4 KiB pieces */
	INJECT_POISON,	    /* poison:PFN: the page goes bad once the heap
			       is open, before the scrub (heap_offline()) */
	INJECT_SEA,	    /* sea: arm64 reads an unassigned page mapped as
			       Device once the heap is open: a real
			       synchronous external abort (arch/arm64/ras.c) */
	/*
	 * poison-domain:ID: the page in the middle of domain ID goes bad
	 * once it is built and checked, before its guest runs
	 */
	INJECT_POISON_DOMAIN,
	/*
	 * poison-late:PFN: the page goes bad at the same point (after the
	 * domains, before the guests), wherever it is then
	 */
	INJECT_POISON_LATE,
	/*
	 * restore-fail:ID: a live update's new image fails the restore of
	 * domain ID (its record's id) before it takes any of its memory; the
	 * others are restored (common/domain/domain_restore.c)
	 */
	INJECT_RESTORE_FAIL,
	/*
	 * poison-freeze:PFN: a live update's old image: the page goes bad
	 * after the update wrote its bad-page records aside, before the
	 * freeze (common/liveupdate/lu_bad.c), which must write them again
	 */
	INJECT_POISON_FREEZE,
	/*
	 * ce:PFN: once the heap is open, the arch logs a corrected memory
	 * error in the page for its poll (arch_ras_log_corrected(): the
	 * sandbox); the drains count it (ce_offline=)
	 */
	INJECT_CE,
	/*
	 * mce-freeze:PFN: a live update's old image: the page is queued as
	 * a machine check queues it (keel/bad_queue.h), after the flow's
	 * last drain, before the freeze, which must take it out of service
	 * and hand it over (common/liveupdate/lu_bad.c)
	 */
	INJECT_MCE_FREEZE,
};

/*
 * What the ":N" of a kind is. Each kind declares one in inject_kinds[],
 * and inject_parse() is the one place that holds a word to it.
 */
enum inject_arg {
	INJECT_ARG_NONE,   /* "KIND" only: a ":N" is refused */
	INJECT_ARG_CPU,	   /* ":N" required: a logical CPU id, 0 included */
	INJECT_ARG_NODE,   /* ":N" required: a node id, 0 included */
	INJECT_ARG_COUNT,  /* ":N" required: 1 .. max; above max clamped */
	INJECT_ARG_DOMAIN, /* ":N" required: a domain id (domains[].id) */
	INJECT_ARG_PFN,	   /* ":N" required: a page frame number */
};

struct inject {
	enum inject_kind kind;
	uint64_t arg;
};

/*
 * The inject= kinds, one table for parsing, printing and their ":N"
 * (ends with a NULL name). A CPU or node id is not bounded here: one that
 * names nothing on this machine is warned once the CPUs are known
 * (smp_init()), never clamped onto another CPU.
 */
struct inject_kind_desc {
	enum inject_kind kind;
	const char *name;
	enum inject_arg arg;
	uint64_t max; /* INJECT_ARG_COUNT: the largest count kept */
};

extern const struct inject_kind_desc inject_kinds[];

/* What inject_parse() made of a word. */
enum inject_verdict {
	INJECT_OK,	/* *@out holds it */
	INJECT_CLAMPED, /* *@out holds it, its count cut to the kind's max */
	INJECT_REFUSED, /* nothing stored */
};

/*
 * inject_parse(): one inject= value, "KIND" or "KIND:N", held to the
 * kind's declared ":N" (struct inject_kind_desc). @why (at least
 * INJECT_WHY_SIZE bytes) says, for a warning, why a word was refused or
 * clamped; the caller prints it after "inject=WORD: ".
 * Return: the verdict.
 */
#define INJECT_WHY_SIZE 96
enum inject_verdict inject_parse(const char *val, size_t len,
				 struct inject *out, char *why);

/*
 * The faults acted on before keel_main() arms the list, because the
 * firmware is read first (docs/cmdline.md; tests only): one bit each.
 * bad-srat / bad-slit: the arch's ACPI accessor hands the parser a
 * corrupted copy of that table (acpi_mem_corrupting()); bad-dt-distance:
 * a DT copy with a bad distance-matrix entry (dt_parse_bad_distance());
 * bad-map: a bogus RAM range over the kernel before the sanitiser
 * (fwboot_finish()); ioapic-unmask: x86_64 unmasks an input before it
 * masks every I/O APIC entry (and again at the fault point, armed). The
 * firmware's own tables are never written.
 */
#define INJECT_FW_BAD_SRAT	(1u << 0)
#define INJECT_FW_BAD_SLIT	(1u << 1)
#define INJECT_FW_BAD_DT_DIST	(1u << 2)
#define INJECT_FW_BAD_MAP	(1u << 3)
#define INJECT_FW_IOAPIC_UNMASK (1u << 4)
#define INJECT_FW_PT_SHORT	(1u << 5)
/* sea: arm64 maps its unassigned page with the rest, before any CPU starts */
#define INJECT_FW_SEA (1u << 6)

/* The INJECT_FW_* bits of the @count words of @list (0: none of them). */
unsigned int inject_firmware_faults(const struct inject *list,
				    unsigned int count);

/* Arm the @count faults of @list (keel_main(), once the options are parsed). */
void inject_arm(const struct inject *list, unsigned int count);

/* Is fault point @kind armed with argument @arg? */
bool inject_has(enum inject_kind kind, uint64_t arg);
/* Armed with any argument: the first in *@arg (may be NULL). */
bool inject_get(enum inject_kind kind, uint64_t *arg);
/* Call @fn with each armed argument of @kind, in command-line order. */
void inject_for_each(enum inject_kind kind, void (*fn)(uint64_t arg, void *ctx),
		     void *ctx);
/* Is @kind with @arg in @list (a parsed, not yet armed list)? */
bool inject_list_has(const struct inject *list, unsigned int count,
		     enum inject_kind kind, uint64_t arg);

/* The inject= word of @kind, for warnings ("unknown" for none). */
const char *inject_name(enum inject_kind kind);

#endif
