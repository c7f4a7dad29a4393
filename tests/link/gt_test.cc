/* SPDX-License-Identifier: GPL-2.0-only */
// gt_test.cc - tests for the googletest program of check-link: inline
// functions and templates (COMDAT groups) of our own, on top of the
// ones gtest-all.cc and the standard library bring.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

template <typename T> T twice(const T &x)
{
	return x + x;
}

inline int inline_square(int x)
{
	return x * x;
}

TEST(Link, Templates)
{
	EXPECT_EQ(twice(21), 42);
	EXPECT_EQ(twice(std::string("ab")), "abab");
}

TEST(Link, Containers)
{
	std::map<std::string, std::vector<int>> m{{"a", {1, 2}}, {"b", {3}}};

	EXPECT_EQ(m.size(), 2u);
	EXPECT_EQ(m["a"].size(), 2u);
	EXPECT_EQ(inline_square(7), 49);
}
