/* SPDX-License-Identifier: GPL-2.0-only */
/* check.h - `--check`: judge a file's table against its code. */
#ifndef MC_CHECK_H
#define MC_CHECK_H

#include "options.h"

/* 0 when the file is clean, 1 after reporting problems or an error. */
int mc_check_file(const char *path, const struct mc_options *opt);

#endif
