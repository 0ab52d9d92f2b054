/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's host services, <asm/os.h>: the only file of arch/sandbox
 * that includes libc, pthread or kernel headers (the way U-Boot's sandbox
 * keeps them in os.c). Each wrapper is the one host call it names, with
 * host types and errno turned into keel's; the policy (what to map, when
 * to sleep, what to print) stays in the file that calls it.
 *
 * The "interrupt" of the latency probe: one real-time signal (OS_IRQ_SIG)
 * with one process-wide handler, aimed at a thread by its own POSIX timer
 * (SIGEV_THREAD_ID). The signal is unblocked in that thread once its timer
 * exists; "interrupts off" is a flag of arch/sandbox/irq.c, not a mask.
 *
 * Also the two sandbox_* services of <asm/sandbox.h> that are nothing but
 * host calls: the host CPU count and reading a whole file.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <asm/os.h>
#include <asm/sandbox.h>

_Static_assert(sizeof(pthread_t) <= sizeof(unsigned long),
	       "struct os_thread's handle holds a pthread_t");

/** os_malloc() - malloc(). Return: the memory, or NULL. */
void *os_malloc(size_t size)
{
	return malloc(size);
}

/** os_calloc() - calloc(). Return: zeroed memory, or NULL. */
void *os_calloc(size_t count, size_t size)
{
	return calloc(count, size);
}

/** os_realloc() - realloc(). Return: the memory, or NULL (@p kept). */
void *os_realloc(void *p, size_t size)
{
	return realloc(p, size);
}

/** os_free() - free(). */
void os_free(void *p)
{
	free(p);
}

/** os_map_ram() - anonymous MAP_NORESERVE mapping. Return: it, or NULL. */
void *os_map_ram(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/**
 * os_map_ram_fd() - a MAP_SHARED mapping of the first @len bytes of the
 * memory file @fd, grown to @len when it is shorter; @fd < 0: a new
 * memfd (memfd_create(), no close-on-exec: a live update's exec() passes
 * it on), its descriptor into *@fd. Return: the mapping, or NULL.
 */
void *os_map_ram_fd(size_t len, int *fd)
{
	struct stat st;
	void *p;

	if (*fd < 0)
		*fd = (int)syscall(SYS_memfd_create, "keel-ram", 0);
	if (*fd < 0 || fstat(*fd, &st))
		return NULL;
	if ((uint64_t)st.st_size < len && ftruncate(*fd, (off_t)len))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		 *fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/** os_unmap_ram() - munmap() a mapping of os_map_ram(). */
void os_unmap_ram(void *p, size_t len)
{
	munmap(p, len);
}

/** os_advise_hugepage() - madvise(MADV_HUGEPAGE); refusal is harmless. */
void os_advise_hugepage(void *p, size_t len)
{
	madvise(p, len, MADV_HUGEPAGE);
}

/**
 * os_populate_write() - madvise(MADV_POPULATE_WRITE) where the host has it.
 * @p: page aligned
 * @len: bytes
 *
 * Return: 0, -ENOMEM when the host cannot back the range, -EINVAL when it
 * cannot populate (older kernels and headers).
 */
int os_populate_write(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	if (!madvise(p, len, MADV_POPULATE_WRITE))
		return 0;
	if (errno == ENOMEM || errno == EFAULT)
		return -ENOMEM;
#endif
	return -EINVAL;
}

/** os_clock_ns() - CLOCK_MONOTONIC_RAW. Return: the time in ns. */
uint64_t os_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** os_sleep_ns() - nanosleep() (a cancellation point). */
void os_sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull),
			      (long)(ns % 1000000000ull)};

	nanosleep(&ts, NULL);
}

/**
 * os_futex_wait() - sleep while *@word == @val, at most @ns; a
 * cancellation point (asynchronous cancellation during the wait).
 */
void os_futex_wait(uint32_t *word, uint32_t val, uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull),
			      (long)(ns % 1000000000ull)};
	int old;

	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
	pthread_setcanceltype(old, &old);
	pthread_testcancel();
}

