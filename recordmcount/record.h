/* SPDX-License-Identifier: GPL-2.0-only */
/* record.h - add __mcount_loc to one relocatable object. */
#ifndef MC_RECORD_H
#define MC_RECORD_H

#include <stdbool.h>

#include "options.h"

struct mc_object;

/* 0 on success (including "nothing to do"), 1 after reporting an error. */
int mc_record_file(const char *path, const struct mc_options *opt);

/*
 * Before a write: false, with obj->error saying why, for a file with no
 * write bit or that this process may not write.
 */
bool mc_refuse_read_only(struct mc_object *obj);

#endif
