/* SPDX-License-Identifier: MIT */
/*
 * ACPI discovery: find and validate the RSDP, walk the XSDT (or RSDT),
 * validate every table it lists (header mapped first, then the length
 * checked, then the whole table mapped and its checksum verified), hand
 * the tables keel reads to their parsers (the result goes into struct
 * bootinfo in acpi_bootinfo.c); and the corrupting accessor of the
 * inject= kinds that damage a copy of the SRAT or SLIT.
 *
 * The room boot/acpi/, one private header (acpi_priv.h), calls going one
 * way: this file (the dispatcher, acpi_parse*()) calls the table parsers,
 * one file per table family (acpi_madt.c, acpi_numa.c, acpi_fadt.c,
 * acpi_devices.c), which read fields only through the accessors of
 * acpi_priv.h (acpi_table_len(), acpi_get32(), acpi_warn(), ...) and
 * never call back up. Above the dispatcher: acpi_bootinfo.c (the parsed
 * tables into bootinfo) and the replay of a real machine's tables,
 * acpi_replay.c over acpidump.c's text reader.
 *
 * Physical memory is only reached through struct acpi_mem, so nothing here
 * dereferences a firmware-supplied address: a pointer to an unmapped or
 * out-of-RAM table comes back NULL and the table is ignored with a
 * warning. RAM itself never comes from ACPI (the e820/UEFI map gives it);
 * the SRAT only labels it with nodes.
 *
 * No locks: single-threaded boot code; the arch owns struct acpi_info.
 */
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/string.h>

#include "acpi_priv.h"

#define EBDA_SEG_PTR   0x40e
#define EBDA_SCAN_LEN  1024
#define BIOS_ROM_START 0xe0000
#define BIOS_ROM_END   0x100000
#define RSDP_MAX_LEN   4096

/**
 * acpi_checksum() - byte sum of a table.
 *
 * Return: the sum modulo 256 (0 when valid).
 */
uint8_t acpi_checksum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint8_t sum = 0;

	while (len--)
		sum = (uint8_t)(sum + *p++);
	return sum;
}

/**
 * acpi_info_reset() - an empty result: no tables, one node, 10/20.
 */
void acpi_info_reset(struct acpi_info *info)
{
	unsigned int i, j;

	memset(info, 0, sizeof(*info));
	info->node_count = 1;
	info->node_used[0] = true;
	info->pm_timer_bits = 24;
	for (i = 0; i < MAX_NUMNODES; i++)
		for (j = 0; j < MAX_NUMNODES; j++)
			info->distance[i][j] = i == j ? NODE_DISTANCE_LOCAL
						      : NODE_DISTANCE_REMOTE;
}

static const void *acpi_map(const struct acpi_mem *mem, uint64_t addr,
			    size_t len)
{
	if (addr + len < addr)
		return NULL;
	return mem->map(addr, len, mem->ctx);
}

/* A printable copy of a 4-byte signature for warnings. */
static void sig_str(char out[5], const uint8_t *sig)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		out[i] = sig[i] >= 0x20 && sig[i] < 0x7f ? (char)sig[i] : '?';
	out[4] = '\0';
}

/* Is @sig a table acpi_parse() reads (or walks to reach the others)? */
static bool acpi_table_read_by_keel(const char *sig)
{
	static const char *const read[] = {
		"APIC", "SRAT", "SLIT", "FACP", "DSDT",
		"HPET", "SPCR", "XSDT", "RSDT",
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(read); i++)
		if (!memcmp(sig, read[i], 4))
			return true;
	return false;
}

/*
 * Map a whole table at @addr: header first, then the length it claims
 * (36 .. ACPI_TABLE_MAX_LEN), then the checksum (tables keel does not
 * read pass without it). @expect, when set, is the
 * signature the caller needs. Return: the table, or NULL (warned).
 */
static const uint8_t *map_table(const struct acpi_mem *mem, uint64_t addr,
				const char *expect, const char *who,
				struct acpi_info *info)
{
	const uint8_t *h, *t;
	char sig[5];
	uint32_t len;

