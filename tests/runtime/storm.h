/* SPDX-License-Identifier: GPL-2.0-only */
/* storm.h - shared by storm.c (the driver) and storm_funcs.c (hooked). */
#ifndef STORM_H
#define STORM_H

#define STORM_HALF 32
#define STORM_N (2 * STORM_HALF)
#define STORM_BASE_a 0
#define STORM_BASE_b STORM_HALF
#define STORM_INDEX(set, v) (STORM_BASE_##set + (v))

/* X(set, two-digit name, value) for the 32 functions of one set. */
#define STORM_EACH(X, s)						\
	X(s, 00, 0) X(s, 01, 1) X(s, 02, 2) X(s, 03, 3) X(s, 04, 4)	\
	X(s, 05, 5) X(s, 06, 6) X(s, 07, 7) X(s, 08, 8) X(s, 09, 9)	\
	X(s, 10, 10) X(s, 11, 11) X(s, 12, 12) X(s, 13, 13)		\
	X(s, 14, 14) X(s, 15, 15) X(s, 16, 16) X(s, 17, 17)		\
	X(s, 18, 18) X(s, 19, 19) X(s, 20, 20) X(s, 21, 21)		\
	X(s, 22, 22) X(s, 23, 23) X(s, 24, 24) X(s, 25, 25)		\
	X(s, 26, 26) X(s, 27, 27) X(s, 28, 28) X(s, 29, 29)		\
	X(s, 30, 30) X(s, 31, 31)

/* What function i returns for x: distinct per function. */
static inline long storm_value(int i, long x)
{
	return x * (i + 3) + i * 1000 + 7;
}

extern long (*const storm_fn[STORM_N])(long);
extern const char *const storm_name[STORM_N];

#endif
