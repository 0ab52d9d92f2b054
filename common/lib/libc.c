/* SPDX-License-Identifier: MIT */
/*
 * The freestanding C library subset keel carries: the functions with libc
 * names from <keel/string.h>. Compilers emit calls to memset/memcpy on their
 * own, and libfdt links against the str* functions, so the names are the
 * standard ones.
 *
 * The sandbox build leaves this file out (glibc provides the same names);
 * tests/unit/libc_test.c compiles it in under renamed symbols.
 *
 * Invariants: nothing here allocates, locks or calls other keel code, so it
 * is safe from the first line of C and from panic(). Loops that the
 * compiler could turn back into a call to the function being defined carry
 * an empty asm barrier.
 */
#include <keel/compiler.h>
#include <keel/string.h>

/* Stops "loop == memset" pattern recognition inside memset itself. */
#define LOOP_BARRIER() __asm__ __volatile__("" ::: "memory")

/**
 * memset() - fill @n bytes at @s with the byte @c.
 * Return: @s.
 */
void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;
	unsigned char b = (unsigned char)c;

	while (n && ((uintptr_t)p & (sizeof(uint64_t) - 1))) {
		*p++ = b;
		n--;
	}
	if (n >= sizeof(uint64_t)) {
		uint64_t w = 0x0101010101010101ULL * b;

		while (n >= sizeof(uint64_t)) {
			*(uint64_t *)(void *)p = w;
			p += sizeof(uint64_t);
			n -= sizeof(uint64_t);
			LOOP_BARRIER();
		}
	}
	while (n--) {
		*p++ = b;
		LOOP_BARRIER();
	}
	return s;
}

/**
 * memcpy() - copy @n bytes; the buffers must not overlap.
 * Return: @dst.
 */
void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((((uintptr_t)d ^ (uintptr_t)s) & (sizeof(uint64_t) - 1)) == 0) {
		while (n && ((uintptr_t)d & (sizeof(uint64_t) - 1))) {
			*d++ = *s++;
			n--;
		}
		while (n >= sizeof(uint64_t)) {
			*(uint64_t *)(void *)d =
				*(const uint64_t *)(const void *)s;
			d += sizeof(uint64_t);
			s += sizeof(uint64_t);
			n -= sizeof(uint64_t);
			LOOP_BARRIER();
		}
	}
	while (n--) {
		*d++ = *s++;
		LOOP_BARRIER();
	}
	return dst;
}

/**
 * memmove() - copy @n bytes; the buffers may overlap.
 * Return: @dst.
 */
void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	/* Overlap with dst above src: copy backwards. */
	while (n--) {
		d[n] = s[n];
		LOOP_BARRIER();
	}
	return dst;
}

/**
 * memcmp() - compare @n bytes as unsigned char.
 * Return: <0, 0 or >0.
 */
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/**
 * memchr() - find byte @c in the first @n bytes of @s.
 * Return: pointer to it, or NULL.
 */
void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (size_t i = 0; i < n; i++)
		if (p[i] == (unsigned char)c)
			return (void *)(p + i);
	return NULL;
}

/**
 * strlen() - length of a NUL-terminated string.
 * Return: bytes before the NUL.
 */
size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/**
 * strnlen() - length of a string, reading at most @max bytes.
 * Return: min(strlen(s), max).
 */
size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/**
 * strcmp() - compare two strings as unsigned char.
 * Return: <0, 0 or >0.
 */
int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x && *x == *y) {
		x++;
		y++;
	}
	return (*x > *y) - (*x < *y);
}

/**
 * strncmp() - compare at most @n bytes of two strings.
 * Return: <0, 0 or >0.
 */
int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (size_t i = 0; i < n; i++) {
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
		if (!x[i])
			break;
	}
	return 0;
}

/**
 * strchr() - first occurrence of @c in @s (the NUL counts).
 * Return: pointer to it, or NULL.
 */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

/**
 * strrchr() - last occurrence of @c in @s (the NUL counts).
 * Return: pointer to it, or NULL.
 */
char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/**
 * strtoull() - C semantics: leading spaces, optional sign, base 0 detects
 * 0x / 0 prefixes; saturates at ULLONG_MAX on overflow (no errno here).
 * Return: the value; *@end points after the last digit used.
 */
