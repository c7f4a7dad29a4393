/* SPDX-License-Identifier: GPL-2.0-only */
/* main.c - calls prog.c's functions; links in place of strong.c when
 * the weak function should stay. */
int sum(int n);
int main(void) { return sum(3) & 1; }
