/*
 * hosted.c - the engine's platform hooks for a Linux process, and the
 * constructor that boots the engine.
 *
 * Memory questions are answered from the program headers of the object
 * this runtime is linked into (dl_iterate_phdr: the main program, or a
 * shared object whose table it boots), so a bad table entry pointing
 * outside that object's code is refused, never dereferenced.  Text is made
 * writable with mprotect only while it is being patched, then given back
 * exactly the protection its PT_LOAD segment asked for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mcount.h>

#include "hosted.h"

static struct {
	uintptr_t bias;
	const ElfW(Phdr) *phdr;
	size_t phnum;
	const char *name;	/* "" for the main program */
	bool known;
} image;

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

/*
 * The object one of whose PT_LOAD segments holds `arg` (this file's own
 * code): the table the engine boots is that object's (its
 * __start_mcount_loc is hidden), so its sites are in that object.
 */
static int own_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		if (!segment_holds(info->dlpi_addr, &info->dlpi_phdr[i],
				   (uintptr_t)arg))
			continue;
		image.bias = info->dlpi_addr;
		image.phdr = info->dlpi_phdr;
		image.phnum = info->dlpi_phnum;
		image.name = info->dlpi_name ? info->dlpi_name : "";
		image.known = true;
		return 1;
	}
	return 0;
}

static void find_image(void)
{
	if (!image.known)
		dl_iterate_phdr(own_object, (void *)(uintptr_t)own_object);
}

const char *mc_host_path(void)
{
	find_image();
	return image.name && *image.name ? image.name : "/proc/self/exe";
}

uintptr_t mc_host_bias(void)
{
	find_image();
	return image.bias;
}

/*
 * The PT_LOAD segment holding `addr`, or NULL.  The boot pass asks about
 * sorted sites, nearly all in one text segment: the last answer first.
 */
static const ElfW(Phdr) *segment_of(uintptr_t addr)
{
	static const ElfW(Phdr) *last;

	find_image();
	if (last && segment_holds(image.bias, last, addr))
		return last;
	for (size_t i = 0; i < image.phnum; i++)
		if (segment_holds(image.bias, &image.phdr[i], addr))
			return last = &image.phdr[i];
	return NULL;
}

size_t mc_plat_mem_avail(uintptr_t addr, bool code)
{
	const ElfW(Phdr) *ph = segment_of(addr);

	if (!ph || !(ph->p_flags & PF_R) || (code && !(ph->p_flags & PF_X)))
		return 0;
	return image.bias + ph->p_vaddr + ph->p_memsz - addr;
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
	uintptr_t lo, hi;

	if (addr >= window.lo && addr + len <= window.hi && addr + len > addr)
		return 0;
	ph = segment_of(addr);
	if (!len || !ph || segment_of(addr + len - 1) != ph ||
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

static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;

void mc_plat_lock(void)
{
	pthread_mutex_lock(&patch_lock);
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
 * Never freed (platform.h).  A large block is mapped with its pages
 * populated in one call: the boot pass writes every byte of it in
 * order, and faulting its zero pages in one at a time was a tenth of
 * the boot at 40,000 sites.
 */
void *mc_plat_alloc(size_t bytes)
{
#ifdef MAP_POPULATE
	if (bytes >= 64 * 1024) {
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
			       -1, 0);

		if (p != MAP_FAILED)
			return p;
	}
#endif
	return calloc(1, bytes);
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
 * A program linked with no script: the table is an output section the
 * linker made of the pieces, named ".mcount_loc" (recordmcount
 * --per-section: not a C identifier, so that no linker keeps every
 * piece, and so no __start_ symbol either; recordmcount/table.c says
 * why) or "__mcount_loc" (one piece per object), and it is found by
 * that name in the section headers of this object's file (strip keeps
 * them).  Both at once would be two tables, of objects recorded in
 * either form: refused, as is a name with two sections of entries, or
 * a section that is not mapped whole.
 */
static const char *const table_names[] = { ".mcount_loc", "__mcount_loc" };

int mc_plat_table(const uintptr_t **start, const uintptr_t **stop)
{
	uintptr_t addr[2] = { 0, 0 };
	size_t size[2] = { 0, 0 };
	int found[2];

	errno = 0;
	for (size_t k = 0; k < 2; k++) {
		found[k] = mc_host_section(table_names[k], &addr[k], &size[k]);
		if (found[k] < 0) {
			fprintf(stderr, "mcount: cannot read the section "
				"headers of %s: %s\n", mc_host_path(),
				errno ? strerror(errno) : "not an ELF file "
				"of this machine");
			return -1;
		}
		if (found[k] > 1) {
			fprintf(stderr, "mcount: %s has more than one %s "
				"section with entries: one table in pieces the "
				"runtime cannot join; link with a script (lds/)\n",
				mc_host_path(), table_names[k]);
			return -1;
		}
	}
	if (size[0] && size[1]) {
		fprintf(stderr, "mcount: %s has two tables, %s and %s: link "
			"objects recorded with and without --per-section with "
			"a script (lds/)\n", mc_host_path(), table_names[0],
			table_names[1]);
		return -1;
	}
	size_t k = size[0] ? 0 : 1;

	if (!size[k])
		return 0;
	if (size[k] % sizeof(uintptr_t) || addr[k] % sizeof(uintptr_t) ||
	    mc_plat_mem_avail(addr[k], false) < size[k]) {
		fprintf(stderr, "mcount: %s's %s (%#lx, %zu bytes) is not a "
			"table this program has mapped\n", mc_host_path(),
			table_names[k], (unsigned long)addr[k], size[k]);
		return -1;
	}
	*start = (const uintptr_t *)addr[k];
	*stop = (const uintptr_t *)(addr[k] + size[k]);
	return 1;
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