unsigned long long strtoull(const char *s, char **end, int base)
{
	const char *p = s;
	unsigned long long v = 0;
	bool neg = false, any = false, overflow = false;

	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' &&
	    (p[1] == 'x' || p[1] == 'X') && digit_value(p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = p[0] == '0' ? 8 : 10;
	}
	if (base < 2 || base > 36) {
		if (end)
			*end = (char *)s;
		return 0;
	}
	for (;; p++) {
		int d = digit_value(*p);

		if (d >= base)
			break;
		any = true;
		if (v > (~0ULL - (unsigned int)d) / (unsigned int)base)
			overflow = true;
		v = v * (unsigned int)base + (unsigned int)d;
	}
	if (end)
		*end = (char *)(any ? p : s);
	if (overflow)
		return ~0ULL;
	return neg ? -v : v;
}

/**
 * strtoul() - strtoull() for unsigned long (the same width on keel's arches).
 * Return: the value.
 */
unsigned long strtoul(const char *s, char **end, int base)
{
	return (unsigned long)strtoull(s, end, base);
}

/* --- vsnprintf ------------------------------------------------------- */

/* Output cursor: counts every byte, stores those that fit. */
struct out {
	char *buf;
	size_t size;
	size_t pos;
};

static void out_char(struct out *o, char c)
{
	if (o->pos + 1 < o->size)
		o->buf[o->pos] = c;
	o->pos++;
}

static void out_pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		out_char(o, c);
}

#define F_LEFT	1u
#define F_ZERO	2u
#define F_PLUS	4u
#define F_SPACE 8u
#define F_ALT	16u

struct spec {
	unsigned int flags;
	int width;
	int prec; /* -1: none */
};

static void out_str(struct out *o, const char *s, const struct spec *sp)
{
	size_t n;
	int pad;

	if (!s)
		s = "(null)";
	n = sp->prec >= 0 ? strnlen(s, (size_t)sp->prec) : strlen(s);
	pad = sp->width > (int)n ? sp->width - (int)n : 0;
	if (!(sp->flags & F_LEFT))
		out_pad(o, ' ', pad);
	for (size_t i = 0; i < n; i++)
		out_char(o, s[i]);
	if (sp->flags & F_LEFT)
		out_pad(o, ' ', pad);
}

static void out_num(struct out *o, unsigned long long v, bool neg,
		    unsigned int base, bool upper, const char *prefix,
		    const struct spec *sp)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, zeros = 0, plen = 0, len, pad;
	char sign = 0;

	if (v == 0 && sp->prec == 0) {
		n = 0; /* "%.0d" of 0 prints nothing */
	} else {
		do {
			tmp[n++] = digits[v % base];
			v /= base;
		} while (v);
	}
	if (neg)
		sign = '-';
	else if (sp->flags & F_PLUS)
		sign = '+';
	else if (sp->flags & F_SPACE)
		sign = ' ';
	if (prefix)
		plen = (int)strlen(prefix);
	if (sp->prec > n)
		zeros = sp->prec - n;
	len = n + zeros + plen + (sign ? 1 : 0);
	pad = sp->width > len ? sp->width - len : 0;
	/* '0' pads between sign/prefix and digits; ignored with '-' or prec. */
	if ((sp->flags & F_ZERO) && !(sp->flags & F_LEFT) && sp->prec < 0) {
		zeros += pad;
		pad = 0;
	}
	if (!(sp->flags & F_LEFT))
		out_pad(o, ' ', pad);
	if (sign)
		out_char(o, sign);
	for (int i = 0; i < plen; i++)
		out_char(o, prefix[i]);
	out_pad(o, '0', zeros);
	while (n)
		out_char(o, tmp[--n]);
	if (sp->flags & F_LEFT)
		out_pad(o, ' ', pad);
}

enum len_mod { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE };

