/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vminit.c - /init of the attach test's initramfs (tests/attach/vm.sh),
 * built static for the VM's machine: the core of tests/attach/attach.sh
 * run inside a booted kernel, where ptrace works (it does not under
 * qemu-user).  No shell, no python there: this program is the test.
 *
 *   - CYCLES (attach_cycles= on the kernel's command line, 20 if none)
 *     `mctrace record -p` cycles against /t/pads (target.c built with
 *     pads alone: mctrace loads /lib/libmcount.so.0 into it) and
 *     /t/hooks (built -pg, recorded, linked with libmcount.a), four
 *     threads each; in every window's report helper twice the calls of
 *     request and leaf as many as helper, within the calls in flight
 *     at the edges; after each, every executable file mapping's bytes
 *     as before the first (read here from /proc/PID/mem) and no thread
 *     left stopped; at the end the target's own sums and exit 0.
 *   - the busy targets, 5 cycles each as above: /t/pads forking all
 *     along; /t/hooks and /t/pads loading and unloading /t/libdl.so
 *     all along (its calls traced in hooks, dl_leaf twice per
 *     dl_request; its text as its file has it after each detach);
 *     /t/pads and /t/hooks whose main thread keeps known values in its
 *     FP and vector registers across the system calls mctrace stops it
 *     in and calls on (target.c's "fp"), each checked by the target.
 *   - list -p and live -p: a recording of /t/pads that records nothing
 *     until live enables helper and disables it 400 ms later: list -p
 *     shows it enabled alone between and nothing enabled before and
 *     after, the trace has helper alone, its calls within those 400 ms
 *     and the time the two live commands took.
 *   - refusals, each a non-zero exit, one line with its reason, and the
 *     target running on, its text as it was: no sites (/t/plain),
 *     static (/t/static), another tracer (a child of ours holds it),
 *     not ours (run as nobody: a SKIP on a kernel without MULTIUSER).
 *
 * Each verdict is a "PASS: ", "FAIL: " or "SKIP: " line on the console,
 * which vm.sh collects; "attach-vm: done" ends the run.  Then it
 * reboots, which under "qemu -no-reboot" ends QEMU.
 */
#define _GNU_SOURCE
/* /proc/PID/mem at addresses from 2 GiB up on i386: a 64-bit off_t */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MCTRACE "/bin/mctrace"

static char tag[96];
static int fails;

static void verdict(const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("%s: %s ", what, tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	fails += !strcmp(what, "FAIL");
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* The user the programs run_as runs are run as (0: ours, root). */
static uid_t run_as;

/* Start argv with stdout and stderr into `out`: its pid, or -1. */
static pid_t spawn(char *const argv[], const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || (run_as && (setgid(run_as) || setuid(run_as))))
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* The wait status of `pid`, or -1. */
static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Run argv with stdout and stderr into `out`: its wait status, or -1. */
static int run(char *const argv[], const char *out)
{
	return reap(spawn(argv, out));
}

/* The first line of `path`, without its newline, in `buf`. */
static const char *first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The last line of `path`, without its newline, in `buf`. */
static const char *last_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	while (f && fgets(buf, (int)len, f))
		;
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static long lines_of(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static bool has_text(const char *path, const char *needle)
{
	char line[512];
	FILE *f = fopen(path, "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* ---- a target ----------------------------------------------------------- */

struct target {
	const char *name;
	pid_t pid;
	char out[64];
};

/*
 * Start /t/NAME with target.c's MODE and its ARG (each NULL for none),
 * its output in /tmp/NAME.out, once it says "ready".
 */
static bool start_mode(struct target *t, const char *name, const char *mode,
		       const char *arg)
{
	char path[64];
	char *argv[] = { path, (char *)mode, mode ? (char *)arg : NULL, NULL };

	t->name = name;
	snprintf(path, sizeof(path), "/t/%s", name);
	snprintf(t->out, sizeof(t->out), "/tmp/%s.out", name);
	unlink(t->out);
	t->pid = spawn(argv, t->out);
	for (int i = 0; i < 400; i++) {
		if (has_text(t->out, "ready"))
			return true;
		nap_ms(50);
	}
	verdict("FAIL", "%s: did not start: %s", name,
		first_line(t->out, path, sizeof(path)));
	return false;
}

static bool start(struct target *t, const char *name)
{
	return start_mode(t, name, NULL, NULL);
}

/* SIGTERM, and its verdict: exit 0 and its own sums right. */
static int end_status;	/* the last target's wait status, for a FAIL */

static bool stop(struct target *t)
{
	int status = -1;

	kill(t->pid, SIGTERM);
	waitpid(t->pid, &status, 0);
	end_status = status;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	       has_text(t->out, "sums right");
}

/* ---- its text, from outside -------------------------------------------- */

struct text {
	size_t n;
	unsigned long lo[64], len[64];
	unsigned char *bytes[64];
};

static bool read_mem(pid_t pid, unsigned long lo, unsigned char *buf,
		     size_t len)
{
	char path[64];
	int fd;
	ssize_t got;

	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
	fd = open(path, O_RDONLY);
	got = fd < 0 ? -1 : pread(fd, buf, len, (off_t)lo);
	if (fd >= 0)
		close(fd);
	return got == (ssize_t)len;
}

/*
 * The library a "dlopen" target loads and unloads all along: its
 * mappings come and go, so they are left out of the text kept before
 * the cycles and compared with the file instead (lib_differs).
 */
static const char *dl_lib;

/* Every executable mapping of a file, its bytes from /proc/PID/mem. */
static bool text_of(pid_t pid, struct text *t)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	f = fopen(path, "r");
	t->n = 0;
	while (f && t->n < 64 && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 ||
		    perms[2] != 'x' || !strchr(line, '/') ||
		    (dl_lib && strstr(line, dl_lib)))
			continue;
		t->lo[t->n] = lo;
		t->len[t->n] = hi - lo;
		t->bytes[t->n] = malloc(hi - lo);
		if (t->bytes[t->n] && read_mem(pid, lo, t->bytes[t->n], hi - lo))
			t->n++;
		else
			free(t->bytes[t->n]);
	}
	if (f)
		fclose(f);
	return f && t->n > 0;
}

/* The first address whose byte differs from `was`, 0 if none does. */
static unsigned long text_differs(pid_t pid, const struct text *was)
{
	for (size_t k = 0; k < was->n; k++) {
		unsigned char *now = malloc(was->len[k]);
		unsigned long at = 0;

		if (!now || !read_mem(pid, was->lo[k], now, was->len[k]))
			at = was->lo[k];
		for (size_t i = 0; !at && i < was->len[k]; i++)
			if (now[i] != was->bytes[k][i])
				at = was->lo[k] + i;
		free(now);
		if (at)
			return at;
	}
	return 0;
}

/* The first difference lib_differs found: the 4 bytes there in each. */
static unsigned char lib_mem[4], lib_file[4];

/*
 * The length of a site's disabled form at `mem` where the file has the
 * pad's NOPs at `file` (`avail` bytes of each from there), 0 if there
 * is none: a dlopen under way at a detach (libmcount's, which saw the
 * image its host's) ends after it with the runtime's boot of the
 * library, which puts each pad in its disabled live form for good.  On
 * x86 that is `test $rel32, %eax` (a9 rel32) over the five NOPs, one
 * byte from the call (arch/x86.c); on aarch64 `mov x9, x30` over the
 * first NOP, the second left a NOP (runtime/aarch64/backend.h); on
 * riscv64 one of the two forms runtime/riscv64/backend.h gives.  An
 * enabled site (e8, bl, auipc and jalr) is a difference like any other.
 */
static size_t disabled_form(const unsigned char *mem, const unsigned char *file,
			    size_t avail)
{
#if defined(__x86_64__) || defined(__i386__)
	static const unsigned char nops[5] = { 0x90, 0x90, 0x90, 0x90, 0x90 };

	return avail >= 5 && mem[0] == 0xa9 && !memcmp(file, nops, 5) ? 5 : 0;
#elif defined(__aarch64__)
	static const unsigned char mov_x9_x30[4] = { 0xe9, 0x03, 0x1e, 0xaa };
	static const unsigned char nop[4] = { 0x1f, 0x20, 0x03, 0xd5 };

	return avail >= 4 && !memcmp(mem, mov_x9_x30, 4) &&
	       !memcmp(file, nop, 4) ? 4 : 0;
#elif defined(__riscv)
	/* four c.nop; disabled: `auipc t0` then `nop` (the `jalr` gone),
	 * or at 2 mod 4 a `c.j` over the eight bytes, the call kept */
	static const unsigned char cnops[8] = { 1, 0, 1, 0, 1, 0, 1, 0 };
	static const unsigned char nop[4] = { 0x13, 0, 0, 0 };
	static const unsigned char cj8[2] = { 0x21, 0xa0 };

	if (avail < 8 || memcmp(file, cnops, 8))
		return 0;
	if (!memcmp(mem, cj8, 2))
		return 8;
	return (mem[0] | (mem[1] & 0x0f) << 8) == 0x297 &&
	       !memcmp(mem + 4, nop, 4) ? 8 : 0;
#else
	(void)mem;
	(void)file;
	(void)avail;
	return 0;
#endif
}

/* The disabled forms lib_differs let pass, for the log. */
static long boot_forms;

/*
 * Where the `len` bytes at `lo` in `pid` first differ from those at
 * `off` in the file `path`; 0 if they do not, or if the mapping went
 * away meanwhile.
 */
static unsigned long file_differs(pid_t pid, unsigned long lo,
				  unsigned long len, const char *path, off_t off)
{
	unsigned char *mem = malloc(len + 4), *file = malloc(len + 4);
	int fd = open(path, O_RDONLY);
	unsigned long at = 0;

	if (mem && file && fd >= 0 && read_mem(pid, lo, mem, len) &&
	    pread(fd, file, len, off) == (ssize_t)len) {
		for (unsigned long i = 0; !at && i < len; i++) {
			size_t form;

			if (mem[i] == file[i])
				continue;
			form = disabled_form(mem + i, file + i, len - i);
			if (form) {
				i += form - 1;
				boot_forms++;
			} else {
				at = lo + i;
			}
		}
		if (at && at - lo + 4 <= len) {
			memcpy(lib_mem, mem + (at - lo), 4);
			memcpy(lib_file, file + (at - lo), 4);
		}
	}
	if (fd >= 0)
		close(fd);
	free(mem);
	free(file);
	return at;
}

/* dl_lib's executable mappings in `pid` now: 0 if each is as its file
 * is, else the first address that is not. */
static unsigned long lib_differs(pid_t pid)
{
	char path[64], line[512];
	unsigned long bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	f = fopen(path, "r");
	while (f && !bad && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s %lx", &lo, &hi, perms, &off) == 4 &&
		    perms[2] == 'x' && strstr(line, dl_lib))
			bad = file_differs(pid, lo, hi - lo, dl_lib, (off_t)off);
	}
	if (f)
		fclose(f);
	return bad;
}

static void text_free(struct text *t)
{
	for (size_t k = 0; k < t->n; k++)
		free(t->bytes[k]);
	t->n = 0;
}

/* Whether every thread of `pid` runs (none in state t or T). */
static bool running(pid_t pid)
{
	char path[300], stat[512];
	struct dirent *e;
	bool ok = true;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	d = opendir(path);
	while (d && ok && (e = readdir(d))) {
		const char *end;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%s/stat",
			 (long)pid, e->d_name);
		first_line(path, stat, sizeof(stat));
		end = strrchr(stat, ')');
		ok = !end || (end[2] != 't' && end[2] != 'T');
	}
	if (d)
		closedir(d);
	return d && ok;
}

/* ---- one window -------------------------------------------------------- */

/* FUNC's calls in an `mctrace report`: the number before its name. */
static long calls(const char *report, const char *func)
{
	char line[512];
	FILE *f = fopen(report, "r");
	long n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *name, *num;

		line[strcspn(line, "\n")] = '\0';
		name = strrchr(line, ' ');
		if (!name || strcmp(name + 1, func))
			continue;
		while (name > line && name[-1] == ' ')
			name--;
		*name = '\0';
		num = strrchr(line, ' ');
		n = num ? atol(num + 1) : 0;
	}
	if (f)
		fclose(f);
	return n;
}

static bool within(long a, long b)
{
	return a - b <= 8 && b - a <= 8;
}

/* The last window's counts and record -p's last line, for the PASS. */
static char last[512];
/* The cycles in which dl_lib's calls were in the trace. */
static int dl_traced;
/*
 * The window of a "dlopen" target's cycles: long enough for a load of
 * the library, its sites enabled by libmcount's dlopen and its calls,
 * under QEMU's emulation.
 */
#define DL_WINDOW "500ms"
/*
 * How far dl_leaf's calls may be from twice dl_request's: the one
 * thread calling the library makes its 32 calls a load in a burst, and
 * under emulation a burst can fall between the toggles of the two
 * sites at an edge of the window (seen: 447 and 832, 62 short, in the
 * aarch64 VM).  Two bursts' worth; a 1:1 count is still far out.
 */
#define DL_SLACK 128

/*
 * A "dlopen" target's library, after a cycle: in the hooks target,
 * whose dlopen is libmcount's, its calls traced, dl_leaf twice per
 * dl_request; in either, wherever it is mapped now, its text as its
 * file has it (no site left enabled).
 */
static bool dl_cycle(struct target *t, int k, const char *report)
{
	long req = calls(report, "dl_request"), leaf = calls(report, "dl_leaf");
	unsigned long at;

	if (!strcmp(t->name, "hooks") &&
	    (req <= 0 || leaf - 2 * req > DL_SLACK || 2 * req - leaf > DL_SLACK)) {
		verdict("FAIL", "%s dlopen cycle %d: calls dl_request %ld "
			"dl_leaf %ld", t->name, k, req, leaf);
		return false;
	}
	dl_traced += req > 0;
	at = lib_differs(t->pid);
	if (at) {
		verdict("FAIL", "%s dlopen cycle %d: %s at %#lx is not as its "
			"file: %02x%02x%02x%02x there, %02x%02x%02x%02x in it",
			t->name, k, dl_lib, at, lib_mem[0], lib_mem[1],
			lib_mem[2], lib_mem[3], lib_file[0], lib_file[1],
			lib_file[2], lib_file[3]);
		return false;
	}
	return true;
}

/* Attach, record 50 ms, detach, check: true if all held. */
static bool one_cycle(struct target *t, int k, const struct text *was)
{
	char pid[16], data[64], log[64], report[64], line[256];
	char *rec[] = { MCTRACE, "record", "-p", pid, "--duration",
			dl_lib ? DL_WINDOW : "50ms", "-o", data, NULL };
	char *rep[] = { MCTRACE, "report", data, NULL };
	long req, help, leaf;
	unsigned long at;
	int status;

	snprintf(pid, sizeof(pid), "%ld", (long)t->pid);
	snprintf(data, sizeof(data), "/tmp/%s-%d.data", t->name, k);
	snprintf(log, sizeof(log), "/tmp/%s-%d.log", t->name, k);
	snprintf(report, sizeof(report), "/tmp/%s-%d.report", t->name, k);
	status = run(rec, log);
	if (status != 0) {
		verdict("FAIL", "%s cycle %d: record -p status %#x: %s",
			t->name, k, status, first_line(log, line, sizeof(line)));
		return false;
	}
	run(rep, report);
	req = calls(report, "request");
	help = calls(report, "helper");
	leaf = calls(report, "leaf");
	if (req <= 0 || !within(help, 2 * req) || !within(leaf, help)) {
		verdict("FAIL", "%s cycle %d: calls request %ld helper %ld "
			"leaf %ld (report: %ld lines); %s", t->name, k, req,
			help, leaf, lines_of(report),
			first_line(log, line, sizeof(line)));
		return false;
	}
	if (dl_lib && !dl_cycle(t, k, report))
		return false;
	at = text_differs(t->pid, was);
	if (at || !running(t->pid)) {
		verdict("FAIL", "%s cycle %d: text differs at %#lx, or a "
			"thread stopped", t->name, k, at);
		return false;
	}
	unlink(data);
	snprintf(last, sizeof(last), "request %ld helper %ld leaf %ld; %s", req,
		 help, leaf, first_line(log, line, sizeof(line)));
	return true;
}

/*
 * The FAIL of a target's end, and what it wrote (its fault's address
 * and its mappings then, target.c's on_fault), for the console's log.
 */
static void fail_end(const struct target *t, const char *what)
{
	char line[512];
	FILE *f = fopen(t->out, "r");
	int n = 0;

	verdict("FAIL", "%s: its end, wait status %#x: %s", what, end_status,
		last_line(t->out, (char[128]){ 0 }, 128));
	while (f && n++ < 200 && fgets(line, sizeof(line), f))
		printf("  | %s", line);
	if (f)
		fclose(f);
	fflush(stdout);
}

/* N cycles against /t/NAME run with MODE and ARG, then its own end. */
static void cycles_mode(const char *name, const char *mode, const char *arg,
			int n)
{
	char what[64];
	struct target t;
	struct text was;
	int k = 1;

	snprintf(what, sizeof(what), "%s%s%s", name, mode ? " " : "",
		 mode ? mode : "");
	if (!start_mode(&t, name, mode, arg))
		return;
	if (!text_of(t.pid, &was)) {
		verdict("FAIL", "%s: cannot read its text", what);
		stop(&t);
		return;
	}
	while (k <= n && one_cycle(&t, k, &was))
		k++;
	if (k > n)
		verdict("PASS", "%s: %d cycles: counts 2:1:1, text as before, "
			"no thread stopped (last: %s)", what, n, last);
	if (stop(&t))
		verdict("PASS", "%s: its own sums right, exit 0", what);
	else
		fail_end(&t, what);
	text_free(&was);
}

static void cycles(const char *name, int n)
{
	cycles_mode(name, NULL, NULL, n);
}

/*
 * The busy targets (5 cycles each, or n if fewer; attach_busy= on the
 * kernel's command line sets it): a thread forking all
 * along (each child records on into a file of its own until it ends);
 * a thread loading and unloading /t/libdl.so all along, whose calls the
 * hooks target traces while attached and the pads target does not (its
 * dlopen was the C library's before libmcount.so came: a SKIP, as in
 * check-attach); and the main thread keeping known values in its FP
 * and vector registers across the system calls mctrace stops it in
 * and makes its calls on (target.c's "fp").
 */
static void busy(int n)
{
	const char *env = getenv("attach_busy");
	int b = env ? atoi(env) : n < 5 ? n : 5;

	cycles_mode("pads", "fork", NULL, b);
	dl_lib = "/t/libdl.so";
	cycles_mode("hooks", "dlopen", dl_lib, b);
	if (boot_forms)
		printf("%s hooks dlopen: %ld pads of the library booted after "
		       "a detach (disabled forms), none enabled\n", tag,
		       boot_forms);
	dl_traced = 0;
	cycles_mode("pads", "dlopen", dl_lib, b);
	if (dl_traced)
		verdict("FAIL", "pads dlopen: the library traced in %d cycles: "
			"update this test", dl_traced);
	else
		verdict("SKIP", "pads dlopen: a library the target loads while "
			"attached is not traced (its dlopen is not libmcount's)");
	dl_lib = NULL;
	cycles_mode("pads", "fp", NULL, b);
	cycles_mode("hooks", "fp", NULL, b);
}

/* ---- list -p and live -p ---------------------------------------------- */

/* The lines of `path` that start with `prefix`. */
static long lines_with(const char *path, const char *prefix)
{
	char line[512];
	FILE *f = fopen(path, "r");
	long n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	if (f)
		fclose(f);
	return n;
}

/*
 * In `data`'s replay (threads interleaved by time): the lines of
 * helper and of leaf, and how many of helper's come after leaf's first.
 */
static void helper_then_leaf(const char *data, long *helpers, long *leaves,
			     long *late)
{
	char *rep[] = { MCTRACE, "replay", (char *)data, NULL };
	char line[512];
	FILE *f;

	*helpers = *leaves = *late = 0;
	run(rep, "/tmp/live.replay");
	f = fopen("/tmp/live.replay", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, " helper(")) {
			(*helpers)++;
			*late += *leaves > 0;
		}
		*leaves += strstr(line, " leaf(") != NULL;
	}
	if (f)
		fclose(f);
}

