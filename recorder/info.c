/* SPDX-License-Identifier: MIT */
/*
 * info.c - what a recording is of, for its MCT_INFO block (format.h):
 * the program and its arguments, the process, when it started, the
 * program's build id and the runtime's sites.  Gathered by each process
 * that writes a trace, as its writer starts (a forked child too: its
 * own pid, the same program).  A key whose value cannot be had is left
 * out; readers take the keys they find.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mcount.h>

#include "recorder.h"

#define ARGS_MAX (128 * 1024)	/* of the command line kept */

struct info {
	char *buf;
	size_t len, cap;
};

/* "key=value" and its NUL, `n` bytes of value; dropped if no memory. */
static void add(struct info *in, const char *key, const char *val, size_t n)
{
	size_t k = strlen(key), need = k + 1 + n + 1;

	if (in->cap - in->len < need) {
		size_t cap = in->cap ? 2 * in->cap : 1024;
		char *v;

		while (cap - in->len < need)
			cap *= 2;
		v = realloc(in->buf, cap);
		if (!v)
			return;
		in->buf = v;
		in->cap = cap;
	}
	memcpy(in->buf + in->len, key, k);
	in->buf[in->len + k] = '=';
	memcpy(in->buf + in->len + k + 1, val, n);
	in->buf[in->len + need - 1] = '\0';
	in->len += need;
}

static void add_u64(struct info *in, const char *key, uint64_t v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%llu", (unsigned long long)v);

	add(in, key, num, (size_t)n);
}

/* One "arg=" for each argument, from /proc/self/cmdline. */
static void add_args(struct info *in)
{
	char *buf = malloc(ARGS_MAX);
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t k = 1;

	if (buf && fd >= 0)
		while (len < ARGS_MAX &&
		       (k = read(fd, buf + len, ARGS_MAX - len)) > 0)
			len += (size_t)k;
	if (fd >= 0)
		close(fd);
	for (size_t at = 0; k >= 0 && at < len;) {
		size_t n = strnlen(buf + at, len - at);

		add(in, "arg", buf + at, n);
		at += n + 1;
	}
	free(buf);
}

static void add_exe(struct info *in)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path));

	if (n > 0 && (size_t)n < sizeof(path))
		add(in, "exe", path, (size_t)n);
}

/* The build id in one PT_NOTE segment of `obj`, as hex into `hex`. */
static bool note_build_id(const struct dl_phdr_info *obj, const ElfW(Phdr) *ph,
			  char *hex, size_t cap)
{
	const char *p = (const char *)(obj->dlpi_addr + ph->p_vaddr);
	const char *end = p + ph->p_memsz;
	size_t align = ph->p_align == 8 ? 8 : 4;

	while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)p;
		const unsigned char *name = (const unsigned char *)(n + 1);
		const unsigned char *desc = name + ((n->n_namesz + align - 1) &
						    ~(align - 1));

		if (desc + n->n_descsz > (const unsigned char *)end)
			return false;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(name, "GNU", 4) && 2 * n->n_descsz < cap) {
			for (size_t i = 0; i < n->n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", desc[i]);
			return true;
		}
		p = (const char *)desc + ((n->n_descsz + align - 1) &
					  ~(align - 1));
	}
	return false;
}

/* dl_iterate_phdr's first object is the program: its build id, then stop. */
static int program_build_id(struct dl_phdr_info *obj, size_t size, void *arg)
{
	char *hex = arg;

	(void)size;
	for (size_t i = 0; i < obj->dlpi_phnum; i++)
		if (obj->dlpi_phdr[i].p_type == PT_NOTE &&
		    note_build_id(obj, &obj->dlpi_phdr[i], hex, 129))
			break;
	return 1;
}

static int count_enabled(const struct mcount_site_info *s, void *arg)
{
	size_t *n = arg;

	*n += s->state == MCOUNT_SITE_ENABLED;
	return 0;
}

char *rec_info(uint64_t start_ticks, size_t *len)
{
	struct info in = { 0 };
	struct timespec ts;
	char hex[129] = "";
	size_t enabled = 0;
	const char *clock = MC_RT_ARCH->trace_clock ?
			    MC_RT_ARCH->trace_clock : "CLOCK_MONOTONIC";

	add_exe(&in);
	add_args(&in);
	add_u64(&in, "pid", (uint64_t)getpid());
	add_u64(&in, "ppid", (uint64_t)getppid());
	if (!clock_gettime(CLOCK_REALTIME, &ts))
		add_u64(&in, "start_ns", (uint64_t)ts.tv_sec * 1000000000u +
					 (uint64_t)ts.tv_nsec);
	add_u64(&in, "start_ticks", start_ticks);
	add(&in, "clock", clock, strlen(clock));
	dl_iterate_phdr(program_build_id, hex);
	if (*hex)
		add(&in, "build_id", hex, strlen(hex));
	add_u64(&in, "sites", mcount_site_count());
	mcount_for_each_site(count_enabled, &enabled);
	add_u64(&in, "sites_enabled", enabled);
	*len = in.len;
	return in.buf;
}
