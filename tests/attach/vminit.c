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
 *   - refusals, each a non-zero exit, one line with its reason, and the
 *     target running on, its text as it was: no sites (/t/plain),
 *     static (/t/static), another tracer (a child of ours holds it).
 *
 * Each verdict is a "PASS: ", "FAIL: " or "SKIP: " line on the console,
 * which vm.sh collects; "attach-vm: done" ends the run.  Then it
 * reboots, which under "qemu -no-reboot" ends QEMU.
 */
#define _GNU_SOURCE
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

/* Run argv with stdout and stderr into `out`: its wait status, or -1. */
static int run(char *const argv[], const char *out)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
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

/* Start /t/NAME, its output in /tmp/NAME.out, once it says "ready". */
static bool start(struct target *t, const char *name)
{
	char path[64];

	t->name = name;
	snprintf(path, sizeof(path), "/t/%s", name);
	snprintf(t->out, sizeof(t->out), "/tmp/%s.out", name);
	unlink(t->out);
	t->pid = fork();
	if (t->pid == 0) {
		int fd = open(t->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 1);
		dup2(fd, 2);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 400; i++) {
		if (has_text(t->out, "ready"))
			return true;
		nap_ms(50);
	}
	verdict("FAIL", "%s: did not start: %s", name,
		first_line(t->out, path, sizeof(path)));
	return false;
}

/* SIGTERM, and its verdict: exit 0 and its own sums right. */
static bool stop(struct target *t)
{
	int status = -1;

	kill(t->pid, SIGTERM);
	waitpid(t->pid, &status, 0);
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
		    perms[2] != 'x' || !strchr(line, '/'))
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

/* Attach, record 50 ms, detach, check: true if all held. */
static bool one_cycle(struct target *t, int k, const struct text *was)
{
	char pid[16], data[64], log[64], report[64], line[256];
	char *rec[] = { MCTRACE, "record", "-p", pid, "--duration", "50ms",
			"-o", data, NULL };
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
			"leaf %ld", t->name, k, req, help, leaf);
		return false;
	}
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

static void cycles(const char *name, int n)
{
	struct target t;
	struct text was;
	int k = 1;

	if (!start(&t, name))
		return;
	if (!text_of(t.pid, &was)) {
		verdict("FAIL", "%s: cannot read its text", name);
		stop(&t);
		return;
	}
	while (k <= n && one_cycle(&t, k, &was))
		k++;
	if (k > n)
		verdict("PASS", "%s: %d cycles: counts 2:1:1, text as before, "
			"no thread stopped (last: %s)", name, n, last);
	if (stop(&t))
		verdict("PASS", "%s: its own sums right, exit 0", name);
	else
		verdict("FAIL", "%s: its end: %s", name,
			first_line(t.out, (char[128]){ 0 }, 128));
	text_free(&was);
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

int main(void)
{
	const char *env = getenv("attach_cycles");
	int n = env ? atoi(env) : 20;
	struct utsname u;

	setenv("LD_LIBRARY_PATH", "/lib", 1);
	mkdir("/proc", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mkdir("/tmp", 01777);
	uname(&u);
	snprintf(tag, sizeof(tag), "[attach-vm %s]", u.machine);
	printf("attach-vm: start\n");
	fflush(stdout);
	cycles("pads", n > 0 ? n : 20);
	cycles("hooks", n > 0 ? n : 20);
	refusal("plain", "no sites", "no sites");
	refusal("static", "static", "static");
	refusal_traced();
	printf("attach-vm: done, %d failed\n", fails);
	fflush(stdout);
	sync();
	/* only as a VM's init: never the machine it was run on by mistake */
	if (getpid() == 1)
		reboot(RB_AUTOBOOT);
	return fails != 0;
}
