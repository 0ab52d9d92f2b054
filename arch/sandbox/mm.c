/* SPDX-License-Identifier: MIT */
/*
 * Sandbox arch hooks of <arch/mm.h>, and the RAM arena behind them: one
 * MAP_NORESERVE mapping of [0, top), so that physical address pa lives at
 * arena + pa and only touched pages cost host memory. --prefault faults a
 * range in ahead of the boot (sandbox_ram_prefault()). A live update maps
 * a memory file instead (sandbox_ram_init_fd()), which the next image
 * maps again after exec().
 *
 * A new arena (the next boot of a unit test) first retires the CPU threads
 * of the last boot: their per-CPU state lived in the old arena.
 */
#include <arch/mm.h>
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/bug.h>
#include <keel/compiler.h>
#include <keel/errno.h>

#include "sandbox_priv.h"

static unsigned char *arena;
static uint64_t arena_top;

/**
 * sandbox_ram_init() - map a fresh arena covering [0, @top).
 * @top: highest physical address + 1 (rounded up to a page).
 *
 * Return: 0, or -ENOMEM when the host refuses the mapping.
 */
int sandbox_ram_init(uint64_t top)
{
	return sandbox_ram_init_fd(top, NULL);
}

/**
 * sandbox_ram_init_fd() - sandbox_ram_init() over a memory file, for a
 * live update: *@fd (or a new memfd when *@fd < 0, its descriptor put
 * there), shared, so that the next image exec()'d with the descriptor
 * maps the same bytes; @fd NULL: anonymous memory.
 * @top: highest physical address + 1 (rounded up to a page)
 * @fd: the descriptor, or NULL
 *
 * Return: 0, or -ENOMEM when the host refuses the mapping.
 */
int sandbox_ram_init_fd(uint64_t top, int *fd)
{
	void *p;

	sandbox_retire_all_cpus();
	sandbox_ram_fini();
	top = (top + PAGE_SIZE - 1) & PAGE_MASK;
	if (!top)
		top = PAGE_SIZE;
	p = fd ? os_map_ram_fd(top, fd) : os_map_ram(top);
	if (!p)
		return -ENOMEM;
	arena = p;
	arena_top = top;
	return 0;
}

/**
 * sandbox_ram_fini() - unmap the arena (no-op when there is none).
 */
void sandbox_ram_fini(void)
{
	if (arena)
		os_unmap_ram(arena, arena_top);
	arena = NULL;
	arena_top = 0;
}

/**
 * sandbox_ram_prefault() - fault [start, end) of the arena in now, with
 * huge pages where the host gives them, so that a later scrub measures its
 * stores and not the host's first-touch page faults (`--prefault`).
 * @start: physical start
 * @end: physical end (clipped to the arena)
 *
 * Return: 0, or -ENOMEM when the host cannot back the range.
 */
int sandbox_ram_prefault(uint64_t start, uint64_t end)
{
	unsigned char *p;
	size_t len;
	int err;

	start &= ~((2ull << 20) - 1);
	end = MIN(end, arena_top);
	if (!arena || start >= end)
		return 0;
	p = arena + start;
	len = end - start;
	os_advise_hugepage(p, len);
	err = os_populate_write(p, len);
	if (err != -EINVAL)
		return err;
	/*
	 * Older hosts: one write per page does the same; it writes back
	 * what it read, so that a live update's preserved bytes stay.
	 */
	for (size_t off = 0; off < len; off += PAGE_SIZE)
		((volatile unsigned char *)p)[off] =
			((volatile unsigned char *)p)[off];
	return 0;
}

/**
 * arch_phys_to_virt() - the arena address of @p.
 * @p: physical address in [0, top] (top itself for end-of-range math).
 *
 * Return: the virtual address.
 */
void *arch_phys_to_virt(paddr_t p)
{
	DEBUG_CHECK(arena && pa_val(p) <= arena_top);
	return arena + pa_val(p);
}

/**
 * arch_virt_to_phys() - inverse of arch_phys_to_virt().
 * @va: an address inside the arena.
 *
 * Return: the physical address.
 */
paddr_t arch_virt_to_phys(const void *va)
{
	const unsigned char *c = va;

	DEBUG_CHECK(arena && c >= arena && c <= arena + arena_top);
	return pa((uint64_t)(c - arena));
}

/**
 * sandbox_in_arena() - whether [@va, @va + @len) lies in the arena.
 * @va: an address
 * @len: bytes
 *
 * Return: true when the whole range is arena memory.
 */
bool sandbox_in_arena(const void *va, size_t len)
{
	const unsigned char *c = va;

	return arena && c >= arena && c <= arena + arena_top &&
	       len <= (size_t)(arena + arena_top - c);
}
