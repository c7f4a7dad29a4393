/* SPDX-License-Identifier: MIT */
/*
 * objects.c - the loaded objects the runtime knows: their list and its
 * lock, their segments (what the engine may read and write: a bad
 * table entry pointing outside an object's code is refused, never
 * dereferenced), where each one's table is, and adding each one with a
 * table to the engine as an image (and removing it).
 *
 * Every loaded object is an image of the engine's when its file has a
 * table: the program and the shared libraries linked at start-up,
 * found at boot, and libraries loaded later, added before their dlopen
 * returns and removed by dlclose (loader.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux.h"
#include "../../arch/sections.h"

struct host_obj mc_host_objs[MC_HOST_MAX_OBJS];
size_t mc_host_nobjs;

/*
 * The list's lock.  Readers that do not hold the patching lock
 * (mcount_func_name, from any thread) share it; the one writer (a
 * dlopen or dlclose, which holds the patching lock too) excludes them.
 * One word: the count of read holds, and the writer's two bits.
 *
 * Writer first: once a writer waits, a new reader waits behind it, so
 * threads asking names without pause cannot hold a dlopen back for as
 * long as their holds overlap (glibc's rwlock lets readers in past a
 * waiting writer).  Except a read nested in a read of its own thread,
 * held or being taken (a signal handler's lookup, or the callback's,
 * run from inside one): the waiting writer waits for that very thread,
 * so the nested read waits only for a writer that holds the list.  And
 * a read on the writer's own thread (a signal handler's, while the
 * writer is at work) gets no hold and no answer rather than waiting
 * for itself.
 */
#define OBJS_WRITER_HOLDS 0x80000000u
#define OBJS_WRITER_WAITS 0x40000000u
#define OBJS_READERS 0x3fffffffu

static unsigned objs_lock;
static _Thread_local unsigned objs_reads;	/* held or being taken */
static _Thread_local bool objs_writing;

