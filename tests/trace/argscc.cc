// SPDX-License-Identifier: GPL-2.0-only
// argscc.cc - C++ functions whose arguments mctrace record -A/-R
// captures by their demangled names (tests/trace/args.sh): functions
// in a namespace, picked by a glob, and a method (its `this` is arg1).  Each
// prints what it was given and returns, as args.c's functions do.
#include <cstdio>

#define NOINLINE __attribute__((noinline))

namespace shapes {
NOINLINE int area(int w, int h)
{
	int r = w * h;

	std::printf("shapes::area(%d, %d) = %d\n", w, h, r);
	return r;
}

NOINLINE long square(long side)
{
	long r = side * side;

	std::printf("shapes::square(%ld) = %ld\n", side, r);
	return r;
}

struct Box {
	int w;
	NOINLINE int scaled(int k) const
	{
		int r = w * k;

		std::printf("shapes::Box::scaled(%p, %d) = %d\n",
			    static_cast<const void *>(this), k, r);
		return r;
	}
};
}

int main()
{
	shapes::Box b{ 7 };
	int sum = shapes::area(3, -4) + (int)shapes::square(-9L);

	sum += b.scaled(-6);
	return sum == 0;
}
