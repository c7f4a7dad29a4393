/* SPDX-License-Identifier: GPL-2.0-only */
// The C++ main of the CMake case: prints what main.c prints (sites the
// runtime found and patched, whether tracing thrice() works, 13), from
// code the C++ compiler made: a function template and an inline member
// function, each emitted in a COMDAT group of its own, and main itself.
// Without CMAKE_CXX_COMPILER_LAUNCHER their hooks are in no table.
#include <cstdio>

#include <mcount.h>

extern "C" int thrice(int x);

// noinline, noclone: at -O2 GCC would otherwise fold them into main, or
// into a local clone outside the COMDAT group.
template <int N> __attribute__((noinline, noclone)) int times(int x) { return N * x; }

struct Scale {
	int k;
	__attribute__((noinline, noclone)) int apply(int x) const { return k * x; }
};

static int calls;

MCOUNT_NOTRACE static void on_call(unsigned long func, unsigned long caller)
{
	(void)func;
	(void)caller;
	calls++;
}

int main()
{
	struct mcount_counts c;

	mcount_get_counts(&c);
	mcount_set_callback(on_call);
	if (mcount_enable_name("thrice"))
		calls = -1;	// not found: no table, or no site in it
	const Scale s{2};
	int r = times<2>(1) + s.apply(1) + thrice(3);
	std::printf("sites=%zu patched=%zu refused=%zu traced=%d result=%d\n",
		    c.sites, c.patched, c.refused, calls, r);
	return 0;
}
