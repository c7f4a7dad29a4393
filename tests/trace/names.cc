// SPDX-License-Identifier: GPL-2.0-only
// names.cc - C++ functions of every kind of name uftrace shortens:
// namespaces, classes and their methods, constructors and destructors,
// templates (their instances merged under one name), overloads, operators,
// a lambda, an anonymous namespace, an ABI-tagged function.  For
// tests/trace/uftrace.sh: uftrace's report of it is the oracle of ours.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace geo {
struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
};
struct Square : Shape {
	double s;
	explicit Square(double s) : s(s) {}
	double area() const override { return s * s; }
};
struct Circle : Shape {
	double r;
	explicit Circle(double r) : r(r) {}
	double area() const override { return 3 * r * r; }
};
template <typename T> T sum(const std::vector<Shape *> &v)
{
	T t = 0;
	for (const Shape *p : v)
		t += (T)p->area();
	return t;
}
} // namespace geo

struct Money {
	long cents;
	Money &operator+=(const Money &o) { cents += o.cents; return *this; }
	bool operator<(const Money &o) const { return cents < o.cents; }
	long operator()(int k) const { return cents * k; }
};

namespace {
int hidden(int x) { return x * 3 + 1; }
}

int twice(int x) { return 2 * x; }
double twice(double x) { return 2 * x; }
std::string label(int i) { return "n" + std::to_string(i); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	std::vector<geo::Shape *> v;
	Money m{0}, one{1};
	long total = 0;

	for (int i = 0; i < n; i++) {
		if (i & 1)
			v.push_back(new geo::Square(i));
		else
			v.push_back(new geo::Circle(i));
		m += one;
		total += m(2) + (m < one) + hidden(i) + twice(i) +
			 (long)twice(0.5 * i) + (long)label(i).size();
	}
	auto f = [&](int k) { return total + k; };
	total += f(1);
	total += geo::sum<int>(v) + (long)geo::sum<double>(v);
	for (geo::Shape *p : v)
		delete p;
	printf("%ld\n", total);
	return 0;
}