/** os_futex_wake() - wake one thread sleeping in os_futex_wait(@word). */
void os_futex_wake(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/** os_yield() - sched_yield(). */
void os_yield(void)
{
	sched_yield();
}

static void os_thread_exited(void *arg)
{
	struct os_thread *t = arg;

	__atomic_store_n(&t->exited, true, __ATOMIC_RELEASE);
}

/* The os_thread of the calling thread (NULL: not one of os_thread_start()). */
static __thread struct os_thread *os_thread_self;

static void *os_thread_main(void *arg)
{
	struct os_thread *const t = arg;

	os_thread_self = t;
	pthread_cleanup_push(os_thread_exited, t);
	t->fn(t->arg);
	pthread_cleanup_pop(1);
	return NULL;
}

/**
 * os_thread_start() - a detached pthread running @fn(@arg), pinned.
 * @t: its state (must not move until the thread has ended)
 * @fn: the thread's body
 * @arg: for @fn
 * @host_cpu: the host CPU to pin it to (pinning is a performance hint: a
 *            restricted host may refuse it)
 *
 * Return: 0, or -errno when the thread cannot be created.
 */
int os_thread_start(struct os_thread *t, void (*fn)(void *arg), void *arg,
		    unsigned int host_cpu)
{
	pthread_attr_t attr;
	pthread_t thread;
	cpu_set_t set;
	int err;

	t->fn = fn;
	t->arg = arg;
	t->exited = false;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&thread, &attr, os_thread_main, t);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	t->handle = (unsigned long)thread;

	CPU_ZERO(&set);
	CPU_SET(host_cpu, &set);
	pthread_setaffinity_np(thread, sizeof(set), &set);
	return 0;
}

/**
 * os_thread_cancel() - pthread_cancel(), then yield until it has ended.
 * @t: a thread of os_thread_start()
 */
void os_thread_cancel(struct os_thread *t)
{
	pthread_cancel((pthread_t)t->handle);
	while (!__atomic_load_n(&t->exited, __ATOMIC_ACQUIRE))
		sched_yield();
}

/** os_thread_testcancel() - pthread_testcancel(). */
void os_thread_testcancel(void)
{
	pthread_testcancel();
}

static pthread_mutex_t stdout_lock = PTHREAD_MUTEX_INITIALIZER;
/* The holder's cancel state before os_stdout_lock(); under stdout_lock. */
static int stdout_lock_cancel_state;

/** os_stdout_lock() - take the stdout lock, holding cancellation off. */
void os_stdout_lock(void)
{
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&stdout_lock);
	stdout_lock_cancel_state = old;
}

/** os_stdout_unlock() - release it, restoring the cancel state. */
void os_stdout_unlock(void)
{
	int old = stdout_lock_cancel_state;

	pthread_mutex_unlock(&stdout_lock);
	pthread_setcancelstate(old, NULL);
}

/** os_write_stdout() - write(1) all of @s (stops at the first error). */
void os_write_stdout(const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(1, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		s += n;
		len -= (size_t)n;
	}
}

/** os_printf() - vprintf() and fflush(stdout). Return: vprintf's. */
int os_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	return n;
}

/** os_eprintf() - vfprintf(stderr). Return: vfprintf's. */
int os_eprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}

/** os_errstr() - strerror(errno). Return: the host's text. */
const char *os_errstr(void)
{
	return strerror(errno);
}

/** os_getenv() - getenv(). Return: the value, or NULL. */
const char *os_getenv(const char *name)
{
	return getenv(name);
}

/** os_setenv() - setenv(@name, @value), or unsetenv() when @value is NULL. */
void os_setenv(const char *name, const char *value)
{
	(void)(value ? setenv(name, value, 1) : unsetenv(name));
}

/** os_atexit() - atexit(). Return: 0, or -ENOMEM. */
int os_atexit(void (*fn)(void))
{
	return atexit(fn) ? -ENOMEM : 0;
}

/**
 * os_exit() - fflush(stdout), exit(): the atexit handlers run. A live
 * update's helper (os_lu_hold()) is let go and reaped first.
 */