static unsigned long long arg_unsigned(va_list *ap, enum len_mod m)
{
	switch (m) {
	case LEN_CHAR:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_SHORT:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_LONG:
		return va_arg(*ap, unsigned long);
	case LEN_LLONG:
		return va_arg(*ap, unsigned long long);
	case LEN_SIZE:
		return va_arg(*ap, size_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

static long long arg_signed(va_list *ap, enum len_mod m)
{
	switch (m) {
	case LEN_CHAR:
		return (signed char)va_arg(*ap, int);
	case LEN_SHORT:
		return (short)va_arg(*ap, int);
	case LEN_LONG:
		return va_arg(*ap, long);
	case LEN_LLONG:
		return va_arg(*ap, long long);
	case LEN_SIZE:
		return (long long)va_arg(*ap, size_t);
	default:
		return va_arg(*ap, int);
	}
}

static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	sp->flags = 0;
	sp->width = 0;
	sp->prec = -1;
	for (;; f++) {
		if (*f == '-')
			sp->flags |= F_LEFT;
		else if (*f == '0')
			sp->flags |= F_ZERO;
		else if (*f == '+')
			sp->flags |= F_PLUS;
		else if (*f == ' ')
			sp->flags |= F_SPACE;
		else if (*f == '#')
			sp->flags |= F_ALT;
		else
			break;
	}
	if (*f == '*') {
		int w = va_arg(*ap, int);

		if (w < 0) {
			sp->flags |= F_LEFT;
			w = w < -100000 ? 100000 : -w;
		}
		/* Bounded so a wild argument cannot spin for minutes. */
		sp->width = w > 100000 ? 100000 : w;
		f++;
	} else {
		while (*f >= '0' && *f <= '9') {
			if (sp->width < 100000)
				sp->width = sp->width * 10 + (*f - '0');
			f++;
		}
	}
	if (*f == '.') {
		f++;
		sp->prec = 0;
		if (*f == '*') {
			sp->prec = va_arg(*ap, int);
			if (sp->prec < 0)
				sp->prec = -1;
			f++;
		} else {
			while (*f >= '0' && *f <= '9') {
				if (sp->prec < 100000)
					sp->prec = sp->prec * 10 + (*f - '0');
				f++;
			}
		}
	}
	return f;
}

/**
 * vsnprintf() - format into @buf. Supports %d %i %u %x %X %o %p %s %c %%,
 * flags "-0+ #", width and precision (also as '*'), length modifiers
 * hh h l ll z j t. Unknown conversions are copied literally.
 * Return: the length the full output would have; @buf is NUL-terminated
 * whenever @size > 0.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = {buf, size, 0};
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt;
		struct spec sp;
		enum len_mod m = LEN_INT;
		char c;

		if (*fmt != '%') {
			out_char(&o, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &sp, &args);
		for (;; fmt++) {
			if (*fmt == 'h')
				m = m == LEN_SHORT ? LEN_CHAR : LEN_SHORT;
			else if (*fmt == 'l')
				m = m == LEN_LONG ? LEN_LLONG : LEN_LONG;
			else if (*fmt == 'z' || *fmt == 't')
				m = LEN_SIZE;
			else if (*fmt == 'j')
				m = LEN_LLONG;
			else
				break;
		}
		c = *fmt;
		if (c)
			fmt++;
		switch (c) {
		case 'd':
		case 'i': {
			long long v = arg_signed(&args, m);
			unsigned long long u = v < 0 ? -(unsigned long long)v
						     : (unsigned long long)v;

			out_num(&o, u, v < 0, 10, false, NULL, &sp);
			break;
		}
		case 'u':
			sp.flags &= ~(F_PLUS | F_SPACE);
			out_num(&o, arg_unsigned(&args, m), false, 10, false,
				NULL, &sp);
			break;
		case 'x':
		case 'X': {
			unsigned long long v = arg_unsigned(&args, m);
			const char *pfx = NULL;

			if ((sp.flags & F_ALT) && v)
				pfx = c == 'x' ? "0x" : "0X";
			sp.flags &= ~(F_PLUS | F_SPACE);
			out_num(&o, v, false, 16, c == 'X', pfx, &sp);
			break;
		}
		case 'o':
			sp.flags &= ~(F_PLUS | F_SPACE);
			out_num(&o, arg_unsigned(&args, m), false, 8, false,
				(sp.flags & F_ALT) ? "0" : NULL, &sp);
			break;
		case 'p':
			sp.flags &= ~(F_PLUS | F_SPACE);
			out_num(&o, (uintptr_t)va_arg(args, void *), false, 16,
				false, "0x", &sp);
			break;
		case 's':
			out_str(&o, va_arg(args, const char *), &sp);
			break;
		case 'c': {
			char ch[2] = {(char)va_arg(args, int), 0};

			sp.prec = -1;
			if (!(sp.flags & F_LEFT))
				out_pad(&o, ' ', sp.width - 1);
			out_char(&o, ch[0]);
			if (sp.flags & F_LEFT)
				out_pad(&o, ' ', sp.width - 1);
			break;
		}
		case '%':
			out_char(&o, '%');
			break;
		default:
			/* Unknown or truncated conversion: show it as written. */
			while (start < fmt)
				out_char(&o, *start++);
			break;
		}
	}
	va_end(args);
	if (size)
		buf[o.pos < size ? o.pos : size - 1] = '\0';
	return o.pos > 0x7fffffff ? 0x7fffffff : (int)o.pos;
}

/**
 * snprintf() - vsnprintf() with variadic arguments.
 * Return: as vsnprintf().
 */
int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
