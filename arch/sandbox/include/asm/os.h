/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's one door to the host: everything arch/sandbox needs from
 * libc, pthreads and the kernel, implemented in arch/sandbox/os.c, the only
 * file of the sandbox that includes host headers. The other files call
 * these and see no host type: a thread is a struct os_thread, time is ns,
 * errors are negative keel errno values.
 *
 * For arch/sandbox only: common/, boot/ and the unit tests never call os_*.
 */
#ifndef ASM_OS_H
#define ASM_OS_H

#include <keel/types.h>

/* Memory of the sandbox itself (never keel's heap, which lives in RAM). */
void *os_malloc(size_t size);
void *os_calloc(size_t count, size_t size);
void *os_realloc(void *p, size_t size);
void os_free(void *p);

/*
 * An anonymous MAP_NORESERVE read-write mapping of @len bytes: only the
 * pages touched cost host memory. Return: the mapping, or NULL.
 */
void *os_map_ram(size_t len);
void os_unmap_ram(void *p, size_t len);
/*
 * The same over the memory file *@fd (a new memfd when *@fd < 0, its
 * descriptor returned there, kept open across exec()): a live update's
 * RAM. Return: the mapping, or NULL.
 */
void *os_map_ram_fd(size_t len, int *fd);
/* Advise 2 MiB pages for [p, p + len); hosts without THP ignore it. */
void os_advise_hugepage(void *p, size_t len);
/*
 * Fault [p, p + len) in writable (MADV_POPULATE_WRITE). Return: 0, -ENOMEM
 * when the host cannot back the range, or -EINVAL when the host cannot do
 * this at all (the caller touches the pages itself).
 */
int os_populate_write(void *p, size_t len);

/* CLOCK_MONOTONIC_RAW in ns. */
uint64_t os_clock_ns(void);
/* Sleep @ns (a cancellation point). */
void os_sleep_ns(uint64_t ns);
/* Sleep while *@word == @val, at most @ns (a cancellation point). */
void os_futex_wait(uint32_t *word, uint32_t val, uint64_t ns);
/* Wake a thread sleeping in os_futex_wait(@word). */
void os_futex_wake(uint32_t *word);
/* Give the host CPU away (not a cancellation point). */
void os_yield(void);

/*
 * A detached host thread, pinned to one host CPU. The struct must not move
 * while the thread runs: the thread sets @exited in it when it ends, by
 * returning or by os_thread_cancel().
 */
struct os_thread {
	void (*fn)(void *arg);
	void *arg;
	unsigned long handle; /* the host's id, opaque */
	bool exited;
};
/* Start @fn(@arg) in @t, pinned to @host_cpu. Return: 0, or -errno. */
int os_thread_start(struct os_thread *t, void (*fn)(void *arg), void *arg,
		    unsigned int host_cpu);
/*
 * Cancel @t and wait until it has ended. It must be parked at a
 * cancellation point holding no lock (os_thread_testcancel(),
 * os_sleep_ns()).
 */
void os_thread_cancel(struct os_thread *t);
/* A cancellation point: a cancelled thread ends here. */
void os_thread_testcancel(void);
/* End the calling thread (a live update's freeze). */
void os_thread_exit(void) __attribute__((noreturn));
/* The calling thread counts as ended and blocks until exec() or exit. */
void os_thread_park(void) __attribute__((noreturn));

/* A live update: execv() (Return: only on failure, -errno), access(X_OK). */
int os_exec(const char *path, char *const argv[]);
int os_access_exec(const char *path);
/*
 * The old image's address space held across the exec() by a helper task,
 * so that its teardown is not in the downtime (os.c says how): taken
 * right before os_exec(), released by the new image after its verify.
 */
int os_lu_hold(void);
void os_lu_hold_release(void);
void os_lu_hold_reap(void);
/* This program's build id: 8 bytes of its NT_GNU_BUILD_ID note, or 0. */
uint64_t os_build_id(void);

/*
 * The lock that orders the writers of stdout (and of the console capture).
 * Cancellation is held off while a thread holds it, so that no thread ends
 * holding it (writing is a cancellation point).
 */
void os_stdout_lock(void);
void os_stdout_unlock(void);
/* Write all of @s to stdout, retrying interrupted writes. */
void os_write_stdout(const char *s, size_t len);
/* printf() to stdout, then flush (the output of the exit handlers). */
int os_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fprintf() to stderr: the sandbox's own errors, before keel runs. */
int os_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The host's text for the error of the last os_* call that failed. */
const char *os_errstr(void);

/* The environment variable @name, or NULL. */
const char *os_getenv(const char *name);
/* setenv(), or unsetenv() when @value is NULL. */
void os_setenv(const char *name, const char *value);
/* Run @fn at exit() (not at os_exit_now()). Return: 0 or -ENOMEM. */
int os_atexit(void (*fn)(void));
/* Flush stdout and exit with @status: the os_atexit() handlers run. */
void os_exit(int status) __attribute__((noreturn));
/* Exit with @status at once, from inside an exit handler. */
void os_exit_now(int status) __attribute__((noreturn));

/*
 * The latency probe's interrupt (arch/sandbox/irq.c): a real-time signal
 * aimed at one thread by that thread's POSIX timer. os_irq_mask(false)
 * unblocks it in the calling thread (irq.c does, once its timer exists;
 * "interrupts off" is irq.c's flag, not this mask).
 */
void os_irq_mask(bool off);
/* Timer for the calling thread; installs @fn as the handler. NULL: failed. */
void *os_irq_timer_create(void (*fn)(void));
/* Fire once @ns from now (0: disarm). */
void os_irq_timer_set(void *timer, uint64_t ns);

#endif
