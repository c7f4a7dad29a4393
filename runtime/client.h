/* SPDX-License-Identifier: MIT */
/*
 * client.h - all that a client of the runtime living in the same
 * process may use of it beyond the public API (include/mcount.h): the
 * recorder (recorder/), and any agent that would attach the same way.
 * A client includes this header and no other of runtime/.
 *
 * From platform.h, which this includes for the backend's facts, a
 * client uses only:
 *   MC_RT_ARCH, MC_RT_SLOT_FROM_SP, MC_RT_CFA_FROM_SP  the machine
 *   mc_plat_lock, mc_plat_unlock     the patching lock, to change sites
 *                                    as one step with its own state
 *   mc_plat_trylock                  the same lock, if nobody holds it
 *   mc_rt_set_slot_hook, mc_rt_set_gpr_slot_hook, mc_rt_set_entry_takeover,
 *   mc_rt_tramp_fentry_gpr, mc_rt_tramp_mcount_gpr   the slot hook
 *   mc_rt_sites_copy                 every site's info at one instant
 *   mc_rt_images_reboot              every image booted afresh, after an
 *                                    attach put its text back
 * and below, the loaded objects of a Linux process (runtime/linux/).
 */
#ifndef MC_RT_CLIENT_H
#define MC_RT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mcount.h>

#include "platform.h"

/* A loaded object the runtime keeps track of (linux/objects.c). */
struct host_obj;

/*
 * The name of the function containing `addr`, copied into `buf` (`len`
 * bytes, cut if longer) while the list cannot change: unlike
 * mcount_func_name's, it outlives the library.  False if none.
 */
MC_RT_HIDDEN bool mc_host_func_name_copy(uintptr_t addr, char *buf,
					 size_t len);

/*
 * Each function symbol of `obj`: fn(start, size, name, arg), the name
 * valid only during the call.  Under the patching lock.
 */
MC_RT_HIDDEN void mc_host_obj_funcs(struct host_obj *obj,
				    void (*fn)(uintptr_t start, size_t size,
					       const char *name, void *arg),
				    void *arg);

/* The span of `obj`'s PT_LOAD segments, [*lo, *hi). */
MC_RT_HIDDEN void mc_host_obj_span(const struct host_obj *obj, uintptr_t *lo,
				   uintptr_t *hi);

/*
 * Who wants to know of the images that come and go after boot (the
 * recorder, which must name an unloaded library's functions and set a
 * new one's sites).  `added`: under the patching lock, an object's image
 * was just added, its sites disabled, nothing can run its code yet.
 * `removed`: under the lock, an image's object is gone (its text may be
 * unmapped; its entry, symbols included, is still there).  `settled`:
 * outside the lock, before the dlopen that loaded something returns.
 * Any may be NULL; set once, before threads that load libraries start.
 */
struct mc_host_image_hooks {
	void (*added)(struct host_obj *obj);
	void (*removed)(struct host_obj *obj);
	void (*settled)(void);
};
MC_RT_HIDDEN void mc_host_set_image_hooks(const struct mc_host_image_hooks *h);

#endif
