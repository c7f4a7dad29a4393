/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * common.c - the input file for the record and dump targets, and the
 * properties every run must keep whatever the input.
 */
#define _GNU_SOURCE
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../elf/object.h"

static char dir[256];
static char path[300];

static void remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

static void make_dir(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(dir, sizeof(dir), "%s/recordmcount-fuzz-XXXXXX", base);
	if (!mkdtemp(dir))
		fuzz_fail("cannot create a scratch directory");
	snprintf(path, sizeof(path), "%s/input.o", dir);
	atexit(remove_dir);
	if (!mc_elf_init())
		fuzz_fail("libelf is out of date");
}

const char *fuzz_input_file(const uint8_t *data, size_t size)
{
	if (!dir[0])
		make_dir();
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		fuzz_fail("cannot create the input file");
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			fuzz_fail("cannot write the input file");
		done += (size_t)n;
	}
	close(fd);
	return path;
}

void fuzz_fail(const char *what)
{
	fprintf(stderr, "fuzz: %s\n", what);
	abort();
}

int fuzz_file_is(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "rb");
	int same = f != NULL;
	size_t i = 0;

	for (int c; same && (c = getc(f)) != EOF; i++)
		same = i < size && (uint8_t)c == data[i];
	if (f)
		fclose(f);
	return same && i == size;
}

int fuzz_dir_is_clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int others = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		others += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			  strcmp(e->d_name, "input.o");
	closedir(d);
	return others == 0;
}
