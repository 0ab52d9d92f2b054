/* SPDX-License-Identifier: MIT */
/*
 * Multiboot1 boot information -> struct bootinfo (QEMU -kernel, GRUB
 * `multiboot`). The information is a tree of 32-bit physical pointers, so
 * every read goes through the caller's accessor, which refuses addresses
 * out of bounds: the parser itself never dereferences a physical address.
 *
 * What is used (flags bit: field): 0 mem_lower/mem_upper (fallback when
 * there is no map), 2 cmdline, 3 modules, 6 mmap, 9 boot_loader_name.
 * Everything the parser reads is reserved as "loader info" (QEMU places the
 * command line right after the kernel's bss); modules as "module".
 *
 * Also the shared e820-style memory map helpers (multiboot_priv.h).
 */
#include <keel/badmem.h>
#include <keel/cmdline_copy.h>
#include <keel/errno.h>
#include <keel/multiboot.h>
#include <keel/printk.h>
#include <keel/string.h>

#include "multiboot_priv.h"

#define MB1_FLAG_MEM	 (1u << 0)
#define MB1_FLAG_CMDLINE (1u << 2)
#define MB1_FLAG_MODS	 (1u << 3)
#define MB1_FLAG_MMAP	 (1u << 6)
#define MB1_FLAG_LOADER	 (1u << 9)

/* Offsets in the information structure. */
#define MB1_MEM_LOWER	   4
#define MB1_MEM_UPPER	   8
#define MB1_CMDLINE	   16
#define MB1_MODS_COUNT	   20
#define MB1_MODS_ADDR	   24
#define MB1_MMAP_LENGTH	   44
#define MB1_MMAP_ADDR	   48
#define MB1_LOADER_NAME	   64

#define MB1_MOD_SIZE	   16
#define MB1_MODS_MAX	   64
#define MB1_MMAP_MAX	   (64 * 1024)
#define MB1_MMAP_ENTRY_MIN 20 /* size field excluded */
/*
 * Longest string looked for: well past BOOTINFO_CMDLINE_MAX, so that an
 * overlong command line is seen whole and loses whole words only.
 */
#define MB1_STRING_MAX (64 * 1024)

#define SZ_1M	       (1ULL << 20)
#define LOW_MEM_MAX    (640ULL << 10)

/**
 * mb_e820_name() - reserved-range name for an e820 memory type.
 * Return: NULL for type 1 (RAM), else a name (maybe formatted into @buf).
 */
const char *mb_e820_name(uint32_t type, char *buf, size_t size)
{
	switch (type) {
	case 1:
		return NULL;
	case 2:
		return "reserved";
	case 3:
		return "acpi reclaimable";
	case 4:
		return "acpi nvs";
	case 5:
		/* RAM that failed: RAM and bad (mb_map_add()). */
		return badmem_region_name(BADMEM_FIRMWARE);
	default:
		snprintf(buf, size, "firmware type %u", type);
		return buf;
	}
}

/**
 * mb_map_begin() - start reading a memory map into @bi.
 */
void mb_map_begin(struct mb_map *m, struct bootinfo *bi, const char *what)
{
	m->bi = bi;
	m->what = what;
	m->ram_first = bi->ram.count;
	m->res_first = bi->reserved.count;
	m->entries = 0;
	m->have_ram = false;
}

static bool map_overlaps(const struct mb_map *m, uint64_t s, uint64_t e)
{
	const struct bootinfo *bi = m->bi;

	for (unsigned int i = m->ram_first; i < bi->ram.count; i++)
		if (region_overlaps(&bi->ram.regions[i], pa(s), pa(e)))
			return true;
	for (unsigned int i = m->res_first; i < bi->reserved.count; i++)
		if (region_overlaps(&bi->reserved.regions[i], pa(s), pa(e)))
			return true;
	return false;
}

/**
 * mb_map_add() - add one map entry: RAM when @name is NULL, else reserved.
 */
