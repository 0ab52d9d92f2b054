/* SPDX-License-Identifier: MIT */
/*
 * The new image of a live update, as its loader would read it
 * (include/keel/handover.h): the headers the arch needs to relocate a
 * keel image over the running one and enter it. Pure parsers over a
 * buffer and its length, for every arch's tests and the fuzzer.
 *
 *   multiboot1  the a.out-kludge header (flags bit 16) within the first
 *               8 KiB, 4-byte aligned, magic + flags + checksum == 0:
 *               the file is copied from offset header_off - (header_addr
 *               - load_addr) to [load_addr, load_end_addr), zeroed to
 *               bss_end_addr, entered at entry_addr (the Multiboot
 *               Specification 0.6.96, section 3.1.3), as QEMU -kernel
 *               and GRUB do for keel.elf;
 *   arm64 Image the Linux boot protocol's 64-byte header: "ARM\x64" at
 *               0x38, text_offset at 8, image_size (bss included) at 16
 *               (Documentation/arch/arm64/booting.rst).
 *
 * keel's need (need_end): where a keel image really ends. Images since
 * issue 36 keep no room past their bss (need_end == mem_end: the room a
 * bigger next image needs is found at update time, lu_room.c); older ones
 * left 2 MiB of room inside the loader-visible end, so the need says where
 * they really end. multiboot1: the 32-byte header followed by
 * LU_NEED_MAGIC and the end address; arm64: res3 (0x28) LU_NEED_MAGIC64,
 * res2 (0x20) the size. A need outside [the file's end, mem_end] is
 * refused; no marker: the whole mem_end is needed.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/handover.h>
#include <keel/string.h>

#include "boot_priv.h"

#define MB1_MAGIC	0x1BADB002u
#define MB1_SEARCH	8192u
#define MB1_FLAG_AOUT	(1u << 16)
#define ARM64_MAGIC	0x644d5241u /* "ARM\x64" */
#define ARM64_HDR_BYTES 64u

static uint32_t le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The header's address fields against the file: all of it is there. */
static int mb1_fields(const uint8_t *h, uint64_t off, uint64_t len,
		      struct lu_image *img, char *why, size_t n)
{
	uint32_t header = le32(h + 12), load = le32(h + 16);
	uint32_t load_end = le32(h + 20), bss_end = le32(h + 24);

	if (header < load || header - load > off)
		return boot_refuse(why, n,
				   "multiboot header_addr %#x below load_addr "
				   "%#x or past the file's start",
				   header, load);
	img->file_off = off - (header - load);
	img->load = load;
	img->load_end = load_end ? load_end : load + (len - img->file_off);
	img->mem_end = bss_end ? bss_end : img->load_end;
	img->entry = le32(h + 28);
	img->need_end = img->mem_end;
	if (off + 40 <= len && le32(h + 32) == LU_NEED_MAGIC)
		img->need_end = le32(h + 36);
	if (img->need_end < img->load_end || img->need_end > img->mem_end)
		return boot_refuse(why, n,
				   "keel need_end %#llx outside the image's "
				   "[%#llx, %#llx]",
				   U64(img->need_end), U64(img->load_end),
				   U64(img->mem_end));
	if (img->load_end < load || img->mem_end < img->load_end ||
	    img->load_end - load > len - img->file_off)
		return boot_refuse(why, n,
				   "multiboot load [%#x, %#llx) bss to %#llx "
				   "does not fit the %llu-byte file",
				   load, U64(img->load_end), U64(img->mem_end),
				   U64(len));
	if (img->entry < load || img->entry >= img->load_end)
		return boot_refuse(why, n,
				   "multiboot entry_addr %#llx outside the "
				   "image [%#x, %#llx)",
				   U64(img->entry), load, U64(img->load_end));
	return 0;
}

/**
 * lu_image_multiboot1() - the multiboot1 a.out-kludge header of the
 * image file [@buf, @buf + @len).
 * @img: out, where the file goes and where it is entered
 * @why: out, at least @n bytes: why not
 *
 * Return: 0, or -EINVAL with @why.
 */
int lu_image_multiboot1(const void *buf, uint64_t len, struct lu_image *img,
			char *why, size_t n)
{
	const uint8_t *b = buf;

	memset(img, 0, sizeof(*img));
	for (uint64_t off = 0; off + 32 <= MIN(len, MB1_SEARCH); off += 4) {
		uint32_t magic = le32(b + off), flags = le32(b + off + 4);

		if (magic != MB1_MAGIC ||
		    (uint32_t)(magic + flags + le32(b + off + 8)))
			continue;
		if (!(flags & MB1_FLAG_AOUT))
			return boot_refuse(why, n,
					   "multiboot flags %#x: no address "
					   "fields (bit 16)",
					   flags);
		return mb1_fields(b + off, off, len, img, why, n);
	}
	return boot_refuse(why, n,
			   "no multiboot1 header in the first %u bytes of the "
			   "%llu-byte image",
			   MB1_SEARCH, U64(len));
}

/**
 * lu_image_arm64() - the Linux arm64 Image header of the file [@buf,
 * @buf + @len): loaded at a 2 MiB aligned base + text_offset, image_size
 * bytes of memory (the file and its bss), entered at its first byte.
 * @img: out: file_off 0, load text_offset, load_end the file's end,
 *	mem_end text_offset + image_size, need_end (keel's need, or
 *	mem_end), entry text_offset
 * @why: out, at least @n bytes: why not
 *
 * Return: 0, or -EINVAL with @why.
 */
int lu_image_arm64(const void *buf, uint64_t len, struct lu_image *img,
		   char *why, size_t n)
{
	const uint8_t *b = buf;
	uint64_t text, size;

	memset(img, 0, sizeof(*img));
	if (len < ARM64_HDR_BYTES || le32(b + 0x38) != ARM64_MAGIC)
		return boot_refuse(why, n,
				   "no arm64 Image header (magic \"ARM\\x64\" "
				   "at 0x38) in the %llu-byte image",
				   U64(len));
	text = le64(b + 8);
	size = le64(b + 16);
	if (text >= (2u << 20) || !IS_ALIGNED(text, 4096) || size < len ||
	    size > (1ull << 32))
		return boot_refuse(why, n,
				   "arm64 Image text_offset %#llx image_size "
				   "%llu for a %llu-byte file",
				   U64(text), U64(size), U64(len));
	img->load = text;
	img->load_end = text + len;
	img->mem_end = text + size;
	img->need_end = img->mem_end;
	if (le64(b + 0x28) == LU_NEED_MAGIC64) {
		uint64_t need = le64(b + 0x20);

		if (need < len || need > size)
			return boot_refuse(
				why, n,
				"arm64 Image keel need %llu outside [%llu, "
				"%llu] (the file, image_size)",
				U64(need), U64(len), U64(size));
		img->need_end = text + need;
	}
	img->entry = text;
	return 0;
}
