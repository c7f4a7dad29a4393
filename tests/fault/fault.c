/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fault.c - an LD_PRELOAD shim that makes one call of a record run fail.
 *
 * It stands in front of the calls that put a new object on disk: write,
 * writev, pwrite (libelf writes with it), pwritev, ftruncate, fchmod,
 * fchown, fsync, close and rename, on any descriptor but
 * stdin/stdout/stderr (the error message itself is not under test).
 * Every such call is counted; with
 *   FAULT_N=n      the n-th fails,
 *   FAULT_MODE=    enospc | eio (errno, nothing done), short (a write
 *                  that writes half, at least one byte, and says so: a
 *                  correct caller writes the rest), or kill | killafter
 *                  (the process dies of SIGKILL before the call, or just
 *                  after it is done: a crash at that point),
 *   FAULT_REPORT=  a file that receives the number of calls at exit,
 * so a test can first count the calls of a run, then fail each in turn.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long calls;

/* killafter: the call was made; now the crash. */
static int die(void)
{
	kill(getpid(), SIGKILL);
	return -1;
}

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return f;
}

enum verdict { PASS, FAIL, SHORTEN, KILL_AFTER };

/* Count this call; what the n-th one should do. */
static enum verdict next_call(void)
{
	const char *n = getenv("FAULT_N");
	const char *mode = getenv("FAULT_MODE");

	if (!n || atol(n) != ++calls)
		return n ? PASS : (++calls, PASS);
	if (mode && strcmp(mode, "short") == 0)
		return SHORTEN;
	if (mode && strcmp(mode, "kill") == 0)
		kill(getpid(), SIGKILL);
	if (mode && strcmp(mode, "killafter") == 0)
		return KILL_AFTER;
	errno = mode && strcmp(mode, "eio") == 0 ? EIO : ENOSPC;
	return FAIL;
}

/* Only the run's own files: not the standard streams. */
static enum verdict for_fd(int fd)
{
	return fd > 2 ? next_call() : PASS;
}

__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("FAULT_REPORT");
	FILE *f;

	if (path && (f = fopen(path, "w"))) {
		fprintf(f, "%ld\n", calls);
		fclose(f);
	}
}

/* The result of a call that was made: killafter dies here. */
static int done_as(enum verdict v, int rc)
{
	if (v == KILL_AFTER)
		return die();
	return rc;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t (*f)(int, const void *, size_t) = real("write");

	switch (for_fd(fd)) {
	case FAIL: return -1;
	case SHORTEN: return f(fd, buf, n > 1 ? n / 2 : n);
	case KILL_AFTER: f(fd, buf, n); return die();
	default: return f(fd, buf, n);
	}
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t (*f)(int, const void *, size_t, off_t) = real("pwrite");

	switch (for_fd(fd)) {
	case FAIL: return -1;
	case SHORTEN: return f(fd, buf, n > 1 ? n / 2 : n, off);
	case KILL_AFTER: f(fd, buf, n, off); return die();
	default: return f(fd, buf, n, off);
	}
}

/*
 * The first `*n` buffers of v holding half its bytes (at least one): a
 * short writev.  Up to 64 buffers are kept, the last cut.
 */
static const struct iovec *half(const struct iovec *v, int *n,
				struct iovec *copy)
{
	size_t total = 0, want;
	int k = 0;

	for (int i = 0; i < *n; i++)
		total += v[i].iov_len;
	want = total > 1 ? total / 2 : total;
	while (k < *n && k < 64 && want) {
		copy[k] = v[k];
		if (copy[k].iov_len > want)
			copy[k].iov_len = want;
		want -= copy[k++].iov_len;
	}
	*n = k;
	return copy;
}

ssize_t writev(int fd, const struct iovec *v, int n)
{
	ssize_t (*f)(int, const struct iovec *, int) = real("writev");
	struct iovec copy[64];

	switch (for_fd(fd)) {
	case FAIL: return -1;
	case SHORTEN: v = half(v, &n, copy); return f(fd, v, n);
	case KILL_AFTER: f(fd, v, n); return die();
	default: return f(fd, v, n);
	}
}

ssize_t pwritev(int fd, const struct iovec *v, int n, off_t off)
{
	ssize_t (*f)(int, const struct iovec *, int, off_t) = real("pwritev");
	struct iovec copy[64];

	switch (for_fd(fd)) {
	case FAIL: return -1;
	case SHORTEN: v = half(v, &n, copy); return f(fd, v, n, off);
	case KILL_AFTER: f(fd, v, n, off); return die();
	default: return f(fd, v, n, off);
	}
}

ssize_t pwritev64(int fd, const struct iovec *v, int n, off_t off)
{
	return pwritev(fd, v, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

int ftruncate(int fd, off_t len)
{
	int (*f)(int, off_t) = real("ftruncate");

	enum verdict v = for_fd(fd);

	return v == FAIL ? -1 : done_as(v, f(fd, len));
}

int ftruncate64(int fd, off_t len)
{
	return ftruncate(fd, len);
}

int fchmod(int fd, mode_t mode)
{
	int (*f)(int, mode_t) = real("fchmod");

	enum verdict v = for_fd(fd);

	return v == FAIL ? -1 : done_as(v, f(fd, mode));
}

int fchown(int fd, uid_t uid, gid_t gid)
{
	int (*f)(int, uid_t, gid_t) = real("fchown");

	enum verdict v = for_fd(fd);

	return v == FAIL ? -1 : done_as(v, f(fd, uid, gid));
}

int fsync(int fd)
{
	int (*f)(int) = real("fsync");

	enum verdict v = for_fd(fd);

	return v == FAIL ? -1 : done_as(v, f(fd));
}

/* A close that fails still releases the descriptor, as Linux does. */
int close(int fd)
{
	int (*f)(int) = real("close");
	enum verdict v = for_fd(fd);
	int rc = f(fd);

	if (v == KILL_AFTER)
		return die();
	return v == FAIL ? -1 : rc;
}

int rename(const char *from, const char *to)
{
	int (*f)(const char *, const char *) = real("rename");

	enum verdict v = next_call();

	return v == FAIL ? -1 : done_as(v, f(from, to));
}
