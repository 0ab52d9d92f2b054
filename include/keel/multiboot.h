/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * Multiboot1 and multiboot2 boot information parsers (boot/multiboot.c,
 * boot/multiboot2.c). Pure functions over memory they are given: they
 * never touch hardware, never read outside what the caller allows, and
 * fill a struct bootinfo the caller has bootinfo_init()ed:
 *   RAM (type 1), reserved ranges named by type (2 reserved, 3 ACPI
 *   reclaimable, 4 ACPI NVS, 5 bad memory), the command line, loader name,
 *   modules ("module"), the boot information itself ("loader info") and,
 *   for multiboot2, the ACPI RSDP (tag 15 over tag 14) and the EFI memory
 *   map (tag 17, used only without tag 6).
 * Every malformed field gets one pr_warn() naming it and a safe fallback.
 */
#ifndef KEEL_MULTIBOOT_H
#define KEEL_MULTIBOOT_H

#include <keel/bootinfo.h>
#include <keel/types.h>

#define MULTIBOOT1_BOOTLOADER_MAGIC 0x2BADB002u
#define MULTIBOOT2_BOOTLOADER_MAGIC 0x36D76289u

/* Largest multiboot2 information block the arch hands to the parser. */
#define MULTIBOOT2_INFO_MAX (64 * 1024)

/*
 * Accessor for multiboot1, whose information is a tree of physical
 * pointers: return a pointer to @len readable bytes at physical address
 * @pa, or NULL when any of them is out of bounds.
 */
typedef const void *(*mb_read_fn)(uint64_t pa, size_t len, void *ctx);

/*
 * multiboot1_parse(): parse the multiboot1 information at physical
 * address @info_pa, reading only through @read.
 * Return: 0, or -EINVAL when no RAM could be found (nothing to boot on).
 */
int multiboot1_parse(struct bootinfo *bi, uint64_t info_pa, mb_read_fn read,
		     void *ctx);

/*
 * multiboot2_parse(): parse the multiboot2 information in [@buf, @buf+@len),
 * which the loader placed at physical address @info_pa (used to name the
 * RSDP and the "loader info" reservation). @len may be shorter than the
 * header's total_size (the arch bounds it); the parser then warns and stops
 * at @len.
 * Return: 0, or -EINVAL when no RAM could be found.
 */
int multiboot2_parse(struct bootinfo *bi, const void *buf, size_t len,
		     uint64_t info_pa);

/*
 * multiboot2_image_relocatable(): whether the image file [@buf, @buf+@len)
 * has a multiboot2 header with a relocatable tag (type 10).
 */
bool multiboot2_image_relocatable(const void *buf, uint64_t len);

#endif
