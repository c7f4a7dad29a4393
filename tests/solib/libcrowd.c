/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libcrowd.c - a library dlopened by crowd.c, whose constructor maps
 * every page that is free within CROWD_REACH bytes of its text, as the
 * mappings of other threads crowd a library in (a thread's stack below,
 * another thread's buffers right above: riscv64's relaxed `jal`, 1 MiB,
 * then had no free page in reach under qemu-user).  The constructor runs
 * inside dlopen, before the runtime boots the library: its sites' thunks
 * can only go in the rest of its code segment's last page.
 *
 * The space is read from /proc/self/maps and every gap mapped whole,
 * read-only (qemu-user 7.2 lists those), a gap that cannot be mapped so
 * (something the list leaves out holds part of it) in halves down to a
 * page.  crowd_free() then says how many pages in reach are left free,
 * found the same way and given back (0 expected).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static uintptr_t text_lo, text_hi, reach_lo, reach_hi, page;
static unsigned long filled;

__attribute__((noinline)) int crowd_leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int crowd_call(int x)
{
	return crowd_leaf(x) - 1;
}

/*
 * [lo, hi) mapped read-only where free, whole or else in halves down to
 * a page; kept, or given back at once (`keep` false: only counted).
 * The pages mapped.
 */
static unsigned long fill(uintptr_t lo, uintptr_t hi, int keep)
{
	uintptr_t mid;
	void *p;

	if (hi <= lo)
		return 0;
	p = mmap((void *)lo, hi - lo, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == (void *)lo) {
		if (!keep)
			munmap(p, hi - lo);
		return (hi - lo) / page;
	}
	if (p != MAP_FAILED)
		munmap(p, hi - lo);
	if (hi - lo == page)
		return 0;
	mid = lo + ((hi - lo) / page / 2) * page;
	return fill(lo, mid, keep) + fill(mid, hi, keep);
}

/* The same over each gap /proc/self/maps shows in [reach_lo, reach_hi). */
static unsigned long fill_gaps(int keep)
{
	FILE *f = fopen("/proc/self/maps", "re");
	uintptr_t prev = reach_lo;
	unsigned long start, end, n = 0;
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &start, &end) != 2 ||
		    end <= reach_lo)
			continue;
		if (start >= reach_hi)
			break;
		if (start > prev)
			n += fill(prev, start, keep);
		if (end > prev)
			prev = end;
	}
	if (f)
		fclose(f);
	return n + fill(prev, reach_hi, keep);
}

static int text_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t at = (uintptr_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    at >= lo && at - lo < ph->p_memsz) {
			text_lo = lo;
			text_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

__attribute__((constructor)) static void crowd_in(void)
{
	const char *r = getenv("CROWD_REACH");
	uintptr_t reach = r ? strtoul(r, NULL, 0) : 0;

	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	if (!reach || !dl_iterate_phdr(text_of, (void *)&crowd_leaf))
		return;
	reach += page;
	reach_lo = text_lo > reach + 0x10000 ? (text_lo - reach) & ~(page - 1)
					     : 0x10000;
	reach_hi = text_hi < UINTPTR_MAX - reach ?
		   (text_hi + reach + page - 1) & ~(page - 1) : -page;
	filled = fill_gaps(1);
}

/* Pages in reach still free, and how many the constructor mapped. */
unsigned long crowd_free(unsigned long *mapped)
{
	*mapped = filled;
	return reach_hi ? fill_gaps(0) : (unsigned long)-1;
}
