/* SPDX-License-Identifier: MIT */
/*
 * linux.h - what the files of the Linux platform layer (runtime/linux/)
 * share, and nothing outside it may use (but the runtime's own tests).
 *
 * The files, from the bottom up: elffile.c reads one object's file
 * (its sections, the PLT entries of the hook stubs); objects.c keeps
 * the list of loaded objects, its lock, their segments, and adds each
 * one's table to the engine; symbols.c loads their function symbols
 * and answers by address; mem.c holds the text window (mprotect),
 * membarrier, allocation and thunk pages; names.c is the by-name and
 * glob API over the engine; loader.c keeps the list in step with the
 * loader (dl_iterate_phdr, dlopen, dlclose), and has the patching lock
 * and fork; autoboot.c is the constructor that boots.  Each file calls
 * only those before it, and of core/ only names.c and autoboot.c call
 * anything by name (the others call back through struct mc_rt_engine),
 * so that no call goes round in a circle.
 */
#ifndef MC_RT_LINUX_H
#define MC_RT_LINUX_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "../client.h"

/* Loaded objects the runtime keeps track of: as many as the engine's. */
#define MC_HOST_MAX_OBJS 256

struct host_syms;		/* symbols.c: one object's function symbols */

/* A program header of a loaded object. */
typedef ElfW(Phdr) host_phdr;

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

/* ---- objects.c ---------------------------------------------------------- */

/*
 * The list, in dl_iterate_phdr's order (the program first, then the
 * libraries as they were loaded); an entry with phdr NULL is free.
 * Read under mc_host_objs_read(), which mc_plat_lock() holders need
 * not take (the list changes only under that lock).
 */
extern struct host_obj mc_host_objs[MC_HOST_MAX_OBJS] MC_RT_HIDDEN;
extern size_t mc_host_nobjs MC_RT_HIDDEN;
/*
 * A read hold on the list (writer first, see objects.c); false, with no
 * hold, on the thread of the writer at work (a signal handler's read).
 * try_read never waits: false, with no hold, while a writer holds the
 * list or waits for it.  Each hold ends with mc_host_objs_done().
 */
MC_RT_HIDDEN bool mc_host_objs_read(void);
MC_RT_HIDDEN bool mc_host_objs_try_read(void);
MC_RT_HIDDEN void mc_host_objs_done(void);
/* In a child after fork: the list's lock starts afresh. */
MC_RT_HIDDEN void mc_host_objs_fork(void);

/* The object one of whose PT_LOAD segments holds `addr`, or NULL. */
MC_RT_HIDDEN struct host_obj *mc_host_obj_of(uintptr_t addr);
/* The PT_LOAD segment of `o` holding `addr`, or NULL. */
MC_RT_HIDDEN const host_phdr *mc_host_obj_segment(const struct host_obj *o,
						  uintptr_t addr);
/*
 * The PT_LOAD segment holding `addr`, and its object's bias, or NULL
 * (the last answer kept, for the boot pass's sorted questions).
 */
MC_RT_HIDDEN const host_phdr *mc_host_segment_of(uintptr_t addr,
						 uintptr_t *bias);

/* The entry for an object at `phdr`, or NULL. */
MC_RT_HIDDEN struct host_obj *mc_host_obj_by_phdr(const ElfW(Phdr) *phdr);
/* A new entry for `info`'s object, in the first free place; NULL if full. */
MC_RT_HIDDEN struct host_obj *mc_host_obj_new(const struct dl_phdr_info *info);
/* Forget `o`, and its image first. */
MC_RT_HIDDEN void mc_host_obj_free(struct host_obj *o);
/*
 * The engine boots `o`'s table, if it has one: 1 if it did, 0 if there
 * is none, else the error (said).
 */
MC_RT_HIDDEN int mc_host_obj_add_image(struct host_obj *o);

/*
 * This copy of the runtime is the process's (the first in load order
 * to carry its note): asked once, at boot.  Owned: it booted as such.
 */
MC_RT_HIDDEN bool mc_host_first_runtime(void);
/* The engine's registry, which objects are added to and removed from. */
MC_RT_HIDDEN void mc_host_set_engine(const struct mc_rt_engine *e);
MC_RT_HIDDEN void mc_host_set_owned(void);
MC_RT_HIDDEN bool mc_host_owned(void);
/* The image hooks' `settled`, if set. */
MC_RT_HIDDEN void mc_host_images_settled(void);

/* ---- elffile.c ---------------------------------------------------------- */

/* n bytes at off, in fresh memory; NULL on a short read. */
MC_RT_HIDDEN void *mc_host_read_at(int fd, off_t off, size_t n);

/* A file's section headers and their names. */
struct shdrs {
	ElfW(Ehdr) eh;
	ElfW(Shdr) *sh;
	char *names;
	size_t names_size;
};
MC_RT_HIDDEN bool mc_host_read_shdrs(int fd, struct shdrs *h);
MC_RT_HIDDEN void mc_host_free_shdrs(struct shdrs *h);

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

/* ---- symbols.c ---------------------------------------------------------- */

struct func_sym {
	uintptr_t start;	/* run-time address */
	size_t size;
	const char *name;	/* into strtab */
};

/* One object's function symbols, sorted by address. */
struct host_syms {
	struct func_sym *v;
	size_t n;
	char *strtab;
};

/* `obj`'s symbols, loaded on first use.  Under mc_host_objs_read(). */
MC_RT_HIDDEN const struct host_syms *mc_host_obj_syms(struct host_obj *obj);

/*
 * The function symbol containing `addr` (run-time address), from its
 * object's .symtab (else .dynsym).  False if none.
 */
MC_RT_HIDDEN bool mc_host_sym_by_addr(uintptr_t addr, uintptr_t *start,
				      size_t *size, const char **name);

/* In a child after fork: the symbols' lock starts afresh. */
MC_RT_HIDDEN void mc_host_syms_fork(void);

/* ---- mem.c -------------------------------------------------------------- */

/* membarrier's SYNC_CORE registered, once (at boot; again after fork). */
MC_RT_HIDDEN void mc_host_sync_register(void);
MC_RT_HIDDEN void mc_host_sync_fork(void);

#endif
