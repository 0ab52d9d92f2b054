/* SPDX-License-Identifier: MIT */
/*
 * Owner: boot.
 * The sandbox firmware description (DESIGN §3), a text format:
 *   ram       START END node=N
 *   reserved  START END [name]
 *   cpu       HWID node=N package=P core=C thread=T
 *   distance  A B VALUE
 *   acpidump  FILE		(a machine's ACPI tables: firmware replay)
 *   dtb       FILE		(a flattened device tree: firmware replay)
 *   mce       START END	(pages machine checks took before this boot:
 *				 @files->on_mce, the sandbox offlines them)
 * '#' starts a comment; numbers decimal or 0x-hex with optional K/M/G/T.
 * A pure parser over a buffer: it never reads outside [buf, buf+len), and
 * every byte up to len counts: a NUL or other control byte is part of its
 * line (read past in a comment, else an error naming the line; a reserved
 * name that is not text keeps its range as "firmware").
 */
#ifndef KEEL_FWDESC_H
#define KEEL_FWDESC_H

#include <keel/bootinfo.h>

/*
 * fwdesc_parse(): append what @buf describes to @bi (already
 * bootinfo_init()ed). Bad lines are skipped with one warning naming the
 * line number and the field. A `distance A B V` given one way only is
 * applied both ways; both ways given may differ (asymmetric, kept). Node
 * ids go through include/keel/nodemap.h: more than MAX_NUMNODES fold into
 * their nearest kept node (one warning, bi->dropped_nodes).
 * Return: number of warnings.
 */
unsigned int fwdesc_parse(struct bootinfo *bi, const char *buf, size_t len);

/*
 * Called for each `ram` line the parser accepts and each `reserved` line
 * whose range parses, with the range as written ([start, end), not
 * trimmed), before the bootinfo takes it: a range a full table drops is
 * still seen. The sandbox's canary reads the description through it, so
 * that it sees exactly what the parser sees.
 */
typedef void fwdesc_range_fn(void *arg, bool ram, uint64_t start, uint64_t end);

/* The files a description names, for its loader to read (paths as given). */
#define FWDESC_PATH_MAX 224
struct fwdesc_files {
	char acpidump[FWDESC_PATH_MAX]; /* "" when none */
	char dtb[FWDESC_PATH_MAX];
	fwdesc_range_fn *on_range; /* optional observer, set by the caller */
	void *on_range_arg;
	/*
	 * `mce START END` lines (the host's runtime history, ram false),
	 * set by a loader that offlines them; NULL: such lines are warned
	 * and skipped.
	 */
	fwdesc_range_fn *on_mce;
	void *on_mce_arg;
	/*
	 * Set by the caller: every `mce` line is only counted in
	 * @mce_skipped, not read (a boot whose history came otherwise).
	 */
	bool mce_skip;
	unsigned int mce_skipped;
};

/*
 * fwdesc_parse_files(): fwdesc_parse() that also accepts `acpidump FILE`
 * and `dtb FILE` (one of each at most, later ones warned and skipped) and
 * returns their paths in @files; @files->on_range, when set, sees the
 * ranges (the caller sets it, the parse keeps it). fwdesc_parse() warns about such lines.
 * Return: number of warnings.
 */
unsigned int fwdesc_parse_files(struct bootinfo *bi, const char *buf,
				size_t len, struct fwdesc_files *files);

#endif
