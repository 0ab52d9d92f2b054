/* SPDX-License-Identifier: MIT */
/*
 * The device tree's facts for the arch, for dt_parse() (boot/fdt/fdt.c):
 * /chosen (bootargs, initrd, stdout-path console, U-Boot as loader),
 * /psci (conduit, 0.1 function ids or 0.2+), the arm,armv8-timer
 * clock-frequency override, and the GICv3 distributor and redistributors.
 */
#include "fdt_priv.h"

#include <keel/badmem.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>
#include <keel/cmdline_copy.h>

#include "../boot_priv.h"

/* --- chosen ------------------------------------------------------------ */

static bool prop_addr(struct dt_ctx *c, int node, const char *name,
		      uint64_t *out)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, node, name, &len);

	if (!p)
		return false;
	if (len != 4 && len != 8) {
		dt_warn(c->bi,
			"chosen/%s has length %d, expected 4 or 8, ignored",
			name, len);
		return false;
	}
	*out = dt_read_cells(p, len / 4);
	return true;
}

/*
 * The reg of @node with its parent's #address-cells / #size-cells (*@ac,
 * *@sc; parent buses are assumed to map 1:1, "ranges;", as on virt).
 * Return: the property and *@rlen its length, or NULL (no parent, a bad
 * cell count, no reg).
 */
static const fdt32_t *node_reg(struct dt_ctx *c, int node, int *ac, int *sc,
			       int *rlen)
{
	int parent = fdt_parent_offset(c->fdt, node);
	const fdt32_t *reg;

	if (parent < 0)
		return NULL;
	*ac = dt_cells(c, parent, "#address-cells", 2, false);
	*sc = dt_cells(c, parent, "#size-cells", 1, false);
	reg = fdt_getprop(c->fdt, node, "reg", rlen);
	return *ac < 0 || *sc < 0 || !reg || *rlen < 0 ? NULL : reg;
}

static void parse_stdout(struct dt_ctx *c, const char *path, int len)
{
	const char *colon = memchr(path, ':', (size_t)len);
	int plen =
		colon ? (int)(colon - path) : (int)strnlen(path, (size_t)len);
	int node = fdt_path_offset_namelen(c->fdt, path, plen);
	int ac, sc, rlen;
	const fdt32_t *reg;

	if (node < 0) {
		dt_warn(c->bi, "chosen/stdout-path \"%.*s\" names no node",
			plen, path);
		return;
	}
	strlcpy(c->ai->uart_path, dt_node_name(c->fdt, node),
		sizeof(c->ai->uart_path));
	if (fdt_parent_offset(c->fdt, node) < 0)
		return;
	reg = node_reg(c, node, &ac, &sc, &rlen);
	if (!reg || rlen < ac * 4) {
		dt_warn(c->bi, "stdout-path node %s has no usable reg",
			c->ai->uart_path);
		return;
	}
	c->ai->uart_base = pa(dt_read_cells(reg, ac));
	c->ai->uart_is_pl011 =
		!fdt_node_check_compatible(c->fdt, node, "arm,pl011");
}

/*
 * /chosen/xen,xen-bootargs if it is usable as a command line: a string
 * (a NUL within its length). Return: the text and *@len, or NULL (absent
 * or malformed; dt_parse_chosen() warns about the latter, once).
 */
static const char *xen_bootargs(const void *fdt, int node, int *len)
{
	const char *s = fdt_getprop(fdt, node, "xen,xen-bootargs", len);

	return s && *len > 0 && memchr(s, '\0', (size_t)*len) ? s : NULL;
}

/**
 * dt_copy_bootargs() - the command line of the checked blob @fdt into
 * @bi->cmdline (whole words, one counted warning when too long), unless
 * @bi already holds a command line: dt_read_cmdline() copied it before
 * the parse, or a UEFI loader gave its own. As Xen reads /chosen
 * (docs/misc/arm/device-tree/booting.txt, "Command lines"):
 * xen,xen-bootargs when present (what ImageBuilder writes from XEN_CMD, a
 * Xen-unaware loader leaving bootargs to dom0), else bootargs (keel has
 * no dom0: a plain bootargs is its own line, as for Linux). A malformed
 * xen,xen-bootargs is skipped for bootargs (dt_parse() says so).
 * Return: true when a line was copied.
 */
