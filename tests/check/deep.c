/* SPDX-License-Identifier: GPL-2.0-only */
/* deep.c - a function whose -pg hook call comes after a long prologue
 * (twelve arguments live across calls, a 64 KiB frame, built with
 * -fstack-protector-all): past the entry window --check reads first.
 * With -DDEEP_STUBS, built without -pg: what the link needs besides. */
#ifdef DEEP_STUBS
long __stack_chk_guard = 0x5a5a;
void __stack_chk_fail(void) { for (;;) ; }
__attribute__((noinline)) int g(int a, int b, int c, int d, int e, int f,
				int h, int i, int j, int k, int l, int m)
{
	return a + b + c + d + e + f + h + i + j + k + l + m;
}
#else
int g(int a, int b, int c, int d, int e, int f, int h, int i, int j, int k,
      int l, int m);

int deep(int a, int b, int c, int d, int e, int f, int h, int i, int j,
	 int k, int l, int m)
{
	volatile char buf[65536];
	int x1 = g(a, b, c, d, e, f, h, i, j, k, l, m);
	int x2 = g(x1, b, c, d, e, f, h, i, j, k, l, m);
	int x3 = g(x2, x1, c, d, e, f, h, i, j, k, l, m);
	int x4 = g(x3, x2, x1, d, e, f, h, i, j, k, l, m);

	buf[a & 0xffff] = 1;
	return x1 + x2 + x3 + x4 + a + b + c + d + e + f + h + i + j + k + l +
	       m + buf[b & 0xffff];
}

int main(void)
{
	return deep(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
}
#endif
