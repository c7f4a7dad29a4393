/*
 * fault.c - an LD_PRELOAD shim that makes one call of a record run fail.
 *
 * It stands in front of the calls that put a new object on disk: write,
 * pwrite (libelf writes with it), ftruncate, fchmod, fchown, fsync,
 * close and rename, on any descriptor but stdin/stdout/stderr (the error
 * message itself is not under test).  Every such call is counted; with
 *   FAULT_N=n      the n-th fails,
 *   FAULT_MODE=    enospc | eio (errno, nothing done) or short (a write
 *                  or pwrite that writes half, at least one byte, and
 *                  says so: a correct caller writes the rest),
 *   FAULT_REPORT=  a file that receives the number of calls at exit,
 * so a test can first count the calls of a run, then fail each in turn.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static long calls;

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		abort();
	return f;
}

enum verdict { PASS, FAIL, SHORTEN };

/* Count this call; what the n-th one should do. */
static enum verdict next_call(void)
{
	const char *n = getenv("FAULT_N");
	const char *mode = getenv("FAULT_MODE");

	if (!n || atol(n) != ++calls)
		return n ? PASS : (++calls, PASS);
	if (mode && strcmp(mode, "short") == 0)
		return SHORTEN;
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

ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t (*f)(int, const void *, size_t) = real("write");

	switch (for_fd(fd)) {
	case FAIL: return -1;
	case SHORTEN: return f(fd, buf, n > 1 ? n / 2 : n);
	default: return f(fd, buf, n);
	}
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	ssize_t (*f)(int, const void *, size_t, off_t) = real("pwrite");

	switch (for_fd(fd)) {
	case FAIL: return -1;
	case SHORTEN: return f(fd, buf, n > 1 ? n / 2 : n, off);
	default: return f(fd, buf, n, off);
	}
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

int ftruncate(int fd, off_t len)
{
	int (*f)(int, off_t) = real("ftruncate");

	return for_fd(fd) == FAIL ? -1 : f(fd, len);
}

int ftruncate64(int fd, off_t len)
{
	return ftruncate(fd, len);
}

int fchmod(int fd, mode_t mode)
{
	int (*f)(int, mode_t) = real("fchmod");

	return for_fd(fd) == FAIL ? -1 : f(fd, mode);
}

int fchown(int fd, uid_t uid, gid_t gid)
{
	int (*f)(int, uid_t, gid_t) = real("fchown");

	return for_fd(fd) == FAIL ? -1 : f(fd, uid, gid);
}

int fsync(int fd)
{
	int (*f)(int) = real("fsync");

	return for_fd(fd) == FAIL ? -1 : f(fd);
}

/* A close that fails still releases the descriptor, as Linux does. */
int close(int fd)
{
	int (*f)(int) = real("close");
	enum verdict v = for_fd(fd);
	int rc = f(fd);

	return v == FAIL ? -1 : rc;
}

int rename(const char *from, const char *to)
{
	int (*f)(const char *, const char *) = real("rename");

	return next_call() == FAIL ? -1 : f(from, to);
}