/* mctrace live -p PID enable|disable FUNC: it said "1 functions ..." */
static bool live(const char *pid, const char *how, const char *func)
{
	char *argv[] = { MCTRACE, "live", "-p", (char *)pid, (char *)how,
			 (char *)func, NULL };
	char want[64];

	snprintf(want, sizeof(want), "1 functions %sd", how);
	return run(argv, "/tmp/live.out") == 0 &&
	       lines_with("/tmp/live.out", want) == 1;
}

/* list -p shows `func` alone enabled (NULL: none). */
static bool enabled_alone(const char *pid, const char *func)
{
	char *list[] = { MCTRACE, "list", "-p", (char *)pid, NULL };
	char want[64];

	snprintf(want, sizeof(want), " %s /t/pads", func ? func : "");
	return run(list, "/tmp/list.out") == 0 &&
	       lines_with("/tmp/list.out", "disabled") > 0 &&
	       lines_with("/tmp/list.out", "enabled") == (func != NULL) &&
	       (!func || has_text("/tmp/list.out", want));
}

/*
 * A recording that records nothing (-N '*') until live enables helper;
 * 400 ms later live disables it and enables leaf: list -p shows nothing
 * enabled, then helper alone, then leaf alone; the trace has helper and
 * leaf and no request, and helper's calls end where leaf's begin (by
 * the trace's own order, which no clock rate can upset: within the 8
 * calls in flight at the edge, as the windows' counts).  live after the
 * recording is refused.
 */
