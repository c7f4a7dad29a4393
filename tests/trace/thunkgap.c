/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * thunkgap.c - a thunk page (runtime/hosted.c, mc_plat_thunk_map) for
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
 */
#define _GNU_SOURCE
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
