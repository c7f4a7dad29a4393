/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * restored.c - an attach's start after its text was put back behind
 * the engine's back, as mctrace does when a start it tried is refused
 * after libmcount.so was loaded (another thread held the patching
 * lock): the constructor's boot had written its forms into the pads,
 * mctrace wrote the compiler's NOPs back, and the start that follows
 * must read the pads again before it enables them.  An engine that
 * trusted what it last wrote enables a NOP pad by its first byte alone:
 * a call with NOPs for an offset, and the program dies.
 *
 *   restored LIBMCOUNT.so TRACE: "restored: ok N" (N calls of victim
 *   made while recording), exit 0; else a reason, exit 1
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PAD 5
#define CALLS 10

__attribute__((noinline)) int victim(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static int text_io(void *at, unsigned char *buf, int write_it)
{
	int fd = open("/proc/self/mem", write_it ? O_WRONLY : O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write_it ? pwrite(fd, buf, PAD, (off_t)(unsigned long)at) :
		       pread(fd, buf, PAD, (off_t)(unsigned long)at);
	close(fd);
	return n == PAD ? 0 : -1;
}

int main(int argc, char **argv);

/* This program's functions, each with its pad */
static void *const funcs[] = { (void *)victim, (void *)text_io, (void *)main };
#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

int main(int argc, char **argv)
{
	unsigned char before[NFUNCS][PAD], booted[PAD];
	int (*start)(const char *), (*stop)(void);
	char config[4096];
	void *lib;
	int sum = 0;

	if (argc != 3)
		return fprintf(stderr, "usage: restored LIB TRACE\n"), 1;
	for (size_t k = 0; k < NFUNCS; k++)
		if (text_io(funcs[k], before[k], 0))
			return perror("restored: cannot read a pad"), 1;
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib)
		return fprintf(stderr, "restored: %s\n", dlerror()), 1;
	*(void **)&start = dlsym(lib, "mcount_attach_start");
	*(void **)&stop = dlsym(lib, "mcount_attach_stop");
	if (!start || !stop || text_io((void *)victim, booted, 0))
		return fprintf(stderr, "restored: no attach entry\n"), 1;
	if (!memcmp(before[0], booted, PAD))
		return fprintf(stderr, "restored: the boot left the pad as "
			       "it was: nothing to put back\n"), 1;
	for (size_t k = 0; k < NFUNCS; k++)
		if (text_io(funcs[k], before[k], 1))
			return perror("restored: cannot write a pad back"), 1;
	snprintf(config, sizeof(config), "MCOUNT_TRACE=%s\n", argv[2]);
	if (start(config) != 0)
		return fprintf(stderr, "restored: the start failed\n"), 1;
	for (int i = 0; i < CALLS; i++)
		sum += victim(i);
	if (stop() != 0)
		return fprintf(stderr, "restored: the stop failed\n"), 1;
	printf("restored: ok %d\n", sum == CALLS * (CALLS + 1) / 2 ? CALLS : -1);
	return 0;
}
