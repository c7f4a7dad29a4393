/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <mcount.h>

MCOUNT_NOTRACE static void on_call(unsigned long func, unsigned long caller)
{
	unsigned long off;
	const char *name = mcount_func_name(caller, &off);

	printf("%s called from %s+%#lx\n", mcount_func_name(func, NULL), name, off);
}

__attribute__((noinline)) int square(int x) { return x * x; }

int main(void)
{
	mcount_set_callback(on_call);
	mcount_enable_name("square");
	printf("%d\n", square(3) + square(4));
	mcount_disable_name("square");
	printf("%d\n", square(5));
	return 0;
}
