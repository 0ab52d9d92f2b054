/* SPDX-License-Identifier: MIT */
/*
 * The arm64 live-update stub (arch/arm64/lu_stub.S, liveupdate.c): its
 * code at offset 0 of a page of keel's own memory outside both images,
 * its parameters at LU_STUB_PARAM; the grown DTB follows from the next
 * page on.
 */
#ifndef ASM_LU_STUB_H
#define ASM_LU_STUB_H

#define LU_STUB_BYTES	 4096
#define LU_STUB_CODE_MAX 0xc00
#define LU_STUB_PARAM	 0xc00

#define LU_P_SRC	 0x00 /* the Image file (the initrd) */
#define LU_P_DST	 0x08 /* where this image runs: base + text_offset */
#define LU_P_LEN	 0x10 /* file bytes to copy, a multiple of 8 */
#define LU_P_MEM	 0x18 /* image_size: cleaned to PoC (bss, tables) */
#define LU_P_DTB	 0x20 /* x0 of the new image */
#define LU_P_DTBLEN	 0x28
#define LU_P_HO		 0x30 /* the handover, cleaned to PoC */
#define LU_P_HOLEN	 0x38
#define LU_P_ENTRY	 0x40

#ifndef __ASSEMBLY__
#include <keel/types.h>

struct arm64_lu_params {
	uint64_t src, dst, len, mem, dtb, dtb_len, handover, handover_len;
	uint64_t entry;
};
_Static_assert(__builtin_offsetof(struct arm64_lu_params, entry) == LU_P_ENTRY,
	       "lu_stub.S reads these offsets");

extern const char arm64_lu_stub_start[], arm64_lu_stub_end[];
typedef void (*arm64_lu_stub_fn)(uint64_t params) __attribute__((noreturn));
#endif

#endif
