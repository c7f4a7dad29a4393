// SPDX-License-Identifier: GPL-2.0-only
// throw.cc - C++ exceptions thrown through traced frames, caught
// further up, rethrown, and with destructors to run on the way.
#include <cstdio>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

volatile int sink;
NOINLINE int leaf(int x) { sink += x; return x + 1; }
struct Guard { ~Guard() { leaf(100); } };

NOINLINE void thrower(int n)
{
	Guard g;
	if (n == 0)
		throw std::runtime_error("deep");
	thrower(n - 1);
	leaf(n);
}

NOINLINE int catcher(int n)
{
	try {
		thrower(n);
	} catch (const std::exception &) {
		return leaf(1);
	}
	return 0;
}

NOINLINE int rethrower(void)
{
	try {
		try {
			thrower(2);
		} catch (...) {
			leaf(2);
			throw;
		}
	} catch (const std::runtime_error &) {
		return leaf(3);
	}
	return 0;
}

int main()
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += catcher(i + 2);
	s += rethrower();
	std::printf("%d %d\n", s, (int)sink);
	return 0;
}