	h = acpi_map(mem, addr, ACPI_HEADER_SIZE);
	if (!h) {
		acpi_warn(info, "%s: table at %#llx is not in memory, ignored",
			  who, (unsigned long long)addr);
		return NULL;
	}
	sig_str(sig, h);
	if (expect && memcmp(h, expect, 4)) {
		acpi_warn(info,
			  "%s: table at %#llx has signature \"%s\", "
			  "not %s, ignored",
			  who, (unsigned long long)addr, sig, expect);
		return NULL;
	}
	len = acpi_get32(h + 4);
	if (len < ACPI_HEADER_SIZE || len > ACPI_TABLE_MAX_LEN) {
		acpi_warn(info, "%s at %#llx: length %u invalid, ignored", sig,
			  (unsigned long long)addr, len);
		return NULL;
	}
	t = acpi_map(mem, addr, len);
	if (!t) {
		acpi_warn(info,
			  "%s at %#llx: length %u runs out of memory, "
			  "ignored",
			  sig, (unsigned long long)addr, len);
		return NULL;
	}
	if (acpi_checksum(t, len)) {
		/*
		 * Vendor tables (AMI's OEMB, ...) often carry no valid
		 * checksum; keel never reads them, so that is no news.
		 */
		if (!acpi_table_read_by_keel(sig))
			return t;
		acpi_warn(info, "%s at %#llx: bad checksum, ignored", sig,
			  (unsigned long long)addr);
		return NULL;
	}
	return t;
}

