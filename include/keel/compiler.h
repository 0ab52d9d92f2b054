/* SPDX-License-Identifier: MIT */
/* Owner: lib. */
#ifndef KEEL_COMPILER_H
#define KEEL_COMPILER_H

#define __noreturn	    __attribute__((noreturn))
#define __packed	    __attribute__((packed))
#define __aligned(x)	    __attribute__((aligned(x)))
#define __unused	    __attribute__((unused))
#define __weak		    __attribute__((weak))
#define __printf(a, b)	    __attribute__((format(printf, a, b)))
#define __cacheline_aligned __aligned(128)

#define likely(x)	    __builtin_expect(!!(x), 1)
#define unlikely(x)	    __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a)	    (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)	    ((a) < (b) ? (a) : (b))
#define MAX(a, b)	    ((a) > (b) ? (a) : (b))
#define ALIGN_UP(x, a)	    (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define ALIGN_DOWN(x, a)    ((x) & ~((__typeof__(x))(a)-1))
#define IS_ALIGNED(x, a)    (((x) & ((__typeof__(x))(a)-1)) == 0)
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - __builtin_offsetof(type, member)))

#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()	 __asm__ __volatile__("" ::: "memory")

/* fls64(0) == 0, fls64(1) == 1, fls64(0x80...0) == 64; likewise ffs64. */
static inline int fls64(unsigned long long x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline int ffs64(unsigned long long x)
{
	return x ? __builtin_ctzll(x) + 1 : 0;
}

#endif
