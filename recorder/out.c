/* SPDX-License-Identifier: MIT */
/*
 * out.c - the trace file and the writer's buffer in front of it: bytes
 * put in, the buffer written whole as it fills.  A failed write is
 * reported once; what follows is dropped, so a full disk never blocks
 * the program.  Only the writer thread (or the exiting one, once the
 * writer has stopped) puts.
 *
 * The file is locked (flock) while it is open, so that `mctrace
 * record`, folding the other processes' files into the first one's
 * (mctrace/fold.c), leaves those of processes still recording.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/uio.h>
#include <unistd.h>

#include "recorder.h"

#define OUT_SIZE (64 * 1024)

static struct {
	int fd;
	bool failed;
	size_t used;
	char buf[OUT_SIZE];
} out = { .fd = -1 };

int rec_out_open(const char *path, bool truncate)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC |
		    (truncate ? O_TRUNC : O_EXCL);

	out.fd = open(path, flags, 0644);
	if (out.fd >= 0)
		flock(out.fd, LOCK_EX | LOCK_NB);	/* only a sign */
	out.failed = false;
	out.used = 0;
	return out.fd;
}

bool rec_out_is_open(void)
{
	return out.fd >= 0;
}

/* Closed as it is, unwritten bytes dropped (a fork's child, a failure). */
void rec_out_drop(void)
{
	if (out.fd >= 0)
		close(out.fd);
	out.fd = -1;
	out.used = 0;
}

/* Write the buffers whole, or report the first failure and give up. */
static void write_all(struct iovec *iov, int n)
{
	for (;;) {
		ssize_t k;

		while (n && !iov->iov_len) {
			iov++;
			n--;
		}
		if (!n || out.failed)
			return;
		k = writev(out.fd, iov, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			fprintf(stderr, "mcount: trace: cannot write: %s; "
				"the trace is incomplete\n",
				k < 0 ? strerror(errno) : "short write");
			out.failed = true;
			return;
		}
		for (; n && (size_t)k >= iov->iov_len; iov++, n--)
			k -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
}

void rec_out_flush(void)
{
	struct iovec iov = { out.buf, out.used };

	write_all(&iov, 1);
	out.used = 0;
}

void rec_out_close(void)
{
	rec_out_flush();
	rec_out_drop();
}

void rec_out_put(const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		size_t k = OUT_SIZE - out.used < n ? OUT_SIZE - out.used : n;

		memcpy(out.buf + out.used, c, k);
		out.used += k;
		c += k;
		n -= k;
		if (out.used == OUT_SIZE)
			rec_out_flush();
	}
}

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
void rec_out_words(const uint64_t *v, size_t n)
{
	uint64_t buf[64];

	while (n) {
		size_t k = n < 64 ? n : 64;

		for (size_t i = 0; i < k; i++)
			buf[i] = rec_le64(v[i]);
		rec_out_put(buf, k * 8);
		v += k;
		n -= k;
	}
}
#else
void rec_out_words(const uint64_t *v, size_t n)
{
	rec_out_put(v, n * 8);
}
#endif

void rec_out_text(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		rec_out_put(buf, (size_t)n < sizeof(buf) ? (size_t)n
							 : sizeof(buf) - 1);
}