void mb_map_add(struct mb_map *m, uint64_t base, uint64_t len, const char *name)
{
	unsigned int idx = m->entries++;
	uint64_t end = base + len;

	if (!len) {
		/* Counted like every other range the firmware gave and we drop. */
		pr_warn("%s: entry %u at %#llx has length 0, dropped\n",
			m->what, idx, U64(base));
		m->bi->fixups++;
		if (name)
			m->bi->dropped_reserved++;
		else
			m->bi->dropped_ram++;
		return;
	}
	if (end < base) {
		pr_warn("%s: entry %u [%#llx +%#llx) wraps around, clamped\n",
			m->what, idx, U64(base), U64(len));
		end = ~0ULL & PAGE_MASK;
		if (end <= base)
			return;
	}
	if (map_overlaps(m, base, end))
		pr_warn("%s: entry %u [%#llx, %#llx) overlaps an earlier "
			"entry\n",
			m->what, idx, U64(base), U64(end));
	if (!name) {
		if (bootinfo_add_ram(m->bi, pa(base), pa(end), 0) == 0)
			m->have_ram = true;
	} else if (badmem_region_source(name) == BADMEM_FIRMWARE) {
		bootinfo_add_bad(m->bi, pa(base), pa(end), BADMEM_FIRMWARE,
				 true, 0);
	} else {
		bootinfo_add_reserved(m->bi, pa(base), pa(end), name);
	}
}

/**
 * mb_copy_string() - bounded copy of a loader string; see multiboot_priv.h.
 * Return: bytes consumed.
 */
