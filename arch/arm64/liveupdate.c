/* SPDX-License-Identifier: MIT */
/*
 * arm64 arch hooks of <arch/liveupdate.h>. The new image is the initrd
 * (QEMU -initrd Image, U-Boot booti with a ramdisk): a Linux arm64 Image,
 * relocated over this one (same base: [_head_start, _end), and for a
 * bigger one the memory past it when that is free, liveupdate_room()) by
 * the stub (lu_stub.S), and entered
 * as booting.rst says with x0 = a copy of the DTB this image got, grown by
 * /chosen/keel,handover (boot/fdt/fdt_handover.c): the firmware's map as it
 * was, plus where the handover lies. The copy lives in the scratch memory
 * after the stub page; the new image reserves it ("dtb") itself.
 *
 * A UEFI boot (GRUB's linux + initrd, U-Boot's bootefi) is passed on in
 * that copy's /chosen as Linux's EFI stub passes it to its kernel
 * (efi_lu_chosen(), boot/fdt/fdt_uefi.c): linux,uefi-mmap-* naming the
 * UEFI memory map this image booted with (its bytes inside the copy),
 * linux,uefi-system-table, and the command line this image booted with
 * (UEFI's LoadOptions are not in the DT). The new image then boots down
 * the UEFI path as the first boot did: same map, same ACPI or DT choice,
 * same command line, the loader's /chosen modules and initrd. When that
 * cannot be written the update is refused before the freeze.
 *
 * A secondary stops with its timers off and interrupts masked, through
 * PSCI CPU_OFF (the new image's CPU_ON starts it again); the freeze waits
 * until PSCI AFFINITY_INFO says it is off.
 */
#include <arch/cache.h>
#include <arch/guest.h>
#include <arch/liveupdate.h>
#include <asm/arm64.h>
#include <asm/lu_stub.h>
#include <keel/bootinfo.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/fdt.h>
#include <keel/handover.h>
#include <keel/liveupdate.h>
#include <keel/string.h>

#define DTB_MAX_BYTES (2u << 20) /* booting.rst */
#define DTB_ROOM      4096	 /* for keel,handover and its name */
/* For a UEFI boot's /chosen: the names, the loader, the command line. */
#define DTB_UEFI_ROOM (4096 + BOOTINFO_CMDLINE_MAX)
#define cnthp_ctl_el2 S3_4_C14_C2_1

extern const uint8_t __build_id_start[], __build_id_end[];
/* The DTB this image was entered with (arm64_lu_found()). */
static uint64_t arm64_dtb;
/* The command line this image booted with, passed on under UEFI. */
static const char *arm64_cmdline;

/**
 * arm64_lu_found() - setup.c, RAM mapped: the DTB @dtb for a next image,
 * and the handover the DT named, readable where it lies in RAM.
 */
void arm64_lu_found(struct bootinfo *bi, uint64_t dtb)
{
	arm64_dtb = dtb;
	arm64_cmdline = bi->cmdline;
	/* The vCPU records this image resumes (boot/handover.c checks). */
	bi->handover.vcpu_arch = (uint16_t)arch_vcpu_state(
		&bi->handover.vcpu_state_bytes, &(const char *){NULL});
	if (pa_val(bi->handover.pa) || bi->handover.size)
		handover_locate(
			bi, (const void *)(uintptr_t)pa_val(bi->handover.pa));
}

uint64_t arch_lu_build_id(void)
{
	return arch_lu_note_build_id(__build_id_start, __build_id_end);
}

/* The running CPU's timers off: no interrupt left for the next image. */
static void timers_off(void)
{
	if (arm64_el == 2)
		write_sysreg(0, cnthp_ctl_el2);
	write_sysreg(0, cntv_ctl_el0);
	__asm__ __volatile__("isb" ::: "memory");
}

void arch_lu_cpu_stop(void)
{
	__asm__ __volatile__("msr daifset, #0xf" ::: "memory");
	timers_off();
	psci_cpu_off();
	for (;;) /* PSCI refused: the freeze sees it is not off */
		__asm__ __volatile__("wfi");
}

bool arch_lu_cpu_stopped(unsigned int cpu, uint64_t hwid)
{
	(void)cpu;
	return psci_cpu_is_off(hwid);
}

/* The DTB's totalsize, within DTB_MAX_BYTES; 0: none. */
static uint64_t dtb_bytes(void)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)arm64_dtb;
	uint32_t n;

	if (!arm64_dtb)
		return 0;
	n = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 |
	    p[7];
	return n <= DTB_MAX_BYTES ? n : 0;
}

/* What its copy needs before it grows: its free space left out. */
static uint64_t dtb_copy_bytes(void)
{
	uint64_t n = dtb_bytes();

	return n ? dt_used_bytes((const void *)(uintptr_t)arm64_dtb, n) : 0;
}

/* What the DTB copy grows by: keel,handover, and a UEFI boot's /chosen. */
static uint64_t dtb_room(void)
{
	if (!efi_boot.booted && !efi_boot.from_dt)
		return DTB_ROOM;
	return DTB_ROOM + DTB_UEFI_ROOM + efi_boot.mmap_size;
}

