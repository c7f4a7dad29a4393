/* SPDX-License-Identifier: MIT */
/*
 * none.c - the recorder's stand-in on architectures that have no return
 * trampoline yet (those not in recorder.mk's REC_ARCHES): recording is
 * refused at start (start.c says so on stderr), never done wrong.
 */
#define _GNU_SOURCE
#include "recorder.h"

const bool rec_arch_ok = false;
#if defined(__aarch64__)
const char rec_arch_name[] = "aarch64";
#elif defined(__i386__)
const char rec_arch_name[] = "i386";
#elif defined(__arm__)
const char rec_arch_name[] = "arm";
#elif defined(__riscv)
const char rec_arch_name[] = "riscv64";
#elif defined(__powerpc64__)
const char rec_arch_name[] = "ppc64le";
#elif defined(__s390x__)
const char rec_arch_name[] = "s390x";
#else
const char rec_arch_name[] = "this architecture";
#endif

/* Never written into a frame: rec_entry is never installed here. */
void rec_return_tramp(void)
{
}
