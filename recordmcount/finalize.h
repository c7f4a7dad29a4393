/* SPDX-License-Identifier: GPL-2.0-only */
/* finalize.h - `--finalize`: a linked table in its final form. */
#ifndef MC_FINALIZE_H
#define MC_FINALIZE_H

#include "options.h"

/* 0 on success (changed or not), 1 after reporting an error. */
int mc_finalize_file(const char *path, const struct mc_options *opt);

#endif
