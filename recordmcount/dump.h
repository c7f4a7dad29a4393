/* SPDX-License-Identifier: GPL-2.0-only */
/* dump.h - show the table and hooks of an object or linked image. */
#ifndef MC_DUMP_H
#define MC_DUMP_H

#include "options.h"

/* 0 on success, 1 after reporting an error. */
int mc_dump_file(const char *path, const struct mc_options *opt);

#endif
