/* SPDX-License-Identifier: MIT */
/*
 * arm64-private interfaces between head.S, setup.c, mm.c, console.c, traps.c,
 * cpu.c, cache.c, scrub.c, psci.c and smp.c. Never included by common/ or
 * boot/.
 */
#ifndef ASM_ARM64_H
#define ASM_ARM64_H

#ifndef __ASSEMBLY__
#include <arch/cpu.h>
#include <keel/types.h>
#include <keel/fdt.h>

#define read_sysreg(r)                                           \
	({                                                       \
		uint64_t __v;                                    \
		__asm__ __volatile__("mrs %0, " #r : "=r"(__v)); \
		__v;                                             \
	})
#define write_sysreg(v, r) \
	__asm__ __volatile__("msr " #r ", %0" ::"r"((uint64_t)(v)) : "memory")
#define isb()	 __asm__ __volatile__("isb" ::: "memory")
#define dsb(opt) __asm__ __volatile__("dsb " #opt ::: "memory")

/* Exception level keel runs at (1 or 2), set first thing by setup.c. */
extern int arm64_el;
/* after= as setup.c's early scan read it (arch_panic() stops by it). */
extern enum after_action arm64_early_after;

/* Linker symbols (see keel.lds). */
extern char _head_start[], _end[], __bss_start[], __bss_end[];
extern char __pgtables_start[], __pgtables_end[], __image_need_end[];

/* MMU register values, also read by secondaries (MMU off) in head.S. */
struct arm64_mmu_cfg {
	uint64_t mair, tcr, ttbr, sctlr;
};
extern struct arm64_mmu_cfg arm64_mmu_cfg;

/* mm.c */
void mm_early_init(paddr_t image_start, paddr_t image_end, paddr_t dtb);
void mm_map_normal(paddr_t start, paddr_t end);
void mm_map_ram(paddr_t start, paddr_t end, bool short_pool,
		struct region *out);
void mm_map_device(paddr_t start, uint64_t size);
void mm_commit(void);
unsigned int mm_pa_bits(void);
uint64_t mm_pgtable_bytes_used(void);

/* console.c: the PL011 (or 16550) console */
void pl011_set_base(paddr_t base);
void pl011_set_8250(paddr_t base, unsigned int reg_shift, uint32_t baud);
paddr_t pl011_base(void);
/* Console hook while UEFI boot services run (efi.c), NULL to drop it. */
void pl011_set_hook(void (*fn)(const char *s, size_t len));
/* Buffer console output until pl011_set_base() or pl011_release(). */
void pl011_hold(void);
void pl011_release(void);

/* efi.c: what the EFI stub kept from the firmware (all zero otherwise). */
struct bootinfo;
struct efi_boot {
	bool booted;	       /* entered through efi_entry */
	bool from_dt;	       /* described by /chosen (a live update) */
	uint64_t system_table; /* EFI_SYSTEM_TABLE's physical address */
	uint64_t entry_ticks;  /* CNTVCT_EL0 at efi_entry */
	char loader[16];       /* "uefi", or "grub" (BOOT_IMAGE= seen) */
	char cmdline[BOOTINFO_CMDLINE_MAX]; /* LoadOptions as ASCII */
	char fw_vendor[40];
	uint32_t fw_revision;
	uint32_t exit_tries; /* ExitBootServices() calls needed */
	uint64_t rsdp, dtb;  /* configuration tables, 0 when absent */
	uint64_t image_base; /* LoadedImage ImageBase */
	uint64_t mmap_size, desc_size;
};
extern struct efi_boot efi_boot;
uint64_t efi_fill_ram(struct bootinfo *bi);
/*
 * A UEFI boot a live update's /chosen describes (linux,uefi-*): the map
 * and the system table's facts into efi_boot, from_dt set. Return: true
 * when it did; false when the DT describes none. A bad description
 * panics: without its map the boot would zero firmware memory.
 */
bool efi_from_dt(uint64_t dtb, size_t len, struct bootinfo *bi);
/*
 * liveupdate.c: describe this UEFI boot (its map, system table, loader)
 * and @cmdline in the opened DTB copy @fdt. Return: 0 (or not a UEFI
 * boot), -EINVAL with @why.
 */
int efi_lu_chosen(void *fdt, const char *cmdline, char *why, size_t n);

/* cpu.c */
void timer_init(uint64_t dt_freq);

/* psci.c */
void psci_init(const struct dt_arch_info *ai);
int psci_cpu_on(uint64_t mpidr, paddr_t entry, uint64_t context);
int psci_cpu_off(void);
bool psci_cpu_is_off(uint64_t mpidr);
__attribute__((noreturn)) void psci_system_off(void);
__attribute__((noreturn)) void psci_system_reset(void);

/* smp.c / head.S: what a starting secondary reads with its MMU off. */
struct arm64_secondary_boot {
	uint64_t stack_top;
	uint64_t cpu;
};
void secondary_entry(void);
__attribute__((noreturn)) void arm64_secondary_start(unsigned int cpu);

/*
 * liveupdate.c: the DTB keel was entered with (a live update copies it),
 * and the handover the DT named (/chosen/keel,handover), for
 * boot/handover.c; setup.c calls it once RAM is mapped.
 */
struct bootinfo;
void arm64_lu_found(struct bootinfo *bi, uint64_t dtb);

/* gic.c */
void gic_map(const struct dt_arch_info *ai);
void gic_init(void);
bool gic_cpu_init(void);
/* inject=irq-unexpected: SGI 2 to this CPU. Return: 0 or -EOPNOTSUPP. */
int gic_raise_stray_sgi(void);
/* Turn off an interrupt keel never asked for (irq.c). */
void gic_disable_intid(unsigned int intid);
/* The SGI of arch_cpu_wake() (irq.c counts it when taken). */
#define GIC_WAKE_SGI 1
void gic_idle_wait(uint64_t ticks);
const char *gic_enable_ppi(unsigned int intid);
void gic_send_wake(uint64_t hwid, bool can_send);
bool gic_boot_cpu_can_send(void);

/* traps.c */
extern char arm64_vectors[];
struct arm64_regs;
void arm64_trap(struct arm64_regs *regs, unsigned long kind);

/* setup.c */
__attribute__((noreturn)) void arm64_start(uint64_t dtb, uint64_t entry_ticks,
					   uint64_t el);
bool arm64_qemu_virt(void);

/* cache.c: CTR_EL0 and DCZID_EL0, read once (again by arm64_cache_probe). */
void arm64_cache_probe(void);
unsigned int arm64_zva_block(void); /* bytes; 0 = DC ZVA prohibited */
#endif

/* Offsets into struct arm64_mmu_cfg for head.S. */
#define MMU_CFG_MAIR   0
#define MMU_CFG_TCR    8
#define MMU_CFG_TTBR   16
#define MMU_CFG_SCTLR  24

#define SCTLR_EL1_RES1 0x30d00800
#define SCTLR_EL2_RES1 0x30c50830
#define SCTLR_M	       (1 << 0)
#define SCTLR_C	       (1 << 2)
#define SCTLR_SA       (1 << 3)
#define SCTLR_I	       (1 << 12)

#endif
