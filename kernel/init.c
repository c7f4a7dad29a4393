/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * init.c - /init of the boot test's initramfs (built with gcc -static).
 *
 * Mounts proc, sysfs and tracefs, measures what ftrace knows, traces
 * one function that surely runs, loads the out-of-tree module
 * (/mctest.ko) and traces one of its functions, and prints every figure
 * on its own line as "mctest: key=value" for kernel/boot.sh to parse.
 * Then it
 * reboots: the test kernel has no ACPI, so a power-off would only halt
 * the CPU, while a reboot under "qemu -no-reboot" ends QEMU at once.
 * Built with -DMC_POWER_OFF (lib.sh's INIT_CFLAGS, sparc64) it powers
 * off instead: there the reboot goes through OpenBIOS, which cannot,
 * and the kernel panics ("Reboot failed!") in a loop, while its
 * power-off ends QEMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRACING "/sys/kernel/tracing"

/* Functions every read(2) passes through, best first. */
static const char *const candidates[] = { "vfs_read", "ksys_read", NULL };

static void say(const char *fmt, ...)
{
	va_list ap;

	printf("mctest: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void mount_fs(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, NULL) != 0 && errno != EBUSY)
		say("error=mount %s on %s: %s", type, dir, strerror(errno));
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, text, strlen(text));
		close(fd);
	}
	if (n != (ssize_t)strlen(text)) {
		say("error=write '%s' to %s: %s", text, path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Lines of `path`; with `want`, only the lines equal to it, or with
 * `prefix`, only those that start with it.
 */
static long count_lines(const char *path, const char *want, bool prefix)
{
	FILE *f = fopen(path, "r");
	char line[512];
	long n = 0;

	if (!f) {
		say("error=open %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!want || (prefix ? strncmp(line, want, strlen(want))
				     : strcmp(line, want)) == 0)
			n++;
	}
	fclose(f);
	return n;
}

/*
 * Lines of `path` equal to the line before them: in
 * available_filter_functions (in address order), sites that kallsyms
 * gives the name of the function before them.
 */
static long count_repeated_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], prev[512] = "";
	long n = 0;

	if (!f) {
		say("error=open %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, prev) == 0)
			n++;
		strcpy(prev, line);
	}
	fclose(f);
	return n;
}

/* Prints the first line of `path` under the name `key`. */
static void show_first_line(const char *key, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512] = "";

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	say("%s=%s", key, line);
}

static void do_reads(int rounds)
{
	char buf[256];

	for (int i = 0; i < rounds; i++) {
		int fd = open("/proc/version", O_RDONLY);

		if (fd < 0)
			return;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

/*
 * Counts the trace lines of `fn` ("... vfs_read <-ksys_read") and
 * prints the first one as a sample.
 */
static long count_trace_hits(const char *fn)
{
	FILE *f = fopen(TRACING "/trace", "r");
	char line[512], needle[128];
	long hits = 0;

	if (!f) {
		say("error=open trace: %s", strerror(errno));
		return -1;
	}
	snprintf(needle, sizeof(needle), " %s <-", fn);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strstr(line, needle))
			continue;
		if (hits++ == 0) {
			line[strcspn(line, "\n")] = '\0';
			say("trace_sample=%s", line);
		}
	}
	fclose(f);
	return hits;
}

static void trace_one_function(void)
{
	const char *fn = NULL;

	for (int i = 0; candidates[i] && !fn; i++)
		if (count_lines(TRACING "/available_filter_functions",
				candidates[i], false) > 0)
			fn = candidates[i];
	if (!fn) {
		say("error=none of vfs_read, ksys_read is traceable");
		return;
	}
	say("filter=%s", fn);
	if (write_file(TRACING "/set_ftrace_filter", fn) ||
	    write_file(TRACING "/current_tracer", "function") ||
	    write_file(TRACING "/tracing_on", "1"))
		return;
	say("enabled_functions=%ld",
	    count_lines(TRACING "/enabled_functions", NULL, false));
	do_reads(20);
	write_file(TRACING "/tracing_on", "0");
	say("trace_hits=%ld", count_trace_hits(fn));
	write_file(TRACING "/current_tracer", "nop");
}

/* Lines of `path` that end with `suffix`. */
static long count_suffix_lines(const char *path, const char *suffix)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = strlen(suffix);
	long hits = 0;

	if (!f) {
		say("error=open %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len;

		line[strcspn(line, "\n")] = '\0';
		len = strlen(line);
		if (len >= n && strcmp(line + len - n, suffix) == 0)
			hits++;
	}
	fclose(f);
	return hits;
}

/*
 * The out-of-tree module (kernel/module/mctest.c): load it, count the
 * functions ftrace lists for it, trace mctest_work() and make the
 * module run it through its "poke" parameter.
 */
static void trace_module_function(void)
{
#ifdef MC_NO_MODULE
	/* lib.sh's MODULE_BLOCKER: the module is not in the initramfs. */
	say("module_skipped");
	return;
#endif
	int fd = open("/mctest.ko", O_RDONLY);

	if (fd < 0) {
		say("error=open /mctest.ko: %s", strerror(errno));
		return;
	}
	if (syscall(SYS_finit_module, fd, "", 0) != 0) {
		say("error=finit_module mctest.ko: %s", strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	say("module_loaded=mctest");
	say("module_functions=%ld",
	    count_suffix_lines(TRACING "/available_filter_functions",
			       " [mctest]"));
	if (write_file(TRACING "/trace", "") ||
	    write_file(TRACING "/set_ftrace_filter", "mctest_work") ||
	    write_file(TRACING "/current_tracer", "function") ||
	    write_file(TRACING "/tracing_on", "1"))
		return;
	for (int i = 0; i < 3; i++)
		write_file("/sys/module/mctest/parameters/poke", "1");
	write_file(TRACING "/tracing_on", "0");
	say("module_trace_hits=%ld", count_trace_hits("mctest_work"));
	write_file(TRACING "/current_tracer", "nop");
}

int main(void)
{
	mount_fs("proc", "/proc");
	mount_fs("sysfs", "/sys");
	mount_fs("tracefs", TRACING);
	say("start");
	show_first_line("kernel", "/proc/version");
	say("available_filter_functions=%ld",
	    count_lines(TRACING "/available_filter_functions", NULL, false));
	/* Sites kallsyms cannot name: ftrace lists and disables them. */
	say("invalid_addresses=%ld",
	    count_lines(TRACING "/available_filter_functions",
			"__ftrace_invalid_address__", true));
	say("repeated_names=%ld",
	    count_repeated_lines(TRACING "/available_filter_functions"));
	show_first_line("dyn_ftrace_total_info",
			TRACING "/dyn_ftrace_total_info");
	trace_one_function();
	trace_module_function();
	say("done");
	sync();
#ifdef MC_POWER_OFF
	reboot(RB_POWER_OFF);
#else
	reboot(RB_AUTOBOOT);
#endif
	return 1;
}
