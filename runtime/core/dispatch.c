/* SPDX-License-Identifier: MIT */
/*
 * dispatch.c - the traced path: what the trampolines call at every
 * enabled site (the callback through mc_rt_dispatch, or a client's
 * slot hook through mc_rt_dispatch_slot), lock-free, and the setters of
 * what they call.
 */
#include "core.h"

static mcount_callback_t callback;
static mc_rt_slot_hook_t slot_hook;
mc_rt_slot_hook_t mc_rt_gpr_slot_hook;	/* atomic; read by trampolines */
#ifdef MC_RT_ENTRY_TAKEOVER
mc_rt_entry_t mc_rt_fentry_takeover;	/* atomic; read by trampolines */
mc_rt_entry_t mc_rt_mcount_takeover;
#endif

void mcount_set_callback(mcount_callback_t cb)
{
	__atomic_store_n(&callback, cb, __ATOMIC_RELEASE);
}

/*
 * The image whose code holds `ret`, or NULL.  Lock-free: a slot's
 * bounds are published (release) after its sites and emptied before
 * they are freed (mc_rt_image_remove).
 */
MC_RT_NOTRACE static const struct rt_image *image_of(uintptr_t ret)
{
	size_t n = __atomic_load_n(&mc_rt_nimages, __ATOMIC_ACQUIRE);

	for (size_t k = 0; k < n; k++) {
		uintptr_t hi = __atomic_load_n(&mc_rt_images[k].hi,
					       __ATOMIC_ACQUIRE);

		if (ret <= hi && ret > __atomic_load_n(&mc_rt_images[k].lo,
						       __ATOMIC_RELAXED))
			return &mc_rt_images[k];
	}
	return NULL;
}

/*
 * From the trampoline.  `ret` is just past the hook instruction, so the
 * site is the last one below it in the image that holds it.  A site
 * disabled while a thread was on its way here still reports: harmless,
 * and cheaper than a lock.
 */
MC_RT_NOTRACE void mc_rt_dispatch(uintptr_t ret, uintptr_t caller)
{
	mcount_callback_t cb = __atomic_load_n(&callback, __ATOMIC_ACQUIRE);
	const struct rt_image *img = cb ? image_of(ret) : NULL;
	/*
	 * funcs first: it is made after the image's records
	 * (image_sites), which lower_bound searches
	 */
	const uintptr_t *funcs = img ? __atomic_load_n(&img->funcs,
						       __ATOMIC_ACQUIRE) : NULL;
	size_t i = funcs ? lower_bound(img, ret) : 0;
	uintptr_t func;

	if (!cb || i == 0 || !funcs)
		return;
	func = __atomic_load_n(&funcs[i - 1], __ATOMIC_ACQUIRE);
	if (!func || !mc_plat_enter())
		return;
	cb((unsigned long)func, (unsigned long)caller);
	mc_plat_leave();
}

bool mc_rt_set_slot_hook(mc_rt_slot_hook_t hook)
{
#ifdef MC_RT_DISPATCH_SLOT
	mc_rt_set_entry_takeover(NULL, NULL);
	__atomic_store_n(&mc_rt_gpr_slot_hook, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&slot_hook, hook, __ATOMIC_RELEASE);
	return true;
#else
	(void)hook;
	return false;
#endif
}

bool mc_rt_set_gpr_slot_hook(mc_rt_slot_hook_t hook)
{
#ifdef MC_RT_GPR_SLOT_HOOK
	if (!mc_rt_set_slot_hook(NULL))
		return false;
	__atomic_store_n(&mc_rt_gpr_slot_hook, hook, __ATOMIC_RELEASE);
	return true;
#else
	return mc_rt_set_slot_hook(hook);
#endif
}

bool mc_rt_set_entry_takeover(mc_rt_entry_t of_fentry,
			      mc_rt_entry_t of_mcount)
{
#ifdef MC_RT_ENTRY_TAKEOVER
	__atomic_store_n(&mc_rt_fentry_takeover, of_fentry, __ATOMIC_RELEASE);
	__atomic_store_n(&mc_rt_mcount_takeover, of_mcount, __ATOMIC_RELEASE);
	return true;
#else
	return !of_fentry && !of_mcount;
#endif
}

/*
 * From the trampolines of a backend that passes the slot of the
 * function's return address (MC_RT_DISPATCH_SLOT): to the slot hook when
 * one is set, else to the callback as mc_rt_dispatch (the caller as the
 * backend reads it from the slot: MC_RT_SLOT_CALLER).  The hook gets the
 * return address into the function, which names it as well as its
 * start does, without a search on the traced path; it keeps its own
 * recursion guard, per thread.
 */
#ifndef MC_RT_SLOT_CALLER
#define MC_RT_SLOT_CALLER(addr) (addr)
#endif
MC_RT_NOTRACE void mc_rt_dispatch_slot(uintptr_t ret, uintptr_t *slot)
{
	mc_rt_slot_hook_t hook = __atomic_load_n(&slot_hook, __ATOMIC_ACQUIRE);

	if (hook)
		hook(ret, slot);
	else
		mc_rt_dispatch(ret, MC_RT_SLOT_CALLER(*slot));
}
