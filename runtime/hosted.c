/* SPDX-License-Identifier: MIT */
/*
 * hosted.c - the engine's platform hooks for a Linux process, and the
 * constructor that boots the engine.
 *
 * Every loaded object is an image of the engine's when its file has a
 * table: the program and the shared libraries linked at start-up,
 * found with dl_iterate_phdr at boot, and libraries loaded later,
 * added by the dlopen below before it returns and removed by dlclose.
 *
 * Memory questions are answered from the program headers of those
 * objects, so a bad table entry pointing outside an object's code is
 * refused, never dereferenced.  Text is made writable with mprotect only
 * while it is being patched, then given back exactly the protection its
 * PT_LOAD segment asked for.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mcount.h>

#include "hosted.h"
#include "../arch/sections.h"

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

/* The pages currently unprotected, and the protection to give back. */
static struct {
	uintptr_t lo, hi;
	int prot;
} window;

/* True if `ph`, loaded at `bias`, is a PT_LOAD segment holding `addr`. */
static bool segment_holds(uintptr_t bias, const ElfW(Phdr) *ph,
			  uintptr_t addr)
{
	uintptr_t lo = bias + ph->p_vaddr;

	return ph->p_type == PT_LOAD && addr >= lo && addr - lo < ph->p_memsz;
}

static const ElfW(Phdr) *obj_segment(const struct host_obj *o, uintptr_t addr)
{
	for (size_t i = 0; i < o->phnum; i++)
		if (segment_holds(o->bias, &o->segs[i], addr))
			return &o->segs[i];
	return NULL;
}

struct host_obj *mc_host_obj_of(uintptr_t addr)
{
	for (size_t k = 0; k < mc_host_nobjs; k++)
		if (mc_host_objs[k].phdr && obj_segment(&mc_host_objs[k], addr))
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

static const ElfW(Phdr) *segment_of(uintptr_t addr, uintptr_t *bias)
{
	const struct host_obj *o;

	if (last_seg && segment_holds(last_bias, last_seg, addr)) {
		*bias = last_bias;
		return last_seg;
	}
	o = mc_host_obj_of(addr);
	if (!o)
		return NULL;
	last_seg = obj_segment(o, addr);
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
	const ElfW(Phdr) *ph = segment_of(addr, &bias);

	if (!ph || !(ph->p_flags & PF_R) || (code && !(ph->p_flags & PF_X)))
		return 0;
	return bias + ph->p_vaddr + ph->p_memsz - addr;
}

static int segment_prot(const ElfW(Phdr) *ph)
{
	return (ph->p_flags & PF_R ? PROT_READ : 0) |
	       (ph->p_flags & PF_W ? PROT_WRITE : 0) |
	       (ph->p_flags & PF_X ? PROT_EXEC : 0);
}

void mc_plat_text_close(void)
{
	if (window.lo == window.hi)
		return;
	if (mprotect((void *)window.lo, window.hi - window.lo, window.prot))
		fprintf(stderr, "mcount: cannot restore protection of %#lx: %s\n",
			(unsigned long)window.lo, strerror(errno));
	window.lo = window.hi = 0;
}

/*
 * Take the write faults of the window in one call rather than one
 * fault per page as the boot pass first writes to each (the private
 * file mapping copies a page on its first write either way; doing it in
 * a batch saves a trap and a page-table walk each).  From the site's
 * page on: the table is sorted, so the pass writes upwards from the
 * first site the window opens for.  Linux 5.14 and later; elsewhere the
 * pages fault in one by one as before.
 */
static void prefault(uintptr_t lo, uintptr_t hi)
{
#ifdef MADV_POPULATE_WRITE
	(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)lo;
	(void)hi;
#endif
}

/*
 * Which pages are writable when: only those of the open window, only
 * while the engine holds the patching lock, and they stay executable
 * throughout, so threads running that code are not disturbed.  The
 * window is the pages of what the engine asks for: the boot pass asks
 * for the rest of the text segment from its first site (two mprotect
 * calls for the program, not two per page or per site); a live toggle
 * for the one word it stores (one page, two calls).
 * mc_plat_text_close() gives the pages back their segment's protection.
 */
int mc_plat_text_open(uintptr_t addr, size_t len)
{
	static uintptr_t page;
	const ElfW(Phdr) *ph;
	uintptr_t lo, hi, bias;

	if (addr >= window.lo && addr + len <= window.hi && addr + len > addr)
		return 0;
	ph = segment_of(addr, &bias);
	if (!len || !ph || segment_of(addr + len - 1, &bias) != ph ||
	    !(ph->p_flags & PF_X))
		return -1;
	if (!page)
		page = (uintptr_t)sysconf(_SC_PAGESIZE);
	lo = addr & ~(page - 1);
	hi = (addr + len + page - 1) & ~(page - 1);
	mc_plat_text_close();
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC)) {
		fprintf(stderr, "mcount: cannot make %#lx writable: %s\n",
			(unsigned long)addr, strerror(errno));
		return -1;
	}
	if (hi - lo >= 64 * 1024)
		prefault(lo, hi);
	window.lo = lo;
	window.hi = hi;
	window.prot = segment_prot(ph);
	return 0;
}

