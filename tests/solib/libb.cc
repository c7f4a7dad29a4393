/* SPDX-License-Identifier: GPL-2.0-only */
// libb.cc - a C++ library linked at start-up: inline and template
// functions land in COMDAT groups.
#include <vector>

template <typename T> static inline T sb_sum_of(const std::vector<T> &v)
{
	T s = 0;
	for (const T &x : v)
		s += x;
	return s;
}

struct SbBox {
	int v;
	int get() const { return v; }
};

extern "C" int sb_sum(int n)
{
	std::vector<int> v;
	for (int i = 0; i < n; i++)
		v.push_back(SbBox{i}.get());
	return sb_sum_of(v);
}