size_t mb_copy_string(char *dst, size_t dst_size, const char *src, size_t avail,
		      const char *what)
{
	size_t n = strnlen(src, avail);

	if (n == avail)
		pr_warn("%s: not NUL-terminated within %zu bytes\n", what,
			avail);
	if (dst_size) {
		size_t c = MIN(n, dst_size - 1);

		if (c < n)
			pr_warn("%s: %zu bytes long, truncated to %zu\n", what,
				n, c);
		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n < avail ? n + 1 : n;
}

/*
 * Reserve loader structures as "loader info", skipping pieces that share
 * pages with an earlier one (QEMU puts the info and the map in one page).
 */
static void mb1_reserve(struct bootinfo *bi, uint64_t s, uint64_t e)
{
	uint64_t ps = ALIGN_DOWN(s, PAGE_SIZE), pe = ALIGN_UP(e, PAGE_SIZE);

	for (unsigned int i = 0; i < bi->reserved.count; i++) {
		const struct region *r = &bi->reserved.regions[i];

		if (!strcmp(r->name, "loader info") &&
		    ALIGN_DOWN(pa_val(r->start), PAGE_SIZE) <= ps &&
		    ALIGN_UP(pa_val(r->end), PAGE_SIZE) >= pe)
			return;
	}
	bootinfo_add_reserved(bi, pa(s), pa(e), "loader info");
}

/*
 * Read a string at @p through the accessor one byte at a time, so that a
 * string ending just before unreadable memory still works; reserve it.
 * Return: its length (the bytes readable before a NUL).
 */
static size_t mb1_string(struct bootinfo *bi, uint64_t p, char *dst,
			 size_t dst_size, mb_read_fn read, void *ctx,
			 const char *what)
{
	size_t n = 0;
	bool nul = false;

	while (n < MB1_STRING_MAX) {
		const char *c = read(p + n, 1, ctx);

		if (!c) {
			pr_warn("%s: unreadable at %#llx\n", what, U64(p + n));
			break;
		}
		if (!*c) {
			nul = true;
			break;
		}
		if (dst && n + 1 < dst_size)
			dst[n] = *c;
		n++;
	}
	if (!nul && n == MB1_STRING_MAX)
		pr_warn("%s: no NUL within %u bytes\n", what, MB1_STRING_MAX);
	if (dst && dst_size) {
		if (n >= dst_size)
			pr_warn("%s: %zu bytes long, truncated to %zu\n", what,
				n, dst_size - 1);
		dst[MIN(n, dst_size - 1)] = '\0';
	}
	if (n || nul)
		mb1_reserve(bi, p, p + n + nul);
	return n;
}

/* The command line, read through the accessor (see mb1_cmdline()). */
struct mb1_text {
	mb_read_fn read;
	void *ctx;
	uint64_t pa;
};

static char mb1_text_at(const void *src, size_t i)
{
	const struct mb1_text *t = src;
	const char *c = t->read(t->pa + i, 1, t->ctx);

	return c ? *c : '\0';
}

/*
 * The command line into bi->cmdline, whole words only: measured (and
 * reserved) by mb1_string(), then copied byte by byte through the accessor,
 * which never promised that a longer read at once works.
 */
static void mb1_cmdline(struct bootinfo *bi, uint64_t p, mb_read_fn read,
			void *ctx)
{
	const struct mb1_text t = {read, ctx, p};
	size_t n = mb1_string(bi, p, NULL, 0, read, ctx, "multiboot1: cmdline");

	cmdline_copy_bootinfo(bi, &t, n, mb1_text_at, "multiboot1: cmdline");
}

static bool mb1_mmap(struct bootinfo *bi, const uint8_t *info, mb_read_fn read,
		     void *ctx)
{
	uint32_t len = mb_u32(info + MB1_MMAP_LENGTH);
	uint32_t addr = mb_u32(info + MB1_MMAP_ADDR);
	const uint8_t *map;
	struct mb_map m;
	size_t off = 0;
	char name[BOOTINFO_NAME_MAX];

	if (len > MB1_MMAP_MAX) {
		pr_warn("multiboot1: mmap_length %u exceeds %u, truncated\n",
			len, MB1_MMAP_MAX);
		len = MB1_MMAP_MAX;
	}
	map = read(addr, len, ctx);
	if (!map || !len) {
		pr_warn("multiboot1: mmap at %#x length %u is unreadable\n",
			addr, len);
		return false;
	}
	mb1_reserve(bi, addr, (uint64_t)addr + len);
	mb_map_begin(&m, bi, "multiboot1 mmap");
	while (off + 4 <= len) {
		uint32_t size = mb_u32(map + off);

		if (size < MB1_MMAP_ENTRY_MIN) {
			pr_warn("multiboot1: mmap entry %u size %u < %u, rest "
				"ignored\n",
				m.entries, size, MB1_MMAP_ENTRY_MIN);
			break;
		}
		if (size > len - off - 4) {
			pr_warn("multiboot1: mmap entry %u size %u runs past "
				"mmap_length %u\n",
				m.entries, size, len);
			break;
		}
		if (m.entries >= MB_MAP_MAX_ENTRIES) {
			pr_warn("multiboot1: mmap has over %u entries, rest "
				"ignored\n",
				MB_MAP_MAX_ENTRIES);
			break;
		}
		mb_map_add(&m, mb_u64(map + off + 4), mb_u64(map + off + 12),
			   mb_e820_name(mb_u32(map + off + 20), name,
					sizeof(name)));
		off += (size_t)size + 4;
	}
	if (!m.have_ram)
		pr_warn("multiboot1: mmap has no RAM entry\n");
	return m.have_ram;
}

static void mb1_mods(struct bootinfo *bi, const uint8_t *info, mb_read_fn read,
		     void *ctx)
{
	uint32_t count = mb_u32(info + MB1_MODS_COUNT);
	uint32_t addr = mb_u32(info + MB1_MODS_ADDR);
	const uint8_t *mods;

	if (!count)
		return;
	if (count > MB1_MODS_MAX) {
		pr_warn("multiboot1: mods_count %u exceeds %u, truncated\n",
			count, MB1_MODS_MAX);
		count = MB1_MODS_MAX;
	}
	mods = read(addr, (size_t)count * MB1_MOD_SIZE, ctx);
	if (!mods) {
		pr_warn("multiboot1: mods_addr %#x (%u modules) is "
			"unreadable\n",
			addr, count);
		return;
	}
	mb1_reserve(bi, addr, (uint64_t)addr + count * MB1_MOD_SIZE);
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *mod = mods + i * MB1_MOD_SIZE;
		uint32_t s = mb_u32(mod), e = mb_u32(mod + 4);
		uint32_t str = mb_u32(mod + 8);

		if (e <= s) {
			pr_warn("multiboot1: module %u [%#x, %#x) is empty or "
				"inverted, ignored\n",
				i, s, e);
			continue;
		}
		bootinfo_add_reserved(bi, pa(s), pa(e), "module");
		if (!pa_val(bi->handover.image.end)) /* a live update's image */
			bi->handover.image = region_of(pa(s), pa(e));
		if (str)
			mb1_string(bi, str, NULL, 0, read, ctx,
				   "multiboot1: module string");
	}
}

