/* SPDX-License-Identifier: MIT */
/*
 * A live update's firmware description, condensed by the old image for
 * the new one (docs/liveupdate.md, "Bad memory"): the text less its `bad`
 * lines, each left as an empty line so that every other line keeps its
 * number in the new image's warnings, in a memory file named to the new
 * image by KEEL_FIRMWARE_FD. The handover carries those pages (an image
 * handed no firmware record writes the firmware's ranges into it,
 * common/liveupdate/lu_bad.c, every later one the record it was handed),
 * so the new image need not read them again in its downtime: 100,000
 * lines are 3 MB to map and scan, about twice the whole downtime of an
 * update with none. This is what a kexec loader does with the firmware's
 * map: the old kernel passes the new one a map it made.
 *
 * Not condensed (the new image reads FILE itself, and finds the same
 * pages carried as well): KEEL_SANDBOX_CANARY=1, whose fill wants the
 * parser's own ranges of every line; handover=discard, where the new
 * image drops the handover and with it the carried pages; no `bad` line;
 * a host error (and a new image that cannot map the memory file reads
 * FILE). A refused handover reserves all RAM (boot/handover.c): nothing
 * is handed out either way.
 *
 * Runs in arch_lu_prepare(), before the freeze, the guests running: the
 * condensing's scan is not in the downtime.
 */
#include <asm/os.h>
#include <asm/sandbox.h>
#include <keel/compiler.h>
#include <keel/string.h>

#include "sandbox_priv.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Is [s, s + len) a `bad` line (its first word "bad")? */
static bool bad_line(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_blank(s[i]))
		i++;
	return len - i >= 3 && s[i] == 'b' && s[i + 1] == 'a' &&
	       s[i + 2] == 'd' &&
	       (len - i == 3 || is_blank(s[i + 3]) || s[i + 3] == '#');
}

/**
 * sandbox_fw_condense() - the text [@buf, @buf + @len) less its `bad`
 * lines into @out (room for @len bytes). Return: bytes written.
 */
size_t sandbox_fw_condense(const char *buf, size_t len, char *out)
{
	size_t pos = 0, put = 0, dropped = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		size_t n = end - pos + (nl != NULL);

		if (bad_line(buf + pos, end - pos)) {
			dropped++;
			if (nl)
				out[put++] = '\n';
		} else {
			memcpy(out + put, buf + pos, n);
			put += n;
		}
		pos = end + 1;
	}
	return dropped ? put : len;
}

#define FW_FD_ENV "KEEL_FIRMWARE_FD"

/** sandbox_fw_fd_pass() - @fd to the next image (-1: none). */
void sandbox_fw_fd_pass(int fd)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", fd);
	os_setenv(FW_FD_ENV, fd >= 0 ? v : NULL);
}

/**
 * sandbox_fw_fd_taken() - the condensed description's descriptor a live
 * update's old image passed (@handover: this image is one's new image;
 * else nothing is taken), the variable cleared so that no later exec()
 * sees it. Return: the descriptor, or -1 (read FILE).
 */
int sandbox_fw_fd_taken(bool handover)
{
	const char *v = os_getenv(FW_FD_ENV);
	unsigned long n = 0;
	const char *c = v;

	if (!v)
		return -1;
	for (; *c >= '0' && *c <= '9' && n <= 1u << 20; c++)
		n = n * 10 + (unsigned long)(*c - '0');
	os_setenv(FW_FD_ENV, NULL);
	if (!handover || c == v || *c || n > 1u << 20)
		return -1;
	return (int)n;
}

/**
 * sandbox_fw_condensed_fd() - the description at @path condensed into a
 * memory file that the exec() passes on. Return: its descriptor, or -1
 * (nothing to drop, or a host error: the new image reads @path itself).
 */
int sandbox_fw_condensed_fd(const char *path)
{
	size_t len = 0, put;
	char *buf = sandbox_map_file(path, &len), *out;
	int fd = -1;

	if (!buf)
		return -1;
	out = len ? os_malloc(len) : NULL;
	if (out) {
		put = sandbox_fw_condense(buf, len, out);
		if (put < len)
			fd = sandbox_memfd_text("keel-fwdesc", out, put);
		os_free(out);
	}
	sandbox_unmap_file(buf, len);
	return fd;
}
