/* SPDX-License-Identifier: MIT */
/*
 * hosted.h - shared between the two files of the Linux platform layer
 * (hosted.c: objects, memory, locks, dlopen; hostsym.c: sections and
 * symbols).  Private to runtime/.
 */
#ifndef MC_RT_HOSTED_H
#define MC_RT_HOSTED_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/* Loaded objects the runtime keeps track of: as many as the engine's. */
#define MC_HOST_MAX_OBJS 256

struct host_syms;		/* hostsym.c: one object's function symbols */

/*
 * One loaded object, as dl_iterate_phdr showed it.  Entries are added
 * and removed under the patching lock and, for readers that do not
 * hold it (mcount_func_name), the object list's write lock.
 */
struct host_obj {
	uintptr_t bias;		/* what its addresses are shifted by */
	const ElfW(Phdr) *phdr;	/* its program headers, as mapped: the
				   handle the engine knows it by, never
				   read (dlclose unmaps them before the
				   list forgets the object) */
	ElfW(Phdr) *segs;	/* a copy of them, to read */
	size_t phnum;
	char *file;		/* to read: "/proc/self/exe" for the program */
	char *name;		/* to show and match: the file's real path */
	struct host_syms *syms;	/* loaded on first use, under syms_lock */
	int syms_state;		/* atomic: 0 not loaded, 1 loaded */
	bool image;		/* the engine has an image of it */
	bool seen;		/* found by the current scan */
};

/*
 * The list, in dl_iterate_phdr's order (the program first, then the
 * libraries as they were loaded); an entry with phdr NULL is free.
 * Read under mc_host_objs_read(), which mc_plat_lock() holders need
 * not take (the list changes only under that lock).
 */
extern struct host_obj mc_host_objs[MC_HOST_MAX_OBJS] MC_RT_HIDDEN;
extern size_t mc_host_nobjs MC_RT_HIDDEN;
/*
 * A read hold on the list (writer first, see hosted.c); false, with no
 * hold, on the thread of the writer at work (a signal handler's read).
 * try_read never waits: false, with no hold, while a writer holds the
 * list or waits for it.  Each hold ends with mc_host_objs_done().
 */
MC_RT_HIDDEN bool mc_host_objs_read(void);
MC_RT_HIDDEN bool mc_host_objs_try_read(void);
MC_RT_HIDDEN void mc_host_objs_done(void);

/* The object one of whose PT_LOAD segments holds `addr`, or NULL. */
MC_RT_HIDDEN struct host_obj *mc_host_obj_of(uintptr_t addr);

/*
 * The non-empty allocated section called `name` of `obj`'s file, at its
 * run-time address: 1 if found, 0 if there is none, 2 if there are
 * several, -1 if the file's section headers cannot be read (errno may
 * say why).
 */
MC_RT_HIDDEN int mc_host_section(const struct host_obj *obj, const char *name,
				 uintptr_t *addr, size_t *size);

/*
 * The PLT entries of `obj` that jump through a slot its dynamic
 * relocations bind to one of the hook stubs: into d->stub, with their
 * styles (backends with MC_RT_PLT_ARCH only).
 */
MC_RT_HIDDEN void mc_host_plt_stubs(const struct host_obj *obj,
				    struct mc_rt_image_desc *d);

/*
 * The function symbol containing `addr` (run-time address), from its
 * object's .symtab (else .dynsym).  False if none.  `obj` receives the
 * object when not NULL.
 */
MC_RT_HIDDEN bool mc_host_sym_by_addr(uintptr_t addr, uintptr_t *start,
				      size_t *size, const char **name);

/*
 * The name of the function containing `addr`, copied into `buf` (`len`
 * bytes, cut if longer) while the list cannot change: unlike
 * mcount_func_name's, it outlives the library.  False if none.
 */
MC_RT_HIDDEN bool mc_host_func_name_copy(uintptr_t addr, char *buf,
					 size_t len);

/*
 * Each function symbol of `obj`: fn(start, size, name, arg), the name
 * valid only during the call.  Under the patching lock.
 */
MC_RT_HIDDEN void mc_host_obj_funcs(struct host_obj *obj,
				    void (*fn)(uintptr_t start, size_t size,
					       const char *name, void *arg),
				    void *arg);

/* The span of `obj`'s PT_LOAD segments, [*lo, *hi). */
MC_RT_HIDDEN void mc_host_obj_span(const struct host_obj *obj, uintptr_t *lo,
				   uintptr_t *hi);

/*
 * Who wants to know of the images that come and go after boot (the
 * recorder, which must name an unloaded library's functions and set a
 * new one's sites).  `added`: under the patching lock, an object's image
 * was just added, its sites disabled, nothing can run its code yet.
 * `removed`: under the lock, an image's object is gone (its text may be
 * unmapped; its entry, symbols included, is still there).  `settled`:
 * outside the lock, before the dlopen that loaded something returns.
 * Any may be NULL; set once, before threads that load libraries start.
 */
struct mc_host_image_hooks {
	void (*added)(struct host_obj *obj);
	void (*removed)(struct host_obj *obj);
	void (*settled)(void);
};
MC_RT_HIDDEN void mc_host_set_image_hooks(const struct mc_host_image_hooks *h);

/* `obj`'s symbols are no longer needed (it is being unloaded). */
MC_RT_HIDDEN void mc_host_syms_free(struct host_obj *obj);

/* In a child after fork: the symbols' lock starts afresh. */
MC_RT_HIDDEN void mc_host_syms_fork(void);

#endif