/* No map: RAM from mem_lower (KiB below 1 MiB) and mem_upper (KiB above). */
static bool mb1_meminfo(struct bootinfo *bi, const uint8_t *info)
{
	uint64_t lower = (uint64_t)mb_u32(info + MB1_MEM_LOWER) << 10;
	uint64_t upper = (uint64_t)mb_u32(info + MB1_MEM_UPPER) << 10;
	bool ram = false;

	pr_warn("multiboot1: no memory map, using mem_lower %llu KiB and "
		"mem_upper %llu KiB\n",
		U64(lower >> 10), U64(upper >> 10));
	if (lower > LOW_MEM_MAX) {
		pr_warn("multiboot1: mem_lower %llu KiB exceeds 640 KiB, "
			"clamped\n",
			U64(lower >> 10));
		lower = LOW_MEM_MAX;
	}
	if (lower)
		ram |= bootinfo_add_ram(bi, pa(0), pa(lower), 0) == 0;
	if (upper)
		ram |= bootinfo_add_ram(bi, pa(SZ_1M), pa(SZ_1M + upper), 0) ==
		       0;
	return ram;
}

/**
 * multiboot1_parse() - fill @bi from the multiboot1 information at @info_pa.
 * Return: 0, or -EINVAL when no RAM was found.
 */
int multiboot1_parse(struct bootinfo *bi, uint64_t info_pa, mb_read_fn read,
		     void *ctx)
{
	const uint8_t *info = read(info_pa, 4, ctx);
	uint32_t flags;
	size_t need = 4;
	bool ram = false;

	if (!info) {
		pr_warn("multiboot1: information at %#llx is unreadable\n",
			U64(info_pa));
		return -EINVAL;
	}
	flags = mb_u32(info);
	if (flags & MB1_FLAG_MEM)
		need = MB1_MEM_UPPER + 4;
	if (flags & MB1_FLAG_CMDLINE)
		need = MB1_CMDLINE + 4;
	if (flags & MB1_FLAG_MODS)
		need = MB1_MODS_ADDR + 4;
	if (flags & MB1_FLAG_MMAP)
		need = MB1_MMAP_ADDR + 4;
	if (flags & MB1_FLAG_LOADER)
		need = MB1_LOADER_NAME + 4;
	info = read(info_pa, need, ctx);
	if (!info) {
		pr_warn("multiboot1: information at %#llx truncated (flags %#x "
			"need %zu bytes)\n",
			U64(info_pa), flags, need);
		return -EINVAL;
	}
	mb1_reserve(bi, info_pa, info_pa + need);
	strlcpy(bi->loader, "multiboot1", sizeof(bi->loader));

	if (flags & MB1_FLAG_MMAP)
		ram = mb1_mmap(bi, info, read, ctx);
	if (!ram && (flags & MB1_FLAG_MEM))
		ram = mb1_meminfo(bi, info);
	if (flags & MB1_FLAG_CMDLINE)
		mb1_cmdline(bi, mb_u32(info + MB1_CMDLINE), read, ctx);
	if (flags & MB1_FLAG_MODS)
		mb1_mods(bi, info, read, ctx);
	if (flags & MB1_FLAG_LOADER)
		mb1_string(bi, mb_u32(info + MB1_LOADER_NAME), bi->loader,
			   sizeof(bi->loader), read, ctx,
			   "multiboot1: boot_loader_name");
	if (!ram) {
		pr_warn("multiboot1: no RAM in the information (flags %#x)\n",
			flags);
		return -EINVAL;
	}
	return 0;
}