/* ---- live patching ------------------------------------------------------ */

/*
 * Recursive, for one case only: dlclose (below) holds it while the
 * loader runs the library's destructors, which may call the API on the
 * same thread; the engine is then between operations, never inside one.
 */
static pthread_mutex_t patch_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void reconcile(void);

void mc_plat_lock(void)
{
	pthread_mutex_lock(&patch_lock);
	reconcile();
}

void mc_plat_unlock(void)
{
	pthread_mutex_unlock(&patch_lock);
}

/*
 * membarrier(2)'s SYNC_CORE command (Linux 4.16 and later on x86, arm64
 * and arm): every other running thread of the process executes a
 * core-serialising instruction before the call returns.  Registered
 * once, at boot while the program is still single-threaded (registering
 * later makes the kernel wait for a grace period).
 */
/* <linux/membarrier.h>'s values, which are ABI (an enum there) */
#define MC_MEMBARRIER_QUERY 0
#define MC_MEMBARRIER_SYNC_CORE (1 << 5)
#define MC_MEMBARRIER_REGISTER_SYNC_CORE (1 << 6)

static pthread_once_t sync_once = PTHREAD_ONCE_INIT;
static bool sync_core_ok;

static void register_sync_core(void)
{
#ifdef SYS_membarrier
	long cmds = syscall(SYS_membarrier, MC_MEMBARRIER_QUERY, 0, 0);

	sync_core_ok = cmds > 0 && (cmds & MC_MEMBARRIER_SYNC_CORE) &&
		syscall(SYS_membarrier, MC_MEMBARRIER_REGISTER_SYNC_CORE,
			0, 0) == 0;
#endif
}

/* True if this process has one thread (from /proc/self/stat). */
static bool single_threaded(void)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	const char *p;
	int field = 2;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* field 20 is num_threads; the name (field 2) ends at the last ')' */
	p = strrchr(buf, ')');
	for (; p && *p && field < 20; p++)
		if (*p == ' ')
			field++;
	return p && field == 20 && strtol(p, NULL, 10) == 1;
}

bool mc_plat_quiescent(void)
{
	return single_threaded();
}

/*
 * Without SYNC_CORE a change is still safe where nothing else runs:
 * a process of one thread serialises its own fetch.
 */
bool mc_plat_sync_ready(bool required)
{
	pthread_once(&sync_once, register_sync_core);
	if (sync_core_ok || !required)
		return true;
	if (single_threaded())
		return true;
	fprintf(stderr, "mcount: this kernel has no membarrier SYNC_CORE "
		"(Linux 4.16 or later): live patching refused while other "
		"threads run\n");
	return false;
}

void mc_plat_sync_cores(void)
{
#ifdef SYS_membarrier
	if (sync_core_ok)
		(void)syscall(SYS_membarrier, MC_MEMBARRIER_SYNC_CORE, 0, 0);
#endif
}

void mc_plat_flush_icache(uintptr_t addr, size_t len)
{
	__builtin___clear_cache((char *)addr, (char *)addr + len);
}

