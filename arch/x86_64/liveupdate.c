/* SPDX-License-Identifier: MIT */
/*
 * x86_64 arch hooks of <arch/liveupdate.h>. The new image is the first
 * multiboot module (QEMU -initrd keel.elf, GRUB module2): its multiboot1
 * header (a.out kludge) says where its file goes: where this image runs
 * ([_start, _end), the "kernel" range; when GRUB's multiboot2 relocated
 * this image, the new one goes there too, if its multiboot2 header says it
 * is relocatable: place_image()), and a bigger one into the memory
 * past it, when that is free to overwrite (liveupdate_room()). The stub (lu_stub.S) runs from a page of its own
 * and enters it as the loader entered us: the same magic and the same
 * multiboot information (reserved by this image, so still intact), plus
 * the handover in ECX/EDX/ESI (head.S saves them; x86_lu_found() reads
 * them).
 *
 * A secondary stops with its local APIC timer masked, interrupts off, in
 * HLT: only INIT wakes it, which is how the new image starts it.
 */
#include <arch/guest.h>
#include <arch/liveupdate.h>
#include <asm/lapic.h>
#include <asm/lu_stub.h>
#include <asm/x86.h>
#include <keel/bootinfo.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/liveupdate.h>
#include <keel/multiboot.h>
#include <keel/printk.h>
#include <keel/string.h>

#define LVT_MASKED  (1u << 16)
#define IDENT_LIMIT ((uint64_t)IDENT_MAP_GIB << 30)

extern const uint8_t __build_id_start[], __build_id_end[];
/* head.S: what the stub of the last image passed (0: a loader's boot). */
extern uint32_t x86_lu_magic, x86_lu_handover, x86_lu_handover_size;

/* The loader's magic and information (x86_entry()), for the next image. */
static uint32_t boot_magic, boot_info;

uint64_t arch_lu_build_id(void)
{
	return arch_lu_note_build_id(__build_id_start, __build_id_end);
}

/* The running CPU's timer off: no interrupt left for the next image. */
static void timer_off(void)
{
	lapic_write(APIC_LVT_TIMER, LVT_MASKED | X86_WAKE_VEC);
	lapic_write(APIC_TIMER_INIT, 0);
}

void arch_lu_cpu_stop(void)
{
	__asm__ __volatile__("cli");
	timer_off();
	for (;;)
		__asm__ __volatile__("cli; hlt");
}

bool arch_lu_cpu_stopped(unsigned int cpu, uint64_t hwid)
{
	(void)cpu;
	(void)hwid;
	return true; /* it said so with interrupts off: HLT is all it does */
}

/* Nothing of the old image is kept past the jump. */
void arch_lu_verified(void)
{
}

void arch_lu_needs(struct arch_lu_needs *n)
{
	n->scratch_bytes = LU_STUB_BYTES;
	n->max_bits = 32; /* the stub runs with paging off */
}

static bool overlaps(uint64_t s, uint64_t e, uint64_t s2, uint64_t e2)
{
	return s < e2 && s2 < e;
}

/*
 * Where the new image goes: where this one runs. Not linked there (GRUB's
 * multiboot2 relocated this one, head.S's tag 10): the new image must be
 * relocatable too, its entry and end move with it. Return: 0 or -EINVAL.
 */
static int place_image(const struct arch_lu_jump *j, struct lu_image *img,
		       char *why, size_t n)
{
	uint64_t s = pa_val(j->image.start), e = pa_val(j->image.end);
	uint64_t ks = (uintptr_t)_start;

	if (img->load == ks)
		return 0;
	if (!multiboot2_image_relocatable((const void *)(uintptr_t)s, e - s)) {
		snprintf(why, n,
			 "this image runs relocated, at %#llx: the new image "
			 "(linked at %#llx) has no multiboot2 relocatable tag",
			 (unsigned long long)ks, (unsigned long long)img->load);
		return -EINVAL;
	}
	img->entry = img->entry - img->load + ks;
	img->need_end = img->need_end - img->load + ks;
	img->load_end = img->load_end - img->load + ks;
	img->mem_end = img->mem_end - img->load + ks;
	img->load = ks;
	return 0;
}

