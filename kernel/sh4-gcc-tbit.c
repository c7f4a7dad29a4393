/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel/sh4-gcc-tbit.c - why the sh4 kernel does not boot here
 * (kernel/README.md, "sh4"; check.sh compiles it with lib.sh's
 * BOOT_BLOCKER_CHECK).
 *
 * GCC 12.2 for SH at -Os or -O2 drops the test of `out` below: after
 * the call it branches on the T bit with no tst or cmp to set it, so
 * the branch reads whatever the callee left in T.  The zImage's
 * decompressor has this shape (its output pointer, a global set before
 * a call and tested for NULL after it) and goes into its error loop
 * before it prints anything.  check.sh counts the tst/cmp instructions
 * of the assembly: 0 while the compiler has the flaw.
 */
extern void prepare(void);
extern void fail(void);
unsigned char *out;

int first_byte(void)
{
	out = (unsigned char *)0xa0001000;
	prepare();
	if (!out)
		fail();
	return *out;
}