/*
 * Every block of mc_plat_alloc starts with this, so that mc_plat_free
 * gives back what was made whatever size it is told (the engine frees
 * an image's sites by the count it kept, which leaves out the table's
 * cleared entries).  `mapped`: the bytes mmap gave, 0 for calloc's.
 */
union block_head {
	size_t mapped;
	max_align_t align;
};

#define SMALL_PAGE ((size_t)4096)
#define HUGE_PAGE ((size_t)2 << 20)	/* x86_64's and 4K-page arm64's THP */

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) & ~(to - 1);
}

/*
 * Take the faults of [p, p + len) now, in one call; where the kernel
 * has no MADV_POPULATE_WRITE (before 5.14), by writing a byte a page.
 */
static void populate(char *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	for (size_t off = 0; off < len; off += SMALL_PAGE)
		((volatile char *)p)[off] = 0;
}

/*
 * `len` bytes in a mapping of their own, populated.  From 1 MiB on in
 * transparent huge pages where the kernel gives them (THP "always" or
 * "madvise"): aligned to one, asked for with MADV_HUGEPAGE, and rounded
 * up to whole ones, so that a large program's sites cost one fault
 * rather than one a small page.  Elsewhere the same call takes the
 * small pages' faults in one go.
 */
static char *map_block(size_t len, size_t *mapped)
{
	bool huge = len >= ((size_t)1 << 20);
	size_t size = round_up(len, huge ? HUGE_PAGE : SMALL_PAGE);
	size_t slack = huge ? HUGE_PAGE : 0;
	char *p = mmap(NULL, size + slack, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (huge) {
		char *at = (char *)round_up((uintptr_t)p, HUGE_PAGE);

		if (at > p)
			munmap(p, (size_t)(at - p));
		if (p + slack > at)
			munmap(at + size, (size_t)(p + slack - at));
		p = at;
#ifdef MADV_HUGEPAGE
		(void)madvise(p, size, MADV_HUGEPAGE);
#endif
	}
	populate(p, round_up(len, SMALL_PAGE));
	*mapped = size;
	return p;
}

/*
 * Never freed but with an image (platform.h).  A large block is
 * mapped and populated at once (map_block): the engine writes every
 * byte of its site records in order (at boot, or at their first use),
 * and faulting their zero pages in one at a time was a large share of
 * the boot of a large program.
 */
void *mc_plat_alloc(size_t bytes)
{
	size_t len = sizeof(union block_head) + bytes, mapped = 0;
	union block_head *h;

	if (len < bytes)
		return NULL;
	if (len >= 64 * 1024)
		h = (union block_head *)map_block(len, &mapped);
	else
		h = calloc(1, len);
	if (!h)
		return NULL;
	h->mapped = mapped;
	return h + 1;
}

void mc_plat_report(uintptr_t addr, const uint8_t *bytes, size_t n,
		    const char *why)
{
	unsigned long off = 0;
	const char *name = mcount_func_name(addr, &off);
	char where[256] = "";

	if (name)
		snprintf(where, sizeof(where), " <%s+0x%lx>", name, off);
	flockfile(stderr);
	fprintf(stderr, "mcount: refused site %#lx%s:", (unsigned long)addr,
		where);
	for (size_t i = 0; i < n && i < 8; i++)
		fprintf(stderr, " %02x", bytes[i]);
	fprintf(stderr, "%s%s\n", n ? ": " : " ", why);
	funlockfile(stderr);
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
		return 0;
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

/* The hosted build finds every table through mc_plat_images. */
int mc_plat_table(const uintptr_t **start, const uintptr_t **stop)
{
	(void)start;
	(void)stop;
	return 0;
}

/* ---- objects ------------------------------------------------------------ */

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

/* This copy is the process's runtime (computed once, at boot). */
static bool is_owner(void)
{
	bool mine = true;

	dl_iterate_phdr(first_runtime, &mine);
	return mine;
}

/* The entry for an object at `phdr`, or NULL. */
static struct host_obj *obj_by_phdr(const ElfW(Phdr) *phdr)
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

/* A new entry for `info`'s object, in the first free place; NULL if full. */
static struct host_obj *obj_new(const struct dl_phdr_info *info)
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

void mc_host_set_image_hooks(const struct mc_host_image_hooks *h)
{
	image_hooks = *h;
}

static void obj_free(struct host_obj *o)
{
	if (o->image) {
		mc_rt_image_remove((uintptr_t)o->phdr);
		if (image_hooks.removed)
			image_hooks.removed(o);
	}
	objs_write();
	mc_host_syms_free(o);
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

	if (obj_segment(o, mc_rt_got_base()))
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

/* The engine boots `o`'s table, if it has one. */
static int obj_add_image(struct host_obj *o)
{
	struct mc_rt_image_desc d = {
		.handle = (uintptr_t)o->phdr, .name = o->name,
	};
	int found, err;

	found = obj_segment(o, (uintptr_t)&rt_note) &&
		mc_rt_own_table(&d.start, &d.stop) ? 1 :
		obj_table(o, &d.start, &d.stop);
	if (found <= 0)
		return found;
#if MC_RT_HAVE_GOT_BASE
	d.got = obj_got_base(o);
#elif defined(MC_RT_GOT_SECTION)
	d.got = obj_stub_base(o);
#endif
	mc_host_plt_stubs(o, &d);
	err = mc_rt_image_add(&d);
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

/* dl_iterate_phdr: note each object as seen, adding the new ones. */
static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct host_obj *o = obj_by_phdr(info->dlpi_phdr);
	int *err = arg;

	(void)size;
	if (o && o->bias == info->dlpi_addr) {
		o->seen = true;
		return 0;
	}
	o = obj_new(info);
	if (!o) {
		*err = MCOUNT_ETOOMANY;
		return 0;
	}
	if (obj_add_image(o) == MCOUNT_ETOOMANY)
		*err = MCOUNT_ETOOMANY;
	return 0;
}

/* The loader's counts of loads and unloads when the list was last made. */
static unsigned long long seen_adds, seen_subs;
/* dlopen calls of ours under way: what they load is added as they end */
static int wrapped_loads;
/* this thread is in the dlopen below: what it loaded is not running yet */
static _Thread_local bool loading_here;

static int mark_seen(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct host_obj *o = obj_by_phdr(info->dlpi_phdr);

	(void)size;
	(void)arg;
	if (o && o->bias == info->dlpi_addr)
		o->seen = true;
	return 0;
}

static int loader_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *c = arg;

	if (size < offsetof(struct dl_phdr_info, dlpi_subs) +
		   sizeof(info->dlpi_subs))
		return 1;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1;
}

/*
 * Bring the list and the engine's images up to date with the loader:
 * objects gone are removed (their images first), new ones added.
 * Under the patching lock.  Returns 0 or MCOUNT_ETOOMANY.
 */
static int rescan(void)
{
	int err = 0;

	for (size_t k = 0; k < mc_host_nobjs; k++)
		mc_host_objs[k].seen = false;
	dl_iterate_phdr(scan_one, &err);
	for (size_t k = 0; k < mc_host_nobjs; k++)
		if (mc_host_objs[k].phdr && !mc_host_objs[k].seen)
			obj_free(&mc_host_objs[k]);
	return err;
}

/*
 * Whenever the lock is taken: if the loader loaded or unloaded objects
 * since the list was made (its adds and subs counters, one callback's
 * worth of dl_iterate_phdr), make it again.  The dlopen and dlclose
 * below do that themselves before returning; this catches loads that
 * did not go through them (a library calling the loader's dlopen when
 * the program that links libmcount.a does not export ours), so that no
 * toggle ever writes into an object that is gone.  A library found that
 * way is added only while the process has one thread: its boot pass
 * writes with plain stores.
 */
static void reconcile(void)
{
	static unsigned long long skipped_adds;
	unsigned long long c[2] = { 0, 0 };
	static int depth;

	if (!owner || depth)
		return;
	dl_iterate_phdr(loader_counts, c);
	if (c[0] == seen_adds && c[1] == seen_subs)
		return;
	/* loads already passed over, until the one that loaded them locks */
	if (c[0] == skipped_adds && c[1] == seen_subs && !loading_here)
		return;
	if (c[0] != seen_adds && !loading_here && !mc_plat_quiescent()) {
		/* removals still, never a boot pass under running threads */
		static bool told;

		for (size_t k = 0; k < mc_host_nobjs; k++)
			mc_host_objs[k].seen = false;
		depth++;
		dl_iterate_phdr(mark_seen, NULL);
		for (size_t k = 0; k < mc_host_nobjs; k++)
			if (mc_host_objs[k].phdr && !mc_host_objs[k].seen)
				obj_free(&mc_host_objs[k]);
		depth--;
		skipped_adds = c[0];
		seen_subs = c[1];
		if (!told && !__atomic_load_n(&wrapped_loads, __ATOMIC_RELAXED))
			fprintf(stderr, "mcount: a library was loaded without "
				"libmcount's dlopen while threads run: its "
				"hooks stay unpatched (link libmcount.so, or "
				"export dlopen from the program: -rdynamic)\n");
		told = !__atomic_load_n(&wrapped_loads, __ATOMIC_RELAXED);
		return;
	}
	depth++;
	(void)rescan();
	depth--;
	seen_adds = c[0];
	seen_subs = c[1];
}

static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

int mc_plat_images(void)
{
	unsigned long long c[2] = { 0, 0 };
	int err;

	if (!is_owner())
		return MCOUNT_EOTHER;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	dl_iterate_phdr(loader_counts, c);
	err = rescan();
	seen_adds = c[0];
	seen_subs = c[1];
	owner = true;
	return err;
}

/*
 * Libraries loaded later: this dlopen and dlclose interpose on the
 * loader's (found with dlsym(RTLD_NEXT), as uftrace's libmcount does)
 * wherever they are the first definition: always with libmcount.so,
 * which comes before libc in the lookup order; with libmcount.a, for
 * the program's own calls, and for its libraries' when the program
 * exports them (-rdynamic).  Why wrap rather than look only at the
 * loader's counters on the next toggle (reconcile, kept as a net): a
 * library's boot pass writes with plain stores, which is safe only
 * before anything can call into it, i.e. before dlopen returns; and a
 * dlclose must drop the image before another thread's toggle can write
 * into the unmapped text, which holding the patching lock across the
 * loader's dlclose guarantees.  A library's constructors still run
 * before its hooks are patched (they call the stubs, which return),
 * with the patching lock held by their thread: one that waits for
 * another thread calling the API waits for ever.
 */
static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

static void find_real(void)
{
	real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
}

/*
 * The loader searches a bare name in the RPATH and RUNPATH of the
 * object that called dlopen, which it takes from dlopen's return
 * address: ours, once wrapped.  So the wrapper asks the loader for the
 * caller's search path (dlinfo RTLD_DI_SERINFO) and opens the first
 * file found there by its path; a name already loaded, or found in no
 * folder of that path, goes to the loader as it was given.
 */
static void *open_as(const void *caller, const char *file, int mode)
{
	struct link_map *map = NULL;
	Dl_serinfo size, *info;
	Dl_info where;
	void *h = NULL;
	char *path;

	if (!file || strchr(file, '/') ||
	    (h = real_dlopen(file, mode | RTLD_NOLOAD)) ||
	    !dladdr1(caller, &where, (void **)&map, RTLD_DL_LINKMAP) || !map ||
	    dlinfo(map, RTLD_DI_SERINFOSIZE, &size) != 0)
		return h ? h : real_dlopen(file, mode);
	info = malloc(size.dls_size);
	path = malloc(4096);
	if (info && path) {
		*info = size;
		if (dlinfo(map, RTLD_DI_SERINFO, info) != 0)
			info->dls_cnt = 0;
		for (unsigned i = 0; i < info->dls_cnt && !h; i++) {
			snprintf(path, 4096, "%s/%s", info->dls_serpath[i].dls_name,
				 file);
			if (access(path, F_OK) == 0)
				h = real_dlopen(path, mode);
		}
	}
	free(path);
	free(info);
	return h ? h : real_dlopen(file, mode);
}

void *dlopen(const char *file, int mode)
{
	void *h;

	pthread_once(&real_once, find_real);
	if (!real_dlopen)
		return NULL;
	__atomic_fetch_add(&wrapped_loads, 1, __ATOMIC_RELAXED);
	if (!owner) {
		h = open_as(__builtin_return_address(0), file, mode);
	} else {
		/*
		 * The lock held across the load as dlclose holds it across
		 * the unload: else a library could be mapped where one just
		 * unloaded was, with the same program headers' address,
		 * before that dlclose's reconcile() forgot the old one, and
		 * be taken for it.
		 */
		mc_plat_lock();
		h = open_as(__builtin_return_address(0), file, mode);
		loading_here = true;
		reconcile();		/* adds what it loaded */
		loading_here = false;
		mc_plat_unlock();
		if (h && image_hooks.settled)
			image_hooks.settled();
	}
	__atomic_fetch_sub(&wrapped_loads, 1, __ATOMIC_RELAXED);
	return h;
}

int dlclose(void *handle)
{
	int r;

	pthread_once(&real_once, find_real);
	if (!real_dlclose)
		return -1;
	if (!owner)
		return real_dlclose(handle);
	mc_plat_lock();
	r = real_dlclose(handle);
	reconcile();		/* removes what it unloaded */
	mc_plat_unlock();
	return r;
}

/*
 * fork: the child has one thread and the parent's state, its text its
 * own copy.  The patching lock is held across fork so that no other
 * thread's toggle is half done in the copy; the child re-registers
 * for membarrier's SYNC_CORE (registration belongs to the address
 * space, which the child gets anew).  exec boots afresh: the new
 * program runs its own constructor.
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&patch_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&patch_lock);
}

/*
 * The child's one thread is not the one that locked (a recursive
 * mutex's owner is the locking thread's id): the locks start afresh,
 * as do the list's and the symbols' (which no writer held: writers
 * hold the patching lock too, and a symbol load under way is published
 * only when done).
 */
static void fork_child(void)
{
	static const pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	patch_lock = fresh;
	objs_lock = 0;
	mc_host_syms_fork();
	if (sync_core_ok)
		register_sync_core();
}

/* ---- thunk pages --------------------------------------------------------- */

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000	/* Linux 4.17; older ones take a hint */
#endif

/* The farthest byte of [lo, hi) from [a, a + len), either way. */
static uint64_t span_distance(uintptr_t lo, uintptr_t hi, uintptr_t a,
			      size_t len)
{
	uint64_t up = a + len > lo ? a + len - lo : 0;
	uint64_t down = hi > a ? hi - a : 0;

	return up > down ? up : down;
}

/*
 * The search for a thunk page's place: the nearest so far, and the
 * places already found taken though /proc/self/maps shows them free.
 */
#define THUNK_TRIES 8
struct gap_search {
	uintptr_t lo, hi;		/* the image's sites */
	size_t len;
	uintptr_t refused[THUNK_TRIES];
	unsigned nrefused;
	uintptr_t best;			/* 0: none yet */
	uint64_t dist;			/* best's, or the reach */
};

static bool refused_before(const struct gap_search *g, uintptr_t a)
{
	for (unsigned i = 0; i < g->nrefused; i++)
		if (g->refused[i] == a)
			return true;
	return false;
}

/*
 * The free gap [gap_lo, gap_hi) of the address space offers `len`
 * bytes at its edge nearest the image: into g->best if nearer than
 * what it holds, and not refused before.
 */
static void consider_gap(struct gap_search *g, uintptr_t gap_lo,
			 uintptr_t gap_hi)
{
	uintptr_t a;
	uint64_t d;

	if (gap_hi < gap_lo || gap_hi - gap_lo < g->len)
		return;
	a = gap_lo >= g->hi ? gap_lo : gap_hi <= g->lo ? gap_hi - g->len : 0;
	if (!a)		/* a gap around the image's own code: none */
		return;
	if (refused_before(g, a))
		return;
	d = span_distance(g->lo, g->hi, a, g->len);
	if (d < g->dist) {
		g->best = a;
		g->dist = d;
	}
}

/*
 * The end of the space above the last mapping listed: the top of a
 * 32-bit space, or on a 64-bit one as far as the reach goes (0 past the
 * top: no gap).  Natively the stack and the vDSO are listed up there,
 * but qemu-user lists nothing above the guest's newest mappings, and a
 * library mapped last, with its neighbours below taken, has its only
 * gap there.  A place past the top of the user space is refused by the
 * kernel (map_page_at), and the next one tried.
 */
static uintptr_t top_of_space(uintptr_t prev_end, uint64_t reach)
{
	if (UINTPTR_MAX == 0xffffffffu)
		return prev_end < 0xffff0000u ? 0xffff0000u : 0;
	return reach < UINTPTR_MAX - prev_end ? prev_end + reach : 0;
}

/*
 * The free place for g->len bytes nearest the image, from the mappings
 * /proc/self/maps lists in address order (the first page and the
 * mmap_min_addr below 64 KiB left alone); 0 if none within `reach`.
 */
static uintptr_t nearest_gap(struct gap_search *g, uint64_t reach)
{
	FILE *f = fopen("/proc/self/maps", "re");
	uintptr_t prev_end = 0x10000;
	unsigned long start, end;
	char line[512];

	g->best = 0;
	g->dist = reach;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		if (start > prev_end)
			consider_gap(g, prev_end, start);
		if (end > prev_end)
			prev_end = end;
	}
	fclose(f);
	consider_gap(g, prev_end, top_of_space(prev_end, reach));
	return g->best;
}

/*
 * A page at `want` if nothing is mapped there; NULL if something is, or
 * MAP_FAILED.  MAP_FIXED_NOREPLACE never replaces a mapping: the kernel
 * says EEXIST.  A kernel before 4.17, and qemu-user 7.2 (Debian 12's)
 * whatever the host's, take the flag as a mere hint: the page at `want`
 * if it is free, else one elsewhere, which is the same refusal, told by
 * the address.  ENOMEM, a place past the top of the user space, is a
 * refusal of that place too.
 */
static void *map_page_at(uintptr_t want, size_t page)
{
	void *p = mmap((void *)want, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (p == MAP_FAILED)
		return errno == EEXIST || errno == ENOMEM ? NULL : MAP_FAILED;
	if ((uintptr_t)p != want) {
		munmap(p, page);
		return NULL;
	}
	return p;
}

/*
 * The place for `len` bytes of thunks at the end of the image's own code
 * segment (the one holding `lo`), in the rest of its last page, where
 * nothing of the object lies: the loader maps that page whole, and no
 * address in it past the segment's end means anything to the object.
 * 8-byte aligned (thunks hold a target's address); 0 if there is no
 * such room, or it is not within `reach` of every byte of [lo, hi).
 */
static uintptr_t code_tail(uintptr_t lo, uintptr_t hi, uint64_t reach,
			   size_t len, size_t page,
			   const ElfW(Phdr) **seg)
{
	const struct host_obj *o = mc_host_obj_of(lo);
	const ElfW(Phdr) *ph = o ? obj_segment(o, lo) : NULL;
	uintptr_t end, at, page_end;

	if (!ph || !(ph->p_flags & PF_X))
		return 0;
	end = o->bias + ph->p_vaddr + ph->p_memsz;
	at = (end + 7) & ~(uintptr_t)7;
	page_end = (end + page - 1) & ~(uintptr_t)(page - 1);
	if (at > page_end || page_end - at < len ||
	    span_distance(lo, hi, at, len) >= reach)
		return 0;
	for (size_t i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *q = &o->segs[i];
		uintptr_t q_lo = o->bias + q->p_vaddr;

		if (q != ph && q->p_type == PT_LOAD &&
		    q_lo < page_end && q_lo + q->p_memsz > end)
			return 0;
	}
	*seg = ph;
	return at;
}

/*
 * Thunks written at `at`, in the last page of the code segment `ph`:
 * through the patching window where it holds the page (the boot pass
 * opens the rest of the segment), else with the page made writable (and
 * still executable, as the window's are) for the copy.
 */
static bool code_tail_write(uintptr_t at, const uint8_t *code, size_t len,
			    size_t page, const ElfW(Phdr) *ph)
{
	uintptr_t pg = at & ~(uintptr_t)(page - 1);
	bool open = pg >= window.lo && pg + page <= window.hi;

	if (!open && mprotect((void *)pg, page,
			      PROT_READ | PROT_WRITE | PROT_EXEC))
		return false;
	memcpy((void *)at, code, len);
	if (!open && mprotect((void *)pg, page, segment_prot(ph)))
		fprintf(stderr, "mcount: cannot restore protection of %#lx: "
			"%s\n", (unsigned long)pg, strerror(errno));
	__builtin___clear_cache((char *)at, (char *)at + len);
	return true;
}

/*
 * A thunk page (platform.h): written while only readable and writable,
 * then made executable and read-only, never both writable and
 * executable.  Placed in the gap nearest the image that is free, never
 * over a mapping (map_page_at).  A gap /proc/self/maps shows may be
 * taken all the same: by another thread's mapping made since it was
 * read (threads that load libraries map often), or for good, where the
 * list leaves a mapping out (qemu-user 7.2 leaves out a PROT_NONE
 * mapping that borders unmapped space, as glibc's reserve for a
 * thread's heap does).  So a place found taken is not tried again, and
 * the next nearest is; after a few the page is not made rather than
 * placed out of reach.
 *
 * Where no page is free within reach (a library loaded between a
 * thread's stack and the buffers another thread mapped right after it,
 * with riscv64's 1 MiB `jal`), the thunks go at the end of the image's
 * own code segment if its last page has room (code_tail); else there
 * are none, and the sites stay MCOUNT_ERANGE.
 */
uintptr_t mc_plat_thunk_map(uintptr_t lo, uintptr_t hi, uint64_t reach,
			    const uint8_t *code, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct gap_search g = { .lo = lo, .hi = hi, .len = page };
	const ElfW(Phdr) *ph = NULL;
	uintptr_t at;
	void *p = NULL;

	if (len > page)
		return 0;
	while (!p && g.nrefused < THUNK_TRIES) {
		uintptr_t want = nearest_gap(&g, reach);

		if (!want)
			break;
		p = map_page_at(want, page);
		if (p == MAP_FAILED)
			return 0;
		if (!p)
			g.refused[g.nrefused++] = want;
	}
	if (!p) {
		at = code_tail(lo, hi, reach, len, page, &ph);
		return at && code_tail_write(at, code, len, page, ph) ? at : 0;
	}
	memcpy(p, code, len);
	if (mprotect(p, page, PROT_READ | PROT_EXEC)) {
		munmap(p, page);
		return 0;
	}
	__builtin___clear_cache((char *)p, (char *)p + len);
	return (uintptr_t)p;
}

void mc_plat_thunk_unmap(uintptr_t addr, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	(void)len;
	/* thunks in an image's code segment (code_tail) go with it */
	if (addr & (page - 1))
		return;
	munmap((void *)addr, page);
}

void mc_plat_free(void *p, size_t bytes)
{
	union block_head *h = (union block_head *)p - 1;

	(void)bytes;	/* the head says what was made */
	if (h->mapped)
		munmap(h, h->mapped);
	else
		free(h);
}

bool mc_plat_func_bounds(uintptr_t addr, uintptr_t *start, size_t *size)
{
	return mc_host_sym_by_addr(addr, start, size, NULL);
}

static _Thread_local bool in_callback;

MC_RT_NOTRACE bool mc_plat_enter(void)
{
	if (in_callback)
		return false;
	in_callback = true;
	return true;
}

MC_RT_NOTRACE void mc_plat_leave(void)
{
	in_callback = false;
}

/* A program may define this (non-zero) to boot by itself. */
extern const int mcount_no_autoboot __attribute__((weak));

static bool autoboot_wanted(void)
{
	const char *env = getenv("MCOUNT_NO_AUTOBOOT");

	if (&mcount_no_autoboot && mcount_no_autoboot)
		return false;
	return !env || !*env || strcmp(env, "0") == 0;
}

/*
 * Priority 101, the earliest a program may use: user constructors run
 * after boot, so their hooks are already NOPs.
 */
__attribute__((constructor(101))) static void autoboot(void)
{
	int err;

	if (!autoboot_wanted())
		return;
	pthread_once(&sync_once, register_sync_core);
	err = mcount_boot();
	if (err)
		fprintf(stderr, "mcount: boot: %s\n", mcount_strerror(err));
}
