/* SPDX-License-Identifier: MIT */
/*
 * demangle.h - a demangled C++ function name cut to the name alone
 * (recorder/demangle.c): what the recorder's filters match and what
 * mctrace shows by default (--demangle=simple).  Hidden in libmcount.
 */
#ifndef REC_DEMANGLE_H
#define REC_DEMANGLE_H

#include <stdbool.h>

/*
 * `full` (as __cxa_demangle gives it) without return type, template
 * arguments, parameters and qualifiers: a malloc'ed string, `full`'s copy
 * where it does not read as a function's name; NULL if out of memory.
 */
__attribute__((visibility("hidden")))
char *rec_demangle_simple(const char *full);
/*
 * `full` past its return type (a template function's), which a glob
 * naming a scope must not match: "std::__relocate_a<geo::Shape**>(...)"
 * of "geo::Shape** std::__relocate_a<geo::Shape**>(...)".
 */
__attribute__((visibility("hidden")))
const char *rec_demangle_sans_return(const char *full);

#endif
