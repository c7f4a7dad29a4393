/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * demangle.h - a demangled C++ function name cut to the name alone
 * (mctrace/demangle.c), for --demangle=simple.
 */
#ifndef MCTRACE_DEMANGLE_H
#define MCTRACE_DEMANGLE_H

#include <stdbool.h>

/*
 * `full` (as __cxa_demangle gives it) without return type, template
 * arguments, parameters and qualifiers: a malloc'ed string, `full`'s copy
 * where it does not read as a function's name; NULL if out of memory.
 */
char *demangle_simple(const char *full);

#endif
