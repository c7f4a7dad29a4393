/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lazy_many.c - 6,000 small hooked functions for lazy_enomem.c: enough
 * sites that their records (32 bytes each on a 64-bit target, 20 on a
 * 32-bit one) are a block the runtime maps rather than takes from the
 * heap (linux/mem.c: from 64 KiB).  Each returns
 * a value of its own, so that none is folded into another.
 */
#define MANY_FN(a, b, c)						\
	__attribute__((noinline)) long many_##a##b##c(long x)	\
	{								\
		return x ^ (a * 1000 + b * 100 + c + 1);		\
	}
#define MANY_C(a, b)							\
	MANY_FN(a, b, 0) MANY_FN(a, b, 1) MANY_FN(a, b, 2)		\
	MANY_FN(a, b, 3) MANY_FN(a, b, 4) MANY_FN(a, b, 5)		\
	MANY_FN(a, b, 6) MANY_FN(a, b, 7) MANY_FN(a, b, 8)		\
	MANY_FN(a, b, 9)
#define MANY_B(a)							\
	MANY_C(a, 0) MANY_C(a, 1) MANY_C(a, 2) MANY_C(a, 3)		\
	MANY_C(a, 4) MANY_C(a, 5) MANY_C(a, 6) MANY_C(a, 7)		\
	MANY_C(a, 8) MANY_C(a, 9)

MANY_B(0) MANY_B(1) MANY_B(2) MANY_B(3) MANY_B(4) MANY_B(5) MANY_B(6)
MANY_B(7) MANY_B(8) MANY_B(9) MANY_B(10) MANY_B(11) MANY_B(12)
MANY_B(13) MANY_B(14) MANY_B(15) MANY_B(16) MANY_B(17) MANY_B(18)
MANY_B(19) MANY_B(20) MANY_B(21) MANY_B(22) MANY_B(23) MANY_B(24)
MANY_B(25) MANY_B(26) MANY_B(27) MANY_B(28) MANY_B(29) MANY_B(30)
MANY_B(31) MANY_B(32) MANY_B(33) MANY_B(34) MANY_B(35) MANY_B(36)
MANY_B(37) MANY_B(38) MANY_B(39) MANY_B(40) MANY_B(41) MANY_B(42)
MANY_B(43) MANY_B(44) MANY_B(45) MANY_B(46) MANY_B(47) MANY_B(48)
MANY_B(49) MANY_B(50) MANY_B(51) MANY_B(52) MANY_B(53) MANY_B(54)
MANY_B(55) MANY_B(56) MANY_B(57) MANY_B(58) MANY_B(59)
