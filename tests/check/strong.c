/* SPDX-License-Identifier: GPL-2.0-only */
/* strong.c - overrides prog.c's weak function; more traced code. */
__attribute__((noinline)) int strong_or_weak(int x) { return x + 7; }
__attribute__((noinline)) int other(int x) { return strong_or_weak(x) * 5; }
