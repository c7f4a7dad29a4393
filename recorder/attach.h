/* SPDX-License-Identifier: MIT */
/*
 * attach.h - the contract between `mctrace record -p` and the recorder
 * it drives inside a running process (recorder/attach.c): the entry
 * points it calls by name, and what they return.
 *
 * mctrace stops every thread of the process (ptrace), loads libmcount.so
 * through the process's own dlopen when it is not there (its
 * constructor boots the runtime), calls MC_ATTACH_START_SYM with the
 * recording's settings and lets the process run.  To end, it stops one
 * thread and calls MC_ATTACH_STOP_SYM on it while the others run (the
 * writer thread must, to finish the file), then stops them all and
 * writes back the text bytes it read before the attach.
 *
 *   int mcount_attach_start(const char *config);
 *   int mcount_attach_stop(void);
 *
 * mctrace list -p and live -p call these the same way, on one thread:
 *
 *   int mcount_attach_list(const char *path);
 *	every site, one "STATE ADDRESS FUNCTION OBJECT" line each, into
 *	the file `path`, which mctrace made: MC_ATTACH_OK or an error
 *   int mcount_attach_live(const char *spec);
 *	"+GLOB" enables, "-GLOB" disables, the functions GLOB matches, for
 *	the recording in progress: how many (>= 0), a negative MCOUNT_E*
 *	code, or MC_ATTACH_LIVE_IDLE when nothing records
 *
 * `config` is "NAME=VALUE" lines, each ended by '\n', with the
 * variables MCOUNT_TRACE* that recorder/start.c lists: while attached
 * the recorder reads these instead of the environment.
 */
#ifndef REC_ATTACH_H
#define REC_ATTACH_H

#define MC_ATTACH_START_SYM "mcount_attach_start"
#define MC_ATTACH_STOP_SYM "mcount_attach_stop"
#define MC_ATTACH_LIST_SYM "mcount_attach_list"
#define MC_ATTACH_LIVE_SYM "mcount_attach_live"
/* The recorder's writer thread's name (comm), which stop must not stop. */
#define MC_ATTACH_WRITER_NAME "mcount-writer"

enum mc_attach_status {
	MC_ATTACH_OK = 0,
	MC_ATTACH_EBUSY = 1,	/* the recorder already records (MCOUNT_TRACE,
				   or another attach) */
	MC_ATTACH_ENOSITES = 2,	/* no object has a site the runtime took */
	MC_ATTACH_EENABLED = 3,	/* the program enabled sites of its own */
	MC_ATTACH_EBOOT = 4,	/* the runtime did not boot */
	MC_ATTACH_ESTART = 5,	/* the recording did not start (the file,
				   no slot hook on this backend) */
	MC_ATTACH_ENOMEM = 6,
	MC_ATTACH_EIDLE = 7,	/* stop with no attach started */
	MC_ATTACH_EFILE = 8,	/* list: the file could not be written */
	MC_ATTACH_EAGAIN = 9,	/* start: a thread held stopped holds the
				   patching lock (inside libmcount's dlopen,
				   say): nothing done; let them run, try again */
};

#define MC_ATTACH_LIVE_IDLE (-1000)

#endif