/* acpi_warn() for code that runs before there is a struct acpi_info. */
#define rsdp_warn(warns, fmt, ...)                        \
	do {                                              \
		(*(warns))++;                             \
		pr_warn("ACPI " fmt "\n", ##__VA_ARGS__); \
	} while (0)

/*
 * Check an RSDP: v1 checksum over 20 bytes; with @ext and revision >= 2,
 * the length and extended checksum too (a failure there keeps the RSDT
 * usable). @quiet_sig: do not warn when the signature is absent (scan).
 */
static bool rsdp_check(const struct acpi_mem *mem, uint64_t addr,
		       bool quiet_sig, bool ext, uint64_t *rsdt, uint64_t *xsdt,
		       unsigned int *warns)
{
	const uint8_t *p = acpi_map(mem, addr, ACPI_RSDP_V1_SIZE);
	uint32_t len;

	if (!p) {
		if (!quiet_sig)
			rsdp_warn(warns, "RSDP at %#llx is not in memory",
				  (unsigned long long)addr);
		return false;
	}
	if (memcmp(p, "RSD PTR ", 8)) {
		if (!quiet_sig)
			rsdp_warn(warns,
				  "RSDP at %#llx: no \"RSD PTR \" "
				  "signature",
				  (unsigned long long)addr);
		return false;
	}
	if (acpi_checksum(p, ACPI_RSDP_V1_SIZE)) {
		rsdp_warn(warns, "RSDP at %#llx: bad checksum, ignored",
			  (unsigned long long)addr);
		return false;
	}
	*rsdt = acpi_get32(p + 16);
	*xsdt = 0;
	if (p[15] < 2 || !ext)
		return true;
	p = acpi_map(mem, addr, ACPI_RSDP_V2_SIZE);
	len = p ? acpi_get32(p + 20) : 0;
	if (len < ACPI_RSDP_V2_SIZE || len > RSDP_MAX_LEN) {
		rsdp_warn(warns,
			  "RSDP at %#llx: revision %u length %u invalid, "
			  "using the RSDT",
			  (unsigned long long)addr, p ? p[15] : 0, len);
		return true;
	}
	p = acpi_map(mem, addr, len);
	if (!p || acpi_checksum(p, len)) {
		rsdp_warn(warns,
			  "RSDP at %#llx: bad extended checksum, using "
			  "the RSDT",
			  (unsigned long long)addr);
		return true;
	}
	*xsdt = acpi_get64(p + 24);
	return true;
}

static paddr_t rsdp_scan(const struct acpi_mem *mem, uint64_t start,
			 uint64_t end, unsigned int *warns)
{
	uint64_t a, rsdt, xsdt;

	for (a = start; a + 16 <= end; a += 16)
		if (rsdp_check(mem, a, true, false, &rsdt, &xsdt, warns))
			return pa(a);
	return INVALID_PADDR;
}

/**
 * acpi_find_rsdp() - locate the RSDP (see include/keel/acpi.h). Only the
 * v1 part is checked here; acpi_parse() checks the rest, so that one
 * problem gives one warning.
 *
 * Return: its physical address, or INVALID_PADDR.
 */
paddr_t acpi_find_rsdp(const struct acpi_mem *mem, paddr_t hint)
{
	unsigned int warns = 0;
	const uint8_t *seg;
	uint64_t rsdt, xsdt, ebda;
	paddr_t r;

	if (pa_val(hint)) {
		if (rsdp_check(mem, pa_val(hint), false, false, &rsdt, &xsdt,
			       &warns))
			return hint;
		return INVALID_PADDR;
	}
	seg = acpi_map(mem, EBDA_SEG_PTR, 2);
	if (seg) {
		ebda = (uint64_t)acpi_get16(seg) << 4;
		/* The EBDA lives just below 640K when it exists at all. */
		if (ebda >= 0x80000 && ebda < 0xa0000) {
			r = rsdp_scan(mem, ebda, ebda + EBDA_SCAN_LEN, &warns);
			if (pa_val(r) != pa_val(INVALID_PADDR))
				return r;
		}
	}
	return rsdp_scan(mem, BIOS_ROM_START, BIOS_ROM_END, &warns);
}

/* Record every valid table the root table lists. */
static void walk_root(const struct acpi_mem *mem, const uint8_t *root,
		      unsigned int esize, struct acpi_info *info)
{
	uint32_t len = acpi_get32(root + 4);
	uint32_t i, count = (len - ACPI_HEADER_SIZE) / esize;
	char who[5];

	sig_str(who, root);
	for (i = 0; i < count; i++) {
		const uint8_t *e = root + ACPI_HEADER_SIZE + i * esize;
		uint64_t addr = esize == 8 ? acpi_get64(e) : acpi_get32(e);
		struct acpi_table_ref *ref;
		const uint8_t *t;

		if (!addr)
			continue;
		t = map_table(mem, addr, NULL, who, info);
		if (!t)
			continue;
		if (info->table_count == ACPI_MAX_TABLES) {
			acpi_warn(info,
				  "%s: more than %u tables, the rest "
				  "ignored",
				  who, ACPI_MAX_TABLES);
			return;
		}
		ref = &info->table[info->table_count++];
		memcpy(ref->sig, t, 4);
		ref->sig[4] = '\0';
		ref->addr = pa(addr);
		ref->length = acpi_get32(t + 4);
	}
}

/* First table with @sig (warning when listed twice), mapped, or NULL. */
static const uint8_t *find_table(const struct acpi_mem *mem, const char *sig,
				 size_t *len, struct acpi_info *info)
{
	const struct acpi_table_ref *found = NULL;
	unsigned int i;

	for (i = 0; i < info->table_count; i++) {
		const struct acpi_table_ref *r = &info->table[i];

		if (memcmp(r->sig, sig, 4))
			continue;
		if (!found) {
			found = r;
			continue;
		}
		acpi_warn(info,
			  "%s listed twice (%#llx and %#llx), using the "
			  "first",
			  sig, (unsigned long long)pa_val(found->addr),
			  (unsigned long long)pa_val(r->addr));
		break;
	}
	if (!found)
		return NULL;
	*len = found->length;
	return acpi_map(mem, pa_val(found->addr), found->length);
}

static void parse_dsdt(const struct acpi_mem *mem, struct acpi_info *info)
{
	const uint8_t *t;

	if (!pa_val(info->dsdt)) {
		if (!info->hw_reduced)
			acpi_warn(info, "FACP: no DSDT, S5 SLP_TYP 0");
		return;
	}
	t = map_table(mem, pa_val(info->dsdt), "DSDT", "FACP", info);
	if (!t)
		return;
	info->tables |= ACPI_T_DSDT;
	if (acpi_find_s5(t + ACPI_HEADER_SIZE,
			 acpi_get32(t + 4) - ACPI_HEADER_SIZE,
			 &info->s5_slp_typ) == 0) {
		info->s5_found = true;
		return;
	}
	if (!info->hw_reduced)
		acpi_warn(info, "DSDT at %#llx: no \\_S5 package, S5 SLP_TYP 0",
			  (unsigned long long)pa_val(info->dsdt));
}

static void parse_known(const struct acpi_mem *mem, uint64_t hwid_boot,
			struct acpi_info *info);

/**
 * acpi_parse() - walk the ACPI tables into @info (see include/keel/acpi.h).
 *
 * Return: 0, or -ENOENT without a valid RSDP and root table.
 */
int acpi_parse(const struct acpi_mem *mem, paddr_t rsdp, uint64_t hwid_boot,
	       struct acpi_info *info)
{
	const uint8_t *root = NULL;
	uint64_t rsdt, xsdt;
	const uint8_t *r;

	acpi_info_reset(info);
	if (pa_val(rsdp) == pa_val(INVALID_PADDR) ||
	    !rsdp_check(mem, pa_val(rsdp), false, true, &rsdt, &xsdt,
			&info->warnings))
		return -ENOENT;
	info->rsdp = rsdp;
	r = acpi_map(mem, pa_val(rsdp), ACPI_RSDP_V1_SIZE);
	if (r) {
		info->rsdp_revision = r[15];
		memcpy(info->oem_id, r + 9, 6);
	}

	if (xsdt) {
		root = map_table(mem, xsdt, "XSDT", "RSDP", info);
		if (root) {
			info->xsdt = pa(xsdt);
			info->tables |= ACPI_T_XSDT;
			walk_root(mem, root, 8, info);
		}
	}
	if (!root && rsdt) {
		root = map_table(mem, rsdt, "RSDT", "RSDP", info);
		if (root) {
			info->rsdt = pa(rsdt);
			info->tables |= ACPI_T_RSDT;
			walk_root(mem, root, 4, info);
		}
	}
	if (!root)
		return -ENOENT;
	parse_known(mem, hwid_boot, info);
	return 0;
}

/**
 * acpi_parse_tables() - parse the tables at @list (see include/keel/acpi.h).
 *
 * Return: 0, or -ENOENT when none of them is valid.
 */
int acpi_parse_tables(const struct acpi_mem *mem,
		      const struct acpi_table_ref *list, unsigned int count,
		      uint64_t hwid_boot, struct acpi_info *info)
{
	acpi_info_reset(info);
	for (unsigned int i = 0; i < count; i++) {
		const struct acpi_table_ref *r = &list[i];
		struct acpi_table_ref *ref;

		/* No standard header and checksum: nothing keel reads. */
		if (strlen(r->sig) != 4 || !strcmp(r->sig, "FACS"))
			continue;
		if (!map_table(mem, pa_val(r->addr), r->sig, "replay", info))
			continue;
		if (info->table_count == ACPI_MAX_TABLES) {
			acpi_warn(info,
				  "replay: more than %u tables, the "
				  "rest ignored",
				  ACPI_MAX_TABLES);
			break;
		}
		ref = &info->table[info->table_count++];
		*ref = *r;
	}
	if (!info->table_count)
		return -ENOENT;
	parse_known(mem, hwid_boot, info);
	return 0;
}

/* Every table keel reads, from info->table[], in dependency order. */
static void parse_known(const struct acpi_mem *mem, uint64_t hwid_boot,
			struct acpi_info *info)
{
	const uint8_t *t;
	size_t len;

	/*
	 * Order matters: SRAT resolves MADT CPUs; the SLIT comes first so
	 * that the SRAT can fold extra domains by its distances and then
	 * map its rows to nodes.
	 */
	t = find_table(mem, "APIC", &len, info);
	if (t)
		acpi_parse_madt(t, len, hwid_boot, info);
	t = find_table(mem, "SLIT", &len, info);
	if (t)
		acpi_parse_slit(t, len, info);
	t = find_table(mem, "SRAT", &len, info);
	if (t)
		acpi_parse_srat(t, len, info);
	info->slit = NULL; /* the matrix is only valid while parsing */
	t = find_table(mem, "FACP", &len, info);
	if (t && acpi_parse_fadt(t, len, info) == 0) {
		/* Only a dump lists the DSDT: its address is the one to use. */
		for (unsigned int i = 0; i < info->table_count; i++)
			if (!memcmp(info->table[i].sig, "DSDT", 4))
				info->dsdt = info->table[i].addr;
		parse_dsdt(mem, info);
	}
	t = find_table(mem, "HPET", &len, info);
	if (t)
		acpi_parse_hpet(t, len, info);
	t = find_table(mem, "SPCR", &len, info);
	if (t)
		acpi_parse_spcr(t, len, info);
}

/* ---- fault injection ---------------------------------------------------- */

#define CORRUPT_COPY_MAX 8192 /* QEMU's SRAT and SLIT are far smaller */

struct corrupt_copy {
	uint64_t pa;  /* table address, 0: not copied yet */
	uint32_t len; /* bytes copied */
	uint8_t buf[CORRUPT_COPY_MAX];
};

static struct {
	struct acpi_mem inner;
	unsigned int which;
	unsigned int done; /* ACPI_CORRUPT_* bits acted on */
	struct corrupt_copy srat, slit;
} corrupt;

/*
 * The corrupted view of the table at @p (header @h already mapped), or @h
 * itself for a header-only request, so that the length the parser reads
 * stays right.
 */
static const void *corrupt_copy(struct corrupt_copy *c, unsigned int bit,
				uint64_t p, size_t len, const uint8_t *h)
{
	if (len <= ACPI_HEADER_SIZE)
		return h;
	corrupt.done |= bit;
	if (len > CORRUPT_COPY_MAX) {
		/* Unmapped: the parser ignores the table too. */
		pr_warn("acpi: inject: %.4s at %#llx is %zu bytes, more than "
			"the %u-byte copy: hidden from the parser\n",
			(const char *)h, (unsigned long long)p, len,
			CORRUPT_COPY_MAX);
		return NULL;
	}
	if (c->pa != p || c->len < len) {
		memcpy(c->buf, h, len);
		c->buf[ACPI_HEADER_SIZE] ^= 0x5a;
		c->pa = p;
		c->len = (uint32_t)len;
		pr_warn("acpi: inject: %.4s at %#llx corrupted (byte %u "
			"flipped) before parsing\n",
			(const char *)h, (unsigned long long)p,
			ACPI_HEADER_SIZE);
	}
	return c->buf;
}

static const void *corrupt_map(uint64_t p, size_t len, void *ctx)
{
	const uint8_t *h = corrupt.inner.map(p, len, corrupt.inner.ctx);

	(void)ctx;
	if (!h || len < 4)
		return h;
	if ((corrupt.which & ACPI_CORRUPT_SRAT) && !memcmp(h, "SRAT", 4))
		return corrupt_copy(&corrupt.srat, ACPI_CORRUPT_SRAT, p, len,
				    h);
	if ((corrupt.which & ACPI_CORRUPT_SLIT) && !memcmp(h, "SLIT", 4))
		return corrupt_copy(&corrupt.slit, ACPI_CORRUPT_SLIT, p, len,
				    h);
	return h;
}

/**
 * acpi_mem_corrupting() - an accessor that corrupts the tables in @which.
 * @inner: the real accessor
 * @which: ACPI_CORRUPT_* bits; 0 returns @inner unchanged
 *
 * Return: the accessor to pass to acpi_find_rsdp() / acpi_parse().
 */
struct acpi_mem acpi_mem_corrupting(const struct acpi_mem *inner,
				    unsigned int which)
{
	if (!which)
		return *inner;
	memset(&corrupt, 0, sizeof(corrupt));
	corrupt.inner = *inner;
	corrupt.which = which;
	return (struct acpi_mem){corrupt_map, NULL};
}

/**
 * acpi_mem_corrupted() - the tables the last acpi_mem_corrupting()
 * accessor was asked to corrupt and met (copied, or hidden when too big).
 * Return: ACPI_CORRUPT_* bits.
 */
unsigned int acpi_mem_corrupted(void)
{
	return corrupt.done;
}
