/* SPDX-License-Identifier: GPL-2.0-only */
int twice(int x) { return 2 * x; }
int add(int x, int y) { return x + y; }
