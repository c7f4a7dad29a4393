/* SPDX-License-Identifier: GPL-2.0-only */
/* hooks.c - compiled without hooks: every architecture's hook symbol,
 * never called at run time (the images are judged, not run), and the
 * entry point of a -nostdlib link. */
void __fentry__(void) {}
void mcount(void) {}
void _mcount(void) {}
void __gnu_mcount_nc(void) {}
int main(void);
void _start(void) { main(); for (;;) ; }
