/* SPDX-License-Identifier: GPL-2.0-only */
/* libtwo.c - built twice, each copy linked with its own libmcount.a. */
#include <mcount.h>

int TWO_BOOT(void)
{
	return mcount_boot();
}
