/* SPDX-License-Identifier: MIT */
/*
 * attach.c - the entry points `mctrace record -p` calls inside a
 * running process (attach.h is the contract), while it holds the
 * process's threads stopped.
 *
 * Start boots the runtime if it has not (libmcount.so's constructor
 * has, when mctrace just loaded it), then boots afresh every image
 * whose sites no longer hold what the engine last wrote: mctrace wrote
 * back the bytes they had before it (a program's pads, as the compiler
 * left them) after an earlier attach, or after a start it tried was
 * refused once libmcount.so was loaded (another thread held the
 * patching lock): that load's boot had written its forms, and an
 * engine trusting them would enable a NOP pad by its first byte alone.
 * Then it starts the recording as MCOUNT_TRACE does at start-up, with
 * the attach's settings in place of the environment.
 *
 * List and live only read the sites, or change them as the program's
 * own mcount_enable_glob would (the recorder then records what is
 * enabled), one thread stopped for the call while the others run.
 *
 * Stop ends the recording: sites disabled, the writer stopped, the file
 * closed.  libmcount.so stays loaded: a thread inside a function it
 * recorded returns through the recorder's return trampoline, and the
 * shadow stacks that take it back to its caller live in the library.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <mcount.h>

#include "../runtime/client.h"
#include "attach.h"
#include "recorder.h"

/* These are called by name, from outside (mctrace), never here. */
int mcount_attach_start(const char *config);
int mcount_attach_stop(void);
int mcount_attach_list(const char *path);
int mcount_attach_live(const char *spec);

static bool attached;

static int open_attached(void)
{
	if (rec_writer_start(rec_base_path(), true) == 0)
		return 0;
	perror("mcount: trace: cannot create the attach's trace");
	return -1;
}

/* The runtime booted, its sites as they are now: 0 or an MC_ATTACH_E*. */
static int attach_boot(void)
{
	struct mcount_counts c;

	if (!mcount_booted() ? mcount_boot() != MCOUNT_OK :
	    mc_rt_images_reboot() != MCOUNT_OK)
		return MC_ATTACH_EBOOT;
	mcount_get_counts(&c);
	if (c.sites == c.refused)
		return MC_ATTACH_ENOSITES;
	return c.enabled ? MC_ATTACH_EENABLED : MC_ATTACH_OK;
}

static int start_locked(const char *config)
{
	const char *path;
	int err;

	if (attached || __atomic_load_n(&rec_on, __ATOMIC_ACQUIRE))
		return MC_ATTACH_EBUSY;
	err = attach_boot();
	if (err)
		return err;
	if (!rec_config_set(config))
		return MC_ATTACH_ENOMEM;
	path = rec_getenv("MCOUNT_TRACE");
	if (!path || !*path || rec_begin(path, open_attached) != 0)
		return MC_ATTACH_ESTART;
	attached = true;
	return MC_ATTACH_OK;
}

/*
 * Called with every other thread held stopped: one of them may hold
 * the patching lock (a program linked with libmcount.a, in its dlopen),
 * and waiting for it would wait for ever.  So the lock is only tried,
 * before anything changes; mctrace lets the threads run a moment and
 * calls again.  Held across the whole start (it is recursive), so that
 * no held thread can take it half way either.
 */
int mcount_attach_start(const char *config)
{
	int err;

	if (!mc_plat_trylock())
		return MC_ATTACH_EAGAIN;
	err = start_locked(config);
	mc_plat_unlock();
	return err;
}

int mcount_attach_stop(void)
{
	if (!attached)
		return MC_ATTACH_EIDLE;
	__atomic_store_n(&rec_on, false, __ATOMIC_RELEASE);
	mcount_disable_all();
	rec_writer_stop();
	attached = false;
	return MC_ATTACH_OK;
}

static int list_one(const struct mcount_site_info *s, void *arg)
{
	static const char *const states[] = { "disabled", "enabled",
					      "refused" };
	const char *name = mcount_func_name(s->at, NULL);

	fprintf(arg, "%s %#lx %s %s\n", states[s->state], s->addr,
		name ? name : "?", s->object ? s->object : "-");
	return 0;
}

int mcount_attach_list(const char *path)
{
	FILE *f;
	int err;

	if (!mcount_booted())
		return MC_ATTACH_EBOOT;
	f = fopen(path, "we");
	if (!f)
		return MC_ATTACH_EFILE;
	mcount_for_each_site(list_one, f);
	err = ferror(f);
	return fclose(f) || err ? MC_ATTACH_EFILE : MC_ATTACH_OK;
}

int mcount_attach_live(const char *spec)
{
	if (!__atomic_load_n(&rec_on, __ATOMIC_ACQUIRE))
		return MC_ATTACH_LIVE_IDLE;
	return spec[0] == '+' ? mcount_enable_glob(spec + 1) :
	       mcount_disable_glob(spec + 1);
}