static void live_case(void)
{
	char pid[16], line[256];
	char *list[] = { MCTRACE, "list", "-p", pid, NULL };
	char *rec[] = { MCTRACE, "record", "-p", pid, "--duration", "3s",
			"-N", "*", "-o", "/tmp/live.data", NULL };
	char *on[] = { MCTRACE, "live", "-p", pid, "enable", "helper", NULL };
	char *rep[] = { MCTRACE, "report", "/tmp/live.data", NULL };
	long helpers, leaves, late;
	struct target t;
	bool ok;
	pid_t r;

	if (!start(&t, "pads"))
		return;
	snprintf(pid, sizeof(pid), "%ld", (long)t.pid);
	ok = run(list, "/tmp/list0") != 0 && has_text("/tmp/list0", "no libmcount");
	r = spawn(rec, "/tmp/live.log");
	for (int i = 0; i < 200 && run(list, "/tmp/list1") != 0; i++)
		nap_ms(50);
	ok = ok && enabled_alone(pid, NULL) && live(pid, "enable", "helper") &&
	     enabled_alone(pid, "helper");
	nap_ms(400);
	ok = ok && live(pid, "disable", "helper") && live(pid, "enable", "leaf") &&
	     enabled_alone(pid, "leaf");
	ok = reap(r) == 0 && run(rep, "/tmp/live.report") == 0 && ok;
	helper_then_leaf("/tmp/live.data", &helpers, &leaves, &late);
	ok = ok && calls("/tmp/live.report", "request") == 0 && helpers > 0 &&
	     leaves > 0 && late <= 8;
	if (ok && run(on, "/tmp/live3") != 0 &&
	    has_text("/tmp/live3", "nothing records"))
		verdict("PASS", "list -p and live -p: helper enabled alone, "
			"then leaf alone: %ld calls of helper, then %ld of "
			"leaf (%ld helper after the first leaf)", helpers,
			leaves, late);
	else
		verdict("FAIL", "list -p and live -p: %ld helper, %ld leaf, %ld "
			"helper after the first leaf; %s", helpers, leaves, late,
			first_line("/tmp/live.log", line, sizeof(line)));
	stop(&t);
}

