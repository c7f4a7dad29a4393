/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * slowinit.c - linked into a second build of dlib.c: a constructor and
 * a destructor that take their time, so that the thread of target.c
 * that opens and closes the library is inside the loader's lock (an
 * object's initialisers run under it) most of the time, in code that is
 * not the loader's.  An attach that stops it there must not wait for
 * that lock.
 */
#include <time.h>

static void nap(void)
{
	struct timespec t = { 0, 20000000 };

	nanosleep(&t, NULL);
}

__attribute__((constructor)) static void slow_init(void)
{
	nap();
}

__attribute__((destructor)) static void slow_fini(void)
{
	nap();
}
