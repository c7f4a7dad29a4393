/* SPDX-License-Identifier: MIT */
/*
 * names.c - the by-name and glob API (mcount_enable_name,
 * mcount_enable_glob, ...) over the engine's by-address one, from the
 * loaded objects' symbols.
 *
 * Names: "fn" is the first object in load order (the program, then the
 * libraries as loaded) that defines fn; "obj:fn" is obj's, where obj is
 * the object's file name, its full path, or a prefix of its file name
 * followed by a dot ("libz.so" for libz.so.1.3).
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "linux.h"

/* True if `want` names `obj` (see the top of this file). */
static bool obj_named(const struct host_obj *obj, const char *want, size_t n)
{
	const char *base = strrchr(obj->name, '/');

	base = base ? base + 1 : obj->name;
	if ((strlen(obj->name) == n && memcmp(obj->name, want, n) == 0) ||
	    (strlen(base) == n && memcmp(base, want, n) == 0))
		return true;
	return strncmp(base, want, n) == 0 && base[n] == '.';
}

/*
 * Split "obj:fn" into the object part (*obj, *obj_len) and the function
 * part, returned; no colon: *obj NULL.  C++ names hold "::", never a
 * single colon, so the last colon not part of "::" splits.
 */
static const char *split_name(const char *name, const char **obj,
			      size_t *obj_len)
{
	const char *colon = NULL;

	for (const char *p = name; *p; p++) {
		if (p[0] == ':' && p[1] == ':') {
			p++;
			continue;
		}
		if (*p == ':')
			colon = p;
	}
	*obj = colon ? name : NULL;
	*obj_len = colon ? (size_t)(colon - name) : 0;
	return colon ? colon + 1 : name;
}

/* The function `name` ("fn" or "obj:fn"): 0, MCOUNT_ENOSYM or _ENOSYMTAB. */
static int sym_by_name(const char *name, uintptr_t *start)
{
	const char *obj_want, *fn = NULL;
	size_t obj_len;
	int err = MCOUNT_ENOSYMTAB;

	fn = split_name(name, &obj_want, &obj_len);
	if (!mc_host_objs_read())
		return MCOUNT_ENOSYMTAB;
	for (size_t k = 0; k < mc_host_nobjs && err; k++) {
		struct host_obj *obj = &mc_host_objs[k];
		const struct host_syms *syms;

		if (!obj->phdr || (obj_want && !obj_named(obj, obj_want, obj_len)))
			continue;
		if (!obj_want && !obj->image)
			continue;	/* only objects with tables, unnamed */
		syms = mc_host_obj_syms(obj);
		if (!syms || !syms->n)
			continue;
		err = MCOUNT_ENOSYM;
		for (size_t i = 0; i < syms->n; i++) {
			if (strcmp(syms->v[i].name, fn) == 0) {
				*start = syms->v[i].start;
				err = 0;
				break;
			}
		}
	}
	mc_host_objs_done();
	return err;
}

static int set_by_name(const char *name, bool on)
{
	uintptr_t start;
	int err = sym_by_name(name, &start);

	if (err)
		return err;
	return on ? mcount_enable(start) : mcount_disable(start);
}

int mcount_enable_name(const char *name)
{
	return set_by_name(name, true);
}

int mcount_disable_name(const char *name)
{
	return set_by_name(name, false);
}

/*
 * Every function whose name matches `pattern` (fnmatch(3); "obj:pat"
 * for one object's), in every object with a table, in one batch; those
 * without a hook are passed over.  Returns how many hooked ones are now
 * in the state asked for, or an error.
 */
static int set_by_glob(const char *pattern, bool on)
{
	const char *obj_want, *pat;
	uintptr_t *funcs = NULL;
	size_t n = 0, cap = 0, obj_len;
	bool any = false;
	int r = 0;

	pat = split_name(pattern, &obj_want, &obj_len);
	if (!mc_host_objs_read())
		return MCOUNT_ENOSYMTAB;
	for (size_t k = 0; k < mc_host_nobjs && !r; k++) {
		struct host_obj *obj = &mc_host_objs[k];
		const struct host_syms *syms;

		if (!obj->phdr || !obj->image ||
		    (obj_want && !obj_named(obj, obj_want, obj_len)))
			continue;
		syms = mc_host_obj_syms(obj);
		if (!syms || !syms->n)
			continue;
		any = true;
		for (size_t i = 0; i < syms->n && !r; i++) {
			uintptr_t *more;

			if (fnmatch(pat, syms->v[i].name, 0) != 0)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				more = realloc(funcs, cap * sizeof(*funcs));
				if (!more) {
					r = MCOUNT_ENOMEM;
					break;
				}
				funcs = more;
			}
			funcs[n++] = syms->v[i].start;
		}
	}
	mc_host_objs_done();
	if (!r)
		r = n ? mc_rt_set_many(funcs, n, on, true) :
		    any ? MCOUNT_ENOSYM : MCOUNT_ENOSYMTAB;
	free(funcs);
	return r;
}

int mcount_enable_glob(const char *pattern)
{
	return set_by_glob(pattern, true);
}

int mcount_disable_glob(const char *pattern)
{
	return set_by_glob(pattern, false);
}
