/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * storm_funcs.c - the 64 hooked functions of the toggle storm
 * (storm.c), compiled with the case's hook flags.  Each computes a
 * value of its own that the callers check, so a torn or misplaced
 * patch shows as a wrong result or a crash.
 */
#include "storm.h"

#define STORM_FN(set, nn, v)						\
	__attribute__((noinline)) long storm_##set##_##nn(long x)	\
	{								\
		return storm_value(STORM_INDEX(set, v), x);		\
	}

STORM_EACH(STORM_FN, a)
STORM_EACH(STORM_FN, b)

#define STORM_PTR(set, nn, v) [STORM_INDEX(set, v)] = storm_##set##_##nn,
long (*const storm_fn[STORM_N])(long) = {
	STORM_EACH(STORM_PTR, a)
	STORM_EACH(STORM_PTR, b)
};

#define STORM_NAME(set, nn, v) [STORM_INDEX(set, v)] = "storm_" #set "_" #nn,
const char *const storm_name[STORM_N] = {
	STORM_EACH(STORM_NAME, a)
	STORM_EACH(STORM_NAME, b)
};
