/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elffloor.c OBJECT [OUT] - libelf's floor for issue 30: open OBJECT
 * as our tool does (ELF_C_READ_MMAP_PRIVATE) and read every section
 * header with gelf_getshdr, nothing else.  bench/scale.py measures its
 * peak resident size beside ours, in the same run (the memory row).
 *
 * With OUT, the floor of time as well: also ask libelf for every
 * section's data (elf_getdata) and write the whole input to OUT, a new
 * file, in 1 MiB writes: what any tool that reads each section of the
 * object with libelf and writes an object of its size must do at least.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>

/* All of `n` bytes at `p` to `fd`; false on an error. */
static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		size_t k = n < (1u << 20) ? n : (1u << 20);
		ssize_t w = write(fd, p, k);

		if (w <= 0)
			return 0;
		p += w;
		n -= (size_t)w;
	}
	return 1;
}

int main(int argc, char **argv)
{
	size_t n = 0, total = 0, with_data = 0, size = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *image;
	Elf *e;
	int fd, out;

	if (argc < 2 || argc > 3 || elf_version(EV_CURRENT) == EV_NONE)
		return 2;
	fd = open(argv[1], O_RDONLY);
	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!e || elf_getshdrnum(e, &n) != 0) {
		fprintf(stderr, "elffloor: %s: %s\n", argv[1], elf_errmsg(-1));
		return 1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		total += gelf_getshdr(scn, &sh) != NULL;
		if (argc == 3)
			with_data += elf_getdata(scn, NULL) != NULL;
	}
	if (argc == 3) {
		image = elf_rawfile(e, &size);
		out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (!image || out < 0 || !write_all(out, image, size) ||
		    close(out) != 0) {
			fprintf(stderr, "elffloor: cannot write %s\n", argv[2]);
			return 1;
		}
		printf("%zu sections' data read, %zu bytes written\n",
		       with_data, size);
	}
	printf("%zu sections, %zu headers read\n", n, total);
	elf_end(e);
	close(fd);
	return total + 1 != n;
}
