/* SPDX-License-Identifier: MIT */
/*
 * dead.c - code nothing calls, linked only into the --gc-sections build
 * of the firmware (FW_GC=1 in build.sh): the linker must drop it, and
 * with it its table entries, so that the image's table holds main.o's
 * and work.o's entries and no others.  Compiled with hooks.
 */
int dead_sum(int n);
int dead_twice(int x);

__attribute__((noipa)) int dead_twice(int x)
{
	return x + x;
}

int dead_sum(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += dead_twice(i);
	return sum;
}
