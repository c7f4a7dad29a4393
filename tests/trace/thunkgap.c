/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * thunkgap.c - a thunk page (runtime/linux/mem.c, mc_plat_thunk_map) for
 * an image whose nearest gap, as /proc/self/maps shows it, is taken by
 * a mapping the list leaves out.  qemu-user 7.2 leaves out a PROT_NONE
 * mapping that borders unmapped space: glibc's 1 MiB reserve for a
 * thread's heap, past the part in use, is one, and a library loaded
 * next to such a heap got no thunk page, its sites no live form (the
 * trace suite's "3 threads opening and closing libraries" on arm, now
 * and then).  Natively the list shows it, and the page goes elsewhere.
 *
 * In a free stretch of the address space, from low to high:
 *
 *	image	1 MiB, read-only; the thunks are for its last page
 *	heap	1 MiB PROT_NONE (MAP_NORESERVE), its first page made
 *		read-write, as glibc's arena; unmapped space above
 *
 * The page must be made within REACH of the image's last page, over
 * none of the two.  Prints what maps showed of the heap's PROT_NONE
 * part ("listed" or "left out") and where the page went; exits 1 if it
 * was not made, or made wrong.
 *
 * `thunkgap top`: an image mapped last, whose space below is taken for
 * more than REACH, and above which the space is free.  Natively the
 * stack and the vDSO are listed above it; qemu-user lists nothing above
 * the guest's newest mapping (riscv64: a library loaded last got its
 * thunk page 12 MiB away, out of its jal's reach, 6 runs in 100), so
 * the only gap in reach is above the last line.
 *
 * `thunkgap tail`: no free page at all within reach of code at the end
 * of the program's own text (every one mapped here first, as a library
 * loaded between a thread's stack and another thread's buffers has none
 * within riscv64's 1 MiB `jal`: the trace suite's `loop`, 2 runs in 20
 * or so).  Where the text segment's last page has room past its end
 * (read from dl_iterate_phdr here), the thunks must go there, within
 * reach, and run: they are `return 42` for the backend; where it has
 * none, none may be made.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mcount.h>

#include "../../runtime/platform.h"

#define MIB ((uintptr_t)1 << 20)
#define REACH (4 * MIB)

/* `len` bytes mapped at `at` exactly, or 0 (the stretch was free). */
static uintptr_t map_at(uintptr_t at, size_t len, int prot, int flags)
{
	void *p = mmap((void *)at, len, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	if ((uintptr_t)p != at) {
		munmap(p, len);
		return 0;
	}
	return at;
}

/* Whether /proc/self/maps has a line that starts in [lo, hi). */
static int listed(uintptr_t lo, uintptr_t hi)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long start, end;
	char line[512];
	int found = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    start >= lo && start < hi)
			found = 1;
	if (f)
		fclose(f);
	return found;
}

/* A free 1 MiB-aligned `base` with 2 MiB free below and above it. */
static uintptr_t free_stretch(void)
{
	void *w = mmap(NULL, 8 * MIB, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t base;

	if (w == MAP_FAILED)
		return 0;
	base = ((uintptr_t)w + 3 * MIB) & ~(MIB - 1);
	munmap(w, 8 * MIB);
	return base;
}

/*
 * `thunkgap top`: one read-only mapping of REACH + 2 MiB, made last,
 * the image its top MiB; the 2 MiB mapped above it and given back are
 * free, whatever maps lists there.  0 if the page is made above the
 * image and within reach.
 */
static int top_case(uintptr_t page)
{
	static const uint8_t code[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	size_t len = REACH + 4 * MIB;
	uint8_t *w = mmap(NULL, len, PROT_READ,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t end, t;
	int shown;

	if (w == MAP_FAILED || munmap(w + len - 2 * MIB, 2 * MIB)) {
		printf("thunkgap: cannot lay out the mapping\n");
		return 1;
	}
	end = (uintptr_t)w + len - 2 * MIB;
	shown = listed(end, end + REACH);
	t = mc_plat_thunk_map(end - MIB, end, REACH, code, sizeof(code));
	printf("top: mapping %#lx-%#lx (%s above it), image from %#lx, "
	       "thunk page %#lx\n", (unsigned long)w, (unsigned long)end,
	       shown ? "something listed" : "nothing listed",
	       (unsigned long)(end - MIB), (unsigned long)t);
	if (!t) {
		printf("thunkgap: no thunk page\n");
		return 1;
	}
	if (t < end || t + page - (end - MIB) > REACH ||
	    memcmp((const void *)t, code, sizeof(code))) {
		printf("thunkgap: the page is over the mapping, out of "
		       "reach, or does not hold what was written\n");
		return 1;
	}
	return 0;
}

/* `return 42`, where this program's function pointers can call it. */
static const uint8_t ret42[] = {
#if defined(__x86_64__) || defined(__i386__)
	0xb8, 0x2a, 0x00, 0x00, 0x00,	/* mov $42, %eax */
	0xc3,				/* ret */
#elif defined(__aarch64__)
	0x40, 0x05, 0x80, 0x52,		/* mov w0, #42 */
	0xc0, 0x03, 0x5f, 0xd6,		/* ret */
#elif defined(__arm__)
	0x2a, 0x00, 0xa0, 0xe3,		/* mov r0, #42 (ARM state) */
	0x1e, 0xff, 0x2f, 0xe1,		/* bx lr */
#elif defined(__riscv)
	0x13, 0x05, 0xa0, 0x02,		/* li a0, 42 */
	0x67, 0x80, 0x00, 0x00,		/* ret */
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	0x2a, 0x00, 0x60, 0x38,		/* li r3, 42 */
	0x20, 0x00, 0x80, 0x4e,		/* blr */
#elif defined(__s390x__)
	0xa7, 0x29, 0x00, 0x2a,		/* lghi %r2, 42 */
	0x07, 0xfe,			/* br %r14 */
#else
#error "no `return 42` for this machine"
#endif
};

/* The program's text segment, from its program headers. */
struct text {
	uintptr_t addr;		/* an address in it */
	uintptr_t end;		/* the segment's end */
	uintptr_t next;		/* the lowest other segment at or above end */
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text *x = arg;
	int found = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    x->addr >= lo && x->addr - lo < ph->p_memsz) {
			x->end = lo + ph->p_memsz;
			found = 1;
		}
	}
	for (int i = 0; found && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && lo >= x->end && lo < x->next)
			x->next = lo;
	}
	return found;
}

