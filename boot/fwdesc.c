/* SPDX-License-Identifier: MIT */
/*
 * The sandbox firmware description (DESIGN §3): a line-based text file
 * that plays the part of e820/SRAT/MADT/SLIT for arch/sandbox.
 *
 *   ram       START END [node=N]
 *   reserved  START END [name]
 *   bad       START END              (RAM of a ram line that failed)
 *   mce       START END              (the host's runtime history: pages
 *                                     machine checks took out before
 *                                     this boot; sandbox loader only)
 *   cpu       HWID [node=N] [package=P] [core=C] [thread=T]
 *   distance  A B VALUE
 *   acpidump  FILE
 *   dtb       FILE
 *
 * acpidump and dtb name files for the loader (arch/sandbox/replay.c) to read
 * and replay (boot/acpi/acpi_replay.c, boot/fdt/fdt.c); this parser only records
 * the paths.
 *
 * Invariants: reads only [buf, buf+len); a NUL or other control byte is
 * part of the line it is on (an error naming that line, or read past in a
 * comment), never the end of the text; every bad line is skipped with exactly one warning naming the line
 * number and the field; good lines are appended to the bootinfo in file
 * order, ordering and overlaps are bootinfo_sanitise()'s business. The
 * first cpu line is the boot CPU. A missing node= is NUMA_NO_NODE, which
 * sanitise maps to node 0 with a warning.
 *
 * node= and distance ids are firmware ids: once the whole text is read
 * they go through a node map (include/keel/nodemap.h), as ACPI proximity
 * domains and DT numa-node-ids do, so more than MAX_NUMNODES nodes fold
 * into their nearest kept node with one warning. Distances follow
 * include/keel/bootinfo.h ("Node distances"): asymmetric and 255 are
 * kept, a line with a value ACPI forbids is skipped; a distance naming a
 * node that has neither RAM nor CPU is ignored with one warning for all
 * such lines. No lock, no allocation: the node map and the distance lines
 * wait in static tables (one parse at a time, on the boot CPU).
 */
#include <keel/badmem.h>
#include <keel/compiler.h>
#include <keel/errno.h>
#include <keel/escape.h>
#include <keel/fwdesc.h>
#include <keel/nodemap.h>
#include <keel/printk.h>
#include <keel/string.h>

#define FWDESC_LINE_MAX 256
#define FWDESC_TOKENS	8
/*
 * Distance lines kept for the node map: a full matrix of 128 firmware
 * nodes (twice the default MAX_NUMNODES, so folding has rows to go by).
 * 256 KiB of .bss, in the sandbox only (the hardware arches leave this
 * file out). Lines past it are skipped with one warning each.
 */
#define FWDESC_MAX_DISTANCES (128 * 128)
/* Bytes of a token a warning shows (the rest is "..."). */
#define ECHO_MAX 32

struct token {
	const char *s;
	size_t len;
};

/* One `distance A B V` line, in firmware ids, until the ids are mapped. */
struct fw_distance {
	uint32_t a, b;
	uint8_t v;
	unsigned int lineno;
};

struct line_ctx {
	struct bootinfo *bi;
	unsigned int lineno;
	unsigned int warnings;
	struct nodemap *nodes;
	struct fw_distance *dist;
	unsigned int dist_count;
	/* given[a] bit b: "distance a b" appeared explicitly (keel ids). */
	uint64_t given[MAX_NUMNODES];
	struct fwdesc_files *files; /* NULL: acpidump/dtb not accepted */
};

