/* SPDX-License-Identifier: MIT */
/*
 * args.c - the arguments and return values a recording captures
 * (MCOUNT_TRACE_ARGS, mctrace record -A/-R): which functions, read from
 * which registers, and the MCT_DATA events that carry them (format.h).
 *
 *   MCOUNT_TRACE_ARGS=SPEC;SPEC...   each GLOB@ITEM,ITEM..., an ITEM
 *                                    argN or retval, then optionally /F
 *                                    with F one of d i u x p c s and a
 *                                    size in bits (8 16 32 64; the
 *                                    register's if none), as uftrace's
 *                                    -A and -R
 *
 * A glob picks a function as -F's do (globs.c): by its symbol, or for a
 * C++ one by its name alone as mctrace shows it, or demangled whole but
 * for a template function's return type (libstdc++'s __cxa_demangle
 * demangles: the program's, or loaded for a glob with `::` in a program
 * linked without it).  Only the integer argument
 * registers are read (arch/'s table of the psABI): arguments passed on
 * the stack, floating-point ones and structs are refused by name.
 *
 * Only the functions picked pay: their sites are put in a table at the
 * start, and their calls go through the trampoline's general-register
 * path (recorder.h, rec_entry_args), which finds the registers it
 * saved (by its frame record on aarch64, from the slot it passed where
 * REC_ARGS_FROM_SLOT) and the function in the table.  The fused entry of a recording
 * that captures values (x86_64's rec_fentry_args) tells them from the
 * others by a byte of rec_args_map, and takes the others itself; a
 * recording that captures nothing keeps the plain fused entry,
 * untouched.  A function whose return value is captured returns
 * through rec_return_value_tramp.
 *
 * A string argument is copied at entry, at most REC_STR_MAX bytes, with
 * process_vm_readv on the process itself, which fails on memory that is
 * not there instead of faulting: a bad pointer is recorded as one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <mcount.h>

#include "../arch/arch.h"
#include "../runtime/client.h"
#include "recorder.h"
#include "ring.h"

#define REC_STR_MAX 64

/*
 * The backends that capture: the ABI's nth integer argument in the
 * registers their entry hook saved (recorder.h, rec_entry_args), where
 * a hook sees them (args_lost_at: why not), and a copy of our own
 * memory that fails instead of faulting (read_self): every backend
 * with a runtime (a new one without them refuses -A/-R).  On
 * x86_64 this runs where no libc call may touch a vector register
 * (REC_GPR_ONLY): the system calls are made here; elsewhere the
 * trampolines saved them all, and libc is called.
 */
#if defined(__x86_64__)
const bool rec_values_capture = true, rec_args_capture = true;

/* Both hooks run before the body: the argument registers are intact. */
static const char *args_lost_at(const struct mcount_site_info *s,
				uintptr_t start)
{
	(void)s;
	(void)start;
	return NULL;
}

/* The trampoline saved %rdi %rsi %rdx %rcx %r8 %r9: the psABI's order. */
static inline uint64_t arch_arg(const uintptr_t *regs, unsigned n)
{
	return regs[n - 1];
}

