/* SPDX-License-Identifier: MIT */
/*
 * autoboot.c - the constructor that boots the engine in every program
 * linked with the runtime, unless the program or its environment says
 * it boots by itself.  Nothing in the runtime calls it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux.h"

/* A program may define this (non-zero) to boot by itself. */
extern const int mcount_no_autoboot __attribute__((weak));

static bool autoboot_wanted(void)
{
	const char *env = getenv("MCOUNT_NO_AUTOBOOT");

	if (&mcount_no_autoboot && mcount_no_autoboot)
		return false;
	return !env || !*env || strcmp(env, "0") == 0;
}

/*
 * Priority 101, the earliest a program may use: user constructors run
 * after boot, so their hooks are already NOPs.
 */
__attribute__((constructor(101))) static void autoboot(void)
{
	int err;

	if (!autoboot_wanted())
		return;
	mc_host_sync_register();
	err = mcount_boot();
	if (err)
		fprintf(stderr, "mcount: boot: %s\n", mcount_strerror(err));
}
