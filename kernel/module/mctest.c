// SPDX-License-Identifier: GPL-2.0-only
/*
 * mctest.c - an out-of-tree module for the kernel test (kernel/README.md).
 *
 * Kbuild compiles it with the kernel's ftrace flags and runs our tool as
 * scripts/recordmcount on it, like any module a user builds with M=.
 * The booted init (kernel/init.c) loads it, asks ftrace to trace
 * mctest_work(), then writes to the module parameter "poke", whose
 * setter calls mctest_work(): a module function that runs only when
 * asked, so every hit in the trace comes from that write.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static unsigned long mctest_pokes;

void mctest_work(unsigned long n);

/* Global and not inlined: the compiler keeps it under its own name. */
noinline void mctest_work(unsigned long n)
{
	mctest_pokes += n;
}

static int mctest_poke_set(const char *val, const struct kernel_param *kp)
{
	unsigned long n;
	int err = kstrtoul(val, 0, &n);

	if (err)
		return err;
	mctest_work(n);
	return 0;
}

static int mctest_poke_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%lu\n", mctest_pokes);
}

static const struct kernel_param_ops mctest_poke_ops = {
	.set = mctest_poke_set,
	.get = mctest_poke_get,
};
module_param_cb(poke, &mctest_poke_ops, NULL, 0644);

static int __init mctest_init(void)
{
	pr_info("mctest: loaded\n");
	return 0;
}

static void __exit mctest_exit(void)
{
}

module_init(mctest_init);
module_exit(mctest_exit);
MODULE_DESCRIPTION("recordmcount's kernel test: a module ftrace traces");
MODULE_LICENSE("GPL");
