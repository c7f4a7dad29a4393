/* SPDX-License-Identifier: MIT */
/*
 * wrap.c - library functions the recorder must see called, because they
 * leave frames without returning through them or end the process image:
 * the unwinder's entry points and the C++ catch, pthread_exit, exec.
 *
 * Exceptions.  The unwinder walks frames by their return addresses, and
 * a hijacked frame's is the return trampoline, which it cannot step
 * through.  So before any unwind starts (_Unwind_RaiseException, and
 * _Unwind_Resume_or_Rethrow for `throw;`) every return address of the
 * thread is written back, and the unwinder sees the program exactly as
 * it would untraced.  When a handler catches (__cxa_begin_catch), the
 * frames below the catching function's stack pointer are gone: they get
 * their exit events then, and the frames still live get the trampoline
 * back.  Unwinding that only runs cleanups and resumes needs nothing:
 * the addresses stay written back until the catch.  (The alternative,
 * CFI on the trampoline that leads the unwinder to the real address,
 * would need the thread's shadow stack in a DWARF expression, which
 * cannot read thread-local storage.)
 *
 * pthread_exit unwinds the thread through glibc's own copy of the
 * unwinder, which no wrapper reaches (and a wrapper would have no next
 * definition to call in a static program): its unwind ends at the first
 * hijacked frame as at the thread's outermost one (return.S), glibc
 * ends the thread, and the thread's end closes its frames (record.c).
 * C++ destructors of frames above that one do not run while recording.
 *
 * exec: the trace is finished before the image goes, and the new image,
 * if it records, writes a file of its own (MCOUNT_TRACE_ROOT is kept in
 * its environment).
 *
 * Each wrapper is weak and calls the next definition (dlsym RTLD_NEXT),
 * so a program that defines the function itself keeps its own.  They
 * act only when a recording runs.  A program linked statically has no
 * next definition to find: there the unwinder's own definitions
 * (libgcc_eh) win over these weak ones, so exceptions through traced
 * frames cannot be recorded, and exec goes to the system call (execvp
 * and execlp search PATH themselves).
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder.h"

#define WEAK __attribute__((weak))

extern char **environ;

/* The next definition of `name`, looked up once. */
static void *next(void **cache, const char *name)
{
	void *p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!p) {
		p = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, p, __ATOMIC_RELEASE);
	}
	if (!p) {
		fprintf(stderr, "mcount: trace: no %s to call (a static "
			"program?)\n", name);
		abort();
	}
	return p;
}

/* `real`: the next `name`, of function pointer type `type`. */
#define NEXT(type, name)                                                   \
	static void *name##_cache;                                         \
	type real = (type)next(&name##_cache, #name)

struct _Unwind_Exception;
typedef int unwind_code;
typedef unwind_code (*unwind_fn)(struct _Unwind_Exception *);
typedef void *(*catch_fn)(void *);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

/* The caller's stack pointer before it called us: our frame's CFA. */
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa() - MC_RT_CFA_FROM_SP)

WEAK unwind_code _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	NEXT(unwind_fn, _Unwind_RaiseException);
	unwind_code r;

	rec_unwind_begin();
	r = real(e);
	rec_unwind_caught(CALLER_SP());	/* no handler: all still live */
	return r;
}

WEAK unwind_code _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	NEXT(unwind_fn, _Unwind_Resume_or_Rethrow);
	unwind_code r;

	rec_unwind_begin();
	r = real(e);
	rec_unwind_caught(CALLER_SP());
	return r;
}

WEAK void *__cxa_begin_catch(void *e)
{
	NEXT(catch_fn, __cxa_begin_catch);
	void *r = real(e);

	rec_unwind_caught(CALLER_SP());
	return r;
}

/* ---- exec ---------------------------------------------------------------- */

/*
 * `envp`, with MCOUNT_TRACE_ROOT added when it names a recording and
 * lacks it, in `out` (room for the entries and two more); else envp.
 */