#define line_warn(ctx, fmt, ...)                                     \
	do {                                                         \
		(ctx)->warnings++;                                   \
		pr_warn("fwdesc: line %u: " fmt "\n", (ctx)->lineno, \
			##__VA_ARGS__);                              \
	} while (0)

/* ' ', \t, \r, \v, \f: one shift and a mask, no chain of branches. */
#define BLANKS                                                              \
	((1ULL << ' ') | (1ULL << '\t') | (1ULL << '\r') | (1ULL << '\v') | \
	 (1ULL << '\f'))

static bool is_blank(char c)
{
	unsigned char u = (unsigned char)c;

	return u <= ' ' && ((BLANKS >> u) & 1);
}

/* Split [s, s+len) at blanks. Return: tokens found, or -1 if too many. */
static int tokenize(const char *s, size_t len, struct token *tok)
{
	size_t i = 0;
	int n = 0;

	while (i < len) {
		size_t start;

		while (i < len && is_blank(s[i]))
			i++;
		if (i >= len)
			break;
		if (n == FWDESC_TOKENS)
			return -1;
		start = i;
		while (i < len && !is_blank(s[i]))
			i++;
		tok[n].s = s + start;
		tok[n].len = i - start;
		n++;
	}
	return n;
}

/* No control byte (NUL included) in @t: a name may be printed as is. */
static bool is_text(const struct token *t)
{
	for (size_t i = 0; i < t->len; i++) {
		unsigned char c = (unsigned char)t->s[i];

		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

static bool tok_eq(const struct token *t, const char *word)
{
	return t->len == strlen(word) && !memcmp(t->s, word, t->len);
}

/* A token as a warning shows it; see tok_echo(). */
struct echo {
	char s[ECHO_MAX * 4 + sizeof("...")];
};

/*
 * @t made safe to print (escape_bytes(): \\, \xNN), at most ECHO_MAX
 * bytes of it then "...". A binary file's bytes would otherwise reach the
 * console raw.
 * Return: @e->s.
 */
static const char *tok_echo(struct echo *e, const struct token *t)
{
	size_t n = MIN(t->len, (size_t)ECHO_MAX);

	escape_bytes(e->s, sizeof(e->s), t->s, n);
	if (n < t->len)
		strlcpy(e->s + strlen(e->s), "...", 4);
	return e->s;
}

/* A number (decimal, 0x-hex, optional K/M/G/T); warns on failure. */
static bool tok_number(struct line_ctx *ctx, const struct token *t,
		       const char *field, uint64_t *out)
{
	int ret = parse_size(t->s, t->len, out);
	struct echo e;

	if (ret)
		line_warn(ctx, "bad %s \"%s\"%s, line skipped", field,
			  tok_echo(&e, t),
			  ret == -ERANGE ? " (too large)" : "");
	return !ret;
}

static bool tok_u32(struct line_ctx *ctx, const struct token *t,
		    const char *field, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (!tok_number(ctx, t, field, &v))
		return false;
	if (v > max) {
		line_warn(ctx, "%s %llu out of range (max %u), line skipped",
			  field, (unsigned long long)v, max);
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

/*
 * key=value attributes after the positional fields; @names lists the keys
 * allowed, @vals receives them (untouched when absent).
 */
static bool parse_attrs(struct line_ctx *ctx, const struct token *tok, int n,
			const char *const *names, uint32_t *vals,
			unsigned int count)
{
	for (int i = 0; i < n; i++) {
		const char *eq = memchr(tok[i].s, '=', tok[i].len);
		struct token key, val;
		struct echo e;
		unsigned int k;

		if (!eq) {
			line_warn(ctx, "unexpected \"%s\", line skipped",
				  tok_echo(&e, &tok[i]));
			return false;
		}
		key.s = tok[i].s;
		key.len = (size_t)(eq - tok[i].s);
		val.s = eq + 1;
		val.len = tok[i].len - key.len - 1;
		for (k = 0; k < count; k++)
			if (tok_eq(&key, names[k]))
				break;
		if (k == count) {
			line_warn(ctx, "unknown attribute \"%s\", line skipped",
				  tok_echo(&e, &key));
			return false;
		}
		/* node ids are capped by sanitise; keep them in 16 bits. */
		if (!tok_u32(ctx, &val, names[k], k == 0 ? 0xfffe : 0xffffffffu,
			     &vals[k]))
			return false;
	}
	return true;
}

/*
 * START END of a ram or reserved line. An empty or inverted range is a
 * range the firmware gave and we drop: counted in @dropped (the report's
 * dropped_ram / dropped_reserved) like bootinfo_add_ram() counts its own.
 */
static bool parse_range(struct line_ctx *ctx, const struct token *tok,
			uint64_t *s, uint64_t *e, unsigned int *dropped)
{
	if (!tok_number(ctx, &tok[0], "START", s) ||
	    !tok_number(ctx, &tok[1], "END", e))
		return false;
	if (*e <= *s) {
		line_warn(ctx, "END %#llx <= START %#llx, range dropped",
			  (unsigned long long)*e, (unsigned long long)*s);
		ctx->bi->fixups++;
		(*dropped)++;
		return false;
	}
	return true;
}

static void do_ram(struct line_ctx *ctx, const struct token *tok, int n)
{
	static const char *const names[] = {"node"};
	uint32_t node = NUMA_NO_NODE;
	uint64_t s, e;

	if (n < 3) {
		line_warn(ctx, "ram needs START END, line skipped");
		return;
	}
	if (!parse_range(ctx, &tok[1], &s, &e, &ctx->bi->dropped_ram) ||
	    !parse_attrs(ctx, &tok[3], n - 3, names, &node, 1))
		return;
	if (ctx->files && ctx->files->on_range)
		ctx->files->on_range(ctx->files->on_range_arg, true, s, e);
	if (bootinfo_add_ram(ctx->bi, pa(s), pa(e), node))
		ctx->warnings++;
	else if (node != NUMA_NO_NODE)
		nodemap_add(ctx->nodes, node);
}

static void do_reserved(struct line_ctx *ctx, const struct token *tok, int n)
{
	char name[BOOTINFO_NAME_MAX];
	uint64_t s, e;

	if (n < 3 || n > 4) {
		line_warn(ctx, "reserved needs START END [name], line skipped");
		return;
	}
	if (!parse_range(ctx, &tok[1], &s, &e, &ctx->bi->dropped_reserved))
		return;
	if (ctx->files && ctx->files->on_range)
		ctx->files->on_range(ctx->files->on_range_arg, false, s, e);
	name[0] = '\0';
	if (n == 4 && !is_text(&tok[3])) {
		struct echo ec;

		/* The range still protects its memory: only the name goes. */
		line_warn(ctx,
			  "name \"%s\" is not text, reserved as "
			  "\"firmware\"",
			  tok_echo(&ec, &tok[3]));
	} else if (n == 4) {
		size_t l = MIN(tok[3].len, sizeof(name) - 1);

		memcpy(name, tok[3].s, l);
		name[l] = '\0';
	}
	if (bootinfo_add_reserved(ctx->bi, pa(s), pa(e),
				  name[0] ? name : "firmware"))
		ctx->warnings++;
}

/*
 * bad START END: RAM the firmware knows failed (e820 type 5's part; the
 * RAM itself is in a ram line). A "bad firmware" reservation: counted and
 * reported as bad memory, never handed to the heap.
 */
static void do_bad(struct line_ctx *ctx, const struct token *tok, int n)
{
	uint64_t s, e;

	if (n != 3) {
		line_warn(ctx, "bad needs START END, line skipped");
		return;
	}
	if (!parse_range(ctx, &tok[1], &s, &e, &ctx->bi->dropped_reserved))
		return;
	/* The sandbox's canary watches it as it watches reserved pages. */
	if (ctx->files && ctx->files->on_range)
		ctx->files->on_range(ctx->files->on_range_arg, false, s, e);
	if (bootinfo_add_bad(ctx->bi, pa(s), pa(e), BADMEM_FIRMWARE, false,
			     NUMA_NO_NODE))
		ctx->warnings++;
}

/*
 * mce START END: pages this host's machine checks took out of service at
 * runtime before this boot (a test's history, docs/liveupdate.md). Not
 * firmware knowledge: handed to the loader (@files->on_mce), which
 * offlines them once the heap is open as machine checks would.
 */
static void do_mce(struct line_ctx *ctx, const struct token *tok, int n)
{
	uint64_t s, e;
	unsigned int dropped = 0;

	if (ctx->files && ctx->files->mce_skip) {
		ctx->files->mce_skipped++;
		return;
	}
	if (n != 3) {
		line_warn(ctx, "mce needs START END, line skipped");
		return;
	}
	if (!ctx->files || !ctx->files->on_mce) {
		line_warn(ctx, "mce: no runtime history here, line skipped");
		return;
	}
	if (!parse_range(ctx, &tok[1], &s, &e, &dropped))
		return;
	ctx->files->on_mce(ctx->files->on_mce_arg, false, s, e);
}

static void do_cpu(struct line_ctx *ctx, const struct token *tok, int n)
{
	static const char *const names[] = {"node", "package", "core",
					    "thread"};
	struct bootinfo *bi = ctx->bi;
	uint32_t vals[4] = {NUMA_NO_NODE, 0, bi->cpu_count, 0};
	uint64_t hwid;

	if (n < 2) {
		line_warn(ctx, "cpu needs HWID, line skipped");
		return;
	}
	if (!tok_number(ctx, &tok[1], "HWID", &hwid) ||
	    !parse_attrs(ctx, &tok[2], n - 2, names, vals, 4))
		return;
	if (bootinfo_add_cpu(bi, hwid, vals[0], vals[1], vals[2], vals[3],
			     true)) {
		ctx->warnings++;
		return;
	}
	if (vals[0] != NUMA_NO_NODE)
		nodemap_add(ctx->nodes, vals[0]);
	/* The sandbox boots on the first CPU it lists. */
	if (bi->cpu_count == 1)
		bi->cpus[0].boot_cpu = true;
}

static void do_distance(struct line_ctx *ctx, const struct token *tok, int n)
{
	struct fw_distance *d;
	uint32_t a, b, v;
	const char *why;

	if (n != 4) {
		line_warn(ctx, "distance needs A B VALUE, line skipped");
		return;
	}
	if (!tok_u32(ctx, &tok[1], "node A", 0xfffe, &a) ||
	    !tok_u32(ctx, &tok[2], "node B", 0xfffe, &b) ||
	    !tok_u32(ctx, &tok[3], "VALUE", 255, &v))
		return;
	why = bootinfo_distance_problem(a, b, v);
	if (why) {
		line_warn(ctx, "distance %u %u %u: %s, line skipped", a, b, v,
			  why);
		return;
	}
	if (ctx->dist_count == FWDESC_MAX_DISTANCES) {
		line_warn(ctx, "more than %u distance lines, line skipped",
			  FWDESC_MAX_DISTANCES);
		return;
	}
	d = &ctx->dist[ctx->dist_count++];
	d->a = a;
	d->b = b;
	d->v = (uint8_t)v;
	d->lineno = ctx->lineno;
}

/* Firmware distance @fa -> @fb: the last line for it, else the reverse. */
static unsigned int fw_distance(const void *p, uint32_t fa, uint32_t fb)
{
	const struct line_ctx *ctx = p;
	unsigned int d = 0, rev = 0;

	for (unsigned int i = 0; i < ctx->dist_count; i++) {
		const struct fw_distance *e = &ctx->dist[i];

		if (e->a == fa && e->b == fb)
			d = e->v;
		else if (e->a == fb && e->b == fa)
			rev = e->v;
	}
	return d ? d : rev;
}

/*
 * After the last line: keel node ids for what this parse added (from @ram0
 * / @cpu0 on), then the distances between kept nodes, in line order. One
 * direction holds both ways until the other direction comes.
 */
static void map_nodes(struct line_ctx *ctx, unsigned int ram0,
		      unsigned int cpu0)
{
	struct bootinfo *bi = ctx->bi;
	const struct fw_distance *unknown = NULL;
	unsigned int folded, unknown_count = 0;

	folded = nodemap_finalise(ctx->nodes, fw_distance, ctx);
	if (folded) {
		ctx->warnings++;
		bi->dropped_nodes += folded;
	}
	nodemap_export_fw_ids(ctx->nodes, bi);
	for (unsigned int i = ram0; i < bi->ram.count; i++)
		if (bi->ram.regions[i].node != NUMA_NO_NODE)
			bi->ram.regions[i].node = nodemap_node(
				ctx->nodes, bi->ram.regions[i].node);
	for (unsigned int i = cpu0; i < bi->cpu_count; i++)
		if (bi->cpus[i].node != NUMA_NO_NODE)
			bi->cpus[i].node =
				nodemap_node(ctx->nodes, bi->cpus[i].node);
	for (unsigned int i = 0; i < ctx->dist_count; i++) {
		const struct fw_distance *e = &ctx->dist[i];
		uint32_t a, b;

		if (!nodemap_has(ctx->nodes, e->a) ||
		    !nodemap_has(ctx->nodes, e->b)) {
			if (!unknown_count++)
				unknown = e;
			continue;
		}
		/* A folded node's distances go: its kept node's stand. */
		if (!nodemap_kept(ctx->nodes, e->a) ||
		    !nodemap_kept(ctx->nodes, e->b))
			continue;
		a = nodemap_node(ctx->nodes, e->a);
		b = nodemap_node(ctx->nodes, e->b);
		bootinfo_set_distance(bi, a, b, e->v);
		ctx->given[a] |= 1ULL << b;
		if (!(ctx->given[b] & (1ULL << a)))
			bootinfo_set_distance(bi, b, a, e->v);
	}
	if (unknown_count) {
		ctx->warnings++;
		pr_warn("fwdesc: line %u: distance %u %u %u: node %u has "
			"neither RAM nor CPU, ignored (%u such line%s)\n",
			unknown->lineno, unknown->a, unknown->b, unknown->v,
			nodemap_has(ctx->nodes, unknown->a) ? unknown->b
							    : unknown->a,
			unknown_count, unknown_count == 1 ? "" : "s");
	}
}

/* acpidump FILE / dtb FILE: record the path for the loader. */
static void do_file(struct line_ctx *ctx, const struct token *tok, int n)
{
	char *path;
	struct echo e;

	if (n != 2) {
		line_warn(ctx, "%s needs FILE, line skipped",
			  tok_echo(&e, &tok[0]));
		return;
	}
	if (!ctx->files) {
		line_warn(ctx, "%s: no firmware replay here, line skipped",
			  tok_echo(&e, &tok[0]));
		return;
	}
	path = tok_eq(&tok[0], "dtb") ? ctx->files->dtb : ctx->files->acpidump;
	if (path[0]) {
		line_warn(ctx, "a second %s line, line skipped",
			  tok_echo(&e, &tok[0]));
		return;
	}
	if (tok[1].len >= FWDESC_PATH_MAX) {
		line_warn(ctx, "FILE longer than %d bytes, line skipped",
			  FWDESC_PATH_MAX - 1);
		return;
	}
	memcpy(path, tok[1].s, tok[1].len);
	path[tok[1].len] = '\0';
}

/*
 * A 0x-hex number of at most 16 digits at s[*i], ended by a blank or the
 * end of the line: its value, *@i past it. Return: false (nothing said)
 * for anything else: the general path parses it, and says why. Digits by
 * table (hex_digit()): a branch on digit or letter mispredicts on every
 * other digit of a random address, 40% of this parse's time. Two digits a
 * step: one shift and or of the value per pair, not per digit, the chain
 * every digit waited on (a dozen digits a number, 200,000 numbers).
 */
static bool fast_hex(const char *s, size_t len, size_t *i, uint64_t *out)
{
	size_t at = *i, first;
	uint64_t v = 0;
	int d;

	if (len - at < 3 || s[at] != '0' || s[at + 1] != 'x')
		return false;
	for (at += 2, first = at; at + 1 < len; at += 2) {
		int d0 = hex_digit(s[at]), d1 = hex_digit(s[at + 1]);

		if ((d0 | d1) < 0)
			break;
		v = v << 8 | (unsigned int)(d0 << 4 | d1);
	}
	if (at < len && (d = hex_digit(s[at])) >= 0) {
		v = v << 4 | (unsigned int)d;
		at++;
	}
	if (at == first || at - first > 16 || (at < len && !is_blank(s[at])))
		return false;
	*out = v;
	*i = at;
	return true;
}

static size_t skip_blanks(const char *s, size_t len, size_t i)
{
	while (i < len && is_blank(s[i]))
		i++;
	return i;
}

/*
 * The lines a machine has by the 100,000 (a live update's downtime reads
 * them: docs/liveupdate.md), `bad 0xSTART 0xEND` and `mce 0xSTART 0xEND`
 * exactly as scripts write them, taken in one pass with no tokens: the
 * same calls as do_bad() and do_mce() make for a good line. Return:
 * false for any other line (another keyword, another spelling, a comment,
 * END <= START, no taker for mce), which parse_line() then reads in full.
 */
static bool fast_line(struct line_ctx *ctx, const char *s, size_t len)
{
	bool mce = len > 4 && s[0] == 'm' && s[1] == 'c' && s[2] == 'e';
	size_t i = 3;
	uint64_t a, b;

	if (len < 4 || !is_blank(s[3]) ||
	    !(mce || (s[0] == 'b' && s[1] == 'a' && s[2] == 'd')))
		return false;
	if (mce && ctx->files && ctx->files->mce_skip) {
		ctx->files->mce_skipped++; /* not read: do_mce() would not */
		return true;
	}
	if (mce && (!ctx->files || !ctx->files->on_mce))
		return false;
	i = skip_blanks(s, len, i);
	if (!fast_hex(s, len, &i, &a))
		return false;
	i = skip_blanks(s, len, i);
	if (!fast_hex(s, len, &i, &b) || skip_blanks(s, len, i) != len ||
	    b <= a)
		return false;
	if (mce) {
		ctx->files->on_mce(ctx->files->on_mce_arg, false, a, b);
		return true;
	}
	if (ctx->files && ctx->files->on_range)
		ctx->files->on_range(ctx->files->on_range_arg, false, a, b);
	if (bootinfo_add_bad(ctx->bi, pa(a), pa(b), BADMEM_FIRMWARE, false,
			     NUMA_NO_NODE))
		ctx->warnings++;
	return true;
}

static void parse_line(struct line_ctx *ctx, const char *s, size_t len)
{
	struct token tok[FWDESC_TOKENS];
	const char *hash;
	struct echo e;
	int n;

	if (fast_line(ctx, s, len))
		return;
	hash = memchr(s, '#', len);
	if (hash)
		len = (size_t)(hash - s);
	n = tokenize(s, len, tok);
	if (n < 0) {
		line_warn(ctx, "more than %d fields, line skipped",
			  FWDESC_TOKENS);
		return;
	}
	if (n == 0)
		return;
	if (tok_eq(&tok[0], "ram"))
		do_ram(ctx, tok, n);
	else if (tok_eq(&tok[0], "reserved"))
		do_reserved(ctx, tok, n);
	else if (tok_eq(&tok[0], "bad"))
		do_bad(ctx, tok, n);
	else if (tok_eq(&tok[0], "cpu"))
		do_cpu(ctx, tok, n);
	else if (tok_eq(&tok[0], "mce"))
		do_mce(ctx, tok, n);
	else if (tok_eq(&tok[0], "distance"))
		do_distance(ctx, tok, n);
	else if (tok_eq(&tok[0], "acpidump") || tok_eq(&tok[0], "dtb"))
		do_file(ctx, tok, n);
	else
		line_warn(ctx, "unknown keyword \"%s\", line skipped",
			  tok_echo(&e, &tok[0]));
}

/*
 * Past the run of newlines at @buf[@pos], @lineno counted on by each.
 * Return: the first byte after it, or @len.
 */
static size_t skip_empty(const char *buf, size_t pos, size_t len,
			 unsigned int *lineno)
{
	const uint64_t nl8 = 0x0a0a0a0a0a0a0a0aULL;
	uint64_t w;

	for (; len - pos >= sizeof(w); pos += sizeof(w), *lineno += 8) {
		memcpy(&w, buf + pos, sizeof(w));
		if (w != nl8)
			break;
	}
	for (; pos < len && buf[pos] == '\n'; pos++)
		(*lineno)++;
	return pos;
}

/**
 * fwdesc_parse() - append the description in [buf, buf+len) to @bi.
 * Return: number of warnings printed (bad lines, full tables).
 */
unsigned int fwdesc_parse(struct bootinfo *bi, const char *buf, size_t len)
{
	return fwdesc_parse_files(bi, buf, len, NULL);
}

/**
 * fwdesc_parse_files() - fwdesc_parse(), acpidump/dtb paths into @files.
 * Return: number of warnings printed.
 */
unsigned int fwdesc_parse_files(struct bootinfo *bi, const char *buf,
				size_t len, struct fwdesc_files *files)
{
	static struct nodemap nodes;
	static struct fw_distance dist[FWDESC_MAX_DISTANCES];
	unsigned int ram0 = bi->ram.count, cpu0 = bi->cpu_count;
	struct line_ctx ctx;
	size_t pos = 0;

	memset(&ctx, 0, sizeof(ctx));
	ctx.bi = bi;
	ctx.nodes = &nodes;
	ctx.dist = dist;
	ctx.files = files;
	if (files) {
		files->acpidump[0] = '\0';
		files->dtb[0] = '\0';
	}
	nodemap_init(&nodes, "fwdesc");
	if (!buf)
		return 0;
	/* Every byte up to @len counts: a NUL is not the end of the text. */
	while (pos < len) {
		const char *nl;
		size_t end;

		/*
		 * Empty lines, 8 a step: a live update's condensed text has
		 * one for each of 100,000 bad lines (arch/sandbox/
		 * fw_condense.c), not a parse_line() each.
		 */
		if (buf[pos] == '\n') {
			pos = skip_empty(buf, pos, len, &ctx.lineno);
			continue;
		}
		nl = memchr(buf + pos, '\n', len - pos);
		end = nl ? (size_t)(nl - buf) : len;

		ctx.lineno++;
		if (end - pos > FWDESC_LINE_MAX)
			line_warn(&ctx, "longer than %d bytes, line skipped",
				  FWDESC_LINE_MAX);
		else
			parse_line(&ctx, buf + pos, end - pos);
		pos = end + 1;
	}
	map_nodes(&ctx, ram0, cpu0);
	return ctx.warnings;
}
