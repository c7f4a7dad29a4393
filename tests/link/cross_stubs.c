/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cross_stubs.c - every architecture's hook symbol, compiled without
 * hooks, so that cross_gc.c links with no C library.  Never called:
 * the test only reads the linked image.
 */
void _mcount(void) {}
void mcount(void) {}
void __gnu_mcount_nc(void) {}
void __fentry__(void) {}