/* The new image's file, header and place. Return: 0 or -EINVAL (@why). */
static int check_image(const struct arch_lu_jump *j, struct lu_image *img,
		       char *why, size_t n)
{
	uint64_t s = pa_val(j->image.start), e = pa_val(j->image.end);
	uint64_t ks = (uintptr_t)_start, ke = (uintptr_t)_end;
	uint64_t ho = pa_val(j->handover), st = pa_val(j->scratch);

	if (!e || e > IDENT_LIMIT) {
		snprintf(why, n,
			 "no new image: no multiboot module below 4 GiB "
			 "(QEMU -initrd keel.elf, GRUB module2)");
		return -EINVAL;
	}
	if (lu_image_multiboot1((const void *)(uintptr_t)s, e - s, img, why, n))
		return -EINVAL;
	if (place_image(j, img, why, n))
		return -EINVAL;
	/* Moved with this image: still inside the identity map (tag 10). */
	if (img->need_end > IDENT_LIMIT || img->mem_end > IDENT_LIMIT) {
		snprintf(
			why, n,
			"the new image would end at %#llx where this one runs, "
			"past 4 GiB (the boot map; its relocatable tag's "
			"limit)",
			(unsigned long long)MAX(img->need_end, img->mem_end));
		return -EINVAL;
	}
	/* Bigger: the memory past our end must be ours to give (lu_room.c). */
	if (img->need_end > ke && liveupdate_room(ke, img->need_end, why, n))
		return -EINVAL;
	if (overlaps(s, e, ks, ke) || ho + PAGE_SIZE > IDENT_LIMIT ||
	    st + LU_STUB_BYTES > IDENT_LIMIT) {
		snprintf(why, n,
			 "the module [%#llx, %#llx), the handover or "
			 "the stub lie over the image or above 4 GiB",
			 (unsigned long long)s, (unsigned long long)e);
		return -EINVAL;
	}
	return 0;
}

int arch_lu_prepare(const struct arch_lu_jump *j, char *why, size_t why_len)
{
	uint8_t *page = (uint8_t *)(uintptr_t)pa_val(j->scratch);
	struct x86_lu_params *p = (void *)(page + LU_STUB_PARAM);
	uint64_t *gdt = (void *)(page + LU_STUB_GDT);
	size_t code = (size_t)(x86_lu_stub_end - x86_lu_stub_start);
	struct lu_image img;
	uint64_t base = (uintptr_t)page + LU_STUB_GDT;

	if (check_image(j, &img, why, why_len))
		return -EINVAL;
	BUG_ON(code > LU_STUB_CODE_MAX);
	memcpy(page, x86_lu_stub_start, code);
	gdt[0] = 0;
	gdt[1] = 0x00cf9a000000ffffULL; /* 0x08: 32-bit code, flat */
	gdt[2] = 0x00cf92000000ffffULL; /* 0x10: data, flat */
	*(uint16_t *)(page + LU_STUB_GDTR) = 3 * 8 - 1;
	memcpy(page + LU_STUB_GDTR + 2, &base, sizeof(base));
	p->src = (uint32_t)(pa_val(j->image.start) + img.file_off);
	p->dst = (uint32_t)img.load;
	p->len = (uint32_t)(img.load_end - img.load);
	p->entry = (uint32_t)img.entry;
	p->magic = boot_magic;
	p->info = boot_info;
	p->handover = (uint32_t)pa_val(j->handover);
	return 0;
}

void arch_lu_jump(const struct arch_lu_jump *j)
{
	uint8_t *page = (uint8_t *)(uintptr_t)pa_val(j->scratch);
	struct x86_lu_params *p = (void *)(page + LU_STUB_PARAM);

	p->size = (uint32_t)j->handover_bytes;
	__asm__ __volatile__("cli" ::: "memory");
	timer_off();
	((x86_lu_stub_fn)(uintptr_t)page)((uintptr_t)page);
}

/* x86_lu_started() - include/asm/x86.h. */
bool x86_lu_started(void)
{
	return x86_lu_magic == X86_LU_MAGIC;
}

/* x86_lu_ticks_hz() - include/asm/x86.h. */
uint64_t x86_lu_ticks_hz(void)
{
	const struct handover_header *h =
		(const void *)(uintptr_t)x86_lu_handover;

	if (!x86_lu_started() || x86_lu_handover_size < sizeof(*h) ||
	    h->magic != HANDOVER_MAGIC || h->ticks_hz < 100000000ULL ||
	    h->ticks_hz > 20000000000ULL)
		return 0;
	return h->ticks_hz;
}

/**
 * x86_lu_found() - x86_entry(): the loader's @magic and @info for a next
 * image, and the handover the last image's stub passed in ECX/EDX/ESI
 * (only when ECX holds X86_LU_MAGIC), for boot/handover.c.
 */
void x86_lu_found(struct bootinfo *bi, uint32_t magic, uint32_t info)
{
	boot_magic = magic;
	boot_info = info;
	/* The vCPU records this image resumes (boot/handover.c checks). */
	bi->handover.vcpu_arch = (uint16_t)arch_vcpu_state(
		&bi->handover.vcpu_state_bytes, &(const char *){NULL});
	if (!x86_lu_started())
		return;
	bi->handover.pa = pa(x86_lu_handover);
	bi->handover.size = x86_lu_handover_size;
	handover_locate(bi, (const void *)(uintptr_t)x86_lu_handover);
	pr_info("x86_64: started by a live update: handover at %#x, %u "
		"bytes\n",
		x86_lu_handover, x86_lu_handover_size);
}