bool dt_copy_bootargs(const void *fdt, struct bootinfo *bi)
{
	int node = fdt_path_offset(fdt, "/chosen");
	const char *what = "dt: chosen/xen,xen-bootargs";
	const char *s;
	int len;

	if (node < 0 || bi->cmdline[0])
		return false;
	s = xen_bootargs(fdt, node, &len);
	if (!s) {
		what = "dt: chosen/bootargs";
		s = fdt_getprop(fdt, node, "bootargs", &len);
	}
	if (!s || len <= 0)
		return false;
	cmdline_copy_bootinfo(bi, s, (size_t)len, NULL, what);
	return true;
}

/*
 * /chosen/keel,handover = <addr-hi addr-lo size-hi size-lo>: where the last
 * keel image left its handover (docs/liveupdate.md), two 64-bit values
 * whatever the root's cells. Any other length is a handover that cannot
 * be read: boot/handover.c refuses it (fail closed), never ignores it.
 */
static void dt_parse_handover(struct dt_ctx *c, int node)
{
	const fdt32_t *p;
	int len;

	p = fdt_getprop(c->fdt, node, "keel,handover", &len);
	if (!p)
		return;
	if (len != 16) {
		dt_warn(c->bi,
			"chosen/keel,handover has length %d, expected 16", len);
		c->bi->handover.pa = INVALID_PADDR;
		c->bi->handover.size = (uint64_t)(unsigned int)len;
		return;
	}
	c->bi->handover.pa = pa(dt_read_cells(p, 2));
	c->bi->handover.size = dt_read_cells(p + 2, 2);
}

/*
 * /chosen/keel,bad-memory = <addr-hi addr-lo size-hi size-lo ...>: RAM
 * (of a /memory node) that failed, as the sandbox's `bad` lines and e820
 * type 5 say it (docs/booting-arm64.md): pairs of two 64-bit values
 * whatever the root's cells, each a "bad firmware" reservation. A length
 * that is not a multiple of 16: the whole pairs taken, one warning.
 */
static void dt_parse_bad_memory(struct dt_ctx *c, int node)
{
	const fdt32_t *p;
	int len;

	p = fdt_getprop(c->fdt, node, "keel,bad-memory", &len);
	if (!p || len < 0)
		return;
	if (len % 16)
		dt_warn(c->bi,
			"chosen/keel,bad-memory has length %d, not a multiple "
			"of 16: the trailing %d bytes ignored",
			len, len % 16);
	for (int off = 0; off + 16 <= len; off += 16) {
		uint64_t s = dt_read_cells(p + off / 4, 2);
		uint64_t size = dt_read_cells(p + off / 4 + 2, 2);
		uint64_t e = s + size;

		if (!size || e < s) {
			dt_warn(c->bi,
				"chosen/keel,bad-memory entry %d [%#llx "
				"+%#llx] "
				"is empty or wraps, ignored",
				off / 16, U64(s), U64(size));
			continue;
		}
		bootinfo_add_bad(c->bi, pa(s), pa(e), BADMEM_FIRMWARE, false,
				 NUMA_NO_NODE);
	}
}

void dt_parse_chosen(struct dt_ctx *c)
{
	int node = fdt_path_offset(c->fdt, "/chosen");
	const char *s;
	int len;
	uint64_t is = 0, ie = 0;

	if (node < 0)
		return;
	if (fdt_getprop(c->fdt, node, "xen,xen-bootargs", &len) &&
	    !xen_bootargs(c->fdt, node, &len))
		dt_warn(c->bi,
			"chosen/xen,xen-bootargs of %d bytes is not a "
			"NUL-terminated string, bootargs read instead",
			len);
	dt_copy_bootargs(c->fdt, c->bi);
	if (prop_addr(c, node, "linux,initrd-start", &is) &&
	    prop_addr(c, node, "linux,initrd-end", &ie)) {
		if (ie <= is) {
			dt_warn(c->bi,
				"initrd [%#llx, %#llx) is empty or inverted, "
				"ignored",
				U64(is), U64(ie));
		} else {
			c->ai->initrd_start = pa(is);
			c->ai->initrd_end = pa(ie);
			bootinfo_add_reserved(c->bi, pa(is), pa(ie), "initrd");
			/* A live update enters the initrd (docs/liveupdate.md). */
			c->bi->handover.image = region_of(pa(is), pa(ie));
		}
	}
	dt_parse_handover(c, node);
	dt_parse_bad_memory(c, node);
	s = fdt_getprop(c->fdt, node, "stdout-path", &len);
	if (!s)
		s = fdt_getprop(c->fdt, node, "linux,stdout-path", &len);
	if (s && len > 0)
		parse_stdout(c, s, len);
	if (fdt_getprop(c->fdt, node, "u-boot,version", NULL))
		strlcpy(c->bi->loader, "u-boot", sizeof(c->bi->loader));
}

