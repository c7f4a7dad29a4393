/* SPDX-License-Identifier: GPL-2.0-only */
/* fixture.h - the hooked functions of fixture.c. */
#ifndef RT_FIXTURE_H
#define RT_FIXTURE_H

/* Not inlined, not cloned (clang clones nothing and has no `noclone`). */
#ifdef __clang__
#define FX_NOINLINE __attribute__((noinline))
#else
#define FX_NOINLINE __attribute__((noinline, noclone))
#endif

int fx_traced(int x);
int fx_other(int x);
int fx_victim(int x);
long fx_many(long a, long b, long c, long d, long e, long f, long g,
	     long h);
double fx_fp(double a, double b, double c, double d, double e, double f,
	     double g, double h);
int (*fx_static_ptr(void))(int);

/* From bad.S. */
int bad_site(int x);
int dup_site(int x);
void rt_dummy(void);

#endif
