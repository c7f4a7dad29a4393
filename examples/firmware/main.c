/* SPDX-License-Identifier: MIT */
/*
 * main.c - what the firmware does after reset (start.S calls fw_main):
 * run the whole pipeline on the bare machine.
 *
 *  1. mcount_boot(): check every recorded site and turn it into its
 *     neutral form (a -pg call is patched, a NOP pad already is one); a
 *     first mcount_verify() finds nothing changed.
 *  2. Trace work_step through the trampoline: one line per call, with
 *     the function's address and name and where it was called from.
 *  3. Disable it: the calls stop.
 *  4. Corrupt work_victim's site behind the engine's back: the second
 *     verification pass finds and refuses it, and enabling it fails.
 *
 * Each step is a function of its own (noinline), so that it has its
 * own hook too.  Every step checks itself.  The last line is "firmware: PASS" or
 * "firmware: FAIL: why", and the exit status says the same.
 *
 * Built with hooks like the rest of the firmware (-pg, or NOP pads; see
 * boards.sh); the callback and the decoy, which run in the middle of a
 * hook, are MCOUNT_NOTRACE.
 */
#include <stdbool.h>

#include <mcount.h>

#include "../../runtime/platform.h"	/* MC_RT_ARCH, to forge a call */
#include "fw.h"
#include "work.h"

#define RUNS 4	/* work_run(RUNS) calls work_step RUNS times */

static int failures;
static int traced, traced_wrong;

static void expect(bool ok, const char *what)
{
	if (!ok) {
		fw_printf("check failed: %s\n", what);
		failures++;
	}
}

MCOUNT_NOTRACE static void on_call(unsigned long func, unsigned long caller)
{
	unsigned long off = 0;
	const char *name = mcount_func_name(func, NULL);
	const char *from = mcount_func_name(caller, &off);

	fw_printf("  traced: %s (0x%lx) called from %s+0x%lx\n",
		  name ? name : "?", func, from ? from : "?", off);
	traced++;
	if (func != (unsigned long)work_step)
		traced_wrong++;
}

/* What the corrupted site calls instead: the hook's ABI, doing nothing. */
MCOUNT_NOTRACE __attribute__((noipa)) static void decoy(void)
{
}

__attribute__((noinline)) static void boot(void)
{
	struct mcount_counts c;
	int err = mcount_boot(), changed;

	mcount_get_counts(&c);
	fw_printf("boot: %lu sites, %lu patched, %lu already neutral, "
		  "%lu refused\n", (unsigned long)c.sites,
		  (unsigned long)c.patched, (unsigned long)c.nops,
		  (unsigned long)c.refused);
	expect(err == MCOUNT_OK, "mcount_boot() succeeds");
	expect(c.sites > 0 && c.patched + c.nops == c.sites &&
	       c.nops == c.pads && c.refused == 0,
	       "every call patched to its neutral form, every pad found so");
	changed = mcount_verify();
	fw_printf("verify: %d of %lu sites changed\n", changed,
		  (unsigned long)c.sites);
	expect(changed == 0, "first verification finds every site intact");
}

__attribute__((noinline)) static void trace_one(void)
{
	int err, sum;

	fw_printf("tracing work_step (0x%lx):\n", (unsigned long)work_step);
	mcount_set_callback(on_call);
	err = mcount_enable_name("work_step");
	sum = work_run(RUNS);
	fw_printf("work_run(%d) = %d, %d calls traced\n", RUNS, sum, traced);
	expect(err == MCOUNT_OK, "mcount_enable_name(\"work_step\")");
	expect(traced == RUNS && traced_wrong == 0,
	       "one traced call per work_step call, all of work_step");
	expect(sum == 1 + 2 + 5 + 10, "work_run's result unchanged");

	fw_printf("tracing off:\n");
	err = mcount_disable_name("work_step");
	traced = 0;
	sum = work_run(RUNS);
	fw_printf("work_run(%d) = %d, %d calls traced\n", RUNS, sum, traced);
	expect(err == MCOUNT_OK && traced == 0, "no calls after disable");
}

/* The index of the hook site in `func`'s first bytes, or -1. */
static long site_of(unsigned long func, struct mcount_site_info *out)
{
	for (size_t i = 0; i < mcount_site_count(); i++)
		if (mcount_site_get(i, out) == MCOUNT_OK &&
		    out->at >= func &&
		    out->at <= func + MC_RT_ARCH->max_entry_offset)
			return (long)i;
	return -1;
}

/*
 * A call from site `s` that runs harmlessly: to decoy for a -pg call
 * (its callers expect a clobbering call there), but a pad's call runs
 * before the prologue and must come back with the return address
 * intact, which only the pad trampoline does; unasked, it reports
 * nothing.
 */
static bool forge_call(const struct mcount_site_info *s, uint8_t *call,
		       const char **to)
{
#ifdef MC_RT_PAD_TRAMP
	if (s->style == MCOUNT_STYLE_PAD) {
		*to = "the pad trampoline";
		return mc_encode_pad_call(MC_RT_ARCH, call, s->len, s->at,
					  (uintptr_t)&MC_RT_PAD_TRAMP);
	}
#endif
	*to = "decoy";
	return mc_encode_call(MC_RT_ARCH, call, s->len, s->at,
			      (uintptr_t)decoy);
}

__attribute__((noinline)) static void corrupt_victim(void)
{
	unsigned long victim = (unsigned long)work_victim;
	struct mcount_site_info s;
	uint8_t call[MC_MAX_SITE_LEN];
	long i = site_of(victim, &s);
	const char *to = "";
	int changed, err;

	if (i < 0 || !forge_call(&s, call, &to)) {
		expect(false, "work_victim has a site to corrupt");
		return;
	}
	fw_printf("corrupting work_victim's site at 0x%lx: a call to %s\n",
		  s.at, to);
	mc_bytes_copy((uint8_t *)s.at, call, s.len);
	board_flush_icache(s.at, s.len);

	changed = mcount_verify();
	fw_printf("verify: %d of %lu sites changed\n", changed,
		  (unsigned long)mcount_site_count());
	expect(changed == 1, "second verification finds the one changed site");
	expect(mcount_site_get((size_t)i, &s) == MCOUNT_OK &&
	       s.state == MCOUNT_SITE_REFUSED, "the changed site is refused");
	err = mcount_enable(victim);
	fw_printf("enable work_victim: %s\n", mcount_strerror(err));
	expect(err == MCOUNT_EREFUSED, "enabling the refused site fails");
	expect(work_victim(5) == (5 ^ 0x55), "work_victim still runs");
}

int fw_main(void)
{
	fw_printf("mcount firmware on %s: image 0x%lx-0x%lx, text to 0x%lx\n",
		  board_name, (unsigned long)__image_start,
		  (unsigned long)__image_end, (unsigned long)__text_end);
	boot();
	trace_one();
	corrupt_victim();
	if (failures) {
		fw_printf("firmware: FAIL: %d checks failed\n", failures);
		return 1;
	}
	fw_printf("firmware: PASS\n");
	return 0;
}