/* ---- refusals ---------------------------------------------------------- */

/* record -p fails, one line saying `pattern`; the target as it was. */
static void refuse(struct target *t, const char *what, const char *pattern)
{
	char pid[16], line[256];
	char *rec[] = { MCTRACE, "record", "-p", pid, "--duration", "50ms",
			"-o", "/tmp/refused.data", NULL };
	struct text was;
	int status;

	snprintf(pid, sizeof(pid), "%ld", (long)t->pid);
	if (!text_of(t->pid, &was)) {
		verdict("FAIL", "%s: cannot read its text", what);
		return;
	}
	status = run(rec, "/tmp/refuse.log");
	first_line("/tmp/refuse.log", line, sizeof(line));
	if (status != 0 && lines_of("/tmp/refuse.log") == 1 &&
	    strstr(line, pattern) && kill(t->pid, 0) == 0 &&
	    running(t->pid) && !text_differs(t->pid, &was))
		verdict("PASS", "refused, %s: %s", what, line);
	else
		verdict("FAIL", "%s: status %#x: %s", what, status, line);
	text_free(&was);
}

static void refusal(const char *name, const char *what, const char *pattern)
{
	struct target t;

	if (!start(&t, name))
		return;
	refuse(&t, what, pattern);
	stop(&t);
}