/* futex(2) sleeps while the word is `seen`; errno is the caller's. */
static void objs_sleep(unsigned seen)
{
	int e = errno;

	syscall(SYS_futex, &objs_lock, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
	errno = e;
}

static void objs_wake_all(void)
{
	int e = errno;

	syscall(SYS_futex, &objs_lock, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL,
		0);
	errno = e;
}

/* One read hold, once none of the `blocking` writer bits is set. */
static void objs_enter(unsigned blocking)
{
	unsigned s = __atomic_load_n(&objs_lock, __ATOMIC_RELAXED);

	for (;;) {
		if (s & blocking) {
			objs_sleep(s);
			s = __atomic_load_n(&objs_lock, __ATOMIC_RELAXED);
		} else if (__atomic_compare_exchange_n(&objs_lock, &s, s + 1,
						       true, __ATOMIC_ACQUIRE,
						       __ATOMIC_RELAXED)) {
			return;
		}
	}
}

bool mc_host_objs_read(void)
{
	if (objs_writing)
		return false;
	/* counted first: a signal handler from here on nests */
	if (objs_reads++)
		objs_enter(OBJS_WRITER_HOLDS);
	else
		objs_enter(OBJS_WRITER_HOLDS | OBJS_WRITER_WAITS);
	return true;
}

bool mc_host_objs_try_read(void)
{
	unsigned s = __atomic_load_n(&objs_lock, __ATOMIC_RELAXED);

	if (objs_writing)
		return false;
	objs_reads++;
	while (!(s & (OBJS_WRITER_HOLDS | OBJS_WRITER_WAITS)))
		if (__atomic_compare_exchange_n(&objs_lock, &s, s + 1, true,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	objs_reads--;
	return false;
}

void mc_host_objs_done(void)
{
	unsigned s = __atomic_sub_fetch(&objs_lock, 1, __ATOMIC_RELEASE);

	if (s == OBJS_WRITER_WAITS)
		objs_wake_all();	/* the last reader: the writer's turn */
	objs_reads--;
}

/* Under the patching lock, so one writer at a time. */
static void objs_write(void)
{
	unsigned s;

	objs_writing = true;
	s = __atomic_or_fetch(&objs_lock, OBJS_WRITER_WAITS, __ATOMIC_RELAXED);
	for (;;) {
		if (s & OBJS_READERS) {
			objs_sleep(s);
			s = __atomic_load_n(&objs_lock, __ATOMIC_RELAXED);
		} else if (__atomic_compare_exchange_n(&objs_lock, &s,
						       OBJS_WRITER_HOLDS, true,
						       __ATOMIC_ACQUIRE,
						       __ATOMIC_RELAXED)) {
			return;
		}
	}
}

static void objs_write_done(void)
{
	__atomic_store_n(&objs_lock, 0, __ATOMIC_RELEASE);
	objs_wake_all();
	objs_writing = false;
}

/*
 * The child of a fork has one thread; no writer held the list (writers
 * hold the patching lock, which fork holds).
 */
void mc_host_objs_fork(void)
{
	objs_lock = 0;
}

/* True if `ph`, loaded at `bias`, is a PT_LOAD segment holding `addr`. */
static bool segment_holds(uintptr_t bias, const ElfW(Phdr) *ph,
			  uintptr_t addr)
{
	uintptr_t lo = bias + ph->p_vaddr;

	return ph->p_type == PT_LOAD && addr >= lo && addr - lo < ph->p_memsz;
}

const host_phdr *mc_host_obj_segment(const struct host_obj *o, uintptr_t addr)
{
	for (size_t i = 0; i < o->phnum; i++)
		if (segment_holds(o->bias, &o->segs[i], addr))
			return &o->segs[i];
	return NULL;
}

struct host_obj *mc_host_obj_of(uintptr_t addr)
{
	for (size_t k = 0; k < mc_host_nobjs; k++)
		if (mc_host_objs[k].phdr &&
		    mc_host_obj_segment(&mc_host_objs[k], addr))
			return &mc_host_objs[k];
	return NULL;
}

/*
 * The PT_LOAD segment holding `addr`, and its object's bias, or NULL.
 * The boot pass asks about sorted sites, nearly all in one text
 * segment: the last answer first.  Under the patching lock.
 */
static const ElfW(Phdr) *last_seg;
static uintptr_t last_bias;

const host_phdr *mc_host_segment_of(uintptr_t addr, uintptr_t *bias)
{
	const struct host_obj *o;

	if (last_seg && segment_holds(last_bias, last_seg, addr)) {
		*bias = last_bias;
		return last_seg;
	}
	o = mc_host_obj_of(addr);
	if (!o)
		return NULL;
	last_seg = mc_host_obj_segment(o, addr);
	last_bias = *bias = o->bias;
	return last_seg;
}

void mc_host_obj_span(const struct host_obj *o, uintptr_t *lo, uintptr_t *hi)
{
	*lo = UINTPTR_MAX;
	*hi = 0;
	for (size_t i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->segs[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (o->bias + ph->p_vaddr < *lo)
			*lo = o->bias + ph->p_vaddr;
		if (o->bias + ph->p_vaddr + ph->p_memsz > *hi)
			*hi = o->bias + ph->p_vaddr + ph->p_memsz;
	}
	if (*lo > *hi)
		*lo = *hi = 0;
}

/* The cached answer may point into an object being removed. */
static void forget_segments(void)
{
	last_seg = NULL;
}

size_t mc_plat_mem_avail(uintptr_t addr, bool code)
{
	uintptr_t bias;
	const ElfW(Phdr) *ph = mc_host_segment_of(addr, &bias);

	if (!ph || !(ph->p_flags & PF_R) || (code && !(ph->p_flags & PF_X)))
		return 0;
	return bias + ph->p_vaddr + ph->p_memsz - addr;
}

/*
 * A table linked with no script is an output section the linker made of
 * the pieces, named ".mcount_loc" (recordmcount --per-section: not a C
 * identifier, so that no linker keeps every piece, and so no __start_
 * symbol either; recordmcount/table.c says why) or "__mcount_loc" (one
 * piece per object, or lds/mcount.lds's output section), and it is
 * found by that name in the section headers of its object's file
 * (strip keeps them): the same for the program and every library,
 * whichever linker made it.  Both at once would be two tables, of
 * objects recorded in either form: refused, as is a name with two
 * sections of entries, or a section that is not mapped whole.
 */
static const char *const table_names[] = { MC_TABLE_SECTION_LINKED,
					   MC_TABLE_SECTION };

/*
 * The table of an object built with -fpatchable-function-entry and not
 * recorded: the compiler's own list of its pads, which the linker
 * gathers into one allocated section (relocated like ours in a PIE).
 * Read only when the object has no table of ours.
 */
static int pads_table(const struct host_obj *obj, const uintptr_t **start,
		      const uintptr_t **stop)
{
	uintptr_t addr = 0;
	size_t size = 0;

	if (mc_host_section(obj, "__patchable_function_entries", &addr,
			    &size) != 1 || !size)
		return 0;
	if (size % sizeof(uintptr_t) || addr % sizeof(uintptr_t) ||
	    mc_plat_mem_avail(addr, false) < size)
		return 0;
	*start = (const uintptr_t *)addr;
	*stop = (const uintptr_t *)(addr + size);
	return 1;
}

/* 1 with `obj`'s table, 0 if it has none, -1 if refused (and said why). */
static int obj_table(const struct host_obj *obj, const uintptr_t **start,
		     const uintptr_t **stop)
{
	uintptr_t addr[2] = { 0, 0 };
	size_t size[2] = { 0, 0 };
	size_t k;

	for (k = 0; k < 2; k++) {
		int found = mc_host_section(obj, table_names[k], &addr[k],
					    &size[k]);

		if (found < 0)	/* not a file we can read: no table of ours */
			return 0;
		if (found > 1) {
			fprintf(stderr, "mcount: %s has more than one %s "
				"section with entries: one table in pieces the "
				"runtime cannot join; link with a script (lds/)\n",
				obj->name, table_names[k]);
			return -1;
		}
	}
	if (size[0] && size[1]) {
		fprintf(stderr, "mcount: %s has two tables, %s and %s: link "
			"objects recorded with and without --per-section with "
			"a script (lds/)\n", obj->name, table_names[0],
			table_names[1]);
		return -1;
	}
	k = size[0] ? 0 : 1;
	if (!size[k])
		return pads_table(obj, start, stop);
	if (size[k] % sizeof(uintptr_t) || addr[k] % sizeof(uintptr_t) ||
	    mc_plat_mem_avail(addr[k], false) < size[k]) {
		fprintf(stderr, "mcount: %s's %s (%#lx, %zu bytes) is not a "
			"table this program has mapped\n", obj->name,
			table_names[k], (unsigned long)addr[k], size[k]);
		return -1;
	}
	*start = (const uintptr_t *)addr[k];
	*stop = (const uintptr_t *)(addr[k] + size[k]);
	return 1;
}

/* The Linux build finds every table through mc_plat_images. */
int mc_plat_table(const uintptr_t **start, const uintptr_t **stop)
{
	(void)start;
	(void)stop;
	return 0;
}

/*
 * One runtime per process.  Every copy of the runtime (libmcount.so, or
 * libmcount.a linked into the program or into a library) carries this
 * note, which the linker puts in its object's PT_NOTE segment, where
 * dl_iterate_phdr shows it with no file to read and whatever the
 * object's symbols' visibility.  The copy in the first object in load
 * order that has one (the program, then the libraries as loaded) is the
 * runtime; any other refuses to boot (MCOUNT_EOTHER), and its object's
 * hooks go on calling the stubs it was linked with.  No shared word to
 * claim: the rule needs none, and holds after fork and afresh after exec.
 */
struct rt_note {
	ElfW(Word) namesz, descsz, type;
	char name[8];
	ElfW(Word) desc;
};

#define RT_NOTE_TYPE 0x6d63	/* "mc" */

__attribute__((section(".note.mcount.runtime"), aligned(4), used))
static const struct rt_note rt_note = {
	.namesz = 7, .descsz = 4, .type = RT_NOTE_TYPE,
	.name = "mcount", .desc = 1,
};

/* True if `info`'s object carries a runtime's note. */
static bool has_runtime(const struct dl_phdr_info *info)
{
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (end - p >= (ptrdiff_t)sizeof(struct rt_note)) {
			const struct rt_note *n = (const struct rt_note *)p;

			if (n->type == RT_NOTE_TYPE && n->namesz == 7 &&
			    n->descsz == 4 && memcmp(n->name, "mcount", 7) == 0)
				return true;
			p += sizeof(ElfW(Word)) * 3 + ((n->namesz + 3) & ~3u) +
			     ((n->descsz + 3) & ~3u);
		}
	}
	return false;
}

static int first_runtime(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (!has_runtime(info))
		return 0;
	*(bool *)arg = false;
	for (size_t i = 0; i < info->dlpi_phnum; i++)
		if (segment_holds(info->dlpi_addr, &info->dlpi_phdr[i],
				  (uintptr_t)&rt_note))
			*(bool *)arg = true;
	return 1;
}

bool mc_host_first_runtime(void)
{
	bool mine = true;

	dl_iterate_phdr(first_runtime, &mine);
	return mine;
}

struct host_obj *mc_host_obj_by_phdr(const ElfW(Phdr) *phdr)
{
	for (size_t k = 0; k < mc_host_nobjs; k++)
		if (mc_host_objs[k].phdr == phdr)
			return &mc_host_objs[k];
	return NULL;
}

static char *program_path(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return strdup("/proc/self/exe");
	buf[n] = '\0';
	return strdup(buf);
}

struct host_obj *mc_host_obj_new(const struct dl_phdr_info *info)
{
	struct host_obj *o = NULL;
	bool main_prog = !info->dlpi_name || !*info->dlpi_name;
	char *file, *name;
	ElfW(Phdr) *segs;

	for (size_t k = 0; k < mc_host_nobjs && !o; k++)
		if (!mc_host_objs[k].phdr)
			o = &mc_host_objs[k];
	if (!o && mc_host_nobjs < MC_HOST_MAX_OBJS)
		o = &mc_host_objs[mc_host_nobjs];
	if (!o)
		return NULL;
	file = strdup(main_prog ? "/proc/self/exe" : info->dlpi_name);
	name = main_prog ? program_path() : realpath(info->dlpi_name, NULL);
	if (!name)
		name = strdup(info->dlpi_name);
	/*
	 * Lookups that hold only the list's read lock (mcount_func_name on
	 * any thread) may meet the object after dlclose unmapped it and
	 * before the list forgets it: they read this copy, never the
	 * mapping.
	 */
	segs = malloc(info->dlpi_phnum * sizeof(*segs) + 1);
	if (!file || !name || !segs) {
		free(file);
		free(name);
		free(segs);
		return NULL;
	}
	memcpy(segs, info->dlpi_phdr, info->dlpi_phnum * sizeof(*segs));
	objs_write();
	*o = (struct host_obj){
		.bias = info->dlpi_addr, .phdr = info->dlpi_phdr,
		.segs = segs, .phnum = info->dlpi_phnum, .seen = true,
		.file = file, .name = name,
	};
	if (o == &mc_host_objs[mc_host_nobjs])
		mc_host_nobjs++;
	objs_write_done();
	return o;
}

static struct mc_host_image_hooks image_hooks;
static bool owner;	/* this copy booted as the process's runtime */
static const struct mc_rt_engine *engine;	/* the engine's registry */

void mc_host_set_engine(const struct mc_rt_engine *e)
{
	engine = e;
}

void mc_host_set_owned(void)
{
	owner = true;
}

bool mc_host_owned(void)
{
	return owner;
}

void mc_host_images_settled(void)
{
	if (image_hooks.settled)
		image_hooks.settled();
}

/* `obj`'s symbols are no longer needed (it is being unloaded). */
static void syms_free(struct host_obj *obj)
{
	if (obj->syms) {
		free(obj->syms->v);
		free(obj->syms->strtab);
		free(obj->syms);
	}
	obj->syms = NULL;
	obj->syms_state = 0;
}

void mc_host_set_image_hooks(const struct mc_host_image_hooks *h)
{
	image_hooks = *h;
}

void mc_host_obj_free(struct host_obj *o)
{
	if (o->image) {
		engine->image_remove((uintptr_t)o->phdr);
		if (image_hooks.removed)
			image_hooks.removed(o);
	}
	objs_write();
	syms_free(o);
	free(o->file);
	free(o->name);
	free(o->segs);
	*o = (struct host_obj){ .phdr = NULL };
	objs_write_done();
	forget_segments();
}

#if MC_RT_HAVE_GOT_BASE
/*
 * The base `o`'s hooks call through the GOT from (i386's `call
 * *mcount@GOT(%ebx)`, %ebx holding _GLOBAL_OFFSET_TABLE_): ours as
 * trampoline.S knows it, else the start of its .got.plt, where the
 * linker puts _GLOBAL_OFFSET_TABLE_; 0 if it has none.
 */
static uintptr_t obj_got_base(const struct host_obj *o)
{
	uintptr_t addr;
	size_t size;

	if (mc_host_obj_segment(o, mc_rt_got_base()))
		return mc_rt_got_base();
	return mc_host_section(o, ".got.plt", &addr, &size) == 1 ? addr : 0;
}
#endif

#ifdef MC_RT_GOT_SECTION
/* The base MC_RT_STUB_SLOT reads `o`'s stubs from (platform.h), or 0. */
static uintptr_t obj_stub_base(const struct host_obj *o)
{
	uintptr_t addr;
	size_t size;

	return mc_host_section(o, MC_RT_GOT_SECTION, &addr, &size) == 1 ?
		addr + MC_RT_GOT_BIAS : 0;
}
#endif

int mc_host_obj_add_image(struct host_obj *o)
{
	struct mc_rt_image_desc d = {
		.handle = (uintptr_t)o->phdr, .name = o->name,
	};
	int found, err;

	found = mc_host_obj_segment(o, (uintptr_t)&rt_note) &&
		engine->own_table(&d.start, &d.stop) ? 1 :
		obj_table(o, &d.start, &d.stop);
	if (found <= 0)
		return found;
#if MC_RT_HAVE_GOT_BASE
	d.got = obj_got_base(o);
#elif defined(MC_RT_GOT_SECTION)
	d.got = obj_stub_base(o);
#endif
	mc_host_plt_stubs(o, &d);
	err = engine->image_add(&d);
	if (err) {
		fprintf(stderr, "mcount: %s: %s\n", o->name,
			mcount_strerror(err));
		return err;
	}
	o->image = true;
	if (owner && image_hooks.added)	/* after boot: a library loaded */
		image_hooks.added(o);
	return 1;
}