/* process_vm_readv(getpid(), ...): the bytes read, or -errno. */
static long read_self(void *to, const void *from, size_t n)
{
	struct iovec local = { to, n }, remote = { (void *)from, n };
	long pid, ret;
	register struct iovec *riov __asm__("r10") = &remote;
	register long riovcnt __asm__("r8") = 1;
	register long flags __asm__("r9") = 0;

	__asm__ volatile("syscall" : "=a"(pid)
			 : "0"(39L) : "rcx", "r11", "memory");	/* getpid */
	__asm__ volatile("syscall" : "=a"(ret)	/* process_vm_readv */
			 : "0"(310L), "D"(pid), "S"(&local), "d"(1L),
			   "r"(riov), "r"(riovcnt), "r"(flags)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
const bool rec_values_capture = true, rec_args_capture = true;

/*
 * GCC's -pg hook runs after the prologue, which may already have moved
 * the arguments (and passes x30 in x0): only a pad, at the entry, sees
 * them.  A return value is seen from every hook.
 */
static const char *args_lost_at(const struct mcount_site_info *s,
				uintptr_t start)
{
	(void)start;
	return s->style == MCOUNT_STYLE_PAD ? NULL :
		"its -pg hook runs after its prologue may have moved the "
		"arguments (build it with -fpatchable-function-entry=2; "
		"-R works either way)";
}

/* The trampoline saved x0-x7 in order: AAPCS64's argument registers. */
static inline uint64_t arch_arg(const uintptr_t *regs, unsigned n)
{
	return regs[n - 1];
}

#elif defined(REC_ARGS_FROM_SLOT)
const bool rec_values_capture = true, rec_args_capture = true;

static const char *args_lost_at(const struct mcount_site_info *s,
				uintptr_t start)
{
	return rec_arch_args_lost(s, start);
}

/* rec_arch_args's area: the argument registers in the psABI's order. */
static inline uint64_t arch_arg(const uintptr_t *regs, unsigned n)
{
	return regs[n - 1];
}

#if defined(__powerpc64__)
#include "../runtime/ppc64le/frame.h"

/*
 * The trampoline's frame is found by the back chain, from ours: the
 * -pg form's slot is in the caller's frame, which says nothing of the
 * trampoline's.  It is the one whose back chain is MC_RT_PPC_FRAME
 * above it and whose saved LR is `func`, within the frames of
 * mc_rt_dispatch_slot and this path (each may or may not make one:
 * four at -O0, with a margin).
 */
const uintptr_t *rec_arch_args(uintptr_t func, const uintptr_t *slot)
{
	const uintptr_t *sp = __builtin_frame_address(0);

	(void)slot;
	for (int i = 0; i < 6 && sp; i++, sp = (const uintptr_t *)sp[0])
		if (sp[0] == (uintptr_t)sp + MC_RT_PPC_FRAME &&
		    sp[MC_RT_PPC_FR_LR / 8] == func)
			return sp + MC_RT_PPC_FR_GPR / 8 + 3;	/* r3 */
	return NULL;
}

/*
 * A -mprofile-kernel hook and a pad run before the prologue; a -pg
 * hook after it, where the compilers schedule some of the body (GCC:
 * the arguments moved to saved registers, a sum of them): refused if
 * that code may write an argument register (arch/powerpc.c reads it).
 */
#define PPC_PROLOGUE_MAX 1024
const char *rec_arch_args_lost(const struct mcount_site_info *s,
			       uintptr_t start)
{
	if (s->style != MCOUNT_STYLE_MCOUNT)
		return NULL;
	if (!start || s->at < start || s->at - start > PPC_PROLOGUE_MAX ||
	    !mc_arch_ppc64le_args_kept((const uint8_t *)start, s->at - start))
		return "its prologue may write r3-r10 before its -pg hook "
		       "(build it with -pg -mprofile-kernel; -R works either "
		       "way)";
	return NULL;
}
#endif

#ifdef MC_RT_ARGS_FROM_SLOT
/* Every site's the same way from its slot (runtime/<arch>/backend.h). */
const uintptr_t *rec_arch_args(uintptr_t func, const uintptr_t *slot)
{
	(void)func;
	return slot + MC_RT_ARGS_FROM_SLOT;
}
#endif

#if defined(__s390x__) || defined(__i386__)
/*
 * Every s390x hook runs before the prologue: -pg -mfentry's and a pad
 * at the entry, -pg's block (stg %r14; brasl; lg) first thing too.
 * i386's arguments are in the caller's frame, which no prologue
 * writes.
 */
const char *rec_arch_args_lost(const struct mcount_site_info *s,
			       uintptr_t start)
{
	(void)s;
	(void)start;
	return NULL;
}
#endif

#else
const bool rec_values_capture = false, rec_args_capture = false;

static const char *args_lost_at(const struct mcount_site_info *s,
				uintptr_t start)
{
	(void)s;
	(void)start;
	return NULL;
}

static inline uint64_t arch_arg(const uintptr_t *regs, unsigned n)
{
	(void)regs;
	(void)n;
	return 0;
}
#endif

#ifndef __x86_64__
/*
 * Where process_vm_readv is missing (qemu-user has none), a pipe of the
 * process's: the kernel copies what write() is given and fails on
 * memory that is not readable.  One copy at a time through it; a child
 * of fork makes its own, not to mix its bytes with its parent's.
 */
static int copy_pipe[2] = { -1, -1 };
static pid_t copy_pid;
static pthread_mutex_t copy_lock = PTHREAD_MUTEX_INITIALIZER;

static long read_by_pipe(void *to, const void *from, size_t n)
{
	long got;

	pthread_mutex_lock(&copy_lock);
	if (copy_pipe[0] >= 0 && copy_pid != getpid()) {
		close(copy_pipe[0]);
		close(copy_pipe[1]);
		copy_pipe[0] = -1;
	}
	if (copy_pipe[0] < 0 && pipe2(copy_pipe, O_CLOEXEC) != 0)
		copy_pipe[0] = -1;
	copy_pid = getpid();
	got = copy_pipe[0] < 0 ? -1 : write(copy_pipe[1], from, n);
	if (got > 0)
		got = read(copy_pipe[0], to, (size_t)got);
	pthread_mutex_unlock(&copy_lock);
	return got;
}

/*
 * The trampoline saved every argument register, vectors too, before
 * the hook: libc may be called.  errno is the program's: kept.  A
 * string that ends near the end of its mapping is read again up to
 * there where the whole is refused.
 */
static long read_self(void *to, const void *from, size_t n)
{
	struct iovec local = { to, n }, remote = { (void *)from, n };
	size_t page = 4096 - ((uintptr_t)from & 4095);
	int err = errno;
	long got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	if (got < 0 && errno == ENOSYS) {
		got = read_by_pipe(to, from, n);
		if (got < 0 && page < n)
			got = read_by_pipe(to, from, page);
	}
	errno = err;
	return got;
}
#endif

/* The sites picked, by their hook's return address (open addressing). */
static struct site_args {
	uintptr_t ret;		/* 0: free */
	struct rec_args *args;
} *table;
static size_t table_mask;
static struct rec_args *specs;	/* one per function picked */
static size_t nspecs;
bool rec_args_on;

/* A parsed SPEC: its glob and what it captures. */
struct spec {
	char glob[256];
	struct rec_args what;
};

static bool bad_spec(const char *spec, const char *why)
{
	fprintf(stderr, "mcount: trace: -A/-R '%s': %s\n", spec, why);
	return false;
}

/* "/F[BITS]" at `p` into *a: false if it is not one. */
static bool parse_format(const char *p, struct rec_arg *a)
{
	static const char formats[] = "diuxpcs";
	char *end;
	unsigned long bits;

	a->fmt = 'd';
	a->bits = 8 * sizeof(uintptr_t);	/* the whole register */
	if (!*p)
		return true;
	if (*p != '/' || !p[1] || !strchr(formats, p[1]))
		return false;
	a->fmt = p[1] == 'i' ? 'd' : p[1];
	if (a->fmt == 'c')
		a->bits = 8;
	if (!p[2])
		return true;
	bits = strtoul(p + 2, &end, 10);
	if (*end || (bits != 8 && bits != 16 && bits != 32 && bits != 64) ||
	    a->fmt == 's' || a->fmt == 'p')
		return false;
	a->bits = (uint8_t)bits;
	return true;
}

/* One ITEM of `spec` (`item`, `n` bytes) into *w. */
static bool parse_item(const char *spec, const char *item, size_t n,
		       struct rec_args *w)
{
	const struct mc_arch *arch = MC_RT_ARCH;
	char buf[64], msg[160];
	struct rec_arg a;
	char *end;
	unsigned long k;

	if (n >= sizeof(buf))
		return bad_spec(spec, "an item too long");
	memcpy(buf, item, n);
	buf[n] = '\0';
	if (!strncmp(buf, "retval", 6)) {
		if (!parse_format(buf + 6, &a))
			return bad_spec(spec, "retval's format is not one of "
					"/d /i /u /x /p /c /s with 8 16 32 64");
		a.which = 0;
		w->ret = a;
		w->has_ret = true;
		return true;
	}
	if (!strncmp(buf, "fparg", 5))
		return bad_spec(spec, "floating-point arguments are not "
				"captured (only integers and pointers)");
	if (strncmp(buf, "arg", 3) || buf[3] < '1' || buf[3] > '9')
		return bad_spec(spec, "an item is neither argN nor retval");
	k = strtoul(buf + 3, &end, 10);
	if (end[0] == '%')
		return bad_spec(spec, "registers and stack offsets (%...) are "
				"not taken");
	if (!parse_format(end, &a))
		return bad_spec(spec, "a format is not one of /d /i /u /x /p "
				"/c /s with 8 16 32 64");
	if (!rec_args_capture && k <= arch->n_int_arg_regs) {
		snprintf(msg, sizeof(msg), "arguments are not captured on %s "
			 "yet (-R's return value is)", arch->name);
		return bad_spec(spec, msg);
	}
	if (arch->int_args_on_stack &&
	    (k > arch->n_int_arg_regs || k > MCT_DATA_MAX_ARGS)) {
		snprintf(msg, sizeof(msg), "arg%lu is past the %u stack words "
			 "read on %s (its ABI passes every argument on the "
			 "stack)", k, arch->n_int_arg_regs, arch->name);
		return bad_spec(spec, msg);
	}
	if (k > arch->n_int_arg_regs || k > MCT_DATA_MAX_ARGS) {
		snprintf(msg, sizeof(msg), "arg%lu is passed on the stack on "
			 "%s (%u integer arguments in registers), which is "
			 "not captured", k, arch->name, arch->n_int_arg_regs);
		return bad_spec(spec, msg);
	}
	if (w->nargs == MCT_DATA_MAX_ARGS)
		return bad_spec(spec, "too many arguments");
	a.which = (uint8_t)k;
	w->arg[w->nargs++] = a;
	return true;
}

/* SPEC at `s` (`n` bytes) into *out. */
static bool parse_spec(const char *s, size_t n, struct spec *out)
{
	char spec[512];
	const char *at, *p;

	if (n >= sizeof(spec))
		return bad_spec("...", "a spec too long");
	memcpy(spec, s, n);
	spec[n] = '\0';
	memset(out, 0, sizeof(*out));
	at = strchr(spec, '@');
	if (!at || at == spec || !at[1])
		return bad_spec(spec, "not FUNC@arg1,...  or FUNC@retval");
	if ((size_t)(at - spec) >= sizeof(out->glob))
		return bad_spec(spec, "a glob too long");
	memcpy(out->glob, spec, (size_t)(at - spec));
	for (p = at + 1; *p;) {
		size_t k = strcspn(p, ",");

		if (!k || !parse_item(spec, p, k, &out->what))
			return k ? false : bad_spec(spec, "an empty item");
		p += k + (p[k] == ',');
	}
	return true;
}

/* The ring events an entry of `w` takes for its values, at most. */
static unsigned entry_events(const struct rec_args *w)
{
	unsigned n = 0;

	for (unsigned i = 0; i < w->nargs; i++)
		n += 1 + (w->arg[i].fmt == 's' ? (REC_STR_MAX + 7) / 8 : 0);
	return n;
}

unsigned rec_args_ret_events(const struct rec_args *w)
{
	return 1 + (w->ret.fmt == 's' ? (REC_STR_MAX + 7) / 8 : 0);
}

/*
 * What `add` captures, added to *to in the order the specs give them,
 * as uftrace shows them (a later spec of an argument, or of the return
 * value, replaces one).
 */
static void merge(struct rec_args *to, const struct rec_args *add)
{
	for (unsigned i = 0; i < add->nargs; i++) {
		struct rec_arg a = add->arg[i];
		unsigned k = 0;

		while (k < to->nargs && to->arg[k].which != a.which)
			k++;
		if (k == MCT_DATA_MAX_ARGS)
			break;
		to->arg[k] = a;
		if (k == to->nargs)
			to->nargs++;
	}
	if (add->has_ret) {
		to->ret = add->ret;
		to->has_ret = true;
	}
	to->events = entry_events(to) +
		     (to->has_ret ? rec_args_ret_events(to) : 0);
}

/*
 * The demangler for the specs' globs (globs.c); `::` in one loads it
 * when the program has none.
 */
static rec_demangler_fn demangler(const struct spec *sp, size_t n)
{
	const char **globs = calloc(n + 1, sizeof(*globs));
	rec_demangler_fn d;

	for (size_t k = 0; globs && k < n; k++)
		globs[k] = sp[k].glob;
	d = rec_find_demangler(globs, globs ? n : 0);
	free(globs);
	return d;
}

struct bind {
	const struct spec *specs;
	size_t n;
	rec_demangler_fn demangle;
	size_t *matched;	/* per spec: functions it picked */
	bool count_only;
	size_t sites;
	bool refused;		/* a function's arguments cannot be read */
	size_t keys;		/* the table's entries for the sites */
};

#ifdef REC_FUSED_ENTRY
#include "x86_64/entry.h"

uint8_t rec_args_map[REC_ARGS_MAP_MASK + 1];

static void map_put(uintptr_t ret)
{
	rec_args_map[(ret >> REC_ARGS_MAP_SHIFT) & REC_ARGS_MAP_MASK] = 1;
}
#else
static void map_put(uintptr_t ret)
{
	(void)ret;
}
#endif

static void table_put(uintptr_t ret, struct rec_args *a)
{
	size_t i = (ret * 0x9e3779b97f4a7c15ull >> 20) & table_mask;

	while (table[i].ret && table[i].ret != ret)
		i = (i + 1) & table_mask;
	table[i] = (struct site_args){ ret, a };
	map_put(ret);
}

/*
 * Site `s` in the table, by the return address of its hook's call,
 * which names its calls (recorder.h): right after the bytes the engine
 * rewrites (s->len from s->at) for most forms, but inside them for a
 * few (s390x's -pg block returns before its last instruction), so
 * every instruction boundary in them is a key; none of them is another
 * function's.
 */
static void put_site(const struct mcount_site_info *s, struct rec_args *a)
{
	unsigned step = MC_RT_ARCH->insn_step ? MC_RT_ARCH->insn_step : 1;

	for (unsigned k = step; k < s->len; k += step)
		table_put(s->at + k, a);
	table_put(s->at + s->len, a);
}

static int bind_one(const struct mcount_site_info *s, void *arg)
{
	struct bind *b = arg;
	unsigned long off;
	const char *name = mcount_func_name(s->at, &off);
	struct rec_glob_name gn = { .sym = name, .demangle = b->demangle };
	struct rec_args w = { 0 };
	const char *why;
	bool any = false;

	if (!name || s->state == MCOUNT_SITE_REFUSED)
		return 0;
	for (size_t k = 0; k < b->n; k++)
		if (rec_glob_picks(b->specs[k].glob, &gn)) {
			merge(&w, &b->specs[k].what);
			b->matched[k]++;
			any = true;
		}
	rec_glob_name_free(&gn);
	if (!any)
		return 0;
	if (w.nargs && b->count_only &&
	    (why = args_lost_at(s, off <= s->at ? s->at - off : 0))) {
		fprintf(stderr, "mcount: trace: -A: %s: %s\n", name, why);
		b->refused = true;
	}
	if (!b->count_only) {
		specs[b->sites] = w;
		put_site(s, &specs[b->sites]);
	}
	b->sites++;
	b->keys += s->len + 1;
	return 0;
}

/* The sites the specs pick, put in the table: false if out of memory. */
static bool bind_sites(const struct spec *sp, size_t n)
{
	struct bind b = { .specs = sp, .n = n };
	size_t size = 16;

	b.demangle = demangler(sp, n);
	b.matched = calloc(n, sizeof(*b.matched));
	if (!b.matched)
		return false;
	b.count_only = true;
	mcount_for_each_site(bind_one, &b);
	if (b.refused) {
		free(b.matched);
		return false;
	}
	while (size < 2 * b.keys)
		size *= 2;
	specs = calloc(b.sites + 1, sizeof(*specs));
	table = calloc(size, sizeof(*table));
	if (!specs || !table) {
		free(b.matched);
		return false;
	}
	table_mask = size - 1;
	nspecs = b.sites;
	memset(b.matched, 0, n * sizeof(*b.matched));
	b.count_only = false;
	b.sites = 0;
	mcount_for_each_site(bind_one, &b);
	for (size_t k = 0; k < n; k++)
		if (!b.matched[k])
			fprintf(stderr, "mcount: trace: -A/-R: no function "
				"matches '%s'\n", sp[k].glob);
	free(b.matched);
	return true;
}

bool rec_args_start(void)
{
	const char *v = rec_getenv("MCOUNT_TRACE_ARGS");
	struct spec *sp = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;

	if (!v || !*v)
		return true;
	if (rec_cfg.json) {
		fprintf(stderr, "mcount: trace: -A/-R: the values go in the "
			"recorder's own format, not its JSON (mctrace record "
			"-o FILE.json converts it): nothing recorded\n");
		return false;
	}
	if (!rec_values_capture) {
		fprintf(stderr, "mcount: trace: -A/-R: arguments and return "
			"values are not captured on %s yet: nothing "
			"recorded\n", MC_RT_ARCH->name);
		return false;
	}
	for (const char *p = v; *p && ok;) {
		size_t k = strcspn(p, ";");

		if (k) {
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				struct spec *more = realloc(sp, cap *
							     sizeof(*sp));

				if (!more) {
					free(sp);
					return false;
				}
				sp = more;
			}
			ok = parse_spec(p, k, &sp[n++]);
		}
		p += k + (p[k] == ';');
	}
	if (ok && n)
		ok = bind_sites(sp, n);
	free(sp);
	rec_args_on = ok && nspecs;
	return ok;
}

const struct rec_args *rec_args_of(uintptr_t ret)
{
	size_t i = (ret * 0x9e3779b97f4a7c15ull >> 20) & table_mask;

	if (!table)
		return NULL;
	while (table[i].ret) {
		if (table[i].ret == ret)
			return table[i].args;
		i = (i + 1) & table_mask;
	}
	return NULL;
}

/* An integer argument's event: its bits, as the format reads them. */
static void put_int(struct rec_thread *t, const struct rec_arg *a,
		    uint64_t v)
{
	rec_ring_put(t, MCT_DATA_WORD(a->which, a->fmt, a->bits, 0), v);
}

/*
 * A string argument's events: the pointer and what it led to, then its
 * bytes, 8 to an event.  Read without a fault (rec_read_self).
 */
static void put_string(struct rec_thread *t, const struct rec_arg *a,
		       uint64_t ptr)
{
	char buf[REC_STR_MAX];
	long got = ptr ? read_self(buf, (const void *)(uintptr_t)ptr,
				   sizeof(buf)) : 0;
	unsigned len = 0, how = MCT_STR_NULL;

	if (ptr && got <= 0) {
		how = MCT_STR_BAD;
	} else if (ptr) {	/* no libc here: a loop */
		while (len < (unsigned)got && buf[len])
			len++;
		how = len < (unsigned)got ? MCT_STR_OK : MCT_STR_CUT;
	}
	rec_ring_put(t, MCT_DATA_WORD(a->which, 's', how, len), ptr);
	for (unsigned i = 0; i < len; i += 8) {
		unsigned k = len - i < 8 ? len - i : 8;
		uint64_t w = 0;

		for (unsigned b = 0; b < k; b++)	/* little-endian bytes */
			w |= (uint64_t)(uint8_t)buf[i + b] << 8 * b;
		rec_ring_put(t, MCT_DATA_MORE | MCT_DATA |
			     (uint64_t)k << 24, w);
	}
}

void rec_args_put(struct rec_thread *t, const struct rec_args *w,
		  const uintptr_t *regs)
{
	for (unsigned i = 0; i < w->nargs; i++) {
		const struct rec_arg *a = &w->arg[i];
		uint64_t v = arch_arg(regs, a->which);

		if (a->fmt == 's')
			put_string(t, a, v);
		else
			put_int(t, a, v);
	}
}

void rec_args_put_ret(struct rec_thread *t, const struct rec_args *w,
		      uintptr_t value)
{
	if (w->ret.fmt == 's')
		put_string(t, &w->ret, value);
	else
		put_int(t, &w->ret, value);
}