void os_exit(int status)
{
	fflush(stdout);
	os_lu_hold_release();
	os_lu_hold_reap();
	exit(status);
}

/** os_exit_now() - _exit(): from inside an exit handler. */
void os_exit_now(int status)
{
	_exit(status);
}

/**
 * sandbox_host_cpus() - host CPUs this process may run on.
 *
 * Return: at least 1.
 */
unsigned int sandbox_host_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

/* @path opened for reading, a regular file: its fd and *@size, or -1. */
static int open_regular(const char *path, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EISDIR;
		return -1;
	}
	*size = (size_t)st.st_size;
	return fd;
}

/**
 * sandbox_read_file() - read a whole file into a malloc'ed buffer.
 * @path: file name
 * @len: out: its size (the buffer has one more byte, a NUL)
 *
 * Return: the buffer, or NULL (errno set).
 */
char *sandbox_read_file(const char *path, size_t *len)
{
	size_t got = 0, size;
	char *buf;
	int fd = open_regular(path, &size);

	if (fd < 0)
		return NULL;
	buf = malloc(size + 1);
	if (!buf) {
		close(fd);
		return NULL;
	}
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break; /* file shrank: keep what we have */
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

static char *map_fd(int fd, size_t size, size_t *len);

/**
 * sandbox_map_file() - a whole file, mapped, not read into a buffer (3
 * MB of `bad` lines were 700 fresh host pages faulted in and zeroed, then
 * copied): the page cache's own pages, all at once where the host takes
 * MADV_POPULATE_READ. @len: out: its size. The mapping has one more byte,
 * a NUL: past the file's end its last page reads as zeros; a size that
 * is a whole number of pages gets an anonymous page after it. Private
 * and writable, as a read buffer is. The file must not shrink while it
 * is mapped (the sandbox's own input). sandbox_unmap_file() frees it.
 * Return: the mapping, or NULL (errno set).
 */
char *sandbox_map_file(const char *path, size_t *len)
{
	size_t size;
	char *buf;
	int fd = open_regular(path, &size);

	if (fd < 0)
		return NULL;
	buf = map_fd(fd, size, len);
	close(fd);
	return buf;
}

/*
 * sandbox_map_fd() - sandbox_map_file() of the open file @fd (left open):
 * a live update's condensed description (fw_condense.c). Return: the
 * mapping, or NULL (errno set).
 */
char *sandbox_map_fd(int fd, size_t *len)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		errno = EISDIR;
		return NULL;
	}
	return map_fd(fd, (size_t)st.st_size, len);
}

/*
 * sandbox_memfd_text() - a memory file @name holding @buf's @len bytes, no
 * close-on-exec. Return: its descriptor, or -1 (errno set).
 */
int sandbox_memfd_text(const char *name, const char *buf, size_t len)
{
	int fd = (int)syscall(SYS_memfd_create, name, 0);
	size_t put = 0;

	while (fd >= 0 && put < len) {
		ssize_t n = write(fd, buf + put, len - put);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			close(fd);
			errno = e;
			return -1;
		}
		put += (size_t)n;
	}
	return fd;
}

/** sandbox_close_fd() - close(@fd). */
void sandbox_close_fd(int fd)
{
	close(fd);
}

/* The mapping of sandbox_map_file() for @fd of @size bytes. */
static char *map_fd(int fd, size_t size, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t span;
	char *buf;

	span = (size + (size_t)page) & ~((size_t)page - 1);
	buf = mmap(NULL, span, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf != MAP_FAILED && size &&
	    mmap(buf, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd,
		 0) == MAP_FAILED) {
		munmap(buf, span);
		buf = MAP_FAILED;
	}
	if (buf == MAP_FAILED)
		return NULL;
#ifdef MADV_POPULATE_READ
	if (size)
		madvise(buf, size, MADV_POPULATE_READ);
#endif
	*len = size;
	return buf;
}

/** sandbox_unmap_file() - undo sandbox_map_file() of @len bytes. */
void sandbox_unmap_file(char *buf, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);

	if (buf)
		munmap(buf, (len + (size_t)page) & ~((size_t)page - 1));
}