/*
 * `thunkgap tail`: the image is the last 256 bytes of the text segment;
 * every page within REACH of it that is free is mapped first.  0 if the
 * thunks went where they had to (or, without room, nowhere).
 */
static int tail_case(uintptr_t page)
{
	struct text x = { .addr = (uintptr_t)&find_text, .next = UINTPTR_MAX };
	uintptr_t lo, hi, room_lo, room_hi, t, a;
	unsigned filled = 0;

	if (!dl_iterate_phdr(find_text, &x) || x.end < 256) {
		printf("thunkgap: no text segment found\n");
		return 1;
	}
	lo = x.end - 256;
	hi = x.end;
	room_lo = (x.end + 7) & ~(uintptr_t)7;
	room_hi = (x.end + page - 1) & ~(page - 1);
	if (x.next < room_hi)
		room_hi = x.end;
	for (a = (lo - REACH) & ~(page - 1); a < hi + REACH; a += page)
		filled += map_at(a, page, PROT_READ, MAP_NORESERVE |
				 MAP_FIXED_NOREPLACE) != 0;
	t = mc_plat_thunk_map(lo, hi, REACH, ret42, sizeof(ret42));
	printf("tail: text ends at %#lx, room %lu bytes, %u pages filled, "
	       "thunks at %#lx\n", (unsigned long)x.end,
	       (unsigned long)(room_hi > room_lo ? room_hi - room_lo : 0),
	       filled, (unsigned long)t);
	if (room_hi < room_lo || room_hi - room_lo < sizeof(ret42)) {
		if (!t)
			return 0;
		printf("thunkgap: thunks made with no room for them\n");
		return 1;
	}
	if (!t) {
		printf("thunkgap: no thunks, with room at the text's end\n");
		return 1;
	}
	if (t < room_lo || t + sizeof(ret42) > room_hi ||
	    memcmp((const void *)t, ret42, sizeof(ret42))) {
		printf("thunkgap: the thunks are not in the text's last page, "
		       "past its end, or do not hold what was written\n");
		return 1;
	}
	if (((int (*)(void))t)() != 42) {
		printf("thunkgap: the thunks do not run as written\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const uint8_t code[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t base = free_stretch(), lo = base - page, t;
	int shown;

	/* (which links the runtime in: the thunk map is a weak reference) */
	if (!mcount_booted()) {
		printf("thunkgap: the runtime has not booted\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "top"))
		return top_case(page);
	if (argc > 1 && !strcmp(argv[1], "tail"))
		return tail_case(page);
	if (!base || !map_at(base - MIB, MIB, PROT_READ, 0) ||
	    !map_at(base, MIB, PROT_NONE, MAP_NORESERVE) ||
	    mprotect((void *)base, page, PROT_READ | PROT_WRITE)) {
		printf("thunkgap: cannot lay out the stretch at %#lx\n",
		       (unsigned long)base);
		return 1;
	}
	memset((void *)base, 0x5a, page);
	shown = listed(base + page, base + MIB);
	t = mc_plat_thunk_map(lo, base, REACH, code, sizeof(code));
	printf("the heap's PROT_NONE part %s; image %#lx-%#lx, thunk page "
	       "%#lx\n", shown ? "listed" : "left out", (unsigned long)lo,
	       (unsigned long)base, (unsigned long)t);
	if (!t) {
		printf("thunkgap: no thunk page\n");
		return 1;
	}
	if (t + page > base - MIB && t < base + MIB) {
		printf("thunkgap: the page is over the image or the heap\n");
		return 1;
	}
	if ((t > lo ? t + page - lo : base - t) > REACH) {
		printf("thunkgap: the page is out of reach\n");
		return 1;
	}
	if (memcmp((const void *)t, code, sizeof(code)) ||
	    *(const uint8_t *)(base + page - 1) != 0x5a) {
		printf("thunkgap: the page or the heap does not hold what "
		       "was written\n");
		return 1;
	}
	return 0;
}
