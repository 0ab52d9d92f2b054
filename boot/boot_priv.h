/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the firmware parsers in boot/ (private to boot/).
 */
#ifndef BOOT_BOOT_PRIV_H
#define BOOT_BOOT_PRIV_H

#include <keel/errno.h>
#include <keel/printk.h> /* U64() */
#include <keel/range_table.h>

/*
 * A refusal's reason: @fmt into @why (@n bytes). Return: -EINVAL (the
 * checks of boot/handover_image.c and boot/handover_pieces.c).
 */
static inline __printf(3, 4) int boot_refuse(char *why, size_t n,
					     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* What every arch names the reservation of its own image (setup.c). */
#define IMAGE_NAME "kernel"

/*
 * One fix-up of bootinfo (boot/bootinfo.c, boot/bootinfo_sanitise.c): a
 * warning line, counted in bi->fixups.
 */
#define fix_warn(bi, fmt, ...)                                 \
	do {                                                   \
		(bi)->fixups++;                                \
		pr_warn("bootinfo: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

/*
 * A bootinfo table that cannot double takes all the early pool has left
 * (boot/bootinfo.c). Return: whether it grew.
 */
bool bootinfo_grow_rest(struct range_table *t);

/*
 * handover_ft_parse() - record @i, the frame table's placement (@bytes at
 * offset @off of the handover @h->view, inside it) into @h
 * (boot/handover_ft.c): a malformed one is one warning and none kept,
 * never a refusal.
 */
struct bi_handover;
void handover_ft_parse(struct bi_handover *h, unsigned int i, uint64_t off,
		       uint32_t bytes);

#endif
