/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fail.c - how the object model reports a failure: a one-line reason
 * kept in obj->error for the caller to print (the model never prints).
 * A leaf: every other file of elf/ calls it, and it calls none of them.
 */
#include "object.h"
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

bool mc_fail(struct mc_object *obj, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(obj->error, sizeof(obj->error), fmt, ap);
	va_end(ap);
	return false;
}

bool mc_fail_elf(struct mc_object *obj, const char *what)
{
	return mc_fail(obj, "%s: %s", what, elf_errmsg(-1));
}
