/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * disasm.h - objdump as an oracle for the encoders in arch/: write bytes
 * to a file, disassemble them as raw code of a given machine, and read
 * back one line per instruction.  objdump knows nothing of our tables,
 * so agreeing with it checks the encodings independently.
 *
 * Header-only (static functions) so each test binary stays one file.
 */
#ifndef MC_TESTS_UNIT_DISASM_H
#define MC_TESTS_UNIT_DISASM_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DISASM_LINE 256

/*
 * Disassemble `n` bytes at address `vma` with `objdump` (the program
 * and its -m/-E options, e.g. "powerpc64-linux-gnu-objdump -m
 * powerpc:common64 -EB").  The instruction lines ("addr:\tbytes\ttext")
 * go to `out`; returns how many there were.  A line with bytes but no
 * second tab (a wrapped continuation) also counts, so an encoding that
 * objdump splits differently shows up as a different count.
 */
static inline int disasm(const char *objdump, const uint8_t *p, size_t n,
			 uint64_t vma, char out[][DISASM_LINE], int max)
{
	char dir[] = "/tmp/mc-unit-XXXXXX";
	char bin[64], cmd[512], line[DISASM_LINE];
	int count = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/code.bin", dir);
	FILE *f = fopen(bin, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "%s -D -b binary --adjust-vma=0x%llx %s",
		 objdump, (unsigned long long)vma, bin);
	FILE *pp = popen(cmd, "r");
	ck_assert_ptr_nonnull(pp);
	while (fgets(line, sizeof(line), pp)) {
		unsigned long long addr;
		int used = 0;

		if (sscanf(line, " %llx:%n", &addr, &used) == 1 && used > 0 &&
		    strchr(line, '\t')) {
			if (count < max)
				memcpy(out[count], line, sizeof(line));
			count++;
		}
	}
	ck_assert_int_eq(pclose(pp), 0);
	unlink(bin);
	rmdir(dir);
	return count;
}

/* The hex byte pairs in an instruction line's second column. */
static inline int disasm_bytes(const char *line)
{
	const char *t = strchr(line, '\t');
	int n = 0;

	ck_assert_ptr_nonnull(t);
	for (t++; t[0] && t[0] != '\t';) {
		if (t[0] != ' ' && t[1] && t[1] != ' ' && t[1] != '\t') {
			n++;
			t += 2;
		} else {
			t++;
		}
	}
	return n;
}

/* The instruction text after the bytes ("bl      0x10100"). */
static inline const char *disasm_text(const char *line)
{
	const char *t = strchr(line, '\t');

	ck_assert_ptr_nonnull(t);
	t = strchr(t + 1, '\t');
	ck_assert_ptr_nonnull(t);
	return t + 1;
}


/* The last "0x..." number in an instruction's text: a branch's target. */
static inline uint64_t disasm_last_hex(const char *text)
{
	const char *p = NULL;

	for (const char *q = strstr(text, "0x"); q; q = strstr(q + 2, "0x"))
		p = q;
	ck_assert_ptr_nonnull(p);
	return strtoull(p, NULL, 16);
}

#endif
