/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * inorder.c - boot over a table in order (inorder-<arch>.S): every
 * hook call written in its disabled form, the call to something else
 * and the jump to the hook stub refused with their bytes left as the
 * file has them, the cleared entry skipped.  Run by run.sh; prints FAIL lines and exits 1 on a mismatch.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mcount.h"

const int mcount_no_autoboot = 1;

void io_h1(void), io_h2(void), io_h3(void), io_h4(void), io_other(void);
void io_jump(void), rt_other(void), __fentry__(void);

static int failures;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	failures += !ok;
}

/* `op rel32` at `f` to `target` (e8: call, e9: jmp), as the file has it. */
static int reaches(void (*f)(void), uint8_t op, void (*target)(void))
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)f;
	int32_t rel;

	memcpy(&rel, p + 1, sizeof(rel));
	return p[0] == op &&
	       (uintptr_t)p + 5 + (intptr_t)rel == (uintptr_t)target;
}

/* The disabled form: `test $rel32,%eax` (a9 rel32). */
static int disabled(void (*f)(void))
{
	return *(const uint8_t *)(uintptr_t)f == 0xa9;
}

int main(void)
{
	void (*hooks[])(void) = { io_h1, io_h2, io_h3, io_h4 };
	struct mcount_counts c;
	int all = 1;

	check(mcount_boot() == MCOUNT_OK, "boot");
	mcount_get_counts(&c);
	printf("COUNTS sites=%zu patched=%zu refused=%zu\n", c.sites,
	       c.patched, c.refused);
	check(c.sites == 6 && c.patched == 4 && c.refused == 2,
	      "6 sites (the cleared entry skipped), 4 written, 2 refused");
	for (unsigned i = 0; i < 4; i++)
		all &= disabled(hooks[i]);
	check(all, "every hook call, before and after the other call, "
	      "holds its disabled form");
	check(reaches(io_other, 0xe8, rt_other),
	      "the call to something else is left as the file has it");
	check(reaches(io_jump, 0xe9, __fentry__),
	      "the jump to the hook stub is left as the file has it");
	check(mcount_enable((unsigned long)(uintptr_t)io_h3) == MCOUNT_OK &&
	      mcount_enable((unsigned long)(uintptr_t)io_other) ==
	      MCOUNT_EREFUSED, "the hook after it enables; it does not");
	io_h3();
	rt_other();
	return failures != 0;
}
