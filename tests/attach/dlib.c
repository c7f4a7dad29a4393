/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dlib.c - the library target.c opens and closes all along ("dlopen"
 * mode): dl_request calls dl_leaf twice, so that a trace of any window
 * holds about twice as many dl_leaf calls as dl_request calls.
 * dl_request(x) is 10x + 9, which target.c checks.
 */
__attribute__((noinline)) unsigned long dl_leaf(unsigned long x)
{
	__asm__ volatile("" ::: "memory");
	return 5 * x + 2;
}

__attribute__((noinline)) unsigned long dl_request(unsigned long x)
{
	return dl_leaf(x) + dl_leaf(x + 1);
}