static char *const *keep_root(char *const envp[], char **out, size_t room)
{
	static char root[64];
	const char *mine = getenv("MCOUNT_TRACE_ROOT");
	bool traced = false;
	size_t n = 0;

	if (!mine || !envp)
		return envp;
	for (; envp[n]; n++) {
		if (strncmp(envp[n], "MCOUNT_TRACE_ROOT=", 18) == 0)
			return envp;
		traced |= strncmp(envp[n], "MCOUNT_TRACE=", 13) == 0;
	}
	if (!traced || n + 2 > room)
		return envp;
	snprintf(root, sizeof(root), "MCOUNT_TRACE_ROOT=%s", mine);
	memcpy(out, envp, n * sizeof(*out));
	out[n] = root;
	out[n + 1] = NULL;
	return out;
}

static size_t count(char *const v[])
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

WEAK int execve(const char *path, char *const argv[], char *const envp[])
{
	static void *execve_cache;
	void *p = __atomic_load_n(&execve_cache, __ATOMIC_ACQUIRE);
	size_t room = count(envp) + 2;
	char **env = alloca(room * sizeof(*env));

	if (!p) {
		p = dlsym(RTLD_NEXT, "execve");
		__atomic_store_n(&execve_cache, p, __ATOMIC_RELEASE);
	}
	rec_finish();
	envp = keep_root(envp, env, room);
	if (!p)		/* static: the system call itself */
		return (int)syscall(SYS_execve, path, argv, envp);
	return ((execvpe_fn)p)(path, argv, envp);
}

WEAK int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

/* A static program's execvpe: PATH searched here, as glibc does. */
static int search_path(const char *file, char *const argv[],
		       char *const envp[])
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(file, '/'))
		return execve(file, argv, envp);
	for (path = path ? path : "/bin:/usr/bin"; ; path++) {
		size_t n = strcspn(path, ":");

		if (n + strlen(file) + 2 <= sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, path,
				 n ? "/" : "", file);
			execve(buf, argv, envp);
		}
		path += n;
		if (!*path)
			return -1;
	}
}

WEAK int execvpe(const char *file, char *const argv[], char *const envp[])
{
	static void *execvpe_cache;
	void *p = __atomic_load_n(&execvpe_cache, __ATOMIC_ACQUIRE);
	size_t room = count(envp) + 2;
	char **env = alloca(room * sizeof(*env));

	if (!p) {
		p = dlsym(RTLD_NEXT, "execvpe");
		__atomic_store_n(&execvpe_cache, p, __ATOMIC_RELEASE);
	}
	rec_finish();
	envp = keep_root(envp, env, room);
	if (!p)
		return search_path(file, argv, envp);
	return ((execvpe_fn)p)(file, argv, envp);
}

WEAK int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp, execle: their arguments gathered into an array. */
#define GATHER(first, ap, argv)                                            \
	do {                                                               \
		size_t n_ = 1;                                             \
		va_list c_;                                                \
		va_copy(c_, ap);                                           \
		while (va_arg(c_, char *))                                 \
			n_++;                                              \
		va_end(c_);                                                \
		argv = alloca((n_ + 1) * sizeof(char *));                  \
		argv[0] = (char *)(first);                                 \
		for (size_t i_ = 1; i_ <= n_; i_++)                        \
			argv[i_] = va_arg(ap, char *);                     \
	} while (0)

WEAK int execl(const char *path, const char *arg, ...)
{
	char **argv;
	va_list ap;

	va_start(ap, arg);
	GATHER(arg, ap, argv);
	va_end(ap);
	return execve(path, argv, environ);
}

WEAK int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	va_list ap;

	va_start(ap, arg);
	GATHER(arg, ap, argv);
	va_end(ap);
	return execvpe(file, argv, environ);
}

WEAK int execle(const char *path, const char *arg, ...)
{
	char **argv, **envp;
	va_list ap;

	va_start(ap, arg);
	GATHER(arg, ap, argv);
	envp = va_arg(ap, char **);
	va_end(ap);
	return execve(path, argv, envp);
}
