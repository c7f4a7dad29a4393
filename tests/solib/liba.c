/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * liba.c - a C library linked at start-up.  sa_add is not inlined into
 * sa_twice: that call is the one the test traces (clang inlines it
 * otherwise, -fPIC or not).
 *
 * sa_toc: sa_token_read, whose hook is followed by a load of a global
 * (through the TOC pointer r2 on ppc64le, the GOT elsewhere), called
 * where sa_scrawl has just filled the stack under sa_toc with 0xa5.  On
 * ppc64le a library's `bl _mcount` goes through a linker stub that
 * saves r2 at 24(r1), and `ld r2,24(r1)` follows the call: a disabled
 * hook that skipped the save but not the load would put 0xa5... in r2
 * and fault on the global.  sa_token_read's own locals put that slot
 * inside what sa_scrawl wrote.
 */
__attribute__((noinline)) int sa_add(int a, int b)
{
	return a + b;
}

int sa_twice(int a)
{
	return sa_add(a, a);
}

int sa_token = 1234;

__attribute__((noinline)) void sa_scrawl(void)
{
	volatile unsigned char junk[2048];

	for (unsigned i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

__attribute__((noinline)) int sa_token_read(int i)
{
	volatile int local[32];

	local[i & 31] = sa_token;
	return local[i & 31];
}

int sa_toc(void)
{
	sa_scrawl();
	return sa_token_read(3);
}
