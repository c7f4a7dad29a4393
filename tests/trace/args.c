// SPDX-License-Identifier: GPL-2.0-only
/*
 * args.c - functions whose arguments and return values mctrace record
 * -A/-R captures (tests/trace/args.sh), each printing what it was
 * given and returns: the oracle the recording is compared with, beside
 * uftrace's own recording of the same program.
 *
 *   args [bad]   bad: also a null and an unmapped string pointer
 *
 * A line per call, at its return: "name(arg, ...) = value", strings
 * quoted, as mctrace replay shows them.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int add(int a, int b)
{
	int r = a + b;

	printf("add(%d, %d) = %d\n", a, b, r);
	return r;
}

NOINLINE long six(long a, long b, long c, long d, long e, long f)
{
	long r = a - b + c - d + e - f;

	printf("six(%ld, %ld, %ld, %ld, %ld, %ld) = %ld\n", a, b, c, d, e, f,
	       r);
	return r;
}

NOINLINE unsigned mask(unsigned x, unsigned long long y)
{
	unsigned r = x & 0xff00ff;

	printf("mask(0x%x, %llu) = 0x%x\n", x, y, r);
	return r;
}

/* The string's length, printed quoted; not read if it is not there. */
NOINLINE int say(const char *s, int readable)
{
	int r = readable ? (int)strlen(s) : -1;

	if (readable)
		printf("say(\"%s\", %d) = %d\n", s, readable, r);
	else if (!s)
		printf("say((null), %d) = %d\n", readable, r);
	else
		printf("say(<bad %p>, %d) = %d\n", (const void *)s, readable,
		       r);
	return r;
}

/* A string returned. */
NOINLINE const char *pick(int i)
{
	static const char *const words[] = { "zero", "one", "two" };
	const char *r = words[i % 3];

	printf("pick(%d) = \"%s\"\n", i, r);
	return r;
}

NOINLINE int fact(int n)
{
	int r = n <= 1 ? 1 : n * fact(n - 1);

	printf("fact(%d) = %d\n", n, r);
	return r;
}

int main(int argc, char **argv)
{
	static char longer[100];
	int sum = 0;

	memset(longer, 'x', sizeof(longer) - 1);
	sum += add(-3, 5) + add(-2147483647, -1) + add(40, 2);
	sum += (int)six(1, -2, 3, -4, 5, -6);
	sum += (int)mask(0xdeadbeef, 18446744073709551615ull);
	sum += say("hello", 1) + say("tab\there \"q\"", 1) + say("", 1);
	sum += fact(5);
	sum += (int)strlen(pick(1)) + (int)strlen(pick(5));
	if (argc > 1 && !strcmp(argv[1], "bad")) {
		void *page = mmap(NULL, 4096, PROT_NONE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		sum += say(NULL, 0);
		if (page != MAP_FAILED)
			sum += say((const char *)page + 16, 0);
		sum += say(longer, 1);
	}
	return sum == 0;
}
