/* SPDX-License-Identifier: MIT */
/*
 * The x86_64 live-update stub's page (arch/x86_64/lu_stub.S, liveupdate.c):
 * its code at offset 0, a flat 32-bit GDT, and the parameters the stub
 * reads once paging is off. One page of keel's own memory below 4 GiB,
 * identity mapped, outside both images.
 */
#ifndef ASM_LU_STUB_H
#define ASM_LU_STUB_H

/* ECX at the new image's entry: "HULK" read as bytes; EDX, ESI: handover. */
#define X86_LU_MAGIC	 0x4b4c5548

#define LU_STUB_BYTES	 4096
#define LU_STUB_CODE_MAX 0xb00 /* the code fits below the GDT */
#define LU_STUB_GDT	 0xb00 /* null, 0x08 code32, 0x10 data32 */
#define LU_STUB_GDTR	 0xb20 /* limit (2 bytes), base (8) */
#define LU_STUB_PARAM	 0xc00

#define LU_P_SRC	 0x00 /* the file's bytes to copy */
#define LU_P_DST	 0x04 /* load_addr */
#define LU_P_LEN	 0x08 /* load_end_addr - load_addr */
#define LU_P_ENTRY	 0x0c /* entry_addr */
#define LU_P_MAGIC	 0x10 /* EAX: the loader's multiboot magic */
#define LU_P_INFO	 0x14 /* EBX: the loader's information */
#define LU_P_HO		 0x18 /* EDX: the handover */
#define LU_P_HO_SIZE	 0x1c /* ESI: its size */

#ifndef __ASSEMBLY__
#include <keel/types.h>

struct x86_lu_params {
	uint32_t src, dst, len, entry, magic, info, handover, size;
};
_Static_assert(__builtin_offsetof(struct x86_lu_params, size) == LU_P_HO_SIZE,
	       "lu_stub.S reads these offsets");

extern const char x86_lu_stub_start[], x86_lu_stub_end[];
/* The stub copied at @page (its own address), entered: never returns. */
typedef void (*x86_lu_stub_fn)(uint64_t page) __attribute__((noreturn));
#endif

#endif