/* Another tracer: a child of ours holds the target with PTRACE_SEIZE. */
static void refusal_traced(void)
{
	struct target t;
	int ready[2];
	pid_t seizer;
	char c = 0;

	if (!start(&t, "pads") || pipe(ready) != 0)
		return;
	seizer = fork();
	if (seizer == 0) {
		c = ptrace(PTRACE_SEIZE, t.pid, 0, 0) == 0;
		if (write(ready[1], &c, 1) != 1 || !c)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(ready[0], &c, 1) == 1 && c)
		refuse(&t, "another tracer", "already traced by process");
	else
		verdict("FAIL", "another tracer: our seize failed");
	kill(seizer, SIGKILL);
	waitpid(seizer, NULL, 0);
	stop(&t);
}

/*
 * Not ours: record -p run as nobody against a target of root's.  A
 * kernel without MULTIUSER (kernel/attach.config leaves tinyconfig's
 * choice) has no other user: every process is root, setuid fails.
 */
static void refusal_not_ours(void)
{
	const uid_t nobody = 65534;
	struct target t;
	pid_t child = fork();
	int status;

	if (child == 0)
		_exit(setuid(nobody) == 0 ? 0 : errno & 0x7f);
	status = reap(child);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		verdict("SKIP", "not ours: no other user to run it as (setuid: "
			"%s; the kernel has no MULTIUSER)",
			strerror(WIFEXITED(status) ? WEXITSTATUS(status) : 0));
		return;
	}
	if (!start(&t, "pads"))
		return;
	run_as = nobody;
	refuse(&t, "not ours", "not ours");
	run_as = 0;
	stop(&t);
}

int main(void)
{
	const char *env = getenv("attach_cycles");
	int n = env ? atoi(env) : 20;
	struct utsname u;

	setenv("LD_LIBRARY_PATH", "/lib", 1);
	mkdir("/proc", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	/* writable by all: "not ours" runs mctrace as nobody */
	mkdir("/tmp", 01777);
	chmod("/tmp", 01777);
	uname(&u);
	snprintf(tag, sizeof(tag), "[attach-vm %s]", u.machine);
	printf("attach-vm: start\n");
	fflush(stdout);
	cycles("pads", n > 0 ? n : 20);
	cycles("hooks", n > 0 ? n : 20);
	busy(n > 0 ? n : 20);
	live_case();
	refusal("plain", "no sites", "no sites");
	refusal("static", "static", "static");
	refusal_traced();
	refusal_not_ours();
	printf("attach-vm: done, %d failed\n", fails);
	fflush(stdout);
	sync();
	/* only as a VM's init: never the machine it was run on by mistake */
	if (getpid() == 1)
		reboot(RB_AUTOBOOT);
	return fails != 0;
}
