// SPDX-License-Identifier: MIT
/*
 * Memory errors on arm64 (issue 38 §3; Arm ARM D17.2.37 ESR_ELx, the data
 * and instruction abort ISS and the SError ISS).
 *
 * The decode and the page pick are ras_decode.c's (no register, no
 * mapping: a unit test runs them on the host); this file maps and reads.
 *
 * arm64_ras_decode() tells a memory error from any other exception, for
 * arm64_trap() (traps.c): a data or instruction abort (EC 0x24/0x25,
 * 0x20/0x21) whose fault status is a synchronous external abort (DFSC
 * 0x10; on a translation table walk 0x13-0x17) or a parity/ECC error
 * (0x18; on a walk 0x1b-0x1f), or an SError (EC 0x2f), whose ISS is
 * decoded: IDS (an implementation defined syndrome) or AET (how bad).
 * The failed page is FAR's when FAR is valid (ISS.FnV clear) and the
 * abort is not on a walk: keel's map is the identity, so the virtual
 * address is the physical one. On a walk FAR is the address translated,
 * not the table entry that failed: no page is named. An SError names none.
 *
 * inject=sea: arm64_ras_prepare() picks a page that the DT leaves to no
 * device (the lowest page past the end of a reg or ranges window that no
 * other window, RAM or reserved range covers) and maps it as Device with
 * the RAM; arch_ras_raise_sea() reads it once the heap is open. QEMU's
 * virt machine answers a read that decodes to nothing with an external
 * abort, which arm64_trap() reports as any other.
 *
 * Lock: none. The decode only reads its arguments (the exception path may
 * take no lock); the page is picked and mapped by the boot CPU before any
 * other CPU runs.
 */
#include <arch/mm.h>
#include <arch/ras.h>
#include <asm/arm64.h>
#include <asm/ras.h>
#include <keel/bad_queue.h>
#include <keel/errno.h>
#include <keel/printk.h>

#include "../../boot/fdt/fdt_priv.h"

static uint64_t sea_page = BAD_QUEUE_NO_ADDR;

/**
 * arm64_ras_prepare() - for inject=sea (@armed), pick a page the DT at
 * @dtb leaves to no device and map it as Device; said either way. The boot
 * CPU, before mm_commit() and before any other CPU runs.
 * @bi: the RAM and reserved ranges read so far.
 * @dtb: the DT's physical address (0: none).
 * @armed: inject=sea was given.
 */
void arm64_ras_prepare(const struct bootinfo *bi, uint64_t dtb, bool armed)
{
	const void *fdt = (const void *)(uintptr_t)dtb;
	uint64_t page;

	if (!armed)
		return;
	if (!dtb || fdt_check_header(fdt)) {
		pr_warn("inject=sea: no device tree to find a page no device "
			"answers in, nothing injected\n");
		return;
	}
	page = arm64_ras_pick_page(fdt, bi);
	if (page == BAD_QUEUE_NO_ADDR) {
		pr_warn("inject=sea: the device tree leaves no page below "
			"%#llx to no device, nothing injected\n",
			(unsigned long long)SEA_PA_LIMIT);
		return;
	}
	sea_page = page;
	mm_map_device(pa(sea_page), PAGE_SIZE);
}

int arch_ras_raise_sea(uint64_t *at)
{
	volatile const uint32_t *p;

	*at = sea_page;
	if (sea_page == BAD_QUEUE_NO_ADDR)
		return -ENODEV;
	pr_info("inject=sea: reading %#llx, a page no device of the DT "
		"claims, mapped Device-nGnRE\n",
		(unsigned long long)sea_page);
	p = (volatile const uint32_t *)(uintptr_t)sea_page;
	(void)*p;
	return -EIO;
}

/* No history of memory errors from before this boot to replay. */
void arch_ras_boot(void)
{
}

/*
 * Nothing to poll: keel reads no RAS error record registers (an SError
 * or abort reports what it reports).
 */
void arch_ras_poll(void)
{
}

/* No error record registers that software may fill. */
int arch_ras_log_corrected(uint64_t pa)
{
	(void)pa;
	return -EOPNOTSUPP;
}
