/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * script_a.c, script_b.c - a freestanding program for the linker-script
 * cases of check-link: several text sections per object (one named like
 * the kernel's .init.text), data in the output section the kernel puts
 * its table in, and script_b.c's unused() for --gc-sections to drop.
 */
int b_one(int x);
int b_two(int x);
int init_data_word __attribute__((section(".init.data"))) = 7;

__attribute__((noinline, section(".init.text"))) int early(int x)
{
	return x + 3;
}

__attribute__((noinline)) int a_one(int x)
{
	return b_one(x) + 1;
}

__attribute__((noinline)) int a_two(int x)
{
	return b_two(x) * 2 + early(x);
}

__attribute__((noinline)) static int a_local(int x)
{
	return x ^ 5;
}

volatile int sink;

/*
 * What the runtime reads (runtime/core/image.c): the script's bounds
 * (PROVIDE_HIDDEN in lds/mcount-section*.lds, so defined only when
 * referenced).  A plain symbol of the script's: it keeps no piece alive
 * under --gc-sections.
 */
extern const unsigned long __start_mcount_loc[], __stop_mcount_loc[];
const unsigned long *volatile table_bounds[2] = {
	__start_mcount_loc, __stop_mcount_loc,
};

void _start(void)
{
	sink = a_one(1) + a_two(2) + a_local(sink) + (table_bounds[0] != 0);
	for (;;)
		;
}
