/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dllib.c - the library dlprog.c opens and closes, built twice: liba.so
 * (-DL=a) and libb.so (-DL=b).  The two have one layout, so the second,
 * opened where the first was, has its functions at the first one's
 * addresses under other names.
 */
#define CAT(l, f) l##_##f
#define NAME(l, f) CAT(l, f)
#define FN(f) NAME(L, f)

int FN(one)(int x);
int FN(two)(int x);
int FN(wait)(int (*cb)(int), int x);

__attribute__((noinline)) int FN(one)(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int FN(two)(int x)
{
	return FN(one)(x) + FN(one)(x + 1);
}

/* Calls back into the program, which may close this library meanwhile. */
__attribute__((noinline)) int FN(wait)(int (*cb)(int), int x)
{
	return cb(FN(one)(x)) + 1;
}
