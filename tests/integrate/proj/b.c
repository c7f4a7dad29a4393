/* SPDX-License-Identifier: GPL-2.0-only */
int add(int x, int y);
int thrice(int x) { return add(x, add(x, x)); }
