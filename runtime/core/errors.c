/* SPDX-License-Identifier: MIT */
/*
 * errors.c - what each MCOUNT_E* code means, in words.
 */
#include <mcount.h>

const char *mcount_strerror(int err)
{
	switch (err) {
	case MCOUNT_OK:		return "success";
	case MCOUNT_ENOTABLE:	return "no __mcount_loc table linked in";
	case MCOUNT_ENOTBOOTED:	return "mcount_boot() has not run";
	case MCOUNT_ENOMEM:	return "no storage for the site list";
	case MCOUNT_ENOSITE:	return "no hook site in that function";
	case MCOUNT_EREFUSED:	return "the site was refused";
	case MCOUNT_EPROTECT:	return "program text could not be made writable";
	case MCOUNT_ERANGE:	return "trampoline out of reach of the site";
	case MCOUNT_ENOSYM:	return "no function of that name";
	case MCOUNT_ENOSYMTAB:	return "no symbol table";
	case MCOUNT_ENOTLIVE:	return "the site cannot be changed in one store "
				       "while threads run";
	case MCOUNT_ESYNC:	return "the kernel cannot synchronise other "
				       "threads' instruction fetch (membarrier)";
	case MCOUNT_ETOOMANY:	return "more objects with tables than the "
				       "runtime has slots for";
	case MCOUNT_EOTHER:	return "another copy of the runtime serves "
				       "this process";
	default:		return "unknown error";
	}
}
