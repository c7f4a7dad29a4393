/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bigtoc.c - ppc64le only: 80 KB of TOC data, linked into liba.so so
 * that its PLT slots lie beyond the 32 KiB a stub's `ld r12,lo(r2)`
 * reaches, and GNU ld writes its long call stub, `addis r12,r2,ha;
 * ld r12,lo(r12)`, which the runtime must decode too (run.sh checks
 * that it did).
 */
__attribute__((used, section(".toc"))) static long toc_pad[10000] = { 1 };
