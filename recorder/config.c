/* SPDX-License-Identifier: MIT */
/*
 * config.c - the recording's settings, read from the environment once
 * at start (start.c lists the variables), and whether a recording runs.
 * The bottom of the recorder: every other file reads these, and this
 * one reads none of theirs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder.h"

struct rec_config rec_cfg;
bool rec_on;

/*
 * An attach's settings (rec_config_set): "NAME=VALUE" strings one after
 * another, the last followed by an empty one; NULL: the environment.
 * The copy of an earlier attach is kept, not freed: the filters may
 * still point into it until the next start replaces them.
 */
static char *attach_env;

bool rec_config_set(const char *lines)
{
	size_t len = strlen(lines);
	char *copy = malloc(len + 2);

	if (!copy)
		return false;
	memcpy(copy, lines, len + 1);
	copy[len + 1] = '\0';
	for (char *p = copy; *p; p++)
		if (*p == '\n')
			*p = '\0';
	attach_env = copy;
	return true;
}

const char *rec_getenv(const char *name)
{
	size_t n = strlen(name);

	if (!attach_env)
		return getenv(name);
	for (const char *p = attach_env; *p; p += strlen(p) + 1)
		if (!strncmp(p, name, n) && p[n] == '=')
			return p + n + 1;
	return NULL;
}

size_t rec_env_size(const char *name, size_t dflt)
{
	const char *v = rec_getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return dflt;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end) {
		fprintf(stderr, "mcount: trace: %s=%s is not a number; "
			"using %zu\n", name, v, dflt);
		return dflt;
	}
	return (size_t)n;
}

void rec_config_read(const char *path)
{
	size_t ring = rec_env_size("MCOUNT_TRACE_BUFSIZE", 65536), pow2 = 1024;
	size_t len = strlen(path);

	while (pow2 < ring && pow2 < ((size_t)1 << 30))
		pow2 <<= 1;
	rec_cfg.path = path;
	rec_cfg.json = len > 5 && strcmp(path + len - 5, ".json") == 0;
	rec_cfg.ring_events = pow2;
	rec_cfg.max_frames = REC_MAX_FRAMES;
	if (rec_cfg.max_frames > pow2 / 2 - 1)
		rec_cfg.max_frames = pow2 / 2 - 1;
	rec_cfg.depth = rec_env_size("MCOUNT_TRACE_DEPTH", 0);
	rec_cfg.min_time_ns = rec_env_size("MCOUNT_TRACE_MIN_TIME", 0);
	rec_cfg.stats = rec_env_size("MCOUNT_TRACE_STATS", 0) != 0;
	rec_cfg.nowait = rec_env_size("MCOUNT_TRACE_NOWAIT", 0) != 0;
}
