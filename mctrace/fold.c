/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fold.c - a recording's processes put into one file.  Every process
 * that records but the first writes FILE.PID (FILE.PID.N if taken;
 * recorder/start.c), as it goes, with no lock on the traced threads'
 * path and no file offset shared with another process.  Once the
 * program has ended, record appends each of them to FILE as one
 * MCT_PROCESS block (recorder/format.h), in the order they started,
 * and removes it: a process tree is then one trace, read as one, and
 * a reader that does not know the block reads the first process.
 *
 * Only the files of this recording are taken: those whose MCT_INFO
 * says they started at or after it did (an older run's are left).  A
 * file its recorder still holds locked (recorder/out.c: a process that
 * outlived the program) is left apart, and said.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "events.h"

/* A process's file, and when it started (CLOCK_REALTIME, ns). */
struct other {
	char *path;
	uint64_t start_ns;
	uint32_t pid;
};

/* Whether `name` is BASE.PID or BASE.PID.N. */
static bool is_other_name(const char *name, const char *base)
{
	size_t n = strlen(base);
	const char *p = name + n;

	if (strncmp(name, base, n) || *p != '.' || !p[1])
		return false;
	for (int dots = 0; *++p;)
		if (*p == '.' ? (++dots > 1 || !p[1] || p[-1] == '.')
			      : (*p < '0' || *p > '9'))
			return false;
	return true;
}

/* An MCT_INFO this long is no recorder's (its arguments are in it). */
#define INFO_MAX ((uint64_t)1 << 24)

/*
 * The pid and start of the trace open at `fd`, from its header and
 * first block (the recorder's MCT_INFO); false if it has none.
 */
static bool read_start(int fd, struct other *o)
{
	uint8_t head[sizeof(struct mct_header) + sizeof(struct mct_block)];
	uint64_t bytes;
	char *info;
	ssize_t n;
	bool found = false;

	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) ||
	    memcmp(head, MCT_MAGIC, 8) ||
	    get_le32(head + sizeof(struct mct_header)) != MCT_INFO ||
	    (bytes = get_le64(head + sizeof(head) - 8)) > INFO_MAX)
		return false;
	o->pid = get_le32(head + 8);
	info = xmalloc(bytes + 1);
	n = pread(fd, info, bytes, (off_t)sizeof(head));
	if (n > 0) {
		info[n] = '\0';
		for (char *s = info; s < info + n && !found;
		     s += strlen(s) + 1)
			if (!strncmp(s, "start_ns=", 9)) {
				o->start_ns = strtoull(s + 9, NULL, 10);
				found = true;
			}
	}
	free(info);
	return found;
}

/*
 * The file `path` as a process of the recording begun at `since`:
 * true and *o filled, or false (another run's, not a trace, or still
 * recording: said).
 */
static bool take_other(const char *path, uint64_t since, struct other *o)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read_start(fd, o);
	if (!ok)
		fprintf(stderr, "mctrace: %s: no recording's start in it (cut "
			"short, or not a trace): left apart\n", path);
	ok = ok && o->start_ns >= since;
	if (ok && flock(fd, LOCK_SH | LOCK_NB) != 0) {
		fprintf(stderr, "mctrace: %s: still being recorded (a process "
			"that outlived the program): left apart\n", path);
		ok = false;
	}
	close(fd);
	if (ok)
		o->path = strdup(path);
	return ok && o->path;
}

static int by_start(const void *a, const void *b)
{
	const struct other *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns > y->start_ns ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The other processes' files of the recording into `path`, by start. */
static struct other *list_others(const char *path, uint64_t since,
				 size_t *n)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char dir[4096], file[8192];
	struct other *v = NULL;
	size_t cap = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 0,
		 path);
	*n = 0;
	d = opendir(*dir ? dir : ".");
	while (d && (e = readdir(d))) {
		if (!is_other_name(e->d_name, base))
			continue;
		snprintf(file, sizeof(file), "%s%s", dir, e->d_name);
		v = grow(v, &cap, *n + 1, sizeof(*v));
		if (take_other(file, since, &v[*n]))
			(*n)++;
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), by_start);
	return v;
}

/* The whole file `from` after what `to` holds: 0, or -1 with errno. */
static int copy_into(int to, const char *from, uint32_t pid)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct mct_block b = { .kind = MCT_PROCESS, .tid = pid };
	char buf[65536];
	ssize_t k;

	if (fd < 0 || fstat(fd, &st) != 0)
		goto fail;
	b.bytes = (uint64_t)st.st_size;
	b.kind = htole32(b.kind);
	b.tid = htole32(b.tid);
	b.bytes = htole64(b.bytes);
	if (write(to, &b, sizeof(b)) != (ssize_t)sizeof(b))
		goto fail;
	while ((k = read(fd, buf, sizeof(buf))) > 0)
		if (write(to, buf, (size_t)k) != k)
			goto fail;
	if (k < 0)
		goto fail;
	close(fd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	if (!errno)
		errno = ENOSPC;
	return -1;
}

/* One process's file appended to the trace open at `to`, then removed. */
static int fold_one(int to, const char *path, const struct other *o)
{
	off_t was = lseek(to, 0, SEEK_END);

	errno = 0;
	if (copy_into(to, o->path, o->pid) == 0) {
		unlink(o->path);
		return 0;
	}
	fprintf(stderr, "mctrace: %s: cannot add %s to it: %s; left apart\n",
		path, o->path, strerror(errno));
	if (was >= 0 && ftruncate(to, was) != 0)
		fprintf(stderr, "mctrace: %s: cannot cut back what was added: "
			"its last process is cut short\n", path);
	return -1;
}

int fold_processes(const char *path, uint64_t since_ns)
{
	size_t n;
	struct other *v = list_others(path, since_ns, &n);
	int to = n ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1, err = 0;

	if (n && to < 0) {
		fprintf(stderr, "mctrace: %s: cannot add the other processes' "
			"traces to it: %s\n", path, strerror(errno));
		err = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (to >= 0 && fold_one(to, path, &v[i]) != 0)
			err = 1;
		free(v[i].path);
	}
	if (to >= 0 && close(to) != 0) {
		fprintf(stderr, "mctrace: %s: %s\n", path, strerror(errno));
		err = 1;
	}
	free(v);
	return err;
}
