/* SPDX-License-Identifier: GPL-2.0-only */
/* record.h - add __mcount_loc to one relocatable object. */
#ifndef MC_RECORD_H
#define MC_RECORD_H

#include "options.h"

/* 0 on success (including "nothing to do"), 1 after reporting an error. */
int mc_record_file(const char *path, const struct mc_options *opt);

#endif
