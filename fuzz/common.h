/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * common.h - what the file-based fuzz targets share.
 *
 * The record and dump paths take a file name (they open, map, and for
 * recording, rename a temporary file over the input), so each input is
 * written to a file in a private directory on a tmpfs (/dev/shm when it
 * is there): the whole real path runs, in memory, with no disk I/O.
 */
#ifndef MC_FUZZ_COMMON_H
#define MC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* The input as a file; its path (the same for every input). */
const char *fuzz_input_file(const uint8_t *data, size_t size);

/* Stop with a message: libFuzzer records the input as a crash. */
void fuzz_fail(const char *what) __attribute__((noreturn));

/* True if the input file holds exactly data[0..size). */
int fuzz_file_is(const uint8_t *data, size_t size);

/* True if the input's directory holds nothing but the input. */
int fuzz_dir_is_clean(void);

#endif