#define OS_IRQ_SIG (SIGRTMIN + 1)

static void (*os_irq_fn)(void);

static void os_irq_signal(int sig, siginfo_t *info, void *uc)
{
	int saved = errno;

	(void)sig;
	(void)info;
	(void)uc;
	if (os_irq_fn)
		os_irq_fn();
	errno = saved;
}

/**
 * os_irq_mask() - block (@off) or unblock the interrupt signal in the
 * calling thread.
 */
void os_irq_mask(bool off)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, OS_IRQ_SIG);
	pthread_sigmask(off ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/**
 * os_irq_timer_create() - the calling thread's timer: it sends the
 * interrupt signal to this thread only. Installs @fn as the signal's
 * handler (the same for every thread; it runs with the signal blocked).
 * @fn: the interrupt entry
 *
 * Return: the timer (opaque), or NULL (errno: os_errstr()). glibc's
 * timer_t may be 0 (the kernel's first id): the handle is it plus one.
 */
void *os_irq_timer_create(void (*fn)(void))
{
	struct sigaction sa;
	struct sigevent ev;
	timer_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = os_irq_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	__atomic_store_n(&os_irq_fn, fn, __ATOMIC_RELEASE);
	if (sigaction(OS_IRQ_SIG, &sa, NULL))
		return NULL;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = OS_IRQ_SIG;
	ev._sigev_un._tid = gettid(); /* sigev_notify_thread_id */
	if (timer_create(CLOCK_MONOTONIC, &ev, &t))
		return NULL;
	return (char *)t + 1;
}

/**
 * os_irq_timer_set() - fire @timer once @ns from now; 0 disarms it.
 * @timer: of os_irq_timer_create()
 * @ns: delay
 */
void os_irq_timer_set(void *timer, uint64_t ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(ns / 1000000000ull);
	its.it_value.tv_nsec = (long)(ns % 1000000000ull);
	timer_settime((timer_t)((char *)timer - 1), 0, &its, NULL);
}

/**
 * os_thread_park() - the calling thread counts as ended (its os_thread's
 * @exited, as os_thread_exit() would leave it) and blocks for good, every
 * signal blocked: exec() or the process's exit ends it in the kernel,
 * without pthread_exit()'s forced unwinding of its stack (0.3 to 0.6 ms
 * from the stop to the exited mark, measured on a live update of the
 * 1 TiB sandbox, inside its downtime). A thread os_thread_start() did
 * not start ends as os_thread_exit() ends it.
 */
void os_thread_park(void)
{
	struct os_thread *t = os_thread_self;
	sigset_t all;

	if (!t)
		pthread_exit(NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	__atomic_store_n(&t->exited, true, __ATOMIC_RELEASE);
	for (;;)
		pause();
}

/** os_thread_exit() - end the calling thread (its exit handlers run). */
void os_thread_exit(void)
{
	pthread_exit(NULL);
}

/**
 * os_exec() - flush stdout, then execv(@path, @argv) (descriptors without
 * close-on-exec stay open). Return: only on failure, -errno.
 */
int os_exec(const char *path, char *const argv[])
{
	fflush(stdout);
	execv(path, argv);
	return -errno;
}

/*
 * The old image's address space across a live update's exec(): exec()
 * tears the old one down before the new image runs, one page-table entry
 * per arena page the boot touched (tens of milliseconds on a TiB machine
 * with 100,000 bad pages), a cost of the host that hardware, where
 * relocate copies the image, does not have. os_lu_hold() clones a helper
 * task sharing it (CLONE_VM, not a thread: exec() leaves it be), which
 * blocks on a pipe whose only write end the new image inherits; exec()
 * then only drops a reference, and the teardown happens when the new
 * image closes that end (os_lu_hold_release(), after its verify), in the
 * helper, out of the downtime. The environment tells the new image
 * LU_HOLD_ENV=FD:PID; os_exit() reaps the helper. No hold (any failure,
 * or a new image that ignores it): the teardown is where it was, and the
 * helper ends with the new process at the latest (its write end closes).
 *
 * The helper runs on the old image's memory and thread pointer: raw
 * system calls only (libc's errno and locks are the old image's), on a
 * stack of its own.
 */
#define LU_HOLD_ENV "KEEL_LU_HOLD"
static char lu_hold_stack[16384] __attribute__((aligned(16)));
static int lu_hold_fds[2] = {-1, -1};
static pid_t lu_hold_pid = -1;

/* Not instrumented: a sanitizer's per-thread state is the old image's. */
__attribute__((no_sanitize("address", "thread", "undefined"))) static int
lu_hold_main(void *arg)
{
	char c;

	(void)arg;
	syscall(SYS_close, (long)lu_hold_fds[1]);
	/* Until every write end is closed (0) or a byte comes; EINTR: on. */
	while (syscall(SYS_read, (long)lu_hold_fds[0], &c, 1L) < 0)
		;
	return 0;
}

/**
 * os_lu_hold() - see above; before os_exec(), out of the downtime.
 * Return: 0 or -errno.
 */
int os_lu_hold(void)
{
	char env[48];
	pid_t pid;

	if (pipe2(lu_hold_fds, 0))
		return -errno;
	fcntl(lu_hold_fds[0], F_SETFD, FD_CLOEXEC);
	pid = clone(lu_hold_main, lu_hold_stack + sizeof(lu_hold_stack),
		    CLONE_VM | SIGCHLD, NULL);
	if (pid < 0) {
		int err = -errno;

		close(lu_hold_fds[0]);
		close(lu_hold_fds[1]);
		return err;
	}
	close(lu_hold_fds[0]);
	snprintf(env, sizeof(env), "%d:%d", lu_hold_fds[1], (int)pid);
	return setenv(LU_HOLD_ENV, env, 1) ? -errno : 0;
}

/*
 * os_lu_hold_release() - the new image: let the old image's address space
 * go (LU_HOLD_ENV's pipe closed). The variable is read once (unset then).
 * Only a pipe's write end is closed: a stale one cannot close the arena.
 */
void os_lu_hold_release(void)
{
	const char *v = getenv(LU_HOLD_ENV);
	int fd, pid, fl;
	struct stat st;

	if (!v || sscanf(v, "%d:%d", &fd, &pid) != 2)
		return;
	unsetenv(LU_HOLD_ENV); /* the next exec() does not pass it on */
	fl = fcntl(fd, F_GETFL);
	if (fd < 0 || fstat(fd, &st) || !S_ISFIFO(st.st_mode) || fl < 0 ||
	    (fl & O_ACCMODE) != O_WRONLY)
		return;
	close(fd);
	lu_hold_pid = pid;
}

/*
 * os_lu_hold_reap() - wait for the last image's helper, released, to end
 * (its teardown over; it is this process's child): at exit, and before
 * the next update's freeze, not in its downtime.
 */
void os_lu_hold_reap(void)
{
	if (lu_hold_pid > 0)
		while (waitpid(lu_hold_pid, NULL, 0) < 0 && errno == EINTR)
			;
	lu_hold_pid = -1;
}

/** os_access_exec() - access(X_OK). Return: 0 or -errno. */
int os_access_exec(const char *path)
{
	return access(path, X_OK) ? -errno : 0;
}

static int build_id_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *id = arg;

	(void)size;
	for (unsigned int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const uint8_t *desc =
				p + sizeof(*n) + ((n->n_namesz + 3) & ~3u);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p + sizeof(*n), "GNU", 4) &&
			    n->n_descsz >= 8 && desc + 8 <= end) {
				for (int b = 0; b < 8; b++)
					*id = *id << 8 | desc[b];
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1; /* the first object is the program itself */
}

/**
 * os_build_id() - the first 8 bytes of this program's NT_GNU_BUILD_ID
 * note, big-endian as readelf prints them. Return: it, or 0 when none.
 */
uint64_t os_build_id(void)
{
	uint64_t id = 0;

	dl_iterate_phdr(build_id_note, &id);
	return id;
}
