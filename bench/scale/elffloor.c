/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elffloor.c OBJECT - libelf's floor for issue 30's memory row: open
 * OBJECT as our tool does (ELF_C_READ_MMAP_PRIVATE) and read every
 * section header with gelf_getshdr, nothing else.  bench/scale.py
 * measures its peak resident size beside ours, in the same run.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t n = 0, total = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *e;
	int fd;

	if (argc != 2 || elf_version(EV_CURRENT) == EV_NONE)
		return 2;
	fd = open(argv[1], O_RDONLY);
	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!e || elf_getshdrnum(e, &n) != 0) {
		fprintf(stderr, "elffloor: %s: %s\n", argv[1], elf_errmsg(-1));
		return 1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL)
		total += gelf_getshdr(scn, &sh) != NULL;
	printf("%zu sections, %zu headers read\n", n, total);
	elf_end(e);
	close(fd);
	return total + 1 != n;
}