/* Nothing of the old image is kept past the jump. */
void arch_lu_verified(void)
{
}

void arch_lu_needs(struct arch_lu_needs *n)
{
	n->scratch_bytes = LU_STUB_BYTES +
			   ALIGN_UP(dtb_copy_bytes() + dtb_room(), PAGE_SIZE);
	n->max_bits = 0;
}

static bool overlaps(uint64_t s, uint64_t e, uint64_t s2, uint64_t e2)
{
	return s < e2 && s2 < e;
}

/* The Image, and that it fits where this image runs. Return: 0, -EINVAL. */
static int check_image(const struct arch_lu_jump *j, struct lu_image *img,
		       char *why, size_t n)
{
	uint64_t s = pa_val(j->image.start), e = pa_val(j->image.end);
	uint64_t base = (uintptr_t)_head_start, end = (uintptr_t)_end;

	if (!e) {
		snprintf(why, n,
			 "no new image: no initrd in /chosen (QEMU -initrd "
			 "Image, booti with a ramdisk, GRUB's linux + initrd, "
			 "U-Boot's fdt chosen before bootefi)");
		return -EINVAL;
	}
	if (!dtb_bytes()) {
		snprintf(why, n,
			 "no DTB to pass on at %#llx (a UEFI boot without "
			 "one: the new image could not be told where its "
			 "handover and the firmware's map lie)",
			 (unsigned long long)arm64_dtb);
		return -EINVAL;
	}
	if (lu_image_arm64((const void *)(uintptr_t)s, e - s, img, why, n))
		return -EINVAL;
	/* Bigger: the memory past our end must be ours to give (lu_room.c). */
	if (base + img->need_end > end &&
	    liveupdate_room(end, base + img->need_end, why, n))
		return -EINVAL;
	if (overlaps(s, e, base, end)) {
		snprintf(why, n,
			 "the initrd [%#llx, %#llx) lies over this image "
			 "[%#llx, %#llx)",
			 (unsigned long long)s, (unsigned long long)e,
			 (unsigned long long)base, (unsigned long long)end);
		return -EINVAL;
	}
	return 0;
}

int arch_lu_prepare(const struct arch_lu_jump *j, char *why, size_t why_len)
{
	uint8_t *page = (uint8_t *)(uintptr_t)pa_val(j->scratch);
	struct arm64_lu_params *p = (void *)(page + LU_STUB_PARAM);
	size_t code = (size_t)(arm64_lu_stub_end - arm64_lu_stub_start);
	struct arch_lu_needs needs;
	struct lu_image img;
	uint64_t base = (uintptr_t)_head_start;

	if (check_image(j, &img, why, why_len))
		return -EINVAL;
	arch_lu_needs(&needs);
	if (dt_handover_copy((const void *)(uintptr_t)arm64_dtb, dtb_bytes(),
			     page + LU_STUB_BYTES,
			     needs.scratch_bytes - LU_STUB_BYTES,
			     pa_val(j->handover), 0)) {
		snprintf(why, why_len,
			 "the DTB at %#llx cannot be copied and "
			 "grown by /chosen/keel,handover",
			 (unsigned long long)arm64_dtb);
		return -EINVAL;
	}
	/* A UEFI boot's map, system table and command line, or refused. */
	if (efi_lu_chosen(page + LU_STUB_BYTES,
			  arm64_cmdline ? arm64_cmdline : "", why, why_len))
		return -EINVAL;
	/* Its room dropped: copies of copies do not grow. */
	dt_copy_pack(page + LU_STUB_BYTES);
	BUG_ON(code > LU_STUB_CODE_MAX);
	memcpy(page, arm64_lu_stub_start, code);
	p->src = pa_val(j->image.start);
	p->dst = base + img.load;
	p->len = ALIGN_UP(img.load_end - img.load, 8);
	p->mem = img.need_end - img.load; /* its room is never touched */
	p->dtb = (uintptr_t)page + LU_STUB_BYTES;
	p->dtb_len = needs.scratch_bytes - LU_STUB_BYTES;
	p->handover = pa_val(j->handover);
	p->entry = base + img.entry;
	/* The stub's code is fetched from here: to PoC, I-cache invalidated. */
	arch_clean_inval_dcache_range(page, LU_STUB_PARAM);
	__asm__ __volatile__("ic iallu\n\tdsb ish\n\tisb" ::: "memory");
	return 0;
}

void arch_lu_jump(const struct arch_lu_jump *j)
{
	uint8_t *page = (uint8_t *)(uintptr_t)pa_val(j->scratch);
	struct arm64_lu_params *p = (void *)(page + LU_STUB_PARAM);

	dt_handover_set(page + LU_STUB_BYTES, pa_val(j->handover),
			j->handover_bytes);
	p->handover_len = j->handover_bytes;
	__asm__ __volatile__("msr daifset, #0xf" ::: "memory");
	timers_off();
	((arm64_lu_stub_fn)(uintptr_t)page)((uintptr_t)p);
}
