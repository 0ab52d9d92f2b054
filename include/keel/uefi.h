/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * UEFI data -> keel (boot/uefi.c): the UEFI memory map and the LoadOptions
 * command line, as pure functions over byte buffers the arch's EFI stub
 * copied out of boot-services memory. No firmware calls here (those are in
 * the arch's stub, e.g. arch/arm64/efi.c), so this is unit-tested and
 * fuzzed on the host.
 */
#ifndef KEEL_UEFI_H
#define KEEL_UEFI_H

#include <keel/bootinfo.h>
#include <keel/types.h>

/* EFI_MEMORY_TYPE (UEFI 2.10, 7.2). */
enum uefi_mem_type {
	UEFI_RESERVED = 0,
	UEFI_LOADER_CODE,
	UEFI_LOADER_DATA,
	UEFI_BOOT_SERVICES_CODE,
	UEFI_BOOT_SERVICES_DATA,
	UEFI_RUNTIME_SERVICES_CODE,
	UEFI_RUNTIME_SERVICES_DATA,
	UEFI_CONVENTIONAL,
	UEFI_UNUSABLE,
	UEFI_ACPI_RECLAIM,
	UEFI_ACPI_NVS,
	UEFI_MMIO,
	UEFI_MMIO_PORT_SPACE,
	UEFI_PAL_CODE,
	UEFI_PERSISTENT,
	UEFI_UNACCEPTED,
};

/* EFI_MEMORY_DESCRIPTOR (version 1); the map's stride may be larger. */
struct uefi_mem_desc {
	uint32_t type;
	uint32_t pad;
	uint64_t phys_start, virt_start, pages, attribute;
};

#define UEFI_MEMORY_WB	(1ULL << 3) /* cacheable write-back */
#define UEFI_PAGE_SHIFT 12

/* What uefi_mmap_to_bootinfo() saw, for the boot log. */
struct uefi_mmap_stats {
	unsigned int descs; /* descriptors read */
	uint64_t ram_bytes; /* RAM added */
	uint64_t acpi_reclaim_bytes;
	uint64_t runtime_bytes; /* runtime services code + data */
};

/*
 * uefi_mmap_to_bootinfo(): read @map_size bytes of descriptors of
 * @desc_size bytes each. Conventional, boot-services and loader memory
 * with the WB attribute is RAM (node NUMA_NO_NODE: the caller assigns
 * nodes); runtime services -> reserved "efi runtime", ACPI reclaim ->
 * "acpi reclaim", ACPI NVS -> "acpi nvs", reserved, unusable, PAL,
 * persistent, unaccepted -> "efi reserved"; MMIO is neither. Adjacent
 * descriptors of one kind are merged. Each problem (descriptor size,
 * ragged map, overflowing or unaligned range) is one pr_warn() and the
 * descriptor (or the tail) is skipped; bi->fixups counts them.
 * Return: 0, or -EINVAL when @desc_size is unusable (nothing added).
 */
int uefi_mmap_to_bootinfo(const void *map, size_t map_size, size_t desc_size,
			  struct bootinfo *bi, struct uefi_mmap_stats *st);

/*
 * uefi_load_options(): LoadOptions (@bytes bytes of UCS-2, any alignment)
 * to an ASCII command line in @out (@out_len bytes, NUL terminated; empty
 * when the options are not text, e.g. a boot option's binary data, with
 * one warning). Tabs and newlines become spaces. A first word that names
 * the image is dropped: GRUB's "BOOT_IMAGE=<path>", or a path as the UEFI
 * shell passes it ("\keel.efi", "fs0:\efi\keel", "keel.efi").
 * Return: true when the first word was GRUB's BOOT_IMAGE=.
 */
bool uefi_load_options(const void *opts, size_t bytes, char *out,
		       size_t out_len);

#endif