/* --- psci, timer, gic ---------------------------------------------------- */

void dt_parse_psci(struct dt_ctx *c)
{
	int node = fdt_node_offset_by_compatible(c->fdt, -1, "arm,psci-1.0");
	const char *m;
	uint32_t v;

	if (node < 0)
		node = fdt_node_offset_by_compatible(c->fdt, -1,
						     "arm,psci-0.2");
	if (node >= 0) {
		c->ai->psci_v0_2 = true;
	} else {
		node = fdt_node_offset_by_compatible(c->fdt, -1, "arm,psci");
		if (node < 0)
			return;
	}
	c->ai->psci_cpu_on = PSCI_FN_CPU_ON;
	c->ai->psci_cpu_off = PSCI_FN_CPU_OFF;
	if (!c->ai->psci_v0_2) {
		if (dt_prop_u32(c, node, "cpu_on", &v))
			c->ai->psci_cpu_on = v;
		if (dt_prop_u32(c, node, "cpu_off", &v))
			c->ai->psci_cpu_off = v;
	}
	m = dt_prop_str(c->fdt, node, "method", NULL);
	if (m && !strcmp(m, "hvc"))
		c->ai->psci_method = DT_PSCI_HVC;
	else if (m && !strcmp(m, "smc"))
		c->ai->psci_method = DT_PSCI_SMC;
	else
		dt_warn(c->bi,
			"psci method \"%s\" is not hvc or smc, secondary CPUs "
			"will not start",
			m ? m : "(none)");
}

void dt_parse_timer(struct dt_ctx *c)
{
	int node = fdt_node_offset_by_compatible(c->fdt, -1, "arm,armv8-timer");
	uint32_t f;

	if (node >= 0 && dt_prop_u32(c, node, "clock-frequency", &f))
		c->ai->timer_freq = f;
}

/*
 * The GICv3 node: reg is the distributor, then #redistributor-regions
 * (default 1) redistributor regions; GICC/GICH/GICV may follow. A GICv2
 * (or no GIC) leaves gicd_base 0: the arch then keeps its spinning idle.
 */
void dt_parse_gic(struct dt_ctx *c)
{
	int node = fdt_node_offset_by_compatible(c->fdt, -1, "arm,gic-v3");
	int ac, sc, rlen, n;
	uint32_t regions = 1;
	const fdt32_t *reg;

	if (node < 0 || fdt_parent_offset(c->fdt, node) < 0)
		return;
	reg = node_reg(c, node, &ac, &sc, &rlen);
	dt_prop_u32(c, node, "#redistributor-regions", &regions);
	if (!reg) {
		dt_warn(c->bi, "%s has no usable reg, idle CPUs will spin",
			dt_node_name(c->fdt, node));
		return;
	}
	n = rlen / (4 * (ac + sc));
	if (regions < 1 || (int)regions >= n) {
		dt_warn(c->bi,
			"%s: #redistributor-regions %u with %d reg entries, "
			"idle CPUs will spin",
			dt_node_name(c->fdt, node), regions, n);
		return;
	}
	if (regions > DT_MAX_GICR) {
		dt_warn(c->bi,
			"%s: %u redistributor regions, only the first %u kept",
			dt_node_name(c->fdt, node), regions, DT_MAX_GICR);
		regions = DT_MAX_GICR;
	}
	c->ai->gicd_base = pa(dt_read_cells(reg, ac));
	for (uint32_t i = 1; i <= regions; i++) {
		const fdt32_t *r = reg + (size_t)i * (size_t)(ac + sc);

		c->ai->gicr[i - 1].base = pa(dt_read_cells(r, ac));
		c->ai->gicr[i - 1].size = dt_read_cells(r + ac, sc);
	}
	c->ai->gicr_count = regions;
}
