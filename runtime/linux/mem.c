/* SPDX-License-Identifier: MIT */
/*
 * mem.c - the platform's memory hooks for a Linux process: text made
 * writable with mprotect only while it is being patched, then given
 * back exactly the protection its PT_LOAD segment asked for; making
 * other threads' cores see changed code (membarrier); storage for the
 * engine's records; and pages of thunks near an image.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux.h"

/* The pages currently unprotected, and the protection to give back. */
static struct {
	uintptr_t lo, hi;
	int prot;
} window;

static int segment_prot(const ElfW(Phdr) *ph)
{
	return (ph->p_flags & PF_R ? PROT_READ : 0) |
	       (ph->p_flags & PF_W ? PROT_WRITE : 0) |
	       (ph->p_flags & PF_X ? PROT_EXEC : 0);
}

static void poke_close(void);

void mc_plat_text_close(void)
{
	poke_close();
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
	ph = mc_host_segment_of(addr, &bias);
	if (!len || !ph || mc_host_segment_of(addr + len - 1, &bias) != ph ||
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

/*
 * A live toggle's one-byte store written through /proc/self/mem, which
 * writes the page where it is (a copy first if it still is the file's):
 * no page table entry changes, so no TLB is flushed and no window is
 * writable at any moment.  An mprotect pair flushes the page from the
 * TLB of every core running the process, and where that is a
 * hypervisor's call it is most of a toggle's cost (bench/RESULTS.md).
 * The descriptor is opened for a batch and closed at its end
 * (mc_plat_text_close): none is left in a process the runtime was
 * attached to, none passes a fork to write the parent, and none can be
 * closed under us by a program that closes descriptors it does not know.
 */
static int poke_fd = -1;
static int poke_works;		/* 0: not tried yet; 1 yes; -1 no */

static void poke_close(void)
{
	if (poke_fd >= 0)
		close(poke_fd);
	poke_fd = -1;
}

static bool poke_open(void)
{
	if (poke_fd < 0)
		poke_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	return poke_fd >= 0;
}

static bool poke_byte(uintptr_t addr, uint8_t byte)
{
	return poke_open() &&
	       pwrite64(poke_fd, &byte, 1, (off64_t)addr) == 1;
}

#if defined(__x86_64__) || defined(__i386__)
/*
 * Does a byte written through /proc/self/mem reach this process's
 * instruction fetch?  Not under a user-mode emulator: qemu-user hands
 * the file of its own process, where the guest's addresses may be
 * others, and it keeps its translation of code it did not see written.
 * So: a page of our own code run, its bytes read back through the
 * file (the same addresses?), one byte written (`mov $1` becomes
 * `mov $2`) and the code run again.
 */
static bool poke_reaches_fetch(void)
{
	static const uint8_t ret_one[] = { 0xb8, 1, 0, 0, 0, 0xc3 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t seen[sizeof(ret_one)];
	int (*code)(void);
	bool ok;

	if (p == MAP_FAILED)
		return false;
	memcpy(p, ret_one, sizeof(ret_one));
	code = (int (*)(void))(uintptr_t)p;
	ok = mprotect(p, page, PROT_READ | PROT_EXEC) == 0 && code() == 1 &&
	     poke_open() &&
	     pread64(poke_fd, seen, sizeof(seen), (off64_t)(uintptr_t)p) ==
		(ssize_t)sizeof(seen) &&
	     memcmp(seen, ret_one, sizeof(seen)) == 0 &&
	     poke_byte((uintptr_t)p + 1, 2);
	ok = ok && code() == 2;
	munmap(p, page);
	return ok;
}
#else
/* Only x86's heads are one byte (an opcode); elsewhere a window serves. */
static bool poke_reaches_fetch(void)
{
	return false;
}
#endif

bool mc_plat_text_poke(uintptr_t addr, uint8_t byte)
{
	if (!poke_works)
		poke_works = poke_reaches_fetch() ? 1 : -1;
	return poke_works > 0 && poke_byte(addr, byte);
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

void mc_host_sync_register(void)
{
	pthread_once(&sync_once, register_sync_core);
}

/*
 * In the child of a fork: registration belongs to the address space,
 * which the child gets anew.
 */
void mc_host_sync_fork(void)
{
	if (sync_core_ok)
		register_sync_core();
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
	const ElfW(Phdr) *ph = o ? mc_host_obj_segment(o, lo) : NULL;
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
